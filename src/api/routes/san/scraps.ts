/** `POST /scraps` (SAN-7). */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { submitScrap } from '../../../services/san/scraps';
import type { SanRouteDeps } from './deps';
import { ProblemSchema } from '../../problem';

/** SAN-7 submission: 202 `{ scrapId, analysisJobId, refineJobId }` with `Location` of the analysis job. */
export const scrapRoutes: FastifyPluginAsyncZod<SanRouteDeps> = async (app, deps) => {
  const Body = z.object({
    content: z
      .string()
      .max(deps.config.api.scrapMaxContentChars, `at most ${deps.config.api.scrapMaxContentChars} characters`)
      .refine((s) => !/^[\s\u200b-\u200d\u2060\ufeff]*$/u.test(s), 'must not be empty or whitespace only'),
    sourceUrl: z.url({ protocol: /^https?$/, message: 'must be an http(s) URL' }).max(2048).optional(),
    title: z.string().trim().min(1).max(300).optional(),
  });
  const Accepted = z
    .object({ scrapId: z.uuid(), analysisJobId: z.uuid(), refineJobId: z.uuid().nullable(), created: z.boolean() })
    .meta({ id: 'ScrapAccepted' });

  app.post(
    '/scraps',
    {
      schema: {
        tags: ['scraps'],
        summary: 'Submit a scrap; enqueues CARD_ANALYSIS and SCRAP_REFINE (deduplicated per user by content SHA-256)',
        body: Body,
        response: { 202: Accepted, 400: ProblemSchema, 401: ProblemSchema, 413: ProblemSchema },
      },
    },
    async (req, reply) => {
      const result = await submitScrap({ db: deps.db, starter: deps.starter, log: req.log }, req.userId, req.body);
      req.log.info({ scrapId: result.scrapId, jobId: result.analysisJobId, created: result.created }, 'scrap accepted');
      return reply.code(202).header('Location', `/async-jobs/${result.analysisJobId}`).send(result);
    },
  );
};
