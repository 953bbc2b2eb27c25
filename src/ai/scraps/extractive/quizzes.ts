/**
 * Local recall quizzes (SAN-11): OX and cloze quizzes from the cards' own sentences and key terms.
 * No I/O.
 */
import { type Quiz, QUIZ_TYPES, QuizSchema, type QuizTypeName } from '../../../domain/scraps/quizzes';
import { fnv1a, localEmbedding } from '../../extractive/embedding';
import { blankKeyTerm, isKoreanText, mix, prepareTexts, type PreparedText, statement, statementSentences, termsIn, type TextSentence } from '../../extractive/key-terms';
import { clip } from '../../extractive/markdown';
import { negateEnglish, negateKorean } from '../../extractive/negation';
import { replaceTerm, surface } from '../../extractive/term-matching';
import { isHangul } from '../../extractive/tokens';
import type { SourceCard } from '../answers';

/** OX term swaps draw from the top terms of the other cards, nearest card first, choosing among the first few. */
export const SWAP_TERMS_PER_CARD = 8;
export const SWAP_CHOICES = 4;

/** The cards as texts to prepare (the card id is the text's id). */
export function prepareCards(cards: readonly SourceCard[]): PreparedText[] {
  return prepareTexts(cards.map((c) => ({ id: c.cardId, title: c.title, summary: c.summary, content: c.content })));
}

/** Quote of a source sentence for an explanation. */
export function quote(s: string): string {
  return `"${s}"`;
}

/**
 * SAN-11 cloze: `sentence` with its best key term not yet in `used` (stems) blanked, the term absent
 * from the question; undefined when none fits.
 */
export function cloze(p: PreparedText, sentence: TextSentence, used: Set<string>): Quiz | undefined {
  const blanked = blankKeyTerm(p, sentence, used);
  if (!blanked) return undefined;
  const { question, answer } = blanked;
  const explanation = p.korean ? `${answer} — 카드 원문: ${quote(sentence.text)}` : `${answer} — the card says: ${quote(sentence.text)}`;
  return { type: 'SHORT_ANSWER', question, answer, explanation, sourceCardId: p.source.id };
}

/** A false OX statement from `sentence`: a key term swapped for one of another card, or a negation; undefined when neither applies. */
export function falsify(p: PreparedText, sentence: TextSentence, others: PreparedText[], h: number): Quiz | undefined {
  const source = statement(sentence.text);
  const candidates: { question: string; why: string }[] = [];
  const term = termsIn(p, sentence)[0];
  if (term) {
    const original = surface(sentence.text, term);
    const kind = (t: string, shown: string) => `${!isHangul(t) && /[^s]s$/.test(t)}${/^\p{Lu}/u.test(shown)}`;
    const all = others
      .flatMap((o) =>
        o.keywords
          .slice(0, SWAP_TERMS_PER_CARD)
          .filter((k) => !o.verbish.has(k.term))
          .map((k) => ({ term: k.term, shown: o.surfaces.get(k.term) ?? k.term })),
      )
      .filter((c) => isHangul(c.term) === isHangul(term) && c.term !== term && !p.haystack.includes(c.term));
    const alike = all.filter((c) => kind(c.term, c.shown) === kind(term, original ?? term));
    const pool = (alike.length > 0 ? alike : all).slice(0, SWAP_CHOICES);
    const shown = pool[h % Math.max(pool.length, 1)]?.shown;
    if (shown && original) {
      const question = replaceTerm(source, term, shown);
      const why = p.korean ? `'${shown}'이(가) 아니라 '${original}'` : `"${original}", not "${shown}"`;
      if (question !== source) candidates.push({ question, why });
    }
  }
  const negated = isKoreanText(source) ? negateKorean(source) : negateEnglish(source);
  if (negated && negated !== source) candidates.push({ question: negated, why: p.korean ? '원문을 부정으로 바꾼 문장' : 'the statement negates it' });
  const chosen = candidates[(h >>> 1) % Math.max(candidates.length, 1)];
  if (!chosen) return undefined;
  const explanation = p.korean
    ? `X — 카드 원문: ${quote(sentence.text)} (${chosen.why})`
    : `X — the card says: ${quote(sentence.text)} (${chosen.why})`;
  return { type: 'OX', question: clip(chosen.question, 2000), answer: 'X', explanation, sourceCardId: p.source.id };
}

