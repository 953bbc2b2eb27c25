/**
 * SAN-6 recovery on the real dev server and PostgreSQL: each recovery workflow runs directly on
 * seeded inconsistencies, its report and the repaired state are checked, and a second run changes
 * nothing. Also the schedules and `POST /async-jobs/{jobId}/retry`.
 */
import { randomUUID } from 'node:crypto';
import type { AsyncJob } from '@prisma/client';
import type { RecoveryItem, RecoveryReport } from '../../../src/activities/core/recovery';
import { contentHash } from '../../../src/domain/scraps/scrap';
import { requeueFailedJob } from '../../../src/core/retry';
import { TARGET_HOOKS } from '../../../src/families';
import { jobWorkflowId, type JobStatus, type JobType } from '../../../src/core/contracts';
import { WorkflowNotFoundError } from '@temporalio/client';
import { createJobStarter } from '../../../src/families';
import { schedulesOn } from '../../../src/families';
import { ensureSchedules } from '../../../src/workers/schedules';
import type { RecoveryInput } from '../../../src/workflows/core/recovery';
import { PG_INDEXES, PG_PARTIAL, SOURDOUGH } from '../../fixtures/texts';
import { pollUntil } from '../../support/poll';
import { startStack, waitForJob, type Stack } from '../../support/stack';

let stack: Stack;
let user: Awaited<ReturnType<Stack['newUser']>>;
beforeAll(async () => {
  stack = await startStack();
  user = await stack.newUser();
});
afterAll(async () => stack?.stop());
// Tests that stop the shared AI worker may fail before they restart it; the next test gets it back.
afterEach(async () => stack?.startAiWorker());

const MINUTE = 60_000;

function input(overrides: Partial<RecoveryInput> = {}): RecoveryInput {
  // The production defaults (30 min, 60 min, 3 re-runs); rows are back-dated instead.
  return { queues: stack.queues, pendingStaleMinutes: 30, processingStaleMinutes: 60, maxRetries: 3, batchSize: 100, ...overrides };
}

function run(workflowType: string, args: unknown = input()): Promise<RecoveryReport> {
  return stack.client.workflow.execute(workflowType, {
    taskQueue: stack.queues.jobs,
    workflowId: `recovery-test-${workflowType}-${randomUUID()}`,
    args: [args],
  }) as Promise<RecoveryReport>;
}

const itemFor = (report: RecoveryReport, jobIdOrTarget: string): RecoveryItem | undefined =>
  report.items.find((i) => i.jobId === jobIdOrTarget || i.targetId === jobIdOrTarget);

/** A scrap of `user` with no jobs at all (as if its enqueue had been lost). */
async function seedScrap(content: string, userId = user.userId) {
  const text = `${content}\n\n(${randomUUID()})`;
  return stack.db.scrap.create({ data: { userId, content: text, contentHash: contentHash(text) } });
}

/** A job row in any state, optionally back-dated; no workflow is started. */
async function seedJob(
  targetId: string,
  jobType: JobType,
  status: JobStatus,
  opts: { retryCount?: number; ageMinutes?: number; userId?: string; createdAt?: Date } = {},
): Promise<AsyncJob> {
  const at = new Date(Date.now() - (opts.ageMinutes ?? 0) * MINUTE);
  return stack.db.asyncJob.create({
    data: {
      jobType, targetId, status, userId: opts.userId ?? user.userId, retryCount: opts.retryCount ?? 0,
      createdAt: opts.createdAt ?? at, updatedAt: at,
      startedAt: status === 'PENDING' ? null : at,
      finishedAt: status === 'FAILED' || status === 'COMPLETED' ? at : null,
      errorMessage: status === 'FAILED' ? 'ApplicationFailure[AI_TIMEOUT]: seeded failure' : null,
    },
  });
}

async function backdate(jobId: string, minutes: number) {
  const at = new Date(Date.now() - minutes * MINUTE);
  await stack.db.asyncJob.update({ where: { jobId }, data: { updatedAt: at, startedAt: at } });
}

const job = (jobId: string) => stack.db.asyncJob.findUniqueOrThrow({ where: { jobId } });

/**
 * A new scrap's SCRAP_REFINE starts when its analysis is over (companionsAfterWork):
 * while the analysis hangs, the refine row is PENDING with no workflow. Starts it as the SAN-4
 * reconciler does with such a row past its grace, and waits until it too is PROCESSING.
 */
