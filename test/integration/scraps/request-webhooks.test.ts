/**
 * Per-request completion webhooks of the scrap family's creates on the real stack (SAN-7, SAN-9,
 * SAN-11, SAN-12): `POST /scraps` keeps the request's `webhook` for each job its answer names that
 * is not terminal yet (both jobs of a new scrap; the active jobs a repeated submission lands on, one
 * target per request), `POST /til` for its TIL_GENERATION job, `POST /recall-quizzes` for the job of
 * its answer (also the active one a repeat lands on), `POST /github-star-recommendations` for its
 * new job (a 409 DUPLICATE_RESOURCE keeps none), `POST /til/{summaryId}/github-commits` (SAN-10)
 * for its TIL_GITHUB_COMMIT job; each terminal job's event reaches each URL,
 * signed with the caller's signing secret and verified with the reference `standardwebhooks`
 * implementation on a local receiver. A repeat naming only finished jobs keeps no target; a refused
 * URL (400) or a missing signing secret (409) writes nothing, and a create undone because Temporal
 * is unavailable (503, an API whose client points where nothing listens) keeps no target. A repeat
 * racing the job's terminal transition (the job row locked by the other transaction first, or the
 * repeat's lock taken first) ends with every kept target delivered. Each test starts or stops the
 * `ai` (and `github`) worker it needs, so the jobs' states are decided by the test, not by timing.
 * Nothing measures time: every wait polls for a condition with generous bounds.
 */
import { randomUUID } from 'node:crypto';
import { Connection } from '@temporalio/client';
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { Webhook } from 'standardwebhooks';
import { buildApp } from '../../../src/api/app';
import { temporalClient } from '../../../src/core/connections';
import { jobWorkflowId } from '../../../src/core/contracts';
import { transitionJob } from '../../../src/core/projection';
import { ASYNC_JOB_WEBHOOK_SOURCE, recordJobRequestWebhooks } from '../../../src/core/webhook-requests';
import { getFreePort } from '../../../src/dev/temporal-server';
import { createJobStarter, FAMILY_API } from '../../../src/families';
import { PG_INDEXES, PG_PARTIAL, SOURDOUGH } from '../../fixtures/texts';
import { startGithubEmulator, type GithubEmulator } from '../../support/github-emulator';
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
let github: GithubEmulator;

beforeAll(async () => {
  base = await rx.start();
  github = await startGithubEmulator();
  stack = await startStack({
    aiWorker: false,
    aiRunsWorker: false,
    githubWorker: true,
    env: {
      GITHUB_API_URL: github.url,
      WEBHOOK_ALLOW_PRIVATE_URLS: 'true', WEBHOOK_REQUEST_TIMEOUT_MS: '1000', WEBHOOK_RETRY_INITIAL_SECONDS: '0.2', WEBHOOK_RETRY_MAX_INTERVAL_SECONDS: '0.5',
    },
  });
});

afterAll(async () => {
  await down?.close();
  await deadConnection?.close();
  await stack?.stop();
  await github?.close();
  await rx.stop();
});

let githubUsers = 0;
/** Links a GitHub account of the emulator (two starred repositories) to `user`. */
async function linkGithub(user: User): Promise<void> {
  githubUsers += 1;
  const token = github.addUser(`hooked${githubUsers}`);
  github.addRepo('dbtools', `pg-index-advisor-${githubUsers}`, { description: 'Finds missing B-tree indexes in PostgreSQL', topics: ['postgresql'], stars: 42 });
  github.addRepo('kitchen', `sourdough-${githubUsers}`, { description: 'Sourdough bread recipes', topics: ['baking'], stars: 7 });
  github.addStarred(token, [`dbtools/pg-index-advisor-${githubUsers}`, `kitchen/sourdough-${githubUsers}`]);
  const res = await stack.app.inject({ method: 'PUT', url: '/github/account', headers: user.auth, payload: { accessToken: token } });
  expect(res.statusCode).toBe(200);
}

function postStars(user: User, payload?: Record<string, unknown>) {
  return stack.app.inject({ method: 'POST', url: '/github-star-recommendations', headers: user.auth, ...(payload ? { payload } : {}) });
}

function postQuiz(user: User, targetDate: string, extra: Record<string, unknown> = {}) {
  return stack.app.inject({ method: 'POST', url: '/recall-quizzes', headers: user.auth, payload: { targetDate, ...extra } });
}

/** The per-request targets of job `jobId` for which the terminal-status trigger wrote no delivery. */
async function undeliveredTargetsOf(jobId: string): Promise<string[]> {
  const rows = await stack.db.webhookRequestTarget.findMany({
    where: { source: ASYNC_JOB_WEBHOOK_SOURCE, resourceId: jobId, deliveries: { none: {} } },
    select: { url: true },
  });
  return rows.map((r) => r.url);
}

