/**
 * Per-client rate limits of the API on `@fastify/rate-limit` (its limiters and stores; the headers
 * and the problem answer are this module's). Fixed windows of one minute, counted per policy:
 * - `user`: every bearer route, keyed by the authenticated user (after auth: never a raw header);
 * - `company`: besides `user`, on routes whose `config.limits.companyOf` names the company the
 *   request acts for (a family declares it, e.g. its AI-run routes);
 * - `ip`: requests without a principal: a failed bearer auth (counted before its 401) and public
 *   routes that are not exempt (the codec server).
 * Routes with `config.limits: 'exempt'` (health, metrics, docs, signed callbacks) are never counted.
 * Every counted answer carries `RateLimit-Policy` and `RateLimit` (draft-ietf-httpapi-ratelimit-headers);
 * over a limit: 429 RATE_LIMITED problem+json with `Retry-After` (seconds to the window's end).
 */
import rateLimitPlugin, { normalizeIP } from '@fastify/rate-limit';
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import type { Pool } from 'pg';
import type { CoreConfig } from '../config';
import { CORE_ERRORS } from '../core/errors';
import { postgresRateLimitStore } from '../db/rate-limit-store';
import { problemResponse } from './problem';

/** How a route is limited besides its auth mode's default (`config.limits`). */
export type RouteLimits =
  | 'exempt'
  | {
      /** The company the request acts for, once its caller is known to be a member (else null: no company limit). */
      companyOf(req: FastifyRequest): Promise<string | null> | string | null;
    };

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Rate limits of the route (src/api/rate-limit.ts); absent: by its auth mode. */
    limits?: RouteLimits;
  }
}

/** A policy's name in the headers. */
export type PolicyName = 'user' | 'company' | 'ip';

/** A policy's state after a hit: quota per window, window in seconds, what is left, seconds to reset. */
export interface PolicyState {
  name: PolicyName;
  quota: number;
  windowSeconds: number;
  remaining: number;
  resetSeconds: number;
}

/**
 * `RateLimit-Policy` and `RateLimit` fields of draft-ietf-httpapi-ratelimit-headers (structured-field
 * lists, one item per policy in `states` order): `"user";q=600;w=60` and `"user";r=12;t=30`.
 */
export function rateLimitHeaders(states: readonly PolicyState[]): { 'RateLimit-Policy': string; RateLimit: string } {
  return {
    'RateLimit-Policy': states.map((s) => `"${s.name}";q=${s.quota};w=${s.windowSeconds}`).join(', '),
    RateLimit: states.map((s) => `"${s.name}";r=${Math.max(0, s.remaining)};t=${Math.max(0, s.resetSeconds)}`).join(', '),
  };
}

const WINDOW_MS = 60_000;

const RATE_LIMIT_HEADERS = {
  'Retry-After': { type: 'integer', minimum: 0, description: 'seconds until the exceeded window ends' },
  'RateLimit-Policy': { type: 'string', description: 'the policies of this request, e.g. `"user";q=600;w=60` (draft-ietf-httpapi-ratelimit-headers); on every counted answer' },
  RateLimit: { type: 'string', description: 'what is left of each policy and seconds to its reset, e.g. `"user";r=0;t=30`; on every counted answer' },
};

/** The 429 response of a limited operation (OpenAPI), with its headers. */
export const RATE_LIMITED_RESPONSE = {
  ...problemResponse('RATE_LIMITED: over a rate limit of the caller (per user; per company on company routes; per IP address without valid credentials)'),
  headers: RATE_LIMIT_HEADERS,
};

type Counted = PolicyState & { exceeded: boolean };
type Limiter = (req: FastifyRequest) => Promise<Counted>;

/** What {@link installRateLimits} gives the app: the hook auth calls before answering 401. */
export interface RateLimits {
  /** Counts an unauthenticated request of `req`'s IP address; throws 429 RATE_LIMITED when over. */
  beforeUnauthorized(req: FastifyRequest, reply: FastifyReply): Promise<void>;
}

/** Whether a route is counted at all. */
function isLimited(route: Pick<RouteOptions, 'config'>): boolean {
  return (route.config as { limits?: RouteLimits } | undefined)?.limits !== 'exempt';
}

