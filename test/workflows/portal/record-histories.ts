/**
 * Regenerates the portal-link family's histories in test/histories (run after an intentional
 * workflow change, then commit): `npx tsx test/workflows/portal/record-histories.ts`. Time-skipping
 * test server, in-memory activities (./fakes.ts); the scripted scraper calls back by signal.
 * Kept checked in, unrecorded, for as long as such runs can be open: `portal-link-succeeded.json`
 * (its moves after the callback and the post-processing on the `jobs` queue, no
 * `patched('portal-link-local-writes')` marker) and `portal-link-local-succeeded.json` (local-first,
 * with the POST_PROCESSING move, the apply and the SUCCEEDED move as three local activities, no
 * `patched('portal-link-apply-succeeds')` marker). `portal-link-apply-succeeds.json` is the branch
 * of today: the callback's signal says the API made the POST_PROCESSING move, one local activity
 * applies and SUCCEEDS.
 */
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { bundleWorkflowCode, Worker } from '@temporalio/worker';
import { findTemporalTestServer } from '../../../src/dev/temporal-server';
import { testDataConverter } from '../../support/temporal';
import { fakePoActivities, linkInput } from './fakes';

const TQ = 'record-po-histories';

async function main(): Promise<void> {
  const path = findTemporalTestServer();
  const dataConverter = testDataConverter();
  const env = await TestWorkflowEnvironment.createTimeSkipping({ client: { dataConverter }, ...(path ? { server: { executable: { type: 'existing-path', path } } } : {}) });
  try {
    const workflowBundle = await bundleWorkflowCode({ workflowsPath: require.resolve('../../../src/workflows') });
    const fakes = fakePoActivities(env.client.workflow, [{ fail: 'retryable', code: 'PORTAL_UNAVAILABLE' }, { ok: true, callbacks: 2 }]);
    const reconcile = { reconcilePortalLinkJobs: async () => ({ examined: 1, started: 1, alreadyRunning: 0, closedFailed: 0, failed: 0 }) };
    const worker = await Worker.create({ connection: env.nativeConnection, taskQueue: TQ, workflowBundle, activities: { ...fakes.jobs, ...fakes.portal, ...reconcile }, dataConverter });
    await worker.runUntil(async () => {
      const record = async (file: string, workflow: string, args: unknown[]) => {
        const handle = await env.client.workflow.start(workflow, { workflowId: file, taskQueue: TQ, args });
        await handle.result();
        writeFileSync(join(__dirname, '..', '..', 'histories', file), `${JSON.stringify(JSON.parse(historyToJSON(await handle.fetchHistory())), null, 1)}\n`);
      };
      await record('portal-link-apply-succeeds.json', 'portalLinkWorkflow', [linkInput({ jobs: TQ, portal: TQ }, randomUUID())]);
      await record('reconcile-portal-link-jobs.json', 'reconcilePortalLinkJobsWorkflow', [{ queues: { jobs: TQ, ai: TQ, github: TQ }, graceSeconds: 30 }]);
    });
  } finally {
    await env.teardown();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
