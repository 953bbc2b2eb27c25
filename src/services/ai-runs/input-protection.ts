/**
 * AR-6: what PostgreSQL keeps of a run's input — the masked text (src/domain/ai-runs/masking.ts) and a
 * keyed hash (HMAC-SHA256 with the server key AI_INPUT_HASH_KEY: a bare SHA-256 of a short text is
 * guessable).
 */
import { storableText } from '../../core/cause-chain';
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

/** Longest stored error message of a run or attempt, in code points. */
export const MAX_MESSAGE_CHARS = 2000;

/**
 * AR-6 an error message as a run or attempt stores it: masked (a runtime's message may quote the
 * input), made storable and cut to `max` code points.
 */
export function storableMessage(message: string, max = MAX_MESSAGE_CHARS): string {
  return storableText(maskSensitive(message), max);
}
