/** The one way a Temporal Schedule is created or brought up to date (DC-2, SAN-4, SAN-6). */
import { ScheduleAlreadyRunning, ScheduleOverlapPolicy, type Client } from '@temporalio/client';
import type { Duration } from '@temporalio/common';
import { MAINTENANCE_FAIRNESS_KEY, priorityOf, type WorkClass } from './priority';

/** What a Schedule starts, how often, and how runs overlap. */
export interface ScheduleSpec {
  /** Schedule ID (deployed, with the task-queue prefix). The started workflow's ID is `<scheduleId>-run`. */
  scheduleId: string;
  /** Interval between runs, e.g. `'60s'`, `'120m'`. */
  every: Duration;
  /** Workflow type the Schedule starts. */
  workflowType: string;
  /** Deployed task queue the workflow runs on. */
  taskQueue: string;
  /** The workflow's arguments. */
  args: unknown[];
  /** How far back missed runs are caught up after an outage (default 1 minute). */
  catchupWindow?: Duration;
  /** Default SKIP: a slow run is never run twice at once. */
  overlap?: ScheduleOverlapPolicy;
  /** Task-queue priority of its runs and of what they start (default `maintenance`: after every client's request). */
  workClass?: Exclude<WorkClass, 'interactive'>;
}

/**
 * Creates the Schedule or, when it exists, updates its spec, action and policies to `spec`.
 * Idempotent and safe to race (two processes starting at once: one creates, the other updates).
 * Returns the schedule ID.
 * @throws the Temporal client's error on anything but "already exists".
 */
export async function ensureSchedule(client: Pick<Client, 'schedule'>, spec: ScheduleSpec): Promise<string> {
  const action = {
    type: 'startWorkflow' as const,
    workflowType: spec.workflowType,
    workflowId: `${spec.scheduleId}-run`,
    taskQueue: spec.taskQueue,
    args: spec.args,
    priority: { ...priorityOf(spec.workClass ?? 'maintenance'), fairnessKey: MAINTENANCE_FAIRNESS_KEY },
  };
  const intervals = { intervals: [{ every: spec.every }] };
  const policies = { overlap: spec.overlap ?? ScheduleOverlapPolicy.SKIP, catchupWindow: spec.catchupWindow ?? '1m' };
  try {
    await client.schedule.create({ scheduleId: spec.scheduleId, spec: intervals, action, policies });
  } catch (err) {
    if (!(err instanceof ScheduleAlreadyRunning)) throw err;
    await client.schedule.getHandle(spec.scheduleId).update((prev) => ({ ...prev, spec: intervals, action, policies: { ...prev.policies, ...policies } }));
  }
  return spec.scheduleId;
}
