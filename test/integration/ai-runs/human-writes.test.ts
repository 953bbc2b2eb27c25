/**
 * A person's write against the run's own writes, on the real PostgreSQL and Temporal: a cancel
 * whose request to the workflow was lost lands while the runtime call is in flight; candidates
 * decided (and a Task made) on a SUCCEEDED run meet a late repeat of the run's answer and failure
 * writes; a manual retry meets a late answer of the attempt it replaced. Each time the person's
 * write wins and the late write changes nothing (status, attempts, candidates, Tasks, version). The
 * runtime call is the real local runtime behind a hook that makes the person's write first.
 */
import { randomUUID } from 'node:crypto';
import { createAiRunActivities } from '../../../src/activities/ai-runs/runs';
import { createAiRuntimeActivities } from '../../../src/activities/ai-runs/runtime-call';
import { aiRunEtag } from '../../../src/domain/ai-runs/etag';
import type { RuntimeCallResult } from '../../../src/domain/ai-runs/contracts';
import { validateRuntimeAnswer } from '../../../src/services/ai-runs/answer-validation';
import { inputBoxFromConfig } from '../../../src/services/ai-runs/input-box';
import { aiRuntimeCallerOf, classifyRuntimeError, runtimeClientFromConfig, type RuntimeCallRequest } from '../../../src/services/ai-runs/runtime-caller';
import { cancelAiRun } from '../../../src/services/ai-runs/runs';
import { createTemporalAiRunStarter } from '../../../src/services/ai-runs/starter';
import { startStack, type Stack } from '../../support/stack';
import { companyWithMembers, getRun, postRun, waitForRun } from './support';

let stack: Stack;
let co: Awaited<ReturnType<typeof companyWithMembers>>;
/** Writes made by "the person" while attempt `n` of a run (by its id) calls the runtime. */
const duringCall = new Map<string, (req: RuntimeCallRequest) => Promise<void>>();
/** Each call's request and answer, by attempt id. */
const calls = new Map<string, { req: RuntimeCallRequest; result: RuntimeCallResult }>();
let real: ReturnType<typeof createAiRuntimeActivities>;

beforeAll(async () => {
  stack = await startStack({ aiWorker: false, aiRunsWorker: false, env: { AI_RUNTIME_REJECT_FIRST_MARKER: '[reject]', AI_RUN_RETRY_INITIAL_MS: '200' } });
  real = createAiRuntimeActivities({
    caller: aiRuntimeCallerOf(runtimeClientFromConfig(stack.config), stack.config.aiRuns.callTimeoutMs),
    classify: classifyRuntimeError,
  });
  await stack.startAiRunsWorker({
    async callAiRuntime(req: RuntimeCallRequest): Promise<RuntimeCallResult> {
      await duringCall.get(`${req.runId}:${req.attempt}`)?.(req);
      const result = await real.callAiRuntime(req);
      calls.set(req.attemptId, { req, result });
      return result;
    },
  });
  co = await companyWithMembers(stack);
}, 120_000);
afterAll(async () => stack?.stop());

const acts = () => createAiRunActivities({ db: stack.db, validate: validateRuntimeAnswer });

/** What the database holds for a run. */
async function rows(runId: string) {
  const [run, attempts, candidates, decisions, tasks] = await Promise.all([
    stack.db.aiRun.findUniqueOrThrow({ where: { id: runId }, select: { status: true, errorCode: true, version: true, attemptCount: true, analysisOutcome: true } }),
    stack.db.aiAttempt.findMany({ where: { runId }, orderBy: { number: 'asc' }, select: { id: true, number: true, status: true, errorCode: true } }),
    stack.db.aiCandidate.findMany({ where: { runId }, orderBy: [{ createdAt: 'asc' }, { ordinal: 'asc' }], select: { id: true, attemptId: true, status: true } }),
    stack.db.aiCandidateDecision.findMany({ where: { runId }, select: { candidateId: true, decision: true } }),
    stack.db.task.findMany({ where: { runId }, select: { id: true, candidateId: true, status: true } }),
  ]);
  return { run, attempts, candidates, decisions, tasks };
}

/** A late repeat of the run's writes for one attempt: its answer, its failure, the run's deadline. */
async function lateWrites(runId: string, attemptId: string) {
  const { req, result } = calls.get(attemptId)!;
  const a = acts();
  await a.recordAnswer({ runId, attemptId, requestId: req.requestId, text: req.text, referenceTime: req.referenceTime, call: result });
  await a.failAttempt({ runId, attemptId, code: 'RUNTIME_TIMEOUT', message: 'late', latencyMs: 1, retryAt: new Date(Date.now() + 60_000).toISOString() });
  await a.failAttempt({ runId, attemptId, code: 'RUNTIME_REJECTED', message: 'late', latencyMs: 1, retryAt: null });
}

