/**
 * PO-5 … PO-7 accepting a scraper callback whose signature the API has verified: the job must exist
 * and wait for its scrape; a success's bucket and key must lie inside the configured bucket and
 * prefix and inside that job's own scope (PO-6); one accepted callback per (job, attempt)
 * (portal_scrape_callbacks), a repeat is answered like the first, counted
 * (`scrape_job_callback_duplicate_total`) and logged, and applies nothing (PO-7). A new callback is
 * recorded and handed to the job's workflow (scrapeCallbackSignal) in one step: one statement records
 * it and, for a success, moves the job RUNNING → POST_PROCESSING (PO-2, guarded) with the result's
 * key; the transaction commits only once the signal was delivered, so a failed signal (503) can be
 * retried by the scraper, is not a duplicate and leaves the job RUNNING. Nothing is recorded or signalled for a rejected callback. The job and whether its
 * attempt's callback is already recorded are one statement over the hot path, so a repeat is
 * answered without a transaction (the first one's row is committed).
 */
import { randomUUID } from 'node:crypto';
import { WorkflowNotFoundError } from '@temporalio/client';
import { Prisma, type PortalLinkJobStatus, type PrismaClient } from '@prisma/client';
import { transitionGuard } from '../../core/guarded-transition';
import { PORTAL_LINK_JOB_STATES } from '../../domain/portal/job-state';
import type { HotReads } from '../../db/hot-reads';
import type { DomainError } from '../../core/domain-error';
import type { PortalConfig as Config } from '../../config/portal';
import { checkResultScope, type ScrapeCallbackBody } from '../../domain/portal/callback';
import type { ScrapeCallback } from '../../domain/portal/contracts';
import { portalMetrics } from './metrics';
import type { PortalLinkStarter } from './starter';
import { PO_ERRORS } from '../../domain/portal/errors';
import { msBeyondClock } from '../../core/clock';

/** What accepting needs. */
export interface CallbackDeps {
  db: PrismaClient;
  config: Config;
  starter: Pick<PortalLinkStarter, 'signalCallback'>;
  /** The point read of the job with its attempt's recorded callback (the API's hot path). */
  reads: Pick<HotReads, 'row'>;
  log: { info(obj: object, msg: string): void; warn(obj: object, msg: string): void };
}

/** Request facts besides the body: X-Callback-Attempt, X-Request-Id, SHA-256 of the raw body, and the server clock. */
export interface CallbackMeta {
  attempt: number | undefined;
  requestId: string | null;
  bodySha256: string;
  /** The server clock the signature was checked with, Unix seconds. */
  nowSeconds: number;
}

/** The answer; the API sends the same body for the first callback and its repeats (`duplicate` is for logs and tests). */
export interface CallbackAnswer {
  jobId: string;
  attempt: number;
  status: 'accepted';
  duplicate: boolean;
}

/** The job and, when its `attempt` has a recorded callback, that callback's body hash: one indexed read. */
const JOB_WITH_CALLBACK = `
  SELECT j.id::text AS id, j.status, j.workflow_id AS "workflowId", c.body_sha256 AS "seenBodySha256"
    FROM portal_link_jobs j
    LEFT JOIN portal_scrape_callbacks c ON c.job_id = j.id AND c.attempt = $2::int
   WHERE j.id = $1::uuid`;

interface JobWithCallback {
  id: string;
  status: PortalLinkJobStatus;
  workflowId: string;
  seenBodySha256: string | null;
}

/**
 * PO-6/PO-7 one statement: records the callback of (job, attempt) unless one is recorded
 * (`inserted` 0) and, for a newly recorded success, moves the job RUNNING → POST_PROCESSING with
 * the result's key and SHA-256 (`moved` 1; 0 when the job is no longer RUNNING). Runs in the
 * transaction that commits only once the workflow was signalled.
 */
function recordCallback(jobId: string, attempt: number, requestId: string | null, bodySha256: string, cb: ScrapeCallback): Prisma.Sql {
  const now = new Date();
  const success = cb.status === 'SUCCEEDED';
  return Prisma.sql`
    WITH ins AS (
      INSERT INTO portal_scrape_callbacks (id, job_id, attempt, request_id, status, body_sha256)
      VALUES (${randomUUID()}::uuid, ${jobId}::uuid, ${attempt}::int, ${requestId}, ${cb.status}::"PortalScrapeCallbackStatus", ${bodySha256})
      ON CONFLICT (job_id, attempt) DO NOTHING
      RETURNING job_id),
    moved AS (
      UPDATE portal_link_jobs
         SET status = 'POST_PROCESSING', post_processing_at = ${now}, updated_at = ${now},
             result_key = ${success ? cb.resultKey : null}, result_sha256 = ${success ? cb.sha256 : null}
       WHERE ${success}::boolean AND id = (SELECT job_id FROM ins)
         AND status::text = ANY(${transitionGuard(PORTAL_LINK_JOB_STATES, 'POST_PROCESSING')}::text[])
      RETURNING id)
    SELECT (SELECT count(*) FROM ins)::int AS inserted, (SELECT count(*) FROM moved)::int AS moved`;
}

/** Longest X-Request-Id kept, in characters (it is opaque). */
export const MAX_REQUEST_ID = 128;

/**
 * PO-5/PO-6/PO-7 accepts a verified callback (see the module comment).
 * @throws DomainError NOT_FOUND (no such job), CALLBACK_RESULT_OUT_OF_SCOPE / CALLBACK_ATTEMPT_MISMATCH /
 *   CALLBACK_SCRAPED_AT_IN_FUTURE (422: `scraped_at` ahead of the server clock by more than the
 *   signature's tolerance), CALLBACK_JOB_NOT_ACTIVE (409), SERVICE_UNAVAILABLE (503: the workflow
 *   could not be signalled).
 */
