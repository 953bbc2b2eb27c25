/**
 * Per-request completion webhooks of the scrap family's creates on the real stack (SAN-7, SAN-9):
 * `POST /scraps` keeps the request's `webhook` for each job its answer names that is not terminal
 * yet (both jobs of a new scrap; the active jobs a repeated submission lands on, one target per
 * request), `POST /til` for its TIL_GENERATION job; each terminal job's event reaches each URL,
 * signed with the caller's signing secret and verified with the reference `standardwebhooks`
 * implementation on a local receiver. A repeat naming only finished jobs keeps no target; a refused
 * URL (400) or a missing signing secret (409) writes nothing, and a create undone because Temporal
 * is unavailable (503, an API whose client points where nothing listens) keeps no target. Each test starts or stops the `ai`
 * worker it needs, so the jobs' states are decided by the test, not by timing. Nothing measures
 * time: every wait polls for a condition with generous bounds.
 */
import { randomUUID } from 'node:crypto';
import { Connection } from '@temporalio/client';
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { Webhook } from 'standardwebhooks';
import { buildApp } from '../../../src/api/app';
import { temporalClient } from '../../../src/core/connections';
import { ASYNC_JOB_WEBHOOK_SOURCE } from '../../../src/core/webhook-requests';
import { getFreePort } from '../../../src/dev/temporal-server';
import { createJobStarter, FAMILY_API } from '../../../src/families';
import { PG_INDEXES, PG_PARTIAL, SOURDOUGH } from '../../fixtures/texts';
import { addCard } from '../../support/learning';
import { pollUntil } from '../../support/poll';
import { startStack, waitForJob, type Stack } from '../../support/stack';
import { webhookReceiver } from '../../support/webhook-receiver';
import { relayWebhookDeliveries, signingSecret as signingSecretOf } from '../../support/webhook-requests';

jest.setTimeout(180_000);

type User = Awaited<ReturnType<Stack['newUser']>>;
let stack: Stack;
const rx = webhookReceiver();
let base: string;
let down: FastifyInstance | undefined;
let deadConnection: Connection | undefined;

beforeAll(async () => {
  base = await rx.start();
  stack = await startStack({
    aiWorker: false,
    aiRunsWorker: false,
    env: { WEBHOOK_ALLOW_PRIVATE_URLS: 'true', WEBHOOK_REQUEST_TIMEOUT_MS: '1000', WEBHOOK_RETRY_INITIAL_SECONDS: '0.2', WEBHOOK_RETRY_MAX_INTERVAL_SECONDS: '0.5' },
  });
});

afterAll(async () => {
  await down?.close();
  await deadConnection?.close();
  await stack?.stop();
  await rx.stop();
});

function submit(user: User, content: string, extra: Record<string, unknown> = {}) {
  return stack.app.inject({ method: 'POST', url: '/scraps', headers: user.auth, payload: { content, ...extra } });
}

function postTil(user: User, targetDate: string, extra: Record<string, unknown> = {}) {
  return stack.app.inject({ method: 'POST', url: '/til', headers: user.auth, payload: { targetDate, ...extra } });
}

const signingSecret = (user: User): Promise<string> => signingSecretOf(stack, user);
const relay = (): Promise<unknown> => relayWebhookDeliveries(stack);

/** The URLs kept for job `jobId`, sorted. */
async function targetUrlsOf(jobId: string): Promise<string[]> {
  const rows = await stack.db.webhookRequestTarget.findMany({ where: { source: ASYNC_JOB_WEBHOOK_SOURCE, resourceId: jobId }, select: { url: true } });
  return rows.map((r) => r.url).sort();
}

/** Relays, then waits until every per-request delivery of `userId` is finished; returns them. */
async function finishedDeliveries(userId: string, count: number) {
  await relay();
  return pollUntil(
    () => stack.db.webhookDelivery.findMany({ where: { target: { userId } }, include: { target: { select: { url: true } } } }),
    (ds) => ds.length === count && ds.every((d) => d.status === 'SUCCEEDED' || d.status === 'FAILED'),
    { describe: `${count} finished per-request deliveries of user ${userId}`, timeoutMs: 90_000 },
  );
}

