/**
 * The portal-link family's error vocabulary (PO-1 … PO-12): the failure types of its activities
 * with their retry class, the error codes a link job FAILS with (`portal_link_jobs.error_code`,
 * shared by the scraper, the workflow, post-processing and the API), which failure ends the job with
 * which code, and the problem codes of its routes with their HTTP status. Each failure carries
 * `details: [{ code }]`, the row code the workflow FAILS the job with once Temporal gives up.
 * Workflow-safe, no I/O.
 */
import { codesOf, defineErrors } from '../../core/errors';
import { defineFailures } from '../../core/failures';
import { defineProblems } from '../../core/problems';

/** PO-2/PO-5/PO-10 error codes a link job FAILS with. */
export const PO_ROW_CODES = {
  PORTAL_CREDENTIALS_INVALID: { description: 'wrong student id or password: new credentials are needed; never retried automatically' },
  PORTAL_UNAVAILABLE: { description: "the portal stayed down (5xx, maintenance, unreachable) past the job's deadline" },
  PORTAL_SESSION_EXPIRED: { description: "the portal's session kept expiring mid-scrape (its login page answered 200) past the retry budget" },
  PORTAL_MARKUP_UNEXPECTED: { description: "the portal's pages did not have the expected structure (deterministic)" },
  PORTAL_CREDENTIALS_REQUIRED: { description: "the job's start was recovered without the password (it is never stored): link again" },
  CALLBACK_TIMEOUT: { description: "the scraper's callback did not arrive before the deadline" },
  SCRAPE_FAILED: { description: 'the scraper reported a failure in its callback with no more specific code' },
  C16: { description: 'PO-10: the result object is missing, unreadable or its SHA-256 does not match' },
  C17: { description: 'PO-10: the result does not match the result schema' },
  C18: { description: 'PO-10: applying the result to the database failed' },
  CANCELLED: { description: 'the job was cancelled or its workflow terminated' },
} as const;

/** `{ CODE: 'CODE' }` of {@link PO_ROW_CODES}, for type-checked references (`PORTAL_JOB_ERROR_CODES.C16`). */
export const PORTAL_JOB_ERROR_CODES = codesOf(PO_ROW_CODES);

/** One of {@link PORTAL_JOB_ERROR_CODES}. */
export type PortalJobErrorCode = keyof typeof PO_ROW_CODES;

