/**
 * Projection activities of the AI-runs family on the `jobs` queue (AR-2, AR-6, AR-7, DC-3): the
 * guarded transitions of an ai_runs row and its ai_attempts. Every write is a conditional update
 * keyed by the run and the attempt number, so a retried activity (PROJECTION_RETRY) or a late call
 * changes nothing twice, and each bumps the run's `version` (its ETag).
 */
import { randomUUID } from 'node:crypto';
import { Prisma, type PrismaClient } from '@prisma/client';
import { storableText } from '../../core/cause-chain';
import { maskDeep } from '../../domain/ai-runs/masking';
import type { AnswerValidator } from '../../services/ai-runs/answer-validation';
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
     * RUNNING with attempt_count = number, in one transaction; only when attempt_count is
     * number − 1, so two attempts can never share a number. A retry after commit finds the attempt
     * and proceeds with it. Key: (runId, number). With `releaseInput` the run's sealed raw input is
     * dropped in the same transaction, whatever the answer (as {@link releasePendingInput}: the
     * workflow holds the input now). Retry: PROJECTION_RETRY.
     */
    async beginAttempt(args: { runId: string; number: number; trigger: AttemptTrigger; releaseInput?: boolean }): Promise<BeginAttemptResult> {
      return db.$transaction(async (tx) => {
        if (args.releaseInput === true) await tx.aiRunPendingInput.deleteMany({ where: { runId: args.runId } });
        const existing = await tx.aiAttempt.findUnique({ where: { runId_number: { runId: args.runId, number: args.number } } });
        if (existing) {
          const state = await stateOf(tx, args.runId);
          const proceed = existing.status === 'RUNNING' && state.status === 'RUNNING';
          return { ...state, proceed, attemptId: existing.id, requestId: existing.requestId };
        }
        const now = new Date();
        // The first begin (attempt_count 0 → 1) is the only one that finds started_at unset: it sets it in its move.
        const first = args.number === 1;
        const moved = await moveRun(tx, args.runId, 'RUNNING', { attemptCount: args.number, nextAttemptAt: null, ...(first ? { startedAt: now } : {}) }, { where: { attemptCount: args.number - 1 } });
        const requestId = randomUUID();
        if (!moved) return { ...(await stateOf(tx, args.runId)), proceed: false, requestId };
        if (!first) await tx.aiRun.updateMany({ where: { id: args.runId, startedAt: null }, data: { startedAt: now } });
        const attempt = await tx.aiAttempt.create({
          data: { runId: args.runId, number: args.number, trigger: args.trigger, status: 'RUNNING', requestId, startedAt: now },
        });
        return { status: 'RUNNING' as const, errorCode: null, proceed: true, attemptId: attempt.id, requestId };
      });
    },

    /**
     * AR-2/AR-3/AR-9: re-validates the runtime's answer; valid → candidates stored (with guard
     * findings, blocked when any), attempt SUCCEEDED, run RUNNING → SUCCEEDED with its outcome;
     * invalid → attempt FAILED with its validation errors (never a candidate), run FAILED
     * (terminal, the answer's code). One transaction; a repeat finds the attempt ended and changes
     * nothing. Retry: PROJECTION_RETRY.
     */
    async recordAnswer(args: { runId: string; attemptId: string; requestId: string; text: string; referenceTime: string; call: RuntimeCallResult }): Promise<RunState> {
      const checked = validate(args.call.answer, { text: args.text, referenceTime: args.referenceTime, requestId: args.requestId });
      const versions = versionColumns(checked.versions ?? args.call.versions);
      return db.$transaction(async (tx) => {
        const now = new Date();
        const ended = checked.ok
          ? await moveAttempt(tx, args.runId, args.attemptId, 'SUCCEEDED', { latencyMs: args.call.latencyMs, traceId: traceIdOf(args.call), finishedAt: now, ...versions })
          : await moveAttempt(tx, args.runId, args.attemptId, 'FAILED', {
              errorCode: checked.code,
              errorMessage: 'the runtime answer failed re-validation',
              validationErrors: checked.issues as unknown as Prisma.InputJsonValue,
              latencyMs: args.call.latencyMs,
              traceId: traceIdOf(args.call),
              finishedAt: now,
              ...versions,
            });
        if (!ended) return stateOf(tx, args.runId);
        if (!checked.ok) {
          await moveRun(tx, args.runId, 'FAILED', { errorCode: checked.code, errorMessage: 'the runtime answer failed re-validation', finishedAt: now, nextAttemptAt: null });
          return stateOf(tx, args.runId);
        }
        const moved = await moveRun(tx, args.runId, 'SUCCEEDED', { analysisOutcome: checked.outcome, errorCode: null, errorMessage: null, finishedAt: now, nextAttemptAt: null });
        if (moved) {
          await tx.aiCandidate.createMany({
            data: checked.candidates.map((c, i) => ({
              runId: args.runId,
              attemptId: args.attemptId,
              ordinal: i + 1,
              taskType: c.taskType,
              title: storableText(c.title, 300),
              slots: c.slots as Prisma.InputJsonValue,
              missingSlots: c.missingSlots,
              confidence: c.confidence,
              validationErrors: c.validationErrors as unknown as Prisma.InputJsonValue,
              blocked: c.blocked,
            })),
            skipDuplicates: true,
          });
          return { status: 'SUCCEEDED' as const, errorCode: null }; // this transaction's move: no read needed
        }
        return stateOf(tx, args.runId);
      });
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
