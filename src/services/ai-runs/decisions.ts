/**
 * AR-5 `POST /api/v1/ai-runs/{aiRunId}/candidate-decisions`: applies HR's decisions to one run in
 * ONE transaction, all or nothing. The run's row is locked (SELECT … FOR NO KEY UPDATE: decision
 * requests on a run take turns, while inserts of its attempts and candidates, which only need the
 * key, are not blocked); the version check, the business rules (src/domain/ai-runs/decision-rules.ts),
 * the decision rows, the candidates' statuses, one Task per adopted candidate and the version bump
 * (UPDATE … WHERE version = expected) commit together. The unique constraints on
 * ai_candidate_decisions.candidate_id and tasks.candidate_id back it up: a unique violation (a
 * writer that did not take the lock) rolls the attempt back and it runs once more, finding the
 * winner's rows, so a repeated or concurrent decision answers the same decision and Task, never a
 * second. Nothing is sent anywhere.
 */
import { Prisma, type PrismaClient, type Task } from '@prisma/client';
import { DomainError, domainError } from '../../core/domain-error';
import { requireMembership, type MembershipReader } from '../../core/tenancy';
import { transitionGuard } from '../../core/guarded-transition';
import { AI_CANDIDATE_STATES } from '../../domain/ai-runs/run-state';
import {
  DECIDER_ROLES,
  planDecisions,
  taskStatusFor,
  type CandidateFacts,
  type Decision,
  type RequestedDecision,
  type RunFacts,
} from '../../domain/ai-runs/decision-rules';

const TX_OPTIONS = { maxWait: 10_000, timeout: 15_000 };

/** Input of {@link applyCandidateDecisions}. */
export interface ApplyDecisionsInput {
  aiRunId: string;
  /** The acting user (must be OWNER or HR_MANAGER of the run's company). */
  userId: string;
  /** Distinct candidate ids (the API refuses duplicates with 400). */
  decisions: readonly RequestedDecision[];
  /** The versions the caller's precondition names (If-Match or body `version`); usually one. */
  expectedVersions: readonly number[];
}

/** One recorded decision. */
export interface RecordedDecision {
  candidateId: string;
  decision: Decision;
  decidedBy: string;
  decidedAt: Date;
  /** The run's version the decision was made on (the version the caller named). */
  runVersion: number;
  /** The Task an ADOPT made; null for DISCARD. */
  taskId: string | null;
}

/** Result of {@link applyCandidateDecisions}. */
export interface DecisionsResult {
  aiRunId: string;
  companyId: string;
  /** The run's version after this request (unchanged for a pure replay). */
  version: number;
  /** How many decisions this request recorded (0: every one was already recorded as asked). */
  applied: number;
  /** The requested candidates' decisions, in request order. */
  decisions: RecordedDecision[];
  /** The Tasks of the requested ADOPTs, in request order. */
  tasks: Task[];
}

/** True for a unique-constraint violation however the driver adapter reports it (P2002, or 23505 in a raw query). */
function isUniqueViolation(err: unknown): boolean {
  if (err instanceof Prisma.PrismaClientKnownRequestError) {
    if (err.code === 'P2002') return true;
    return err.code === 'P2010' && /23505|unique/i.test(`${JSON.stringify(err.meta ?? {})} ${err.message}`);
  }
  return false;
}

/**
 * Applies `input.decisions` to run `input.aiRunId` (AR-5), all or nothing.
 * @returns the decisions and Tasks of the requested candidates and the run's new version.
 * @throws DomainError `not-found` NOT_FOUND (no such run, or the caller is not a member of its
 *   company), `forbidden` FORBIDDEN (VIEWER), StaleRunVersionError (version not current), and the
 *   `unprocessable` (422) rule codes of {@link planDecisions}.
 */
export async function applyCandidateDecisions(db: PrismaClient, input: ApplyDecisionsInput): Promise<DecisionsResult> {
  const requested = input.decisions.map((d) => ({ candidateId: d.candidateId.toLowerCase(), decision: d.decision }));
  const run = await db.aiRun.findUnique({ where: { id: input.aiRunId }, select: { companyId: true } });
  if (!run) throw runNotFound();
  await requireDecider(db, input.userId, run.companyId);
  for (let round = 0; ; round++) {
    try {
      return await db.$transaction((tx) => applyLocked(tx, { ...input, decisions: requested }, run.companyId), TX_OPTIONS);
    } catch (err) {
      // A concurrent writer recorded one of these candidates first: read its rows on the next round.
      if (round === 0 && isUniqueViolation(err)) continue;
      throw err;
    }
  }
}

