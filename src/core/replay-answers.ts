/**
 * The replay fast path of idempotent creates (AR-7, PO-1, DC-1): the answer of an Idempotency-Key
 * whose first request has completed, found without a transaction and without Temporal. One indexed
 * read of the record by (scope, operation, key hash), and a bounded cache of answered records.
 *
 * What is cached, per API process:
 * - only answered records (status, resource type and id recorded): an answered record never
 *   changes until it expires (the claim replaces only expired records), so a cached copy is the
 *   record. A record without an answer (its first request still in flight) is never cached nor
 *   answered here: the caller takes the normal path, which waits for the first request;
 * - at most `max` entries, the least recently used evicted first; an entry lives until its record's
 *   `expires_at` at the latest (never extended), so an expired record is never replayed;
 * - keys are (scope, operation, key hash): another scope's record is never met;
 * - {@link ReplayAnswers.forget} drops a record withdrawn by this process (the 503 undo of a create
 *   whose start found Temporal unavailable), and a read in flight at that moment is not stored.
 *   Another process that cached the record in the moment between its commit and its withdrawal
 *   finds the replayed resource gone: the caller then forgets the entry and takes the normal path
 *   (docs/decisions.md).
 * The cache is `lru-cache` (bounded LRU with per-entry TTL).
 */
import { LRUCache } from 'lru-cache';
import type { HotReads, IdempotencyRecordRow } from '../db/hot-reads';
import type { MemberCache } from './member-cache';
import { differingFields, fingerprintRequest, idempotencyKeyHash, conflictError, asHashes, type IdempotencyClaimInput, type IdempotentAnswer } from './idempotency';

/** A record as the fast path reads it (src/db/hot-reads.ts `idempotencyRecord`). */
export type ReplayRecord = IdempotencyRecordRow;

/** Options of {@link createReplayAnswers}. */
export interface ReplayAnswersOptions {
  /** One indexed read of the record of (scope, operation, key hash); null when there is none. */
  read(scopeId: string, operation: string, keyHash: string): Promise<ReplayRecord | null>;
  /** Most answered records held (at least 1; 0 = no cache, every lookup reads). */
  max: number;
  /** Wall clock in ms (default `Date.now`), compared with the records' `expires_at`; tests inject their own. */
  now?: () => number;
}

/** An answered record's answer, for a replay. */
export interface ReplayAnswer extends IdempotentAnswer {
  recordId: string;
}

/** The fast path's lookups and its cache. */
export interface ReplayAnswers {
  /**
   * The recorded answer of `claim`'s key when its record is answered, unexpired and was made by
   * the same request (fingerprint); null when there is no such record or it has no answer yet (take
   * the normal path).
   * @throws DomainError IDEMPOTENCY_KEY_CONFLICT (409) when the record was made by another request;
   *   DomainError VALIDATION_FAILED when the request is not representable as JSON; the read's error.
   */
  lookup(claim: Pick<IdempotencyClaimInput, 'scopeId' | 'operation' | 'key' | 'request' | 'now' | 'fieldPathPrefix'>): Promise<ReplayAnswer | null>;
  /** Drops the cached record of (scope, operation, raw key), e.g. when this process withdraws it. */
  forget(scopeId: string, operation: string, key: string): void;
  /** Entries held now (expired ones may count until they are next touched or evicted). */
  size(): number;
}

/** What a family's replay fast path uses, opened with the API's hot path (src/api/hot-path.ts). */
export interface ReplayPath {
  answers: ReplayAnswers;
  /** The cached membership check of a replay (company-scoped families). */
  members: MemberCache;
  /** The family's point read of a replayed resource over `pg`. */
  reads: Pick<HotReads, 'row'>;
}

type Answered = ReplayRecord & { statusCode: number; resourceType: string; resourceId: string };

const isAnswered = (r: ReplayRecord): r is Answered => r.statusCode !== null && r.resourceType !== null && r.resourceId !== null;

const cacheKey = (scopeId: string, operation: string, keyHash: string) => `${scopeId.toLowerCase()}\n${operation}\n${keyHash}`;

/** Builds the fast path over `opts.read`; see the bounds in this module's comment. */
export function createReplayAnswers(opts: ReplayAnswersOptions): ReplayAnswers {
  const now = opts.now ?? Date.now;
  const cache = opts.max > 0 ? new LRUCache<string, Answered>({ max: opts.max, ttlAutopurge: false, allowStale: false, updateAgeOnGet: false }) : undefined;
  // Bumped by every forget: a read that began before a forget does not store what it read.
  let epoch = 0;

  const recordOf = async (scopeId: string, operation: string, keyHash: string, at: number, cached = true): Promise<Answered | null> => {
    const k = cacheKey(scopeId, operation, keyHash);
    const hit = cached ? cache?.get(k) : undefined;
    if (hit && hit.expiresAt.getTime() > at) return hit;
    const began = epoch;
    const row = await opts.read(scopeId, operation, keyHash);
    if (!row || !isAnswered(row) || row.expiresAt.getTime() <= at) return null;
    const ttl = row.expiresAt.getTime() - now();
    if (cache && began === epoch && ttl > 0) cache.set(k, row, { ttl });
    return row;
  };

  return {
    async lookup(claim) {
      const at = (claim.now ?? new Date(now())).getTime();
      const keyHash = idempotencyKeyHash(claim.key);
      let record = await recordOf(claim.scopeId, claim.operation, keyHash, at);
      if (!record) return null;
      const fp = await fingerprintRequest(claim.request);
      if (record.requestHash !== fp.requestHash && cache?.has(cacheKey(claim.scopeId, claim.operation, keyHash))) {
        // A cached record another process withdrew would refuse a key that is free again: read it once more.
        cache.delete(cacheKey(claim.scopeId, claim.operation, keyHash));
        record = await recordOf(claim.scopeId, claim.operation, keyHash, at, false);
        if (!record) return null;
      }
      if (record.requestHash !== fp.requestHash) {
        throw conflictError(differingFields(asHashes(record.fieldHashes), fp.fieldHashes), claim.fieldPathPrefix ?? 'body');
      }
      return { recordId: record.id, statusCode: record.statusCode, resourceType: record.resourceType, resourceId: record.resourceId };
    },
    forget(scopeId, operation, key) {
      epoch++;
      cache?.delete(cacheKey(scopeId, operation, idempotencyKeyHash(key)));
    },
    size: () => cache?.size ?? 0,
  };
}
