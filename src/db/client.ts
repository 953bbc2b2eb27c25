import { Prisma, PrismaClient } from '@prisma/client';
import { Pool } from 'pg';
import { createPgAdapter } from './pg-adapter';

/** The application's Prisma client (query compiler over `@prisma/adapter-pg`, no native engine). */
export type Db = PrismaClient;

/** The client handed to `db.$transaction(async (tx) => ...)` callbacks. */
export type DbTx = Prisma.TransactionClient;

/** Either a root client or an interactive-transaction client; functions that only query take this. */
export type DbClient = Db | DbTx;

export interface CreatePrismaOptions {
  /** Maximum pooled connections (default 10). Use 1 against the embedded PGlite server. */
  poolMax?: number;
  /** Milliseconds to wait for a free connection before failing (default 10 000). */
  connectionTimeoutMs?: number;
  /** Milliseconds an idle pooled connection is kept open (default 10 000). */
  idleTimeoutMs?: number;
}

/**
 * Creates a Prisma client for a PostgreSQL URL through a `pg` pool of at most `poolMax`
 * connections (a connection lost inside a transaction is discarded, never leaked: src/db/pg-adapter.ts).
 * Connects lazily; call `$disconnect()` on shutdown to close the pool.
 */
export function createPrisma(url: string, opts: CreatePrismaOptions = {}): Db {
  const pool = new Pool({
    connectionString: url,
    max: opts.poolMax ?? 10,
    connectionTimeoutMillis: opts.connectionTimeoutMs ?? 10_000,
    idleTimeoutMillis: opts.idleTimeoutMs ?? 10_000,
  });
  // The adapter ends the pool on `$disconnect()`, as it does with a pool of its own.
  const adapter = createPgAdapter(pool, { disposeExternalPool: true });
  // Interactive transactions wait for a pooled connection as long as a plain query would (Prisma's
  // own default is 2 s, which bursts of concurrent requests exceed and answer with P2028).
  const wait = opts.connectionTimeoutMs ?? 10_000;
  const db = new PrismaClient({ adapter, transactionOptions: { maxWait: wait, timeout: 15_000 } });
  pools.set(db, pool);
  return db;
}

const pools = new WeakMap<Db, Pool>();

/**
 * The `pg` pool under a client made by {@link createPrisma} (undefined for any other client), for
 * the few hot read paths that bypass Prisma (src/db/hot-reads.ts): they share the client's
 * connections, so a process keeps one connection budget (one connection against the embedded
 * PGlite). The pool ends with the client's `$disconnect()`; do not end it yourself.
 */
export function pgPoolOf(db: Db): Pool | undefined {
  return pools.get(db);
}
