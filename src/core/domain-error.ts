/**
 * The one error that routes and services throw for a client-visible failure: a stable problem
 * `code` declared in an error vocabulary (src/core/errors.ts, src/domain/<family>/errors.ts). Only
 * the API maps it to HTTP: its one error handler answers problem+json (RFC 9457) with the status
 * and title registered for the code. Workflow-safe, no I/O.
 */

/** A failed check listed in the problem document's `errors[]`. */
export interface ProblemFieldError {
  /** e.g. `body.content`, `querystring.date`. */
  path: string;
  message: string;
}

/** What a thrower may add to the problem document besides its code and detail. */
export interface ProblemOptions<S extends number = never> {
  /** Another of the statuses the code is declared with (only codes with `otherStatuses`). */
  status?: S;
  /** A title other than the registered one, for this occurrence. */
  title?: string;
  /** Failed checks listed as `errors[]` (e.g. the fields that differ). */
  errors?: readonly ProblemFieldError[];
  /** Extension members of the document (RFC 9457 section 3.2), e.g. `{ activeJobId }`. */
  members?: Readonly<Record<string, unknown>>;
  /** Response headers, e.g. `ETag`, or `Retry-After` in seconds (503 answers default to 1). */
  headers?: Readonly<Record<string, string>>;
}

/** A client-visible failure with a stable machine-readable `code` (e.g. `NO_CARDS_FOR_DATE`). */
export class DomainError extends Error {
  override readonly name = 'DomainError';
  /** Human-readable explanation of this occurrence (the document's `detail`). */
  readonly detail: string | undefined;
  readonly status: number | undefined;
  readonly title: string | undefined;
  readonly errors: readonly ProblemFieldError[] | undefined;
  readonly members: Readonly<Record<string, unknown>> | undefined;
  readonly headers: Readonly<Record<string, string>> | undefined;

  /** Prefer a vocabulary's `problem(code, …)`, which checks the code and the status at compile time. */
  constructor(
    readonly code: string,
    detail?: string,
    opts: ProblemOptions<number> = {},
  ) {
    super(detail ?? code);
    this.detail = detail;
    this.status = opts.status;
    this.title = opts.title;
    this.errors = opts.errors;
    this.members = opts.members;
    this.headers = opts.headers;
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
