import { WorkflowFailedError, ActivityFailure, ApplicationFailure } from '@temporalio/client';
import type { ScrapText } from '../../../src/ai/scraps/answers';
import { AiProviderError, type LocalAiProvider } from '../../../src/ai/types';
import { localProviderWith } from '../../support/ai-provider';
import { jobWorkflowId } from '../../../src/core/contracts';
import { PG_INDEXES, SOURDOUGH } from '../../fixtures/texts';
import { startStack, waitForJob, type Stack } from '../../support/stack';

/** Local provider whose card analysis fails with a retryable error while `failuresLeft` > 0. */
function flakyProvider(): LocalAiProvider & { failuresLeft: Map<string, number>; calls: number } {
  const failuresLeft = new Map<string, number>();
  const provider: LocalAiProvider & { failuresLeft: Map<string, number>; calls: number } = Object.assign(localProviderWith('flaky', async (call) => {
    if (call.op !== 'analyzeCard') return call.answer();
    provider.calls += 1;
    const key = (call.input as ScrapText).content.slice(0, 40);
    const left = failuresLeft.get(key) ?? 0;
    if (left > 0) {
      failuresLeft.set(key, left - 1);
      throw new AiProviderError('UPSTREAM_UNAVAILABLE', 'provider answered 503', true);
    }
    if (left < 0) throw new AiProviderError('MALFORMED_OUTPUT', 'model answered invalid JSON: Unexpected token }', true);
    return call.answer();
  }), { failuresLeft, calls: 0 });
  return provider;
}

const ai = flakyProvider();
let stack: Stack;
let user: Awaited<ReturnType<Stack['newUser']>>;
beforeAll(async () => {
  stack = await startStack({ ai });
  user = await stack.newUser();
});
afterAll(async () => stack?.stop());

it('an AI activity that fails its first two attempts → the job completes with one card', async () => {
  ai.failuresLeft.set(PG_INDEXES.slice(0, 40), 2);
  const callsBefore = ai.calls;
  const res = await stack.app.inject({ method: 'POST', url: '/scraps', headers: user.auth, payload: { content: PG_INDEXES } });
  const ids = res.json();
  expect((await waitForJob(stack, ids.analysisJobId, user.auth)).status).toBe('COMPLETED');
  expect(ai.calls - callsBefore).toBe(3);
  expect(await stack.db.knowledgeCard.count({ where: { scrapId: ids.scrapId } })).toBe(1);
  const hist = await stack.client.workflow.getHandle(jobWorkflowId('CARD_ANALYSIS', ids.scrapId)).fetchHistory();
  const scheduled = hist.events?.filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'analyzeScrap');
  expect(scheduled).toHaveLength(1); // one activity, retried by Temporal (attempt 3 succeeded)
});

it('malformed AI output on every attempt → FAILED with the cause chain; the refine job is unaffected', async () => {
  ai.failuresLeft.set(SOURDOUGH.slice(0, 40), -1);
  const res = await stack.app.inject({ method: 'POST', url: '/scraps', headers: user.auth, payload: { content: SOURDOUGH } });
  const ids = res.json();
  const job = await waitForJob(stack, ids.analysisJobId, user.auth);
  expect(job.status).toBe('FAILED');
  expect(job.errorMessage).toContain('ActivityFailure');
  expect(job.errorMessage).toContain('AI_MALFORMED_OUTPUT');
  expect(job.errorMessage).toContain('invalid JSON');
  expect(await stack.db.knowledgeCard.count({ where: { scrapId: ids.scrapId } })).toBe(0);
  expect((await waitForJob(stack, ids.refineJobId, user.auth)).status).toBe('COMPLETED');

  const err = await stack.client.workflow.getHandle(jobWorkflowId('CARD_ANALYSIS', ids.scrapId)).result().catch((e: unknown) => e);
  expect(err).toBeInstanceOf(WorkflowFailedError);
  const cause = (err as WorkflowFailedError).cause;
  expect(cause).toBeInstanceOf(ApplicationFailure);
  expect((cause as ApplicationFailure).type).toBe('JOB_FAILED');
  const activityFailure = (cause as ApplicationFailure).cause;
  expect(activityFailure).toBeInstanceOf(ActivityFailure);
  expect((activityFailure?.cause as ApplicationFailure).type).toBe('AI_MALFORMED_OUTPUT');

  // A new submission of the same content re-enqueues analysis (no card, no active job).
  ai.failuresLeft.delete(SOURDOUGH.slice(0, 40));
  const again = (await stack.app.inject({ method: 'POST', url: '/scraps', headers: user.auth, payload: { content: SOURDOUGH } })).json();
  expect(again.scrapId).toBe(ids.scrapId);
  expect(again.analysisJobId).not.toBe(ids.analysisJobId);
  expect((await waitForJob(stack, again.analysisJobId, user.auth)).status).toBe('COMPLETED');
  expect(await stack.db.knowledgeCard.count({ where: { scrapId: ids.scrapId } })).toBe(1);
});

it('a non-retryable AI error fails the job on the first attempt', async () => {
  const content = `${PG_INDEXES}\nnon-retryable probe`;
  await stack.stopAiWorker();
  await stack.startAiWorker(
    localProviderWith('broken', async (call) => {
      if (call.op === 'analyzeCard') throw new AiProviderError('INVALID_EMBEDDING', 'embedding has 768 dimensions, expected 1536', false);
      return call.answer();
    }),
  );
  try {
    const ids = (await stack.app.inject({ method: 'POST', url: '/scraps', headers: user.auth, payload: { content } })).json();
    const job = await waitForJob(stack, ids.analysisJobId, user.auth);
    expect(job.status).toBe('FAILED');
    expect(job.errorMessage).toContain('AI_INVALID_EMBEDDING');
    const hist = await stack.client.workflow.getHandle(jobWorkflowId('CARD_ANALYSIS', ids.scrapId)).fetchHistory();
    const failed = hist.events?.find((e) => e.activityTaskFailedEventAttributes)?.activityTaskFailedEventAttributes;
    const started = hist.events?.find((e) => e.activityTaskStartedEventAttributes)?.activityTaskStartedEventAttributes;
    expect(failed).toBeDefined();
    expect(started?.attempt).toBe(1);
  } finally {
    await stack.stopAiWorker();
    await stack.startAiWorker(ai);
  }
});
