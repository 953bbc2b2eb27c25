/**
 * The AI runtime client boundary of the AI runs family (AR-2, AR-8): one {@link AiRuntimeClient}
 * call per attempt, returning the runtime's raw JSON answer, which the caller re-validates with
 * `parseRuntimeAnswer` (src/domain/ai-runs/contract.ts) before anything is stored. Implementations never
 * retry (AR-8: the server retries by making a new attempt, so call counts never multiply) and reject
 * only with {@link AiRuntimeCallError} subclasses, whose `code` is stable and whose `retryable`
 * decides between RETRYING and FAILED. Messages never contain the request text.
 */
import type { RuntimeRequest } from '../../../domain/ai-runs/contract';
import type { RuntimeErrorCode } from '../../../domain/ai-runs/errors';

/** Options of one call. */
export interface AnalyzeOptions {
  /** Correlation id of this call (the attempt's requestId), sent as `X-Request-Id`. */
  requestId: string;
  /** Time budget of this call in milliseconds (> 0); past it the call rejects with RUNTIME_TIMEOUT. */
  deadlineMs: number;
  /** The caller's cancellation (activity cancelled); rejects with RUNTIME_CANCELLED. */
  signal?: AbortSignal;
  /** W3C trace context of the attempt, sent as `traceparent`. */
  traceparent?: string;
}

/** The raw answer of one call and its wall-clock latency in milliseconds. */
export interface AnalyzeResult {
  raw: unknown;
  latencyMs: number;
}

/**
 * A runtime that analyses one HR request (AR-2). `analyze` makes exactly one runtime call (AR-8)
 * and rejects only with {@link AiRuntimeCallError}.
 */
export interface AiRuntimeClient {
  /** `local` or `http`. */
  readonly kind: string;
  analyze(request: RuntimeRequest, options: AnalyzeOptions): Promise<AnalyzeResult>;
}

/** Stable error codes of the client boundary: the family's row codes (src/domain/ai-runs/errors.ts). */
export { RUNTIME_ERROR_CODES, type RuntimeErrorCode } from '../../../domain/ai-runs/errors';

/** Details every call error carries. */
export interface CallErrorDetails {
  /** Time from the start of the call to the failure, in milliseconds (stored on the attempt). */
  latencyMs?: number;
  /** HTTP status of the runtime's response, when there was one. */
  status?: number;
  cause?: unknown;
}

/**
 * A classified failure of one runtime call (AR-7, AR-8). `retryable` true: the server may make a
 * new attempt (after `retryAfterMs` when given); false: the run fails at once.
 */
export abstract class AiRuntimeCallError extends Error {
  abstract readonly code: RuntimeErrorCode;
  abstract readonly retryable: boolean;
  readonly latencyMs: number | undefined;
  readonly status: number | undefined;
  constructor(message: string, details: CallErrorDetails = {}) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.latencyMs = details.latencyMs;
    this.status = details.status;
  }
  /** Delay the runtime asked for before the next call, in milliseconds. */
  get retryAfterMs(): number | undefined {
    return undefined;
  }
}

/** The call did not finish within its deadline (retryable). */
export class RuntimeTimeoutError extends AiRuntimeCallError {
  override readonly name = 'RuntimeTimeoutError';
  readonly code = 'RUNTIME_TIMEOUT';
  readonly retryable = true;
}

/** The runtime is unreachable or answered 5xx (retryable). */
export class RuntimeUnavailableError extends AiRuntimeCallError {
  override readonly name = 'RuntimeUnavailableError';
  readonly code = 'RUNTIME_UNAVAILABLE';
  readonly retryable = true;
}

/** The runtime answered 429; `retryAfterMs` from its Retry-After (retryable). */
export class RuntimeRateLimitedError extends AiRuntimeCallError {
  override readonly name = 'RuntimeRateLimitedError';
  readonly code = 'RUNTIME_RATE_LIMITED';
  readonly retryable = true;
  readonly #retryAfterMs: number | undefined;
  constructor(message: string, retryAfterMs: number | undefined, details: CallErrorDetails = {}) {
    super(message, details);
    this.#retryAfterMs = retryAfterMs;
  }
  override get retryAfterMs(): number | undefined {
    return this.#retryAfterMs;
  }
}

/** The runtime rejected the request (a 4xx other than 429): asking again gives the same answer (terminal). */
export class RuntimeRejectedError extends AiRuntimeCallError {
  override readonly name = 'RuntimeRejectedError';
  readonly code = 'RUNTIME_REJECTED';
  readonly retryable = false;
}

/** The runtime speaks another contract version (header or body): terminal until redeployed. */
export class ContractVersionMismatchError extends AiRuntimeCallError {
  override readonly name = 'ContractVersionMismatchError';
  readonly code = 'CONTRACT_VERSION_MISMATCH';
  readonly retryable = false;
}

/**
 * A 2xx whose body is not JSON (terminal). Why not retry: the runtime owns its provider retries
 * inside one attempt (AR-8), so a broken body that reaches us is the runtime's final answer, not a
 * transient fault; AR-9 keeps invalid JSON out of every candidate, and the issue classes it with
 * schema violations as terminal. A new attempt stays possible through a manual retry (AR-4).
 */
export class MalformedResponseError extends AiRuntimeCallError {
  override readonly name = 'MalformedResponseError';
  readonly code = 'MALFORMED_RESPONSE';
  readonly retryable = false;
}

/** The caller cancelled the call through its signal (terminal: the run is being cancelled). */
export class RuntimeCancelledError extends AiRuntimeCallError {
  override readonly name = 'RuntimeCancelledError';
  readonly code = 'RUNTIME_CANCELLED';
  readonly retryable = false;
}

/** True for an {@link AiRuntimeCallError} with `retryable` set. */
export function isRetryableRuntimeError(err: unknown): boolean {
  return err instanceof AiRuntimeCallError && err.retryable;
}

/**
 * A `Retry-After` header value in milliseconds: delta-seconds ("5", "1.5") or an HTTP date
 * (relative to `now`, never negative). Undefined when absent or unparseable.
 */
export function parseRetryAfter(value: string | null | undefined, now: number = Date.now()): number | undefined {
  const v = value?.trim();
  if (!v) return undefined;
  if (/^\d+(\.\d+)?$/.test(v)) return Math.round(Number(v) * 1000);
  const at = Date.parse(v);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}
