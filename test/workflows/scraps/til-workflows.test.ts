/** SAN-9 tilGenerationWorkflow and SAN-11 recallQuizGenerationWorkflow on the time-skipping server. */
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { ActivityFailure, ApplicationFailure, WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure as CommonFailure } from '@temporalio/common';
import type { JobType } from '../../../src/core/contracts';
import { blockUntilCancelled, bundle, createTimeSkippingEnv, historyPayloadTexts, localActivities, runJobWorkflow, scheduledActivities } from '../harness';
import { fakeActivities, type FakeActivities, QUIZ_JOB, QUIZZES, retryableAiFailure, TIL, TIL_CARD_IDS } from '../fakes';

let env: TestWorkflowEnvironment;
let workflowBundle: WorkflowBundleWithSourceMap;
beforeAll(async () => {
  env = await createTimeSkippingEnv();
  workflowBundle = await bundle();
});
afterAll(async () => env?.teardown());

const run = (workflow: string, jobType: JobType, acts: FakeActivities, cancelWhen?: Promise<unknown>) =>
  runJobWorkflow(env, workflowBundle, workflow, jobType, acts, { cancelWhen });

describe('tilGenerationWorkflow', () => {
  it("collects the day's cards, generates on the ai queue, stores, then starts the automatic quiz job", async () => {
    const acts = fakeActivities();
    const { input, result } = await run('tilGenerationWorkflow', 'TIL_GENERATION', acts);
    expect(result).toEqual({ jobId: input.jobId, status: 'COMPLETED' });
    expect(acts.jobs.beginJob).toHaveBeenCalledWith(input.jobId);
    expect(acts.jobs.collectTilCards).toHaveBeenCalledWith({ summaryId: input.targetId });
    expect(acts.ai.generateTil).toHaveBeenCalledWith({ targetDate: '2026-11-30', cardIds: TIL_CARD_IDS });
    expect(acts.jobs.storeTil).toHaveBeenCalledWith({
      jobId: input.jobId, summaryId: input.targetId, userId: input.userId, til: TIL, sourceCardIds: TIL_CARD_IDS,
    });
    expect(acts.jobs.startCommittedJob).toHaveBeenCalledWith(QUIZ_JOB);
    expect(acts.jobs.storeTil.mock.invocationCallOrder[0]!).toBeLessThan(acts.jobs.startCommittedJob.mock.invocationCallOrder[0]!);
    expect(acts.jobs.failJob).not.toHaveBeenCalled();
    // The projection steps are local activities; only the generation goes through a task queue.
    expect((await localActivities(env, input)).map((a) => a.activity)).toEqual(['beginJob', 'collectTilCards', 'storeTil', 'startCommittedJob']);
    expect(await scheduledActivities(env, input)).toEqual([{ activity: 'generateTil', taskQueue: input.queues.ai }]);
    // The TIL is in the history once: as the generation's result, not again as storeTil's input.
    const tilTexts = (await historyPayloadTexts(env, input)).filter((t) => t.includes('B-tree indexes'));
    expect(tilTexts).toHaveLength(1);
  });

  it('a storeTil whose local attempts fail transiently falls back to the jobs queue and completes once', async () => {
    const acts = fakeActivities();
    const transient = new Error('Connection terminated unexpectedly');
    acts.jobs.storeTil.mockRejectedValueOnce(transient).mockRejectedValueOnce(transient).mockRejectedValueOnce(transient).mockRejectedValueOnce(transient);
    const { input, result } = await run('tilGenerationWorkflow', 'TIL_GENERATION', acts);
    expect(result).toEqual({ jobId: input.jobId, status: 'COMPLETED' });
    expect(acts.jobs.storeTil).toHaveBeenCalledTimes(5); // LOCAL_PROJECTION_RETRY's 4 attempts, then the activity
    expect((await scheduledActivities(env, input)).map((a) => a.activity)).toEqual(['generateTil', 'storeTil']);
    expect(acts.jobs.startCommittedJob).toHaveBeenCalledWith(QUIZ_JOB);
  });

  it('starts nothing when the summary already had its automatic quiz job started (storeTil returns null)', async () => {
    const acts = fakeActivities();
    acts.jobs.storeTil.mockResolvedValue(null);
    const { result } = await run('tilGenerationWorkflow', 'TIL_GENERATION', acts);
    expect(result).toMatchObject({ status: 'COMPLETED' });
    expect(acts.jobs.startCommittedJob).not.toHaveBeenCalled();
  });

  it('skips all work when the row is already terminal (late duplicate start)', async () => {
    const acts = fakeActivities();
    acts.jobs.beginJob.mockResolvedValue({ proceed: false, status: 'COMPLETED' });
    const { input, result } = await run('tilGenerationWorkflow', 'TIL_GENERATION', acts);
    expect(result).toEqual({ jobId: input.jobId, status: 'SKIPPED' });
    expect(acts.jobs.collectTilCards).not.toHaveBeenCalled();
    expect(acts.ai.generateTil).not.toHaveBeenCalled();
  });

  it('retries a retryable AI failure with backoff (time skipped) and completes once', async () => {
    const acts = fakeActivities();
    acts.ai.generateTil.mockRejectedValueOnce(retryableAiFailure()).mockRejectedValueOnce(retryableAiFailure());
    const { result } = await run('tilGenerationWorkflow', 'TIL_GENERATION', acts);
    expect(result).toMatchObject({ status: 'COMPLETED' });
    expect(acts.ai.generateTil).toHaveBeenCalledTimes(3);
    expect(acts.jobs.storeTil).toHaveBeenCalledTimes(1);
  });

  it('after 4 failed AI attempts records FAILED with the cause chain; no TIL stored, no quiz started', async () => {
    const acts = fakeActivities();
    acts.ai.generateTil.mockRejectedValue(retryableAiFailure());
    const { input, result } = await run('tilGenerationWorkflow', 'TIL_GENERATION', acts);
    expect(acts.ai.generateTil).toHaveBeenCalledTimes(4);
    expect(acts.jobs.storeTil).not.toHaveBeenCalled();
    expect(acts.jobs.startCommittedJob).not.toHaveBeenCalled();
    const [jobId, chain] = acts.jobs.failJob.mock.calls[0]!;
    expect(jobId).toBe(input.jobId);
    expect(chain).toMatch(/<- ApplicationFailure\[AI_MALFORMED_OUTPUT\]: model answered invalid JSON/);
    expect(result).toBeInstanceOf(WorkflowFailedError);
    const cause = (result as WorkflowFailedError).cause as ApplicationFailure;
    expect(cause.type).toBe('JOB_FAILED');
    expect(cause.cause).toBeInstanceOf(ActivityFailure);
  });

  it('a date without cards fails at once (non-retryable), without calling the AI', async () => {
    const acts = fakeActivities();
    acts.jobs.collectTilCards.mockRejectedValue(CommonFailure.nonRetryable('no knowledge cards on 2026-11-30', 'NO_CARDS_FOR_DATE'));
    const { result } = await run('tilGenerationWorkflow', 'TIL_GENERATION', acts);
    expect(acts.jobs.collectTilCards).toHaveBeenCalledTimes(1);
    expect(acts.ai.generateTil).not.toHaveBeenCalled();
    expect(acts.jobs.failJob.mock.calls[0]![1]).toContain('NO_CARDS_FOR_DATE');
    expect(result).toBeInstanceOf(WorkflowFailedError);
  });
});