async function startStalledRefine(ids: { scrapId: string; refineJobId: string }) {
  const refine = await job(ids.refineJobId);
  expect(refine.status).toBe('PENDING');
  await expect(stack.client.workflow.getHandle(jobWorkflowId('SCRAP_REFINE', ids.scrapId)).describe()).rejects.toBeInstanceOf(WorkflowNotFoundError);
  expect(await createJobStarter(stack.client, stack.queues).start(refine)).toBe('started');
  await pollUntil(() => job(ids.refineJobId), (row) => row.status === 'PROCESSING', { describe: 'refine PROCESSING' });
}

describe('rule 1: stale PENDING / PROCESSING compared with Temporal', () => {
  it('a PENDING row with no workflow past 30 min is failed, re-enqueued and completes; a fresh one is left alone', async () => {
    const old = await seedScrap(PG_PARTIAL);
    const fresh = await seedScrap(PG_PARTIAL);
    const stale = await seedJob(old.id, 'CARD_ANALYSIS', 'PENDING', { ageMinutes: 31 });
    const young = await seedJob(fresh.id, 'CARD_ANALYSIS', 'PENDING', { ageMinutes: 29 });

    const report = await run('recoverStaleJobsWorkflow');
    expect(itemFor(report, stale.jobId)).toMatchObject({
      actions: ['marked-failed', 'requeued', 'started'],
      detail: 'PENDING → recovered: workflow not found',
      workflowId: jobWorkflowId('CARD_ANALYSIS', old.id),
    });
    expect(itemFor(report, young.jobId)).toBeUndefined();
    expect(report.counts['marked-failed']).toBeGreaterThanOrEqual(1);

    expect((await waitForJob(stack, stale.jobId, user.auth)).status).toBe('COMPLETED');
    expect(await job(stale.jobId)).toMatchObject({ status: 'COMPLETED', retryCount: 1 });
    expect(await stack.db.knowledgeCard.count({ where: { scrapId: old.id } })).toBe(1);
    expect((await job(young.jobId)).status).toBe('PENDING');

    const again = await run('recoverStaleJobsWorkflow');
    expect(itemFor(again, stale.jobId)).toBeUndefined();
    expect(await job(stale.jobId)).toMatchObject({ status: 'COMPLETED', retryCount: 1 });
  });

  it('PROCESSING past 60 min: a terminated workflow is failed and re-run, a running one is left alone', async () => {
    await stack.stopAiWorker(); // both jobs hang in their AI activity, PROCESSING
    const res = await stack.app.inject({ method: 'POST', url: '/scraps', headers: user.auth, payload: { content: `${PG_INDEXES} ${randomUUID()}` } });
    const ids = res.json() as { scrapId: string; analysisJobId: string; refineJobId: string };
    await pollUntil(() => job(ids.analysisJobId), (row) => row.status === 'PROCESSING', { describe: 'analysis PROCESSING' });
    await startStalledRefine(ids);
    await pollUntil(() => stack.db.asyncJob.findMany({ where: { targetId: ids.scrapId } }), (rows) => rows.length === 2 && rows.every((r) => r.status === 'PROCESSING'), {
      describe: 'both jobs PROCESSING',
    });
    const analysisWf = stack.client.workflow.getHandle(jobWorkflowId('CARD_ANALYSIS', ids.scrapId));
    await analysisWf.terminate('simulated: workflow killed by an operator');
    await backdate(ids.analysisJobId, 61);
    await backdate(ids.refineJobId, 61);

    const report = await run('recoverStaleJobsWorkflow');
    expect(itemFor(report, ids.analysisJobId)).toMatchObject({
      actions: ['marked-failed', 'requeued', 'started'],
      detail: 'PROCESSING → recovered: workflow TERMINATED',
    });
    expect(itemFor(report, ids.refineJobId)).toMatchObject({ actions: ['left-running'] });
    const requeued = await job(ids.analysisJobId); // re-run started: PENDING, or PROCESSING waiting for AI
    expect(requeued.retryCount).toBe(1);
    expect(['PENDING', 'PROCESSING']).toContain(requeued.status);
    expect((await job(ids.refineJobId)).status).toBe('PROCESSING');

    await stack.startAiWorker();
    expect((await waitForJob(stack, ids.analysisJobId, user.auth)).status).toBe('COMPLETED');
    expect((await waitForJob(stack, ids.refineJobId, user.auth)).status).toBe('COMPLETED');
    expect(await stack.db.knowledgeCard.count({ where: { scrapId: ids.scrapId } })).toBe(1);
    expect((await job(ids.refineJobId)).retryCount).toBe(0);
  });

  it('reverse case: a running job workflow whose row is terminal is terminated and reported', async () => {
    await stack.stopAiWorker();
    const res = await stack.app.inject({ method: 'POST', url: '/scraps', headers: user.auth, payload: { content: `${SOURDOUGH} ${randomUUID()}` } });
    const ids = res.json() as { scrapId: string; analysisJobId: string; refineJobId: string };
    await pollUntil(() => job(ids.analysisJobId), (row) => row.status === 'PROCESSING', { describe: 'analysis PROCESSING' });
    await startStalledRefine(ids);
    // The row was closed behind the workflow's back (e.g. a manual fix in the database).
    await stack.db.asyncJob.update({ where: { jobId: ids.analysisJobId }, data: { status: 'COMPLETED', finishedAt: new Date() } });
    const wf = stack.client.workflow.getHandle(jobWorkflowId('CARD_ANALYSIS', ids.scrapId));
    const runId = (await wf.describe()).runId;
    await pollUntil(
      async () => {
        for await (const w of stack.client.workflow.list({ query: `WorkflowId = '${wf.workflowId}' AND ExecutionStatus = 'Running'` })) return w;
        return undefined;
      },
      (w) => w !== undefined,
      { describe: 'visibility to list the running workflow' },
    );

    // processingStaleMinutes 0: a start time cannot be back-dated, so the age bound is lowered.
    const report = await run('recoverStaleJobsWorkflow', input({ processingStaleMinutes: 0 }));
    const orphan = report.items.find((i) => i.workflowId === wf.workflowId && i.actions.includes('terminated'));
    expect(orphan).toMatchObject({ jobId: ids.analysisJobId, jobType: 'CARD_ANALYSIS', targetId: ids.scrapId, detail: `recovery: job ${ids.analysisJobId} row COMPLETED` });
    const d = await stack.client.workflow.getHandle(wf.workflowId, runId).describe();
    expect(d.status.name).toBe('TERMINATED');
    // The refine job's workflow is running and its row is PROCESSING: consistent, left alone.
    expect(itemFor(report, ids.refineJobId)).toMatchObject({ actions: ['left-running'] });
    expect((await job(ids.analysisJobId)).status).toBe('COMPLETED');

    await stack.startAiWorker();
    expect((await waitForJob(stack, ids.refineJobId, user.auth)).status).toBe('COMPLETED');
  });
});

