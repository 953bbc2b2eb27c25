/**
 * SAN-10 til_github_commits status: PENDING → PROCESSING → COMPLETED | FAILED (and PENDING →
 * FAILED), its own state machine beside async_jobs (DC-3). Every write is a guarded conditional
 * update committed on its own, so a late or repeated transition is a no-op and a commit row's
 * status never waits on other work.
 */
import type { Prisma } from '@prisma/client';
import type { DbClient, TransitionResult } from '../../core/projection';
import type { JobStatus } from '../../core/contracts';
import { workflowSourcesOf } from '../../core/job-state';

/** Result recorded with COMPLETED. */
export interface CommitOutcome {
  commitSha: string;
  htmlUrl: string;
}

/**
 * Moves commit `commitId` to `to` when legal, recording `outcome` with COMPLETED and
 * `errorMessage` with FAILED. Returns the status after the call (null: no row).
 */
export async function transitionCommit(
  db: DbClient,
  commitId: string,
  to: JobStatus,
  extra: { outcome?: CommitOutcome; errorMessage?: string } = {},
): Promise<TransitionResult> {
  const data: Prisma.TilGithubCommitUpdateManyMutationInput = { status: to };
  if (to === 'COMPLETED' || to === 'FAILED') data.finishedAt = new Date();
  if (to === 'COMPLETED' && extra.outcome) {
    data.commitSha = extra.outcome.commitSha;
    data.htmlUrl = extra.outcome.htmlUrl;
  }
  if (to === 'FAILED') data.errorMessage = extra.errorMessage ?? 'failed';
  const { count } = await db.tilGithubCommit.updateMany({ where: { id: commitId, status: { in: workflowSourcesOf(to) } /* commits never re-open */ }, data });
  if (count === 1) return { changed: true, status: to };
  const row = await db.tilGithubCommit.findUnique({ where: { id: commitId }, select: { status: true } });
  return { changed: false, status: row?.status ?? null };
}
