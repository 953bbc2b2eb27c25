/**
 * The embedded PGlite server (src/db/embedded.ts + src/db/pglite-wire.ts) serves several client
 * connections at once without mixing them up: concurrent extended-protocol queries with large
 * binds each get their own rows, a transaction is never entered by another connection, a
 * connection that dies mid-transaction is rolled back, one that idles in a transaction while
 * others wait is terminated, session state (settings, search_path, prepared statements, temporary
 * tables) never reaches another connection, and `npm run user:create` works while an app's pool holds its
 * connection and keeps querying (what the demo with --keep needs). The API's hot path runs on it
 * with the demo's pool of 1: long polls fall back to polling (notifications do not cross the
 * wire front's connections) and still wake on a change.
 */
import { spawn } from 'node:child_process';
import { connect as tcpConnect } from 'node:net';
import path from 'node:path';
import { Client } from 'pg';
import { createUserWithToken, userIdForToken } from '../../../src/auth/tokens';
import { buildApp } from '../../../src/api/app';
import { FAMILY_API } from '../../../src/families';
import { loadConfig } from '../../../src/families';
import { transitionJob } from '../../../src/core/projection';
import { createLogger } from '../../../src/log';
import { pollUntil } from '../../support/poll';
import { createPrisma, type Db } from '../../../src/db/client';
import { startEmbeddedPostgres, type EmbeddedPostgres } from '../../../src/db/embedded';
import { migrateDeploy } from '../../../src/db/migrate';
import { prng } from '../../support/seeded';

jest.setTimeout(120_000);

const ROOT = path.resolve(__dirname, '../../..');

let embedded: EmbeddedPostgres;
const clients: Client[] = [];

async function connect(): Promise<Client> {
  const c = new Client({ connectionString: embedded.url });
  c.on('error', () => undefined); // a terminated connection reports here too
  await c.connect();
  clients.push(c);
  return c;
}

/** Runs the real CLI (tsx) with DATABASE_URL; resolves with its exit code and output. */
function runCli(args: string[], env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(path.join(ROOT, 'node_modules/.bin/tsx'), ['src/cli/create-user.ts', ...args], {
      cwd: ROOT,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

beforeAll(async () => {
  embedded = await startEmbeddedPostgres({ dataDir: 'memory://', maxConnections: 6, ownerIdleTimeoutMs: 2000 });
  await migrateDeploy(embedded.url);
  const c = await connect();
  await c.query('create table wire_probe (id serial primary key, note text not null)');
  await c.end();
  clients.splice(0);
}, 300_000);

afterAll(async () => {
  await Promise.allSettled(clients.map((c) => c.end()));
  await embedded?.stop();
});

afterEach(async () => {
  await Promise.allSettled(clients.splice(0).map((c) => c.end()));
  const c = await connect();
  await c.query('truncate wire_probe');
  await c.end();
  clients.splice(0);
  await pollUntil(() => embedded.connections(), (n) => n === 0, { describe: 'the server to see the closes', maxIntervalMs: 50 });
});

it('answers concurrent extended-protocol queries from several connections, each with its own statement and rows', async () => {
  const rand = prng(20261201);
  const conns = await Promise.all([connect(), connect(), connect(), connect()]);
  const runs = conns.map(async (c, i) => {
    const mismatches: string[] = [];
    for (let j = 0; j < 20; j++) {
      // Each query has its own SQL text (a connection binding another's unnamed statement would
      // get the other's tag) and a parameter of up to ~200 kB (a Bind split over TCP reads).
      const p = 'x'.repeat(j % 2 === 0 ? 1 + Math.floor(rand() * 100) : 150_000 + Math.floor(rand() * 60_000));
      const r = await c.query<{ tag: string; n: number }>(`select '${i}:${j}'::text as tag, length($1::text) as n`, [p]);
      const got = `${r.rows[0]?.tag}/${r.rows[0]?.n}`;
      if (got !== `${i}:${j}/${p.length}`) mismatches.push(`connection ${i} query ${j}: ${got}`);
    }
    return mismatches;
  });
  expect((await Promise.all(runs)).flat()).toEqual([]);
});

it('session state set by one connection never reaches another: search_path, settings, prepared statements, temporary tables', async () => {
  const [a, b] = await Promise.all([connect(), connect()]);
  // What a psql user may type, and what pg_dump does first.
  await a.query('prepare probe_count as select count(*) from wire_probe');
  await a.query('create temporary table scratch (x int)');
  await a.query("set statement_timeout = '1ms'");
  await a.query("select pg_catalog.set_config('search_path', '', false)");
  // b's queries name tables unqualified and run longer than 1 ms; a's statement and table are not b's.
  expect((await b.query<{ n: string }>('select count(*) as n, pg_sleep(0.01) from wire_probe')).rows[0]?.n).toBe('0');
  expect((await b.query<{ statement_timeout: string }>('show statement_timeout')).rows[0]?.statement_timeout).toBe('0');
  await expect(b.query('execute probe_count')).rejects.toThrow(/probe_count/);
  await expect(b.query('select * from scratch')).rejects.toThrow(/scratch/);
  // Prisma through adapter-pg on the same server is unaffected too.
  const db = createPrisma(embedded.url, { poolMax: 1 });
  try {
    await a.query("select set_config('search_path', '', false)");
    await expect(db.apiToken.count()).resolves.toBeGreaterThanOrEqual(0);
  } finally {
    await db.$disconnect();
  }
});

it('never runs another connection inside an open transaction: a rolled-back insert is never seen', async () => {
  const [a, b] = await Promise.all([connect(), connect()]);
  await a.query('begin');
  await a.query("insert into wire_probe (note) values ('uncommitted')");
  const seenByB = b.query<{ n: string }>('select count(*) as n from wire_probe'); // waits for a's transaction
  await a.query("insert into wire_probe (note) values ('also uncommitted')");
  await a.query('rollback');
  expect((await seenByB).rows[0]?.n).toBe('0');
});

it('rolls back the transaction of a connection that dies mid-transaction and serves the others', async () => {
  const [a, b] = await Promise.all([connect(), connect()]);
  await a.query('begin');
  await a.query("insert into wire_probe (note) values ('lost')");
  (a as unknown as { connection: { stream: { destroy(): void } } }).connection.stream.destroy();
  expect((await b.query<{ n: string }>('select count(*) as n from wire_probe')).rows[0]?.n).toBe('0');
  await b.query('begin'); // the shared session is out of the dead connection's transaction
  await b.query("insert into wire_probe (note) values ('kept')");
  await b.query('commit');
  expect((await b.query<{ note: string }>('select note from wire_probe')).rows).toEqual([{ note: 'kept' }]);
});

/** A frontend message: type byte, int32 length, body. */
function wire(type: string, ...parts: (string | Buffer)[]): Buffer {
  const body = Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(`${p}\0`) : p)));
  const head = Buffer.alloc(5);
  head.write(type, 0, 'latin1');
  head.writeInt32BE(4 + body.length, 1);
  return Buffer.concat([head, body]);
}

