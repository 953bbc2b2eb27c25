// Embedded PostgreSQL for when DATABASE_URL is unset: PGlite (WASM Postgres) with pgvector in a
// worker thread, served over the PostgreSQL wire protocol on 127.0.0.1 by src/db/pglite-wire.ts.
//
// Concurrency decision: PGlite is ONE Postgres session. The wire server accepts up to
// EMBEDDED_MAX_CONNECTIONS connections (the demo's API and workers, `npm run user:create`, psql,
// `prisma migrate` …) and lets one connection at a time own the session, from its first message
// until the session is idle again (ReadyForQuery 'I' after a Sync or a simple Query), so
// extended-query sequences and transactions never interleave. (@electric-sql/pglite-socket 0.2.17
// interleaves per message and mixed up concurrent connections' unnamed statements: we reproduced
// queries returning another connection's result with a pg.Pool of 8; see pglite-wire.ts.)
// A process still uses a pool of 1 (EMBEDDED_POOL_MAX): more connections would not run anything
// in parallel, since statements run one at a time and transactions are serialised. Do not rely on
// it for row locks or concurrent-transaction semantics; real PostgreSQL has none of these limits.
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { startPgliteWireServer, type WireExecResult } from './pglite-wire';

/** Pool size each process should use against the embedded server (see the note at the top). */
export const EMBEDDED_POOL_MAX = 1;

/** Client connections the embedded server accepts at once (one process's pool, CLIs, psql …). */
export const EMBEDDED_MAX_CONNECTIONS = 16;

/** How long stop() waits for a clean close (a stuck query) before terminating the thread. */
const STOP_TIMEOUT_MS = 10_000;

export interface EmbeddedPostgresOptions {
  /** Directory the database persists in (created if missing; relative to cwd), or `memory://`. */
  dataDir: string;
  /** TCP port on 127.0.0.1; 0 (the default) picks a free one. */
  port?: number;
  /** Client connections accepted at once (default {@link EMBEDDED_MAX_CONNECTIONS}). */
  maxConnections?: number;
  /**
   * Milliseconds a connection may keep the session in an open transaction without sending
   * anything while others wait, before it is terminated (default 30 000; see pglite-wire.ts).
   */
  ownerIdleTimeoutMs?: number;
  /** Receives one line per lifecycle event, refused or terminated connection, or server error. */
  log?: (message: string) => void;
}

export interface EmbeddedPostgres {
  /** `postgresql://postgres@127.0.0.1:<port>/postgres`: the default database, no password. */
  url: string;
  /** Always {@link EMBEDDED_POOL_MAX}: pass it as `createPrisma(url, { poolMax })`. */
  poolMax: number;
  /** Client connections accepted at once. */
  maxConnections: number;
  /** Client connections open now. */
  connections(): number;
  /**
   * Closes the listener and every client connection, then the database (flushing it to dataDir),
   * then ends the thread; after 10 s it terminates the thread regardless. Safe to call twice.
   */
  stop(): Promise<void>;
}

type WorkerMessage =
  | { type: 'ready' }
  | { type: 'result'; id: number; data: Uint8Array; inTransaction: boolean }
  | { type: 'execFailed'; id: number; message: string }
  | { type: 'stopped' }
  | { type: 'failed'; message: string };

