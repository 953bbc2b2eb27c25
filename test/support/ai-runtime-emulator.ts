/**
 * A local HTTP server speaking the AI runtime protocol `ai-run/v1` (AR-2, AR-8, AR-9) for tests
 * and the demo: `POST /v1/analyze` with `X-Contract-Version`, answers computed by the offline
 * `local` runtime ({@link analyzeLocally}), fault injection per call, and call counting per
 * requestId (AR-8 tests assert one call per attempt).
 *
 * ```ts
 * const emu = await startAiRuntimeEmulator();          // 127.0.0.1, random port
 * const client = createHttpAiRuntimeClient({ baseUrl: emu.url });
 * emu.failNext(1, '429', { retryAfter: '2' });         // the next call answers 429, Retry-After: 2
 * emu.setMode('timeout');                              // every call hangs until setMode('ok')
 * emu.failWhen((req) => (req.text.includes('[flaky]') && req.attempt === 1 ? '503' : undefined));
 * expect(emu.callsFor('req-1')).toBe(1);
 * await emu.close();
 * ```
 *
 * Protocol checks (not faults): a missing or different `X-Contract-Version` → 409 problem
 * `CONTRACT_VERSION_MISMATCH`; a body that is not a valid request → 400 `INVALID_REQUEST`; an
 * unknown workflow catalog version → 422 `UNKNOWN_WORKFLOW_CATALOG`. Precedence of faults:
 * `failWhen` over queued faults (`failNext`) over the standing mode (`setMode`).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CONTRACT_VERSION, CONTRACT_VERSION_HEADER, RuntimeRequestSchema, type RuntimeRequest } from '../../src/domain/ai-runs/contract';
import { AiRuntimeCallError } from '../../src/services/ai-runs/runtime-client/client';
import { DEFAULT_ANALYZE_PATH } from '../../src/services/ai-runs/runtime-client/http';
import { analyzeLocally } from '../../src/services/ai-runs/runtime-client/local';

/** Injectable faults of one call. */
export type AiRuntimeFault =
  /** 200 with a body that is not JSON. */
  | 'malformed-json'
  /** 200 with JSON that breaks the contract (unknown task type, slot of the wrong type, bad confidence). */
  | 'schema-violation'
  /** 200 with `X-Contract-Version: ai-run/v0` and `contractVersion: 'ai-run/v0'`. */
  | 'wrong-contract-version'
  /** 200 with the right header but `contractVersion: 'ai-run/v0'` in the body only. */
  | 'wrong-contract-version-body'
  /** The request is accepted and never answered (client timeouts). */
  | 'timeout'
  /** The answer is sent after `delayMs` (default 1000). */
  | 'slow'
  /** 500 / 503 problem+json. */
  | '500'
  | '503'
  /** 429 with `Retry-After` (`retryAfter`, default `'1'`). */
  | '429'
  /** 422 problem+json (a terminal rejection). */
  | '422'
  /** The connection is destroyed without an answer (network error). */
  | 'reset'
  /** 200 with a 2 MiB JSON body (beyond the adapter's 1 MiB limit). */
  | 'oversized';

/** Options of a fault. */
export interface AiRuntimeFaultOptions {
  /** `429`: raw Retry-After value (delta-seconds or HTTP date); default `'1'`; null sends none. */
  retryAfter?: string | null;
  /** `slow`: delay before the answer, in milliseconds. */
  delayMs?: number;
}

/** One received call. */
export interface AiRuntimeEmulatorCall {
  requestId: string | undefined;
  contractVersion: string | undefined;
  traceparent: string | undefined;
  /** The parsed body (test data only: the emulator is never fed real personal data). */
  body: unknown;
  fault: AiRuntimeFault | undefined;
}

