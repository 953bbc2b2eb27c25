/**
 * The portal-link family's reconcile activities on the `maintenance` queue (PO-3, SAN-4 pattern), a
 * rule of the core's reconciler:
 * - QUEUED jobs older than the grace whose workflow start was lost after their commit are started
 *   now, by the same workflow ID (never a second run). The password is never stored, so the start
 *   carries none and the workflow FAILS the job PORTAL_CREDENTIALS_REQUIRED: the user is asked again
 *   instead of the job waiting forever (the original outbox's RETRYABLE_FAILED gap);
 * - active jobs whose workflow closed without finishing them (terminated, timed out) → FAILED
 *   CANCELLED (DC-3: no workflow code ran to do it).
 * Idempotent: starts are keyed by the workflow ID, failures are guarded transitions.
 */
import { log as activityLog } from '@temporalio/activity';
import type { PortalLinkJob, PrismaClient } from '@prisma/client';
import { countOf, reconcile } from '../../core/reconciler';
import { PORTAL_JOB_ERROR_CODES } from '../../domain/portal/error-codes';
import { PORTAL_LINK_JOB_STATES } from '../../domain/portal/job-state';
import { startablePortalJobOf, type PortalLinkStarter } from '../../services/portal/starter';
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

type LinkJobAction = 'started' | 'already-running' | 'closed-failed' | 'error';

/** The PO reconcile activities. */
export function createPortalLinkReconcileActivities({ db, starter }: PortalLinkReconcileDeps) {
  return {
    /** PO-3: one pass over active jobs created more than `graceSeconds` ago (see the module comment). Retry: MAINTENANCE_RETRY. */
    async reconcilePortalLinkJobs(args: { graceSeconds: number; limit: number }): Promise<PortalLinkReconcileReport> {
      const cutoff = new Date(Date.now() - args.graceSeconds * 1000);
      const pass = await reconcile<PortalLinkJob, LinkJobAction>({
        rule: 'reconcile-portal-link-jobs',
        lost: () => db.portalLinkJob.findMany({
          where: { status: { in: [...PORTAL_LINK_JOB_STATES.active] }, createdAt: { lte: cutoff } },
          orderBy: { createdAt: 'asc' },
          take: args.limit,
        }),
        async settle(job) {
          if (job.status === 'QUEUED' && (await starter.start(startablePortalJobOf(job), null)) === 'started') return 'started';
          const state = await starter.state(job.workflowId);
          if (state === 'running') return 'already-running';
          const s = await failPortalLinkJob(db, job.id, PORTAL_JOB_ERROR_CODES.CANCELLED, `the job's workflow is ${state === 'closed' ? 'closed' : 'gone'} without finishing it`);
          return s.moved ? 'closed-failed' : null;
        },
        failed: 'error',
        ids: (job) => ({ portalLinkJobId: job.id }),
      }, activityLog);
      const n = (a: LinkJobAction) => countOf(pass, a);
      return { examined: pass.examined, started: n('started'), alreadyRunning: n('already-running'), closedFailed: n('closed-failed'), failed: n('error') };
    },
  };
}

/** The PO reconcile activities' type, for `proxyActivities`. */
export type PortalLinkReconcileActivities = ReturnType<typeof createPortalLinkReconcileActivities>;
