/**
 * AR-6: what PostgreSQL keeps of a run's input — the masked text (src/domain/ai-runs/masking.ts) and a
 * keyed hash (HMAC-SHA256 with the server key AI_INPUT_HASH_KEY: a bare SHA-256 of a short text is
 * guessable).
 */
import { keyedInputHash, maskSensitive } from '../../domain/ai-runs/masking';

/** Longest stored masked input, in code points. */
export const MAX_MASKED_CHARS = 2000;

/** The masked input: phone numbers, e-mails, RRNs and account numbers blanked, cut by code point. */
export function maskInput(text: string): string {
  return maskSensitive(text, { maxCodePoints: MAX_MASKED_CHARS });
}

/** HMAC-SHA256 hex (64 characters) of the raw input under the configured key (UTF-8 bytes of it). */
export function inputHashOf(key: string, text: string): string {
  return keyedInputHash(Buffer.from(key, 'utf8'), text);
}
