/**
 * The HTTP adapter of the external AI runtime (AR-2, AR-8): `POST {baseUrl}{path}` (default
 * `/v1/analyze`) with the request as JSON and the headers `X-Contract-Version: ai-run/v1`,
 * `X-Request-Id` and, when given, `traceparent`. One request per call, bounded by the call's
 * `deadlineMs` (AbortSignal.timeout) and the caller's signal; never retried here (AR-8: the server
 * retries by making a new attempt). Uses Node's built-in fetch (undici), no extra dependency.
 *
 * Classification: timeout → RUNTIME_TIMEOUT; network error or 5xx → RUNTIME_UNAVAILABLE; 429 →
 * RUNTIME_RATE_LIMITED with `Retry-After` (seconds or HTTP date); 408 → RUNTIME_TIMEOUT; a response
 * whose `X-Contract-Version` differs, or a 4xx whose problem `code` is CONTRACT_VERSION_MISMATCH →
 * CONTRACT_VERSION_MISMATCH; other 4xx → RUNTIME_REJECTED; a 2xx whose body is not JSON →
 * MALFORMED_RESPONSE (also a 2xx body over 1 MiB); the caller's abort → RUNTIME_CANCELLED. Messages name the status and the
 * runtime's problem `code`, never the request text or the runtime's free-text detail (it may echo input).
 */
import { performance } from 'node:perf_hooks';
import { CONTRACT_VERSION, CONTRACT_VERSION_HEADER, RuntimeRequestSchema, type RuntimeRequest } from '../../../domain/ai-runs/contract';
import {
  ContractVersionMismatchError,
  MalformedResponseError,
  RuntimeCancelledError,
  RuntimeRateLimitedError,
  RuntimeRejectedError,
  RuntimeTimeoutError,
  RuntimeUnavailableError,
  parseRetryAfter,
  type AiRuntimeClient,
  type AnalyzeOptions,
  type AnalyzeResult,
} from './client';

/** Path of the analysis endpoint under the base URL. */
export const DEFAULT_ANALYZE_PATH = '/v1/analyze';

/** Options of the HTTP adapter. */
export interface HttpRuntimeOptions {
  /** Absolute base URL of the runtime, e.g. `http://ai-runtime:8080` (a trailing slash is ignored). */
  baseUrl?: string;
  /** Endpoint path (default {@link DEFAULT_ANALYZE_PATH}). */
  path?: string;
  /** Extra headers (e.g. an authorization header); never logged. */
  headers?: Record<string, string>;
  /** fetch implementation (default: the global fetch). */
  fetch?: typeof fetch;
}

const PROBLEM_CODE = /^[A-Z][A-Z0-9_]{0,63}$/;
/** Largest response body read, in bytes (an answer has at most 5 candidates: a few KiB). */
export const MAX_RESPONSE_BYTES = 1024 * 1024;

