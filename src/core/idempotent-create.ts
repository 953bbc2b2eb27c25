/**
 * The one idempotent create over the Idempotency-Key module (AR-7, PO-1, DC-1): in one transaction
 * the key is claimed ({@link claimIdempotencyKey}) and either its first answer replayed, or the
 * resource created and the answer recorded; after the commit the resource's workflow is started
 * ({@link startOrUndo}). When Temporal is unavailable for that start, the resource and the key's
 * record are deleted again and the request answers 503 WORKFLOW_START_UNAVAILABLE: the client's
 * retry with the same key creates it anew (a replayed secret such as a password is never lost to a
 * start that did not happen). The family supplies the hooks: create the resource, whether a key
 * hash is taken, read a resource, start it, remove it.
 *
 * With `replays` (src/core/replay-answers.ts) a replay is answered before any transaction: one
 * indexed read of the key's record (or its cached copy, answered records only), the fingerprint
 * compared, the resource read; no transaction and no Temporal call unless the family asks for a
 * replay's start (`onReplay`). A key without an answered, unexpired record takes the transaction.
 *
 * With `oneStatement` a new key is claimed, answered and its resource created in one statement
 * ({@link answeredClaimStatement} and the family's inserts selecting from it): one round trip
 * instead of the transaction's. When that statement writes nothing (the key is taken, or the
 * family's guard fails) the transaction runs as without it and answers the replay or the error.
 * Not with a per-request webhook (its row is written by the transaction).
 */
import type { Prisma, PrismaClient } from '@prisma/client';
import { startOrUndo, workflowStartUnavailable, type WarnLog } from './after-commit';
import {
  answeredClaimStatement,
  claimIdempotencyKey,
  reclaimedKeyHash,
  recordIdempotentAnswer,
  withdrawIdempotencyRecord,
  type IdempotencyClaimInput,
} from './idempotency';
import type { DomainError } from './domain-error';
import type { ReplayAnswers } from './replay-answers';
import type { StartOutcome } from './workflow-start';
import { recordRequestWebhook, removeRequestWebhook, type RequestWebhook } from './webhook-requests';

/** How {@link idempotentCreate} starts a committed resource's workflow. */
export interface CreateStart<R> {
  /** Starts `resource`'s workflow (idempotent by workflow ID). */
  run(resource: R): Promise<StartOutcome>;
  /** Log fields naming `resource` when its start fails (its id; never a secret). */
  ids(resource: R): Readonly<Record<string, unknown>>;
  /** Whether a replayed resource is started (e.g. one still QUEUED: its first start was lost); default never. */
  onReplay?(resource: R): boolean;
  /** Deletes the resource and what `create` wrote with it, in the undo's transaction (its start found Temporal unavailable). */
  remove(tx: Prisma.TransactionClient, resource: R): Promise<unknown>;
  /** The error thrown after the undo, given the start's error (default 503 WORKFLOW_START_UNAVAILABLE). */
  problem?(err: unknown): DomainError;
  log: WarnLog;
}

/** The ids of a {@link OneStatementCreate}'s claim: the record's, the resource's, and the key hash the resource takes. */
export interface OneStatementIds {
  recordId: string;
  resourceId: string;
  /** SHA-256 hex of the key: the resource's key hash unless a resource already holds it. */
  keyHash: string;
  /** The hash to take instead when a resource already holds `keyHash` ({@link reclaimedKeyHash}). */
  reclaimedKeyHash: string;
}

/** A create in one statement (see the module comment). */
export interface OneStatementCreate<R> {
  /** The id the new resource gets (recorded as the answer's `resourceId` before it is written). */
  newId(): string;
  /** Boolean SQL that must hold for anything to be written (e.g. the caller's role in the scope). */
  guard: Prisma.Sql;
  /**
   * Runs `WITH claim AS (<claim>) …`: the family's inserts select from `claim` (no row: nothing
   * is written) and take `reclaimedKeyHash` when a resource holds `keyHash`; answers the created
   * resource, or null when nothing was written.
   */
  run(claim: Prisma.Sql, ids: OneStatementIds): Promise<R | null>;
}

