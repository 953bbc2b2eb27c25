/**
 * The replay fast path of the idempotent create on real PostgreSQL (src/core/replay-answers.ts
 * over the hot reads), over a scratch resource: a replay answers exactly the first answer without a
 * transaction or a start; another request under the key is 409 as on the normal path; a record
 * whose first request is still in flight is neither answered nor cached here; an expired record is
 * not replayed; a record withdrawn by the 503 undo is dropped from the cache (also when a replay
 * cached it in the moment between its commit and its withdrawal); a record withdrawn by another
 * process is found out by its missing resource; scopes never meet; the cache stays bounded.
 */
import { randomUUID } from 'node:crypto';
import { ServiceError } from '@temporalio/client';
import type { PrismaClient } from '@prisma/client';
import type { Pool } from 'pg';
import type { WarnLog } from '../../../src/core/after-commit';
import { createPrisma, pgPoolOf } from '../../../src/db/client';
import { createHotReads, type HotReads } from '../../../src/db/hot-reads';
import { fingerprintRequest, idempotencyKeyHash } from '../../../src/core/idempotency';
import { idempotentCreate, type IdempotentCreateSpec } from '../../../src/core/idempotent-create';
import { createReplayAnswers, type ReplayAnswers } from '../../../src/core/replay-answers';
import type { StartOutcome } from '../../../src/core/workflow-start';
import { createTestDatabase } from '../../support/postgres';

let db: PrismaClient;
let reads: HotReads;
let drop: () => Promise<void>;

