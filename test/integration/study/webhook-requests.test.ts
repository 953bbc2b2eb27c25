/**
 * The per-request completion webhooks of the study family on the real stack. `POST
 * /study/memo-card-jobs`: the new job's terminal event delivered to the request's URL, signed with
 * the caller's signing secret and verified with the reference `standardwebhooks` implementation on
 * a local receiver; refusals that write nothing (a refused URL → 400, no signing secret → 409); a
 * skipped request keeps no webhook; a job withdrawn because Temporal was unavailable (503) takes
 * its webhook with it. The STUDY_EXPLANATION jobs of `POST /study/questions/{questionId}/explanation-jobs`
 * (also the active one a repeat lands on) and of `POST /study/topics/{topicId}/questions`: their
 * async_job terminal event delivered and verified the same way; refusals write nothing. Each of
 * those tests starts or stops the `ai` worker it needs, so the jobs' states are decided by the
 * test. Nothing measures time: every wait polls for a condition with generous bounds.
 */
import { Connection } from '@temporalio/client';
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { Webhook } from 'standardwebhooks';
import { createStudyCardActivities } from '../../../src/activities/study/cards';
import { createLocalAiProvider } from '../../../src/ai/local';
import { createStudyAi } from '../../../src/ai/study';
import { buildApp } from '../../../src/api/app';
import { temporalClient } from '../../../src/core/connections';
import { ASYNC_JOB_WEBHOOK_SOURCE } from '../../../src/core/webhook-requests';
import { getFreePort } from '../../../src/dev/temporal-server';
import { STUDY_CARDS_QUEUE } from '../../../src/domain/study/contracts';
import { createJobStarter, FAMILY_API } from '../../../src/families';
import { writeExplanation } from '../../../src/services/study/questions';
import { pollUntil } from '../../support/poll';
import { startStack, waitForJob, type Stack } from '../../support/stack';
import { webhookReceiver } from '../../support/webhook-receiver';
import { relayWebhookDeliveries, signingSecret as signingSecretOf } from '../../support/webhook-requests';

jest.setTimeout(240_000);

type User = Awaited<ReturnType<Stack['newUser']>>;
let stack: Stack;
let stopCardsWorker: () => Promise<void>;
const rx = webhookReceiver();
let base: string;

const EXPLANATION = [
  'A partial index is an index built over a subset of the rows of a table.',
  'It stores only the rows that match its WHERE clause, so it stays small.',
].join(' ');

beforeAll(async () => {
  base = await rx.start();
  stack = await startStack({
    aiWorker: false,
    aiRunsWorker: false,
    env: { WEBHOOK_ALLOW_PRIVATE_URLS: 'true', WEBHOOK_REQUEST_TIMEOUT_MS: '1000', WEBHOOK_RETRY_INITIAL_SECONDS: '0.2', WEBHOOK_RETRY_MAX_INTERVAL_SECONDS: '0.5', ST_EXTRACT_RETRY_DELAY_MS: '0' },
  });
  stopCardsWorker = await stack.startOwnQueueWorker(STUDY_CARDS_QUEUE, createStudyCardActivities({ db: stack.db, config: stack.config, ai: createStudyAi(createLocalAiProvider()) }));
});

afterAll(async () => {
  await stopCardsWorker?.();
  await stack?.stop();
  await rx.stop();
});

/** A question of `owner` with an explanation (a ready source version, no job yet). */
async function explainedQuestion(owner: User): Promise<string> {
  const topic = await stack.db.studyTopic.create({ data: { userId: owner.userId, name: 'Indexes' } });
  const q = await stack.db.studyQuestion.create({ data: { userId: owner.userId, topicId: topic.id, question: 'What is a partial index?' } });
  await writeExplanation(stack.db, q.id, EXPLANATION, 'ai');
  return q.id;
}

function enqueue(app: FastifyInstance, user: User, sourceId: string, extra: Record<string, unknown> = {}) {
  return app.inject({ method: 'POST', url: '/study/memo-card-jobs', headers: user.auth, payload: { sourceKind: 'study_question', sourceId, ...extra } });
}

const signingSecret = (user: User): Promise<string> => signingSecretOf(stack, user);
const relay = (): Promise<unknown> => relayWebhookDeliveries(stack);

const writtenBy = async (userId: string) => ({
  jobs: await stack.db.studyMemoCardJob.count({ where: { userId } }),
  targets: await stack.db.webhookRequestTarget.count({ where: { userId } }),
});

