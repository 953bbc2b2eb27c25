/** SAN-10 TIL_GITHUB_COMMIT workflow. */
import { patched, proxyActivities, proxyLocalActivities } from '@temporalio/workflow';
import { localProjectionOptions, PROJECTION_RETRY, PROVIDER_HEARTBEAT_TIMEOUT } from '../../core/activity-options';
import type { GithubActivities } from '../../activities/scraps/github';
import type { GithubCommitActivities } from '../../activities/scraps/github-commits';
import type { JobWorkflowInput, JobWorkflowResult } from '../../core/contracts';
import { formatCauseChain } from '../../core/cause-chain';
import { localFirstActivities, runJob } from '../core/job-runner';

/** til_github_commits projection activities (`jobs` queue): idempotent, retried until the database answers. */
function commitProjection(input: JobWorkflowInput) {
  return proxyActivities<GithubCommitActivities>({
    taskQueue: input.queues.jobs,
    startToCloseTimeout: '30s',
    retry: PROJECTION_RETRY,
  });
}

/**
 * `patched()` ID of the til_github_commits writes (begin, complete, fail) as local activities
 * first, the `jobs`-queue activities their fallback: no task round trip per write. Histories
 * without its marker replay on the activity branch.
 */
export const COMMIT_LOCAL_WRITES_PATCH = 'til-commit-local-writes';

/**
 * GitHub activity options (`github` queue): heartbeats detect a dead worker within
 * PROVIDER_HEARTBEAT_TIMEOUT; up to 8 attempts, a rate-limited attempt waiting as long as GitHub
 * asks (nextRetryDelay).
 */
function githubActivities(input: JobWorkflowInput) {
  return proxyActivities<GithubActivities>({
    taskQueue: input.queues.github,
    startToCloseTimeout: '1m',
    heartbeatTimeout: PROVIDER_HEARTBEAT_TIMEOUT,
    retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '1m', maximumAttempts: 8 },
  });
}

/**
 * SAN-10 TIL_GITHUB_COMMIT, workflow ID `til-github-commit:<commitId>`: async_jobs and
 * til_github_commits → PROCESSING, the contents PUT on the `github` queue (exactly one commit even
 * when retried after GitHub accepted it), then the SHA and URL recorded and both → COMPLETED; on
 * failure both → FAILED with the cause chain. Retry: GitHub up to 8 attempts, terminal errors once.
 * The row writes run local-first ({@link COMMIT_LOCAL_WRITES_PATCH}).
 */
export async function tilGithubCommitWorkflow(input: JobWorkflowInput): Promise<JobWorkflowResult> {
  const commits = localFirstActivities(patched(COMMIT_LOCAL_WRITES_PATCH), proxyLocalActivities<GithubCommitActivities>(localProjectionOptions()), commitProjection(input));
  const commitId = input.targetId;
  return runJob(input, async () => {
    try {
      const status = await commits.beginCommit(commitId);
      if (status === 'COMPLETED') {
        await commits.completeCommit({ jobId: input.jobId, commitId });
        return;
      }
      const result = await githubActivities(input).commitTilToGithub({ commitId });
      await commits.completeCommit({ jobId: input.jobId, commitId, outcome: { commitSha: result.commitSha, htmlUrl: result.htmlUrl } });
    } catch (err) {
      await commits.failCommit(commitId, formatCauseChain(err));
      throw err;
    }
  });
}
