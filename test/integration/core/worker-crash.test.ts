import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { temporal } from '@temporalio/proto';
import { jobWorkflowId } from '../../../src/core/contracts';
import { PG_INDEXES } from '../../fixtures/texts';
import { startOpenAiEmulator, type OpenAiEmulator } from '../../support/openai-emulator';
import { pollUntil } from '../../support/poll';
import { startStack, waitForJob, type Stack } from '../../support/stack';

const ROOT = path.resolve(__dirname, '..', '..', '..');
let emulator: OpenAiEmulator;
let stack: Stack;
let env: Record<string, string>;
const children: ChildProcess[] = [];

beforeAll(async () => {
  emulator = await startOpenAiEmulator();
  const ai = { AI_PROVIDER: 'openai', OPENAI_BASE_URL: emulator.url, OPENAI_API_KEY: emulator.apiKey, AI_REQUEST_TIMEOUT_MS: '120000' };
  stack = await startStack({ aiWorker: false, env: ai });
  env = {
    ...(process.env as Record<string, string>),
    ...ai,
    DATABASE_URL: stack.dbUrl,
    TEMPORAL_ADDRESS: stack.config.temporal.address,
    TEMPORAL_TASK_QUEUE_PREFIX: stack.config.temporal.taskQueuePrefix,
    LOG_LEVEL: 'error',
  };
});
afterAll(async () => {
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
  await stack?.stop();
  await emulator?.close();
});

/** Starts `src/workers/main.ts --queue ai` as its own process, as production runs it. */
function startAiWorkerProcess(): ChildProcess {
  // node itself (not the tsx wrapper), so that SIGKILL hits the worker process.
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/workers/main.ts', '--queue', 'ai'], { cwd: ROOT, env, stdio: ['ignore', 'ignore', 'inherit'] });
  children.push(child);
  return child;
}
const exited = (c: ChildProcess) => new Promise<number | null>((r) => (c.exitCode !== null ? r(c.exitCode) : c.once('exit', (code) => r(code))));

it('an AI worker killed in the middle of an activity: the job completes after a restart, with one card', async () => {
  emulator.setMode('hang'); // the provider never answers while the first worker runs
  const first = startAiWorkerProcess();
  const user = await stack.newUser();
  const ids = (await stack.app.inject({ method: 'POST', url: '/scraps', headers: user.auth, payload: { content: PG_INDEXES } })).json();
  const handle = stack.client.workflow.getHandle(jobWorkflowId('CARD_ANALYSIS', ids.scrapId));

  // Wait until the worker process has picked up analyzeScrap and is inside the AI call.
  const STARTED = temporal.api.enums.v1.PendingActivityState.PENDING_ACTIVITY_STATE_STARTED;
  await pollUntil(
    async () => (await handle.describe()).raw.pendingActivities ?? [],
    (pending) => pending.some((a) => a.activityType?.name === 'analyzeScrap' && a.state === STARTED),
    { describe: 'analyzeScrap to be started by the first worker process', timeoutMs: 30_000 },
  );

  first.kill('SIGKILL'); // no graceful shutdown: the activity's heartbeats just stop
  expect(await exited(first)).toBeNull();
  emulator.setMode('ok');
  const second = startAiWorkerProcess();

  expect((await waitForJob(stack, ids.analysisJobId, user.auth)).status).toBe('COMPLETED');
  expect((await waitForJob(stack, ids.refineJobId, user.auth)).status).toBe('COMPLETED');
  expect(await stack.db.knowledgeCard.count({ where: { scrapId: ids.scrapId } })).toBe(1);

  const history = await handle.fetchHistory();
  const attempts = history.events?.filter((e) => e.activityTaskStartedEventAttributes).map((e) => e.activityTaskStartedEventAttributes?.attempt);
  expect(attempts).toContain(2); // analyzeScrap's first attempt timed out on heartbeat and was retried

  second.kill('SIGTERM'); // graceful shutdown of the entry point
  expect(await exited(second)).toBe(0);
});
