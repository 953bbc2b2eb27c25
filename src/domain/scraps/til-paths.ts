/**
 * SAN-10 file paths of committed TILs: `<directory>/<YYYY-MM-DD>-<slug>.md`, `-2`, `-3` … on a
 * collision, and their encoding for the contents API. Pure, no I/O.
 */

import { cutCodePoints } from '../../core/text';

/** Longest slug, in code points. */
export const MAX_SLUG_CHARS = 80;
/** Slug of a title with no letters or digits. */
export const FALLBACK_SLUG = 'til';

/**
 * Slug of a TIL title: Unicode letters, marks and digits kept (Korean stays Korean), ASCII
 * lowercased, whitespace, `_` and `-` runs → one `-`, everything else dropped, at most
 * {@link MAX_SLUG_CHARS} code points, never starting or ending with `-`; `til` when nothing is left.
 */
export function slugify(title: string): string {
  const cleaned = title
    .normalize('NFC')
    .replace(/[A-Z]+/g, (s) => s.toLowerCase())
    .replace(/[\s_-]+/gu, '-')
    .replace(/[^\p{L}\p{M}\p{N}-]/gu, '')
    .replace(/-{2,}/g, '-')
    .replace(/^-+|-+$/g, '');
  const cut = cutCodePoints(cleaned, MAX_SLUG_CHARS).replace(/-+$/, '');
  return cut === '' ? FALLBACK_SLUG : cut;
}

/**
 * Normalises a repository directory: `/`-separated, no leading/trailing/double slashes; '' is the
 * repository root. Returns null for `.`/`..` segments, control characters, backslashes or segments
 * with leading/trailing spaces (rejected as input).
 */
export function normaliseDirectory(directory: string): string | null {
  const segments = directory.split('/').filter((s) => s !== '');
  if (segments.some((s) => s === '.' || s === '..' || /\p{Cc}/u.test(s) || s.includes('\\') || s.trim() !== s)) return null;
  return segments.join('/');
}

/** The date part of a path from a `DATE` column value (UTC), `YYYY-MM-DD`. */
export function isoDate(date: Date): string {
  return date.toISOString().slice(0, 10);
}

/**
 * SAN-10 candidate path number `n` (1 = no suffix): `<directory>/<date>-<slug>[-n].md`.
 * `directory` must be normalised ({@link normaliseDirectory}).
 */
export function tilFilePath(directory: string, date: string, title: string, n = 1): string {
  // The date is already in the name: a title that starts with it ("TIL 2026-11-30: …") drops it.
  const rest = title.replace(new RegExp(`^\\s*(TIL\\s*)?${date}\\s*[:\\-–]?\\s*`, 'i'), '') || title;
  const name = `${date}-${slugify(rest)}${n > 1 ? `-${n}` : ''}.md`;
  return directory === '' ? name : `${directory}/${name}`;
}

/** SAN-10 bytes committed for a TIL: LF line ends, exactly one trailing newline. */
export function tilFileContent(markdown: string): string {
  return `${markdown.replace(/\r\n?/g, '\n').trimEnd()}\n`;
}

/** SAN-10 commit message of a TIL. */
export function tilCommitMessage(date: string, title: string | null): string {
  return `TIL ${date}: ${(title ?? '').trim() || 'untitled'}`;
}
