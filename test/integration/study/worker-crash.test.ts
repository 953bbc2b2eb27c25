/**
 * ST-4/ST-5/ST-6: the `study-cards` worker, run as its own process (src/workers/main.ts --queue study-cards), is
 * SIGKILLed in the middle of an extraction (its AI provider holds the call and never answers). The
 * heartbeat timeout ends that attempt (`unknown`, kept in the row); the next attempt runs on another
 * worker and completes: exactly one set of live cards, attempts = 2.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { createStudyCardActivities } from '../../../src/activities/study/cards';
import { createLocalAiProvider } from '../../../src/ai/local';
import { createStudyAi } from '../../../src/ai/study';
import { enqueueExtraction } from '../../../src/services/study/enqueue';
import { writeExplanation } from '../../../src/services/study/questions';
import { startExtraction } from '../../../src/services/study/start';
import { STUDY_CARDS_QUEUE } from '../../../src/domain/study/contracts';
import { pollUntil } from '../../support/poll';
import { startStack, type Stack } from '../../support/stack';

const ROOT = path.resolve(__dirname, '..', '..', '..');
let stack: Stack;
let provider: Server;
const held: IncomingMessage[] = [];
const children: ChildProcess[] = [];
let env: Record<string, string>;

beforeAll(async () => {
  // An "AI provider" that accepts every request and never answers: the worker is stuck mid-call.
  provider = createServer((req) => held.push(req));
  await new Promise<void>((r) => provider.listen(0, '127.0.0.1', r));
  const settings = { ST_EXTRACT_HEARTBEAT_TIMEOUT_MS: '10000', ST_EXTRACT_RETRY_DELAY_MS: '0' };
  stack = await startStack({ aiWorker: false, aiRunsWorker: false, env: settings });
  env = {
    ...(process.env as Record<string, string>),
    ...settings,
    NODE_ENV: 'test',
    DATABASE_URL: stack.dbUrl,
    TEMPORAL_ADDRESS: stack.config.temporal.address,
    TEMPORAL_TASK_QUEUE_PREFIX: stack.config.temporal.taskQueuePrefix,
    AI_PROVIDER: 'openai',
    OPENAI_BASE_URL: `http://127.0.0.1:${(provider.address() as AddressInfo).port}/v1`,
    OPENAI_API_KEY: 'sk-test-held',
    ST_POLL_SCHEDULE_ENABLED: 'false',
    SCHEDULES_ENABLED: 'false',
    LOG_LEVEL: 'error',
  };
}, 120_000);

afterAll(async () => {
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
  for (const r of held) r.socket.destroy();
  await new Promise((r) => provider?.close(r));
  await stack?.stop();
});

const exited = (c: ChildProcess) => new Promise<number | null>((r) => (c.exitCode !== null ? r(c.exitCode) : c.once('exit', (code) => r(code))));

test('SIGKILL mid-extraction: attempt 1 ends unknown, attempt 2 on another worker completes, one set of live cards', async () => {
  const owner = await stack.newUser();
  const topic = await stack.db.studyTopic.create({ data: { userId: owner.userId, name: 'Indexes' } });
  const q = await stack.db.studyQuestion.create({ data: { userId: owner.userId, topicId: topic.id, question: 'What is a partial index?' } });
  const version = await writeExplanation(stack.db, q.id, 'A partial index is an index built over a subset of the rows of a table. It stores only the rows that match its WHERE clause.', 'ai');

  // node itself (not the tsx wrapper), so that SIGKILL hits the worker process.
  const first = spawn(process.execPath, ['--import', 'tsx', 'src/workers/main.ts', '--queue', 'study-cards'], { cwd: ROOT, env, stdio: ['ignore', 'ignore', 'inherit'] });
  children.push(first);
  const r = await enqueueExtraction(stack.db, { userId: owner.userId, sourceKind: 'study_question', sourceId: q.id, sourceVersion: version! });
  if (r.status !== 'enqueued') throw new Error('not enqueued');
  await startExtraction(stack.client, stack.config, r.job);
  await pollUntil(() => held.length, (n) => n >= 1, { describe: 'the worker process (it bundles the workflows first) to call its AI provider', timeoutMs: 240_000, maxIntervalMs: 500 });
  expect(await stack.db.studyMemoCardJob.findUniqueOrThrow({ where: { id: r.job.jobId } })).toMatchObject({ status: 'processing', attempts: 1 });

  first.kill('SIGKILL'); // no graceful shutdown: the heartbeats just stop
  expect(await exited(first)).toBeNull();
  const stop = await stack.startOwnQueueWorker(STUDY_CARDS_QUEUE, createStudyCardActivities({ db: stack.db, config: stack.config, ai: createStudyAi(createLocalAiProvider()) }));
  try {
    await stack.client.workflow.getHandle(r.job.workflowId).result();
  } finally {
    await stop();
  }
  const job = await stack.db.studyMemoCardJob.findUniqueOrThrow({ where: { id: r.job.jobId } });
  expect(job).toMatchObject({ status: 'completed', attempts: 2, errorCode: null });
  expect((job.payload as { attemptErrors: Record<string, { code: string }> }).attemptErrors).toEqual({ 1: expect.objectContaining({ code: 'unknown' }) });
  const cards = await stack.db.studyMemoCard.findMany({ where: { sourceId: q.id } });
  expect(cards.length).toBeGreaterThan(0);
  expect(cards.every((c) => c.deletedAt === null && c.jobId === r.job.jobId)).toBe(true);
  expect(new Set(cards.map((c) => c.normalizedKey)).size).toBe(cards.length);
  expect((job.payload as { result: { added: number } }).result.added).toBe(cards.length);
}, 420_000);
