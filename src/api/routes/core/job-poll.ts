/**
 * `GET /async-jobs/{jobId}` (SAN-5) on the hot path, with conditional GET and long polling:
 * - the job is read over `pg` (src/db/hot-reads.ts), the owner only (another user's job is 404,
 *   whatever the headers);
 * - every 200 carries `ETag: "<status>.<updated_at ms, base 36>"`;
 * - `If-None-Match` matching the current ETag (or `*`) → 304 Not Modified with no body;
 * - `Prefer: wait=<s>` (RFC 7240) with a matching `If-None-Match`: the request waits, at most
 *   JOB_WAIT_MAX_SECONDS, until the job changes (200 with the new state) or the wait ends (304);
 *   either answer says `Preference-Applied: wait=<granted seconds>`. A stale or absent
 *   `If-None-Match` answers at once (the client has not seen the current state), without
 *   Preference-Applied; so does `*`. When JOB_WAIT_MAX_WAITERS long polls are already waiting
 *   the answer is 503 SERVICE_UNAVAILABLE with Retry-After. A client that disconnects ends its wait.
 */
import { performance } from 'node:perf_hooks';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyRouteSchemaDef } from 'fastify/types/schema';
import { serializerCompiler } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { jobVersionTag, type JobStatusRow } from '../../../db/hot-reads';
import { entityTag, ifNoneMatchIsWildcard, ifNoneMatchMatches, preferredWaitSeconds } from '../../conditional';
import type { ApiDeps } from '../../deps';
import { CORE_ERRORS, notFound } from '../../../core/errors';
import type { JobResultCode } from '../../../core/contracts';

/** Request headers of the poll (documented in OpenAPI; other headers pass through untouched). */
export const JobPollHeaders = z.looseObject({
  prefer: z.string().optional().meta({
    description:
      'RFC 7240. `wait=<seconds>` with a matching If-None-Match: wait until the job changes, at most the server cap ' +
      '(JOB_WAIT_MAX_SECONDS, default 30). Other preferences are ignored.',
    example: 'wait=30',
  }),
  'if-none-match': z.string().optional().meta({
    description: 'The ETag of the state the client has seen. Matching → 304 (at once, or after the wait).',
    example: '"PROCESSING.mip3k0l4"',
  }),
});

/** OpenAPI response headers of the poll. */
const ETAG_HEADER = { type: 'string', description: 'Entity tag of the job state (status and updated_at); send it back as If-None-Match.' };
const PREFERENCE_APPLIED = { type: 'string', description: 'Present when the request waited: `wait=<granted seconds>`.' };
/** Header descriptions for the 200 answer (OpenAPI metadata; no effect on serialisation). */
export const JOB_POLL_200_HEADERS = { ETag: ETAG_HEADER, 'Preference-Applied': PREFERENCE_APPLIED };

/** The 304 answer: no body (OpenAPI: `type: null`, with its headers). */
export const NotModifiedSchema = z.null().meta({
  description: 'Not Modified: the job is still in the state of If-None-Match (at once, or at the end of the wait).',
  headers: { ETag: ETAG_HEADER, 'Preference-Applied': PREFERENCE_APPLIED },
});

/**
 * Route-level serializer of the poll: the 200 body is {@link body}, built field by field from the
 * typed row of src/db/hot-reads.ts, so plain `JSON.stringify` writes exactly what the zod
 * serializer writes after checking it against AsyncJobSchema; that check (two UUID and two
 * date-time patterns per answer) costs about 3 % of the API's CPU on its most frequent request.
 * Every other status keeps the zod serializer.
 */
export function jobPollSerializerCompiler<S>(route: FastifyRouteSchemaDef<S>): (data: unknown) => string {
  return String(route.httpStatus) === '200' ? (data) => JSON.stringify(data) : serializerCompiler(route as Parameters<typeof serializerCompiler>[0]);
}

/** The SAN-5 body of a job row. */
function body(job: JobStatusRow) {
  return {
    jobId: job.jobId,
    jobType: job.jobType,
    targetId: job.targetId,
    status: job.status,
    errorMessage: job.errorMessage,
    resultCode: job.resultCode as JobResultCode | null,
    createdAt: job.createdAt.toISOString(),
    updatedAt: job.updatedAt.toISOString(),
  };
}

/**
 * Waits until the job's version tag differs from `seenTag`, `ms` have passed, the client went away
 * or the app is closing; returns the job as read last (null: it does not exist for this user).
 * @throws DomainError unavailable (503) when the process's waiter bound is reached.
 */
async function waitForChange(deps: ApiDeps, jobId: string, userId: string, seenTag: string, ms: number, signal: AbortSignal): Promise<JobStatusRow | null> {
  const { reads, changes } = deps.hot;
  const deadline = performance.now() + ms;
  let woken = false;
  let wake: (() => void) | undefined;
  const off = changes.subscribe(jobId, seenTag, () => {
    woken = true;
    wake?.();
  });
  if (!off) {
    throw CORE_ERRORS.problem('SERVICE_UNAVAILABLE', 'too many long polls are waiting; retry shortly');
  }
  try {
    // Read again after subscribing: a change between the first read and the subscription is seen here.
    let row = await reads.jobForOwner(jobId, userId);
    while (row && jobVersionTag(row) === seenTag && !signal.aborted && !changes.draining()) {
      const left = deadline - performance.now();
      if (left <= 0) break;
      if (!woken) {
        await new Promise<void>((resolve) => {
          const done = () => {
            clearTimeout(timer);
            signal.removeEventListener('abort', done);
            wake = undefined;
            resolve();
          };
          const timer = setTimeout(done, left);
          wake = done;
          signal.addEventListener('abort', done, { once: true });
        });
      }
      woken = false;
      // Woken (the job may have changed) or the wait is over: what the client gets is read now.
      if (!signal.aborted) row = await reads.jobForOwner(jobId, userId);
    }
    return row;
  } finally {
    off();
  }
}

/** Handles `GET /async-jobs/{jobId}`: 200 with the job, or 304 (see the module comment). */
export async function answerJobPoll(
  deps: ApiDeps,
  req: Pick<FastifyRequest, 'userId' | 'headers'> & { params: { jobId: string } },
  reply: FastifyReply,
): Promise<ReturnType<typeof body> | FastifyReply> {
  const { jobId } = req.params;
  let job = await deps.hot.reads.jobForOwner(jobId, req.userId);
  if (!job) throw notFound(`job ${jobId}`);
  const ifNoneMatch = req.headers['if-none-match'];
  const wanted = preferredWaitSeconds(req.headers.prefer);
  const cap = deps.config.api.jobWait.maxSeconds;
  if (wanted !== undefined && wanted > 0 && cap > 0 && !ifNoneMatchIsWildcard(ifNoneMatch) && ifNoneMatchMatches(ifNoneMatch, entityTag(jobVersionTag(job)))) {
    const granted = Math.min(wanted, cap);
    const gone = new AbortController();
    const onClose = () => {
      if (!reply.raw.writableEnded) gone.abort();
    };
    reply.raw.once('close', onClose);
    try {
      job = await waitForChange(deps, jobId, req.userId, jobVersionTag(job), granted * 1000, gone.signal);
    } finally {
      reply.raw.removeListener('close', onClose);
    }
    if (!job) throw notFound(`job ${jobId}`);
    reply.header('Preference-Applied', `wait=${granted}`);
  }
  const etag = entityTag(jobVersionTag(job));
  reply.header('ETag', etag).header('Cache-Control', 'private, no-cache');
  if (ifNoneMatchMatches(ifNoneMatch, etag)) return reply.code(304).send();
  return body(job);
}
