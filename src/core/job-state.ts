/**
 * SAN-1/SAN-4/SAN-6/DC-3 state machine of the async_jobs projection: PENDING → PROCESSING →
 * COMPLETED | FAILED; PENDING → FAILED (a job that never started). The one way back is the SAN-6
 * `retry` edge FAILED → PENDING (re-enqueue), taken only by the bounded retry guard in
 * `src/core/retry.ts` with retry_count + 1. Workflow-safe, no I/O.
 */
import { JOB_STATUSES, type JobStatus } from './contracts';
import { defineStateMachine } from './state-machine';

/** The async_jobs table: the worker's edges and the SAN-6 `retry` edge. */
export const ASYNC_JOB_STATES = defineStateMachine({
  projection: 'async_jobs',
  states: JOB_STATUSES,
  worker: {
    PENDING: ['PROCESSING', 'FAILED'],
    PROCESSING: ['COMPLETED', 'FAILED'],
    COMPLETED: [],
    FAILED: [],
  },
  actors: { retry: { FAILED: ['PENDING'] } },
});

/** Default SAN-6 bound: a job is re-run at most this many times in all (recovery and API retries). */
export const DEFAULT_MAX_RETRIES = 3;

/** Why a job may or may not be re-enqueued. */
export type RetryDecision = 'retry' | 'not-failed' | 'limit-reached';

/**
 * SAN-6 retry guard: only a FAILED job with `retryCount < maxRetries` may go back to PENDING
 * (the SAN-2 "no other active job for the target" check is done by the database update).
 */
export function retryDecision(job: { status: JobStatus; retryCount: number }, maxRetries: number): RetryDecision {
  if (!ASYNC_JOB_STATES.canTransition(job.status, 'PENDING', 'retry')) return 'not-failed';
  if (job.retryCount >= maxRetries) return 'limit-reached';
  return 'retry';
}