/** Waits until some other backend waits for a lock held by backend `pid`. */
async function blockedBy(pid: number): Promise<void> {
  await pollUntil(
    () => stack.db.$queryRaw<{ n: number }[]>`SELECT count(*)::int AS n FROM pg_stat_activity WHERE ${pid}::int = ANY(pg_blocking_pids(pid))`,
    (rows) => (rows[0]?.n ?? 0) > 0,
    { describe: `a backend waiting for a lock of backend ${pid}` },
  );
}

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

describe('POST /github-star-recommendations with a webhook', () => {
  it('the new job delivers its terminal event; a repeat answered 409 keeps no target; the body stays optional', async () => {
    await stack.startAiWorker();
    await stack.stopGithubWorker(); // the job stays PENDING until the worker runs
    const gina = await stack.newUser();
    await linkGithub(gina);
    const secret = await signingSecret(gina);
    const first = await postStars(gina, { webhook: `${base}/stars` });
    expect(first.statusCode).toBe(202);
    const { jobId, targetId } = first.json() as { jobId: string; targetId: string };
    expect(targetId).toBe(gina.userId);
    const repeat = await postStars(gina, { webhook: `${base}/stars-repeat` });
    expect(repeat.statusCode).toBe(409);
    expect(repeat.json().code).toBe('DUPLICATE_RESOURCE');
    expect(repeat.headers.location).toBe(`/async-jobs/${jobId}`);
    expect((await postStars(gina)).statusCode).toBe(409);
    expect(await targetUrlsOf(jobId)).toEqual([`${base}/stars`]);

    await stack.startGithubWorker();
    const done = await waitForJob(stack, jobId, gina.auth);
    expect(['COMPLETED', 'FAILED']).toContain(done.status);
    const deliveries = await finishedDeliveries(gina.userId, 1);
    expect(deliveries[0]).toMatchObject({ status: 'SUCCEEDED', endpointId: null, eventType: `async_job.${done.status.toLowerCase()}` });
    const events = verifiedAt('/stars', jobId, secret);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ type: `async_job.${done.status.toLowerCase()}`, data: { id: jobId, jobType: 'GITHUB_STAR_RECOMMENDATION', targetId: gina.userId } });
    expect(rx.received.filter((r) => r.path === '/stars-repeat')).toHaveLength(0);
    // Without a body, as before the field existed.
    const plain = await postStars(gina);
    expect(plain.statusCode).toBe(202);
    await waitForJob(stack, (plain.json() as { jobId: string }).jobId, gina.auth);
  });
});

describe('POST /til/{summaryId}/github-commits with a webhook', () => {
  it('refusals write nothing; the TIL_GITHUB_COMMIT job delivers its terminal event; the body stays optional', async () => {
    await stack.startGithubWorker();
    const ivan = await stack.newUser();
    githubUsers += 1;
    const login = `committer${githubUsers}`;
    const token = github.addUser(login);
    github.addRepo(login, 'til');
    expect((await stack.app.inject({ method: 'PUT', url: '/github/account', headers: ivan.auth, payload: { accessToken: token } })).statusCode).toBe(200);
    expect((await stack.app.inject({ method: 'PUT', url: '/github/repository', headers: ivan.auth, payload: { owner: login, name: 'til' } })).statusCode).toBe(200);
    const summaryOf = async (date: string, title: string) =>
      (await stack.db.dailySummary.create({
        data: { userId: ivan.userId, targetDate: new Date(`${date}T00:00:00Z`), title, tilMarkdown: `# ${title}\n\n${randomUUID()}\n`, generatedAt: new Date() },
      })).id;
    const summaryId = await summaryOf('2026-03-20', 'Hooked commit');
    const postCommit = (webhook?: string, id = summaryId) =>
      stack.app.inject({ method: 'POST', url: `/til/${id}/github-commits`, headers: ivan.auth, ...(webhook === undefined ? {} : { payload: { webhook } }) });
    const nothingWritten = async () => {
      expect(await stack.db.tilGithubCommit.count({ where: { userId: ivan.userId } })).toBe(0);
      expect(await stack.db.asyncJob.count({ where: { userId: ivan.userId } })).toBe(0);
      expect(await stack.db.webhookRequestTarget.count({ where: { userId: ivan.userId } })).toBe(0);
    };

    const noSecret = await postCommit(`${base}/commit`);
    expect([noSecret.statusCode, noSecret.json().code]).toEqual([409, 'WEBHOOK_SIGNING_SECRET_MISSING']);
    const secret = await signingSecret(ivan);
    for (const webhook of ['http://u:p@127.0.0.1/x', 'ftp://127.0.0.1/x', 'nope']) {
      const res = await postCommit(webhook);
      expect(res.statusCode).toBe(400);
      expect(res.headers['content-type']).toMatch(/application\/problem\+json/);
      expect(res.json().code).toBe('WEBHOOK_URL_REFUSED');
    }
    await nothingWritten();

    const res = await postCommit(`${base}/commit`);
    expect(res.statusCode).toBe(202);
    const { jobId, commitId } = res.json() as { jobId: string; commitId: string };
    expect(await targetUrlsOf(jobId)).toEqual([`${base}/commit`]);
    expect(await waitForJob(stack, jobId, ivan.auth)).toMatchObject({ status: 'COMPLETED' });
    const deliveries = await finishedDeliveries(ivan.userId, 1);
    expect(deliveries[0]).toMatchObject({ status: 'SUCCEEDED', endpointId: null, eventType: 'async_job.completed' });
    const events = verifiedAt('/commit', jobId, secret);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ type: 'async_job.completed', data: { id: jobId, status: 'COMPLETED', jobType: 'TIL_GITHUB_COMMIT', targetId: commitId } });
    // Without a body, as before the field existed.
    const plain = await postCommit(undefined, await summaryOf('2026-03-21', 'Plain commit'));
    expect(plain.statusCode).toBe(202);
    expect(await targetUrlsOf((plain.json() as { jobId: string }).jobId)).toEqual([]);
  });
});

