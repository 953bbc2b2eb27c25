/**
 * The AI-runs family's reconcile activities on the `maintenance` queue (AR-7, SAN-4 pattern):
 * restart runs whose workflow start was lost after their commit (QUEUED with a sealed input in the
 * outbox), and re-send manual-retry signals that were lost after their commit (RETRYING without a
 * nextAttemptAt and without the new attempt). Idempotent: starts are keyed by the workflow ID,
 * signals by the attempt number.
 */
import { Context, log as activityLog } from '@temporalio/activity';
import type { PrismaClient } from '@prisma/client';
import type { InputBox } from '../../services/ai-runs/input-box';
import type { AiRunStarter } from '../../services/ai-runs/starter';

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
  /** Outbox rows of runs that are no longer QUEUED (dropped). */
  dropped: number;
  resignalled: number;
  failed: number;
}

function heartbeat(): void {
  try {
    Context.current().heartbeat();
  } catch {
    // called outside an activity (a test or a script)
  }
}

/** The AR reconcile activities. */
export function createAiRunReconcileActivities({ db, starter, box }: AiRunReconcileDeps) {
  return {
    /**
     * SAN-4/AR-7: outbox rows older than `graceSeconds` → their run's workflow started (same ID,
     * never a second run); rows of runs no longer QUEUED are dropped. Retry: MAINTENANCE_RETRY.
     */
    async reconcileAiRuns(args: { graceSeconds: number; limit: number }): Promise<AiRunReconcileReport> {
      const cutoff = new Date(Date.now() - args.graceSeconds * 1000);
      const report: AiRunReconcileReport = { examined: 0, started: 0, alreadyRunning: 0, dropped: 0, resignalled: 0, failed: 0 };
      const pending = await db.aiRunPendingInput.findMany({ where: { createdAt: { lte: cutoff } }, orderBy: { createdAt: 'asc' }, take: args.limit });
      for (const p of pending) {
        heartbeat();
        report.examined += 1;
        try {
          const run = await db.aiRun.findUnique({ where: { id: p.runId } });
          if (!run || run.status !== 'QUEUED') {
            await db.aiRunPendingInput.deleteMany({ where: { runId: p.runId } });
            report.dropped += 1;
            continue;
          }
          const text = box.open(run.id, { keyId: p.keyId, ciphertext: p.ciphertext });
          const outcome = await starter.start(
            { runId: run.id, companyId: run.companyId, userId: run.actorUserId, workflowId: run.workflowId, locale: run.locale, createdAt: run.createdAt, deadlineAt: run.deadlineAt ?? run.createdAt },
            text,
          );
          if (outcome === 'started') report.started += 1;
          else report.alreadyRunning += 1;
        } catch (err) {
          report.failed += 1;
          activityLog.warn('ai run reconcile start failed', { aiRunId: p.runId, error: String(err) });
        }
      }
      const waiting = await db.aiRun.findMany({
        where: { status: 'RETRYING', nextAttemptAt: null, updatedAt: { lte: cutoff } },
        orderBy: { updatedAt: 'asc' },
        take: args.limit,
        select: { id: true, workflowId: true, attemptCount: true, deadlineAt: true },
      });
      for (const r of waiting) {
        heartbeat();
        report.examined += 1;
        try {
          await starter.signalRetry(r.workflowId, { attemptNumber: r.attemptCount + 1, deadlineAt: (r.deadlineAt ?? new Date()).toISOString() });
          report.resignalled += 1;
        } catch (err) {
          report.failed += 1;
          activityLog.warn('ai run retry re-signal failed', { aiRunId: r.id, error: String(err) });
        }
      }
      activityLog.info('ai run reconcile pass', { ...report });
      return report;
    },
  };
}

/** The AR reconcile activities' type, for `proxyActivities`. */
export type AiRunReconcileActivities = ReturnType<typeof createAiRunReconcileActivities>;
