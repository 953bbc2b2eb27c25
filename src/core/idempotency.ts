/**
 * AR-7 / PO-1 `Idempotency-Key` for any route (shared; names no family). A request is identified by
 * its scope (a company or a user id), its operation (e.g. `ai-runs.create`) and the SHA-256 of its
 * key (the raw key is never stored). The record keeps the fingerprint of the canonical request
 * (RFC 8785 JSON canonicalisation, then SHA-256) and one hash per top-level field, so a reused key
 * with another payload names the fields that differ without storing their values.
 *
 * Use inside the caller's transaction (READ COMMITTED, PostgreSQL's and Prisma's default):
 * ```ts
 * await db.$transaction(async (tx) => {
 *   const claim = await claimIdempotencyKey(tx, { scopeId, operation, key, request, ttlMs, now });
 *   if (claim.kind === 'replay') return claim;              // the original answer
 *   const run = await tx.aiRun.create(…);                   // the resource, same transaction
 *   await recordIdempotentAnswer(tx, claim.recordId, { statusCode: 202, resourceType: 'ai-run', resourceId: run.id });
 * });
 * ```
 * Concurrency: the claim is `INSERT … ON CONFLICT (scope_id, operation, key_hash) DO UPDATE … WHERE
 * expired`. A concurrent claim of the same key blocks on the unique index until the first
 * transaction ends: on commit it reads the committed record and answers the winner's answer (a
 * replay); on rollback its own insert goes through and it becomes the winner. So N concurrent
 * requests with one key make one resource, and every loser answers the winner's status and id.
 * A replaying claim also row-locks the record until its transaction ends (PostgreSQL locks the
 * conflicting row of `ON CONFLICT DO UPDATE … WHERE` even when it updates nothing), so replays of
 * one key run one after another: end the transaction soon after a replay.
 */
import { createHash, randomUUID } from 'node:crypto';
import { Prisma } from '@prisma/client';
import type { DomainError } from './domain-error';
import { CORE_ERRORS } from './errors';
import { shortName } from './text';

/** Name of the request header (RFC draft-ietf-httpapi-idempotency-key-header; Stripe's). */
export const IDEMPOTENCY_KEY_HEADER = 'idempotency-key';

/** Longest accepted key, in characters (Stripe's limit). */
export const IDEMPOTENCY_KEY_MAX_LENGTH = 255;

/** Default lifetime of a record: 24 h, like Stripe (config `IDEMPOTENCY_KEY_TTL_HOURS`). */
export const DEFAULT_IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

/** Most differing field names listed in a conflict (the rest are counted). */
const MAX_LISTED_FIELDS = 20;

/**
 * The syntax of a valid `Idempotency-Key` header value (ECMA-262, also a JSON Schema `pattern`):
 * 1–255 visible ASCII characters (0x21–0x7E), or such a key (without `"` or `\\`) in double quotes,
 * the IETF draft's structured-field string form; `""` (an empty key) is not valid.
 * {@link parseIdempotencyKey} accepts exactly what this matches.
 */
export const IDEMPOTENCY_KEY_PATTERN = String.raw`^(?!""$)(?:[\x21-\x7e]{1,255}|"[\x21\x23-\x5b\x5d-\x7e]{1,255}")$`;

/** Longest valid header value, in characters: a 255-character key in double quotes. */
export const IDEMPOTENCY_KEY_HEADER_MAX_LENGTH = IDEMPOTENCY_KEY_MAX_LENGTH + 2;

const VALID_HEADER = new RegExp(IDEMPOTENCY_KEY_PATTERN);

/**
 * The key of an `Idempotency-Key` header value: 1–255 visible ASCII characters (0x21–0x7E: no
 * spaces, no control or non-ASCII characters). The IETF draft's structured-field string form
 * (`"abc"`) is accepted too and means the same key as `abc`. Two headers arrive joined by `, ` and
 * are therefore invalid.
 * @throws DomainError `IDEMPOTENCY_KEY_MISSING` (400) when absent; `IDEMPOTENCY_KEY_INVALID` (400)
 *   when empty, too long or not visible ASCII.
 */
