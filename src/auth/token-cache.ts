/**
 * A bounded cache in front of the bearer-token lookup, on the API's hot read path.
 *
 * Bounds, per API process:
 * - **Revocation:** an entry lives at most `ttlMs` after it was read from the database
 *   (`AUTH_TOKEN_CACHE_TTL_MS`, default 3 000 ms; never extended by use). A token revoked
 *   (`api_tokens.revoked_at` set) or deleted is refused by every process at most `ttlMs` after the
 *   revoking transaction commits, plus the duration of one lookup in flight at that moment.
 * - **Memory:** at most `max` entries (`AUTH_TOKEN_CACHE_MAX`, default 10 000), the least recently
 *   used evicted first; an entry is a 64-character hash and a user id.
 * - Only valid tokens are cached: an unknown or revoked token is looked up again each time, so
 *   random tokens cannot push valid ones out, and a new token works at once.
 * Keys are the tokens' SHA-256 hashes, never the tokens. Concurrent lookups of one token share one
 * query. The cache is `lru-cache` (bounded LRU with TTL, in-flight de-duplication).
 */
import { LRUCache } from 'lru-cache';
import { hashToken } from './tokens';

/** Resolves a presented bearer token to its user id, or null when it is unknown or revoked. */
export type TokenResolver = (token: string) => Promise<string | null>;

/** Options of {@link createCachedTokenResolver}. */
export interface TokenCacheOptions {
  /** The database lookup by SHA-256 hex of the token: the user id of an unrevoked token, else null. */
  lookup: (tokenHash: string) => Promise<string | null>;
  /** Milliseconds an entry lives after its lookup (0 = no cache: every call looks up). */
  ttlMs: number;
  /** Most entries held (at least 1). */
  max: number;
  /** Monotonic clock in ms (default `performance.now`); tests inject their own. */
  now?: () => number;
}

/** A cached resolver with its size, for tests and metrics. */
export interface CachedTokenResolver {
  resolve: TokenResolver;
  /** Entries held now (expired ones may count until they are next touched or evicted). */
  size(): number;
  /** Drops every entry (e.g. after revoking tokens in bulk in this process). */
  clear(): void;
}

/** Builds the cached resolver; see the bounds in this module's comment. */
export function createCachedTokenResolver(opts: TokenCacheOptions): CachedTokenResolver {
  if (opts.ttlMs <= 0) {
    return { resolve: (token) => opts.lookup(hashToken(token)), size: () => 0, clear: () => undefined };
  }
  const cache = new LRUCache<string, string>({
    max: opts.max,
    ttl: opts.ttlMs,
    updateAgeOnGet: false,
    allowStale: false,
    // Expiry checked against the clock at 1 ms resolution (the default); an injected clock is read
    // on every check (lru-cache otherwise reuses a reading for 1 ms of real time).
    ...(opts.now ? { perf: { now: opts.now }, ttlResolution: 0 } : {}),
    // undefined = "no such token": not stored, so unknown and revoked tokens are never cached.
    fetchMethod: async (tokenHash) => (await opts.lookup(tokenHash)) ?? undefined,
  });
  return {
    resolve: async (token) => (await cache.fetch(hashToken(token))) ?? null,
    size: () => cache.size,
    clear: () => cache.clear(),
  };
}
