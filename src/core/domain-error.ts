/**
 * Errors that services throw and only the API maps to HTTP (RFC 9457 problem details). Services
 * never import the API: they state what went wrong (`kind`) and a stable `code`; the API's one
 * error handler chooses the status from the kind. Workflow-safe, no I/O.
 */

/** What went wrong, independent of HTTP. The API maps each kind to one status code. */
export type DomainErrorKind =
  /** The request is invalid (400). */
  | 'invalid'
  /** The resource does not exist or belongs to someone else (404). */
  | 'not-found'
  /** The caller may not do this (403). */
  | 'forbidden'
  /** The request conflicts with the resource's current state (409). */
  | 'conflict'
  /** Well-formed, but cannot be processed in the resource's state (422). */
  | 'unprocessable'
  /** An outside dependency refused or failed (502). */
  | 'bad-gateway'
  /** A dependency is down or busy; retry later (503). */
  | 'unavailable';

/** A domain failure with a stable machine-readable `code` (e.g. `NO_CARDS_FOR_DATE`). */
export class DomainError extends Error {
  override readonly name = 'DomainError';
  constructor(
    readonly kind: DomainErrorKind,
    readonly code: string,
    /** Short human title, e.g. "No Cards For Date"; defaults to the code in title case. */
    readonly title: string,
    readonly detail?: string,
    /** Failed checks the problem document lists as `errors[]` (e.g. the fields that differ). */
    readonly errors?: readonly { path: string; message: string }[],
  ) {
    super(detail ?? title);
  }
}

/** Title case of a code: `NO_CARDS_FOR_DATE` → "No Cards For Date". */
export function titleOf(code: string): string {
  return code
    .toLowerCase()
    .split('_')
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
    .join(' ');
}

/** Shorthand: `domainError('conflict', 'DUPLICATE_RESOURCE', 'already active')`. */
export function domainError(kind: DomainErrorKind, code: string, detail?: string): DomainError {
  return new DomainError(kind, code, titleOf(code), detail);
}
