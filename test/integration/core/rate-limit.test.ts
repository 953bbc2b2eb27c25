/**
 * Per-client rate limits (src/api/rate-limit.ts) on the real stack, with small limits set through
 * the stack's env: one user throttled (429 problem+json, Retry-After, RateLimit headers) while
 * another is served in the same window; the company limit of the AI-run routes, which a non-member
 * cannot spend; failed auth counted per IP; exempt routes never counted; the OpenAPI 429; and the
 * PostgreSQL store shared by two apps on one database, whose concurrent hits of one key coalesce
 * into fewer statements with every hit still counted and answered with its own count.
 */
import { randomUUID } from 'node:crypto';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import type { PrismaClient } from '@prisma/client';
import pino from 'pino';
import { buildApp } from '../../../src/api/app';
import { createPrisma, pgPoolOf } from '../../../src/db/client';
import type { Pool } from 'pg';
import { coalescingWindowCounter, hitWindow, type WindowCount } from '../../../src/db/rate-limit-store';
import { createJobStarter, FAMILY_API } from '../../../src/families';
import { seedCompany } from '../../support/ai-runs-seed';
import { startStack, type Stack } from '../../support/stack';

const PER_USER = 6;
const PER_COMPANY = 4;
const PER_IP = 5;
const LIMITS = {
  RATE_LIMIT_PER_USER_PER_MINUTE: String(PER_USER),
  RATE_LIMIT_PER_COMPANY_PER_MINUTE: String(PER_COMPANY),
  RATE_LIMIT_PER_IP_PER_MINUTE: String(PER_IP),
};

/** The items of a RateLimit field: policy → remaining and reset seconds. */
function rateLimitOf(res: LightMyRequestResponse): Record<string, { r: number; t: number }> {
  const field = res.headers.ratelimit;
  if (typeof field !== 'string') return {};
  return Object.fromEntries(
    field.split(/,\s*/).map((item) => {
      const m = /^"(\w+)";r=(\d+);t=(\d+)$/.exec(item);
      if (!m) throw new Error(`not a RateLimit item: ${item}`);
      return [m[1], { r: Number(m[2]), t: Number(m[3]) }];
    }),
  );
}

function expectThrottled(res: LightMyRequestResponse, policy: string) {
  expect(res.statusCode).toBe(429);
  expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
  expect(res.json()).toMatchObject({ status: 429, code: 'RATE_LIMITED', type: 'urn:problem:rate-limited' });
  const retryAfter = Number(res.headers['retry-after']);
  expect(retryAfter).toBeGreaterThanOrEqual(0);
  expect(retryAfter).toBeLessThanOrEqual(60);
  expect(rateLimitOf(res)[policy]).toEqual({ r: 0, t: retryAfter });
  expect(String(res.headers['ratelimit-policy'])).toContain(`"${policy}";q=`);
}

