/** Builds the fastify application (routes, auth, problem details, OpenAPI); no listening here. */
import { randomUUID } from 'node:crypto';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { jsonSchemaTransform, serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod';
import type { PrismaClient } from '@prisma/client';
import type { Logger } from 'pino';
import type { Config } from '../config';
import type { CardSimilarity } from '../db/similarity';
import type { JobStarter } from '../jobs/starter';
import { installAuth } from './auth';
import { installProblemHandlers } from './problem';
import { asyncJobRoutes } from './routes/async-jobs';
import { cardRoutes } from './routes/cards';
import { healthRoutes } from './routes/health';
import { scrapRoutes } from './routes/scraps';
import { starRecommendationRoutes } from './routes/star-recommendations';
import { githubRoutes } from './routes/github';
import { recallQuizRoutes } from './routes/recall-quizzes';
import { tilRoutes } from './routes/til';

/** Everything the routes need; one instance per process. */
export interface ApiDeps {
  config: Config;
  db: PrismaClient;
  starter: JobStarter;
  similarity: CardSimilarity;
  logger: Logger;
}

/**
 * Creates the app with zod validation/serialisation, bearer auth, RFC 9457 errors, request ids
 * (`X-Request-Id` honoured or generated, echoed back), `/openapi.json` (OpenAPI 3.1) and `/docs`.
 */
export async function buildApp(deps: ApiDeps): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: deps.logger as FastifyBaseLogger,
    bodyLimit: deps.config.api.bodyLimitBytes,
    requestIdHeader: 'x-request-id',
    logController: new LogController({ requestIdLogLabel: 'requestId' }),
    genReqId: () => randomUUID(),
    routerOptions: { ignoreTrailingSlash: true },
  });
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  app.removeContentTypeParser('text/plain'); // JSON only: anything else is 415
  app.addHook('onSend', async (req, reply) => {
    reply.header('X-Request-Id', req.id);
  });
  installProblemHandlers(app);

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: 'Durable jobs API', version: '0.1.0', description: 'Start durable background jobs and poll their status.' },
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
      security: [{ bearer: [] }],
    },
    transform: jsonSchemaTransform,
  });
  app.addHook('onRoute', (route) => {
    if (route.url.startsWith('/docs')) route.config = { ...(route.config as object), public: true };
  });
  await app.register(swaggerUi, { routePrefix: '/docs', uiConfig: { deepLinking: false } });
  app.get('/openapi.json', { config: { public: true }, schema: { hide: true } }, async () => app.swagger());

  installAuth(app, deps.db);
  await app.register(healthRoutes, deps);
  await app.register(scrapRoutes, deps);
  await app.register(asyncJobRoutes, deps);
  await app.register(cardRoutes, deps);
  await app.register(starRecommendationRoutes, deps);
  await app.register(githubRoutes, deps);
  await app.register(tilRoutes, deps);
  await app.register(recallQuizRoutes, deps);
  return app;
}
