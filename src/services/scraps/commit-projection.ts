/**
 * SAN-10 til_github_commits status, its own state machine beside async_jobs
 * (src/domain/scraps/commit-state.ts, DC-3). Every write is a guarded conditional update committed
 * on its own, so a late or repeated transition is a no-op and a commit row's status never waits on
 * other work.
 */
import type { Prisma } from '@prisma/client';
import type { DbClient } from '../../core/projection';
import type { JobStatus } from '../../core/contracts';
import { guardedTransition, type TransitionResult } from '../../core/guarded-transition';
import { TIL_GITHUB_COMMIT_STATES } from '../../domain/scraps/commit-state';

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
  to: Exclude<JobStatus, 'PENDING'>,
  extra: { outcome?: CommitOutcome; errorMessage?: string } = {},
): Promise<TransitionResult<JobStatus>> {
  const data: Prisma.TilGithubCommitUpdateManyMutationInput = { status: to };
  if (to === 'COMPLETED' || to === 'FAILED') data.finishedAt = new Date();
  if (to === 'COMPLETED' && extra.outcome) {
    data.commitSha = extra.outcome.commitSha;
    data.htmlUrl = extra.outcome.htmlUrl;
  }
  if (to === 'FAILED') data.errorMessage = extra.errorMessage ?? 'failed';
  return guardedTransition(TIL_GITHUB_COMMIT_STATES, {
    to,
    write: (from) => db.tilGithubCommit.updateMany({ where: { id: commitId, status: { in: from } }, data }),
    read: () => db.tilGithubCommit.findUnique({ where: { id: commitId }, select: { status: true } }),
  });
}