describe('refusals write nothing', () => {
  it('a webhook without a signing secret → 409 WEBHOOK_SIGNING_SECRET_MISSING', async () => {
    const dave = await stack.newUser();
    const sourceId = await explainedQuestion(dave);
    const res = await enqueue(stack.app, dave, sourceId, { webhook: `${base}/nosecret` });
    expect(res.statusCode).toBe(409);
    expect(res.headers['content-type']).toMatch(/application\/problem\+json/);
    expect(res.json().code).toBe('WEBHOOK_SIGNING_SECRET_MISSING');
    expect(await writtenBy(dave.userId)).toEqual({ jobs: 0, targets: 0 });
  });

  it('a refused URL → 400 WEBHOOK_URL_REFUSED', async () => {
    const erin = await stack.newUser();
    await signingSecret(erin);
    const sourceId = await explainedQuestion(erin);
    for (const webhook of ['http://u:p@127.0.0.1/x', 'ftp://127.0.0.1/x', 'nope']) {
      const res = await enqueue(stack.app, erin, sourceId, { webhook });
      expect({ webhook, status: res.statusCode, type: res.headers['content-type'], code: res.json().code }).toEqual({
        webhook, status: 400, type: expect.stringMatching(/application\/problem\+json/), code: 'WEBHOOK_URL_REFUSED',
      });
    }
    expect(await writtenBy(erin.userId)).toEqual({ jobs: 0, targets: 0 });
  });
});

describe('delivery', () => {
  it("delivers the new job's terminal event once to the request's URL, signed with the caller's secret", async () => {
    const alice = await stack.newUser();
    const secret = await signingSecret(alice);
    const sourceId = await explainedQuestion(alice);
    const res = await enqueue(stack.app, alice, sourceId, { webhook: `${base}/cards` });
    expect(res.statusCode).toBe(202);
    const jobId = res.json().jobId as string;
    expect(await stack.db.webhookRequestTarget.findMany({ where: { resourceId: jobId }, select: { source: true, userId: true, url: true } }))
      .toEqual([{ source: 'study_memo_card_job', userId: alice.userId, url: `${base}/cards` }]);

    const job = await pollUntil(
      () => stack.db.studyMemoCardJob.findUniqueOrThrow({ where: { id: jobId } }),
      (j) => ['completed', 'failed', 'skipped'].includes(j.status),
      { describe: `job ${jobId} to finish`, timeoutMs: 90_000 },
    );
    expect(job.status).toBe('completed');
    const d = await pollUntil(
      () => stack.db.webhookDelivery.findFirst({ where: { targetId: { not: null }, payload: { path: ['data', 'id'], equals: jobId } } }),
      (v) => v !== null,
      { describe: `a per-request delivery of ${jobId}` },
    );
    await relay();
    const done = await pollUntil(
      async () => (await stack.app.inject({ method: 'GET', url: `/webhooks/deliveries/${d!.id}`, headers: alice.auth })).json(),
      (v: { status: string }) => v.status === 'SUCCEEDED' || v.status === 'FAILED',
      { describe: `delivery ${d!.id} to finish`, timeoutMs: 90_000 },
    );
    expect(done).toMatchObject({ status: 'SUCCEEDED', attemptCount: 1, endpointId: null, requestUrl: `${base}/cards`, eventType: 'study_memo_card_job.completed' });
    const got = rx.received.filter((r) => r.path === '/cards' && r.body.includes(jobId));
    expect(got).toHaveLength(1);
    const event = new Webhook(secret).verify(got[0]!.body, got[0]!.headers as Record<string, string>);
    expect(event).toMatchObject({ type: 'study_memo_card_job.completed', data: { id: jobId, status: 'completed', sourceKind: 'study_question', sourceId } });
    expect(got[0]!.headers['webhook-id']).toBe(d!.eventId);
    // Another secret does not verify it.
    expect(() => new Webhook(`whsec_${Buffer.alloc(32, 1).toString('base64')}`).verify(got[0]!.body, got[0]!.headers as Record<string, string>)).toThrow();
  });

  it('a skipped request (the version has a job) keeps no webhook', async () => {
    const frank = await stack.newUser();
    await signingSecret(frank);
    const sourceId = await explainedQuestion(frank);
    const first = await enqueue(stack.app, frank, sourceId);
    expect(first.statusCode).toBe(202);
    const again = await enqueue(stack.app, frank, sourceId, { webhook: `${base}/skipped` });
    expect(again.statusCode).toBe(200);
    expect(again.json()).toMatchObject({ status: 'skipped', jobId: first.json().jobId });
    expect(await writtenBy(frank.userId)).toEqual({ jobs: 1, targets: 0 });
  });
});

