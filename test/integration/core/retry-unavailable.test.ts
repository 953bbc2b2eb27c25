/**
 * SAN-6/AR-4 with Temporal unavailable: the retry routes of every family (`POST
 * /async-jobs/{jobId}/retry` for the async_jobs families, `POST /api/v1/ai-runs/{aiRunId}/retry`),
 * served by an API whose Temporal client reaches the test server through a fault proxy that
 * refuses connections, answer 503 problem+json WORKFLOW_START_UNAVAILABLE with Retry-After and
 * leave the row FAILED exactly as it was (status, retry and attempt counts, error), with no
 * Idempotency-Key record; the same request on the running stack then re-runs it. A run retried
 * after its signal found Temporal unavailable is FAILED again as before. An AI run whose retry
 * window has closed answers 409 AI_RUN_RETRY_WINDOW_CLOSED, changes nothing, and the reconcile
 * pass leaves it alone.
 */
import { randomUUID } from 'node:crypto';
import type { Client } from '@temporalio/client';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import pino from 'pino';
import { maintenanceTaskQueue } from '../../../src/core/contracts';
import { inputBoxFromConfig } from '../../../src/services/ai-runs/input-box';
import { retryAiRun } from '../../../src/services/ai-runs/runs';
import { createTemporalAiRunStarter } from '../../../src/services/ai-runs/starter';
import type { AiRunReconcileReport } from '../../../src/activities/ai-runs/reconcile';
import { startFaultyApi, type FaultyApi, type GrpcFaultProxy } from '../../support/grpc-fault-proxy';
import { startStack, waitForJob, type Stack } from '../../support/stack';
import { testObjectStoreEnv } from '../../support/object-store';
import { companyWithMembers, postRun, waitForRun } from '../ai-runs/support';

let stack: Stack;
let faultyApi: FaultyApi;
let proxy: GrpcFaultProxy;
let faulty: FastifyInstance;
let proxied: Client;

beforeAll(async () => {
  stack = await startStack({ env: { ...testObjectStoreEnv(), AI_RUNTIME_REJECT_FIRST_MARKER: '[reject]' } });
  // Three gRPC attempts per call: a refused call ends in under a second, not after 20 s of backoff.
  faultyApi = await startFaultyApi(stack, { grpcAttempts: 3 });
  ({ proxy, app: faulty, client: proxied } = faultyApi);
}, 120_000);
afterEach(() => proxy?.forward());
afterAll(async () => {
  await faultyApi?.close();
  await stack?.stop();
});

function expectUnavailable(res: LightMyRequestResponse): void {
  expect({ status: res.statusCode, type: res.headers['content-type'], code: (res.json() as { code?: string }).code }).toEqual({
    status: 503,
    type: expect.stringContaining('application/problem+json'),
    code: 'WORKFLOW_START_UNAVAILABLE',
  });
  expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
}

/** A FAILED AI run (its first attempt rejected), its workflow waiting for a retry. */
async function failedRun() {
  const co = await companyWithMembers(stack);
  const res = await postRun(stack, co.hr.auth, randomUUID(), { companyId: co.companyId, text: '[reject] Leave request from 2026-12-14 for two days' });
  expect(res.statusCode).toBe(202);
  const id = (res.json() as { aiRunId: string }).aiRunId;
  expect(await waitForRun(stack, co.hr.auth, id)).toMatchObject({ status: 'FAILED', errorCode: 'RUNTIME_REJECTED', attemptCount: 1 });
  return { co, id };
}

/** What a retry changes on a run, and the retry keys' records. */
async function retryState(id: string, companyId: string) {
  const { status, retryCount, attemptCount, errorCode, errorMessage, finishedAt, nextAttemptAt, deadlineAt } = await stack.db.aiRun.findUniqueOrThrow({ where: { id } });
  return {
    run: { status, retryCount, attemptCount, errorCode, errorMessage, finishedAt, nextAttemptAt, deadlineAt },
    attempts: await stack.db.aiAttempt.count({ where: { runId: id } }),
    retryRecords: await stack.db.idempotencyRecord.count({ where: { scopeId: companyId, operation: { startsWith: 'ai-runs.retry:' } } }),
  };
}

test('async job retry: 503 + Retry-After, the job FAILED as it was; the same request then re-runs it', async () => {
  const user = await stack.newUser();
  const created = await stack.app.inject({ method: 'POST', url: '/scraps', headers: { ...user.auth, 'content-type': 'application/json' }, payload: { content: `# Hash joins ${randomUUID()}\n\nA hash join builds a table of the smaller input.` } });
  expect(created.statusCode).toBe(202);
  const jobId = (created.json() as { analysisJobId: string }).analysisJobId;
  expect(await waitForJob(stack, jobId, user.auth)).toMatchObject({ status: 'COMPLETED' });
  await stack.db.asyncJob.update({ where: { jobId }, data: { status: 'FAILED', errorMessage: 'the analysis provider was down', finishedAt: new Date() } });
  const before = await stack.db.asyncJob.findUniqueOrThrow({ where: { jobId } });
  const retry = { method: 'POST' as const, url: `/async-jobs/${jobId}/retry`, headers: user.auth };

  proxy.refuse();
  expectUnavailable(await faulty.inject(retry));
  expect(await stack.db.asyncJob.findUniqueOrThrow({ where: { jobId } })).toEqual(before);

  proxy.forward();
  const again = await stack.app.inject(retry);
  expect({ status: again.statusCode, body: again.json() as unknown }).toMatchObject({ status: 202, body: { jobId, status: 'PENDING', retryCount: 1 } });
  expect(await waitForJob(stack, jobId, user.auth)).toMatchObject({ status: 'COMPLETED' });
  expect(await stack.db.asyncJob.findUniqueOrThrow({ where: { jobId } })).toMatchObject({ status: 'COMPLETED', retryCount: 1 });
}, 180_000);

