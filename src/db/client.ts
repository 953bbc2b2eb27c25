import { Prisma, PrismaClient } from '@prisma/client';
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
  const adapter = createPgAdapter({
    connectionString: url,
    max: opts.poolMax ?? 10,
    connectionTimeoutMillis: opts.connectionTimeoutMs ?? 10_000,
    idleTimeoutMillis: opts.idleTimeoutMs ?? 10_000,
  });
  // Interactive transactions wait for a pooled connection as long as a plain query would (Prisma's
  // own default is 2 s, which bursts of concurrent requests exceed and answer with P2028).
  const wait = opts.connectionTimeoutMs ?? 10_000;
  return new PrismaClient({ adapter, transactionOptions: { maxWait: wait, timeout: 15_000 } });
}
