/**
 * Per-request completion webhooks on the real stack: the signing secret (shown once, rotation),
 * a create naming a `webhook` URL (an AI run and a portal link job), the delivery of its terminal
 * event signed with the caller's signing secret and verified with the reference `standardwebhooks`
 * implementation on a local receiver, refusals with nothing written (a refused URL → 400, no
 * signing secret → 409), the Idempotency-Key fingerprint, isolation between users, and a requester
 * who left the company (their run's delivery is not sent, FAILED with the reason). Nothing measures
 * time: every wait polls for a condition with generous bounds.
 */
import { randomUUID } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { ensureCompany, removeMember, setMember } from '../../../src/core/companies';
import { webhookDeliveryWorkflowId } from '../../../src/core/webhook-endpoints';
import { openSigningSecret, sealStoredSecrets, webhookSecretBoxFromConfig } from '../../../src/core/webhook-secrets';
import { pollUntil } from '../../support/poll';
import { startStack, type Stack } from '../../support/stack';
import { webhookReceiver } from '../../support/webhook-receiver';
import { relayWebhookDeliveries, signingSecret as signingSecretOf } from '../../support/webhook-requests';

jest.setTimeout(120_000);

type User = Awaited<ReturnType<Stack['newUser']>>;
let stack: Stack;
let alice: User;
let bob: User;
let companyId: string;
const rx = webhookReceiver();
let base: string;

beforeAll(async () => {
  base = await rx.start();
  stack = await startStack({
    aiWorker: false,
    aiRunsWorker: false,
    env: { WEBHOOK_ALLOW_PRIVATE_URLS: 'true', WEBHOOK_REQUEST_TIMEOUT_MS: '1000', WEBHOOK_RETRY_INITIAL_SECONDS: '0.2', WEBHOOK_RETRY_MAX_INTERVAL_SECONDS: '0.5' },
  });
  alice = await stack.newUser();
  bob = await stack.newUser();
  companyId = await ensureCompany(stack.db, `co-${randomUUID()}`);
  await setMember(stack.db, companyId, alice.userId, 'OWNER');
  await setMember(stack.db, companyId, bob.userId, 'OWNER');
});

afterAll(async () => {
  await stack?.stop();
  await rx.stop();
});

function createRun(user: User, key: string, extra: Record<string, unknown> = {}) {
  return stack.app.inject({
    method: 'POST', url: '/api/v1/ai-runs', headers: { ...user.auth, 'idempotency-key': key },
    payload: { companyId, text: 'I need an employment certificate', locale: 'en', ...extra },
  });
}

const signingSecret = (user: User): Promise<string> => signingSecretOf(stack, user);
const relay = (): Promise<unknown> => relayWebhookDeliveries(stack);

async function requestDeliveryOf(resourceId: string) {
  return pollUntil(
    () => stack.db.webhookDelivery.findFirst({ where: { targetId: { not: null }, payload: { path: ['data', 'id'], equals: resourceId } } }),
    (d) => d !== null,
    { describe: `a per-request delivery of ${resourceId}` },
  );
}

describe('signing secret', () => {
  it('is created once (201), shown only in the answer, rotated with an overlap (200)', async () => {
    const carol = await stack.newUser();
    expect((await stack.app.inject({ method: 'GET', url: '/webhooks/signing-secret', headers: carol.auth })).statusCode).toBe(404);
    const first = await stack.app.inject({ method: 'POST', url: '/webhooks/signing-secret', headers: carol.auth });
    expect(first.statusCode).toBe(201);
    expect(first.json().secret).toMatch(/^whsec_[A-Za-z0-9+/=]{43,}$/);
    expect(first.json().secretRotationEndsAt).toBeNull();
    const read = await stack.app.inject({ method: 'GET', url: '/webhooks/signing-secret', headers: carol.auth });
    expect(read.statusCode).toBe(200);
    expect(read.json()).not.toHaveProperty('secret');
    const second = await stack.app.inject({ method: 'POST', url: '/webhooks/signing-secret', headers: carol.auth });
    expect(second.statusCode).toBe(200);
    expect(second.json().secret).not.toBe(first.json().secret);
    expect(second.json().secretRotationEndsAt).not.toBeNull();
    // Both stored sealed: neither column holds a secret in clear.
    const stored = await stack.db.webhookSigningSecret.findUniqueOrThrow({ where: { userId: carol.userId } });
    for (const s of [first.json().secret as string, second.json().secret as string]) {
      expect(stored.secret).not.toContain(s.slice('whsec_'.length));
      expect(stored.previousSecret).not.toContain(s.slice('whsec_'.length));
    }
    expect(stored.secret).toMatch(/^v1\./);
    expect(stored.previousSecret).toMatch(/^v1\./);
    expect((await stack.app.inject({ method: 'POST', url: '/webhooks/signing-secret' })).statusCode).toBe(401);
  });
});

