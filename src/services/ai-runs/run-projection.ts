/**
 * Reads and writes of the ai_runs projection shared by the run's activities and the cancel command
 * (AR-3, AR-7). Every transition is guarded by the AR-3 state machines (src/domain/ai-runs/run-state.ts).
 */
import type { Prisma, PrismaClient } from '@prisma/client';
import { guardedTransition, transitionGuard } from '../../core/guarded-transition';
import { AI_ATTEMPT_STATES, AI_RUN_STATES, type AiRunStatus } from '../../domain/ai-runs/run-state';

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

/** The run's status now (null: no such run), the read of a rejected guarded transition. */
export function runStatus(db: Prisma.TransactionClient | PrismaClient, runId: string) {
  return db.aiRun.findUnique({ where: { id: runId }, select: { status: true } });
}

/** The attempt's status now (null: no such attempt). */
export function attemptStatus(db: Prisma.TransactionClient | PrismaClient, attemptId: string) {
  return db.aiAttempt.findUnique({ where: { id: attemptId }, select: { status: true } });
}

/**
 * AR-7: active run → FAILED `code` with its RUNNING attempt, in one transaction (shared by the
 * workflow's deadline/cancel path and the cancel route). Returns the state after the call.
 */
export async function failActiveRun(db: PrismaClient, runId: string, code: string, message: string): Promise<RunState> {
  return db.$transaction(async (tx) => {
    const now = new Date();
    const moved = await guardedTransition(AI_RUN_STATES, {
      to: 'FAILED',
      write: (from) => tx.aiRun.updateMany({
        where: { id: runId, status: { in: from } },
        data: { status: 'FAILED', nextAttemptAt: null, errorCode: code, errorMessage: message, finishedAt: now, version: { increment: 1 } },
      }),
      read: () => runStatus(tx, runId),
    });
    if (moved.changed) {
      // Set-based: whichever attempt of the run is still in flight (there may be none).
      await tx.aiAttempt.updateMany({
        where: { runId, status: { in: transitionGuard(AI_ATTEMPT_STATES, 'FAILED') } },
        data: { status: 'FAILED', errorCode: code, errorMessage: message, finishedAt: now },
      });
    }
    return stateOf(tx, runId);
  });
}
