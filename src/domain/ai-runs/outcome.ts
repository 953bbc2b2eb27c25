/**
 * The analysis outcome of a SUCCEEDED run (AR-3), decided by the server from the validated
 * candidates, never by the runtime. Kept apart from the technical status: low confidence, ambiguity
 * and missing slots are outcomes, never FAILED. Pure: safe in workflow code.
 */
import { WORKFLOW_CATALOG, findWorkflow, type WorkflowCatalog } from './catalog';
import type { RuntimeAnswer, RuntimeCandidate } from './contract';

/** AR-3 outcomes (the Prisma enum AiRunOutcome). */
export type AnalysisOutcome = 'NEEDS_INFO' | 'REVIEW_REQUIRED';

/** Below this confidence a candidate counts as low-confidence (a reason, never a failure). */
export const LOW_CONFIDENCE_THRESHOLD = 0.5;

/** Why an outcome was chosen, stable codes for the API and the demo. */
export type OutcomeReason = 'MISSING_REQUIRED_SLOTS' | 'AMBIGUOUS' | 'LOW_CONFIDENCE' | 'NO_CANDIDATE' | 'BLOCKED_BY_GUARD';

/** The outcome and every reason that applies (in the order of {@link OutcomeReason}). */
export interface OutcomeDecision {
  outcome: AnalysisOutcome;
  reasons: OutcomeReason[];
}

/** The required slots of `candidate`'s task type that it does not fill, in catalog order. */
export function missingRequiredSlots(candidate: Pick<RuntimeCandidate, 'taskType' | 'slots'>, catalog: WorkflowCatalog = WORKFLOW_CATALOG): string[] {
  const spec = findWorkflow(candidate.taskType, catalog);
  if (!spec) return [];
  return spec.slots.filter((s) => s.required && !Object.hasOwn(candidate.slots, s.name)).map((s) => s.name);
}

/**
 * The AR-3 rule:
 * - `NEEDS_INFO` when at least one candidate misses a required slot of its catalog task type
 *   (the employee has to be asked; a Task made from it starts NEEDS_INFO too);
 * - `REVIEW_REQUIRED` otherwise — also for no candidate at all, ambiguity, a confidence below
 *   {@link LOW_CONFIDENCE_THRESHOLD} or a candidate blocked by an AR-9 guard: a human reviews.
 * Every outcome is a success of the run; none of these is ever a failure.
 * `blocked` (optional, per candidate) comes from the AR-9 guards.
 */
export function analysisOutcome(
  answer: Pick<RuntimeAnswer, 'ambiguity'> & { candidates: readonly (Pick<RuntimeCandidate, 'taskType' | 'slots' | 'confidence'> & { blocked?: boolean })[] },
  catalog: WorkflowCatalog = WORKFLOW_CATALOG,
): OutcomeDecision {
  const reasons: OutcomeReason[] = [];
  const { candidates } = answer;
  if (candidates.some((c) => missingRequiredSlots(c, catalog).length > 0)) reasons.push('MISSING_REQUIRED_SLOTS');
  if (answer.ambiguity.ambiguous || candidates.length > 1) reasons.push('AMBIGUOUS');
  if (candidates.some((c) => c.confidence < LOW_CONFIDENCE_THRESHOLD)) reasons.push('LOW_CONFIDENCE');
  if (candidates.length === 0) reasons.push('NO_CANDIDATE');
  if (candidates.some((c) => c.blocked)) reasons.push('BLOCKED_BY_GUARD');
  return { outcome: reasons[0] === 'MISSING_REQUIRED_SLOTS' ? 'NEEDS_INFO' : 'REVIEW_REQUIRED', reasons };
}
