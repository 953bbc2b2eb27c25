/**
 * HTTP conditional-request and preference helpers for long polling: entity tags (RFC 9110
 * section 8.8.3), `If-None-Match` (RFC 9110 section 13.1.2, weak comparison) and the `wait`
 * preference of `Prefer` (RFC 7240 section 4.3). Pure functions, no I/O.
 */

/** A strong entity tag for an opaque tag: `"<tag>"` (tag characters are ASCII letters, digits, `.`, `-`). */
export function entityTag(tag: string): string {
  return `"${tag}"`;
}

/**
 * Whether `If-None-Match` (the raw header, possibly a comma-separated list or `*`) matches the
 * current entity tag `etag` under the weak comparison GET uses (a `W/` prefix is ignored).
 * `*` matches any current representation. Absent or empty → false.
 */
export function ifNoneMatchMatches(header: string | string[] | undefined, etag: string): boolean {
  if (header === undefined) return false;
  const value = Array.isArray(header) ? header.join(',') : header;
  const current = etag.replace(/^W\//, '');
  for (const raw of value.split(',')) {
    const candidate = raw.trim();
    if (candidate === '*') return true;
    if (candidate.replace(/^W\//, '') === current) return true;
  }
  return false;
}

/** Whether the header is `*` (alone or in the list). */
export function ifNoneMatchIsWildcard(header: string | string[] | undefined): boolean {
  if (header === undefined) return false;
  const value = Array.isArray(header) ? header.join(',') : header;
  return value.split(',').some((v) => v.trim() === '*');
}

/**
 * The `wait` preference of the `Prefer` header(s) in whole seconds (RFC 7240: `wait=<delta-seconds>`,
 * token names case-insensitive, the value possibly quoted, several preferences comma-separated,
 * parameters after `;` ignored; the first `wait` wins). A missing, empty or malformed `wait` is
 * ignored as RFC 7240 asks (undefined), never an error.
 */
export function preferredWaitSeconds(header: string | string[] | undefined): number | undefined {
  if (header === undefined) return undefined;
  const value = Array.isArray(header) ? header.join(',') : header;
  for (const pref of value.split(',')) {
    const [head] = pref.split(';');
    const eq = (head ?? '').indexOf('=');
    if (eq < 0) continue;
    const name = (head ?? '').slice(0, eq).trim().toLowerCase();
    if (name !== 'wait') continue;
    const raw = (head ?? '').slice(eq + 1).trim().replace(/^"(.*)"$/, '$1');
    return /^\d{1,9}$/.test(raw) ? Number(raw) : undefined;
  }
  return undefined;
}
