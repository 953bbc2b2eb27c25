/**
 * Error vocabularies and their registry (DC-3). A vocabulary is one module's declaration of what can
 * go wrong: its Temporal failure types with their retry class, its projection row error codes (what
 * an `error_code` column holds) and its problem codes with their HTTP status. The core declares its
 * own here; each family declares one in src/domain/<family>/errors.ts, each shared adapter one next
 * to it (src/ai/failures.ts, src/github/failures.ts), and a family's manifest lists the
 * vocabularies it throws through (`errors`). {@link assembleErrorRegistry} merges them: the API's
 * error handler reads a problem's status and title from it. Workflow-safe, no I/O.
 */
import { DomainError, type ProblemOptions } from './domain-error';
import { defineFailures, mergeFailureCatalogues, type FailureCatalogue } from './failures';
import { defineProblems, problemRegistry, type ProblemCatalogue, type ProblemRegistry } from './problems';

/** Failure types of the job core itself. */
export const CORE_FAILURES = defineFailures({
  JOB_NOT_FOUND: { retry: 'non-retryable', description: 'the job row does not exist' },
  JOB_NOT_ACTIVE: { retry: 'non-retryable', description: 'the job row is not PROCESSING, so the result cannot complete it' },
  JOB_FAILED: { retry: 'non-retryable', description: 'the job workflow failed; the row is FAILED with the cause chain' },
  JOB_CANCELLED: { retry: 'non-retryable', description: 'the job workflow was cancelled; the row is FAILED' },
  PROJECTION_REJECTED: {
    retry: 'non-retryable',
    description: 'the database rejected the projection write deterministically (data exception, constraint); retrying cannot help',
  },
  DEPENDENCY_UNAVAILABLE: { retry: 'retryable', description: 'a dependency (database, Temporal, provider) is unreachable; waited out' },
  DATABASE_ERROR: {
    retry: 'retryable',
    description: 'a database error of no known class (e.g. a serialisation conflict, a raised exception); retried within the bound',
  },
});

/** Problem codes of the API plumbing and the core's modules (auth, idempotency, preconditions, pagination, jobs). */
export const CORE_PROBLEMS = defineProblems({
  VALIDATION_FAILED: { status: 400, description: 'the request failed its schema or a check; `errors[]` lists the failed checks' },
  MALFORMED_JSON: { status: 400, title: 'Malformed JSON', description: 'the body is not JSON (or not UTF-8)' },
  BODY_NOT_ALLOWED: { status: 400, description: 'the operation takes no request body and got one (Content-Length above 0, or Transfer-Encoding)' },
  MALFORMED_REQUEST: { status: 400, title: 'Bad Request', description: 'not valid HTTP/1.1 (answered before any route ran)' },
  INVALID_CURSOR: { status: 400, description: 'a cursor that is not a nextCursor of the same list' },
  IDEMPOTENCY_KEY_MISSING: { status: 400, description: 'the operation needs an Idempotency-Key header (AR-7, PO-1)' },
  IDEMPOTENCY_KEY_INVALID: { status: 400, description: 'the Idempotency-Key is empty, too long or not visible ASCII' },
  WEBHOOK_URL_REFUSED: { status: 400, description: 'the webhook URL is not https, carries credentials, does not resolve or resolves to a non-public address' },
  UNAUTHORIZED: { status: 401, description: 'missing, invalid or revoked credentials' },
  FORBIDDEN: { status: 403, description: "the caller's role may not do this" },
  NOT_FOUND: { status: 404, description: 'the resource does not exist or belongs to someone else (never 403, no leak)' },
  METHOD_NOT_ALLOWED: { status: 405, description: 'the path exists, the method does not (`Allow` lists the methods)' },
  REQUEST_TIMEOUT: { status: 408, title: 'Request Timeout', description: 'headers or body not received within the server timeouts' },
  DUPLICATE_RESOURCE: { status: 409, description: 'the resource already exists, or an equal one is active (SAN-2 … SAN-12)' },
  JOB_NOT_RETRYABLE: { status: 409, description: 'only a FAILED job whose target is open and that nothing newer supersedes can be re-run' },
  RETRY_LIMIT_REACHED: { status: 409, description: 'the job was re-run as often as allowed' },
  IDEMPOTENCY_KEY_CONFLICT: { status: 409, description: 'the key was used with another request; `errors[]` names the differing fields' },
  WEBHOOK_SIGNING_SECRET_MISSING: { status: 409, description: 'a per-request `webhook` needs the caller\'s signing secret: create it with POST /webhooks/signing-secret first' },
  IDEMPOTENCY_KEY_IN_PROGRESS: { status: 409, description: 'the first request with this key has no answer yet; retry shortly' },
  PRECONDITION_FAILED: { status: 412, description: "If-Match does not match the resource's current ETag; nothing applied" },
  PAYLOAD_TOO_LARGE: { status: 413, description: 'the body is over the size limit' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, description: 'not application/json, or a charset other than UTF-8' },
  PRECONDITION_REQUIRED: { status: 428, description: 'the route needs If-Match (or an explicit version) and got none' },
  RATE_LIMITED: {
    status: 429,
    title: 'Too Many Requests',
    description: 'over a rate limit of the caller (user, company or IP address); `Retry-After` says when the window resets, `RateLimit` which limit',
  },
  HEADERS_TOO_LARGE: { status: 431, title: 'Request Header Fields Too Large', description: 'the request headers are larger than the server accepts' },
  INTERNAL: { status: 500, title: 'Internal Server Error', description: 'an unexpected error; details only in the logs' },
  SERVICE_UNAVAILABLE: { status: 503, description: 'the database or another dependency cannot be used now; see Retry-After' },
  WORKFLOW_START_UNAVAILABLE: {
    status: 503,
    description: 'Temporal could not start the workflow of the resource being created or retried; nothing was kept (a retried resource is as it was): retry the same request (same Idempotency-Key) after Retry-After',
  },
  WORKFLOW_START_UNDECIDED: {
    status: 503,
    description: 'Temporal did not answer whether it started the workflow, nor whether a run exists; the resource is kept and its start settled by the reconciler: retry the same request (same Idempotency-Key) after Retry-After',
  },
});

