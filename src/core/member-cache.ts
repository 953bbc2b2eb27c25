/**
 * A bounded cache of company roles for the replay fast path (AR-3 tenancy, AR-7): the membership
 * check of a request answered from its Idempotency-Key record runs on every request, against this
 * cache, which reads `company_members` through the hot path.
 *
 * Bounds, per API process, as the bearer-token cache's (src/auth/token-cache.ts):
 * - **Revocation:** an entry lives at most `ttlMs` after it was read (never extended by use): a
 *   membership removed or a role lowered stops answering replays at most `ttlMs` after its commit.
 *   Requests that create anything check the membership in the database, uncached.
 * - **Memory:** at most `max` entries, the least recently used evicted first.
 * - Only members are cached: a non-member is looked up again each time (a new member works at once).
 * Concurrent lookups of one (company, user) share one query.
 */
import { LRUCache } from 'lru-cache';
import type { CompanyRole } from '@prisma/client';
import { checkMemberRole } from './tenancy';

/** Options of {@link createMemberCache}. */
export interface MemberCacheOptions {
  /** The database lookup: the role of `userId` in `companyId`, null when not a member. */
  lookup(companyId: string, userId: string): Promise<CompanyRole | null>;
  /** Milliseconds an entry lives after its lookup (0 = no cache: every call looks up). */
  ttlMs: number;
  /** Most entries held (at least 1). */
  max: number;
  /** Monotonic clock in ms (default `performance.now`); tests inject their own. */
  now?: () => number;
}

/** The cached membership check. */
export interface MemberCache {
  /**
   * The caller's role in `companyId`, as `requireMembership` (./tenancy.ts) answers it.
   * @throws DomainError NOT_FOUND when the user is not a member; FORBIDDEN when `allowed` is given
   *   and the role is not in it.
   */
  require(userId: string, companyId: string, allowed?: readonly CompanyRole[]): Promise<CompanyRole>;
  /** Entries held now. */
  size(): number;
}

/** Builds the cache; see the bounds in this module's comment. */
export function createMemberCache(opts: MemberCacheOptions): MemberCache {
  const split = (k: string) => k.split('\n') as [string, string];
  const cache =
    opts.ttlMs > 0
      ? new LRUCache<string, CompanyRole>({
          max: opts.max,
          ttl: opts.ttlMs,
          updateAgeOnGet: false,
          allowStale: false,
          ...(opts.now ? { perf: { now: opts.now }, ttlResolution: 0 } : {}),
          fetchMethod: async (k) => (await opts.lookup(...split(k))) ?? undefined,
        })
      : undefined;
  return {
    async require(userId, companyId, allowed) {
      const k = `${companyId.toLowerCase()}\n${userId.toLowerCase()}`;
      const role = cache ? await cache.fetch(k) : ((await opts.lookup(...split(k))) ?? undefined);
      return checkMemberRole(role ?? null, allowed);
    },
    size: () => cache?.size ?? 0,
  };
}
