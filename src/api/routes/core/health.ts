/** Liveness and readiness (public). */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { ApiDeps } from '../../deps';

/** `GET /health` (process up) and `GET /ready` (database answers). */
export const healthRoutes: FastifyPluginAsyncZod<ApiDeps> = async (app, deps) => {
  const Status = z.object({ status: z.enum(['ok', 'unavailable']) });
  app.get('/health', { config: { auth: 'public' }, schema: { tags: ['health'], security: [], response: { 200: Status } } }, async () => ({ status: 'ok' as const }));
  app.get(
    '/ready',
    { config: { auth: 'public' }, schema: { tags: ['health'], security: [], response: { 200: Status, 503: Status } } },
    async (_req, reply) => {
      try {
        await deps.db.$queryRaw`SELECT 1`;
        return { status: 'ok' as const };
      } catch {
        return reply.code(503).send({ status: 'unavailable' as const });
      }
    },
  );
};
