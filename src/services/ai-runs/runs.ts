/**
 * The AI-runs family's commands and reads (AR-1, AR-3, AR-4, AR-6, AR-7), for the routes:
 * - create: Idempotency-Key (scope = company) → one run; the run row (masked input, keyed hash),
 *   its sealed input (outbox) and the key's answer commit together, then the workflow starts
 *   (SAN-4 pattern: a lost start leaves the run QUEUED with its sealed input for the reconciler);
 * - retry: FAILED → RETRYING under its own Idempotency-Key (one key, one attempt), then the waiting
 *   workflow is signalled (Temporal unavailable: undone, 503; a lost signal is re-sent by the reconciler);
 * - cancel: an active run → FAILED CANCELLED with its running attempt, then the workflow is cancelled;
 * - read: the run with its attempts and candidates; tenancy through requireMembership (404 / 403).
 * Services throw DomainError; only the API maps them to HTTP.
 */
import { randomUUID } from 'node:crypto';
import { Prisma, type AiAttempt, type AiCandidate, type AiRun, type CompanyRole, type PrismaClient } from '@prisma/client';
import type { AiRunsConfig as Config } from '../../config/ai-runs';
import { WorkflowNotFoundError } from '@temporalio/client';
import { workflowStartUnavailable, type WarnLog } from '../../core/after-commit';
import { idempotentCreate } from '../../core/idempotent-create';
import { checkRequestWebhook } from '../../core/webhook-requests';
import { requireMembership } from '../../core/tenancy';
import type { ReplayPath } from '../../core/replay-answers';
import type { HotReads } from '../../db/hot-reads';
import { startFailureKind, WorkflowNotStartedError } from '../../core/workflow-start';
import { failActiveRun, moveRun } from './run-projection';
import { AR_ERRORS, RUN_ERROR_CODES } from '../../domain/ai-runs/errors';
import { AI_RUN_STATES } from '../../domain/ai-runs/run-state';
import { aiRunWorkflowId } from '../../domain/ai-runs/contracts';
import type { InputBox } from './input-box';
import { inputHashOf, maskInput } from './input-protection';
import { startableRunOf, type AiRunStarter } from './starter';

/** Roles that may create, retry and cancel runs (reading needs membership only). */
export const AI_RUN_WRITER_ROLES: readonly CompanyRole[] = ['OWNER', 'HR_MANAGER'];

/** What the commands need. */
export interface AiRunDeps {
  db: PrismaClient;
  config: Config;
  starter: AiRunStarter;
  box: InputBox;
  log: WarnLog;
  /** The replay fast path (the API's hot path); absent: every create takes the claim's transaction. */
  replays?: ReplayPath | undefined;
}

/** Event source of a run's terminal events (the prefix of the `ai_runs` webhook trigger). */
export const AI_RUN_WEBHOOK_SOURCE = 'ai_run';

/** Body of `POST /api/v1/ai-runs`. */
export interface CreateAiRunBody {
  companyId: string;
  text: string;
  locale?: 'ko' | 'en' | undefined;
  /** Per-request completion webhook URL of the requesting user (src/core/webhook-requests.ts). */
  webhook?: string | undefined;
}

/** Correlation of the request that made a command (AR-6 requestId / traceId). */
export interface RequestCorrelation {
  requestId?: string | undefined;
  traceId?: string | undefined;
}

/** Operation names of the Idempotency-Key records. */
export const AI_RUN_OPERATIONS = { create: 'ai-runs.create', retry: (runId: string) => `ai-runs.retry:${runId}` } as const;

/** Every column of `ai_runs` under the model's names: the run as `db.aiRun.findUnique` answers it. */
const AI_RUN_COLUMNS = `
         id::text AS id, company_id::text AS "companyId", actor_user_id::text AS "actorUserId", status,
         analysis_outcome AS "analysisOutcome", input_masked AS "inputMasked", input_hash AS "inputHash", locale,
         idempotency_key_hash AS "idempotencyKeyHash", workflow_id AS "workflowId", attempt_count AS "attemptCount",
         retry_count AS "retryCount", max_attempts AS "maxAttempts", next_attempt_at AS "nextAttemptAt",
         deadline_at AS "deadlineAt", version, error_code AS "errorCode", error_message AS "errorMessage",
         request_id AS "requestId", trace_id AS "traceId", created_at AS "createdAt", updated_at AS "updatedAt",
         started_at AS "startedAt", finished_at AS "finishedAt"`;

