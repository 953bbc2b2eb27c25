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
