/**
 * What PostgreSQL may hold of an HR request (AR-6): the masked text and a keyed hash of the raw
 * text, never the raw text. {@link maskSensitive} masks phone numbers (`010-****-****`), e-mail
 * addresses (`j***@example.com`), resident registration numbers (`******-*******`), card and account
 * numbers (every digit starred) and cuts by code point; {@link maskDeep} and {@link maskError} apply
 * it to every value derived from the input (a candidate's slots, a message, an error chain); {@link keyedInputHash} is HMAC-SHA256 with a
 * server key (a bare SHA-256 of a short text is guessable by trying candidate texts). Uses
 * node:crypto: not for workflow code (the detection itself lives in sensitive.ts).
 */
import { createHmac } from 'node:crypto';
import { cutCodePoints } from '../../core/text';
import { findSensitive, type SensitiveSpan } from './sensitive';

/** Shortest HMAC key accepted, in bytes (RFC 2104 recommends at least the 32-byte output size). */
export const MIN_INPUT_HASH_KEY_BYTES = 32;

const ELLIPSIS = '…';

function maskSpan(text: string, span: SensitiveSpan): string {
  const s = text.slice(span.start, span.end);
  switch (span.kind) {
    case 'PHONE': {
      // Keep the country / area / mobile prefix (+82 10, 02, 031, 010), star every later digit.
      const keep = /^(?:\+82[ -]?0?\d{1,2}|0(?:2|\d{2}))/.exec(s)?.[0].length ?? 0;
      return s.slice(0, keep) + s.slice(keep).replace(/\d/g, '*');
    }
    case 'EMAIL': {
      const at = s.lastIndexOf('@');
      const first = String.fromCodePoint(s.codePointAt(0) ?? 0x2a);
      return `${first}***${s.slice(at)}`;
    }
    case 'RRN':
    case 'CARD_NUMBER':
    case 'ACCOUNT_NUMBER':
      return s.replace(/\d/g, '*');
  }
}

/**
 * `text` with its sensitive data masked (AR-6), then, when `maxCodePoints` is given and the
 * masked text is longer, cut to that many code points including a trailing `…` — by code point, so
 * a surrogate pair is never split. Masking comes before the cut, so a number cut in half cannot
 * escape detection.
 */
export function maskSensitive(text: string, options: { maxCodePoints?: number } = {}): string {
  let out = '';
  let at = 0;
  for (const span of findSensitive(text)) {
    out += text.slice(at, span.start) + maskSpan(text, span);
    at = span.end;
  }
  out += text.slice(at);
  const max = options.maxCodePoints;
  if (max === undefined) return out;
  if (!Number.isInteger(max) || max < 1) throw new RangeError('maxCodePoints must be a positive integer');
  const cut = cutCodePoints(out, max);
  if (cut.length === out.length) return out;
  return cutCodePoints(out, max - 1) + ELLIPSIS;
}

/**
 * `value` with {@link maskSensitive} applied to every string in it, at any depth (arrays and plain
 * objects; keys are kept, other values returned as they are). What AR-6 asks of anything derived
 * from a run's input before it is stored, returned or logged: slots, titles, messages.
 */
export function maskDeep<T>(value: T): T {
  if (typeof value === 'string') return maskSensitive(value) as T;
  if (Array.isArray(value)) return value.map((v: unknown) => maskDeep(v)) as T;
  if (value !== null && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, maskDeep(v)])) as T;
  }
  return value;
}

/**
 * A copy of `err` and its `cause` chain (at most 8 deep) with every message and stack masked
 * ({@link maskSensitive}), names kept: the error a failure may carry into Temporal's history and
 * into log lines, where failure messages are not encrypted by the payload codec. Non-errors → undefined.
 */
export function maskError(err: unknown, depth = 0): Error | undefined {
  if (!(err instanceof Error) || depth >= 8) return undefined;
  const cause = maskError(err.cause, depth + 1);
  const copy = new Error(maskSensitive(err.message), cause ? { cause } : undefined);
  copy.name = err.name;
  copy.stack = err.stack === undefined ? undefined : maskSensitive(err.stack);
  return copy;
}

/**
 * HMAC-SHA256 of the UTF-8 bytes of `text` under `key`, as 64 lower-case hex characters (AR-6: the
 * stored `inputHash`; equal texts give equal hashes only for a holder of the key).
 * @throws RangeError when `key` is shorter than {@link MIN_INPUT_HASH_KEY_BYTES} bytes.
 */
export function keyedInputHash(key: Buffer, text: string): string {
  if (key.length < MIN_INPUT_HASH_KEY_BYTES) {
    throw new RangeError(`the input hash key must have at least ${MIN_INPUT_HASH_KEY_BYTES} bytes, got ${key.length}`);
  }
  return createHmac('sha256', key).update(text, 'utf8').digest('hex');
}