/** The run `$1` (text of the hot path's point read). */
const AI_RUN_ROW = `SELECT ${AI_RUN_COLUMNS} FROM ai_runs WHERE id = $1::uuid`;

/**
 * AR-3 one statement: the run `$1` with its attempts (by number) and candidates (by created_at,
 * ordinal; each with its attempt's number) under the model's names, as `readAiRun`'s Prisma read
 * answers them (timestamps as JSON text), and the role of user `$2` in the run's company (null: not
 * a member).
 */
const AI_RUN_WITH_DETAILS = `
  SELECT ${AI_RUN_COLUMNS},
         (SELECT m.role FROM company_members m WHERE m.company_id = r.company_id AND m.user_id = $2::uuid) AS "memberRole",
         COALESCE((SELECT json_agg(json_build_object(
             'id', a.id, 'runId', a.run_id, 'number', a.number, 'trigger', a.trigger, 'status', a.status,
             'errorCode', a.error_code, 'errorMessage', a.error_message, 'validationErrors', a.validation_errors,
             'requestId', a.request_id, 'traceId', a.trace_id, 'latencyMs', a.latency_ms,
             'backendVersion', a.backend_version, 'agentVersion', a.agent_version, 'modelVersion', a.model_version,
             'promptVersion', a.prompt_version, 'contextPackVersion', a.context_pack_version,
             'workflowCatalogVersion', a.workflow_catalog_version, 'contractVersion', a.contract_version,
             'knowledgeVersion', a.knowledge_version, 'startedAt', a.started_at, 'finishedAt', a.finished_at
           ) ORDER BY a.number) FROM ai_attempts a WHERE a.run_id = r.id), '[]'::json) AS attempts,
         COALESCE((SELECT json_agg(json_build_object(
             'id', c.id, 'runId', c.run_id, 'attemptId', c.attempt_id, 'ordinal', c.ordinal, 'taskType', c.task_type,
             'title', c.title, 'slots', c.slots, 'missingSlots', c.missing_slots, 'confidence', c.confidence,
             'validationErrors', c.validation_errors, 'blocked', c.blocked, 'status', c.status, 'createdAt', c.created_at,
             'attempt', json_build_object('number', ca.number)
           ) ORDER BY c.created_at, c.ordinal)
           FROM ai_candidates c JOIN ai_attempts ca ON ca.id = c.attempt_id WHERE c.run_id = r.id), '[]'::json) AS candidates
    FROM ai_runs r
   WHERE r.id = $1::uuid`;

/** A row of {@link AI_RUN_WITH_DETAILS} as the driver parses it (the JSON's timestamps are text). */
type AiRunDetailsRow = AiRun & {
  memberRole: CompanyRole | null;
  attempts: (Omit<AiAttempt, 'startedAt' | 'finishedAt'> & { startedAt: string; finishedAt: string | null })[];
  candidates: (Omit<AiCandidate, 'createdAt'> & { createdAt: string; attempt: { number: number } })[];
};

/** Result of {@link createAiRun}: the run (as stored now) and whether this was a replay of the key. */
export interface CreateResult {
  run: AiRun;
  statusCode: number;
  replay: boolean;
}

/**
 * AR-1/AR-7: creates the run of `body` for `userId` under Idempotency-Key `key` (scope: the
 * company). Same key + payload → the same run and status code; another payload → 409
 * IDEMPOTENCY_KEY_CONFLICT naming the fields; concurrent requests with one key → one run. The run,
 * its sealed input (outbox) and the key's answer commit together; with Temporal unavailable for the
 * start they are deleted again (503), another lost start leaves the run QUEUED for the reconciler.
 * @throws DomainError NOT_FOUND (not a member), FORBIDDEN (VIEWER), IDEMPOTENCY_KEY_CONFLICT, WORKFLOW_START_UNAVAILABLE.
 */
