/**
 * Real PostgreSQL 15 for tests: one throwaway server per jest run (globalSetup), and one database
 * per test file cloned from a template migrated once per server.
 */
import { execFileSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { startChildServer, type ChildServer } from '../../src/dev/child-server';
import { migrateDeploy, repoRoot } from '../../src/db/migrate';
import { SERVER_START_TIMEOUT_MS } from './poll';

const TEMPLATE_DB = 'app_template';
/** pg_advisory_lock key serialising template creation and cloning across jest workers. */
const TEMPLATE_LOCK_KEY = 7_300_115;

export interface TestPostgres {
  /** `postgresql://postgres@127.0.0.1:<port>/postgres` (trust auth). */
  adminUrl: string;
  /** Stops the server (fast shutdown) and deletes its directory. */
  stop(): Promise<void>;
  /**
   * Fault injection: stops the server (fast shutdown, sessions are cut) but keeps its data, so
   * that {@link TestPostgres.resume} can start it again on the same port. Idempotent.
   */
  interrupt(): Promise<void>;
  /** Starts an interrupted server again on the same port and data; resolves once it answers. */
  resume(): Promise<void>;
}

function postgresUser(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
  const gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim());
  return { uid, gid };
}

/** Whether the server at `url` answers a query. */
async function answers(url: string): Promise<boolean> {
  const client = new Client({ connectionString: url, connectionTimeoutMillis: 1000 });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query('SELECT 1');
    return true;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/**
 * Starts PostgreSQL 15 from `PG_BIN_DIR` (default /usr/lib/postgresql/15/bin) in a fresh temp
 * directory on a 127.0.0.1 port verified to be its own (src/dev/child-server.ts): trust auth, fsync
 * off, run as the `postgres` user when the caller is root. Killed on process exit if `stop()` was not called.
 * @throws with the server log when initdb fails or the server is not ready within SERVER_START_TIMEOUT_MS.
 */
export async function startPostgres(): Promise<TestPostgres> {
  const binDir = process.env.PG_BIN_DIR ?? '/usr/lib/postgresql/15/bin';
  const owner = postgresUser();
  const dir = mkdtempSync(path.join(os.tmpdir(), 'pg15-test-'));
  if (owner) chownSync(dir, owner.uid, owner.gid);
  const dataDir = path.join(dir, 'data');
  const spawnOpts = { ...owner, cwd: dir, env: { ...process.env, LC_ALL: 'C.UTF-8' } };

  try {
    execFileSync(
      path.join(binDir, 'initdb'),
      ['-D', dataDir, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--locale=C.UTF-8', '--no-sync'],
      { ...spawnOpts, stdio: 'pipe' },
    );
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    const e = err as { stderr?: Buffer; message: string };
    throw new Error(`initdb failed: ${e.stderr?.toString() ?? e.message}`);
  }

  const settings = (port: number) => ({
    listen_addresses: '127.0.0.1',
    port: String(port),
    unix_socket_directories: dir,
    fsync: 'off',
    synchronous_commit: 'off',
    full_page_writes: 'off',
    max_connections: '200',
    shared_buffers: '128MB',
  });
  const launch = (ports?: number[]) =>
    startChildServer({
      name: 'postgres',
      command: path.join(binDir, 'postgres'),
      args: ([port]) => ['-D', dataDir, ...Object.entries(settings(port!)).flatMap(([k, v]) => ['-c', `${k}=${v}`])],
      ports,
      ...spawnOpts,
      startTimeoutMs: SERVER_START_TIMEOUT_MS,
      stopSignal: 'SIGINT', // fast shutdown
      stopGraceMs: 30_000,
      ready: ([port]) => answers(`postgresql://postgres@127.0.0.1:${port}/postgres`),
    });
  let server: ChildServer;
  try {
    server = await launch();
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  const port = server.ports[0]!;
  const adminUrl = `postgresql://postgres@127.0.0.1:${port}/postgres`;
  let running = true;
  const watch = (s: ChildServer) =>
    void s.exited.then(() => {
      if (s === server) running = false;
    });
  watch(server);
  const cleanup = async () => {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  };
  let stopping: Promise<void> | undefined;
  return {
    adminUrl,
    stop: () => (stopping ??= cleanup()),
    interrupt: () => server.stop(),
    async resume() {
      if (stopping) throw new Error('postgres was stopped for good');
      if (running) return;
      server = await launch([port]);
      running = true;
      watch(server);
    },
  };
}

function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

/** Hash of prisma/migrations, stored as the template's comment so a stale template is rebuilt. */
function migrationsFingerprint(): string {
  const dir = path.join(repoRoot(), 'prisma', 'migrations');
  const h = createHash('sha256');
  const walk = (d: string) => {
    for (const name of readdirSync(d, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const p = path.join(d, name.name);
      if (name.isDirectory()) walk(p);
      else {
        h.update(path.relative(dir, p));
        h.update(readFileSync(p));
      }
    }
  };
  if (existsSync(dir)) walk(dir);
  return `migrations:${h.digest('hex')}`;
}

export interface TestDatabase {
  /** URL of the new database on the same server. */
  url: string;
  /** Drops the database, disconnecting any remaining sessions. */
  drop(): Promise<void>;
}

/**
 * Creates `test_<random>` as a copy of `app_template`, which is migrated with `migrateDeploy`
 * the first time (or when prisma/migrations changed; see {@link prepareTemplate}). Template work
 * and cloning are serialised across jest workers by a PostgreSQL advisory lock.
 * @throws MigrationError when the template cannot be migrated.
 */
export async function createTestDatabase(adminUrl: string): Promise<TestDatabase> {
  const name = `test_${randomBytes(6).toString('hex')}`;
  await withTemplate(adminUrl, (admin) => admin.query(`CREATE DATABASE ${name} TEMPLATE ${TEMPLATE_DB}`));
  return { url: withDatabase(adminUrl, name), drop: dropper(adminUrl, name) };
}

/**
 * Migrates `app_template` on the server at `adminUrl` unless it is current (globalSetup does this
 * while the other test servers start, so that no test file waits for it).
 * @throws MigrationError when the template cannot be migrated.
 */
export async function prepareTemplate(adminUrl: string): Promise<void> {
  await withTemplate(adminUrl, async () => undefined);
}

/** Runs `then` under the template lock once `app_template` is current (migrated with `migrateDeploy` if not). */
async function withTemplate(adminUrl: string, then: (admin: Client) => Promise<unknown>): Promise<void> {
  const admin = new Client({ connectionString: adminUrl });
  admin.on('error', () => undefined); // a server shut down mid-call surfaces through the pending query
  await admin.connect();
  try {
    await admin.query('SELECT pg_advisory_lock($1)', [TEMPLATE_LOCK_KEY]);
    try {
      const fingerprint = migrationsFingerprint();
      const { rows } = await admin.query<{ comment: string | null }>(
        `SELECT shobj_description(oid, 'pg_database') AS comment FROM pg_database WHERE datname = $1`,
        [TEMPLATE_DB],
      );
      if (rows[0]?.comment !== fingerprint) {
        await admin.query(`DROP DATABASE IF EXISTS ${TEMPLATE_DB} WITH (FORCE)`);
        await admin.query(`CREATE DATABASE ${TEMPLATE_DB}`);
        await migrateDeploy(withDatabase(adminUrl, TEMPLATE_DB));
        await admin.query(`COMMENT ON DATABASE ${TEMPLATE_DB} IS '${fingerprint}'`);
      }
      await then(admin);
    } finally {
      await admin.query('SELECT pg_advisory_unlock($1)', [TEMPLATE_LOCK_KEY]);
    }
  } finally {
    await admin.end();
  }
}

/** `drop()` of a {@link TestDatabase}: runs once however often it is called. */
function dropper(adminUrl: string, name: string): () => Promise<void> {
  let dropping: Promise<void> | undefined;
  return () =>
    (dropping ??= (async () => {
      const c = new Client({ connectionString: adminUrl });
      c.on('error', () => undefined);
      await c.connect();
      try {
        await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await c.end();
      }
    })());
}

/**
 * Creates `<prefix>_<random>` with no tables at all (no migration applied): for tests that migrate
 * a database themselves, or that need an empty shadow database for `prisma migrate diff`.
 */
export async function createEmptyDatabase(adminUrl: string, prefix = 'empty'): Promise<TestDatabase> {
  if (!/^[a-z][a-z0-9_]{0,40}$/.test(prefix)) throw new Error(`bad database name prefix ${JSON.stringify(prefix)}`);
  const name = `${prefix}_${randomBytes(6).toString('hex')}`;
  const admin = new Client({ connectionString: adminUrl });
  admin.on('error', () => undefined);
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  return { url: withDatabase(adminUrl, name), drop: dropper(adminUrl, name) };
}
