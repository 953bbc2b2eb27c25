/**
 * On the real stack (PostgreSQL 15, Temporal dev server, in-process workers): the hot
 * read path of `GET /async-jobs/{id}` (ETag, conditional GET, long polling with `Prefer: wait`
 * driven by LISTEN/NOTIFY, the bounded waiters, a client's disconnect, the LISTEN connection's
 * reconnect) and the bearer-token cache's revocation bound.
 *
 * Waits that must end on a change use `wait=120` against a jest timeout of 60 s: a long poll that
 * missed its notification would still be waiting when the test fails. Nothing measures time.
 */
import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { buildApp } from '../../../src/api/app';
import { AsyncJobSchema } from '../../../src/api/schemas';
import { transitionJob } from '../../../src/core/projection';
import { JOB_CHANGES_APPLICATION_NAME } from '../../../src/db/job-changes';
import { createJobStarter, FAMILY_API } from '../../../src/families';
import { createLogger } from '../../../src/log';
import { pollUntil } from '../../support/poll';
import { captureJsonLogs } from '../../support/log-capture';
import { startStack, type Stack } from '../../support/stack';

const TOKEN_TTL_MS = 300;
const { stream: logStream, lines: logLines } = captureJsonLogs();

let stack: Stack;
let alice: Awaited<ReturnType<Stack['newUser']>>;
let bob: Awaited<ReturnType<Stack['newUser']>>;

beforeAll(async () => {
  stack = await startStack({
    logger: createLogger('info', 'api', logStream),
    // Waits up to 120 s need a longer idle-socket timeout than the default 60 s.
    env: { AUTH_TOKEN_CACHE_TTL_MS: String(TOKEN_TTL_MS), JOB_WAIT_MAX_SECONDS: '120', API_CONNECTION_TIMEOUT_MS: '180000' },
  });
  alice = await stack.newUser('alice');
  bob = await stack.newUser('bob');
});
afterAll(async () => stack?.stop());

/** A PENDING job of `userId` with no workflow: nothing moves it unless the test does. */
async function idleJob(userId = alice.userId): Promise<string> {
  const job = await stack.db.asyncJob.create({ data: { jobType: 'SCRAP_REFINE', targetId: randomUUID(), userId, status: 'PENDING' } });
  return job.jobId;
}

function poll(jobId: string, headers: Record<string, string>, app: FastifyInstance = stack.app) {
  return app.inject({ method: 'GET', url: `/async-jobs/${jobId}`, headers });
}

/** The `job_long_poll_waiters` gauge of this process. */
async function waiters(): Promise<number> {
  const text = (await stack.app.inject({ method: 'GET', url: '/metrics' })).body;
  const m = /^job_long_poll_waiters (\d+)$/m.exec(text);
  if (!m) throw new Error('job_long_poll_waiters missing from /metrics');
  return Number(m[1]);
}

const waitersAre = (n: number) => pollUntil(waiters, (w) => w === n, { describe: `${n} long polls waiting` });

it('reports at start-up that long polls are driven by LISTEN/NOTIFY on a real PostgreSQL', () => {
  expect(logLines).toContainEqual(expect.objectContaining({ msg: 'job change feed: LISTEN/NOTIFY', mode: 'listen' }));
});

