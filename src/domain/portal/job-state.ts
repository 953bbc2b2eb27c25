/**
 * PO-2/DC-3 state machine of the portal_link_jobs projection: QUEUED → RUNNING → POST_PROCESSING →
 * SUCCEEDED, or FAILED from any of the three active states (publishing, worker, callback or
 * post-processing failure). Every write is a guarded update whose `WHERE status IN (…)` comes from
 * this table (src/core/guarded-transition.ts), so a transition arriving late or twice changes
 * nothing. Workflow-safe, no I/O.
 */
import { defineStateMachine } from '../../core/state-machine';

/** PO-2 job statuses, exactly the spec's five. */
export const PORTAL_LINK_JOB_STATUSES = ['QUEUED', 'RUNNING', 'POST_PROCESSING', 'SUCCEEDED', 'FAILED'] as const;

/** One of {@link PORTAL_LINK_JOB_STATUSES}. */
export type PortalLinkJobStatus = (typeof PORTAL_LINK_JOB_STATUSES)[number];

/** The portal_link_jobs table; its active states are the PO-1 "at most one per user and portal". */
export const PORTAL_LINK_JOB_STATES = defineStateMachine({
  projection: 'portal_link_jobs',
  states: PORTAL_LINK_JOB_STATUSES,
  worker: {
    QUEUED: ['RUNNING', 'FAILED'],
    RUNNING: ['POST_PROCESSING', 'FAILED'],
    POST_PROCESSING: ['SUCCEEDED', 'FAILED'],
    SUCCEEDED: [],
    FAILED: [],
  },
});

/**
 * PO-4/PO-9 why a SUCCEEDED job applied no result, its view's `resultCode` (null: applied).
 * `STALE_RESULT_IGNORED`: the result was scraped before the job was created, or before the data the
 * student already has (PO-9), so the student's data was left as it was.
 */
export const PORTAL_JOB_RESULT_CODES = ['STALE_RESULT_IGNORED'] as const;

/** One of {@link PORTAL_JOB_RESULT_CODES}. */
export type PortalJobResultCode = (typeof PORTAL_JOB_RESULT_CODES)[number];
