/**
 * SAN-1/SAN-4/DC-3 state machine of the async_jobs projection: PENDING → PROCESSING →
 * COMPLETED | FAILED; PENDING → FAILED (recovery of a job that never started). A job workflow never
 * moves a terminal row, so a late or repeated transition is a no-op. The one way back is the SAN-6
 * recovery edge FAILED → PENDING (re-enqueue), taken only by the bounded retry guard in
 * `src/core/retry.ts` with retry_count + 1. Workflow-safe, no I/O.
 */
import type { JobStatus } from './contracts';

/** Transitions taken by job workflows (SAN-4). */
const NEXT: Record<JobStatus, readonly JobStatus[]> = {
  PENDING: ['PROCESSING', 'FAILED'],
  PROCESSING: ['COMPLETED', 'FAILED'],
  COMPLETED: [],
  FAILED: [],
};

/** SAN-6 recovery edges: re-enqueue of a FAILED job (counted in retry_count, bounded). */
const RECOVERY: Partial<Record<JobStatus, readonly JobStatus[]>> = {
  FAILED: ['PENDING'],
};

/** True when `from → to` is a legal projection transition (workflow or recovery edge). */
export function canTransition(from: JobStatus, to: JobStatus): boolean {
  return NEXT[from].includes(to) || isRecoveryEdge(from, to);
}

/** True for the SAN-6 recovery edge FAILED → PENDING. */
export function isRecoveryEdge(from: JobStatus, to: JobStatus): boolean {
  return RECOVERY[from]?.includes(to) ?? false;
}

/** The states from which `to` may be entered (the `WHERE status IN (…)` of a guarded update). */
export function sourcesOf(to: JobStatus): JobStatus[] {
  return (Object.keys(NEXT) as JobStatus[]).filter((from) => canTransition(from, to));
}

/**
 * The states from which a job workflow may move a row to `to`, without recovery edges. Also the
 * whole state machine of projections that never re-open (til_github_commits, SAN-10).
 */
export function workflowSourcesOf(to: JobStatus): JobStatus[] {
  return (Object.keys(NEXT) as JobStatus[]).filter((from) => NEXT[from].includes(to));
}

/** True for COMPLETED and FAILED: no job workflow moves them again (only recovery re-opens FAILED). */
export function isTerminal(status: JobStatus): boolean {
  return NEXT[status].length === 0;
}

/** Active states covered by the SAN-2 unique partial index. */
export const ACTIVE_STATUSES: readonly JobStatus[] = ['PENDING', 'PROCESSING'];

/** Default SAN-6 bound: a job is re-run at most this many times in all (recovery and API retries). */
export const DEFAULT_MAX_RETRIES = 3;

/** Why a job may or may not be re-enqueued. */
export type RetryDecision = 'retry' | 'not-failed' | 'limit-reached';

/**
 * SAN-6 retry guard: only a FAILED job with `retryCount < maxRetries` may go back to PENDING
 * (the SAN-2 "no other active job for the target" check is done by the database update).
 */
export function retryDecision(job: { status: JobStatus; retryCount: number }, maxRetries: number): RetryDecision {
  if (job.status !== 'FAILED') return 'not-failed';
  if (job.retryCount >= maxRetries) return 'limit-reached';
  return 'retry';
}
