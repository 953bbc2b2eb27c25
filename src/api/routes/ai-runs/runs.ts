/**
 * `POST /api/v1/ai-runs` (AR-1), `GET /api/v1/ai-runs/{aiRunId}` (AR-3), `POST …/retry` (AR-4) and
 * `POST …/cancel`. Tenancy: a company the caller is not a member of answers 404; creating, retrying
 * and cancelling need OWNER or HR_MANAGER (403 otherwise); any member may read.
 */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { idempotencyKeyOf } from '../../../core/idempotency';
import { cancelAiRun, createAiRun, readAiRun, retryAiRun, type AiRunDeps } from '../../../services/ai-runs/runs';
import { aiRunChangeSource } from '../../../services/ai-runs/run-changes';
import { AR_ERRORS } from '../../../domain/ai-runs/errors';
import { answerLongPoll, LONG_POLL_DESCRIPTION, LongPollHeaders, longPollResponses, type LongPollDeps } from '../../long-poll';
import { requestTraceId } from '../../observability';
import { ProblemSchema } from '../../problem';
import { Uuid } from '../../schemas';
import { AR_EXAMPLES, exampleContent, problemExamples } from './examples';
import { AiRunAcceptedSchema, AiRunSchema, aiRunTag, aiRunView, createBodySchema, IdempotencyHeaders } from './schemas';
import { statusLink } from '../../openapi';

/** What the run routes need: the run commands' deps and the change feed of the long poll. */
export type ArRunRouteDeps = Omit<AiRunDeps, 'log'> & Pick<LongPollDeps, 'hot'>;

const location = (id: string) => `/api/v1/ai-runs/${id}`;

const RUN_ID = { aiRunId: '$response.body#/aiRunId' };
/** Links of a create's answer: the run, and the commands on it. */
const RUN_LINKS = {
  GetAiRun: statusLink('GET /api/v1/ai-runs/:aiRunId', RUN_ID, 'the run (AR-3)'),
  RetryAiRun: statusLink('POST /api/v1/ai-runs/:aiRunId/retry', RUN_ID, 'retry the run once it FAILED (AR-4)'),
  CancelAiRun: statusLink('POST /api/v1/ai-runs/:aiRunId/cancel', RUN_ID, 'cancel the run'),
  DecideCandidates: statusLink('POST /api/v1/ai-runs/:aiRunId/candidate-decisions', RUN_ID, "decide the run's candidates once it SUCCEEDED (AR-5)"),
};

