/**
 * Projection activities of the AI-runs family on the `jobs` queue (AR-2, AR-6, AR-7, DC-3): the
 * guarded transitions of an ai_runs row and its ai_attempts. Every write is a conditional update
 * keyed by the run and the attempt number, so a retried activity (PROJECTION_RETRY) or a late call
 * changes nothing twice, and each bumps the run's `version` (its ETag).
 */
import { randomUUID } from 'node:crypto';
import type { PrismaClient } from '@prisma/client';
import { storableText } from '../../core/cause-chain';
import { settleTransition, transitionGuard } from '../../core/guarded-transition';
import { maskDeep } from '../../domain/ai-runs/masking';
import { AI_ATTEMPT_STATES, AI_RUN_STATES, type AiAttemptStatus, type AiRunStatus } from '../../domain/ai-runs/run-state';
import type { AnswerValidator } from '../../services/ai-runs/answer-validation';
import { storableMessage } from '../../services/ai-runs/input-protection';
import { failActiveRun, moveAttempt, moveRun, stateOf, type RunState } from '../../services/ai-runs/run-projection';

export type { RunState } from '../../services/ai-runs/run-projection';
import type { AttemptTrigger, AttemptVersions, RuntimeCallResult } from '../../domain/ai-runs/contracts';

/** Dependencies of {@link createAiRunActivities}. */
export interface AiRunActivityDeps {
  db: PrismaClient;
  validate: AnswerValidator;
}

/** Result of `beginAttempt`: `proceed` false when the run cannot start attempt `number` (cancelled, finished …). */
export interface BeginAttemptResult extends RunState {
  proceed: boolean;
  attemptId?: string;
  requestId: string;
}

/** The row of `beginAttempt`'s statement: the run before it, whether it began the attempt, and an attempt found with its number. */
interface BeginRow {
  status: AiRunStatus;
  error_code: string | null;
  begun: boolean;
  existing_id: string | null;
  existing_request_id: string | null;
  existing_status: AiAttemptStatus | null;
}

/** The row of `recordAnswer`'s statement: the run before it, whether the attempt ended and whether the run moved. */
interface RecordRow {
  status: AiRunStatus;
  error_code: string | null;
  ended: boolean;
  moved: boolean;
}

/** The attempt's version columns (AR-6), masked: they are the runtime's free text. */
function versionColumns(raw: AttemptVersions | undefined) {
  const v = maskDeep(raw);
  return {
    backendVersion: v?.backend ?? null,
    agentVersion: v?.agent ?? null,
    modelVersion: v?.model ?? null,
    promptVersion: v?.prompt ?? null,
    contextPackVersion: v?.contextPack ?? null,
    workflowCatalogVersion: v?.workflowCatalog ?? null,
    contractVersion: v?.contract ?? null,
    knowledgeVersion: v?.knowledge ?? null,
  };
}

/** The runtime's trace id as stored (masked like any runtime text). */
const traceIdOf = (call: RuntimeCallResult): string | null => (call.traceId === undefined ? null : maskDeep(call.traceId));

