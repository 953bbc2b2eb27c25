/**
 * ST-1/ST-4/DC-3 state machine of the study_memo_card_jobs projection, in the table's lower-case
 * values: pending → processing (attempt 1) → processing (each further attempt, and a retried
 * failure recorded) → completed | failed | skipped; pending → skipped (the source is not ready)
 * or failed (a cancelled workflow). Every write is a guarded update whose `WHERE status IN (…)`
 * comes from this table (src/core/guarded-transition.ts). Workflow-safe, no I/O.
 */
import { defineStateMachine } from '../../core/state-machine';

/** ST-1 job statuses, as stored. */
export const STUDY_MEMO_CARD_JOB_STATUSES = ['pending', 'processing', 'completed', 'failed', 'skipped'] as const;

/** One of {@link STUDY_MEMO_CARD_JOB_STATUSES}. */
export type StudyMemoCardJobStatus = (typeof STUDY_MEMO_CARD_JOB_STATUSES)[number];

/** The study_memo_card_jobs table; its active states are the ST-2 partial unique index's. */
export const STUDY_MEMO_CARD_JOB_STATES = defineStateMachine({
  projection: 'study_memo_card_jobs',
  states: STUDY_MEMO_CARD_JOB_STATUSES,
  worker: {
    pending: ['processing', 'skipped', 'failed'],
    processing: ['processing', 'completed', 'failed', 'skipped'],
    completed: [],
    failed: [],
    skipped: [],
  },
});