/** A problem code of the core. */
export type CoreProblemCode = keyof typeof CORE_PROBLEMS;

/** Row error codes of a projection table (what its `error_code` column holds) → what each means. */
export type RowCodeCatalogue = Readonly<Record<string, { readonly description: string }>>;

type NoEntries = Readonly<Record<never, never>>;

/** The statuses besides its default that problem `S` is declared with. */
type OtherStatuses<S> = S extends { readonly otherStatuses: readonly (infer A extends number)[] } ? A : never;

/** One module's error vocabulary (see the module comment). */
export interface ErrorVocabulary<
  F extends FailureCatalogue = FailureCatalogue,
  P extends ProblemCatalogue = ProblemCatalogue,
  R extends RowCodeCatalogue = RowCodeCatalogue,
> {
  /** Temporal failure types → retry class; throw them with `failure(vocabulary.failures, type, …)`. */
  readonly failures: F;
  /** Problem codes → HTTP status (and title). */
  readonly problems: P;
  /** Row error codes → meaning. */
  readonly rowCodes: R;
  /**
   * The DomainError of problem `code`, one of this vocabulary's or the core's; `opts.status` only
   * for a code declared with `otherStatuses`, and then one of them.
   */
  problem<K extends (keyof P | CoreProblemCode) & string>(
    code: K,
    detail?: string,
    opts?: ProblemOptions<OtherStatuses<(P & typeof CORE_PROBLEMS)[K]>>,
  ): DomainError;
}

/** Declares a vocabulary; each part keeps its literal keys (and their specs) for type-checked throws. */
export function defineErrors<
  const F extends FailureCatalogue = NoEntries,
  const P extends ProblemCatalogue = NoEntries,
  const R extends RowCodeCatalogue = NoEntries,
>(parts: { failures?: F; problems?: P; rowCodes?: R }): ErrorVocabulary<F, P, R> {
  return {
    failures: parts.failures ?? ({} as F),
    problems: parts.problems ?? ({} as P),
    rowCodes: parts.rowCodes ?? ({} as R),
    problem: (code, detail, opts) => new DomainError(code, detail, opts),
  };
}

/** The core's vocabulary. */
export const CORE_ERRORS = defineErrors({ failures: CORE_FAILURES, problems: CORE_PROBLEMS });

/** 404 NOT_FOUND: `${what} not found` (also for another user's resource: never 403, no leak). */
export function notFound(what: string): DomainError {
  return CORE_ERRORS.problem('NOT_FOUND', `${what} not found`);
}

/** `{ CODE: 'CODE' }` of a row-code catalogue, for type-checked references such as `CODES.CANCELLED`. */
export function codesOf<const R extends RowCodeCatalogue>(rowCodes: R): { readonly [K in keyof R]: K } {
  return Object.fromEntries(Object.keys(rowCodes).map((k) => [k, k])) as { [K in keyof R]: K };
}

/** Every failure type and problem code of the core and the given vocabularies. */
export interface ErrorRegistry {
  readonly problems: ProblemRegistry;
  readonly failures: FailureCatalogue;
}

/**
 * The registry of the core's vocabulary and `vocabularies` (the families' and adapters', from the
 * manifests); a vocabulary listed twice counts once.
 * @throws Error when a problem code is declared twice with different statuses or titles, or a
 *   failure type with two retry classes.
 */
export function assembleErrorRegistry(vocabularies: readonly ErrorVocabulary[]): ErrorRegistry {
  const all = [...new Set([CORE_ERRORS as ErrorVocabulary, ...vocabularies])];
  return {
    problems: problemRegistry(all.map((v) => v.problems)),
    failures: mergeFailureCatalogues(all.map((v) => v.failures)),
  };
}

/** The registry of the core's vocabulary alone (an app without families). */
export const CORE_ERROR_REGISTRY: ErrorRegistry = assembleErrorRegistry([]);
