/** `POST /scraps` (SAN-7). */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { VISIBLE_TEXT_PATTERN } from '../../../core/blank';
import { submitScrap } from '../../../services/scraps/scraps';
import type { SanRouteDeps } from './deps';
import { ProblemSchema, problemResponse } from '../../problem';
import { statusLink } from '../../openapi';
import { REQUEST_WEBHOOK_RULES, RequestWebhookField } from '../../schemas';

/** SAN-7 submission: 202 `{ scrapId, analysisJobId, refineJobId }` with `Location` of the analysis job. */
export const scrapRoutes: FastifyPluginAsyncZod<SanRouteDeps> = async (app, deps) => {
  const notBlank = 'must not be empty or whitespace only';
  const visible = 'at least one visible character: not only Unicode White_Space or Default_Ignorable_Code_Point (zero-width, format) characters';
  const Body = z
    .strictObject({
      content: z
        .string()
        .min(1, notBlank)
        .max(deps.config.scraps.maxContentChars, `at most ${deps.config.scraps.maxContentChars} characters`)
        .regex(VISIBLE_TEXT_PATTERN, notBlank)
        .describe(`the text, with ${visible}; stored in Unicode NFC with CRLF → LF and invisible characters trimmed at both ends`),
      sourceUrl: z
        .url({ protocol: /^https?$/, message: 'must be an http(s) URL' })
        .max(2048)
        .regex(/^https?:\/\//i, 'must be an http(s) URL')
        .optional(),
      title: z.string().min(1, notBlank).max(300).regex(VISIBLE_TEXT_PATTERN, notBlank).optional().describe(`wins over the extracted title; ${visible}`),
      webhook: RequestWebhookField.describe(
        `${REQUEST_WEBHOOK_RULES}. It receives the terminal event (async_job.completed or async_job.failed) of each job the answer ` +
          'names that is not terminal yet when the request commits: both jobs of a new scrap; for a repeated submission (same ' +
          'content) the analysis job it enqueued or found active and a refine job still active. A repeat whose answer names only ' +
          'finished jobs gets no delivery. Each request naming a URL gets its own delivery, also when several land on one job',
      ),
    })
    .meta({
      examples: [
        { content: '# B-tree indexes\n\nA B-tree keeps keys sorted so range scans are cheap.', sourceUrl: 'https://www.postgresql.org/docs/current/btree.html', title: 'B-tree indexes' },
        { content: '운영체제의 스케줄러는 준비 큐에서 다음에 실행할 프로세스를 고른다.' },
      ],
    });
  const Accepted = z
    .object({ scrapId: z.uuid(), analysisJobId: z.uuid(), refineJobId: z.uuid().nullable(), created: z.boolean() })
    .meta({ id: 'ScrapAccepted' });

  app.post(
    '/scraps',
    {
      links: { 202: { GetAnalysisJob: statusLink('GET /async-jobs/:jobId', { jobId: '$response.body#/analysisJobId' }, 'the card-analysis job (SAN-5 status)'), GetScrapCard: statusLink('GET /cards/:id', { id: '$response.body#/scrapId' }, 'the card of the scrap, once its analysis completed') } },
      schema: {
        tags: ['scraps'],
        summary: 'Submit a scrap; enqueues CARD_ANALYSIS and SCRAP_REFINE (deduplicated per user by content SHA-256)',
        body: Body,
        response: {
          202: Accepted,
          400: problemResponse('VALIDATION_FAILED, MALFORMED_JSON (the failed checks in `errors`) or WEBHOOK_URL_REFUSED (a `webhook` URL the destination rules refuse); nothing is written'),
          401: ProblemSchema,
          409: problemResponse('WEBHOOK_SIGNING_SECRET_MISSING (a `webhook` without a signing secret); nothing is written'),
          413: ProblemSchema,
        },
      },
    },
    async (req, reply) => {
      const result = await submitScrap({ db: deps.db, starter: deps.starter, log: req.log, destinations: { allowPrivate: deps.config.webhooks.allowPrivateUrls } }, req.userId, req.body);
      req.log.info({ scrapId: result.scrapId, jobId: result.analysisJobId, created: result.created }, 'scrap accepted');
      return reply.code(202).header('Location', `/async-jobs/${result.analysisJobId}`).send(result);
    },
  );
};
