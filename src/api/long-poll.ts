/**
 * The conditional GET and long poll of a job or run resource (`GET /async-jobs/{id}`,
 * `GET /api/v1/ai-runs/{id}`, `GET /portal/link/jobs/{id}`, … : one contract for all):
 * - every 200 carries the resource's `ETag` (its row version), `Cache-Control: private, no-cache`
 *   and `Vary: Prefer`;
 * - `If-None-Match` matching the current ETag (or `*`) → 304 Not Modified with no body;
 * - `Prefer: wait=<s>` (RFC 7240) with a matching `If-None-Match`: the request waits, at most
 *   JOB_WAIT_MAX_SECONDS, until the row changes (200 with the new representation) or the wait
 *   ends (304); either answer says `Preference-Applied: wait=<granted seconds>`. A stale or absent
 *   `If-None-Match` answers at once (the client has not seen the current state), without
 *   Preference-Applied; so does `*`. When JOB_WAIT_MAX_WAITERS long polls are already waiting the
 *   answer is 503 SERVICE_UNAVAILABLE with Retry-After. A client that disconnects ends its wait.
 * The resource's `read` decides who sees the row (another user's or tenant's row is 404, whatever
 * the headers); the wait is driven by the process's change feed (src/db/job-changes.ts) over the
 * resource's {@link ChangeSource}.
 */
import { performance } from 'node:perf_hooks';
import type { FastifyReply } from 'fastify';
import { z } from 'zod';
import type { ChangeSource } from '../db/job-changes';
import { CORE_ERRORS } from '../core/errors';
import { DomainError } from '../core/domain-error';
import type { CoreConfig } from '../config';
import type { HotPath } from './hot-path';
import { ProblemSchema } from './problem';
import { ifNoneMatchIsWildcard, ifNoneMatchMatches, preferredWaitSeconds } from './conditional';

/** One pollable resource as a route sees it for one request. */
export interface PollableResource<R, B> {
  /** The change feed source of the resource's table (its channel and version read). */
  source: ChangeSource;
  /** The row id (the path parameter). */
  id: string;
  /** The row as the caller may see it; null, or a thrown not-found error, when it does not exist for them. */
  read(): Promise<R | null>;
  /** The row's strong entity tag, quoted: the one {@link ChangeSource.versions} reads for it. */
  etag(row: R): string;
  /** The 200 body of the row. */
  body(row: R): B;
  /** The error of a row that does not exist for the caller (404). */
  notFound(): Error;
}

/** What the poll needs of the API's deps. */
export interface LongPollDeps {
  config: CoreConfig;
  hot: Pick<HotPath, 'changes'>;
}

/** Request headers of a pollable GET (OpenAPI; other headers pass through untouched). */
export const LongPollHeaders = z.looseObject({
  prefer: z.string().optional().meta({
    description:
      'RFC 7240. `wait=<seconds>` with a matching If-None-Match: wait until the resource changes, at most the server cap ' +
      '(JOB_WAIT_MAX_SECONDS, default 30). Other preferences are ignored.',
    example: 'wait=30',
  }),
  'if-none-match': z.string().optional().meta({
    description: 'The ETag of the state the client has seen. Matching → 304 (at once, or after the wait).',
  }),
});

const ETAG_HEADER = { type: 'string', description: 'Entity tag of the current state (the row version); send it back as If-None-Match.' };
const PREFERENCE_APPLIED = { type: 'string', description: 'Present when the request waited: `wait=<granted seconds>`.' };
const VARY = { type: 'string', description: '`Prefer`: a waited answer differs from an immediate one.' };

/** Header descriptions of a pollable GET's 200 (OpenAPI metadata; no effect on serialisation). */
export const LONG_POLL_200_HEADERS = { ETag: ETAG_HEADER, 'Preference-Applied': PREFERENCE_APPLIED, Vary: VARY };

/** The 304 answer of a pollable GET: no body (OpenAPI: `type: null`, with its headers). */
export const NotModifiedSchema = z.null().meta({
  description: 'Not Modified: the resource is still in the state of If-None-Match (at once, or at the end of the wait).',
  headers: { ETag: ETAG_HEADER, 'Preference-Applied': PREFERENCE_APPLIED, Vary: VARY },
});

/** The problem statuses a pollable GET may declare (401 unauthenticated, 404 not visible, 503 waiter bound, 400 bad input). */
export type LongPollProblemStatus = 400 | 401 | 404 | 503;

/**
 * The OpenAPI `response` block of a pollable GET: `ok` as the 200 with {@link LONG_POLL_200_HEADERS}
 * (a zod schema gets them as metadata, a response object as its `headers`), the 304
 * {@link NotModifiedSchema}, and {@link ProblemSchema} for each of `problems` (default 401, 404, 503).
 */
export function longPollResponses<O extends object, P extends LongPollProblemStatus = 401 | 404 | 503>(
  ok: O,
  problems: readonly P[] = [401, 404, 503] as P[],
): { 200: O extends z.ZodType ? O : O & { headers: typeof LONG_POLL_200_HEADERS }; 304: typeof NotModifiedSchema } & Record<P, typeof ProblemSchema> {
  const okWithHeaders = ok instanceof z.ZodType ? ok.meta({ headers: LONG_POLL_200_HEADERS }) : { ...ok, headers: LONG_POLL_200_HEADERS };
  const out: Record<number, unknown> = { 200: okWithHeaders, 304: NotModifiedSchema };
  for (const status of problems) out[status] = ProblemSchema;
  return out as never;
}

