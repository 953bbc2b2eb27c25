/**
 * Regenerates test/histories/*.json (run after an intentional workflow change, then commit):
 *   npx tsx test/workflows/record-histories.ts [name ...]   (names: only those histories)
 * Each workflow runs on the time-skipping test server with deterministic stand-in activities.
 * Histories of the branches kept for open runs stay checked in, unrecorded, for as long as such runs
 * can be open: `card-analysis-completed`, `card-analysis-failed`, `scrap-refine-completed`,
 * `til-generation-completed`, `til-github-commit-completed` and
 * `github-star-recommendation-completed` have their projection writes on the `jobs` queue (no
 * `patched('local-projection-writes')` marker); their `*-local-*` siblings write local-first.
 * `card-analysis-local-completed` starts its companions first thing (no `companionsAfterWork`).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ApplicationFailure } from '@temporalio/common';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { bundleWorkflowCode, Worker } from '@temporalio/worker';
import { findTemporalTestServer } from '../../src/dev/temporal-server';
import { testDataConverter } from '../support/temporal';
import { EMBEDDING_DIMENSIONS } from '../../src/ai/types';

const TQ = 'record-histories';
const queues = { jobs: TQ, ai: TQ, github: TQ };
const CARD = '55555555-5555-4555-8555-555555555555';
const GENERATION = '66666666-6666-4666-8666-666666666666';
const QUIZ_JOB = '77777777-7777-4777-8777-777777777777';
const report = (rule: string) => ({ rule, examined: 1, counts: { requeued: 1 }, items: [] });
const recovery = { queues, pendingStaleMinutes: 30, processingStaleMinutes: 60, maxRetries: 3, batchSize: 100 };
const ids = { jobId: '11111111-1111-4111-8111-111111111111', targetId: '22222222-2222-4222-8222-222222222222', userId: '33333333-3333-4333-8333-333333333333' };

async function main(): Promise<void> {
  const path = findTemporalTestServer();
  // Payloads encrypted like the services' (AR-6; the replay test decodes them with the same codec).
  const dataConverter = testDataConverter();
  const env = await TestWorkflowEnvironment.createTimeSkipping({ client: { dataConverter }, ...(path ? { server: { executable: { type: 'existing-path', path } } } : {}) });
  let failAnalysis = false;
  const activities = {
    beginJob: async () => ({ proceed: true, status: 'PROCESSING' }),
    failJob: async () => 'FAILED',
    startJobs: async (jobs: unknown[]) => jobs.map(() => 'started'),
    purgeIdempotencyRecords: async () => ({ deleted: 3 }),
    attemptWebhookDelivery: (() => { let n = 0; return async () => (++n === 1 ? 'retry' : 'succeeded'); })(),
    failWebhookDelivery: async () => undefined,
    relayWebhookDeliveries: async () => ({ examined: 1, started: 1, alreadyRunning: 0, failedToStart: 0 }),
    storeCard: async () => '44444444-4444-4444-8444-444444444444',
    storeRefinement: async () => undefined,
    startStalePendingJobs: async () => ({ examined: 1, started: 1, alreadyRunning: 0, failedToStart: 0 }),
    failClosedRuns: async () => ({ examined: 1, failed: 1 }),
    failCancelledJob: async () => ({ status: 'FAILED', errorMessage: 'cancelled: requested by test' }),
    analyzeScrap: async () => {
      if (failAnalysis) throw ApplicationFailure.create({ message: 'model answered invalid JSON', type: 'AI_MALFORMED_OUTPUT' });
      return { title: 't', summary: 's', tags: ['x'], category: 'Data', embedding: Array.from({ length: EMBEDDING_DIMENSIONS }, () => 0.01) };
    },
    refineScrap: async () => ({ refinedContent: 'refined' }),
    // SAN-9
    collectTilCards: async () => ({ targetDate: '2026-11-30', cardIds: [CARD] }),
    generateTil: async () => ({ title: 'TIL 2026-11-30', tilMarkdown: '# TIL', embedding: Array.from({ length: EMBEDDING_DIMENSIONS }, () => 0.01) }),
    storeTil: async () => ({ jobId: QUIZ_JOB, jobType: 'RECALL_QUIZ_GENERATION', targetId: GENERATION, userId: ids.userId }),
    startCommittedJob: async () => 'started',
    // SAN-11
    beginRecallQuizJob: async () => ({ proceed: true, status: 'PROCESSING' }),
    collectQuizCards: async () => ({ cardIds: [CARD], types: ['OX', 'SHORT_ANSWER'] }),
    generateQuizzes: async () => [{ type: 'OX', question: 'q', answer: 'O', explanation: 'e', sourceCardId: CARD }],
    storeRecallQuizzes: async () => undefined,
    failRecallQuizJob: async () => undefined,
    // SAN-10
    beginCommit: async () => 'PROCESSING',
    commitTilToGithub: async () => ({ commitSha: 'a'.repeat(40), htmlUrl: 'https://github.com/o/r/commit/aaa' }),
    completeCommit: async () => undefined,
    failCommit: async () => undefined,
    // SAN-12
    fetchStarredRepos: async () => [{ fullName: 'o/pg', description: 'PostgreSQL tools', topics: ['postgres'], language: 'Go', stars: 10, htmlUrl: 'https://github.com/o/pg' }],
    matchStarredRepos: async () => [],
    storeStarRecommendations: async () => undefined,
    // SAN-6
    recoverStaleJobs: async () => report('stale-jobs'),
    terminateOrphanRuns: async () => report('stale-jobs'),
    retryFailedJobs: async () => report('failed-jobs'),
    enqueueMissingCardAnalyses: async () => report('missing-cards'),
    enqueueMissingRefinements: async () => report('unrefined-scraps'),
    retryJob: async () => report('retry-job'),
  };
  const worker = await Worker.create({
    connection: env.nativeConnection,
    taskQueue: TQ,
    dataConverter,
    workflowBundle: await bundleWorkflowCode({ workflowsPath: require.resolve('../../src/workflows') }),
    activities,
  });
  const runs: [string, string, unknown[], () => void][] = [
    ['card-analysis-completed', 'cardAnalysisWorkflow', [{ ...ids, jobType: 'CARD_ANALYSIS', queues }], () => (failAnalysis = false)],
    ['card-analysis-failed', 'cardAnalysisWorkflow', [{ ...ids, jobType: 'CARD_ANALYSIS', queues }], () => (failAnalysis = true)],
    ['scrap-refine-completed', 'scrapRefineWorkflow', [{ ...ids, jobType: 'SCRAP_REFINE', queues }], () => undefined],
    // Local projection writes, and a scrap's CARD_ANALYSIS starting its SCRAP_REFINE.
    // `-local-completed`: an input with localWrites; `-local-failed`: an input without it, local by `patched()`.
    ['card-analysis-local-completed', 'cardAnalysisWorkflow', [{ ...ids, jobType: 'CARD_ANALYSIS', queues, localWrites: true, companions: [{ ...ids, jobId: QUIZ_JOB, jobType: 'SCRAP_REFINE' }] }], () => (failAnalysis = false)],
    // The companion (SCRAP_REFINE) started once the analysis is over (companionsAfterWork).
    ['card-analysis-companions-after-work', 'cardAnalysisWorkflow', [{ ...ids, jobType: 'CARD_ANALYSIS', queues, localWrites: true, companions: [{ ...ids, jobId: QUIZ_JOB, jobType: 'SCRAP_REFINE' }], companionsAfterWork: true }], () => (failAnalysis = false)],
    ['card-analysis-local-failed', 'cardAnalysisWorkflow', [{ ...ids, jobType: 'CARD_ANALYSIS', queues }], () => (failAnalysis = true)],
    ['scrap-refine-local-completed', 'scrapRefineWorkflow', [{ ...ids, jobType: 'SCRAP_REFINE', queues, localWrites: true }], () => undefined],
    ['til-generation-local-completed', 'tilGenerationWorkflow', [{ ...ids, jobType: 'TIL_GENERATION', queues, localWrites: true }], () => undefined],
    ['reconcile-pending-jobs', 'reconcilePendingJobsWorkflow', [{ queues, graceSeconds: 30 }], () => undefined],
    ['purge-idempotency-records', 'purgeIdempotencyRecordsWorkflow', [{}], () => undefined],
    ['til-generation-completed', 'tilGenerationWorkflow', [{ ...ids, jobType: 'TIL_GENERATION', queues }], () => undefined],
    ['recall-quiz-generation-completed', 'recallQuizGenerationWorkflow', [{ ...ids, targetId: GENERATION, jobType: 'RECALL_QUIZ_GENERATION', queues }], () => undefined],
    ['til-github-commit-completed', 'tilGithubCommitWorkflow', [{ ...ids, jobType: 'TIL_GITHUB_COMMIT', queues }], () => undefined],
    ['github-star-recommendation-completed', 'githubStarRecommendationWorkflow', [{ ...ids, jobType: 'GITHUB_STAR_RECOMMENDATION', queues }], () => undefined],
    ['recovery-stale-jobs', 'recoverStaleJobsWorkflow', [recovery], () => undefined],
    ['recovery-failed-jobs', 'retryFailedJobsWorkflow', [recovery], () => undefined],
    ['recovery-missing-cards', 'recoverMissingCardsWorkflow', [recovery], () => undefined],
    ['recovery-unrefined-scraps', 'recoverUnrefinedScrapsWorkflow', [recovery], () => undefined],
    ['retry-job', 'retryJobWorkflow', [{ jobId: ids.jobId, queues }], () => undefined],
    ['webhook-delivery-retried', 'webhookDeliveryWorkflow', [{ deliveryId: ids.jobId, budgetSeconds: 86_400, initialSeconds: 5, maxIntervalSeconds: 3_600 }], () => undefined],
    ['relay-webhook-deliveries', 'relayWebhookDeliveriesWorkflow', [{}], () => undefined],
  ];
  const only = process.argv.slice(2);
  await worker.runUntil(async () => {
    for (const [name, type, args, prepare] of runs.filter(([n]) => only.length === 0 || only.includes(n))) {
      prepare();
      const handle = await env.client.workflow.start(type, { workflowId: name, taskQueue: TQ, args });
      await handle.result().catch(() => undefined);
      const file = join(__dirname, '..', 'histories', `${name}.json`);
      writeFileSync(file, `${JSON.stringify(JSON.parse(historyToJSON(await handle.fetchHistory())), null, 1)}\n`);
      console.log(`wrote ${file}`);
    }
  });
  await env.teardown();
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
