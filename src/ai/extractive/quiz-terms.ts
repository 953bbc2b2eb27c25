/**
 * Shared ground of the local TIL and quizzes (SAN-9, SAN-11): limits, prepared cards, key terms and their matching in text.
 * Part of the `local` runtime (src/ai/local.ts); no I/O.
 */
import { type SourceCard } from '../types';
import { KO_VERB_ENDING_RE, TAG_STOPWORDS, TITLE_MAX } from './card';
import { count, imul } from './embedding';
import { clip, inlinePlain, sentences, structure } from './markdown';
import { finalConsonant, HANGUL_CHAR_RE } from './hangul';
import { contentTokens, isContent, isHangul, TOKEN_RE } from './tokens';

export const TIL_KEYWORDS = 3;
export const TIL_BULLETS_MIN = 2;
export const TIL_BULLETS_MAX = 4;
/**
 * SAN-9 size bounds of a local TIL, in UTF-16 code units (the schema allows 100,000): the whole
 * markdown, one card's section, and the `## Sources` list. A day whose sections do not all fit gets
 * sections for its first cards (card order) and lists every card under Sources.
 */
export const TIL_LIMITS = { markdownMax: 60_000, sectionMax: 1_500, sourcesMax: 20_000 } as const;
/** Keywords kept per card for TIL titles, cloze answers and OX term swaps. */
export const CARD_KEYWORDS = 12;
/** Sentences usable as quiz statements: at most this long, with at least this many content words. */
export const QUIZ_SENTENCE_MAX = 320;
export const QUIZ_SENTENCE_MIN_TOKENS = 4;
export const BLANK = '____';
/** OX term swaps draw from the top terms of the other cards, nearest card first, choosing among the first few. */
export const SWAP_TERMS_PER_CARD = 8;
export const SWAP_CHOICES = 4;

/** Hangul tokens that end like a verb or adjective form and so make poor cloze answers or swaps. */
export const KO_NON_NOUN_RE = /(?:[어아여워려는을던된할될][^]?|하게|하여|해서|하지|했|한|인)$/u;
/** Sentences opening with these refer back to context and make poor standalone statements. */
export const CONTEXT_OPENER_RE = /^(?:it|this|that|these|those|they|he|she|here|there|이는|이것|그것|이런|그런|이를|이)\s/iu;
/** Leading connectives dropped from a statement (the "light trim" of a true OX statement). */
export const CONNECTIVE_RE = /^(?:however|but|so|also|and|then|thus|therefore|moreover|finally|그리고|하지만|그러나|또한|따라서|그래서|즉|결국|마지막으로)[,\s]\s*/iu;

/** One extracted sentence of a card with its content tokens. */
export interface CardSentence {
  text: string;
  index: number;
  tokens: string[];
}

/** A card prepared once for TIL and quiz generation. */
export interface PreparedCard {
  card: SourceCard;
  title: string;
  /** Lower-cased plain text of title, summary and content, for presence checks. */
  haystack: string;
  sentences: CardSentence[];
  /** Ranked key terms (lower-case, Korean particles stripped), best first. */
  keywords: { term: string; score: number }[];
  /** Each keyword as first written in the title or sentences. */
  surfaces: Map<string, string>;
  /** Latin words used like verbs: never cloze answers or swapped terms. */
  verbish: Set<string>;
  korean: boolean;
}

/** True when Hangul syllables are at least a third as many as Latin letters (Korean prose with English terms). */
export function isKoreanText(text: string): boolean {
  let hangul = 0;
  let latin = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i) | 0x20;
    if (c >= 0x61 && c <= 0x7a) latin += 1;
    else if (isHangul(text.charAt(i))) hangul += 1;
  }
  return hangul > 0 && hangul * 3 >= latin;
}

/** Splits Korean sentences glued after `다.` / `요.` / `죠.` without a space. */
export function splitGluedKorean(sentence: string): string[] {
  return sentence
    .split(/(?<=[다요죠]\.)(?=\S)/u)
    .map((t) => t.trim())
    .filter(Boolean);
}

/** Sentences of a markdown text (prose blocks only), Korean glued sentences split. */
export function textSentences(markdown: string): string[] {
  return sentences(structure(markdown).blocks).flatMap(splitGluedKorean);
}

export const NOUN_BEFORE = new Set('the a an this these those each every your its their our his her of in on with for by from into per about no any some many most'.split(' '));
export const NOUN_AFTER = new Set('of is are was were has have'.split(' '));
export const VERB_BEFORE = new Set('to can cannot will should must may might could would then not which who you we they i it'.split(' '));
export const VERB_AFTER = new Set('the a an it them this these those your its their our his her'.split(' '));

/**
 * Latin content words used more like verbs than nouns in `texts`: counted from the neighbouring
 * words (`to X`, `X the` → verb; `the X`, `X of`, a capital mid-sentence → noun). Hangul is never verb-like here.
 */