export function parseIdempotencyKey(value: string | readonly string[] | undefined): string {
  if (value === undefined) {
    throw CORE_ERRORS.problem('IDEMPOTENCY_KEY_MISSING', 'this operation needs an Idempotency-Key header');
  }
  const raw = typeof value === 'string' ? value : value.join(', ');
  if (!VALID_HEADER.test(raw)) {
    throw CORE_ERRORS.problem(
      'IDEMPOTENCY_KEY_INVALID',
      `Idempotency-Key must be 1-${IDEMPOTENCY_KEY_MAX_LENGTH} visible ASCII characters (no spaces), given once`,
    );
  }
  const quoted = /^"([^"\\]+)"$/.exec(raw);
  return quoted ? quoted[1]! : raw;
}

/** {@link parseIdempotencyKey} of a request's headers (Node / fastify lower-cases their names). */
export function idempotencyKeyOf(headers: Readonly<Record<string, string | string[] | undefined>>): string {
  return parseIdempotencyKey(headers[IDEMPOTENCY_KEY_HEADER]);
}

/** SHA-256 hex (64 characters) of a key: what is stored and what workflow ids derive from (DC-1). */
export function idempotencyKeyHash(key: string): string {
  return sha256(key);
}

/**
 * The key hash of a claim whose key was used before, by a resource that outlived the key's record
 * and still holds the plain hash: SHA-256 hex of `<keyHash>:<recordId>`, unique per claim (DC-1).
 */
export function reclaimedKeyHash(keyHash: string, recordId: string): string {
  return sha256(`${keyHash}:${recordId}`);
}

/** A request's fingerprint: SHA-256 hex of its RFC 8785 canonical JSON, and of each top-level field. */
export interface RequestFingerprint {
  requestHash: string;
  /** Top-level field name → SHA-256 hex of the field's canonical JSON (fields set to `undefined` are absent). */
  fieldHashes: Record<string, string>;
}

/**
 * Fingerprints a JSON request object (the validated body, plus whatever else makes the request
 * what it is, e.g. a path id). Canonical JSON (RFC 8785, package `canonicalize`) sorts keys and
 * normalises numbers and strings, so `{"a":1,"b":2}` and `{ "b": 2.0, "a": 1 }` are one request.
 * @throws DomainError `VALIDATION_FAILED` (400) when the request is not representable as JSON
 *   (a lone surrogate, NaN, a cycle).
 */
export async function fingerprintRequest(request: Readonly<Record<string, unknown>>): Promise<RequestFingerprint> {
  const canonical = await canonicalizer();
  const json = (value: unknown): string => {
    try {
      return canonical(value) ?? 'null';
    } catch (err) {
      throw CORE_ERRORS.problem('VALIDATION_FAILED', `the request is not valid JSON: ${(err as Error).message}`);
    }
  };
  const fieldHashes: Record<string, string> = {};
  for (const name of Object.keys(request).sort()) {
    const value = request[name];
    if (value === undefined || typeof value === 'function' || typeof value === 'symbol') continue;
    fieldHashes[name] = sha256(json(value));
  }
  return { requestHash: sha256(json(request)), fieldHashes };
}

/** The top-level fields whose hashes differ (present in one only, or with other values), sorted. */
export function differingFields(a: Readonly<Record<string, string>>, b: Readonly<Record<string, string>>): string[] {
  const names = new Set([...Object.keys(a), ...Object.keys(b)]);
  return [...names].filter((n) => a[n] !== b[n]).sort();
}

/** What a route stores as its answer to a key: the status code and the resource it created. */
export interface IdempotentAnswer {
  /** HTTP status of the first answer, e.g. 202. */
  statusCode: number;
  /** Kind of the created resource, e.g. `ai-run` (free text, chosen by the route). */
  resourceType: string;
  /** Id of the created resource. */
  resourceId: string;
}

/** Input of {@link claimIdempotencyKey}. */
export interface IdempotencyClaimInput {
  /** Company or user id the key belongs to (keys of different scopes never meet). */
  scopeId: string;
  /** Route-specific operation name, e.g. `ai-runs.create`, `ai-runs.retry:<id>`. */
  operation: string;
  /** The raw key ({@link parseIdempotencyKey}); only its SHA-256 is stored. */
  key: string;
  /** The request to fingerprint ({@link fingerprintRequest}). */
  request: Readonly<Record<string, unknown>>;
  /** Lifetime of a new record in ms (default {@link DEFAULT_IDEMPOTENCY_TTL_MS}). */
  ttlMs?: number;
  /** Clock (default `new Date()`). */
  now?: Date;
  /** Prefix of the `errors[].path` of a conflict (default `body`: `body.<field>`). */
  fieldPathPrefix?: string;
}

