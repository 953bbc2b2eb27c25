import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { ActivityFailure, ApplicationFailure, TimeoutFailure, WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure as CommonFailure } from '@temporalio/common';
import { jobWorkflowId, type JobType } from '../../../src/core/contracts';
import {
  blockUntilCancelled, bundle, createTimeSkippingEnv, historyPayloadTexts, localActivities, runJobWorkflow, scheduledActivities, startedActivities,
  type RunJobWorkflowOptions,
} from '../harness';
import { analysisEmbedding } from '../../../src/activities/scraps/ai';
import { ANALYSIS, ANALYSIS_RESULT, fakeActivities, type FakeActivities, retryableAiFailure } from '../fakes';

let env: TestWorkflowEnvironment;
let workflowBundle: WorkflowBundleWithSourceMap;
beforeAll(async () => {
  env = await createTimeSkippingEnv();
  workflowBundle = await bundle();
});
afterAll(async () => env?.teardown());

const run = (workflow: string, jobType: JobType, acts: FakeActivities, cancelWhen?: Promise<unknown>, opts: RunJobWorkflowOptions = {}) =>
  runJobWorkflow(env, workflowBundle, workflow, jobType, acts, { cancelWhen, ...opts });

/** A transient database failure, as an unclassified driver error reaches an activity (retryable). */
const transient = () => new Error('Connection terminated unexpectedly');

describe('cardAnalysisWorkflow', () => {
  it('begins, analyses on the ai queue and stores the card', async () => {
    const acts = fakeActivities();
    const { input, result } = await run('cardAnalysisWorkflow', 'CARD_ANALYSIS', acts);
    expect(result).toEqual({ jobId: input.jobId, status: 'COMPLETED' });
    expect(acts.jobs.beginJob).toHaveBeenCalledWith(input.jobId);
    expect(acts.ai.analyzeScrap).toHaveBeenCalledWith({ scrapId: input.targetId, embedding: 'f32' });
    expect(acts.jobs.storeCard).toHaveBeenCalledWith({ jobId: input.jobId, scrapId: input.targetId, userId: input.userId, analysis: ANALYSIS_RESULT });
    expect(acts.jobs.failJob).not.toHaveBeenCalled();
    // The projection writes are local activities of the jobs worker; only the AI
    // call goes through a task queue.
    expect(await scheduledActivities(env, input)).toEqual([{ activity: 'analyzeScrap', taskQueue: input.queues.ai }]);
    expect(await localActivities(env, input)).toEqual([{ activity: 'beginJob', attempt: 1 }, { activity: 'storeCard', attempt: 1 }]);
  });

  it('has the 1536-float embedding in its history once (the AI result, float32 base64), not again as storeCard\'s input', async () => {
    const acts = fakeActivities();
    const { input } = await run('cardAnalysisWorkflow', 'CARD_ANALYSIS', acts);
    const texts = await historyPayloadTexts(env, input);
    expect(texts.filter((t) => t.includes(`"embeddingF32":"${ANALYSIS_RESULT.embeddingF32}"`))).toHaveLength(1);
    expect(texts.filter((t) => t.includes('"embedding":['))).toHaveLength(0);
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
    // beginJob is a local activity of the jobs worker; analyzeScrap was scheduled
    // on the ai queue and never started.
    expect(await scheduledActivities(env, input)).toEqual([{ activity: 'analyzeScrap', taskQueue: input.queues.ai }]);
    expect(await startedActivities(env, input)).toEqual([]);
  });
});

