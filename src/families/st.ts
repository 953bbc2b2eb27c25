/**
 * The study family (ST-1 … ST-6) declares itself here, once: its explanation job (an async_jobs
 * job type on the `ai` queue), its failure types and problem codes, its routes, and its own
 * `study-cards` task queue (ST-6) that runs the memo-card poller and the extraction workflows and
 * activities, served by src/workers/study-cards.ts, which also creates the poller's Schedule.
 * Extraction jobs are not async_jobs jobs: their projection is study_memo_card_jobs (ST-1).
 * The review loop's daily-reminder pass runs on the `maintenance` queue (a light periodic pass that
 * never waits behind job work nor takes an extraction slot); its Schedule is created with the
 * poller's by the `study-cards` worker at start-up.
 */
import { AI_FAILURES } from '../ai/failures';
import { createAiRuntime } from '../ai';
import { createStudyCardActivities } from '../activities/st/cards';
import { createStudyExplanationActivities, createStudyExplanationAiActivities } from '../activities/st/explanation';
import { stRoutes } from '../api/routes/st';
import { ST_FAILURES } from '../domain/st/failures';
import { ST_PROBLEM_CODES } from '../domain/st/problem-codes';
import { ST_REVIEW_PROBLEM_CODES } from '../domain/st/review-problem-codes';
import { createStudyReminderActivities } from '../activities/st/reminders';
import { maintenanceTaskQueue } from '../core/contracts';
import { ensureStudyReminderSchedule } from '../services/st/reminder-schedule';
import { ensureStudyCardPollSchedule } from '../services/st/poll-schedule';
import { STUDY_CARDS_QUEUE } from '../workflows/st/contracts';
import type { FamilyManifest } from './manifest';

/** The ST manifest. */
export const st = {
  name: 'st',
  jobs: { STUDY_EXPLANATION: 'studyExplanationWorkflow' },
  failures: { ...ST_FAILURES, ...AI_FAILURES },
  problemCodes: [...ST_PROBLEM_CODES, ...ST_REVIEW_PROBLEM_CODES],
  routes: stRoutes,
  activities: {
    jobs: ({ db }) => createStudyExplanationActivities({ db }),
    ai: ({ db, ai, config }) =>
      createStudyExplanationAiActivities({ ai, db, retrieval: { limit: config.study.extract.retrievalLimit, scanLimit: config.study.extract.retrievalScanLimit } }),
    maintenance: ({ db, config }) => createStudyReminderActivities({ db, batchSize: config.studyReminders.batchSize }),
  },
  schedules: [],
  queues: ['ai'],
  ownQueues: [
    {
      name: STUDY_CARDS_QUEUE,
      workflows: true,
      activities: ({ config, db }) => createStudyCardActivities({ db, config, ai: createAiRuntime(config.ai) }),
      concurrency: (config) => config.study.activityConcurrency,
      schedules: async (client, config) => [
        ...(await ensureStudyCardPollSchedule(client, config)),
        ...(await ensureStudyReminderSchedule(client, config, maintenanceTaskQueue(config.temporal.taskQueuePrefix))),
      ],
    },
  ],
} as const satisfies FamilyManifest;