/** Result of {@link claimIdempotencyKey}. */
export type IdempotencyClaim =
  /** First use of the key (or reuse after expiry): create the resource, then {@link recordIdempotentAnswer}. */
  | { kind: 'new'; recordId: string; keyHash: string }
  /** The key was used with the same request: answer this again, create nothing. */
  | ({ kind: 'replay'; recordId: string; keyHash: string } & IdempotentAnswer);

/** What the claim needs of the database: a transaction client (or a root client for tests). */
export type IdempotencyDb = Pick<Prisma.TransactionClient, '$queryRaw' | '$executeRaw'>;

interface RecordRow {
  id: string;
  request_hash: string;
  field_hashes: unknown;
  status_code: number | null;
  resource_type: string | null;
  resource_id: string | null;
  expires_at: Date;
}

/**
 * Claims `key` for one request, in the caller's transaction (AR-7). A concurrent claim of the same
 * key waits for this transaction to end (see the module comment). An expired record is replaced
 * atomically (the key may be reused after its TTL).
 * @returns `new` (go on, then record the answer in the same transaction) or `replay` (the answer
 *   of the first request with this key and payload).
 * @throws DomainError `IDEMPOTENCY_KEY_CONFLICT` (409) when the key was used with another
 *   payload: `detail` and `errors[]` name the differing top-level fields (never their values);
 *   `IDEMPOTENCY_KEY_IN_PROGRESS` (409, retry later) when the first request committed its
 *   claim without an answer yet (a caller that records the answer outside the claim's transaction).
 */
export async function claimIdempotencyKey(tx: IdempotencyDb, input: IdempotencyClaimInput): Promise<IdempotencyClaim> {
  const now = input.now ?? new Date();
  const ttlMs = input.ttlMs ?? DEFAULT_IDEMPOTENCY_TTL_MS;
  if (!(ttlMs > 0)) throw new RangeError('ttlMs must be positive');
  const keyHash = idempotencyKeyHash(input.key);
  const fp = await fingerprintRequest(input.request);
  const expiresAt = new Date(now.getTime() + ttlMs);
  const fieldHashes = JSON.stringify(fp.fieldHashes);

  // Fast path for replays: an answered, unexpired record never changes (only expiry or the purge
  // replace it), so it is read without a lock. Otherwise INSERT … ON CONFLICT DO UPDATE, which locks
  // the conflicting row until this transaction ends, so replays of one key would queue behind it.
  const answered = await tx.$queryRaw<RecordRow[]>`
    SELECT id::text AS id, request_hash, field_hashes, status_code, resource_type, resource_id, expires_at
    FROM idempotency_records
    WHERE scope_id = ${input.scopeId}::uuid AND operation = ${input.operation} AND key_hash = ${keyHash}
      AND expires_at > ${now} AND status_code IS NOT NULL`;
  if (answered[0]) return replayOrConflict(answered[0], fp, keyHash, input.fieldPathPrefix);

  // A record deleted by the purge between the two statements is claimed again (bounded).
  for (let round = 0; round < 3; round++) {
    const id = randomUUID();
    const claimed = await tx.$queryRaw<{ id: string }[]>`
      INSERT INTO idempotency_records
        (id, scope_id, operation, key_hash, request_hash, field_hashes, created_at, expires_at)
      VALUES (${id}::uuid, ${input.scopeId}::uuid, ${input.operation}, ${keyHash}, ${fp.requestHash},
              ${fieldHashes}::jsonb, ${now}, ${expiresAt})
      ON CONFLICT (scope_id, operation, key_hash) DO UPDATE SET
        id = EXCLUDED.id, request_hash = EXCLUDED.request_hash, field_hashes = EXCLUDED.field_hashes,
        status_code = NULL, resource_type = NULL, resource_id = NULL,
        created_at = EXCLUDED.created_at, expires_at = EXCLUDED.expires_at
      WHERE idempotency_records.expires_at <= ${now}
      RETURNING id::text AS id`;
    if (claimed[0]?.id === id) return { kind: 'new', recordId: id, keyHash };

    const rows = await tx.$queryRaw<RecordRow[]>`
      SELECT id::text AS id, request_hash, field_hashes, status_code, resource_type, resource_id, expires_at
      FROM idempotency_records
      WHERE scope_id = ${input.scopeId}::uuid AND operation = ${input.operation} AND key_hash = ${keyHash}`;
    const row = rows[0];
    if (!row) continue;
    return replayOrConflict(row, fp, keyHash, input.fieldPathPrefix);
  }
  throw CORE_ERRORS.problem('SERVICE_UNAVAILABLE', 'the Idempotency-Key record changed while it was read; retry');
}

