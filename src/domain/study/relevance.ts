/**
 * ST-5 relevance of a card's evidence to its question: the retrieval score of the passage it quotes
 * (the source's own passages score 1), scored down by how much of the quote is boilerplate — text
 * that recurs across many of the user's documents (a README's sponsorship or licence paragraph),
 * found by word shingles. Below {@link RELEVANCE_FLOOR} the evidence is no backing for the card
 * (the guard `evidence_off_topic`), and a retrieved passage below it is no context. Pure, no I/O.
 */
import { normaliseText } from './normalise';

/**
 * Lowest relevance of evidence (and retrieval score of a passage), 0 … 1: a passage at 1.5 × the
 * embedding model's "related" distance scores 2/3, which is about the median distance of unrelated
 * pairs for both calibrated models (docs/embeddings.md).
 */
export const RELEVANCE_FLOOR = 2 / 3;

/** Words per shingle. */
const SHINGLE_WORDS = 3;
/** A shingle found in at least this many documents is boilerplate. */
export const BOILERPLATE_MIN_DOCUMENTS = 3;
/** Documents read for the boilerplate statistics at most. */
export const BOILERPLATE_SAMPLE = 40;

/** Shingles of `text` (normalised words, {@link SHINGLE_WORDS} at a time). */
function shingles(text: string): string[] {
  const words = normaliseText(text).split(' ').filter(Boolean);
  const out: string[] = [];
  for (let i = 0; i + SHINGLE_WORDS <= words.length; i++) out.push(words.slice(i, i + SHINGLE_WORDS).join(' '));
  return out;
}

/** How much of a text recurs across a corpus: the share (0 … 1) of its shingles found in many documents. */
export interface BoilerplateIndex {
  share(text: string): number;
}

/** The boilerplate index of `documents` (at most {@link BOILERPLATE_SAMPLE} are read; each counts once per shingle). */
export function boilerplateIndex(documents: readonly string[]): BoilerplateIndex {
  const df = new Map<string, number>();
  for (const doc of documents.slice(0, BOILERPLATE_SAMPLE)) for (const s of new Set(shingles(doc))) df.set(s, (df.get(s) ?? 0) + 1);
  return {
    share(text) {
      const own = shingles(text);
      if (own.length === 0) return 0;
      return own.filter((s) => (df.get(s) ?? 0) >= BOILERPLATE_MIN_DOCUMENTS).length / own.length;
    },
  };
}

/** No boilerplate anywhere (an extraction without a corpus). */
export const NO_BOILERPLATE: BoilerplateIndex = { share: () => 0 };

/**
 * Retrieval score (0 … 1) of a passage at cosine `distance` from the query, for an embedding model
 * whose "related" threshold is `relatedDistance`: 1 at or under the threshold, falling as
 * `relatedDistance / distance` beyond it.
 */
export function retrievalScore(distance: number, relatedDistance: number): number {
  if (!(distance > relatedDistance)) return 1;
  return relatedDistance / distance;
}

/** What the relevance of evidence is judged against. */
export interface RelevanceContext {
  /** Retrieval scores of the retrieved passages by ref; a ref not listed is the source's own passage (score 1). */
  passageScores: ReadonlyMap<string, number>;
  boilerplate: BoilerplateIndex;
}

/** Relevance (0 … 1) of one evidence quote: its passage's score × (1 − half its boilerplate share). */
export function evidenceRelevance(evidence: { ref: string; quote: string }, ctx: RelevanceContext): number {
  const score = ctx.passageScores.get(evidence.ref) ?? 1;
  return score * (1 - ctx.boilerplate.share(evidence.quote) / 2);
}

/** Share of boilerplate (0 … 1) above which a sentence is left out of retrieved context: its evidence could not pass the floor. */
const BOILERPLATE_DROP_SHARE = 2 * (1 - RELEVANCE_FLOOR);

/**
 * `text` without its boilerplate sentences (split at `.`, `!`, `?`, `。` and line ends), the rest
 * kept as written (markdown included). Used on retrieved passages before they become context.
 */
export function withoutBoilerplate(text: string, index: BoilerplateIndex): string {
  let out = text;
  for (const m of text.matchAll(/[^.!?。\n]+[.!?。]*/gu)) {
    const sentence = m[0].trim();
    if (sentence && index.share(sentence) > BOILERPLATE_DROP_SHARE) out = out.replace(sentence, '');
  }
  return out;
}
