/**
 * Key terms and statement sentences of texts: each text prepared once (its sentences, plain text,
 * keywords ranked by tf, title presence and rarity among the texts, their written forms), the
 * sentences that stand alone as statements, and a cloze of a sentence's key term. Part of the
 * extractive toolkit; no I/O.
 */
import { count, imul } from './embedding';
import { clip, inlinePlain, sentences, structure } from './markdown';
import { BLANK, replaceTerm, surface, writtenForm } from './term-matching';
import { contentTokens, isContent, isHangul, stem, TOKEN_RE } from './tokens';

/** Longest title of a prepared text (and of an extracted one), in UTF-16 code units. */
export const TITLE_MAX = 120;
/** Keywords kept per text. */
export const KEYWORDS_PER_TEXT = 12;
/** Sentences usable as statements: at most this long, with at least this many content words. */
export const STATEMENT_MAX = 320;
export const STATEMENT_MIN_TOKENS = 4;

/** Words that are content for retrieval but make poor keywords (and tags). */
export const KEYWORD_STOPWORDS = new Set(
  (
    'minute minutes hour hours day days week weeks month months year years time times second seconds first ' +
    'third fourth simple good great best better large small big high low part parts example examples number ' +
    'numbers lot lots tip tips note notes thirty twenty forty fifty hundred thousand three four five six seven ' +
    'eight nine ten today yesterday tomorrow whole able true false end start short long describe describes ' +
    'described explain explains explained show shows shown allow allows help helps work works provide provides ' +
    'include includes create creates run runs based different important old various main real easy hard yes ' +
    // README boilerplate and API filler a reader would not pick as a topic.
    'copyright software license licensed licence mit isc bsd apache permission warranty liability provided including ' +
    'included following conditions notice please support tidelift maintainer maintainers sponsor sponsors backers ' +
    'contributor contributors contributing dist nbsp str return returns set value values object objects string strings ' +
    'option options default defaults true false null undefined package packages module modules version versions npm ' +
    'install installation usage readme changelog documentation docs name names check checks argument arguments ' +
    'parameter parameters param params callback instance input output result results implementation implementations ' +
    'code js javascript node node.js available supported support specifies specified change changes feature features ' +
    'method methods function functions property properties type types array arrays number boolean require import ' +
    'export const var let new see link links badge badges status build downloads coverage codecov travis github'
  ).split(/\s+/),
);

/** Korean verb/adjective endings; a Hangul token ending in one is no keyword or tag (2-syllable 어/아 forms too). */
export const KO_VERB_ENDING_RE = /(?:다|고|며|면|서|게|니|도록|지만|는데|려고)$|^\p{Script=Hangul}[어아]$/u;

/** Hangul tokens that end like a verb or adjective form and so make poor cloze answers or swaps. */
export const KO_NON_NOUN_RE = /(?:[어아여워려는을던된할될][^]?|하게|하여|해서|하지|했|한|인)$/u;
/** Sentences opening with these refer back to context and make poor standalone statements. */
export const CONTEXT_OPENER_RE = /^(?:it|this|that|these|those|they|he|she|here|there|이는|이것|그것|이런|그런|이를|이)\s/iu;
/** Leading connectives dropped from a statement (a light trim). */
export const CONNECTIVE_RE = /^(?:however|but|so|also|and|then|thus|therefore|moreover|finally|그리고|하지만|그러나|또한|따라서|그래서|즉|결국|마지막으로)[,\s]\s*/iu;

/** A text to prepare: its id (reported back), title, summary and markdown content. */
export interface KeyTermSource {
  id: string;
  title: string;
  summary: string;
  content: string;
}

/** One extracted sentence of a text with its content tokens. */
export interface TextSentence {
  text: string;
  index: number;
  tokens: string[];
}

