/**
 * Failure types of the AI-runs family's activities and workflow (AR-7, AR-8), with their retry
 * class. The runtime call runs with `maximumAttempts: 1` (AR-8: the server retries by making a new
 * attempt), so the class here says whether the workflow makes another attempt; the attempt's
 * stable error code travels in the failure's details ({@link RuntimeFailureDetails}).
 * Workflow-safe catalogue.
 */
import { defineFailures } from '../../core/failures';

/** AR failure types. */
export const AR_FAILURES = defineFailures({
  AI_RUNTIME_RETRYABLE: { retry: 'retryable', description: 'the AI runtime call failed transiently (timeout, 5xx, 429, unreachable); a new attempt follows' },
  AI_RUNTIME_TERMINAL: { retry: 'non-retryable', description: 'the AI runtime refused the request deterministically (4xx, contract mismatch, schema violation)' },
  AI_RUN_NOT_FOUND: { retry: 'non-retryable', description: 'the ai_runs row does not exist' },
  AI_RUN_FAILED: { retry: 'non-retryable', description: 'the run ended FAILED; its error code is on the row' },
});

/** Details[0] of an AI_RUNTIME_* failure: the attempt's code and the runtime's requested wait. */
export interface RuntimeFailureDetails {
  /** Stable attempt error code, e.g. RUNTIME_TIMEOUT, RUNTIME_UNAVAILABLE, RATE_LIMITED, CONTRACT_MISMATCH. */
  code: string;
  /** Retry-After of a 429/503, in ms. */
  retryAfterMs?: number;
  /** A dependency outage (unreachable, 503): waited out, not charged to the attempt budget. */
  outage?: boolean;
}

/** Attempt / run error codes set by the workflow itself. */
export const RUN_ERROR_CODES = {
  /** The attempt's worker stopped heartbeating (killed mid-call): AR-7 lease expiry. */
  LEASE_EXPIRED: 'LEASE_EXPIRED',
  /** The attempt exceeded its per-call deadline. */
  RUNTIME_TIMEOUT: 'RUNTIME_TIMEOUT',
  /** The overall run deadline passed. */
  DEADLINE_EXCEEDED: 'DEADLINE_EXCEEDED',
  /** The run was cancelled (`POST …/cancel`). */
  CANCELLED: 'CANCELLED',
  /** The answer failed re-validation (AR-2/AR-9). */
  SCHEMA_VIOLATION: 'SCHEMA_VIOLATION',
  /** Retryable errors used up the attempt budget. */
  MAX_ATTEMPTS_REACHED: 'MAX_ATTEMPTS_REACHED',
} as const;
