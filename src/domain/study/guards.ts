/**
 * ST-5 card guards: pure checks run on the cards the AI runtime returned, before anything is
 * stored. A card is dropped, with the first reason that applies, when
 * - `no_content`: its cue, answer or cloze text has no letter or digit once normalised;
 * - `evidence_not_in_source`: an evidence quote is not found in the passage it names (compared
 *   after {@link normaliseText}, so case, white space and punctuation may differ);
 * - `evidence_off_topic` (when the input has a relevance context): no evidence quote is relevant to
 *   the question — its passage's retrieval score, scored down by how much of the quote is
 *   boilerplate recurring across the user's documents, is under the floor (./relevance);
 * - `number_not_in_evidence`: a number of the card (digits, decimals, percentages, Korean numerals;
 *   see ./numbers) does not appear in the card's evidence quotes;
 * - `answer_leak`: the answer can be read off the prompt: a basic card's answer in its cue, a cloze
 *   deletion's answer in the text shown while it is asked (its sibling deletions revealed, its hint
 *   shown), as a whole phrase or word by word, after normalisation with case, width and accents
 *   folded (`Résumé` leaks `resume`);
 * - `duplicate_in_batch` / `duplicate_of_live`: its normalised key ({@link memoCardKey}) equals an
 *   earlier kept card's of the batch, or one of `liveKeys`.
 * Every drop is counted by reason for the job's payload. Uses node:crypto through the keys: not for
 * workflow code.
 */
import { type EvidenceQuote, type MemoCard, type StudySourcePassage, clozeFront, clozePlain, parseCloze } from './cards';
import { memoCardKey } from './keys';
import { containsPhrase, foldText, normaliseText } from './normalise';
import { unbackedNumbers } from './numbers';
import { evidenceRelevance, RELEVANCE_FLOOR, type RelevanceContext } from './relevance';

/** Why a card was dropped, in the order the guards check. */
export const DROP_REASONS = ['no_content', 'evidence_not_in_source', 'evidence_off_topic', 'number_not_in_evidence', 'answer_leak', 'duplicate_in_batch', 'duplicate_of_live'] as const;
export type DropReason = (typeof DROP_REASONS)[number];

/** Reasons that say the card itself was bad (a duplicate is a good card we already have). */
export const QUALITY_DROP_REASONS: readonly DropReason[] = ['no_content', 'evidence_not_in_source', 'evidence_off_topic', 'number_not_in_evidence', 'answer_leak'];

/**
 * Input of {@link guardMemoCards}. `passages` are what the evidence may quote (`extractionPassages`
 * of the extraction input). `liveKeys` are the keys of the user's live cards that the batch must
 * not repeat: those of OTHER sources (the same source's older cards are matched by the supersede
 * step, which keeps an unchanged card's identity instead of dropping it).
 */
export interface GuardInput {
  cards: readonly MemoCard[];
  passages: readonly StudySourcePassage[];
  liveKeys?: Iterable<string>;
  /** Retrieval scores and the boilerplate statistics of the user's documents; without it relevance is not checked. */
  relevance?: RelevanceContext;
}

/** A card that passed, with its normalised key and its position in the batch. */
export interface KeptCard {
  index: number;
  key: string;
  card: MemoCard;
}

/** A dropped card: position in the batch, reason, and a short human-readable detail (no card text beyond the offending value). */
export interface DroppedCard {
  index: number;
  reason: DropReason;
  detail: string;
}

/** The guards' verdict on a batch. `droppedByReason` has every reason, zero when none. */
export interface GuardOutcome {
  kept: KeptCard[];
  dropped: DroppedCard[];
  droppedByReason: Record<DropReason, number>;
}

/** Zero for every reason. */
export function emptyDropCounts(): Record<DropReason, number> {
  return Object.fromEntries(DROP_REASONS.map((r) => [r, 0])) as Record<DropReason, number>;
}

/** The texts of a card a learner reads (cue and answer; the cloze text with its answers and hints). */
export function cardTexts(card: MemoCard): string[] {
  if (card.kind === 'basic') return [card.cue, card.answer];
  const deletions = parseCloze(card.clozeText) ?? [];
  return [clozePlain(card.clozeText, deletions), ...deletions.flatMap((d) => (d.hint ? [d.hint] : []))];
}

/** The first evidence quote not found in its named passage, or undefined when all are found. */
export function evidenceNotInSource(card: MemoCard, passages: readonly StudySourcePassage[]): EvidenceQuote | undefined {
  const normalised = new Map<string, string>();
  for (const p of passages) if (!normalised.has(p.ref)) normalised.set(p.ref, normaliseText(p.text));
  return card.evidence.find((e) => {
    const quote = normaliseText(e.quote);
    const passage = normalised.get(e.ref);
    return !quote || passage === undefined || !passage.includes(quote);
  });
}

/** True when `answer` can be read off `prompt`: as a whole phrase, or every one of its words (both normalised). */
function readableIn(prompt: string, answer: string): boolean {
  if (!answer) return false;
  if (containsPhrase(prompt, answer)) return true;
  const words = answer.split(' ');
  return words.length > 1 && words.every((w) => containsPhrase(prompt, w));
}

