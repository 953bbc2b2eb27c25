/**
 * The API's input rules, one plugin every route goes through by construction (installed on the root
 * before any route is registered; its hooks apply to every route and to the not-found handler):
 * 1. onRequest, on the request line and headers, before authentication and before any body is
 *    read: a path no route serves → 404 NOT_FOUND; a served path with another method (any method
 *    Node's HTTP parser accepts, QUERY and PROPFIND included) → 405 METHOD_NOT_ALLOWED with `Allow`
 *    (RFC 9110 section 15.5.6); a request with a body (Content-Length above 0, or Transfer-Encoding)
 *    whose Content-Type names a charset other than UTF-8 → 415 UNSUPPORTED_MEDIA_TYPE; a body on a
 *    route that declares none (no `schema.body`, no `config.signedBody`) → 400 BODY_NOT_ALLOWED.
 *    (The route's shape is public: /openapi.json tells it.)
 * 2. The one `application/json` parser (json-body.ts): charset, UTF-8, depth, JSON. Its exact bytes
 *    stay readable ({@link rawBodyOf}); a route with `config.signedBody` verifies them before
 *    anything parses them (an unsigned request learns nothing of the body's rules).
 * 3. preValidation, before the schemas and so before idempotency fingerprints and workflow ids: the
 *    strings of body, querystring and params must be storable (no NUL, no lone surrogate: 400
 *    VALIDATION_FAILED), are NFC-normalised, and UUIDs in path params and in fields named `id`,
 *    `…Id`, `…Ids` (`…_id`, `…_ids`) are lower-cased ({@link canonicaliseInput}).
 * Blank text (only white space or default-ignorable characters) is defined once in src/core/blank.ts.
 */
import FindMyWay, { type HTTPMethod } from 'find-my-way';
import type { FastifyInstance, FastifyRequest, RouteOptions } from 'fastify';
import { CORE_ERRORS } from '../core/errors';
import { charsetProblem, jsonBytesReader } from './json-body';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * The route takes a signed body: called with the body's exact bytes (empty when none came)
     * before anything parses them; throws (e.g. 401) to refuse the request. The parsed body then
     * reaches the handler as `request.body` (canonicalised like any other), for the route to validate.
     */
    signedBody?: (req: FastifyRequest, raw: Buffer) => void | Promise<void>;
  }
}

/** Methods listed in `Allow` (HEAD wherever GET is: fastify answers it). */
const METHODS: HTTPMethod[] = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

/** One registered route as the input rules see it. */
export interface RegisteredRoute {
  method: string;
  /** The URL pattern, e.g. `/api/v1/ai-runs/:aiRunId`. */
  url: string;
  /** True when the route declares a body (`schema.body` or `config.signedBody`). */
  takesBody: boolean;
}

const registered = new WeakMap<FastifyInstance, RegisteredRoute[]>();
const rawBodies = new WeakMap<FastifyRequest, Buffer>();
const verified = new WeakSet<FastifyRequest>();

/** Every route registered on `app` since {@link installInputRules} (one entry per method). */
export function registeredRoutes(app: FastifyInstance): readonly RegisteredRoute[] {
  return registered.get(app) ?? [];
}

/** The exact bytes of the request's JSON body; empty when it had none. */
export function rawBodyOf(req: FastifyRequest): Buffer {
  return rawBodies.get(req) ?? Buffer.alloc(0);
}

const takesBody = (schema: unknown, config: unknown): boolean =>
  (schema as { body?: unknown } | undefined)?.body !== undefined || typeof (config as { signedBody?: unknown } | undefined)?.signedBody === 'function';

const hasBody = (req: FastifyRequest): boolean => {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
};

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const ID_FIELD = /^ids?$|(?:Ids?|_ids?)$/;

/**
 * Canonicalises request input in place and returns it: every string NFC-normalised; a string that is
 * a UUID lower-cased when `allIds` (path params) or when its field is named `id`, `ids`, `…Id`,
 * `…Ids`, `…_id` or `…_ids` (array elements of such a field too). Iterative: any nesting is safe.
 */
export function canonicaliseInput<T>(value: T, allIds = false): T {
  const fix = (s: string, id: boolean): string => {
    const n = s.normalize('NFC');
    return id && UUID.test(n) ? n.toLowerCase() : n;
  };
  if (typeof value === 'string') return fix(value, allIds) as T;
  if (value === null || typeof value !== 'object') return value;
  const stack: [Record<string, unknown> | unknown[], boolean][] = [[value as Record<string, unknown>, allIds]];
  while (stack.length > 0) {
    const [node, id] = stack.pop()!;
    if (Array.isArray(node)) {
      for (let i = 0; i < node.length; i++) {
        const v = node[i];
        if (typeof v === 'string') node[i] = fix(v, id);
        else if (v !== null && typeof v === 'object') stack.push([v as Record<string, unknown>, allIds]);
      }
    } else {
      for (const key of Object.keys(node)) {
        const v = node[key];
        const idField = allIds || ID_FIELD.test(key);
        if (typeof v === 'string') node[key] = fix(v, idField);
        else if (Array.isArray(v)) stack.push([v, idField]);
        else if (v !== null && typeof v === 'object') stack.push([v as Record<string, unknown>, allIds]);
      }
    }
  }
  return value;
}