it('ends the unfinished extended-query sequence of a connection that dies before its Sync', async () => {
  const { port } = new URL(embedded.url);
  const raw = tcpConnect(Number(port), '127.0.0.1');
  const seen: Buffer[] = [];
  raw.on('data', (d: Buffer) => seen.push(d));
  await new Promise<void>((resolve, reject) => raw.once('connect', resolve).once('error', reject));
  const params = Buffer.concat([Buffer.from('user\0postgres\0database\0postgres\0\0')]);
  const startup = Buffer.alloc(8);
  startup.writeInt32BE(8 + params.length, 0);
  startup.writeInt32BE(196608, 4);
  raw.write(Buffer.concat([startup, params]));
  await pollUntil(() => Buffer.concat(seen).includes(Buffer.from([0x5a, 0, 0, 0, 5, 0x49])), Boolean, { describe: 'ReadyForQuery after the start-up', maxIntervalMs: 50 });
  // A Parse that fails puts the session into "skip until Sync"; the Sync never comes.
  raw.write(wire('P', '', 'select no_such_column from wire_probe', Buffer.from([0, 0])));
  await pollUntil(() => Buffer.concat(seen).includes(Buffer.from('42703')), Boolean, { describe: 'the error of the failed Parse', maxIntervalMs: 50 });
  raw.destroy();
  const b = await connect();
  expect((await b.query<{ n: string }>('select count(*) as n from wire_probe')).rows[0]?.n).toBe('0');
});

it('terminates a connection idling in a transaction while others wait (SQLSTATE 25P03), and the others go on', async () => {
  const [a, b] = await Promise.all([connect(), connect()]);
  await a.query('begin');
  await a.query("insert into wire_probe (note) values ('abandoned')");
  // a stays silent; b's query waits until a is terminated and its transaction rolled back
  expect((await b.query<{ n: string }>('select count(*) as n from wire_probe')).rows[0]?.n).toBe('0');
  await expect(a.query('commit')).rejects.toThrow();
});

