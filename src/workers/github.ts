/**
 * Entry point of the `github` task queue (DC-2, SAN-10): every family's GitHub API activities only, with their
 * own concurrency limit (GITHUB_ACTIVITY_CONCURRENCY), so a slow or rate-limited GitHub cannot
 * starve projection or AI work.
 */
import { type NativeConnection, Worker } from '@temporalio/worker';
import type { PrismaClient } from '@prisma/client';
import type { Config } from '../config';
import { familyActivities } from '../families';
import { tokenBoxFromConfig } from '../crypto/token-box';
import { githubClientFactoryFromConfig, type GithubClientFactory } from '../github/client';
import { runWorkerProcess, workerInterceptorOptions } from './run';
import { taskQueues } from '../core/contracts';
import { temporalDataConverter } from '../crypto/payload-codec';
import type { WorkerTelemetry } from '../telemetry/temporal';

/** Dependencies of {@link createGithubWorker}; tests may inject a client factory. */
export interface GithubWorkerDeps {
  config: Config;
  db: PrismaClient;
  connection: NativeConnection;
  github?: GithubClientFactory;
  /** Tracing interceptors (issue 7 §2); none when absent. */
  telemetry?: WorkerTelemetry;
}

/** Builds (does not run) the `github` worker. */
export async function createGithubWorker(deps: GithubWorkerDeps): Promise<Worker> {
  const queues = taskQueues(deps.config.temporal.taskQueuePrefix);
  return Worker.create({
    connection: deps.connection,
    namespace: deps.config.temporal.namespace,
    dataConverter: temporalDataConverter(deps.config.temporal.payloadCodec), // AR-6
    taskQueue: queues.github,
    activities: familyActivities('github', {
      config: deps.config,
      db: deps.db,
      tokens: tokenBoxFromConfig(deps.config.github),
      github: deps.github ?? githubClientFactoryFromConfig(deps.config),
    }),
    maxConcurrentActivityTaskExecutions: deps.config.github.activityConcurrency,
    shutdownGraceTime: '10s',
    ...workerInterceptorOptions(deps.db, deps.telemetry, 'none'),
  });
}

if (require.main === module) {
  runWorkerProcess('worker-github', (r) => createGithubWorker(r), (config) => ({ apiUrl: config.github.apiUrl }));
}
