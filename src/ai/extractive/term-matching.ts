/**
 * Key terms found and replaced in text, word-aware and linear: Latin terms as whole words, Hangul
 * terms at the start of a Hangul run (a particle may follow), Korean particles fixed after a
 * replacement. Part of the extractive toolkit; no I/O.
 */
import { finalConsonant, HANGUL_CHAR_RE } from './hangul';
import { isHangul } from './tokens';

/** The blank of a cloze: what replaces a key term. */
export const BLANK = '____';

/** `s` with the characters of a regular expression escaped. */
export function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * Compiled case-insensitive literals of terms, bounded. Only the literal is a regular expression:
 * word boundaries are checked in code, because a `[\p{L}\p{N}]` class under the `iu` flags costs
 * milliseconds to compile, once per distinct term (seconds for a few hundred texts).
 */
export const TERM_RES = new Map<string, RegExp>();
export const TERM_RES_MAX = 4096;
export const LETTER_OR_DIGIT_RE = /^[\p{L}\p{N}]$/u;

/** The compiled case-insensitive literal of `term` (cached, at most {@link TERM_RES_MAX}). */
export function termLiteral(term: string): RegExp {
  let re = TERM_RES.get(term);
  if (!re) {
    re = new RegExp(escapeRegExp(term), 'giu');
    if (TERM_RES.size >= TERM_RES_MAX) TERM_RES.clear();
    TERM_RES.set(term, re);
  }
  return re;
}

/** The code point of `text` ending at `i` (exclusive), or '' at the start. */
export function codePointBefore(text: string, i: number): string {
  if (i <= 0) return '';
  const c = text.charCodeAt(i - 1);
  return c >= 0xdc00 && c <= 0xdfff && i >= 2 ? text.slice(i - 2, i) : text.charAt(i - 1);
}

/** The code point of `text` starting at `i`, or '' at the end. */
export function codePointFrom(text: string, i: number): string {
  const c = text.codePointAt(i);
  return c === undefined ? '' : String.fromCodePoint(c);
}

/**
 * Occurrences of `term` in `text`, case-insensitive, left to right and not overlapping: a Latin term
 * as a whole word (no letter or digit on either side), a Hangul term at the start of a Hangul run (a
 * particle may follow). The rules of `(?<![\p{L}\p{N}])term(?![\p{L}\p{N}])` and
 * `(?<!\p{Script=Hangul})term` with the `giu` flags.
 */
export function* termMatches(text: string, term: string): Generator<{ index: number; match: string }> {
  const re = termLiteral(term);
  const hangul = isHangul(term);
  let from = 0;
  while (from <= text.length) {
    re.lastIndex = from;
    const m = re.exec(text);
    if (!m) return;
    const at = m.index;
    const end = at + m[0].length;
    const before = codePointBefore(text, at);
    const ok = hangul
      ? !HANGUL_CHAR_RE.test(before)
      : !LETTER_OR_DIGIT_RE.test(before) && !LETTER_OR_DIGIT_RE.test(codePointFrom(text, end));
    if (ok) {
      yield { index: at, match: m[0] };
      from = end;
    } else {
      from = at + codePointFrom(text, at).length;
    }
  }
}

/** The first occurrence of `term` in `text` as written there, or undefined. */
export function surface(text: string, term: string): string | undefined {
  for (const m of termMatches(text, term)) return m.match;
  return undefined;
}

/**
 * How `term` is written in `texts`: the first occurrence inside a sentence, else a sentence-initial one
 * (lower-cased when only its capital comes from the sentence start, so `Monitor` → `monitor` but
 * `PostgreSQL` stays). Undefined when absent.
 */
export function writtenForm(texts: readonly string[], lowered: readonly string[], term: string): string | undefined {
  let initial: string | undefined;
  for (const [i, text] of texts.entries()) {
    // A text whose lower-cased form lacks the (lower-case) term cannot match; skip it without the regex.
    if (!(lowered[i] ?? text.toLowerCase()).includes(term)) continue;
    for (const m of termMatches(text, term)) {
      if (m.index > 0) return m.match;
      initial ??= /^\p{Lu}\p{Ll}*$/u.test(m.match) ? m.match.toLowerCase() : m.match;
    }
  }
  return initial;
}

/** Adjusts a Korean particle right after a replaced noun to the noun's final consonant (은/는, 이/가, 을/를, 과/와, 으로/로). */
export function fixParticle(noun: string, rest: string): string {
  if (!isHangul(noun.slice(-1))) return rest;
  const { any, rieul } = finalConsonant(noun);
  const standalone = (n: number) => !isHangul(rest.charAt(n));
  if (rest.startsWith('으로') || (rest.startsWith('로') && !rest.startsWith('로서'))) {
    const tail = rest.startsWith('으로') ? rest.slice(2) : rest.slice(1);
    return `${any && !rieul ? '으로' : '로'}${tail}`;
  }
  const pairs: [string, string][] = [['은', '는'], ['이', '가'], ['을', '를'], ['과', '와']];
  for (const [withFinal, without] of pairs) {
    if ((rest.startsWith(withFinal) || rest.startsWith(without)) && (standalone(1) || withFinal === '은' || withFinal === '을')) {
      return `${any ? withFinal : without}${rest.slice(1)}`;
    }
  }
  return rest;
}

/** Replaces every occurrence of `term` in `text` with `by`, fixing Korean particles and sentence-initial capitals. */
export function replaceTerm(text: string, term: string, by: string): string {
  let out = '';
  let last = 0;
  for (const m of termMatches(text, term)) {
    const at = m.index;
    let word = by;
    let before = text.slice(last, at);
    if (by !== BLANK && at === 0 && /^\p{Lu}/u.test(m.match) && /^\p{Ll}/u.test(by)) word = by.charAt(0).toUpperCase() + by.slice(1);
    if (by !== BLANK && !isHangul(by)) {
      before = before.replace(/(?<![\p{L}\p{N}])([Aa])n?(\s+)$/u, (_all, a: string, space: string) => `${a}${/^[aeiou]/i.test(by) ? 'n' : ''}${space}`);
    }
    out += before + word;
    last = at + m.match.length;
    if (by !== BLANK && isHangul(term)) {
      const rest = fixParticle(by, text.slice(last));
      out += rest;
      last = text.length;
      break;
    }
  }
  return out + text.slice(last);
}
