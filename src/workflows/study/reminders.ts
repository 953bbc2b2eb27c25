/** The daily study-reminder pass, started by the `study-reminders` Schedule. */
import { proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { ReminderPassResult } from '../../domain/study/reminders';
import type { StudyReminderActivities } from '../../activities/study/reminders';
import { MAINTENANCE_RETRY } from '../../core/activity-options';

/**
 * Writes a reminders-outbox row for every user whose local reminder time has come today and who has
 * due cards, as of this run's start. Idempotent by (user, local date): a retried or overlapping run
 * writes nothing twice. Retry class: maintenance (a few attempts; the next tick tries again).
 */
export async function studyRemindersWorkflow(): Promise<ReminderPassResult> {
  const acts = proxyActivities<StudyReminderActivities>({ startToCloseTimeout: '5m', retry: MAINTENANCE_RETRY });
  return acts.runStudyReminderPass({ nowIso: workflowInfo().startTime.toISOString() });
}
