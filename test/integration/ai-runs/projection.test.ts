/**
 * DC-3/AR-2/AR-9 the guarded writes of the ai_runs projection on the real PostgreSQL: each
 * transition happens once; a late or repeated call changes nothing (same version, no second
 * attempt or candidate); an invalid answer becomes the attempt's validation errors, never a
 * candidate; a finished run is never moved by the worker.
 */
import { randomUUID } from 'node:crypto';
import type { PrismaClient } from '@prisma/client';
import { createAiRunActivities } from '../../../src/activities/ai-runs/runs';
import { createUserWithToken } from '../../../src/auth/tokens';
import { ensureCompany } from '../../../src/core/companies';
import { createPrisma } from '../../../src/db/client';
import { WORKFLOW_CATALOG_VERSION } from '../../../src/domain/ai-runs/catalog';
import { validateRuntimeAnswer } from '../../../src/services/ai-runs/answer-validation';
import { analyzeLocally } from '../../../src/services/ai-runs/runtime-client/local';
import { createTestDatabase } from '../../support/postgres';

let db: PrismaClient;
let drop: () => Promise<void>;
let companyId: string;
let userId: string;
let acts: ReturnType<typeof createAiRunActivities>;
const referenceTime = '2026-12-01T03:00:00.000Z';
const text = 'I need an employment certificate for my visa by Friday';

beforeAll(async () => {
  const database = await createTestDatabase(process.env.TEST_PG_ADMIN_URL!);
  drop = database.drop;
  db = createPrisma(database.url, { poolMax: 5 });
  userId = (await createUserWithToken(db, 'ar-projection')).userId;
  companyId = await ensureCompany(db, 'ar-projection');
  acts = createAiRunActivities({ db, validate: validateRuntimeAnswer });
});
afterAll(async () => {
  await db?.$disconnect();
  await drop?.();
});

async function newRun() {
  const keyHash = randomUUID().replace(/-/g, '').padEnd(64, '0');
  return db.aiRun.create({
    data: { companyId, actorUserId: userId, inputMasked: text, inputHash: '0'.repeat(64), idempotencyKeyHash: keyHash, workflowId: `ai-run:${companyId}:${keyHash}`, maxAttempts: 3 },
  });
}
const row = (id: string) => db.aiRun.findUniqueOrThrow({ where: { id } });
const answerFor = (requestId: string) => ({ answer: analyzeLocally({ requestId, text, workflowCatalogVersion: WORKFLOW_CATALOG_VERSION, referenceTime }), latencyMs: 5 });

test('QUEUED → RUNNING → RETRYING → RUNNING → SUCCEEDED, each once; repeats and late calls are no-ops', async () => {
  const run = await newRun();
  const b1 = await acts.beginAttempt({ runId: run.id, number: 1, trigger: 'INITIAL' });
  expect(b1).toMatchObject({ proceed: true, status: 'RUNNING' });
  const startedAt = (await row(run.id)).startedAt;
  expect(startedAt).toBeInstanceOf(Date); // set by the first begin, kept by later ones
  const again = await acts.beginAttempt({ runId: run.id, number: 1, trigger: 'INITIAL' }); // activity retried after commit
  expect(again).toMatchObject({ proceed: true, attemptId: b1.attemptId, requestId: b1.requestId });
  expect(await acts.beginAttempt({ runId: run.id, number: 2, trigger: 'AUTO_RETRY' })).toMatchObject({ proceed: false, status: 'RUNNING' });

  const retryAt = new Date(Date.now() + 60_000).toISOString();
  const f = { runId: run.id, attemptId: b1.attemptId!, code: 'RUNTIME_TIMEOUT', message: 'timeout', latencyMs: 10, retryAt };
  expect(await acts.failAttempt(f)).toMatchObject({ status: 'RETRYING' });
  const v = (await row(run.id)).version;
  expect((await row(run.id)).nextAttemptAt?.toISOString()).toBe(retryAt);
  expect(await acts.failAttempt(f)).toMatchObject({ status: 'RETRYING' });
  expect((await row(run.id)).version).toBe(v);

  const b2 = await acts.beginAttempt({ runId: run.id, number: 2, trigger: 'AUTO_RETRY' });
  expect(b2).toMatchObject({ proceed: true, status: 'RUNNING' });
  expect((await row(run.id)).nextAttemptAt).toBeNull();
  expect((await row(run.id)).startedAt).toEqual(startedAt);
  const rec = { runId: run.id, attemptId: b2.attemptId!, requestId: b2.requestId, text, referenceTime, call: answerFor(b2.requestId) };
  expect(await acts.recordAnswer(rec)).toMatchObject({ status: 'SUCCEEDED' });
  const done = await row(run.id);
  expect(done.analysisOutcome).not.toBeNull();
  const candidates = await db.aiCandidate.count({ where: { runId: run.id } });
  expect(candidates).toBeGreaterThan(0);
  expect(await acts.recordAnswer(rec)).toMatchObject({ status: 'SUCCEEDED' });
  expect(await acts.failRun({ runId: run.id, code: 'DEADLINE_EXCEEDED', message: 'late' })).toMatchObject({ status: 'SUCCEEDED' });
  expect(await acts.failAttempt({ ...f, attemptId: b2.attemptId!, retryAt: null })).toMatchObject({ status: 'SUCCEEDED' });
  expect(await acts.beginAttempt({ runId: run.id, number: 3, trigger: 'AUTO_RETRY' })).toMatchObject({ proceed: false, status: 'SUCCEEDED' });
  expect(await db.aiCandidate.count({ where: { runId: run.id } })).toBe(candidates);
  expect(await db.aiAttempt.count({ where: { runId: run.id } })).toBe(2);
  expect((await row(run.id)).version).toBe(done.version);
});

