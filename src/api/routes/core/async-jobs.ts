/** `GET /async-jobs/{jobId}` (SAN-5) and `POST /async-jobs/{jobId}/retry` (SAN-6). */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { startOrUndo, workflowStartUnavailable } from '../../../core/after-commit';
import { requeueFailedJob, restoreFailedJob } from '../../../core/retry';
import { JobType } from '@prisma/client';
import type { ApiDeps } from '../../deps';
import { ProblemSchema } from '../../problem';
import { AsyncJobSchema, Uuid } from '../../schemas';
import { answerJobPoll, jobPollSerializerCompiler, JobPollHeaders } from './job-poll';
import { longPollResponses } from '../../long-poll';
import { CORE_ERRORS, notFound } from '../../../core/errors';
import { statusLink } from '../../openapi';

/** SAN-6 answer of a retry: the same job, PENDING again, with its re-run count. */
const RetriedJobSchema = z
  .object({
    jobId: z.uuid(),
    jobType: z.enum(JobType),
    targetId: z.uuid(),
    status: z.literal('PENDING'),
    retryCount: z.number().int(),
    maxRetries: z.number().int(),
  })
  .meta({ id: 'RetriedJob' });

/** SAN-5 status poll (with ETag and long polling: ./job-poll.ts); the owner only (another user's job is a 404). */
export const asyncJobRoutes: FastifyPluginAsyncZod<ApiDeps> = async (app, deps) => {
  app.get(
    '/async-jobs/:jobId',
    {
      links: { 200: { RetryJob: statusLink('POST /async-jobs/:jobId/retry', { jobId: '$response.body#/jobId' }, 'once FAILED: re-run the job (SAN-6)') } },
      schema: {
        tags: ['jobs'],
        summary: 'Poll an async job (long polling with Prefer: wait and If-None-Match)',
        description:
          'Every answer carries an ETag of the job state. If-None-Match with the current ETag → 304. Add `Prefer: wait=<s>` ' +
          '(RFC 7240, capped at JOB_WAIT_MAX_SECONDS) to wait until the job changes: 200 with the new state as soon as it ' +
          'does, 304 at the end of the wait, both with `Preference-Applied: wait=<s>`. A stale or absent If-None-Match ' +
          'answers at once. 503 with Retry-After when the server holds its maximum of waiting requests.',
        params: z.object({ jobId: Uuid }),
        headers: JobPollHeaders,
        response: longPollResponses(AsyncJobSchema, [400, 401, 404, 503]),
      },
      serializerCompiler: jobPollSerializerCompiler,
    },
    async (req, reply) => answerJobPoll(deps, req, reply),
  );

  app.post(
    '/async-jobs/:jobId/retry',
    {
      links: { 202: { GetRetriedJob: statusLink('GET /async-jobs/:jobId', { jobId: '$response.body#/jobId' }, 'the retried job') } },
      schema: {
        tags: ['jobs'],
        summary: 'Re-run a FAILED job (SAN-6; counts toward the re-run limit)',
        description:
          'FAILED → PENDING with retryCount + 1, then the job workflow starts again. 409 JOB_NOT_RETRYABLE when the job is ' +
          'not FAILED or a newer job of the same target exists; 409 RETRY_LIMIT_REACHED at RECOVERY_MAX_RETRIES re-runs. ' +
          '503 WORKFLOW_START_UNAVAILABLE (Retry-After) when Temporal cannot start it: the job is FAILED as before, retry the ' +
          'request later; 503 WORKFLOW_START_UNDECIDED (Retry-After) when Temporal did not answer: the job stays PENDING and ' +
          'its start is settled in the background.',
        params: z.object({ jobId: Uuid }),
        response: { 202: RetriedJobSchema, 400: ProblemSchema, 401: ProblemSchema, 404: ProblemSchema, 409: ProblemSchema, 503: ProblemSchema },
      },
    },
    async (req, reply) => {
      const owned = await deps.db.asyncJob.findFirst({ where: { jobId: req.params.jobId, userId: req.userId }, select: { jobId: true } });
      if (!owned) throw notFound(`job ${req.params.jobId}`);
      const maxRetries = deps.config.recovery.maxRetries;
      const r = await requeueFailedJob(deps.db, owned.jobId, maxRetries, deps.targets);
      switch (r.outcome) {
        case 'not-found':
          throw notFound(`job ${req.params.jobId}`);
        case 'not-failed':
          throw CORE_ERRORS.problem('JOB_NOT_RETRYABLE', `job is ${r.job.status}; only a FAILED job can be retried`);
        case 'target-closed':
          throw CORE_ERRORS.problem('JOB_NOT_RETRYABLE', r.hint ?? 'its target is closed; make a new request for it');
        case 'superseded':
          throw CORE_ERRORS.problem('JOB_NOT_RETRYABLE', `job ${r.supersededBy} of the same target is active or newer`);
        case 'limit-reached':
          throw CORE_ERRORS.problem('RETRY_LIMIT_REACHED', `job was already re-run ${r.job.retryCount} of ${maxRetries} times`);
        case 'requeued':
          break;
      }
      const { job, previous } = r;
      await startOrUndo(req.log, [{ ids: { jobId: job.jobId, jobType: job.jobType }, start: () => deps.starter.start(job) }], () => restoreFailedJob(deps.db, job, previous, deps.targets), {
        problem: () => workflowStartUnavailable('Temporal is unavailable: the job was not re-run and is FAILED as before; retry the request after Retry-After'),
      });
      reply.code(202).header('location', `/async-jobs/${r.job.jobId}`);
      return { jobId: r.job.jobId, jobType: r.job.jobType, targetId: r.job.targetId, status: 'PENDING' as const, retryCount: r.job.retryCount, maxRetries };
    },
  );
};
