/**
 * Local memo-card extraction (ST-5): deterministic, offline cards
 * from an explanation's own sentences, Korean and English:
 * - definitions and "X is Y" statements → basic cards ("What is X?" → Y; "X란 무엇인가?" → Y), or a
 *   cloze on the subject when the predicate is no definition;
 * - enumerations (a lead-in line ending in `:` followed by 2-8 list items; English "X include A, B
 *   and C") → a basic card asking for the items;
 * - numeric facts (a sentence with a number) → a cloze on the number;
 * - then, to fill up, clozes on a sentence's key term (src/ai/extractive/key-terms.ts).
 * Each card cites the sentence(s) it comes from as evidence (`ref: explanation`) and passes the
 * card guards before it is returned (the provider never answers a card its own guards would drop).
 * Scanning is linear: sentences come from the shared markdown scanners, patterns are found with
 * `indexOf` and token loops, regular expressions cannot backtrack. No I/O.
 */
import { cardLimit, type MemoCard, type MemoCardBatch, MemoCardBatchSchema, MemoCardSchema, type MemoCardExtractionInput, MEMO_CARD_LIMITS, PASSAGE_REFS, extractionPassages } from '../../../domain/study/cards';
import { cardProblem } from '../../../domain/study/guards';
import { memoCardKey } from '../../../domain/study/keys';
import { findNumbers } from '../../../domain/study/numbers';
import { cutToLength } from '../../../core/text';
import { finalConsonant } from '../../extractive/hangul';
import { blankKeyTerm, isKoreanText, prepareTexts, statementSentences, textSentences } from '../../extractive/key-terms';
import { BULLET_RE, FENCE_RE, inlinePlain } from '../../extractive/markdown';
import { BLANK } from '../../extractive/term-matching';
import { contentTokens, isHangul } from '../../extractive/tokens';
import { NO_MATERIAL_SENTENCES, SENTENCE_MAX } from './explanation';

/** Pronouns, connectives and prepositions that cannot open the subject of a definition. */
const EN_NON_SUBJECT = new Set(
  'it this that these those they there here he she we you i however but so also then thus therefore in on at for when if because while after before with by from to as of what which who how why one each every some many most all both such'.split(' '),
);
const EN_ARTICLES = new Set(['a', 'an', 'the']);
const KO_NON_SUBJECT = new Set(['이는', '이것은', '그것은', '이런', '그런', '그리고', '하지만', '그러나', '또한', '따라서', '그래서', '즉', '결국', '이', '그', '저']);
/** Longest subject of a definition, in words. */
const SUBJECT_MAX_WORDS = 6;
/** Fill-up key-term clozes: at most this share of the limit. */
const FILL_SHARE = 0.34;

type Group = 'definition' | 'enumeration' | 'numeric' | 'statement' | 'fill';
interface Candidate {
  group: Group;
  order: number;
  card: MemoCard;
}

const stripFinal = (s: string): string => s.replace(/[.!。]+$/u, '').trim();
const evidence = (quote: string) => [{ ref: PASSAGE_REFS.explanation, quote: cutToLength(quote, MEMO_CARD_LIMITS.quote) }];
const lowerArticle = (w: string): string => (EN_ARTICLES.has(w.toLowerCase()) ? w.toLowerCase() : w);

