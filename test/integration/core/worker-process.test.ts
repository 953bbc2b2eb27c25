/**
 * The generic worker entry point run as production runs it (`src/workers/main.ts --queue jobs`, its
 * own process): it serves every queue of its process (`jobs` and `maintenance`), ensures the
 * Schedules of those queues at start-up (SCHEDULES_ENABLED), and stops cleanly on SIGTERM.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { processOf, schedulesOn } from '../../../src/families';
import { scheduleId } from '../../../src/workers/schedules';
import { pollUntil } from '../../support/poll';
import { startStack, type Stack } from '../../support/stack';

const ROOT = path.resolve(__dirname, '..', '..', '..');
let stack: Stack;
let child: ChildProcess | undefined;
beforeAll(async () => {
  stack = await startStack({ aiWorker: false, aiRunsWorker: false });
});
afterAll(async () => {
  if (child && child.exitCode === null) child.kill('SIGKILL');
  await stack?.stop();
});

const exited = (c: ChildProcess) => new Promise<number | null>((r) => (c.exitCode !== null ? r(c.exitCode) : c.once('exit', (code) => r(code))));

it('`--queue jobs` polls jobs and maintenance, ensures their Schedules, and exits 0 on SIGTERM', async () => {
  const prefix = `${stack.config.temporal.taskQueuePrefix}p-`;
  const env = {
    ...(process.env as Record<string, string>),
    NODE_ENV: 'test',
    DATABASE_URL: stack.dbUrl,
    TEMPORAL_ADDRESS: stack.config.temporal.address,
    TEMPORAL_TASK_QUEUE_PREFIX: prefix,
    SCHEDULES_ENABLED: 'true',
    LOG_LEVEL: 'error',
  };
  child = spawn(process.execPath, ['--import', 'tsx', 'src/workers/main.ts', '--queue', 'jobs'], { cwd: ROOT, env, stdio: ['ignore', 'ignore', 'inherit'] });
  const { queues } = processOf('jobs');
  expect(queues).toEqual(['jobs', 'maintenance']);
  const config = { ...stack.config, temporal: { ...stack.config.temporal, taskQueuePrefix: prefix } };
  const ids = schedulesOn(queues).map((s) => scheduleId(config, s.name));
  expect(ids.length).toBeGreaterThanOrEqual(4);
  try {
    for (const queue of queues) {
      await pollUntil(
        async () => (await stack.client.workflowService.describeTaskQueue({ namespace: config.temporal.namespace, taskQueue: { name: `${prefix}${queue}` }, taskQueueType: 1 })).pollers.length,
        (n) => n > 0,
        { describe: `a poller on ${prefix}${queue}`, timeoutMs: 120_000 },
      );
    }
    for (const id of ids) {
      const d = await stack.client.schedule.getHandle(id).describe();
      expect({ id, queue: d.action.type === 'startWorkflow' ? d.action.taskQueue.startsWith(prefix) : false }).toEqual({ id, queue: true });
    }
  } finally {
    await Promise.all(ids.map((id) => stack.client.schedule.getHandle(id).delete().catch(() => undefined)));
  }
  child.kill('SIGTERM');
  expect(await exited(child)).toBe(0);
}, 180_000);
