/**
 * The daily-reminder activity of the study review loop, run by
 * {@link studyRemindersWorkflow}'s Schedule: one reminder pass (src/services/study/reminders.ts).
 * Idempotent (the outbox's (user, local date) key); database outages are retried by Temporal.
 */
import type { PrismaClient } from '@prisma/client';
import { runReminderPass, type ReminderPassResult } from '../../services/study/reminders';

/** Dependencies of {@link createStudyReminderActivities}. */
export interface StudyReminderDeps {
  db: PrismaClient;
  /** Reminders read per query (config `studyReminders.batchSize`). */
  batchSize: number;
}

/** The reminder activities. */
export function createStudyReminderActivities({ db, batchSize }: StudyReminderDeps) {
  return {
    /**
     * One reminder pass at `nowIso` (the workflow's start time, so a retried attempt decides for the
     * same instant): outbox rows for users whose reminder time has come today and who have due cards.
     */
    async runStudyReminderPass(input: { nowIso: string }): Promise<ReminderPassResult> {
      return runReminderPass(db, { now: new Date(input.nowIso), batchSize });
    },
  };
}

/** The activity interface workflows proxy. */
export type StudyReminderActivities = ReturnType<typeof createStudyReminderActivities>;
