/**
 * Linear-time text scanners of the extractive toolkit (src/ai/extractive). Each one
 * replaces a regular expression whose backtracking was quadratic on adversarial input (`![` × 50,000
 * took about 10 s of synchronous CPU): the same match rules, but every search for a closing
 * delimiter resumes where the previous one stopped, so no character is scanned more than a bounded
 * number of times. Pure and deterministic.
 */
import { isSpaceCode } from '../core/text';

/** Line terminators (`.` in a regular expression does not match them). */
const isLineTerminator = (c: number): boolean => c === 0x0a || c === 0x0d || c === 0x2028 || c === 0x2029;

/**
 * Forward search for `needle` whose queries never move backwards: `next(from)` is the first index
 * ≥ `from` where `needle` starts (or -1), and repeated queries cost O(n) in total.
 */
function forwardSearch(s: string, needle: string, accept: (at: number) => boolean = () => true): (from: number) => number {
  let found = -2; // -2: not searched yet; -1: none at or after `searchedFrom`
  let searchedFrom = 0;
  return (from: number) => {
    if (found === -1 && from >= searchedFrom) return -1;
    if (found >= from) return found;
    let at = Math.max(from, searchedFrom);
    for (;;) {
      at = s.indexOf(needle, at);
      if (at === -1 || accept(at)) break;
      at += 1;
    }
    found = at;
    searchedFrom = from;
    return at;
  };
}

/** The first line terminator at or after `from`, or `s.length`, with monotone queries. */
function forwardLineEnd(s: string): (from: number) => number {
  let found = -1;
  return (from: number) => {
    if (found >= from) return found;
    let i = Math.max(from, found + 1);
    while (i < s.length && !isLineTerminator(s.charCodeAt(i))) i++;
    found = i;
    return i;
  };
}

/**
 * Markdown images and links to their text, in that order: `![alt](dest)` → `alt`, then
 * `[text](dest)` → `text`. The rules of `/!?\[([^\]]*)\]\([^)]*\)/g`: the text runs to the first `]`,
 * which must be followed by `(`, and the destination to the first `)`.
 */
export function stripLinks(s: string): string {
  return replaceBracketed(replaceBracketed(s, true), false);
}

function replaceBracketed(s: string, image: boolean): string {
  if (!s.includes('](')) return s;
  const closeBracket = forwardSearch(s, ']');
  const closeParen = forwardSearch(s, ')');
  const open = image ? '![' : '[';
  let out = '';
  let last = 0;
  let i = s.indexOf(open);
  while (i !== -1) {
    const textStart = i + open.length;
    const j = closeBracket(textStart);
    if (j === -1) break;
    const k = s.charCodeAt(j + 1) === 0x28 ? closeParen(j + 2) : -1;
    if (k !== -1) {
      out += s.slice(last, i) + s.slice(textStart, j);
      last = k + 1;
      i = s.indexOf(open, last);
    } else {
      i = s.indexOf(open, i + 1);
    }
  }
  return last === 0 ? s : out + s.slice(last);
}

/** HTML-like tags to one space: the rules of `/<[^>\n]+>/g` (a tag ends at the first `>` on its line). */
export function stripTags(s: string): string {
  if (!s.includes('<')) return s;
  const closeAngle = forwardSearch(s, '>');
  const newline = forwardSearch(s, '\n');
  let out = '';
  let last = 0;
  let i = s.indexOf('<');
  while (i !== -1) {
    const k = closeAngle(i + 1);
    if (k === -1) break;
    const nl = newline(i + 1);
    if (k > i + 1 && (nl === -1 || k < nl)) {
      out += `${s.slice(last, i)} `;
      last = k + 1;
      i = s.indexOf('<', last);
    } else {
      i = s.indexOf('<', i + 1);
    }
  }
  return last === 0 ? s : out + s.slice(last);
}

/** Emphasis delimiters tried at one position, in the order of `(\*{1,3}|_{2,3})`. */
const DELIMITERS: Record<string, string[]> = { '*': ['***', '**', '*'], _: ['___', '__'] };

/**
 * Emphasis markers removed, keeping the emphasised text: the rules of
 * `/(\*{1,3}|_{2,3})(\S(?:.*?\S)?)\1/g`: after an opening delimiter, the shortest text of at least
 * two characters that starts and ends with a non-space, stays on one line and is followed by the
 * same delimiter; failing that, a single non-space followed by it. The text is kept as written.
 */
export function stripEmphasis(s: string): string {
  if (!s.includes('*') && !s.includes('__')) return s;
  const notSpaceBefore = (at: number) => at > 0 && !isSpaceCode(s.charCodeAt(at - 1));
  const closers = new Map<string, (from: number) => number>();
  const closer = (d: string) => {
    let c = closers.get(d);
    if (!c) {
      c = forwardSearch(s, d, notSpaceBefore);
      closers.set(d, c);
    }
    return c;
  };
  const lineEnd = forwardLineEnd(s);
  let out = '';
  let last = 0;
  let i = 0;
  while (i < s.length) {
    const ch = s.charAt(i);
    const options = ch === '*' || ch === '_' ? DELIMITERS[ch] : undefined;
    let matched = false;
    for (const d of options ?? []) {
      if (!s.startsWith(d, i)) continue;
      const start = i + d.length;
      if (start >= s.length || isSpaceCode(s.charCodeAt(start))) continue;
      // `(?:.*?\S)?` is tried first: the shortest closed text of two or more characters on the
      // line; only without one does a single character count.
      let q = closer(d)(start + 2);
      if (q === -1 || q > lineEnd(start)) q = s.startsWith(d, start + 1) ? start + 1 : -1;
      if (q === -1) continue;
      out += s.slice(last, i) + s.slice(start, q);
      last = q + d.length;
      i = last;
      matched = true;
      break;
    }
    if (!matched) i++;
  }
  return last === 0 ? s : out + s.slice(last);
}

