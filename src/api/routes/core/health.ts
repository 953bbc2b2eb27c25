/** Liveness and readiness (public). */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { ApiDeps } from '../../deps';
import { ProblemSchema } from '../../problem';
import { CORE_ERRORS } from '../../../core/errors';

/** `GET /health` (process up) and `GET /ready` (database answers; else 503 SERVICE_UNAVAILABLE problem+json). */
export const healthRoutes: FastifyPluginAsyncZod<ApiDeps> = async (app, deps) => {
  const Status = z.object({ status: z.literal('ok') });
  app.get('/health', { config: { auth: 'public', limits: 'exempt' }, schema: { tags: ['health'], security: [], response: { 200: Status } } }, async () => ({ status: 'ok' as const }));
  app.get(
    '/ready',
    { config: { auth: 'public', limits: 'exempt' }, schema: { tags: ['health'], security: [], response: { 200: Status, 503: ProblemSchema } } },
    async () => {
      try {
        await deps.db.$queryRaw`SELECT 1`;
        return { status: 'ok' as const };
      } catch {
        throw CORE_ERRORS.problem('SERVICE_UNAVAILABLE', 'the database does not answer', { headers: { 'Retry-After': '5' } });
      }
    },
  );
};
