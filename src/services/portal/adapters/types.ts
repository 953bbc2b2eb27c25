/**
 * PO-5 the portal boundary: a {@link PortalAdapter} logs into one university portal with the
 * student's credentials and reads the student's data into a scrape result. Adapters throw only
 * the error types below; the scrape activity maps them to Temporal failures (credentials and
 * markup: non-retryable; outages and expired sessions: retryable). Login failures are told apart
 * the way account-linking products do (new credentials needed vs. try again later).
 */
import { PORTAL_JOB_ERROR_CODES, type PortalJobErrorCode } from '../../../domain/portal/errors';
import type { ScrapeResultInput } from '../../../domain/portal/result';

/** The student's portal login. The password lives only in memory for one scrape. */
export interface PortalCredentials {
  studentId: string;
  password: string;
}

/** What an adapter may use while it scrapes. */
export interface ScrapeContext {
  /** Called after each page (Temporal activity heartbeat), with a short progress note. */
  heartbeat?: (progress: { page: string; pages: number }) => void;
  /** Aborts the scrape (activity cancelled or timed out). */
  signal?: AbortSignal;
}

/** One portal type (`suwon` today): logs in and reads everything PO-5 lists. */
export interface PortalAdapter {
  /** The portal type (`portal_type` of the API). */
  readonly type: string;
  /**
   * Logs in and reads profile, academic record, every semester's courses and grades, designated
   * courses and course evaluations. Returns the camelCase result (snake_cased by the caller).
   * @throws PortalCredentialsInvalidError, PortalUnavailableError, PortalSessionExpiredError,
   *   PortalMarkupUnexpectedError; the signal's reason when aborted.
   */
  scrape(credentials: PortalCredentials, ctx?: ScrapeContext): Promise<ScrapeResultInput>;
}

/** Base of the adapter errors; `code` is the job error code it ends in (PO-2). */
export abstract class PortalError extends Error {
  abstract readonly code: PortalJobErrorCode;
}

/** Wrong student id or password: new credentials are needed, never retried automatically. */
export class PortalCredentialsInvalidError extends PortalError {
  override readonly name = 'PortalCredentialsInvalidError';
  readonly code = PORTAL_JOB_ERROR_CODES.PORTAL_CREDENTIALS_INVALID;
}

/** The portal is down: 5xx, 429, maintenance page, unreachable, or a page slower than the request timeout. */
export class PortalUnavailableError extends PortalError {
  override readonly name = 'PortalUnavailableError';
  readonly code = PORTAL_JOB_ERROR_CODES.PORTAL_UNAVAILABLE;
  constructor(
    message: string,
    readonly details: { status?: number; maintenance?: boolean; retryAfterMs?: number } = {},
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/** A data page answered the login form again even after one fresh login (the session keeps expiring). */
export class PortalSessionExpiredError extends PortalError {
  override readonly name = 'PortalSessionExpiredError';
  readonly code = PORTAL_JOB_ERROR_CODES.PORTAL_SESSION_EXPIRED;
}

/** A page did not have the expected structure (deterministic until the adapter is fixed). */
export class PortalMarkupUnexpectedError extends PortalError {
  override readonly name = 'PortalMarkupUnexpectedError';
  readonly code = PORTAL_JOB_ERROR_CODES.PORTAL_MARKUP_UNEXPECTED;
}
