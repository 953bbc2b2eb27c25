import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { ActivityFailure, ApplicationFailure, TimeoutFailure, WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure as CommonFailure } from '@temporalio/common';
import { jobWorkflowId, type JobType } from '../../../src/core/contracts';
import { blockUntilCancelled, bundle, createTimeSkippingEnv, runJobWorkflow, scheduledActivities, startedActivities } from '../harness';
import { ANALYSIS, fakeActivities, type FakeActivities, retryableAiFailure } from '../fakes';

let env: TestWorkflowEnvironment;
let workflowBundle: WorkflowBundleWithSourceMap;
beforeAll(async () => {
  env = await createTimeSkippingEnv();
  workflowBundle = await bundle();
});
afterAll(async () => env?.teardown());

const run = (workflow: string, jobType: JobType, acts: FakeActivities, cancelWhen?: Promise<unknown>) =>
  runJobWorkflow(env, workflowBundle, workflow, jobType, acts, { cancelWhen });

describe('cardAnalysisWorkflow', () => {
  it('begins, analyses on the ai queue and stores the card', async () => {
    const acts = fakeActivities();
    const { input, result } = await run('cardAnalysisWorkflow', 'CARD_ANALYSIS', acts);
    expect(result).toEqual({ jobId: input.jobId, status: 'COMPLETED' });
    expect(acts.jobs.beginJob).toHaveBeenCalledWith(input.jobId);
    expect(acts.ai.analyzeScrap).toHaveBeenCalledWith({ scrapId: input.targetId });
    expect(acts.jobs.storeCard).toHaveBeenCalledWith({ jobId: input.jobId, scrapId: input.targetId, userId: input.userId, analysis: ANALYSIS });
    expect(acts.jobs.failJob).not.toHaveBeenCalled();
    expect(await scheduledActivities(env, input)).toEqual([
      { activity: 'beginJob', taskQueue: input.queues.jobs },
      { activity: 'analyzeScrap', taskQueue: input.queues.ai },
      { activity: 'storeCard', taskQueue: input.queues.jobs },
    ]);
  });

  it('skips all work when the row is already terminal (late duplicate start)', async () => {
    const acts = fakeActivities();
    acts.jobs.beginJob.mockResolvedValue({ proceed: false, status: 'COMPLETED' });
    const { input, result } = await run('cardAnalysisWorkflow', 'CARD_ANALYSIS', acts);
    expect(result).toEqual({ jobId: input.jobId, status: 'SKIPPED' });
    expect(acts.ai.analyzeScrap).not.toHaveBeenCalled();
    expect(acts.jobs.storeCard).not.toHaveBeenCalled();
  });

  it('retries a retryable AI failure with backoff (time skipped) and completes', async () => {
    const acts = fakeActivities();
    acts.ai.analyzeScrap.mockRejectedValueOnce(retryableAiFailure()).mockRejectedValueOnce(retryableAiFailure());
    const { result } = await run('cardAnalysisWorkflow', 'CARD_ANALYSIS', acts);
    expect(result).toMatchObject({ status: 'COMPLETED' });
    expect(acts.ai.analyzeScrap).toHaveBeenCalledTimes(3);
    expect(acts.jobs.storeCard).toHaveBeenCalledTimes(1);
  });

  it('after 4 failed attempts records FAILED with the cause chain and fails the workflow', async () => {
    const acts = fakeActivities();
    acts.ai.analyzeScrap.mockRejectedValue(retryableAiFailure());
    const { input, result } = await run('cardAnalysisWorkflow', 'CARD_ANALYSIS', acts);
    expect(acts.ai.analyzeScrap).toHaveBeenCalledTimes(4);
    expect(acts.jobs.storeCard).not.toHaveBeenCalled();
    expect(acts.jobs.failJob).toHaveBeenCalledTimes(1);
    const [jobId, chain] = acts.jobs.failJob.mock.calls[0]!;
    expect(jobId).toBe(input.jobId);
    expect(chain).toMatch(/^ActivityFailure: .*<- ApplicationFailure\[AI_MALFORMED_OUTPUT\]: model answered invalid JSON/);
    expect(result).toBeInstanceOf(WorkflowFailedError);
    const cause = (result as WorkflowFailedError).cause as ApplicationFailure;
    expect(cause.type).toBe('JOB_FAILED');
    expect(cause.cause).toBeInstanceOf(ActivityFailure);
  });

  it('does not retry a non-retryable AI failure', async () => {
    const acts = fakeActivities();
    acts.ai.analyzeScrap.mockRejectedValue(CommonFailure.nonRetryable('embedding has 768 dimensions', 'AI_INVALID_EMBEDDING'));
    const { result } = await run('cardAnalysisWorkflow', 'CARD_ANALYSIS', acts);
    expect(acts.ai.analyzeScrap).toHaveBeenCalledTimes(1);
    expect(acts.jobs.failJob.mock.calls[0]![1]).toContain('AI_INVALID_EMBEDDING');
    expect(result).toBeInstanceOf(WorkflowFailedError);
  });
});

