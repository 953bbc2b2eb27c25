/**
 * AR-5 business rules of candidate decisions, pure (no I/O): what a request of
 * `{ decisions: [{ candidateId, decision }] }` may do to one run, given the facts read under the
 * run's row lock. The service applies the plan in one transaction; every refusal here is a
 * {@link DomainError} with a stable code (decision-problem-codes.ts), so the whole request is refused
 * and nothing is applied.
 */
import type { CompanyRole } from '@prisma/client';
import { DomainError } from '../../core/domain-error';
import { AR_ERRORS } from './errors';

/** The two decisions HR can take on a candidate. */
export const DECISIONS = ['ADOPT', 'DISCARD'] as const;
/** One decision. */
export type Decision = (typeof DECISIONS)[number];

/** AR-5 roles that may decide (VIEWER reads only). */
export const DECIDER_ROLES = ['OWNER', 'HR_MANAGER'] as const satisfies readonly CompanyRole[];

/** At most this many decisions in one request. */
export const MAX_DECISIONS_PER_REQUEST = 100;

/** One requested decision. */
export interface RequestedDecision {
  candidateId: string;
  decision: Decision;
}

/** What the rules need to know of the run (read with its row locked). */
export interface RunFacts {
  id: string;
  status: 'QUEUED' | 'RUNNING' | 'RETRYING' | 'SUCCEEDED' | 'FAILED';
  /** The optimistic-lock version (`ai_runs.version`, the ETag's version). */
  version: number;
  /** Id of the run's latest attempt (highest number); candidates of any other attempt are superseded. */
  latestAttemptId: string | null;
}

/** What the rules need to know of one requested candidate. */
export interface CandidateFacts {
  id: string;
  runId: string;
  attemptId: string;
  /** AR-9: a guard flagged it (lost key value, sensitive data in a sendable field). */
  blocked: boolean;
  /** The recorded decision (ai_candidate_decisions), or null while PROPOSED. */
  decided: Decision | null;
}

/** The run's version is not the one the caller named (nothing applied). */
export class StaleRunVersionError extends DomainError {
  constructor(readonly currentVersion: number) {
    super('AI_RUN_VERSION_CONFLICT', `the run changed: its current version is ${currentVersion}; read it again and decide on that version`);
  }
}

/** What to do with a request that passed every rule. */
export interface DecisionPlan {
  /** Every requested decision is already recorded exactly as asked: nothing to write, no version bump. */
  replay: boolean;
  /** The requested decisions not recorded yet, in request order (empty when `replay`). */
  toApply: RequestedDecision[];
}

/**
 * Positions of repeated candidate ids in one request (each repeat after its first occurrence), so
 * the API can refuse the request with 400 naming them.
 */
export function duplicateCandidateIds(requested: readonly { candidateId: string }[]): { index: number; firstIndex: number; candidateId: string }[] {
  const first = new Map<string, number>();
  const out: { index: number; firstIndex: number; candidateId: string }[] = [];
  requested.forEach(({ candidateId }, index) => {
    const seen = first.get(candidateId.toLowerCase());
    if (seen === undefined) first.set(candidateId.toLowerCase(), index);
    else out.push({ index, firstIndex: seen, candidateId });
  });
  return out;
}

/** AR-5 the status of the Task an adopted candidate becomes: NEEDS_INFO while slots are missing. */
export function taskStatusFor(missingSlots: readonly string[]): 'NEEDS_INFO' | 'READY_FOR_REVIEW' {
  return missingSlots.length > 0 ? 'NEEDS_INFO' : 'READY_FOR_REVIEW';
}

const at = (i: number, id: string) => `decisions[${i}] (candidate ${id})`;

/**
 * Checks a request against the run and its candidates and says what to write. In this order:
 * 1. a pure replay (every candidate of this run, each already decided as asked) passes whatever
 *    version was named: it changes nothing, so it overwrites nobody's update (idempotent, AR-5);
 * 2. the version: `expectedVersions` (the versions the caller's If-Match or body named) must hold
 *    the run's current version, else {@link StaleRunVersionError};
 * 3. the run must be SUCCEEDED (`AI_RUN_NOT_SUCCEEDED`);
 * 4. per decision, in request order: the candidate belongs to this run (`CANDIDATE_NOT_IN_RUN`); a
 *    recorded decision is final (`CANDIDATE_ALREADY_DISCARDED` for ADOPT after DISCARD,
 *    `CANDIDATE_ALREADY_ADOPTED` for DISCARD after ADOPT; the same decision again is kept as is);
 *    it comes from the run's latest attempt (`CANDIDATE_SUPERSEDED`); an AR-9 blocked candidate may
 *    be discarded but not adopted (`CANDIDATE_BLOCKED`: nothing blocked becomes a Task).
 * Duplicate candidate ids are refused before (400, {@link duplicateCandidateIds}).
 * @throws StaleRunVersionError (409/412 at the API), DomainError (422) with the codes above.
 */
export function planDecisions(
  run: RunFacts,
  requested: readonly RequestedDecision[],
  candidates: ReadonlyMap<string, CandidateFacts>,
  expectedVersions: readonly number[],
): DecisionPlan {
  const facts = requested.map((r) => candidates.get(r.candidateId));
  const replay = requested.every((r, i) => facts[i]?.runId === run.id && facts[i]?.decided === r.decision);
  if (replay) return { replay: true, toApply: [] };
  if (!expectedVersions.includes(run.version)) throw new StaleRunVersionError(run.version);
  if (run.status !== 'SUCCEEDED') {
    throw AR_ERRORS.problem('AI_RUN_NOT_SUCCEEDED', `the run is ${run.status}: only the candidates of a SUCCEEDED run can be decided`);
  }
  const toApply: RequestedDecision[] = [];
  requested.forEach((r, i) => {
    const c = facts[i];
    if (!c || c.runId !== run.id) throw AR_ERRORS.problem('CANDIDATE_NOT_IN_RUN', `${at(i, r.candidateId)} is not a candidate of run ${run.id}`);
    if (c.decided === r.decision) return;
    if (c.decided === 'DISCARD') throw AR_ERRORS.problem('CANDIDATE_ALREADY_DISCARDED', `${at(i, r.candidateId)} was discarded; a discarded candidate cannot be adopted`);
    if (c.decided === 'ADOPT') throw AR_ERRORS.problem('CANDIDATE_ALREADY_ADOPTED', `${at(i, r.candidateId)} was adopted and is a Task; it cannot be discarded`);
    if (c.attemptId !== run.latestAttemptId) {
      throw AR_ERRORS.problem('CANDIDATE_SUPERSEDED', `${at(i, r.candidateId)} comes from an earlier attempt than the run's latest; decide the latest attempt's candidates`);
    }
    if (r.decision === 'ADOPT' && c.blocked) {
      throw AR_ERRORS.problem('CANDIDATE_BLOCKED', `${at(i, r.candidateId)} was blocked by the AR-9 guards (see its validationErrors); it can be discarded, not adopted`);
    }
    toApply.push(r);
  });
  return { replay: false, toApply };
}
