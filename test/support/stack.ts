/**
 * Integration harness: a fresh database (cloned from the migrated template) on the real PostgreSQL
 * 15, real workers of the declared task queues (src/families) in-process on unique task queues of
 * the real Temporal dev server, and the fastify app for `inject`. Each test file gets its own
 * stack; nothing is shared but servers.
 */
import { randomBytes } from 'node:crypto';
import { Connection, type Client } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime, type Worker, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import type { FastifyInstance } from 'fastify';
import type { PrismaClient } from '@prisma/client';
import pino, { type Logger } from 'pino';
import { buildApp } from '../../src/api/app';
import { createUserWithToken } from '../../src/auth/tokens';
import { createPrisma } from '../../src/db/client';
import { temporalClient } from '../../src/core/connections';
import { createJobStarter, FAMILY_API, loadConfig, processOf, queueDecl, type Config } from '../../src/families';
import type { JobStarter } from '../../src/core/starter';
import { jobWorkflowId, taskQueues, type TaskQueues } from '../../src/core/contracts';
import type { AiProvider } from '../../src/ai/types';
import { createQueueWorker, type QueueWorkerDeps } from '../../src/workers/queue-worker';
import { AI_RUNS_QUEUE } from '../../src/domain/ai-runs/contracts';
import { createTestDatabase } from './postgres';
import { pollUntil } from './poll';
import { sharedBundle } from './workflow-bundles';
import { workerTelemetry } from '../../src/telemetry/temporal';
import type { Tracing } from '../../src/telemetry/tracing';

/** The run's workflow bundle (built once per jest run); `traced` adds the tracing workflow interceptors. */
export function workflowBundle(traced = false): Promise<WorkflowBundleWithSourceMap> {
  return sharedBundle(traced ? 'traced' : 'plain');
}

try {
  Runtime.install({ logger: new DefaultLogger('ERROR') });
} catch {
  // already installed in this jest worker
}

/** Options of {@link startStack}. */
export interface StackOptions {
  /** Extra environment for loadConfig (e.g. AI_PROVIDER=openai). */
  env?: Record<string, string>;
  /** AI provider injected into the in-process `ai` worker. */
  ai?: AiProvider;
  /** Replaces the API's workflow starter (crash simulation). */
  apiStarter?: JobStarter;
  /** Start the in-process `ai` worker (default true). */
  aiWorker?: boolean;
  /** Start the in-process `ai-runs` worker (default true; AI_RUNTIME / AI_RUNTIME_URL via `env`). */
  aiRunsWorker?: boolean;
  /** Start the in-process `github` worker (default false; point GITHUB_API_URL at an emulator via `env`). */
  githubWorker?: boolean;
  /** The API's logger (default: pino at level error). */
  logger?: Logger;
  /** Installed tracing: the workers get its interceptors and workflow-span sink. */
  tracing?: Tracing;
  /** Admin URL of the PostgreSQL server to create the test database on (default: the shared one, TEST_PG_ADMIN_URL). */
  pgAdminUrl?: string;
}

/** A running stack; `stop()` shuts workers down and drops the database. */
export interface Stack {
  config: Config;
  db: PrismaClient;
  client: Client;
  queues: TaskQueues;
  app: FastifyInstance;
  dbUrl: string;
  /** Starts the `ai` worker (if it was not started, or after `stopAiWorker`). */
  startAiWorker(ai?: AiProvider): Promise<void>;
  stopAiWorker(): Promise<void>;
  /** Starts the in-process `ai-runs` worker (if it is not running); `activities` replace the declared ones. */
  startAiRunsWorker(activities?: object): Promise<void>;
  stopAiRunsWorker(): Promise<void>;
  /**
   * Starts an in-process worker of declared queue `name` (e.g. `study-cards`; its workflows too when
   * the manifest says so); `activities` replace the declared ones. Returns its stop function.
   */
  startOwnQueueWorker(name: string, activities?: object): Promise<() => Promise<void>>;
  /** Starts the in-process `github` worker (if it is not running). */
  startGithubWorker(): Promise<void>;
  stopGithubWorker(): Promise<void>;
  newUser(name?: string): Promise<{ userId: string; token: string; auth: { authorization: string } }>;
  stop(): Promise<void>;
}

function required(name: string): string {
  const v = process.env[name];
  if (!v) throw new Error(`${name} is not set: run the tests through jest (globalSetup starts the servers)`);
  return v;
}

