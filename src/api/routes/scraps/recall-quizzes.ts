/** `POST /recall-quizzes`, `GET /recall-quizzes/{generationId}`, `GET /recall-quizzes?date=` (SAN-11). */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { QUIZ_TYPES } from '../../../domain/scraps/quizzes';
import { JOB_STATUSES } from '../../../core/contracts';
import { requestRecallQuiz } from '../../../services/scraps/til';
import { dateValue, isoDate } from '../../../services/scraps/til-sources';
import type { SanRouteDeps } from './deps';
import { ProblemSchema, problemResponse } from '../../problem';
import { REQUEST_WEBHOOK_RULES, RequestWebhookField, Uuid } from '../../schemas';
import { IsoDateSchema } from './til';
import { notFound } from '../../../core/errors';
import { statusLink } from '../../openapi';

const QuizTypes = z.array(z.enum(QUIZ_TYPES)).min(1).max(QUIZ_TYPES.length);

const Accepted = z
  .object({ generationId: z.uuid(), jobId: z.uuid(), targetId: z.uuid(), targetDate: IsoDateSchema, quizTypes: QuizTypes })
  .meta({ id: 'RecallQuizAccepted' });

const GenerationFields = {
  generationId: z.uuid(),
  targetDate: IsoDateSchema,
  quizTypes: QuizTypes,
  status: z.enum(JOB_STATUSES),
  summaryId: z.uuid().nullable().describe('set when requested automatically after a TIL generation'),
  jobId: z.uuid().nullable(),
  errorMessage: z.string().nullable(),
  createdAt: z.iso.datetime(),
};

const QuizSchema = z.object({
  position: z.number().int(),
  type: z.enum(QUIZ_TYPES),
  question: z.string(),
  answer: z.string(),
  explanation: z.string(),
  sourceCardId: z.uuid(),
});

const GenerationSchema = z.object({ ...GenerationFields, quizzes: z.array(QuizSchema) }).meta({ id: 'RecallQuizGeneration' });
const GenerationListSchema = z
  .object({ generations: z.array(z.object({ ...GenerationFields, quizCount: z.number().int() })) })
  .meta({ id: 'RecallQuizGenerationList' });