/** The description sentence every pollable GET's OpenAPI operation ends with. */
export const LONG_POLL_DESCRIPTION =
  'Every answer carries an ETag (the row version). If-None-Match with the current ETag → 304. Add `Prefer: wait=<s>` ' +
  '(RFC 7240, capped at JOB_WAIT_MAX_SECONDS) to wait until it changes: 200 with the new state as soon as it does, 304 at ' +
  'the end of the wait, both with `Preference-Applied: wait=<s>`. A stale or absent If-None-Match answers at once. 503 ' +
  'with Retry-After when the server holds its maximum of waiting requests.';

/** `read`, with a thrown not-found as null (any other error propagates). */
async function readOrNull<R>(resource: PollableResource<R, unknown>): Promise<R | null> {
  try {
    return await resource.read();
  } catch (err) {
    if (err instanceof DomainError && err.code === 'NOT_FOUND') return null;
    throw err;
  }
}

/** A subscription to one row's changes (see {@link watchRow}). */
interface RowWatch {
  /** Resolves at once when a change may have happened since the subscription or the last call, else at the first change, after `ms`, or on abort. */
  next(ms: number, signal: AbortSignal): Promise<void>;
  off(): void;
}

/** Subscribes to the row's changes away from `seenTag`; null when the process's waiter bound is reached. */
function watchRow(deps: LongPollDeps, resource: Pick<PollableResource<unknown, unknown>, 'source' | 'id'>, seenTag: string): RowWatch | null {
  let woken = false;
  let wake: (() => void) | undefined;
  const off = deps.hot.changes.subscribe(resource.source, resource.id, seenTag, () => {
    woken = true;
    wake?.();
  });
  if (!off) return null;
  return {
    async next(ms, signal) {
      if (!woken) {
        await new Promise<void>((resolve) => {
          const done = () => {
            clearTimeout(timer);
            signal.removeEventListener('abort', done);
            wake = undefined;
            resolve();
          };
          const timer = setTimeout(done, ms);
          wake = done;
          signal.addEventListener('abort', done, { once: true });
        });
      }
      woken = false;
    },
    off,
  };
}

/**
 * Waits on `watch`, re-reading the row after each wake-up, until its entity tag differs from
 * `seenTag`, `ms` have passed, the client went away or the app is closing; returns the row as read
 * last (null: it does not exist for the caller). `row` is the row as read after the subscription.
 */
async function waitForChange<R>(deps: LongPollDeps, resource: PollableResource<R, unknown>, watch: RowWatch, row: R | null, seenTag: string, ms: number, signal: AbortSignal): Promise<R | null> {
  const deadline = performance.now() + ms;
  while (row && resource.etag(row) === seenTag && !signal.aborted && !deps.hot.changes.draining()) {
    const left = deadline - performance.now();
    if (left <= 0) break;
    await watch.next(left, signal);
    // Woken (the row may have changed) or the wait is over: what the client gets is read now.
    if (!signal.aborted) row = await readOrNull(resource);
  }
  return row;
}

/** The one entity tag an `If-None-Match` names (without `W/`), or undefined for a list, `*` or none. */
function singleTag(header: string | string[] | undefined): string | undefined {
  if (typeof header !== 'string') return undefined;
  const tag = header.trim();
  return tag === '' || tag === '*' || tag.includes(',') ? undefined : tag.replace(/^W\//, '');
}

/**
 * Answers a pollable GET: the body of the row (200), or a 304 sent on `reply` (see the module
 * comment). @throws the resource's not-found error (404); DomainError SERVICE_UNAVAILABLE (503).
 */
export async function answerLongPoll<R, B>(
  deps: LongPollDeps,
  headers: { 'if-none-match'?: string | string[]; prefer?: string | string[] },
  reply: FastifyReply,
  resource: PollableResource<R, B>,
): Promise<B | FastifyReply> {
  const ifNoneMatch = headers['if-none-match'];
  const wanted = preferredWaitSeconds(headers.prefer);
  const cap = deps.config.api.jobWait.maxSeconds;
  const granted = wanted !== undefined && wanted > 0 && cap > 0 && !ifNoneMatchIsWildcard(ifNoneMatch) ? Math.min(wanted, cap) : 0;
  const mayWait = granted > 0;
  reply.header('Vary', 'Prefer');
  // A request holding one tag subscribes before its first read: a change after that read wakes it,
  // so the read is not repeated after subscribing (one read fewer per wait). Any other subscribes
  // after the read that finds it current, then reads again.
  const held = mayWait ? singleTag(ifNoneMatch) : undefined;
  const early = held !== undefined ? watchRow(deps, resource, held) : null;
  try {
    let row = await readOrNull(resource);
    if (!row) throw resource.notFound();
    if (mayWait && ifNoneMatchMatches(ifNoneMatch, resource.etag(row))) {
      const seenTag = resource.etag(row);
      const watch = early ?? watchRow(deps, resource, seenTag);
      if (!watch) throw CORE_ERRORS.problem('SERVICE_UNAVAILABLE', 'too many long polls are waiting; retry shortly');
      const gone = new AbortController();
      const onClose = () => {
        if (!reply.raw.writableEnded) gone.abort();
      };
      reply.raw.once('close', onClose);
      try {
        // Subscribed after the first read: a change between the two is seen by this read.
        if (!early) row = await readOrNull(resource);
        row = await waitForChange(deps, resource, watch, row, seenTag, granted * 1000, gone.signal);
      } finally {
        reply.raw.removeListener('close', onClose);
        if (!early) watch.off();
      }
      if (!row) throw resource.notFound();
      reply.header('Preference-Applied', `wait=${granted}`);
    }
    const etag = resource.etag(row);
    reply.header('ETag', etag).header('Cache-Control', 'private, no-cache');
    if (ifNoneMatchMatches(ifNoneMatch, etag)) return reply.code(304).send();
    return resource.body(row);
  } finally {
    early?.off();
  }
}
