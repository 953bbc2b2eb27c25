/**
 * The one definition of blank text behind every "must not be blank" rule of the API and the
 * families: a text is blank when it has no visible code point. Pure, no I/O.
 */

/**
 * One code point that shows nothing on its own: Unicode White_Space (space, tab, line breaks, NEL
 * U+0085, NBSP, U+2028/U+2029, ideographic space …) or Default_Ignorable_Code_Point (zero-width
 * space/joiners U+200B–U+200D, word joiner U+2060, BOM U+FEFF, soft hyphen, bidi controls,
 * variation selectors, Hangul fillers …). The definition behind {@link isBlankText},
 * {@link trimBlank} and the API's "not blank" schema pattern {@link VISIBLE_TEXT_PATTERN}.
 */
const BLANK_CLASS = '[\\p{White_Space}\\p{Default_Ignorable_Code_Point}]';
const BLANK_RUN_START = new RegExp(`^${BLANK_CLASS}+`, 'u');
const ALL_BLANK = new RegExp(`^${BLANK_CLASS}*$`, 'u');
/** Joiners that join nothing at the very end of a text (ZWNJ, ZWJ, combining grapheme joiner). */
const TRAILING_JOINERS = /(?:\u200c|\u200d|\u034f)+$/u;

/**
 * A text with at least one visible code point (JSON Schema 2020-12 `pattern`, ECMA-262 with the
 * `u` flag). Used by the API schemas so the OpenAPI document states what {@link isBlankText} rejects.
 */
export const VISIBLE_TEXT_PATTERN = new RegExp(`[^${BLANK_CLASS.slice(1, -1)}]`, 'u');

/** True when `text` has no visible code point (empty, whitespace, zero-width or format characters only). Pure. */
export function isBlankText(text: string): boolean {
  return ALL_BLANK.test(text);
}

const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

/**
 * Removes invisible characters at both ends: whole grapheme clusters made only of blank code points
 * (see {@link VISIBLE_TEXT_PATTERN}), then joiners left dangling at the end. A visible character's
 * own marks (an emoji's variation selector, a flag's tag characters) stay with it. Pure; O(trimmed).
 */
export function trimBlank(text: string): string {
  let start = BLANK_RUN_START.exec(text)?.[0].length ?? 0;
  if (start === text.length) return '';
  // A blank run may end inside the first visible cluster (a variation selector after a space is blank
  // alone but belongs to nothing here): the cluster boundary decides.
  const clusters = graphemes.segment(text);
  const first = clusters.containing(start);
  if (first && first.index < start) start = first.index;
  let end = text.length;
  for (;;) {
    const last = clusters.containing(end - 1);
    if (!last || last.index < start || !isBlankText(last.segment)) break;
    end = last.index;
  }
  return text.slice(start, end).replace(TRAILING_JOINERS, '');
}
