/**
 * AR-7/AR-8 with the real HTTP adapter against the runtime emulator: the `ai-runs` worker, run as
 * its own process (src/workers/main.ts --queue ai-runs), is SIGKILLed in the middle of a runtime call; the
 * heartbeat timeout ends that attempt LEASE_EXPIRED and the run goes on with a new attempt on
 * another worker to SUCCEEDED. The emulator counts the calls: exactly one per attempt.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { startAiRuntimeEmulator, type AiRuntimeEmulator } from '../../support/ai-runtime-emulator';
import { pollUntil } from '../../support/poll';
import { startStack, type Stack } from '../../support/stack';
import { companyWithMembers, postRun, waitForRun } from './support';

const ROOT = path.resolve(__dirname, '..', '..', '..');
let emulator: AiRuntimeEmulator;
let stack: Stack;
let env: Record<string, string>;
const children: ChildProcess[] = [];

beforeAll(async () => {
  emulator = await startAiRuntimeEmulator();
  const runtime = { AI_RUNTIME: 'http', AI_RUNTIME_URL: emulator.url, AI_RUNTIME_HEARTBEAT_TIMEOUT_MS: '10000', AI_RUN_RETRY_INITIAL_MS: '100' };
  stack = await startStack({ aiWorker: false, aiRunsWorker: false, env: runtime });
  env = {
    ...(process.env as Record<string, string>),
    ...runtime,
    NODE_ENV: 'test',
    DATABASE_URL: stack.dbUrl,
    TEMPORAL_ADDRESS: stack.config.temporal.address,
    TEMPORAL_TASK_QUEUE_PREFIX: stack.config.temporal.taskQueuePrefix,
    LOG_LEVEL: 'error',
  };
}, 120_000);
afterAll(async () => {
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
  await stack?.stop();
  await emulator?.close();
});

const exited = (c: ChildProcess) => new Promise<number | null>((r) => (c.exitCode !== null ? r(c.exitCode) : c.once('exit', (code) => r(code))));

test('SIGKILL mid-call: attempt 1 LEASE_EXPIRED, attempt 2 SUCCEEDED, one runtime call per attempt', async () => {
  const co = await companyWithMembers(stack);
  emulator.setMode('timeout'); // the runtime never answers while the first worker holds the call
  // node itself (not the tsx wrapper), so that SIGKILL hits the worker process.
  const first = spawn(process.execPath, ['--import', 'tsx', 'src/workers/main.ts', '--queue', 'ai-runs'], { cwd: ROOT, env, stdio: ['ignore', 'ignore', 'inherit'] });
  children.push(first);

  const res = await postRun(stack, co.hr.auth, randomUUID(), { companyId: co.companyId, text: 'Leave request: 3 days from 2026-12-07', locale: 'en' });
  expect(res.statusCode).toBe(202);
  const id = (res.json() as { aiRunId: string }).aiRunId;
  await pollUntil(() => emulator.calls.length, (n) => n >= 1, { describe: 'the first worker process to call the runtime', timeoutMs: 60_000, maxIntervalMs: 200 });

  first.kill('SIGKILL'); // no graceful shutdown: the heartbeats just stop
  expect(await exited(first)).toBeNull();
  emulator.setMode('ok');
  await stack.startAiRunsWorker(); // another worker takes the next attempt

  const done = await waitForRun(stack, co.hr.auth, id, ['SUCCEEDED', 'FAILED'], 60_000);
  expect(done.status).toBe('SUCCEEDED');
  expect(done.attempts.map((a) => [a.number, a.status, a.trigger, a.errorCode])).toEqual([
    [1, 'FAILED', 'INITIAL', 'LEASE_EXPIRED'],
    [2, 'SUCCEEDED', 'AUTO_RETRY', null],
  ]);
  for (const a of done.attempts) expect(emulator.callsFor(a.requestId)).toBe(1);
  expect(emulator.calls).toHaveLength(done.attempts.length);
});

test('runtime faults through the real adapter: 503 then 429 (Retry-After) then success → 3 attempts, 3 calls; a schema violation → FAILED at once', async () => {
  const co = await companyWithMembers(stack);
  emulator.reset();
  emulator.failNext(1, '503');
  emulator.failNext(1, '429', { retryAfter: '1' });
  const res = await postRun(stack, co.hr.auth, randomUUID(), { companyId: co.companyId, text: '재직증명서 2부 발급 부탁드립니다', locale: 'ko' });
  const id = (res.json() as { aiRunId: string }).aiRunId;
  const done = await waitForRun(stack, co.hr.auth, id, ['SUCCEEDED', 'FAILED'], 60_000);
  expect(done.status).toBe('SUCCEEDED');
  expect(done.attempts.map((a) => a.errorCode)).toEqual(['RUNTIME_UNAVAILABLE', 'RUNTIME_RATE_LIMITED', null]);
  expect(emulator.calls).toHaveLength(3);
  for (const a of done.attempts) expect(emulator.callsFor(a.requestId)).toBe(1);

  emulator.reset();
  emulator.failNext(1, 'schema-violation');
  const bad = await postRun(stack, co.hr.auth, randomUUID(), { companyId: co.companyId, text: 'Payroll correction: 50,000 won missing in November' });
  const failed = await waitForRun(stack, co.hr.auth, (bad.json() as { aiRunId: string }).aiRunId, ['SUCCEEDED', 'FAILED'], 60_000);
  expect(failed).toMatchObject({ status: 'FAILED', errorCode: 'SCHEMA_VIOLATION', attemptCount: 1, candidates: [] });
  expect(emulator.calls).toHaveLength(1);
});
