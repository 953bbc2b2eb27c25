/**
 * RFC 9457 problem details with stable codes, and the API's single error handler: a thrown
 * {@link DomainError} answers with the status and title its code has in the error registry
 * (src/core/errors.ts); framework, validation and database errors map to the core's codes.
 */
import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply } from 'fastify';
import { hasZodFastifySchemaValidationErrors, isResponseSerializationError } from 'fastify-type-provider-zod';
import { Prisma } from '@prisma/client';
import { z } from 'zod';
import { DomainError } from '../core/domain-error';
import { CORE_ERROR_REGISTRY, type CoreProblemCode } from '../core/errors';
import { resolveProblem, type ProblemRegistry } from '../core/problems';
import { shortName } from '../core/text';
import { databaseUnavailability } from '../db/unavailable';
import { requestTraceId } from './observability';

/** Media type of every error answer (RFC 9457). */
export const PROBLEM_MEDIA_TYPE = 'application/problem+json';

/** Most entries of `errors[]` in one answer (and unknown field names listed); the rest are counted. */
export const MAX_LISTED_ERRORS = 20;

/** Response schema of a problem (for OpenAPI); open to the extension members of a problem type (RFC 9457 section 3.2). */
export const ProblemSchema = z
  .looseObject({
    type: z.string().describe('urn:problem:<code in kebab case>'),
    title: z.string(),
    status: z.number().int().min(400).max(599),
    code: z.string().describe('stable machine-readable code, e.g. VALIDATION_FAILED'),
    detail: z.string().optional(),
    instance: z.string().optional().describe('the request path'),
    errors: z
      .array(z.object({ path: z.string().describe('e.g. body.content, querystring.date'), message: z.string() }))
      .optional()
      .describe(`the failed checks: at most ${MAX_LISTED_ERRORS}, then one entry counting the rest`),
    /** 5xx only: the request's OpenTelemetry trace id (32 hex digits). */
    traceId: z.string().optional(),
  })
  .meta({ id: 'Problem', examples: [{ type: 'urn:problem:validation-failed', title: 'Validation Failed', status: 400, code: 'VALIDATION_FAILED', detail: 'body.content: must not be empty or whitespace only', instance: '/scraps', errors: [{ path: 'body.content', message: 'must not be empty or whitespace only' }] }] });

/** An OpenAPI response object: `application/problem+json` with {@link ProblemSchema}. */
export function problemResponse(description: string) {
  return { description, content: { [PROBLEM_MEDIA_TYPE]: { schema: ProblemSchema } } };
}

/** The problem document of an answer (`type` derived from `code`). */
export function problemBody(status: number, code: string, title: string, detail?: string, extra?: object) {
  return { type: `urn:problem:${code.toLowerCase().replace(/_/g, '-')}`, title, status, code, detail, ...extra };
}

function send(reply: FastifyReply, status: number, code: string, title: string, detail?: string, extra?: object) {
  // A 5xx names its trace, so an operator finds the request's spans and log lines.
  const traceId = status >= 500 ? requestTraceId(reply.request) : undefined;
  return reply
    .code(status)
    .type(PROBLEM_MEDIA_TYPE)
    .send(problemBody(status, code, title, detail, { instance: reply.request.url.split('?')[0], ...extra, ...(traceId ? { traceId } : {}) }));
}

interface ValidationIssue {
  instancePath?: string;
  keyword?: string;
  message?: string;
  params?: { keys?: unknown };
}

/**
 * `errors[]` of a validation failure: one entry per failed check, unknown fields each named by path
 * (`body.extra`), at most {@link MAX_LISTED_ERRORS} in all plus one entry counting the rest.
 */
export function validationErrors(where: string, issues: readonly ValidationIssue[]): { path: string; message: string }[] {
  const out: { path: string; message: string }[] = [];
  let more = 0;
  for (const v of issues) {
    const segments = (v.instancePath ?? '').split('/').filter(Boolean);
    const path = [where, ...segments].join('.');
    const keys = v.keyword === 'unrecognized_keys' && Array.isArray(v.params?.keys) ? (v.params.keys as unknown[]).map(String) : undefined;
    const entries = keys ? keys.map((k) => ({ path: `${path}.${shortName(k)}`, message: 'unknown field' })) : [{ path, message: v.message ?? 'invalid' }];
    for (const e of entries) {
      if (out.length < MAX_LISTED_ERRORS) out.push(e);
      else more++;
    }
  }
  if (more > 0) out.push({ path: where, message: `${more} more errors not listed` });
  return out;
}

/** Answers problem `code` of the core with its registered status and title. */
function sendCore(reply: FastifyReply, code: CoreProblemCode, detail?: string, extra?: object) {
  const { status, title } = CORE_ERROR_REGISTRY.problems.get(code)!;
  return send(reply, status, code, title, detail, extra);
}

/**
 * Answers `err` with the status and title its code has in `problems` ({@link resolveProblem}); 503
 * with `Retry-After: 1` unless the error sets its own; extension members kept. An unregistered code
 * or status is a bug: 500 INTERNAL, logged.
 */