/** The answer of an existing record: a replay of its answer, or 409 (other payload, or no answer yet). */
function replayOrConflict(
  row: RecordRow,
  fp: RequestFingerprint,
  keyHash: string,
  fieldPathPrefix: string | undefined,
): IdempotencyClaim {
  if (row.request_hash !== fp.requestHash) {
    throw conflictError(differingFields(asHashes(row.field_hashes), fp.fieldHashes), fieldPathPrefix ?? 'body');
  }
  if (row.status_code === null || row.resource_type === null || row.resource_id === null) {
    throw CORE_ERRORS.problem('IDEMPOTENCY_KEY_IN_PROGRESS', 'a request with this Idempotency-Key is still being processed; retry shortly');
  }
  return {
    kind: 'replay',
    recordId: row.id,
    keyHash,
    statusCode: row.status_code,
    resourceType: row.resource_type,
    resourceId: row.resource_id,
  };
}

/** What {@link answeredClaimStatement} answers: the statement and the ids it writes. */
export interface AnsweredClaimStatement {
  /**
   * `INSERT … ON CONFLICT … RETURNING id` of the key's record, answered at once (`answer`):
   * it returns a row (the record's `id`, text) only when the key is free (no record, or an
   * expired one, which it replaces) and `guard` holds; otherwise it writes nothing. Meant as the
   * first CTE of the caller's one statement, whose inserts select from it.
   */
  sql: Prisma.Sql;
  /** The id of the record it writes. */
  recordId: string;
  /** SHA-256 hex of the key ({@link idempotencyKeyHash}). */
  keyHash: string;
}

/**
 * The claim of `input` with its answer in one data-modifying statement (AR-7, DC-1), for a create
 * that writes its resource in the same statement (a CTE selecting from this one): the record, its
 * answer and the resource commit together or not at all, so no other request ever sees the claim
 * without its answer. A concurrent claim of the same key waits on the unique index until the
 * statement ends, as in {@link claimIdempotencyKey}. When it writes nothing (the key is taken,
 * answered or in progress, or `guard` is false) the caller takes {@link claimIdempotencyKey}'s
 * transaction, which gives the replay or the error.
 * @param guard a boolean SQL expression that must hold for anything to be written (e.g. the
 *   caller's role), evaluated in the statement's snapshot.
 * @throws DomainError VALIDATION_FAILED when the request is not representable as JSON.
 */
export async function answeredClaimStatement(input: IdempotencyClaimInput, answer: IdempotentAnswer, guard: Prisma.Sql): Promise<AnsweredClaimStatement> {
  const now = input.now ?? new Date();
  const ttlMs = input.ttlMs ?? DEFAULT_IDEMPOTENCY_TTL_MS;
  if (!(ttlMs > 0)) throw new RangeError('ttlMs must be positive');
  const keyHash = idempotencyKeyHash(input.key);
  const fp = await fingerprintRequest(input.request);
  const recordId = randomUUID();
  const at = now.toISOString();
  const sql = Prisma.sql`
      INSERT INTO idempotency_records
        (id, scope_id, operation, key_hash, request_hash, field_hashes, created_at, expires_at, status_code, resource_type, resource_id)
      SELECT ${recordId}::uuid, ${input.scopeId}::uuid, ${input.operation}::text, ${keyHash}::text, ${fp.requestHash}::text,
             ${JSON.stringify(fp.fieldHashes)}::jsonb, ${at}::timestamptz, ${new Date(now.getTime() + ttlMs).toISOString()}::timestamptz,
             ${answer.statusCode}::int, ${answer.resourceType}::text, ${answer.resourceId}::text
       WHERE ${guard}
      ON CONFLICT (scope_id, operation, key_hash) DO UPDATE SET
        id = EXCLUDED.id, request_hash = EXCLUDED.request_hash, field_hashes = EXCLUDED.field_hashes,
        status_code = EXCLUDED.status_code, resource_type = EXCLUDED.resource_type, resource_id = EXCLUDED.resource_id,
        created_at = EXCLUDED.created_at, expires_at = EXCLUDED.expires_at
      WHERE idempotency_records.expires_at <= ${at}::timestamptz
      RETURNING id::text AS id`;
  return { sql, recordId, keyHash };
}