export async function createAiRun(deps: AiRunDeps, userId: string, key: string, body: CreateAiRunBody, corr: RequestCorrelation = {}): Promise<CreateResult> {
  const replays = deps.replays;
  // A replay is answered on the cached membership (at most the token cache's lifetime old); a
  // create checks it in its transaction, uncached.
  if (replays) await replays.members.require(userId, body.companyId, AI_RUN_WRITER_ROLES);
  else await requireMembership(deps.db, userId, body.companyId, AI_RUN_WRITER_ROLES);
  const a = deps.config.aiRuns;
  const request = { companyId: body.companyId, text: body.text, locale: body.locale ?? null, webhook: body.webhook };
  const r = await idempotentCreate<AiRun>({
    db: deps.db,
    claim: { scopeId: body.companyId, operation: AI_RUN_OPERATIONS.create, key, request, ttlMs: deps.config.idempotency.ttlMs },
    statusCode: 202,
    resourceType: 'ai-run',
    ...(replays ? { replays: replays.answers } : {}),
    oneStatement: {
      newId: () => randomUUID(),
      guard: Prisma.sql`EXISTS (SELECT 1 FROM company_members
        WHERE company_id = ${body.companyId}::uuid AND user_id = ${userId}::uuid
          AND role IN (${Prisma.join(AI_RUN_WRITER_ROLES.map((role) => Prisma.sql`${role}::"CompanyRole"`))}))`,
      async run(claim, ids) {
        const now = new Date();
        const at = now.toISOString();
        const sealed = deps.box.seal(ids.resourceId, body.text);
        const rows = await deps.db.$queryRaw<AiRun[]>`
          WITH claim AS (${claim}),
          taken AS (SELECT EXISTS (SELECT 1 FROM ai_runs WHERE company_id = ${body.companyId}::uuid AND idempotency_key_hash = ${ids.keyHash}::text) AS taken),
          run AS (
            INSERT INTO ai_runs (id, company_id, actor_user_id, status, input_masked, input_hash, locale, idempotency_key_hash,
                                 workflow_id, max_attempts, deadline_at, request_id, trace_id, created_at, updated_at)
            SELECT ${ids.resourceId}::uuid, ${body.companyId}::uuid, ${userId}::uuid, 'QUEUED', ${maskInput(body.text)}::text,
                   ${inputHashOf(a.inputHashKey ?? '', body.text)}::text, ${body.locale ?? null}::text,
                   CASE WHEN taken.taken THEN ${ids.reclaimedKeyHash}::text ELSE ${ids.keyHash}::text END,
                   CASE WHEN taken.taken THEN ${aiRunWorkflowId(body.companyId, ids.reclaimedKeyHash)}::text ELSE ${aiRunWorkflowId(body.companyId, ids.keyHash)}::text END,
                   ${a.maxAttempts}::int, ${new Date(now.getTime() + a.deadlineMs).toISOString()}::timestamptz,
                   ${corr.requestId ?? null}::text, ${corr.traceId ?? null}::text, ${at}::timestamptz, ${at}::timestamptz
              FROM claim, taken
            RETURNING ${Prisma.raw(AI_RUN_COLUMNS)}
          ),
          sealed AS (
            INSERT INTO ai_run_pending_inputs (run_id, key_id, ciphertext, created_at)
            SELECT id::uuid, ${sealed.keyId}::text, ${sealed.ciphertext}::text, ${at}::timestamptz FROM run
          )
          SELECT * FROM run`;
        return rows[0] ?? null;
      },
    },
    ...(body.webhook !== undefined ? { webhook: { source: AI_RUN_WEBHOOK_SOURCE, userId, url: body.webhook }, beforeCreate: () => checkRequestWebhook(deps.db, { allowPrivate: deps.config.webhooks.allowPrivateUrls }, userId, body.webhook!) } : {}),
    keyHashTaken: async (tx, keyHash) =>
      (await tx.aiRun.findUnique({ where: { companyId_idempotencyKeyHash: { companyId: body.companyId, idempotencyKeyHash: keyHash } }, select: { id: true } })) !== null,
    async create(tx, keyHash) {
      if (replays) await requireMembership(tx, userId, body.companyId, AI_RUN_WRITER_ROLES);
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
      return run;
    },
    idOf: (run) => run.id,
    read: (runId) => (replays ? replays.reads.row<AiRun>('ai_run_replayed', AI_RUN_ROW, [runId]) : deps.db.aiRun.findUnique({ where: { id: runId } })),
    start: {
      run: (run) => deps.starter.start(startableRunOf(run), body.text),
      ids: (run) => ({ aiRunId: run.id }),
      // Its start found Temporal unavailable: the run and its sealed input go (503; the client retries).
      remove: async (tx, run) => {
        await tx.aiRunPendingInput.deleteMany({ where: { runId: run.id } });
        await tx.aiRun.deleteMany({ where: { id: run.id, status: 'QUEUED' } });
      },
      log: deps.log,
    },
  });
  return { run: r.resource, statusCode: r.statusCode, replay: r.replay };
}