describe('ETag and conditional GET', () => {
  it('every answer carries an ETag; If-None-Match with it is a 304 without a body; a stale one is a 200', async () => {
    const jobId = await idleJob();
    const first = await poll(jobId, alice.auth);
    expect(first.statusCode).toBe(200);
    const etag = first.headers.etag as string;
    expect(etag).toMatch(/^"PENDING\.[0-9a-z]+"$/);
    expect(first.json()).toMatchObject({ jobId, status: 'PENDING' });

    const same = await poll(jobId, { ...alice.auth, 'if-none-match': etag });
    expect(same.statusCode).toBe(304);
    expect(same.body).toBe('');
    expect(same.headers.etag).toBe(etag);
    expect(same.headers['preference-applied']).toBeUndefined();

    await transitionJob(stack.db, jobId, 'PROCESSING');
    const changed = await poll(jobId, { ...alice.auth, 'if-none-match': etag });
    expect(changed.statusCode).toBe(200);
    expect(changed.json().status).toBe('PROCESSING');
    expect(changed.headers.etag).not.toBe(etag);
    expect(changed.headers.etag).toMatch(/^"PROCESSING\./);
  });
});

describe('concurrent polls (job reads of one turn share a statement, src/db/read-batcher.ts)', () => {
  it("each poll gets its own job, exactly the SAN-5 fields; another user's job stays 404 in the same burst", async () => {
    const mine = await Promise.all([idleJob(), idleJob(), idleJob()]);
    const bobs = await idleJob(bob.userId);
    await transitionJob(stack.db, mine[1]!, 'PROCESSING');
    // An upper-case spelling of a UUID names the same job.
    const urls = [...mine, mine[2]!.toUpperCase(), bobs];
    const answers = await Promise.all(urls.map((id) => poll(id, alice.auth)));
    expect(answers.map((r) => r.statusCode)).toEqual([200, 200, 200, 200, 404]);
    const exact = z.strictObject(AsyncJobSchema.shape);
    const bodies = answers.slice(0, 4).map((r) => exact.parse(r.json()));
    expect(bodies.map((b) => b.jobId)).toEqual([...mine, mine[2]]);
    expect(bodies.map((b) => b.status)).toEqual(['PENDING', 'PROCESSING', 'PENDING', 'PENDING']);
    expect(answers[4]!.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect((await poll(bobs, bob.auth)).statusCode).toBe(200);
  });
});

describe('long polling (Prefer: wait)', () => {
  it('answers 304 at the end of the wait when nothing changed, saying the wait was applied', async () => {
    const jobId = await idleJob();
    const etag = (await poll(jobId, alice.auth)).headers.etag as string;
    const res = await poll(jobId, { ...alice.auth, 'if-none-match': etag, prefer: 'wait=1' });
    expect(res.statusCode).toBe(304);
    expect(res.headers['preference-applied']).toBe('wait=1');
    expect(res.headers.etag).toBe(etag);
    expect(await waiters()).toBe(0);
  });

  it('answers at once when If-None-Match is stale or absent: the wait is not applied', async () => {
    const jobId = await idleJob();
    const stale = await poll(jobId, { ...alice.auth, 'if-none-match': '"PENDING.0"', prefer: 'wait=120' });
    expect(stale.statusCode).toBe(200);
    expect(stale.json().status).toBe('PENDING');
    expect(stale.headers['preference-applied']).toBeUndefined();
    const none = await poll(jobId, { ...alice.auth, prefer: 'wait=120' });
    expect(none.statusCode).toBe(200);
    expect(none.headers['preference-applied']).toBeUndefined();
  });

  it('a waiting poll answers 200 with the new state as soon as the job changes (capped wait in Preference-Applied)', async () => {
    const jobId = await idleJob();
    const etag = (await poll(jobId, alice.auth)).headers.etag as string;
    const waiting = poll(jobId, { ...alice.auth, 'if-none-match': etag, prefer: 'wait=600' });
    await waitersAre(1);
    await transitionJob(stack.db, jobId, 'PROCESSING');
    const res = await waiting;
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ jobId, status: 'PROCESSING' });
    expect(res.headers['preference-applied']).toBe('wait=120'); // 600 asked, JOB_WAIT_MAX_SECONDS granted
    expect(await waiters()).toBe(0);
  });

  it('a client following the ETags sees a real job through to its terminal status, each 200 a new state', async () => {
    const submitted = await stack.app.inject({
      method: 'POST',
      url: '/scraps',
      headers: alice.auth,
      payload: { content: `# Long polling\n\nA request waits until the state it has seen changes. ${randomUUID()}` },
    });
    expect(submitted.statusCode).toBe(202);
    const jobId = submitted.json().analysisJobId as string;
    let etag: string | undefined;
    let status = '';
    const seen: string[] = [];
    for (let i = 0; i < 10 && status !== 'COMPLETED' && status !== 'FAILED'; i++) {
      const res = await poll(jobId, { ...alice.auth, ...(etag ? { 'if-none-match': etag, prefer: 'wait=120' } : {}) });
      expect([200, 304]).toContain(res.statusCode);
      if (res.statusCode === 304) continue;
      expect(res.headers.etag).not.toBe(etag); // a 200 is never the state the client already had
      etag = res.headers.etag as string;
      status = res.json().status as string;
      seen.push(status);
    }
    expect(status).toBe('COMPLETED');
    expect(new Set(seen).size).toBe(seen.length);
  });

  it("another user's job is 404 whatever the headers, and nobody waits for it", async () => {
    const jobId = await idleJob(alice.userId);
    const etag = (await poll(jobId, alice.auth)).headers.etag as string;
    const res = await poll(jobId, { ...bob.auth, 'if-none-match': etag, prefer: 'wait=120' });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toMatchObject({ code: 'NOT_FOUND' });
    expect(res.headers.etag).toBeUndefined();
    expect(await waiters()).toBe(0);
  });

  it("a client's disconnect ends its wait", async () => {
    await stack.app.listen({ host: '127.0.0.1', port: 0 });
    const { port } = stack.app.server.address() as { port: number };
    const jobId = await idleJob();
    const etag = (await poll(jobId, alice.auth)).headers.etag as string;
    const abort = new AbortController();
    const request = fetch(`http://127.0.0.1:${port}/async-jobs/${jobId}`, {
      headers: { ...alice.auth, 'if-none-match': etag, prefer: 'wait=120' },
      signal: abort.signal,
    }).catch((err: unknown) => err);
    await waitersAre(1);
    abort.abort();
    expect(await request).toMatchObject({ name: 'AbortError' });
    await waitersAre(0);
  });

  it('holds at most JOB_WAIT_MAX_WAITERS waiting polls (503 with Retry-After beyond), and closing the app answers them at once', async () => {
    const small = await buildApp({
      ...FAMILY_API,
      config: { ...stack.config, api: { ...stack.config.api, jobWait: { ...stack.config.api.jobWait, maxWaiters: 1 } } },
      db: stack.db,
      starter: createJobStarter(stack.client, stack.queues),
      logger: createLogger('error', 'api'),
    });
    try {
      const jobId = await idleJob();
      const etag = (await poll(jobId, alice.auth, small)).headers.etag as string;
      const headers = { ...alice.auth, 'if-none-match': etag, prefer: 'wait=120' };
      const first = poll(jobId, headers, small);
      await waitersAre(1);
      const second = await poll(jobId, headers, small);
      expect(second.statusCode).toBe(503);
      expect(second.json()).toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
      expect(second.headers['retry-after']).toBe('1');
      const closing = small.close();
      const answered = await first; // not the 120 s: the app's preClose ends the wait
      expect(answered.statusCode).toBe(304);
      await closing;
      expect(await waiters()).toBe(0);
    } finally {
      await small.close();
    }
  });

  it('the LISTEN connection comes back after its backend is terminated, and long polls are woken again', async () => {
    const admin = new Client({ connectionString: stack.dbUrl });
    await admin.connect();
    try {
      const terminated = await admin.query<{ ok: boolean }>(
        'SELECT pg_terminate_backend(pid) AS ok FROM pg_stat_activity WHERE datname = current_database() AND application_name = $1',
        [JOB_CHANGES_APPLICATION_NAME],
      );
      expect(terminated.rows.map((r) => r.ok)).toEqual([true]);
      await pollUntil(
        () => logLines.filter((l) => l.msg === 'job change feed: LISTEN connection re-established').length,
        (n) => n >= 1,
        { describe: 'the LISTEN connection to be re-established' },
      );
      const jobId = await idleJob();
      const etag = (await poll(jobId, alice.auth)).headers.etag as string;
      const waiting = poll(jobId, { ...alice.auth, 'if-none-match': etag, prefer: 'wait=120' });
      await waitersAre(1);
      await transitionJob(stack.db, jobId, 'FAILED', 'given up by the test');
      const res = await waiting;
      expect(res.statusCode).toBe(200);
      expect(res.json()).toMatchObject({ status: 'FAILED', errorMessage: 'given up by the test' });
    } finally {
      await admin.end();
    }
  });
});

