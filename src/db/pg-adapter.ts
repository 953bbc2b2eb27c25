/**
 * The `@prisma/adapter-pg` driver adapter with one repair: a pooled connection whose interactive
 * transaction cannot be closed is discarded instead of leaked.
 *
 * Prisma 6.19's transaction manager closes a transaction by sending `COMMIT`/`ROLLBACK` and only then
 * calling the adapter's `commit()`/`rollback()`, which release the pg connection. When the server
 * has gone away (restart, failover, admin shutdown: 57P01) that statement throws, the release is
 * skipped, and the pool slot is lost for good: after `poolMax` such transactions every query waits
 * for a connection and fails ("timeout exceeded when trying to connect") although the database is
 * back. Seen with a real PostgreSQL 15 stopped under load (test/integration/db-outage.test.ts).
 */
import { PrismaPg } from '@prisma/adapter-pg';
import type { Pool, PoolClient, PoolConfig } from 'pg';

type Adapter = Awaited<ReturnType<PrismaPg['connect']>>;
type Transaction = Awaited<ReturnType<Adapter['startTransaction']>>;

/** Wraps a transaction so a failed COMMIT/ROLLBACK destroys its connection (pg-pool drops a client released with an error). */
function discardOnFailedClose(tx: Transaction): Transaction {
  const client = (tx as unknown as { client: PoolClient }).client;
  let released = false;
  const executeRaw = tx.executeRaw.bind(tx);
  const commit = tx.commit.bind(tx);
  const rollback = tx.rollback.bind(tx);
  tx.executeRaw = async (query) => {
    try {
      return await executeRaw(query);
    } catch (err) {
      if (!released && (query.sql === 'COMMIT' || query.sql === 'ROLLBACK')) {
        released = true;
        client.release(err instanceof Error ? err : true);
      }
      throw err;
    }
  };
  tx.commit = async () => (released ? undefined : commit());
  tx.rollback = async () => (released ? undefined : rollback());
  return tx;
}

/**
 * `new PrismaPg(config or pool, options)` whose transactions never leak a pooled connection (see
 * the module comment). Everything else is the adapter's own behaviour.
 */
export function createPgAdapter(config: PoolConfig | Pool, options?: ConstructorParameters<typeof PrismaPg>[1]): PrismaPg {
  const factory = new PrismaPg(config, options);
  const connect = factory.connect.bind(factory);
  factory.connect = async () => {
    const adapter = await connect();
    const startTransaction = adapter.startTransaction.bind(adapter);
    adapter.startTransaction = async (isolationLevel) => discardOnFailedClose(await startTransaction(isolationLevel));
    return adapter;
  };
  return factory;
}
