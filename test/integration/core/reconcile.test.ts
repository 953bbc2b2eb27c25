import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { WorkflowNotFoundError } from '@temporalio/client';
import { createJobStarter } from '../../../src/families';
import { jobSearchAttributes, jobWorkflowId, maintenanceTaskQueue, type JobWorkflowInput } from '../../../src/core/contracts';
import { ensureReconcileSchedule } from '../../../src/workers/schedules';
import type { ReconcileReport } from '../../../src/activities/core/jobs';
import { PG_PARTIAL, SOURDOUGH } from '../../fixtures/texts';
import { startStack, waitForJob, type Stack } from '../../support/stack';

/** The API process "dies" after committing the rows and before starting the workflow. */
const crashingStarter = {
  start: jest.fn(async () => {
    throw new Error('simulated crash: process died before client.workflow.start');
  }),
};

let stack: Stack;
let user: Awaited<ReturnType<Stack['newUser']>>;
beforeAll(async () => {
  stack = await startStack({ apiStarter: crashingStarter, env: { RECONCILE_GRACE_SECONDS: '0' } });
  user = await stack.newUser();
});
afterAll(async () => stack?.stop());

async function submitWithCrash(content: string) {
  const res = await stack.app.inject({ method: 'POST', url: '/scraps', headers: user.auth, payload: { content } });
  expect(res.statusCode).toBe(202); // committed rows are durable; the client may poll
  return res.json() as { scrapId: string; analysisJobId: string; refineJobId: string };
}

async function expectNoWorkflow(workflowId: string) {
  await expect(stack.client.workflow.getHandle(workflowId).describe()).rejects.toBeInstanceOf(WorkflowNotFoundError);
}

it('a job committed without its workflow is started by the reconciler, exactly once', async () => {
  const ids = await submitWithCrash(PG_PARTIAL);
  expect(crashingStarter.start).toHaveBeenCalledTimes(2);
  const jobs = await stack.db.asyncJob.findMany({ where: { targetId: ids.scrapId } });
  expect(jobs.map((j) => j.status)).toEqual(['PENDING', 'PENDING']);
  await expectNoWorkflow(jobWorkflowId('CARD_ANALYSIS', ids.scrapId));

  const run = () =>
    stack.client.workflow.execute('reconcilePendingJobsWorkflow', {
      taskQueue: stack.queues.jobs,
      workflowId: `reconcile-test-${ids.scrapId}-${Date.now()}`,
      args: [{ queues: stack.queues, graceSeconds: 0 }],
    }) as Promise<ReconcileReport>;

  const first = await run();
  expect(first).toMatchObject({ examined: 2, started: 2, failedToStart: 0 });
  expect((await waitForJob(stack, ids.analysisJobId, user.auth)).status).toBe('COMPLETED');
  expect((await waitForJob(stack, ids.refineJobId, user.auth)).status).toBe('COMPLETED');

  const second = await run();
  expect(second).toMatchObject({ examined: 0, started: 0 });
  expect(await stack.db.knowledgeCard.count({ where: { scrapId: ids.scrapId } })).toBe(1);
  const runs = [];
  for await (const wf of stack.client.workflow.list({ query: `WorkflowId = '${jobWorkflowId('CARD_ANALYSIS', ids.scrapId)}'` })) runs.push(wf);
  expect(runs).toHaveLength(1);
});

it('a reconcile racing a live start does not run the job twice', async () => {
  const ids = await submitWithCrash(`${SOURDOUGH} race probe`);
  const job = await stack.db.asyncJob.findUniqueOrThrow({ where: { jobId: ids.analysisJobId } });
  const starter = createJobStarter(stack.client, stack.queues);
  const outcomes = await Promise.all([starter.start(job), starter.start(job), starter.start(job)]);
  expect(outcomes.filter((o) => o === 'started')).toHaveLength(1);
  expect((await waitForJob(stack, ids.analysisJobId, user.auth)).status).toBe('COMPLETED');
  // A late start after completion runs a new execution that sees the terminal row and skips.
  expect(await starter.start(job)).toBe('started');
  const late = await stack.client.workflow.getHandle(jobWorkflowId('CARD_ANALYSIS', ids.scrapId)).result();
  expect(late).toEqual({ jobId: ids.analysisJobId, status: 'SKIPPED' });
  expect(await stack.db.knowledgeCard.count({ where: { scrapId: ids.scrapId } })).toBe(1);
  expect((await stack.db.asyncJob.findUniqueOrThrow({ where: { jobId: ids.analysisJobId } })).status).toBe('COMPLETED');
});

