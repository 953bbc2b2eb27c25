/**
 * The long-poll contract of every job and run resource (src/api/long-poll.ts), one table of
 * resources under the same assertions, on both change-feed modes: LISTEN/NOTIFY on the real
 * PostgreSQL 15 of the test servers, and polling on the embedded PGlite (where notifications do not
 * cross connections). Both modes are chosen by the feed's own start-up probe (`auto`).
 *
 * The rows are made and changed directly in the database (no workflow moves them). Waits that must
 * end on a change ask `wait=600` under a cap of 120 s against a jest timeout of 60 s: a long poll
 * that missed its change would still be waiting when the test fails. Nothing measures time.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { PrismaClient } from '@prisma/client';
import { buildApp } from '../../../src/api/app';
import { createUserWithToken } from '../../../src/auth/tokens';
import { ensureCompany, setMember } from '../../../src/core/companies';
import { transitionJob } from '../../../src/core/projection';
import { createPrisma } from '../../../src/db/client';
import { startEmbeddedPostgres, type EmbeddedPostgres } from '../../../src/db/embedded';
import { migrateDeploy } from '../../../src/db/migrate';
import { FAMILY_API, loadConfig } from '../../../src/families';
import { createLogger } from '../../../src/log';
import { pollUntil } from '../../support/poll';
import { createTestDatabase } from '../../support/postgres';

jest.setTimeout(60_000);

type Auth = { authorization: string };

/** A row of a resource, its reader, and someone who must not see it. */
interface Subject {
  id: string;
  owner: Auth;
  stranger: Auth;
}

/** One pollable resource: how to make an idle row, how to change it, and what its body says. */
interface Resource {
  name: string;
  url(id: string): string;
  create(db: PrismaClient): Promise<Subject>;
  /** Moves the row to another state; returns the status its body shows then. */
  change(db: PrismaClient, id: string): Promise<string>;
  /** The status field of the body and its value for an idle row. */
  statusField: string;
  idleStatus: string;
  idField: string;
}

async function user(db: PrismaClient): Promise<{ userId: string; auth: Auth }> {
  const { userId, token } = await createUserWithToken(db, `poller-${randomBytes(4).toString('hex')}`);
  return { userId, auth: { authorization: `Bearer ${token}` } };
}