describe('rule 2: FAILED jobs re-run at most 3 times in all', () => {
  it('retry_count 0 is re-enqueued and completes; retry_count 3 stays FAILED; an older superseded failure is ignored', async () => {
    const a = await seedScrap(PG_PARTIAL);
    const b = await seedScrap(SOURDOUGH);
    const c = await seedScrap(PG_INDEXES);
    const retryable = await seedJob(a.id, 'SCRAP_REFINE', 'FAILED', { retryCount: 0 });
    const exhausted = await seedJob(b.id, 'SCRAP_REFINE', 'FAILED', { retryCount: 3 });
    const superseded = await seedJob(c.id, 'SCRAP_REFINE', 'FAILED', { createdAt: new Date(Date.now() - 10 * MINUTE) });
    const newer = await seedJob(c.id, 'SCRAP_REFINE', 'COMPLETED');

    const report = await run('retryFailedJobsWorkflow');
    expect(itemFor(report, retryable.jobId)).toMatchObject({ actions: ['requeued', 'started'], detail: 'retry 1 of 3' });
    expect(itemFor(report, exhausted.jobId)).toMatchObject({ actions: ['limit-reached'], detail: 'retry_count 3 of 3' });
    expect(itemFor(report, superseded.jobId)).toBeUndefined();

    expect((await waitForJob(stack, retryable.jobId, user.auth)).status).toBe('COMPLETED');
    expect(await job(retryable.jobId)).toMatchObject({ status: 'COMPLETED', retryCount: 1, errorMessage: null });
    expect(await job(exhausted.jobId)).toMatchObject({ status: 'FAILED', retryCount: 3 });
    expect(await job(superseded.jobId)).toMatchObject({ status: 'FAILED', retryCount: 0 });
    expect((await job(newer.jobId)).status).toBe('COMPLETED');
    expect((await stack.db.scrap.findUniqueOrThrow({ where: { id: a.id } })).refinedAt).not.toBeNull();

    const again = await run('retryFailedJobsWorkflow');
    expect(itemFor(again, retryable.jobId)).toBeUndefined();
    expect(itemFor(again, exhausted.jobId)).toMatchObject({ actions: ['limit-reached'] });
    expect(await job(exhausted.jobId)).toMatchObject({ status: 'FAILED', retryCount: 3 });
  });

  it('a job that keeps failing is re-run exactly 3 times, then left FAILED', async () => {
    const s = await seedScrap(PG_PARTIAL);
    const failing = await seedJob(s.id, 'CARD_ANALYSIS', 'FAILED');
    await stack.db.scrap.delete({ where: { id: s.id } }); // every re-run fails: SCRAP_NOT_FOUND
    for (let i = 1; i <= 3; i += 1) {
      const r = await run('retryFailedJobsWorkflow');
      expect(itemFor(r, failing.jobId)?.actions).toEqual(['requeued', 'started']);
      expect(await waitForJob(stack, failing.jobId, user.auth)).toMatchObject({ status: 'FAILED', errorMessage: expect.stringContaining('SCRAP_NOT_FOUND') });
    }
    const last = await run('retryFailedJobsWorkflow');
    expect(itemFor(last, failing.jobId)?.actions).toEqual(['limit-reached']);
    expect(await job(failing.jobId)).toMatchObject({ status: 'FAILED', retryCount: 3 });
  });
});