describe('Temporal unavailable', () => {
  let down: FastifyInstance;
  let deadConnection: Connection;

  beforeAll(async () => {
    // Nothing listens on a port just found free: every call is refused (gRPC UNAVAILABLE).
    deadConnection = Connection.lazy({ address: `127.0.0.1:${await getFreePort()}` });
    const dead = temporalClient(deadConnection, stack.config.temporal);
    down = await buildApp({ ...FAMILY_API, config: stack.config, db: stack.db, starter: createJobStarter(dead, stack.queues), temporal: dead, logger: pino({ level: 'silent' }) });
    await down.ready();
  });
  afterAll(async () => {
    await down?.close();
    await deadConnection?.close();
  });

  it('503: the withdrawn job takes its webhook with it; the retry keeps one', async () => {
    const gina = await stack.newUser();
    await signingSecret(gina);
    const sourceId = await explainedQuestion(gina);
    const refused = await enqueue(down, gina, sourceId, { webhook: `${base}/gina` });
    expect(refused.statusCode).toBe(503);
    expect(refused.json().code).toBe('WORKFLOW_START_UNAVAILABLE');
    expect(await writtenBy(gina.userId)).toEqual({ jobs: 0, targets: 0 });
    const retried = await enqueue(stack.app, gina, sourceId, { webhook: `${base}/gina` });
    expect(retried.statusCode).toBe(202);
    expect(await stack.db.webhookRequestTarget.count({ where: { resourceId: retried.json().jobId as string } })).toBe(1);
  });
});

