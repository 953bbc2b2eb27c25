import { createHash } from 'node:crypto';
import { trimBlank } from '../../core/blank';

/**
 * SAN-7: normalises scrap content: Unicode NFC (NFC and NFD of one text are one scrap), CRLF (and
 * lone CR) → LF, then {@link trimBlank}. A result of '' means the content is blank. Pure.
 */
export function normaliseContent(content: string): string {
  return trimBlank(content.normalize('NFC').replace(/\r\n?/g, '\n'));
}

/** A scrap's title (SAN-7): NFC, then {@link trimBlank}. Pure. */
export function normaliseTitle(title: string): string {
  return trimBlank(title.normalize('NFC'));
}

/** SAN-7: dedup key of normalised content, SHA-256 as 64 lowercase hex characters. */
export function contentHash(normalised: string): string {
  return createHash('sha256').update(normalised, 'utf8').digest('hex');
}
