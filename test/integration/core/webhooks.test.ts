/**
 * Completion webhooks on the real stack: registration and tenant isolation, SSRF refusals, the
 * terminal-status trigger (outbox), the relay, signed delivery verified with the reference
 * `standardwebhooks` implementation on a local receiver, retries with recorded attempts, a hanging
 * receiver cut by the timeout, the retry budget, redelivery and secret rotation. Nothing measures
 * time: every wait polls for a condition with generous bounds.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { createWebhookActivities } from '../../../src/activities/core/webhooks';
import { ensureCompany, setMember } from '../../../src/core/companies';
import { maintenanceTaskQueue } from '../../../src/core/contracts';
import { transitionJob } from '../../../src/core/projection';
import { webhookDeliveryWorkflowId } from '../../../src/core/webhook-endpoints';
import { sealStoredSecrets, webhookSecretBoxFromConfig } from '../../../src/core/webhook-secrets';
import { startWebhookDispatcher } from '../../../src/workers/webhook-dispatcher';
import { pollUntil } from '../../support/poll';
import { startStack, type Stack } from '../../support/stack';
import { webhookReceiver } from '../../support/webhook-receiver';

jest.setTimeout(120_000);

let stack: Stack;
let alice: Awaited<ReturnType<Stack['newUser']>>;
let bob: Awaited<ReturnType<Stack['newUser']>>;
const rx = webhookReceiver();
let base: string;

beforeAll(async () => {
  base = await rx.start();
  stack = await startStack({
    aiWorker: false,
    aiRunsWorker: false,
    env: {
      WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
      WEBHOOK_REQUEST_TIMEOUT_MS: '1000',
      WEBHOOK_RETRY_INITIAL_SECONDS: '0.2',
      WEBHOOK_RETRY_MAX_INTERVAL_SECONDS: '0.5',
      WEBHOOK_RETRY_BUDGET_SECONDS: '120',
    },
  });
  alice = await stack.newUser();
  bob = await stack.newUser();
});

afterAll(async () => {
  await stack?.stop();
  await rx.stop();
});

async function register(auth: { authorization: string }, url: string, extra: object = {}) {
  const res = await stack.app.inject({ method: 'POST', url: '/webhooks/endpoints', headers: auth, payload: { url, ...extra } });
  return res;
}

/** A job of `userId` that reaches `to` (COMPLETED or FAILED) through the projection's guarded transitions. */
async function finishJob(userId: string, to: 'COMPLETED' | 'FAILED') {
  const job = await stack.db.asyncJob.create({ data: { jobType: 'SCRAP_REFINE', targetId: randomUUID(), userId, status: 'PENDING' } });
  await transitionJob(stack.db, job.jobId, 'PROCESSING');
  await transitionJob(stack.db, job.jobId, to, to === 'FAILED' ? 'given up by the test' : undefined);
  return job.jobId;
}

/** One relay pass through its workflow on the maintenance queue. */
async function relay() {
  return stack.client.workflow.execute('relayWebhookDeliveriesWorkflow', {
    taskQueue: maintenanceTaskQueue(stack.config.temporal.taskQueuePrefix), workflowId: `test-relay-${randomUUID()}`, args: [{}],
  });
}

/** What `webhook_endpoints` holds for endpoint `id`. */
async function storedSecrets(id: string) {
  const [row] = await stack.db.$queryRaw<{ secret: string; previous: string | null }[]>`SELECT secret, previous_secret AS previous FROM webhook_endpoints WHERE id = ${id}::uuid`;
  return row!;
}

async function deliveryOf(endpointId: string, jobId: string) {
  return pollUntil(
    () => stack.db.webhookDelivery.findFirst({ where: { endpointId, payload: { path: ['data', 'id'], equals: jobId } } }),
    (d) => d !== null,
    { describe: `a delivery of job ${jobId}` },
  );
}

interface DeliveryView {
  id: string; status: string; eventType: string; eventId: string; attemptCount: number; finishedAt: string | null;
  attempts: { number: number; statusCode: number | null; error: string | null }[];
}

