/**
 * The AI explanation of a study question: the input of `explainStudyQuestion` and
 * its validated answer. Each stored explanation is a new source version of the question's memo cards.
 * Pure, no I/O: safe in workflow code.
 */
import { z } from 'zod';
import type { StudySourcePassage } from './cards';

/** Longest explanation stored, in UTF-16 code units. */
export const EXPLANATION_MAX = 20_000;

/** Input of `explainStudyQuestion`: the question, the user's answer, and retrieved context (limited by the caller). */
export interface StudyExplanationInput {
  topic?: string | null;
  question: string;
  userAnswer?: string | null;
  related?: StudySourcePassage[];
}

/** Validated explanation: markdown, 1 … 20,000 code units after trimming. */
export const StudyExplanationSchema = z.object({ explanation: z.string().trim().min(1).max(EXPLANATION_MAX) });
export type StudyExplanation = z.infer<typeof StudyExplanationSchema>;