/**
 * Stores the answer of a `new` claim, in the same transaction as the resource it created.
 * @throws Error when the record is not a pending claim (an answer is recorded once).
 */
export async function recordIdempotentAnswer(tx: IdempotencyDb, recordId: string, answer: IdempotentAnswer): Promise<void> {
  const n = await tx.$executeRaw`
    UPDATE idempotency_records
    SET status_code = ${answer.statusCode}, resource_type = ${answer.resourceType}, resource_id = ${answer.resourceId}
    WHERE id = ${recordId}::uuid AND status_code IS NULL`;
  if (n !== 1) throw new Error(`idempotency record ${recordId} is not a pending claim`);
}

/**
 * Deletes record `recordId` with its answer, in the transaction that deletes its resource: the
 * create was undone (its workflow could not be started), so the key is free for the client's retry.
 */
export async function withdrawIdempotencyRecord(tx: IdempotencyDb, recordId: string): Promise<void> {
  await tx.$executeRaw`DELETE FROM idempotency_records WHERE id = ${recordId}::uuid`;
}

/** Options of {@link purgeExpiredIdempotencyRecords}. */
export interface PurgeOptions {
  /** Clock (default `new Date()`): records with `expires_at <= now` go. */
  now?: Date;
  /** Most rows deleted per statement (default 1000); the purge loops until none are left. */
  batchSize?: number;
}

/**
 * Deletes expired records in batches (short statements, no long lock). A key whose record is gone
 * is simply new again, as an expired one would be.
 * @returns the number of records deleted.
 */
export async function purgeExpiredIdempotencyRecords(db: IdempotencyDb, opts: PurgeOptions = {}): Promise<number> {
  const now = opts.now ?? new Date();
  const batch = opts.batchSize ?? 1000;
  let total = 0;
  for (;;) {
    const n = await db.$executeRaw`
      DELETE FROM idempotency_records WHERE id IN (
        SELECT id FROM idempotency_records WHERE expires_at <= ${now} ORDER BY expires_at LIMIT ${batch}
        FOR UPDATE SKIP LOCKED)`;
    total += n;
    if (n < batch) return total;
  }
}

/** DomainError IDEMPOTENCY_KEY_CONFLICT (409) naming the differing top-level `fields` under `prefix` (never their values). */
export function conflictError(fields: readonly string[], prefix: string): DomainError {
  const listed = fields.slice(0, MAX_LISTED_FIELDS).map(shortName);
  const more = fields.length - listed.length;
  const names = listed.join(', ') + (more > 0 ? ` and ${more} more` : '');
  const errors = listed.map((f) => ({ path: prefix ? `${prefix}.${f}` : f, message: 'differs from the request first sent with this Idempotency-Key' }));
  if (more > 0) errors.push({ path: prefix, message: `${more} more differing fields not listed` });
  return CORE_ERRORS.problem(
    'IDEMPOTENCY_KEY_CONFLICT',
    `this Idempotency-Key was used with another request; fields that differ: ${names || '(none named)'}`,
    { errors },
  );
}

/** The stored `field_hashes` (jsonb, parsed or as text) as a name → hash map; anything else is empty. */
export function asHashes(v: unknown): Record<string, string> {
  const parsed = typeof v === 'string' ? (JSON.parse(v) as unknown) : v;
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return {};
  return Object.fromEntries(Object.entries(parsed).filter((e): e is [string, string] => typeof e[1] === 'string'));
}

function sha256(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

type Canonicalize = (input: unknown) => string | undefined;
let canonicalizeModule: Promise<Canonicalize> | undefined;

/**
 * `canonicalize` 5.x is ESM-only; this CommonJS project loads it once by dynamic `import()` (as
 * src/github/client.ts does Octokit), which works in Node 20 and, compiled by swc, in Jest.
 */
function canonicalizer(): Promise<Canonicalize> {
  canonicalizeModule ??= import('canonicalize').then((m) => {
    const mod = m as unknown as { default: Canonicalize | { default: Canonicalize } };
    return typeof mod.default === 'function' ? mod.default : mod.default.default;
  });
  return canonicalizeModule;
}