/** A run the caller may see: found and in one of the caller's companies, else 404 (AR-3 tenancy). */
async function visibleRun(db: PrismaClient, userId: string, runId: string, roles?: readonly CompanyRole[]): Promise<AiRun> {
  return shownTo(db, userId, runId, await db.aiRun.findUnique({ where: { id: runId } }), roles);
}

/** `run` (read as `runId`) when the caller may see it, else 404 (AR-3 tenancy); FORBIDDEN outside `roles`. */
async function shownTo<R extends AiRun>(db: PrismaClient, userId: string, runId: string, run: R | null, roles?: readonly CompanyRole[]): Promise<R> {
  if (!run) throw AR_ERRORS.problem('NOT_FOUND', `ai run ${runId} not found`);
  try {
    await requireMembership(db, userId, run.companyId, roles);
  } catch (err) {
    if (err instanceof Error && 'code' in err && err.code === 'NOT_FOUND') throw AR_ERRORS.problem('NOT_FOUND', `ai run ${runId} not found`);
    throw err;
  }
  return run;
}

/** A run with its attempts (by number) and candidates (by attempt, ordinal). */
export type AiRunWithDetails = AiRun & { attempts: AiAttempt[]; candidates: (AiCandidate & { attempt: { number: number } })[] };

/**
 * AR-3: the run `runId` as the caller may read it (any member role): one read of the run with its
 * details, then the caller's membership of its company (a long poll reads it on every change);
 * with `hot` (the API's hot path) both in one statement over `pg`.
 * @throws DomainError NOT_FOUND.
 */
export async function readAiRun(db: PrismaClient, userId: string, runId: string, hot?: Pick<HotReads, 'row'>): Promise<AiRunWithDetails> {
  if (hot) return readAiRunHot(hot, userId, runId);
  const run = await db.aiRun.findUnique({
    where: { id: runId },
    include: {
      attempts: { orderBy: { number: 'asc' } },
      candidates: { orderBy: [{ createdAt: 'asc' }, { ordinal: 'asc' }], include: { attempt: { select: { number: true } } } },
    },
  });
  return shownTo(db, userId, runId, run);
}

/** {@link readAiRun} in one statement over the hot path (the run, its details and the caller's role). @throws DomainError NOT_FOUND. */
async function readAiRunHot(hot: Pick<HotReads, 'row'>, userId: string, runId: string): Promise<AiRunWithDetails> {
  const row = await hot.row<AiRunDetailsRow>('ai_run_with_details', AI_RUN_WITH_DETAILS, [runId, userId]);
  if (!row || row.memberRole === null) throw AR_ERRORS.problem('NOT_FOUND', `ai run ${runId} not found`);
  const { memberRole: _role, attempts, candidates, ...run } = row;
  return {
    ...run,
    attempts: attempts.map((a) => ({ ...a, startedAt: new Date(a.startedAt), finishedAt: a.finishedAt === null ? null : new Date(a.finishedAt) })),
    candidates: candidates.map((c) => ({ ...c, createdAt: new Date(c.createdAt) })),
  };
}

