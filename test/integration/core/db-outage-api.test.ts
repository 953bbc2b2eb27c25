/**
 * A PostgreSQL outage in the middle of traffic: a dedicated real PostgreSQL 15 (not the shared one)
 * is stopped (fast shutdown: live sessions get 57P01, new connections are refused) while scraps are
 * being submitted, then started again. Every answer is 202 or 503 SERVICE_UNAVAILABLE with
 * Retry-After, never 500; nothing is half written; the API recovers by itself.
 */
import { createPrisma } from '../../../src/db/client';
import { startPostgres, type TestPostgres } from '../../support/postgres';
import { startStack, type Stack } from '../../support/stack';
import { pollUntil } from '../../support/poll';

let pg: TestPostgres;
let stack: Stack;
let user: Awaited<ReturnType<Stack['newUser']>>;

beforeAll(async () => {
  pg = await startPostgres();
  stack = await startStack({ pgAdminUrl: pg.adminUrl, aiWorker: false });
  user = await stack.newUser();
});
afterAll(async () => {
  await pg?.resume();
  await stack?.stop();
  await pg?.stop();
});

const submit = (content: string) => stack.app.inject({ method: 'POST', url: '/scraps', headers: user.auth, payload: { content } });

/** Polls `GET /ready` until it answers 200 (the pool has reconnected). */
async function waitUntilReady(): Promise<void> {
  await pollUntil(async () => (await stack.app.inject({ method: 'GET', url: '/ready' })).statusCode, (status) => status === 200, {
    describe: 'GET /ready to answer 200 after the outage', timeoutMs: 120_000, maxIntervalMs: 500,
  });
}

function expectUnavailable(res: Awaited<ReturnType<typeof submit>>, what: string) {
  expect([what, res.statusCode, res.json().code]).toEqual([what, 503, 'SERVICE_UNAVAILABLE']);
  expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
  expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
}

it('answers 503 with Retry-After during the outage, writes nothing partially, and recovers', async () => {
  const before = await submit(`before the outage ${Date.now()}`);
  expect(before.statusCode).toBe(202);

  // In flight while the server shuts down: each request either committed all of its rows or none.
  const racing = Array.from({ length: 30 }, (_, i) => submit(`racing the shutdown #${i} ${Date.now()}`));
  await Promise.race(racing); // the others are queued for or inside their transactions
  await pg.interrupt();
  const raced = await Promise.all(racing);
  for (const [i, res] of raced.entries()) {
    if (res.statusCode !== 202) expectUnavailable(res, `racing #${i}`);
  }

  // While it is down: every database-backed operation (auth included) answers 503, never 500.
  const during = await Promise.all(Array.from({ length: 30 }, (_, i) => submit(`during the outage #${i}`)));
  during.forEach((res, i) => expectUnavailable(res, `down #${i}`));
  expectUnavailable(await stack.app.inject({ method: 'GET', url: `/async-jobs/${before.json().analysisJobId}`, headers: user.auth }), 'GET job');
  expectUnavailable(await stack.app.inject({ method: 'POST', url: '/til', headers: user.auth, payload: { targetDate: '2026-11-30' } }), 'POST /til');
  expectUnavailable(await stack.app.inject({ method: 'GET', url: '/ready' }), 'ready');

  await pg.resume();
  await waitUntilReady();

  // Nothing half written: every scrap has both its jobs; every accepted answer names a stored scrap.
  const scraps = await stack.db.scrap.findMany({ where: { userId: user.userId }, select: { id: true, content: true } });
  for (const s of scraps) {
    const types = (await stack.db.asyncJob.findMany({ where: { targetId: s.id }, select: { jobType: true } })).map((j) => j.jobType).sort();
    expect([s.content, types]).toEqual([s.content, ['CARD_ANALYSIS', 'SCRAP_REFINE']]);
  }
  const stored = new Set(scraps.map((s) => s.id));
  for (const res of [before, ...raced].filter((r) => r.statusCode === 202)) expect(stored.has(res.json().scrapId)).toBe(true);
  expect(scraps.some((s) => s.content.startsWith('during the outage'))).toBe(false);

  // No pooled connection was lost with the transactions the shutdown cut: more concurrent
  // transactions than the pool holds all get a connection.
  const after = await Promise.all(Array.from({ length: 25 }, (_, i) => submit(`after the outage #${i} ${Date.now()}`)));
  expect(after.map((r) => r.statusCode)).toEqual(after.map(() => 202));

  // The same request after the outage succeeds (a client honouring Retry-After gets its scrap once).
  const retried = await submit('during the outage #0');
  expect(retried.statusCode).toBe(202);
  expect((await submit('during the outage #0')).json()).toMatchObject({ scrapId: retried.json().scrapId, created: false });
});

it('a transaction cut by the shutdown gives its pooled connection back (the pool is whole afterwards)', async () => {
  // A lost connection leaves a waiter without one for good; the timeout only bounds that wait.
  const db = createPrisma(stack.dbUrl, { poolMax: 2, connectionTimeoutMs: 20_000 });
  try {
    let inside = 0;
    let allInside!: () => void;
    const bothInside = new Promise<void>((resolve) => (allInside = resolve));
    let release!: () => void;
    const halted = new Promise<void>((resolve) => (release = resolve));
    const cut = [1, 2].map(() =>
      db.$transaction(async (tx) => {
        await tx.$queryRaw`SELECT 1`;
        if (++inside === 2) allInside();
        await halted;
        await tx.$queryRaw`SELECT 2`;
      }),
    );
    // Both pool connections are now inside an open transaction (a transaction that ends first fails the test).
    await Promise.race([
      bothInside,
      Promise.allSettled(cut).then((r) => { if (inside < 2) throw new Error(`a transaction ended before the shutdown: ${JSON.stringify(r.map((x) => x.status))}`); }),
    ]);
    await pg.interrupt();
    release();
    for (const r of await Promise.allSettled(cut)) expect(r.status).toBe('rejected');
    await pg.resume();
    // Twice the pool size of transactions: each gets a connection only if none was lost.
    const results = await Promise.allSettled([1, 2, 3, 4].map((n) => db.$transaction(async (tx) => tx.$queryRaw<{ n: number }[]>`SELECT ${n}::int AS n`)));
    expect(results.map((r) => (r.status === 'fulfilled' ? r.value[0]?.n : String(r.reason)))).toEqual([1, 2, 3, 4]);
  } finally {
    await pg.resume();
    await db.$disconnect();
  }
});
