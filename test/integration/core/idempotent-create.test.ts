/**
 * The core idempotent create on real PostgreSQL, over a scratch resource with a unique key hash (as
 * an AI run or a portal link job has): one resource per key, replays without a second create or
 * start, a start after the commit whose failure is logged and never thrown, a start that finds
 * Temporal unavailable undoing the resource and the key's record (503; the retry with the key
 * creates it), the start of a replay when the family asks for it, a rollback that leaves the key
 * unclaimed, a fresh key hash for a key reused after its record expired, and concurrent requests
 * with one key making one resource; the same over the one-statement create (claim, answer and
 * resource in one statement, the transaction when it writes nothing).
 */
import { randomUUID } from 'node:crypto';
import { ServiceError } from '@temporalio/client';
import { Prisma, type PrismaClient } from '@prisma/client';
import type { WarnLog } from '../../../src/core/after-commit';
import { createPrisma } from '../../../src/db/client';
import { idempotencyKeyHash, reclaimedKeyHash } from '../../../src/core/idempotency';
import { idempotentCreate, type IdempotentCreateSpec, type OneStatementCreate } from '../../../src/core/idempotent-create';
import type { StartOutcome } from '../../../src/core/workflow-start';
import { createTestDatabase } from '../../support/postgres';

let db: PrismaClient;
let drop: () => Promise<void>;

beforeAll(async () => {
  const database = await createTestDatabase(process.env.TEST_PG_ADMIN_URL!);
  drop = database.drop;
  db = createPrisma(database.url, { poolMax: 12, connectionTimeoutMs: 30_000 });
  await db.$executeRawUnsafe(
    "CREATE TABLE scratch_resources (id uuid PRIMARY KEY, key_hash text NOT NULL UNIQUE, label text NOT NULL, status text NOT NULL DEFAULT 'QUEUED')",
  );
});
afterAll(async () => {
  await db?.$disconnect();
  await drop?.();
});

interface Scratch {
  id: string;
  key_hash: string;
  label: string;
  status: string;
}

async function readScratch(id: string): Promise<Scratch | null> {
  const rows = await db.$queryRaw<Scratch[]>`SELECT id::text AS id, key_hash, label, status FROM scratch_resources WHERE id = ${id}::uuid`;
  return rows[0] ?? null;
}

async function countLabel(label: string): Promise<number> {
  const rows = await db.$queryRaw<{ n: number }[]>`SELECT count(*)::int AS n FROM scratch_resources WHERE label = ${label}`;
  return rows[0]!.n;
}

interface Harness {
  spec: (label: string, over?: Partial<IdempotentCreateSpec<Scratch>>) => IdempotentCreateSpec<Scratch>;
  starts: string[];
  warnings: { obj: object; msg: string }[];
}

/** A family's hooks over scratch_resources; the start marks the resource RUNNING (as a first workflow task would). */
function harness(scopeId: string, key: string, startResult: () => Promise<StartOutcome> = async () => 'started'): Harness {
  const starts: string[] = [];
  const warnings: { obj: object; msg: string }[] = [];
  const log: WarnLog = { warn: (obj, msg) => warnings.push({ obj, msg }) };
  const spec = (label: string, over: Partial<IdempotentCreateSpec<Scratch>> = {}): IdempotentCreateSpec<Scratch> => ({
    db,
    claim: { scopeId, operation: 'scratch.create', key, request: { label } },
    statusCode: 202,
    resourceType: 'scratch',
    keyHashTaken: async (tx, keyHash) => (await tx.$queryRaw<unknown[]>`SELECT 1 FROM scratch_resources WHERE key_hash = ${keyHash}`).length > 0,
    async create(tx, keyHash) {
      const id = randomUUID();
      await tx.$executeRaw`INSERT INTO scratch_resources (id, key_hash, label) VALUES (${id}::uuid, ${keyHash}, ${label})`;
      return { id, key_hash: keyHash, label, status: 'QUEUED' };
    },
    idOf: (r) => r.id,
    read: readScratch,
    start: {
      async run(r) {
        starts.push(r.id);
        const outcome = await startResult();
        await db.$executeRaw`UPDATE scratch_resources SET status = 'RUNNING' WHERE id = ${r.id}::uuid`;
        return outcome;
      },
      ids: (r) => ({ scratchId: r.id }),
      remove: (tx, r) => tx.$executeRaw`DELETE FROM scratch_resources WHERE id = ${r.id}::uuid`,
      log,
    },
    ...over,
  });
  return { spec, starts, warnings };
}

