/**
 * JSON body checks on the raw bytes (charset, UTF-8 validity, nesting depth) before anything parses
 * them, then fastify's own JSON parser builds the value. Used by the input rules (input-rules.ts).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { DomainError } from '../core/domain-error';
import { CORE_ERRORS } from '../core/errors';
import { shortName } from '../core/text';

/** Deepest accepted nesting of arrays and objects in a body (`{}` is depth 1). */
export const MAX_JSON_DEPTH = 32;

/**
 * The `charset` parameter of a Content-Type header value, lower-cased and unquoted; undefined when
 * absent. Parameters per RFC 9110 section 5.6.6 (`; name=token` or `; name="quoted"`). Pure.
 */
export function charsetOf(contentType: string): string | undefined {
  const params = contentType.slice(contentType.indexOf(';') + 1 || contentType.length);
  for (const m of params.matchAll(/(?:^|;)\s*([!#$%&'*+.^_`|~\w-]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^;\s]*))/g)) {
    if (m[1]?.toLowerCase() === 'charset') return (m[2] !== undefined ? m[2].replace(/\\(.)/g, '$1') : (m[3] ?? '')).toLowerCase();
  }
  return undefined;
}

/** Charset labels that name UTF-8 (RFC 8259 section 8.1: JSON exchanged between systems is UTF-8). */
const UTF8_LABELS = new Set(['utf-8', 'utf8']);

/**
 * True when the JSON text nests arrays/objects deeper than `max`. One linear scan that skips string
 * contents (escapes included); no recursion, so any input is safe. Malformed text is left to the parser.
 */
export function jsonDepthExceeds(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) {
      inString = true;
    } else if (c === 0x7b || c === 0x5b) {
      if (++depth > max) return true;
    } else if (c === 0x7d || c === 0x5d) {
      depth--;
    }
  }
  return false;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * The problem of a Content-Type whose `charset` is not UTF-8 (absent = UTF-8): 415
 * UNSUPPORTED_MEDIA_TYPE; undefined when the charset is fine.
 */
export function charsetProblem(contentType: string | undefined): DomainError | undefined {
  const charset = charsetOf(contentType ?? '');
  if (charset === undefined || UTF8_LABELS.has(charset)) return undefined;
  return CORE_ERRORS.problem('UNSUPPORTED_MEDIA_TYPE', `charset ${shortName(charset)} is not supported: send UTF-8`);
}

/**
 * The API's JSON reader over exact body bytes: 400 MALFORMED_JSON for bytes that are not UTF-8
 * (never read as U+FFFD) or text that is not JSON (fastify's own parser: prototype and constructor
 * poisoning are errors); 400 VALIDATION_FAILED for nesting deeper than {@link MAX_JSON_DEPTH}.
 */
export function jsonBytesReader(app: FastifyInstance): (req: FastifyRequest, bytes: Buffer) => Promise<unknown> {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  return (req, bytes) => {
    let text: string;
    try {
      text = utf8.decode(bytes);
    } catch {
      return Promise.reject(CORE_ERRORS.problem('MALFORMED_JSON', 'the body is not valid UTF-8'));
    }
    if (jsonDepthExceeds(text, MAX_JSON_DEPTH)) {
      return Promise.reject(CORE_ERRORS.problem('VALIDATION_FAILED', `body: nested deeper than ${MAX_JSON_DEPTH} levels`));
    }
    return new Promise((resolve, reject) => {
      void parseJson(req, text, (err, value) => (err ? reject(err) : resolve(value)));
    });
  };
}
