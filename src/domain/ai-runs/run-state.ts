/**
 * AR-3/AR-4/AR-5/DC-3 state machines of the AI-runs projections. ai_runs: QUEUED → RUNNING →
 * (RETRYING → RUNNING)* → SUCCEEDED | FAILED; the worker takes the automatic edges, FAILED →
 * RETRYING is taken only by a manual retry (AR-4, `POST /api/v1/ai-runs/{id}/retry`). ai_attempts:
 * RUNNING → SUCCEEDED | FAILED. ai_candidates: PROPOSED → ADOPTED | DISCARDED (AR-5, a reviewer's
 * decision). Every write is a guarded update whose `WHERE status IN (…)` comes from these tables
 * (src/core/guarded-transition.ts), so a late or repeated transition is a harmless no-op.
 * Workflow-safe, no I/O.
 */
import { defineStateMachine } from '../../core/state-machine';

/** AR-3 technical statuses, exactly the spec's five. */
export const AI_RUN_STATUSES = ['QUEUED', 'RUNNING', 'RETRYING', 'SUCCEEDED', 'FAILED'] as const;
export type AiRunStatus = (typeof AI_RUN_STATUSES)[number];

/** The ai_runs table: the worker's edges (the run's workflow, cancel, deadline) and the AR-4 manual retry. */
export const AI_RUN_STATES = defineStateMachine({
  projection: 'ai_runs',
  states: AI_RUN_STATUSES,
  worker: {
    QUEUED: ['RUNNING', 'FAILED'],
    RUNNING: ['RETRYING', 'SUCCEEDED', 'FAILED'],
    RETRYING: ['RUNNING', 'FAILED'],
    SUCCEEDED: [],
    FAILED: [],
  },
  actors: { 'manual-retry': { FAILED: ['RETRYING'] } },
});

/** Who takes an ai_runs transition: the run's workflow, or a manual retry (AR-4). */
export type RunTransitionActor = (typeof AI_RUN_STATES.actors)[number];

/** An ai_attempts status. */
export type AiAttemptStatus = 'RUNNING' | 'SUCCEEDED' | 'FAILED';

/** The ai_attempts table: one attempt's call in flight, then its end. */
export const AI_ATTEMPT_STATES = defineStateMachine<AiAttemptStatus>({
  projection: 'ai_attempts',
  states: ['RUNNING', 'SUCCEEDED', 'FAILED'],
  worker: { RUNNING: ['SUCCEEDED', 'FAILED'], SUCCEEDED: [], FAILED: [] },
});

/** The ai_candidates table (AR-5): a proposed candidate is decided once. */
export const AI_CANDIDATE_STATES = defineStateMachine({
  projection: 'ai_candidates',
  states: ['PROPOSED', 'ADOPTED', 'DISCARDED'] as const,
  worker: { PROPOSED: ['ADOPTED', 'DISCARDED'], ADOPTED: [], DISCARDED: [] },
});