describe('POST /recall-quizzes with a webhook', () => {
  it('the job delivers its terminal event; a repeat landing on the active job gets its own delivery', async () => {
    await stack.startAiWorker();
    const hana = await stack.newUser();
    const secret = await signingSecret(hana);
    await addCard(stack, hana, `${PG_PARTIAL}\n\n${randomUUID()}`, '2026-03-15T10:00:00Z');
    await stack.stopAiWorker(); // the quiz job stays active until the worker runs
    const first = await postQuiz(hana, '2026-03-15', { webhook: `${base}/quiz` });
    expect(first.statusCode).toBe(202);
    const ids = first.json() as { generationId: string; jobId: string };
    const repeat = await postQuiz(hana, '2026-03-15', { webhook: `${base}/quiz-repeat` });
    expect(repeat.statusCode).toBe(202);
    expect(repeat.json()).toMatchObject(ids);
    expect(await targetUrlsOf(ids.jobId)).toEqual([`${base}/quiz`, `${base}/quiz-repeat`]);

    await stack.startAiWorker();
    expect(await waitForJob(stack, ids.jobId, hana.auth)).toMatchObject({ status: 'COMPLETED' });
    const deliveries = await finishedDeliveries(hana.userId, 2);
    expect(deliveries.map((d) => [d.status, d.endpointId, d.eventType])).toEqual(Array(2).fill(['SUCCEEDED', null, 'async_job.completed']));
    expect(new Set(deliveries.map((d) => d.eventId)).size).toBe(1);
    for (const path of ['/quiz', '/quiz-repeat']) {
      const events = verifiedAt(path, ids.jobId, secret);
      expect(events).toHaveLength(1);
      expect(events[0]).toMatchObject({ type: 'async_job.completed', data: { id: ids.jobId, status: 'COMPLETED', jobType: 'RECALL_QUIZ_GENERATION', targetId: ids.generationId } });
    }
  });
});

