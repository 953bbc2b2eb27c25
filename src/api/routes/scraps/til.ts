/** `POST /til`, `GET /til?date=`, `GET /til/{summaryId}/recall-cards` (SAN-9). */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { similarityThresholdFor } from '../../../ai/embedding-models';
import { decodeEmbedding } from '../../../db/vectors';
import { latestJob } from '../../../core/projection';
import { JOB_STATUSES } from '../../../core/contracts';
import { requestTil } from '../../../services/scraps/til';
import { dateValue, isoDate } from '../../../services/scraps/til-sources';
import type { SanRouteDeps } from './deps';
import { ProblemSchema, problemResponse } from '../../problem';
import { REQUEST_WEBHOOK_RULES, RequestWebhookField } from '../../schemas';
import { Uuid } from '../../schemas';
import { SAN_ERRORS } from '../../../domain/scraps/errors';
import { notFound } from '../../../core/errors';
import { statusLink } from '../../openapi';

/** A calendar date `YYYY-MM-DD` (interpreted in the user's time zone). */
export const IsoDateSchema = z.iso
  .date({ message: 'must be a date YYYY-MM-DD' })
  .regex(/^(?!0000)/, 'must be a date from 0001-01-01 on');

const TilAccepted = z
  .object({ summaryId: z.uuid(), jobId: z.uuid(), targetId: z.uuid(), targetDate: IsoDateSchema })
  .meta({ id: 'TilAccepted' });

const DailySummarySchema = z
  .object({
    summaryId: z.uuid(),
    targetDate: IsoDateSchema,
    status: z.enum(JOB_STATUSES).nullable().describe('status of the latest TIL_GENERATION job'),
    jobId: z.uuid().nullable(),
    errorMessage: z.string().nullable(),
    title: z.string().nullable(),
    tilMarkdown: z.string().nullable(),
    sourceCardIds: z.array(z.uuid()),
    generatedAt: z.iso.datetime().nullable(),
  })
  .meta({ id: 'DailySummary' });

const RecallCardsSchema = z
  .object({
    summaryId: z.uuid(),
    matchedBy: z.enum(['threshold', 'fallback']),
    threshold: z.number(),
    cards: z.array(z.object({ cardId: z.uuid(), scrapId: z.uuid(), title: z.string(), distance: z.number() })),
  })
  .meta({ id: 'RecallCards' });

/** SAN-9 TIL routes, scoped to the caller's own summaries (another user's are 404). */
export const tilRoutes: FastifyPluginAsyncZod<SanRouteDeps> = async (app, deps) => {
  app.post(
    '/til',
    {
      links: { 202: { GetTilJob: statusLink('GET /async-jobs/:jobId', { jobId: '$response.body#/jobId' }, 'the TIL generation job (SAN-5 status)'), GetTilRecallCards: statusLink('GET /til/:summaryId/recall-cards', { summaryId: '$response.body#/summaryId' }, 'the recall cards of the TIL') } },
      schema: {
        tags: ['til'],
        summary: "Generate the TIL of a date (user's time zone) from that day's cards; enqueues TIL_GENERATION",
        body: z
          .strictObject({
            targetDate: IsoDateSchema,
            webhook: RequestWebhookField.describe(`${REQUEST_WEBHOOK_RULES}. It receives the terminal event (async_job.completed or async_job.failed) of the TIL_GENERATION job of the answer`),
          })
          .meta({ examples: [{ targetDate: '2026-11-30' }] }),
        response: {
          202: TilAccepted,
          400: problemResponse('VALIDATION_FAILED, MALFORMED_JSON (the failed checks in `errors`), TARGET_DATE_IN_FUTURE or WEBHOOK_URL_REFUSED (a `webhook` URL the destination rules refuse)'),
          401: ProblemSchema,
          409: problemResponse('DUPLICATE_RESOURCE (a TIL generation of yours is active) or WEBHOOK_SIGNING_SECRET_MISSING (a `webhook` without a signing secret)'),
          422: ProblemSchema,
        },
      },
    },
    async (req, reply) => {
      const services = { db: deps.db, starter: deps.starter, log: req.log, destinations: { allowPrivate: deps.config.webhooks.allowPrivateUrls } };
      const result = await requestTil(services, req.userId, req.body.targetDate, req.body.webhook);
      req.log.info({ summaryId: result.summaryId, jobId: result.jobId }, 'til requested');
      return reply.code(202).header('Location', `/async-jobs/${result.jobId}`).send(result);
    },
  );

  app.get(
    '/til',
    {
      schema: {
        tags: ['til'],
        summary: "The caller's TIL of a date, with the status of its latest generation job",
        querystring: z.object({ date: IsoDateSchema }),
        response: { 200: DailySummarySchema, 400: ProblemSchema, 401: ProblemSchema, 404: ProblemSchema },
      },
    },
    async (req) => {
      const summary = await deps.db.dailySummary.findUnique({
        where: { userId_targetDate: { userId: req.userId, targetDate: dateValue(req.query.date) } },
      });
      if (!summary) throw notFound(`TIL of ${req.query.date}`);
      const job = await latestJob(deps.db, summary.id, 'TIL_GENERATION');
      return {
        summaryId: summary.id,
        targetDate: isoDate(summary.targetDate),
        status: job?.status ?? null,
        jobId: job?.jobId ?? null,
        errorMessage: job?.errorMessage ?? null,
        title: summary.title,
        tilMarkdown: summary.tilMarkdown,
        sourceCardIds: summary.sourceCardIds,
        generatedAt: summary.generatedAt?.toISOString() ?? null,
      };
    },
  );

  app.get(
    '/til/:summaryId/recall-cards',
    {
      schema: {
        tags: ['til'],
        summary: "Cards within the embedding model's cosine-distance threshold of the TIL (0.5 for the local model; its own source cards excluded); else the K nearest",
        params: z.object({ summaryId: Uuid }),
        querystring: z.object({ limit: z.coerce.number().int().min(1).max(100).default(20) }),
        response: { 200: RecallCardsSchema, 400: ProblemSchema, 401: ProblemSchema, 404: ProblemSchema, 409: ProblemSchema },
      },
    },
    async (req) => {
      const summary = await deps.db.dailySummary.findFirst({
        where: { id: req.params.summaryId, userId: req.userId },
        select: { id: true, embedding: true, embeddingModel: true, sourceCardIds: true },
      });
      if (!summary) throw notFound(`TIL ${req.params.summaryId}`);
      if (!summary.embedding) {
        throw SAN_ERRORS.problem('TIL_NOT_GENERATED', `TIL ${summary.id} has not been generated yet`);
      }
      // Only cards embedded by the TIL's model, with that model's calibrated threshold.
      const threshold = similarityThresholdFor(deps.config.similarity, summary.embeddingModel);
      const result = await deps.similarity.search({
        userId: req.userId,
        vector: decodeEmbedding(summary.embedding),
        excludeCardIds: summary.sourceCardIds,
        model: summary.embeddingModel,
        threshold,
        fallbackK: deps.config.similarity.fallbackK,
        limit: req.query.limit,
      });
      return { summaryId: summary.id, matchedBy: result.matchedBy, threshold, cards: result.cards };
    },
  );
};
