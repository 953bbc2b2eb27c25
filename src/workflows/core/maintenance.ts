/** Operational workflows: the pending-job reconciler (SAN-4), the idempotency-record purge and the benchmark baseline. */
import { patched, proxyActivities } from '@temporalio/workflow';
import { MAINTENANCE_RETRY } from '../../core/activity-options';
import type { JobActivities, ReconcileReport } from '../../activities/core/jobs';
import type { IdempotencyPurgeActivities, PurgeIdempotencyInput } from '../../activities/core/idempotency-purge';
import type { TaskQueues } from '../../core/contracts';

/** Input of {@link reconcilePendingJobsWorkflow}. */
export interface ReconcileInput {
  queues: TaskQueues;
  graceSeconds: number;
  /** Rows per pass (default 500). */
  limit?: number;
  /** Terminated / timed-out job runs closed within this many seconds are matched with their rows (default 900). */
  closedLookbackSeconds?: number;
}

/**
 * SAN-4 durability: starts workflows of PENDING jobs whose start was lost (API died after commit),
 * never a second run of a job; then (DC-3) fails the rows of job runs that were terminated or timed
 * out, since no workflow code ran to do it. Run by the `reconcile-pending-jobs` Schedule on the
 * `maintenance` queue (its activities run on the same queue as the workflow, never behind a
 * backlog of job work); safe to run at any time and concurrently.
 */
export async function reconcilePendingJobsWorkflow(input: ReconcileInput): Promise<ReconcileReport> {
  const jobs = proxyActivities<JobActivities>({
    startToCloseTimeout: '10m',
    heartbeatTimeout: '30s',
    retry: MAINTENANCE_RETRY,
  });
  const limit = input.limit ?? 500;
  const report = await jobs.startStalePendingJobs({ graceSeconds: input.graceSeconds, limit });
  if (!patched('reconcile-closed-runs')) return report;
  const closed = await jobs.failClosedRuns({ jobsTaskQueue: input.queues.jobs, lookbackSeconds: input.closedLookbackSeconds ?? 900, limit });
  return { ...report, closedFailed: closed.failed };
}

/**
 * AR-7/PO-1: deletes expired Idempotency-Key records. Run by the `purge-idempotency-records`
 * Schedule (IDEMPOTENCY_PURGE_INTERVAL_MINUTES) on the `maintenance` queue; safe at any time.
 */
export async function purgeIdempotencyRecordsWorkflow(input: PurgeIdempotencyInput = {}): Promise<{ deleted: number }> {
  const { purgeIdempotencyRecords } = proxyActivities<IdempotencyPurgeActivities>({
    startToCloseTimeout: '10m',
    heartbeatTimeout: '1m',
    retry: MAINTENANCE_RETRY,
  });
  return purgeIdempotencyRecords(input);
}

/** Benchmark baseline: a workflow that does nothing (no activities). */
export async function noopWorkflow(): Promise<string> {
  return 'ok';
}