/** An English definition or "X is Y" statement in `sentence`, as a card, or undefined. */
function englishDefinition(sentence: string): { group: Group; card: MemoCard } | undefined {
  const body = stripFinal(sentence);
  const words = body.split(' ');
  const first = words[0]?.toLowerCase() ?? '';
  if (words.length < 4 || EN_NON_SUBJECT.has(first)) return undefined;
  for (let k = 1; k <= Math.min(SUBJECT_MAX_WORDS, words.length - 2); k++) {
    const w = words[k]?.toLowerCase();
    const next = words[k + 1]?.toLowerCase();
    let verb: string | undefined;
    let skip = 1;
    if (w === 'is' || w === 'are') verb = w;
    else if (w === 'means' || w === 'mean') verb = 'mean';
    else if ((w === 'refers' || w === 'refer') && next === 'to') [verb, skip] = ['refer to', 2];
    else if ((w === 'stands' || w === 'stand') && next === 'for') [verb, skip] = ['stand for', 2];
    if (!verb) continue;
    const subjectWords = words.slice(0, k);
    const subject = subjectWords.join(' ');
    if (/[,;:()]/.test(subject) || !subjectWords.some((x) => contentTokens(x).length > 0)) return undefined;
    if (verb === 'is' || verb === 'are') {
      if (next === 'not' || next === 'also' || next === 'used' || next === 'called') return undefined;
      const predicate = words.slice(k + 1).join(' ');
      if (next && EN_ARTICLES.has(next) && words.length - k - 1 >= 3) {
        const cueSubject = [lowerArticle(subjectWords[0] as string), ...subjectWords.slice(1)].join(' ');
        return { group: 'definition', card: { kind: 'basic', cue: `What ${verb} ${cueSubject}?`, answer: predicate, evidence: evidence(sentence) } };
      }
      const lead = EN_ARTICLES.has(first) ? 1 : 0;
      const core = subjectWords.slice(lead).join(' ');
      if (!core || words.length - k - 1 < 4 || /\d/.test(body)) return undefined;
      const text = `${lead ? `${subjectWords[0]} ` : ''}{{c1::${core}}} ${words.slice(k).join(' ')}`;
      return { group: 'statement', card: { kind: 'cloze', clozeText: sentence.endsWith('.') ? `${text}.` : text, evidence: evidence(sentence) } };
    }
    const predicate = words.slice(k + skip).join(' ');
    if (words.length - k - skip < 2) return undefined;
    const cueSubject = [lowerArticle(subjectWords[0] as string), ...subjectWords.slice(1)].join(' ');
    const does = verb === 'mean' && w === 'mean' ? 'do' : w?.endsWith('s') ? 'does' : 'do';
    return { group: 'definition', card: { kind: 'basic', cue: `What ${does} ${cueSubject} ${verb}?`, answer: predicate, evidence: evidence(sentence) } };
  }
  return undefined;
}

/** Definitional endings of a Korean predicate: a copula on the last noun, or `을/를 말한다 …`. */
const KO_COPULAS = ['입니다', '이다', '이에요', '예요'];
const KO_DEFINING_VERBS = new Set(['말한다', '말합니다', '의미한다', '의미합니다', '뜻한다', '뜻합니다', '가리킨다', '가리킵니다']);

function koreanTopic(subject: string): string {
  const last = subject.charAt(subject.length - 1);
  if (!isHangul(last)) return '(이)란';
  return finalConsonant(last).any ? '이란' : '란';
}

/** The noun of a definitional predicate (copula or defining verb removed), or undefined. */
function koreanDefinitionAnswer(predicate: string[]): string | undefined {
  const last = predicate[predicate.length - 1] ?? '';
  if (predicate.length >= 2 && KO_DEFINING_VERBS.has(last)) {
    const object = predicate[predicate.length - 2] as string;
    const noun = object.endsWith('을') || object.endsWith('를') ? object.slice(0, -1) : undefined;
    return noun ? [...predicate.slice(0, -2), noun].join(' ') : undefined;
  }
  for (const c of KO_COPULAS) {
    if (last.length > c.length && last.endsWith(c)) return [...predicate.slice(0, -1), last.slice(0, -c.length)].join(' ');
  }
  return undefined;
}

/** A Korean definition ("X란 Y이다", "X는 Y를 말한다") or "X는 …다" statement in `sentence`, as a card, or undefined. */
function koreanDefinition(sentence: string): { group: Group; card: MemoCard } | undefined {
  const body = stripFinal(sentence);
  const words = body.split(' ');
  if (words.length < 3 || KO_NON_SUBJECT.has(words[0] as string)) return undefined;
  for (let k = 0; k < Math.min(4, words.length - 1); k++) {
    const w = words[k] as string;
    const marker = ['이란', '란', '은', '는'].find((m) => w.length > m.length && w.endsWith(m));
    if (!marker) continue;
    const subject = [...words.slice(0, k), w.slice(0, -marker.length)].join(' ');
    if (/[,;:()]/.test(subject) || contentTokens(subject).length === 0) return undefined;
    const predicate = words.slice(k + 1);
    const answer = koreanDefinitionAnswer(predicate);
    if (answer && (marker === '이란' || marker === '란' || predicate.length >= 2)) {
      return { group: 'definition', card: { kind: 'basic', cue: `${subject}${koreanTopic(subject)} 무엇인가?`, answer, evidence: evidence(sentence) } };
    }
    if ((marker === '은' || marker === '는') && predicate.length >= 2 && /[다요]$/u.test(body)) {
      const clozeText = `${words.slice(0, k).map((x) => `${x} `).join('')}{{c1::${w.slice(0, -marker.length)}}}${marker} ${words.slice(k + 1).join(' ')}`;
      return { group: 'statement', card: { kind: 'cloze', clozeText: `${clozeText}${sentence.slice(body.length)}`, evidence: evidence(sentence) } };
    }
    return undefined;
  }
  return undefined;
}

