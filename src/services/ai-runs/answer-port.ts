/**
 * What the run's projection needs of the AI-runtime boundary (AR-2, AR-3, AR-9): re-validation of a
 * runtime answer into storable candidates, or the validation issues that make the attempt FAILED.
 * Implemented over the runtime contract, outcome rules and guards in src/services/ai-runs/answer.ts.
 */
import type { AttemptVersions } from '../../domain/ai-runs/contracts';

/** AR-9 a guard finding on a candidate (lost key value, sensitive data in a sendable field …). */
export interface CandidateFinding {
  code: string;
  message: string;
  path?: string | undefined;
}

/** A candidate as stored (ai_candidates). */
export interface StorableCandidate {
  taskType: string;
  title: string;
  slots: Record<string, unknown>;
  missingSlots: string[];
  confidence: number;
  /** AR-9 findings; a candidate with any is `blocked` from becoming a Task automatically. */
  validationErrors: CandidateFinding[];
  blocked: boolean;
}

/** AR-2 result of re-validating one answer. */
export type ValidatedAnswer =
  | { ok: true; outcome: 'NEEDS_INFO' | 'REVIEW_REQUIRED'; candidates: StorableCandidate[]; versions?: AttemptVersions }
  | { ok: false; code: string; issues: { path: string; message: string }[]; versions?: AttemptVersions };

/** What re-validation compares an answer with: the raw input, its reference time, the attempt's requestId. */
export interface AnswerContext {
  text: string;
  referenceTime: string;
  requestId: string;
}

/** Re-validates `answer` (unknown JSON) against the contract and the request (the guards need the raw text). */
export type AnswerValidator = (answer: unknown, ctx: AnswerContext) => ValidatedAnswer;