describe('bearer-token cache', () => {
  it(`a revoked token is refused within the cache TTL (${TOKEN_TTL_MS} ms) plus a margin`, async () => {
    const carol = await stack.newUser('carol');
    const jobId = await idleJob(carol.userId);
    expect((await poll(jobId, carol.auth)).statusCode).toBe(200); // cached now
    await stack.db.apiToken.updateMany({ where: { userId: carol.userId }, data: { revokedAt: new Date() } });
    const refused = await pollUntil(
      () => poll(jobId, carol.auth),
      (res) => res.statusCode === 401,
      { describe: 'the revoked token to be refused', timeoutMs: TOKEN_TTL_MS + 5_000 },
    );
    expect(refused.json()).toMatchObject({ code: 'UNAUTHORIZED' });
    expect(refused.headers['www-authenticate']).toBe('Bearer error="invalid_token"');
  });
});

it('the OpenAPI document describes Prefer, If-None-Match, the 304 and the ETag, Preference-Applied and Vary headers', async () => {
  const doc = (await stack.app.inject({ method: 'GET', url: '/openapi.json' })).json();
  const op = doc.paths['/async-jobs/{jobId}'].get;
  const headerParams = (op.parameters as { in: string; name: string }[]).filter((p) => p.in === 'header').map((p) => p.name);
  expect(headerParams.sort()).toEqual(['if-none-match', 'prefer']);
  expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(['200', '304', '404', '503']));
  expect(Object.keys(op.responses['200'].headers).sort()).toEqual(['ETag', 'Preference-Applied', 'Vary']);
  expect(Object.keys(op.responses['304'].headers).sort()).toEqual(['ETag', 'Preference-Applied', 'Vary']);
  expect(op.responses['304'].content).toBeUndefined();
});
