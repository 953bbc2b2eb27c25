/** RFC 9457 problem details with stable codes, and the API's single error handler. */
import type { FastifyError, FastifyInstance, FastifyReply } from 'fastify';
import { hasZodFastifySchemaValidationErrors, isResponseSerializationError } from 'fastify-type-provider-zod';
import { Prisma } from '@prisma/client';
import { z } from 'zod';
import { DomainError, type DomainErrorKind } from '../core/domain-error';

/**
 * Registry of the stable machine-readable problem codes: the API's own below; each family adds its
 * codes by module augmentation (`declare module '.../api/problem' { interface ProblemCodes … }`),
 * so a code is type-checked wherever it is thrown and shared code names no family.
 */
export interface ProblemCodes {
  VALIDATION_FAILED: true;
  MALFORMED_JSON: true;
  UNSUPPORTED_MEDIA_TYPE: true;
  PAYLOAD_TOO_LARGE: true;
  UNAUTHORIZED: true;
  FORBIDDEN: true;
  NOT_FOUND: true;
  METHOD_NOT_ALLOWED: true;
  DUPLICATE_RESOURCE: true;
  JOB_NOT_RETRYABLE: true;
  RETRY_LIMIT_REACHED: true;
  SERVICE_UNAVAILABLE: true;
  INTERNAL: true;
}

/** A registered problem code. */
export type ProblemCode = keyof ProblemCodes;

/** The API's own problem codes (families list theirs in their manifests). */
export const CORE_PROBLEM_CODES = [
  'VALIDATION_FAILED', 'MALFORMED_JSON', 'UNSUPPORTED_MEDIA_TYPE', 'PAYLOAD_TOO_LARGE', 'UNAUTHORIZED', 'FORBIDDEN',
  'NOT_FOUND', 'METHOD_NOT_ALLOWED', 'DUPLICATE_RESOURCE', 'JOB_NOT_RETRYABLE', 'RETRY_LIMIT_REACHED', 'SERVICE_UNAVAILABLE', 'INTERNAL',
] as const satisfies readonly ProblemCode[];

/** HTTP status of each {@link DomainErrorKind}. */
export const KIND_STATUS: Readonly<Record<DomainErrorKind, number>> = {
  invalid: 400,
  forbidden: 403,
  'not-found': 404,
  conflict: 409,
  unprocessable: 422,
  'bad-gateway': 502,
  unavailable: 503,
};

/** Response schema of a problem (for OpenAPI). */
export const ProblemSchema = z
  .object({
    type: z.string(),
    title: z.string(),
    status: z.number().int(),
    code: z.string(),
    detail: z.string().optional(),
    instance: z.string().optional(),
    errors: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
  })
  .meta({ id: 'Problem' });

/** Throw from handlers to answer with a problem document. */
export class ProblemError extends Error {
  constructor(
    readonly status: number,
    readonly code: ProblemCode,
    readonly title: string,
    readonly detail?: string,
  ) {
    super(detail ?? title);
  }
}

/** 404 NOT_FOUND: the resource does not exist or belongs to another user (never 403, no leak). */
export function notFound(what: string): ProblemError {
  return new ProblemError(404, 'NOT_FOUND', 'Not Found', `${what} not found`);
}

function send(reply: FastifyReply, status: number, code: ProblemCode, title: string, detail?: string, extra?: object) {
  return reply
    .code(status)
    .type('application/problem+json')
    .send({ type: `urn:problem:${code.toLowerCase().replace(/_/g, '-')}`, title, status, code, detail, instance: reply.request.url, ...extra });
}

/** Installs the error and not-found handlers: every failure becomes problem+json; 5xx details hidden. */
export function installProblemHandlers(app: FastifyInstance): void {
  app.setNotFoundHandler((req, reply) => send(reply, 404, 'NOT_FOUND', 'Not Found', `no route ${req.method} ${req.url.split('?')[0]}`));

  app.setErrorHandler((err: FastifyError, req, reply) => {
    if (err instanceof ProblemError) return send(reply, err.status, err.code, err.title, err.detail);
    if (err instanceof DomainError) {
      if (err.kind === 'unavailable') reply.header('Retry-After', '1');
      return send(reply, KIND_STATUS[err.kind], err.code as ProblemCode, err.title, err.detail);
    }
    if (hasZodFastifySchemaValidationErrors(err)) {
      const errors = err.validation.map((v) => ({
        path: `${err.validationContext ?? 'body'}${v.instancePath ? v.instancePath.replace(/\//g, '.') : ''}`,
        message: v.message ?? 'invalid',
      }));
      return send(reply, 400, 'VALIDATION_FAILED', 'Validation Failed', errors.map((e) => `${e.path}: ${e.message}`).join('; '), { errors });
    }
    switch (err.code) {
      case 'FST_ERR_CTP_BODY_TOO_LARGE':
        return send(reply, 413, 'PAYLOAD_TOO_LARGE', 'Payload Too Large', err.message);
      case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
        return send(reply, 415, 'UNSUPPORTED_MEDIA_TYPE', 'Unsupported Media Type', 'send application/json');
      case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      case 'FST_ERR_CTP_INVALID_JSON_BODY':
        return send(reply, 400, 'MALFORMED_JSON', 'Malformed JSON', err.message);
      default:
        break;
    }
    if (err instanceof SyntaxError && err.statusCode === 400) return send(reply, 400, 'MALFORMED_JSON', 'Malformed JSON', err.message);
    if (err instanceof Prisma.PrismaClientKnownRequestError && err.code === 'P2002') {
      return send(reply, 409, 'DUPLICATE_RESOURCE', 'Duplicate Resource', 'the resource already exists');
    }
    if (err instanceof Prisma.PrismaClientKnownRequestError && (err.code === 'P2028' || err.code === 'P2024')) {
      req.log.warn({ err }, 'database busy');
      reply.header('Retry-After', '1');
      return send(reply, 503, 'SERVICE_UNAVAILABLE', 'Service Unavailable', 'the database is busy; retry shortly');
    }
    if (typeof err.statusCode === 'number' && err.statusCode >= 400 && err.statusCode < 500) {
      return send(reply, err.statusCode, err.statusCode === 405 ? 'METHOD_NOT_ALLOWED' : 'VALIDATION_FAILED', 'Bad Request', err.message);
    }
    if (isResponseSerializationError(err)) req.log.error({ err }, 'response failed its schema');
    else req.log.error({ err }, 'unhandled error');
    return send(reply, 500, 'INTERNAL', 'Internal Server Error', 'an unexpected error occurred; see logs with this request id');
  });
}
