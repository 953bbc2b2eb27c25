/**
 * Shared skeleton of every job workflow (SAN-4, DC-3): PROCESSING, the work, then COMPLETED (done
 * by the work's own transactional activity) or FAILED with the cause chain; the workflow then fails
 * too, so operators find it with `ExecutionStatus="Failed"`.
 */
import { ApplicationFailure, proxyActivities } from '@temporalio/workflow';
import type { AiActivities } from '../../activities/san/ai';
import type { JobActivities } from '../../activities/core/jobs';
import type { JobWorkflowInput, JobWorkflowResult } from '../../core/contracts';
import { formatCauseChain } from '../../core/errors';

/** Projection activities: idempotent, retried until the database answers. */
export function projectionActivities(input: JobWorkflowInput) {
  return proxyActivities<JobActivities>({
    taskQueue: input.queues.jobs,
    startToCloseTimeout: '30s',
    retry: { initialInterval: '500ms', backoffCoefficient: 2, maximumInterval: '30s' },
  });
}

/**
 * `ai`-queue activities (DC-2): heartbeats detect a dead worker within `heartbeatTimeout`; at most 4
 * attempts with exponential backoff; a provider's Retry-After overrides the next delay.
 * `startToCloseTimeout` per attempt: 2 min for one scrap, longer for a whole day of cards.
 */
export function aiActivities(input: JobWorkflowInput, startToCloseTimeout = '2m', heartbeatTimeout = '10s') {
  return proxyActivities<AiActivities>({
    taskQueue: input.queues.ai,
    startToCloseTimeout,
    heartbeatTimeout,
    retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '30s', maximumAttempts: 4 },
  });
}

/**
 * Runs `work` between beginJob and the FAILED bookkeeping. A row that is already terminal (a late
 * duplicate start) returns SKIPPED without doing anything.
 */
export async function runJob(input: JobWorkflowInput, work: () => Promise<void>): Promise<JobWorkflowResult> {
  const jobs = projectionActivities(input);
  const begin = await jobs.beginJob(input.jobId);
  if (!begin.proceed) return { jobId: input.jobId, status: 'SKIPPED' };
  try {
    await work();
  } catch (err) {
    await jobs.failJob(input.jobId, formatCauseChain(err));
    throw ApplicationFailure.create({
      message: `${input.jobType} job ${input.jobId} failed`,
      type: 'JOB_FAILED',
      nonRetryable: true,
      cause: err instanceof Error ? err : undefined,
    });
  }
  return { jobId: input.jobId, status: 'COMPLETED' };
}
