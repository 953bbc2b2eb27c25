/** The study family's settings (ST-3 … ST-6): the memo-card poller, extraction jobs, reminders, the worker pool. */
import { z } from 'zod';
import type { CoreConfig } from './core';
import { bool, configSection, type SectionOf } from './env';

/** The study section. */
export const STUDY_CONFIG = configSection(
  {
    ST_POLL_INTERVAL_SECONDS: z.coerce.number().int().min(1).max(86_400).default(30).describe('How often the memo-card poller Schedule runs (seconds; overlap SKIP).'),
    ST_POLL_LIMIT: z.coerce.number().int().min(1).max(10_000).default(50).describe('Most new extraction jobs one poll enqueues.'),
    ST_POLL_SOURCE_KINDS: z.string().regex(/^(study_question|knowledge_card)(,(study_question|knowledge_card))*$/, 'a comma-separated list of study_question, knowledge_card').default('study_question,knowledge_card').describe('Source kinds the poller looks at: study_question, knowledge_card (comma-separated).'),
    ST_POLL_RESTART_GRACE_SECONDS: z.coerce.number().int().min(0).default(60).describe('A pending extraction job older than this (seconds) whose workflow start was lost is started again by the poller.'),
    ST_POLL_SCHEDULE_ENABLED: bool.default(true).describe('Create the poller Schedule at study-cards worker start-up.'),
    ST_EXTRACT_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(10).default(2).describe('Real attempts of one extraction job (ST-1 max_attempts).'),
    ST_EXTRACT_CALL_TIMEOUT_MS: z.coerce.number().int().min(100).default(120_000).describe('Deadline of one extraction call (gather, AI, guards), in ms.'),
    ST_EXTRACT_HEARTBEAT_TIMEOUT_MS: z.coerce.number().int().min(500).default(10_000).describe('Heartbeat timeout of an extraction call in ms: a killed worker is noticed after this.'),
    ST_EXTRACT_RETRY_DELAY_MS: z.coerce.number().int().min(0).default(2_000).describe('Delay before the next attempt of a failed extraction (ms).'),
    ST_EXTRACT_MAX_CARDS: z.coerce.number().int().min(1).max(40).default(12).describe('Cards asked for per extraction call (1 … 40).'),
    ST_RETRIEVAL_LIMIT: z.coerce.number().int().min(0).max(20).default(4).describe('Nearest passages of the user\'s other material given as context (0 = none).'),
    ST_RETRIEVAL_SCAN_LIMIT: z.coerce.number().int().min(1).max(100_000).default(2_000).describe('Latest rows per kind scored by the retrieval.'),
    ST_ACTIVITY_CONCURRENCY: z.coerce.number().int().min(1).default(4).describe('Most activities one study-cards worker runs at once.'),
    STUDY_REMINDER_INTERVAL_MINUTES: z.coerce.number().int().min(1).max(1440).default(15).describe('Minutes between study reminder passes (1 … 1440).'),
    STUDY_REMINDER_BATCH_SIZE: z.coerce.number().int().min(1).max(10_000).default(500).describe('Reminders read per query of one reminder pass.'),
    STUDY_REMINDER_SCHEDULE_ENABLED: bool.default(true).describe('Create the study-reminders Schedule at study-cards worker start-up.'),
  },
  (e) => ({
    /**
     * `poll`: the memo-card poller Schedule (every `intervalSeconds`, overlap SKIP, at most `limit`
     * new jobs per poll, over `sourceKinds`; pending jobs older than `restartGraceSeconds` whose
     * start was lost are started again). `extract`: the extraction jobs (`maxAttempts` real
     * attempts, ST-1 default 2; one AI call's deadline and heartbeat; the delay before a retry;
     * cards asked for per call), the retrieval (`retrievalLimit` nearest passages of the user's
     * other material, out of at most `retrievalScanLimit` rows per kind) and the `study-cards`
     * queue's activity concurrency.
     */
    study: {
      poll: {
        intervalSeconds: e.ST_POLL_INTERVAL_SECONDS,
        limit: e.ST_POLL_LIMIT,
        sourceKinds: [...new Set(e.ST_POLL_SOURCE_KINDS.split(','))] as ('study_question' | 'knowledge_card')[],
        restartGraceSeconds: e.ST_POLL_RESTART_GRACE_SECONDS,
        scheduleEnabled: e.ST_POLL_SCHEDULE_ENABLED,
      },
      extract: {
        maxAttempts: e.ST_EXTRACT_MAX_ATTEMPTS,
        callTimeoutMs: e.ST_EXTRACT_CALL_TIMEOUT_MS,
        heartbeatTimeoutMs: e.ST_EXTRACT_HEARTBEAT_TIMEOUT_MS,
        retryDelayMs: e.ST_EXTRACT_RETRY_DELAY_MS,
        maxCards: e.ST_EXTRACT_MAX_CARDS,
        retrievalLimit: e.ST_RETRIEVAL_LIMIT,
        retrievalScanLimit: e.ST_RETRIEVAL_SCAN_LIMIT,
      },
      activityConcurrency: e.ST_ACTIVITY_CONCURRENCY,
    },
    /**
     * The review loop's daily reminders: the reminder pass runs every `intervalMinutes` (a reminder
     * fires within that long after its local time), over `batchSize` reminders per query; its
     * Schedule is created at start-up when `scheduleEnabled` (and SCHEDULES_ENABLED).
     */
    studyReminders: {
      intervalMinutes: e.STUDY_REMINDER_INTERVAL_MINUTES,
      batchSize: e.STUDY_REMINDER_BATCH_SIZE,
      scheduleEnabled: e.STUDY_REMINDER_SCHEDULE_ENABLED,
    },
  }),
);

/** The config the study family's code reads: the core's and its own section. */
export type StudyConfig = CoreConfig & SectionOf<typeof STUDY_CONFIG>;
