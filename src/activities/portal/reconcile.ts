/**
 * The portal-link family's reconcile activities on the `maintenance` queue (PO-3, SAN-4 pattern):
 * - QUEUED jobs older than the grace whose workflow start was lost after their commit are started
 *   now, by the same workflow ID (never a second run). The password is never stored, so the start
 *   carries none and the workflow FAILS the job PORTAL_CREDENTIALS_REQUIRED: the user is asked again
 *   instead of the job waiting forever (the original outbox's RETRYABLE_FAILED gap);
 * - active jobs whose workflow closed without finishing them (terminated, timed out) → FAILED
 *   CANCELLED (DC-3: no workflow code ran to do it).
 * Idempotent: starts are keyed by the workflow ID, failures are guarded transitions.
 */
import { Context, log as activityLog } from '@temporalio/activity';
import type { PrismaClient } from '@prisma/client';
import { PORTAL_JOB_ERROR_CODES } from '../../domain/portal/errors';
import { ACTIVE_PORTAL_LINK_JOB_STATUSES } from '../../domain/portal/job-state';
import type { PortalLinkStarter } from '../../services/portal/starter';
import { failPortalLinkJob } from './jobs';

/** Dependencies of {@link createPortalLinkReconcileActivities}. */
export interface PortalLinkReconcileDeps {
  db: PrismaClient;
  starter: PortalLinkStarter;
}

/** Report of one pass. */
export interface PortalLinkReconcileReport {
  examined: number;
  /** Lost starts started now (without a password: they fail PORTAL_CREDENTIALS_REQUIRED). */
  started: number;
  alreadyRunning: number;
  /** Active jobs whose workflow had closed, now FAILED CANCELLED. */
  closedFailed: number;
  failed: number;
}

function heartbeat(): void {
  try {
    Context.current().heartbeat();
  } catch {
    // called outside an activity (a test or a script)
  }
}

/** The PO reconcile activities. */
export function createPortalLinkReconcileActivities({ db, starter }: PortalLinkReconcileDeps) {
  return {
    /** PO-3: one pass over active jobs created more than `graceSeconds` ago (see the module comment). Retry: MAINTENANCE_RETRY. */
    async reconcilePortalLinkJobs(args: { graceSeconds: number; limit: number }): Promise<PortalLinkReconcileReport> {
      const cutoff = new Date(Date.now() - args.graceSeconds * 1000);
      const report: PortalLinkReconcileReport = { examined: 0, started: 0, alreadyRunning: 0, closedFailed: 0, failed: 0 };
      const jobs = await db.portalLinkJob.findMany({
        where: { status: { in: [...ACTIVE_PORTAL_LINK_JOB_STATUSES] }, createdAt: { lte: cutoff } },
        orderBy: { createdAt: 'asc' },
        take: args.limit,
      });
      for (const job of jobs) {
        heartbeat();
        report.examined += 1;
        try {
          if (job.status === 'QUEUED') {
            const outcome = await starter.start(
              { jobId: job.id, userId: job.userId, portalType: job.portalType, studentId: job.studentId, kind: job.kind, workflowId: job.workflowId, createdAt: job.createdAt },
              null,
            );
            if (outcome === 'started') {
              report.started += 1;
              continue;
            }
          }
          const state = await starter.state(job.workflowId);
          if (state === 'running') {
            report.alreadyRunning += 1;
            continue;
          }
          const s = await failPortalLinkJob(db, job.id, PORTAL_JOB_ERROR_CODES.CANCELLED, `the job's workflow is ${state === 'closed' ? 'closed' : 'gone'} without finishing it`);
          if (s.moved) report.closedFailed += 1;
        } catch (err) {
          report.failed += 1;
          activityLog.warn('portal link reconcile failed for a job', { portalLinkJobId: job.id, error: String(err) });
        }
      }
      activityLog.info('portal link reconcile pass', { ...report });
      return report;
    },
  };
}

/** The PO reconcile activities' type, for `proxyActivities`. */
export type PortalLinkReconcileActivities = ReturnType<typeof createPortalLinkReconcileActivities>;
