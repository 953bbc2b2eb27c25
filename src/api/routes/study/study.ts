/**
 * The study domain's routes: topics (create, list, focus), questions (create, list,
 * read) and their explanations (a STUDY_EXPLANATION job, or a replacement by hand — each a new
 * source version of the question's memo cards). Everything is the caller's own: another user's
 * topic or question does not exist (404).
 */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { createQuestion, createTopic, focusTopic, replaceExplanation, requestExplanation } from '../../../services/study/questions';
import type { ApiDeps } from '../../deps';
import { ProblemSchema, problemResponse } from '../../problem';
import { REQUEST_WEBHOOK_RULES, RequestWebhookField, Uuid } from '../../schemas';
import { AnswerText, ExplanationText, QuestionSchema, QuestionText, TopicName, TopicSchema, questionView, topicView } from './schemas';
import { notFound } from '../../../core/errors';
import { statusLink } from '../../openapi';

const TAG = 'study';

/** Registers the topic, question and explanation routes. */
export const studyRoutes: FastifyPluginAsyncZod<ApiDeps> = async (app, deps) => {
  app.post(
    '/study/topics',
    {
      schema: {
        tags: [TAG],
        summary: 'Create a study topic',
        body: z.strictObject({ name: TopicName }).meta({ examples: [{ name: 'PostgreSQL indexes' }, { name: '운영체제' }] }),
        response: { 201: TopicSchema, 400: ProblemSchema, 401: ProblemSchema },
      },
    },
    async (req, reply) => {
      const topic = await createTopic(deps.db, req.userId, req.body.name);
      return reply.code(201).header('Location', `/study/topics/${topic.id}`).send(topicView(topic));
    },
  );

  app.get(
    '/study/topics',
    {
      schema: {
        tags: [TAG],
        summary: 'List your study topics (focused first, latest focus first, then newest)',
        response: { 200: z.object({ topics: z.array(TopicSchema) }), 401: ProblemSchema },
      },
    },
    async (req) => {
      const topics = await deps.db.studyTopic.findMany({
        where: { userId: req.userId },
        orderBy: [{ focusedAt: { sort: 'desc', nulls: 'last' } }, { createdAt: 'desc' }, { id: 'asc' }],
        take: 500,
      });
      return { topics: topics.map(topicView) };
    },
  );

  app.put(
    '/study/topics/:topicId/focus',
    {
      schema: {
        tags: [TAG],
        summary: 'Focus (or unfocus) a topic: the memo-card poller serves focused topics first (ST-3)',
        params: z.object({ topicId: Uuid }),
        body: z.strictObject({ focused: z.boolean() }).meta({ examples: [{ focused: true }, { focused: false }] }),
        response: { 200: TopicSchema, 400: ProblemSchema, 401: ProblemSchema, 404: ProblemSchema },
      },
    },
    async (req) => topicView(await focusTopic(deps.db, req.userId, req.params.topicId, req.body.focused)),
  );

  app.post(
    '/study/topics/:topicId/questions',
    {
      links: { 201: { GetQuestion: statusLink('GET /study/questions/:questionId', { questionId: '$response.body#/questionId' }, 'the question') } },
      schema: {
        tags: [TAG],
        summary: 'Add a question to a topic; enqueues its STUDY_EXPLANATION job unless `explain` is false',
        params: z.object({ topicId: Uuid }),
        body: z
          .strictObject({
            question: QuestionText,
            userAnswer: AnswerText.nullable().optional(),
            explain: z.boolean().optional(),
            webhook: RequestWebhookField.describe(`${REQUEST_WEBHOOK_RULES}. It receives the terminal event (async_job.completed or async_job.failed) of the STUDY_EXPLANATION job of the 201 (explanationJobId); not with \`explain\` false`),
          })
          .refine((b) => b.webhook === undefined || b.explain !== false, { message: 'a webhook needs the explanation job: not with explain false', path: ['webhook'] })
          .meta({ examples: [{ question: 'What is a partial index?', userAnswer: 'An index over some rows' }, { question: 'What is a partial index?', webhook: 'https://hooks.example.com/durable-jobs' }] }),
        response: {
          201: QuestionSchema.extend({ explanationJobId: z.uuid().nullable() }),
          400: problemResponse('VALIDATION_FAILED, MALFORMED_JSON (the failed checks in `errors`) or WEBHOOK_URL_REFUSED (a `webhook` URL the destination rules refuse); nothing is written'),
          401: ProblemSchema,
          404: ProblemSchema,
          409: problemResponse('WEBHOOK_SIGNING_SECRET_MISSING (a `webhook` without a signing secret); nothing is written'),
        },
      },
    },
    async (req, reply) => {
      const services = { db: deps.db, starter: deps.starter, log: req.log, destinations: { allowPrivate: deps.config.webhooks.allowPrivateUrls } };
      const r = await createQuestion(services, req.userId, req.params.topicId, req.body);
      return reply.code(201).header('Location', `/study/questions/${r.question.id}`).send({ ...questionView(r.question), explanationJobId: r.explanationJobId });
    },
  );

  app.get(
    '/study/topics/:topicId/questions',
    {
      schema: {
        tags: [TAG],
        summary: 'The questions of a topic, oldest first',
        params: z.object({ topicId: Uuid }),
        response: { 200: z.object({ questions: z.array(QuestionSchema) }), 400: ProblemSchema, 401: ProblemSchema, 404: ProblemSchema },
      },
    },
    async (req) => {
      const topic = await deps.db.studyTopic.findFirst({ where: { id: req.params.topicId, userId: req.userId }, select: { id: true } });
      if (!topic) throw notFound(`topic ${req.params.topicId}`);
      const questions = await deps.db.studyQuestion.findMany({ where: { topicId: topic.id, userId: req.userId }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }], take: 1000 });
      return { questions: questions.map(questionView) };
    },
  );

  app.get(
    '/study/questions/:questionId',
    {
      schema: {
        tags: [TAG],
        summary: 'A question with its explanation, its source version and the needs_review flag',
        params: z.object({ questionId: Uuid }),
        response: { 200: QuestionSchema, 400: ProblemSchema, 401: ProblemSchema, 404: ProblemSchema },
      },
    },
    async (req) => {
      const q = await deps.db.studyQuestion.findFirst({ where: { id: req.params.questionId, userId: req.userId } });
      if (!q) throw notFound(`question ${req.params.questionId}`);
      return questionView(q);
    },
  );

  app.post(
    '/study/questions/:questionId/explanation-jobs',
    {
      links: { 202: { GetExplanationJob: statusLink('GET /async-jobs/:jobId', { jobId: '$response.body#/jobId' }, 'the explanation job (its status)') } },
      schema: {
        tags: [TAG],
        summary: 'Ask for a new AI explanation (a STUDY_EXPLANATION job; the active one when there is one)',
        description: 'The body is optional (none, or JSON null, is no webhook).',
        params: z.object({ questionId: Uuid }),
        body: z
          .strictObject({
            webhook: RequestWebhookField.describe(
              `${REQUEST_WEBHOOK_RULES}. It receives the terminal event (async_job.completed or async_job.failed) of the ` +
                'STUDY_EXPLANATION job of the 202 (the new one, or the active one it names) while that job is still active',
            ),
          })
          .nullish() // fastify validates a request without a body as null
          .meta({ examples: [{}, { webhook: 'https://hooks.example.com/durable-jobs' }] }),
        response: {
          202: z.object({ jobId: z.uuid(), created: z.boolean() }),
          400: problemResponse('VALIDATION_FAILED, MALFORMED_JSON or WEBHOOK_URL_REFUSED (a `webhook` URL the destination rules refuse); nothing is written'),
          401: ProblemSchema,
          404: ProblemSchema,
          409: problemResponse('WEBHOOK_SIGNING_SECRET_MISSING (a `webhook` without a signing secret); nothing is written'),
        },
      },
    },
    async (req, reply) => {
      const services = { db: deps.db, starter: deps.starter, log: req.log, destinations: { allowPrivate: deps.config.webhooks.allowPrivateUrls } };
      const r = await requestExplanation(services, req.userId, req.params.questionId, req.body?.webhook);
      return reply.code(202).header('Location', `/async-jobs/${r.jobId}`).send(r);
    },
  );

  app.put(
    '/study/questions/:questionId/explanation',
    {
      schema: {
        tags: [TAG],
        summary: 'Replace the explanation by hand: a new source version (the poller re-extracts its memo cards)',
        params: z.object({ questionId: Uuid }),
        body: z
          .strictObject({ explanation: ExplanationText })
          .meta({ examples: [{ explanation: 'A partial index is an index built over a subset of the rows of a table. It stores only the rows that match its WHERE clause.' }] }),
        response: { 200: QuestionSchema, 400: ProblemSchema, 401: ProblemSchema, 404: ProblemSchema },
      },
    },
    async (req) => {
      await replaceExplanation(deps.db, req.userId, req.params.questionId, req.body.explanation);
      const q = await deps.db.studyQuestion.findUniqueOrThrow({ where: { id: req.params.questionId } });
      return questionView(q);
    },
  );
};
