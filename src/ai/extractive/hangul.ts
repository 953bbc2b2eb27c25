/**
 * Hangul syllable helpers (final consonants) for particles and negation.
 * Part of the extractive toolkit; no I/O.
 */

/** One Hangul syllable (or any Hangul character). */
export const HANGUL_CHAR_RE = /^\p{Script=Hangul}$/u;

/** Jongseong (final consonant) index of a Hangul syllable, 0 for none, -1 for anything else. */
export function jong(ch: string): number {
  const c = ch.charCodeAt(0) - 0xac00;
  return c >= 0 && c <= 11171 ? c % 28 : -1;
}

/** True when `s` is a Hangul syllable with a final consonant (받침); `rieul` only for final ㄹ. */
export function finalConsonant(s: string): { any: boolean; rieul: boolean } {
  const c = s.charCodeAt(s.length - 1) - 0xac00;
  if (c < 0 || c > 11171) return { any: false, rieul: false };
  const jong = c % 28;
  return { any: jong !== 0, rieul: jong === 8 };
}
