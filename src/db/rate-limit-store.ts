/**
 * The PostgreSQL store of the API rate limits (RATE_LIMIT_STORE=postgres): fixed-window counters in
 * `rate_limit_counters`, shared by every API process on the database. A hit is counted by an upsert
 * statement (no transaction): it opens the key's window, counts into it, or starts the next one, and
 * answers the count and the milliseconds until the window ends, both on the database's clock (so
 * processes on machines with skewed clocks agree on the windows).
 *
 * The store coalesces a key's concurrent hits within one process: at most one statement per key is
 * in flight; the hits that arrive meanwhile wait for it and are counted together by the next one
 * (`hits + n`), each answered with its own count (n − 1 … 0 below the statement's). Every hit is
 * still counted on the database before it is answered, so the limit holds across processes exactly
 * as with one statement per hit; the key's row is locked by one statement per process at a time
 * instead of one per request (a burst on one user's or company's key queued on that row lock).
 */
import type { Pool } from 'pg';

/** A hit's answer: hits counted in the key's current window (this one included), ms until it ends. */
export interface WindowCount {
  current: number;
  ttl: number;
}

/**
 * A window starts at a multiple of its length since the epoch. A straggler computed for an earlier
 * window (its statement took its snapshot before another started the next one) counts into the
 * current window instead of resetting it.
 */
const HIT = `
INSERT INTO rate_limit_counters AS c (key, window_start, hits)
SELECT $1::text, (floor(extract(epoch FROM clock_timestamp()) * 1000 / $2::bigint) * $2::bigint)::bigint, $3::int
ON CONFLICT (key) DO UPDATE SET
  hits = CASE WHEN EXCLUDED.window_start > c.window_start THEN EXCLUDED.hits ELSE c.hits + EXCLUDED.hits END,
  window_start = GREATEST(c.window_start, EXCLUDED.window_start)
RETURNING hits, (window_start + $2::bigint - floor(extract(epoch FROM clock_timestamp()) * 1000))::bigint AS ttl_ms`;

/**
 * Counts `n` (≥ 1, default 1) hits of `key` in its window of `windowMs` (≥ 1) in one statement;
 * answers the count after them. @throws the pool's error (database unreachable …).
 */
export async function hitWindow(pool: Pool, key: string, windowMs: number, n = 1): Promise<WindowCount> {
  const { rows } = await pool.query<{ hits: number; ttl_ms: string }>(HIT, [key, Math.max(1, Math.trunc(windowMs)), Math.max(1, Math.trunc(n))]);
  const row = rows[0]!;
  return { current: row.hits, ttl: Math.max(0, Number(row.ttl_ms)) };
}

type HitCallback = (err: Error | null, res?: WindowCount) => void;

/**
 * A counter of hits over `pool` that coalesces a key's concurrent hits (see the module comment):
 * `hit(key, windowMs)` answers the hit's own count in the key's window. Hits of one key waiting
 * together are counted in the window length of the first of them (every limiter uses one length
 * per key: limit keys carry their policy's name).
 */
export function coalescingWindowCounter(pool: Pool): { hit(key: string, windowMs: number, cb: HitCallback): void } {
  /** Per key with a statement in flight: the hits waiting for the next one (empty: none yet). */
  const inFlight = new Map<string, { windowMs: number; cb: HitCallback }[]>();
  const flush = (key: string, batch: { windowMs: number; cb: HitCallback }[]) => {
    inFlight.set(key, []);
    hitWindow(pool, key, batch[0]!.windowMs, batch.length).then(
      (res) => batch.forEach((h, i) => h.cb(null, { current: res.current - (batch.length - 1 - i), ttl: res.ttl })),
      (err: unknown) => {
        const e = err instanceof Error ? err : new Error(String(err));
        batch.forEach((h) => h.cb(e));
      },
    ).finally(() => {
      const next = inFlight.get(key)!;
      if (next.length > 0) flush(key, next);
      else inFlight.delete(key);
    });
  };
  return {
    hit(key, windowMs, cb) {
      const waiting = inFlight.get(key);
      if (waiting) waiting.push({ windowMs, cb });
      else flush(key, [{ windowMs, cb }]);
    },
  };
}

/** The store interface of `@fastify/rate-limit` (its `store` option takes the class). */
export interface CallbackStore {
  incr(key: string, cb: (err: Error | null, res?: WindowCount) => void, timeWindow: number, max: number): void;
  child(routeOptions: object): CallbackStore;
}

/**
 * A store class over `pool` for `@fastify/rate-limit`'s `store` option: `incr` is a hit of
 * {@link coalescingWindowCounter} (one counter per pool); every limiter shares the one table
 * (limit keys carry their policy's name).
 */
export function postgresRateLimitStore(pool: Pool): new (options?: object) => CallbackStore {
  const counter = coalescingWindowCounter(pool);
  return class PostgresRateLimitStore implements CallbackStore {
    incr(key: string, cb: (err: Error | null, res?: WindowCount) => void, timeWindow: number): void {
      counter.hit(key, timeWindow, cb);
    }

    child(): CallbackStore {
      return this;
    }
  };
}
