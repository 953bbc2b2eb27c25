/** Temporal Schedules created idempotently at `jobs` worker start-up (SAN-4 reconciler, SAN-6 recovery). */
import { ScheduleAlreadyRunning, ScheduleOverlapPolicy, type Client } from '@temporalio/client';
import type { Config } from '../config';
import { maintenanceTaskQueue, type TaskQueues } from '../core/contracts';
import type { ReconcileInput } from '../workflows/core/maintenance';
import type { RecoveryInput } from '../workflows/core/recovery';
import { FAMILY_RECONCILE_SCHEDULES, FAMILY_SCHEDULES } from '../families';
import type { ScheduleDecl } from '../families/manifest';

/** Schedule ID of the pending-job reconciler, prefixed like the task queues. */
export function reconcileScheduleId(config: Config): string {
  return `${config.temporal.taskQueuePrefix}reconcile-pending-jobs`;
}

/**
 * Creates the reconciler schedule (every RECONCILE_INTERVAL_SECONDS, overlap SKIP, on the
 * `maintenance` task queue so it never waits behind job work) or, when it exists, updates its
 * interval, queue and input to the current config. Returns the schedule ID.
 */
export async function ensureReconcileSchedule(client: Client, config: Config, queues: TaskQueues): Promise<string> {
  const scheduleId = reconcileScheduleId(config);
  const input: ReconcileInput = {
    queues,
    graceSeconds: config.reconcile.graceSeconds,
    closedLookbackSeconds: config.reconcile.closedLookbackSeconds,
  };
  const every = `${config.reconcile.intervalSeconds}s`;
  const action = {
    type: 'startWorkflow' as const,
    workflowType: 'reconcilePendingJobsWorkflow',
    workflowId: `${scheduleId}-run`,
    taskQueue: maintenanceTaskQueue(config.temporal.taskQueuePrefix),
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

/**
 * The families' reconcile schedules (kind `reconcile`: every RECONCILE_INTERVAL_SECONDS, overlap
 * SKIP, on the `maintenance` queue, with the reconcile input), created or updated like
 * {@link ensureReconcileSchedule}. Returns their IDs (`<prefix><name>`).
 */
export async function ensureFamilyReconcileSchedules(client: Client, config: Config, queues: TaskQueues): Promise<string[]> {
  const input: ReconcileInput = {
    queues,
    graceSeconds: config.reconcile.graceSeconds,
    closedLookbackSeconds: config.reconcile.closedLookbackSeconds,
  };
  const every = `${config.reconcile.intervalSeconds}s`;
  const ids: string[] = [];
  for (const { name, workflow: workflowType } of FAMILY_RECONCILE_SCHEDULES) {
    const scheduleId = `${config.temporal.taskQueuePrefix}${name}`;
    const action = {
      type: 'startWorkflow' as const,
      workflowType,
      workflowId: `${scheduleId}-run`,
      taskQueue: maintenanceTaskQueue(config.temporal.taskQueuePrefix),
      args: [input],
    };
    try {
      await client.schedule.create({ scheduleId, spec: { intervals: [{ every }] }, action, policies: { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: '1m' } });
    } catch (err) {
      if (!(err instanceof ScheduleAlreadyRunning)) throw err;
      await client.schedule.getHandle(scheduleId).update((prev) => ({ ...prev, spec: { intervals: [{ every }] }, action }));
    }
    ids.push(scheduleId);
  }
  return ids;
}

/** Schedule ID of the Idempotency-Key record purge, prefixed like the task queues. */
export function idempotencyPurgeScheduleId(config: Config): string {
  return `${config.temporal.taskQueuePrefix}purge-idempotency-records`;
}

/**
 * AR-7/PO-1: creates the purge schedule of expired Idempotency-Key records (every
 * IDEMPOTENCY_PURGE_INTERVAL_MINUTES, overlap SKIP, on the `maintenance` queue) or updates its
 * interval and queue to the current config. Idempotent; returns the schedule ID.
 */
export async function ensureIdempotencyPurgeSchedule(client: Client, config: Config): Promise<string> {
  const scheduleId = idempotencyPurgeScheduleId(config);
  const every = `${config.idempotency.purgeIntervalMinutes}m`;
  const action = {
    type: 'startWorkflow' as const,
    workflowType: 'purgeIdempotencyRecordsWorkflow',
    workflowId: `${scheduleId}-run`,
    taskQueue: maintenanceTaskQueue(config.temporal.taskQueuePrefix),
    args: [{}],
  };
  try {
    await client.schedule.create({ scheduleId, spec: { intervals: [{ every }] }, action, policies: { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: '10m' } });
  } catch (err) {
    if (!(err instanceof ScheduleAlreadyRunning)) throw err;
    await client.schedule.getHandle(scheduleId).update((prev) => ({ ...prev, spec: { intervals: [{ every }] }, action }));
  }
  return scheduleId;
}

/** SAN-6 recovery schedules of the core (stale jobs, bounded retries). */
export const CORE_SCHEDULES: readonly ScheduleDecl[] = [
  { name: 'recovery-stale-jobs', workflow: 'recoverStaleJobsWorkflow' },
  { name: 'recovery-failed-jobs', workflow: 'retryFailedJobsWorkflow' },
];

/** Every recovery schedule: the core's, then each family's (src/families). */
export const RECOVERY_SCHEDULES: readonly ScheduleDecl[] = [...CORE_SCHEDULES, ...FAMILY_SCHEDULES];

/** Schedule ID of a SAN-6 recovery rule, prefixed like the task queues. */
export function recoveryScheduleId(config: Config, name: string): string {
  return `${config.temporal.taskQueuePrefix}${name}`;
}

/**
 * SAN-6: creates the recovery schedules ({@link RECOVERY_SCHEDULES}) (every RECOVERY_INTERVAL_MINUTES, overlap SKIP, input
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
    stuckAttempts: config.recovery.stuckAttempts,
  };
  const every = `${config.recovery.intervalMinutes}m`;
  const ids: string[] = [];
  for (const { name, workflow: workflowType } of RECOVERY_SCHEDULES) {
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