const RESOURCES: Resource[] = [
  {
    name: 'GET /async-jobs/{id}',
    url: (id) => `/async-jobs/${id}`,
    async create(db) {
      const [owner, stranger] = [await user(db), await user(db)];
      const job = await db.asyncJob.create({ data: { jobType: 'SCRAP_REFINE', targetId: randomUUID(), userId: owner.userId, status: 'PENDING' } });
      return { id: job.jobId, owner: owner.auth, stranger: stranger.auth };
    },
    async change(db, id) {
      await transitionJob(db, id, 'PROCESSING');
      return 'PROCESSING';
    },
    statusField: 'status',
    idleStatus: 'PENDING',
    idField: 'jobId',
  },
  {
    name: 'GET /api/v1/ai-runs/{id}',
    url: (id) => `/api/v1/ai-runs/${id}`,
    async create(db) {
      const [owner, stranger] = [await user(db), await user(db)];
      const companyId = await ensureCompany(db, `co-${randomUUID()}`);
      await setMember(db, companyId, owner.userId, 'VIEWER');
      // The stranger belongs to another company: tenant isolation, not only authentication.
      await setMember(db, await ensureCompany(db, `co-${randomUUID()}`), stranger.userId, 'OWNER');
      const keyHash = randomBytes(32).toString('hex');
      const run = await db.aiRun.create({
        data: {
          companyId, actorUserId: owner.userId, inputMasked: 'Please send me my payslips', inputHash: randomBytes(32).toString('hex'),
          idempotencyKeyHash: keyHash, workflowId: `ai-run:${companyId}:${keyHash}`, maxAttempts: 3,
        },
      });
      return { id: run.id, owner: owner.auth, stranger: stranger.auth };
    },
    async change(db, id) {
      await db.aiRun.update({ where: { id }, data: { status: 'RUNNING', startedAt: new Date(), version: { increment: 1 } } });
      return 'RUNNING';
    },
    statusField: 'status',
    idleStatus: 'QUEUED',
    idField: 'aiRunId',
  },
  {
    name: 'GET /portal/link/jobs/{id}',
    url: (id) => `/portal/link/jobs/${id}`,
    async create(db) {
      const [owner, stranger] = [await user(db), await user(db)];
      const job = await db.portalLinkJob.create({
        data: { userId: owner.userId, portalType: 'suwon', studentId: `2024${randomBytes(2).toString('hex')}`, kind: 'LINK', workflowId: `portal-link:${randomUUID()}` },
      });
      return { id: job.id, owner: owner.auth, stranger: stranger.auth };
    },
    async change(db, id) {
      await db.portalLinkJob.update({ where: { id }, data: { status: 'RUNNING', startedAt: new Date() } });
      return 'RUNNING';
    },
    statusField: 'status',
    idleStatus: 'QUEUED',
    idField: 'jobId',
  },
  {
    name: 'GET /study/memo-card-jobs/{id}',
    url: (id) => `/study/memo-card-jobs/${id}`,
    async create(db) {
      const [owner, stranger] = [await user(db), await user(db)];
      const sourceId = randomUUID();
      const sourceVersion = new Date();
      const job = await db.studyMemoCardJob.create({
        data: { userId: owner.userId, sourceKind: 'study_question', sourceId, sourceVersion, workflowId: `study-card-extract:study_question:${sourceId}:${sourceVersion.toISOString()}` },
      });
      return { id: job.id, owner: owner.auth, stranger: stranger.auth };
    },
    async change(db, id) {
      await db.studyMemoCardJob.update({ where: { id }, data: { status: 'processing', attempts: 1, startedAt: new Date() } });
      return 'processing';
    },
    statusField: 'status',
    idleStatus: 'pending',
    idField: 'jobId',
  },
];

/** One database with two apps over it: cap 120 s, and cap 1 s (the cap test). */
interface Backend {
  mode: 'listen' | 'poll';
  db: PrismaClient;
  app: FastifyInstance;
  capped: FastifyInstance;
  logs: Record<string, unknown>[];
  stop(): Promise<void>;
}

function collectingLogger(lines: Record<string, unknown>[]) {
  return createLogger('info', 'api', {
    write(line: string) {
      lines.push(JSON.parse(line) as Record<string, unknown>);
    },
  } as unknown as NodeJS.WritableStream);
}

async function openBackend(mode: Backend['mode']): Promise<Backend> {
  let url: string;
  let poolMax: number;
  let drop: () => Promise<void>;
  let embedded: EmbeddedPostgres | undefined;
  if (mode === 'listen') {
    const adminUrl = process.env.TEST_PG_ADMIN_URL;
    if (!adminUrl) throw new Error('TEST_PG_ADMIN_URL is not set: run the tests through jest (globalSetup starts the servers)');
    const database = await createTestDatabase(adminUrl);
    ({ url, drop } = database);
    poolMax = 5;
  } else {
    embedded = await startEmbeddedPostgres({ dataDir: 'memory://', maxConnections: 8 });
    await migrateDeploy(embedded.url);
    url = embedded.url;
    poolMax = embedded.poolMax;
    drop = () => embedded!.stop();
  }
  const env = { NODE_ENV: 'test', DATABASE_URL: url, DATABASE_POOL_MAX: String(poolMax), LOG_LEVEL: 'info', API_CONNECTION_TIMEOUT_MS: '180000' };
  const db = createPrisma(url, { poolMax });
  const logs: Record<string, unknown>[] = [];
  const starter = { start: () => Promise.reject(new Error('no starts here')) };
  const app = await buildApp({ ...FAMILY_API, config: loadConfig({ ...env, JOB_WAIT_MAX_SECONDS: '120' }), db, starter, logger: collectingLogger(logs) });
  const capped = await buildApp({ ...FAMILY_API, config: loadConfig({ ...env, JOB_WAIT_MAX_SECONDS: '1' }), db, starter, logger: createLogger('error', 'api') });
  return {
    mode, db, app, capped, logs,
    async stop() {
      await app.close();
      await capped.close();
      await db.$disconnect();
      await drop();
    },
  };
}

