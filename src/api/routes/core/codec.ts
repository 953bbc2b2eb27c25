/**
 * AR-6 codec server for the Temporal Web UI and CLI (`--ui-codec-endpoint` of the dev server,
 * `--codec-endpoint` of the CLI): `POST /codec/decode` and `POST /codec/encode` run the Web UI's
 * JSON payloads (`{ payloads: [{ metadata: { key: base64 }, data: base64 }] }`, protobuf JSON) through
 * the project's payload codec (src/crypto/payload-codec.ts).
 *
 * Operators only: decoding shows every tenant's raw input, so a user's API token (which can read
 * its own resources only) is not enough. The caller presents the operator token
 * (CODEC_SERVER_OPERATOR_TOKEN) as `Authorization: Bearer <token>` (the CLI's `--codec-auth`,
 * curl, a Web UI whose "pass access token" forwards it), or as the `codec_operator` session cookie
 * that `POST /codec/session` sets (signed, with a session id and an expiry checked on the server;
 * the dev server's Web UI has no login and cannot send a header; it
 * sends the cookie with "Include cross-origin credentials" on: the UI and the API are the same
 * site). Unset token: every call is 401. CORS (`@fastify/cors`) allows the Web UI's origins only,
 * with credentials. Hidden from /openapi.json (Temporal's protocol, not the product API).
 */
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import cors from '@fastify/cors';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod, ZodTypeProvider } from 'fastify-type-provider-zod';
import type { Payload } from '@temporalio/common';
import { z } from 'zod';
import { payloadCodecFromConfig } from '../../../crypto/payload-codec';
import type { ApiDeps } from '../../deps';
import { ProblemError } from '../../problem';

/** Name of the operator session cookie set by `POST /codec/session`. */
export const CODEC_SESSION_COOKIE = 'codec_operator';
/** Lifetime of an operator session cookie, in seconds (8 h). */
const SESSION_MAX_AGE_SECONDS = 8 * 3600;
/** Most payloads per call. */
const MAX_PAYLOADS = 2000;

const Base64 = z.string().regex(/^[A-Za-z0-9+/_-]*={0,2}$/, 'must be base64');
const PayloadJson = z.object({ metadata: z.record(z.string(), Base64).optional(), data: Base64.optional() });
/** The Web UI's request and answer body. */
const PayloadsJson = z.strictObject({ payloads: z.array(PayloadJson).max(MAX_PAYLOADS) });
type PayloadJson = z.infer<typeof PayloadJson>;

const fromJson = (p: PayloadJson): Payload => ({
  metadata: Object.fromEntries(Object.entries(p.metadata ?? {}).map(([k, v]) => [k, new Uint8Array(Buffer.from(v, 'base64'))])),
  data: new Uint8Array(Buffer.from(p.data ?? '', 'base64')),
});
const toJson = (p: Payload): PayloadJson => ({
  metadata: Object.fromEntries(Object.entries(p.metadata ?? {}).map(([k, v]) => [k, Buffer.from(v ?? new Uint8Array()).toString('base64')])),
  data: Buffer.from(p.data ?? new Uint8Array()).toString('base64'),
});

const digest = (s: string) => createHash('sha256').update(s, 'utf8').digest();
const sameSecret = (a: string, b: string) => timingSafeEqual(digest(a), digest(b));

const SESSION_PREFIX = 'v2';

function sessionMac(token: string, id: string, expiresAt: number): Buffer {
  return createHmac('sha256', token).update(`codec-operator-session.${SESSION_PREFIX}.${id}.${expiresAt}`).digest();
}

/**
 * A new session cookie value `v2.<session id>.<expiry, epoch seconds>.<HMAC-SHA256 under the operator
 * token>`: it expires on the server (not only in the browser), never contains the token, and every
 * session ends when the operator token changes.
 */
export function newSessionValue(token: string, now: Date = new Date(), maxAgeSeconds = SESSION_MAX_AGE_SECONDS): string {
  const id = randomBytes(16).toString('base64url');
  const expiresAt = Math.floor(now.getTime() / 1000) + maxAgeSeconds;
  return `${SESSION_PREFIX}.${id}.${expiresAt}.${sessionMac(token, id, expiresAt).toString('base64url')}`;
}

/** True when `value` is a session cookie signed with `token` that has not expired at `now`. */
export function isValidSession(value: string, token: string, now: Date = new Date()): boolean {
  const parts = value.split('.');
  if (parts.length !== 4 || parts[0] !== SESSION_PREFIX) return false;
  const [, id, exp, mac] = parts as [string, string, string, string];
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(id) || !/^\d{1,12}$/.test(exp)) return false;
  const expiresAt = Number(exp);
  if (expiresAt * 1000 <= now.getTime()) return false;
  const want = sessionMac(token, id, expiresAt);
  const got = Buffer.from(mac, 'base64url');
  return got.length === want.length && timingSafeEqual(got, want);
}