describe('rate limits, memory store', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack({ aiWorker: false, aiRunsWorker: false, env: LIMITS });
  });
  afterAll(async () => stack?.stop());

  const getJob = (auth: object) => stack.app.inject({ method: 'GET', url: `/async-jobs/${randomUUID()}`, headers: { ...auth } });

  it('throttles one user over its limit (invalid requests counted) while another user is served in the same window', async () => {
    const a = await stack.newUser();
    const b = await stack.newUser();
    for (let i = 1; i <= PER_USER; i++) {
      // The first request fails its schema check (400): it counts like the others.
      const res = i === 1 ? await stack.app.inject({ method: 'GET', url: '/async-jobs/not-a-uuid', headers: a.auth }) : await getJob(a.auth);
      expect(res.statusCode).toBe(i === 1 ? 400 : 404);
      expect(res.headers['ratelimit-policy']).toBe(`"user";q=${PER_USER};w=60`);
      expect(rateLimitOf(res).user?.r).toBe(PER_USER - i);
    }
    expectThrottled(await getJob(a.auth), 'user');
    expectThrottled(await getJob(a.auth), 'user');
    for (let i = 1; i < PER_USER; i++) {
      const res = await getJob(b.auth);
      expect(res.statusCode).toBe(404);
      expect(rateLimitOf(res).user?.r).toBe(PER_USER - i);
    }
  });

  it('counts the AI-run routes per company too; a non-member naming the company spends none of it', async () => {
    const c = await seedCompany(stack, ['OWNER', 'HR_MANAGER', 'VIEWER']);
    const other = await seedCompany(stack, ['OWNER']);
    const outsider = await stack.newUser();
    const list = (auth: object, companyId: string) => stack.app.inject({ method: 'GET', url: `/api/v1/companies/${companyId}/ai-runs`, headers: { ...auth } });

    // The outsider names company c (path and body): answered 404, counted on its own user only.
    const named = await list(outsider.auth, c.companyId);
    expect(named.statusCode).toBe(404);
    expect(Object.keys(rateLimitOf(named))).toEqual(['user']);
    const posted = await stack.app.inject({
      method: 'POST',
      url: '/api/v1/ai-runs',
      headers: { ...outsider.auth, 'idempotency-key': randomUUID() },
      payload: { companyId: c.companyId, text: 'I need an employment certificate' },
    });
    expect(posted.statusCode).toBe(404);
    expect(Object.keys(rateLimitOf(posted))).toEqual(['user']);

    // Three members share the company's budget, each far below its own limit.
    const members = [c.members.OWNER, c.members.HR_MANAGER, c.members.VIEWER];
    for (let i = 1; i <= PER_COMPANY; i++) {
      const res = await list(members[i % 3]!.auth, c.companyId);
      expect(res.statusCode).toBe(200);
      expect(res.headers['ratelimit-policy']).toBe(`"user";q=${PER_USER};w=60, "company";q=${PER_COMPANY};w=60`);
      expect(rateLimitOf(res).company?.r).toBe(PER_COMPANY - i);
    }
    const over = await list(members[0]!.auth, c.companyId);
    expectThrottled(over, 'company');
    expect(rateLimitOf(over).user?.r).toBeGreaterThan(0);
    // Another company is served in the same window.
    const elsewhere = await list(other.members.OWNER.auth, other.companyId);
    expect(elsewhere.statusCode).toBe(200);
    expect(rateLimitOf(elsewhere).company?.r).toBe(PER_COMPANY - 1);
    // The members' other routes still answer (the company limit is the AI-run routes').
    expect((await getJob(members[1]!.auth)).statusCode).toBe(404);
  });

  it('counts failed bearer auth per IP address (401 until the limit, then 429); valid tokens are not held back', async () => {
    const bad = { authorization: `Bearer not-a-token-${randomUUID()}` };
    for (let i = 1; i <= PER_IP; i++) {
      const res = await getJob(bad);
      expect(res.statusCode).toBe(401);
      expect(rateLimitOf(res).ip?.r).toBe(PER_IP - i);
    }
    expectThrottled(await getJob(bad), 'ip');
    expectThrottled(await getJob({}), 'ip');
    const user = await stack.newUser();
    const res = await getJob(user.auth);
    expect(res.statusCode).toBe(404);
    expect(Object.keys(rateLimitOf(res))).toEqual(['user']);
  });

  it('never counts health, metrics, docs nor the signed callback', async () => {
    const urls = ['/health', '/ready', '/metrics', '/openapi.json', '/docs/'];
    for (let i = 0; i < PER_IP + 3; i++) {
      for (const url of urls) {
        const res = await stack.app.inject({ method: 'GET', url });
        expect({ url, status: res.statusCode < 429 || res.statusCode === 503 }).toEqual({ url, status: true });
        expect(res.headers.ratelimit).toBeUndefined();
      }
      const callback = await stack.app.inject({ method: 'POST', url: '/internal/scrape-results', payload: {} });
      expect(callback.statusCode).toBe(401);
      expect(callback.headers.ratelimit).toBeUndefined();
    }
  });

  it('declares 429 with its headers on limited operations, not on exempt ones', async () => {
    const doc = (await stack.app.inject({ method: 'GET', url: '/openapi.json' })).json() as {
      paths: Record<string, Record<string, { responses: Record<string, { headers?: Record<string, unknown> }> }>>;
    };
    const limited = doc.paths['/async-jobs/{jobId}']!.get!.responses['429'];
    expect(Object.keys(limited?.headers ?? {}).sort()).toEqual(['RateLimit', 'RateLimit-Policy', 'Retry-After']);
    expect(doc.paths['/api/v1/ai-runs']!.post!.responses['429']).toBeDefined();
    expect(doc.paths['/health']!.get!.responses['429']).toBeUndefined();
    expect(doc.paths['/internal/scrape-results']!.post!.responses['429']).toBeUndefined();
  });
});