/** The `job_long_poll_waiters` gauge (every feed of this process). */
async function waiters(app: FastifyInstance): Promise<number> {
  const text = (await app.inject({ method: 'GET', url: '/metrics' })).body;
  const m = /^job_long_poll_waiters (\d+)$/m.exec(text);
  if (!m) throw new Error('job_long_poll_waiters missing from /metrics');
  return Number(m[1]);
}

describe.each(['listen', 'poll'] as const)('change feed mode %s', (mode) => {
  let backend: Backend;
  beforeAll(async () => {
    backend = await openBackend(mode);
  }, 300_000);
  afterAll(async () => backend?.stop());

  const get = (app: FastifyInstance, url: string, headers: Record<string, string>) => app.inject({ method: 'GET', url, headers });

  it(`the feed's start-up probe chose ${mode}`, () => {
    expect(backend.logs).toContainEqual(expect.objectContaining({ mode }));
  });

  describe.each(RESOURCES)('$name', (r) => {
    it('sends an ETag that stays the same while the row is unchanged; If-None-Match with it (or *) → 304 without a body; a stale one → 200', async () => {
      const s = await r.create(backend.db);
      const first = await get(backend.app, r.url(s.id), s.owner);
      expect(first.statusCode).toBe(200);
      expect(first.json()).toMatchObject({ [r.idField]: s.id, [r.statusField]: r.idleStatus });
      const etag = first.headers.etag as string;
      expect(etag).toMatch(/^"[^"]+"$/);
      expect(first.headers.vary).toBe('Prefer');
      expect(first.headers['preference-applied']).toBeUndefined();
      expect((await get(backend.app, r.url(s.id), s.owner)).headers.etag).toBe(etag);

      for (const ifNoneMatch of [etag, `W/${etag}`, '*', `"other", ${etag}`]) {
        const same = await get(backend.app, r.url(s.id), { ...s.owner, 'if-none-match': ifNoneMatch });
        expect({ ifNoneMatch, status: same.statusCode, body: same.body, etag: same.headers.etag }).toEqual({ ifNoneMatch, status: 304, body: '', etag });
        expect(same.headers['preference-applied']).toBeUndefined();
      }
      const stale = await get(backend.app, r.url(s.id), { ...s.owner, 'if-none-match': '"stale"' });
      expect(stale.statusCode).toBe(200);
      expect(stale.headers.etag).toBe(etag);
    });

    it('Prefer: wait with a matching If-None-Match answers 200 with the new representation as soon as the row changes (capped wait applied)', async () => {
      const s = await r.create(backend.db);
      const etag = (await get(backend.app, r.url(s.id), s.owner)).headers.etag as string;
      const waiting = get(backend.app, r.url(s.id), { ...s.owner, 'if-none-match': etag, prefer: 'wait=600' });
      await pollUntil(() => waiters(backend.app), (n) => n === 1, { describe: 'the long poll to wait' });
      const status = await r.change(backend.db, s.id);
      const res = await waiting;
      expect(res.statusCode).toBe(200);
      expect(res.json()).toMatchObject({ [r.idField]: s.id, [r.statusField]: status });
      expect(res.headers.etag).not.toBe(etag);
      expect(res.headers['preference-applied']).toBe('wait=120'); // 600 asked, JOB_WAIT_MAX_SECONDS granted
      expect(res.headers.vary).toBe('Prefer');
      expect(await waiters(backend.app)).toBe(0);
      // The new ETag is the current one: If-None-Match with it is a 304.
      expect((await get(backend.app, r.url(s.id), { ...s.owner, 'if-none-match': res.headers.etag as string })).statusCode).toBe(304);
    });

    it('an unchanged row answers 304 at the cap, with the granted wait in Preference-Applied', async () => {
      const s = await r.create(backend.db);
      const etag = (await get(backend.capped, r.url(s.id), s.owner)).headers.etag as string;
      const res = await get(backend.capped, r.url(s.id), { ...s.owner, 'if-none-match': etag, prefer: 'wait=600' });
      expect(res.statusCode).toBe(304);
      expect(res.body).toBe('');
      expect(res.headers.etag).toBe(etag);
      expect(res.headers['preference-applied']).toBe('wait=1');
      expect(await waiters(backend.app)).toBe(0);
    });

    it('a stale or absent If-None-Match, or *, answers at once without applying the wait', async () => {
      const s = await r.create(backend.db);
      for (const extra of [{ 'if-none-match': '"stale"' }, {}] as Record<string, string>[]) {
        const res = await get(backend.app, r.url(s.id), { ...s.owner, ...extra, prefer: 'wait=600' });
        expect(res.statusCode).toBe(200);
        expect(res.headers['preference-applied']).toBeUndefined();
      }
      const star = await get(backend.app, r.url(s.id), { ...s.owner, 'if-none-match': '*', prefer: 'wait=600' });
      expect(star.statusCode).toBe(304);
      expect(star.headers['preference-applied']).toBeUndefined();
    });

    it("another user's (or tenant's) row is 404 whatever the headers, nobody waits for it; no token is 401", async () => {
      const s = await r.create(backend.db);
      const etag = (await get(backend.app, r.url(s.id), s.owner)).headers.etag as string;
      const res = await get(backend.app, r.url(s.id), { ...s.stranger, 'if-none-match': etag, prefer: 'wait=600' });
      expect(res.statusCode).toBe(404);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(res.json()).toMatchObject({ code: 'NOT_FOUND' });
      expect(res.headers.etag).toBeUndefined();
      expect(res.headers['preference-applied']).toBeUndefined();
      expect(await waiters(backend.app)).toBe(0);
      const anonymous = await get(backend.app, r.url(s.id), { 'if-none-match': etag, prefer: 'wait=600' });
      expect(anonymous.statusCode).toBe(401);
      expect(anonymous.headers.etag).toBeUndefined();
    });
  });
});