/** The AR projection activities. */
export function createAiRunActivities({ db, validate }: AiRunActivityDeps) {
  return {
    /**
     * Drops the sealed raw input kept for a lost start (the outbox): the workflow holds it now.
     * Idempotent (deleteMany). Retry: PROJECTION_RETRY.
     */
    async releasePendingInput(args: { runId: string }): Promise<void> {
      await db.aiRunPendingInput.deleteMany({ where: { runId: args.runId } });
    },

    /**
     * AR-2: creates attempt `number` (row before the call) and moves the run QUEUED | RETRYING →
     * RUNNING with attempt_count = number (started_at stamped once); only when attempt_count is
     * number − 1, so two attempts can never share a number. A retry after commit finds the attempt
     * and proceeds with it. Key: (runId, number). With `releaseInput` the run's sealed raw input is
     * dropped in the same statement, whatever the answer (as {@link releasePendingInput}: the
     * workflow holds the input now). One statement (data-modifying CTEs). Retry: PROJECTION_RETRY.
     * @throws Error when the run does not exist.
     */
    async beginAttempt(args: { runId: string; number: number; trigger: AttemptTrigger; releaseInput?: boolean }): Promise<BeginAttemptResult> {
      const now = new Date();
      const attemptId = randomUUID();
      const requestId = randomUUID();
      const [row] = await db.$queryRaw<BeginRow[]>`
        WITH released AS (
          DELETE FROM ai_run_pending_inputs WHERE run_id = ${args.runId}::uuid AND ${args.releaseInput === true}
        ),
        existing AS (
          SELECT id::text AS id, request_id, status::text AS status FROM ai_attempts WHERE run_id = ${args.runId}::uuid AND number = ${args.number}::int
        ),
        moved AS (
          UPDATE ai_runs
             SET status = 'RUNNING', attempt_count = ${args.number}::int, next_attempt_at = NULL,
                 started_at = COALESCE(started_at, ${now}::timestamptz), version = version + 1, updated_at = ${now}::timestamptz
           WHERE id = ${args.runId}::uuid AND status = ANY(${transitionGuard(AI_RUN_STATES, 'RUNNING')}::"AiRunStatus"[])
             AND attempt_count = ${args.number - 1}::int AND NOT EXISTS (SELECT 1 FROM existing)
          RETURNING id
        ),
        attempt AS (
          INSERT INTO ai_attempts (id, run_id, number, trigger, status, request_id, started_at)
          SELECT ${attemptId}::uuid, moved.id, ${args.number}::int, ${args.trigger}::"AiAttemptTrigger", 'RUNNING', ${requestId}::text, ${now}::timestamptz
            FROM moved
          RETURNING id
        )
        SELECT r.status::text AS status, r.error_code,
               EXISTS (SELECT 1 FROM attempt) AS begun,
               (SELECT id FROM existing) AS existing_id, (SELECT request_id FROM existing) AS existing_request_id,
               (SELECT status FROM existing) AS existing_status
          FROM ai_runs r WHERE r.id = ${args.runId}::uuid`;
      if (!row) throw new Error(`ai run ${args.runId} does not exist`);
      if (row.begun) return { status: 'RUNNING', errorCode: null, proceed: true, attemptId, requestId };
      const state: RunState = { status: row.status, errorCode: row.error_code };
      if (row.existing_id !== null && row.existing_request_id !== null) {
        return { ...state, proceed: row.existing_status === 'RUNNING' && row.status === 'RUNNING', attemptId: row.existing_id, requestId: row.existing_request_id };
      }
      await settleTransition(AI_RUN_STATES, 'RUNNING', false, async () => ({ status: row.status }));
      return { ...state, proceed: false, requestId };
    },

    /**
     * AR-2/AR-3/AR-9: re-validates the runtime's answer; valid → candidates stored (with guard
     * findings, blocked when any), attempt SUCCEEDED, run RUNNING → SUCCEEDED with its outcome;
     * invalid → attempt FAILED with its validation errors (never a candidate), run FAILED
     * (terminal, the answer's code). One statement (data-modifying CTEs: the run moves only when
     * the attempt did, the candidates go in only when the run moved); a repeat finds the attempt
     * ended and changes nothing. Retry: PROJECTION_RETRY.
     * @throws Error when the run does not exist.
     */
    async recordAnswer(args: { runId: string; attemptId: string; requestId: string; text: string; referenceTime: string; call: RuntimeCallResult }): Promise<RunState> {
      const checked = validate(args.call.answer, { text: args.text, referenceTime: args.referenceTime, requestId: args.requestId });
      const v = versionColumns(checked.versions ?? args.call.versions);
      const now = new Date();
      const attemptTo: AiAttemptStatus = checked.ok ? 'SUCCEEDED' : 'FAILED';
      const runTo: AiRunStatus = checked.ok ? 'SUCCEEDED' : 'FAILED';
      const message = checked.ok ? null : storableMessage('the runtime answer failed re-validation');
      const errorCode = checked.ok ? null : checked.code;
      const candidates = checked.ok
        ? checked.candidates.map((c, i) => ({
            id: randomUUID(),
            ordinal: i + 1,
            task_type: c.taskType,
            title: storableText(c.title, 300),
            slots: c.slots,
            missing_slots: c.missingSlots,
            confidence: c.confidence,
            validation_errors: c.validationErrors,
            blocked: c.blocked,
          }))
        : [];
      const [row] = await db.$queryRaw<RecordRow[]>`
        WITH ended AS (
          UPDATE ai_attempts
             SET status = ${attemptTo}::"AiAttemptStatus", error_code = ${errorCode}::text, error_message = ${message}::text,
                 validation_errors = ${checked.ok ? null : JSON.stringify(checked.issues)}::jsonb,
                 latency_ms = ${args.call.latencyMs}::int, trace_id = ${traceIdOf(args.call)}::text, finished_at = ${now}::timestamptz,
                 backend_version = ${v.backendVersion}::text, agent_version = ${v.agentVersion}::text, model_version = ${v.modelVersion}::text,
                 prompt_version = ${v.promptVersion}::text, context_pack_version = ${v.contextPackVersion}::text,
                 workflow_catalog_version = ${v.workflowCatalogVersion}::text, contract_version = ${v.contractVersion}::text,
                 knowledge_version = ${v.knowledgeVersion}::text
           WHERE id = ${args.attemptId}::uuid AND run_id = ${args.runId}::uuid
             AND status = ANY(${transitionGuard(AI_ATTEMPT_STATES, attemptTo)}::"AiAttemptStatus"[])
          RETURNING id
        ),
        moved AS (
          UPDATE ai_runs
             SET status = ${runTo}::"AiRunStatus", analysis_outcome = COALESCE(${checked.ok ? checked.outcome : null}::"AiRunOutcome", analysis_outcome),
                 error_code = ${errorCode}::text, error_message = ${message}::text, finished_at = ${now}::timestamptz,
                 next_attempt_at = NULL, version = version + 1, updated_at = ${now}::timestamptz
           WHERE id = ${args.runId}::uuid AND status = ANY(${transitionGuard(AI_RUN_STATES, runTo)}::"AiRunStatus"[])
             AND EXISTS (SELECT 1 FROM ended)
          RETURNING id
        ),
        stored AS (
          INSERT INTO ai_candidates (id, run_id, attempt_id, ordinal, task_type, title, slots, missing_slots, confidence, validation_errors, blocked, created_at)
          SELECT c.id, moved.id, ${args.attemptId}::uuid, c.ordinal, c.task_type, c.title, c.slots,
                 ARRAY(SELECT jsonb_array_elements_text(c.missing_slots)), c.confidence, c.validation_errors, c.blocked, ${now}::timestamptz
            FROM moved, jsonb_to_recordset(${JSON.stringify(candidates)}::jsonb)
                 AS c(id uuid, ordinal int, task_type text, title text, slots jsonb, missing_slots jsonb, confidence float8, validation_errors jsonb, blocked boolean)
          ON CONFLICT (attempt_id, ordinal) DO NOTHING
        )
        SELECT r.status::text AS status, r.error_code, EXISTS (SELECT 1 FROM ended) AS ended, EXISTS (SELECT 1 FROM moved) AS moved
          FROM ai_runs r WHERE r.id = ${args.runId}::uuid`;
      if (!row) throw new Error(`ai run ${args.runId} does not exist`);
      if (row.moved) return { status: runTo, errorCode };
      // Rejected transitions, counted as guardedTransition counts them; the answer is the row before this statement.
      if (!row.ended) await settleTransition(AI_ATTEMPT_STATES, attemptTo, false, async () => null);
      else await settleTransition(AI_RUN_STATES, runTo, false, async () => ({ status: row.status }));
      return { status: row.status, errorCode: row.error_code };
    },

    /**
     * AR-7: ends attempt `attemptId` FAILED with `code`; with `retryAt` the run goes RUNNING →
     * RETRYING with nextAttemptAt (the workflow's durable timer), else RUNNING → FAILED with the
     * code. One transaction; a repeat changes nothing. Retry: PROJECTION_RETRY.
     */
    async failAttempt(args: {
      runId: string;
      attemptId: string;
      code: string;
      message: string;
      latencyMs: number;
      retryAt: string | null;
      versions?: AttemptVersions;
    }): Promise<RunState> {
      return db.$transaction(async (tx) => {
        const now = new Date();
        const message = args.message; // masked, then cut, by the projection's writes (moveRun, moveAttempt)
        const ended = await moveAttempt(tx, args.runId, args.attemptId, 'FAILED', {
          errorCode: args.code, errorMessage: message, latencyMs: args.latencyMs, finishedAt: now, ...(args.versions ? versionColumns(args.versions) : {}),
        });
        if (!ended) return stateOf(tx, args.runId);
        if (args.retryAt) {
          await moveRun(tx, args.runId, 'RETRYING', { nextAttemptAt: new Date(args.retryAt), errorCode: args.code, errorMessage: message });
        } else {
          // Only the attempt in flight fails the run here; a queued or retrying run fails by deadline or cancel.
          await moveRun(tx, args.runId, 'FAILED', { nextAttemptAt: null, errorCode: args.code, errorMessage: message, finishedAt: now }, { from: ['RUNNING'] });
        }
        return stateOf(tx, args.runId);
      });
    },

    /**
     * AR-7 deadline / cancellation: an active run (QUEUED, RUNNING, RETRYING) → FAILED with `code`,
     * and its RUNNING attempt ends FAILED with the same code. Guarded; a finished run is untouched.
     * Retry: PROJECTION_RETRY.
     */
    async failRun(args: { runId: string; code: string; message: string }): Promise<RunState> {
      return failActiveRun(db, args.runId, args.code, args.message);
    },
  };
}

/** The AR projection activities' type, for `proxyActivities`. */
export type AiRunActivities = ReturnType<typeof createAiRunActivities>;
