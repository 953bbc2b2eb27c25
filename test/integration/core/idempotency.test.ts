/**
 * AR-7 / PO-1 Idempotency-Key records on real PostgreSQL: replay, conflict naming fields, expiry,
 * purge, and 20 concurrent claims of one key, each in its own transaction creating a scratch
 * resource, that make exactly one resource and all answer its id.
 */
import { randomUUID } from 'node:crypto';
import type { PrismaClient } from '@prisma/client';
import Fastify from 'fastify';
import { installProblemHandlers } from '../../../src/api/problem';
import type { DomainError } from '../../../src/core/domain-error';
import { CORE_ERROR_REGISTRY } from '../../../src/core/errors';
import { resolveProblem } from '../../../src/core/problems';
import { createPrisma } from '../../../src/db/client';
import {
  claimIdempotencyKey,
  idempotencyKeyHash,
  purgeExpiredIdempotencyRecords,
  recordIdempotentAnswer,
  type IdempotencyClaimInput,
} from '../../../src/core/idempotency';
import { createTestDatabase } from '../../support/postgres';

let db: PrismaClient;
let drop: () => Promise<void>;

beforeAll(async () => {
  const database = await createTestDatabase(process.env.TEST_PG_ADMIN_URL!);
  drop = database.drop;
  db = createPrisma(database.url, { poolMax: 24, connectionTimeoutMs: 30_000 });
  // A scratch resource standing in for a route's resource (an AI run, a portal link ...).
  await db.$executeRawUnsafe('CREATE TABLE scratch_resources (id uuid PRIMARY KEY, label text NOT NULL)');
});
afterAll(async () => {
  await db?.$disconnect();
  await drop?.();
});

interface Answer {
  statusCode: number;
  resourceId: string;
  created: boolean;
}

/** What a route does: claim, create the resource and record the answer, all in one transaction. */
function createScratch(input: IdempotencyClaimInput, opts: { failAfterCreate?: boolean } = {}): Promise<Answer> {
  return db.$transaction(async (tx) => {
    const claim = await claimIdempotencyKey(tx, input);
    if (claim.kind === 'replay') return { statusCode: claim.statusCode, resourceId: claim.resourceId, created: false };
    const id = randomUUID();
    await tx.$executeRaw`INSERT INTO scratch_resources (id, label) VALUES (${id}::uuid, ${String(input.request.label)})`;
    await recordIdempotentAnswer(tx, claim.recordId, { statusCode: 202, resourceType: 'scratch', resourceId: id });
    if (opts.failAfterCreate) throw new Error('the route failed after creating its resource');
    return { statusCode: 202, resourceId: id, created: true };
  });
}

async function scratchCount(label: string): Promise<number> {
  const rows = await db.$queryRaw<{ n: number }[]>`SELECT count(*)::int AS n FROM scratch_resources WHERE label = ${label}`;
  return rows[0]!.n;
}

const base = () => ({ scopeId: randomUUID(), operation: 'scratch.create', key: `key-${randomUUID()}` });

it('the same scope, key and payload replay the first answer; the raw key is never stored', async () => {
  const b = base();
  const label = `replay-${randomUUID()}`;
  const first = await createScratch({ ...b, request: { label, n: 1 } });
  const again = await createScratch({ ...b, request: { n: 1.0, label } });
  expect(first).toMatchObject({ statusCode: 202, created: true });
  expect(again).toEqual({ statusCode: 202, resourceId: first.resourceId, created: false });
  expect(await scratchCount(label)).toBe(1);

  const rows = await db.idempotencyRecord.findMany({ where: { scopeId: b.scopeId } });
  expect(rows).toHaveLength(1);
  expect(rows[0]).toMatchObject({ keyHash: idempotencyKeyHash(b.key), statusCode: 202, resourceType: 'scratch', resourceId: first.resourceId });
  expect(JSON.stringify(rows[0])).not.toContain(b.key);
  expect(JSON.stringify(rows[0])).not.toContain(label);
});

it('another scope or operation with the same key is another request', async () => {
  const b = base();
  const label = `scopes-${randomUUID()}`;
  const a1 = await createScratch({ ...b, request: { label } });
  const a2 = await createScratch({ ...b, scopeId: randomUUID(), request: { label } });
  const a3 = await createScratch({ ...b, operation: 'scratch.other', request: { label } });
  expect([a1.created, a2.created, a3.created]).toEqual([true, true, true]);
  expect(new Set([a1.resourceId, a2.resourceId, a3.resourceId]).size).toBe(3);
});

it('the same key with another payload is 409 IDEMPOTENCY_KEY_CONFLICT naming the differing fields, never their values', async () => {
  const b = base();
  const label = `conflict-${randomUUID()}`;
  await createScratch({ ...b, request: { label, text: 'secret-original', kept: true } });
  const err = await createScratch({ ...b, request: { label, text: 'secret-other', extra: 1, kept: true } }).catch((e: unknown) => e);
  expect(err).toMatchObject({ code: 'IDEMPOTENCY_KEY_CONFLICT' });
  const e = err as { detail: string; errors: { path: string }[] };
  expect(e.errors.map((x) => x.path)).toEqual(['body.extra', 'body.text']);
  expect(e.detail).toContain('extra, text');
  expect(JSON.stringify(err) + e.detail).not.toContain('secret');
  expect(await scratchCount(label)).toBe(1);

  // Through the API's error handler: problem+json with the fields in errors[].
  const app = Fastify();
  installProblemHandlers(app);
  app.post('/x', async () => {
    throw err;
  });
  const res = await app.inject({ method: 'POST', url: '/x', payload: {} });
  await app.close();
  expect(res.statusCode).toBe(409);
  expect(res.headers['content-type']).toContain('application/problem+json');
  expect(res.json()).toMatchObject({ code: 'IDEMPOTENCY_KEY_CONFLICT', errors: [{ path: 'body.extra' }, { path: 'body.text' }] });
});

