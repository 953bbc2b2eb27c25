/**
 * PO-5/PO-6 the scrape activity of the `portal` queue: logs into the student's portal through its
 * adapter (heartbeating per page), writes `snakeizeKeys(result)` as JSON to
 * `<prefix><jobId>/<attempt>.json` with its SHA-256, then POSTs the signed callback (first secret)
 * and returns once the backend answered 2xx.
 *
 * Idempotency: the object key is derived from the job and the attempt, so a retried attempt writes
 * its own object and a re-run of one attempt overwrites its own bytes; the backend deduplicates
 * callbacks by (job_id, attempt) (PO-7).
 *
 * Retry classes (src/domain/portal/scrape-failures.ts): wrong credentials and unexpected markup are
 * non-retryable (the activity also posts a signed FAILED callback with the code, best effort);
 * an expired session is retryable. Outages of the portal, the object store or the callback
 * endpoint are waited out INSIDE the attempt — backoff (or the portal's Retry-After) with
 * heartbeats, then the step again — so a short outage costs the job no attempt; only an outage
 * that outlasts the attempt's own startToClose timeout ends it as a retryable failure (with
 * `nextRetryDelay` when the portal asked for one).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { Context } from '@temporalio/activity';
import type { PortalConfig as Config } from '../../config/portal';
import { failure } from '../../core/failures';
import { withHeartbeat } from '../../core/heartbeat';
import { cutCodePoints } from '../../core/text';
import { signedCallbackHeaders } from '../../crypto/callback-signature';
import { snakeizeKeys } from '../../domain/portal/result';
import { PO_FAILURES, SCRAPE_FAILURE_ERROR_CODES, type ScrapeFailureDetails, type ScrapeFailureType } from '../../domain/portal/errors';
import { portalAdapters } from '../../services/portal/adapters/registry';
import {
  PortalCredentialsInvalidError,
  PortalMarkupUnexpectedError,
  PortalSessionExpiredError,
  PortalUnavailableError,
  type PortalAdapter,
} from '../../services/portal/adapters/types';
import { ObjectStoreUnavailableError, type ObjectStore } from '../../storage/object-store';
import { createS3ObjectStore } from '../../storage/s3';
import { portalResultKey, type PortalScrapeActivities, type ScrapePortalInput, type ScrapePortalOutput } from '../../domain/portal/contracts';

/** Bounds of the in-attempt wait on an outage. */
export interface OutageBackoff {
  /** First wait, ms (default 1 000). */
  initialMs: number;
  /** Longest wait, ms (default 30 000). */
  maxMs: number;
}

/** Dependencies of {@link createPortalScrapeActivities}. */
export interface PortalScrapeActivityDeps {
  config: Pick<Config, 'portal' | 'objectStore'>;
  store: ObjectStore;
  /** Adapter per portal type (default: every registered type from `config.portal`). */
  adapters?: Readonly<Record<string, PortalAdapter>>;
  /** In-attempt outage wait (tests shorten it). */
  outageBackoff?: OutageBackoff;
}

/** The callback's JSON body (PO-5 wire format, snake_case). */
export type ScrapeCallbackBody =
  | { job_id: string; status: 'SUCCEEDED'; result_s3_bucket: string; result_s3_key: string; result_sha256: string | null; scraped_at: string }
  | { job_id: string; status: 'FAILED'; error_code: string; error_message: string };

/** Longest error_message a FAILED callback carries, in code points. */
const MAX_ERROR_MESSAGE = 500;
/** Time kept free at the end of an attempt for the failure to be reported, ms. */
const ATTEMPT_MARGIN_MS = 2_000;

/** An outage seen by a step, with the wait its source asked for. */
interface Outage {
  retryAfterMs?: number;
  status?: number;
}

class CallbackUnavailable extends Error {
  constructor(
    message: string,
    readonly outage: Outage,
  ) {
    super(message);
  }
}

class CallbackRejected extends Error {
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
  }
}

