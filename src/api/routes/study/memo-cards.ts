/**
 * Memo-card read endpoints and the explicit enqueue (ST-1 … ST-5): a question's live
 * cards with their evidence (`?include=retired` adds the retired ones, for history), its extraction
 * jobs (status, attempts, error_code, drops by reason), the live cards of a topic, and
 * `POST /study/memo-card-jobs`, which enqueues the current version of a source exactly as the
 * poller would and reports "skipped, already active" (ST-2) or "skipped, version exists" (ST-3)
 * instead of failing; its optional `webhook` is the new job's per-request completion webhook.
 */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { startOrUndo } from '../../../core/after-commit';
import { isBlankText } from '../../../core/blank';
import { checkRequestWebhook } from '../../../core/webhook-requests';
import { enqueueRequestedExtraction, STUDY_MEMO_CARD_JOB_WEBHOOK_SOURCE, withdrawExtraction } from '../../../services/study/enqueue';
import { loadSource } from '../../../services/study/sources';
import { startExtraction } from '../../../services/study/start';
import type { StudyConfig } from '../../../config/study';
import type { ApiDeps } from '../../deps';
import { ProblemSchema, problemResponse } from '../../problem';
import { RequestWebhookField, Uuid } from '../../schemas';
import { MemoCardJobSchema, MemoCardSchema, memoCardJobView, memoCardView } from './schemas';
import { ST_ERRORS } from '../../../domain/study/errors';
import { notFound } from '../../../core/errors';
import { memoCardJobEtag } from '../../../domain/study/etag';
import { memoCardJobChangeSource } from '../../../services/study/job-changes';
import { answerLongPoll, LONG_POLL_DESCRIPTION, LongPollHeaders, longPollResponses } from '../../long-poll';
import { statusLink } from '../../openapi';

const TAG = 'study';

/** An extraction job being processed, as `GET /study/memo-card-jobs/{id}` shows it. */
const MEMO_CARD_JOB_EXAMPLE = {
  jobId: '62000000-0000-4000-8000-000000000301', sourceKind: 'study_question', sourceId: '61000000-0000-4000-8000-000000000003',
  sourceVersion: '2026-12-02T18:00:00.500Z', kind: 'card_extract', status: 'processing', attempts: 1, maxAttempts: 2,
  errorCode: null, errorMessage: null, dropped: {}, cards: null,
  createdAt: '2026-12-02T18:00:01.000Z', startedAt: '2026-12-02T18:00:02.000Z', completedAt: null,
};
const SourceKind = z.enum(['study_question', 'knowledge_card']);