/** The requests the receiver got on `path` about job `jobId`, each verified with `secret`. */
function verifiedAt(path: string, jobId: string, secret: string) {
  return rx.received
    .filter((r) => r.path === path && r.body.includes(jobId))
    .map((r) => new Webhook(secret).verify(r.body, r.headers as Record<string, string>) as { type: string; data: Record<string, unknown> });
}

describe('POST /scraps with a webhook', () => {
  it('a new scrap: both jobs deliver their terminal event; a repeat landing on the active jobs gets its own deliveries', async () => {
    await stack.stopAiWorker(); // the jobs stay active until the worker runs
    const alice = await stack.newUser();
    const secret = await signingSecret(alice);
    const content = `${PG_INDEXES}\n\n${randomUUID()}`;
    const first = await submit(alice, content, { webhook: `${base}/first` });
    expect(first.statusCode).toBe(202);
    const ids = first.json() as { scrapId: string; analysisJobId: string; refineJobId: string; created: boolean };
    expect(ids.created).toBe(true);
    const repeat = await submit(alice, content, { webhook: `${base}/repeat` });
    expect(repeat.statusCode).toBe(202);
    expect(repeat.json()).toEqual({ ...ids, created: false });
    for (const jobId of [ids.analysisJobId, ids.refineJobId]) {
      expect(await targetUrlsOf(jobId)).toEqual([`${base}/first`, `${base}/repeat`]);
    }

    await stack.startAiWorker();
    expect(await waitForJob(stack, ids.analysisJobId, alice.auth)).toMatchObject({ status: 'COMPLETED' });
    expect(await waitForJob(stack, ids.refineJobId, alice.auth)).toMatchObject({ status: 'COMPLETED' });
    const deliveries = await finishedDeliveries(alice.userId, 4);
    expect(deliveries.map((d) => [d.status, d.endpointId, d.attemptCount])).toEqual(Array(4).fill(['SUCCEEDED', null, 1]));
    for (const [jobId, jobType] of [[ids.analysisJobId, 'CARD_ANALYSIS'], [ids.refineJobId, 'SCRAP_REFINE']] as const) {
      // One event per job, delivered to each request's URL under the same webhook-id.
      expect(new Set(deliveries.filter((d) => (d.payload as { data: { id: string } }).data.id === jobId).map((d) => d.eventId)).size).toBe(1);
      for (const path of ['/first', '/repeat']) {
        const events = verifiedAt(path, jobId, secret);
        expect(events).toHaveLength(1);
        expect(events[0]).toMatchObject({ type: 'async_job.completed', data: { id: jobId, status: 'COMPLETED', jobType, targetId: ids.scrapId } });
      }
    }
  });

  it('a repeat whose answer names only finished jobs keeps no target and gets no delivery', async () => {
    await stack.startAiWorker();
    const bob = await stack.newUser();
    const { scrapId } = await addCard(stack, bob, `${SOURDOUGH}\n\n${randomUUID()}`);
    const content = (await stack.db.scrap.findUniqueOrThrow({ where: { id: scrapId } })).content;
    await signingSecret(bob);
    const repeat = await submit(bob, content, { webhook: `${base}/late` });
    expect(repeat.statusCode).toBe(202);
    expect(repeat.json()).toMatchObject({ scrapId, created: false });
    expect(await stack.db.webhookRequestTarget.count({ where: { userId: bob.userId } })).toBe(0);
    expect(await stack.db.asyncJob.count({ where: { targetId: scrapId, status: { in: ['PENDING', 'PROCESSING'] } } })).toBe(0);
  });
});