describe('signing secrets at rest', () => {
  const box = () => webhookSecretBoxFromConfig(stack.config);

  it('two rotations at once both take effect: the later one keeps the earlier one as its previous secret', async () => {
    const hal = await stack.newUser();
    await signingSecret(hal);
    const [a, b] = await Promise.all([0, 1].map(() => stack.app.inject({ method: 'POST', url: '/webhooks/signing-secret', headers: hal.auth })));
    const shown = [a!.json().secret as string, b!.json().secret as string];
    const stored = openSigningSecret(box(), await stack.db.webhookSigningSecret.findUniqueOrThrow({ where: { userId: hal.userId } }));
    expect(new Set([stored.secret, stored.previousSecret])).toEqual(new Set(shown));
  });

  it('a clear legacy secret is sealed by the start-up step and still signs the same', async () => {
    const ivy = await stack.newUser();
    const clear = await signingSecret(ivy);
    await stack.db.webhookSigningSecret.update({ where: { userId: ivy.userId }, data: { secret: clear } });
    const report = await sealStoredSecrets(stack.db, box());
    expect(report.sealed).toBeGreaterThanOrEqual(1);
    const row = await stack.db.webhookSigningSecret.findUniqueOrThrow({ where: { userId: ivy.userId } });
    expect(row.secret).not.toContain(clear.slice('whsec_'.length));
    expect(openSigningSecret(box(), row).secret).toBe(clear);
  });
});

describe('refusals write nothing', () => {
  it('a create naming a webhook without a signing secret → 409 WEBHOOK_SIGNING_SECRET_MISSING', async () => {
    const dave = await stack.newUser();
    await setMember(stack.db, companyId, dave.userId, 'OWNER');
    const key = randomUUID();
    const res = await createRun(dave, key, { webhook: `${base}/nosecret` });
    expect(res.statusCode).toBe(409);
    expect(res.headers['content-type']).toMatch(/application\/problem\+json/);
    expect(res.json().code).toBe('WEBHOOK_SIGNING_SECRET_MISSING');
    expect(await stack.db.aiRun.count({ where: { actorUserId: dave.userId } })).toBe(0);
    expect(await stack.db.webhookRequestTarget.count({ where: { userId: dave.userId } })).toBe(0);
    // The key was not taken: the same key without a webhook creates the run.
    expect((await createRun(dave, key)).statusCode).toBe(202);
  });

  it('a refused URL → 400 WEBHOOK_URL_REFUSED (AI run and portal link)', async () => {
    const erin = await stack.newUser();
    await setMember(stack.db, companyId, erin.userId, 'OWNER');
    await signingSecret(erin);
    for (const webhook of ['http://u:p@127.0.0.1/x', 'ftp://127.0.0.1/x', 'nope']) {
      const run = await createRun(erin, randomUUID(), { webhook });
      expect(run.statusCode).toBe(400);
      expect(run.headers['content-type']).toMatch(/application\/problem\+json/);
      expect(run.json().code).toBe('WEBHOOK_URL_REFUSED');
      const link = await stack.app.inject({
        method: 'POST', url: '/portal/link', headers: { ...erin.auth, 'idempotency-key': randomUUID() },
        payload: { portalType: 'suwon', studentId: '20231234', password: 'pw', webhook },
      });
      expect(link.statusCode).toBe(400);
      expect(link.json().code).toBe('WEBHOOK_URL_REFUSED');
    }
    expect(await stack.db.aiRun.count({ where: { actorUserId: erin.userId } })).toBe(0);
    expect(await stack.db.portalLinkJob.count({ where: { userId: erin.userId } })).toBe(0);
    expect(await stack.db.webhookRequestTarget.count({ where: { userId: erin.userId } })).toBe(0);
  });
});