/** Result of {@link retryAiRun}: the run after the retry and the attempt number the retry makes. */
export interface RetryResult {
  run: AiRun;
  attemptNumber: number;
  statusCode: number;
  replay: boolean;
}

/** The run's fields a manual retry changes, as they were (restored when its signal cannot be sent). */
type RetriedFields = Pick<AiRun, 'retryCount' | 'nextAttemptAt' | 'errorCode' | 'errorMessage' | 'finishedAt' | 'deadlineAt'>;

/**
 * AR-4: FAILED → RETRYING with a new attempt (MANUAL_RETRY), earlier attempts untouched; the run's
 * waiting workflow is signalled after the commit. The same retry key → the same attempt (a
 * replay). Anything but a FAILED run (or a cancelled one) → 409 AI_RUN_NOT_RETRYABLE; a run whose
 * retry window has closed (its workflow ended) → 409 AI_RUN_RETRY_WINDOW_CLOSED; both change
 * nothing. With Temporal unavailable (for the window check or the signal) the run is FAILED as
 * before and the key's record withdrawn: 503 WORKFLOW_START_UNAVAILABLE, and the same request
 * succeeds later; a signal Temporal neither confirmed nor refused keeps the run RETRYING (the
 * reconciler re-sends it): 503 WORKFLOW_START_UNDECIDED.
 * @throws DomainError NOT_FOUND, FORBIDDEN, AI_RUN_NOT_RETRYABLE, AI_RUN_RETRY_WINDOW_CLOSED,
 *   IDEMPOTENCY_KEY_CONFLICT, WORKFLOW_START_UNAVAILABLE, WORKFLOW_START_UNDECIDED.
 */