/** PO-5 failure types of the scrape activity (`portal` queue), named like their row code where there is one. */
const SCRAPE_FAILURES = defineFailures({
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

/** PO-6, PO-8 … PO-10 failure types of the post-processing activity `applyScrapeResult`. */
const POST_PROCESS_FAILURES = defineFailures({
  PORTAL_RESULT_UNREADABLE: {
    retry: 'non-retryable',
    description: "C16: the result object is missing, larger than allowed or its SHA-256 differs from the callback's",
  },
  PORTAL_RESULT_STORE_UNAVAILABLE: {
    retry: 'retryable',
    description: 'C16 once retries are used up: the object store could not be reached (an outage, retried with backoff)',
  },
  PORTAL_RESULT_INVALID: { retry: 'non-retryable', description: 'C17: the result is not JSON or does not match the result schema' },
  PORTAL_RESULT_SCRAPED_IN_FUTURE: {
    retry: 'non-retryable',
    description: "C17: the result's scraped_at lies ahead of the server clock by more than the callback signature's tolerance; nothing is applied",
  },
  PORTAL_RESULT_APPLY_FAILED: {
    retry: 'non-retryable',
    description: 'C18: the database rejected the result deterministically (data exception, constraint); nothing was written',
  },
});

/** Failure types of the family's activities and workflow (PO-2, DC-3). */
export const PO_FAILURES = defineFailures({
  PORTAL_LINK_JOB_NOT_FOUND: { retry: 'non-retryable', description: 'the portal_link_jobs row does not exist' },
  ...SCRAPE_FAILURES,
  ...POST_PROCESS_FAILURES,
});

/** A failure type of the scrape activity. */
export type ScrapeFailureType = keyof typeof SCRAPE_FAILURES;

/** A failure type of `applyScrapeResult`. */
export type PostProcessFailureType = keyof typeof POST_PROCESS_FAILURES;

/** Details[0] of a projection activity's failure: the job's row code. */
export interface PortalJobFailureDetails {
  code: PortalJobErrorCode | string;
}

/** The `details[0]` every scrape failure carries. */
export interface ScrapeFailureDetails {
  code: PortalJobErrorCode;
  /** HTTP status of the portal or the callback endpoint, when there was one. */
  status?: number;
}

/** The row code each scrape failure type ends the job with (PO-2). */
export const SCRAPE_FAILURE_ERROR_CODES: Readonly<Record<ScrapeFailureType, PortalJobErrorCode>> = {
  PORTAL_CREDENTIALS_INVALID: 'PORTAL_CREDENTIALS_INVALID',
  PORTAL_MARKUP_UNEXPECTED: 'PORTAL_MARKUP_UNEXPECTED',
  PORTAL_UNAVAILABLE: 'PORTAL_UNAVAILABLE',
  PORTAL_SESSION_EXPIRED: 'PORTAL_SESSION_EXPIRED',
  PORTAL_TYPE_UNKNOWN: 'SCRAPE_FAILED',
  RESULT_STORE_UNAVAILABLE: 'SCRAPE_FAILED',
  CALLBACK_REJECTED: 'SCRAPE_FAILED',
  CALLBACK_UNAVAILABLE: 'SCRAPE_FAILED',
  CALLBACK_SECRET_MISSING: 'SCRAPE_FAILED',
};

/** Details[0] of a post-processing failure. */
export interface PostProcessFailureDetails {
  code: 'C16' | 'C17' | 'C18';
  /** C17: the first schema issues (path and message, never values). */
  issues?: Array<{ path: string; message: string }>;
}

/** The row code each post-processing failure type ends the job with. */
export const POST_PROCESS_ERROR_CODE: Readonly<Record<PostProcessFailureType, PostProcessFailureDetails['code']>> = {
  PORTAL_RESULT_UNREADABLE: 'C16',
  PORTAL_RESULT_STORE_UNAVAILABLE: 'C16',
  PORTAL_RESULT_INVALID: 'C17',
  PORTAL_RESULT_SCRAPED_IN_FUTURE: 'C17',
  PORTAL_RESULT_APPLY_FAILED: 'C18',
};

/**
 * The row code of a failed `applyScrapeResult` from its failure type (as the workflow sees it on
 * the ActivityFailure's cause): C16/C17/C18 for the post-processing types, C18 for anything else
 * (a database error that used up its retries).
 */
export function postProcessErrorCode(failureType: string | undefined | null): PostProcessFailureDetails['code'] {
  return (failureType && POST_PROCESS_ERROR_CODE[failureType as PostProcessFailureType]) || 'C18';
}

/** Problem codes. */
export const PO_PROBLEMS = defineProblems({
  PORTAL_TYPE_UNSUPPORTED: { status: 400, description: 'PO-1: `portalType` names no portal adapter' },
  PORTAL_LINK_JOB_ACTIVE: {
    status: 409,
    description: 'PO-1: the user already has an active (QUEUED, RUNNING, POST_PROCESSING) link job for this portal; the answer names it',
  },
  PORTAL_LINK_JOB_NOT_SUCCEEDED: { status: 409, description: "PO-4: `/summary` of a job that is not SUCCEEDED; the answer carries its current status" },
  CALLBACK_SIGNATURE_MISSING: { status: 401, title: 'Unauthorized', description: 'PO-5: X-Timestamp or X-Signature is absent' },
  CALLBACK_SIGNATURE_INVALID: {
    status: 401,
    title: 'Unauthorized',
    description: 'PO-5: the signature is malformed or matches none of the callback secrets',
  },
  CALLBACK_TIMESTAMP_STALE: { status: 401, title: 'Unauthorized', description: 'PO-5: X-Timestamp is outside the tolerance, in the past or in the future' },
  CALLBACK_RESULT_OUT_OF_SCOPE: {
    status: 422,
    description: "PO-6: the result's bucket or key lies outside the configured bucket and prefix or outside the job's own scope",
  },
  CALLBACK_ATTEMPT_MISMATCH: { status: 422, description: 'PO-5: X-Callback-Attempt disagrees with the attempt of the result key' },
  CALLBACK_SCRAPED_AT_IN_FUTURE: {
    status: 422,
    description: "PO-5: the body's scraped_at lies ahead of the server clock by more than the signature's tolerance; nothing is recorded",
  },
  CALLBACK_JOB_NOT_ACTIVE: { status: 409, description: 'PO-5: the job no longer waits for a callback (finished, post-processing, or never started)' },
  PORTAL_STUDENT_NOT_FOUND: { status: 404, description: 'PO-11/PO-12: the user has no student data for the portal (no successful link yet)' },
  PORTAL_TYPE_REQUIRED: {
    status: 400,
    description: 'PO-11/PO-12: the user has student data at several portals and the request names none (`portalType`)',
  },
  ACADEMIC_RECORD_NOT_FOUND: { status: 422, description: 'PO-11: the student has no academic record (the link stored no record to compute from)' },
  GRADUATION_RULES_NOT_FOUND: {
    status: 422,
    description: "PO-11: no graduation rule applies to the student's portal, admission year, department and (double) major",
  },
  A07: { status: 422, title: 'Evaluation Semester Mismatch', description: 'PO-12 A07: the semester asked for is not the course-evaluation target semester' },
  A08: { status: 422, title: 'Evaluation Course Mismatch', description: "PO-12 A08: the course is not one of the target semester's courses" },
});

/** The family's vocabulary (manifest `errors`). */
export const PO_ERRORS = defineErrors({ failures: PO_FAILURES, problems: PO_PROBLEMS, rowCodes: PO_ROW_CODES });