/** Sentence-final punctuation and the closing quotes or brackets that may follow it. */
const SENTENCE_END = new Set(['.', '!', '?', '。', '！', '？']);
const CLOSERS = new Set(['"', "'", ')', ']']);

/**
 * Splits prose into sentences at white space that follows sentence-final punctuation (`.!?。！？`,
 * optionally followed by closing `"')]`) and precedes a non-space: the rules of
 * `/(?<=[.!?。！？]["')\]]*)\s+(?=\S)/u`. Pieces are trimmed; empty ones dropped.
 */
export function splitSentences(text: string): string[] {
  const out: string[] = [];
  let pieceStart = 0;
  let i = 0;
  while (i < text.length) {
    if (!isSpaceCode(text.charCodeAt(i))) {
      i++;
      continue;
    }
    const runStart = i;
    while (i < text.length && isSpaceCode(text.charCodeAt(i))) i++;
    if (i === text.length) break;
    let b = runStart - 1;
    while (b >= pieceStart && CLOSERS.has(text.charAt(b))) b--;
    if (b >= 0 && SENTENCE_END.has(text.charAt(b))) {
      const piece = text.slice(pieceStart, runStart).trim();
      if (piece) out.push(piece);
      pieceStart = i;
    }
  }
  const rest = text.slice(pieceStart).trim();
  if (rest) out.push(rest);
  return out;
}

/** `s` without the trailing characters for which `drop` holds (linear, unlike `/[…]+$/`). */
export function trimEndWhere(s: string, drop: (c: number) => boolean): string {
  let end = s.length;
  while (end > 0 && drop(s.charCodeAt(end - 1))) end--;
  return end === s.length ? s : s.slice(0, end);
}

/**
 * The text of an ATX heading line after its `#` run: leading and trailing white space and a closing
 * `#` sequence removed (the rules of `(.*?)\s*#*\s*$`).
 */
export function headingContent(rest: string): string {
  const t = rest.trim();
  let end = t.length;
  while (end > 0 && t.charCodeAt(end - 1) === 0x23) end--;
  return t.slice(0, end).trimEnd();
}

/**
 * Markdown images removed with their alt text (badges such as `[![Build Status](…)](…)` are not
 * prose): inline `![alt](dest)`, reference `![alt][ref]` and shortcut `![alt]` images. The
 * alt text runs to the first `]`, an inline destination to the first `)`, a reference to the next
 * `]`. Linear: every closing search resumes where the previous one stopped.
 */
export function dropImages(s: string): string {
  if (!s.includes('![')) return s;
  const closeBracket = forwardSearch(s, ']');
  const closeParen = forwardSearch(s, ')');
  let out = '';
  let last = 0;
  let i = s.indexOf('![');
  while (i !== -1) {
    const j = closeBracket(i + 2);
    if (j === -1) break;
    const next = s.charCodeAt(j + 1);
    let end = j + 1;
    if (next === 0x28) {
      const k = closeParen(j + 2);
      if (k !== -1) end = k + 1;
    } else if (next === 0x5b) {
      const k = closeBracket(j + 2);
      if (k !== -1) end = k + 1;
    }
    out += s.slice(last, i);
    last = end;
    i = s.indexOf('![', last);
  }
  return last === 0 ? s : out + s.slice(last);
}

/**
 * Reference links to their text: `[text][ref]` → `text`. The text runs to the first
 * `]`, which must be followed by `[`, the reference to the next `]`. Linear like {@link stripLinks}.
 */
export function stripReferenceLinks(s: string): string {
  if (!s.includes('][')) return s;
  const closeBracket = forwardSearch(s, ']');
  let out = '';
  let last = 0;
  let i = s.indexOf('[');
  while (i !== -1) {
    const j = closeBracket(i + 1);
    if (j === -1) break;
    const k = s.charCodeAt(j + 1) === 0x5b ? closeBracket(j + 2) : -1;
    if (k !== -1) {
      out += s.slice(last, i) + s.slice(i + 1, j);
      last = k + 1;
      i = s.indexOf('[', last);
    } else {
      i = s.indexOf('[', i + 1);
    }
  }
  return last === 0 ? s : out + s.slice(last);
}

/**
 * True for a markdown link reference definition line (`[label]: destination`, up to 3 spaces of
 * indentation), which carries no prose (`[downloads-image]: https://…` would make keywords).
 */
export function isLinkDefinition(line: string): boolean {
  let i = 0;
  while (i < 3 && line.charCodeAt(i) === 0x20) i++;
  if (line.charCodeAt(i) !== 0x5b) return false;
  const close = line.indexOf(']', i + 1);
  return close > i + 1 && line.charCodeAt(close + 1) === 0x3a;
}