/** Registers the run routes. */
export const aiRunRoutes: FastifyPluginAsyncZod<ArRunRouteDeps> = async (app, deps) => {
  const Body = createBodySchema(deps.config.aiRuns.maxTextChars);
  const changes = aiRunChangeSource(deps.db);
  const accepted = (run: { id: string; companyId: string; status: z.infer<typeof AiRunAcceptedSchema>['status']; version: number }, attemptNumber?: number) => ({
    aiRunId: run.id,
    companyId: run.companyId,
    status: run.status,
    ...(attemptNumber !== undefined ? { attemptNumber } : {}),
    version: run.version,
    location: location(run.id),
  });

  app.post(
    '/api/v1/ai-runs',
    {
      links: { 202: RUN_LINKS },
      schema: {
        tags: ['ai-runs'],
        summary: 'Start an AI run over an HR request (AR-1, Idempotency-Key required)',
        description:
          'Stores the request (masked, with a keyed hash) and answers 202 with the run, readable at once. The same ' +
          'Idempotency-Key and payload answer the same run and status code; the same key with another payload → 409 ' +
          'IDEMPOTENCY_KEY_CONFLICT naming the differing fields. Needs OWNER or HR_MANAGER in the company (403); a company ' +
          'you are not a member of → 404.',
        headers: IdempotencyHeaders,
        body: Body,
        response: {
          202: exampleContent(AiRunAcceptedSchema, AR_EXAMPLES.accepted, 'Accepted: the run, QUEUED (or its state now on a replay)'),
          400: problemExamples('IDEMPOTENCY_KEY_MISSING / IDEMPOTENCY_KEY_INVALID / VALIDATION_FAILED / WEBHOOK_URL_REFUSED', ['missingKey']),
          401: ProblemSchema,
          403: ProblemSchema,
          404: ProblemSchema,
          409: problemExamples('IDEMPOTENCY_KEY_CONFLICT (errors[] names the fields), IDEMPOTENCY_KEY_IN_PROGRESS or WEBHOOK_SIGNING_SECRET_MISSING (a `webhook` without a signing secret)', ['keyConflict']),
        },
      },
    },
    async (req, reply) => {
      const key = idempotencyKeyOf(req.headers);
      const r = await createAiRun({ ...deps, log: req.log }, req.userId, key, req.body, { requestId: req.id, traceId: requestTraceId(req) });
      return reply.code(r.statusCode as 202).header('Location', location(r.run.id)).header('ETag', aiRunTag(r.run)).send(accepted(r.run));
    },
  );

  app.get(
    '/api/v1/ai-runs/:aiRunId',
    {
      schema: {
        tags: ['ai-runs'],
        summary: 'Read an AI run: status, outcome, attempts, candidates (AR-3; long polling with Prefer: wait and If-None-Match)',
        description:
          '`status` (QUEUED, RUNNING, RETRYING, SUCCEEDED, FAILED) and `analysisOutcome` (NEEDS_INFO, REVIEW_REQUIRED; null ' +
          'until SUCCEEDED) are separate fields. The ETag is the run version. ' + LONG_POLL_DESCRIPTION,
        params: z.object({ aiRunId: Uuid }),
        headers: LongPollHeaders,
        response: longPollResponses(exampleContent(AiRunSchema, AR_EXAMPLES.run, 'The run')),
      },
    },
    async (req, reply) => {
      const { aiRunId } = req.params;
      return answerLongPoll(deps, req.headers, reply, {
        source: changes,
        id: aiRunId,
        read: () => readAiRun(deps.db, req.userId, aiRunId, deps.replays?.reads),
        etag: aiRunTag,
        body: aiRunView,
        notFound: () => AR_ERRORS.problem('NOT_FOUND', `ai run ${aiRunId} not found`),
      });
    },
  );

  app.post(
    '/api/v1/ai-runs/:aiRunId/retry',
    {
      links: { 202: { GetAiRun: statusLink('GET /api/v1/ai-runs/:aiRunId', { aiRunId: '$response.body#/aiRunId' }, 'the run (AR-3)') } },
      schema: {
        tags: ['ai-runs'],
        summary: 'Retry a FAILED run with a new attempt (AR-4, its own Idempotency-Key)',
        description:
          'FAILED → RETRYING on the same run; a new MANUAL_RETRY attempt follows, earlier attempts stay as they are. The same ' +
          'retry key answers the same attempt (never a second). Anything but a FAILED run, or a cancelled run → 409 ' +
          'AI_RUN_NOT_RETRYABLE; a run whose retry window closed → 409 AI_RUN_RETRY_WINDOW_CLOSED (nothing changes). ' +
          'Temporal unavailable → 503 WORKFLOW_START_UNAVAILABLE with Retry-After: the run is FAILED as it was, the same ' +
          'request (same key) retries it later; Temporal not answering whether the retry reached the run → 503 ' +
          'WORKFLOW_START_UNDECIDED (the run stays RETRYING and the reconciler re-sends the retry).',
        params: z.object({ aiRunId: Uuid }),
        headers: IdempotencyHeaders,
        response: {
          202: exampleContent(AiRunAcceptedSchema, AR_EXAMPLES.retried, 'Accepted: the run, RETRYING (or its state now on a replay)'),
          400: ProblemSchema,
          401: ProblemSchema,
          403: ProblemSchema,
          404: ProblemSchema,
          409: problemExamples('AI_RUN_NOT_RETRYABLE, AI_RUN_RETRY_WINDOW_CLOSED or IDEMPOTENCY_KEY_CONFLICT', ['notRetryable', 'retryWindowClosed']),
          503: problemExamples('WORKFLOW_START_UNAVAILABLE or WORKFLOW_START_UNDECIDED (Retry-After)', ['retryUnavailable']),
        },
      },
    },
    async (req, reply) => {
      const key = idempotencyKeyOf(req.headers);
      const r = await retryAiRun({ ...deps, log: req.log }, req.userId, req.params.aiRunId, key);
      return reply.code(r.statusCode as 202).header('Location', location(r.run.id)).send(accepted(r.run, r.attemptNumber));
    },
  );

  app.post(
    '/api/v1/ai-runs/:aiRunId/cancel',
    {
      links: { 202: { GetAiRun: statusLink('GET /api/v1/ai-runs/:aiRunId', { aiRunId: '$response.body#/aiRunId' }, 'the run (AR-3)') } },
      schema: {
        tags: ['ai-runs'],
        summary: 'Cancel a QUEUED, RUNNING or RETRYING run (ends FAILED with code CANCELLED)',
        description: 'The workflow is cancelled and a running attempt ends FAILED CANCELLED. A finished run → 409 AI_RUN_NOT_CANCELLABLE.',
        params: z.object({ aiRunId: Uuid }),
        response: {
          202: exampleContent(AiRunAcceptedSchema, AR_EXAMPLES.cancelled, 'The run, FAILED with code CANCELLED'),
          401: ProblemSchema,
          403: ProblemSchema,
          404: ProblemSchema,
          409: problemExamples('AI_RUN_NOT_CANCELLABLE', ['notCancellable']),
        },
      },
    },
    async (req, reply) => {
      const run = await cancelAiRun({ ...deps, log: req.log }, req.userId, req.params.aiRunId);
      return reply.code(202).header('Location', location(run.id)).send(accepted(run));
    },
  );
};
