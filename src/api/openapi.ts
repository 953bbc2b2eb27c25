/**
 * Keeps the OpenAPI document truthful about errors and bodies, for every route at registration:
 * each 4xx/5xx response is declared `application/problem+json` with the Problem schema, the
 * statuses the server itself can answer on any route are declared, and a JSON body schema must
 * reject unknown fields. The document transforms give every operation a stable `operationId`,
 * register the security schemes a route declares (`x-security-schemes`), mark a body that may be
 * absent as not required, and state the rule of a `pattern` with Unicode property classes in words
 * (generators cannot build from `\p{…}`).
 */
import { STATUS_CODES } from 'node:http';
import type { FastifyInstance, RouteOptions } from 'fastify';
import { jsonSchemaTransform, jsonSchemaTransformObject } from 'fastify-type-provider-zod';
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
  414: 'VALIDATION_FAILED (detail FST_ERR_MAX_PARAM_LENGTH): a path parameter over the router\'s length limit',
  415: 'UNSUPPORTED_MEDIA_TYPE: not application/json, or a charset other than UTF-8',
  500: 'INTERNAL: unexpected error (details in the logs under the X-Request-Id)',
  503: 'SERVICE_UNAVAILABLE: the database (or a dependency) cannot be used; see Retry-After',
};

/** True for a zod object schema (optional or not) that rejects unknown keys (`z.strictObject` / `.strict()`). */
function isStrictObject(schema: unknown): boolean {
  if (schema instanceof z.ZodOptional || schema instanceof z.ZodNullable) return isStrictObject(schema.unwrap());
  if (!(schema instanceof z.ZodObject)) return true; // not an object: nothing to check here
  return schema.def.catchall instanceof z.ZodNever;
}

interface ResponseMap {
  [status: string]: unknown;
}

/**
 * Installs the `onRoute` hook (before any route is registered). For each route with a schema it
 * adds 500; 401 and 503 unless the route is public; 400 when it validates input; 414 when it has
 * path parameters; 400, 408, 413, 415 for methods with a body; then turns every 4xx/5xx entry given
 * as a bare schema into an `application/problem+json` response. Throws at registration when a body schema is a zod object
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
    if (schema.params) add(414);
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
 * A stable, unique `operationId` from an operation's method and path: the method in lower case,
 * then each path segment in PascalCase, a parameter as `By<Name>`. `GET /api/v1/ai-runs/:aiRunId`
 * (or `{aiRunId}`) → `getApiV1AiRunsByAiRunId`. Links name their target operation with it.
 */
export function operationIdOf(method: string, url: string): string {
  const words = url.split('/').filter(Boolean).map((segment) => {
    const param = /^(?::(\w+)|\{(\w+)\})$/.exec(segment);
    const name = param ? `by-${param[1] ?? param[2]}` : segment;
    return name
      .split(/[^A-Za-z0-9]+/)
      .filter(Boolean)
      .map((w) => w[0]!.toUpperCase() + w.slice(1))
      .join('');
  });
  return method.toLowerCase() + words.join('');
}

/** An OpenAPI Link object (`responses[status].links[name]`). */
export interface OpenApiLink {
  operationId: string;
  parameters: Record<string, string>;
  description: string;
}

/**
 * A link from a response to the operation `target` (`'GET /path/:param'`, as registered: the status
 * read, or a command on the created resource), whose parameters are runtime expressions such as
 * `$response.body#/jobId` or `$request.path.summaryId`.
 * For the route option `links: { <status>: { <name>: statusLink(…) } }` (@fastify/swagger).
 */
export function statusLink(target: `${'GET' | 'POST'} /${string}`, parameters: Record<string, string>, description: string): OpenApiLink {
  const [method, url] = target.split(' ') as [string, string];
  return { operationId: operationIdOf(method, url), parameters, description };
}

/** Route schema key of the security schemes a route's `security` names beyond the app's own. */
export const SECURITY_SCHEMES_KEY = 'x-security-schemes';

/** Operation key (set by {@link openApiTransform}, removed by {@link openApiTransformObject}) of a route whose body may be absent. */
const OPTIONAL_BODY_KEY = 'x-optional-body';

interface TransformedSchema {
  operationId?: string;
  [OPTIONAL_BODY_KEY]?: boolean;
  response?: Record<string, Record<string, unknown>>;
  [SECURITY_SCHEMES_KEY]?: Record<string, unknown>;
}

