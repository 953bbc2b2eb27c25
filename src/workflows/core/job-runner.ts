/**
 * Shared skeleton of every job workflow (SAN-4, DC-3): PROCESSING, the work, then COMPLETED (done
 * by the work's own transactional activity) or FAILED with the cause chain; the workflow then fails
 * too, so operators find it with `ExecutionStatus="Failed"`.
 */
import { proxyActivities } from '@temporalio/workflow';
import type { JobActivities } from '../../activities/core/jobs';
import { projectionOptions } from '../../core/activity-options';
import type { JobWorkflowInput, JobWorkflowResult } from '../../core/contracts';
import { formatCauseChain } from '../../core/errors';
import { CORE_FAILURES, failure } from '../../core/failures';

/** The core's projection activities on the `jobs` queue: idempotent, bounded retries (PROJECTION_RETRY). */
export function projectionActivities(input: Pick<JobWorkflowInput, 'queues'>) {
  return proxyActivities<JobActivities>(projectionOptions(input.queues.jobs));
}

/**
 * Runs `work` between beginJob and the FAILED bookkeeping. A row that is already terminal (a late
 * duplicate start) returns SKIPPED without doing anything. Throws JOB_FAILED (non-retryable) with
 * the work's failure as its cause.
 */
export async function runJob(input: JobWorkflowInput, work: () => Promise<void>): Promise<JobWorkflowResult> {
  const jobs = projectionActivities(input);
  const begin = await jobs.beginJob(input.jobId);
  if (!begin.proceed) return { jobId: input.jobId, status: 'SKIPPED' };
  try {
    await work();
  } catch (err) {
    await jobs.failJob(input.jobId, formatCauseChain(err));
    throw failure(CORE_FAILURES, 'JOB_FAILED', `${input.jobType} job ${input.jobId} failed`, {
      cause: err instanceof Error ? err : undefined,
    });
  }
  return { jobId: input.jobId, status: 'COMPLETED' };
}
