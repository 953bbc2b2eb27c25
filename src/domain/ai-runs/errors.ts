/**
 * The AI-runs family's error vocabulary (AR-1 … AR-9): the failure types of its activities and
 * workflow with their retry class, the error codes its rows hold (`ai_runs.error_code`,
 * `ai_run_attempts.error_code`) and the problem codes of its routes with their HTTP status.
 * The runtime call runs with `maximumAttempts: 1` (AR-8: the server retries by making a new
 * attempt), so a failure's retry class says whether the workflow makes another attempt; the
 * attempt's row code travels in the failure's details ({@link RuntimeFailureDetails}).
 * Workflow-safe, no I/O.
 */
import { codesOf, defineErrors } from '../../core/errors';
import { defineFailures } from '../../core/failures';
import { defineProblems } from '../../core/problems';

/** Failure types. */
export const AR_FAILURES = defineFailures({
  AI_RUNTIME_RETRYABLE: { retry: 'retryable', description: 'the AI runtime call failed transiently (timeout, 5xx, 429, unreachable); a new attempt follows' },
  AI_RUNTIME_TERMINAL: { retry: 'non-retryable', description: 'the AI runtime refused the request deterministically (4xx, contract mismatch, schema violation)' },
  AI_RUN_NOT_FOUND: { retry: 'non-retryable', description: 'the ai_runs row does not exist' },
  AI_RUN_FAILED: { retry: 'non-retryable', description: 'the run ended FAILED; its error code is on the row' },
});

/** Details[0] of an AI_RUNTIME_* failure: the attempt's code and the runtime's requested wait. */
export interface RuntimeFailureDetails {
  /** The attempt's row code, e.g. RUNTIME_TIMEOUT, RUNTIME_UNAVAILABLE, RUNTIME_RATE_LIMITED, CONTRACT_VERSION_MISMATCH. */
  code: string;
  /** Retry-After of a 429/503, in ms. */
  retryAfterMs?: number;
  /** A dependency outage (unreachable, 503): waited out, not charged to the attempt budget. */
  outage?: boolean;
}

/** Error codes the runtime client's call errors carry (the client boundary). */
const RUNTIME_ROW_CODES = {
  RUNTIME_TIMEOUT: { description: 'the call exceeded its per-call deadline' },
  RUNTIME_UNAVAILABLE: { description: 'the runtime was unreachable or answered 5xx (an outage, waited out)' },
  RUNTIME_RATE_LIMITED: { description: 'the runtime answered 429; its Retry-After is the next delay' },
  RUNTIME_REJECTED: { description: 'the runtime refused the request (another 4xx)' },
  CONTRACT_VERSION_MISMATCH: { description: "the answer's contract version is not the catalogue's (AR-2)" },
  MALFORMED_RESPONSE: { description: 'a 2xx answer that is not JSON, or over 1 MiB' },
  RUNTIME_CANCELLED: { description: 'the call was aborted by its caller' },
} as const;

/** Stable error codes of the runtime client boundary. */
export const RUNTIME_ERROR_CODES = Object.keys(RUNTIME_ROW_CODES) as readonly RuntimeErrorCode[];

/** One of {@link RUNTIME_ERROR_CODES}. */
export type RuntimeErrorCode = keyof typeof RUNTIME_ROW_CODES;

/** Error codes of the ai_runs and ai_run_attempts rows. */
export const AR_ROW_CODES = {
  ...RUNTIME_ROW_CODES,
  RUNTIME_ERROR: { description: 'the call failed with an error of no known class (retried)' },
  LEASE_EXPIRED: { description: "AR-7: the attempt's worker stopped heartbeating (killed mid-call)" },
  DEADLINE_EXCEEDED: { description: 'the overall run deadline passed' },
  CANCELLED: { description: 'the run was cancelled (`POST …/cancel`)' },
  RETRY_WINDOW_CLOSED: { description: "AR-4: a manual retry's signal found the run's workflow ended (its retry window had closed); no attempt followed" },
  SCHEMA_VIOLATION: { description: 'AR-2/AR-9: the answer failed re-validation' },
  MAX_ATTEMPTS_REACHED: { description: 'retryable errors used up the attempt budget' },
} as const;

/** `{ CODE: 'CODE' }` of the row codes, for type-checked references (`RUN_ERROR_CODES.CANCELLED`). */
export const RUN_ERROR_CODES = codesOf(AR_ROW_CODES);

/** Problem codes (the generic ones the routes also answer are the core's: If-Match preconditions, cursors, idempotency). */
export const AR_PROBLEMS = defineProblems({
  AI_RUN_NOT_RETRYABLE: { status: 409, description: 'AR-4: the run is not FAILED (or was cancelled), so it cannot be retried' },
  AI_RUN_RETRY_WINDOW_CLOSED: { status: 409, description: "AR-4: the run's retry window has closed (its workflow ended); nothing changed: make a new request" },
  AI_RUN_NOT_CANCELLABLE: { status: 409, description: 'the run is already SUCCEEDED or FAILED, so it cannot be cancelled' },
  AI_RUN_VERSION_CONFLICT: {
    status: 409,
    title: 'AI Run Version Conflict',
    description: "AR-5: the body `version` is not the run's current version; nothing applied",
  },
  CONFLICTING_PRECONDITIONS: { status: 400, description: 'AR-5: `If-Match` and the body `version` name different versions' },
  AI_RUN_NOT_SUCCEEDED: { status: 422, description: 'AR-5: the run is not SUCCEEDED, so its candidates cannot be decided' },
  CANDIDATE_NOT_IN_RUN: { status: 422, description: 'AR-5: a candidate id that is not a candidate of this run' },
  CANDIDATE_ALREADY_DISCARDED: { status: 422, description: 'AR-5: ADOPT of a candidate already discarded (a discard is final)' },
  CANDIDATE_ALREADY_ADOPTED: { status: 422, description: 'AR-5: DISCARD of a candidate already adopted (its Task exists)' },
  CANDIDATE_SUPERSEDED: { status: 422, description: "AR-5: a candidate of an earlier attempt than the run's latest one" },
  CANDIDATE_BLOCKED: { status: 422, description: 'AR-9: ADOPT of a candidate the guards blocked (lost key value or sensitive data)' },
});

/** The family's vocabulary (manifest `errors`). */
export const AR_ERRORS = defineErrors({ failures: AR_FAILURES, problems: AR_PROBLEMS, rowCodes: AR_ROW_CODES });