/**
 * Installs the limits (call before any route is registered): the plugin (`global: false`: no hook
 * of its own), one limiter per policy over the memory store (one process) or the PostgreSQL store
 * over `pool` (`api.rateLimit.store`), the preValidation hook that counts each request, and the 429
 * response on every limited operation's schema. Disabled (`api.rateLimit.enabled` false): nothing
 * is counted or declared.
 * @throws Error when the PostgreSQL store is chosen and no pool is given.
 */
export async function installRateLimits(app: FastifyInstance, config: CoreConfig, pool: Pool | undefined): Promise<RateLimits> {
  const settings = config.api.rateLimit;
  if (!settings.enabled) return { beforeUnauthorized: async () => undefined };
  if (settings.store === 'postgres' && !pool) throw new Error('RATE_LIMIT_STORE=postgres needs the API database pool');
  await app.register(rateLimitPlugin, {
    global: false,
    ...(settings.store === 'postgres' && pool ? { store: postgresRateLimitStore(pool) } : {}),
  });

  const companyKey = Symbol('rateLimitCompany');
  type Keyed = FastifyRequest & { [companyKey]?: string };
  const limiter = (name: PolicyName, quota: number, key: (req: FastifyRequest) => string): Limiter => {
    // `cache`: keys the memory store holds per policy (least recently used evicted, which only resets a count).
    const count = app.createRateLimit({ max: quota, timeWindow: WINDOW_MS, keyGenerator: key, cache: 50_000 } as Parameters<typeof app.createRateLimit>[0]);
    return async (req) => {
      const r = await count(req);
      if (r.isAllowed) return { name, quota, windowSeconds: WINDOW_MS / 1000, remaining: quota, resetSeconds: 0, exceeded: false };
      return { name, quota, windowSeconds: WINDOW_MS / 1000, remaining: r.remaining, resetSeconds: r.ttlInSeconds, exceeded: r.isExceeded };
    };
  };
  const user = limiter('user', settings.perUserPerMinute, (req) => `user:${req.userId}`);
  const company = limiter('company', settings.perCompanyPerMinute, (req) => `company:${(req as Keyed)[companyKey] ?? ''}`);
  const ip = limiter('ip', settings.perIpPerMinute, (req) => `ip:${normalizeIP(req.ip)}`);

  /** Answers the counted states; throws 429 when the last one is over its quota. */
  const answer = (reply: FastifyReply, states: PolicyState[], over: PolicyState | undefined) => {
    for (const [name, value] of Object.entries(rateLimitHeaders(states))) reply.header(name, value);
    if (!over) return;
    throw CORE_ERRORS.problem('RATE_LIMITED', `over the ${over.name} limit of ${over.quota} requests per ${over.windowSeconds} s; retry after ${over.resetSeconds} s`, {
      headers: { 'Retry-After': String(over.resetSeconds) },
    });
  };

  app.addHook('onRoute', (route) => {
    const schema = route.schema as { hide?: boolean; response?: Record<string, unknown> } | undefined;
    if (!schema || schema.hide || !isLimited(route)) return;
    route.schema = { ...schema, response: { ...schema.response, 429: schema.response?.[429] ?? RATE_LIMITED_RESPONSE } };
  });

  // preValidation: after auth and body parsing, before the schema checks (a request that fails them counts too).
  app.addHook('preValidation', async (req, reply) => {
    const limits = req.routeOptions.config.limits;
    if (limits === 'exempt' || req.routeOptions.url === undefined) return;
    const auth = req.routeOptions.config.auth ?? 'bearer';
    if (auth !== 'bearer') {
      const s = await ip(req);
      return answer(reply, [s], s.exceeded ? s : undefined);
    }
    const states: Counted[] = [await user(req)];
    // A user over its own limit does not spend its company's.
    if (!states[0]!.exceeded && limits?.companyOf) {
      const id = await limits.companyOf(req);
      if (id) {
        (req as Keyed)[companyKey] = id;
        states.push(await company(req));
      }
    }
    const over = states.find((s) => s.exceeded);
    return answer(reply, states, over);
  });

  return {
    async beforeUnauthorized(req, reply) {
      if (!isLimited(req.routeOptions)) return;
      const s = await ip(req);
      answer(reply, [s], s.exceeded ? s : undefined);
    },
  };
}
