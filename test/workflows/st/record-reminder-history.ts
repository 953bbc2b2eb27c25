/**
 * Regenerates test/histories/study-reminders.json, the history of `studyRemindersWorkflow` for the
 * replay test (run after an intentional change of that workflow, then commit):
 * `npx tsx test/workflows/st/record-reminder-history.ts`. Time-skipping test server, a stand-in
 * activity.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { bundleWorkflowCode, Worker } from '@temporalio/worker';
import { findTemporalTestServer } from '../../../src/dev/temporal-server';
import { testDataConverter } from '../../support/temporal';

const TQ = 'record-st-reminder-history';

async function main(): Promise<void> {
  const path = findTemporalTestServer();
  const dataConverter = testDataConverter();
  const env = await TestWorkflowEnvironment.createTimeSkipping({ client: { dataConverter }, ...(path ? { server: { executable: { type: 'existing-path', path } } } : {}) });
  try {
    const workflowBundle = await bundleWorkflowCode({ workflowsPath: require.resolve('../../../src/workflows') });
    const activities = { runStudyReminderPass: async () => ({ scanned: 3, dueToday: 2, reminded: 1 }) };
    const worker = await Worker.create({ connection: env.nativeConnection, taskQueue: TQ, workflowBundle, activities, dataConverter });
    await worker.runUntil(async () => {
      const handle = await env.client.workflow.start('studyRemindersWorkflow', { workflowId: 'study-reminders.json', taskQueue: TQ, args: [] });
      await handle.result();
      writeFileSync(join(__dirname, '..', '..', 'histories', 'study-reminders.json'), `${JSON.stringify(JSON.parse(historyToJSON(await handle.fetchHistory())), null, 1)}\n`);
    });
  } finally {
    await env.teardown();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