/** `X-Request-Id` values we send: 1-128 visible ASCII characters. */
const HEADER_TOKEN = /^[\x21-\x7e]{1,128}$/;
/** W3C trace context `traceparent` (version-traceid-parentid-flags). */
const TRACEPARENT = /^[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$/;
/** Longest timer Node accepts, in milliseconds. */
const MAX_TIMER_MS = 2_147_483_647;

class BodyTooLargeError extends Error {}

/** The body as UTF-8 text, at most {@link MAX_RESPONSE_BYTES}; rejects with BodyTooLargeError beyond. */
async function readBody(res: Response): Promise<string> {
  const declared = Number(res.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > MAX_RESPONSE_BYTES) {
    await res.body?.cancel();
    throw new BodyTooLargeError();
  }
  if (!res.body) return '';
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > MAX_RESPONSE_BYTES) {
      await reader.cancel();
      throw new BodyTooLargeError();
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** The runtime's problem `code` (RFC 9457 extension) when the body is JSON with a code-shaped `code`. */
function problemCode(body: string): string | undefined {
  try {
    const parsed = JSON.parse(body) as { code?: unknown };
    return typeof parsed.code === 'string' && PROBLEM_CODE.test(parsed.code) ? parsed.code : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Creates the `http` runtime client (AR-2).
 * @throws TypeError when `baseUrl` is missing or not an absolute http(s) URL.
 */
export function createHttpAiRuntimeClient(options: HttpRuntimeOptions): AiRuntimeClient {
  if (!options.baseUrl) throw new TypeError('http AI runtime: baseUrl is required');
  const base = new URL(options.baseUrl);
  if (base.protocol !== 'http:' && base.protocol !== 'https:') throw new TypeError('http AI runtime: baseUrl must be http(s)');
  const url = `${base.href.replace(/\/+$/, '')}${options.path ?? DEFAULT_ANALYZE_PATH}`;
  const doFetch = options.fetch ?? fetch;

  return {
    kind: 'http',
    async analyze(request: RuntimeRequest, call: AnalyzeOptions): Promise<AnalyzeResult> {
      const started = performance.now();
      const elapsed = () => Math.round(performance.now() - started);
      const what = `AI runtime POST ${options.path ?? DEFAULT_ANALYZE_PATH}`;
      const checked = RuntimeRequestSchema.safeParse(request);
      if (!checked.success) {
        const paths = [...new Set(checked.error.issues.map((i) => i.path.join('.') || '(root)'))].join(', ');
        throw new RuntimeRejectedError(`${what}: invalid request (${paths}); not sent`, { latencyMs: 0 });
      }
      if (!HEADER_TOKEN.test(call.requestId)) throw new RuntimeRejectedError(`${what}: the request id is not a header-safe token; not sent`, { latencyMs: 0 });
      if (call.signal?.aborted) throw new RuntimeCancelledError(`${what}: cancelled by the caller`, { latencyMs: 0 });
      if (!(call.deadlineMs > 0)) throw new RuntimeTimeoutError(`${what}: no time left (deadline ${call.deadlineMs} ms)`, { latencyMs: 0 });

      const timeout = AbortSignal.timeout(Math.min(MAX_TIMER_MS, Math.ceil(call.deadlineMs)));
      const signal = call.signal ? AbortSignal.any([timeout, call.signal]) : timeout;
      const aborted = (err: unknown) =>
        call.signal?.aborted
          ? new RuntimeCancelledError(`${what}: cancelled by the caller`, { latencyMs: elapsed(), cause: err })
          : new RuntimeTimeoutError(`${what}: no answer within ${call.deadlineMs} ms`, { latencyMs: elapsed(), cause: err });

      const headers: Record<string, string> = {
        ...options.headers,
        'content-type': 'application/json',
        accept: 'application/json',
        [CONTRACT_VERSION_HEADER]: CONTRACT_VERSION,
        'x-request-id': call.requestId,
      };
      // An ill-formed trace context is dropped, never sent (and never an error of the call).
      if (call.traceparent && TRACEPARENT.test(call.traceparent)) headers.traceparent = call.traceparent;

      let res: Response;
      try {
        res = await doFetch(url, { method: 'POST', headers, body: JSON.stringify(checked.data), signal });
      } catch (err) {
        if (signal.aborted) throw aborted(err);
        throw new RuntimeUnavailableError(`${what}: network error (${describe(err)})`, { latencyMs: elapsed(), cause: err });
      }
      let body: string;
      try {
        body = await readBody(res);
      } catch (err) {
        if (signal.aborted) throw aborted(err);
        if (!(err instanceof BodyTooLargeError)) {
          throw new RuntimeUnavailableError(`${what}: connection lost while reading the answer (${describe(err)})`, { latencyMs: elapsed(), status: res.status, cause: err });
        }
        if (res.ok) throw new MalformedResponseError(`${what}: HTTP ${res.status} body exceeds ${MAX_RESPONSE_BYTES} bytes`, { latencyMs: elapsed(), status: res.status });
        body = ''; // an oversized error body: classify by status alone
      }
      const latencyMs = elapsed();
      const status = res.status;
      const code = res.ok ? undefined : problemCode(body);
      const details = { latencyMs, status };
      const served = res.headers.get(CONTRACT_VERSION_HEADER);
      if ((served !== null && served.trim() !== CONTRACT_VERSION) || code === 'CONTRACT_VERSION_MISMATCH') {
        throw new ContractVersionMismatchError(`${what}: the runtime speaks contract ${served ? JSON.stringify(served.slice(0, 40)) : '(unknown)'}, expected ${CONTRACT_VERSION} (HTTP ${status})`, details);
      }
      const suffix = code ? ` ${code}` : '';
      if (status === 429) {
        const retryAfterMs = parseRetryAfter(res.headers.get('retry-after'));
        throw new RuntimeRateLimitedError(`${what}: rate limited (HTTP 429${suffix})${retryAfterMs !== undefined ? `, retry after ${retryAfterMs} ms` : ''}`, retryAfterMs, details);
      }
      if (status === 408) throw new RuntimeTimeoutError(`${what}: the runtime timed out (HTTP 408${suffix})`, details);
      if (status >= 500) throw new RuntimeUnavailableError(`${what}: runtime error (HTTP ${status}${suffix})`, details);
      if (status >= 400) throw new RuntimeRejectedError(`${what}: request rejected (HTTP ${status}${suffix})`, details);
      if (status < 200 || status >= 300) throw new RuntimeUnavailableError(`${what}: unexpected HTTP ${status}`, details);
      try {
        return { raw: JSON.parse(body) as unknown, latencyMs };
      } catch (err) {
        throw new MalformedResponseError(`${what}: HTTP ${status} body is not JSON (${body.length} characters)`, { ...details, cause: err });
      }
    },
  };
}

function describe(err: unknown): string {
  if (!(err instanceof Error)) return 'unknown error';
  const cause = err.cause as { code?: unknown } | undefined;
  return typeof cause?.code === 'string' ? cause.code : err.name;
}
