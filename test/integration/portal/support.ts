/**
 * Helpers of the portal-link integration tests: a stack with the test object store, a `portal`
 * queue worker running a scripted scraper that writes a real result object (snake_case JSON, as
 * the real scraper does) and posts a really signed callback through the API, and request shortcuts.
 */
import { randomUUID } from 'node:crypto';
import { Context } from '@temporalio/activity';
import { NativeConnection, Worker } from '@temporalio/worker';
import { ApplicationFailure } from '@temporalio/common';
import { ownTaskQueue } from '../../../src/core/contracts';
import { signedCallbackHeaders } from '../../../src/crypto/callback-signature';
import { snakeizeKeys } from '../../../src/domain/portal/result';
import type { S3ObjectStore } from '../../../src/storage/s3';
import { PORTAL_QUEUE, portalResultKey, type ScrapePortalInput, type ScrapePortalOutput } from '../../../src/domain/portal/contracts';
import { testDataConverter } from '../../support/temporal';
import { pollUntil } from '../../support/poll';
import { scrapeResult } from '../../support/portal-results';
import type { Stack } from '../../support/stack';

/** How the scripted scraper treats a student id. */
export type ScraperMode =
  /** Writes the result and calls back SUCCEEDED. */
  | 'auto'
  /** Writes the result, does not call back (the test does). */
  | 'manual'
  /** Fails PORTAL_CREDENTIALS_INVALID (non-retryable), like a wrong password. */
  | 'wrong-password'
  /** Waits until released (`release(studentId)`), then behaves as `auto`. */
  | 'hold';

/** A running scripted scraper. */
export interface ScriptedScraper {
  modes: Map<string, ScraperMode>;
  /** Passwords the scraper was given, per job id. */
  passwords: Map<string, string>;
  /** Calls per job id. */
  calls: Map<string, number>;
  release(studentId: string): void;
  stop(): Promise<void>;
}

/** Starts the scripted scraper on the stack's `portal` queue; unknown student ids are `auto`. */
export async function startScriptedScraper(stack: Stack, store: S3ObjectStore): Promise<ScriptedScraper> {
  const modes = new Map<string, ScraperMode>();
  const passwords = new Map<string, string>();
  const calls = new Map<string, number>();
  const holds = new Map<string, () => void>();
  const held = new Map<string, Promise<void>>();
  const gate = (studentId: string) => {
    if (!held.has(studentId)) held.set(studentId, new Promise<void>((resolve) => holds.set(studentId, resolve)));
    return held.get(studentId)!;
  };
  const { prefix } = stack.config.objectStore;
  const secret = stack.config.portal.callbackSecrets[0]!;
  const activities = {
    async scrapePortal(input: ScrapePortalInput): Promise<ScrapePortalOutput> {
      calls.set(input.jobId, (calls.get(input.jobId) ?? 0) + 1);
      passwords.set(input.jobId, input.password);
      const mode = modes.get(input.studentId) ?? 'auto';
      if (mode === 'wrong-password') {
        throw ApplicationFailure.create({ message: 'the portal rejected the credentials', type: 'PORTAL_CREDENTIALS_INVALID', nonRetryable: true, details: [{ code: 'PORTAL_CREDENTIALS_INVALID' }] });
      }
      if (mode === 'hold') await gate(input.studentId);
      const attempt = Context.current().info.attempt;
      const key = portalResultKey(prefix, input.jobId, attempt);
      const body = Buffer.from(JSON.stringify(snakeizeKeys(scrapeResult(input.studentId, new Date().toISOString()))));
      const { sha256 } = await store.put(key, body, 'application/json');
      if (mode !== 'manual') {
        const res = await postCallback(stack, successBody(stack, input.jobId, key, sha256), { secret, attempt });
        if (res.statusCode !== 202) throw new Error(`callback answered ${res.statusCode} ${res.body}`);
      }
      return { resultKey: key, sha256, attempt };
    },
  };
  const connection = await NativeConnection.connect({ address: stack.config.temporal.address });
  const worker = await Worker.create({
    connection,
    taskQueue: ownTaskQueue(PORTAL_QUEUE, stack.config.temporal.taskQueuePrefix),
    activities,
    dataConverter: testDataConverter(),
  });
  const done = worker.run();
  return {
    modes, passwords, calls,
    release: (studentId) => {
      void gate(studentId);
      holds.get(studentId)?.();
    },
    async stop() {
      for (const resolve of holds.values()) resolve();
      worker.shutdown();
      await done;
      await connection.close();
    },
  };
}

/** The snake_case JSON text of a success callback. */
export function successBody(stack: Stack, jobId: string, key: string, sha256: string | null): string {
  return JSON.stringify({ job_id: jobId, status: 'SUCCEEDED', result_s3_bucket: stack.config.objectStore.bucket, result_s3_key: key, result_sha256: sha256, scraped_at: new Date().toISOString() });
}

/** Posts `raw` to the callback route signed with `secret` (default the first configured) at `nowSeconds`. */
export function postCallback(stack: Stack, raw: string, opts: { secret?: string; attempt?: number; nowSeconds?: number; headers?: Record<string, string>; sendBody?: string } = {}) {
  const headers = signedCallbackHeaders(opts.secret ?? stack.config.portal.callbackSecrets[0]!, raw, { attempt: opts.attempt, nowSeconds: opts.nowSeconds, requestId: `req-${randomUUID()}` });
  return stack.app.inject({ method: 'POST', url: '/internal/scrape-results', headers: { ...headers, ...opts.headers }, payload: opts.sendBody ?? raw });
}

/** `POST /portal/link`. */
export function postLink(stack: Stack, auth: { authorization: string }, key: string | undefined, body: object) {
  return stack.app.inject({ method: 'POST', url: '/portal/link', headers: { ...auth, ...(key === undefined ? {} : { 'idempotency-key': key }) }, payload: body });
}

/** A job as GET shows it. */
export interface JobView {
  jobId: string;
  kind: string;
  status: string;
  errorCode: string | null;
  errorMessage: string | null;
  resultCode: string | null;
  startedAt: string | null;
  finishedAt: string | null;
}

/** `GET /portal/link/jobs/{id}` (throws unless 200). */
export async function getJob(stack: Stack, auth: { authorization: string }, id: string): Promise<JobView> {
  const res = await stack.app.inject({ method: 'GET', url: `/portal/link/jobs/${id}`, headers: auth });
  if (res.statusCode !== 200) throw new Error(`GET portal link job ${id}: ${res.statusCode} ${res.body}`);
  return res.json() as JobView;
}

/** Waits until the job's status is one of `statuses` (default SUCCEEDED or FAILED). */
export function waitForJob(stack: Stack, auth: { authorization: string }, id: string, statuses: readonly string[] = ['SUCCEEDED', 'FAILED'], timeoutMs = 45_000) {
  return pollUntil(() => getJob(stack, auth, id), (j) => statuses.includes(j.status), { describe: `portal link job ${id} to be ${statuses.join(' or ')}`, timeoutMs, maxIntervalMs: 300 });
}