/** A true OX statement: `sentence` in its statement form, answer `O`. */
export function trueStatement(p: PreparedText, sentence: TextSentence): Quiz {
  const explanation = p.korean ? `O — 카드 원문: ${quote(sentence.text)}` : `O — the card states: ${quote(sentence.text)}`;
  return { type: 'OX', question: statement(sentence.text), answer: 'O', explanation, sourceCardId: p.source.id };
}

/** The cards other than `p`, most similar (by {@link localEmbedding} of their text) first, ties in input order. */
export function nearestFirst(p: PreparedText, prepared: PreparedText[], vectors: Map<PreparedText, number[]>): PreparedText[] {
  const own = vectors.get(p);
  const sim = (o: PreparedText) => {
    const v = vectors.get(o);
    if (!own || !v) return 0;
    let sum = 0;
    for (let i = 0; i < own.length; i++) sum += (own[i] ?? 0) * (v[i] ?? 0);
    return sum;
  };
  return prepared
    .filter((o) => o !== p)
    .map((o, i) => ({ o, i, s: sim(o) }))
    .sort((a, b) => b.s - a.s || a.i - b.i)
    .map((x) => x.o);
}

/**
 * Pure SAN-11 quiz generation of the local provider (and the test emulator). Per card
 * and requested type, 1 quiz (2 when the card has 3 or more usable sentences): OX statements are
 * source sentences, true (`O`, lightly trimmed) or falsified (`X`: a key term swapped for a term of
 * another card, or a negation); SHORT_ANSWER questions are cloze sentences whose key term is
 * `____` and absent from the question. True/false and swap choices come from mixed FNV-1a hashes of
 * the card id and sentence, never randomness; OX prefers sentences the clozes did not use.
 * Every quiz satisfies {@link QuizSchema} and cites its card. Cards without usable sentences give none.
 */
export function generateQuizzesLocally(input: { cards: readonly SourceCard[]; types: readonly QuizTypeName[] }): Quiz[] {
  const types = QUIZ_TYPES.filter((t) => input.types.includes(t));
  const prepared = prepareCards(input.cards);
  const vectors = new Map(types.includes('OX') && prepared.length > 1 ? prepared.map((p) => [p, localEmbedding(p.haystack)]) : []);
  const out: Quiz[] = [];
  for (const p of prepared) {
    const ranked = statementSentences(p);
    const perType = ranked.length >= 3 ? 2 : 1;
    const others = nearestFirst(p, prepared, vectors);
    const made: Record<QuizTypeName, Quiz[]> = { OX: [], SHORT_ANSWER: [] };
    const clozeUsed = new Set<string>();
    const taken = new Set<number>();
    if (types.includes('SHORT_ANSWER')) {
      for (const s of ranked) {
        if (made.SHORT_ANSWER.length >= perType) break;
        const q = cloze(p, s, clozeUsed);
        if (q) {
          made.SHORT_ANSWER.push(q);
          taken.add(s.index);
        }
      }
    }
    if (types.includes('OX')) {
      // Sentences the cloze did not use come first; the first statement's truth is hashed, the next one alternates.
      const pool = [...ranked.filter((s) => !taken.has(s.index)), ...ranked.filter((s) => taken.has(s.index))];
      const seed = mix(fnv1a(`${p.source.id}\u0000OX`));
      let wantFalse = (seed & 1) === 1;
      for (const s of pool) {
        if (made.OX.length >= perType) break;
        const q = wantFalse ? falsify(p, s, others, mix(fnv1a(s.text, seed))) : trueStatement(p, s);
        if (!q) continue;
        made.OX.push(q);
        wantFalse = !wantFalse;
      }
    }
    for (const type of types) out.push(...made[type]);
  }
  return out.map((q) => QuizSchema.parse(q));
}
