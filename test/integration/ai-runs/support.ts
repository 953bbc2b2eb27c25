/** Helpers of the AI-runs integration tests: a company with members, POST/GET shortcuts, waiting for a run. */
import { randomUUID } from 'node:crypto';
import type { CompanyRole } from '@prisma/client';
import { ensureCompany, setMember } from '../../../src/core/companies';
import type { Stack } from '../../support/stack';
import { pollUntil } from '../../support/poll';

/** A company with an HR manager, a viewer and an outsider (no membership). */
export async function companyWithMembers(stack: Stack) {
  const companyId = await ensureCompany(stack.db, `co-${randomUUID()}`);
  const member = async (role: CompanyRole | null) => {
    const u = await stack.newUser();
    if (role) await setMember(stack.db, companyId, u.userId, role);
    return u;
  };
  return { companyId, hr: await member('HR_MANAGER'), viewer: await member('VIEWER'), outsider: await member(null) };
}

/** `POST /api/v1/ai-runs`. */
export function postRun(stack: Stack, auth: { authorization: string }, key: string | undefined, body: object) {
  return stack.app.inject({
    method: 'POST',
    url: '/api/v1/ai-runs',
    headers: { ...auth, ...(key === undefined ? {} : { 'idempotency-key': key }) },
    payload: body,
  });
}

/** A run as GET shows it. */
export interface RunView {
  aiRunId: string;
  status: string;
  analysisOutcome: string | null;
  errorCode: string | null;
  attemptCount: number;
  retryCount: number;
  version: number;
  attempts: { number: number; status: string; trigger: string; errorCode: string | null; requestId: string; finishedAt: string | null; latencyMs: number | null; versions: Record<string, string | null> }[];
  candidates: { candidateId: string; taskType: string; blocked: boolean; missingSlots: string[]; validationErrors: unknown[] }[];
}

/** `GET /api/v1/ai-runs/{id}` as a view (throws unless 200). */
export async function getRun(stack: Stack, auth: { authorization: string }, id: string): Promise<RunView> {
  const res = await stack.app.inject({ method: 'GET', url: `/api/v1/ai-runs/${id}`, headers: auth });
  if (res.statusCode !== 200) throw new Error(`GET ai run ${id}: ${res.statusCode} ${res.body}`);
  return res.json() as RunView;
}

/** Waits until the run's status is one of `statuses` (default SUCCEEDED or FAILED). */
export function waitForRun(stack: Stack, auth: { authorization: string }, id: string, statuses: readonly string[] = ['SUCCEEDED', 'FAILED'], timeoutMs = 45_000) {
  return pollUntil(() => getRun(stack, auth, id), (r) => statuses.includes(r.status), { describe: `ai run ${id} to be ${statuses.join(' or ')}`, timeoutMs, maxIntervalMs: 300 });
}
