/**
 * ST-5 memo cards as the AI runtime returns them: basic (cue → answer) and cloze cards, each with
 * evidence quotes from the source passages, validated with zod at the AI boundary (an answer that
 * fails these schemas is the `parse_fail` class, ST-4). Also the cloze syntax and the extraction's
 * input shape. Pure, no I/O, no Node built-ins: safe in workflow code.
 *
 * Cloze syntax (Anki's): `{{c<n>::answer}}` or `{{c<n>::answer::hint}}`, n ≥ 1. Deletions with the
 * same n are hidden together; the other deletions of the card (its siblings) stay visible.
 */
import { z } from 'zod';

/** The two card kinds (ST-5). */
export const MEMO_CARD_KINDS = ['basic', 'cloze'] as const;
export type MemoCardKind = (typeof MEMO_CARD_KINDS)[number];

/** Field limits in UTF-16 code units (what zod's `.max()` counts); the batch limit in cards. */
export const MEMO_CARD_LIMITS = {
  cue: 300,
  answer: 300,
  clozeText: 600,
  quote: 600,
  ref: 120,
  evidencePerCard: 3,
  batch: 40,
} as const;

/** Refs of the passages every extraction has; other passages are named by the caller (e.g. `study_question:<id>`). */
export const PASSAGE_REFS = { explanation: 'explanation', question: 'question', userAnswer: 'user_answer' } as const;

/** One quote backing a card: `quote` is copied from the passage named `ref`. */
export const EvidenceQuoteSchema = z.object({
  ref: z.string().trim().min(1).max(MEMO_CARD_LIMITS.ref),
  quote: z.string().trim().min(1).max(MEMO_CARD_LIMITS.quote),
});
export type EvidenceQuote = z.infer<typeof EvidenceQuoteSchema>;

const evidence = z.array(EvidenceQuoteSchema).min(1).max(MEMO_CARD_LIMITS.evidencePerCard);

/** A basic card: the cue is shown, the answer recalled. */
export const BasicMemoCardSchema = z.object({
  kind: z.literal('basic'),
  cue: z.string().trim().min(1).max(MEMO_CARD_LIMITS.cue),
  answer: z.string().trim().min(1).max(MEMO_CARD_LIMITS.answer),
  evidence,
});
export type BasicMemoCard = z.infer<typeof BasicMemoCardSchema>;

/** A cloze card: `clozeText` with at least one well-formed deletion and nothing that looks like a broken one. */
export const ClozeMemoCardSchema = z.object({
  kind: z.literal('cloze'),
  clozeText: z
    .string()
    .trim()
    .min(1)
    .max(MEMO_CARD_LIMITS.clozeText)
    .refine((t) => parseCloze(t) !== undefined, { message: 'clozeText needs at least one {{c<n>::answer}} deletion and no stray braces' }),
  evidence,
});
export type ClozeMemoCard = z.infer<typeof ClozeMemoCardSchema>;

/** One memo card of either kind. */
export const MemoCardSchema = z.discriminatedUnion('kind', [BasicMemoCardSchema, ClozeMemoCardSchema]);
export type MemoCard = z.infer<typeof MemoCardSchema>;

/** What `extractMemoCards` answers (ST-5): at most {@link MEMO_CARD_LIMITS.batch} cards, possibly none. */
export const MemoCardBatchSchema = z.object({ cards: z.array(MemoCardSchema).max(MEMO_CARD_LIMITS.batch) });
export type MemoCardBatch = z.infer<typeof MemoCardBatchSchema>;

/** A piece of the user's own material a card may quote: the explanation, the question, or retrieved context. */
export interface StudySourcePassage {
  /** Stable name the evidence cites (`explanation`, `question`, `user_answer`, or the caller's, e.g. `study_question:<id>`). */
  ref: string;
  text: string;
}

/**
 * Input of `extractMemoCards` (ST-5). `related` is the retrieved context (the nearest of the user's
 * other material, already limited by the caller); `maxCards` defaults to 12 and is capped at
 * {@link MEMO_CARD_LIMITS.batch}.
 */
export interface MemoCardExtractionInput {
  topic?: string | null;
  question: string;
  userAnswer?: string | null;
  explanation: string;
  related?: StudySourcePassage[];
  maxCards?: number;
}

/** Default and cap of `maxCards`. */
export const DEFAULT_MAX_CARDS = 12;