beforeAll(async () => {
  const database = await createTestDatabase(process.env.TEST_PG_ADMIN_URL!);
  drop = database.drop;
  db = createPrisma(database.url, { poolMax: 8, connectionTimeoutMs: 30_000 });
  reads = createHotReads(pgPoolOf(db) as Pool, { prepared: true });
  await db.$executeRawUnsafe(
    "CREATE TABLE scratch_replays (id uuid PRIMARY KEY, key_hash text NOT NULL UNIQUE, label text NOT NULL, status text NOT NULL DEFAULT 'QUEUED')",
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

const SCRATCH_ROW = 'SELECT id::text AS id, key_hash, label, status FROM scratch_replays WHERE id = $1::uuid';

/** Counts what a request does: transactions opened, starts, fast-path reads of the resource. */
interface Counts {
  transactions: number;
  starts: number;
  fastReads: number;
}

/** The scratch family's hooks under `scopeId` / `key`, with the fast path `answers`; the start marks the resource RUNNING. */
function family(answers: ReplayAnswers, scopeId: string, key: string, startResult: () => Promise<StartOutcome> = async () => 'started') {
  const counts: Counts = { transactions: 0, starts: 0, fastReads: 0 };
  const log: WarnLog = { warn: () => undefined };
  const counted = { $transaction: ((fn: Parameters<PrismaClient['$transaction']>[0]) => (counts.transactions++, db.$transaction(fn as never))) as PrismaClient['$transaction'] };
  const spec = (label: string, over: Partial<IdempotentCreateSpec<Scratch>> = {}): IdempotentCreateSpec<Scratch> => ({
    db: counted,
    claim: { scopeId, operation: 'scratch.replay', key, request: { label } },
    statusCode: 202,
    resourceType: 'scratch',
    keyHashTaken: async (tx, keyHash) => (await tx.$queryRaw<unknown[]>`SELECT 1 FROM scratch_replays WHERE key_hash = ${keyHash}`).length > 0,
    async create(tx, keyHash) {
      const id = randomUUID();
      await tx.$executeRaw`INSERT INTO scratch_replays (id, key_hash, label) VALUES (${id}::uuid, ${keyHash}, ${label})`;
      return { id, key_hash: keyHash, label, status: 'QUEUED' };
    },
    idOf: (r) => r.id,
    read: (id) => reads.row<Scratch>('scratch_replay_read', SCRATCH_ROW, [id]),
    replays: answers,
    readReplayed: (id) => {
      counts.fastReads++;
      return reads.row<Scratch>('scratch_replay_read', SCRATCH_ROW, [id]);
    },
    start: {
      async run(r) {
        counts.starts++;
        const outcome = await startResult();
        await db.$executeRaw`UPDATE scratch_replays SET status = 'RUNNING' WHERE id = ${r.id}::uuid`;
        return outcome;
      },
      ids: (r) => ({ scratchId: r.id }),
      remove: (tx, r) => tx.$executeRaw`DELETE FROM scratch_replays WHERE id = ${r.id}::uuid`,
      log,
    },
    ...over,
  });
  return { spec, counts };
}

const answersOver = (max = 100, now?: () => number) =>
  createReplayAnswers({ read: (scopeId, operation, keyHash) => reads.idempotencyRecord(scopeId, operation, keyHash), max, ...(now ? { now } : {}) });

/** What the API would answer: status code and the resource's state. */
const answerOf = (r: { statusCode: number; resource: Scratch }) => ({ statusCode: r.statusCode, resource: r.resource });

test('a replay answers exactly the first answer, without a transaction or a start, from the cache after its first read', async () => {
  const answers = answersOver();
  const f = family(answers, randomUUID(), `k-${randomUUID()}`);
  const label = `same-${randomUUID()}`;
  const first = await idempotentCreate(f.spec(label));
  expect(first).toMatchObject({ replay: false, statusCode: 202, resource: { label, status: 'RUNNING' } });
  expect(f.counts).toEqual({ transactions: 1, starts: 1, fastReads: 0 });

  const readRecord = jest.spyOn(reads, 'idempotencyRecord');
  try {
    const replays = [await idempotentCreate(f.spec(label)), await idempotentCreate(f.spec(label))];
    for (const r of replays) expect({ replay: r.replay, ...answerOf(r) }).toEqual({ replay: true, ...answerOf(first) });
    expect(f.counts).toEqual({ transactions: 1, starts: 1, fastReads: 2 });
    // The first replay read the record; the second found it cached.
    expect(readRecord).toHaveBeenCalledTimes(1);
  } finally {
    readRecord.mockRestore();
  }
});

test('another request under the key answers 409 IDEMPOTENCY_KEY_CONFLICT naming the fields, as the normal path does', async () => {
  const scopeId = randomUUID();
  const key = `k-${randomUUID()}`;
  const f = family(answersOver(), scopeId, key);
  await idempotentCreate(f.spec('original'));
  const fast = await idempotentCreate(f.spec('changed')).catch((e: unknown) => e);
  const slow = await idempotentCreate({ ...family(answersOver(0), scopeId, key).spec('changed'), replays: undefined }).catch((e: unknown) => e);
  expect(fast).toMatchObject({ code: 'IDEMPOTENCY_KEY_CONFLICT', errors: [{ path: 'body.label' }] });
  expect(fast).toEqual(slow);
  // Cached now: the same verdict again, still without a transaction.
  await expect(idempotentCreate(f.spec('changed'))).rejects.toMatchObject({ code: 'IDEMPOTENCY_KEY_CONFLICT' });
  expect(f.counts.transactions).toBe(1);
});

test('a key whose first request is still in flight is not answered nor cached by the fast path; the request waits for the first answer', async () => {
  const answers = answersOver();
  const scopeId = randomUUID();
  const key = `k-${randomUUID()}`;
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  let created!: () => void;
  const inCreate = new Promise<void>((resolve) => (created = resolve));
  const f = family(answers, scopeId, key);
  const label = `flight-${randomUUID()}`;
  const slowCreate = f.spec(label).create;
  const first = idempotentCreate(
    f.spec(label, {
      async create(tx, keyHash) {
        const r = await slowCreate(tx, keyHash);
        created();
        await gate;
        return r;
      },
    }),
  );
  await inCreate;
  // The claim is not committed: the fast path finds nothing and leaves the request to the claim.
  expect(await answers.lookup({ scopeId, operation: 'scratch.replay', key, request: { label } })).toBeNull();
  const second = idempotentCreate(f.spec(label));
  release();
  const [a, b] = await Promise.all([first, second]);
  expect(b).toMatchObject({ replay: true, statusCode: 202, resource: { id: a.resource.id } });
  expect(f.counts.starts).toBe(1);

  // A committed record without an answer (a caller that records it outside the claim's transaction): not answered, not cached.
  const pendingKey = `k-${randomUUID()}`;
  const fp = await fingerprintRequest({ label });
  await db.$executeRaw`
    INSERT INTO idempotency_records (id, scope_id, operation, key_hash, request_hash, field_hashes, created_at, expires_at)
    VALUES (${randomUUID()}::uuid, ${scopeId}::uuid, 'scratch.replay', ${idempotencyKeyHash(pendingKey)}, ${fp.requestHash},
            ${JSON.stringify(fp.fieldHashes)}::jsonb, now(), now() + interval '1 hour')`;
  const sizeBefore = answers.size();
  expect(await answers.lookup({ scopeId, operation: 'scratch.replay', key: pendingKey, request: { label } })).toBeNull();
  expect(answers.size()).toBe(sizeBefore);
  await expect(idempotentCreate(family(answers, scopeId, pendingKey).spec(label))).rejects.toMatchObject({ code: 'IDEMPOTENCY_KEY_IN_PROGRESS' });
});

test('an expired record is not replayed, also when it is cached: the key makes a new resource', async () => {
  let clock = Date.now();
  const answers = answersOver(100, () => clock);
  const scopeId = randomUUID();
  const key = `k-${randomUUID()}`;
  const f = family(answers, scopeId, key);
  const label = `expiry-${randomUUID()}`;
  const ttlMs = 60_000;
  const withTtl = (now: Date) => f.spec(label, { claim: { scopeId, operation: 'scratch.replay', key, request: { label }, ttlMs, now } });
  const first = await idempotentCreate(withTtl(new Date(clock)));
  expect((await idempotentCreate(withTtl(new Date(clock)))).replay).toBe(true);
  expect(answers.size()).toBe(1);
  clock += ttlMs + 1;
  expect(await answers.lookup({ scopeId, operation: 'scratch.replay', key, request: { label } })).toBeNull();
  const after = await idempotentCreate(withTtl(new Date(clock)));
  expect(after.replay).toBe(false);
  expect(after.resource.id).not.toBe(first.resource.id);
});

/** What the Temporal client throws when the frontend cannot be reached (gRPC UNAVAILABLE). */
const unavailable = () => new ServiceError('Failed to start Workflow', { cause: Object.assign(new Error('14 UNAVAILABLE: No connection established'), { code: 14, details: 'No connection established', metadata: {} }) });

test('a record withdrawn by the 503 undo is dropped from the cache, also one a replay cached between the commit and the undo', async () => {
  const answers = answersOver();
  const scopeId = randomUUID();
  const key = `k-${randomUUID()}`;
  const label = `withdrawn-${randomUUID()}`;
  let down = true;
  let replayedMeanwhile: unknown;
  const f = family(answers, scopeId, key, async () => {
    if (!down) return 'started';
    // A replay of this process between the commit and the undo: it finds the answered record and caches it.
    replayedMeanwhile = await answers.lookup({ scopeId, operation: 'scratch.replay', key, request: { label } });
    throw unavailable();
  });
  await expect(idempotentCreate(f.spec(label))).rejects.toMatchObject({ code: 'WORKFLOW_START_UNAVAILABLE' });
  expect(replayedMeanwhile).toMatchObject({ statusCode: 202, resourceType: 'scratch' });
  expect(answers.size()).toBe(0);
  expect(await answers.lookup({ scopeId, operation: 'scratch.replay', key, request: { label } })).toBeNull();
  down = false;
  const retried = await idempotentCreate(f.spec(label));
  expect(retried).toMatchObject({ replay: false, statusCode: 202, resource: { label, status: 'RUNNING' } });
});

test('a record withdrawn by another process: its cached copy finds the resource gone and the request takes the normal path', async () => {
  const here = answersOver();
  const scopeId = randomUUID();
  const key = `k-${randomUUID()}`;
  const label = `elsewhere-${randomUUID()}`;
  const f = family(here, scopeId, key);
  const first = await idempotentCreate(f.spec(label));
  expect((await idempotentCreate(f.spec(label))).replay).toBe(true);
  expect(here.size()).toBe(1);
  // The other process's undo: the resource and the record go in one transaction.
  await db.$transaction([
    db.$executeRaw`DELETE FROM scratch_replays WHERE id = ${first.resource.id}::uuid`,
    db.$executeRaw`DELETE FROM idempotency_records WHERE scope_id = ${scopeId}::uuid AND key_hash = ${idempotencyKeyHash(key)}`,
  ]);
  const again = await idempotentCreate(f.spec(label));
  expect(again.replay).toBe(false);
  expect(again.resource.id).not.toBe(first.resource.id);
});

test('a cached record another process withdrew does not refuse the key freed for a different request', async () => {
  const here = answersOver();
  const scopeId = randomUUID();
  const key = `k-${randomUUID()}`;
  const f = family(here, scopeId, key);
  const firstLabel = `first-${randomUUID()}`;
  const first = await idempotentCreate(f.spec(firstLabel));
  expect((await idempotentCreate(f.spec(firstLabel))).replay).toBe(true);
  expect(here.size()).toBe(1);
  // The other process's undo, then a new request under the freed key with another body.
  await db.$transaction([
    db.$executeRaw`DELETE FROM scratch_replays WHERE id = ${first.resource.id}::uuid`,
    db.$executeRaw`DELETE FROM idempotency_records WHERE scope_id = ${scopeId}::uuid AND key_hash = ${idempotencyKeyHash(key)}`,
  ]);
  const other = await idempotentCreate(f.spec(`second-${randomUUID()}`));
  expect(other.replay).toBe(false);
  expect(other.resource.id).not.toBe(first.resource.id);
  // The stale copy is read again instead of answering 409, and the new answer replays.
  const replayed = await idempotentCreate(f.spec(other.resource.label));
  expect(replayed).toMatchObject({ replay: true, resource: { id: other.resource.id } });
});

test('scopes never meet: one key and operation in two scopes make two resources, each replayed in its own scope', async () => {
  const answers = answersOver();
  const key = `k-${randomUUID()}`;
  const label = `scoped-${randomUUID()}`;
  const a = family(answers, randomUUID(), key);
  const b = family(answers, randomUUID(), key);
  const ra = await idempotentCreate(a.spec(label));
  expect((await idempotentCreate(a.spec(label))).resource.id).toBe(ra.resource.id);
  const rb = await idempotentCreate(b.spec(label));
  expect(rb.replay).toBe(false);
  expect(rb.resource.id).not.toBe(ra.resource.id);
  expect((await idempotentCreate(b.spec(label))).resource.id).toBe(rb.resource.id);
  expect((await idempotentCreate(a.spec(label))).resource.id).toBe(ra.resource.id);
});

test('the cache holds at most `max` answered records; an evicted one is read again', async () => {
  const answers = answersOver(2);
  const scopeId = randomUUID();
  const keys = [`k-${randomUUID()}`, `k-${randomUUID()}`, `k-${randomUUID()}`];
  for (const key of keys) {
    const f = family(answers, scopeId, key);
    await idempotentCreate(f.spec('bounded'));
    expect((await idempotentCreate(f.spec('bounded'))).replay).toBe(true);
  }
  expect(answers.size()).toBe(2);
  const f = family(answers, scopeId, keys[0]!);
  expect((await idempotentCreate(f.spec('bounded'))).replay).toBe(true);
  expect(f.counts.transactions).toBe(0);
});