it('the reconcile Schedule is created idempotently and can be triggered by hand', async () => {
  const ids = await submitWithCrash(`schedule probe ${Date.now()} ${PG_PARTIAL}`);
  const config = { ...stack.config, reconcile: { ...stack.config.reconcile, intervalSeconds: 3600 } };
  const id = await ensureReconcileSchedule(stack.client, config, stack.queues);
  expect(await ensureReconcileSchedule(stack.client, config, stack.queues)).toBe(id);
  const handle = stack.client.schedule.getHandle(id);
  try {
    expect((await handle.describe()).spec.intervals?.[0]?.every).toBe(3_600_000);
    await handle.trigger();
    const deadline = Date.now() + 20_000;
    let wfId: string | undefined;
    while (!wfId && Date.now() < deadline) {
      const d = await handle.describe();
      wfId = d.info.recentActions[0]?.action.workflow.workflowId;
    }
    expect(wfId).toBeDefined();
    const report = (await stack.client.workflow.getHandle(wfId!).result()) as ReconcileReport;
    expect(report.started).toBeGreaterThanOrEqual(2);
    expect((await waitForJob(stack, ids.analysisJobId, user.auth)).status).toBe('COMPLETED');
  } finally {
    await handle.delete();
  }
});

it('under a backlog the reconciler never starts a second run: an open run is left alone, a terminated one fails the row', async () => {
  const ids = await submitWithCrash(`${PG_PARTIAL} backlog probe ${Date.now()}`);
  const job = await stack.db.asyncJob.findUniqueOrThrow({ where: { jobId: ids.analysisJobId } });
  const workflowId = jobWorkflowId('CARD_ANALYSIS', ids.scrapId);
  // The job's run exists but has not run yet (as when it waits behind a backlog): a delayed start.
  const input: JobWorkflowInput = { jobId: job.jobId, jobType: job.jobType, targetId: job.targetId, userId: job.userId, queues: stack.queues };
  await stack.client.workflow.start('cardAnalysisWorkflow', {
    workflowId, taskQueue: stack.queues.jobs, args: [input], startDelay: '1h',
    memo: { jobId: job.jobId }, typedSearchAttributes: jobSearchAttributes(job),
  });
  const runs = async () => {
    let n = 0;
    for await (const _ of stack.client.workflow.list({ query: `WorkflowId = '${workflowId}'` })) n += 1;
    return n;
  };
  const reconcile = () =>
    stack.client.workflow.execute('reconcilePendingJobsWorkflow', {
      taskQueue: maintenanceTaskQueue(stack.config.temporal.taskQueuePrefix),
      workflowId: `reconcile-test-backlog-${randomUUID()}`,
      args: [{ queues: stack.queues, graceSeconds: 0 }],
    }) as Promise<ReconcileReport>;

  const first = await reconcile();
  expect(first.alreadyRunning).toBeGreaterThanOrEqual(1);
  expect((await stack.db.asyncJob.findUniqueOrThrow({ where: { jobId: job.jobId } })).status).toBe('PENDING');
  expect(await runs()).toBe(1);

  await stack.client.workflow.getHandle(workflowId).terminate('operator: drop this job');
  const deadline = Date.now() + 20_000;
  for (;;) { // visibility is eventually consistent
    let closed = false;
    for await (const _ of stack.client.workflow.list({ query: `WorkflowId = '${workflowId}' AND ExecutionStatus = 'Terminated'` })) closed = true;
    if (closed || Date.now() > deadline) break;
    await sleep(200);
  }
  const second = await reconcile();
  expect(second.closedFailed).toBeGreaterThanOrEqual(1);
  expect(await stack.db.asyncJob.findUniqueOrThrow({ where: { jobId: job.jobId } })).toMatchObject({
    status: 'FAILED', errorMessage: 'terminated: operator: drop this job',
  });
  expect(await runs()).toBe(1); // nothing was started for the job
});