/**
 * Where the answer leaks, or undefined: `cue` for a basic card; `c<n>` for the first cloze group
 * whose answer is readable in what is shown while it is asked (siblings revealed, hint shown).
 */
export function answerLeak(card: MemoCard): string | undefined {
  if (card.kind === 'basic') return readableIn(foldText(card.cue), foldText(card.answer)) ? 'cue' : undefined;
  const deletions = parseCloze(card.clozeText) ?? [];
  for (const n of [...new Set(deletions.map((d) => d.n))]) {
    const front = foldText(clozeFront(card.clozeText, deletions, n));
    if (deletions.some((d) => d.n === n && readableIn(front, foldText(d.answer)))) return `c${n}`;
  }
  return undefined;
}

function hasNoContent(card: MemoCard): boolean {
  if (card.kind === 'basic') return !normaliseText(card.cue) || !normaliseText(card.answer);
  const deletions = parseCloze(card.clozeText);
  return !deletions || deletions.some((d) => !normaliseText(d.answer)) || !normaliseText(clozeFront(card.clozeText, deletions, deletions[0]?.n ?? 1).replace(/\[[^\]]*\]/g, ' '));
}

/** The first reason a single card fails (without the duplicate checks), with its detail; relevance only with `relevance`. */
export function cardProblem(card: MemoCard, passages: readonly StudySourcePassage[], relevance?: RelevanceContext): { reason: DropReason; detail: string } | undefined {
  if (hasNoContent(card)) return { reason: 'no_content', detail: 'no letter or digit left after normalisation' };
  const missing = evidenceNotInSource(card, passages);
  if (missing) {
    const known = passages.some((p) => p.ref === missing.ref);
    return { reason: 'evidence_not_in_source', detail: known ? `quote not found in passage ${missing.ref}` : `unknown passage ${missing.ref}` };
  }
  if (relevance) {
    const best = Math.max(...card.evidence.map((e) => evidenceRelevance(e, relevance)));
    if (best < RELEVANCE_FLOOR) return { reason: 'evidence_off_topic', detail: `evidence relevance ${best.toFixed(2)} is under ${RELEVANCE_FLOOR.toFixed(2)}` };
  }
  const numbers = unbackedNumbers(cardTexts(card), card.evidence.map((e) => e.quote));
  if (numbers.length > 0) return { reason: 'number_not_in_evidence', detail: `not in the evidence: ${numbers.map((n) => n.raw).join(', ')}` };
  const leak = answerLeak(card);
  if (leak) return { reason: 'answer_leak', detail: leak === 'cue' ? 'the answer appears in the cue' : `the answer of ${leak} is visible while it is asked` };
  return undefined;
}

/**
 * Runs the guards over a batch in order (see the module comment). The first of several cards with
 * one key is kept. Linear in the total text size apart from phrase searches, which are bounded by
 * the card field limits.
 */
export function guardMemoCards(input: GuardInput): GuardOutcome {
  const live = new Set(input.liveKeys ?? []);
  const seen = new Set<string>();
  const out: GuardOutcome = { kept: [], dropped: [], droppedByReason: emptyDropCounts() };
  const drop = (index: number, reason: DropReason, detail: string) => {
    out.dropped.push({ index, reason, detail });
    out.droppedByReason[reason] += 1;
  };
  input.cards.forEach((card, index) => {
    const problem = cardProblem(card, input.passages, input.relevance);
    if (problem) return drop(index, problem.reason, problem.detail);
    const key = memoCardKey(card);
    if (seen.has(key)) return drop(index, 'duplicate_in_batch', 'same normalised content as an earlier card of this batch');
    if (live.has(key)) return drop(index, 'duplicate_of_live', 'same normalised content as a live card of this user');
    seen.add(key);
    out.kept.push({ index, key, card });
  });
  return out;
}

/** What a batch's outcome means for its job and question (ST-4, ST-5). */
export interface BatchVerdict {
  /** No card kept (none returned, or all dropped): the job completes with zero cards, code `all_dropped`. */
  allDropped: boolean;
  /** The question gets needs_review: no card kept, or more than half of the returned cards dropped by quality guards. */
  needsReview: boolean;
  /** The needs_review reason (stored on the question), or null. */
  reason: string | null;
}

/**
 * The verdict on `outcome` for a batch of `returned` cards. Duplicates count as dropped for
 * `allDropped` but not towards "mostly dropped" (a card we already have is no quality problem).
 */
export function batchVerdict(outcome: GuardOutcome, returned: number): BatchVerdict {
  const kept = outcome.kept.length;
  const quality = QUALITY_DROP_REASONS.reduce((n, r) => n + outcome.droppedByReason[r], 0);
  const counts = DROP_REASONS.filter((r) => outcome.droppedByReason[r] > 0)
    .map((r) => `${r} ${outcome.droppedByReason[r]}`)
    .join(', ');
  if (returned === 0) return { allDropped: true, needsReview: true, reason: 'no_cards: the extraction returned no card' };
  if (kept === 0) return { allDropped: true, needsReview: true, reason: `all_dropped: ${returned} of ${returned} cards dropped (${counts})` };
  if (quality * 2 > returned) return { allDropped: false, needsReview: true, reason: `mostly_dropped: ${quality} of ${returned} cards dropped (${counts})` };
  return { allDropped: false, needsReview: false, reason: null };
}
