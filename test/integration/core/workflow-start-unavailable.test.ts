/**
 * DC-1/SAN-4 with Temporal unavailable: every family's create endpoint that starts its workflow in
 * the request (POST /scraps, POST /api/v1/ai-runs, POST /portal/link, POST
 * /study/topics/{id}/questions, POST /study/memo-card-jobs), served by an API whose Temporal client
 * points at an address where nothing listens (the client's own gRPC retries included), answers 503
 * problem+json WORKFLOW_START_UNAVAILABLE with Retry-After and keeps nothing: no resource, no job, no
 * Idempotency-Key record. The client's retry of the same request (same key) on the API of the
 * running stack then succeeds and its workflow runs.
 */
import { randomUUID } from 'node:crypto';
import { Connection } from '@temporalio/client';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import pino from 'pino';
import { buildApp } from '../../../src/api/app';
import { temporalClient } from '../../../src/core/connections';
import { jobWorkflowId } from '../../../src/core/contracts';
import { ensureCompany, setMember } from '../../../src/core/companies';
import { getFreePort } from '../../../src/dev/temporal-server';
import { createJobStarter, FAMILY_API } from '../../../src/families';
import { writeExplanation } from '../../../src/services/study/questions';
import { startStack, waitForJob, type Stack } from '../../support/stack';
import { testObjectStoreEnv } from '../../support/object-store';
import { grpcRetries } from '../../support/grpc-fault-proxy';

let stack: Stack;
let down: FastifyInstance;
let deadConnection: Connection;

beforeAll(async () => {
  stack = await startStack({ aiRunsWorker: false, env: testObjectStoreEnv() });
  // Nothing listens on a port just found free: every call is refused (gRPC UNAVAILABLE), after
  // three attempts (the SDK's ten take about 20 s of backoff).
  deadConnection = Connection.lazy({ address: `127.0.0.1:${await getFreePort()}`, ...grpcRetries(3) });
  const dead = temporalClient(deadConnection, stack.config.temporal);
  down = await buildApp({ ...FAMILY_API, config: stack.config, db: stack.db, starter: createJobStarter(dead, stack.queues), temporal: dead, logger: pino({ level: 'silent' }) });
  await down.ready();
}, 120_000);
afterAll(async () => {
  await down?.close();
  await deadConnection?.close();
  await stack?.stop();
});

/** One create request, sent to an API (`inject`), with the same headers and body on every try. */
interface Create {
  method: 'POST';
  url: string;
  headers: Record<string, string>;
  payload: object;
}
const send = (app: FastifyInstance, c: Create) => app.inject(c);

function expectUnavailable(name: string, res: LightMyRequestResponse): void {
  expect({ name, status: res.statusCode, type: res.headers['content-type'], code: (res.json() as { code?: string }).code, body: res.statusCode === 503 ? undefined : res.body }).toEqual({
    name,
    body: undefined,
    status: 503,
    type: expect.stringContaining('application/problem+json'),
    code: 'WORKFLOW_START_UNAVAILABLE',
  });
  expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
}

/** Rows a user (or a company) has in the tables the create endpoints write. */
async function rowsOf(userId: string, companyId: string) {
  const db = stack.db;
  return {
    scraps: await db.scrap.count({ where: { userId } }),
    asyncJobs: await db.asyncJob.count({ where: { userId } }),
    questions: await db.studyQuestion.count({ where: { userId } }),
    memoCardJobs: await db.studyMemoCardJob.count({ where: { userId } }),
    aiRuns: await db.aiRun.count({ where: { companyId } }),
    pendingInputs: await db.aiRunPendingInput.count(), // this file's database
    portalJobs: await db.portalLinkJob.count({ where: { userId } }),
    idempotencyRecords: await db.idempotencyRecord.count({ where: { scopeId: { in: [userId, companyId] } } }),
  };
}

it('answers 503 + Retry-After and keeps nothing; the same requests then succeed and their workflows run', async () => {
  const user = await stack.newUser();
  const companyId = await ensureCompany(stack.db, `co-${randomUUID()}`);
  await setMember(stack.db, companyId, user.userId, 'HR_MANAGER');
  const json = { ...user.auth, 'content-type': 'application/json' };
  const topic = await stack.app.inject({ method: 'POST', url: '/study/topics', headers: json, payload: { name: 'Indexes' } });
  expect(topic.statusCode).toBe(201);
  const topicId = (topic.json() as { topicId: string }).topicId;
  // A question with an explanation (no job) for the memo-card job request.
  const explained = await stack.app.inject({ method: 'POST', url: `/study/topics/${topicId}/questions`, headers: json, payload: { question: 'What is a partial index?', explain: false } });
  expect(explained.statusCode).toBe(201);
  const explainedId = (explained.json() as { questionId: string }).questionId;
  await writeExplanation(stack.db, explainedId, 'A partial index covers only the rows that match its WHERE clause, so it stays small.', 'manual');
  const before = await rowsOf(user.userId, companyId);

  const creates: Record<string, Create> = {
    scrap: { method: 'POST', url: '/scraps', headers: json, payload: { content: `# Partial indexes ${randomUUID()}\n\nA partial index stores only the rows that match its WHERE clause.` } },
    aiRun: { method: 'POST', url: '/api/v1/ai-runs', headers: { ...json, 'idempotency-key': randomUUID() }, payload: { companyId, text: 'I need an employment certificate for my visa by Friday' } },
    portalLink: { method: 'POST', url: '/portal/link', headers: { ...json, 'idempotency-key': randomUUID() }, payload: { portalType: 'suwon', studentId: '20231001', password: 'pw-not-stored' } },
    question: { method: 'POST', url: `/study/topics/${topicId}/questions`, headers: json, payload: { question: 'Why does a partial index stay small?' } },
    memoCardJob: { method: 'POST', url: '/study/memo-card-jobs', headers: json, payload: { sourceKind: 'study_question', sourceId: explainedId } },
  };
  const refused = await Promise.all(Object.entries(creates).map(async ([name, c]) => [name, await send(down, c)] as const));
  for (const [name, res] of refused) expectUnavailable(name, res);
  expect(await rowsOf(user.userId, companyId)).toEqual(before);

  const answers = Object.fromEntries(await Promise.all(Object.entries(creates).map(async ([name, c]) => [name, await send(stack.app, c)] as const)));
  expect(Object.fromEntries(Object.entries(answers).map(([name, res]) => [name, res.statusCode]))).toEqual({ scrap: 202, aiRun: 202, portalLink: 202, question: 201, memoCardJob: 202 });
  const body = (name: string) => answers[name]!.json() as Record<string, unknown>;
  const workflowIds = [
    jobWorkflowId('CARD_ANALYSIS', String(body('scrap').scrapId)),
    (await stack.db.aiRun.findUniqueOrThrow({ where: { id: String(body('aiRun').aiRunId) } })).workflowId,
    (await stack.db.portalLinkJob.findUniqueOrThrow({ where: { id: String(body('portalLink').jobId) } })).workflowId,
    jobWorkflowId('STUDY_EXPLANATION', String(body('question').questionId)),
    String(body('memoCardJob').workflowId),
  ];
  for (const workflowId of workflowIds) expect({ workflowId, started: Boolean((await stack.client.workflow.getHandle(workflowId).describe()).runId) }).toEqual({ workflowId, started: true });
  expect(await waitForJob(stack, String(body('scrap').analysisJobId), user.auth)).toMatchObject({ status: 'COMPLETED' });
}, 180_000);