export async function retryAiRun(deps: AiRunDeps, userId: string, runId: string, key: string): Promise<RetryResult> {
  const found = await visibleRun(deps.db, userId, runId, AI_RUN_WRITER_ROLES);
  const notRetryable = (why: string) => AR_ERRORS.problem('AI_RUN_NOT_RETRYABLE', why);
  const windowClosed = () => AR_ERRORS.problem('AI_RUN_RETRY_WINDOW_CLOSED', 'the retry window of this run has closed; make a new request instead');
  const unavailable = () => workflowStartUnavailable('Temporal is unavailable: the run was not retried and is FAILED as before; retry the same request (same Idempotency-Key) after Retry-After');
  type Attempt = { attemptNumber: number; deadlineAt?: Date; workflowId?: string; before?: RetriedFields };
  const attemptId = (n: number) => `${runId}/attempts/${n}`;
  const isOpen = async (workflowId: string) => {
    try {
      return await deps.starter.isOpen(workflowId);
    } catch (err) {
      if (startFailureKind(err) === 'rejected') throw err;
      throw unavailable(); // nothing is written: the claim's transaction rolls back
    }
  };
  const outcome = await idempotentCreate<Attempt>({
    db: deps.db,
    claim: { scopeId: found.companyId, operation: AI_RUN_OPERATIONS.retry(runId), key, request: { aiRunId: runId }, ttlMs: deps.config.idempotency.ttlMs },
    statusCode: 202,
    resourceType: 'ai-run-attempt',
    async create(tx) {
      const run = await tx.aiRun.findUniqueOrThrow({ where: { id: runId } });
      if (!AI_RUN_STATES.canTransition(run.status, 'RETRYING', 'manual-retry')) throw notRetryable(`the run is ${run.status}; only a FAILED run can be retried`);
      if (run.errorCode === RUN_ERROR_CODES.CANCELLED) throw notRetryable('the run was cancelled; make a new request instead');
      if (!(await isOpen(run.workflowId))) throw windowClosed();
      const deadlineAt = new Date(Date.now() + deps.config.aiRuns.deadlineMs);
      const data = { retryCount: { increment: 1 }, nextAttemptAt: null, errorCode: null, errorMessage: null, finishedAt: null, deadlineAt };
      const moved = await moveRun(tx, runId, 'RETRYING', data, { actor: 'manual-retry', where: { attemptCount: run.attemptCount } });
      if (!moved) throw notRetryable('the run changed meanwhile; read it again');
      const { retryCount, nextAttemptAt, errorCode, errorMessage, finishedAt } = run;
      return { attemptNumber: run.attemptCount + 1, deadlineAt, workflowId: run.workflowId, before: { retryCount, nextAttemptAt, errorCode, errorMessage, finishedAt, deadlineAt: run.deadlineAt } };
    },
    idOf: (a) => attemptId(a.attemptNumber),
    read: async (id) => ({ attemptNumber: Number(id.split('/attempts/')[1] ?? 0) }),
    start: {
      async run({ attemptNumber, deadlineAt, workflowId }) {
        if (!deadlineAt || !workflowId) return 'already-running';
        try {
          await deps.starter.signalRetry(workflowId, { attemptNumber, deadlineAt: deadlineAt.toISOString() });
        } catch (err) {
          // Its workflow ended after the window check: no attempt can follow; undone like an unavailable Temporal.
          if (err instanceof WorkflowNotFoundError) throw new WorkflowNotStartedError(workflowId, err);
          throw err;
        }
        return 'started';
      },
      ids: () => ({ aiRunId: runId }),
      // The signal could not be sent: the run is FAILED again as it was (its attempt was never made).
      remove: async (tx, { attemptNumber, before }) => {
        if (before) await moveRun(tx, runId, 'FAILED', before, { from: ['RETRYING'], where: { attemptCount: attemptNumber - 1 } });
      },
      problem: (err) => (err instanceof WorkflowNotStartedError && err.cause instanceof WorkflowNotFoundError ? windowClosed() : unavailable()),
      log: deps.log,
    },
  });
  const run = await deps.db.aiRun.findUniqueOrThrow({ where: { id: runId } });
  return { run, attemptNumber: outcome.resource.attemptNumber, statusCode: outcome.statusCode, replay: outcome.replay };
}

/**
 * Cancels an active run (QUEUED, RUNNING, RETRYING): FAILED CANCELLED with its running attempt,
 * then its workflow is cancelled (a failed cancel request is logged: the workflow's later writes are
 * guarded and change nothing). A finished run → 409 AI_RUN_NOT_CANCELLABLE.
 * @throws DomainError NOT_FOUND, FORBIDDEN, AI_RUN_NOT_CANCELLABLE.
 */
export async function cancelAiRun(deps: AiRunDeps, userId: string, runId: string): Promise<AiRun> {
  const run = await visibleRun(deps.db, userId, runId, AI_RUN_WRITER_ROLES);
  if (!AI_RUN_STATES.isActive(run.status)) {
    throw AR_ERRORS.problem('AI_RUN_NOT_CANCELLABLE', `the run is ${run.status}; only a QUEUED, RUNNING or RETRYING run can be cancelled`);
  }
  const state = await failActiveRun(deps.db, runId, RUN_ERROR_CODES.CANCELLED, 'the run was cancelled');
  if (state.errorCode !== RUN_ERROR_CODES.CANCELLED) {
    throw AR_ERRORS.problem('AI_RUN_NOT_CANCELLABLE', `the run is ${state.status}; it finished meanwhile`);
  }
  await deps.db.aiRunPendingInput.deleteMany({ where: { runId } });
  try {
    await deps.starter.cancel(run.workflowId);
  } catch (err) {
    deps.log.warn({ err, aiRunId: runId }, 'ai run workflow cancel failed; its later writes are guarded');
  }
  return deps.db.aiRun.findUniqueOrThrow({ where: { id: runId } });
}
