/**
 * AR-6: what PostgreSQL keeps of a run's input — the masked text and a keyed hash
 * (HMAC-SHA256 with the server key AI_INPUT_HASH_KEY: a bare SHA-256 of a short text is guessable).
 */
import { createHmac } from 'node:crypto';
import { storableText } from '../../core/errors';

/** Longest stored masked input, in code points. */
export const MAX_MASKED_CHARS = 2000;

/** The masked input: sensitive values (phone, e-mail, RRN, account numbers) blanked, cut by code point. */
export function maskInput(text: string): string {
  const masked = text
    .replace(/[\w.+-]+@[\w-]+(\.[\w-]+)+/g, '***@***')
    .replace(/\d[\d -]{5,}\d/g, (m) => m.replace(/\d/g, '*'));
  return storableText(masked, MAX_MASKED_CHARS);
}

/** HMAC-SHA256 hex (64 characters) of the raw input under `key`. */
export function inputHashOf(key: string, text: string): string {
  return createHmac('sha256', key).update(text, 'utf8').digest('hex');
}