/** The effective card limit of an extraction: `maxCards` (default 12) clamped to 1 … 40. */
export function cardLimit(input: Pick<MemoCardExtractionInput, 'maxCards'>): number {
  const n = input.maxCards ?? DEFAULT_MAX_CARDS;
  return Math.max(1, Math.min(MEMO_CARD_LIMITS.batch, Number.isFinite(n) ? Math.floor(n) : DEFAULT_MAX_CARDS));
}

/**
 * The passages an extraction's evidence may quote, in order: explanation, question, the user's answer
 * (when not blank), then `related` (blank ones dropped; a ref given twice keeps its first text).
 */
export function extractionPassages(input: MemoCardExtractionInput): StudySourcePassage[] {
  const out: StudySourcePassage[] = [];
  const seen = new Set<string>();
  const add = (ref: string, text: string | null | undefined) => {
    if (!text?.trim() || seen.has(ref)) return;
    seen.add(ref);
    out.push({ ref, text });
  };
  add(PASSAGE_REFS.explanation, input.explanation);
  add(PASSAGE_REFS.question, input.question);
  add(PASSAGE_REFS.userAnswer, input.userAnswer);
  for (const p of input.related ?? []) add(p.ref, p.text);
  return out;
}

/** One deletion of a cloze text: its group number, the hidden answer, an optional hint, and where it sits. */
export interface ClozeDeletion {
  n: number;
  answer: string;
  hint?: string;
  start: number;
  end: number;
}

/**
 * Parses Anki-style deletions `{{c<n>::answer}}` / `{{c<n>::answer::hint}}` in one linear pass.
 * Undefined when there is none, when an answer is blank, or when `{{` / `}}` appear outside a
 * well-formed deletion (a malformed card is rejected, not guessed at).
 */
export function parseCloze(text: string): ClozeDeletion[] | undefined {
  const out: ClozeDeletion[] = [];
  let i = 0;
  while (i < text.length) {
    const open = text.indexOf('{{', i);
    const strayClose = text.indexOf('}}', i);
    if (open < 0) {
      if (strayClose >= 0) return undefined;
      break;
    }
    if (strayClose >= 0 && strayClose < open) return undefined;
    const close = text.indexOf('}}', open + 2);
    if (close < 0) return undefined;
    const inner = text.slice(open + 2, close);
    if (inner.includes('{{')) return undefined;
    const d = parseDeletion(inner);
    if (!d) return undefined;
    out.push({ ...d, start: open, end: close + 2 });
    i = close + 2;
  }
  return out.length > 0 ? out : undefined;
}

function parseDeletion(inner: string): Omit<ClozeDeletion, 'start' | 'end'> | undefined {
  if (inner.charAt(0) !== 'c' && inner.charAt(0) !== 'C') return undefined;
  const sep = inner.indexOf('::');
  if (sep < 2) return undefined;
  const digits = inner.slice(1, sep);
  if (!/^\d{1,2}$/.test(digits)) return undefined;
  const n = Number(digits);
  if (n < 1) return undefined;
  const rest = inner.slice(sep + 2);
  const hintAt = rest.indexOf('::');
  const answer = (hintAt < 0 ? rest : rest.slice(0, hintAt)).trim();
  const hint = hintAt < 0 ? undefined : rest.slice(hintAt + 2).trim() || undefined;
  if (!answer) return undefined;
  return hint === undefined ? { n, answer } : { n, answer, hint };
}

/**
 * What the learner sees when group `n` of a cloze card is asked: the group's deletions as `[...]`
 * (or `[hint]`), every sibling deletion as its answer.
 */
export function clozeFront(text: string, deletions: readonly ClozeDeletion[], n: number): string {
  let out = '';
  let at = 0;
  for (const d of deletions) {
    out += text.slice(at, d.start);
    out += d.n === n ? `[${d.hint ?? '...'}]` : d.answer;
    at = d.end;
  }
  return out + text.slice(at);
}

/** The cloze text with every deletion shown as its answer (the card's back, and its plain reading). */
export function clozePlain(text: string, deletions: readonly ClozeDeletion[]): string {
  let out = '';
  let at = 0;
  for (const d of deletions) {
    out += text.slice(at, d.start) + d.answer;
    at = d.end;
  }
  return out + text.slice(at);
}
