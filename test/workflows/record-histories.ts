/**
 * Regenerates test/histories/*.json (run after an intentional workflow change, then commit):
 *   npx tsx test/workflows/record-histories.ts
 * Each workflow runs on the time-skipping test server with deterministic stand-in activities.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ApplicationFailure } from '@temporalio/common';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { bundleWorkflowCode, Worker } from '@temporalio/worker';
import { findTemporalTestServer } from '../../src/dev/temporal-server';
import { EMBEDDING_DIMENSIONS } from '../../src/ai/types';

const TQ = 'record-histories';
const queues = { jobs: TQ, ai: TQ, github: TQ };
const ids = { jobId: '11111111-1111-4111-8111-111111111111', targetId: '22222222-2222-4222-8222-222222222222', userId: '33333333-3333-4333-8333-333333333333' };

async function main(): Promise<void> {
  const path = findTemporalTestServer();
  const env = await TestWorkflowEnvironment.createTimeSkipping(path ? { server: { executable: { type: 'existing-path', path } } } : {});
  let failAnalysis = false;
  const activities = {
    beginJob: async () => ({ proceed: true, status: 'PROCESSING' }),
    failJob: async () => 'FAILED',
    storeCard: async () => '44444444-4444-4444-8444-444444444444',
    storeRefinement: async () => undefined,
    startStalePendingJobs: async () => ({ examined: 1, started: 1, alreadyRunning: 0, failedToStart: 0 }),
    analyzeScrap: async () => {
      if (failAnalysis) throw ApplicationFailure.create({ message: 'model answered invalid JSON', type: 'AI_MALFORMED_OUTPUT' });
      return { title: 't', summary: 's', tags: ['x'], category: 'Data', embedding: Array.from({ length: EMBEDDING_DIMENSIONS }, () => 0.01) };
    },
    refineScrap: async () => ({ refinedContent: 'refined' }),
  };
  const worker = await Worker.create({
    connection: env.nativeConnection,
    taskQueue: TQ,
    workflowBundle: await bundleWorkflowCode({ workflowsPath: require.resolve('../../src/workflows') }),
    activities,
  });
  const runs: [string, string, unknown[], () => void][] = [
    ['card-analysis-completed', 'cardAnalysisWorkflow', [{ ...ids, jobType: 'CARD_ANALYSIS', queues }], () => (failAnalysis = false)],
    ['card-analysis-failed', 'cardAnalysisWorkflow', [{ ...ids, jobType: 'CARD_ANALYSIS', queues }], () => (failAnalysis = true)],
    ['scrap-refine-completed', 'scrapRefineWorkflow', [{ ...ids, jobType: 'SCRAP_REFINE', queues }], () => undefined],
    ['reconcile-pending-jobs', 'reconcilePendingJobsWorkflow', [{ queues, graceSeconds: 30 }], () => undefined],
  ];
  await worker.runUntil(async () => {
    for (const [name, type, args, prepare] of runs) {
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