export async function acceptScrapeCallback(deps: CallbackDeps, body: ScrapeCallbackBody, meta: CallbackMeta): Promise<CallbackAnswer> {
  // The body's id in PostgreSQL's spelling (a UUID, lower case): the id the job row answers.
  const jobId = body.job_id.toLowerCase();
  const requestId = meta.requestId ? meta.requestId.slice(0, MAX_REQUEST_ID) : null;
  const checked = checkCallback(deps, body, meta, jobId, requestId);
  // A missing job is answered 404 before the body's own faults (422).
  const job = await deps.reads.row<JobWithCallback>('portal_job_with_callback', JOB_WITH_CALLBACK, [jobId, 'error' in checked ? null : checked.attempt]);
  if (!job) throw PO_ERRORS.problem('NOT_FOUND', `portal link job ${body.job_id} not found`);
  if ('error' in checked) throw checked.error;
  const { attempt, callback } = checked;
  const answer = (duplicate: boolean): CallbackAnswer => ({ jobId: job.id, attempt, status: 'accepted', duplicate });

  // A repeat (PO-7): the first one's row is committed, so the read above answers it without a transaction.
  const outcome = job.seenBodySha256 !== null
    ? { duplicate: true as const, sameBody: job.seenBodySha256 === meta.bodySha256 }
    : await deps.db.$transaction(
    async (tx) => {
      const [rec] = await tx.$queryRaw<{ inserted: number; moved: number }[]>(recordCallback(job.id, attempt, requestId, meta.bodySha256, callback));
      if (!rec || rec.inserted === 0) {
        // The first one's signal was delivered before its row committed: nothing to re-send.
        const first = await tx.portalScrapeCallback.findUnique({ where: { jobId_attempt: { jobId: job.id, attempt } }, select: { bodySha256: true } });
        return { duplicate: true as const, sameBody: first?.bodySha256 === meta.bodySha256 };
      }
      // A success moved the job in the same statement; not moved: it left RUNNING since the read above.
      if (job.status !== 'RUNNING' || (callback.status === 'SUCCEEDED' && rec.moved === 0)) {
        throw PO_ERRORS.problem('CALLBACK_JOB_NOT_ACTIVE', `the job is ${job.status === 'RUNNING' ? 'no longer RUNNING' : job.status}; it does not wait for a scrape callback`);
      }
      try {
        await deps.starter.signalCallback(job.workflowId, callback.status === 'SUCCEEDED' ? { ...callback, postProcessing: true } : callback);
      } catch (err) {
        if (err instanceof WorkflowNotFoundError) {
          throw PO_ERRORS.problem('CALLBACK_JOB_NOT_ACTIVE', "the job's workflow is not running");
        }
        deps.log.warn({ err, portalLinkJobId: job.id, attempt }, 'scrape callback signal failed; the scraper may retry it');
        throw PO_ERRORS.problem('SERVICE_UNAVAILABLE', 'the job could not be notified; retry the callback');
      }
      return { duplicate: false as const };
    },
    { timeout: 15_000, maxWait: 5_000 },
  );
  if (!outcome.duplicate) return answer(false);

  portalMetrics.callbackDuplicate();
  deps.log.info({ portalLinkJobId: job.id, attempt, requestId, sameBody: outcome.sameBody }, 'duplicate scrape callback: answered like the first, nothing applied');
  return answer(true);
}

/** The callback a verified body and its headers make, or the 422 they earn (PO-6; pure). */
function checkCallback(deps: CallbackDeps, body: ScrapeCallbackBody, meta: CallbackMeta, jobId: string, requestId: string | null): { attempt: number; callback: ScrapeCallback } | { error: DomainError } {
  if (body.status !== 'SUCCEEDED') {
    const attempt = meta.attempt ?? 1;
    return { attempt, callback: { status: 'FAILED', attempt, errorCode: body.error_code, errorMessage: body.error_message, requestId } };
  }
  const scope = checkResultScope(deps.config.objectStore, jobId, body.result_s3_bucket, body.result_s3_key);
  if (!scope.ok) {
    const why = {
      bucket: 'the result bucket is not the configured bucket',
      prefix: 'the result key is outside the configured prefix',
      job: "the result key is outside this job's scope",
      shape: "the result key is not <prefix><jobId>/<attempt>.json",
    }[scope.violation];
    return { error: PO_ERRORS.problem('CALLBACK_RESULT_OUT_OF_SCOPE', why) };
  }
  if (meta.attempt !== undefined && meta.attempt !== scope.attempt) {
    return { error: PO_ERRORS.problem('CALLBACK_ATTEMPT_MISMATCH', `X-Callback-Attempt ${meta.attempt} but the result key is of attempt ${scope.attempt}`) };
  }
  const tolerance = deps.config.portal.callbackToleranceSeconds;
  const ahead = msBeyondClock(new Date(body.scraped_at), meta.nowSeconds * 1000, tolerance);
  if (ahead > 0) {
    return { error: PO_ERRORS.problem('CALLBACK_SCRAPED_AT_IN_FUTURE', `scraped_at ${body.scraped_at} is ahead of the server clock by more than the ${tolerance} s tolerance`) };
  }
  const attempt = scope.attempt;
  return { attempt, callback: { status: 'SUCCEEDED', attempt, resultKey: body.result_s3_key, sha256: body.result_sha256, requestId } };
}
