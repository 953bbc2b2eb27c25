/**
 * PO-2/PO-5/PO-6 the durable portal link job: one workflow per job, ID
 * `portal-link:<userId>:<keyHash>` (DC-1). QUEUED → RUNNING (a local projection write) → the scrape
 * on the family's own `portal` queue (DC-2) → the scraper's signed callback, delivered as
 * {@link scrapeCallbackSignal} by `POST /internal/scrape-results` → POST_PROCESSING → the
 * post-processing activity on `jobs` (PO-8 … PO-10) → SUCCEEDED with the student summary; FAILED
 * from any active state with a stable code (PORTAL_JOB_ERROR_CODES). Every projection write is a
 * guarded transition (DC-3), so a late or repeated one changes nothing.
 *
 * The callback deadline (policy.callbackDeadlineMs, counted from the scrape's start) is a durable
 * timer: no callback in time → FAILED CALLBACK_TIMEOUT. The scrape activity retries portal outages
 * and expired sessions within the same bound (scheduleToCloseTimeout), so an outage is waited out
 * up to the deadline and never retried forever; wrong credentials and unexpected markup fail at once.
 * The password is in the input only (encrypted by the payload codec, AR-6 codec); a start recovered
 * without it (null) fails PORTAL_CREDENTIALS_REQUIRED.
 *
 * With {@link PORTAL_LINK_LOCAL_WRITES_PATCH} the moves after the callback (POST_PROCESSING,
 * SUCCEEDED) and the post-processing itself run as local activities first ({@link localFirst}):
 * no `jobs` task round trip between the callback and SUCCEEDED, and the summary is in the history
 * once (as the workflow's result); a write whose local attempts are exhausted runs on the `jobs`
 * queue with the full retry budget. With {@link PORTAL_LINK_APPLY_SUCCEEDS_PATCH} as well, the API
 * makes the POST_PROCESSING move with the callback it records (the signal says so), and one local
 * activity applies the result and makes the SUCCEEDED move in one transaction: the workflow task
 * after the callback runs one local activity.
 */
import {
  ActivityFailure,
  ApplicationFailure,
  CancellationScope,
  TimeoutFailure,
  condition,
  isCancellation,
  patched,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
} from '@temporalio/workflow';
import type { PortalLinkJobActivities, PortalJobState } from '../../activities/portal/jobs';
import { LOCAL_PROJECTION_RETRY, localProjectionOptions, projectionOptions, PROJECTION_RETRY } from '../../core/activity-options';
import { PORTAL_JOB_ERROR_CODES } from '../../domain/portal/errors';
import { localFirst, localFirstActivities } from '../core/job-runner';
import {
  scrapeCallbackSignal,
  type ApplyScrapeResultOutput,
  type PortalLinkWorkflowInput,
  type PortalLinkWorkflowResult,
  type PortalPostProcessActivities,
  type PortalScrapeActivities,
  type ScrapeCallback,
  type ScrapePortalOutput,
} from '../../domain/portal/contracts';

/** Heartbeat timeout of the scrape activity: a worker killed mid-scrape is noticed this fast (then retried). */
export const SCRAPE_HEARTBEAT_TIMEOUT_MS = 30_000;

/** Post-processing bound per attempt; its database outages are retried with PROJECTION_RETRY. */
export const POST_PROCESS_TIMEOUT_MS = 5 * 60_000;

/**
 * Post-processing bound per local attempt (it holds its workflow task open meanwhile): a slower
 * one is retried locally, then on the `jobs` queue with {@link POST_PROCESS_TIMEOUT_MS}.
 */
export const LOCAL_POST_PROCESS_TIMEOUT_MS = 60_000;

/**
 * `patched()` ID of the POST_PROCESSING and SUCCEEDED moves and of the post-processing as local
 * activities first. Histories without its marker schedule them on the `jobs` queue and replay on
 * that branch. Remove (with `deprecatePatch` first) once no such run can be open.
 */
export const PORTAL_LINK_LOCAL_WRITES_PATCH = 'portal-link-local-writes';

/**
 * `patched()` ID of the finish in the apply: post-processing moves the job POST_PROCESSING →
 * SUCCEEDED in its own transaction (`applyScrapeResultAndSucceed`, one local activity instead of
 * two), and a callback whose API made the POST_PROCESSING move (`postProcessing` in the signal)
 * costs no write of the workflow's before it. Histories without its marker (asked in the first
 * workflow task, with {@link PORTAL_LINK_LOCAL_WRITES_PATCH}) replay the separate writes.
 */