// Runs in a worker thread: PGlite executes queries synchronously in WASM, so a thread of its own
// keeps the app's event loop free; it also gives PGlite a plain Node context for its dynamic
// import()s (which Jest's module sandbox refuses). It only runs protocol messages, one at a time,
// as the wire server (in the calling thread) hands them over. Plain CommonJS: no build step.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { PGlite } = require(workerData.modules.pglite);
const { vector } = require(workerData.modules.pgvector);
(async () => {
  const db = await PGlite.create({ dataDir: workerData.dataDir, extensions: { vector } });
  parentPort.on('message', async (m) => {
    if (m.type === 'exec') {
      try {
        // slice(): an exact-size copy (the startup answer is a view on PGlite's receive buffer).
        const data = (await db.runExclusive(() => db.execProtocolRaw(m.message))).slice();
        parentPort.postMessage({ type: 'result', id: m.id, data, inTransaction: db.isInTransaction() }, [data.buffer]);
      } catch (err) {
        parentPort.postMessage({ type: 'execFailed', id: m.id, message: String((err && err.stack) || err) });
      }
    } else if (m.type === 'stop') {
      await db.close();
      parentPort.postMessage({ type: 'stopped' });
      parentPort.close();
    }
  });
  parentPort.postMessage({ type: 'ready' });
})().catch((err) => parentPort.postMessage({ type: 'failed', message: String((err && err.stack) || err) }));
`;

/**
 * Starts PGlite 0.5 with the pgvector extension available (the init migration creates it) in a
 * worker thread and serves it on 127.0.0.1 to up to `maxConnections` clients, one owning the
 * session at a time (see the note at the top of this file). No `CREATE DATABASE` is needed: the
 * URL names the default `postgres` database, usable by `scripts/prisma.sh migrate deploy`, by
 * `createPrisma` and by any PostgreSQL client. One process per dataDir.
 * @throws if dataDir cannot be created or opened, or the port is in use.
 */
export async function startEmbeddedPostgres(opts: EmbeddedPostgresOptions): Promise<EmbeddedPostgres> {
  const log = opts.log ?? (() => undefined);
  const dataDir = opts.dataDir.includes('://') ? opts.dataDir : path.resolve(opts.dataDir);
  if (!dataDir.includes('://')) await mkdir(dataDir, { recursive: true });
  const maxConnections = opts.maxConnections ?? EMBEDDED_MAX_CONNECTIONS;

  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    workerData: {
      dataDir,
      modules: {
        pglite: require.resolve('@electric-sql/pglite'),
        pgvector: require.resolve('@electric-sql/pglite-pgvector'),
      },
    },
  });

  let nextId = 1;
  const inFlight = new Map<number, { resolve: (r: WireExecResult) => void; reject: (err: Error) => void }>();
  let onStopped: (() => void) | undefined;
  const exited = new Promise<void>((resolve) =>
    worker.once('exit', (code) => {
      for (const p of inFlight.values()) p.reject(new Error(`embedded postgres thread exited with ${code}`));
      inFlight.clear();
      resolve();
    }),
  );
  await new Promise<void>((resolve, reject) => {
    worker.on('message', (m: WorkerMessage) => {
      if (m.type === 'ready') resolve();
      else if (m.type === 'failed') reject(new Error(`embedded postgres did not start: ${m.message}`));
      else if (m.type === 'stopped') onStopped?.();
      else {
        const p = inFlight.get(m.id);
        inFlight.delete(m.id);
        if (m.type === 'result') p?.resolve({ data: m.data, inTransaction: m.inTransaction });
        else p?.reject(new Error(m.message));
      }
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

  const backend = {
    exec: (message: Uint8Array) =>
      new Promise<WireExecResult>((resolve, reject) => {
        const id = nextId++;
        inFlight.set(id, { resolve, reject });
        worker.postMessage({ type: 'exec', id, message });
      }),
  };
  const wire = await startPgliteWireServer({
    backend,
    port: opts.port ?? 0,
    maxConnections,
    ownerIdleTimeoutMs: opts.ownerIdleTimeoutMs,
    log: (m) => log(`embedded postgres: ${m}`),
  }).catch(async (err: unknown) => {
    await worker.terminate();
    throw err;
  });

  const url = `postgresql://postgres@127.0.0.1:${wire.port}/postgres`;
  log(`embedded postgres (PGlite + pgvector) at ${url}, data in ${dataDir}, up to ${maxConnections} connections`);

  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      await wire.close();
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
  return { url, poolMax: EMBEDDED_POOL_MAX, maxConnections, connections: () => wire.connections(), stop };
}