/** Handle of a running emulator. */
export interface AiRuntimeEmulator {
  /** Base URL for the HTTP adapter (`baseUrl`), without a trailing slash. */
  readonly url: string;
  /** Every call received, in order. */
  readonly calls: readonly AiRuntimeEmulatorCall[];
  /** Calls received for `requestId` (X-Request-Id, else the body's requestId). */
  callsFor(requestId: string): number;
  /** Makes the next `n` calls fail with `kind`. */
  failNext(n: number, kind: AiRuntimeFault, options?: AiRuntimeFaultOptions): void;
  /** Makes every call fail with `kind` until `setMode('ok')`. */
  setMode(kind: AiRuntimeFault | 'ok', options?: AiRuntimeFaultOptions): void;
  /**
   * Per-call faults chosen from the request: `pick(request, n)` gets the parsed request and the
   * number of earlier calls with its requestId; a fault kind (or `[kind, options]`) fails the call,
   * undefined answers normally. `null` removes the picker.
   */
  failWhen(pick: ((request: RuntimeRequest, earlierCalls: number) => AiRuntimeFault | [AiRuntimeFault, AiRuntimeFaultOptions] | undefined) | null): void;
  /** Clears faults, mode, picker, counters and the call log. */
  reset(): void;
  /** Stops the server, dropping hung calls. */
  close(): Promise<void>;
}

function sendProblem(res: ServerResponse, status: number, code: string, title: string, headers: Record<string, string> = {}): void {
  const body = JSON.stringify({ type: 'about:blank', title, status, code });
  res.writeHead(status, { 'content-type': 'application/problem+json', [CONTRACT_VERSION_HEADER]: CONTRACT_VERSION, ...headers });
  res.end(body);
}

function sendJson(res: ServerResponse, status: number, body: unknown, version = CONTRACT_VERSION): void {
  res.writeHead(status, { 'content-type': 'application/json', [CONTRACT_VERSION_HEADER]: version });
  res.end(JSON.stringify(body));
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let data = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (data += chunk));
    req.on('end', () => resolve(data));
    req.on('error', reject);
  });
}