describe('STUDY_EXPLANATION jobs with a webhook', () => {
  /** The URLs kept for async job `jobId`, sorted. */
  async function targetUrlsOf(jobId: string): Promise<string[]> {
    const rows = await stack.db.webhookRequestTarget.findMany({ where: { source: ASYNC_JOB_WEBHOOK_SOURCE, resourceId: jobId }, select: { url: true } });
    return rows.map((r) => r.url).sort();
  }

  /** Relays, then waits until `count` per-request deliveries of `userId` are finished; returns them. */
  async function finishedDeliveries(userId: string, count: number) {
    await relay();
    return pollUntil(
      () => stack.db.webhookDelivery.findMany({ where: { target: { userId } } }),
      (ds) => ds.length === count && ds.every((d) => d.status === 'SUCCEEDED' || d.status === 'FAILED'),
      { describe: `${count} finished per-request deliveries of user ${userId}`, timeoutMs: 90_000 },
    );
  }

  /** The async_job events the receiver got on `path` about job `jobId`, each verified with `secret`. */
  function verifiedAt(path: string, jobId: string, secret: string) {
    return rx.received
      .filter((r) => r.path === path && r.body.includes(jobId))
      .map((r) => new Webhook(secret).verify(r.body, r.headers as Record<string, string>) as { type: string; data: Record<string, unknown> });
  }

  const nothingWritten = async (userId: string) => ({
    questions: await stack.db.studyQuestion.count({ where: { userId } }),
    jobs: await stack.db.asyncJob.count({ where: { userId } }),
    targets: await stack.db.webhookRequestTarget.count({ where: { userId } }),
  });

  it('POST /study/questions/{questionId}/explanation-jobs: refusals write nothing; the job (and a repeat landing on it) gets its delivery; the body stays optional', async () => {
    await stack.stopAiWorker(); // the job stays PENDING until the worker runs
    const hana = await stack.newUser();
    const topic = await stack.db.studyTopic.create({ data: { userId: hana.userId, name: 'Indexes' } });
    const question = await stack.db.studyQuestion.create({ data: { userId: hana.userId, topicId: topic.id, question: 'What is a partial index?' } });
    const ask = (payload?: Record<string, unknown>) =>
      stack.app.inject({ method: 'POST', url: `/study/questions/${question.id}/explanation-jobs`, headers: hana.auth, ...(payload ? { payload } : {}) });

    const noSecret = await ask({ webhook: `${base}/explain` });
    expect([noSecret.statusCode, noSecret.json().code]).toEqual([409, 'WEBHOOK_SIGNING_SECRET_MISSING']);
    const secret = await signingSecret(hana);
    for (const webhook of ['http://u:p@127.0.0.1/x', 'ftp://127.0.0.1/x', 'nope']) {
      const res = await ask({ webhook });
      expect({ webhook, status: res.statusCode, type: res.headers['content-type'], code: res.json().code }).toEqual({
        webhook, status: 400, type: expect.stringMatching(/application\/problem\+json/), code: 'WEBHOOK_URL_REFUSED',
      });
    }
    expect(await nothingWritten(hana.userId)).toEqual({ questions: 1, jobs: 0, targets: 0 });

    const first = await ask({ webhook: `${base}/explain` });
    expect(first.statusCode).toBe(202);
    const { jobId } = first.json() as { jobId: string; created: boolean };
    expect(first.json()).toEqual({ jobId, created: true });
    const repeat = await ask({ webhook: `${base}/explain-repeat` });
    expect(repeat.statusCode).toBe(202);
    expect(repeat.json()).toEqual({ jobId, created: false });
    expect(await targetUrlsOf(jobId)).toEqual([`${base}/explain`, `${base}/explain-repeat`]);

    await stack.startAiWorker();
    expect(await waitForJob(stack, jobId, hana.auth)).toMatchObject({ status: 'COMPLETED' });
    const deliveries = await finishedDeliveries(hana.userId, 2);
    expect(deliveries.map((d) => [d.status, d.endpointId, d.eventType])).toEqual(Array(2).fill(['SUCCEEDED', null, 'async_job.completed']));
    for (const path of ['/explain', '/explain-repeat']) {
      const events = verifiedAt(path, jobId, secret);
      expect(events).toHaveLength(1);
      expect(events[0]).toMatchObject({ type: 'async_job.completed', data: { id: jobId, status: 'COMPLETED', jobType: 'STUDY_EXPLANATION', targetId: question.id } });
    }
    // Without a body, as before the field existed.
    const plain = await ask();
    expect(plain.statusCode).toBe(202);
    expect(await targetUrlsOf((plain.json() as { jobId: string }).jobId)).toEqual([]);
    await waitForJob(stack, (plain.json() as { jobId: string }).jobId, hana.auth);
  });

  it('POST /study/topics/{topicId}/questions: refusals write nothing; the explanation job delivers its terminal event', async () => {
    await stack.startAiWorker();
    const ivan = await stack.newUser();
    const secret = await signingSecret(ivan);
    const topic = await stack.db.studyTopic.create({ data: { userId: ivan.userId, name: 'Indexes' } });
    const create = (payload: Record<string, unknown>) =>
      stack.app.inject({ method: 'POST', url: `/study/topics/${topic.id}/questions`, headers: ivan.auth, payload: { question: 'What is a covering index?', ...payload } });

    for (const webhook of ['http://u:p@127.0.0.1/x', 'ftp://127.0.0.1/x', 'nope']) {
      const res = await create({ webhook });
      expect({ webhook, status: res.statusCode, type: res.headers['content-type'], code: res.json().code }).toEqual({
        webhook, status: 400, type: expect.stringMatching(/application\/problem\+json/), code: 'WEBHOOK_URL_REFUSED',
      });
    }
    const noJob = await create({ webhook: `${base}/question`, explain: false });
    expect([noJob.statusCode, noJob.json().code]).toEqual([400, 'VALIDATION_FAILED']);
    expect(await nothingWritten(ivan.userId)).toEqual({ questions: 0, jobs: 0, targets: 0 });

    const res = await create({ webhook: `${base}/question` });
    expect(res.statusCode).toBe(201);
    const { questionId, explanationJobId } = res.json() as { questionId: string; explanationJobId: string };
    expect(await targetUrlsOf(explanationJobId)).toEqual([`${base}/question`]);
    expect(await waitForJob(stack, explanationJobId, ivan.auth)).toMatchObject({ status: 'COMPLETED' });
    const deliveries = await finishedDeliveries(ivan.userId, 1);
    expect(deliveries[0]).toMatchObject({ status: 'SUCCEEDED', endpointId: null, eventType: 'async_job.completed' });
    const events = verifiedAt('/question', explanationJobId, secret);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ type: 'async_job.completed', data: { id: explanationJobId, status: 'COMPLETED', jobType: 'STUDY_EXPLANATION', targetId: questionId } });
  });
});
