/**
 * Records the AI-runs family's histories in test/histories (run after an intentional workflow
 * change, then commit): `npx tsx test/workflows/ai-runs/record-histories.ts`. A history already there
 * is kept (it is what an older workflow code wrote, and must still replay) unless `--force` is given.
 * Time-skipping test server, in-memory activities (./fakes.ts).
 */
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { bundleWorkflowCode, Worker } from '@temporalio/worker';
import { findTemporalTestServer } from '../../../src/dev/temporal-server';
import { testDataConverter } from '../../support/temporal';
import { fakeArActivities, runInput } from './fakes';

const TQ = 'record-ar-histories';

async function main(): Promise<void> {
  const path = findTemporalTestServer();
  const dataConverter = testDataConverter();
  const env = await TestWorkflowEnvironment.createTimeSkipping({ client: { dataConverter }, ...(path ? { server: { executable: { type: 'existing-path', path } } } : {}) });
  try {
    const workflowBundle = await bundleWorkflowCode({ workflowsPath: require.resolve('../../../src/workflows') });
    const reconcile = { reconcileAiRuns: async () => ({ examined: 1, started: 1, alreadyRunning: 0, dropped: 0, resignalled: 0, failed: 0 }) };
    /** Runs `workflow` (its arguments from the test server's clock now) to its end on a fresh worker (fresh fakes: an outage, then success) and writes its history. */
    const record = async (file: string, workflow: string, argsAt: (now: number) => unknown[]) => {
      const target = join(__dirname, '..', '..', 'histories', file);
      if (existsSync(target) && !process.argv.includes('--force')) return;
      const args = argsAt(await env.currentTimeMs());
      const fakes = fakeArActivities([{ fail: 'retryable', details: { code: 'RUNTIME_UNAVAILABLE', outage: true } }, 'ok']);
      const worker = await Worker.create({ connection: env.nativeConnection, taskQueue: TQ, workflowBundle, activities: { ...fakes.jobs, ...fakes.aiRuns, ...reconcile }, dataConverter });
      await worker.runUntil(async () => {
        const handle = await env.client.workflow.start(workflow, { workflowId: file, taskQueue: TQ, args });
        await handle.result();
        writeFileSync(target, `${JSON.stringify(JSON.parse(historyToJSON(await handle.fetchHistory())), null, 1)}\n`);
      });
    };
    // An input without localWrites (projection writes on the `jobs` queue), then one with it (local-first writes).
    await record('ai-run-succeeded.json', 'aiRunWorkflow', (now) => [runInput({ jobs: TQ, aiRuns: TQ }, now, undefined, undefined, false)]);
    await record('ai-run-local-succeeded.json', 'aiRunWorkflow', (now) => [runInput({ jobs: TQ, aiRuns: TQ }, now)]);
    // Local-first writes whose first begin also drops the sealed input (AI_RUN_BEGIN_RELEASES_INPUT_PATCH).
    await record('ai-run-begin-releases-input.json', 'aiRunWorkflow', (now) => [runInput({ jobs: TQ, aiRuns: TQ }, now)]);
    await record('reconcile-ai-runs.json', 'reconcileAiRunsWorkflow', () => [{ queues: { jobs: TQ, ai: TQ, github: TQ }, graceSeconds: 30 }]);
  } finally {
    await env.teardown();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