it('the OpenAPI document describes Prefer, If-None-Match, the 304 and the ETag, Preference-Applied and Vary headers of every pollable resource', async () => {
  const adminUrl = process.env.TEST_PG_ADMIN_URL as string;
  const database = await createTestDatabase(adminUrl);
  const db = createPrisma(database.url, { poolMax: 2 });
  const app = await buildApp({
    ...FAMILY_API,
    config: loadConfig({ NODE_ENV: 'test', DATABASE_URL: database.url, LOG_LEVEL: 'error' }),
    db,
    starter: { start: () => Promise.reject(new Error('no starts here')) },
    logger: createLogger('error', 'api'),
  });
  try {
    const doc = (await app.inject({ method: 'GET', url: '/openapi.json' })).json();
    for (const path of ['/async-jobs/{jobId}', '/api/v1/ai-runs/{aiRunId}', '/portal/link/jobs/{jobId}', '/study/memo-card-jobs/{jobId}']) {
      const op = doc.paths[path].get;
      const headerParams = (op.parameters as { in: string; name: string }[]).filter((p) => p.in === 'header').map((p) => p.name);
      expect({ path, headers: headerParams.sort() }).toEqual({ path, headers: ['if-none-match', 'prefer'] });
      expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(['200', '304', '401', '404', '503']));
      expect({ path, headers: Object.keys(op.responses['200'].headers ?? {}).sort() }).toEqual({ path, headers: ['ETag', 'Preference-Applied', 'Vary'] });
      expect({ path, headers: Object.keys(op.responses['304'].headers ?? {}).sort() }).toEqual({ path, headers: ['ETag', 'Preference-Applied', 'Vary'] });
      expect(op.responses['304'].content).toBeUndefined();
    }
  } finally {
    await app.close();
    await db.$disconnect();
    await database.drop();
  }
});
