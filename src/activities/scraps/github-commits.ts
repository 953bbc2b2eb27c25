/**
 * SAN-10 projection activities for TIL_GITHUB_COMMIT on the `jobs` task queue: the
 * til_github_commits status moves in its own guarded transactions, then async_jobs in its own.
 * Every call is idempotent by commitId / jobId (a repeated or late transition is a no-op).
 */
import { log as activityLog } from '@temporalio/activity';
import type { PrismaClient } from '@prisma/client';
import { transitionCommit, type CommitOutcome } from '../../services/scraps/commit-projection';
import { transitionJob } from '../../core/projection';
import type { JobStatus } from '../../core/contracts';
import { failure } from '../../core/failures';
import { SAN_FAILURES } from '../../domain/scraps/errors';

/** Dependencies of the commit projection activities. */
export interface GithubCommitActivityDeps {
  db: PrismaClient;
}

/** Builds the TIL_GITHUB_COMMIT projection activities (`jobs` queue). */
export function createGithubCommitActivities({ db }: GithubCommitActivityDeps) {
  return {
    /**
     * SAN-10: til_github_commits PENDING → PROCESSING; PROCESSING again (retry, replay) proceeds.
     * Returns the status: COMPLETED means the commit was already recorded (only the job is left).
     * Non-retryable COMMIT_NOT_FOUND, COMMIT_NOT_ACTIVE (FAILED: a new POST makes a new commit).
     */
    async beginCommit(commitId: string): Promise<JobStatus> {
      const r = await transitionCommit(db, commitId, 'PROCESSING');
      if (r.status === null) throw failure(SAN_FAILURES, 'COMMIT_NOT_FOUND', `til_github_commit ${commitId} not found`);
      if (r.status === 'FAILED') {
        throw failure(SAN_FAILURES, 'COMMIT_NOT_ACTIVE', `til_github_commit ${commitId} already FAILED; request a new commit`);
      }
      activityLog.info('commit begin', { commitId, status: r.status, changed: r.changed });
      return r.status;
    },

    /**
     * SAN-10: records the commit SHA and URL and moves til_github_commits to COMPLETED (its own
     * transaction), then async_jobs to COMPLETED. Without `outcome` only the job is completed
     * (the commit row already holds it). Idempotent.
     */
    async completeCommit(args: { jobId: string; commitId: string; outcome?: CommitOutcome }): Promise<void> {
      const c = await transitionCommit(db, args.commitId, 'COMPLETED', { outcome: args.outcome });
      if (c.status !== 'COMPLETED') {
        throw failure(SAN_FAILURES, 'COMMIT_NOT_ACTIVE', `til_github_commit ${args.commitId} is ${c.status ?? 'missing'}, cannot complete`);
      }
      await transitionJob(db, args.jobId, 'COMPLETED');
      activityLog.info('commit completed', { commitId: args.commitId, jobId: args.jobId, changed: c.changed });
    },

    /** SAN-10: til_github_commits PENDING|PROCESSING → FAILED with the cause chain; no-op when terminal. */
    async failCommit(commitId: string, errorMessage: string): Promise<JobStatus | null> {
      const r = await transitionCommit(db, commitId, 'FAILED', { errorMessage });
      activityLog.warn('commit failed', { commitId, changed: r.changed, errorMessage });
      return r.status;
    },
  };
}

/** Type of the commit projection activities, for `proxyActivities`. */
export type GithubCommitActivities = ReturnType<typeof createGithubCommitActivities>;
