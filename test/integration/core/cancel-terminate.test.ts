/**
 * An operator's `temporal workflow cancel` / `terminate` (or a run timing out) reaches the job's
 * projection promptly instead of leaving the row PROCESSING until the one-hour stale rule: a
 * cancelled job workflow records FAILED `cancelled: <reason>` itself; a terminated or timed-out
 * run (no workflow code runs) is found by the reconciler pass, which records FAILED
 * `terminated: <reason>` / `timed out: …`. Real Temporal and PostgreSQL; a slow AI provider holds
 * the CARD_ANALYSIS in its AI activity.
 */
import { randomUUID } from 'node:crypto';
import { temporal } from '@temporalio/proto';
import { TypedSearchAttributes } from '@temporalio/common';
import { ApplicationFailure, WorkflowFailedError } from '@temporalio/client';
import type { ReconcileReport } from '../../../src/activities/core/jobs';
import { jobWorkflowId, SA_JOB_TYPE, SA_TARGET_ID, SA_USER_ID, type JobWorkflowInput } from '../../../src/core/contracts';
import { PG_INDEXES } from '../../fixtures/texts';
import { slowAiProvider } from '../../support/slow-ai';
import { pollUntil } from '../../support/poll';
import { startStack, type Stack } from '../../support/stack';

// Card analyses wait 10 min (until cancelled); refinements answer at once.
const ai = slowAiProvider({ delayMs: 600_000, only: ['analyzeCard'] });
let stack: Stack;
let user: Awaited<ReturnType<Stack['newUser']>>;
beforeAll(async () => {
  stack = await startStack({ ai });
  user = await stack.newUser();
});
afterAll(async () => stack?.stop());

const STARTED = temporal.api.enums.v1.PendingActivityState.PENDING_ACTIVITY_STATE_STARTED;

/** Polls `probe` (pollUntil) until it returns a truthy value, and returns that. */
function until<T>(what: string, probe: () => Promise<T | undefined | null | false>, timeoutMs = 30_000): Promise<T> {
  return pollUntil(probe, (v): v is T => Boolean(v), { describe: what, timeoutMs });
}

/** Submits a scrap and waits until its CARD_ANALYSIS is PROCESSING inside analyzeScrap. */
async function heldAnalysis() {
  const res = await stack.app.inject({ method: 'POST', url: '/scraps', headers: user.auth, payload: { content: `${PG_INDEXES}\n\n${randomUUID()}` } });
  expect(res.statusCode).toBe(202);
  const ids = res.json() as { scrapId: string; analysisJobId: string };
  const handle = stack.client.workflow.getHandle(jobWorkflowId('CARD_ANALYSIS', ids.scrapId));
  await until('analyzeScrap running', async () =>
    ((await handle.describe()).raw.pendingActivities ?? []).some((a) => a.activityType?.name === 'analyzeScrap' && a.state === STARTED));
  expect((await stack.db.asyncJob.findUniqueOrThrow({ where: { jobId: ids.analysisJobId } })).status).toBe('PROCESSING');
  return { ...ids, handle };
}

const row = (jobId: string) => stack.db.asyncJob.findUniqueOrThrow({ where: { jobId } });
const failedRow = (jobId: string) => until(`job ${jobId} FAILED`, async () => {
  const r = await row(jobId);
  return r.status === 'FAILED' ? r : undefined;
});

/** The reconciler's report, with the count of rows failed after their run closed (fault 4). */
type Report = ReconcileReport & { closedFailed?: number };

function reconcile(): Promise<Report> {
  return stack.client.workflow.execute('reconcilePendingJobsWorkflow', {
    taskQueue: stack.queues.jobs,
    workflowId: `reconcile-test-${randomUUID()}`,
    args: [{ queues: stack.queues, graceSeconds: 30 }],
  }) as Promise<Report>;
}

it('cancel with a reason: the workflow records FAILED `cancelled: <reason>` and fails with JOB_CANCELLED', async () => {
  const { analysisJobId, scrapId, handle } = await heldAnalysis();
  await stack.client.workflowService.requestCancelWorkflowExecution({
    namespace: stack.config.temporal.namespace,
    workflowExecution: { workflowId: handle.workflowId },
    identity: 'operator@test',
    reason: 'wrong document submitted',
    requestId: randomUUID(),
  });
  const failed = await failedRow(analysisJobId);
  expect(failed.errorMessage).toBe('cancelled: wrong document submitted');
  expect(failed.finishedAt).not.toBeNull();
  const err = await handle.result().catch((e: unknown) => e);
  expect(err).toBeInstanceOf(WorkflowFailedError);
  expect(((err as WorkflowFailedError).cause as ApplicationFailure).type).toBe('JOB_CANCELLED');
  expect((await handle.describe()).status.name).toBe('FAILED');
  expect(await stack.db.knowledgeCard.count({ where: { scrapId } })).toBe(0);
});