function sendDomainError(reply: FastifyReply, err: DomainError, problems: ProblemRegistry) {
  const p = resolveProblem(problems, err);
  if (!p) {
    reply.request.log.error({ err, code: err.code, status: err.status }, 'DomainError with an unregistered problem code or status');
    return sendCore(reply, 'INTERNAL', 'an unexpected error occurred; see logs with this request id');
  }
  const { status, title } = p;
  if (status === 503) reply.header('Retry-After', '1');
  for (const [name, value] of Object.entries(err.headers ?? {})) reply.header(name, value);
  // Extension members (RFC 9457 section 3.2) would be dropped by the route's Problem schema serializer.
  if (err.members) reply.serializer(JSON.stringify);
  return send(reply, status, err.code, title, err.detail, { ...(err.errors ? { errors: err.errors } : {}), ...err.members });
}

/** Options of {@link installProblemHandlers}. */
export interface ProblemHandlerOptions {
  /** The problem codes of thrown DomainErrors (default: the core's alone; the app passes the families' registry). */
  problems?: ProblemRegistry;
}

/**
 * Installs the error and not-found handlers: every failure becomes problem+json; 5xx details hidden.
 * (404 and 405 are decided by the input rules before any body is read; the not-found handler
 * answers 404 where they are not installed.) An unusable database is 503 SERVICE_UNAVAILABLE with
 * `Retry-After` (its transaction rolled back).
 */
export function installProblemHandlers(app: FastifyInstance, opts: ProblemHandlerOptions = {}): void {
  const problems = opts.problems ?? CORE_ERROR_REGISTRY.problems;
  app.setNotFoundHandler((req, reply) => {
    const path = req.url.split('?')[0] ?? '/';
    return sendCore(reply, 'NOT_FOUND', `no route ${req.method} ${path}`);
  });

  app.setErrorHandler((err: FastifyError, req, reply) => {
    if (err instanceof DomainError) return sendDomainError(reply, err, problems);
    if (hasZodFastifySchemaValidationErrors(err)) {
      const errors = validationErrors(err.validationContext ?? 'body', err.validation);
      return sendCore(reply, 'VALIDATION_FAILED', errors.map((e) => `${e.path}: ${e.message}`).join('; '), { errors });
    }
    switch (err.code) {
      case 'FST_ERR_CTP_BODY_TOO_LARGE':
        return sendCore(reply, 'PAYLOAD_TOO_LARGE', err.message);
      case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
        return sendCore(reply, 'UNSUPPORTED_MEDIA_TYPE', 'send application/json');
      case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      case 'FST_ERR_CTP_INVALID_JSON_BODY':
        return sendCore(reply, 'MALFORMED_JSON', err.message);
      default:
        break;
    }
    if (err instanceof SyntaxError && err.statusCode === 400) return sendCore(reply, 'MALFORMED_JSON', err.message);
    if (err instanceof Prisma.PrismaClientKnownRequestError && err.code === 'P2002') {
      return sendCore(reply, 'DUPLICATE_RESOURCE', 'the resource already exists');
    }
    const unavailable = databaseUnavailability(err);
    if (unavailable) {
      req.log.warn({ err, unavailable }, 'database unavailable');
      reply.header('Retry-After', unavailable === 'busy' ? '1' : '5');
      const detail = unavailable === 'busy' ? 'the database is busy; retry shortly' : 'the database cannot be reached; retry later';
      return sendCore(reply, 'SERVICE_UNAVAILABLE', detail);
    }
    if (typeof err.statusCode === 'number' && err.statusCode >= 400 && err.statusCode < 500) {
      return send(reply, err.statusCode, err.statusCode === 405 ? 'METHOD_NOT_ALLOWED' : 'VALIDATION_FAILED', 'Bad Request', err.message);
    }
    if (isResponseSerializationError(err)) req.log.error({ err }, 'response failed its schema');
    else req.log.error({ err }, 'unhandled error');
    return sendCore(reply, 'INTERNAL', 'an unexpected error occurred; see logs with this request id');
  });
}

/**
 * fastify `clientErrorHandler`: errors Node's HTTP parser raises before any route runs answer
 * problem+json too: 408 REQUEST_TIMEOUT (headers or body not received within the server's
 * timeouts), 431 HEADERS_TOO_LARGE (over `maxHeaderSize`), else 400 MALFORMED_REQUEST. The
 * connection is then closed (its remaining bytes cannot be trusted).
 */
export function problemClientErrorHandler(this: FastifyInstance, err: Error & { code?: string }, socket: Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  // An answer already started on this connection (e.g. a 401 sent before the body arrived) must not
  // be followed by raw bytes: just close.
  const inFlight = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (inFlight?.headersSent) {
    socket.destroy(err);
    return;
  }
  const [code, detail]: [CoreProblemCode, string] =
    err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? ['REQUEST_TIMEOUT', 'the request was not received in time']
      : err.code === 'HPE_HEADER_OVERFLOW'
        ? ['HEADERS_TOO_LARGE', 'the request headers are larger than the server accepts']
        : ['MALFORMED_REQUEST', 'the request is not valid HTTP/1.1'];
  this.log.debug({ err }, 'client error');
  const { status, title } = CORE_ERROR_REGISTRY.problems.get(code)!;
  const body = JSON.stringify(problemBody(status, code, title, detail));
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${title}\r\nContent-Type: ${PROBLEM_MEDIA_TYPE}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(err);
}
