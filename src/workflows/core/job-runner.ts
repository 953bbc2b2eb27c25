/**
 * Shared skeleton of every job workflow (SAN-4, DC-3): PROCESSING, the work, then COMPLETED (done
 * by the work's own transactional activity) or FAILED with the cause chain; the workflow then fails
 * too, so operators find it with `ExecutionStatus="Failed"`.
 */
import { CancellationScope, isCancellation, proxyActivities, workflowInfo, type ApplicationFailure } from '@temporalio/workflow';
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
 * SAN-4: the job's answer to a cancellation of its workflow (`temporal workflow cancel`): records
 * FAILED `cancelled: <reason>` in a non-cancellable scope, and returns JOB_CANCELLED
 * (non-retryable, `cause` = the cancellation) for the workflow to throw. For family workflows
 * with a skeleton of their own: `catch (err) { if (isCancellation(err)) throw await jobCancelled(input, err); … }`.
 */
export async function jobCancelled(input: JobWorkflowInput, err: unknown): Promise<ApplicationFailure> {
  const { workflowId, runId } = workflowInfo();
  const { errorMessage } = await CancellationScope.nonCancellable(() =>
    projectionActivities(input).failCancelledJob({ jobId: input.jobId, jobType: input.jobType, targetId: input.targetId, workflowId, runId }),
  );
  return failure(CORE_FAILURES, 'JOB_CANCELLED', `${input.jobType} job ${input.jobId} ${errorMessage}`, {
    cause: err instanceof Error ? err : undefined,
  });
}

/**
 * Runs `work` between beginJob and the FAILED bookkeeping. A row that is already terminal (a late
 * duplicate start) returns SKIPPED without doing anything. Throws JOB_FAILED (non-retryable) with
 * the work's failure as its cause; a cancellation of the workflow records FAILED `cancelled: …`
 * and throws JOB_CANCELLED ({@link jobCancelled}).
 */
export async function runJob(input: JobWorkflowInput, work: () => Promise<void>): Promise<JobWorkflowResult> {
  const jobs = projectionActivities(input);
  let begun = false;
  try {
    const begin = await jobs.beginJob(input.jobId);
    if (!begin.proceed) return { jobId: input.jobId, status: 'SKIPPED' };
    begun = true;
    await work();
  } catch (err) {
    if (isCancellation(err)) throw await jobCancelled(input, err);
    if (!begun) throw err;
    // Not cancellable: a cancellation arriving now must not leave the row PROCESSING.
    await CancellationScope.nonCancellable(() => jobs.failJob(input.jobId, formatCauseChain(err)));
    throw failure(CORE_FAILURES, 'JOB_FAILED', `${input.jobType} job ${input.jobId} failed`, {
      cause: err instanceof Error ? err : undefined,
    });
  }
  return { jobId: input.jobId, status: 'COMPLETED' };
}
