// Embedded PostgreSQL for when DATABASE_URL is unset: PGlite (WASM Postgres) with pgvector,
// served over the PostgreSQL wire protocol on 127.0.0.1 by PGLiteSocketServer.
//
// Concurrency decision: exactly ONE client connection (maxConnections 1), so callers use a pool
// of 1 (EMBEDDED_POOL_MAX). PGlite is a single Postgres session, and PGLiteSocketServer 0.2.17
// multiplexes connections onto it per protocol *message*: it keeps a connection's messages
// together only inside an explicit BEGIN block (IsTransactionBlock), not across an
// extended-query sequence (Parse/Bind/Execute/Sync). When a large Bind arrives in several TCP
// reads, another connection's Parse can replace the unnamed statement in between; we reproduced
// queries returning another connection's result with a pg.Pool of 8. With one connection every
// statement and transaction runs in order, and transactions are naturally serialised. The cost:
// one connection for the whole process (the embedded database is for development and demos), and
// nothing else (psql, a second process, `prisma migrate`) can connect while the app's pool holds
// it, so run migrations before creating the app's client. Real PostgreSQL has none of these limits.
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { Worker } from 'node:worker_threads';

/** Pool size callers must use against the embedded server (it accepts one connection). */
export const EMBEDDED_POOL_MAX = 1;

/** How long stop() waits for a clean close (open client connections, a stuck query) before terminating the thread. */
const STOP_TIMEOUT_MS = 10_000;

export interface EmbeddedPostgresOptions {
  /** Directory the database persists in (created if missing; relative to cwd), or `memory://`. */
  dataDir: string;
  /** TCP port on 127.0.0.1; 0 (the default) picks a free one. */
  port?: number;
  /** Receives one line per lifecycle event or server error. */
  log?: (message: string) => void;
}

export interface EmbeddedPostgres {
  /** `postgresql://postgres@127.0.0.1:<port>/postgres`: the default database, no password. */
  url: string;
  /** Always {@link EMBEDDED_POOL_MAX}: pass it as `createPrisma(url, { poolMax })`. */
  poolMax: number;
  /**
   * Closes the listener and the database (flushing it to dataDir), then ends the thread; after
   * 10 s it terminates the thread regardless. Disconnect clients first. Safe to call twice.
   */
  stop(): Promise<void>;
}

type WorkerMessage =
  | { type: 'ready'; conn: string }
  | { type: 'stopped' }
  | { type: 'log'; message: string }
  | { type: 'failed'; message: string };

// Runs in a worker thread: PGlite executes queries synchronously in WASM, so a thread of its own
// keeps the app's event loop free; it also gives PGlite a plain Node context for its dynamic
// import()s (which Jest's module sandbox refuses). Plain CommonJS so it needs no build step.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { PGlite } = require(workerData.modules.pglite);
const { vector } = require(workerData.modules.pgvector);
const { PGLiteSocketServer } = require(workerData.modules.socket);
(async () => {
  const db = await PGlite.create({ dataDir: workerData.dataDir, extensions: { vector } });
  const server = new PGLiteSocketServer({
    db, host: '127.0.0.1', port: workerData.port, maxConnections: workerData.maxConnections,
  });
  server.addEventListener('error', (e) => parentPort.postMessage({ type: 'log', message: 'server error: ' + String(e.detail) }));
  try {
    await server.start();
  } catch (err) {
    await db.close();
    throw err;
  }
  // net.Server refuses connections beyond maxConnections before PGLiteSocketServer sees them.
  server.server?.on('drop', (d) => parentPort.postMessage({
    type: 'log', message: 'refused a connection from port ' + (d && d.remotePort) + ': the one connection is in use',
  }));
  parentPort.on('message', async (m) => {
    if (m.type !== 'stop') return;
    await server.stop();
    await db.close();
    parentPort.postMessage({ type: 'stopped' });
    parentPort.close();
  });
  parentPort.postMessage({ type: 'ready', conn: server.getServerConn() });
})().catch((err) => parentPort.postMessage({ type: 'failed', message: String((err && err.stack) || err) }));
`;

/**
 * Starts PGlite 0.5 with the pgvector extension available (the init migration creates it) in a
 * worker thread and serves it on 127.0.0.1, one connection at a time (see the note at the top of
 * this file). No `CREATE DATABASE` is needed: the URL names the default `postgres` database,
 * usable by `scripts/prisma.sh migrate deploy` and by `createPrisma`. One process per dataDir.
 * @throws if dataDir cannot be created or opened, or the port is in use.
 */
export async function startEmbeddedPostgres(opts: EmbeddedPostgresOptions): Promise<EmbeddedPostgres> {
  const log = opts.log ?? (() => undefined);
  const dataDir = opts.dataDir.includes('://') ? opts.dataDir : path.resolve(opts.dataDir);
  if (!dataDir.includes('://')) await mkdir(dataDir, { recursive: true });

  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    workerData: {
      dataDir,
      port: opts.port ?? 0,
      maxConnections: EMBEDDED_POOL_MAX,
      modules: {
        pglite: require.resolve('@electric-sql/pglite'),
        pgvector: require.resolve('@electric-sql/pglite-pgvector'),
        socket: require.resolve('@electric-sql/pglite-socket'),
      },
    },
  });

  let onStopped: (() => void) | undefined;
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  const conn = await new Promise<string>((resolve, reject) => {
    worker.on('message', (m: WorkerMessage) => {
      if (m.type === 'ready') resolve(m.conn);
      else if (m.type === 'failed') reject(new Error(`embedded postgres did not start: ${m.message}`));
      else if (m.type === 'log') log(`embedded postgres: ${m.message}`);
      else if (m.type === 'stopped') onStopped?.();
    });
    worker.on('error', (err) => {
      log(`embedded postgres thread failed: ${err.stack ?? String(err)}`);
      reject(err);
    });
    worker.once('exit', (code) => reject(new Error(`embedded postgres thread exited with ${code} before it was ready`)));
  }).catch(async (err: unknown) => {
    await worker.terminate();
    throw err;
  });

  const port = Number(conn.slice(conn.lastIndexOf(':') + 1));
  const url = `postgresql://postgres@127.0.0.1:${port}/postgres`;
  log(`embedded postgres (PGlite + pgvector) at ${url}, data in ${dataDir}`);

  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      const stopped = new Promise<void>((resolve) => {
        onStopped = resolve;
      });
      worker.postMessage({ type: 'stop' });
      let timer: NodeJS.Timeout | undefined;
      const timedOut = new Promise<boolean>((resolve) => {
        timer = setTimeout(() => resolve(true), STOP_TIMEOUT_MS);
      });
      const late = await Promise.race([stopped.then(() => false), exited.then(() => false), timedOut]);
      clearTimeout(timer);
      await worker.terminate();
      log(late ? `embedded postgres did not close within ${STOP_TIMEOUT_MS} ms; thread terminated` : 'embedded postgres stopped');
    })());
  return { url, poolMax: EMBEDDED_POOL_MAX, stop };
}
