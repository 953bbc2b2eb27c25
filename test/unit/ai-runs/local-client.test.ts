/**
 * AR-2/AR-8: the `local` runtime client: one answer per call, the demo's first-attempt failure
 * (retryable, then success), simulated latency bounded by the call deadline, cancellation, and
 * the client error classes' retry flags and Retry-After parsing.
 */
import { parseRuntimeAnswer } from '../../../src/domain/ai-runs/contract';
import {
  AiRuntimeCallError,
  RuntimeCancelledError,
  RuntimeRejectedError,
  RuntimeTimeoutError,
  RuntimeUnavailableError,
  createAiRuntimeClient,
  isRetryableRuntimeError,
  parseRetryAfter,
  textContains,
} from '../../../src/services/ai-runs/runtime-client';
import { request } from './fixtures';

const call = (extra: Partial<{ deadlineMs: number; signal: AbortSignal }> = {}) => ({ requestId: 'req-x', deadlineMs: 5_000, ...extra });

async function rejection(p: Promise<unknown>): Promise<AiRuntimeCallError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(AiRuntimeCallError);
  return err as AiRuntimeCallError;
}

describe('local runtime client', () => {
  it('answers with raw JSON the server accepts, and a latency', async () => {
    const client = createAiRuntimeClient({ kind: 'local' });
    expect(client.kind).toBe('local');
    const req = request('재직증명서 비자용 금요일까지 부탁드립니다');
    const { raw, latencyMs } = await client.analyze(req, call());
    expect(Number.isInteger(latencyMs) && latencyMs >= 0).toBe(true);
    const parsed = parseRuntimeAnswer(raw, { requestId: req.requestId });
    expect(parsed.ok && parsed.answer.candidates[0]?.taskType).toBe('EMPLOYMENT_CERTIFICATE');
  });

  it('failFirstAttemptWhen: attempt 1 fails retryably, attempt 2 succeeds; other texts are untouched', async () => {
    const client = createAiRuntimeClient({ kind: 'local', failFirstAttemptWhen: textContains('야근') });
    const text = '어제 야근 4시간 했습니다';
    const err = await rejection(client.analyze(request(text, { attempt: 1 }), call()));
    expect(err).toBeInstanceOf(RuntimeUnavailableError);
    expect(err.code).toBe('RUNTIME_UNAVAILABLE');
    expect(err.retryable).toBe(true);
    expect(err.message).not.toContain(text);
    await expect(client.analyze(request(text, { attempt: 2 }), call())).resolves.toMatchObject({ raw: expect.any(Object) });
    // Deterministic per attempt number: attempt 1 again fails again (no hidden state).
    await expect(client.analyze(request(text, { attempt: 1 }), call())).rejects.toBeInstanceOf(RuntimeUnavailableError);
    await expect(client.analyze(request('연차 신청합니다', { attempt: 1 }), call())).resolves.toBeDefined();
  });

  it('failFirstAttemptWhen without attempt numbers: the first call per text fails, later ones succeed', async () => {
    const client = createAiRuntimeClient({ kind: 'local', failFirstAttemptWhen: () => true });
    await expect(client.analyze(request('연차 신청합니다'), call())).rejects.toBeInstanceOf(RuntimeUnavailableError);
    await expect(client.analyze(request('연차 신청합니다'), call())).resolves.toBeDefined();
  });

  it('a simulated latency beyond the deadline is RUNTIME_TIMEOUT (retryable)', async () => {
    const client = createAiRuntimeClient({ kind: 'local', latencyMs: 10_000 });
    const err = await rejection(client.analyze(request('연차 신청합니다'), call({ deadlineMs: 50 })));
    expect(err).toBeInstanceOf(RuntimeTimeoutError);
    expect(err.retryable).toBe(true);
  });

  it('the caller’s abort is RUNTIME_CANCELLED (terminal), before or during the call', async () => {
    const client = createAiRuntimeClient({ kind: 'local', latencyMs: 10_000 });
    const before = new AbortController();
    before.abort();
    expect(await rejection(client.analyze(request('연차'), call({ signal: before.signal })))).toBeInstanceOf(RuntimeCancelledError);
    const during = new AbortController();
    const p = client.analyze(request('연차'), call({ signal: during.signal }));
    during.abort();
    const err = await rejection(p);
    expect(err).toBeInstanceOf(RuntimeCancelledError);
    expect(err.retryable).toBe(false);
  });

  it('an invalid request or another catalog version is RUNTIME_REJECTED (terminal)', async () => {
    const client = createAiRuntimeClient({ kind: 'local' });
    const bad = await rejection(client.analyze({ ...request('x'), text: '' }, call()));
    expect(bad).toBeInstanceOf(RuntimeRejectedError);
    expect(isRetryableRuntimeError(bad)).toBe(false);
    await expect(client.analyze(request('연차', { workflowCatalogVersion: 'hr-catalog/v0' }), call())).rejects.toBeInstanceOf(RuntimeRejectedError);
  });

  it('createAiRuntimeClient: http needs an absolute http(s) base URL', () => {
    expect(() => createAiRuntimeClient({ kind: 'http' })).toThrow(TypeError);
    expect(() => createAiRuntimeClient({ kind: 'http', baseUrl: 'ftp://x' })).toThrow(TypeError);
    expect(createAiRuntimeClient({ kind: 'http', baseUrl: 'http://127.0.0.1:1' }).kind).toBe('http');
  });
});

describe('parseRetryAfter', () => {
  it('reads delta-seconds and HTTP dates, never negative', () => {
    const now = Date.parse('2026-12-01T03:00:00Z');
    expect(parseRetryAfter('3', now)).toBe(3000);
    expect(parseRetryAfter('1.5', now)).toBe(1500);
    expect(parseRetryAfter('Tue, 01 Dec 2026 03:00:07 GMT', now)).toBe(7000);
    expect(parseRetryAfter('Tue, 01 Dec 2026 02:59:00 GMT', now)).toBe(0);
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter(null, now)).toBeUndefined();
  });
});