describe('projection writes as local activities: retries and idempotency kept', () => {
  it('a local write that fails transiently is retried in the worker and the job completes', async () => {
    const acts = fakeActivities();
    acts.jobs.beginJob.mockRejectedValueOnce(transient()).mockRejectedValueOnce(transient());
    acts.jobs.storeCard.mockRejectedValueOnce(transient());
    const { input, result } = await run('cardAnalysisWorkflow', 'CARD_ANALYSIS', acts);
    expect(result).toEqual({ jobId: input.jobId, status: 'COMPLETED' });
    expect(acts.jobs.beginJob).toHaveBeenCalledTimes(3);
    expect(acts.jobs.storeCard).toHaveBeenCalledTimes(2);
    expect(acts.jobs.failJob).not.toHaveBeenCalled();
    expect(await localActivities(env, input)).toEqual([{ activity: 'beginJob', attempt: 3 }, { activity: 'storeCard', attempt: 2 }]);
    expect(await scheduledActivities(env, input)).toEqual([{ activity: 'analyzeScrap', taskQueue: input.queues.ai }]);
  });

  it('a write still failing after its local attempts goes on as the same activity on the jobs queue (PROJECTION_RETRY, seen by the stuck rule)', async () => {
    const acts = fakeActivities();
    for (let i = 0; i < 5; i++) acts.jobs.storeCard.mockRejectedValueOnce(transient());
    const { input, result } = await run('cardAnalysisWorkflow', 'CARD_ANALYSIS', acts);
    expect(result).toEqual({ jobId: input.jobId, status: 'COMPLETED' });
    expect(acts.jobs.storeCard).toHaveBeenCalledTimes(6); // 4 local attempts, then attempts 1 and 2 of the activity
    expect(await scheduledActivities(env, input)).toEqual([
      { activity: 'analyzeScrap', taskQueue: input.queues.ai },
      { activity: 'storeCard', taskQueue: input.queues.jobs },
    ]);
    expect(acts.jobs.storeCard.mock.calls.every(([args]) => args.jobId === input.jobId && analysisEmbedding(args.analysis).length === ANALYSIS.embedding.length)).toBe(true);
  });

  it('a non-retryable rejection of a local write fails the job at once, with its cause, and no fallback', async () => {
    const acts = fakeActivities();
    acts.jobs.storeCard.mockRejectedValue(CommonFailure.nonRetryable('invalid byte sequence for encoding "UTF8": 0x00', 'PROJECTION_REJECTED'));
    const { input, result } = await run('cardAnalysisWorkflow', 'CARD_ANALYSIS', acts);
    expect(acts.jobs.storeCard).toHaveBeenCalledTimes(1);
    expect(acts.jobs.failJob).toHaveBeenCalledTimes(1);
    expect(acts.jobs.failJob.mock.calls[0]![1]).toContain('PROJECTION_REJECTED');
    expect(((result as WorkflowFailedError).cause as ApplicationFailure).type).toBe('JOB_FAILED');
    expect(await scheduledActivities(env, input)).toEqual([{ activity: 'analyzeScrap', taskQueue: input.queues.ai }]);
  });

  it('a failing job whose local failJob fails transiently still records FAILED', async () => {
    const acts = fakeActivities();
    acts.ai.refineScrap.mockRejectedValue(CommonFailure.nonRetryable('empty answer', 'AI_MALFORMED_OUTPUT'));
    acts.jobs.failJob.mockRejectedValueOnce(transient());
    const { input, result } = await run('scrapRefineWorkflow', 'SCRAP_REFINE', acts);
    expect(acts.jobs.failJob).toHaveBeenCalledTimes(2);
    expect(acts.jobs.failJob.mock.calls.every(([jobId]) => jobId === input.jobId)).toBe(true);
    expect(result).toBeInstanceOf(WorkflowFailedError);
  });
});

describe('companion jobs without companionsAfterWork: the first job\'s run starts the others first thing', () => {
  const companion = () => ({ jobId: '00000000-0000-4000-8000-00000000c0a1', jobType: 'SCRAP_REFINE' as const, targetId: '00000000-0000-4000-8000-00000000c0a2', userId: '00000000-0000-4000-8000-00000000c0a3' });

  it('starts the companions in its first workflow task, alongside beginJob', async () => {
    const acts = fakeActivities();
    const companions = [companion()];
    const { input, result } = await run('cardAnalysisWorkflow', 'CARD_ANALYSIS', acts, undefined, { companions });
    expect(result).toEqual({ jobId: input.jobId, status: 'COMPLETED' });
    expect(acts.jobs.startJobs).toHaveBeenCalledTimes(1);
    expect(acts.jobs.startJobs).toHaveBeenCalledWith(companions);
    expect((await localActivities(env, input)).map((a) => a.activity).sort()).toEqual(['beginJob', 'startJobs', 'storeCard']);
  });

  it('a companion that cannot be started does not fail the job (its PENDING row is the reconciler\'s)', async () => {
    const acts = fakeActivities();
    acts.jobs.startJobs.mockRejectedValue(transient());
    const { input, result } = await run('cardAnalysisWorkflow', 'CARD_ANALYSIS', acts, undefined, { companions: [companion()] });
    expect(result).toEqual({ jobId: input.jobId, status: 'COMPLETED' });
    expect(acts.jobs.startJobs).toHaveBeenCalledTimes(4); // LOCAL_PROJECTION_RETRY's attempts, no fallback
    expect(acts.jobs.failJob).not.toHaveBeenCalled();
  });

  it('a late duplicate start still starts nothing but its companions (harmless: their own beginJob skips them)', async () => {
    const acts = fakeActivities();
    acts.jobs.beginJob.mockResolvedValue({ proceed: false, status: 'COMPLETED' });
    const { input, result } = await run('cardAnalysisWorkflow', 'CARD_ANALYSIS', acts, undefined, { companions: [companion()] });
    expect(result).toEqual({ jobId: input.jobId, status: 'SKIPPED' });
    expect(acts.ai.analyzeScrap).not.toHaveBeenCalled();
    expect(acts.jobs.startJobs).toHaveBeenCalledTimes(1);
  });
});

