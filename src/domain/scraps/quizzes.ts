/**
 * SAN-11 recall quizzes: their types and schema, and the server-side re-validation of generated
 * quizzes before anything is stored. Pure, no I/O.
 */
import { z } from 'zod';

/** SAN-11 quiz types: OX (true/false statement, answer `O` or `X`) and SHORT_ANSWER (cloze). */
export const QUIZ_TYPES = ['OX', 'SHORT_ANSWER'] as const;
export type QuizTypeName = (typeof QUIZ_TYPES)[number];

/** One validated quiz; `sourceCardId` is one of the input cards. */
export const QuizSchema = z.object({
  type: z.enum(QUIZ_TYPES),
  question: z.string().trim().min(1).max(2000),
  answer: z.string().trim().min(1).max(500),
  explanation: z.string().trim().min(1).max(2000),
  sourceCardId: z.string().uuid(),
});
export type Quiz = z.infer<typeof QuizSchema>;

/** Why a quiz was rejected. */
export type QuizRejection = 'TYPE_NOT_REQUESTED' | 'UNKNOWN_SOURCE_CARD' | 'OX_ANSWER_NOT_O_OR_X' | 'ANSWER_IN_QUESTION';

/** Result of {@link acceptQuizzes}: the quizzes to store, in order, and the rejected ones by index. */
export interface QuizCheck {
  accepted: Quiz[];
  rejected: { index: number; reason: QuizRejection }[];
}

/**
 * Keeps the quizzes that satisfy SAN-11: a requested type; the source card is one of `cardIds`;
 * an OX answer is exactly `O` or `X`; a SHORT_ANSWER's answer does not appear in its question
 * (case-insensitive). Order is preserved; it becomes the stored `position`.
 */
export function acceptQuizzes(quizzes: readonly Quiz[], cardIds: readonly string[], types: readonly QuizTypeName[]): QuizCheck {
  const cards = new Set(cardIds);
  const wanted = new Set(types);
  const out: QuizCheck = { accepted: [], rejected: [] };
  quizzes.forEach((q, index) => {
    const reason = rejection(q, cards, wanted);
    if (reason) out.rejected.push({ index, reason });
    else out.accepted.push(q);
  });
  return out;
}

function rejection(q: Quiz, cards: Set<string>, wanted: Set<QuizTypeName>): QuizRejection | null {
  if (!wanted.has(q.type)) return 'TYPE_NOT_REQUESTED';
  if (!cards.has(q.sourceCardId)) return 'UNKNOWN_SOURCE_CARD';
  if (q.type === 'OX' && q.answer !== 'O' && q.answer !== 'X') return 'OX_ANSWER_NOT_O_OR_X';
  if (q.type === 'SHORT_ANSWER' && q.question.toLowerCase().includes(q.answer.toLowerCase())) return 'ANSWER_IN_QUESTION';
  return null;
}
