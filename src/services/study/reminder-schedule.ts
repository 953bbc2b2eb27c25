/**
 * The `study-reminders` Temporal Schedule (issue 10 §4): every STUDY_REMINDER_INTERVAL_MINUTES,
 * overlap SKIP, it starts {@link studyRemindersWorkflow} on the given task queue. Created
 * idempotently at worker start-up (an existing schedule is updated to the current interval and queue).
 */
import { ScheduleAlreadyRunning, ScheduleOverlapPolicy, type Client } from '@temporalio/client';
import type { Config } from '../../config';

/** Schedule ID of the reminder pass, prefixed like the task queues. */
export function studyReminderScheduleId(config: Config): string {
  return `${config.temporal.taskQueuePrefix}study-reminders`;
}

/**
 * Creates or updates the reminder Schedule on `taskQueue` (the queue whose worker runs
 * `studyRemindersWorkflow` and `runStudyReminderPass`). Returns its ID, or none when
 * `studyReminders.scheduleEnabled` or SCHEDULES_ENABLED is off.
 */
export async function ensureStudyReminderSchedule(client: Client, config: Config, taskQueue: string): Promise<string[]> {
  if (!config.studyReminders.scheduleEnabled || !config.reconcile.schedulesEnabled) return [];
  const scheduleId = studyReminderScheduleId(config);
  const spec = { intervals: [{ every: `${config.studyReminders.intervalMinutes}m` }] };
  const action = { type: 'startWorkflow' as const, workflowType: 'studyRemindersWorkflow', workflowId: `${scheduleId}-run`, taskQueue, args: [] };
  try {
    await client.schedule.create({ scheduleId, spec, action, policies: { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: '10m' } });
  } catch (err) {
    if (!(err instanceof ScheduleAlreadyRunning)) throw err;
    await client.schedule.getHandle(scheduleId).update((prev) => ({ ...prev, spec, action }));
  }
  return [scheduleId];
}
