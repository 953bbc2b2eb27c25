/**
 * prisma/migrations and prisma/schema describe the same database (DC-3): `prisma migrate diff`
 * from the migrations (replayed on an empty shadow database) to the multi-file schema is empty, so
 * a schema change that ships without its migration fails here. The migrations hold CHECK
 * constraints, which the schema engine describes (through src/db/migrate-adapter.ts) and leaves out
 * of the diff. The second case proves the same diff does see a change.
 */
import { appendFileSync, cpSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { repoRoot } from '../../../src/db/migrate';
import { runPrisma, type PrismaRun } from '../../support/prisma-cli';
import { createEmptyDatabase, type TestDatabase } from '../../support/postgres';

const root = repoRoot();
const databases: TestDatabase[] = [];
let tmp: string | undefined;

afterAll(async () => {
  await Promise.all(databases.map((d) => d.drop()));
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

/** `migrate diff --from-migrations prisma/migrations --to-schema-datamodel <schema> --script --exit-code`. */
async function diffMigrationsTo(schema: string): Promise<PrismaRun> {
  // The JS engine connects to DATABASE_URL even for this diff; the migrations replay on the shadow.
  const [target, shadow] = await Promise.all([
    createEmptyDatabase(process.env.TEST_PG_ADMIN_URL!, 'diff'),
    createEmptyDatabase(process.env.TEST_PG_ADMIN_URL!, 'shadow'),
  ]);
  databases.push(target, shadow);
  const migrations = path.join(root, 'prisma', 'migrations');
  return runPrisma(['migrate', 'diff', '--from-migrations', migrations, '--to-schema-datamodel', schema, '--script', '--exit-code'], {
    DATABASE_URL: target.url,
    SHADOW_DATABASE_URL: shadow.url,
  });
}

it('the migrations in prisma/migrations build exactly the tables of prisma/schema', async () => {
  const run = await diffMigrationsTo(path.join(root, 'prisma', 'schema'));
  // --exit-code: 0 = no difference, 2 = a difference, 1 = an error.
  expect(run).toMatchObject({ code: 0, output: expect.stringContaining('-- This is an empty migration.') });
});

it('a schema change without a migration is reported', async () => {
  tmp = mkdtempSync(path.join(os.tmpdir(), 'schema-drift-'));
  cpSync(path.join(root, 'prisma', 'schema'), tmp, { recursive: true });
  appendFileSync(path.join(tmp, 'san.prisma'), '\nmodel DriftProbe {\n  id String @id @db.Uuid\n\n  @@map("drift_probe")\n}\n');
  const run = await diffMigrationsTo(tmp);
  expect(run).toMatchObject({ code: 2, output: expect.stringContaining('CREATE TABLE "drift_probe"') });
});
