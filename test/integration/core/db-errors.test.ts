/**
 * The database-error classifier against errors raised by the real PostgreSQL 15 through Prisma and
 * adapter-pg: deterministic input and constraint failures, and a server that is gone.
 */
import type { PrismaClient } from '@prisma/client';
import { createPrisma } from '../../../src/db/client';
import { classifyDbError, isDbUnavailable } from '../../../src/db/errors';
import { createTestDatabase, startPostgres, type TestDatabase, type TestPostgres } from '../../support/postgres';

let pg: TestPostgres;
let database: TestDatabase;
let db: PrismaClient;
beforeAll(async () => {
  pg = await startPostgres(); // its own server: this file stops it
  database = await createTestDatabase(pg.adminUrl);
  db = createPrisma(database.url, { poolMax: 2, connectionTimeoutMs: 2000 });
});
afterAll(async () => {
  await db?.$disconnect();
  await pg?.stop();
});

async function errorOf(fn: () => Promise<unknown>): Promise<unknown> {
  try {
    await fn();
  } catch (err) {
    return err;
  }
  throw new Error('expected the call to fail');
}

it.each([
  ['a NUL character', 'nul\u0000name', '22021'],
  ['a lone leading surrogate', 'lone\ud800', undefined],
  ['a lone trailing surrogate', 'lone\udc00x', undefined],
])('a string with %s is a deterministic data exception', async (_label, name, sqlState) => {
  const inTx = await errorOf(() => db.$transaction((tx) => tx.category.create({ data: { name } })));
  const plain = await errorOf(() => db.category.createMany({ data: [{ name }], skipDuplicates: true }));
  for (const err of [inTx, plain]) {
    const info = classifyDbError(err);
    expect(info).toMatchObject({ class: 'deterministic', kind: 'data-exception' });
    expect(info?.sqlState).toBe(sqlState);
    expect(info?.message).not.toContain('invocation'); // the reason, not Prisma's call-site dump
  }
});

it('a value too long for its column and an invalid uuid are data exceptions', async () => {
  const user = await db.user.create({ data: { name: `u-${Date.now()}` } });
  const tooLong = await errorOf(() => db.scrap.create({ data: { userId: user.id, content: 'x', contentHash: 'f'.repeat(65) } }));
  expect(classifyDbError(tooLong)).toMatchObject({ class: 'deterministic', kind: 'data-exception' });
  const badUuid = await errorOf(() => db.$queryRaw`SELECT ${'not-a-uuid'}::uuid`);
  expect(classifyDbError(badUuid)).toMatchObject({ class: 'deterministic', kind: 'data-exception', sqlState: '22P02' });
});

it('constraint violations are integrity violations; an unknown column is a syntax/access error', async () => {
  await db.category.create({ data: { name: 'dup-category' } });
  const dup = await errorOf(() => db.category.create({ data: { name: 'dup-category' } }));
  expect(classifyDbError(dup)).toMatchObject({ class: 'deterministic', kind: 'integrity-violation' });
  const fk = await errorOf(() => db.$executeRaw`INSERT INTO api_tokens (id, user_id, token_hash) VALUES (gen_random_uuid(), gen_random_uuid(), ${'a'.repeat(64)})`);
  expect(classifyDbError(fk)).toMatchObject({ class: 'deterministic', kind: 'integrity-violation', sqlState: '23503' });
  const column = await errorOf(() => db.$queryRawUnsafe('SELECT no_such_column FROM categories'));
  expect(classifyDbError(column)).toMatchObject({ class: 'deterministic', kind: 'syntax-or-access-rule', sqlState: '42703' });
});

it('a serialisation-style error of no known class is transient', async () => {
  const err = await errorOf(() => db.$executeRawUnsafe(`DO $$ BEGIN RAISE EXCEPTION 'custom' USING ERRCODE = '40001'; END $$`));
  expect(classifyDbError(err)).toMatchObject({ class: 'transient', sqlState: '40001' });
  expect(classifyDbError(new Error('not a database error'))).toBeUndefined();
});

it('a terminated session and a stopped server are "unavailable"', async () => {
  const terminated = await errorOf(() => db.$executeRawUnsafe('SELECT pg_terminate_backend(pg_backend_pid())'));
  expect(classifyDbError(terminated)).toMatchObject({ class: 'unavailable', kind: 'unavailable', sqlState: '57P01' });
  await pg.stop();
  for (const call of [
    () => db.category.findMany(),
    () => db.$transaction((tx) => tx.category.findMany()),
    () => db.$queryRaw`SELECT 1`,
  ]) {
    const err = await errorOf(call);
    expect(classifyDbError(err)).toMatchObject({ class: 'unavailable', kind: 'unavailable' });
    expect(isDbUnavailable(err)).toBe(true);
  }
});
