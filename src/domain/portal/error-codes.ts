/**
 * PO-2/PO-5/PO-10 stable error codes a portal link job FAILS with (portal_link_jobs.error_code),
 * shared by the scraper, the workflow, post-processing and the API. Workflow-safe.
 */
export const PORTAL_JOB_ERROR_CODES = {
  /** Wrong student id or password: new credentials are needed; never retried automatically. */
  PORTAL_CREDENTIALS_INVALID: 'PORTAL_CREDENTIALS_INVALID',
  /** The portal stayed down (5xx, maintenance, unreachable) past the job's deadline. */
  PORTAL_UNAVAILABLE: 'PORTAL_UNAVAILABLE',
  /** The portal's session kept expiring mid-scrape (its login page answered 200) past the retry budget. */
  PORTAL_SESSION_EXPIRED: 'PORTAL_SESSION_EXPIRED',
  /** The portal's pages did not have the expected structure (deterministic). */
  PORTAL_MARKUP_UNEXPECTED: 'PORTAL_MARKUP_UNEXPECTED',
  /** The job's start was recovered without the password (it is never stored): link again. */
  PORTAL_CREDENTIALS_REQUIRED: 'PORTAL_CREDENTIALS_REQUIRED',
  /** The scraper's callback did not arrive before the deadline. */
  CALLBACK_TIMEOUT: 'CALLBACK_TIMEOUT',
  /** The scraper reported a failure in its callback with no more specific code. */
  SCRAPE_FAILED: 'SCRAPE_FAILED',
  /** PO-10 the result object is missing, unreadable or its SHA-256 does not match. */
  C16: 'C16',
  /** PO-10 the result does not match the result schema. */
  C17: 'C17',
  /** PO-10 applying the result to the database failed. */
  C18: 'C18',
  /** The job was cancelled or its workflow terminated. */
  CANCELLED: 'CANCELLED',
} as const;

/** One of {@link PORTAL_JOB_ERROR_CODES}. */
export type PortalJobErrorCode = (typeof PORTAL_JOB_ERROR_CODES)[keyof typeof PORTAL_JOB_ERROR_CODES];
