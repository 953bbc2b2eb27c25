/**
 * The PostgreSQL store of the API rate limits (RATE_LIMIT_STORE=postgres): fixed-window counters in
 * `rate_limit_counters`, shared by every API process on the database. One hit is one upsert
 * statement (no transaction): it opens the key's window, counts into it, or starts the next one, and
 * answers the count and the milliseconds until the window ends, both on the database's clock (so
 * processes on machines with skewed clocks agree on the windows).
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
SELECT $1::text, (floor(extract(epoch FROM clock_timestamp()) * 1000 / $2::bigint) * $2::bigint)::bigint, 1
ON CONFLICT (key) DO UPDATE SET
  hits = CASE WHEN EXCLUDED.window_start > c.window_start THEN 1 ELSE c.hits + 1 END,
  window_start = GREATEST(c.window_start, EXCLUDED.window_start)
RETURNING hits, (window_start + $2::bigint - floor(extract(epoch FROM clock_timestamp()) * 1000))::bigint AS ttl_ms`;

/** Counts one hit of `key` in its window of `windowMs` (≥ 1). @throws the pool's error (database unreachable …). */
export async function hitWindow(pool: Pool, key: string, windowMs: number): Promise<WindowCount> {
  const { rows } = await pool.query<{ hits: number; ttl_ms: string }>(HIT, [key, Math.max(1, Math.trunc(windowMs))]);
  const row = rows[0]!;
  return { current: row.hits, ttl: Math.max(0, Number(row.ttl_ms)) };
}

/** The store interface of `@fastify/rate-limit` (its `store` option takes the class). */
export interface CallbackStore {
  incr(key: string, cb: (err: Error | null, res?: WindowCount) => void, timeWindow: number, max: number): void;
  child(routeOptions: object): CallbackStore;
}

/**
 * A store class over `pool` for `@fastify/rate-limit`'s `store` option: `incr` is {@link hitWindow};
 * every limiter shares the one table (limit keys carry their policy's name).
 */
export function postgresRateLimitStore(pool: Pool): new (options?: object) => CallbackStore {
  return class PostgresRateLimitStore implements CallbackStore {
    incr(key: string, cb: (err: Error | null, res?: WindowCount) => void, timeWindow: number): void {
      hitWindow(pool, key, timeWindow).then(
        (res) => cb(null, res),
        (err: unknown) => cb(err instanceof Error ? err : new Error(String(err))),
      );
    }

    child(): CallbackStore {
      return this;
    }
  };
}