test('one resource per key: created and started once, then replayed without a create or a start', async () => {
  const key = `k-${randomUUID()}`;
  const h = harness(randomUUID(), key);
  const label = `one-${randomUUID()}`;
  const first = await idempotentCreate(h.spec(label));
  expect(first).toMatchObject({ statusCode: 202, replay: false, resource: { label, status: 'RUNNING', key_hash: idempotencyKeyHash(key) } });
  const again = await idempotentCreate(h.spec(label));
  expect(again).toMatchObject({ statusCode: 202, replay: true, resource: { id: first.resource.id, status: 'RUNNING' } });
  expect(h.starts).toEqual([first.resource.id]);
  expect(await countLabel(label)).toBe(1);
});

test('a replay is started when the family asks (its first start was lost)', async () => {
  let fail = true;
  const h = harness(randomUUID(), `k-${randomUUID()}`, async () => {
    if (fail) throw new Error('Temporal unreachable');
    return 'started';
  });
  const label = `lost-${randomUUID()}`;
  const onReplay = (r: Scratch) => r.status === 'QUEUED';
  const spec = (): IdempotentCreateSpec<Scratch> => {
    const s = h.spec(label);
    return { ...s, start: { ...s.start!, onReplay } };
  };
  const first = await idempotentCreate(spec());
  expect(first).toMatchObject({ replay: false, resource: { status: 'QUEUED' } });
  expect(h.warnings).toEqual([{ obj: expect.objectContaining({ scratchId: first.resource.id }), msg: expect.stringContaining('start failed') }]);
  fail = false;
  const replay = await idempotentCreate(spec());
  expect(replay).toMatchObject({ replay: true, resource: { id: first.resource.id, status: 'RUNNING' } });
  const later = await idempotentCreate(spec());
  expect(later.replay).toBe(true);
  expect(h.starts).toEqual([first.resource.id, first.resource.id]);
});

/** What the Temporal client throws when the frontend cannot be reached (gRPC UNAVAILABLE). */
const unavailable = () => new ServiceError('Failed to start Workflow', { cause: Object.assign(new Error('14 UNAVAILABLE: No connection established'), { code: 14, details: 'No connection established', metadata: {} }) });

async function recordsOf(scopeId: string): Promise<number> {
  const rows = await db.$queryRaw<{ n: number }[]>`SELECT count(*)::int AS n FROM idempotency_records WHERE scope_id = ${scopeId}::uuid`;
  return rows[0]!.n;
}

test('Temporal unavailable for the start: the resource and the record are undone (503); the retry with the key creates and starts it', async () => {
  const scopeId = randomUUID();
  let down = true;
  const h = harness(scopeId, `k-${randomUUID()}`, async () => {
    if (down) throw unavailable();
    return 'started';
  });
  const label = `undone-${randomUUID()}`;
  await expect(idempotentCreate(h.spec(label))).rejects.toMatchObject({ code: 'WORKFLOW_START_UNAVAILABLE', headers: { 'Retry-After': expect.any(String) } });
  expect({ resources: await countLabel(label), records: await recordsOf(scopeId) }).toEqual({ resources: 0, records: 0 });
  down = false;
  const retried = await idempotentCreate(h.spec(label));
  expect(retried).toMatchObject({ replay: false, statusCode: 202, resource: { label, status: 'RUNNING' } });
  expect({ resources: await countLabel(label), records: await recordsOf(scopeId) }).toEqual({ resources: 1, records: 1 });
  expect(h.starts).toHaveLength(2);
});

test('Temporal unavailable for a replay\'s start: 503, the first request\'s resource stays for the next retry', async () => {
  let fail: 'other' | 'unavailable' | 'none' = 'other';
  const h = harness(randomUUID(), `k-${randomUUID()}`, async () => {
    if (fail === 'other') throw new Error('the process lost its connection');
    if (fail === 'unavailable') throw unavailable();
    return 'started';
  });
  const label = `replay-down-${randomUUID()}`;
  const spec = (): IdempotentCreateSpec<Scratch> => {
    const s = h.spec(label);
    return { ...s, start: { ...s.start!, onReplay: (r: Scratch) => r.status === 'QUEUED' } };
  };
  const first = await idempotentCreate(spec());
  expect(first.resource.status).toBe('QUEUED');
  fail = 'unavailable';
  await expect(idempotentCreate(spec())).rejects.toMatchObject({ code: 'WORKFLOW_START_UNAVAILABLE' });
  expect(await countLabel(label)).toBe(1);
  fail = 'none';
  expect(await idempotentCreate(spec())).toMatchObject({ replay: true, resource: { id: first.resource.id, status: 'RUNNING' } });
});