describe('cancellation (SAN-4: an operator cancel reaches the projection)', () => {
  it('cancelled during the AI call: FAILED `cancelled: …` recorded, JOB_CANCELLED thrown, no card stored', async () => {
    const acts = fakeActivities();
    const blocking = blockUntilCancelled();
    acts.ai.analyzeScrap.mockImplementation(blocking.activity);
    const { input, result } = await run('cardAnalysisWorkflow', 'CARD_ANALYSIS', acts, blocking.started);
    expect(acts.jobs.failCancelledJob).toHaveBeenCalledTimes(1);
    expect(acts.jobs.failCancelledJob.mock.calls[0]![0]).toMatchObject({
      jobId: input.jobId, jobType: 'CARD_ANALYSIS', targetId: input.targetId, workflowId: jobWorkflowId('CARD_ANALYSIS', input.targetId),
    });
    expect(acts.jobs.failJob).not.toHaveBeenCalled();
    expect(acts.jobs.storeCard).not.toHaveBeenCalled();
    expect(result).toBeInstanceOf(WorkflowFailedError);
    const cause = (result as WorkflowFailedError).cause as ApplicationFailure;
    expect(cause.type).toBe('JOB_CANCELLED');
    expect(cause.message).toContain('cancelled: requested by test');
  });

  it('cancelled while beginning: the row is failed all the same', async () => {
    const acts = fakeActivities();
    const blocking = blockUntilCancelled();
    acts.jobs.beginJob.mockImplementation(blocking.activity);
    const { result } = await run('scrapRefineWorkflow', 'SCRAP_REFINE', acts, blocking.started);
    expect(acts.jobs.failCancelledJob).toHaveBeenCalledTimes(1);
    expect(acts.ai.refineScrap).not.toHaveBeenCalled();
    expect(((result as WorkflowFailedError).cause as ApplicationFailure).type).toBe('JOB_CANCELLED');
  });
});

describe('task queues (DC-2): each activity runs only on its own queue', () => {
  it('ai activities registered on the jobs worker only are never picked up: the workflow times out without analysing', async () => {
    const acts = fakeActivities();
    const misplaced = { jobs: { ...acts.jobs, ...acts.ai }, ai: {}, github: {} };
    // The test server does not skip time while an activity waits for a worker, so this is a real
    // 5 s window in which a worker polling the right queue would have run analyzeScrap at once.
    const { input, result } = await runJobWorkflow(env, workflowBundle, 'cardAnalysisWorkflow', 'CARD_ANALYSIS', misplaced, {
      workflowExecutionTimeout: '5s',
    });
    expect(result).toBeInstanceOf(WorkflowFailedError);
    expect((result as WorkflowFailedError).cause).toBeInstanceOf(TimeoutFailure);
    expect(acts.jobs.beginJob).toHaveBeenCalledWith(input.jobId);
    expect(acts.ai.analyzeScrap).not.toHaveBeenCalled();
    expect(acts.jobs.storeCard).not.toHaveBeenCalled();
    expect(await scheduledActivities(env, input)).toEqual([
      { activity: 'beginJob', taskQueue: input.queues.jobs },
      { activity: 'analyzeScrap', taskQueue: input.queues.ai },
    ]);
    expect(await startedActivities(env, input)).toEqual(['beginJob']);
  });
});

describe('scrapRefineWorkflow', () => {
  it('stores the refined content', async () => {
    const acts = fakeActivities();
    const { input, result } = await run('scrapRefineWorkflow', 'SCRAP_REFINE', acts);
    expect(result).toEqual({ jobId: input.jobId, status: 'COMPLETED' });
    expect(acts.jobs.storeRefinement).toHaveBeenCalledWith({ jobId: input.jobId, scrapId: input.targetId, refinedContent: '# B-tree' });
    expect(acts.ai.analyzeScrap).not.toHaveBeenCalled();
  });
});
