/**
 * AR-1/AR-3/AR-4/AR-7 through the API against the real PostgreSQL and Temporal with the local
 * runtime: create (Idempotency-Key, replays, conflicts, 20 concurrent POSTs → one run), read
 * (status and outcome apart, attempts, candidates, ETag / 304), automatic retry after a retryable
 * failure, a terminal failure and its manual retry (same retry key → one attempt), cancel, tenancy;
 * the read's one statement over `pg` against the Prisma read.
 */
import { randomUUID } from 'node:crypto';
import { Client } from '@temporalio/client';
import type { Payload } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import { payloadCodecFromConfig } from '../../../src/crypto/payload-codec';
import { pgPoolOf } from '../../../src/db/client';
import { createHotReads } from '../../../src/db/hot-reads';
import { readAiRun } from '../../../src/services/ai-runs/runs';
import { startStack, type Stack } from '../../support/stack';
import { companyWithMembers, getRun, postRun, waitForRun } from './support';

let stack: Stack;
let co: Awaited<ReturnType<typeof companyWithMembers>>;

beforeAll(async () => {
  stack = await startStack({
    aiWorker: false,
    env: { AI_RUNTIME_FAIL_FIRST_MARKER: '[flaky]', AI_RUNTIME_REJECT_FIRST_MARKER: '[reject]', AI_RUN_RETRY_INITIAL_MS: '200' },
  });
  co = await companyWithMembers(stack);
}, 120_000);
afterAll(async () => stack?.stop());

const text = 'I need an employment certificate for my visa by Friday, my phone is 010-1234-5678';

