/**
 * Authentication modes of the API, chosen per route with `config.auth`:
 * - `'bearer'` (default): `Authorization: Bearer <token>` resolves to `request.userId`;
 * - `'public'`: no credentials (health, metrics, docs);
 * - `{ hmac: … }`: an HMAC-SHA256 signature over the timestamp and the raw body, for callbacks from
 *   outside services (e.g. the portal's scraper), with a bounded clock skew against replays.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import type { PrismaClient } from '@prisma/client';
import { userIdForToken } from '../auth/tokens';
import { CORE_ERRORS } from '../core/errors';

/**
 * HMAC-signed requests: header `signatureHeader` = `sha256=<hex of HMAC-SHA256(secret, "<t>.<raw body>")>`,
 * header `timestampHeader` = `<t>` in Unix seconds, within `toleranceSeconds` of the server clock.
 */
export interface HmacAuth {
  hmac: {
    /** The shared secret of this request (e.g. looked up by a path parameter); null = unknown sender. */
    secret(req: FastifyRequest): Promise<string | null> | string | null;
    /** Default `x-signature`. */
    signatureHeader?: string;
    /** Default `x-signature-timestamp`. */
    timestampHeader?: string;
    /** Default 300 s. */
    toleranceSeconds?: number;
  };
}

/** A route's authentication mode. */
export type AuthMode = 'bearer' | 'public' | HmacAuth;

declare module 'fastify' {
  interface FastifyRequest {
    /** Authenticated user id (set by bearer auth; empty on public and HMAC routes). */
    userId: string;
  }
  interface FastifyContextConfig {
    /** How the route authenticates its callers (default `'bearer'`). */
    auth?: AuthMode;
  }
}

const unauthorized = (detail: string) => CORE_ERRORS.problem('UNAUTHORIZED', detail);

/** `sha256=<hex>` signature of `<timestamp>.<body>` under `secret`. */
export function signHmac(secret: string, timestamp: string, body: string | Buffer): string {
  return `sha256=${createHmac('sha256', secret).update(`${timestamp}.`).update(body).digest('hex')}`;
}

/** Constant-time comparison of two signature strings. */
function sameSignature(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

async function verifyHmac(req: FastifyRequest, auth: HmacAuth['hmac'], body: Buffer): Promise<void> {
  const sigHeader = auth.signatureHeader ?? 'x-signature';
  const tsHeader = auth.timestampHeader ?? 'x-signature-timestamp';
  const signature = req.headers[sigHeader];
  const timestamp = req.headers[tsHeader];
  if (typeof signature !== 'string' || typeof timestamp !== 'string') throw unauthorized(`missing ${sigHeader} or ${tsHeader}`);
  if (!/^\d{1,12}$/.test(timestamp)) throw unauthorized(`${tsHeader} must be Unix seconds`);
  const skew = Math.abs(Date.now() / 1000 - Number(timestamp));
  if (skew > (auth.toleranceSeconds ?? 300)) throw unauthorized('signature timestamp outside the allowed clock skew');
  const secret = await auth.secret(req);
  if (!secret || !sameSignature(signature, signHmac(secret, timestamp, body))) throw unauthorized('invalid signature');
}

/** Options of {@link installAuth}. */
export interface AuthOptions {
  /** Runs before a bearer route answers 401 (the rate limit of unauthenticated requests); may throw its own answer. */
  beforeUnauthorized?(req: FastifyRequest, reply: FastifyReply): Promise<void>;
}

/**
 * Installs authentication: bearer tokens on every route unless its `config.auth` says otherwise,
 * resolved by `resolveToken` (the app passes the cached `pg` lookup of src/auth/token-cache.ts;
 * default: an uncached Prisma lookup). HMAC routes are verified over the exact body bytes before
 * anything parses them (`config.signedBody` of the input rules, input-rules.ts).
 */
export async function installAuth(
  app: FastifyInstance,
  db: PrismaClient,
  resolveToken: (token: string) => Promise<string | null> = (token) => userIdForToken(db, token),
  opts: AuthOptions = {},
): Promise<void> {
  const refuse = async (req: FastifyRequest, reply: FastifyReply, challenge: string, detail: string) => {
    await opts.beforeUnauthorized?.(req, reply);
    reply.header('WWW-Authenticate', challenge);
    return unauthorized(detail);
  };
  app.decorateRequest('userId', '');
  app.addHook('onRoute', (route) => {
    const auth = (route.config as { auth?: AuthMode } | undefined)?.auth;
    if (typeof auth === 'object') {
      const signedBody = (req: FastifyRequest, raw: Buffer) => verifyHmac(req, auth.hmac, raw);
      route.config = { ...(route.config as object), signedBody } as typeof route.config;
    }
  });
  app.addHook('onRequest', async (req, reply) => {
    const auth = req.routeOptions.config.auth ?? 'bearer';
    if (auth !== 'bearer' || req.routeOptions.url === undefined) return;
    const header = req.headers.authorization;
    const match = header ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
    if (!match?.[1]) throw await refuse(req, reply, 'Bearer', 'missing bearer token');
    const userId = await resolveToken(match[1]);
    if (!userId) throw await refuse(req, reply, 'Bearer error="invalid_token"', 'invalid or revoked token');
    req.userId = userId;
    // The request's own logger (fastify makes one per request) gains the binding in place: a child
    // logger per request costs about 2 % of the API's CPU under a polling load.
    (req.log as Logger).setBindings({ userId });
  });
}
