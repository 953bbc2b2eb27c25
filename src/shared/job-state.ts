/**
 * SAN-1/SAN-4/DC-3 state machine of the async_jobs projection: PENDING → PROCESSING →
 * COMPLETED | FAILED; PENDING → FAILED (recovery of a job that never started). Terminal states
 * never move again, so a late or repeated transition is a no-op. Workflow-safe, no I/O.
 */
import type { JobStatus } from './contracts';

const NEXT: Record<JobStatus, readonly JobStatus[]> = {
  PENDING: ['PROCESSING', 'FAILED'],
  PROCESSING: ['COMPLETED', 'FAILED'],
  COMPLETED: [],
  FAILED: [],
};

/** True when `from → to` is a legal projection transition. */
export function canTransition(from: JobStatus, to: JobStatus): boolean {
  return NEXT[from].includes(to);
}

/** The states from which `to` may be entered (the `WHERE status IN (…)` of a guarded update). */
export function sourcesOf(to: JobStatus): JobStatus[] {
  return (Object.keys(NEXT) as JobStatus[]).filter((from) => NEXT[from].includes(to));
}

/** True for COMPLETED and FAILED. */
export function isTerminal(status: JobStatus): boolean {
  return NEXT[status].length === 0;
}

/** Active states covered by the SAN-2 unique partial index. */
export const ACTIVE_STATUSES: readonly JobStatus[] = ['PENDING', 'PROCESSING'];
