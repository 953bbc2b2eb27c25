/**
 * PO-2/DC-3 state machine of the portal_link_jobs projection: QUEUED → RUNNING → POST_PROCESSING →
 * SUCCEEDED, or FAILED from any of the three active states (publishing, worker, callback or
 * post-processing failure). Every write is a guarded update whose `WHERE status IN (…)` comes from
 * {@link jobSourcesOf}, so a transition arriving late or twice changes nothing. Workflow-safe, no I/O.
 */

/** PO-2 job statuses, exactly the spec's five. */
export const PORTAL_LINK_JOB_STATUSES = ['QUEUED', 'RUNNING', 'POST_PROCESSING', 'SUCCEEDED', 'FAILED'] as const;

/** One of {@link PORTAL_LINK_JOB_STATUSES}. */
export type PortalLinkJobStatus = (typeof PORTAL_LINK_JOB_STATUSES)[number];

const NEXT: Readonly<Record<PortalLinkJobStatus, readonly PortalLinkJobStatus[]>> = {
  QUEUED: ['RUNNING', 'FAILED'],
  RUNNING: ['POST_PROCESSING', 'FAILED'],
  POST_PROCESSING: ['SUCCEEDED', 'FAILED'],
  SUCCEEDED: [],
  FAILED: [],
};

/** True when `from → to` is a PO-2 transition. */
export function canJobTransition(from: PortalLinkJobStatus, to: PortalLinkJobStatus): boolean {
  return NEXT[from].includes(to);
}

/** The states from which `to` may be entered (the guard of the UPDATE); empty for QUEUED. */
export function jobSourcesOf(to: PortalLinkJobStatus): PortalLinkJobStatus[] {
  return PORTAL_LINK_JOB_STATUSES.filter((from) => canJobTransition(from, to));
}

/** QUEUED, RUNNING, POST_PROCESSING: the job may still change (PO-1 at most one per user and portal). */
export const ACTIVE_PORTAL_LINK_JOB_STATUSES: readonly PortalLinkJobStatus[] = ['QUEUED', 'RUNNING', 'POST_PROCESSING'];

/** True for SUCCEEDED and FAILED: nothing leaves them. */
export function isFinishedJob(status: PortalLinkJobStatus): boolean {
  return NEXT[status].length === 0;
}
