/**
 * `GET /async-jobs/{jobId}` (SAN-5) on the hot path: the async_jobs resource of the shared long
 * poll (src/api/long-poll.ts). The job is read over `pg` (src/db/hot-reads.ts), the owner only
 * (another user's job is 404, whatever the headers); its ETag is `"<status>.<updated_at ms, base 36>"`;
 * the change feed listens on `async_jobs` (migration `20261201120000_async_jobs_status_notify`).
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyRouteSchemaDef } from 'fastify/types/schema';
import { serializerCompiler } from 'fastify-type-provider-zod';
import { jobVersionTag, type HotReads, type JobStatusRow } from '../../../db/hot-reads';
import type { ChangeSource } from '../../../db/job-changes';
import { entityTag } from '../../conditional';
import { answerLongPoll, LongPollHeaders } from '../../long-poll';
import type { ApiDeps } from '../../deps';
import { notFound } from '../../../core/errors';
import type { JobResultCode } from '../../../core/contracts';

/** Request headers of the poll (documented in OpenAPI). */
export const JobPollHeaders = LongPollHeaders;

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

/** The ETag of a job state. */
const jobEtag = (row: { status: string; updatedAt: Date }) => entityTag(jobVersionTag(row));

/** The change source of async_jobs: channel `async_jobs`, versions by the hot reads. */
export function asyncJobChangeSource(reads: HotReads): ChangeSource {
  return {
    channel: 'async_jobs',
    async versions(ids) {
      const rows = await reads.jobVersions(ids);
      return new Map([...rows].map(([id, v]) => [id, jobEtag(v)]));
    },
  };
}

const sources = new WeakMap<HotReads, ChangeSource>();

/** Handles `GET /async-jobs/{jobId}`: 200 with the job, or 304 (src/api/long-poll.ts). */
export async function answerJobPoll(
  deps: ApiDeps,
  req: Pick<FastifyRequest, 'userId' | 'headers'> & { params: { jobId: string } },
  reply: FastifyReply,
): Promise<ReturnType<typeof body> | FastifyReply> {
  const { jobId } = req.params;
  const { reads } = deps.hot;
  let source = sources.get(reads);
  if (!source) sources.set(reads, (source = asyncJobChangeSource(reads)));
  return answerLongPoll(deps, req.headers, reply, {
    source,
    id: jobId,
    read: () => reads.jobForOwner(jobId, req.userId),
    etag: jobEtag,
    body,
    notFound: () => notFound(`job ${jobId}`),
  });
}