test('a create that throws rolls the claim back: the key makes a resource on the next request', async () => {
  const h = harness(randomUUID(), `k-${randomUUID()}`);
  const label = `rollback-${randomUUID()}`;
  await expect(idempotentCreate(h.spec(label, { create: () => Promise.reject(new Error('the family refused')) }))).rejects.toThrow('the family refused');
  expect(h.starts).toEqual([]);
  const ok = await idempotentCreate(h.spec(label));
  expect(ok.replay).toBe(false);
  expect(await countLabel(label)).toBe(1);
});

test('a key reused after its record expired gets a fresh key hash; the earlier resource stays', async () => {
  const key = `k-${randomUUID()}`;
  const scopeId = randomUUID();
  const h = harness(scopeId, key);
  const label = `expired-${randomUUID()}`;
  const past = new Date(Date.now() - 60_000);
  const first = await idempotentCreate(h.spec(label, { claim: { scopeId, operation: 'scratch.create', key, request: { label }, ttlMs: 1, now: past } }));
  expect(first.resource.key_hash).toBe(idempotencyKeyHash(key));
  const second = await idempotentCreate(h.spec(label));
  expect(second.replay).toBe(false);
  expect(second.resource.id).not.toBe(first.resource.id);
  const records = await db.$queryRaw<{ id: string }[]>`
    SELECT id::text AS id FROM idempotency_records WHERE scope_id = ${scopeId}::uuid AND key_hash = ${idempotencyKeyHash(key)}`;
  expect(records).toHaveLength(1);
  expect(second.resource.key_hash).toBe(reclaimedKeyHash(idempotencyKeyHash(key), records[0]!.id));
  expect(await countLabel(label)).toBe(2);
});

test('a resource without a key hash (no keyHashTaken hook) and without a start', async () => {
  const h = harness(randomUUID(), `k-${randomUUID()}`);
  const label = `plain-${randomUUID()}`;
  const { keyHashTaken: _taken, start: _start, ...plain } = h.spec(label);
  const r = await idempotentCreate(plain);
  expect(r).toMatchObject({ replay: false, resource: { status: 'QUEUED' } });
  expect((await idempotentCreate(plain)).resource.id).toBe(r.resource.id);
  expect(h.starts).toEqual([]);
});

test('concurrent requests with one key make one resource and one start; all answer its id', async () => {
  const h = harness(randomUUID(), `k-${randomUUID()}`);
  const label = `race-${randomUUID()}`;
  const results = await Promise.all(Array.from({ length: 8 }, () => idempotentCreate(h.spec(label))));
  const ids = new Set(results.map((r) => r.resource.id));
  expect(ids.size).toBe(1);
  expect(results.filter((r) => !r.replay)).toHaveLength(1);
  expect(h.starts).toEqual([...ids]);
  expect(await countLabel(label)).toBe(1);
});

/** The one-statement create of the scratch family: the claim's CTE, then the resource selected from it. */
function oneStatement(label: string, guard: Prisma.Sql = Prisma.sql`true`): OneStatementCreate<Scratch> {
  return {
    newId: () => randomUUID(),
    guard,
    async run(claim, ids) {
      const rows = await db.$queryRaw<Scratch[]>`
        WITH claim AS (${claim}),
        taken AS (SELECT EXISTS (SELECT 1 FROM scratch_resources WHERE key_hash = ${ids.keyHash}::text) AS taken)
        INSERT INTO scratch_resources (id, key_hash, label)
        SELECT ${ids.resourceId}::uuid, CASE WHEN taken.taken THEN ${ids.reclaimedKeyHash}::text ELSE ${ids.keyHash}::text END, ${label}::text
          FROM claim, taken
        RETURNING id::text AS id, key_hash, label, status`;
      return rows[0] ?? null;
    },
  };
}

/** A `db` whose transactions fail the test: the one statement must do without them. */
const noTransaction = { $transaction: () => Promise.reject(new Error('a transaction was opened')) } as unknown as PrismaClient;

