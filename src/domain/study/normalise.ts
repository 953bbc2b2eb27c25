/**
 * Text normalisation of the ST-5 card guards and keys: NFKC, lower case, every run of characters
 * that is not a letter, mark or number (punctuation, symbols, white space) as one space, trimmed;
 * the answer-leak guard also folds accents ({@link foldText}).
 * One linear regular-expression pass. Pure, no I/O: safe in workflow code.
 */

const NON_WORD_RUN = /[^\p{L}\p{M}\p{N}]+/gu;

/** `s` normalised for comparison: `"The  B-Tree's (root)"` → `"the b tree s root"`. */
export function normaliseText(s: string): string {
  return s.normalize('NFKC').toLowerCase().replace(NON_WORD_RUN, ' ').trim();
}

const COMBINING_MARKS = /\p{M}+/gu;

/**
 * `s` normalised and folded for the answer-leak guard: {@link normaliseText}, then accents and other
 * combining marks removed (`Résumé` → `resume`, `naïve` → `naive`). Hangul is decomposed and
 * recomposed (NFKD, then NFC), so its syllables survive. Not used for card keys: folding there would
 * change the identity of stored cards.
 */
export function foldText(s: string): string {
  return normaliseText(s.normalize('NFKD').replace(COMBINING_MARKS, '').normalize('NFC'));
}

const isHangulSyllable = (c: number): boolean => c >= 0xac00 && c <= 0xd7a3;

/** English inflection suffixes allowed after a match (`index` in `indexes`, `tree` in `trees`). */
const LATIN_SUFFIXES = ['s', 'es', "'s"];

/**
 * True when normalised `needle` occurs in normalised `haystack` as whole words: it starts at a word
 * start and ends at a word end, except that a Hangul needle may be followed by more Hangul (a
 * particle: `파리` in `파리는`) and a Latin one by a plural `s`/`es`. Both arguments are already
 * {@link normaliseText}ed; an empty needle never occurs. Worst case O(|needle| × occurrences).
 */
export function containsPhrase(haystack: string, needle: string): boolean {
  if (!needle) return false;
  let from = 0;
  for (;;) {
    const at = haystack.indexOf(needle, from);
    if (at < 0) return false;
    const end = at + needle.length;
    const startsWord = at === 0 || haystack.charCodeAt(at - 1) === 0x20;
    if (startsWord && (end === haystack.length || haystack.charCodeAt(end) === 0x20 || allowedTail(haystack, needle, end))) return true;
    from = at + 1;
  }
}

function allowedTail(haystack: string, needle: string, end: number): boolean {
  const last = needle.charCodeAt(needle.length - 1);
  if (isHangulSyllable(last)) return isHangulSyllable(haystack.charCodeAt(end));
  for (const suffix of LATIN_SUFFIXES) {
    const after = end + suffix.length;
    if (haystack.startsWith(suffix, end) && (after === haystack.length || haystack.charCodeAt(after) === 0x20)) return true;
  }
  return false;
}