describe('companion jobs started once the work is over (companionsAfterWork)', () => {
  const companions = () => [{ jobId: '00000000-0000-4000-8000-00000000c0b1', jobType: 'SCRAP_REFINE' as const, targetId: '00000000-0000-4000-8000-00000000c0b2', userId: '00000000-0000-4000-8000-00000000c0b3' }];
  const after = { companionsAfterWork: true as const };
  /**
   * startJobs ran (at least once: a local activity runs again when its workflow task times out on a
   * loaded machine; the start is idempotent), always with these companions.
   */
  const startedCompanions = (m: jest.Mock) => {
    expect(m.mock.calls.length).toBeGreaterThanOrEqual(1);
    for (const call of m.mock.calls) expect(call).toEqual([companions()]);
  };
  /** Jest's global call order of a mock's first call. */
  const order = (m: jest.Mock) => m.mock.invocationCallOrder[0] ?? Number.NaN;

  it('completed: the card is stored first, then the companions are started', async () => {
    const acts = fakeActivities();
    const { input, result } = await run('cardAnalysisWorkflow', 'CARD_ANALYSIS', acts, undefined, { companions: companions(), ...after });
    expect(result).toEqual({ jobId: input.jobId, status: 'COMPLETED' });
    startedCompanions(acts.jobs.startJobs);
    expect(order(acts.jobs.startJobs)).toBeGreaterThan(order(acts.jobs.storeCard));
    expect(order(acts.ai.analyzeScrap)).toBeGreaterThan(order(acts.jobs.beginJob));
    expect(order(acts.jobs.startJobs)).toBeGreaterThan(order(acts.ai.analyzeScrap));
  });

  it('failed: FAILED is recorded, then the companions are started (SAN-8: the refine never depends on the analysis)', async () => {
    const acts = fakeActivities();
    acts.ai.analyzeScrap.mockRejectedValue(retryableAiFailure());
    const { result } = await run('cardAnalysisWorkflow', 'CARD_ANALYSIS', acts, undefined, { companions: companions(), ...after });
    expect(result).toBeInstanceOf(WorkflowFailedError);
    startedCompanions(acts.jobs.startJobs);
    expect(order(acts.jobs.startJobs)).toBeGreaterThan(order(acts.jobs.failJob));
  });

  it('skipped (late duplicate start) and cancelled: the companions are started all the same', async () => {
    const skipped = fakeActivities();
    skipped.jobs.beginJob.mockResolvedValue({ proceed: false, status: 'COMPLETED' });
    const s = await run('cardAnalysisWorkflow', 'CARD_ANALYSIS', skipped, undefined, { companions: companions(), ...after });
    expect(s.result).toEqual({ jobId: s.input.jobId, status: 'SKIPPED' });
    startedCompanions(skipped.jobs.startJobs);

    const cancelled = fakeActivities();
    const blocking = blockUntilCancelled();
    cancelled.ai.analyzeScrap.mockImplementation(blocking.activity);
    const c = await run('cardAnalysisWorkflow', 'CARD_ANALYSIS', cancelled, blocking.started, { companions: companions(), ...after });
    expect(((c.result as WorkflowFailedError).cause as ApplicationFailure).type).toBe('JOB_CANCELLED');
    startedCompanions(cancelled.jobs.startJobs);
    expect(order(cancelled.jobs.startJobs)).toBeGreaterThan(order(cancelled.jobs.failCancelledJob));
  });

  it('a companion that cannot be started does not fail the completed job', async () => {
    const acts = fakeActivities();
    acts.jobs.startJobs.mockRejectedValue(transient());
    const { input, result } = await run('cardAnalysisWorkflow', 'CARD_ANALYSIS', acts, undefined, { companions: companions(), ...after });
    expect(result).toEqual({ jobId: input.jobId, status: 'COMPLETED' });
    expect(acts.jobs.startJobs.mock.calls.length).toBeGreaterThanOrEqual(4); // LOCAL_PROJECTION_RETRY's attempts, no fallback
    expect((await scheduledActivities(env, input)).map((a) => a.activity)).toEqual(['analyzeScrap']);
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
