/**
 * Markdown structure: headings, code fences, prose blocks, sentences, clipping.
 * Part of the extractive toolkit; no I/O.
 */
import { decodeHTML } from 'entities';
import { clipText, isSpaceCode } from '../../core/text';
import { dropImages, headingContent, isLinkDefinition, splitSentences, stripEmphasis, stripLinks, stripReferenceLinks, stripTags, trimEndWhere } from '../plain-text';
import { URL_RE } from './tokens';

export const FENCE_RE = /^\s{0,3}(`{3,}|~{3,})/;
/** An ATX heading's opening `#` run (at most 6, not followed by another `#`). */
export const HEADING_OPEN_RE = /^\s{0,3}#{1,6}(?!#)/;
export const BULLET_RE = /^\s*(?:[-*+]|\d+[.)])\s+/;

/**
 * Inline markdown to plain text: images (with their alt text: badges are not prose), links and
 * reference links (their text kept), HTML tags, URLs, code spans, emphasis, in that order; then HTML
 * character references (`&middot;`, `&#39;`) decoded (the `entities` package, HTML5 rules), so no title
 * or card shows an entity. Linear in the length of `s` (the bracket, tag and emphasis rules are scanners, see
 * `plain-text.ts`; the remaining expressions cannot backtrack).
 */
export function inlinePlain(s: string): string {
  const plain = stripTags(stripReferenceLinks(stripLinks(dropImages(s)))).replace(URL_RE, ' ').replace(/`+/g, '');
  return decodeHTML(stripEmphasis(plain)).replace(/\s+/g, ' ').trim();
}

export interface Structure {
  headings: string[];
  /** Prose blocks (paragraphs and list items), inline markdown removed, in order. */
  blocks: string[];
}

/**
 * Sections that are boilerplate of a README rather than its topic (licence and security contact
 * text would make a note on string helpers about "Security"); their headings and blocks are left out.
 */
export const BOILERPLATE_SECTION_RE =
  /^(?:licen[cs]e|licen[cs]ing|copyright|security|security policy|security contact information|contributing|contribute|contributors|maintainers?|authors?|sponsors?|backers|support|funding|acknowledg(?:e)?ments?|credits|changelog|change log|release notes|code of conduct|thanks|tidelift|enterprise|for enterprise|tests|running tests|running the tests)$/;

/**
 * Headings and prose blocks of a markdown document: ATX and setext headings, paragraphs and list
 * items with inline markdown removed ({@link inlinePlain}); code fences, link reference definitions
 * and thematic breaks dropped, and sections whose heading is {@link BOILERPLATE_SECTION_RE} skipped
 * (unless nothing else is left). Linear in the input.
 */
export function structure(markdown: string): Structure {
  const headings: string[] = [];
  const blocks: string[] = [];
  const skippedHeadings: string[] = [];
  const skippedBlocks: string[] = [];
  /** Level of the boilerplate heading being skipped; 0 when none. */
  let skipLevel = 0;
  let para: string[] = [];
  let fence: string | null = null;
  const flush = () => {
    const text = inlinePlain(para.join(' '));
    if (text) (skipLevel ? skippedBlocks : blocks).push(text);
    para = [];
  };
  const heading = (level: number, text: string) => {
    if (skipLevel && level <= skipLevel) skipLevel = 0;
    if (!skipLevel && BOILERPLATE_SECTION_RE.test(text.toLowerCase().replace(/[:.!]+$/, '').trim())) skipLevel = level;
    (skipLevel ? skippedHeadings : headings).push(text);
  };
  for (const raw of markdown.replace(/\r\n?/g, '\n').split('\n')) {
    const f = FENCE_RE.exec(raw);
    if (fence !== null) {
      if (f && f[1]?.[0] === fence[0] && (f[1]?.length ?? 0) >= fence.length) fence = null;
      continue;
    }
    if (f) {
      flush();
      fence = f[1] ?? '```';
      continue;
    }
    const h = HEADING_OPEN_RE.exec(raw);
    if (h) {
      flush();
      const text = inlinePlain(headingContent(raw.slice(h[0].length)));
      if (text) heading(h[0].trim().length, text);
      continue;
    }
    // A setext heading: one paragraph line underlined with `===` (level 1) or `---` (level 2).
    const setext = para.length === 1 ? SETEXT_RE.exec(raw) : null;
    if (setext) {
      const text = inlinePlain(para[0] ?? '');
      para = [];
      if (text) heading(setext[1] === '=' ? 1 : 2, text);
      continue;
    }
    if (/^\s*$/.test(raw) || /^\s*([-*_])(\s*\1){2,}\s*$/.test(raw) || isLinkDefinition(raw)) {
      flush();
      continue;
    }
    if (BULLET_RE.test(raw)) {
      flush();
      para.push(raw.replace(BULLET_RE, ''));
      continue;
    }
    para.push(raw.replace(/^\s*>\s?/, ''));
  }
  flush();
  if (headings.length === 0 && blocks.length === 0) return { headings: skippedHeadings, blocks: skippedBlocks };
  return { headings, blocks };
}

/** A setext underline: up to 3 spaces, a run of `=` or of `-`, trailing spaces. */
export const SETEXT_RE = /^ {0,3}(=|-)\1*[ \t]*$/;

/** Sentences of the prose blocks, in order (see {@link splitSentences}). */
export function sentences(blocks: string[]): string[] {
  return blocks.flatMap(splitSentences);
}

/**
 * Clips trimmed `s` to at most `max` UTF-16 code units, `…` included, at a word boundary when one is
 * near and never inside a surrogate pair or grapheme cluster ({@link clipText}).
 */
export function clip(s: string, max: number): string {
  return clipText(s, max, '…');
}

export const isTitleFinalPunctuation = (c: number): boolean => c === 0x2e || c === 0x21 || c === 0x3f || c === 0x3002;

/** `s` without a trailing run of `.!?。` that follows a non-space (the rules of `/(?<=\S)[.!?。]+$/u`), linear. */
export function stripFinalPunctuation(s: string): string {
  const kept = trimEndWhere(s, isTitleFinalPunctuation);
  if (kept.length === s.length) return s;
  if (kept.length > 0 && !isSpaceCode(kept.charCodeAt(kept.length - 1))) return kept;
  return s.length - kept.length >= 2 ? s.slice(0, kept.length + 1) : s;
}
