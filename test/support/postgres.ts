/**
 * Real PostgreSQL 15 for tests: one throwaway server per jest run (globalSetup), and one database
 * per test file cloned from a template migrated once per server.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { migrateDeploy, repoRoot } from '../../src/db/migrate';
import { pollUntil, PollTimeoutError, SERVER_START_TIMEOUT_MS } from './poll';

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

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

function postgresUser(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
  const gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim());
  return { uid, gid };
}

async function waitUntilReady(url: string, child: ChildProcess, log: () => string, timeoutMs: number): Promise<void> {
  try {
    await pollUntil(
      async () => {
        if (child.exitCode !== null) throw new Error(`postgres exited with ${child.exitCode}:\n${log()}`);
        const client = new Client({ connectionString: url, connectionTimeoutMillis: 1000 });
        client.on('error', () => undefined);
        try {
          await client.connect();
          await client.query('SELECT 1');
          return 'ready';
        } catch (err) {
          return String(err); // still starting: try again
        } finally {
          await client.end().catch(() => undefined);
        }
      },
      (outcome) => outcome === 'ready',
      { describe: 'postgres to accept connections', timeoutMs, intervalMs: 100, maxIntervalMs: 250 },
    );
  } catch (err) {
    if (err instanceof PollTimeoutError) throw new Error(`postgres not ready after ${timeoutMs} ms: ${String(err.lastValue)}\n${log()}`);
    throw err;
  }
}

/**
 * Starts PostgreSQL 15 from `PG_BIN_DIR` (default /usr/lib/postgresql/15/bin) in a fresh temp
 * directory on a free 127.0.0.1 port: trust auth, fsync off, run as the `postgres` user when the
 * caller is root. Killed on process exit if `stop()` was not called.
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

  const port = await freePort();
  const settings = {
    listen_addresses: '127.0.0.1',
    port: String(port),
    unix_socket_directories: dir,
    fsync: 'off',
    synchronous_commit: 'off',
    full_page_writes: 'off',
    max_connections: '200',
    shared_buffers: '128MB',
  };
  const args = ['-D', dataDir, ...Object.entries(settings).flatMap(([k, v]) => ['-c', `${k}=${v}`])];
  let output = '';
  const keep = (c: Buffer) => {
    output = (output + c.toString()).slice(-20_000);
  };
  const launch = () => {
    const proc = spawn(path.join(binDir, 'postgres'), args, { ...spawnOpts, stdio: ['ignore', 'pipe', 'pipe'] });
    proc.stdout?.on('data', keep);
    proc.stderr?.on('data', keep);
    const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
    return { proc, exited };
  };
  let server = launch();
  const killOnExit = () => server.proc.kill('SIGQUIT');
  process.once('exit', killOnExit);

  const adminUrl = `postgresql://postgres@127.0.0.1:${port}/postgres`;
  const shutDown = async () => {
    const { proc, exited } = server;
    if (proc.exitCode === null && proc.signalCode === null) {
      proc.kill('SIGINT');
      await exited;
    }
  };
  const cleanup = async () => {
    process.removeListener('exit', killOnExit);
    await shutDown();
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await waitUntilReady(adminUrl, server.proc, () => output, SERVER_START_TIMEOUT_MS);
  } catch (err) {
    await cleanup();
    throw err;
  }
  let stopping: Promise<void> | undefined;
  return {
    adminUrl,
    stop: () => (stopping ??= cleanup()),
    interrupt: shutDown,
    async resume() {
      if (stopping) throw new Error('postgres was stopped for good');
      if (server.proc.exitCode === null && server.proc.signalCode === null) return;
      server = launch();
      await waitUntilReady(adminUrl, server.proc, () => output, SERVER_START_TIMEOUT_MS);
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
 * the first time (or when prisma/migrations changed). Template work and cloning are serialised
 * across jest workers by a PostgreSQL advisory lock.
 * @throws MigrationError when the template cannot be migrated.
 */
export async function createTestDatabase(adminUrl: string): Promise<TestDatabase> {
  const name = `test_${randomBytes(6).toString('hex')}`;
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
      await admin.query(`CREATE DATABASE ${name} TEMPLATE ${TEMPLATE_DB}`);
    } finally {
      await admin.query('SELECT pg_advisory_unlock($1)', [TEMPLATE_LOCK_KEY]);
    }
  } finally {
    await admin.end();
  }

  return { url: withDatabase(adminUrl, name), drop: dropper(adminUrl, name) };
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
