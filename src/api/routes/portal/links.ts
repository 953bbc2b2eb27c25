/**
 * `POST /portal/link` (PO-1) and the job reads `GET /portal/link/jobs/{jobId}`, `/summary`,
 * `/duration` (PO-4). Bearer-authenticated; another user's job answers 404 (it does not exist for you).
 */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { idempotencyKeyOf } from '../../../core/idempotency';
import {
  pollingEndpoint,
  portalJobDuration,
  readPortalJobSummary,
  readPortalLinkJob,
  requestPortalLink,
  type PortalLinkDeps,
} from '../../../services/portal/links';
import { portalLinkJobChangeSource } from '../../../services/portal/job-changes';
import { portalLinkJobEtag } from '../../../domain/portal/etag';
import { PO_ERRORS } from '../../../domain/portal/errors';
import { answerLongPoll, LONG_POLL_DESCRIPTION, LongPollHeaders, longPollResponses, type LongPollDeps } from '../../long-poll';
import { ProblemSchema } from '../../problem';
import { Uuid } from '../../schemas';
import {
  jsonWith,
  PO_EXAMPLES,
  PortalIdempotencyHeaders,
  PortalJobDurationSchema,
  PortalLinkAcceptedSchema,
  PortalLinkBodySchema,
  PortalLinkJobSchema,
  portalLinkJobView,
  PortalStudentSummarySchema,
  problemWith,
} from './schemas';
import { statusLink } from '../../openapi';

/** What the link routes need: the link commands' deps and the change feed of the job's long poll. */
export type PortalLinkRouteDeps = Omit<PortalLinkDeps, 'log'> & Pick<LongPollDeps, 'hot'>;

/** Registers the link routes. */
export const portalLinkRoutes: FastifyPluginAsyncZod<PortalLinkRouteDeps> = async (app, deps) => {
  const JobParams = z.object({ jobId: Uuid });
  const changes = portalLinkJobChangeSource(deps.db);

  app.post(
    '/portal/link',
    {
      links: { 202: { GetLinkJob: statusLink('GET /portal/link/jobs/:jobId', { jobId: '$response.body#/jobId' }, 'the link job (PO-4)'), GetLinkJobSummary: statusLink('GET /portal/link/jobs/:jobId/summary', { jobId: '$response.body#/jobId' }, 'the student summary of the job'), GetLinkJobDuration: statusLink('GET /portal/link/jobs/:jobId/duration', { jobId: '$response.body#/jobId' }, 'the durations of the job') } },
      schema: {
        tags: ['portal'],
        summary: 'Link (or refresh) a university portal account (PO-1, Idempotency-Key required)',
        description:
          'Answers 202 with the job and its polling endpoint. LINK when you have no link to this portal yet, REFRESH otherwise; ' +
          'a REFRESH needs the password again (it is never stored). The same Idempotency-Key, portal type and student id answer ' +
          'the same job (the password is not part of the comparison); the same key with another portal type or student id → ' +
          '409 IDEMPOTENCY_KEY_CONFLICT (C07). While a link job of yours for this portal is QUEUED, RUNNING or POST_PROCESSING, ' +
          'a request under another key → 409 PORTAL_LINK_JOB_ACTIVE naming that job. Unknown portal type → 400 PORTAL_TYPE_UNSUPPORTED.',
        headers: PortalIdempotencyHeaders,
        body: PortalLinkBodySchema,
        response: {
          202: jsonWith(PortalLinkAcceptedSchema, 'Accepted: the job (QUEUED, or its state now on a replay)', PO_EXAMPLES.accepted),
          400: ProblemSchema,
          401: ProblemSchema,
          409: problemWith(ProblemSchema, 'PORTAL_LINK_JOB_ACTIVE (with the extension members activeJobId, activeJobStatus, pollingEndpoint), IDEMPOTENCY_KEY_CONFLICT (C07), IDEMPOTENCY_KEY_IN_PROGRESS or WEBHOOK_SIGNING_SECRET_MISSING (a `webhook` without a signing secret)', {
            active: PO_EXAMPLES.problems.active,
            keyConflict: PO_EXAMPLES.problems.keyConflict,
          }),
        },
      },
    },
    async (req, reply) => {
      const key = idempotencyKeyOf(req.headers);
      const r = await requestPortalLink({ ...deps, log: req.log }, req.userId, key, req.body);
      return reply
        .code(r.statusCode as 202)
        .header('Location', pollingEndpoint(r.job.id))
        .send({ jobId: r.job.id, status: 'accepted' as const, kind: r.job.kind, pollingEndpoint: pollingEndpoint(r.job.id) });
    },
  );

  app.get(
    '/portal/link/jobs/:jobId',
    {
      schema: {
        tags: ['portal'],
        summary: 'A link job: status, error code and message (PO-4; long polling with Prefer: wait and If-None-Match)',
        description:
          'PO-2 status QUEUED, RUNNING, POST_PROCESSING, SUCCEEDED or FAILED (with a stable errorCode). Another user\'s job → 404. ' +
          'The ETag is the job status and updated_at. ' + LONG_POLL_DESCRIPTION,
        params: JobParams,
        headers: LongPollHeaders,
        response: longPollResponses(jsonWith(PortalLinkJobSchema, 'The job', PO_EXAMPLES.job)),
      },
    },
    async (req, reply) => {
      const { jobId } = req.params;
      return answerLongPoll(deps, req.headers, reply, {
        source: changes,
        id: jobId,
        read: () => readPortalLinkJob(deps.db, req.userId, jobId, deps.replays?.reads),
        etag: portalLinkJobEtag,
        body: portalLinkJobView,
        notFound: () => PO_ERRORS.problem('NOT_FOUND', `portal link job ${jobId} not found`),
      });
    },
  );

  app.get(
    '/portal/link/jobs/:jobId/summary',
    {
      schema: {
        tags: ['portal'],
        summary: "The student summary of a SUCCEEDED job (PO-4)",
        description: 'Only when the job SUCCEEDED; before that (or when it FAILED) → 409 PORTAL_LINK_JOB_NOT_SUCCEEDED with its current status in `jobStatus`.',
        params: JobParams,
        response: {
          200: PortalStudentSummarySchema,
          401: ProblemSchema,
          404: ProblemSchema,
          409: problemWith(ProblemSchema, 'PORTAL_LINK_JOB_NOT_SUCCEEDED (with the extension members jobStatus, errorCode)', { notSucceeded: PO_EXAMPLES.problems.notSucceeded }),
        },
      },
    },
    async (req, reply) => {
      const { job, summary } = await readPortalJobSummary(deps.db, req.userId, req.params.jobId);
      return reply.send({ jobId: job.id, summary });
    },
  );

  app.get(
    '/portal/link/jobs/:jobId/duration',
    {
      schema: {
        tags: ['portal'],
        summary: 'When a link job started and ended, and how long each phase took (PO-4)',
        params: JobParams,
        response: { 200: PortalJobDurationSchema, 401: ProblemSchema, 404: ProblemSchema },
      },
    },
    async (req, reply) => {
      const job = await readPortalLinkJob(deps.db, req.userId, req.params.jobId);
      return reply.header('Cache-Control', 'no-cache').send(portalJobDuration(job));
    },
  );
};