/** Registers the memo-card routes. */
export const memoCardRoutes: FastifyPluginAsyncZod<ApiDeps<StudyConfig>> = async (app, deps) => {
  const jobChanges = memoCardJobChangeSource(deps.db);
  app.get(
    '/study/questions/:questionId/memo-cards',
    {
      schema: {
        tags: [TAG],
        summary: "A question's memo cards with their evidence: live ones, plus retired ones with include=retired",
        params: z.object({ questionId: Uuid }),
        querystring: z.strictObject({ include: z.enum(['live', 'retired']).default('live') }),
        response: { 200: z.object({ cards: z.array(MemoCardSchema) }), 400: ProblemSchema, 401: ProblemSchema, 404: ProblemSchema },
      },
    },
    async (req) => {
      const q = await deps.db.studyQuestion.findFirst({ where: { id: req.params.questionId, userId: req.userId }, select: { id: true } });
      if (!q) throw notFound(`question ${req.params.questionId}`);
      const cards = await deps.db.studyMemoCard.findMany({
        where: { sourceKind: 'study_question', sourceId: q.id, userId: req.userId, ...(req.query.include === 'live' ? { deletedAt: null } : {}) },
        include: { evidence: true },
        orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
        take: 1000,
      });
      return { cards: cards.map(memoCardView) };
    },
  );

  app.get(
    '/study/questions/:questionId/memo-card-jobs',
    {
      schema: {
        tags: [TAG],
        summary: "A question's extraction jobs, newest version first (status, attempts, error_code, drops by reason)",
        params: z.object({ questionId: Uuid }),
        response: { 200: z.object({ jobs: z.array(MemoCardJobSchema) }), 400: ProblemSchema, 401: ProblemSchema, 404: ProblemSchema },
      },
    },
    async (req) => {
      const q = await deps.db.studyQuestion.findFirst({ where: { id: req.params.questionId, userId: req.userId }, select: { id: true } });
      if (!q) throw notFound(`question ${req.params.questionId}`);
      const jobs = await deps.db.studyMemoCardJob.findMany({
        where: { sourceKind: 'study_question', sourceId: q.id, userId: req.userId },
        orderBy: [{ sourceVersion: 'desc' }, { createdAt: 'desc' }],
        take: 200,
      });
      return { jobs: jobs.map(memoCardJobView) };
    },
  );

  app.get(
    '/study/memo-card-jobs/:jobId',
    {
      schema: {
        tags: [TAG],
        summary: 'An extraction job: status, attempts, error_code, drops by reason (ST-1; long polling with Prefer: wait and If-None-Match)',
        description:
          "Status pending, processing, completed, failed or skipped. Another user's job → 404. The ETag is the job's status, attempts " +
          'and the time of its last transition. ' + LONG_POLL_DESCRIPTION,
        params: z.object({ jobId: Uuid }),
        headers: LongPollHeaders,
        response: longPollResponses(
          {
            description: 'The job',
            content: { 'application/json': { schema: MemoCardJobSchema, examples: { processing: { value: MEMO_CARD_JOB_EXAMPLE } } } },
          },
          [400, 401, 404, 503],
        ),
      },
    },
    async (req, reply) => {
      const { jobId } = req.params;
      return answerLongPoll(deps, req.headers, reply, {
        source: jobChanges,
        id: jobId,
        read: () => deps.db.studyMemoCardJob.findFirst({ where: { id: jobId, userId: req.userId } }),
        etag: memoCardJobEtag,
        body: memoCardJobView,
        notFound: () => notFound(`memo-card job ${jobId}`),
      });
    },
  );

  app.get(
    '/study/topics/:topicId/memo-cards',
    {
      schema: {
        tags: [TAG],
        summary: 'The live memo cards of a topic with their evidence',
        params: z.object({ topicId: Uuid }),
        response: { 200: z.object({ cards: z.array(MemoCardSchema) }), 400: ProblemSchema, 401: ProblemSchema, 404: ProblemSchema },
      },
    },
    async (req) => {
      const topic = await deps.db.studyTopic.findFirst({ where: { id: req.params.topicId, userId: req.userId }, select: { id: true } });
      if (!topic) throw notFound(`topic ${req.params.topicId}`);
      const cards = await deps.db.studyMemoCard.findMany({
        where: { userId: req.userId, topicId: topic.id, deletedAt: null },
        include: { evidence: true },
        orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
        take: 2000,
      });
      return { cards: cards.map(memoCardView) };
    },
  );

  app.post(
    '/study/memo-card-jobs',
    {
      links: { 202: { GetMemoCardJob: statusLink('GET /study/memo-card-jobs/:jobId', { jobId: '$response.body#/jobId' }, 'the extraction job (ST-1)') } },
      schema: {
        tags: [TAG],
        summary: "Enqueue the extraction of a source's current version now (the poller does this on its own)",
        description:
          '202 with the new job; 200 `skipped` with reason `already_active` (ST-2: another job of the source is pending or ' +
          'processing) or `version_exists` (ST-3: this version already has a job). 409 STUDY_EXPLANATION_NOT_READY when ' +
          'the question has no explanation yet; 404 when the source is not yours. `webhook` (optional) receives the new ' +
          "job's terminal event (study_memo_card_job.completed, .failed or .skipped), signed with your signing secret; it " +
          'is checked before anything is written (400 WEBHOOK_URL_REFUSED, 409 WEBHOOK_SIGNING_SECRET_MISSING) and kept ' +
          'only with a new job (202): a skipped request keeps none.',
        body: z
          .strictObject({ sourceKind: SourceKind, sourceId: Uuid, webhook: RequestWebhookField })
          .meta({
            examples: [
              { sourceKind: 'study_question', sourceId: '6f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b' },
              { sourceKind: 'study_question', sourceId: '6f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b', webhook: 'https://hooks.example.com/durable-jobs' },
            ],
          }),
        response: {
          202: z.object({ status: z.literal('enqueued'), jobId: z.uuid(), workflowId: z.string(), sourceVersion: z.iso.datetime() }),
          200: z.object({ status: z.literal('skipped'), reason: z.enum(['already_active', 'version_exists']), jobId: z.uuid().nullable() }),
          400: problemResponse('VALIDATION_FAILED, MALFORMED_JSON (the failed checks in `errors`) or WEBHOOK_URL_REFUSED (the `webhook` URL is refused)'),
          401: ProblemSchema,
          404: ProblemSchema,
          409: problemResponse('STUDY_EXPLANATION_NOT_READY or WEBHOOK_SIGNING_SECRET_MISSING (a `webhook` without a signing secret)'),
        },
      },
    },
    async (req, reply) => {
      const source = await loadSource(deps.db, req.body.sourceKind, req.body.sourceId);
      if (!source || source.userId !== req.userId) throw notFound(`${req.body.sourceKind} ${req.body.sourceId}`);
      if (!source.version || isBlankText(source.explanation ?? '')) throw ST_ERRORS.problem('STUDY_EXPLANATION_NOT_READY', `${req.body.sourceKind} ${source.id} has no explanation yet`);
      const url = req.body.webhook;
      if (url !== undefined) await checkRequestWebhook(deps.db, { allowPrivate: deps.config.webhooks.allowPrivateUrls }, req.userId, url);
      const r = await enqueueRequestedExtraction(deps.db, {
        userId: req.userId, sourceKind: source.kind, sourceId: source.id, sourceVersion: source.version,
        maxAttempts: deps.config.study.extract.maxAttempts, payload: { enqueuedBy: 'api' },
      }, url === undefined ? undefined : { source: STUDY_MEMO_CARD_JOB_WEBHOOK_SOURCE, userId: req.userId, url });
      if (r.status === 'skipped') return reply.code(200).send({ status: 'skipped', reason: r.reason, jobId: r.jobId });
      const temporal = deps.temporal;
      const job = r.job;
      // With Temporal unavailable the job row goes again and the answer is 503 (retry the request).
      if (temporal) await startOrUndo(req.log, [{ ids: { jobId: job.jobId }, start: () => startExtraction(temporal, deps.config, job) }], () => withdrawExtraction(deps.db, job.jobId));
      return reply.code(202).send({ status: 'enqueued', jobId: r.job.jobId, workflowId: r.job.workflowId, sourceVersion: r.job.sourceVersion.toISOString() });
    },
  );
};
