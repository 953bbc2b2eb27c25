/**
 * Regenerates the study family's histories in test/histories (run after an intentional workflow
 * change, then commit): `npx tsx test/workflows/study/record-histories.ts`. Time-skipping test server,
 * in-memory activities (./fakes.ts). `study-card-extract-retried.json` stays checked in, unrecorded,
 * while runs of that branch can be open: its attempts begin, fail and store in activities of their
 * own (no `study-extract-one-activity` or `study-extract-local-writes` marker);
 * `study-card-extract-one-activity-retried.json` is the current branch (one activity per attempt).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { bundleWorkflowCode, Worker } from '@temporalio/worker';
import { EMBEDDING_DIMENSIONS } from '../../../src/ai/types';
import { findTemporalTestServer } from '../../../src/dev/temporal-server';
import { testDataConverter } from '../../support/temporal';
import { extractInput, fakeStudyCardActivities } from './fakes';

const TQ = 'record-st-histories';

async function main(): Promise<void> {
  const path = findTemporalTestServer();
  const dataConverter = testDataConverter();
  const env = await TestWorkflowEnvironment.createTimeSkipping({ client: { dataConverter }, ...(path ? { server: { executable: { type: 'existing-path', path } } } : {}) });
  try {
    const workflowBundle = await bundleWorkflowCode({ workflowsPath: require.resolve('../../../src/workflows') });
    const polled = [extractInput(TQ, { jobId: '11111111-1111-4111-8111-1111111111b1', sourceId: '22222222-2222-4222-8222-2222222222b1' })];
    const cards = fakeStudyCardActivities([{ type: 'AI_MALFORMED_OUTPUT', message: 'the answer is not a card batch' }, 'ok'], { polled });
    const explanation = {
      beginJob: async () => ({ proceed: true, status: 'PROCESSING' }),
      failJob: async () => 'FAILED',
      startJobs: async (jobs: unknown[]) => jobs.map(() => 'started'),
      failCancelledJob: async () => ({ status: 'FAILED', errorMessage: 'cancelled' }),
      explainStudyQuestion: async () => ({ explanation: 'A partial index is an index over a subset of rows.', embedding: Array.from({ length: EMBEDDING_DIMENSIONS }, () => 0.01) }),
      storeStudyExplanation: async () => '2026-12-01T16:10:00.125Z',
    };
    const reminders = { runStudyReminderPass: async () => ({ scanned: 2, dueToday: 1, reminded: 1 }) };
    const worker = await Worker.create({ connection: env.nativeConnection, taskQueue: TQ, workflowBundle, activities: { ...cards.acts, ...explanation, ...reminders }, dataConverter });
    await worker.runUntil(async () => {
      const record = async (file: string, workflow: string, args: unknown[], workflowId = file) => {
        const handle = await env.client.workflow.start(workflow, { workflowId, taskQueue: TQ, args });
        await handle.result();
        writeFileSync(join(__dirname, '..', '..', 'histories', file), `${JSON.stringify(JSON.parse(historyToJSON(await handle.fetchHistory())), null, 1)}\n`);
      };
      const ids = { jobId: '11111111-1111-4111-8111-1111111111c1', targetId: '22222222-2222-4222-8222-2222222222c1', userId: '33333333-3333-4333-8333-3333333333c1' };
      await record('study-explanation-completed.json', 'studyExplanationWorkflow', [{ ...ids, jobType: 'STUDY_EXPLANATION', queues: { jobs: TQ, ai: TQ, github: TQ }, localWrites: true }]);
      // The poll starts the extraction child (parse_fail at attempt 1, completed at attempt 2); record both.
      await record('study-card-poll.json', 'studyCardPollWorkflow', [{ limit: 10, sourceKinds: ['study_question'], restartGraceSeconds: 60 }]);
      await record('study-reminders.json', 'studyRemindersWorkflow', []);
      const child = polled[0]!;
      const childId = `study-card-extract:${child.sourceKind}:${child.sourceId}:${child.sourceVersion}`;
      const handle = env.client.workflow.getHandle(childId);
      await handle.result();
      writeFileSync(join(__dirname, '..', '..', 'histories', 'study-card-extract-one-activity-retried.json'), `${JSON.stringify(JSON.parse(historyToJSON(await handle.fetchHistory())), null, 1)}\n`);
    });
  } finally {
    await env.teardown();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
