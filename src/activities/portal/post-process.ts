/**
 * Post-processing activities of the portal-link family on the `jobs` queue (PO-6, PO-8 … PO-10):
 * `applyScrapeResult` reads the job's result object, validates it and applies it in one
 * transaction under the student lock (src/services/portal/post-process.ts);
 * `applyScrapeResultAndSucceed` also makes the job's SUCCEEDED move in that transaction.
 */
import type { Prisma, PrismaClient } from '@prisma/client';
import { failure } from '../../core/failures';
import { PO_FAILURES } from '../../domain/portal/errors';
import { applyScrapeResult, type ApplyOptions } from '../../services/portal/post-process';
import { PostProcessError, readScrapeResult } from '../../services/portal/scrape-result';
import { markPortalLinkApplied } from '../../services/portal/portal-link-status';
import { markPortalJobResult, moveJobState } from './jobs';
import type { PortalJobResultCode } from '../../domain/portal/job-state';
import type { ObjectStore } from '../../storage/object-store';
import type { ApplyScrapeResultInput, ApplyScrapeResultOutput, PortalJobState, PortalPostProcessActivities } from '../../domain/portal/contracts';

/** Dependencies of {@link createPortalPostProcessActivities}. */
export interface PortalPostProcessDeps {
  db: PrismaClient;
  store: ObjectStore;
  /** config.objectStore.prefix: a result key must lie in `<prefix><jobId>/`. */
  prefix: string;
  /** config.portal.callbackToleranceSeconds: how far ahead of the server clock a result's scraped_at may lie. */
  toleranceSeconds: number;
  /** Test hooks of the apply transaction. */
  apply?: ApplyOptions;
}

/** Thrown inside the apply transaction when the job is no longer post-processing: the transaction rolls back, the job's state is answered. */
class JobLeftPostProcessing extends Error {
  constructor(readonly state: PortalJobState) {
    super(`portal link job is ${state.status}, not POST_PROCESSING`);
  }
}

function toFailure(err: unknown): unknown {
  if (!(err instanceof PostProcessError)) return err; // database outages / transient errors: the worker's db interceptor decides
  return failure(PO_FAILURES, err.type, err.message, { cause: err.cause instanceof Error ? err.cause : undefined, details: [err.details] });
}

/** The post-processing activities. */
export function createPortalPostProcessActivities({ db, store, prefix, toleranceSeconds, apply }: PortalPostProcessDeps): PortalPostProcessActivities {
  const read = (input: ApplyScrapeResultInput) =>
    readScrapeResult(store, { key: input.resultKey, sha256: input.sha256, jobId: input.jobId, portalType: input.portalType, prefix });
  const onApplied = (input: ApplyScrapeResultInput) => (tx: Prisma.TransactionClient, student: { studentNumber: string }, at: Date) =>
    markPortalLinkApplied(tx, { userId: input.userId, portalType: input.portalType, studentNumber: student.studentNumber, jobId: input.jobId, at });
  return {
    /**
     * PO-6/PO-8/PO-9/PO-10 reads `resultKey` (C16), validates it (C17; a scraped_at ahead of the
     * server clock beyond the tolerance is PORTAL_RESULT_SCRAPED_IN_FUTURE, C17) and applies it with
     * the link's status in one transaction under the student lock (C18 on a deterministic database
     * rejection, nothing written); an ignored older result marks the job STALE_RESULT_IGNORED. Idempotent: a retry after commit finds the job's data applied
     * and answers the same summary. Retry: store outages and transient database errors retryable,
     * C16/C17/C18 non-retryable (PO_FAILURES).
     */
    async applyScrapeResult(input: ApplyScrapeResultInput): Promise<ApplyScrapeResultOutput> {
      try {
        const result = await read(input);
        return await applyScrapeResult(db, input, result, {
          ...apply,
          clock: { toleranceSeconds },
          onApplied: onApplied(input),
          onIgnored: (tx) => markPortalJobResult(tx, input.jobId, 'STALE_RESULT_IGNORED'),
        });
      } catch (err) {
        throw toFailure(err);
      }
    },

    /**
     * PO-4/PO-6/PO-8 … PO-10 {@link applyScrapeResult}, and in the same transaction the job's move
     * POST_PROCESSING → SUCCEEDED with the summary (and `resultCode` STALE_RESULT_IGNORED for an
     * ignored older result): answers the job's state. A job no longer POST_PROCESSING gets nothing
     * applied (rolled back) and answers its state (`moved` false); so does a retry after the commit
     * (SUCCEEDED already). Retry: as {@link applyScrapeResult}.
     */
    async applyScrapeResultAndSucceed(input: ApplyScrapeResultInput): Promise<PortalJobState> {
      try {
        const result = await read(input);
        let state: PortalJobState | undefined;
        await applyScrapeResult(db, input, result, {
          ...apply,
          clock: { toleranceSeconds },
          onApplied: onApplied(input),
          beforeCommit: async (tx, out) => {
            const data = {
              summary: out.summary as unknown as Prisma.InputJsonValue,
              errorCode: null,
              errorMessage: null,
              finishedAt: new Date(),
              ...(out.ignoredReason !== null ? { resultCode: 'STALE_RESULT_IGNORED' satisfies PortalJobResultCode } : {}),
            };
            state = await moveJobState(tx, input.jobId, 'SUCCEEDED', data);
            if (!state.moved) throw new JobLeftPostProcessing(state);
          },
        });
        return state!;
      } catch (err) {
        if (err instanceof JobLeftPostProcessing) return err.state;
        throw toFailure(err);
      }
    },
  };
}
