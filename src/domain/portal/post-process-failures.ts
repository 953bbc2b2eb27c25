/**
 * Failure types of the portal-link post-processing activity `applyScrapeResult` (PO-6, PO-8 …
 * PO-10), with their retry class. Details[0] of each carries the job's error code
 * ({@link PostProcessFailureDetails}: C16, C17 or C18 of src/domain/portal/error-codes.ts), so the
 * workflow FAILS the job with it; a failure without such details (a transient database error
 * that used up its retries) is C18 as well. Workflow-safe catalogue.
 */
import { defineFailures } from '../../core/failures';
import { PORTAL_JOB_ERROR_CODES } from './error-codes';

/** Post-processing failure types. */
export const PO_POST_PROCESS_FAILURES = defineFailures({
  PORTAL_RESULT_UNREADABLE: {
    retry: 'non-retryable',
    description: 'C16: the result object is missing, larger than allowed or its SHA-256 differs from the callback\'s',
  },
  PORTAL_RESULT_STORE_UNAVAILABLE: {
    retry: 'retryable',
    description: 'C16 once retries are used up: the object store could not be reached (an outage, retried with backoff)',
  },
  PORTAL_RESULT_INVALID: { retry: 'non-retryable', description: 'C17: the result is not JSON or does not match the result schema' },
  PORTAL_RESULT_APPLY_FAILED: {
    retry: 'non-retryable',
    description: 'C18: the database rejected the result deterministically (data exception, constraint); nothing was written',
  },
});

/** A post-processing failure type. */
export type PostProcessFailureType = keyof typeof PO_POST_PROCESS_FAILURES;

/** Details[0] of a post-processing failure. */
export interface PostProcessFailureDetails {
  code: typeof PORTAL_JOB_ERROR_CODES.C16 | typeof PORTAL_JOB_ERROR_CODES.C17 | typeof PORTAL_JOB_ERROR_CODES.C18;
  /** C17: the first schema issues (path and message, never values). */
  issues?: Array<{ path: string; message: string }>;
}

/** The job error code of each failure type. */
export const POST_PROCESS_ERROR_CODE: Readonly<Record<PostProcessFailureType, PostProcessFailureDetails['code']>> = {
  PORTAL_RESULT_UNREADABLE: PORTAL_JOB_ERROR_CODES.C16,
  PORTAL_RESULT_STORE_UNAVAILABLE: PORTAL_JOB_ERROR_CODES.C16,
  PORTAL_RESULT_INVALID: PORTAL_JOB_ERROR_CODES.C17,
  PORTAL_RESULT_APPLY_FAILED: PORTAL_JOB_ERROR_CODES.C18,
};

/**
 * The job error code of a failed `applyScrapeResult` from its failure type (as the workflow sees it
 * on the ActivityFailure's cause): C16/C17/C18 for the types above, C18 for anything else (a
 * database error that used up its retries).
 */
export function postProcessErrorCode(failureType: string | undefined | null): PostProcessFailureDetails['code'] {
  return (failureType && POST_PROCESS_ERROR_CODE[failureType as PostProcessFailureType]) || PORTAL_JOB_ERROR_CODES.C18;
}