describe('rules 3 and 4: scraps without a card or never refined', () => {
  it('orphan scraps get CARD_ANALYSIS and SCRAP_REFINE; a scrap whose analysis FAILED is left to rule 2', async () => {
    const orphan = await seedScrap(PG_INDEXES);
    const failedOne = await seedScrap(SOURDOUGH);
    const failedJob = await seedJob(failedOne.id, 'CARD_ANALYSIS', 'FAILED', { retryCount: 3 });

    const cards = await run('recoverMissingCardsWorkflow');
    const refines = await run('recoverUnrefinedScrapsWorkflow');
    const analysis = itemFor(cards, orphan.id);
    const refine = itemFor(refines, orphan.id);
    expect(analysis).toMatchObject({ jobType: 'CARD_ANALYSIS', actions: ['enqueued', 'started'] });
    expect(refine).toMatchObject({ jobType: 'SCRAP_REFINE', actions: ['enqueued', 'started'] });
    expect(itemFor(cards, failedOne.id)).toBeUndefined();

    expect((await waitForJob(stack, analysis!.jobId!, user.auth)).status).toBe('COMPLETED');
    expect((await waitForJob(stack, refine!.jobId!, user.auth)).status).toBe('COMPLETED');
    expect(await stack.db.knowledgeCard.count({ where: { scrapId: orphan.id } })).toBe(1);
    expect((await stack.db.scrap.findUniqueOrThrow({ where: { id: orphan.id } })).refinedAt).not.toBeNull();
    expect(await job(failedJob.jobId)).toMatchObject({ status: 'FAILED', retryCount: 3 });

    const [cards2, refines2] = [await run('recoverMissingCardsWorkflow'), await run('recoverUnrefinedScrapsWorkflow')];
    expect(itemFor(cards2, orphan.id)).toBeUndefined();
    expect(itemFor(refines2, orphan.id)).toBeUndefined();
    expect(await stack.db.asyncJob.count({ where: { targetId: orphan.id } })).toBe(2);
  });

  it('two recoveries at once enqueue one job per scrap (SAN-2)', async () => {
    const orphan = await seedScrap(PG_PARTIAL);
    const [r1, r2] = await Promise.all([run('recoverMissingCardsWorkflow'), run('recoverMissingCardsWorkflow')]);
    const actions = [itemFor(r1, orphan.id)?.actions, itemFor(r2, orphan.id)?.actions].filter(Boolean);
    expect(actions.flat().filter((a) => a === 'enqueued')).toHaveLength(1);
    expect(await stack.db.asyncJob.count({ where: { targetId: orphan.id, jobType: 'CARD_ANALYSIS' } })).toBe(1);
    const only = await stack.db.asyncJob.findFirstOrThrow({ where: { targetId: orphan.id, jobType: 'CARD_ANALYSIS' } });
    expect((await waitForJob(stack, only.jobId, user.auth)).status).toBe('COMPLETED');
  });
});