describe('POST /api/v1/ai-runs', () => {
  test('202 with Location, readable at once, then SUCCEEDED with one attempt, its versions and candidates', async () => {
    const res = await postRun(stack, co.hr.auth, randomUUID(), { companyId: co.companyId, text, locale: 'en' });
    expect(res.statusCode).toBe(202);
    const body = res.json() as { aiRunId: string; status: string };
    expect(res.headers.location).toBe(`/api/v1/ai-runs/${body.aiRunId}`);
    const first = await getRun(stack, co.hr.auth, body.aiRunId);
    expect(['QUEUED', 'RUNNING', 'SUCCEEDED']).toContain(first.status);
    const done = await waitForRun(stack, co.hr.auth, body.aiRunId);
    expect(done).toMatchObject({ status: 'SUCCEEDED', errorCode: null, attemptCount: 1 });
    expect(['NEEDS_INFO', 'REVIEW_REQUIRED']).toContain(done.analysisOutcome);
    expect(done.attempts).toHaveLength(1);
    expect(done.attempts[0]).toMatchObject({ number: 1, status: 'SUCCEEDED', trigger: 'INITIAL', errorCode: null });
    expect(done.attempts[0]!.versions.contract).toBe('ai-run/v1');
    expect(done.candidates.length).toBeGreaterThan(0);
    const row = await stack.db.aiRun.findUniqueOrThrow({ where: { id: body.aiRunId } });
    expect(row.inputMasked).not.toContain('1234-5678');
    expect(row.inputHash).toMatch(/^[0-9a-f]{64}$/);
    expect(await stack.db.aiRunPendingInput.count({ where: { runId: body.aiRunId } })).toBe(0);

    // AR-6: the run's history read WITHOUT the codec holds no raw input; decoded, it does (not vacuous).
    const plain = new Client({ connection: stack.client.connection, namespace: stack.config.temporal.namespace });
    const history = await plain.workflow.getHandle(row.workflowId).fetchHistory();
    const bytes = Buffer.from(temporal.api.history.v1.History.encode(history).finish());
    for (const secret of ['010-1234-5678', 'employment certificate for my visa']) expect(bytes.includes(secret)).toBe(false);
    const payloads: Payload[] = [];
    const walk = (v: unknown): void => {
      if (!v || typeof v !== 'object' || v instanceof Uint8Array) return;
      const o = v as Record<string, unknown>;
      if (o.data instanceof Uint8Array && o.metadata && typeof o.metadata === 'object') payloads.push(o as Payload);
      Object.values(o).forEach(walk);
    };
    walk(history);
    const decoded = await payloadCodecFromConfig(stack.config.temporal.payloadCodec).decode(payloads);
    expect(decoded.map((p) => Buffer.from(p.data ?? new Uint8Array()).toString('utf8')).join('\n')).toContain('010-1234-5678');
  });

  test('ETag of the run version; If-None-Match with it → 304', async () => {
    const res = await postRun(stack, co.hr.auth, randomUUID(), { companyId: co.companyId, text: '연차 휴가를 다음 주 월요일부터 3일 쓰고 싶습니다', locale: 'ko' });
    const id = (res.json() as { aiRunId: string }).aiRunId;
    await waitForRun(stack, co.hr.auth, id);
    const a = await stack.app.inject({ method: 'GET', url: `/api/v1/ai-runs/${id}`, headers: co.hr.auth });
    const etag = a.headers.etag as string;
    expect(etag).toBe(`"ai-run-${id}-v${(a.json() as { version: number }).version}"`);
    const b = await stack.app.inject({ method: 'GET', url: `/api/v1/ai-runs/${id}`, headers: { ...co.hr.auth, 'if-none-match': etag } });
    expect(b.statusCode).toBe(304);
  });

  test('same key and payload → the same run and status; other payload → 409 naming the field', async () => {
    const key = randomUUID();
    const a = await postRun(stack, co.hr.auth, key, { companyId: co.companyId, text: 'Payroll correction for November, I was paid 200,000 won less' });
    const b = await postRun(stack, co.hr.auth, key, { companyId: co.companyId, text: 'Payroll correction for November, I was paid 200,000 won less' });
    expect([a.statusCode, b.statusCode]).toEqual([202, 202]);
    expect((b.json() as { aiRunId: string }).aiRunId).toBe((a.json() as { aiRunId: string }).aiRunId);
    const c = await postRun(stack, co.hr.auth, key, { companyId: co.companyId, text: 'something else' });
    expect(c.statusCode).toBe(409);
    expect(c.headers['content-type']).toMatch(/application\/problem\+json/);
    const problem = c.json() as { code: string; errors: { path: string }[] };
    expect(problem.code).toBe('IDEMPOTENCY_KEY_CONFLICT');
    expect(problem.errors.map((e) => e.path)).toEqual(['body.text']);
  });

  test('20 concurrent identical POSTs → one run, every answer 202 with its id', async () => {
    const key = randomUUID();
    const body = { companyId: co.companyId, text: 'Please issue a certificate of employment, 2 copies' };
    const answers = await Promise.all(Array.from({ length: 20 }, () => postRun(stack, co.hr.auth, key, body)));
    expect(answers.map((r) => r.statusCode)).toEqual(Array(20).fill(202));
    const ids = new Set(answers.map((r) => (r.json() as { aiRunId: string }).aiRunId));
    expect(ids.size).toBe(1);
    const [id] = [...ids];
    expect(await stack.db.aiRun.count({ where: { companyId: co.companyId, inputHash: (await stack.db.aiRun.findUniqueOrThrow({ where: { id: id! } })).inputHash } })).toBe(1);
    const done = await waitForRun(stack, co.hr.auth, id!);
    expect(done.attemptCount).toBe(1);
  });

  test('concurrent replays of a finished run (their reads share statements) answer alike, with its state now; another company\'s key or another payload is refused', async () => {
    const key = randomUUID();
    const body = { companyId: co.companyId, text: 'A certificate of career, in English, for a new employer' };
    const first = await postRun(stack, co.hr.auth, key, body);
    expect(first.statusCode).toBe(202);
    const id = (first.json() as { aiRunId: string }).aiRunId;
    await waitForRun(stack, co.hr.auth, id);
    const replays = await Promise.all(Array.from({ length: 24 }, () => postRun(stack, co.hr.auth, key, body)));
    const shape = (r: (typeof replays)[number]) => [r.statusCode, r.body, r.headers.location, r.headers.etag, r.headers['content-type']];
    for (const r of replays) expect(shape(r)).toEqual(shape(replays[0]!));
    expect(replays[0]!.statusCode).toBe(202);
    expect(replays[0]!.json()).toMatchObject({ aiRunId: id, status: 'SUCCEEDED' });
    const conflicts = await Promise.all(Array.from({ length: 4 }, () => postRun(stack, co.hr.auth, key, { ...body, text: 'another request' })));
    for (const c of conflicts) expect((c.json() as { code: string }).code).toBe('IDEMPOTENCY_KEY_CONFLICT');
    const outsider = await stack.newUser();
    expect((await postRun(stack, outsider.auth, key, body)).statusCode).toBe(404);
  });

  test('a missing Idempotency-Key → 400; an empty text → 400', async () => {
    const a = await postRun(stack, co.hr.auth, undefined, { companyId: co.companyId, text });
    expect(a.statusCode).toBe(400);
    expect((a.json() as { code: string }).code).toBe('IDEMPOTENCY_KEY_MISSING');
    const b = await postRun(stack, co.hr.auth, randomUUID(), { companyId: co.companyId, text: '   ' });
    expect(b.statusCode).toBe(400);
    expect((b.json() as { code: string }).code).toBe('VALIDATION_FAILED');
  });
});

