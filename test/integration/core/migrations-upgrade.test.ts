/**
 * Upgrade check (DC-3 projections survive releases): an empty database is migrated one release at
 * a time with Prisma's own `migrate deploy` (a temp migrations folder holding the first N folders
 * of prisma/migrations, see test/support/prisma-upgrade.config.ts), and after each migration that
 * release's seed (test/migrations/<migration>.seed.sql) writes real rows. After the last migration
 * every row of every release must still be there with the values it was written with, and
 * `migrate status` against prisma/migrations must find nothing pending.
 */
import { copyFileSync, cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { migrateDeploy, repoRoot } from '../../../src/db/migrate';
import { runPrisma } from '../../support/prisma-cli';
import { createEmptyDatabase, type TestDatabase } from '../../support/postgres';
import { added, listMigrations, lostRows, newRows, readCatalog, seedFile, snapshot, uncovered, type Snapshot } from '../../support/upgrade';

const root = repoRoot();
const MIGRATIONS = path.join(root, 'prisma', 'migrations');
const SEEDS = path.join(root, 'test', 'migrations');
const UPGRADE_CONFIG = path.join(root, 'test', 'support', 'prisma-upgrade.config.ts');
const migrations = listMigrations(MIGRATIONS);

let db: TestDatabase | undefined;
let pg: Client | undefined;
let stepDir: string | undefined;

afterAll(async () => {
  await pg?.end();
  await db?.drop();
  if (stepDir) rmSync(stepDir, { recursive: true, force: true });
});

it('every migration ships with a seed file, and every seed file belongs to a migration', () => {
  expect(migrations.length).toBeGreaterThan(0);
  expect(migrations.filter((m) => !existsSync(seedFile(SEEDS, m)))).toEqual([]);
  const orphans = readdirSync(SEEDS)
    .filter((f) => f.endsWith('.seed.sql'))
    .map((f) => f.slice(0, -'.seed.sql'.length))
    .filter((m) => !migrations.includes(m));
  expect(orphans).toEqual([]);
});

it(
  'applies the migrations one release at a time over the data of every earlier release, and every seeded row survives',
  async () => {
    db = await createEmptyDatabase(process.env.TEST_PG_ADMIN_URL!, 'upgrade');
    pg = new Client({ connectionString: db.url, options: '-c TimeZone=UTC' });
    await pg.connect();
    stepDir = mkdtempSync(path.join(os.tmpdir(), 'migrations-upgrade-'));
    copyFileSync(path.join(MIGRATIONS, 'migration_lock.toml'), path.join(stepDir, 'migration_lock.toml'));

    const releases: Array<{ release: string; rows: Snapshot }> = [];
    let previous: Snapshot = new Map();
    for (const [i, migration] of migrations.entries()) {
      const before = await readCatalog(pg);
      cpSync(path.join(MIGRATIONS, migration), path.join(stepDir, migration), { recursive: true });
      await migrateDeploy(db.url, { config: UPGRADE_CONFIG, env: { PRISMA_MIGRATIONS_PATH: stepDir } });
      const applied = await pg.query<{ migration_name: string }>(
        'SELECT migration_name FROM _prisma_migrations WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL ORDER BY migration_name',
      );
      expect(applied.rows.map((r) => r.migration_name)).toEqual(migrations.slice(0, i + 1));

      const seedPath = seedFile(SEEDS, migration);
      if (!existsSync(seedPath)) throw new Error(`${migration} has no seed: write ${path.relative(root, seedPath)} (prisma/README.md)`);
      const seed = readFileSync(seedPath, 'utf8');
      await pg.query('BEGIN');
      try {
        await pg.query(seed);
        await pg.query('COMMIT');
      } catch (err) {
        await pg.query('ROLLBACK');
        throw new Error(`${path.relative(root, seedPath)} failed: ${(err as Error).message}`);
      }
      // The seed writes rows into every table and every enum value its migration added.
      expect({ migration, gaps: await uncovered(pg, added(before, await readCatalog(pg))) }).toEqual({ migration, gaps: [] });

      const now = await snapshot(pg);
      releases.push({ release: migration, rows: newRows(previous, now) });
      previous = now;
    }

    expect(lostRows(releases, await snapshot(pg))).toEqual([]);
    // The upgraded database is exactly what prisma/migrations describes: nothing pending, no checksum drift.
    const status = await runPrisma(['migrate', 'status'], { DATABASE_URL: db.url });
    expect({ code: status.code, output: status.output }).toMatchObject({ code: 0, output: expect.stringContaining('Database schema is up to date') });
  },
  // `migrate deploy` on the WASM engine takes about 11 s each (a 10 s engine timer keeps the CLI alive).
  migrations.length * 45_000 + 30_000,
);