function cookieOf(req: FastifyRequest, name: string): string | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

const unauthorized = (detail: string) => new ProblemError(401, 'UNAUTHORIZED', 'Unauthorized', detail);

/** Registers the codec server under `/codec` (see the module comment). */
export const codecServerRoutes: FastifyPluginAsyncZod<ApiDeps> = async (app, deps) => {
  const { operatorToken, corsOrigins } = deps.config.temporal.codecServer;
  const codec = payloadCodecFromConfig(deps.config.temporal.payloadCodec);

  const requireOperator = async (req: FastifyRequest, reply: FastifyReply) => {
    if (!operatorToken) throw unauthorized('the codec server is disabled: CODEC_SERVER_OPERATOR_TOKEN is not configured');
    const bearer = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '')?.[1];
    if (bearer !== undefined) {
      if (sameSecret(bearer, operatorToken)) return;
      reply.header('WWW-Authenticate', 'Bearer error="invalid_token"');
      throw unauthorized('invalid operator token');
    }
    const session = cookieOf(req, CODEC_SESSION_COOKIE);
    if (session !== undefined && isValidSession(session, operatorToken)) return;
    reply.header('WWW-Authenticate', 'Bearer');
    throw unauthorized('missing operator token (Authorization: Bearer, or the session cookie of POST /codec/session)');
  };

  await app.register(
    async (plain) => {
      const scope = plain.withTypeProvider<ZodTypeProvider>();
      // Every route here (the CORS plugin's OPTIONS route too) skips the API's user bearer auth:
      // preflights carry no credentials, and the codec routes check the operator token themselves.
      scope.addHook('onRoute', (route) => {
        route.config = { ...(route.config as object), auth: 'public' as const };
        route.schema = { ...(route.schema ?? {}), hide: true } as typeof route.schema;
      });
      await scope.register(cors, {
        origin: corsOrigins,
        methods: ['POST'],
        allowedHeaders: ['Content-Type', 'Authorization', 'X-Namespace'],
        credentials: true,
        maxAge: 600,
      });
      scope.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_req, body, done) => {
        done(null, Object.fromEntries(new URLSearchParams(body as string)));
      });

      for (const op of ['decode', 'encode'] as const) {
        scope.post(
          `/${op}`,
          { preHandler: requireOperator, schema: { body: PayloadsJson, response: { 200: PayloadsJson } } },
          async (req) => {
            const payloads = req.body.payloads.map(fromJson);
            if (op === 'encode') return { payloads: (await codec.encode(payloads)).map(toJson) };
            // A payload that does not decode (a retired key, tampering) is answered as it is, so the
            // rest of a history still shows; the failure is logged.
            const out = await Promise.all(
              payloads.map(async (p, i) => {
                try {
                  return (await codec.decode([p]))[0]!;
                } catch (err) {
                  req.log.warn({ err, index: i }, 'codec server: payload does not decode');
                  return p;
                }
              }),
            );
            return { payloads: out.map(toJson) };
          },
        );
      }

      // Browser sign-in for the dev server's Web UI: the operator enters the token once; an
      // HttpOnly, SameSite=Strict cookie scoped to /codec then authorises the UI's calls.
      scope.get('/session', async (_req, reply) =>
        reply
          .type('text/html; charset=utf-8')
          .header('Cache-Control', 'no-store')
          .send(
            '<!doctype html><meta charset="utf-8"><title>Codec server sign-in</title>' +
              '<form method="post" action="/codec/session"><label>Operator token <input type="password" name="token" autocomplete="off"></label>' +
              '<button>Sign in</button></form>',
          ),
      );
      scope.post(
        '/session',
        { schema: { body: z.strictObject({ token: z.string().min(1).max(1024) }) } },
        async (req, reply) => {
          if (!operatorToken || !sameSecret(req.body.token, operatorToken)) throw unauthorized('invalid operator token');
          const secure = req.protocol === 'https' ? '; Secure' : '';
          reply.header(
            'Set-Cookie',
            `${CODEC_SESSION_COOKIE}=${newSessionValue(operatorToken)}; Path=/codec; HttpOnly; SameSite=Strict; Max-Age=${SESSION_MAX_AGE_SECONDS}${secure}`,
          );
          return reply.type('text/html; charset=utf-8').send('<!doctype html><meta charset="utf-8"><title>Signed in</title><p>Signed in: the Temporal Web UI can now decode payloads.</p>');
        },
      );
    },
    { prefix: '/codec' },
  );
};
