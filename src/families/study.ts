/**
 * The study family (ST-1 … ST-6) declares itself here, once: its explanation job (an async_jobs
 * job type on the `ai` queue), its error vocabulary, its routes, and its own
 * `study-cards` task queue (ST-6) that runs the memo-card poller, the extraction workflows and
 * activities and the review loop's reminder pass, isolated from every other queue, with the
 * Schedules of the poller (ST-3) and of the reminders.
 * Extraction jobs are not async_jobs jobs: their projection is study_memo_card_jobs (ST-1).
 */
import { AI_ERRORS } from '../ai/failures';
import { createAiProvider } from '../ai';
import { createStudyAi } from '../ai/study';
import { createStudyCardActivities } from '../activities/study/cards';
import { createStudyExplanationActivities, createStudyExplanationAiActivities } from '../activities/study/explanation';
import { createStudyReminderActivities } from '../activities/study/reminders';
import { stRoutes } from '../api/routes/study';
import { ST_ERRORS } from '../domain/study/errors';
import { STUDY_CARDS_QUEUE, type StudyCardPollInput } from '../domain/study/contracts';
import { STUDY_CONFIG } from '../config/study';
import { defineFamily } from './manifest';

/** The study manifest. */
export const study = defineFamily(STUDY_CONFIG, {
  name: 'study',
  jobs: { STUDY_EXPLANATION: 'studyExplanationWorkflow' },
  errors: [ST_ERRORS, AI_ERRORS],
  routes: stRoutes,
  activities: {
    jobs: ({ db }) => createStudyExplanationActivities({ db }),
    ai: ({ db, ai, config }) => createStudyExplanationAiActivities({ ai: createStudyAi(ai), db, config }),
  },
  queues: [
    {
      name: STUDY_CARDS_QUEUE,
      summary: 'the memo-card poller, extraction workflows and reminders (ST-3 … ST-6)',
      workflows: true,
      activityConcurrency: { env: 'ST_ACTIVITY_CONCURRENCY', of: (c) => c.study.activityConcurrency },
      activities: ({ config, db }) => ({
        ...createStudyCardActivities({ db, config, ai: createStudyAi(createAiProvider(config.ai)) }),
        ...createStudyReminderActivities({ db, batchSize: config.studyReminders.batchSize }),
      }),
      describe: (c) => ({ provider: c.ai.provider, pollIntervalSeconds: c.study.poll.intervalSeconds, pollLimit: c.study.poll.limit }),
    },
  ],
  schedules: [
    {
      // ST-3 the memo-card poller (ST_POLL_*).
      name: 'study-card-poll',
      workflow: 'studyCardPollWorkflow',
      queue: STUDY_CARDS_QUEUE,
      every: (c) => `${c.study.poll.intervalSeconds}s`,
      input: (c) => [
        { limit: c.study.poll.limit, sourceKinds: [...c.study.poll.sourceKinds], restartGraceSeconds: c.study.poll.restartGraceSeconds } satisfies StudyCardPollInput,
      ],
      enabled: (c) => c.study.poll.scheduleEnabled,
    },
    {
      // The review loop's daily reminders (STUDY_REMINDER_*).
      name: 'study-reminders',
      workflow: 'studyRemindersWorkflow',
      queue: STUDY_CARDS_QUEUE,
      every: (c) => `${c.studyReminders.intervalMinutes}m`,
      input: () => [],
      catchupWindow: '10m',
      enabled: (c) => c.studyReminders.scheduleEnabled,
    },
  ],
});