/** English participles and adjectives that the key-term ranking may pick but that make poor cloze answers. */
const WEAK_FILL_RE = /^[a-z]+(?:ed|ing|able|ible|ful|less|ous|ive|ly)$/i;
const WEAK_FILL_WORDS = new Set(['built', 'made', 'done', 'based', 'known', 'given', 'seen', 'run', 'set', 'used', 'called']);

/** True for a fill-up cloze answer worth asking: not a participle or adjective, at least 3 characters. */
function isFillTerm(answer: string): boolean {
  const t = answer.trim();
  return Array.from(t).length >= 2 && (isHangul(t.charAt(0)) || (t.length >= 3 && !WEAK_FILL_RE.test(t) && !WEAK_FILL_WORDS.has(t.toLowerCase())));
}

/** Characters that make a number part of a name or code (`SHA-256`, `v6`, `HTTP/2`, `ES2015`), not a quantity. */
const NAME_GLUE = /[\p{L}\p{N}_\-/.]/u;

/** A cloze on the first number of `sentence` that is a quantity, with a glued or short Latin unit (`8 KB`, `5ms`, `45%`). */
function numericCloze(sentence: string): MemoCard | undefined {
  if (sentence.normalize('NFKC') !== sentence) return undefined;
  let from = 0;
  for (const n of findNumbers(sentence)) {
    const at = sentence.indexOf(n.raw, from);
    if (at < 0) return undefined;
    from = at + n.raw.length;
    if (at > 0 && NAME_GLUE.test(sentence.charAt(at - 1))) continue;
    if (at > 1 && sentence.charAt(at - 1) === '(' && NAME_GLUE.test(sentence.charAt(at - 2))) continue; // nice(2), f(1)
    let end = at + n.raw.length;
    const unit = /^ ?[A-Za-z]{1,4}\b/.exec(sentence.slice(end, end + 6));
    if (unit && !/^ ?(?:and|or|the|of|to|in|on|at|is|are|an|a|by|for|as|it)\b/i.test(unit[0])) end += unit[0].length;
    const answer = sentence.slice(at, end);
    return { kind: 'cloze', clozeText: `${sentence.slice(0, at)}{{c1::${answer}}}${sentence.slice(end)}`, evidence: evidence(sentence) };
  }
  return undefined;
}

const UNORDERED_MARKER_RE = /^\s*[-*+]\s+/;

/** A lead-in line ending in `:` with its list items, from the raw markdown. */
interface Enumeration {
  lead: string;
  items: string[];
  quote: string;
}

/** Enumerations of `markdown`: a non-list line ending in `:` followed by 2-8 list items (code fences skipped). */
export function enumerations(markdown: string): Enumeration[] {
  const lines = markdown.replace(/\r\n?/g, '\n').split('\n');
  const out: Enumeration[] = [];
  let fence = false;
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i] as string;
    if (FENCE_RE.test(raw)) fence = !fence;
    if (fence || BULLET_RE.test(raw)) continue;
    const lead = inlinePlain(raw.replace(/^\s*#{1,6}\s+/, ''));
    if (!/[:：]$/u.test(lead) || lead.length < 4) continue;
    const items: string[] = [];
    const quoted: string[] = [lead];
    let j = i + 1;
    while (j < lines.length && BULLET_RE.test(lines[j] as string)) {
      const line = lines[j] as string;
      items.push(stripFinal(inlinePlain(line.replace(BULLET_RE, ''))));
      quoted.push(inlinePlain(line.replace(UNORDERED_MARKER_RE, ''))); // "1." stays: it is in the passage
      j++;
    }
    if (items.length >= 2 && items.length <= 8 && items.every((x) => x.length > 0 && x.length <= 120)) {
      out.push({ lead: lead.slice(0, -1).trim(), items, quote: quoted.join(' ') });
    }
    i = j - 1;
  }
  return out;
}

/** "X include A, B and C" in an English sentence: the subject phrase with its verb, and the items. */
function inlineEnumeration(sentence: string): { lead: string; items: string[] } | undefined {
  const body = stripFinal(sentence);
  for (const verb of [' include ', ' includes ', ' such as ', ' consists of ', ' consist of ']) {
    const at = body.indexOf(verb);
    if (at <= 0) continue;
    const list = body.slice(at + verb.length);
    const parts = list.split(/, (?:and |or )?| and | or /).map((x) => x.trim()).filter(Boolean);
    if (parts.length < 3 || parts.length > 8 || parts.some((p) => p.split(' ').length > 5)) return undefined;
    return { lead: body.slice(0, at + verb.length - 1), items: parts };
  }
  return undefined;
}