/**
 * `@fastify/swagger` transform: fastify-type-provider-zod's {@link jsonSchemaTransform}, named
 * examples of per-media-type responses kept, then the problem responses get their headers
 * (Retry-After on 503; WWW-Authenticate on the 401 of a bearer-authenticated route), the operation
 * its {@link operationIdOf} unless it names one, and the route's `x-security-schemes` are added to
 * the document's components (before the operation is built, so its `security` can name them).
 */
export const openApiTransform: typeof jsonSchemaTransform = (input) => {
  const out = jsonSchemaTransform(input);
  const schema = out.schema as TransformedSchema | undefined;
  const response = schema?.response;
  keepMediaExamples((input.schema as { response?: unknown } | undefined)?.response, response);
  const route = (input as { route?: { method?: string | string[]; config?: { auth?: unknown } } }).route;
  const bearer = route?.config?.auth !== 'public';
  for (const [status, headers] of Object.entries(PROBLEM_HEADERS)) {
    if (status === '401' && !bearer) continue;
    const r = response?.[status];
    if (r && 'content' in r) r.headers = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, { ...v.schema, description: v.description }]));
  }
  if (schema) {
    const body = (input.schema as { body?: unknown } | undefined)?.body;
    if (body instanceof z.ZodType && body.safeParse(undefined).success) schema[OPTIONAL_BODY_KEY] = true;
    const method = ([] as string[]).concat(route?.method ?? 'GET')[0]!;
    schema.operationId ??= operationIdOf(method, out.url);
    const schemes = schema[SECURITY_SCHEMES_KEY];
    if (schemes) {
      const doc = (input as { openapiObject?: { components?: { securitySchemes?: Record<string, unknown> } } }).openapiObject;
      if (doc) {
        doc.components ??= {};
        doc.components.securitySchemes = { ...doc.components.securitySchemes, ...schemes };
      }
      delete schema[SECURITY_SCHEMES_KEY];
    }
  }
  return out;
};

/** True when a regular expression source uses Unicode property escapes (`\p{…}` / `\P{…}`). */
const usesPropertyClasses = (pattern: string) => /\\[pP]\{/.test(pattern);

/**
 * Every schema in `node` whose `pattern` uses Unicode property classes loses the `pattern` (the
 * server keeps enforcing it): the rule moves to `description` in words and, verbatim, to
 * `x-server-pattern` (ECMA-262 with the `u` flag).
 */
function statePropertyPatterns(node: unknown): void {
  const stack: unknown[] = [node];
  while (stack.length > 0) {
    const v = stack.pop();
    if (Array.isArray(v)) {
      stack.push(...v);
      continue;
    }
    if (typeof v !== 'object' || v === null) continue;
    const o = v as Record<string, unknown>;
    if (typeof o.pattern === 'string' && usesPropertyClasses(o.pattern)) {
      const rule = `Checked by the server: must match the ECMA-262 pattern /${o.pattern}/u (in x-server-pattern), which uses Unicode property classes.`;
      o.description = typeof o.description === 'string' && o.description.length > 0 ? `${o.description}. ${rule}` : rule;
      o['x-server-pattern'] = o.pattern;
      delete o.pattern;
    }
    stack.push(...Object.values(o));
  }
}

/**
 * An operation whose body schema accepts no body (a zod `.optional()` or `.nullish()` body) gets
 * `requestBody.required: false` (@fastify/swagger writes `true` for every body schema).
 */
function markOptionalBodies(doc: unknown): void {
  const paths = (doc as { paths?: Record<string, Record<string, unknown>> }).paths ?? {};
  for (const item of Object.values(paths)) {
    for (const op of Object.values(item)) {
      if (typeof op !== 'object' || op === null || !(OPTIONAL_BODY_KEY in op)) continue;
      const o = op as { [OPTIONAL_BODY_KEY]?: boolean; requestBody?: { required?: boolean } };
      if (o.requestBody) o.requestBody.required = false;
      delete o[OPTIONAL_BODY_KEY];
    }
  }
}

/**
 * `@fastify/swagger` object transform: fastify-type-provider-zod's {@link jsonSchemaTransformObject}
 * (the registered component schemas), then {@link statePropertyPatterns} over the whole document
 * and {@link markOptionalBodies}.
 */
export const openApiTransformObject: typeof jsonSchemaTransformObject = (input) => {
  const doc = jsonSchemaTransformObject(input);
  statePropertyPatterns(doc);
  markOptionalBodies(doc);
  return doc;
};
