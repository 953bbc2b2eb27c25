/**
 * Projection activities of the portal-link family on the `jobs` queue (PO-2, DC-3): the guarded
 * transitions of a portal_link_jobs row. Every write is a conditional update whose
 * `WHERE status IN (…)` comes from the PO-2 state machine, so a retried activity or a late call
 * changes nothing twice; each answers the row's state after the call.
 */
import type { Prisma, PrismaClient } from '@prisma/client';
import { storableText } from '../../core/cause-chain';
import { PO_FAILURES, PORTAL_JOB_ERROR_CODES } from '../../domain/portal/errors';
import { failure } from '../../core/failures';
import { guardedTransition } from '../../core/guarded-transition';
import { PORTAL_LINK_JOB_STATES, type PortalJobResultCode, type PortalLinkJobStatus } from '../../domain/portal/job-state';
import type { PortalJobState, PortalStudentSummary } from '../../domain/portal/contracts';

/** Dependencies of {@link createPortalLinkJobActivities}. */
export interface PortalLinkJobActivityDeps {
  db: PrismaClient;
}

export type { PortalJobState };

/** Longest stored error message, in code points. */
export const MAX_ERROR_MESSAGE = 2000;

/**
 * The guarded transition of job `jobId` to `to` with `data`, answering the row's state: one
 * statement when it moves (the UPDATE returns the row), one read more when it does not.
 * @throws PORTAL_LINK_JOB_NOT_FOUND (non-retryable) when there is no such job.
 */
export async function moveJobState(
  db: PrismaClient | Prisma.TransactionClient,
  jobId: string,
  to: PortalLinkJobStatus,
  data: Prisma.PortalLinkJobUpdateManyMutationInput,
): Promise<PortalJobState> {
  let seen: { status: PortalLinkJobStatus; errorCode: string | null } | null = null;
  const r = await guardedTransition(PORTAL_LINK_JOB_STATES, {
    to,
    write: async (from) => {
      const rows = await db.portalLinkJob.updateManyAndReturn({ where: { id: jobId, status: { in: from } }, data: { ...data, status: to }, select: { status: true, errorCode: true } });
      seen = rows[0] ?? null;
      return rows;
    },
    read: async () => (seen = await db.portalLinkJob.findUnique({ where: { id: jobId }, select: { status: true, errorCode: true } })),
  });
  const row = seen as { status: PortalLinkJobStatus; errorCode: string | null } | null;
  if (!row) throw failure(PO_FAILURES, 'PORTAL_LINK_JOB_NOT_FOUND', `portal link job ${jobId} does not exist`);
  return { moved: r.changed, status: row.status, errorCode: row.errorCode };
}

/**
 * Active job → FAILED with `code` (guarded; a finished job is untouched). A REFRESH or LINK
 * that failed on rejected credentials marks the user's existing link LOGIN_REQUIRED (new
 * credentials are needed). Shared by the workflow's failure path and the reconciler.
 */
export async function failPortalLinkJob(db: PrismaClient, jobId: string, code: string, message: string): Promise<PortalJobState> {
  const data = { errorCode: code, errorMessage: storableText(message, MAX_ERROR_MESSAGE), finishedAt: new Date() };
  if (code !== PORTAL_JOB_ERROR_CODES.PORTAL_CREDENTIALS_INVALID) return moveJobState(db, jobId, 'FAILED', data);
  return db.$transaction(async (tx) => {
    const state = await moveJobState(tx, jobId, 'FAILED', data);
    if (state.moved) {
      const job = await tx.portalLinkJob.findUniqueOrThrow({ where: { id: jobId }, select: { userId: true, portalType: true } });
      await tx.portalLink.updateMany({ where: { userId: job.userId, portalType: job.portalType }, data: { status: 'LOGIN_REQUIRED' } });
    }
    return state;
  });
}

/**
 * PO-4/PO-9 records why job `jobId`, still post-processing, applies no result (its view's
 * `resultCode`), in the transaction that decided it; the job then SUCCEEDS with it. A no-op on a
 * finished job.
 */
export async function markPortalJobResult(db: PrismaClient | Prisma.TransactionClient, jobId: string, code: PortalJobResultCode): Promise<void> {
  await db.portalLinkJob.updateMany({ where: { id: jobId, status: 'POST_PROCESSING' }, data: { resultCode: code } });
}

/** The PO projection activities. */
export function createPortalLinkJobActivities({ db }: PortalLinkJobActivityDeps) {
  return {
    /** QUEUED → RUNNING (started_at). Key: the job id. Retry: PROJECTION_RETRY (local first). */
    async markPortalJobRunning(args: { jobId: string }): Promise<PortalJobState> {
      return moveJobState(db, args.jobId, 'RUNNING', { startedAt: new Date() });
    },

    /**
     * PO-6: RUNNING → POST_PROCESSING with the accepted result's key and SHA-256 (the callback's).
     * Key: the job id. Retry: PROJECTION_RETRY.
     */
    async markPortalJobPostProcessing(args: { jobId: string; resultKey: string; sha256: string | null }): Promise<PortalJobState> {
      const data = { postProcessingAt: new Date(), resultKey: args.resultKey, resultSha256: args.sha256 };
      return moveJobState(db, args.jobId, 'POST_PROCESSING', data);
    },

    /** PO-4: POST_PROCESSING → SUCCEEDED with the student summary. Key: the job id. Retry: PROJECTION_RETRY. */
    async completePortalJob(args: { jobId: string; summary: PortalStudentSummary }): Promise<PortalJobState> {
      const data = { summary: args.summary as unknown as Prisma.InputJsonValue, errorCode: null, errorMessage: null, finishedAt: new Date() };
      return moveJobState(db, args.jobId, 'SUCCEEDED', data);
    },

    /** QUEUED | RUNNING | POST_PROCESSING → FAILED with `code` and `message`. Key: the job id. Retry: PROJECTION_RETRY. */
    async failPortalJob(args: { jobId: string; code: string; message: string }): Promise<PortalJobState> {
      return failPortalLinkJob(db, args.jobId, args.code, args.message);
    },
  };
}

/** The PO projection activities' type, for `proxyActivities`. */
export type PortalLinkJobActivities = ReturnType<typeof createPortalLinkJobActivities>;
