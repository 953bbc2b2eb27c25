/**
 * Coalesces point reads that arrive in the same event-loop turn into one statement.
 *
 * Under a polling load many `GET /async-jobs/{id}` arrive in one turn of the event loop (one
 * `poll` phase reads every socket that has data). Sent one by one, each costs a pool checkout, a
 * write, a read and a statement on the server; sent together they cost one of each. The batch is
 * flushed in the `check` phase of the same turn (`setImmediate`), so a read waits at most for the
 * rest of the turn, never for a timer, and is always issued after its request arrived: a client
 * that wrote and then reads sees its write (each statement reads the data committed when it starts).
 * No caching: every call is answered by a statement that starts after the call.
 *
 * Own code rather than `dataloader`: the same scheduling in about 40 lines with no cache to
 * disable, for one statement, and no new dependency for the API.
 */

/** Options of {@link createReadBatcher}. */
export interface ReadBatcherOptions {
  /** Most keys in one statement; a fuller batch is flushed at once and a new one begun. */
  maxBatch: number;
}

/**
 * Returns `read(key)`, answered by `load(keys)`: one call per batch of up to `maxBatch` keys
 * collected in the current event-loop turn. `load` resolves with one result per key, in the order
 * of `keys` (`undefined` = no row). A rejection of `load` rejects every read of that batch.
 */
export function createReadBatcher<K, V>(
  load: (keys: readonly K[]) => Promise<readonly (V | undefined)[]>,
  opts: ReadBatcherOptions,
): (key: K) => Promise<V | undefined> {
  interface Pending { keys: K[]; settle: { resolve: (v: V | undefined) => void; reject: (e: unknown) => void }[] }
  let current: Pending | undefined;
  const flush = (batch: Pending) => {
    if (current === batch) current = undefined;
    (async () => load(batch.keys))().then(
      (values) => batch.settle.forEach((s, i) => s.resolve(values[i])),
      (err: unknown) => batch.settle.forEach((s) => s.reject(err)),
    );
  };
  return (key) =>
    new Promise<V | undefined>((resolve, reject) => {
      if (!current) {
        const batch: Pending = { keys: [], settle: [] };
        current = batch;
        setImmediate(() => {
          if (current === batch) flush(batch);
        });
      }
      const batch = current;
      batch.keys.push(key);
      batch.settle.push({ resolve, reject });
      if (batch.keys.length >= opts.maxBatch) flush(batch);
    });
}
