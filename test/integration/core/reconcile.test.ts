import { WorkflowNotFoundError } from '@temporalio/client';
import { MockActivityEnvironment } from '@temporalio/testing';
import { DefaultLogger } from '@temporalio/worker';
import { randomUUID } from 'node:crypto';
import { createJobActivities } from '../../../src/activities/core/jobs';
import { jobRunKey, type JobStarter, type StartableJob } from '../../../src/core/starter';
import { RUN_KEY_MEMO, type StartOutcome } from '../../../src/core/workflow-start';
import { createJobStarter } from '../../../src/families';
import { jobSearchAttributes, jobWorkflowId, maintenanceTaskQueue, type JobWorkflowInput } from '../../../src/core/contracts';
import { scheduleDecl } from '../../../src/families';
import { ensureSchedules } from '../../../src/workers/schedules';
import type { ReconcileReport } from '../../../src/activities/core/jobs';
import { PG_PARTIAL, SOURDOUGH } from '../../fixtures/texts';
import { pollUntil } from '../../support/poll';
import { startStack, waitForJob, type Stack } from '../../support/stack';

/** The API process "dies" after committing the rows and before starting the workflow. */
const crashingStarter = {
  start: jest.fn(async (_job: StartableJob): Promise<StartOutcome> => {
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

type Submitted = { scrapId: string; analysisJobId: string; refineJobId: string };

/**
 * POSTs a scrap through the crashing API. Every assertion of these tests is about the rows and
 * workflows of the scraps they submit themselves: other tests of this file leave PENDING rows, and
 * a reconcile pass starts those too, so its report counts are never asserted exactly.
 */
async function submitWithCrash(content: string): Promise<Submitted> {
  const res = await stack.app.inject({ method: 'POST', url: '/scraps', headers: user.auth, payload: { content } });
  expect(res.statusCode).toBe(202); // committed rows are durable; the client may poll
  return res.json() as Submitted;
}

/** This scrap's two jobs (CARD_ANALYSIS, SCRAP_REFINE) with their workflow IDs. */
function jobsOf(ids: Submitted) {
  return [
    { jobId: ids.analysisJobId, workflowId: jobWorkflowId('CARD_ANALYSIS', ids.scrapId) },
    { jobId: ids.refineJobId, workflowId: jobWorkflowId('SCRAP_REFINE', ids.scrapId) },
  ];
}

/**
 * The API's start attempts for this scrap's jobs (the crashing starter is shared by the file), as
 * `JOB_TYPE+COMPANION_TYPE…`: a new scrap is ONE start, CARD_ANALYSIS with
 * SCRAP_REFINE as its companion; the crash leaves both rows PENDING for the reconciler.
 */
const apiStartsFor = (scrapId: string) =>
  crashingStarter.start.mock.calls
    .filter(([job]) => job.targetId === scrapId)
    .map(([job]) => [job.jobType, ...(job.companions ?? []).map((c) => c.jobType)].join('+'))
    .sort();

async function expectNoWorkflow(workflowId: string) {
  await expect(stack.client.workflow.getHandle(workflowId).describe()).rejects.toBeInstanceOf(WorkflowNotFoundError);
}

/** This scrap's two job rows, in {@link jobsOf} order. */
const rowsOf = (ids: Submitted) => Promise.all(jobsOf(ids).map((j) => stack.db.asyncJob.findUniqueOrThrow({ where: { jobId: j.jobId } })));

/**
 * Every run visibility lists under `workflowId`, once it lists at least one and all are closed
 * (visibility lags behind the server's state; `describe` below does not).
 */
async function listedRuns(workflowId: string) {
  return pollUntil(
    async () => {
      const runs: { runId: string; status: string }[] = [];
      for await (const wf of stack.client.workflow.list({ query: `WorkflowId = '${workflowId}'` })) runs.push({ runId: wf.runId, status: wf.status.name });
      return runs;
    },
    (runs) => runs.length > 0 && runs.every((r) => r.status !== 'RUNNING'),
    { describe: `visibility to list the closed runs of ${workflowId}` },
  );
}

/** The latest run of `workflowId` (describe reads it consistently; visibility lags): run ID and status. */
async function latestRun(workflowId: string) {
  const d = await stack.client.workflow.getHandle(workflowId).describe();
  return { runId: d.runId, status: d.status.name };
}

it('a job committed without its workflow is started by the reconciler, exactly once', async () => {
  const ids = await submitWithCrash(`${PG_PARTIAL} ${randomUUID()}`);
  const mine = jobsOf(ids);
  expect(apiStartsFor(ids.scrapId)).toEqual(['CARD_ANALYSIS+SCRAP_REFINE']);
  expect(await stack.db.asyncJob.count({ where: { targetId: ids.scrapId } })).toBe(2);
  expect((await rowsOf(ids)).map((j) => j.status)).toEqual(['PENDING', 'PENDING']);
  for (const j of mine) await expectNoWorkflow(j.workflowId);

  const run = () =>
    stack.client.workflow.execute('reconcilePendingJobsWorkflow', {
      taskQueue: stack.queues.jobs,
      workflowId: `reconcile-test-${ids.scrapId}-${randomUUID()}`,
      args: [{ queues: stack.queues, graceSeconds: 0 }],
    }) as Promise<ReconcileReport>;

  const first = await run();
  expect(first.started + first.alreadyRunning + first.failedToStart).toBe(first.examined);
  // The reconciler started this scrap's two workflows (the API never did) and they completed.
  for (const j of mine) expect((await waitForJob(stack, j.jobId, user.auth)).status).toBe('COMPLETED');
  const runsAfterFirst = await Promise.all(mine.map((j) => latestRun(j.workflowId)));
  expect(runsAfterFirst.map((r) => r.status)).toEqual(['COMPLETED', 'COMPLETED']);
  const rowsAfterFirst = await rowsOf(ids);

  // A second pass does not start them again: no new run under either workflow ID (a start after
  // completion would make one, the reuse policy allows it), rows and card untouched.
  await run();
  expect(await Promise.all(mine.map((j) => latestRun(j.workflowId)))).toEqual(runsAfterFirst);
  expect(await rowsOf(ids)).toEqual(rowsAfterFirst);
  expect(await stack.db.asyncJob.count({ where: { targetId: ids.scrapId } })).toBe(2);
  expect(await stack.db.knowledgeCard.count({ where: { scrapId: ids.scrapId } })).toBe(1);
  expect(apiStartsFor(ids.scrapId)).toEqual(['CARD_ANALYSIS+SCRAP_REFINE']);
  for (const [i, j] of mine.entries()) expect(await listedRuns(j.workflowId)).toEqual([runsAfterFirst[i]]);
});

it('a reconcile racing a live start does not run the job twice', async () => {
  const ids = await submitWithCrash(`${SOURDOUGH} race probe`);
  const job = await stack.db.asyncJob.findUniqueOrThrow({ where: { jobId: ids.analysisJobId } });
  const starter = createJobStarter(stack.client, stack.queues);
  const outcomes = await Promise.all([starter.start(job), starter.start(job), starter.start(job)]);
  expect(outcomes.filter((o) => o === 'started')).toHaveLength(1);
  expect((await waitForJob(stack, ids.analysisJobId, user.auth)).status).toBe('COMPLETED');
  // A late start after completion (an after-commit or companion start coming last) starts nothing:
  // one run per attempt of a job, open or closed.
  const workflowId = jobWorkflowId('CARD_ANALYSIS', ids.scrapId);
  const done = await latestRun(workflowId);
  expect(await starter.start(job)).toBe('already-running');
  expect(await latestRun(workflowId)).toEqual(done);
  expect(await stack.client.workflow.getHandle(workflowId).result()).toEqual({ jobId: ids.analysisJobId, status: 'COMPLETED' });
  expect(await listedRuns(workflowId)).toEqual([done]);
  expect(await stack.db.knowledgeCard.count({ where: { scrapId: ids.scrapId } })).toBe(1);
  expect((await stack.db.asyncJob.findUniqueOrThrow({ where: { jobId: ids.analysisJobId } })).status).toBe('COMPLETED');
});

it('the reconcile Schedule is created idempotently and can be triggered by hand', async () => {
  const ids = await submitWithCrash(`schedule probe ${Date.now()} ${PG_PARTIAL}`);
  const config = { ...stack.config, reconcile: { ...stack.config.reconcile, intervalSeconds: 3600, schedulesEnabled: true } };
  const decl = scheduleDecl('reconcile-pending-jobs');
  const [id] = await ensureSchedules(stack.client, config, [decl]);
  expect(id).toBe(`${config.temporal.taskQueuePrefix}reconcile-pending-jobs`);
  expect(await ensureSchedules(stack.client, config, [decl])).toEqual([id]);
  const handle = stack.client.schedule.getHandle(id!);
  try {
    expect((await handle.describe()).spec.intervals?.[0]?.every).toBe(3_600_000);
    await handle.trigger();
    const wfId = await pollUntil(
      async () => (await handle.describe()).info.recentActions[0]?.action.workflow.workflowId,
      (id): id is string => id !== undefined,
      { describe: 'the triggered reconcile run', timeoutMs: 20_000 },
    );
    const report = (await stack.client.workflow.getHandle(wfId).result()) as ReconcileReport;
    expect(report.started + report.alreadyRunning + report.failedToStart).toBe(report.examined);
    // Only the triggered reconcile can have started this scrap's jobs: the API's start crashed.
    for (const j of jobsOf(ids)) {
      expect((await waitForJob(stack, j.jobId, user.auth)).status).toBe('COMPLETED');
      expect((await latestRun(j.workflowId)).status).toBe('COMPLETED');
    }
    expect(apiStartsFor(ids.scrapId)).toEqual(['CARD_ANALYSIS+SCRAP_REFINE']);
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
  await pollUntil(
    async () => {
      for await (const _ of stack.client.workflow.list({ query: `WorkflowId = '${workflowId}' AND ExecutionStatus = 'Terminated'` })) return true;
      return false;
    },
    (closed) => closed,
    { describe: 'visibility to list the terminated run' },
  );
  const second = await reconcile();
  expect(second.closedFailed).toBeGreaterThanOrEqual(1);
  expect(await stack.db.asyncJob.findUniqueOrThrow({ where: { jobId: job.jobId } })).toMatchObject({
    status: 'FAILED', errorMessage: 'terminated: operator: drop this job',
  });
  expect(await runs()).toBe(1); // nothing was started for the job
});

/** Runs the reconciler's pass (the real activity, outside a worker) with `starter` as its starter. */
function reconcilePass(starter: JobStarter): Promise<ReconcileReport> {
  const { startStalePendingJobs } = createJobActivities({ db: stack.db, starter, client: stack.client });
  const env = new MockActivityEnvironment(undefined, { logger: new DefaultLogger('ERROR') });
  return env.run(startStalePendingJobs, { graceSeconds: 0, limit: 1000 });
}

it('a reconcile whose start lands after the job\'s own run completed makes no second run', async () => {
  const ids = await submitWithCrash(`${PG_PARTIAL} overtaken ${randomUUID()}`);
  const workflowId = jobWorkflowId('CARD_ANALYSIS', ids.scrapId);
  const real = createJobStarter(stack.client, stack.queues);
  // The reconciler has read the row (PENDING) and found no run; before its start reaches the
  // server, a live start (the API's, late) runs the job to completion.
  let overtaken = 0;
  const starter: JobStarter = {
    async start(job) {
      if (job.jobId === ids.analysisJobId && overtaken++ === 0) {
        expect(await real.start(job)).toBe('started');
        expect((await waitForJob(stack, job.jobId, user.auth)).status).toBe('COMPLETED');
      }
      return real.start(job);
    },
  };
  await reconcilePass(starter);
  expect(overtaken).toBe(1);
  const runs = await listedRuns(workflowId);
  expect(runs).toEqual([{ runId: expect.any(String), status: 'COMPLETED' }]);
  expect(await stack.client.workflow.getHandle(workflowId).result()).toEqual({ jobId: ids.analysisJobId, status: 'COMPLETED' });
});

it('a retry re-queued while the failed run is still closing is started by the next reconcile under the same workflow ID', async () => {
  const ids = await submitWithCrash(`${SOURDOUGH} retry while closing ${randomUUID()}`);
  const job = await stack.db.asyncJob.findUniqueOrThrow({ where: { jobId: ids.analysisJobId } });
  const workflowId = jobWorkflowId('CARD_ANALYSIS', ids.scrapId);
  // The job's first run (with the memo of the job starter) has failed the row and not closed yet
  // (as between failJob and the workflow's end).
  const input: JobWorkflowInput = { jobId: job.jobId, jobType: job.jobType, targetId: job.targetId, userId: job.userId, queues: stack.queues };
  await stack.client.workflow.start('cardAnalysisWorkflow', {
    workflowId, taskQueue: stack.queues.jobs, args: [input], startDelay: '1h',
    memo: { jobId: job.jobId, [RUN_KEY_MEMO]: jobRunKey(job) }, typedSearchAttributes: jobSearchAttributes(job),
  });
  const first = await latestRun(workflowId);
  await stack.db.asyncJob.update({ where: { jobId: job.jobId }, data: { status: 'FAILED', errorMessage: 'probe failure', finishedAt: new Date() } });
  const retry = await stack.app.inject({ method: 'POST', url: `/async-jobs/${job.jobId}/retry`, headers: user.auth });
  expect(retry.statusCode).toBe(202);
  expect((await stack.db.asyncJob.findUniqueOrThrow({ where: { jobId: job.jobId } })).status).toBe('PENDING');
  await stack.client.workflow.getHandle(workflowId, first.runId).terminate('the failed run closes');

  await reconcilePass(createJobStarter(stack.client, stack.queues));
  expect((await latestRun(workflowId)).runId).not.toBe(first.runId);
  expect((await waitForJob(stack, job.jobId, user.auth)).status).toBe('COMPLETED');
  expect((await latestRun(workflowId)).status).toBe('COMPLETED');
  expect((await stack.db.asyncJob.findUniqueOrThrow({ where: { jobId: job.jobId } })).retryCount).toBe(1);
});