export const PORTAL_LINK_APPLY_SUCCEEDS_PATCH = 'portal-link-apply-succeeds';

/** Longest wait for the scrape activity's completion once its job SUCCEEDED (a lost completion never holds the workflow open longer). */
export const SCRAPE_SETTLE_TIMEOUT_MS = 10_000;

const KNOWN_CODES: ReadonlySet<string> = new Set(Object.values(PORTAL_JOB_ERROR_CODES));

/** A failed activity's job error code and message: details[0].code or .errorCode, else a job error code as the type, else `fallback`. */
export function failureCode(err: unknown, fallback: string): { code: string; message: string } {
  let cur: unknown = err instanceof ActivityFailure ? err.cause : err;
  // A schedule-to-close timeout carries the last attempt's failure as its cause.
  while (cur instanceof TimeoutFailure && cur.cause) cur = cur.cause;
  if (cur instanceof ApplicationFailure) {
    // details[0].code (post-processing) or .errorCode (the scraper): the job's error code.
    const d = cur.details?.[0] as { code?: unknown; errorCode?: unknown } | undefined;
    const given = typeof d?.code === 'string' && d.code.length > 0 ? d.code : typeof d?.errorCode === 'string' && d.errorCode.length > 0 ? d.errorCode : undefined;
    const code = given ?? (cur.type && KNOWN_CODES.has(cur.type) ? cur.type : fallback);
    return { code, message: cur.message };
  }
  if (cur instanceof TimeoutFailure) return { code: fallback, message: `timed out (${String(cur.timeoutType)})` };
  return { code: fallback, message: err instanceof Error ? err.message : String(err) };
}

/**
 * The link job's workflow (see the module comment). Returns SUCCEEDED or FAILED with the job's
 * error code (the row says the same); a row already finished (a late duplicate start) returns its
 * state without doing anything. A cancellation records FAILED CANCELLED and is rethrown.
 */