describe('recallQuizGenerationWorkflow', () => {
  it('cancelled while generating: the job (and through its target hook the generation) is FAILED `cancelled: …`', async () => {
    const acts = fakeActivities();
    const blocking = blockUntilCancelled();
    acts.ai.generateQuizzes.mockImplementation(blocking.activity);
    const { input, result } = await run('recallQuizGenerationWorkflow', 'RECALL_QUIZ_GENERATION', acts, blocking.started);
    expect(acts.jobs.failCancelledJob).toHaveBeenCalledWith(expect.objectContaining({ jobId: input.jobId, jobType: 'RECALL_QUIZ_GENERATION', targetId: input.targetId }));
    expect(acts.jobs.failRecallQuizJob).not.toHaveBeenCalled();
    expect(acts.jobs.storeRecallQuizzes).not.toHaveBeenCalled();
    expect(((result as WorkflowFailedError).cause as ApplicationFailure).type).toBe('JOB_CANCELLED');
  });

  it('begins job and generation together, generates the requested types and stores the quizzes', async () => {
    const acts = fakeActivities();
    acts.jobs.collectQuizCards.mockResolvedValue({ targetDate: '2026-11-30', cardIds: TIL_CARD_IDS, types: ['OX'] });
    const { input, result } = await run('recallQuizGenerationWorkflow', 'RECALL_QUIZ_GENERATION', acts);
    expect(result).toEqual({ jobId: input.jobId, status: 'COMPLETED' });
    expect(acts.jobs.beginRecallQuizJob).toHaveBeenCalledWith({ jobId: input.jobId, generationId: input.targetId });
    expect(acts.jobs.beginJob).not.toHaveBeenCalled(); // the generation-aware begin replaces it
    expect(acts.ai.generateQuizzes).toHaveBeenCalledWith({ cardIds: TIL_CARD_IDS, types: ['OX'] });
    expect(acts.jobs.storeRecallQuizzes).toHaveBeenCalledWith({ jobId: input.jobId, generationId: input.targetId, quizzes: QUIZZES });
    expect(acts.jobs.failRecallQuizJob).not.toHaveBeenCalled();
    const { jobs, ai } = input.queues;
    expect(await scheduledActivities(env, input)).toEqual([
      { activity: 'beginRecallQuizJob', taskQueue: jobs },
      { activity: 'collectQuizCards', taskQueue: jobs },
      { activity: 'generateQuizzes', taskQueue: ai },
      { activity: 'storeRecallQuizzes', taskQueue: jobs },
    ]);
  });

  it('skips all work when the job is already terminal', async () => {
    const acts = fakeActivities();
    acts.jobs.beginRecallQuizJob.mockResolvedValue({ proceed: false, status: 'FAILED' });
    const { input, result } = await run('recallQuizGenerationWorkflow', 'RECALL_QUIZ_GENERATION', acts);
    expect(result).toEqual({ jobId: input.jobId, status: 'SKIPPED' });
    expect(acts.jobs.collectQuizCards).not.toHaveBeenCalled();
    expect(acts.ai.generateQuizzes).not.toHaveBeenCalled();
  });

  it('retries a retryable AI failure and stores once', async () => {
    const acts = fakeActivities();
    acts.ai.generateQuizzes.mockRejectedValueOnce(retryableAiFailure());
    const { result } = await run('recallQuizGenerationWorkflow', 'RECALL_QUIZ_GENERATION', acts);
    expect(result).toMatchObject({ status: 'COMPLETED' });
    expect(acts.ai.generateQuizzes).toHaveBeenCalledTimes(2);
    expect(acts.jobs.storeRecallQuizzes).toHaveBeenCalledTimes(1);
  });

  it('a non-retryable AI failure fails job and generation together with the cause chain', async () => {
    const acts = fakeActivities();
    acts.ai.generateQuizzes.mockRejectedValue(CommonFailure.nonRetryable('provider answered 401', 'AI_UNAUTHORIZED'));
    const { input, result } = await run('recallQuizGenerationWorkflow', 'RECALL_QUIZ_GENERATION', acts);
    expect(acts.ai.generateQuizzes).toHaveBeenCalledTimes(1);
    expect(acts.jobs.storeRecallQuizzes).not.toHaveBeenCalled();
    expect(acts.jobs.failRecallQuizJob).toHaveBeenCalledTimes(1);
    const [args] = acts.jobs.failRecallQuizJob.mock.calls[0]!;
    expect(args).toMatchObject({ jobId: input.jobId, generationId: input.targetId });
    expect(args.errorMessage).toContain('ApplicationFailure[AI_UNAUTHORIZED]: provider answered 401');
    expect(acts.jobs.failJob).not.toHaveBeenCalled();
    expect(result).toBeInstanceOf(WorkflowFailedError);
    expect(((result as WorkflowFailedError).cause as ApplicationFailure).type).toBe('JOB_FAILED');
  });
});
