/**
 * The AI-runs family's reconcile activities on the `maintenance` queue (AR-7, SAN-4 pattern), a
 * rule of the core's reconciler: restart runs whose workflow start was lost after their commit
 * (QUEUED with a sealed input in the outbox), and re-send manual-retry signals that were lost after
 * their commit (RETRYING without a nextAttemptAt and without the new attempt). Idempotent: starts
 * are keyed by the workflow ID, signals by the attempt number.
 */
import { log as activityLog } from '@temporalio/activity';
import { WorkflowNotFoundError } from '@temporalio/client';
import type { AiRunPendingInput, PrismaClient } from '@prisma/client';
import { countOf, reconcile } from '../../core/reconciler';
import type { StartOutcome } from '../../core/workflow-start';
import { RUN_ERROR_CODES } from '../../domain/ai-runs/errors';
import type { InputBox } from '../../services/ai-runs/input-box';
import { moveRun } from '../../services/ai-runs/run-projection';
import { startableRunOf, type AiRunStarter } from '../../services/ai-runs/starter';

/** Dependencies of {@link createAiRunReconcileActivities}. */
export interface AiRunReconcileDeps {
  db: PrismaClient;
  starter: AiRunStarter;
  box: InputBox;
}

/** Report of one pass. */
export interface AiRunReconcileReport {
  examined: number;
  started: number;
  alreadyRunning: number;
  /** Outbox rows of runs that have left QUEUED (dropped). */
  dropped: number;
  resignalled: number;
  /** RETRYING runs whose workflow had ended (retry window closed): FAILED RETRY_WINDOW_CLOSED, never restarted. */
  windowClosed: number;
  failed: number;
}

/** A lost item: an outbox row (a lost start), or a RETRYING run waiting for its signal. */
type LostRun =
  | { kind: 'start'; pending: AiRunPendingInput }
  | { kind: 'signal'; runId: string; workflowId: string; attemptCount: number; deadlineAt: Date | null };

type RunAction = StartOutcome | 'dropped' | 'resignalled' | 'window-closed' | 'error';

/** The AR reconcile activities. */
export function createAiRunReconcileActivities({ db, starter, box }: AiRunReconcileDeps) {
  /** Outbox rows older than the cutoff, then the RETRYING runs without their attempt, oldest first. */
  async function* lostRuns(cutoff: Date, limit: number): AsyncGenerator<LostRun> {
    for (const pending of await db.aiRunPendingInput.findMany({ where: { createdAt: { lte: cutoff } }, orderBy: { createdAt: 'asc' }, take: limit })) {
      yield { kind: 'start', pending };
    }
    const waiting = await db.aiRun.findMany({
      where: { status: 'RETRYING', nextAttemptAt: null, updatedAt: { lte: cutoff } },
      orderBy: { updatedAt: 'asc' },
      take: limit,
      select: { id: true, workflowId: true, attemptCount: true, deadlineAt: true },
    });
    for (const r of waiting) yield { kind: 'signal', runId: r.id, workflowId: r.workflowId, attemptCount: r.attemptCount, deadlineAt: r.deadlineAt };
  }

  async function settle(item: LostRun): Promise<RunAction> {
    if (item.kind === 'signal') {
      try {
        await starter.signalRetry(item.workflowId, { attemptNumber: item.attemptCount + 1, deadlineAt: (item.deadlineAt ?? new Date()).toISOString() });
      } catch (err) {
        if (!(err instanceof WorkflowNotFoundError)) throw err;
        // Its workflow ended (the retry window closed): no attempt can follow, and nothing restarts it.
        const code = RUN_ERROR_CODES.RETRY_WINDOW_CLOSED;
        await moveRun(db, item.runId, 'FAILED', { nextAttemptAt: null, errorCode: code, errorMessage: 'the retry window closed before the retry reached the run', finishedAt: new Date() }, { from: ['RETRYING'], where: { attemptCount: item.attemptCount } });
        activityLog.info('reconcile-ai-runs: a retried run whose workflow had ended is FAILED', { aiRunId: item.runId, reason: code });
        return 'window-closed';
      }
      return 'resignalled';
    }
    const p = item.pending;
    const run = await db.aiRun.findUnique({ where: { id: p.runId } });
    if (!run || run.status !== 'QUEUED') {
      await db.aiRunPendingInput.deleteMany({ where: { runId: p.runId } });
      return 'dropped';
    }
    return starter.start(startableRunOf(run), box.open(run.id, { keyId: p.keyId, ciphertext: p.ciphertext }));
  }

  return {
    /**
     * SAN-4/AR-7: outbox rows older than `graceSeconds` → their run's workflow started (same ID,
     * never a second run); rows of runs that have left QUEUED are dropped; lost retry signals re-sent
     * (a run whose workflow had ended meanwhile → FAILED RETRY_WINDOW_CLOSED).
     * Retry: MAINTENANCE_RETRY.
     */
    async reconcileAiRuns(args: { graceSeconds: number; limit: number }): Promise<AiRunReconcileReport> {
      const cutoff = new Date(Date.now() - args.graceSeconds * 1000);
      const pass = await reconcile<LostRun, RunAction>({
        rule: 'reconcile-ai-runs',
        lost: () => lostRuns(cutoff, args.limit),
        settle,
        failed: 'error',
        ids: (item) => ({ aiRunId: item.kind === 'start' ? item.pending.runId : item.runId }),
      }, activityLog);
      const n = (a: RunAction) => countOf(pass, a);
      return { examined: pass.examined, started: n('started'), alreadyRunning: n('already-running'), dropped: n('dropped'), resignalled: n('resignalled'), windowClosed: n('window-closed'), failed: n('error') };
    },
  };
}

/** The AR reconcile activities' type, for `proxyActivities`. */
export type AiRunReconcileActivities = ReturnType<typeof createAiRunReconcileActivities>;
