/** Builds the fastify application (routes, auth, problem details, OpenAPI); no listening here. */
import { randomUUID } from 'node:crypto';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance, type FastifyReply } from 'fastify';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { jsonSchemaTransform, jsonSchemaTransformObject, serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod';
import { FAMILIES, TARGET_HOOKS } from '../families';
import { installAuth } from './auth';
import type { ApiDeps, AppDeps } from './deps';
import { installProblemHandlers, ProblemError } from './problem';
import { asyncJobRoutes } from './routes/core/async-jobs';
import { healthRoutes } from './routes/core/health';

export type { ApiDeps, AppDeps } from './deps';

/**
 * Path (e.g. `.title`) of the first string PostgreSQL cannot store (a NUL character, or a lone
 * UTF-16 surrogate), searching objects and arrays; undefined when every string is storable.
 */
export function findUnstorableString(value: unknown, path = ''): string | undefined {
  if (typeof value === 'string') return value.includes('\u0000') || !value.isWellFormed() ? path : undefined;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const bad = findUnstorableString(value[i], `${path}[${i}]`);
      if (bad !== undefined) return bad;
    }
  } else if (value !== null && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      const bad = findUnstorableString(v, `${path}.${k}`);
      if (bad !== undefined) return bad;
    }
  }
  return undefined;
}

/**
 * Creates the app with zod validation/serialisation, bearer auth, RFC 9457 errors, request ids
 * (`X-Request-Id` honoured or generated, echoed back), `/openapi.json` (OpenAPI 3.1) and `/docs`.
 */
export async function buildApp(appDeps: AppDeps): Promise<FastifyInstance> {
  const deps: ApiDeps = { ...appDeps, targets: TARGET_HOOKS };
  const app = Fastify({
    loggerInstance: deps.logger as FastifyBaseLogger,
    bodyLimit: deps.config.api.bodyLimitBytes,
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
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  app.removeContentTypeParser('text/plain'); // JSON only: anything else is 415
  app.addHook('onSend', async (req, reply) => {
    reply.header('X-Request-Id', req.id);
  });
  installProblemHandlers(app);
  app.addHook('preValidation', async (req) => {
    for (const [where, value] of [['body', req.body], ['querystring', req.query], ['params', req.params]] as const) {
      const bad = findUnstorableString(value);
      if (bad !== undefined) {
        throw new ProblemError(400, 'VALIDATION_FAILED', 'Validation Failed', `${where}${bad}: strings must be well-formed Unicode without NUL characters`);
      }
    }
  });

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: 'Durable jobs API', version: '0.1.0', description: 'Start durable background jobs and poll their status.' },
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
      security: [{ bearer: [] }],
    },
    transform: jsonSchemaTransform,
    transformObject: jsonSchemaTransformObject,
  });
  app.addHook('onRoute', (route) => {
    if (route.url.startsWith('/docs')) route.config = { ...(route.config as object), auth: 'public' as const };
  });
  await app.register(swaggerUi, { routePrefix: '/docs', uiConfig: { deepLinking: false } });
  app.get('/openapi.json', { config: { auth: 'public' }, schema: { hide: true } }, async () => app.swagger());

  await installAuth(app, deps.db);
  await app.register(healthRoutes, deps);
  await app.register(asyncJobRoutes, deps);
  for (const family of FAMILIES) await app.register(family.routes, deps);
  return app;
}
