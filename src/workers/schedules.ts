/** Temporal Schedules created idempotently at `jobs` worker start-up (SAN-4 reconciler). */
import { ScheduleAlreadyRunning, ScheduleOverlapPolicy, type Client } from '@temporalio/client';
import type { Config } from '../config';
import type { TaskQueues } from '../shared/contracts';
import type { ReconcileInput } from '../workflows/maintenance';

/** Schedule ID of the pending-job reconciler, prefixed like the task queues. */
export function reconcileScheduleId(config: Config): string {
  return `${config.temporal.taskQueuePrefix}reconcile-pending-jobs`;
}

/**
 * Creates the reconciler schedule (every RECONCILE_INTERVAL_SECONDS, overlap SKIP) or, when it
 * exists, updates its interval and input to the current config. Returns the schedule ID.
 */
export async function ensureReconcileSchedule(client: Client, config: Config, queues: TaskQueues): Promise<string> {
  const scheduleId = reconcileScheduleId(config);
  const input: ReconcileInput = { queues, graceSeconds: config.reconcile.graceSeconds };
  const every = `${config.reconcile.intervalSeconds}s`;
  const action = {
    type: 'startWorkflow' as const,
    workflowType: 'reconcilePendingJobsWorkflow',
    workflowId: `${scheduleId}-run`,
    taskQueue: queues.jobs,
    args: [input],
  };
  try {
    await client.schedule.create({
      scheduleId,
      spec: { intervals: [{ every }] },
      action,
      policies: { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: '1m' },
    });
  } catch (err) {
    if (!(err instanceof ScheduleAlreadyRunning)) throw err;
    await client.schedule.getHandle(scheduleId).update((prev) => ({
      ...prev,
      spec: { intervals: [{ every }] },
      action,
    }));
  }
  return scheduleId;
}
