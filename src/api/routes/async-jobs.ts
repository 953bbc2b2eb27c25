/** `GET /async-jobs/{jobId}` (SAN-5). */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { ApiDeps } from '../app';
import { notFound, ProblemSchema } from '../problem';
import { AsyncJobSchema, Uuid } from '../schemas';

/** SAN-5 status poll; the owner only (another user's job is a 404). */
export const asyncJobRoutes: FastifyPluginAsyncZod<ApiDeps> = async (app, deps) => {
  app.get(
    '/async-jobs/:jobId',
    {
      schema: {
        tags: ['jobs'],
        summary: 'Poll an async job',
        params: z.object({ jobId: Uuid }),
        response: { 200: AsyncJobSchema, 400: ProblemSchema, 401: ProblemSchema, 404: ProblemSchema },
      },
    },
    async (req) => {
      const job = await deps.db.asyncJob.findFirst({ where: { jobId: req.params.jobId, userId: req.userId } });
      if (!job) throw notFound(`job ${req.params.jobId}`);
      return {
        jobId: job.jobId,
        jobType: job.jobType,
        targetId: job.targetId,
        status: job.status,
        errorMessage: job.errorMessage,
        createdAt: job.createdAt.toISOString(),
        updatedAt: job.updatedAt.toISOString(),
      };
    },
  );
};
