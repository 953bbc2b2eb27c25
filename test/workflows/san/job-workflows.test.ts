import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { ActivityFailure, ApplicationFailure, WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure as CommonFailure } from '@temporalio/common';
import type { JobType } from '../../../src/core/contracts';
import { blockUntilCancelled, bundle, createTimeSkippingEnv, runJobWorkflow } from '../harness';
import { ANALYSIS, fakeActivities, retryableAiFailure } from '../fakes';

let env: TestWorkflowEnvironment;
let workflowBundle: WorkflowBundleWithSourceMap;
beforeAll(async () => {
  env = await createTimeSkippingEnv();
  workflowBundle = await bundle();
});
afterAll(async () => env?.teardown());

const run = (workflow: string, jobType: JobType, acts: ReturnType<typeof fakeActivities>, cancelWhen?: Promise<unknown>) =>
  runJobWorkflow(env, workflowBundle, workflow, jobType, acts, { cancelWhen });

describe('cardAnalysisWorkflow', () => {
  it('begins, analyses on the ai queue and stores the card', async () => {
    const acts = fakeActivities();
    const { input, result } = await run('cardAnalysisWorkflow', 'CARD_ANALYSIS', acts);
    expect(result).toEqual({ jobId: input.jobId, status: 'COMPLETED' });
    expect(acts.beginJob).toHaveBeenCalledWith(input.jobId);
    expect(acts.analyzeScrap).toHaveBeenCalledWith({ scrapId: input.targetId });
    expect(acts.storeCard).toHaveBeenCalledWith({ jobId: input.jobId, scrapId: input.targetId, userId: input.userId, analysis: ANALYSIS });
    expect(acts.failJob).not.toHaveBeenCalled();
  });

  it('skips all work when the row is already terminal (late duplicate start)', async () => {
    const acts = fakeActivities();
    acts.beginJob.mockResolvedValue({ proceed: false, status: 'COMPLETED' });
    const { input, result } = await run('cardAnalysisWorkflow', 'CARD_ANALYSIS', acts);
    expect(result).toEqual({ jobId: input.jobId, status: 'SKIPPED' });
    expect(acts.analyzeScrap).not.toHaveBeenCalled();
    expect(acts.storeCard).not.toHaveBeenCalled();
  });

  it('retries a retryable AI failure with backoff (time skipped) and completes', async () => {
    const acts = fakeActivities();
    acts.analyzeScrap.mockRejectedValueOnce(retryableAiFailure()).mockRejectedValueOnce(retryableAiFailure());
    const { result } = await run('cardAnalysisWorkflow', 'CARD_ANALYSIS', acts);
    expect(result).toMatchObject({ status: 'COMPLETED' });
    expect(acts.analyzeScrap).toHaveBeenCalledTimes(3);
    expect(acts.storeCard).toHaveBeenCalledTimes(1);
  });

  it('after 4 failed attempts records FAILED with the cause chain and fails the workflow', async () => {
    const acts = fakeActivities();
    acts.analyzeScrap.mockRejectedValue(retryableAiFailure());
    const { input, result } = await run('cardAnalysisWorkflow', 'CARD_ANALYSIS', acts);
    expect(acts.analyzeScrap).toHaveBeenCalledTimes(4);
    expect(acts.storeCard).not.toHaveBeenCalled();
    expect(acts.failJob).toHaveBeenCalledTimes(1);
    const [jobId, chain] = acts.failJob.mock.calls[0]!;
    expect(jobId).toBe(input.jobId);
    expect(chain).toMatch(/^ActivityFailure: .*<- ApplicationFailure\[AI_MALFORMED_OUTPUT\]: model answered invalid JSON/);
    expect(result).toBeInstanceOf(WorkflowFailedError);
    const cause = (result as WorkflowFailedError).cause as ApplicationFailure;
    expect(cause.type).toBe('JOB_FAILED');
    expect(cause.cause).toBeInstanceOf(ActivityFailure);
  });

  it('does not retry a non-retryable AI failure', async () => {
    const acts = fakeActivities();
    acts.analyzeScrap.mockRejectedValue(CommonFailure.nonRetryable('embedding has 768 dimensions', 'AI_INVALID_EMBEDDING'));
    const { result } = await run('cardAnalysisWorkflow', 'CARD_ANALYSIS', acts);
    expect(acts.analyzeScrap).toHaveBeenCalledTimes(1);
    expect(acts.failJob.mock.calls[0]![1]).toContain('AI_INVALID_EMBEDDING');
    expect(result).toBeInstanceOf(WorkflowFailedError);
  });
});

describe('cancellation (SAN-4: an operator cancel reaches the projection)', () => {
  it('cancelled during the AI call: FAILED `cancelled: …` recorded, JOB_CANCELLED thrown, no card stored', async () => {
    const acts = fakeActivities();
    const blocking = blockUntilCancelled();
    acts.analyzeScrap.mockImplementation(blocking.activity);
    const { input, result } = await run('cardAnalysisWorkflow', 'CARD_ANALYSIS', acts, blocking.started);
    expect(acts.failCancelledJob).toHaveBeenCalledTimes(1);
    expect(acts.failCancelledJob.mock.calls[0]![0]).toMatchObject({
      jobId: input.jobId, jobType: 'CARD_ANALYSIS', targetId: input.targetId, workflowId: `CARD_ANALYSIS:${input.targetId}`,
    });
    expect(acts.failJob).not.toHaveBeenCalled();
    expect(acts.storeCard).not.toHaveBeenCalled();
    expect(result).toBeInstanceOf(WorkflowFailedError);
    const cause = (result as WorkflowFailedError).cause as ApplicationFailure;
    expect(cause.type).toBe('JOB_CANCELLED');
    expect(cause.message).toContain('cancelled: requested by test');
  });

  it('cancelled while beginning: the row is failed all the same', async () => {
    const acts = fakeActivities();
    const blocking = blockUntilCancelled();
    acts.beginJob.mockImplementation(blocking.activity);
    const { result } = await run('scrapRefineWorkflow', 'SCRAP_REFINE', acts, blocking.started);
    expect(acts.failCancelledJob).toHaveBeenCalledTimes(1);
    expect(acts.refineScrap).not.toHaveBeenCalled();
    expect(((result as WorkflowFailedError).cause as ApplicationFailure).type).toBe('JOB_CANCELLED');
  });
});

describe('scrapRefineWorkflow', () => {
  it('stores the refined content', async () => {
    const acts = fakeActivities();
    const { input, result } = await run('scrapRefineWorkflow', 'SCRAP_REFINE', acts);
    expect(result).toEqual({ jobId: input.jobId, status: 'COMPLETED' });
    expect(acts.storeRefinement).toHaveBeenCalledWith({ jobId: input.jobId, scrapId: input.targetId, refinedContent: '# B-tree' });
    expect(acts.analyzeScrap).not.toHaveBeenCalled();
  });
});