async function settled(deliveryId: string, auth: { authorization: string }): Promise<DeliveryView> {
  return pollUntil(
    async () => (await stack.app.inject({ method: 'GET', url: `/webhooks/deliveries/${deliveryId}`, headers: auth })).json() as DeliveryView,
    (d) => d.status === 'SUCCEEDED' || d.status === 'FAILED',
    { describe: `delivery ${deliveryId} to finish`, timeoutMs: 90_000 },
  );
}

describe('registration', () => {
  it('shows the secret once, lists and reads without it, isolates tenants', async () => {
    const res = await register(alice.auth, `${base}/iso`);
    expect(res.statusCode).toBe(201);
    const ep = res.json();
    expect(ep.secret).toMatch(/^whsec_[A-Za-z0-9+/=]{43,}$/);
    const read = await stack.app.inject({ method: 'GET', url: `/webhooks/endpoints/${ep.id}`, headers: alice.auth });
    expect(read.statusCode).toBe(200);
    expect(read.json()).not.toHaveProperty('secret');
    const list = (await stack.app.inject({ method: 'GET', url: '/webhooks/endpoints?limit=100', headers: alice.auth })).json();
    expect(list.items.map((e: { id: string }) => e.id)).toContain(ep.id);
    const bobs = (await stack.app.inject({ method: 'GET', url: '/webhooks/endpoints?limit=100', headers: bob.auth })).json();
    expect(bobs.items.map((e: { id: string }) => e.id)).not.toContain(ep.id);
    for (const [method, url] of [['GET', `/webhooks/endpoints/${ep.id}`], ['DELETE', `/webhooks/endpoints/${ep.id}`], ['POST', `/webhooks/endpoints/${ep.id}/rotate-secret`], ['GET', `/webhooks/endpoints/${ep.id}/deliveries`]] as const) {
      expect((await stack.app.inject({ method, url, headers: bob.auth })).statusCode).toBe(404);
    }
    expect((await stack.app.inject({ method: 'GET', url: '/webhooks/endpoints' })).statusCode).toBe(401);
    // Bob's job events never reach Alice's endpoint.
    const bobJob = await finishJob(bob.userId, 'COMPLETED');
    expect(await stack.db.webhookDelivery.count({ where: { endpointId: ep.id, payload: { path: ['data', 'id'], equals: bobJob } } })).toBe(0);
    const del = await stack.app.inject({ method: 'DELETE', url: `/webhooks/endpoints/${ep.id}`, headers: alice.auth });
    expect(del.statusCode).toBe(204);
    expect((await stack.app.inject({ method: 'GET', url: `/webhooks/endpoints/${ep.id}`, headers: alice.auth })).statusCode).toBe(404);
  });

  it('refuses credentials in the URL and non-http schemes (problem+json, nothing stored)', async () => {
    for (const url of ['http://u:p@127.0.0.1/x', 'ftp://127.0.0.1/x', 'nope']) {
      const res = await register(alice.auth, url);
      expect(res.statusCode).toBe(400);
      expect(res.headers['content-type']).toMatch(/application\/problem\+json/);
      expect(res.json().code).toBe('WEBHOOK_URL_REFUSED');
    }
    expect(await stack.db.webhookEndpoint.count({ where: { url: { contains: 'u:p@' } } })).toBe(0);
  });

  it('company endpoints need an OWNER; they receive the company runs’ events, not the members’ jobs', async () => {
    const companyId = await ensureCompany(stack.db, `co-${randomUUID()}`);
    await setMember(stack.db, companyId, alice.userId, 'OWNER');
    await setMember(stack.db, companyId, bob.userId, 'VIEWER');
    expect((await register(bob.auth, `${base}/co`, { companyId })).statusCode).toBe(403);
    const stranger = await stack.newUser();
    expect((await register(stranger.auth, `${base}/co`, { companyId })).statusCode).toBe(404);
    const res = await register(alice.auth, `${base}/co`, { companyId });
    expect(res.statusCode).toBe(201);
    const ep = res.json();
    expect((await stack.app.inject({ method: 'GET', url: `/webhooks/endpoints/${ep.id}`, headers: bob.auth })).statusCode).toBe(404);
    const runId = randomUUID();
    await stack.db.$executeRaw`INSERT INTO ai_runs (id, company_id, actor_user_id, status, input_masked, input_hash, locale, idempotency_key_hash, workflow_id, max_attempts)
      VALUES (${runId}::uuid, ${companyId}::uuid, ${alice.userId}::uuid, 'RUNNING', 'x', ${'a'.repeat(64)}, 'en', ${'b'.repeat(64)}, ${`ai-run:${runId}`}, 3)`;
    await stack.db.$executeRaw`UPDATE ai_runs SET status = 'SUCCEEDED' WHERE id = ${runId}::uuid`;
    const d = await deliveryOf(ep.id, runId);
    expect(d.eventType).toBe('ai_run.succeeded');
    expect(d.payload).toMatchObject({ type: 'ai_run.succeeded', data: { id: runId, status: 'SUCCEEDED', companyId } });
    const jobId = await finishJob(alice.userId, 'COMPLETED');
    expect(await stack.db.webhookDelivery.count({ where: { endpointId: ep.id, payload: { path: ['data', 'id'], equals: jobId } } })).toBe(0);
  });
});

