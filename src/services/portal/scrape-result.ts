/**
 * PO-6, PO-8, PO-10 reading of a scrape result: the job's result object (C16: missing, too large,
 * SHA-256 mismatch; an outage is retried), snake_case keys normalised and validated
 * ({@link parseScrapeResult}, C17). Throws {@link PostProcessError}; the activity maps it to
 * Temporal failures.
 */
import { ObjectNotFoundError, type ObjectStore } from '../../storage/object-store';
import { storableText } from '../../core/cause-chain';
import { POST_PROCESS_ERROR_CODE, type PostProcessFailureDetails, type PostProcessFailureType } from '../../domain/portal/errors';
import { parseScrapeResult, type ScrapeResult } from '../../domain/portal/result';

/** Largest result object read (bytes); a larger one is C16. */
export const MAX_RESULT_BYTES = 8 * 1024 * 1024;

/** A classified post-processing failure (the activity turns it into the catalogued Temporal failure). */
export class PostProcessError extends Error {
  override readonly name = 'PostProcessError';
  constructor(
    readonly type: PostProcessFailureType,
    message: string,
    readonly details: PostProcessFailureDetails = { code: POST_PROCESS_ERROR_CODE[type] },
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/**
 * PO-6/PO-8/PO-10 reads `key` and returns the validated result. The key must lie in the job's
 * own scope `<prefix><jobId>/` (defence in depth; the API checked it already).
 * @throws PostProcessError PORTAL_RESULT_UNREADABLE (C16: missing, too large, checksum mismatch, outside the scope),
 *   PORTAL_RESULT_STORE_UNAVAILABLE (an outage or an unexpected store error, retried), PORTAL_RESULT_INVALID (C17).
 */
export async function readScrapeResult(
  store: ObjectStore,
  args: { key: string; sha256: string | null; jobId: string; portalType: string; prefix: string; maxBytes?: number },
): Promise<ScrapeResult> {
  const scope = `${args.prefix}${args.jobId}/`;
  if (!args.key.startsWith(scope) || args.key.includes('..')) {
    throw new PostProcessError('PORTAL_RESULT_UNREADABLE', `result key ${storableText(args.key, 300)} is outside the job's scope ${scope}`);
  }
  let obj;
  try {
    obj = await store.get(args.key, args.maxBytes ?? MAX_RESULT_BYTES);
  } catch (err) {
    if (err instanceof ObjectNotFoundError) throw new PostProcessError('PORTAL_RESULT_UNREADABLE', `result object ${args.key} does not exist`, undefined, { cause: err });
    if (err instanceof RangeError) throw new PostProcessError('PORTAL_RESULT_UNREADABLE', `result object ${args.key} is too large: ${err.message}`, undefined, { cause: err });
    throw new PostProcessError('PORTAL_RESULT_STORE_UNAVAILABLE', `object store could not read ${args.key}: ${storableText((err as Error).message ?? String(err), 500)}`, undefined, { cause: err });
  }
  if (args.sha256 !== null && args.sha256.toLowerCase() !== obj.sha256.toLowerCase()) {
    throw new PostProcessError('PORTAL_RESULT_UNREADABLE', `result object ${args.key}: SHA-256 ${obj.sha256} differs from the callback's ${args.sha256}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(obj.bytes));
  } catch (err) {
    throw new PostProcessError('PORTAL_RESULT_INVALID', `result object ${args.key} is not UTF-8 JSON: ${(err as Error).message}`, {
      code: 'C17',
      issues: [{ path: '', message: 'not UTF-8 JSON' }],
    });
  }
  const parsed = parseScrapeResult(json);
  if (!parsed.ok) {
    const issues = parsed.issues.slice(0, 20).map((i) => ({ path: i.path.join('.'), message: storableText(i.message, 300) }));
    throw new PostProcessError('PORTAL_RESULT_INVALID', `result does not match the schema: ${issues.map((i) => `${i.path || '(root)'}: ${i.message}`).join('; ')}`, { code: 'C17', issues });
  }
  if (parsed.result.portalType !== args.portalType) {
    throw new PostProcessError('PORTAL_RESULT_INVALID', `result is of portal ${parsed.result.portalType}, the job of ${args.portalType}`, {
      code: 'C17',
      issues: [{ path: 'portal_type', message: `expected ${args.portalType}` }],
    });
  }
  return parsed.result;
}