describe('POST /til with a webhook', () => {
  it('the TIL_GENERATION job delivers its terminal event to the URL', async () => {
    await stack.startAiWorker();
    const carol = await stack.newUser();
    const secret = await signingSecret(carol);
    await addCard(stack, carol, `${PG_PARTIAL}\n\n${randomUUID()}`, '2026-03-14T10:00:00Z');
    const res = await postTil(carol, '2026-03-14', { webhook: `${base}/til` });
    expect(res.statusCode).toBe(202);
    const { jobId, summaryId } = res.json() as { jobId: string; summaryId: string };
    expect(await targetUrlsOf(jobId)).toEqual([`${base}/til`]);
    expect(await waitForJob(stack, jobId, carol.auth)).toMatchObject({ status: 'COMPLETED' });
    const deliveries = await finishedDeliveries(carol.userId, 1);
    expect(deliveries[0]).toMatchObject({ status: 'SUCCEEDED', endpointId: null, eventType: 'async_job.completed' });
    const events = verifiedAt('/til', jobId, secret);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ type: 'async_job.completed', data: { id: jobId, jobType: 'TIL_GENERATION', targetId: summaryId } });
  });
});

describe('refusals write nothing', () => {
  async function nothingWritten(user: User) {
    expect(await stack.db.scrap.count({ where: { userId: user.userId } })).toBe(0);
    expect(await stack.db.asyncJob.count({ where: { userId: user.userId } })).toBe(0);
    expect(await stack.db.dailySummary.count({ where: { userId: user.userId } })).toBe(0);
    expect(await stack.db.webhookRequestTarget.count({ where: { userId: user.userId } })).toBe(0);
  }

  it('a refused URL → 400 WEBHOOK_URL_REFUSED (POST /scraps and POST /til)', async () => {
    const dave = await stack.newUser();
    await signingSecret(dave);
    for (const webhook of ['http://u:p@127.0.0.1/x', 'ftp://127.0.0.1/x', 'nope']) {
      for (const res of [await submit(dave, `${PG_INDEXES}\n\n${randomUUID()}`, { webhook }), await postTil(dave, '2026-03-14', { webhook })]) {
        expect(res.statusCode).toBe(400);
        expect(res.headers['content-type']).toMatch(/application\/problem\+json/);
        expect(res.json().code).toBe('WEBHOOK_URL_REFUSED');
      }
    }
    await nothingWritten(dave);
  });

  it('no signing secret → 409 WEBHOOK_SIGNING_SECRET_MISSING (POST /scraps and POST /til); the same scrap without a webhook is new', async () => {
    const erin = await stack.newUser();
    const content = `${PG_INDEXES}\n\n${randomUUID()}`;
    for (const res of [await submit(erin, content, { webhook: `${base}/nosecret` }), await postTil(erin, '2026-03-14', { webhook: `${base}/nosecret` })]) {
      expect(res.statusCode).toBe(409);
      expect(res.headers['content-type']).toMatch(/application\/problem\+json/);
      expect(res.json().code).toBe('WEBHOOK_SIGNING_SECRET_MISSING');
    }
    await nothingWritten(erin);
    const plain = await submit(erin, content);
    expect(plain.statusCode).toBe(202);
    expect(plain.json().created).toBe(true);
  });

  it('a new scrap undone because Temporal is unavailable (503) keeps no target', async () => {
    // Nothing listens on a port just found free: every call is refused (gRPC UNAVAILABLE).
    deadConnection = Connection.lazy({ address: `127.0.0.1:${await getFreePort()}` });
    const dead = temporalClient(deadConnection, stack.config.temporal);
    down = await buildApp({ ...FAMILY_API, config: stack.config, db: stack.db, starter: createJobStarter(dead, stack.queues), temporal: dead, logger: pino({ level: 'silent' }) });
    await down.ready();
    const fay = await stack.newUser();
    await signingSecret(fay);
    const res = await down.inject({ method: 'POST', url: '/scraps', headers: fay.auth, payload: { content: `${PG_INDEXES}\n\n${randomUUID()}`, webhook: `${base}/undone` } });
    expect(res.statusCode).toBe(503);
    expect(res.json().code).toBe('WORKFLOW_START_UNAVAILABLE');
    await nothingWritten(fay);
  });
});
