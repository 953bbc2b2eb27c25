import { createHash } from 'node:crypto';

/** SAN-7: normalises scrap content: CRLF (and lone CR) → LF, then trims. Pure. */
export function normaliseContent(content: string): string {
  return content.replace(/\r\n?/g, '\n').trim();
}

/** SAN-7: dedup key of normalised content, SHA-256 as 64 lowercase hex characters. */
export function contentHash(normalised: string): string {
  return createHash('sha256').update(normalised, 'utf8').digest('hex');
}