describe('POST /async-jobs/{jobId}/retry', () => {
  const retry = (jobId: string, headers: Record<string, string> = user.auth) =>
    stack.app.inject({ method: 'POST', url: `/async-jobs/${jobId}/retry`, headers });

  it('re-enqueues a FAILED job: 202 with Location, counts toward the limit, then completes', async () => {
    const s = await seedScrap(PG_PARTIAL);
    const failed = await seedJob(s.id, 'CARD_ANALYSIS', 'FAILED', { retryCount: 2 });
    const res = await retry(failed.jobId);
    expect(res.statusCode).toBe(202);
    expect(res.headers.location).toBe(`/async-jobs/${failed.jobId}`);
    expect(res.json()).toEqual({ jobId: failed.jobId, jobType: 'CARD_ANALYSIS', targetId: s.id, status: 'PENDING', retryCount: 3, maxRetries: 3 });
    expect((await waitForJob(stack, failed.jobId, user.auth)).status).toBe('COMPLETED');

    const done = await retry(failed.jobId);
    expect(done.statusCode).toBe(409);
    expect(done.json()).toMatchObject({ code: 'JOB_NOT_RETRYABLE', detail: expect.stringContaining('COMPLETED') });
  });

  it('409 RETRY_LIMIT_REACHED at 3 re-runs; 409 JOB_NOT_RETRYABLE when a newer job of the target exists', async () => {
    const s = await seedScrap(SOURDOUGH);
    const limit = await seedJob(s.id, 'SCRAP_REFINE', 'FAILED', { retryCount: 3 });
    const res = await retry(limit.jobId);
    expect(res.statusCode).toBe(409);
    expect(res.json()).toMatchObject({ code: 'RETRY_LIMIT_REACHED', type: 'urn:problem:retry-limit-reached' });
    expect(await job(limit.jobId)).toMatchObject({ status: 'FAILED', retryCount: 3 });

    const t = await seedScrap(PG_INDEXES);
    const old = await seedJob(t.id, 'SCRAP_REFINE', 'FAILED', { createdAt: new Date(Date.now() - MINUTE) });
    const active = await seedJob(t.id, 'SCRAP_REFINE', 'PENDING');
    const blocked = await retry(old.jobId);
    expect(blocked.statusCode).toBe(409);
    expect(blocked.json()).toMatchObject({ code: 'JOB_NOT_RETRYABLE', detail: expect.stringContaining(active.jobId) });
    expect((await job(old.jobId)).status).toBe('FAILED');
  });

  it('concurrent retries of one job re-enqueue it once', async () => {
    const s = await seedScrap(PG_INDEXES);
    const failed = await seedJob(s.id, 'SCRAP_REFINE', 'FAILED');
    const answers = await Promise.all(Array.from({ length: 5 }, () => retry(failed.jobId)));
    expect(answers.map((a) => a.statusCode).sort()).toEqual([202, 409, 409, 409, 409]);
    expect((await waitForJob(stack, failed.jobId, user.auth)).status).toBe('COMPLETED');
    expect((await job(failed.jobId)).retryCount).toBe(1);
  });

  it('404 for another user\'s or an unknown job, 401 without a token, 400 for a bad id', async () => {
    const other = await stack.newUser();
    const s = await seedScrap(PG_PARTIAL, other.userId);
    const theirs = await seedJob(s.id, 'SCRAP_REFINE', 'FAILED', { userId: other.userId });
    expect((await retry(theirs.jobId)).statusCode).toBe(404);
    expect((await retry(randomUUID())).statusCode).toBe(404);
    expect((await retry(theirs.jobId, {})).statusCode).toBe(401);
    expect((await retry('nope')).statusCode).toBe(400);
    expect(await job(theirs.jobId)).toMatchObject({ status: 'FAILED', retryCount: 0 });
  });
});