describe('tenancy', () => {
  test('an outsider gets 404 for the company and the run; a VIEWER may read but not create, retry or cancel (403)', async () => {
    const res = await postRun(stack, co.hr.auth, randomUUID(), { companyId: co.companyId, text });
    const id = (res.json() as { aiRunId: string }).aiRunId;
    const outsiderPost = await postRun(stack, co.outsider.auth, randomUUID(), { companyId: co.companyId, text });
    expect([outsiderPost.statusCode, (outsiderPost.json() as { code: string }).code]).toEqual([404, 'NOT_FOUND']);
    const outsiderGet = await stack.app.inject({ method: 'GET', url: `/api/v1/ai-runs/${id}`, headers: co.outsider.auth });
    expect(outsiderGet.statusCode).toBe(404);
    const outsiderCancel = await stack.app.inject({ method: 'POST', url: `/api/v1/ai-runs/${id}/cancel`, headers: co.outsider.auth });
    expect(outsiderCancel.statusCode).toBe(404);
    const viewerPost = await postRun(stack, co.viewer.auth, randomUUID(), { companyId: co.companyId, text });
    expect([viewerPost.statusCode, (viewerPost.json() as { code: string }).code]).toEqual([403, 'FORBIDDEN']);
    expect((await stack.app.inject({ method: 'GET', url: `/api/v1/ai-runs/${id}`, headers: co.viewer.auth })).statusCode).toBe(200);
    const viewerRetry = await stack.app.inject({ method: 'POST', url: `/api/v1/ai-runs/${id}/retry`, headers: { ...co.viewer.auth, 'idempotency-key': randomUUID() } });
    expect(viewerRetry.statusCode).toBe(403);
    const viewerCancel = await stack.app.inject({ method: 'POST', url: `/api/v1/ai-runs/${id}/cancel`, headers: co.viewer.auth });
    expect(viewerCancel.statusCode).toBe(403);
    await waitForRun(stack, co.hr.auth, id);
  });
});

