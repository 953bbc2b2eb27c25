/** Operational workflows: the pending-job reconciler (SAN-4) and the benchmark baseline. */
import { proxyActivities } from '@temporalio/workflow';
import { MAINTENANCE_RETRY } from '../../core/activity-options';
import type { JobActivities, ReconcileReport } from '../../activities/core/jobs';
import type { TaskQueues } from '../../core/contracts';

/** Input of {@link reconcilePendingJobsWorkflow}. */
export interface ReconcileInput {
  queues: TaskQueues;
  graceSeconds: number;
  limit?: number;
}

/**
 * SAN-4 durability: starts workflows of PENDING jobs whose start was lost (API died after commit).
 * Run by the `reconcile-pending-jobs` Schedule; safe to run at any time and concurrently.
 */
export async function reconcilePendingJobsWorkflow(input: ReconcileInput): Promise<ReconcileReport> {
  const jobs = proxyActivities<JobActivities>({
    taskQueue: input.queues.jobs,
    startToCloseTimeout: '2m',
    retry: MAINTENANCE_RETRY,
  });
  return jobs.startStalePendingJobs({ graceSeconds: input.graceSeconds, limit: input.limit ?? 500 });
}

/** Benchmark baseline: a workflow that does nothing (no activities). */
export async function noopWorkflow(): Promise<string> {
  return 'ok';
}