describe('targets with a status of their own', () => {
  async function seedCommit(status: JobStatus) {
    return stack.db.tilGithubCommit.create({
      data: {
        userId: user.userId, summaryId: randomUUID(), contentHash: contentHash(randomUUID()), repoOwner: 'octo', repoName: 'til',
        branch: 'main', filePath: `til/${randomUUID()}.md`, status,
      },
    });
  }

  it('a recall-quiz generation follows its job back to PENDING on re-enqueue (DC-3 mirror)', async () => {
    const g = await stack.db.recallQuizGeneration.create({
      data: { userId: user.userId, targetDate: new Date('2026-11-01T00:00:00Z'), quizTypes: ['OX'], status: 'FAILED' },
    });
    const failed = await seedJob(g.id, 'RECALL_QUIZ_GENERATION', 'FAILED');
    const r = await requeueFailedJob(stack.db, failed.jobId, 3, TARGET_HOOKS);
    expect(r.outcome).toBe('requeued');
    expect((await stack.db.recallQuizGeneration.findUniqueOrThrow({ where: { id: g.id } })).status).toBe('PENDING');
  });

  it('a TIL_GITHUB_COMMIT whose commit row is FAILED is not re-run: 409 and `target-closed`', async () => {
    const commit = await seedCommit('FAILED');
    const failed = await seedJob(commit.id, 'TIL_GITHUB_COMMIT', 'FAILED');
    const res = await stack.app.inject({ method: 'POST', url: `/async-jobs/${failed.jobId}/retry`, headers: user.auth });
    expect(res.statusCode).toBe(409);
    expect(res.json()).toMatchObject({ code: 'JOB_NOT_RETRYABLE', detail: expect.stringContaining('github-commits') });
    const report = await run('retryFailedJobsWorkflow');
    expect(itemFor(report, failed.jobId)?.actions).toEqual(['target-closed']);
    expect(await job(failed.jobId)).toMatchObject({ status: 'FAILED', retryCount: 0 });
  });

  it('a stale TIL_GITHUB_COMMIT at the retry limit fails its live commit row too', async () => {
    const commit = await seedCommit('PROCESSING');
    const stale = await seedJob(commit.id, 'TIL_GITHUB_COMMIT', 'PROCESSING', { ageMinutes: 61, retryCount: 3 });
    const report = await run('recoverStaleJobsWorkflow');
    expect(itemFor(report, stale.jobId)?.actions).toEqual(['marked-failed', 'limit-reached']);
    expect(await stack.db.tilGithubCommit.findUniqueOrThrow({ where: { id: commit.id } }))
      .toMatchObject({ status: 'FAILED', errorMessage: 'recovered: workflow not found' });
  });
});

it('retryJobWorkflow (the CLI path) applies the same rule and limit', async () => {
  const s = await seedScrap(SOURDOUGH);
  const failed = await seedJob(s.id, 'SCRAP_REFINE', 'FAILED', { retryCount: 1 });
  const report = await run('retryJobWorkflow', { jobId: failed.jobId });
  expect(report.items).toEqual([expect.objectContaining({ jobId: failed.jobId, actions: ['requeued', 'started'], detail: 'retry_count 2 of 3' })]);
  expect((await waitForJob(stack, failed.jobId, user.auth)).status).toBe('COMPLETED');
  const second = await run('retryJobWorkflow', { jobId: failed.jobId });
  expect(second.items[0]?.actions).toEqual(['not-failed']);
});

it('the four recovery Schedules are created idempotently with the configured interval and can be triggered', async () => {
  const config = { ...stack.config, reconcile: { ...stack.config.reconcile, schedulesEnabled: true } };
  // SAN-6 the recovery rules: every Schedule on the `jobs` queue, the core's first.
  const recovery = schedulesOn(['jobs']);
  expect(recovery.map((s) => s.name)).toEqual(['recovery-stale-jobs', 'recovery-failed-jobs', 'recovery-missing-cards', 'recovery-unrefined-scraps']);
  const ids = await ensureSchedules(stack.client, config, recovery);
  try {
    expect(await ensureSchedules(stack.client, config, recovery)).toEqual(ids);
    expect(ids).toEqual(recovery.map((s) => `${stack.config.temporal.taskQueuePrefix}${s.name}`));
    for (const id of ids) {
      const d = await stack.client.schedule.getHandle(id).describe();
      expect(d.spec.intervals?.[0]?.every).toBe(120 * MINUTE);
      expect(d.action).toMatchObject({ type: 'startWorkflow', taskQueue: stack.queues.jobs });
      expect(d.action.args?.[0]).toMatchObject({ pendingStaleMinutes: 30, processingStaleMinutes: 60, maxRetries: 3, batchSize: 100 });
    }
    const orphan = await seedScrap(PG_INDEXES);
    const handle = stack.client.schedule.getHandle(ids[2]!); // recovery-missing-cards
    await handle.trigger();
    const wfId = await pollUntil(
      async () => (await handle.describe()).info.recentActions[0]?.action.workflow.workflowId,
      (id): id is string => id !== undefined,
      { describe: 'the triggered recovery run' },
    );
    const report = (await stack.client.workflow.getHandle(wfId).result()) as RecoveryReport;
    expect(report.rule).toBe('missing-cards');
    expect(itemFor(report, orphan.id)?.actions).toEqual(['enqueued', 'started']);
  } finally {
    await Promise.all(ids.map((id) => stack.client.schedule.getHandle(id).delete()));
  }
});
