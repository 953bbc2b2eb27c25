/**
 * In-memory stand-ins for the AI-runs activities, for workflow tests and history recording: a tiny
 * projection (run status, attempts) that follows the same guards as the real one, and a scripted
 * runtime that counts its calls (AR-8: one call per attempt).
 */
import { ApplicationFailure } from '@temporalio/common';
import { AI_RUN_STATES, type AiRunStatus } from '../../../src/domain/ai-runs/run-state';
import type { RuntimeFailureDetails } from '../../../src/domain/ai-runs/errors';
import type { AiRunPolicy, AiRunWorkflowInput, RuntimeCallResult } from '../../../src/domain/ai-runs/contracts';

/** What a scripted call does: answer, or fail with a catalogued runtime failure. */
export type Step = 'ok' | { fail: 'retryable' | 'terminal'; details: RuntimeFailureDetails } | { hang: true };

/** A fake run's state. */
export interface FakeRun {
  status: AiRunStatus;
  errorCode: string | null;
  attemptCount: number;
  attempts: { number: number; trigger: string; status: 'RUNNING' | 'SUCCEEDED' | 'FAILED'; errorCode: string | null }[];
  /** Writes that dropped the sealed input (releasePendingInput, or a begin with releaseInput). */
  releases: number;
}

/** The fakes of one run: the activities on each queue, the state, the runtime calls. */
export function fakeArActivities(steps: Step[]) {
  const run: FakeRun = { status: 'QUEUED', errorCode: null, attemptCount: 0, attempts: [], releases: 0 };
  const calls: number[] = [];
  const state = () => ({ status: run.status, errorCode: run.errorCode });
  const jobs = {
    releasePendingInput: async () => {
      run.releases += 1;
    },
    beginAttempt: async (a: { number: number; trigger: string; releaseInput?: boolean }) => {
      if (a.releaseInput === true) run.releases += 1;
      const existing = run.attempts.find((x) => x.number === a.number);
      if (existing) return { ...state(), proceed: existing.status === 'RUNNING' && run.status === 'RUNNING', attemptId: `att-${a.number}`, requestId: `req-${a.number}` };
      if (!AI_RUN_STATES.sourcesOf('RUNNING').includes(run.status) || run.attemptCount !== a.number - 1) return { ...state(), proceed: false, requestId: 'none' };
      run.status = 'RUNNING';
      run.attemptCount = a.number;
      run.attempts.push({ number: a.number, trigger: a.trigger, status: 'RUNNING', errorCode: null });
      return { ...state(), proceed: true, attemptId: `att-${a.number}`, requestId: `req-${a.number}` };
    },
    recordAnswer: async (a: { attemptId: string }) => {
      const att = run.attempts.find((x) => `att-${x.number}` === a.attemptId);
      if (!att || att.status !== 'RUNNING') return state();
      att.status = 'SUCCEEDED';
      if (run.status === 'RUNNING') run.status = 'SUCCEEDED';
      return state();
    },
    failAttempt: async (a: { attemptId: string; code: string; retryAt: string | null }) => {
      const att = run.attempts.find((x) => `att-${x.number}` === a.attemptId);
      if (!att || att.status !== 'RUNNING') return state();
      att.status = 'FAILED';
      att.errorCode = a.code;
      if (run.status === 'RUNNING') {
        run.status = a.retryAt ? 'RETRYING' : 'FAILED';
        run.errorCode = a.code;
      }
      return state();
    },
    failRun: async (a: { code: string }) => {
      if (AI_RUN_STATES.sourcesOf('FAILED').includes(run.status)) {
        run.status = 'FAILED';
        run.errorCode = a.code;
        for (const att of run.attempts) if (att.status === 'RUNNING') Object.assign(att, { status: 'FAILED', errorCode: a.code });
      }
      return state();
    },
  };
  const aiRuns = {
    callAiRuntime: async (req: { attempt: number }): Promise<RuntimeCallResult> => {
      calls.push(req.attempt);
      const step = steps[calls.length - 1] ?? 'ok';
      if (step === 'ok') return { answer: { fake: true }, latencyMs: 3 };
      if ('hang' in step) return new Promise<never>(() => undefined);
      const type = step.fail === 'retryable' ? 'AI_RUNTIME_RETRYABLE' : 'AI_RUNTIME_TERMINAL';
      throw ApplicationFailure.create({ message: `scripted ${step.details.code}`, type, nonRetryable: step.fail === 'terminal', details: [step.details] });
    },
  };
  /** A manual retry as the route makes it: FAILED → RETRYING (the workflow is then signalled). */
  const manualRetry = () => {
    if (run.status !== 'FAILED') throw new Error(`not FAILED: ${run.status}`);
    run.status = 'RETRYING';
    run.errorCode = null;
    return run.attemptCount + 1;
  };
  return { run, calls, jobs, aiRuns, manualRetry };
}

/** Policy of the workflow tests (times in ms). */
export const TEST_POLICY: AiRunPolicy = {
  maxAttempts: 3,
  callTimeoutMs: 60_000,
  heartbeatTimeoutMs: 30_000,
  retryInitialMs: 1_000,
  retryMaxMs: 10_000,
  retryWindowMs: 3_600_000,
};

/** A run's workflow input on `queues`, the deadline `deadlineMs` after `now`. */
export function runInput(queues: AiRunWorkflowInput['queues'], now: number, deadlineMs = 600_000, policy: AiRunPolicy = TEST_POLICY, localWrites = true): AiRunWorkflowInput {
  return {
    ...(localWrites ? { localWrites: true as const } : {}),
    runId: '88888888-8888-4888-8888-888888888888',
    companyId: '50000000-0000-4000-8000-000000000001',
    userId: '33333333-3333-4333-8333-333333333333',
    text: 'I need an employment certificate by Friday',
    locale: 'en',
    referenceTime: new Date(now).toISOString(),
    deadlineAt: new Date(now + deadlineMs).toISOString(),
    queues,
    policy,
  };
}
