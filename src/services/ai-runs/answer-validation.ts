/**
 * AR-2/AR-3/AR-9 re-validation of one runtime answer into storable candidates, as the run's
 * projection needs it ({@link AnswerValidator}): the contract (`parseRuntimeAnswer`: shape,
 * versions, the attempt's requestId), the guards on each candidate (lost key values, sensitive data
 * in a sendable field → findings, `blocked`) and the outcome rule (NEEDS_INFO / REVIEW_REQUIRED:
 * never FAILED for ambiguity or missing slots), or the validation issues that make the attempt
 * FAILED. The guards read the raw values; what is kept of a candidate (title, slots, findings) is
 * masked (AR-6: a blocked candidate stores `010-****-****`, never the number). Pure.
 */
import type { AttemptVersions } from '../../domain/ai-runs/contracts';
import { parseRuntimeAnswer } from '../../domain/ai-runs/contract';
import { guardCandidates, type GuardFinding } from '../../domain/ai-runs/guards';
import { maskDeep, maskSensitive } from '../../domain/ai-runs/masking';
import { analysisOutcome } from '../../domain/ai-runs/outcome';

/** AR-9 a guard finding on a candidate (lost key value, sensitive data in a sendable field …). */
export interface CandidateFinding {
  code: string;
  message: string;
  path?: string | undefined;
}

/** A candidate as stored (ai_candidates): its title and every string of its slots masked (AR-6). */
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

function findingOf(f: GuardFinding): CandidateFinding {
  if (f.code === 'SENSITIVE_DATA') {
    return { code: f.code, message: `${f.kind} data in a field that would be sent (${f.occurrences}x)`, path: f.field === 'title' ? 'title' : `slots.${f.field}` };
  }
  return { code: f.code, message: `a ${f.kind} given in the request is not kept by the candidate`, ...(f.field ? { path: `slots.${f.field}` } : {}) };
}

/** The validator of the `ai-run/v1` contract and the HR workflow catalog. */
export const validateRuntimeAnswer: AnswerValidator = (raw, ctx) => {
  const parsed = parseRuntimeAnswer(raw, { requestId: ctx.requestId });
  if (!parsed.ok) return { ok: false, code: parsed.code, issues: maskDeep(parsed.issues) };
  const { answer } = parsed;
  const guards = guardCandidates({ text: ctx.text, referenceTime: ctx.referenceTime }, answer.candidates);
  const candidates = answer.candidates.map((c, i) => {
    const g = guards[i] ?? { findings: [], blocked: false };
    return {
      taskType: c.taskType,
      title: maskSensitive(c.title),
      slots: maskDeep(c.slots) as Record<string, unknown>,
      missingSlots: c.missingSlots,
      confidence: c.confidence,
      validationErrors: maskDeep(g.findings.map(findingOf)),
      blocked: g.blocked,
    };
  });
  const { outcome } = analysisOutcome({ ambiguity: answer.ambiguity, candidates: answer.candidates.map((c, i) => ({ ...c, blocked: candidates[i]!.blocked })) });
  return { ok: true, outcome, candidates, versions: maskDeep(answer.versions) };
};
