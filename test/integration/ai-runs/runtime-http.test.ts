/**
 * AR-2/AR-8/AR-9: the real HTTP adapter of the AI runtime against the local runtime emulator over
 * real HTTP: the contract headers are sent, valid answers pass re-validation, every fault maps to
 * its error class and retry flag, and each call reaches the runtime exactly once (no retries inside
 * the client, so call counts never multiply).
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WORKFLOW_CATALOG_VERSION } from '../../../src/domain/ai-runs/catalog';
import { CONTRACT_VERSION, parseRuntimeAnswer, type RuntimeRequest } from '../../../src/domain/ai-runs/contract';
import {
  AiRuntimeCallError,
  ContractVersionMismatchError,
  MalformedResponseError,
  RuntimeCancelledError,
  RuntimeRateLimitedError,
  RuntimeRejectedError,
  RuntimeTimeoutError,
  RuntimeUnavailableError,
  createAiRuntimeClient,
  type AiRuntimeClient,
  type RuntimeErrorCode,
} from '../../../src/services/ai-runs/runtime-client';
import { startAiRuntimeEmulator, type AiRuntimeEmulator, type AiRuntimeFault } from '../../support/ai-runtime-emulator';
import { pollUntil } from '../../support/poll';

const TEXT = 'I need an employment certificate for my visa by Friday, my phone is 010-1234-5678';
const TRACEPARENT = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';

let emu: AiRuntimeEmulator;
let client: AiRuntimeClient;
let seq = 0;

beforeAll(async () => {
  emu = await startAiRuntimeEmulator();
  client = createAiRuntimeClient({ kind: 'http', baseUrl: emu.url });
});
afterAll(async () => {
  await emu.close();
});
beforeEach(() => emu.reset());

function req(text = TEXT, extra: Partial<RuntimeRequest> = {}): RuntimeRequest {
  seq += 1;
  return { requestId: `it-${seq}-${Date.now()}`, text, workflowCatalogVersion: WORKFLOW_CATALOG_VERSION, referenceTime: '2026-12-01T03:00:00Z', attempt: 1, ...extra };
}

async function callError(r: RuntimeRequest, deadlineMs = 5_000, signal?: AbortSignal): Promise<AiRuntimeCallError> {
  const err = await client.analyze(r, { requestId: r.requestId, deadlineMs, signal }).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(AiRuntimeCallError);
  const e = err as AiRuntimeCallError;
  expect(e.message).not.toContain('010-1234-5678');
  expect(e.message).not.toContain(r.text);
  // AR-8: one call per analyze, whatever the failure.
  expect(emu.callsFor(r.requestId)).toBe(1);
  return e;
}

describe('HTTP AI runtime adapter against the emulator', () => {
  it('sends the contract version, request id and traceparent; the answer passes re-validation', async () => {
    const r = req();
    const { raw, latencyMs } = await client.analyze(r, { requestId: r.requestId, deadlineMs: 5_000, traceparent: TRACEPARENT });
    expect(latencyMs).toBeGreaterThanOrEqual(0);
    expect(emu.callsFor(r.requestId)).toBe(1);
    expect(emu.calls[0]).toMatchObject({ requestId: r.requestId, contractVersion: CONTRACT_VERSION, traceparent: TRACEPARENT });
    const parsed = parseRuntimeAnswer(raw, { requestId: r.requestId });
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    expect(parsed.answer.candidates[0]).toMatchObject({ taskType: 'EMPLOYMENT_CERTIFICATE', slots: { purpose: 'VISA', dueDate: '2026-12-04' }, missingSlots: [] });
  });

  it.each<[AiRuntimeFault, RuntimeErrorCode, boolean, new (...args: never[]) => AiRuntimeCallError]>([
    ['malformed-json', 'MALFORMED_RESPONSE', false, MalformedResponseError],
    ['oversized', 'MALFORMED_RESPONSE', false, MalformedResponseError],
    ['wrong-contract-version', 'CONTRACT_VERSION_MISMATCH', false, ContractVersionMismatchError],
    ['500', 'RUNTIME_UNAVAILABLE', true, RuntimeUnavailableError],
    ['503', 'RUNTIME_UNAVAILABLE', true, RuntimeUnavailableError],
    ['422', 'RUNTIME_REJECTED', false, RuntimeRejectedError],
    ['reset', 'RUNTIME_UNAVAILABLE', true, RuntimeUnavailableError],
  ])('fault %s → %s (retryable %s)', async (fault, code, retryable, cls) => {
    emu.failNext(1, fault);
    const err = await callError(req());
    expect(err).toBeInstanceOf(cls);
    expect(err.code).toBe(code);
    expect(err.retryable).toBe(retryable);
    expect(err.latencyMs).toEqual(expect.any(Number));
  });

  it('a hanging runtime → RUNTIME_TIMEOUT at the call deadline (retryable)', async () => {
    emu.setMode('timeout');
    const err = await callError(req(), 300);
    expect(err).toBeInstanceOf(RuntimeTimeoutError);
    expect(err.retryable).toBe(true);
  });

  it('a slow answer within the deadline succeeds; beyond it times out', async () => {
    emu.failNext(1, 'slow', { delayMs: 100 });
    const ok = req();
    await expect(client.analyze(ok, { requestId: ok.requestId, deadlineMs: 5_000 })).resolves.toMatchObject({ raw: expect.any(Object) });
    emu.failNext(1, 'slow', { delayMs: 2_000 });
    expect(await callError(req(), 200)).toBeInstanceOf(RuntimeTimeoutError);
  });

  it('429 → RUNTIME_RATE_LIMITED with Retry-After in seconds, as an HTTP date, or absent', async () => {
    emu.failNext(1, '429', { retryAfter: '2' });
    const seconds = await callError(req());
    expect(seconds).toBeInstanceOf(RuntimeRateLimitedError);
    expect(seconds.retryable).toBe(true);
    expect(seconds.retryAfterMs).toBe(2000);
    expect(seconds.status).toBe(429);

    emu.failNext(1, '429', { retryAfter: new Date(Date.now() + 30_000).toUTCString() });
    const date = await callError(req());
    expect(date.retryAfterMs).toBeGreaterThan(20_000);
    expect(date.retryAfterMs).toBeLessThanOrEqual(30_000);

    emu.failNext(1, '429', { retryAfter: null });
    expect((await callError(req())).retryAfterMs).toBeUndefined();
  });

  it('a schema violation reaches the caller as raw JSON and re-validation rejects it (AR-9: never a candidate)', async () => {
    emu.failNext(1, 'schema-violation');
    const r = req();
    const { raw } = await client.analyze(r, { requestId: r.requestId, deadlineMs: 5_000 });
    const parsed = parseRuntimeAnswer(raw, { requestId: r.requestId });
    expect(parsed.ok).toBe(false);
    if (parsed.ok) return;
    expect(parsed.code).toBe('SCHEMA_VIOLATION');
    expect(parsed.issues.map((i) => i.path)).toEqual(expect.arrayContaining(['candidates.0.confidence']));
    expect(JSON.stringify(parsed.issues)).not.toContain('next week');
  });

  it('a wrong contract version in the body only is caught by re-validation', async () => {
    emu.failNext(1, 'wrong-contract-version-body');
    const r = req();
    const { raw } = await client.analyze(r, { requestId: r.requestId, deadlineMs: 5_000 });
    const parsed = parseRuntimeAnswer(raw);
    expect(!parsed.ok && parsed.code).toBe('CONTRACT_VERSION_MISMATCH');
  });

  it('the runtime refusing our contract version (409 CONTRACT_VERSION_MISMATCH) → terminal mismatch', async () => {
    const old = createAiRuntimeClient({
      kind: 'http',
      baseUrl: emu.url,
      fetch: (url, init) => fetch(url, { ...init, headers: { ...(init?.headers as Record<string, string>), 'X-Contract-Version': 'ai-run/v0' } }),
    });
    const r = req();
    const err = await old.analyze(r, { requestId: r.requestId, deadlineMs: 5_000 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ContractVersionMismatchError);
    expect((err as AiRuntimeCallError).status).toBe(409);
    expect(emu.callsFor(r.requestId)).toBe(1);
  });

  it('an unknown workflow catalog version → RUNTIME_REJECTED (terminal)', async () => {
    const err = await callError(req(TEXT, { workflowCatalogVersion: 'hr-catalog/v0' }));
    expect(err).toBeInstanceOf(RuntimeRejectedError);
    expect(err.status).toBe(422);
  });

  it('the caller’s abort → RUNTIME_CANCELLED (terminal)', async () => {
    emu.setMode('timeout');
    const ac = new AbortController();
    const r = req();
    const p = callError(r, 10_000, ac.signal);
    // Abort once the runtime has the call.
    await pollUntil(() => emu.callsFor(r.requestId), (n) => n > 0, { describe: 'the runtime to have the call', maxIntervalMs: 50 });
    ac.abort();
    const err = await p;
    expect(err).toBeInstanceOf(RuntimeCancelledError);
    expect(err.retryable).toBe(false);
  });

  it('an unreachable runtime → RUNTIME_UNAVAILABLE (retryable)', async () => {
    const srv = createServer();
    await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
    const { port } = srv.address() as AddressInfo;
    await new Promise<void>((resolve) => srv.close(() => resolve()));
    const dead = createAiRuntimeClient({ kind: 'http', baseUrl: `http://127.0.0.1:${port}` });
    const r = req();
    const err = await dead.analyze(r, { requestId: r.requestId, deadlineMs: 5_000 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RuntimeUnavailableError);
    expect((err as AiRuntimeCallError).retryable).toBe(true);
  });

  it('an ill-formed traceparent is dropped, not sent; a request id that is no header token is rejected before any call', async () => {
    const r = req();
    await client.analyze(r, { requestId: r.requestId, deadlineMs: 5_000, traceparent: 'nope\r\nx-evil: 1' });
    expect(emu.calls[0]?.traceparent).toBeUndefined();
    const bad = req();
    const err = await client.analyze(bad, { requestId: 'has space', deadlineMs: 5_000 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RuntimeRejectedError);
    expect(emu.calls).toHaveLength(1);
  });

  it('an invalid request is rejected before any call', async () => {
    const r = { ...req(), text: '' };
    const err = await client.analyze(r, { requestId: r.requestId, deadlineMs: 5_000 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RuntimeRejectedError);
    expect(emu.callsFor(r.requestId)).toBe(0);
  });

  it('AR-8: per-request faults by attempt — attempt 1 fails retryably, attempt 2 succeeds, one call each', async () => {
    emu.failWhen((r) => (r.text.includes('야근') && r.attempt === 1 ? '503' : undefined));
    const first = req('어제 야근 4시간 했습니다', { attempt: 1 });
    expect((await callError(first)).retryable).toBe(true);
    const second = req('어제 야근 4시간 했습니다', { attempt: 2 });
    const { raw } = await client.analyze(second, { requestId: second.requestId, deadlineMs: 5_000 });
    expect(parseRuntimeAnswer(raw).ok).toBe(true);
    expect(emu.callsFor(first.requestId)).toBe(1);
    expect(emu.callsFor(second.requestId)).toBe(1);
    expect(emu.calls).toHaveLength(2);
  });
});