/** A text prepared once for key-term work. */
export interface PreparedText {
  source: KeyTermSource;
  title: string;
  /** Lower-cased plain text of title, summary and content, for presence checks. */
  haystack: string;
  sentences: TextSentence[];
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

/** True for a token that may rank as a keyword: not too long, no number, no weak word, no Korean verb form. */
export function isKeywordCandidate(t: string): boolean {
  if (t.length > 40 || /^\d/.test(t) || KEYWORD_STOPWORDS.has(t)) return false;
  if (isHangul(t)) return !KO_VERB_ENDING_RE.test(t) && !KO_NON_NOUN_RE.test(t);
  return true;
}

/** Prepares the texts: sentences, plain text and keywords ranked by tf, title presence and rarity among the texts. */
export function prepareTexts(sources: readonly KeyTermSource[]): PreparedText[] {
  const base = sources.map((source) => {
    const s = structure(source.content);
    const contentSents = sentences(s.blocks).flatMap(splitGluedKorean);
    const title = inlinePlain(source.title.replace(/\s+/g, ' ')).replace(/^#+\s*/, '') || clip(contentSents[0] ?? source.id, TITLE_MAX);
    const sents = (contentSents.length > 0 ? contentSents : textSentences(source.summary)).map((text, index) => ({
      text,
      index,
      tokens: contentTokens(text),
    }));
    const plain = [title, source.summary, ...s.headings, ...s.blocks].join('\n');
    const fromContent = contentSents.length > 0 ? sents.flatMap((x) => x.tokens) : [];
    const tokens = [...contentTokens([title, source.summary, ...s.headings].join('\n')), ...fromContent].filter(isKeywordCandidate);
    return { source, title, sents, plain, tokens, titleTokens: new Set(contentTokens(title)) };
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
      .slice(0, KEYWORDS_PER_TEXT);
    const written = b.sents.map((x) => x.text);
    const lowered = written.map((t) => t.toLowerCase());
    const surfaces = new Map(keywords.map((k) => [k.term, writtenForm(written, lowered, k.term) ?? surface(b.title, k.term) ?? k.term]));
    return {
      source: b.source,
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

/** Statement form of a sentence: a leading connective removed (the next word then capitalised), trimmed. */
export function statement(s: string): string {
  const t = s.replace(CONNECTIVE_RE, '').trim();
  if (!t) return s.trim();
  return t.length < s.trim().length ? t.charAt(0).toUpperCase() + t.slice(1) : t;
}

/** Sentences usable as standalone statements, best first (key-term weight per length, context openers last). */
export function statementSentences(p: PreparedText): TextSentence[] {
  const weight = new Map(p.keywords.map((k) => [k.term, k.score]));
  return p.sentences
    .filter(
      (s) =>
        s.text.length <= STATEMENT_MAX &&
        s.tokens.length >= STATEMENT_MIN_TOKENS &&
        isStatement(s.text) &&
        !s.text.includes(BLANK) &&
        s.text.toLowerCase() !== p.title.toLowerCase(),
    )
    .map((s) => {
      let sum = 0;
      for (const t of new Set(s.tokens)) sum += weight.get(t) ?? 0;
      const opener = CONTEXT_OPENER_RE.test(s.text) ? 0.5 : 1;
      return { s, score: (sum / Math.sqrt(s.tokens.length)) * opener };
    })
    .sort((a, b) => b.score - a.score || a.s.index - b.s.index)
    .map((x) => x.s);
}

/** Key terms of `p` that occur in `sentence`, best first. */
export function termsIn(p: PreparedText, sentence: TextSentence): string[] {
  const present = new Set(sentence.tokens);
  return p.keywords.map((k) => k.term).filter((t) => present.has(t) && !p.verbish.has(t) && surface(sentence.text, t) !== undefined);
}

/**
 * A cloze of `sentence`: its best key term not yet in `used` (stems) replaced by {@link BLANK} in
 * its statement form, the term absent from the question and at least 3 content words left; the
 * term's stem is added to `used`. Undefined when no term fits.
 */
export function blankKeyTerm(p: PreparedText, sentence: TextSentence, used: Set<string>): { question: string; answer: string } | undefined {
  for (const term of termsIn(p, sentence)) {
    if (used.has(stem(term))) continue;
    const answer = surface(sentence.text, term);
    if (!answer) continue;
    const question = replaceTerm(statement(sentence.text), term, BLANK);
    if (!question.includes(BLANK) || question.toLowerCase().includes(answer.toLowerCase())) continue;
    if (contentTokens(question.replaceAll(BLANK, ' ')).length < 3) continue;
    used.add(stem(term));
    return { question, answer };
  }
  return undefined;
}