describe('attempts (AR-4, AR-7, AR-8)', () => {
  test('a retryable first failure → RETRYING with nextAttemptAt, then SUCCEEDED on attempt 2 (AUTO_RETRY)', async () => {
    const res = await postRun(stack, co.hr.auth, randomUUID(), { companyId: co.companyId, text: '[flaky] 11월 급여가 20만원 적게 들어왔어요. 정정 부탁드립니다' });
    const id = (res.json() as { aiRunId: string }).aiRunId;
    const done = await waitForRun(stack, co.hr.auth, id);
    expect(done.status).toBe('SUCCEEDED');
    expect(done.attempts.map((a) => [a.number, a.status, a.trigger, a.errorCode])).toEqual([
      [1, 'FAILED', 'INITIAL', 'RUNTIME_UNAVAILABLE'],
      [2, 'SUCCEEDED', 'AUTO_RETRY', null],
    ]);
    // The GET's one-statement read over `pg` answers exactly what the Prisma read does, for every member.
    const hot = createHotReads(pgPoolOf(stack.db)!);
    const viaPrisma = await readAiRun(stack.db, co.hr.userId, id);
    expect(viaPrisma.candidates.length).toBeGreaterThan(0);
    expect(await readAiRun(stack.db, co.hr.userId, id, hot)).toEqual(viaPrisma);
    expect(await readAiRun(stack.db, co.viewer.userId, id, hot)).toEqual(viaPrisma);
    await expect(readAiRun(stack.db, co.outsider.userId, id, hot)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(readAiRun(stack.db, co.hr.userId, randomUUID(), hot)).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  test('a terminal failure → FAILED at once; manual retry: FAILED → RETRYING, one new attempt per retry key, earlier attempts untouched', async () => {
    const res = await postRun(stack, co.hr.auth, randomUUID(), { companyId: co.companyId, text: '[reject] I want to take leave from next Monday for 3 days' });
    const id = (res.json() as { aiRunId: string }).aiRunId;
    const failed = await waitForRun(stack, co.hr.auth, id);
    expect(failed).toMatchObject({ status: 'FAILED', errorCode: 'RUNTIME_REJECTED', analysisOutcome: null, attemptCount: 1 });
    const before = failed.attempts[0]!;

    const retryKey = randomUUID();
    const retry = () => stack.app.inject({ method: 'POST', url: `/api/v1/ai-runs/${id}/retry`, headers: { ...co.hr.auth, 'idempotency-key': retryKey } });
    const [r1, r2] = await Promise.all([retry(), retry()]);
    expect([r1.statusCode, r2.statusCode]).toEqual([202, 202]);
    expect((r1.json() as { aiRunId: string; attemptNumber: number })).toMatchObject({ aiRunId: id, attemptNumber: 2 });
    expect((r2.json() as { attemptNumber: number }).attemptNumber).toBe(2);

    const done = await waitForRun(stack, co.hr.auth, id);
    expect(done).toMatchObject({ status: 'SUCCEEDED', retryCount: 1, attemptCount: 2 });
    expect(done.attempts.map((a) => [a.number, a.status, a.trigger])).toEqual([
      [1, 'FAILED', 'INITIAL'],
      [2, 'SUCCEEDED', 'MANUAL_RETRY'],
    ]);
    expect(done.attempts[0]).toEqual(before);
    const again = await retry();
    expect([again.statusCode, (again.json() as { attemptNumber: number }).attemptNumber]).toEqual([202, 2]);
    const other = await stack.app.inject({ method: 'POST', url: `/api/v1/ai-runs/${id}/retry`, headers: { ...co.hr.auth, 'idempotency-key': randomUUID() } });
    expect([other.statusCode, (other.json() as { code: string }).code]).toEqual([409, 'AI_RUN_NOT_RETRYABLE']);
    expect(await stack.db.aiAttempt.count({ where: { runId: id } })).toBe(2);
  });

  test('cancel: a RUNNING run → FAILED CANCELLED with its attempt; a finished run → 409', async () => {
    await stack.stopAiRunsWorker(); // the call waits for a worker: the attempt stays RUNNING
    try {
      const res = await postRun(stack, co.hr.auth, randomUUID(), { companyId: co.companyId, text: 'Expense refund for a taxi, 35,000 won on 2026-11-28' });
      const id = (res.json() as { aiRunId: string }).aiRunId;
      await waitForRun(stack, co.hr.auth, id, ['RUNNING']);
      const c = await stack.app.inject({ method: 'POST', url: `/api/v1/ai-runs/${id}/cancel`, headers: co.hr.auth });
      expect(c.statusCode).toBe(202);
      expect(c.json()).toMatchObject({ aiRunId: id, status: 'FAILED' });
      const run = await getRun(stack, co.hr.auth, id);
      expect(run).toMatchObject({ status: 'FAILED', errorCode: 'CANCELLED' });
      expect(run.attempts.map((a) => [a.status, a.errorCode])).toEqual([['FAILED', 'CANCELLED']]);
      const row = await stack.db.aiRun.findUniqueOrThrow({ where: { id } });
      await expect(stack.client.workflow.getHandle(row.workflowId).result()).rejects.toThrow();
      const desc = await stack.client.workflow.getHandle(row.workflowId).describe();
      expect(desc.status.name).toBe('CANCELLED');
      const again = await stack.app.inject({ method: 'POST', url: `/api/v1/ai-runs/${id}/cancel`, headers: co.hr.auth });
      expect([again.statusCode, (again.json() as { code: string }).code]).toEqual([409, 'AI_RUN_NOT_CANCELLABLE']);
      const retry = await stack.app.inject({ method: 'POST', url: `/api/v1/ai-runs/${id}/retry`, headers: { ...co.hr.auth, 'idempotency-key': randomUUID() } });
      expect([retry.statusCode, (retry.json() as { code: string }).code]).toEqual([409, 'AI_RUN_NOT_RETRYABLE']);
    } finally {
      await stack.startAiRunsWorker();
    }
  });
});

describe('OpenAPI (AR-10)', () => {
  test('the run routes carry named examples: success, needs-info, review-required, failure and 409', async () => {
    const doc = (await stack.app.inject({ method: 'GET', url: '/openapi.json' })).json() as {
      paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, { examples?: Record<string, unknown> }> }> }>>;
    };
    const examples = (path: string, method: string, status: string, type = 'application/json') =>
      Object.keys(doc.paths[path]?.[method]?.responses[status]?.content?.[type]?.examples ?? {});
    expect(examples('/api/v1/ai-runs', 'post', '202')).toContain('success');
    expect(examples('/api/v1/ai-runs', 'post', '409', 'application/problem+json')).toContain('keyConflict');
    expect(examples('/api/v1/ai-runs/{aiRunId}', 'get', '200')).toEqual(expect.arrayContaining(['needs-info', 'review-required', 'failure']));
    expect(examples('/api/v1/ai-runs/{aiRunId}/retry', 'post', '409', 'application/problem+json')).toContain('notRetryable');
  });
});
