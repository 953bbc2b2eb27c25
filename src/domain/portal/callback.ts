/**
 * PO-5/PO-6 the scraper's callback body (`POST /internal/scrape-results`, JSON, snake_case) and the
 * scope rules of its result key. Pure: no I/O, unit-tested without servers.
 */
import { z } from 'zod';

const Sha256Hex = z.string().regex(/^[0-9a-f]{64}$/, 'a lower-case hex SHA-256 (64 digits)');

/** A success: the result object's bucket, key and (optional) SHA-256. Strict: unknown fields are refused. */
export const SucceededCallbackSchema = z.strictObject({
  job_id: z.uuid(),
  status: z.literal('SUCCEEDED'),
  result_s3_bucket: z.string().min(1).max(255),
  result_s3_key: z.string().min(1).max(1024),
  result_sha256: Sha256Hex.nullable(),
  scraped_at: z.iso.datetime({ offset: true }),
});

/** A failure reported by the scraper: its error code and message. */
export const FailedCallbackSchema = z.strictObject({
  job_id: z.uuid(),
  status: z.literal('FAILED'),
  error_code: z.string().regex(/^[A-Z][A-Z0-9_]{0,63}$/, 'an upper-case error code'),
  error_message: z.string().max(4000),
});

/** PO-5 the callback body. */
export const ScrapeCallbackBodySchema = z.discriminatedUnion('status', [SucceededCallbackSchema, FailedCallbackSchema]);

/** A parsed callback body. */
export type ScrapeCallbackBody = z.infer<typeof ScrapeCallbackBodySchema>;

/** Why a result location is refused (PO-6). */
export type ResultScopeViolation = 'bucket' | 'prefix' | 'job' | 'shape';

/**
 * PO-6: the attempt number of `key` when `bucket` is the configured bucket and `key` is exactly
 * `<prefix><jobId>/<attempt>.json` (the job's own scope, no `..`, no other job's folder), else the
 * violation: `bucket` (another bucket), `prefix` (outside the configured prefix), `job` (another
 * job's scope), `shape` (inside the job's scope but not `<attempt>.json`).
 */
export function checkResultScope(
  scope: { bucket: string; prefix: string },
  jobId: string,
  bucket: string,
  key: string,
): { ok: true; attempt: number } | { ok: false; violation: ResultScopeViolation } {
  if (bucket !== scope.bucket) return { ok: false, violation: 'bucket' };
  if (!key.startsWith(scope.prefix)) return { ok: false, violation: 'prefix' };
  const rest = key.slice(scope.prefix.length);
  if (!rest.startsWith(`${jobId}/`)) return { ok: false, violation: 'job' };
  const m = /^([1-9][0-9]{0,8})\.json$/.exec(rest.slice(jobId.length + 1));
  if (!m) return { ok: false, violation: 'shape' };
  return { ok: true, attempt: Number(m[1]) };
}

/** The X-Callback-Attempt header: a positive decimal integer, or undefined when absent or malformed. */
export function parseCallbackAttempt(value: string | string[] | undefined): number | undefined | 'malformed' {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !/^[1-9][0-9]{0,8}$/.test(value)) return 'malformed';
  return Number(value);
}