test('AI run retry: 503 + Retry-After, the run FAILED as it was, no key record; the same request (same key) then retries it', async () => {
  const { co, id } = await failedRun();
  const before = await retryState(id, co.companyId);
  const retry = { method: 'POST' as const, url: `/api/v1/ai-runs/${id}/retry`, headers: { ...co.hr.auth, 'idempotency-key': randomUUID() } };

  proxy.refuse();
  expectUnavailable(await faulty.inject(retry));
  expect(await retryState(id, co.companyId)).toEqual(before);

  proxy.forward();
  const again = await stack.app.inject(retry);
  expect({ status: again.statusCode, body: again.json() as unknown }).toMatchObject({ status: 202, body: { aiRunId: id, attemptNumber: 2 } });
  expect(await waitForRun(stack, co.hr.auth, id)).toMatchObject({ status: 'SUCCEEDED', retryCount: 1, attemptCount: 2 });
}, 180_000);

test('AI run retry whose signal finds Temporal unavailable: the run is FAILED again as it was, and the same key retries it later', async () => {
  const { co, id } = await failedRun();
  const before = await retryState(id, co.companyId);
  const real = createTemporalAiRunStarter(stack.client, stack.config);
  // The window check reaches Temporal; the signal goes through the refusing proxy.
  const starter = { ...real, signalRetry: createTemporalAiRunStarter(proxied, stack.config).signalRetry };
  const deps = { db: stack.db, config: stack.config, box: inputBoxFromConfig(stack.config), log: pino({ level: 'silent' }) };
  const key = randomUUID();

  proxy.refuse();
  await expect(retryAiRun({ ...deps, starter }, co.hr.userId, id, key)).rejects.toMatchObject({ code: 'WORKFLOW_START_UNAVAILABLE', headers: { 'Retry-After': expect.any(String) } });
  expect(await retryState(id, co.companyId)).toEqual(before);

  proxy.forward();
  expect(await retryAiRun({ ...deps, starter: real }, co.hr.userId, id, key)).toMatchObject({ attemptNumber: 2, replay: false });
  expect(await waitForRun(stack, co.hr.auth, id)).toMatchObject({ status: 'SUCCEEDED', retryCount: 1, attemptCount: 2 });
}, 180_000);

test('AI run retry after its retry window closed: 409 AI_RUN_RETRY_WINDOW_CLOSED, nothing changed, the reconcile pass leaves it alone', async () => {
  const { co, id } = await failedRun();
  const { workflowId } = await stack.db.aiRun.findUniqueOrThrow({ where: { id } });
  await stack.client.workflow.getHandle(workflowId).terminate('the retry window closed');
  const before = await retryState(id, co.companyId);

  const res = await stack.app.inject({ method: 'POST', url: `/api/v1/ai-runs/${id}/retry`, headers: { ...co.hr.auth, 'idempotency-key': randomUUID() } });
  expect({ status: res.statusCode, type: res.headers['content-type'], code: (res.json() as { code?: string }).code }).toEqual({
    status: 409,
    type: expect.stringContaining('application/problem+json'),
    code: 'AI_RUN_RETRY_WINDOW_CLOSED',
  });
  expect(await retryState(id, co.companyId)).toEqual(before);

  const report: AiRunReconcileReport = await stack.client.workflow.execute('reconcileAiRunsWorkflow', {
    workflowId: `reconcile-ai-runs-${randomUUID()}`,
    taskQueue: maintenanceTaskQueue(stack.config.temporal.taskQueuePrefix),
    args: [{ queues: stack.queues, graceSeconds: 0 }],
  });
  expect(report.failed).toBe(0);
  expect(await retryState(id, co.companyId)).toEqual(before);
  expect((await stack.client.workflow.getHandle(workflowId).describe()).status.name).toBe('TERMINATED');
}, 180_000);

test('a RETRYING run whose workflow ended before its retry signal arrived: the reconcile pass fails it RETRY_WINDOW_CLOSED and restarts nothing', async () => {
  const { co, id } = await failedRun();
  const real = createTemporalAiRunStarter(stack.client, stack.config);
  const deps = { db: stack.db, config: stack.config, box: inputBoxFromConfig(stack.config), log: pino({ level: 'silent' }) };
  // The API dies between the retry's commit and its signal: the run stays RETRYING.
  const lost = { ...real, signalRetry: () => Promise.reject(new Error('simulated crash between commit and signal')) };
  expect((await retryAiRun({ ...deps, starter: lost }, co.hr.userId, id, randomUUID())).run.status).toBe('RETRYING');
  const { workflowId } = await stack.db.aiRun.findUniqueOrThrow({ where: { id } });
  await stack.client.workflow.getHandle(workflowId).terminate('the retry window closed');

  const report: AiRunReconcileReport = await stack.client.workflow.execute('reconcileAiRunsWorkflow', {
    workflowId: `reconcile-ai-runs-${randomUUID()}`,
    taskQueue: maintenanceTaskQueue(stack.config.temporal.taskQueuePrefix),
    args: [{ queues: stack.queues, graceSeconds: 0 }],
  });
  expect(report).toMatchObject({ windowClosed: 1, failed: 0 });
  expect(await stack.db.aiRun.findUniqueOrThrow({ where: { id } })).toMatchObject({ status: 'FAILED', errorCode: 'RETRY_WINDOW_CLOSED', attemptCount: 1 });
  expect((await stack.client.workflow.getHandle(workflowId).describe()).status.name).toBe('TERMINATED');
}, 180_000);