export async function portalLinkWorkflow(input: PortalLinkWorkflowInput): Promise<PortalLinkWorkflowResult> {
  const jobs = proxyActivities<PortalLinkJobActivities>(projectionOptions(input.queues.jobs));
  const localJobs = proxyLocalActivities<PortalLinkJobActivities>(localProjectionOptions());
  const post = proxyActivities<PortalPostProcessActivities>({
    taskQueue: input.queues.jobs,
    startToCloseTimeout: POST_PROCESS_TIMEOUT_MS,
    retry: PROJECTION_RETRY,
  });
  // Asked in the first workflow task: a history without the marker replays every later write remote.
  const localWrites = patched(PORTAL_LINK_LOCAL_WRITES_PATCH);
  const applySucceeds = localWrites && patched(PORTAL_LINK_APPLY_SUCCEEDS_PATCH);
  const after = localFirstActivities<PortalLinkJobActivities>(localWrites, localJobs, jobs);
  const localPost = localFirstActivities<PortalPostProcessActivities>(
    localWrites,
    proxyLocalActivities<PortalPostProcessActivities>({ startToCloseTimeout: LOCAL_POST_PROCESS_TIMEOUT_MS, retry: LOCAL_PROJECTION_RETRY }),
    post,
  );
  const scraper = proxyActivities<PortalScrapeActivities>({
    taskQueue: input.queues.portal,
    startToCloseTimeout: input.policy.scrapeTimeoutMs,
    scheduleToCloseTimeout: input.policy.callbackDeadlineMs,
    heartbeatTimeout: SCRAPE_HEARTBEAT_TIMEOUT_MS,
    retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '30s' },
  });

  let callback: ScrapeCallback | undefined;
  // PO-7: the first verified callback wins; a repeat (same or another attempt) changes nothing.
  setHandler(scrapeCallbackSignal, (cb) => {
    callback ??= cb;
  });

  const result = (s: PortalJobState): PortalLinkWorkflowResult => ({
    jobId: input.jobId,
    status: s.status === 'SUCCEEDED' ? 'SUCCEEDED' : 'FAILED',
    errorCode: s.errorCode,
  });
  const fail = async (code: string, message: string): Promise<PortalLinkWorkflowResult> => {
    const s = await CancellationScope.nonCancellable(() =>
      localFirst(true, () => localJobs.failPortalJob({ jobId: input.jobId, code, message }), () => jobs.failPortalJob({ jobId: input.jobId, code, message })),
    );
    return result(s);
  };

  try {
    const begin = await localFirst(true, () => localJobs.markPortalJobRunning({ jobId: input.jobId }), () => jobs.markPortalJobRunning({ jobId: input.jobId }));
    if (!begin.moved && begin.status !== 'RUNNING') return result(begin);
    if (input.password === null) {
      return fail(PORTAL_JOB_ERROR_CODES.PORTAL_CREDENTIALS_REQUIRED, 'the job was recovered without its password (never stored): link again with the password');
    }
    const password = input.password;

    // The scrape runs in its own scope: cancelled when the deadline passes first.
    const scrapeScope = new CancellationScope();
    let scraped: ScrapePortalOutput | undefined;
    let scrapeError: unknown;
    const scrape = scrapeScope.run(() =>
      scraper.scrapePortal({
        jobId: input.jobId,
        userId: input.userId,
        portalType: input.portalType,
        studentId: input.studentId,
        password,
        callbackUrl: input.callbackUrl,
      }),
    );
    const settled = scrape.then(
      (out) => {
        scraped = out;
      },
      (err: unknown) => {
        scrapeError = err;
      },
    );
    const arrived = await condition(() => callback !== undefined || scrapeError !== undefined, input.policy.callbackDeadlineMs);
    if (!arrived) {
      scrapeScope.cancel();
      await settled;
      const still = scraped ? 'the scrape finished but its callback never came' : 'the scrape was still running or retrying';
      return fail(PORTAL_JOB_ERROR_CODES.CALLBACK_TIMEOUT, `no scrape callback within ${Math.round(input.policy.callbackDeadlineMs / 1000)} s (${still})`);
    }
    const cb = callback;
    if (!cb) {
      if (isCancellation(scrapeError)) throw scrapeError;
      const f = failureCode(scrapeError, PORTAL_JOB_ERROR_CODES.SCRAPE_FAILED);
      return fail(f.code, f.message);
    }
    if (cb.status === 'FAILED') {
      scrapeScope.cancel();
      return fail(cb.errorCode || PORTAL_JOB_ERROR_CODES.SCRAPE_FAILED, cb.errorMessage);
    }

    if (!(applySucceeds && cb.postProcessing === true)) {
      const pp = await after.markPortalJobPostProcessing({ jobId: input.jobId, resultKey: cb.resultKey, sha256: cb.sha256 });
      if (!pp.moved && pp.status !== 'POST_PROCESSING') return result(pp);
    }
    const apply = {
      jobId: input.jobId,
      userId: input.userId,
      portalType: input.portalType,
      resultKey: cb.resultKey,
      sha256: cb.sha256,
      jobCreatedAt: input.jobCreatedAt,
    };
    const failed = (err: unknown): Promise<PortalLinkWorkflowResult> => {
      if (isCancellation(err)) throw err;
      const f = failureCode(err, PORTAL_JOB_ERROR_CODES.C18);
      return fail(f.code, f.message);
    };
    let done: PortalJobState;
    if (applySucceeds) {
      try {
        done = await localPost.applyScrapeResultAndSucceed(apply);
      } catch (err) {
        return failed(err);
      }
    } else {
      let applied: ApplyScrapeResultOutput;
      try {
        applied = await localPost.applyScrapeResult(apply);
      } catch (err) {
        return failed(err);
      }
      done = await after.completePortalJob({ jobId: input.jobId, summary: applied.summary });
    }
    // The scrape's own completion follows its callback closely; a workflow completion sent while
    // it is pending would be refused (its task replayed, the local writes run again), so the
    // local-first branch waits for it, bounded: the row is SUCCEEDED already.
    if (localWrites && scraped === undefined && scrapeError === undefined) {
      await condition(() => scraped !== undefined || scrapeError !== undefined, SCRAPE_SETTLE_TIMEOUT_MS);
    }
    return result(done);
  } catch (err) {
    if (isCancellation(err)) {
      await fail(PORTAL_JOB_ERROR_CODES.CANCELLED, 'the job was cancelled');
    }
    throw err;
  }
}
