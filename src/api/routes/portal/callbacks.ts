/**
 * `POST /internal/scrape-results` (PO-5 … PO-7): the scraper's signed callback. No bearer token: the
 * request is authenticated by its HMAC-SHA256 signature over `X-Timestamp + "." + the raw body
 * bytes`. The API's input rules hand the route the exact bytes (`config.signedBody`), verified before
 * anything parses them (missing, malformed, bad or stale signature → 401 and nothing applied); then
 * the JSON is parsed and canonicalised like every body, checked against the strict body schema
 * (400), and handed to the service (scope 422, duplicates answered like the first, the workflow
 * signalled).
 */
import { createHash } from 'node:crypto';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import { PO_ERRORS } from '../../../domain/portal/errors';
import { ScrapeCallbackBodySchema, parseCallbackAttempt } from '../../../domain/portal/callback';
import { acceptScrapeCallback, type CallbackDeps } from '../../../services/portal/callbacks';
import type { CallbackSignatureRejection, CallbackSignatureVerifier } from '../../../services/portal/callback-verifier';
import { rawBodyOf } from '../../input-rules';
import { ProblemSchema, validationErrors } from '../../problem';
import { SECURITY_SCHEMES_KEY } from '../../openapi';
import { jsonWith, CallbackAcceptedSchema, problemWith } from './schemas';

/** What the callback route needs. */
export interface CallbackRouteDeps extends Omit<CallbackDeps, 'log'> {
  verify: CallbackSignatureVerifier;
  /** Seconds since the epoch (tests move the clock). */
  nowSeconds?: () => number;
}

const REJECTIONS: Record<CallbackSignatureRejection, [code: 'CALLBACK_SIGNATURE_MISSING' | 'CALLBACK_SIGNATURE_INVALID' | 'CALLBACK_TIMESTAMP_STALE', detail: string]> = {
  missing: ['CALLBACK_SIGNATURE_MISSING', 'X-Timestamp and X-Signature are required'],
  malformed: ['CALLBACK_SIGNATURE_INVALID', 'X-Timestamp must be Unix seconds and X-Signature `sha256=<hex>`'],
  'bad-signature': ['CALLBACK_SIGNATURE_INVALID', 'the signature matches no callback secret'],
  stale: ['CALLBACK_TIMESTAMP_STALE', 'X-Timestamp is outside the allowed tolerance (past or future)'],
};

/** OpenAPI security scheme names of the callback's HMAC signature and of its timestamp. */
const CALLBACK_SIGNATURE_SCHEME = 'callbackSignature';
const CALLBACK_TIMESTAMP_SCHEME = 'callbackTimestamp';

/** PO-5 the callback's authentication, as apiKey-style schemes (both headers together authenticate a request). */
const CALLBACK_SECURITY_SCHEMES = {
  [CALLBACK_SIGNATURE_SCHEME]: {
    type: 'apiKey',
    in: 'header',
    name: 'X-Signature',
    description: '`sha256=<hex>`: HMAC-SHA256 with a callback secret over X-Timestamp + "." + the raw body bytes. Sent with callbackTimestamp.',
  },
  [CALLBACK_TIMESTAMP_SCHEME]: {
    type: 'apiKey',
    in: 'header',
    name: 'X-Timestamp',
    description: 'Unix seconds of signing; must be within the configured tolerance of the server clock (past or future). Sent with callbackSignature.',
  },
} as const;

/** Registers the callback route. */
export const scrapeCallbackRoutes: FastifyPluginAsyncZod<CallbackRouteDeps> = async (app, deps) => {
  const now = deps.nowSeconds ?? (() => Math.floor(Date.now() / 1000));
  const verifySignature = (req: FastifyRequest, raw: Buffer) => {
    const verdict = deps.verify(req.headers, raw, now());
    if (!verdict.ok) {
      const [code, detail] = REJECTIONS[verdict.reason];
      req.log.warn({ reason: verdict.reason }, 'scrape callback rejected: signature');
      throw PO_ERRORS.problem(code, detail);
    }
  };

  app.post(
    '/internal/scrape-results',
    {
      // Exempt from rate limits: the scraper's retries of a result must land (its signature carries no key id to count by).
      config: { auth: 'public', limits: 'exempt', signedBody: verifySignature },
      schema: {
        tags: ['internal'],
        summary: 'Signed result callback of the portal scraper (PO-5, PO-6, PO-7)',
        description:
          'Headers: X-Timestamp (Unix seconds), X-Signature (`sha256=<hex>` of HMAC-SHA256(secret, X-Timestamp + "." + raw body)), ' +
          'optional X-Callback-Attempt and X-Request-Id. Missing, bad or stale (either direction) signature → 401. A result key ' +
          'outside the configured bucket and prefix, or outside the job\'s own `<prefix><jobId>/`, or a `scraped_at` ahead of the ' +
          'server clock by more than the signature tolerance → 422, nothing recorded. A repeat for the same ' +
          'job and attempt is answered like the first, counted in scrape_job_callback_duplicate_total, and applies nothing.',
        // The signature and its timestamp are this route's security (CALLBACK_SECURITY), not parameters.
        security: [{ [CALLBACK_SIGNATURE_SCHEME]: [], [CALLBACK_TIMESTAMP_SCHEME]: [] }],
        [SECURITY_SCHEMES_KEY]: CALLBACK_SECURITY_SCHEMES,
        headers: z.looseObject({
          'x-callback-attempt': z.string().optional().meta({ description: 'the scraper\'s delivery attempt, a positive integer', pattern: '^[1-9][0-9]{0,8}$' }),
          'x-request-id': z.string().optional(),
        }),
        response: {
          202: jsonWith(CallbackAcceptedSchema, 'Accepted (the same answer for a repeat)'),
          400: ProblemSchema,
          401: problemWith(ProblemSchema, 'CALLBACK_SIGNATURE_MISSING (X-Timestamp or X-Signature absent), CALLBACK_SIGNATURE_INVALID (malformed, or matches no callback secret) or CALLBACK_TIMESTAMP_STALE (outside the tolerance, either direction); nothing applied'),
          404: ProblemSchema,
          409: ProblemSchema,
          422: ProblemSchema,
          503: ProblemSchema,
        },
      },
    },
    async (req, reply) => {
      const raw = rawBodyOf(req);
      const nowSeconds = now();
      const parsed = ScrapeCallbackBodySchema.safeParse(req.body);
      if (!parsed.success) {
        const errors = validationErrors(
          'body',
          parsed.error.issues.map((i) => ({ instancePath: i.path.map((p) => `/${String(p)}`).join(''), keyword: i.code, message: i.message, params: 'keys' in i ? { keys: i.keys } : {} })),
        );
        throw PO_ERRORS.problem('VALIDATION_FAILED', errors.map((e) => `${e.path}: ${e.message}`).join('; '), { errors });
      }
      const attempt = parseCallbackAttempt(req.headers['x-callback-attempt']);
      if (attempt === 'malformed') throw PO_ERRORS.problem('VALIDATION_FAILED', 'headers.x-callback-attempt: a positive integer');
      const requestId = typeof req.headers['x-request-id'] === 'string' ? req.headers['x-request-id'] : null;
      const r = await acceptScrapeCallback({ ...deps, log: req.log }, parsed.data, {
        attempt,
        requestId,
        bodySha256: createHash('sha256').update(raw).digest('hex'),
        nowSeconds,
      });
      return reply.code(202).send({ jobId: r.jobId, attempt: r.attempt, status: r.status });
    },
  );
};