/** The operation and the family's hooks of {@link idempotentCreate}. */
export interface IdempotentCreateSpec<R> {
  db: Pick<PrismaClient, '$transaction'>;
  /** The claim: scope, operation, raw key, the request to fingerprint, TTL. */
  claim: IdempotencyClaimInput;
  /** HTTP status recorded as the answer of a new resource, e.g. 202. */
  statusCode: number;
  /** Kind of the resource, stored in the record's answer. */
  resourceType: string;
  /**
   * Whether a resource already holds `keyHash` (an earlier claim of the same key, whose record has
   * expired since). Absent when the resource stores no key hash.
   */
  keyHashTaken?(tx: Prisma.TransactionClient, keyHash: string): Promise<boolean>;
  /** Creates the resource in the claim's transaction, under `keyHash` (unique per resource). May throw a DomainError. */
  create(tx: Prisma.TransactionClient, keyHash: string): Promise<R>;
  /** The id recorded as the answer's `resourceId`. */
  idOf(resource: R): string;
  /** The resource of `resourceId` as stored now (null: gone). */
  read(resourceId: string): Promise<R | null>;
  /** Starts the resource after the commit; absent when nothing is started. */
  start?: CreateStart<R>;
  /** The replay fast path (see the module comment); absent: every request takes the transaction. */
  replays?: ReplayAnswers;
  /** The read of a resource replayed by the fast path (e.g. over the hot path); default `read`. */
  readReplayed?(resourceId: string): Promise<R | null>;
  /** The request's per-request webhook (checked by {@link IdempotentCreateSpec.beforeCreate}), kept with a new resource in its transaction. */
  webhook?: RequestWebhook;
  /**
   * Checks of a request that may create (e.g. its webhook's destination, which needs DNS): run
   * after the fast path found no answered record and before the transaction, so an answered replay
   * never depends on them. @throws the request's DomainError; nothing is written then.
   */
  beforeCreate?(): Promise<void>;
  /** The one-statement create of a new key (see the module comment); absent: the transaction always. */
  oneStatement?: OneStatementCreate<R>;
}

/** Result of {@link idempotentCreate}: the resource (as stored after the start), the status code, and whether it was a replay. */
export interface IdempotentCreateResult<R> {
  resource: R;
  statusCode: number;
  replay: boolean;
}

/**
 * Creates the resource of `spec` once per Idempotency-Key (see the module comment). A key reused
 * after its record expired, whose earlier resource still holds the plain key hash, gets a fresh
 * hash derived from the key hash and the claim, so the
 * resource's unique key hash (and the workflow ID built from it) holds: one resource per claim
 * ({@link reclaimedKeyHash}).
 * @throws what the claim throws (DomainError IDEMPOTENCY_KEY_CONFLICT, IDEMPOTENCY_KEY_IN_PROGRESS),
 *   what `create` throws (the transaction rolls back); DomainError 503 WORKFLOW_START_UNAVAILABLE
 *   when Temporal is unavailable for the start (of a new resource: undone first; of a replayed one:
 *   kept), or when a replayed resource is gone (its first request was undone meanwhile); 503
 *   WORKFLOW_START_UNDECIDED when Temporal neither took nor refused the start (the resource and the
 *   key's record are kept; a same-key replay answers it); `start.problem`'s error instead of the
 *   first 503 when it is given.
 */
