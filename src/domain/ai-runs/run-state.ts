/**
 * AR-3/AR-4/DC-3 state machine of the ai_runs projection: QUEUED → RUNNING → (RETRYING → RUNNING)* →
 * SUCCEEDED | FAILED. The worker takes the automatic edges; FAILED → RETRYING is taken only by a
 * manual retry (AR-4, `POST /api/v1/ai-runs/{id}/retry`). Every write is a guarded update whose
 * `WHERE status IN (…)` comes from {@link runSourcesOf}, so a late or repeated transition is a
 * harmless no-op. Workflow-safe, no I/O.
 */

/** AR-3 technical statuses, exactly the spec's five. */
export const AI_RUN_STATUSES = ['QUEUED', 'RUNNING', 'RETRYING', 'SUCCEEDED', 'FAILED'] as const;
export type AiRunStatus = (typeof AI_RUN_STATUSES)[number];

/** Who takes a transition: the run's workflow, or a manual retry (AR-4). */
export type RunTransitionActor = 'worker' | 'manual-retry';

/** Transitions the run's workflow (and cancel / deadline) take. */
const WORKER_NEXT: Readonly<Record<AiRunStatus, readonly AiRunStatus[]>> = {
  QUEUED: ['RUNNING', 'FAILED'],
  RUNNING: ['RETRYING', 'SUCCEEDED', 'FAILED'],
  RETRYING: ['RUNNING', 'FAILED'],
  SUCCEEDED: [],
  FAILED: [],
};

/** The one manual edge (AR-4). */
const MANUAL_NEXT: Readonly<Partial<Record<AiRunStatus, readonly AiRunStatus[]>>> = {
  FAILED: ['RETRYING'],
};

/** True when `from → to` is legal for `actor` (default: the worker). */
export function canRunTransition(from: AiRunStatus, to: AiRunStatus, actor: RunTransitionActor = 'worker'): boolean {
  const edges = actor === 'worker' ? WORKER_NEXT[from] : (MANUAL_NEXT[from] ?? []);
  return edges.includes(to);
}

/** The states from which `actor` may enter `to` (the guard of the UPDATE). */
export function runSourcesOf(to: AiRunStatus, actor: RunTransitionActor = 'worker'): AiRunStatus[] {
  return AI_RUN_STATUSES.filter((from) => canRunTransition(from, to, actor));
}

/** QUEUED, RUNNING, RETRYING: the run may still change on its own (and may be cancelled). */
export const ACTIVE_RUN_STATUSES: readonly AiRunStatus[] = ['QUEUED', 'RUNNING', 'RETRYING'];

/** True for SUCCEEDED and FAILED (only a manual retry re-opens FAILED). */
export function isFinishedRun(status: AiRunStatus): boolean {
  return WORKER_NEXT[status].length === 0;
}
