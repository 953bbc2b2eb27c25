/** The portal-link family's settings (PO-1 … PO-7): portals, the signed callback, timeouts, the worker pool. */
import { z } from 'zod';
import type { CoreConfig } from './core';
import { configSection, invalid, type SectionOf } from './env';

/** The portal section. */
export const PORTAL_CONFIG = configSection(
  {
    PORTAL_SUWON_BASE_URL: z.string().url().default('http://127.0.0.1:4710').describe('Base URL of the `suwon` portal (the demo\'s emulator by default).'),
    PORTAL_CALLBACK_URL: z.string().url().default('http://127.0.0.1:3000/internal/scrape-results').describe('Where the scraper posts its signed result callback.'),
    PORTAL_CALLBACK_SECRETS: z.string().optional().describe('HMAC-SHA256 callback secrets (≥ 32 characters, comma-separated): the first signs, all verify; required in production.'),
    PORTAL_CALLBACK_TOLERANCE_SECONDS: z.coerce.number().int().min(1).max(3600).default(300).describe('Accepted clock difference of X-Timestamp, in seconds, in both directions.'),
    PORTAL_CALLBACK_DEADLINE_SECONDS: z.coerce.number().int().min(1).default(900).describe('A link job whose callback has not arrived this long after its scrape started FAILS, in seconds.'),
    PORTAL_REQUEST_TIMEOUT_MS: z.coerce.number().int().min(100).default(20_000).describe('Timeout of one portal HTTP request, in ms.'),
    PORTAL_SCRAPE_TIMEOUT_SECONDS: z.coerce.number().int().min(1).default(300).describe('Timeout of a whole scrape (login and every page), in seconds.'),
    PORTAL_ACTIVITY_CONCURRENCY: z.coerce.number().int().min(1).default(16).describe('Most scrapes one `portal` worker runs at once (a scrape waits on HTTP and the object store, not the CPU).'),
    PORTAL_PAGE_CONCURRENCY: z.coerce.number().int().min(1).max(16).default(4).describe('Most portal pages one scrape fetches at once after its login.'),
    PORTAL_MAX_REQUESTS_IN_FLIGHT: z.coerce.number().int().min(1).default(16).describe('Most requests one portal worker process has in flight to one portal, over all its scrapes.'),
  },
  (e, nodeEnv) => ({
    /**
     * Each portal type's base URL, where the scraper posts its signed callback, the HMAC secrets
     * (comma-separated; the first signs, all verify — two during a rotation), the timestamp
     * tolerance in both directions (s), how long a job waits for its callback before it FAILS (s),
     * per-request and whole-scrape timeouts, the `portal` worker's pool (a scrape waits on HTTP and
     * the object store, so slots are cheap), the data pages one scrape reads at once, and the
     * requests in flight to one portal from one worker process over all its scrapes (the
     * politeness bound, whatever the pool).
     */
    portal: {
      baseUrls: { suwon: e.PORTAL_SUWON_BASE_URL.replace(/\/+$/, '') } as Readonly<Record<string, string>>,
      callbackUrl: e.PORTAL_CALLBACK_URL,
      callbackSecrets: (e.PORTAL_CALLBACK_SECRETS ?? (nodeEnv === 'production' ? '' : 'dev-only-portal-callback-secret-change-me-0000'))
        .split(',')
        .map((v) => v.trim())
        .filter((v) => v.length > 0),
      callbackToleranceSeconds: e.PORTAL_CALLBACK_TOLERANCE_SECONDS,
      callbackDeadlineMs: e.PORTAL_CALLBACK_DEADLINE_SECONDS * 1000,
      requestTimeoutMs: e.PORTAL_REQUEST_TIMEOUT_MS,
      scrapeTimeoutMs: e.PORTAL_SCRAPE_TIMEOUT_SECONDS * 1000,
      activityConcurrency: e.PORTAL_ACTIVITY_CONCURRENCY,
      pageConcurrency: e.PORTAL_PAGE_CONCURRENCY,
      maxRequestsInFlight: e.PORTAL_MAX_REQUESTS_IN_FLIGHT,
    },
  }),
  ({ portal }) => {
    if (portal.callbackSecrets.length === 0) invalid('PORTAL_CALLBACK_SECRETS', 'required when NODE_ENV=production');
    if (portal.callbackSecrets.some((v) => v.length < 32)) invalid('PORTAL_CALLBACK_SECRETS', 'every secret must be at least 32 characters');
  },
);

/** The config the portal family's code reads: the core's and its own section. */
export type PortalConfig = CoreConfig & SectionOf<typeof PORTAL_CONFIG>;