test('a cancel whose workflow cancel was lost, made while the runtime call runs: FAILED CANCELLED stays, no candidate, the version unchanged', async () => {
  const res = await postRun(stack, co.hr.auth, randomUUID(), { companyId: co.companyId, text: 'Expense refund for a taxi, 35,000 won on 2026-11-28' });
  expect(res.statusCode).toBe(202);
  const id = (res.json() as { aiRunId: string }).aiRunId;
  let afterCancel: Awaited<ReturnType<typeof rows>> | undefined;
  duringCall.set(`${id}:1`, async () => {
    const starter = { ...createTemporalAiRunStarter(stack.client, stack.config), cancel: () => Promise.reject(new Error('the cancel request was lost')) };
    const log = { warn: () => undefined };
    await cancelAiRun({ db: stack.db, config: stack.config, starter, box: inputBoxFromConfig(stack.config), log }, co.hr.userId, id);
    afterCancel = await rows(id);
  });

  const row = await stack.db.aiRun.findUniqueOrThrow({ where: { id } });
  await expect(stack.client.workflow.getHandle(row.workflowId).result()).rejects.toThrow();
  expect(afterCancel?.run).toMatchObject({ status: 'FAILED', errorCode: 'CANCELLED' });
  const end = await rows(id);
  expect(end).toEqual(afterCancel);
  expect(end.candidates).toEqual([]);
  expect(end.attempts.map((a) => [a.number, a.status, a.errorCode])).toEqual([[1, 'FAILED', 'CANCELLED']]);
  expect(calls.has(end.attempts[0]!.id)).toBe(true); // the runtime did answer
});

test('candidates decided on a SUCCEEDED run: a late repeat of its answer, failure or deadline changes no decision, Task, status or version', async () => {
  const res = await postRun(stack, co.hr.auth, randomUUID(), { companyId: co.companyId, text: 'I need an employment certificate for my visa by Friday' });
  const id = (res.json() as { aiRunId: string }).aiRunId;
  const done = await waitForRun(stack, co.hr.auth, id);
  expect(done.status).toBe('SUCCEEDED');
  expect(done.candidates.length).toBeGreaterThan(0);
  const candidate = done.candidates.find((c) => !c.blocked)!;
  const decided = await stack.app.inject({
    method: 'POST', url: `/api/v1/ai-runs/${id}/candidate-decisions`,
    headers: { ...co.hr.auth, 'if-match': aiRunEtag(id, done.version) },
    payload: { decisions: [{ candidateId: candidate.candidateId, decision: 'ADOPT' }] },
  });
  expect(decided.statusCode).toBe(200);
  const before = await rows(id);
  expect(before.tasks).toHaveLength(1);

  await lateWrites(id, before.attempts[0]!.id);
  await acts().failRun({ runId: id, code: 'DEADLINE_EXCEEDED', message: 'the run deadline passed' });
  expect(await rows(id)).toEqual(before);
});

test("a manual retry: a late answer of the attempt it replaced makes no candidate; only the new attempt's count", async () => {
  const res = await postRun(stack, co.hr.auth, randomUUID(), { companyId: co.companyId, text: '[reject] I want to take leave from next Monday for 3 days' });
  const id = (res.json() as { aiRunId: string }).aiRunId;
  expect(await waitForRun(stack, co.hr.auth, id)).toMatchObject({ status: 'FAILED', errorCode: 'RUNTIME_REJECTED' });
  const first = (await rows(id)).attempts[0]!;
  let during: Awaited<ReturnType<typeof rows>> | undefined;
  let afterLate: Awaited<ReturnType<typeof rows>> | undefined;
  duringCall.set(`${id}:2`, async (req) => {
    during = await rows(id);
    // The replaced attempt's answer arrives now (a late call of attempt 1, its requestId and all).
    const { requestId } = await stack.db.aiAttempt.findUniqueOrThrow({ where: { id: first.id } });
    const late = await real.callAiRuntime({ ...req, attemptId: first.id, requestId });
    await acts().recordAnswer({ runId: id, attemptId: first.id, requestId, text: req.text, referenceTime: req.referenceTime, call: late });
    afterLate = await rows(id);
  });
  const retry = await stack.app.inject({ method: 'POST', url: `/api/v1/ai-runs/${id}/retry`, headers: { ...co.hr.auth, 'idempotency-key': randomUUID() } });
  expect(retry.statusCode).toBe(202);
  const done = await waitForRun(stack, co.hr.auth, id);

  expect(during?.run).toMatchObject({ status: 'RUNNING', attemptCount: 2 });
  expect(during?.candidates).toEqual([]);
  expect(afterLate).toEqual(during);
  expect(done).toMatchObject({ status: 'SUCCEEDED', attemptCount: 2 });
  const end = await rows(id);
  expect(end.attempts.map((a) => [a.number, a.status, a.errorCode])).toEqual([[1, 'FAILED', 'RUNTIME_REJECTED'], [2, 'SUCCEEDED', null]]);
  expect(end.candidates.length).toBeGreaterThan(0);
  expect(new Set(end.candidates.map((c) => c.attemptId))).toEqual(new Set([end.attempts[1]!.id]));
  expect((await getRun(stack, co.hr.auth, id)).candidates).toHaveLength(end.candidates.length);
});
