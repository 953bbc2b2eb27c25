/**
 * Coalesces identical point reads that overlap in time into fewer statements, without caching.
 *
 * At most one statement per key is in flight. A read of a key whose statement is in flight waits
 * for it to end and is then answered by the key's next statement, which is issued for every read
 * that waited meanwhile. So every read is answered by a statement that started after the read was
 * called (a client that wrote and then reads sees its write, as with one statement per read), and
 * a burst of N identical reads costs about two statements per round trip instead of N: the replays
 * of one Idempotency-Key by a retrying client, or a scraper's repeated callback of one job.
 *
 * Each waiting read gets its own shallow copy of the row (the callers destructure rows; nested
 * JSON values are shared and must not be mutated). A failed statement rejects every read it was
 * issued for, and only those.
 */

/**
 * Returns `read(key, load)`: `load()` runs for `key` when no statement of `key` is in flight, else
 * once more after the one in flight for every read that arrived meanwhile (see the module comment).
 * Keys name the statement and its values exactly (e.g. the statement's name and its parameters).
 */
export function createReadCoalescer<V extends object>(): (key: string, load: () => Promise<V | null>) => Promise<V | null> {
  interface Waiter { resolve: (v: V | null) => void; reject: (e: unknown) => void }
  /** Per key with a statement in flight: the reads waiting for the next statement, with its load. */
  const inFlight = new Map<string, { waiting: Waiter[]; load: (() => Promise<V | null>) | undefined }>();
  const issue = (key: string, load: () => Promise<V | null>, waiters: Waiter[]) => {
    inFlight.set(key, { waiting: [], load: undefined });
    (async () => load())().then(
      (row) => waiters.forEach((w, i) => w.resolve(row === null || i === 0 ? row : { ...row })),
      (err: unknown) => waiters.forEach((w) => w.reject(err)),
    ).finally(() => {
      const next = inFlight.get(key)!;
      if (next.waiting.length > 0 && next.load) issue(key, next.load, next.waiting);
      else inFlight.delete(key);
    });
  };
  return (key, load) =>
    new Promise<V | null>((resolve, reject) => {
      const pending = inFlight.get(key);
      if (!pending) return issue(key, load, [{ resolve, reject }]);
      pending.waiting.push({ resolve, reject });
      pending.load ??= load;
    });
}
