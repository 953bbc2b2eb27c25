/**
 * The AI-runs family's commands and reads (AR-1, AR-3, AR-4, AR-6, AR-7), for the routes:
 * - create: Idempotency-Key (scope = company) → one run; the run row (masked input, keyed hash),
 *   its sealed input (outbox) and the key's answer commit together, then the workflow starts
 *   (SAN-4 pattern: a lost start leaves the run QUEUED with its sealed input for the reconciler);
 * - retry: FAILED → RETRYING under its own Idempotency-Key (one key, one attempt), then the waiting
 *   workflow is signalled (a lost signal is re-sent by the reconciler);
 * - cancel: an active run → FAILED CANCELLED with its running attempt, then the workflow is cancelled;
 * - read: the run with its attempts and candidates; tenancy through requireMembership (404 / 403).
 * Services throw DomainError; only the API maps them to HTTP.
 */
import { createHash, randomUUID } from 'node:crypto';
import type { AiAttempt, AiCandidate, AiRun, CompanyRole, PrismaClient } from '@prisma/client';
import type { AiRunsConfig as Config } from '../../config/ai-runs';
import { domainError } from '../../core/domain-error';
import type { WarnLog } from '../../core/enqueue';
import { claimIdempotencyKey, recordIdempotentAnswer } from '../../core/idempotency';
import { requireMembership } from '../../core/tenancy';
import { failActiveRun } from './run-projection';
import { RUN_ERROR_CODES } from '../../domain/ai-runs/failures';
import { ACTIVE_RUN_STATUSES } from '../../domain/ai-runs/run-state';
import { aiRunWorkflowId } from '../../domain/ai-runs/contracts';
import type { InputBox } from './input-box';
import { inputHashOf, maskInput } from './input-protection';
import type { AiRunStarter } from './starter';

/** Roles that may create, retry and cancel runs (reading needs membership only). */
export const AI_RUN_WRITER_ROLES: readonly CompanyRole[] = ['OWNER', 'HR_MANAGER'];

/** What the commands need. */
export interface AiRunDeps {
  db: PrismaClient;
  config: Config;
  starter: AiRunStarter;
  box: InputBox;
  log: WarnLog;
}

/** Body of `POST /api/v1/ai-runs`. */
export interface CreateAiRunBody {
  companyId: string;
  text: string;
  locale?: 'ko' | 'en' | undefined;
}

/** Correlation of the request that made a command (AR-6 requestId / traceId). */
export interface RequestCorrelation {
  requestId?: string | undefined;
  traceId?: string | undefined;
}

/** Operation names of the Idempotency-Key records. */
export const AI_RUN_OPERATIONS = { create: 'ai-runs.create', retry: (runId: string) => `ai-runs.retry:${runId}` } as const;

/** Result of {@link createAiRun}: the run (as stored now) and whether this was a replay of the key. */
export interface CreateResult {
  run: AiRun;
  statusCode: number;
  replay: boolean;
}