function fail(type: ScrapeFailureType, message: string, opts: { cause?: Error; status?: number; retryAfterMs?: number } = {}) {
  const details: ScrapeFailureDetails = { code: SCRAPE_FAILURE_ERROR_CODES[type], ...(opts.status ? { status: opts.status } : {}) };
  return failure(PO_FAILURES, type, message, { cause: opts.cause, details: [details], nextRetryDelay: opts.retryAfterMs });
}

/** The Temporal failure of an adapter / store / callback error; anything else unchanged. */
function toScrapeFailure(err: unknown): unknown {
  if (err instanceof PortalCredentialsInvalidError) return fail('PORTAL_CREDENTIALS_INVALID', err.message);
  if (err instanceof PortalMarkupUnexpectedError) return fail('PORTAL_MARKUP_UNEXPECTED', err.message);
  if (err instanceof PortalSessionExpiredError) return fail('PORTAL_SESSION_EXPIRED', err.message);
  if (err instanceof PortalUnavailableError) {
    return fail('PORTAL_UNAVAILABLE', err.message, { status: err.details.status, retryAfterMs: err.details.retryAfterMs });
  }
  if (err instanceof ObjectStoreUnavailableError) return fail('RESULT_STORE_UNAVAILABLE', err.message);
  if (err instanceof CallbackRejected) return fail('CALLBACK_REJECTED', err.message, { status: err.status });
  if (err instanceof CallbackUnavailable) return fail('CALLBACK_UNAVAILABLE', err.message, { status: err.outage.status, retryAfterMs: err.outage.retryAfterMs });
  return err;
}

function outageOf(err: unknown): Outage | undefined {
  if (err instanceof PortalUnavailableError) return { ...err.details };
  if (err instanceof ObjectStoreUnavailableError) return {};
  if (err instanceof CallbackUnavailable) return err.outage;
  return undefined;
}

function retryAfterMs(header: string | null): number | undefined {
  if (!header) return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const at = Date.parse(header);
  return Number.isNaN(at) ? undefined : Math.max(0, at - Date.now());
}

/**
 * Builds the `portal` queue's activities (PortalScrapeActivities of src/domain/portal/contracts.ts).
 */
