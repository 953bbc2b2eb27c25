/**
 * One step from a runtime's raw answer to what an attempt stores (AR-2, AR-3, AR-9): re-validation
 * against the contract and catalog, the AR-9 guards per candidate, and the AR-3 outcome. A failed
 * re-validation yields the attempt's validation error and no candidate at all. Pure: safe in
 * workflow code.
 */
import { WORKFLOW_CATALOG, type WorkflowCatalog } from './catalog';
import { parseRuntimeAnswer, type ContractIssue, type RuntimeAnswer, type RuntimeCandidate } from './contract';
import { guardCandidates, type GuardFinding, type GuardInput } from './guards';
import { analysisOutcome, type OutcomeDecision } from './outcome';

/** A validated candidate with its guard verdict (stored as `validation_errors` and `blocked`). */
export interface EvaluatedCandidate extends RuntimeCandidate {
  findings: GuardFinding[];
  blocked: boolean;
}

/** Result of {@link evaluateRuntimeAnswer}. */
export type AnswerEvaluation =
  | { ok: true; answer: RuntimeAnswer; candidates: EvaluatedCandidate[]; outcome: OutcomeDecision }
  | { ok: false; code: 'SCHEMA_VIOLATION' | 'CONTRACT_VERSION_MISMATCH'; issues: ContractIssue[] };

/**
 * Re-validates `raw` (see `parseRuntimeAnswer`, with `input.requestId` as the expected request id
 * when given), guards every candidate against the input text and decides the outcome, where a
 * blocked candidate adds `BLOCKED_BY_GUARD`. Never throws for a bad answer: that is `ok: false`.
 * @throws RangeError for an invalid `input.referenceTime` or `input.timeZone` (a caller bug).
 */
export function evaluateRuntimeAnswer(raw: unknown, input: GuardInput & { requestId?: string }, catalog: WorkflowCatalog = WORKFLOW_CATALOG): AnswerEvaluation {
  const parsed = parseRuntimeAnswer(raw, { requestId: input.requestId }, catalog);
  if (!parsed.ok) return parsed;
  const verdicts = guardCandidates(input, parsed.answer.candidates, catalog);
  const candidates = parsed.answer.candidates.map((c, i) => ({ ...c, ...(verdicts[i] ?? { findings: [], blocked: false }) }));
  return { ok: true, answer: parsed.answer, candidates, outcome: analysisOutcome({ ambiguity: parsed.answer.ambiguity, candidates }, catalog) };
}