it('20 concurrent requests with one key make one resource and all answer its id', async () => {
  const b = base();
  const label = `burst-${randomUUID()}`;
  const answers = await Promise.all(Array.from({ length: 20 }, () => createScratch({ ...b, request: { label } })));
  expect(await scratchCount(label)).toBe(1);
  expect(answers.filter((a) => a.created)).toHaveLength(1);
  const [winner] = answers.filter((a) => a.created);
  for (const a of answers) expect(a).toMatchObject({ statusCode: 202, resourceId: winner!.resourceId });
  expect(await db.idempotencyRecord.count({ where: { scopeId: b.scopeId } })).toBe(1);
});

it('a claim whose transaction rolls back leaves the key free: the next request creates the resource', async () => {
  const b = base();
  const label = `rollback-${randomUUID()}`;
  await expect(createScratch({ ...b, request: { label } }, { failAfterCreate: true })).rejects.toThrow('route failed');
  expect(await scratchCount(label)).toBe(0);
  const next = await createScratch({ ...b, request: { label } });
  expect(next.created).toBe(true);
  expect(await scratchCount(label)).toBe(1);
});

it('a claim committed without an answer makes a repeat 409 IDEMPOTENCY_KEY_IN_PROGRESS, not a second resource', async () => {
  const b = base();
  const claim = await claimIdempotencyKey(db, { ...b, request: { label: 'pending' } });
  expect(claim.kind).toBe('new');
  const inProgress: unknown = await claimIdempotencyKey(db, { ...b, request: { label: 'pending' } }).catch((e: unknown) => e);
  expect(inProgress).toMatchObject({ code: 'IDEMPOTENCY_KEY_IN_PROGRESS' });
  expect(resolveProblem(CORE_ERROR_REGISTRY.problems, inProgress as DomainError)?.status).toBe(409);
  if (claim.kind !== 'new') throw new Error('expected a new claim');
  await recordIdempotentAnswer(db, claim.recordId, { statusCode: 201, resourceType: 'scratch', resourceId: 'r1' });
  await expect(claimIdempotencyKey(db, { ...b, request: { label: 'pending' } })).resolves.toMatchObject({ kind: 'replay', statusCode: 201, resourceId: 'r1' });
  await expect(recordIdempotentAnswer(db, claim.recordId, { statusCode: 201, resourceType: 'scratch', resourceId: 'r2' })).rejects.toThrow('not a pending claim');
});

it('an expired key may be reused, even with another payload; the record is replaced in place', async () => {
  const b = base();
  const t0 = new Date('2026-12-01T00:00:00Z');
  const label = `expiry-${randomUUID()}`;
  const first = await createScratch({ ...b, request: { label }, ttlMs: 60_000, now: t0 });
  // Before expiry: a replay, and another payload conflicts.
  const before = await createScratch({ ...b, request: { label }, ttlMs: 60_000, now: new Date(t0.getTime() + 59_000) });
  expect(before).toMatchObject({ created: false, resourceId: first.resourceId });
  await expect(createScratch({ ...b, request: { label: `${label}-2` }, ttlMs: 60_000, now: new Date(t0.getTime() + 59_000) })).rejects.toMatchObject({
    code: 'IDEMPOTENCY_KEY_CONFLICT',
  });
  // After expiry: a new resource.
  const later = new Date(t0.getTime() + 60_000);
  const reused = await createScratch({ ...b, request: { label: `${label}-2` }, ttlMs: 60_000, now: later });
  expect(reused.created).toBe(true);
  expect(reused.resourceId).not.toBe(first.resourceId);
  const rows = await db.idempotencyRecord.findMany({ where: { scopeId: b.scopeId } });
  expect(rows).toHaveLength(1);
  expect(rows[0]).toMatchObject({ resourceId: reused.resourceId, expiresAt: new Date(later.getTime() + 60_000) });
});

it('concurrent reuse of one expired key makes one new resource', async () => {
  const b = base();
  const t0 = new Date('2026-11-01T00:00:00Z');
  const label = `expired-burst-${randomUUID()}`;
  await createScratch({ ...b, request: { label }, ttlMs: 1000, now: t0 });
  const now = new Date(t0.getTime() + 5000);
  const answers = await Promise.all(Array.from({ length: 10 }, () => createScratch({ ...b, request: { label }, ttlMs: 1000, now })));
  expect(answers.filter((a) => a.created)).toHaveLength(1);
  expect(new Set(answers.map((a) => a.resourceId)).size).toBe(1);
  expect(await scratchCount(label)).toBe(2);
});

it('the purge deletes expired records only, in batches', async () => {
  const scopeId = randomUUID();
  const t0 = new Date('2020-01-01T00:00:00Z');
  for (let i = 0; i < 5; i++) {
    await claimIdempotencyKey(db, { scopeId, operation: 'scratch.purge', key: `old-${i}`, request: { i }, ttlMs: 1000, now: t0 });
  }
  await claimIdempotencyKey(db, { scopeId, operation: 'scratch.purge', key: 'fresh', request: {}, ttlMs: 3_600_000 });
  const deleted = await purgeExpiredIdempotencyRecords(db, { batchSize: 2 });
  expect(deleted).toBeGreaterThanOrEqual(5);
  const left = await db.idempotencyRecord.findMany({ where: { scopeId } });
  expect(left.map((r) => r.keyHash)).toEqual([idempotencyKeyHash('fresh')]);
});