export function createPortalScrapeActivities(deps: PortalScrapeActivityDeps): PortalScrapeActivities {
  const adapters = deps.adapters ?? portalAdapters(deps.config.portal);
  const backoff = deps.outageBackoff ?? { initialMs: 1_000, maxMs: 30_000 };
  const { portal, objectStore } = deps.config;

  /** Runs `step`, waiting out outages until the attempt's deadline; rethrows the last outage after it. */
  async function waitingOut<T>(what: string, step: () => Promise<T>, deadline: number, signal: AbortSignal): Promise<T> {
    let wait = backoff.initialMs;
    for (;;) {
      try {
        return await step();
      } catch (err) {
        const outage = outageOf(err);
        if (!outage || signal.aborted) throw err;
        const delay = Math.min(backoff.maxMs, Math.max(wait, outage.retryAfterMs ?? 0));
        if (Date.now() + delay + ATTEMPT_MARGIN_MS > deadline) throw err;
        Context.current().log.warn(`${what}: outage, waiting ${delay} ms inside the attempt`, { error: (err as Error).message });
        await sleep(delay, undefined, { signal });
        wait = Math.min(backoff.maxMs, wait * 2);
      }
    }
  }

  /** POSTs one signed callback; resolves on 2xx. @throws CallbackRejected (4xx), CallbackUnavailable (5xx, 408, 429, network). */
  async function postCallback(url: string, body: ScrapeCallbackBody, attempt: number, signal: AbortSignal): Promise<void> {
    const secret = portal.callbackSecrets[0];
    if (!secret) throw fail('CALLBACK_SECRET_MISSING', 'PORTAL_CALLBACK_SECRETS is empty: the callback cannot be signed');
    const raw = Buffer.from(JSON.stringify(body), 'utf8');
    const headers = signedCallbackHeaders(secret, raw, { attempt, requestId: `scrape-${body.job_id}-${attempt}` });
    let res: Response;
    try {
      res = await fetch(url, { method: 'POST', headers, body: raw, signal: AbortSignal.any([signal, AbortSignal.timeout(portal.requestTimeoutMs)]) });
      await res.arrayBuffer();
    } catch (err) {
      if (signal.aborted) throw err;
      throw new CallbackUnavailable(`callback ${url} failed: ${(err as Error).message}`, {});
    }
    if (res.status >= 200 && res.status < 300) return;
    if (res.status >= 500 || res.status === 408 || res.status === 425 || res.status === 429) {
      throw new CallbackUnavailable(`callback ${url} answered ${res.status}`, { status: res.status, retryAfterMs: retryAfterMs(res.headers.get('retry-after')) });
    }
    throw new CallbackRejected(`callback ${url} refused with ${res.status}`, res.status);
  }

  return {
    /**
     * PO-5 scrape, store, call back. Idempotency key: `<prefix><jobId>/<attempt>.json` and the
     * backend's (job_id, attempt) dedup. Retry class: see the module comment.
     */
    async scrapePortal(input: ScrapePortalInput): Promise<ScrapePortalOutput> {
      const ctx = Context.current();
      const { attempt, startToCloseTimeoutMs, currentAttemptScheduledTimestampMs } = ctx.info;
      const deadline = (currentAttemptScheduledTimestampMs || Date.now()) + (startToCloseTimeoutMs || portal.scrapeTimeoutMs);
      const adapter = Object.hasOwn(adapters, input.portalType) ? adapters[input.portalType] : undefined;
      if (!adapter) throw fail('PORTAL_TYPE_UNKNOWN', `no portal adapter is configured for portal type "${input.portalType}"`);

      return withHeartbeat(async (signal) => {
        let result;
        try {
          result = await waitingOut(
            `scrape ${input.portalType}`,
            () =>
              adapter.scrape(
                { studentId: input.studentId, password: input.password },
                { signal, heartbeat: (p) => ctx.heartbeat({ step: 'scrape', ...p }) },
              ),
            deadline,
            signal,
          );
        } catch (err) {
          const mapped = toScrapeFailure(err);
          if (err instanceof PortalCredentialsInvalidError || err instanceof PortalMarkupUnexpectedError) {
            // A terminal answer: tell the backend through the signed FAILED callback too (best effort;
            // the non-retryable activity failure reaches the workflow in any case).
            const body: ScrapeCallbackBody = {
              job_id: input.jobId,
              status: 'FAILED',
              error_code: err.code,
              error_message: cutCodePoints(err.message, MAX_ERROR_MESSAGE),
            };
            await waitingOut('failure callback', () => postCallback(input.callbackUrl, body, attempt, signal), deadline, signal).catch((cbErr: unknown) => {
              ctx.log.warn('failure callback not delivered', { jobId: input.jobId, error: (cbErr as Error).message });
            });
          }
          throw mapped;
        }

        ctx.heartbeat({ step: 'store' });
        const key = portalResultKey(objectStore.prefix, input.jobId, attempt);
        const bytes = Buffer.from(JSON.stringify(snakeizeKeys(result)), 'utf8');
        const { sha256 } = await waitingOut('store result', () => deps.store.put(key, bytes, 'application/json'), deadline, signal);

        ctx.heartbeat({ step: 'callback' });
        const body: ScrapeCallbackBody = {
          job_id: input.jobId,
          status: 'SUCCEEDED',
          result_s3_bucket: deps.store.bucket,
          result_s3_key: key,
          result_sha256: sha256,
          scraped_at: result.scrapedAt,
        };
        await waitingOut('callback', () => postCallback(input.callbackUrl, body, attempt, signal), deadline, signal);
        ctx.log.info('scrape stored and reported', { jobId: input.jobId, attempt, key, bytes: bytes.byteLength });
        return { resultKey: key, sha256, attempt };
      }, toScrapeFailure);
    },
  };
}

/**
 * The `portal` queue's activities wired from config: the S3 store of `config.objectStore` and the
 * adapters of `config.portal` (what the PO manifest's own queue declares).
 */
export function portalScrapeActivitiesFromConfig(config: Pick<Config, 'portal' | 'objectStore'>): PortalScrapeActivities {
  const store = createS3ObjectStore(config.objectStore, { requestTimeoutMs: config.portal.requestTimeoutMs });
  return createPortalScrapeActivities({ config, store });
}