/** Starts a stack for one test file. */
export async function startStack(opts: StackOptions = {}): Promise<Stack> {
  const database = await createTestDatabase(opts.pgAdminUrl ?? required('TEST_PG_ADMIN_URL'));
  const prefix = `t${randomBytes(4).toString('hex')}-`;
  const config = loadConfig({
    NODE_ENV: 'test',
    DATABASE_URL: database.url,
    DATABASE_POOL_MAX: '10',
    TEMPORAL_ADDRESS: required('TEST_TEMPORAL_ADDRESS'),
    TEMPORAL_TASK_QUEUE_PREFIX: prefix,
    SCHEDULES_ENABLED: 'false',
    LOG_LEVEL: 'warn',
    ...opts.env,
  });
  const db = createPrisma(database.url, { poolMax: 10 });
  const [connection, native] = await Promise.all([
    Connection.connect({ address: config.temporal.address }),
    NativeConnection.connect({ address: config.temporal.address }),
  ]);
  const client = temporalClient(connection, config.temporal);
  const queues = taskQueues(prefix);
  const logger = opts.logger ?? pino({ level: 'error' });
  const app = await buildApp({
    ...FAMILY_API,
    config,
    db,
    starter: opts.apiStarter ?? createJobStarter(client, queues),
    temporal: client,
    logger,
  });
  await app.ready();

  const running: { worker: Worker; done: Promise<void> }[] = [];
  const telemetry = opts.tracing ? workerTelemetry(opts.tracing) : undefined;
  /** Starts an in-process worker of declared queue `name`; returns its stop function. */
  const startQueue = async (name: string, extra: Pick<QueueWorkerDeps, 'activities' | 'provided'> = {}) => {
    const bundle = queueDecl(name).workflows ? await workflowBundle(Boolean(telemetry)) : undefined;
    const worker = await createQueueWorker(name, { config, db, client, connection: native, telemetry, workflowBundle: bundle, ...extra });
    const entry = { worker, done: worker.run() };
    running.push(entry);
    return async () => {
      if (entry.worker.getState() === 'RUNNING') entry.worker.shutdown();
      const i = running.indexOf(entry);
      if (i >= 0) running.splice(i, 1);
      await entry.done;
    };
  };
  // The `jobs` process's queues (every job workflow, the reconcilers) always run.
  const jobsQueues = processOf('jobs').queues.map((name) => startQueue(name));
  /** Workers started by name through the named helpers below, with their stop functions. */
  const named = new Map<string, () => Promise<void>>();
  const startNamed = async (name: string, extra: Pick<QueueWorkerDeps, 'activities' | 'provided'> = {}) => {
    if (!named.has(name)) named.set(name, await startQueue(name, extra));
  };
  const stopNamed = async (name: string) => {
    await named.get(name)?.();
    named.delete(name);
  };

  const stack: Stack = {
    config, db, client, queues, app, dbUrl: database.url,
    async startAiWorker(ai) {
      const provided = ai ?? opts.ai;
      await startNamed('ai', provided ? { provided: { ai: provided } } : {});
    },
    stopAiWorker: () => stopNamed('ai'),
    startAiRunsWorker: (activities) => startNamed(AI_RUNS_QUEUE, activities ? { activities } : {}),
    stopAiRunsWorker: () => stopNamed(AI_RUNS_QUEUE),
    async startOwnQueueWorker(name, activities) {
      const stop = await startQueue(name, activities ? { activities } : {});
      return () => stop().catch(() => undefined);
    },
    startGithubWorker: () => startNamed('github'),
    stopGithubWorker: () => stopNamed('github'),
    async newUser(name = `user-${randomBytes(4).toString('hex')}`) {
      const { userId, token } = await createUserWithToken(db, name);
      return { userId, token, auth: { authorization: `Bearer ${token}` } };
    },
    async stop() {
      for (const r of running) if (r.worker.getState() === 'RUNNING') r.worker.shutdown();
      await Promise.allSettled(running.map((r) => r.done));
      await app.close();
      await native.close();
      await connection.close();
      await db.$disconnect();
      await database.drop();
    },
  };
  // Every worker is created at once (each waits on the server and on its own bundle load).
  const starts = await Promise.allSettled([
    ...jobsQueues,
    opts.aiWorker !== false ? stack.startAiWorker() : undefined,
    opts.githubWorker ? stack.startGithubWorker() : undefined,
    opts.aiRunsWorker !== false ? stack.startAiRunsWorker() : undefined,
  ]);
  const failed = starts.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) {
    await stack.stop().catch(() => undefined);
    throw failed.reason;
  }
  return stack;
}

/** Options of {@link waitForJob}. */
export interface WaitForJobOptions {
  /** Give up after this many ms while the row is still PENDING or PROCESSING (default 45 000). */
  timeoutMs?: number;
}

/**
 * Waits until job `jobId` is terminal (COMPLETED or FAILED) and returns it as
 * `GET /async-jobs/{id}` shows it. Each attempt first waits for the job's workflow to close (its
 * result or its failure; the projection is written before the workflow closes), then reads the
 * projection; a row still active (workflow not started yet, or a retry in flight) is polled
 * through {@link pollUntil}.
 * @throws PollTimeoutError when the row is still active after `timeoutMs`, with its last state.
 */
export async function waitForJob(
  stack: Stack,
  jobId: string,
  auth: { authorization: string },
  opts: WaitForJobOptions = {},
): Promise<{ status: string; errorMessage: string | null; jobType: string; targetId: string }> {
  const row = await stack.db.asyncJob.findUniqueOrThrow({ where: { jobId } });
  const handle = stack.client.workflow.getHandle(jobWorkflowId(row.jobType, row.targetId));
  let status: string = row.status;
  let attempt = 0;
  return pollUntil(
    async () => {
      // Always on the first attempt (steps after the completing transaction, e.g. starting a
      // follow-up job, finish before the workflow closes), later only while the row is active.
      if (attempt++ === 0 || status === 'PENDING' || status === 'PROCESSING') {
        await handle.result().catch(() => undefined); // not started yet, or failed: read the row
      }
      const res = await stack.app.inject({ method: 'GET', url: `/async-jobs/${jobId}`, headers: auth });
      if (res.statusCode !== 200) throw new Error(`GET /async-jobs/${jobId} answered ${res.statusCode}: ${res.body}`);
      const job = res.json() as { status: string; errorMessage: string | null; jobType: string; targetId: string };
      status = job.status;
      return job;
    },
    (job) => job.status === 'COMPLETED' || job.status === 'FAILED',
    { describe: `job ${jobId} (${row.jobType} ${row.targetId}) to be COMPLETED or FAILED`, timeoutMs: opts.timeoutMs ?? 45_000 },
  );
}
