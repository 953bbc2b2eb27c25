/**
 * Reads and writes of the ai_runs projection shared by the run's activities and the cancel command
 * (AR-3, AR-7). Every transition is guarded by the AR-3 state machines (src/domain/ai-runs/run-state.ts).
 */
import type { Prisma, PrismaClient } from '@prisma/client';
import { guardedTransition, transitionGuard } from '../../core/guarded-transition';
import { AI_ATTEMPT_STATES, AI_RUN_STATES, type AiAttemptStatus, type AiRunStatus, type RunTransitionActor } from '../../domain/ai-runs/run-state';
import { storableMessage } from './input-protection';

/** AR-6: an update's `errorMessage` as stored: masked and cut ({@link storableMessage}); every write of the projection passes here. */
function withStorableMessage<T extends { errorMessage?: unknown }>(data: T): T {
  return typeof data.errorMessage === 'string' ? { ...data, errorMessage: storableMessage(data.errorMessage) } : data;
}

/** A transition's answer: the run's status (and error code) after the call. */
export interface RunState {
  status: AiRunStatus;
  errorCode: string | null;
}

/** The run's status and error code now. @throws Error when the run does not exist. */
export async function stateOf(db: Prisma.TransactionClient | PrismaClient, runId: string): Promise<RunState> {
  const row = await db.aiRun.findUnique({ where: { id: runId }, select: { status: true, errorCode: true } });
  if (!row) throw new Error(`ai run ${runId} does not exist`);
  return { status: row.status, errorCode: row.errorCode };
}

type Db = Prisma.TransactionClient | PrismaClient;

/**
 * The guarded ai_runs transition of run `runId` to `to` with `data` (DC-3), bumping `version` (the
 * ETag). `guard`: the actor (default the worker), a narrower set of sources, and any further
 * condition of the row (e.g. its attempt count). False when the row's status or condition did not allow it.
 */
export async function moveRun(
  db: Db,
  runId: string,
  to: AiRunStatus,
  data: Omit<Prisma.AiRunUpdateManyMutationInput, 'status' | 'version'>,
  guard: { actor?: RunTransitionActor; from?: AiRunStatus[]; where?: Prisma.AiRunWhereInput } = {},
): Promise<boolean> {
  const r = await guardedTransition(AI_RUN_STATES, {
    to,
    actor: guard.actor,
    from: guard.from,
    write: (from) => db.aiRun.updateMany({ where: { ...guard.where, id: runId, status: { in: from } }, data: { ...withStorableMessage(data), status: to, version: { increment: 1 } } }),
    read: () => db.aiRun.findUnique({ where: { id: runId }, select: { status: true } }),
  });
  return r.changed;
}

/** The guarded ai_attempts transition of attempt `attemptId` of run `runId` to `to` with `data` (DC-3); false when it had ended. */
export async function moveAttempt(
  db: Db,
  runId: string,
  attemptId: string,
  to: AiAttemptStatus,
  data: Omit<Prisma.AiAttemptUpdateManyMutationInput, 'status'>,
): Promise<boolean> {
  const r = await guardedTransition(AI_ATTEMPT_STATES, {
    to,
    write: (from) => db.aiAttempt.updateMany({ where: { id: attemptId, runId, status: { in: from } }, data: { ...withStorableMessage(data), status: to } }),
    read: () => db.aiAttempt.findUnique({ where: { id: attemptId }, select: { status: true } }),
  });
  return r.changed;
}

/**
 * AR-7: active run → FAILED `code` with its RUNNING attempt, in one transaction (shared by the
 * workflow's deadline/cancel path and the cancel route). Returns the state after the call.
 */
export async function failActiveRun(db: PrismaClient, runId: string, code: string, message: string): Promise<RunState> {
  return db.$transaction(async (tx) => {
    const now = new Date();
    const stored = storableMessage(message);
    const moved = await moveRun(tx, runId, 'FAILED', { nextAttemptAt: null, errorCode: code, errorMessage: stored, finishedAt: now });
    if (moved) {
      // Set-based: whichever attempt of the run is still in flight (there may be none).
      await tx.aiAttempt.updateMany({
        where: { runId, status: { in: transitionGuard(AI_ATTEMPT_STATES, 'FAILED') } },
        data: { status: 'FAILED', errorCode: code, errorMessage: stored, finishedAt: now },
      });
    }
    return stateOf(tx, runId);
  });
}