/** `X의 조건은 다음과 같다` → `X의 조건` (the lead-in's noun phrase); other lead-ins unchanged. */
function koreanLead(lead: string): string {
  for (const tail of [' 다음과 같다', ' 다음과 같습니다', ' 아래와 같다', ' 아래와 같습니다']) {
    if (!lead.endsWith(tail)) continue;
    const head = lead.slice(0, -tail.length);
    const marker = ['은', '는', '이', '가'].find((m) => head.length > m.length + 1 && head.endsWith(m));
    return marker ? head.slice(0, -marker.length) : head;
  }
  return lead;
}

/** The card of an enumeration: the lead-in as the cue, the items as the answer. */
function enumerationCard(lead: string, items: string[], quote: string, korean: boolean): MemoCard {
  const cue = korean ? `${koreanLead(lead)}: 모두 쓰시오.` : `${lead}: name them all.`;
  return { kind: 'basic', cue, answer: items.join(korean ? ', ' : '; '), evidence: evidence(quote) };
}

/**
 * A fill-up cloze of `sentence` on its best key term, ranked within the sentence alone (with the
 * question's title as the only other text): a card's blank, and so its identity, never moves when
 * another sentence of the explanation changes.
 */
function keyTermCloze(sentence: string, title: string): MemoCard | undefined {
  const [prepared] = prepareTexts([{ id: 'sentence', title, summary: '', content: sentence }]);
  const own = prepared ? statementSentences(prepared)[0] : undefined;
  if (!prepared || !own) return undefined;
  const q = blankKeyTerm(prepared, own, new Set());
  if (!q || q.question.indexOf(BLANK) !== q.question.lastIndexOf(BLANK) || !isFillTerm(q.answer)) return undefined;
  return { kind: 'cloze', clozeText: q.question.replaceAll(BLANK, `{{c1::${q.answer}}}`), evidence: evidence(own.text) };
}

/**
 * ST-5 local extraction: candidates in priority order (definitions, enumerations, numeric facts,
 * statements, then key-term clozes up to a third of the limit), each group in document order, each
 * kept only when the card guards pass it and its key is new, at most `cardLimit(input)` cards. Every
 * card is made of its own sentence (or list) alone, so an edit of one sentence leaves the cards of
 * the others as they were; only the card budget (the limit, the fill-up share) is shared. Answers are validated with
 * `MemoCardBatchSchema`. Input read as NFC.
 */
export function extractMemoCardsLocally(raw: MemoCardExtractionInput): MemoCardBatch {
  const input = { ...raw, explanation: raw.explanation.normalize('NFC') };
  const passages = extractionPassages(input);
  const sents = textSentences(input.explanation).filter((s) => s.length <= SENTENCE_MAX && !NO_MATERIAL_SENTENCES.has(s));
  const candidates: Candidate[] = [];
  const add = (group: Group, order: number, card: MemoCard | undefined) => card && candidates.push({ group, order, card });

  sents.forEach((s, order) => {
    const def = isHangul(s.charAt(0)) || isKoreanText(s) ? koreanDefinition(s) : englishDefinition(s);
    if (def) add(def.group, order, def.card);
    const inline = isKoreanText(s) ? undefined : inlineEnumeration(s);
    if (inline) add('enumeration', order, { kind: 'basic', cue: `${inline.lead} …?`, answer: inline.items.join('; '), evidence: evidence(s) });
    add('numeric', order, numericCloze(s));
  });
  enumerations(input.explanation).forEach((e, order) => add('enumeration', order, enumerationCard(e.lead, e.items, e.quote, isKoreanText(e.quote))));

  const limit = cardLimit(input);
  const title = input.topic?.trim() || input.question;
  sents.forEach((sentence, order) => {
    const fill = keyTermCloze(sentence, title);
    if (fill) add('fill', order, fill);
  });

  const rank: Record<Group, number> = { definition: 0, enumeration: 1, numeric: 2, statement: 3, fill: 4 };
  candidates.sort((a, b) => rank[a.group] - rank[b.group] || a.order - b.order);
  const cards: MemoCard[] = [];
  const keys = new Set<string>();
  const fillMax = Math.max(1, Math.floor(limit * FILL_SHARE));
  let fills = 0;
  for (const c of candidates) {
    if (cards.length >= limit) break;
    if (c.group === 'fill' && fills >= fillMax) continue;
    const parsed = MemoCardSchema.safeParse(c.card);
    if (!parsed.success || cardProblem(parsed.data, passages)) continue;
    const key = memoCardKey(parsed.data);
    if (keys.has(key)) continue;
    keys.add(key);
    if (c.group === 'fill') fills += 1;
    cards.push(parsed.data);
  }
  return MemoCardBatchSchema.parse({ cards });
}