describe('delivery', () => {
  it('delivers the terminal event once, signed with the caller\'s secret; only the caller sees it', async () => {
    const secret = await signingSecret(alice);
    const key = randomUUID();
    const res = await createRun(alice, key, { webhook: `${base}/run` });
    expect(res.statusCode).toBe(202);
    const runId = res.json().aiRunId as string;
    // The same key with another webhook is another request; the same one replays.
    const other = await createRun(alice, key, { webhook: `${base}/elsewhere` });
    expect(other.statusCode).toBe(409);
    expect(other.json().code).toBe('IDEMPOTENCY_KEY_CONFLICT');
    expect(other.json().errors).toEqual([expect.objectContaining({ path: 'body.webhook' })]);
    const without = await createRun(alice, key);
    expect(without.statusCode).toBe(409);
    expect(without.json().code).toBe('IDEMPOTENCY_KEY_CONFLICT');
    const again = await createRun(alice, key, { webhook: `${base}/run` });
    expect(again.statusCode).toBe(202);
    expect(again.json().aiRunId).toBe(runId);
    expect(await stack.db.webhookRequestTarget.count({ where: { resourceId: runId } })).toBe(1);

    await stack.db.$executeRaw`UPDATE ai_runs SET status = 'SUCCEEDED' WHERE id = ${runId}::uuid`;
    const d = await requestDeliveryOf(runId);
    expect(d.endpointId).toBeNull();
    await relay();
    const done = await pollUntil(
      async () => (await stack.app.inject({ method: 'GET', url: `/webhooks/deliveries/${d.id}`, headers: alice.auth })).json(),
      (v: { status: string }) => v.status === 'SUCCEEDED' || v.status === 'FAILED',
      { describe: `delivery ${d.id} to finish`, timeoutMs: 90_000 },
    );
    expect(done).toMatchObject({ status: 'SUCCEEDED', attemptCount: 1, endpointId: null, requestUrl: `${base}/run`, eventType: 'ai_run.succeeded' });
    const got = rx.received.filter((r) => r.path === '/run' && r.body.includes(runId));
    expect(got).toHaveLength(1);
    const event = new Webhook(secret).verify(got[0]!.body, got[0]!.headers as Record<string, string>);
    expect(event).toMatchObject({ type: 'ai_run.succeeded', data: { id: runId, status: 'SUCCEEDED', companyId } });
    expect(got[0]!.headers['webhook-id']).toBe(d.eventId);

    const list = (await stack.app.inject({ method: 'GET', url: '/webhooks/deliveries?limit=100', headers: alice.auth })).json();
    expect(list.items.map((i: { id: string }) => i.id)).toContain(d.id);
    // Bob (an OWNER of the same company) does not see Alice's per-request delivery.
    const bobs = (await stack.app.inject({ method: 'GET', url: '/webhooks/deliveries?limit=100', headers: bob.auth })).json();
    expect(bobs.items.map((i: { id: string }) => i.id)).not.toContain(d.id);
    expect((await stack.app.inject({ method: 'GET', url: `/webhooks/deliveries/${d.id}`, headers: bob.auth })).statusCode).toBe(404);
    expect((await stack.app.inject({ method: 'POST', url: `/webhooks/deliveries/${d.id}/redeliver`, headers: bob.auth })).statusCode).toBe(404);

    // Alice redelivers the same event to the same URL.
    const re = await stack.app.inject({ method: 'POST', url: `/webhooks/deliveries/${d.id}/redeliver`, headers: alice.auth });
    expect(re.statusCode).toBe(202);
    expect(re.json()).toMatchObject({ endpointId: null, requestUrl: `${base}/run`, eventId: d.eventId, redeliveryOf: d.id });
  });

  it('an answered request replays even when its webhook could not be created now (no signing secret)', async () => {
    const gina = await stack.newUser();
    await setMember(stack.db, companyId, gina.userId, 'OWNER');
    await signingSecret(gina);
    const key = randomUUID();
    const first = await createRun(gina, key, { webhook: `${base}/gina` });
    expect(first.statusCode).toBe(202);
    await stack.db.webhookSigningSecret.delete({ where: { userId: gina.userId } });
    const again = await createRun(gina, key, { webhook: `${base}/gina` });
    expect(again.statusCode).toBe(202);
    expect(again.json().aiRunId).toBe(first.json().aiRunId);
    // A new key still needs the secret.
    expect((await createRun(gina, randomUUID(), { webhook: `${base}/gina` })).statusCode).toBe(409);
  });

  it('a run without a webhook writes no per-request delivery', async () => {
    const res = await createRun(alice, randomUUID());
    const runId = res.json().aiRunId as string;
    await stack.db.$executeRaw`UPDATE ai_runs SET status = 'FAILED' WHERE id = ${runId}::uuid`;
    expect(await stack.db.webhookDelivery.count({ where: { targetId: { not: null }, payload: { path: ['data', 'id'], equals: runId } } })).toBe(0);
  });
});