describe('one-statement create', () => {
  test('a new key: the resource and the answered record in one statement, no transaction; the replay answers it', async () => {
    const key = `k-${randomUUID()}`;
    const scopeId = randomUUID();
    const h = harness(scopeId, key);
    const label = `one-stmt-${randomUUID()}`;
    const create = jest.fn(() => Promise.reject(new Error('the transaction create ran')));
    const first = await idempotentCreate(h.spec(label, { db: noTransaction, create, oneStatement: oneStatement(label) }));
    expect(first).toMatchObject({ statusCode: 202, replay: false, resource: { label, status: 'RUNNING', key_hash: idempotencyKeyHash(key) } });
    expect(create).not.toHaveBeenCalled();
    const records = await db.$queryRaw<{ status_code: number; resource_type: string; resource_id: string }[]>`
      SELECT status_code, resource_type, resource_id FROM idempotency_records WHERE scope_id = ${scopeId}::uuid AND key_hash = ${idempotencyKeyHash(key)}`;
    expect(records).toEqual([{ status_code: 202, resource_type: 'scratch', resource_id: first.resource.id }]);
    const again = await idempotentCreate(h.spec(label, { oneStatement: oneStatement(label) }));
    expect(again).toMatchObject({ replay: true, resource: { id: first.resource.id } });
    expect(h.starts).toEqual([first.resource.id]);
    expect(await countLabel(label)).toBe(1);
  });

  test('a false guard writes nothing; the transaction runs and answers its error', async () => {
    const key = `k-${randomUUID()}`;
    const scopeId = randomUUID();
    const h = harness(scopeId, key);
    const label = `guarded-${randomUUID()}`;
    const refused = h.spec(label, { oneStatement: oneStatement(label, Prisma.sql`false`), create: () => Promise.reject(new Error('not a member')) });
    await expect(idempotentCreate(refused)).rejects.toThrow('not a member');
    const records = await db.$queryRaw<unknown[]>`SELECT 1 FROM idempotency_records WHERE scope_id = ${scopeId}::uuid`;
    expect(records).toEqual([]);
    expect(await countLabel(label)).toBe(0);
    expect(h.starts).toEqual([]);
  });

  test('concurrent requests with one key make one resource and one start; all answer its id', async () => {
    const h = harness(randomUUID(), `k-${randomUUID()}`);
    const label = `race-one-${randomUUID()}`;
    const results = await Promise.all(Array.from({ length: 8 }, () => idempotentCreate(h.spec(label, { oneStatement: oneStatement(label) }))));
    const ids = new Set(results.map((r) => r.resource.id));
    expect(ids.size).toBe(1);
    expect(results.filter((r) => !r.replay)).toHaveLength(1);
    expect(h.starts).toEqual([...ids]);
    expect(await countLabel(label)).toBe(1);
  });

  test('a key reused after its record expired gets a fresh key hash; the earlier resource stays', async () => {
    const key = `k-${randomUUID()}`;
    const scopeId = randomUUID();
    const h = harness(scopeId, key);
    const label = `expired-one-${randomUUID()}`;
    const past = new Date(Date.now() - 60_000);
    const first = await idempotentCreate(h.spec(label, { claim: { scopeId, operation: 'scratch.create', key, request: { label }, ttlMs: 1, now: past }, oneStatement: oneStatement(label) }));
    expect(first.resource.key_hash).toBe(idempotencyKeyHash(key));
    const second = await idempotentCreate(h.spec(label, { db: noTransaction, oneStatement: oneStatement(label) }));
    expect(second.replay).toBe(false);
    const records = await db.$queryRaw<{ id: string }[]>`
      SELECT id::text AS id FROM idempotency_records WHERE scope_id = ${scopeId}::uuid AND key_hash = ${idempotencyKeyHash(key)}`;
    expect(records).toHaveLength(1);
    expect(second.resource.key_hash).toBe(reclaimedKeyHash(idempotencyKeyHash(key), records[0]!.id));
    expect(await countLabel(label)).toBe(2);
  });

  test('Temporal unavailable for the start: the resource and the record are undone (503); the retry creates it', async () => {
    const key = `k-${randomUUID()}`;
    const scopeId = randomUUID();
    let down = true;
    const h = harness(scopeId, key, async () => {
      if (down) throw unavailable();
      return 'started';
    });
    const label = `undo-one-${randomUUID()}`;
    await expect(idempotentCreate(h.spec(label, { oneStatement: oneStatement(label) }))).rejects.toMatchObject({ code: 'WORKFLOW_START_UNAVAILABLE' });
    expect({ resources: await countLabel(label), records: await recordsOf(scopeId) }).toEqual({ resources: 0, records: 0 });
    down = false;
    const ok = await idempotentCreate(h.spec(label, { oneStatement: oneStatement(label) }));
    expect(ok).toMatchObject({ replay: false, resource: { label, status: 'RUNNING' } });
    expect({ resources: await countLabel(label), records: await recordsOf(scopeId) }).toEqual({ resources: 1, records: 1 });
  });
});