describe('delivery', () => {
  it('POSTs the signed event once a job is terminal (verified by standardwebhooks)', async () => {
    const ep = (await register(alice.auth, `${base}/ok`)).json();
    const jobId = await finishJob(alice.userId, 'COMPLETED');
    const d = await deliveryOf(ep.id, jobId);
    expect(d.status).toBe('PENDING');
    await relay();
    const done = await settled(d.id, alice.auth);
    expect(done).toMatchObject({ status: 'SUCCEEDED', attemptCount: 1, eventType: 'async_job.completed' });
    expect(done.attempts).toEqual([expect.objectContaining({ number: 1, statusCode: 204, error: null })]);
    const got = rx.received.find((r) => r.path === '/ok' && r.body.includes(jobId));
    expect(got).toBeDefined();
    const event = new Webhook(ep.secret).verify(got!.body, got!.headers as Record<string, string>);
    expect(event).toMatchObject({ type: 'async_job.completed', data: { id: jobId, status: 'COMPLETED', jobType: 'SCRAP_REFINE' } });
    expect(got!.headers['webhook-id']).toBe(d.eventId);
  });

  it('POSTs a signed event for each terminal status of a study extraction job, none for the others', async () => {
    const ep = (await register(alice.auth, `${base}/study`)).json();
    const jobs: Record<string, string> = {};
    for (const to of ['completed', 'failed', 'skipped'] as const) {
      const jobId = randomUUID();
      await stack.db.$executeRaw`INSERT INTO study_memo_card_jobs (id, user_id, source_kind, source_id, source_version, status, workflow_id)
        VALUES (${jobId}::uuid, ${alice.userId}::uuid, 'study_question', ${randomUUID()}::uuid, now(), 'pending', ${`study-memo-card-job:${jobId}`})`;
      await stack.db.studyMemoCardJob.update({ where: { id: jobId }, data: { status: 'processing', attempts: 1, startedAt: new Date() } });
      await stack.db.studyMemoCardJob.update({
        where: { id: jobId },
        data: { status: to, completedAt: new Date(), ...(to === 'failed' ? { errorCode: 'llm_timeout' } : {}) },
      });
      jobs[to] = jobId;
    }
    for (const [to, jobId] of Object.entries(jobs)) {
      const d = await deliveryOf(ep.id, jobId);
      expect(d.eventType).toBe(`study_memo_card_job.${to}`);
    }
    // pending → processing is not terminal: one delivery per job, no more.
    expect(await stack.db.webhookDelivery.count({ where: { endpointId: ep.id } })).toBe(3);
    await relay();
    const failed = await deliveryOf(ep.id, jobs.failed!);
    expect((await settled(failed.id, alice.auth)).status).toBe('SUCCEEDED');
    const got = rx.received.find((r) => r.path === '/study' && r.body.includes(jobs.failed!));
    expect(got).toBeDefined();
    const event = new Webhook(ep.secret).verify(got!.body, got!.headers as Record<string, string>);
    expect(event).toMatchObject({
      type: 'study_memo_card_job.failed',
      data: { id: jobs.failed, status: 'failed', kind: 'card_extract', sourceKind: 'study_question', attempts: 1, errorCode: 'llm_timeout' },
    });
    // Bob has no endpoint for Alice's jobs: nothing reached him.
    expect(await stack.db.webhookDelivery.count({ where: { endpoint: { userId: bob.userId }, payload: { path: ['data', 'id'], equals: jobs.completed! } } })).toBe(0);
  });

  it('retries a failing receiver with backoff and records every attempt', async () => {
    rx.behaviour.set('/flaky', (n) => (n <= 3 ? 500 : 200));
    const ep = (await register(alice.auth, `${base}/flaky`)).json();
    const jobId = await finishJob(alice.userId, 'FAILED');
    const d = await deliveryOf(ep.id, jobId);
    await relay();
    const done = await settled(d.id, alice.auth);
    expect(done.status).toBe('SUCCEEDED');
    expect(done.eventType).toBe('async_job.failed');
    expect(done.attempts.map((a) => a.statusCode)).toEqual([500, 500, 500, 200]);
    expect(done.attempts[0]?.error).toBe('HTTP 500');
    const list = (await stack.app.inject({ method: 'GET', url: `/webhooks/endpoints/${ep.id}/deliveries?limit=1`, headers: alice.auth })).json();
    expect(list.items).toHaveLength(1);
  });

  it('cuts a hanging receiver at the timeout and retries it', async () => {
    rx.behaviour.set('/hang', (n) => (n === 1 ? 'hang' : 204));
    const ep = (await register(alice.auth, `${base}/hang`)).json();
    const jobId = await finishJob(alice.userId, 'COMPLETED');
    const d = await deliveryOf(ep.id, jobId);
    await relay();
    const done = await settled(d.id, alice.auth);
    expect(done.status).toBe('SUCCEEDED');
    expect(done.attempts[0]).toMatchObject({ number: 1, statusCode: null, error: 'timed out after 1000 ms' });
    expect(done.attempts[1]).toMatchObject({ number: 2, statusCode: 204 });
  });

  it('ends FAILED when the retry budget is spent', async () => {
    rx.behaviour.set('/down', () => 503);
    const ep = (await register(alice.auth, `${base}/down`)).json();
    const jobId = await finishJob(alice.userId, 'COMPLETED');
    const d = await deliveryOf(ep.id, jobId);
    await stack.client.workflow.start('webhookDeliveryWorkflow', {
      taskQueue: stack.queues.jobs, workflowId: webhookDeliveryWorkflowId(d.id),
      args: [{ deliveryId: d.id, budgetSeconds: 5, initialSeconds: 0.2, maxIntervalSeconds: 0.3 }],
    });
    const done = await settled(d.id, alice.auth);
    expect(done.status).toBe('FAILED');
    expect(done.attempts.length).toBeGreaterThanOrEqual(2);
    expect(done.attempts.every((a) => a.statusCode === 503)).toBe(true);
    expect(done.finishedAt).not.toBeNull();
    // The relay finds nothing left to start for it.
    await relay();
    expect((await stack.db.webhookDelivery.findUniqueOrThrow({ where: { id: d.id } })).status).toBe('FAILED');
  });

  it('redelivers the same event as a new delivery', async () => {
    const ep = (await register(alice.auth, `${base}/again`)).json();
    const jobId = await finishJob(alice.userId, 'COMPLETED');
    const d = await deliveryOf(ep.id, jobId);
    await relay();
    await settled(d.id, alice.auth);
    expect((await stack.app.inject({ method: 'POST', url: `/webhooks/deliveries/${d.id}/redeliver`, headers: bob.auth })).statusCode).toBe(404);
    const res = await stack.app.inject({ method: 'POST', url: `/webhooks/deliveries/${d.id}/redeliver`, headers: alice.auth });
    expect(res.statusCode).toBe(202);
    const again = res.json();
    expect(again).toMatchObject({ eventId: d.eventId, redeliveryOf: d.id, endpointId: ep.id });
    expect(again.id).not.toBe(d.id);
    const done = await settled(again.id, alice.auth);
    expect(done.status).toBe('SUCCEEDED');
    const got = rx.received.filter((r) => r.path === '/again' && r.headers['webhook-id'] === d.eventId);
    expect(got).toHaveLength(2);
    expect(got[1]!.body).toBe(got[0]!.body);
  });

  it('signs with both secrets during a rotation', async () => {
    const ep = (await register(alice.auth, `${base}/rotate`)).json();
    const rot = await stack.app.inject({ method: 'POST', url: `/webhooks/endpoints/${ep.id}/rotate-secret`, headers: alice.auth });
    expect(rot.statusCode).toBe(200);
    const rotated = rot.json();
    expect(rotated.secret).not.toBe(ep.secret);
    expect(rotated.secretRotationEndsAt).not.toBeNull();
    const jobId = await finishJob(alice.userId, 'COMPLETED');
    const d = await deliveryOf(ep.id, jobId);
    await relay();
    await settled(d.id, alice.auth);
    const got = rx.received.find((r) => r.path === '/rotate' && r.body.includes(jobId))!;
    expect(String(got.headers['webhook-signature']).split(' ')).toHaveLength(2);
    const headers = got.headers as Record<string, string>;
    expect(new Webhook(ep.secret).verify(got.body, headers)).toMatchObject({ data: { id: jobId } });
    expect(new Webhook(rotated.secret).verify(got.body, headers)).toMatchObject({ data: { id: jobId } });
    // Both secrets are at rest sealed only.
    const stored = await storedSecrets(ep.id);
    expect(stored.previous).toMatch(/^v1\./);
    for (const s of [ep.secret, rotated.secret]) expect(JSON.stringify(stored)).not.toContain(s.slice('whsec_'.length));
  });

  it('stores the secret sealed (never the secret itself), bound to its endpoint', async () => {
    const ep = (await register(alice.auth, `${base}/sealed`)).json();
    const stored = await storedSecrets(ep.id);
    expect(stored.secret).toMatch(/^v1\.dev\./);
    expect(stored.secret).not.toContain(ep.secret.slice('whsec_'.length));
    expect(stored.previous).toBeNull();
    // Another endpoint's sealed secret copied onto this row does not open (the id is bound): the attempt records it, nothing is sent.
    const other = (await register(alice.auth, `${base}/sealed`)).json();
    await stack.db.$executeRaw`UPDATE webhook_endpoints SET secret = ${(await storedSecrets(other.id)).secret} WHERE id = ${ep.id}::uuid`;
    const d = await deliveryOf(ep.id, await finishJob(alice.userId, 'COMPLETED'));
    const activities = createWebhookActivities({ config: stack.config, db: stack.db });
    expect(await activities.attemptWebhookDelivery({ deliveryId: d.id })).toBe('retry');
    const attempts = await stack.db.webhookAttempt.findMany({ where: { deliveryId: d.id } });
    expect(attempts).toEqual([expect.objectContaining({ statusCode: null, error: expect.stringMatching(new RegExp(`webhook endpoint ${ep.id}: stored secret cannot be opened`)) })]);
    expect(rx.received.some((r) => r.path === '/sealed')).toBe(false);
  });

  it('a wrong key ring fails the attempt clearly and contacts nobody', async () => {
    const ep = (await register(alice.auth, `${base}/wrong-key`)).json();
    const d = await deliveryOf(ep.id, await finishJob(alice.userId, 'COMPLETED'));
    const wrong = { ...stack.config.webhooks, secretKeys: `dev:${randomBytes(32).toString('base64')}` };
    const activities = createWebhookActivities({ config: { webhooks: wrong }, db: stack.db });
    expect(await activities.attemptWebhookDelivery({ deliveryId: d.id })).toBe('retry');
    const [attempt] = await stack.db.webhookAttempt.findMany({ where: { deliveryId: d.id } });
    expect(attempt?.error).toMatch(/stored secret cannot be opened \(sealed token does not verify under key "dev"\); check WEBHOOK_SECRET_KEYS/);
    expect(rx.received.some((r) => r.path === '/wrong-key')).toBe(false);
  });

  it('accepts a clear legacy secret, and the start-up step seals it with signatures unchanged', async () => {
    const ep = (await register(alice.auth, `${base}/legacy`)).json();
    await stack.db.$executeRaw`UPDATE webhook_endpoints SET secret = ${ep.secret} WHERE id = ${ep.id}::uuid`;
    const first = await deliveryOf(ep.id, await finishJob(alice.userId, 'COMPLETED'));
    await relay();
    expect((await settled(first.id, alice.auth)).status).toBe('SUCCEEDED');
    const box = webhookSecretBoxFromConfig(stack.config);
    const report = await sealStoredSecrets(stack.db, box);
    expect(report.sealed).toBeGreaterThanOrEqual(1);
    const stored = await storedSecrets(ep.id);
    expect(stored.secret).toMatch(/^v1\.dev\./);
    expect(box.open(ep.id, stored.secret)).toBe(ep.secret);
    const second = await deliveryOf(ep.id, await finishJob(alice.userId, 'COMPLETED'));
    await relay();
    expect((await settled(second.id, alice.auth)).status).toBe('SUCCEEDED');
    const got = rx.received.filter((r) => r.path === '/legacy');
    expect(got).toHaveLength(2);
    for (const g of got) expect(new Webhook(ep.secret).verify(g.body, g.headers as Record<string, string>)).toHaveProperty('type', 'async_job.completed');
  });

  it('the dispatcher starts a delivery on the outbox notification, without a relay pass', async () => {
    const ep = (await register(alice.auth, `${base}/fast`)).json();
    const before = await deliveryOf(ep.id, await finishJob(alice.userId, 'COMPLETED'));
    const dispatcher = startWebhookDispatcher({
      databaseUrl: stack.dbUrl, db: stack.db, client: stack.client, config: stack.config, jobsTaskQueue: stack.queues.jobs, log: { info: () => undefined, warn: () => undefined },
    });
    try {
      // Its first pass runs once it listens: the delivery written before it started is taken.
      expect((await settled(before.id, alice.auth)).status).toBe('SUCCEEDED');
      // A later terminal write is woken by NOTIFY (no Schedule runs in the tests).
      const jobId = await finishJob(alice.userId, 'COMPLETED');
      const d = await deliveryOf(ep.id, jobId);
      expect((await settled(d.id, alice.auth)).status).toBe('SUCCEEDED');
      expect(rx.received.some((r) => r.path === '/fast' && r.body.includes(jobId))).toBe(true);
    } finally {
      await dispatcher.stop();
    }
  });

  it('re-checks the destination at delivery: outside dev mode a loopback receiver is never contacted', async () => {
    const ep = (await register(alice.auth, `${base}/rebind`)).json();
    const jobId = await finishJob(alice.userId, 'COMPLETED');
    const d = await deliveryOf(ep.id, jobId);
    const strict = createWebhookActivities({ config: { webhooks: { ...stack.config.webhooks, allowPrivateUrls: false } }, db: stack.db });
    expect(await strict.attemptWebhookDelivery({ deliveryId: d.id })).toBe('retry');
    const attempts = await stack.db.webhookAttempt.findMany({ where: { deliveryId: d.id } });
    expect(attempts).toEqual([expect.objectContaining({ number: 1, statusCode: null, error: expect.stringMatching(/refused/) })]);
    expect(rx.received.some((r) => r.path === '/rebind')).toBe(false);
  });
});