describe('a requester who left the company', () => {
  /** The delivery `id` once it is final, as its owner reads it (with its attempts). */
  async function finished(user: User, id: string) {
    return pollUntil(
      async () => (await stack.app.inject({ method: 'GET', url: `/webhooks/deliveries/${id}`, headers: user.auth })).json(),
      (v: { status: string }) => v.status === 'SUCCEEDED' || v.status === 'FAILED',
      { describe: `delivery ${id} to finish`, timeoutMs: 90_000 },
    );
  }

  it('gets no POST for their run: FAILED with the reason, not retried; a member still gets theirs, the company endpoint too', async () => {
    const company = await ensureCompany(stack.db, `co-${randomUUID()}`);
    const [leaver, stayer] = [await stack.newUser(), await stack.newUser()];
    await setMember(stack.db, company, leaver.userId, 'OWNER');
    await setMember(stack.db, company, stayer.userId, 'HR_MANAGER');
    await signingSecret(leaver);
    const stayerSecret = await signingSecret(stayer);
    // The leaver also registered the company's endpoint: it is the company's, and stays.
    const endpoint = await stack.app.inject({ method: 'POST', url: '/webhooks/endpoints', headers: leaver.auth, payload: { url: `${base}/company`, companyId: company } });
    expect(endpoint.statusCode).toBe(201);
    const left = await createRun(leaver, randomUUID(), { companyId: company, webhook: `${base}/left` });
    const stayed = await createRun(stayer, randomUUID(), { companyId: company, webhook: `${base}/stayed` });
    expect([left.statusCode, stayed.statusCode]).toEqual([202, 202]);
    const [leftRun, stayedRun] = [left.json().aiRunId as string, stayed.json().aiRunId as string];

    expect(await removeMember(stack.db, company, leaver.userId)).toBe(true);
    await stack.db.$executeRaw`UPDATE ai_runs SET status = 'SUCCEEDED' WHERE id IN (${leftRun}::uuid, ${stayedRun}::uuid)`;
    const [dl, ds] = [await requestDeliveryOf(leftRun), await requestDeliveryOf(stayedRun)];
    expect([dl.companyId, ds.companyId]).toEqual([company, company]);
    const de = await pollUntil(
      () => stack.db.webhookDelivery.findFirst({ where: { endpointId: endpoint.json().id as string, payload: { path: ['data', 'id'], equals: leftRun } } }),
      (d) => d !== null,
      { describe: `the company endpoint's delivery of ${leftRun}` },
    );
    await relay();

    const reason = `not sent: the user who named this webhook is no longer a member of company ${company}`;
    expect(await finished(leaver, dl.id)).toMatchObject({
      status: 'FAILED', attemptCount: 1, lastError: reason, requestUrl: `${base}/left`,
      attempts: [{ number: 1, statusCode: null, durationMs: 0, error: reason }],
    });
    // Final: the delivery's workflow ended after that one attempt (no retry is scheduled).
    expect(await stack.client.workflow.getHandle(webhookDeliveryWorkflowId(dl.id)).result()).toBe('gone');
    expect(await finished(stayer, ds.id)).toMatchObject({ status: 'SUCCEEDED', attemptCount: 1 });
    const got = rx.received.filter((r) => r.path === '/stayed' && r.body.includes(stayedRun));
    expect(got).toHaveLength(1);
    expect(new Webhook(stayerSecret).verify(got[0]!.body, got[0]!.headers as Record<string, string>)).toMatchObject({ data: { id: stayedRun, companyId: company } });
    expect(await stack.client.workflow.getHandle(webhookDeliveryWorkflowId(de.id)).result()).toBe('succeeded');
    expect(rx.received.filter((r) => r.path === '/company' && r.body.includes(leftRun))).toHaveLength(1);

    // A redelivery is checked the same way; once a member again (any role), the requester gets the event.
    const again = await stack.app.inject({ method: 'POST', url: `/webhooks/deliveries/${dl.id}/redeliver`, headers: leaver.auth });
    expect(again.statusCode).toBe(202);
    await relay();
    expect(await finished(leaver, again.json().id as string)).toMatchObject({ status: 'FAILED', lastError: reason });
    await setMember(stack.db, company, leaver.userId, 'VIEWER');
    const back = await stack.app.inject({ method: 'POST', url: `/webhooks/deliveries/${dl.id}/redeliver`, headers: leaver.auth });
    expect(back.statusCode).toBe(202);
    await relay();
    expect(await finished(leaver, back.json().id as string)).toMatchObject({ status: 'SUCCEEDED' });
    const leftPosts = rx.received.filter((r) => r.path === '/left');
    expect(leftPosts).toHaveLength(1);
    expect(leftPosts[0]!.headers['webhook-id']).toBe(dl.eventId);
  });
});