/** Starts an emulator on 127.0.0.1 with a random port; `now` is the reference time of requests without `referenceTime`. */
export async function startAiRuntimeEmulator(options: { now?: () => Date } = {}): Promise<AiRuntimeEmulator> {
  let queue: { kind: AiRuntimeFault; left: number; options: AiRuntimeFaultOptions }[] = [];
  let mode: { kind: AiRuntimeFault; options: AiRuntimeFaultOptions } | null = null;
  let picker: Parameters<AiRuntimeEmulator['failWhen']>[0] = null;
  let calls: AiRuntimeEmulatorCall[] = [];
  let perRequest = new Map<string, number>();
  const timers = new Set<NodeJS.Timeout>();

  const server = createServer((req, res) => {
    void handle(req, res).catch(() => {
      if (!res.headersSent) sendProblem(res, 500, 'EMULATOR_ERROR', 'emulator error');
    });
  });

  function takeFault(request: RuntimeRequest, earlier: number): { kind: AiRuntimeFault; options: AiRuntimeFaultOptions } | null {
    const picked = picker?.(request, earlier);
    if (picked) return Array.isArray(picked) ? { kind: picked[0], options: picked[1] } : { kind: picked, options: {} };
    const queued = queue[0];
    if (queued) {
      queued.left -= 1;
      if (queued.left <= 0) queue = queue.slice(1);
      return queued;
    }
    return mode;
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '/').split('?')[0];
    const raw = await readBody(req);
    let body: unknown;
    try {
      body = raw ? JSON.parse(raw) : undefined;
    } catch {
      body = raw;
    }
    const header = (name: string) => {
      const v = req.headers[name.toLowerCase()];
      return Array.isArray(v) ? v[0] : v;
    };
    const requestId = header('x-request-id') ?? (typeof (body as { requestId?: unknown } | null)?.requestId === 'string' ? (body as { requestId: string }).requestId : undefined);
    const call: AiRuntimeEmulatorCall = { requestId, contractVersion: header(CONTRACT_VERSION_HEADER), traceparent: header('traceparent'), body, fault: undefined };
    calls.push(call);
    const earlier = requestId === undefined ? 0 : (perRequest.get(requestId) ?? 0);
    if (requestId !== undefined) perRequest.set(requestId, earlier + 1);

    if (path !== DEFAULT_ANALYZE_PATH) return sendProblem(res, 404, 'NOT_FOUND', 'unknown path');
    if (req.method !== 'POST') return sendProblem(res, 405, 'METHOD_NOT_ALLOWED', 'POST only');
    if (call.contractVersion !== CONTRACT_VERSION) return sendProblem(res, 409, 'CONTRACT_VERSION_MISMATCH', `this runtime speaks ${CONTRACT_VERSION}`);
    const parsed = RuntimeRequestSchema.safeParse(body);
    if (!parsed.success) return sendProblem(res, 400, 'INVALID_REQUEST', 'the body is not an ai-run/v1 request');

    const fault = takeFault(parsed.data, earlier);
    call.fault = fault?.kind;
    switch (fault?.kind) {
      case 'timeout':
        return; // never answered; close() drops the socket
      case 'reset':
        req.socket.destroy();
        return;
      case '500':
      case '503':
        return sendProblem(res, Number(fault.kind), 'RUNTIME_ERROR', 'emulated runtime failure');
      case '422':
        return sendProblem(res, 422, 'UNPROCESSABLE_REQUEST', 'emulated rejection');
      case '429': {
        const retryAfter = fault.options.retryAfter === undefined ? '1' : fault.options.retryAfter;
        return sendProblem(res, 429, 'RATE_LIMITED', 'emulated rate limit', retryAfter === null ? {} : { 'retry-after': retryAfter });
      }
      case 'oversized':
        return sendJson(res, 200, { padding: 'x'.repeat(2 * 1024 * 1024) });
      case 'malformed-json':
        res.writeHead(200, { 'content-type': 'application/json', [CONTRACT_VERSION_HEADER]: CONTRACT_VERSION });
        res.end('{"contractVersion": "ai-run/v1", "candidates": [');
        return;
      default:
        break;
    }

    let answer: ReturnType<typeof analyzeLocally>;
    try {
      answer = analyzeLocally(parsed.data, { now: options.now?.() });
    } catch (err) {
      if (err instanceof AiRuntimeCallError && !err.retryable) return sendProblem(res, 422, 'UNKNOWN_WORKFLOW_CATALOG', 'unknown workflow catalog version');
      throw err;
    }
    if (fault?.kind === 'schema-violation') {
      return sendJson(res, 200, {
        ...answer,
        candidates: [{ taskType: 'TELEPORT_REQUEST', title: 'x', slots: { dueDate: 'next week' }, missingSlots: [], confidence: 1.7 }],
      });
    }
    if (fault?.kind === 'wrong-contract-version') return sendJson(res, 200, { ...answer, contractVersion: 'ai-run/v0' }, 'ai-run/v0');
    if (fault?.kind === 'wrong-contract-version-body') return sendJson(res, 200, { ...answer, contractVersion: 'ai-run/v0' });
    if (fault?.kind === 'slow') {
      const timer = setTimeout(() => {
        timers.delete(timer);
        if (!res.destroyed) sendJson(res, 200, answer);
      }, fault.options.delayMs ?? 1000);
      timers.add(timer);
      return;
    }
    return sendJson(res, 200, answer);
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    get calls() {
      return calls;
    },
    callsFor(requestId) {
      return perRequest.get(requestId) ?? 0;
    },
    failNext(n, kind, opts = {}) {
      if (!Number.isInteger(n) || n < 1) throw new RangeError(`failNext: n must be a positive integer, got ${n}`);
      queue.push({ kind, left: n, options: opts });
    },
    setMode(kind, opts = {}) {
      mode = kind === 'ok' ? null : { kind, options: opts };
    },
    failWhen(pick) {
      picker = pick;
    },
    reset() {
      queue = [];
      mode = null;
      picker = null;
      calls = [];
      perRequest = new Map();
    },
    close() {
      for (const t of timers) clearTimeout(t);
      timers.clear();
      return new Promise<void>((resolve, reject) => {
        server.close((err) => (err ? reject(err) : resolve()));
        server.closeAllConnections();
      });
    },
  };
}