/**
 * Path (e.g. `.title`) of the first string PostgreSQL cannot store (a NUL character, or a lone
 * UTF-16 surrogate), searching objects and arrays; undefined when every string is storable.
 * Iterative (an explicit stack), so no nesting depth can overflow the call stack.
 */
export function findUnstorableString(value: unknown, path = ''): string | undefined {
  const stack: [unknown, string][] = [[value, path]];
  while (stack.length > 0) {
    const [v, p] = stack.pop()!;
    if (typeof v === 'string') {
      if (v.includes('\u0000') || !v.isWellFormed()) return p;
    } else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push([v[i], `${p}[${i}]`]);
    } else if (v !== null && typeof v === 'object') {
      const entries = Object.entries(v);
      for (let i = entries.length - 1; i >= 0; i--) stack.push([entries[i]![1], `${p}.${entries[i]![0]}`]);
    }
  }
  return undefined;
}

async function verifySigned(req: FastifyRequest, raw: Buffer): Promise<void> {
  const verify = req.routeOptions.config.signedBody;
  if (!verify || verified.has(req)) return;
  verified.add(req);
  await verify(req, raw);
}

/**
 * Installs the input rules (see the module comment) on the root `app`, before any route and before
 * the problem handlers. `ignoreTrailingSlash` must match the app's router option.
 */
export function installInputRules(app: FastifyInstance, opts: { ignoreTrailingSlash?: boolean } = {}): void {
  const routes: RegisteredRoute[] = [];
  registered.set(app, routes);
  const router = FindMyWay({ ignoreTrailingSlash: opts.ignoreTrailingSlash ?? false });
  app.addHook('onRoute', (route: RouteOptions) => {
    for (const method of ([] as string[]).concat(route.method)) {
      const m = method.toUpperCase();
      routes.push({ method: m, url: route.url, takesBody: takesBody(route.schema, route.config) });
      if (METHODS.includes(m as HTTPMethod) && !router.hasRoute(m as HTTPMethod, route.url)) router.on(m as HTTPMethod, route.url, () => undefined);
    }
  });
  const allowedAt = (path: string): string[] => {
    const served = METHODS.filter((m) => router.find(m, path) !== null);
    if (served.includes('GET') && !served.includes('HEAD')) served.splice(1, 0, 'HEAD');
    return served;
  };

  // Decided on the request line and headers alone, before any later hook (authentication, CORS
  // preflights) and before any body is read.
  app.addHook('onRequest', async (req) => {
    if (req.is404) {
      const path = req.url.split('?')[0] ?? '/';
      const allow = allowedAt(path);
      if (allow.length === 0) throw CORE_ERRORS.problem('NOT_FOUND', `no route ${req.method} ${path}`);
      throw CORE_ERRORS.problem('METHOD_NOT_ALLOWED', `${req.method} is not allowed on ${path}; allowed: ${allow.join(', ')}`, { headers: { Allow: allow.join(', ') } });
    }
    if (!hasBody(req)) return;
    const badCharset = charsetProblem(req.headers['content-type']);
    if (badCharset) throw badCharset;
    if (!takesBody(req.routeOptions.schema, req.routeOptions.config)) {
      throw CORE_ERRORS.problem('BODY_NOT_ALLOWED', `${req.method} ${req.routeOptions.url ?? ''} takes no request body`);
    }
  });

  const readJson = jsonBytesReader(app);
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, async (req: FastifyRequest, body: Buffer) => {
    rawBodies.set(req, body);
    const badCharset = charsetProblem(req.headers['content-type']);
    if (badCharset) throw badCharset;
    if (!takesBody(req.routeOptions.schema, req.routeOptions.config)) {
      if (body.length > 0) throw CORE_ERRORS.problem('BODY_NOT_ALLOWED', `${req.method} ${req.routeOptions.url ?? ''} takes no request body`);
      return undefined;
    }
    await verifySigned(req, body);
    return readJson(req, body);
  });

  app.addHook('preValidation', async (req) => {
    await verifySigned(req, rawBodyOf(req));
    for (const [where, value] of [['body', req.body], ['querystring', req.query], ['params', req.params]] as const) {
      const bad = findUnstorableString(value);
      if (bad !== undefined) {
        const at = Array.from(`${where}${bad}`);
        const path = at.length > 200 ? `${at.slice(0, 200).join('')}…` : at.join('');
        throw CORE_ERRORS.problem('VALIDATION_FAILED', `${path}: strings must be well-formed Unicode without NUL characters`);
      }
    }
    req.body = canonicaliseInput(req.body);
    canonicaliseInput(req.query);
    canonicaliseInput(req.params, true);
  });
}