it('cancel without a reason (`temporal workflow cancel`): FAILED `cancelled: …` naming who asked', async () => {
  const { analysisJobId, handle } = await heldAnalysis();
  await handle.cancel();
  const failed = await failedRow(analysisJobId);
  expect(failed.errorMessage).toMatch(/^cancelled: requested by \S+/);
});

it('terminate: the reconciler pass records FAILED `terminated: <reason>`; the job can be retried', async () => {
  const { analysisJobId, handle } = await heldAnalysis();
  await handle.terminate('stuck on a bad provider, operator ticket 42');
  await until('visibility shows the run Terminated', async () => {
    for await (const wf of stack.client.workflow.list({ query: `WorkflowId = '${handle.workflowId}' AND ExecutionStatus = 'Terminated'` })) return wf;
    return undefined;
  });
  expect((await row(analysisJobId)).status).toBe('PROCESSING'); // no workflow code ran

  const report = await reconcile();
  expect(report.closedFailed).toBeGreaterThanOrEqual(1);
  const failed = await row(analysisJobId);
  expect(failed).toMatchObject({ status: 'FAILED', errorMessage: 'terminated: stuck on a bad provider, operator ticket 42' });

  // A second pass changes nothing (the row is terminal now).
  const again = await reconcile();
  expect(again.closedFailed ?? 0).toBe(0);
  expect(await row(analysisJobId)).toMatchObject({ status: 'FAILED', updatedAt: failed.updatedAt });

  // SAN-6 retry rules apply as usual: the job is re-runnable.
  const retry = await stack.app.inject({ method: 'POST', url: `/async-jobs/${analysisJobId}/retry`, headers: user.auth });
  expect(retry.statusCode).toBe(202);
  await until('re-run PROCESSING', async () => (await row(analysisJobId)).status === 'PROCESSING');
  // The re-run is live: the reconciler leaves it alone although the previous run was terminated.
  await reconcile();
  expect((await row(analysisJobId)).status).toBe('PROCESSING');
  await stack.client.workflow.getHandle(handle.workflowId).terminate('test clean-up');
});

it('a run that timed out is failed by the reconciler pass with `timed out`', async () => {
  // A job workflow started with an execution timeout, as an operator might (or a future policy).
  const res = await stack.app.inject({ method: 'POST', url: '/scraps', headers: user.auth, payload: { content: `${PG_INDEXES}\n\ntimeout ${randomUUID()}` } });
  const ids = res.json() as { scrapId: string; analysisJobId: string };
  const workflowId = jobWorkflowId('CARD_ANALYSIS', ids.scrapId);
  const first = stack.client.workflow.getHandle(workflowId);
  await until('first run started', async () => (await first.describe()).status.name === 'RUNNING');
  await first.terminate('replaced by a run with a timeout');
  const job = await row(ids.analysisJobId);
  const input: JobWorkflowInput = { jobId: job.jobId, jobType: 'CARD_ANALYSIS', targetId: job.targetId, userId: job.userId, queues: stack.queues };
  await stack.client.workflow.start('cardAnalysisWorkflow', {
    workflowId,
    taskQueue: stack.queues.jobs,
    args: [input],
    workflowExecutionTimeout: '3s',
    memo: { jobId: job.jobId },
    typedSearchAttributes: new TypedSearchAttributes([
      { key: SA_JOB_TYPE, value: 'CARD_ANALYSIS' },
      { key: SA_TARGET_ID, value: job.targetId },
      { key: SA_USER_ID, value: job.userId },
    ]),
  });
  await until('visibility shows the run TimedOut', async () => {
    for await (const wf of stack.client.workflow.list({ query: `WorkflowId = '${workflowId}' AND ExecutionStatus = 'TimedOut'` })) return wf;
    return undefined;
  });
  await reconcile();
  expect(await row(ids.analysisJobId)).toMatchObject({ status: 'FAILED', errorMessage: expect.stringMatching(/^timed out: /) });
});
