/**
 * Target hooks of the knowledge-scrap family (SAN-6, SAN-10, SAN-11, DC-3): what core recovery and
 * retry do to a SAN job's target when they move its async_jobs row, declared in the manifest.
 */
import type { DbClient } from '../../db/client';
import type { JobStatus } from '../../core/contracts';
import type { TargetHooks } from '../../core/target-hooks';
import { TIL_GITHUB_COMMIT_STATES } from '../../domain/scraps/commit-state';
import { transitionCommit } from './commit-projection';

/**
 * SAN-11 / DC-3: recall_quiz_generations.status mirrors its RECALL_QUIZ_GENERATION job. Call in the
 * same transaction as the job's transition; idempotent.
 */
export async function mirrorGeneration(tx: DbClient, generationId: string, status: JobStatus): Promise<void> {
  await tx.recallQuizGeneration.updateMany({ where: { id: generationId, status: { not: status } }, data: { status } });
}

/** RECALL_QUIZ_GENERATION: the generation row follows its job (recovery FAILED, re-enqueue PENDING). */
export const recallQuizTarget: TargetHooks = {
  mirror: mirrorGeneration,
};

/**
 * TIL_GITHUB_COMMIT (SAN-10): re-runnable only while its til_github_commits row is live, since that
 * row never leaves FAILED (a new request makes a new commit); a job that stays FAILED fails its
 * live commit row too.
 */
export const tilCommitTarget: TargetHooks = {
  async mayRequeue(tx, commitId) {
    const c = await tx.tilGithubCommit.findUnique({ where: { id: commitId }, select: { status: true } });
    return c !== null && TIL_GITHUB_COMMIT_STATES.isActive(c.status);
  },
  closedHint: 'its GitHub commit is closed; request a new commit: POST /til/{summaryId}/github-commits',
  async giveUp(db, commitId, errorMessage) {
    await transitionCommit(db, commitId, 'FAILED', { errorMessage });
  },
};