function hex(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/**
 * AR-1/AR-7: creates the run of `body` for `userId` under Idempotency-Key `key` (scope: the
 * company). Same key + payload → the same run and status code; another payload → 409
 * IDEMPOTENCY_KEY_CONFLICT naming the fields; concurrent requests with one key → one run.
 * @throws DomainError NOT_FOUND (not a member), FORBIDDEN (VIEWER), IDEMPOTENCY_KEY_CONFLICT.
 */
export async function createAiRun(deps: AiRunDeps, userId: string, key: string, body: CreateAiRunBody, corr: RequestCorrelation = {}): Promise<CreateResult> {
  await requireMembership(deps.db, userId, body.companyId, AI_RUN_WRITER_ROLES);
  const a = deps.config.aiRuns;
  const request = { companyId: body.companyId, text: body.text, locale: body.locale ?? null };
  const outcome = await deps.db.$transaction(async (tx) => {
    const claim = await claimIdempotencyKey(tx, { scopeId: body.companyId, operation: AI_RUN_OPERATIONS.create, key, request, ttlMs: deps.config.idempotency.ttlMs });
    if (claim.kind === 'replay') return { replay: true as const, runId: claim.resourceId, statusCode: claim.statusCode };
    // A key reused after its record expired gets a fresh hash derived from the key hash and the claim (one run per claim).
    const taken = await tx.aiRun.findUnique({ where: { companyId_idempotencyKeyHash: { companyId: body.companyId, idempotencyKeyHash: claim.keyHash } }, select: { id: true } });
    const keyHash = taken ? hex(`${claim.keyHash}:${claim.recordId}`) : claim.keyHash;
    const runId = randomUUID();
    const now = new Date();
    const run = await tx.aiRun.create({
      data: {
        id: runId,
        companyId: body.companyId,
        actorUserId: userId,
        status: 'QUEUED',
        inputMasked: maskInput(body.text),
        inputHash: inputHashOf(a.inputHashKey ?? '', body.text),
        locale: body.locale ?? null,
        idempotencyKeyHash: keyHash,
        workflowId: aiRunWorkflowId(body.companyId, keyHash),
        maxAttempts: a.maxAttempts,
        deadlineAt: new Date(now.getTime() + a.deadlineMs),
        requestId: corr.requestId ?? null,
        traceId: corr.traceId ?? null,
        createdAt: now,
      },
    });
    const sealed = deps.box.seal(runId, body.text);
    await tx.aiRunPendingInput.create({ data: { runId, keyId: sealed.keyId, ciphertext: sealed.ciphertext } });
    await recordIdempotentAnswer(tx, claim.recordId, { statusCode: 202, resourceType: 'ai-run', resourceId: runId });
    return { replay: false as const, run };
  });
  if (outcome.replay) {
    const run = await deps.db.aiRun.findUniqueOrThrow({ where: { id: outcome.runId } });
    return { run, statusCode: outcome.statusCode, replay: true };
  }
  await startAfterCommit(deps, outcome.run, body.text);
  return { run: (await deps.db.aiRun.findUnique({ where: { id: outcome.run.id } })) ?? outcome.run, statusCode: 202, replay: false };
}

/** Starts a committed run's workflow; a failure is logged and left to the reconciler (never throws). */
export async function startAfterCommit(deps: Pick<AiRunDeps, 'starter' | 'log'>, run: AiRun, text: string): Promise<void> {
  try {
    await deps.starter.start(
      { runId: run.id, companyId: run.companyId, userId: run.actorUserId, workflowId: run.workflowId, locale: run.locale, createdAt: run.createdAt, deadlineAt: run.deadlineAt ?? new Date(run.createdAt.getTime()) },
      text,
    );
  } catch (err) {
    deps.log.warn({ err, aiRunId: run.id }, 'ai run workflow start failed; the reconciler will start it');
  }
}

/** A run the caller may see: found and in one of the caller's companies, else 404 (AR-3 tenancy). */
async function visibleRun(db: PrismaClient, userId: string, runId: string, roles?: readonly CompanyRole[]): Promise<AiRun> {
  const run = await db.aiRun.findUnique({ where: { id: runId } });
  if (!run) throw domainError('not-found', 'NOT_FOUND', `ai run ${runId} not found`);
  try {
    await requireMembership(db, userId, run.companyId, roles);
  } catch (err) {
    if (err instanceof Error && 'code' in err && err.code === 'NOT_FOUND') throw domainError('not-found', 'NOT_FOUND', `ai run ${runId} not found`);
    throw err;
  }
  return run;
}

/** A run with its attempts (by number) and candidates (by attempt, ordinal). */
export type AiRunWithDetails = AiRun & { attempts: AiAttempt[]; candidates: (AiCandidate & { attempt: { number: number } })[] };

/** AR-3: the run `runId` as the caller may read it (any member role). @throws DomainError NOT_FOUND. */
export async function readAiRun(db: PrismaClient, userId: string, runId: string): Promise<AiRunWithDetails> {
  await visibleRun(db, userId, runId);
  return db.aiRun.findUniqueOrThrow({
    where: { id: runId },
    include: {
      attempts: { orderBy: { number: 'asc' } },
      candidates: { orderBy: [{ createdAt: 'asc' }, { ordinal: 'asc' }], include: { attempt: { select: { number: true } } } },
    },
  });
}

/** Result of {@link retryAiRun}: the run after the retry and the attempt number the retry makes. */
export interface RetryResult {
  run: AiRun;
  attemptNumber: number;
  statusCode: number;
  replay: boolean;
}

/**
 * AR-4: FAILED → RETRYING with a new attempt (MANUAL_RETRY), earlier attempts untouched. The same
 * retry key → the same attempt (a replay). Anything but a FAILED run (or a cancelled one, or one
 * whose retry window closed) → 409 AI_RUN_NOT_RETRYABLE.
 * @throws DomainError NOT_FOUND, FORBIDDEN, AI_RUN_NOT_RETRYABLE, IDEMPOTENCY_KEY_CONFLICT.
 */
export async function retryAiRun(deps: AiRunDeps, userId: string, runId: string, key: string): Promise<RetryResult> {
  const found = await visibleRun(deps.db, userId, runId, AI_RUN_WRITER_ROLES);
  const notRetryable = (why: string) => domainError('conflict', 'AI_RUN_NOT_RETRYABLE', why);
  const outcome = await deps.db.$transaction(async (tx) => {
    const claim = await claimIdempotencyKey(tx, { scopeId: found.companyId, operation: AI_RUN_OPERATIONS.retry(runId), key, request: { aiRunId: runId }, ttlMs: deps.config.idempotency.ttlMs });
    if (claim.kind === 'replay') return { replay: true as const, statusCode: claim.statusCode, attemptNumber: Number(claim.resourceId.split('/attempts/')[1] ?? 0) };
    const run = await tx.aiRun.findUniqueOrThrow({ where: { id: runId } });
    if (run.status !== 'FAILED') throw notRetryable(`the run is ${run.status}; only a FAILED run can be retried`);
    if (run.errorCode === RUN_ERROR_CODES.CANCELLED) throw notRetryable('the run was cancelled; make a new request instead');
    if (!(await deps.starter.isOpen(run.workflowId))) throw notRetryable('the retry window of this run has closed; make a new request instead');
    const deadlineAt = new Date(Date.now() + deps.config.aiRuns.deadlineMs);
    const moved = await tx.aiRun.updateMany({
      where: { id: runId, status: 'FAILED', attemptCount: run.attemptCount },
      data: { status: 'RETRYING', retryCount: { increment: 1 }, nextAttemptAt: null, errorCode: null, errorMessage: null, finishedAt: null, deadlineAt, version: { increment: 1 } },
    });
    if (moved.count === 0) throw notRetryable('the run changed meanwhile; read it again');
    const attemptNumber = run.attemptCount + 1;
    await recordIdempotentAnswer(tx, claim.recordId, { statusCode: 202, resourceType: 'ai-run-attempt', resourceId: `${runId}/attempts/${attemptNumber}` });
    return { replay: false as const, statusCode: 202, attemptNumber, deadlineAt, workflowId: run.workflowId };
  });
  if (!outcome.replay) {
    try {
      await deps.starter.signalRetry(outcome.workflowId, { attemptNumber: outcome.attemptNumber, deadlineAt: outcome.deadlineAt.toISOString() });
    } catch (err) {
      deps.log.warn({ err, aiRunId: runId }, 'ai run retry signal failed; the reconciler will send it');
    }
  }
  const run = await deps.db.aiRun.findUniqueOrThrow({ where: { id: runId } });
  return { run, attemptNumber: outcome.attemptNumber, statusCode: outcome.statusCode, replay: outcome.replay };
}

/**
 * Cancels an active run (QUEUED, RUNNING, RETRYING): FAILED CANCELLED with its running attempt,
 * then its workflow is cancelled (a failed cancel request is logged: the workflow's later writes are
 * guarded and change nothing). A finished run → 409 AI_RUN_NOT_CANCELLABLE.
 * @throws DomainError NOT_FOUND, FORBIDDEN, AI_RUN_NOT_CANCELLABLE.
 */
export async function cancelAiRun(deps: AiRunDeps, userId: string, runId: string): Promise<AiRun> {
  const run = await visibleRun(deps.db, userId, runId, AI_RUN_WRITER_ROLES);
  if (!ACTIVE_RUN_STATUSES.includes(run.status)) {
    throw domainError('conflict', 'AI_RUN_NOT_CANCELLABLE', `the run is ${run.status}; only a QUEUED, RUNNING or RETRYING run can be cancelled`);
  }
  const state = await failActiveRun(deps.db, runId, RUN_ERROR_CODES.CANCELLED, 'the run was cancelled');
  if (state.errorCode !== RUN_ERROR_CODES.CANCELLED) {
    throw domainError('conflict', 'AI_RUN_NOT_CANCELLABLE', `the run is ${state.status}; it finished meanwhile`);
  }
  await deps.db.aiRunPendingInput.deleteMany({ where: { runId } });
  try {
    await deps.starter.cancel(run.workflowId);
  } catch (err) {
    deps.log.warn({ err, aiRunId: runId }, 'ai run workflow cancel failed; its later writes are guarded');
  }
  return deps.db.aiRun.findUniqueOrThrow({ where: { id: runId } });
}