const runNotFound = () => domainError('not-found', 'NOT_FOUND', 'AI run not found');

/** OWNER or HR_MANAGER of `companyId`; a non-member learns nothing of the run (the same 404 as no run). */
async function requireDecider(db: MembershipReader, userId: string, companyId: string): Promise<void> {
  try {
    await requireMembership(db, userId, companyId, DECIDER_ROLES);
  } catch (err) {
    throw err instanceof DomainError && err.kind === 'not-found' ? runNotFound() : err;
  }
}

async function applyLocked(tx: Prisma.TransactionClient, input: ApplyDecisionsInput, companyId: string): Promise<DecisionsResult> {
  const locked = await tx.$queryRaw<{ status: RunFacts['status']; version: number }[]>`
    SELECT status::text AS status, version FROM ai_runs WHERE id = ${input.aiRunId}::uuid FOR NO KEY UPDATE`;
  const row = locked[0];
  if (!row) throw runNotFound();
  // Membership again under the lock: a member removed meanwhile decides nothing.
  await requireDecider(tx, input.userId, companyId);
  const latest = await tx.aiAttempt.findFirst({ where: { runId: input.aiRunId }, orderBy: { number: 'desc' }, select: { id: true } });
  const run: RunFacts = { id: input.aiRunId, status: row.status, version: row.version, latestAttemptId: latest?.id ?? null };

  const ids = input.decisions.map((d) => d.candidateId);
  const rows = await tx.aiCandidate.findMany({
    where: { id: { in: ids } },
    select: { id: true, runId: true, attemptId: true, blocked: true, taskType: true, slots: true, missingSlots: true, decision: { select: { decision: true } } },
  });
  const byId = new Map(rows.map((c) => [c.id, c]));
  const facts = new Map<string, CandidateFacts>(
    rows.map((c) => [c.id, { id: c.id, runId: c.runId, attemptId: c.attemptId, blocked: c.blocked, decided: c.decision?.decision ?? null }]),
  );
  const plan = planDecisions(run, input.decisions, facts, input.expectedVersions);

  let version = run.version;
  if (!plan.replay) {
    await tx.aiCandidateDecision.createMany({
      data: plan.toApply.map((d) => ({ candidateId: d.candidateId, runId: run.id, decision: d.decision, actorUserId: input.userId, runVersion: run.version })),
    });
    for (const decision of ['ADOPT', 'DISCARD'] as const) {
      const chosen = plan.toApply.filter((d) => d.decision === decision).map((d) => d.candidateId);
      if (chosen.length === 0) continue;
      const to = decision === 'ADOPT' ? 'ADOPTED' : 'DISCARDED';
      await tx.aiCandidate.updateMany({ where: { id: { in: chosen }, status: { in: transitionGuard(AI_CANDIDATE_STATES, to) } }, data: { status: to } });
    }
    const adopted = plan.toApply.filter((d) => d.decision === 'ADOPT').map((d) => byId.get(d.candidateId)!);
    if (adopted.length > 0) {
      await tx.task.createMany({
        data: adopted.map((c) => ({
          companyId,
          runId: run.id,
          candidateId: c.id,
          taskType: c.taskType,
          status: taskStatusFor(c.missingSlots),
          slots: c.slots as Prisma.InputJsonValue,
          missingSlots: c.missingSlots,
          createdBy: input.userId,
        })),
      });
    }
    // The optimistic lock: the row lock makes this hold, the WHERE makes sure of it.
    const bumped = await tx.aiRun.updateMany({ where: { id: run.id, version: run.version }, data: { version: { increment: 1 } } });
    if (bumped.count !== 1) throw domainError('conflict', 'AI_RUN_VERSION_CONFLICT', 'the run changed while the decisions were applied');
    version = run.version + 1;
  }

  const decisions = await tx.aiCandidateDecision.findMany({ where: { candidateId: { in: ids } } });
  const tasks = await tx.task.findMany({ where: { candidateId: { in: ids } } });
  const decisionOf = new Map(decisions.map((d) => [d.candidateId, d]));
  const taskOf = new Map(tasks.map((t) => [t.candidateId, t]));
  return {
    aiRunId: run.id,
    companyId,
    version,
    applied: plan.toApply.length,
    decisions: ids.map((id) => {
      const d = decisionOf.get(id)!;
      return { candidateId: id, decision: d.decision, decidedBy: d.actorUserId, decidedAt: d.createdAt, runVersion: d.runVersion, taskId: taskOf.get(id)?.id ?? null };
    }),
    tasks: ids.flatMap((id) => (taskOf.has(id) ? [taskOf.get(id)!] : [])),
  };
}