export function verbLike(texts: readonly string[]): Set<string> {
  const noun = new Map<string, number>();
  const verb = new Map<string, number>();
  for (const text of texts) {
    const raw = [...text.matchAll(TOKEN_RE)].map((m) => m[0]);
    const lower = raw.map((w) => w.toLowerCase().replace(/'s$/, '').replace(/'/g, ''));
    lower.forEach((w, i) => {
      if (isHangul(w) || !isContent(w)) return;
      const prev = lower[i - 1] ?? '';
      const next = lower[i + 1] ?? '';
      const capital = i > 0 && /^\p{Lu}/u.test(raw[i] ?? '');
      noun.set(w, (noun.get(w) ?? 0) + Number(NOUN_BEFORE.has(prev)) + Number(NOUN_AFTER.has(next)) + Number(capital));
      verb.set(w, (verb.get(w) ?? 0) + Number(VERB_BEFORE.has(prev)) + Number(VERB_AFTER.has(next)));
    });
  }
  return new Set([...verb].filter(([w, n]) => n > (noun.get(w) ?? 0)).map(([w]) => w));
}

export function isKeywordCandidate(t: string): boolean {
  if (t.length > 40 || /^\d/.test(t) || TAG_STOPWORDS.has(t)) return false;
  if (isHangul(t)) return !KO_VERB_ENDING_RE.test(t) && !KO_NON_NOUN_RE.test(t);
  return true;
}

/** Prepares the cards: sentences, plain text and keywords ranked by tf, title presence and rarity among the cards. */
export function prepareCards(cards: readonly SourceCard[]): PreparedCard[] {
  const base = cards.map((card) => {
    const s = structure(card.content);
    const contentSents = sentences(s.blocks).flatMap(splitGluedKorean);
    const title = inlinePlain(card.title.replace(/\s+/g, ' ')).replace(/^#+\s*/, '') || clip(contentSents[0] ?? card.cardId, TITLE_MAX);
    const sents = (contentSents.length > 0 ? contentSents : textSentences(card.summary)).map((text, index) => ({
      text,
      index,
      tokens: contentTokens(text),
    }));
    const plain = [title, card.summary, ...s.headings, ...s.blocks].join('\n');
    const fromContent = contentSents.length > 0 ? sents.flatMap((x) => x.tokens) : [];
    const tokens = [...contentTokens([title, card.summary, ...s.headings].join('\n')), ...fromContent].filter(isKeywordCandidate);
    return { card, title, sents, plain, tokens, titleTokens: new Set(contentTokens(title)) };
  });
  const df = new Map<string, number>();
  for (const b of base) for (const t of new Set(b.tokens)) count(df, t);
  return base.map((b) => {
    const tf = new Map<string, number>();
    for (const t of b.tokens) count(tf, t);
    const verbish = verbLike(b.sents.map((x) => x.text));
    const keywords = [...tf.entries()]
      .map(([term, n]) => {
        const rarity = 1 + Math.log(base.length / (df.get(term) ?? 1));
        const shape = verbish.has(term) ? 0.25 : !isHangul(term) && /(?:ed|ly|ing)$/.test(term) ? 0.6 : 1;
        const score = (1 + Math.log(n)) * (b.titleTokens.has(term) ? 1.5 : 1) * (1 + Math.min(term.length, 12) / 24) * rarity * shape;
        return { term, score };
      })
      .sort((x, y) => y.score - x.score || (x.term < y.term ? -1 : x.term > y.term ? 1 : 0))
      .slice(0, CARD_KEYWORDS);
    const written = b.sents.map((x) => x.text);
    const lowered = written.map((t) => t.toLowerCase());
    const surfaces = new Map(keywords.map((k) => [k.term, writtenForm(written, lowered, k.term) ?? surface(b.title, k.term) ?? k.term]));
    return {
      card: b.card,
      title: b.title,
      haystack: b.plain.toLowerCase(),
      sentences: b.sents,
      keywords,
      surfaces,
      verbish,
      korean: isKoreanText(b.plain),
    };
  });
}

/** Final avalanche of a 32-bit hash (murmur3 fmix32): every output bit depends on every input bit. */
export function mix(h: number): number {
  let x = h >>> 0;
  x = imul(x ^ (x >>> 16), 0x85ebca6b);
  x = imul(x ^ (x >>> 13), 0xc2b2ae35);
  return (x ^ (x >>> 16)) >>> 0;
}

/** True for a complete declarative sentence: terminal punctuation, or a Hangul predicate ending in 다/요. */
export function isStatement(text: string): boolean {
  return /(?:[.!。！]|[다요])["'”’)\]]*$/u.test(text) && !/[?:：]$/u.test(text);
}

export function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * Compiled case-insensitive literals of terms, bounded. Only the literal is a regular expression:
 * word boundaries are checked in code, because a `[\p{L}\p{N}]` class under the `iu` flags costs
 * milliseconds to compile, once per distinct term (seconds for a day of 170 cards).
 */
export const TERM_RES = new Map<string, RegExp>();
export const TERM_RES_MAX = 4096;
export const LETTER_OR_DIGIT_RE = /^[\p{L}\p{N}]$/u;

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
