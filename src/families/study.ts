/**
 * The study family (ST-1 … ST-6) declares itself here, once: its explanation job (an async_jobs
 * job type on the `ai` queue), its error vocabulary, its routes, and its own
 * `study-cards` task queue (ST-6) that runs the memo-card poller, the extraction workflows and
 * activities and the review loop's reminder pass, served by src/workers/study-cards.ts, which also
 * creates their Schedules.
 * Extraction jobs are not async_jobs jobs: their projection is study_memo_card_jobs (ST-1).
 */
import { AI_ERRORS } from '../ai/failures';
import { createAiProvider } from '../ai';
import { createStudyAi } from '../ai/study';
import { createStudyCardActivities } from '../activities/study/cards';
import { createStudyExplanationActivities, createStudyExplanationAiActivities } from '../activities/study/explanation';
import { stRoutes } from '../api/routes/study';
import { ST_ERRORS } from '../domain/study/errors';
import { ensureStudyCardPollSchedule } from '../services/study/poll-schedule';
import { ensureStudyReminderSchedule } from '../services/study/reminder-schedule';
import { createStudyReminderActivities } from '../activities/study/reminders';
import { STUDY_CARDS_QUEUE, studyCardQueues } from '../domain/study/contracts';
import type { FamilyManifest } from './manifest';

/** The ST manifest. */
export const st = {
  name: 'study',
  jobs: { STUDY_EXPLANATION: 'studyExplanationWorkflow' },
  errors: [ST_ERRORS, AI_ERRORS],
  routes: stRoutes,
  activities: {
    jobs: ({ db }) => createStudyExplanationActivities({ db }),
    ai: ({ db, ai, config }) => createStudyExplanationAiActivities({ ai: createStudyAi(ai), db, config }),
  },
  schedules: [],
  queues: ['ai'],
  ownQueues: [
    {
      name: STUDY_CARDS_QUEUE,
      workflows: true,
      activities: ({ config, db }) => ({
        ...createStudyCardActivities({ db, config, ai: createStudyAi(createAiProvider(config.ai)) }),
        ...createStudyReminderActivities({ db, batchSize: config.studyReminders.batchSize }),
      }),
      concurrency: (config) => config.study.activityConcurrency,
      // ST-3 the memo-card poller and the review loop's daily reminders, both on this queue.
      schedules: async (client, config) => [
        ...(await ensureStudyCardPollSchedule(client, config)),
        ...(await ensureStudyReminderSchedule(client, config, studyCardQueues(config.temporal.taskQueuePrefix).studyCards)),
      ],
    },
  ],
} as const satisfies FamilyManifest;
