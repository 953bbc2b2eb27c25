/**
 * PO-5 failure types of the scrape activity (`portal` queue) with their retry class. Each failure
 * carries `details: [{ code }]`, the job error code (error-codes.ts) the workflow FAILS the
 * job with once Temporal gives up. Portal failure types are named like their job error code.
 * Workflow-safe (no I/O).
 */
import { defineFailures } from '../../core/failures';
import { PORTAL_JOB_ERROR_CODES, type PortalJobErrorCode } from './error-codes';

/** Scrape failure types. */
export const SCRAPE_FAILURES = defineFailures({
  PORTAL_CREDENTIALS_INVALID: {
    retry: 'non-retryable',
    description: 'the portal refused the student id / password: new credentials are needed (never retried automatically)',
  },
  PORTAL_MARKUP_UNEXPECTED: { retry: 'non-retryable', description: 'a portal page did not have the expected structure; the adapter must be fixed' },
  PORTAL_UNAVAILABLE: {
    retry: 'retryable',
    description: 'the portal stayed down (5xx, 429, maintenance, unreachable, too slow) for the whole attempt; it was waited out inside the attempt first',
  },
  PORTAL_SESSION_EXPIRED: { retry: 'retryable', description: 'the portal session expired again right after a fresh login' },
  PORTAL_TYPE_UNKNOWN: { retry: 'non-retryable', description: 'no adapter (or no base URL) is configured for the portal type' },
  RESULT_STORE_UNAVAILABLE: { retry: 'retryable', description: 'the object store could not take the result; the next attempt writes its own key' },
  CALLBACK_REJECTED: {
    retry: 'non-retryable',
    description: 'the backend refused the callback with a 4xx (bad signature, key out of scope, job no longer waiting)',
  },
  CALLBACK_UNAVAILABLE: { retry: 'retryable', description: 'the callback endpoint stayed unreachable or answered 5xx for the whole attempt' },
  CALLBACK_SECRET_MISSING: { retry: 'non-retryable', description: 'PORTAL_CALLBACK_SECRETS is empty: the callback cannot be signed' },
});

/** One of {@link SCRAPE_FAILURES}' types. */
export type ScrapeFailureType = keyof typeof SCRAPE_FAILURES;

/** The job error code each scrape failure type ends the job with (PO-2). */
export const SCRAPE_FAILURE_ERROR_CODES: Readonly<Record<ScrapeFailureType, PortalJobErrorCode>> = {
  PORTAL_CREDENTIALS_INVALID: PORTAL_JOB_ERROR_CODES.PORTAL_CREDENTIALS_INVALID,
  PORTAL_MARKUP_UNEXPECTED: PORTAL_JOB_ERROR_CODES.PORTAL_MARKUP_UNEXPECTED,
  PORTAL_UNAVAILABLE: PORTAL_JOB_ERROR_CODES.PORTAL_UNAVAILABLE,
  PORTAL_SESSION_EXPIRED: PORTAL_JOB_ERROR_CODES.PORTAL_SESSION_EXPIRED,
  PORTAL_TYPE_UNKNOWN: PORTAL_JOB_ERROR_CODES.SCRAPE_FAILED,
  RESULT_STORE_UNAVAILABLE: PORTAL_JOB_ERROR_CODES.SCRAPE_FAILED,
  CALLBACK_REJECTED: PORTAL_JOB_ERROR_CODES.SCRAPE_FAILED,
  CALLBACK_UNAVAILABLE: PORTAL_JOB_ERROR_CODES.SCRAPE_FAILED,
  CALLBACK_SECRET_MISSING: PORTAL_JOB_ERROR_CODES.SCRAPE_FAILED,
};

/** The `details[0]` every scrape failure carries. */
export interface ScrapeFailureDetails {
  code: PortalJobErrorCode;
  /** HTTP status of the portal or the callback endpoint, when there was one. */
  status?: number;
}