describe('a repeat racing the terminal transition', () => {
  /** A PROCESSING quiz job of a new user with a signing secret (its workflow waits: the ai worker is stopped). */
  async function activeQuizJob(date: string) {
    await stack.startAiWorker();
    const user = await stack.newUser();
    await signingSecret(user);
    await addCard(stack, user, `${PG_INDEXES}\n\n${randomUUID()}`, `${date}T10:00:00Z`);
    await stack.stopAiWorker();
    const res = await postQuiz(user, date);
    expect(res.statusCode).toBe(202);
    const ids = res.json() as { generationId: string; jobId: string };
    // The test decides the job's terminal transition; its workflow would only repeat it.
    await stack.client.workflow.getHandle(jobWorkflowId('RECALL_QUIZ_GENERATION', ids.generationId)).terminate('the test completes the job itself');
    expect(await transitionJob(stack.db, ids.jobId, 'PROCESSING')).toMatchObject({ changed: true });
    return { user, ...ids };
  }

  it('the terminal write locks the job first: the repeat is answered with the finished job and keeps no undelivered target', async () => {
    const { user, jobId, generationId } = await activeQuizJob('2026-03-16');
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let pid!: number;
    let moved!: boolean;
    let committed!: Promise<unknown>;
    await new Promise<void>((resolve, reject) => {
      committed = stack.db.$transaction(async (tx) => {
        pid = (await tx.$queryRaw<{ pid: number }[]>`SELECT pg_backend_pid() AS pid`)[0]!.pid;
        moved = (await transitionJob(tx, jobId, 'COMPLETED')).changed;
        resolve();
        await released;
      }, { timeout: 60_000 });
      committed.catch(reject);
    });
    expect(moved).toBe(true);
    const repeat = postQuiz(user, '2026-03-16', { webhook: `${base}/race-late` });
    await blockedBy(pid);
    release();
    await committed;
    const res = await repeat;
    expect(res.statusCode).toBe(202);
    expect(res.json()).toMatchObject({ generationId, jobId });
    expect((await stack.db.asyncJob.findUniqueOrThrow({ where: { jobId } })).status).toBe('COMPLETED');
    expect(await undeliveredTargetsOf(jobId)).toEqual([]);
    expect(await targetUrlsOf(jobId)).toEqual([]);
  });

  it('the repeat locks the job first: the terminal write waits for it and its trigger delivers to the target', async () => {
    const { user, jobId } = await activeQuizJob('2026-03-17');
    const secret = await signingSecret(user);
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let pid!: number;
    let attached!: string[];
    const attach = new Promise<void>((resolve, reject) => {
      stack.db.$transaction(async (tx) => {
        pid = (await tx.$queryRaw<{ pid: number }[]>`SELECT pg_backend_pid() AS pid`)[0]!.pid;
        attached = await recordJobRequestWebhooks(tx, { userId: user.userId, url: `${base}/race-early` }, [jobId]);
        resolve();
        await released;
      }, { timeout: 60_000 }).catch(reject);
    });
    await attach;
    expect(attached).toHaveLength(1);
    const terminal = transitionJob(stack.db, jobId, 'COMPLETED');
    await blockedBy(pid);
    release();
    expect(await terminal).toMatchObject({ changed: true });
    expect(await undeliveredTargetsOf(jobId)).toEqual([]);
    expect(await targetUrlsOf(jobId)).toEqual([`${base}/race-early`]);
    await finishedDeliveries(user.userId, 1);
    const events = verifiedAt('/race-early', jobId, secret);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ type: 'async_job.completed', data: { id: jobId, jobType: 'RECALL_QUIZ_GENERATION' } });
  });
});

describe('refusals write nothing', () => {
  async function nothingWritten(user: User) {
    expect(await stack.db.scrap.count({ where: { userId: user.userId } })).toBe(0);
    expect(await stack.db.asyncJob.count({ where: { userId: user.userId } })).toBe(0);
    expect(await stack.db.dailySummary.count({ where: { userId: user.userId } })).toBe(0);
    expect(await stack.db.recallQuizGeneration.count({ where: { userId: user.userId } })).toBe(0);
    expect(await stack.db.webhookRequestTarget.count({ where: { userId: user.userId } })).toBe(0);
  }

  /** One create of each scrap-family route naming `webhook`. */
  async function createsNaming(user: User, webhook: string) {
    return [
      await submit(user, `${PG_INDEXES}\n\n${randomUUID()}`, { webhook }),
      await postTil(user, '2026-03-14', { webhook }),
      await postQuiz(user, '2026-03-14', { webhook }),
      await postStars(user, { webhook }),
    ];
  }

  it('a refused URL → 400 WEBHOOK_URL_REFUSED (POST /scraps, /til, /recall-quizzes, /github-star-recommendations)', async () => {
    const dave = await stack.newUser();
    await signingSecret(dave);
    await linkGithub(dave);
    for (const webhook of ['http://u:p@127.0.0.1/x', 'ftp://127.0.0.1/x', 'nope']) {
      for (const res of await createsNaming(dave, webhook)) {
        expect(res.statusCode).toBe(400);
        expect(res.headers['content-type']).toMatch(/application\/problem\+json/);
        expect(res.json().code).toBe('WEBHOOK_URL_REFUSED');
      }
    }
    await nothingWritten(dave);
  });

  it('no signing secret → 409 WEBHOOK_SIGNING_SECRET_MISSING (the four creates); the same scrap without a webhook is new', async () => {
    const erin = await stack.newUser();
    await linkGithub(erin);
    const content = `${PG_INDEXES}\n\n${randomUUID()}`;
    for (const res of [await submit(erin, content, { webhook: `${base}/nosecret` }), ...(await createsNaming(erin, `${base}/nosecret`)).slice(1)]) {
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
