/**
 * Answers of the OpenAI-compatible runtime: response schemas, rate-limit delays, and the checks and normalisation of structured answers and upstream errors.
 * Part of the `openai` runtime (src/ai/openai.ts); no I/O.
 */
import { z } from 'zod';
import { cutToLength } from '../../core/text';
import { CardAnalysisSchema, EMBEDDING_DIMENSIONS, type Quiz, QuizSchema, type QuizTypeName, type SourceCard, TilResultSchema } from '../types';

/** Upstream error text kept in our messages, in characters. */
export const ERROR_EXCERPT_CHARS = 300;
export const ChatCompletionSchema = z.object({
  choices: z
    .array(
      z.object({
        finish_reason: z.string().nullish(),
        message: z.object({ content: z.string().nullish(), refusal: z.string().nullish() }),
      }),
    )
    .min(1),
});

export const EmbeddingResponseSchema = z.object({
  data: z.array(z.object({ index: z.number().int().nonnegative().optional(), embedding: z.unknown() })),
});

export const AnalysisAnswerSchema = CardAnalysisSchema.omit({ embedding: true, embeddingModel: true });
export const TilAnswerSchema = TilResultSchema.omit({ embedding: true, embeddingModel: true });
export const QuizAnswerSchema = z.object({ quizzes: z.array(QuizSchema) });

/**
 * Parses a rate-limit delay from response headers, in milliseconds: `retry-after-ms` first, then
 * `Retry-After` as delta-seconds or an HTTP date. Undefined when absent or unparseable.
 */
export function parseRetryAfterMs(headers: Headers, now = Date.now()): number | undefined {
  const ms = headers.get('retry-after-ms')?.trim();
  if (ms && Number.isFinite(Number(ms)) && Number(ms) >= 0) return Math.round(Number(ms));
  const ra = headers.get('retry-after')?.trim();
  if (!ra) return undefined;
  if (/^\d+(\.\d+)?$/.test(ra)) return Math.round(Number(ra) * 1000);
  const at = Date.parse(ra);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/** Cards with a non-blank content or summary; the others give nothing to write about. */
export function usableCards(cards: readonly SourceCard[]): SourceCard[] {
  return cards.filter((c) => c.content.trim() || c.summary.trim());
}

/** Upper-cases and trims OX answers (`o` → `O`) before validation; other answers are left alone. */
export function normaliseOxAnswers(answer: unknown): unknown {
  const quizzes = (answer as { quizzes?: unknown } | null)?.quizzes;
  if (!Array.isArray(quizzes)) return answer;
  return {
    ...(answer as object),
    quizzes: quizzes.map((q: unknown) => {
      const quiz = q as { type?: unknown; answer?: unknown } | null;
      return quiz?.type === 'OX' && typeof quiz.answer === 'string' ? { ...quiz, answer: quiz.answer.trim().toUpperCase() } : q;
    }),
  };
}

/**
 * SAN-11 server-side checks of validated quizzes; the first violation as text, or undefined: at least
 * one quiz; only requested types; OX answers `O` or `X`; a SHORT_ANSWER's answer absent from its
 * question (case-insensitive); every `sourceCardId` one of `cardIds`.
 */
export function quizProblem(quizzes: readonly Quiz[], types: readonly QuizTypeName[], cardIds: ReadonlySet<string>): string | undefined {
  if (quizzes.length === 0) return 'no quizzes';
  for (const [i, q] of quizzes.entries()) {
    if (!types.includes(q.type)) return `quizzes.${i}: type ${q.type} was not requested`;
    if (!cardIds.has(q.sourceCardId)) return `quizzes.${i}: sourceCardId ${q.sourceCardId} is not an input card`;
    if (q.type === 'OX' && q.answer !== 'O' && q.answer !== 'X') return `quizzes.${i}: OX answer must be O or X, got ${excerpt(q.answer)}`;
    if (q.type === 'SHORT_ANSWER' && q.question.toLowerCase().includes(q.answer.toLowerCase())) {
      return `quizzes.${i}: the answer appears in the question`;
    }
  }
  return undefined;
}

/** Unit vector e0: the deterministic embedding of an empty text (nothing is sent upstream). */
export function unitVector(): number[] {
  const v = new Array<number>(EMBEDDING_DIMENSIONS).fill(0);
  v[0] = 1;
  return v;
}

/** NFC-normalises, trims, lower-cases and de-duplicates model tags and keeps at most 10, before validation. */
export function normaliseTags(answer: unknown): unknown {
  if (typeof answer !== 'object' || answer === null || !Array.isArray((answer as { tags?: unknown }).tags)) return answer;
  const tags = (answer as { tags: unknown[] }).tags;
  if (!tags.every((t) => typeof t === 'string')) return answer;
  const unique = [...new Set((tags as string[]).map((t) => t.normalize('NFC').trim().toLowerCase()).filter(Boolean))].slice(0, 10);
  return { ...answer, tags: unique };
}

export function upstreamMessage(body: string): string {
  try {
    const parsed = JSON.parse(body) as { error?: { message?: unknown } | string; message?: unknown };
    const msg = typeof parsed.error === 'string' ? parsed.error : (parsed.error?.message ?? parsed.message);
    if (typeof msg === 'string' && msg) return excerpt(msg);
  } catch {
    // not JSON: fall through to the raw excerpt
  }
  return excerpt(body) || '(empty body)';
}

export function excerpt(s: string): string {
  const flat = s.replace(/\s+/g, ' ').trim();
  return flat.length > ERROR_EXCERPT_CHARS ? `${cutToLength(flat, ERROR_EXCERPT_CHARS)}…` : flat;
}

export function describe(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const cause = err.cause instanceof Error ? `: ${err.cause.message}` : '';
  return `${err.message}${cause}`;
}

export function zodIssues(error: z.ZodError): string {
  return excerpt(error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; '));
}
