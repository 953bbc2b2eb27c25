/**
 * Seeds AR rows directly with Prisma for the decision, Task and list tests (no workflow needed):
 * companies, members with roles, runs in any status, attempts and candidates.
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { AiRunStatus, CompanyRole, Prisma } from '@prisma/client';
import type { Stack } from './stack';

type User = Awaited<ReturnType<Stack['newUser']>>;

const hex64 = () => createHash('sha256').update(randomBytes(16)).digest('hex');

/** A company with one member per given role; `outsider` is a user of no company. */
export async function seedCompany(stack: Stack, roles: readonly CompanyRole[] = ['OWNER', 'HR_MANAGER', 'VIEWER']) {
  const company = await stack.db.company.create({ data: { name: `company-${randomBytes(4).toString('hex')}` } });
  const members = {} as Record<CompanyRole, User>;
  for (const role of roles) {
    const user = await stack.newUser();
    await stack.db.companyMember.create({ data: { companyId: company.id, userId: user.userId, role } });
    members[role] = user;
  }
  return { companyId: company.id, members };
}

/** A candidate to seed. */
export interface CandidateSeed {
  taskType?: string;
  slots?: Prisma.InputJsonObject;
  missingSlots?: string[];
  blocked?: boolean;
  confidence?: number;
}

/** Options of {@link seedRun}. */
export interface RunSeed {
  status?: AiRunStatus;
  version?: number;
  createdAt?: Date;
  /** Candidates of each attempt, oldest attempt first (the last attempt is the run's latest). */
  attempts?: CandidateSeed[][];
}

/**
 * A run of `companyId` with its attempts (each FAILED but the last, which is SUCCEEDED when the
 * run is) and their candidates. Returns the ids, candidates grouped per attempt.
 */
export async function seedRun(stack: Stack, companyId: string, actorUserId: string, seed: RunSeed = {}) {
  const status = seed.status ?? 'SUCCEEDED';
  const attempts = seed.attempts ?? [];
  const run = await stack.db.aiRun.create({
    data: {
      companyId,
      actorUserId,
      status,
      analysisOutcome: status === 'SUCCEEDED' ? 'REVIEW_REQUIRED' : null,
      inputMasked: 'I need an employment certificate for my visa by Friday, my phone is 010-****-****',
      inputHash: hex64(),
      idempotencyKeyHash: hex64(),
      workflowId: `ai-run:${randomUUID()}`,
      attemptCount: attempts.length,
      maxAttempts: 3,
      version: seed.version ?? 3,
      ...(seed.createdAt ? { createdAt: seed.createdAt } : {}),
      finishedAt: status === 'SUCCEEDED' || status === 'FAILED' ? new Date() : null,
      errorCode: status === 'FAILED' ? 'RUNTIME_UNAVAILABLE' : null,
    },
  });
  const candidates: string[][] = [];
  for (const [i, list] of attempts.entries()) {
    const last = i === attempts.length - 1;
    const attempt = await stack.db.aiAttempt.create({
      data: {
        runId: run.id,
        number: i + 1,
        trigger: i === 0 ? 'INITIAL' : 'AUTO_RETRY',
        status: last && status === 'SUCCEEDED' ? 'SUCCEEDED' : last && status === 'RUNNING' ? 'RUNNING' : 'FAILED',
        requestId: randomUUID(),
        latencyMs: 120,
      },
    });
    const ids: string[] = [];
    for (const [ordinal, c] of list.entries()) {
      const row = await stack.db.aiCandidate.create({
        data: {
          runId: run.id,
          attemptId: attempt.id,
          ordinal,
          taskType: c.taskType ?? 'EMPLOYMENT_CERTIFICATE',
          title: 'Employment certificate for a visa',
          slots: c.slots ?? { purpose: 'visa application', dueDate: '2026-12-04' },
          missingSlots: c.missingSlots ?? [],
          confidence: c.confidence ?? 0.9,
          blocked: c.blocked ?? false,
          validationErrors: c.blocked ? [{ code: 'SENSITIVE_DATA', path: 'slots.contact' }] : [],
        },
      });
      ids.push(row.id);
    }
    candidates.push(ids);
  }
  // Typed as a tuple so tests can destructure `[[c1, c2], [later]]`; entries past the seeded attempts are undefined.
  return { runId: run.id, candidates: candidates as [string[], string[], string[]] };
}
