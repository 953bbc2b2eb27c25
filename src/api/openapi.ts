/**
 * Keeps the OpenAPI document truthful about errors and bodies, for every route at registration:
 * each 4xx/5xx response is declared `application/problem+json` with the Problem schema, the
 * statuses the server itself can answer on any route are declared, and a JSON body schema must
 * reject unknown fields.
 */
import { STATUS_CODES } from 'node:http';
import type { FastifyInstance, RouteOptions } from 'fastify';
import { jsonSchemaTransform } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { PROBLEM_MEDIA_TYPE, problemResponse } from './problem';

/** Methods whose requests fastify parses a body for (so 400, 408, 413 and 415 can answer). */
const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/** What each status added by {@link declareProblemResponses} means. */
const SERVER_STATUS_DESCRIPTIONS: Record<number, string> = {
  400: 'VALIDATION_FAILED, MALFORMED_JSON (the failed checks in `errors`) or a code of this operation',
  401: 'UNAUTHORIZED: missing, invalid or revoked bearer token',
  408: 'REQUEST_TIMEOUT: the body was not received in time',
  413: 'PAYLOAD_TOO_LARGE: body over the size limit',
  415: 'UNSUPPORTED_MEDIA_TYPE: not application/json, or a charset other than UTF-8',
  500: 'INTERNAL: unexpected error (details in the logs under the X-Request-Id)',
  503: 'SERVICE_UNAVAILABLE: the database (or a dependency) cannot be used; see Retry-After',
};

/** True for a zod object schema that rejects unknown keys (`z.strictObject` / `.strict()`). */
function isStrictObject(schema: unknown): boolean {
  if (!(schema instanceof z.ZodObject)) return true; // not an object: nothing to check here
  return schema.def.catchall instanceof z.ZodNever;
}

interface ResponseMap {
  [status: string]: unknown;
}

/**
 * Installs the `onRoute` hook (before any route is registered). For each route with a schema it
 * adds 500; 401 and 503 unless the route is public; 400 when it validates input; 400, 408, 413, 415
 * for methods with a body; then turns every 4xx/5xx entry given as a bare schema into an
 * `application/problem+json` response. Throws at registration when a body schema is a zod object
 * that accepts unknown fields.
 */
export function declareProblemResponses(app: FastifyInstance): void {
  app.addHook('onRoute', (route: RouteOptions) => {
    const schema = route.schema as (RouteOptions['schema'] & { hide?: boolean; response?: ResponseMap }) | undefined;
    if (!schema) return;
    if (schema.body !== undefined && !isStrictObject(schema.body)) {
      throw new Error(`${String(route.method)} ${route.url}: the body schema must reject unknown fields (z.strictObject)`);
    }
    const methods = ([] as string[]).concat(route.method);
    const isPublic = (route.config as { auth?: unknown } | undefined)?.auth === 'public';
    const response: ResponseMap = { ...schema.response };
    const add = (status: number) => {
      response[status] ??= problemResponse(SERVER_STATUS_DESCRIPTIONS[status] ?? STATUS_CODES[status] ?? 'Error');
    };
    if (schema.body || schema.querystring || schema.params || schema.headers) add(400);
    if (methods.some((m) => BODY_METHODS.has(m))) [400, 408, 413, 415].forEach(add);
    if (!isPublic) [401, 503].forEach(add);
    add(500);
    for (const [status, entry] of Object.entries(response)) {
      if (!/^[45]/.test(status) || (typeof entry === 'object' && entry !== null && 'content' in entry)) continue;
      const description = SERVER_STATUS_DESCRIPTIONS[Number(status)] ?? STATUS_CODES[Number(status)] ?? 'Error';
      response[status] = { description, content: { [PROBLEM_MEDIA_TYPE]: { schema: entry } } };
    }
    route.schema = { ...schema, response };
  });
}

/** Response headers the server sends with some problem answers, declared in the document. */
const PROBLEM_HEADERS: Record<string, Record<string, { description: string; schema: object }>> = {
  503: { 'Retry-After': { description: 'seconds to wait before retrying', schema: { type: 'integer', minimum: 1 } } },
  401: { 'WWW-Authenticate': { description: 'Bearer (RFC 6750)', schema: { type: 'string' } } },
};

/** A response given per media type: `{ description, content: { <type>: { schema, examples? } } }`. */
interface ContentResponse {
  content: Record<string, { examples?: unknown } | undefined>;
  headers?: unknown;
}

const isContentResponse = (r: unknown): r is ContentResponse =>
  typeof r === 'object' && r !== null && typeof (r as { content?: unknown }).content === 'object' && (r as { content?: unknown }).content !== null;

/**
 * Named examples (OpenAPI media type `examples: { <name>: { summary, value } }`) and the `headers`
 * of responses given per media type: the zod transform keeps only each media type's schema and the
 * description, so they are put back.
 */
function keepMediaExamples(source: unknown, target: Record<string, Record<string, unknown>> | undefined): void {
  if (typeof source !== 'object' || source === null || !target) return;
  for (const [status, given] of Object.entries(source)) {
    const made = target[status];
    if (!isContentResponse(given) || !isContentResponse(made)) continue;
    if (given.headers !== undefined) made.headers = given.headers;
    for (const [type, media] of Object.entries(given.content)) {
      const out = made.content[type];
      if (media?.examples !== undefined && out) out.examples = media.examples;
    }
  }
}

/**
 * `@fastify/swagger` transform: fastify-type-provider-zod's {@link jsonSchemaTransform}, named
 * examples of per-media-type responses kept, then the problem responses get their headers
 * (Retry-After on 503, WWW-Authenticate on 401).
 */
export const openApiTransform: typeof jsonSchemaTransform = (input) => {
  const out = jsonSchemaTransform(input);
  const response = (out.schema as { response?: Record<string, Record<string, unknown>> } | undefined)?.response;
  keepMediaExamples((input.schema as { response?: unknown } | undefined)?.response, response);
  for (const [status, headers] of Object.entries(PROBLEM_HEADERS)) {
    const r = response?.[status];
    if (r && 'content' in r) r.headers = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, { ...v.schema, description: v.description }]));
  }
  return out;
};
