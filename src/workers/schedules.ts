/** Temporal Schedules created idempotently at `jobs` worker start-up (SAN-4 reconciler, SAN-6 recovery). */
import { ScheduleAlreadyRunning, ScheduleOverlapPolicy, type Client } from '@temporalio/client';
import type { Config } from '../config';
import type { TaskQueues } from '../core/contracts';
import type { ReconcileInput } from '../workflows/core/maintenance';
import type { RecoveryInput } from '../workflows/core/recovery';

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

/** SAN-6 recovery schedules: schedule name (before the prefix) → the workflow it runs. */
export const RECOVERY_SCHEDULES = {
  'recovery-stale-jobs': 'recoverStaleJobsWorkflow',
  'recovery-failed-jobs': 'retryFailedJobsWorkflow',
  'recovery-missing-cards': 'recoverMissingCardsWorkflow',
  'recovery-unrefined-scraps': 'recoverUnrefinedScrapsWorkflow',
} as const;
export type RecoveryScheduleName = keyof typeof RECOVERY_SCHEDULES;

/** Schedule ID of a SAN-6 recovery rule, prefixed like the task queues. */
export function recoveryScheduleId(config: Config, name: RecoveryScheduleName): string {
  return `${config.temporal.taskQueuePrefix}${name}`;
}

/**
 * SAN-6: creates the four recovery schedules (every RECOVERY_INTERVAL_MINUTES, overlap SKIP, input
 * from the RECOVERY_* config) or, when they exist, updates interval and input to the current config.
 * Idempotent. Returns the schedule IDs.
 */
export async function ensureRecoverySchedules(client: Client, config: Config, queues: TaskQueues): Promise<string[]> {
  const input: RecoveryInput = {
    queues,
    pendingStaleMinutes: config.recovery.pendingStaleMinutes,
    processingStaleMinutes: config.recovery.processingStaleMinutes,
    maxRetries: config.recovery.maxRetries,
    batchSize: config.recovery.batchSize,
  };
  const every = `${config.recovery.intervalMinutes}m`;
  const ids: string[] = [];
  for (const [name, workflowType] of Object.entries(RECOVERY_SCHEDULES) as [RecoveryScheduleName, string][]) {
    const scheduleId = recoveryScheduleId(config, name);
    const action = { type: 'startWorkflow' as const, workflowType, workflowId: `${scheduleId}-run`, taskQueue: queues.jobs, args: [input] };
    try {
      await client.schedule.create({
        scheduleId,
        spec: { intervals: [{ every }] },
        action,
        policies: { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: '10m' },
      });
    } catch (err) {
      if (!(err instanceof ScheduleAlreadyRunning)) throw err;
      await client.schedule.getHandle(scheduleId).update((prev) => ({ ...prev, spec: { intervals: [{ every }] }, action }));
    }
    ids.push(scheduleId);
  }
  return ids;
}
