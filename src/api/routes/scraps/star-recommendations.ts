/** `POST|GET /github-star-recommendations` (SAN-12). */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { requestStarRecommendation } from '../../../services/scraps/star-recommendations';
import type { SanRouteDeps } from './deps';
import { ProblemSchema, problemResponse } from '../../problem';
import { REQUEST_WEBHOOK_RULES, RequestWebhookField } from '../../schemas';
import { SAN_ERRORS } from '../../../domain/scraps/errors';
import { notFound } from '../../../core/errors';
import { statusLink } from '../../openapi';

const Accepted = z.object({ jobId: z.uuid(), targetId: z.uuid() }).meta({ id: 'StarRecommendationAccepted' });

const Item = z.object({
  rank: z.number().int(),
  fullName: z.string().describe('owner/name'),
  htmlUrl: z.string(),
  description: z.string().nullable(),
  language: z.string().nullable(),
  stars: z.number().int(),
  topics: z.array(z.string()),
  score: z.number().describe('relevance + log-stars prior (at most 0.05)'),
  relevance: z.number().describe('0.7 × max cosine similarity to a card + 0.3 × mean of the top 3'),
  reasons: z.array(z.object({ cardId: z.uuid(), title: z.string(), similarity: z.number() })).describe('best-matching knowledge cards'),
});

const Recommendations = z
  .object({
    recommendationId: z.uuid(),
    jobId: z.uuid(),
    starredCount: z.number().int().describe('starred repositories analysed'),
    createdAt: z.iso.datetime(),
    totalItems: z.number().int(),
    items: z.array(Item),
  })
  .meta({ id: 'StarRecommendations' });

/** SAN-12 routes; the target of the job is the caller's user id (one active job per user, SAN-2). */
export const starRecommendationRoutes: FastifyPluginAsyncZod<SanRouteDeps> = async (app, deps) => {
  app.post(
    '/github-star-recommendations',
    {
      links: { 202: { GetRecommendationJob: statusLink('GET /async-jobs/:jobId', { jobId: '$response.body#/jobId' }, 'the recommendation job (SAN-5 status)') } },
      schema: {
        tags: ['github'],
        summary: "Recommend the caller's starred GitHub repositories that fit their knowledge cards",
        description:
          'Enqueues GITHUB_STAR_RECOMMENDATION (target: the user id). 400 GITHUB_ACCOUNT_NOT_LINKED without a linked ' +
          'account; 409 DUPLICATE_RESOURCE while one is PENDING or PROCESSING (Location: that job). The body is optional (none, or JSON null, is no webhook).',
        body: z
          .strictObject({
            webhook: RequestWebhookField.describe(
              `${REQUEST_WEBHOOK_RULES}. It receives the terminal event (async_job.completed or async_job.failed) of the ` +
                'GITHUB_STAR_RECOMMENDATION job of the 202. A request answered 409 DUPLICATE_RESOURCE (a job of yours is ' +
                'already active) keeps no webhook and gets no delivery: poll or name the URL on that job\'s next request',
            ),
          })
          .nullish() // fastify validates a request without a body as null
          .meta({ examples: [{}, { webhook: 'https://hooks.example.com/durable-jobs' }] }),
        response: {
          202: Accepted,
          400: problemResponse('GITHUB_ACCOUNT_NOT_LINKED, VALIDATION_FAILED, MALFORMED_JSON or WEBHOOK_URL_REFUSED (a `webhook` URL the destination rules refuse); nothing is written'),
          401: ProblemSchema,
          409: problemResponse('DUPLICATE_RESOURCE (a recommendation job of yours is active; Location: that job) or WEBHOOK_SIGNING_SECRET_MISSING (a `webhook` without a signing secret); nothing is written'),
        },
      },
    },
    async (req, reply) => {
      const services = { db: deps.db, starter: deps.starter, log: req.log, destinations: { allowPrivate: deps.config.webhooks.allowPrivateUrls } };
      const { job, created } = await requestStarRecommendation(services, req.userId, req.body?.webhook);
      reply.header('location', `/async-jobs/${job.jobId}`);
      if (!created) {
        throw SAN_ERRORS.problem('DUPLICATE_RESOURCE', `star recommendation job ${job.jobId} is already ${job.status}`);
      }
      reply.code(202);
      return { jobId: job.jobId, targetId: job.targetId };
    },
  );

  app.get(
    '/github-star-recommendations',
    {
      schema: {
        tags: ['github'],
        summary: 'The latest completed star recommendations of the caller, best first',
        querystring: z.object({ limit: z.coerce.number().int().min(1).max(1000).default(20) }),
        response: { 200: Recommendations, 400: ProblemSchema, 401: ProblemSchema, 404: ProblemSchema },
      },
    },
    async (req) => {
      const row = await deps.db.githubStarRecommendation.findFirst({ where: { userId: req.userId }, orderBy: { createdAt: 'desc' } });
      if (!row) throw notFound('star recommendations');
      const items = Array.isArray(row.items) ? (row.items as unknown as z.infer<typeof Item>[]) : [];
      return {
        recommendationId: row.id,
        jobId: row.jobId,
        starredCount: row.starredCount,
        createdAt: row.createdAt.toISOString(),
        totalItems: items.length,
        items: items.slice(0, req.query.limit),
      };
    },
  );
};
