/**
 * Length-bounded text cutting that never produces ill-formed UTF-16: a cut never falls between the
 * two halves of a surrogate pair (PostgreSQL rejects a lone surrogate, e.g. "unexpected end of hex
 * escape"), and the clipping helpers also keep grapheme clusters (emoji ZWJ sequences, flags,
 * Hangul jamo, combining marks) whole. Pure, no I/O, no imports: safe in workflow code.
 *
 * Units: `maxLength` is in UTF-16 code units (`String.prototype.length`, what zod's `.max()` and the
 * API's limits count), so a result always passes the length check it was cut for; a code point
 * count (`maxCodePoints`) is named as such. Each helper runs in time linear in the part it keeps
 * (grapheme look-ups inspect a bounded window around the cut, never the whole string).
 */

const isHighSurrogate = (c: number): boolean => c >= 0xd800 && c <= 0xdbff;
const isLowSurrogate = (c: number): boolean => c >= 0xdc00 && c <= 0xdfff;

/**
 * The largest index ≤ `index` (clamped to 0 … `s.length`) that does not split a surrogate pair:
 * `index - 1` when `index` falls between a high and a low surrogate, else `index`.
 */
export function codePointBoundary(s: string, index: number): number {
  const i = Math.max(0, Math.min(s.length, Math.floor(index)));
  if (i > 0 && i < s.length && isLowSurrogate(s.charCodeAt(i)) && isHighSurrogate(s.charCodeAt(i - 1))) return i - 1;
  return i;
}

/**
 * The longest prefix of `s` with at most `maxLength` UTF-16 code units that ends on a code point
 * boundary (a surrogate pair is kept whole or dropped whole). `maxLength` < 0 counts as 0.
 */
export function cutToLength(s: string, maxLength: number): string {
  if (s.length <= maxLength) return s;
  return s.slice(0, codePointBoundary(s, maxLength));
}

/** The first `maxCodePoints` code points of `s` (all of `s` when it has fewer). */
export function cutCodePoints(s: string, maxCodePoints: number): string {
  if (s.length <= maxCodePoints) return s;
  let i = 0;
  for (let n = 0; n < maxCodePoints && i < s.length; n++) {
    i += isHighSurrogate(s.charCodeAt(i)) && i + 1 < s.length && isLowSurrogate(s.charCodeAt(i + 1)) ? 2 : 1;
  }
  return s.slice(0, i);
}

/** A client-supplied name for a message: at most 64 code points, then `…` (never cut mid-surrogate). */
export function shortName(name: string): string {
  const cut = cutCodePoints(name, 64);
  return cut.length < name.length ? `${cut}…` : name;
}

/** Code units of left context that a grapheme look-up inspects before the cut. */
const GRAPHEME_WINDOW_BEFORE = 64;
/** Code units of right context (a following combining mark or ZWJ joins the cluster before it). */
const GRAPHEME_WINDOW_AFTER = 16;

let graphemes: Intl.Segmenter | undefined;

/**
 * The largest index ≤ `index` (clamped) that is an extended grapheme cluster boundary of `s`
 * (Unicode UAX #29, through `Intl.Segmenter`), looking at most 64 code units back: a cluster longer
 * than that (rare: long emoji sequences, stacked marks) may be cut inside, always on a code point
 * boundary.
 */
export function graphemeBoundary(s: string, index: number): number {
  const i = codePointBoundary(s, index);
  if (i === 0 || i === s.length) return i;
  const lo = codePointBoundary(s, i - GRAPHEME_WINDOW_BEFORE);
  const hi = codePointBoundary(s, i + GRAPHEME_WINDOW_AFTER);
  graphemes ??= new Intl.Segmenter('en', { granularity: 'grapheme' });
  const start = graphemes.segment(s.slice(lo, hi)).containing(i - lo)?.index;
  return start === undefined ? i : lo + start;
}

/**
 * The longest prefix of `s` with at most `maxLength` UTF-16 code units that ends on a grapheme
 * cluster boundary (see {@link graphemeBoundary}).
 */
export function cutGraphemes(s: string, maxLength: number): string {
  if (s.length <= maxLength) return s;
  return s.slice(0, graphemeBoundary(s, maxLength));
}

/** Characters stripped before an ellipsis, so that `a, b, …` reads `a, b…`. */
const isTrailingJunk = (c: number): boolean =>
  c === 0x2c || c === 0x3b || c === 0x3a || c === 0x2e || c === 0x2d || isSpaceCode(c);

/** True for the code units of JavaScript's `\s` (white space and line terminators). */
export function isSpaceCode(c: number): boolean {
  return (
    c === 0x20 || (c >= 0x09 && c <= 0x0d) || c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) ||
    c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000 || c === 0xfeff
  );
}

/**
 * Clips trimmed `s` to at most `maxLength` UTF-16 code units, ellipsis included. Text that fits is
 * returned trimmed and unchanged. Otherwise the cut falls on a grapheme boundary, at the last white
 * space when one lies in the last 40 % of the room (so words stay whole), trailing white space and
 * `,;:.-` are dropped, and `ellipsis` (default `…`) is appended. When `maxLength` is shorter than the
 * ellipsis the text is cut without one. The result is well-formed whenever `s` is.
 */
export function clipText(s: string, maxLength: number, ellipsis = '…'): string {
  const t = s.trim();
  if (t.length <= maxLength) return t;
  if (maxLength < ellipsis.length || maxLength <= 0) return cutGraphemes(t, Math.max(0, maxLength));
  const room = maxLength - ellipsis.length;
  const hard = graphemeBoundary(t, room);
  let cut = hard;
  for (let i = hard; i > 0 && i >= room * 0.6; i--) {
    if (isSpaceCode(t.charCodeAt(i))) {
      cut = i;
      break;
    }
  }
  let end = cut;
  while (end > 0 && isTrailingJunk(t.charCodeAt(end - 1))) end--;
  if (end === 0) end = hard;
  return `${t.slice(0, end)}${ellipsis}`;
}