/** SAN-11 recall-quiz routes, scoped to the caller's own generations (another user's are 404). */
export const recallQuizRoutes: FastifyPluginAsyncZod<SanRouteDeps> = async (app, deps) => {
  /** The generations' latest RECALL_QUIZ_GENERATION jobs, by generation id. */
  async function latestJobs(generationIds: string[]) {
    const jobs = await deps.db.asyncJob.findMany({
      where: { targetId: { in: generationIds }, jobType: 'RECALL_QUIZ_GENERATION' },
      orderBy: { createdAt: 'asc' },
      select: { jobId: true, targetId: true, errorMessage: true },
    });
    return new Map(jobs.map((j) => [j.targetId, j]));
  }

  app.post(
    '/recall-quizzes',
    {
      links: { 202: { GetRecallQuiz: statusLink('GET /recall-quizzes/:generationId', { generationId: '$response.body#/generationId' }, 'the quiz generation'), GetRecallQuizJob: statusLink('GET /async-jobs/:jobId', { jobId: '$response.body#/jobId' }, 'the quiz generation job (SAN-5 status)') } },
      schema: {
        tags: ['recall-quizzes'],
        summary: "Generate recall quizzes (OX, SHORT_ANSWER) over a date's cards; enqueues RECALL_QUIZ_GENERATION",
        body: z
          .strictObject({
            targetDate: IsoDateSchema,
            quizTypes: QuizTypes.default([...QUIZ_TYPES]),
            webhook: RequestWebhookField.describe(
              `${REQUEST_WEBHOOK_RULES}. It receives the terminal event (async_job.completed or async_job.failed) of the ` +
                'RECALL_QUIZ_GENERATION job of the answer while that job is not terminal when the request commits: the new job, ' +
                'or the active job a repeat (same date and types) is answered with. Each request naming a URL gets its own ' +
                'delivery, also when several land on one job; a repeat whose job finished before it committed gets none',
            ),
          })
          .meta({ examples: [{ targetDate: '2026-11-30', quizTypes: ['OX', 'SHORT_ANSWER'] }, { targetDate: '2026-11-30', webhook: 'https://hooks.example.com/durable-jobs' }] }),
        response: {
          202: Accepted,
          400: problemResponse('VALIDATION_FAILED, MALFORMED_JSON (the failed checks in `errors`), TARGET_DATE_IN_FUTURE or WEBHOOK_URL_REFUSED (a `webhook` URL the destination rules refuse); nothing is written'),
          401: ProblemSchema,
          409: problemResponse('WEBHOOK_SIGNING_SECRET_MISSING (a `webhook` without a signing secret); nothing is written'),
          422: ProblemSchema,
        },
      },
    },
    async (req, reply) => {
      const result = await requestRecallQuiz(
        { db: deps.db, starter: deps.starter, log: req.log, destinations: { allowPrivate: deps.config.webhooks.allowPrivateUrls } },
        req.userId,
        req.body.targetDate,
        req.body.quizTypes,
        req.body.webhook,
      );
      req.log.info({ generationId: result.generationId, jobId: result.jobId }, 'recall quiz requested');
      return reply.code(202).header('Location', `/recall-quizzes/${result.generationId}`).send(result);
    },
  );

  app.get(
    '/recall-quizzes/:generationId',
    {
      schema: {
        tags: ['recall-quizzes'],
        summary: 'A recall-quiz generation: its status and, once completed, its quizzes in order',
        params: z.object({ generationId: Uuid }),
        response: { 200: GenerationSchema, 400: ProblemSchema, 401: ProblemSchema, 404: ProblemSchema },
      },
    },
    async (req) => {
      const g = await deps.db.recallQuizGeneration.findFirst({
        where: { id: req.params.generationId, userId: req.userId },
        include: { quizzes: { orderBy: { position: 'asc' } } },
      });
      if (!g) throw notFound(`recall quiz generation ${req.params.generationId}`);
      const job = (await latestJobs([g.id])).get(g.id);
      return {
        generationId: g.id,
        targetDate: isoDate(g.targetDate),
        quizTypes: g.quizTypes,
        status: g.status,
        summaryId: g.summaryId,
        jobId: job?.jobId ?? null,
        errorMessage: job?.errorMessage ?? null,
        createdAt: g.createdAt.toISOString(),
        quizzes: g.quizzes.map((q) => ({
          position: q.position, type: q.type, question: q.question, answer: q.answer,
          explanation: q.explanation, sourceCardId: q.sourceCardId,
        })),
      };
    },
  );

  app.get(
    '/recall-quizzes',
    {
      schema: {
        tags: ['recall-quizzes'],
        summary: "The caller's recall-quiz generations, newest first; of one date when `date` is given",
        querystring: z.object({ date: IsoDateSchema.optional(), limit: z.coerce.number().int().min(1).max(100).default(50) }),
        response: { 200: GenerationListSchema, 400: ProblemSchema, 401: ProblemSchema },
      },
    },
    async (req) => {
      const rows = await deps.db.recallQuizGeneration.findMany({
        where: { userId: req.userId, ...(req.query.date ? { targetDate: dateValue(req.query.date) } : {}) },
        orderBy: [{ createdAt: 'desc' }, { id: 'asc' }],
        take: req.query.limit,
        include: { _count: { select: { quizzes: true } } },
      });
      const jobs = await latestJobs(rows.map((r) => r.id));
      return {
        generations: rows.map((g) => ({
          generationId: g.id,
          targetDate: isoDate(g.targetDate),
          quizTypes: g.quizTypes,
          status: g.status,
          summaryId: g.summaryId,
          jobId: jobs.get(g.id)?.jobId ?? null,
          errorMessage: jobs.get(g.id)?.errorMessage ?? null,
          createdAt: g.createdAt.toISOString(),
          quizCount: g._count.quizzes,
        })),
      };
    },
  );
};