it('answers connections beyond maxConnections with FATAL 53300 and serves them again once one closes', async () => {
  const open = await Promise.all(Array.from({ length: embedded.maxConnections }, () => connect()));
  const extra = new Client({ connectionString: embedded.url });
  extra.on('error', () => undefined);
  await expect(extra.connect()).rejects.toMatchObject({ code: '53300' });
  await open[0]!.end();
  await pollUntil(() => embedded.connections(), (n) => n < embedded.maxConnections, { describe: 'the server to see the close', maxIntervalMs: 50 });
  const again = await connect();
  expect((await again.query<{ one: number }>('select 1 as one')).rows[0]?.one).toBe(1);
});

it('npm run user:create works while an app pool holds its connection and keeps querying', async () => {
  const app: Db = createPrisma(embedded.url, { poolMax: embedded.poolMax, idleTimeoutMs: 60_000 });
  try {
    await app.$queryRaw`select 1`; // the pool's one connection is open from here on
    let busy = true;
    const appLoop = (async () => {
      let n = 0;
      while (busy) {
        await app.$transaction(async (tx) => {
          await tx.$queryRaw`select count(*) from users`;
          await tx.$queryRaw`select count(*) from api_tokens`;
        });
        n += 1;
      }
      return n;
    })();
    const out = await runCli(['--name', 'second-user', '--token-only'], { DATABASE_URL: embedded.url });
    busy = false;
    expect(await appLoop).toBeGreaterThan(0);
    expect(out).toMatchObject({ code: 0 });
    const token = out.stdout.trim();
    expect(token).toMatch(/^djt_[A-Za-z0-9_-]{43}$/);
    const userId = await userIdForToken(app, token);
    const user = await app.user.findUniqueOrThrow({ where: { name: 'second-user' } });
    expect(userId).toBe(user.id);
  } finally {
    await app.$disconnect();
  }
});

it('the API on the embedded database: hot reads share the pool of 1, long polls fall back to polling and wake on a change', async () => {
  const lines: Record<string, unknown>[] = [];
  const logger = createLogger('info', 'api', {
    write(line: string) {
      lines.push(JSON.parse(line) as Record<string, unknown>);
    },
  } as unknown as NodeJS.WritableStream);
  const config = loadConfig({ NODE_ENV: 'test', DATABASE_URL: embedded.url, DATABASE_POOL_MAX: String(embedded.poolMax), LOG_LEVEL: 'info' });
  const db = createPrisma(embedded.url, { poolMax: embedded.poolMax });
  const app = await buildApp({ ...FAMILY_API, config, db, starter: { start: () => Promise.reject(new Error('no starts here')) }, logger });
  try {
    expect(lines).toContainEqual(expect.objectContaining({ msg: `job change feed: polling every ${config.api.jobWait.pollMs} ms`, mode: 'poll' }));
    const { userId, token } = await createUserWithToken(db, 'long-poller');
    const auth = { authorization: `Bearer ${token}` };
    const job = await db.asyncJob.create({ data: { jobType: 'SCRAP_REFINE', targetId: '20000000-0000-4000-8000-0000000000ee', userId, status: 'PENDING' } });
    const url = `/async-jobs/${job.jobId}`;
    const first = await app.inject({ method: 'GET', url, headers: auth });
    expect(first.statusCode).toBe(200);
    const etag = first.headers.etag as string;
    const timedOut = await app.inject({ method: 'GET', url, headers: { ...auth, 'if-none-match': etag, prefer: 'wait=1' } });
    expect({ status: timedOut.statusCode, applied: timedOut.headers['preference-applied'] }).toEqual({ status: 304, applied: 'wait=1' });

    // wait=30 against the test's own bound: answered by the server-side polling, not the timeout.
    const waiting = app.inject({ method: 'GET', url, headers: { ...auth, 'if-none-match': etag, prefer: 'wait=30' } });
    await pollUntil(
      async () => /^job_long_poll_waiters (\d+)$/m.exec((await app.inject({ method: 'GET', url: '/metrics' })).body)?.[1],
      (n) => n === '1',
      { describe: 'the long poll to wait' },
    );
    await transitionJob(db, job.jobId, 'PROCESSING');
    const woken = await waiting;
    expect(woken.statusCode).toBe(200);
    expect(woken.json()).toMatchObject({ jobId: job.jobId, status: 'PROCESSING' });
    expect(woken.headers['preference-applied']).toBe('wait=30');
  } finally {
    await app.close();
    await db.$disconnect();
  }
});