test('an invalid answer → the attempt FAILED with validation errors (no candidate), the run FAILED SCHEMA_VIOLATION', async () => {
  const run = await newRun();
  const b = await acts.beginAttempt({ runId: run.id, number: 1, trigger: 'INITIAL' });
  const bad = answerFor(b.requestId);
  (bad.answer as { candidates: { confidence: unknown }[] }).candidates[0]!.confidence = 'very';
  expect(await acts.recordAnswer({ runId: run.id, attemptId: b.attemptId!, requestId: b.requestId, text, referenceTime, call: bad })).toMatchObject({ status: 'FAILED', errorCode: 'SCHEMA_VIOLATION' });
  const attempt = await db.aiAttempt.findUniqueOrThrow({ where: { id: b.attemptId! } });
  expect(attempt).toMatchObject({ status: 'FAILED', errorCode: 'SCHEMA_VIOLATION' });
  expect(JSON.stringify(attempt.validationErrors)).toContain('confidence');
  expect(await db.aiCandidate.count({ where: { runId: run.id } })).toBe(0);
  expect((await row(run.id)).analysisOutcome).toBeNull();
});

test('a run failed before it started (cancelled while QUEUED) never begins an attempt', async () => {
  const run = await newRun();
  expect(await acts.failRun({ runId: run.id, code: 'CANCELLED', message: 'cancelled' })).toMatchObject({ status: 'FAILED', errorCode: 'CANCELLED' });
  expect(await acts.beginAttempt({ runId: run.id, number: 1, trigger: 'INITIAL' })).toMatchObject({ proceed: false, status: 'FAILED' });
  expect(await db.aiAttempt.count({ where: { runId: run.id } })).toBe(0);
});

test('deadline while RUNNING: the run and its running attempt end FAILED DEADLINE_EXCEEDED at once', async () => {
  const run = await newRun();
  const b = await acts.beginAttempt({ runId: run.id, number: 1, trigger: 'INITIAL' });
  expect(await acts.failRun({ runId: run.id, code: 'DEADLINE_EXCEEDED', message: 'deadline' })).toMatchObject({ status: 'FAILED', errorCode: 'DEADLINE_EXCEEDED' });
  expect(await db.aiAttempt.findUniqueOrThrow({ where: { id: b.attemptId! } })).toMatchObject({ status: 'FAILED', errorCode: 'DEADLINE_EXCEEDED' });
  // The call's late answer is refused: the attempt has left RUNNING.
  expect(await acts.recordAnswer({ runId: run.id, attemptId: b.attemptId!, requestId: b.requestId, text, referenceTime, call: answerFor(b.requestId) })).toMatchObject({ status: 'FAILED' });
  expect(await db.aiCandidate.count({ where: { runId: run.id } })).toBe(0);
});

test('a begin with releaseInput drops the sealed input in its transaction, whether or not the attempt proceeds', async () => {
  const seal = (runId: string) => db.aiRunPendingInput.create({ data: { runId, keyId: 'k', ciphertext: 'c' } });
  const pending = (runId: string) => db.aiRunPendingInput.count({ where: { runId } });
  const run = await newRun();
  await seal(run.id);
  expect(await acts.beginAttempt({ runId: run.id, number: 1, trigger: 'INITIAL', releaseInput: true })).toMatchObject({ proceed: true, status: 'RUNNING' });
  expect(await pending(run.id)).toBe(0);
  expect(await acts.beginAttempt({ runId: run.id, number: 1, trigger: 'INITIAL', releaseInput: true })).toMatchObject({ proceed: true }); // retried after commit
  const cancelled = await newRun();
  await seal(cancelled.id);
  await acts.failRun({ runId: cancelled.id, code: 'CANCELLED', message: 'cancelled' });
  expect(await acts.beginAttempt({ runId: cancelled.id, number: 1, trigger: 'INITIAL', releaseInput: true })).toMatchObject({ proceed: false, status: 'FAILED' });
  expect(await pending(cancelled.id)).toBe(0);
  const kept = await newRun();
  await seal(kept.id);
  await acts.beginAttempt({ runId: kept.id, number: 1, trigger: 'INITIAL' });
  expect(await pending(kept.id)).toBe(1); // without releaseInput the begin leaves it
});