describe('rate limits, PostgreSQL store shared by two apps', () => {
  let stack: Stack;
  let second: FastifyInstance;
  let secondDb: PrismaClient;
  beforeAll(async () => {
    stack = await startStack({ aiWorker: false, aiRunsWorker: false, env: { ...LIMITS, RATE_LIMIT_STORE: 'postgres' } });
    secondDb = createPrisma(stack.dbUrl, { poolMax: 2 });
    second = await buildApp({ ...FAMILY_API, config: stack.config, db: secondDb, starter: createJobStarter(stack.client, stack.queues), temporal: stack.client, logger: pino({ level: 'error' }) });
    await second.ready();
  });
  afterAll(async () => {
    await second?.close();
    await secondDb?.$disconnect();
    await stack?.stop();
  });

  /** Waits until the database clock's current minute window has at least 20 s left (the burst stays in one window). */
  async function startOfRoomyWindow() {
    const [row] = await stack.db.$queryRaw<{ left: number }[]>`SELECT (60000 - (floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint % 60000))::int AS left`;
    if (row!.left < 20_000) await new Promise((r) => setTimeout(r, row!.left + 100));
  }

  it('one user counted across both apps: the limit is reached after the quota in all, not per app', async () => {
    const user = await stack.newUser();
    await startOfRoomyWindow();
    const apps = [stack.app, second];
    for (let i = 1; i <= PER_USER; i++) {
      const res = await apps[i % 2]!.inject({ method: 'GET', url: `/async-jobs/${randomUUID()}`, headers: user.auth });
      expect(res.statusCode).toBe(404);
      expect(rateLimitOf(res).user?.r).toBe(PER_USER - i);
    }
    expectThrottled(await apps[0]!.inject({ method: 'GET', url: `/async-jobs/${randomUUID()}`, headers: user.auth }), 'user');
    expectThrottled(await apps[1]!.inject({ method: 'GET', url: `/async-jobs/${randomUUID()}`, headers: user.auth }), 'user');
    const other = await stack.newUser();
    expect((await second.inject({ method: 'GET', url: `/async-jobs/${randomUUID()}`, headers: other.auth })).statusCode).toBe(404);
    const [row] = await stack.db.$queryRaw<{ hits: number }[]>`SELECT hits FROM rate_limit_counters WHERE key = ${`user:${user.userId}`}`;
    expect(row?.hits).toBe(PER_USER + 2);
  });

  it('concurrent hits of one key in one process coalesce: every hit counted once, each answered with its own count, fewer statements', async () => {
    const pool = pgPoolOf(stack.db)!;
    let statements = 0;
    const counting = { query: (...args: Parameters<Pool['query']>) => { statements++; return (pool.query as (...a: unknown[]) => unknown)(...args); } } as unknown as Pool;
    const counter = coalescingWindowCounter(counting);
    await startOfRoomyWindow();
    const key = `test:${randomUUID()}`;
    const other = `test:${randomUUID()}`;
    const hit = (k: string) => new Promise<WindowCount>((resolve, reject) => counter.hit(k, 60_000, (err, res) => (err ? reject(err) : resolve(res!))));
    const answers = await Promise.all([...Array.from({ length: 40 }, () => hit(key)), hit(other), hit(other)]);
    const counts = answers.slice(0, 40).map((a) => a.current).sort((a, b) => a - b);
    expect(counts).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
    expect(answers.slice(40).map((a) => a.current).sort()).toEqual([1, 2]);
    for (const a of answers) expect(a.ttl).toBeLessThanOrEqual(60_000);
    // Issued together: per key the first hit's statement, then one for all that waited on it.
    expect(statements).toBe(4);
    const rows = await stack.db.$queryRaw<{ key: string; hits: number }[]>`SELECT key, hits FROM rate_limit_counters WHERE key IN (${key}, ${other}) ORDER BY hits`;
    expect(rows.map((r) => [r.key, r.hits])).toEqual([[other, 2], [key, 40]]);
    // The next hit after the burst is counted on its own, after all of them.
    expect((await hit(key)).current).toBe(41);
  });

  it('a key counts within its window and starts again at 1 in the next one (fixed windows on the database clock)', async () => {
    const pool = pgPoolOf(stack.db)!;
    const key = `test:${randomUUID()}`;
    const windowMs = 2_000;
    let previous = await hitWindow(pool, key, windowMs);
    expect(previous.ttl).toBeLessThanOrEqual(windowMs);
    let restarted = false;
    for (let i = 0; i < 200 && !restarted; i++) {
      await new Promise((r) => setTimeout(r, 50));
      const now = await hitWindow(pool, key, windowMs);
      expect(now.ttl).toBeLessThanOrEqual(windowMs);
      if (now.current === 1) restarted = true;
      else expect(now.current).toBe(previous.current + 1);
      previous = now;
    }
    expect(restarted).toBe(true);
  });
});
