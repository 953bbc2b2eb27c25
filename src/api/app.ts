/** Builds the fastify application (routes, auth, problem details, OpenAPI); no listening here. */
import { randomUUID } from 'node:crypto';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance, type FastifyReply } from 'fastify';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod';
import { installAuth } from './auth';
import { closeWithApp, openHotPath } from './hot-path';
import type { CoreConfig } from '../config';
import type { ApiDeps, AppDeps } from './deps';
import { installInputRules } from './input-rules';
import { installObservability } from './observability';
import { declareProblemResponses, openApiTransform, openApiTransformObject } from './openapi';
import { installProblemHandlers, problemClientErrorHandler } from './problem';
import { installRateLimits } from './rate-limit';
import { pgPoolOf } from '../db/client';
import { asyncJobRoutes } from './routes/core/async-jobs';
import { codecServerRoutes } from './routes/core/codec';
import { healthRoutes } from './routes/core/health';
import { webhookRoutes } from './routes/core/webhooks';

export type { ApiDeps, AppDeps } from './deps';

/**
 * Creates the app with zod validation/serialisation, bearer auth, RFC 9457 errors, request ids
 * (`X-Request-Id` honoured or generated, echoed back), `/openapi.json` (OpenAPI 3.1) and `/docs`;
 * the core's routes, then the families' route plugins the caller passes (`routes`, in order).
 */
export async function buildApp<C extends CoreConfig>(appDeps: AppDeps<C>): Promise<FastifyInstance> {
  const hot = await openHotPath(appDeps);
  const { routes, problems, ...rest } = appDeps;
  const deps: ApiDeps<C> = { ...rest, hot };
  const { api } = deps.config;
  const app = Fastify({
    loggerInstance: deps.logger as FastifyBaseLogger,
    bodyLimit: api.bodyLimitBytes,
    // Slow or stalled clients end (408 problem+json) instead of holding a connection forever.
    requestTimeout: api.requestTimeoutMs,
    connectionTimeout: api.connectionTimeoutMs,
    keepAliveTimeout: api.keepAliveTimeoutMs,
    http: {
      headersTimeout: api.headersTimeoutMs,
      requestTimeout: api.requestTimeoutMs,
      // Node checks the two timeouts above on this interval (its default, 30 s, would let them overrun).
      connectionsCheckingInterval: Math.max(50, Math.min(1000, Math.floor(api.headersTimeoutMs / 4))),
      maxHeaderSize: api.maxHeaderBytes,
    },
    clientErrorHandler: problemClientErrorHandler,
    onProtoPoisoning: 'error',
    onConstructorPoisoning: 'error',
    requestIdHeader: false,
    logController: new LogController({ requestIdLogLabel: 'requestId' }),
    // A client's X-Request-Id is kept when it is a sane token, else replaced by a UUID.
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && /^[\w.:-]{1,128}$/.test(given) ? given : randomUUID();
    },
    routerOptions: { ignoreTrailingSlash: true },
    // Router errors (an over-long path parameter …) answer problem+json like everything else.
    frameworkErrors: (err, _req, res) => {
      const reply = res as unknown as FastifyReply;
      void reply
        .code(err.statusCode ?? 400)
        .type('application/problem+json')
        .send({ type: 'urn:problem:validation-failed', title: 'Bad Request', status: err.statusCode ?? 400, code: 'VALIDATION_FAILED', detail: err.code });
    },
  });
  installObservability(app); // first: the request span covers every later hook; GET /metrics
  closeWithApp(app, hot);
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  app.removeContentTypeParser('text/plain'); // JSON only: anything else is 415
  // Before any route: every route (and the not-found handler) goes through the input rules.
  installInputRules(app, { ignoreTrailingSlash: true });
  app.addHook('onSend', async (req, reply) => {
    reply.header('X-Request-Id', req.id);
  });
  declareProblemResponses(app);
  installProblemHandlers(app, { problems });
  const limits = await installRateLimits(app, deps.config, pgPoolOf(deps.db));

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Durable jobs API',
        version: '0.1.0',
        description:
          'Start durable background jobs and poll their status. Every error is application/problem+json (RFC 9457) with a ' +
          'stable `code`. Besides the responses listed per operation, any request may answer 404 NOT_FOUND (unknown path), ' +
          '405 METHOD_NOT_ALLOWED (with `Allow`), 400 BODY_NOT_ALLOWED (a body sent to an operation that declares none), ' +
          '415 UNSUPPORTED_MEDIA_TYPE (a charset other than UTF-8), 408 REQUEST_TIMEOUT, 431 HEADERS_TOO_LARGE or 400 MALFORMED_REQUEST. ' +
          'Every string in a request (body, query, path) must be well-formed Unicode without NUL characters, else 400 VALIDATION_FAILED.',
      },
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
      security: [{ bearer: [] }],
    },
    transform: openApiTransform,
    transformObject: openApiTransformObject,
  });
  app.addHook('onRoute', (route) => {
    if (route.url.startsWith('/docs')) route.config = { ...(route.config as object), auth: 'public' as const, limits: 'exempt' as const };
  });
  await app.register(swaggerUi, { routePrefix: '/docs', uiConfig: { deepLinking: false } });
  app.get('/openapi.json', { config: { auth: 'public', limits: 'exempt' }, schema: { hide: true } }, async () => app.swagger());

  await installAuth(app, deps.db, hot.tokens.resolve, limits);
  await app.register(healthRoutes, deps);
  await app.register(asyncJobRoutes, deps);
  await app.register(webhookRoutes, deps);
  await app.register(codecServerRoutes, deps); // AR-6 codec server for the Temporal Web UI
  for (const plugin of routes) await app.register(plugin, deps);
  return app;
}