export async function idempotentCreate<R>(spec: IdempotentCreateSpec<R>): Promise<IdempotentCreateResult<R>> {
  const fast = spec.replays ? await answerReplay(spec, spec.replays) : null;
  if (fast) return fast;
  if (spec.beforeCreate) await spec.beforeCreate();
  const outcome = (spec.oneStatement && !spec.webhook ? await createInOneStatement(spec, spec.oneStatement) : null) ?? await spec.db.$transaction(async (tx) => {
    const claim = await claimIdempotencyKey(tx, spec.claim);
    if (claim.kind === 'replay') return { replay: true as const, resourceId: claim.resourceId, statusCode: claim.statusCode };
    const taken = spec.keyHashTaken ? await spec.keyHashTaken(tx, claim.keyHash) : false;
    const keyHash = taken ? reclaimedKeyHash(claim.keyHash, claim.recordId) : claim.keyHash;
    const resource = await spec.create(tx, keyHash);
    if (spec.webhook) await recordRequestWebhook(tx, spec.webhook, spec.idOf(resource));
    await recordIdempotentAnswer(tx, claim.recordId, { statusCode: spec.statusCode, resourceType: spec.resourceType, resourceId: spec.idOf(resource) });
    return { replay: false as const, resource, recordId: claim.recordId };
  });
  if (outcome.replay) {
    const resource = await spec.read(outcome.resourceId);
    if (resource === null) throw workflowStartUnavailable(`the first request with this Idempotency-Key was undone (Temporal was unavailable); retry`);
    return replayOf(spec, resource, outcome.resourceId, outcome.statusCode);
  }
  const start = spec.start;
  if (!start) return { resource: outcome.resource, statusCode: spec.statusCode, replay: false };
  const created = outcome.resource;
  await startOrUndo(start.log, [{ ids: start.ids(created), start: () => start.run(created) }], async () => {
    await spec.db.$transaction(async (tx) => {
      await start.remove(tx, created);
      if (spec.webhook) await removeRequestWebhook(tx, spec.webhook.source, spec.idOf(created));
      await withdrawIdempotencyRecord(tx, outcome.recordId);
    });
    spec.replays?.forget(spec.claim.scopeId, spec.claim.operation, spec.claim.key);
  },
    start.problem ? { problem: start.problem } : {},
  );
  return { resource: (await spec.read(spec.idOf(created))) ?? created, statusCode: spec.statusCode, replay: false };
}

/** The one-statement create of a new key; null when it wrote nothing (the transaction decides). */
async function createInOneStatement<R>(spec: IdempotentCreateSpec<R>, one: OneStatementCreate<R>): Promise<{ replay: false; resource: R; recordId: string } | null> {
  const resourceId = one.newId();
  const claim = await answeredClaimStatement(spec.claim, { statusCode: spec.statusCode, resourceType: spec.resourceType, resourceId }, one.guard);
  const resource = await one.run(claim.sql, {
    recordId: claim.recordId,
    resourceId,
    keyHash: claim.keyHash,
    reclaimedKeyHash: reclaimedKeyHash(claim.keyHash, claim.recordId),
  });
  return resource === null ? null : { replay: false, resource, recordId: claim.recordId };
}

/**
 * The fast path: the replay of an answered, unexpired record made by the same request, or null
 * (no such record, no answer yet, or its resource is gone: the transaction decides, and a cached
 * copy of a record withdrawn by another process is dropped).
 * @throws DomainError IDEMPOTENCY_KEY_CONFLICT (another request under the key); what a replay's start throws.
 */
async function answerReplay<R>(spec: IdempotentCreateSpec<R>, replays: ReplayAnswers): Promise<IdempotentCreateResult<R> | null> {
  const answer = await replays.lookup(spec.claim);
  if (!answer) return null;
  const resource = await (spec.readReplayed ?? spec.read)(answer.resourceId);
  if (resource === null) {
    replays.forget(spec.claim.scopeId, spec.claim.operation, spec.claim.key);
    return null;
  }
  return replayOf(spec, resource, answer.resourceId, answer.statusCode);
}

/** A replay's answer: the resource as read, or, when the family asks for its start, as stored after it. */
async function replayOf<R>(spec: IdempotentCreateSpec<R>, resource: R, resourceId: string, statusCode: number): Promise<IdempotentCreateResult<R>> {
  const start = spec.start;
  if (!start?.onReplay?.(resource)) return { resource, statusCode, replay: true };
  // The resource is the first request's: nothing is undone, the 503 alone asks for a retry.
  await startOrUndo(start.log, [{ ids: start.ids(resource), start: () => start.run(resource) }]);
  return { resource: (await spec.read(resourceId)) ?? resource, statusCode, replay: true };
}
