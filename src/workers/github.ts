/**
 * Entry point of the `github` task queue (DC-2, SAN-10): GitHub API activities only, with their
 * own concurrency limit (GITHUB_ACTIVITY_CONCURRENCY), so a slow or rate-limited GitHub cannot
 * starve projection or AI work.
 */
import { NativeConnection, Runtime, Worker } from '@temporalio/worker';
import type { PrismaClient } from '@prisma/client';
import { loadConfig, type Config } from '../config';
import { createGithubActivities } from '../activities/github';
import { createGithubStarActivities } from '../activities/github-stars';
import { tokenBoxFromConfig } from '../crypto/token-box';
import { githubClientFactoryFromConfig, type GithubClientFactory } from '../github/client';
import { createLogger, temporalLogger } from '../log';
import { openDatabase } from '../runtime';
import { taskQueues } from '../shared/contracts';

/** Dependencies of {@link createGithubWorker}; tests may inject a client factory. */
export interface GithubWorkerDeps {
  config: Config;
  db: PrismaClient;
  connection: NativeConnection;
  github?: GithubClientFactory;
}

/** Builds (does not run) the `github` worker. */
export async function createGithubWorker(deps: GithubWorkerDeps): Promise<Worker> {
  const queues = taskQueues(deps.config.temporal.taskQueuePrefix);
  return Worker.create({
    connection: deps.connection,
    namespace: deps.config.temporal.namespace,
    taskQueue: queues.github,
    activities: {
      ...createGithubActivities({
        db: deps.db,
        tokens: tokenBoxFromConfig(deps.config),
        github: deps.github ?? githubClientFactoryFromConfig(deps.config),
      }),
      // SAN-12 starred repositories (src/activities/github-stars.ts)
      ...createGithubStarActivities({
        db: deps.db,
        tokens: tokenBoxFromConfig(deps.config),
        github: deps.github ?? githubClientFactoryFromConfig(deps.config),
      }),
    },
    maxConcurrentActivityTaskExecutions: deps.config.github.activityConcurrency,
    shutdownGraceTime: '10s',
  });
}

async function main(): Promise<void> {
  const config = loadConfig();
  const log = createLogger(config.logLevel, 'worker-github');
  Runtime.install({ logger: temporalLogger(log) });
  const db = openDatabase(config);
  const connection = await NativeConnection.connect({ address: config.temporal.address });
  try {
    const worker = await createGithubWorker({ config, db, connection });
    log.info({ taskQueue: worker.options.taskQueue, apiUrl: config.github.apiUrl }, 'github worker running');
    await worker.run();
    log.info('github worker stopped');
  } finally {
    await connection.close();
    await db.$disconnect();
  }
}

if (require.main === module) {
  main().catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
}
