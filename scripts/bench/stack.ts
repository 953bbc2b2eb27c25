/**
 * The stack the bench measures, started in this process: PostgreSQL 15 with a migrated database,
 * the Temporal dev server on SQLite in a temp dir (or the external ones given), an in-memory
 * PGlite + pgvector for (d), the GitHub emulator for (e), for (l) the portal emulator and an
 * S3-compatible store (moto); then the Temporal workers and the API on a free port, with
 * AI_PROVIDER=local. On another topology ({@link StackOptions.cluster}) its processes serve the API
 * and the workers, and the stack starts neither. Everything registers its stop with {@link started}.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Connection, type Client } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime, type Worker } from '@temporalio/worker';
import type { FastifyInstance } from 'fastify';
import pino, { type Logger } from 'pino';
import { buildApp } from '../../src/api/app';
import { taskQueues, type TaskQueues } from '../../src/core/contracts';
import { temporalClient } from '../../src/core/connections';
import { createPrisma, type Db } from '../../src/db/client';
import { startEmbeddedPostgres, type EmbeddedPostgres } from '../../src/db/embedded';
import { migrateDeploy } from '../../src/db/migrate';
import { LOCAL_OBJECT_STORE_CREDENTIALS, startLocalObjectStore } from '../../src/dev/object-store-server';
import { ensureSearchAttributes, getFreePort, startTemporalDevServer } from '../../src/dev/temporal-server';
import { PORTAL_QUEUE } from '../../src/domain/portal/contracts';
import { createJobStarter, FAMILY_API, loadConfig, workerQueues, type Config } from '../../src/families';
import { createCardSimilarity, type CardSimilarity } from '../../src/services/scraps/similarity';
import { createS3ObjectStore } from '../../src/storage/s3';
import { createQueueWorker } from '../../src/workers/queue-worker';
import { startGithubEmulator, type GithubEmulator } from '../../test/support/github-emulator';
import { startPortalEmulator, type PortalEmulator } from '../../test/support/portal-emulator';
import { createTestDatabase, startPostgres } from '../../test/support/postgres';
import { redactUrl } from '../lib/net';
import type { ClusterTopology } from './cluster';
import { elapsed, reportWorkerFailure, say, sdkWarnings, started } from './lifecycle';
import type { ExternalTargets } from './options';

/** What the stack needs to know before it starts. */
export interface StackOptions {
  external: ExternalTargets;
  runId: string;
  /** Start the portal emulator, the object store and the portal worker ((l) runs). */
  portal: boolean;
  /**
   * The production topology (`--topology cluster`): its API processes, workers, emulators and
   * object store replace the in-process ones; `external` must point at its Temporal and database.
   */
  cluster?: ClusterTopology;
}

/** The running stack: where its servers are, its clients, and the API. */
export interface BenchStack {
  config: Config;
  logger: Logger;
  /** Prisma over the benchmark's PostgreSQL. */
  db: Db;
  client: Client;
  queues: TaskQueues;
  /** The in-process API; absent on the cluster topology. */
  app?: FastifyInstance;
  apiUrl: string;
  similarity: CardSimilarity;
  databaseUrl: string;
  temporalAddress: string;
  /** The in-memory PGlite + pgvector of (d), migrated. */
  embedded: EmbeddedPostgres;
  github: GithubEmulator;
  portal?: PortalEmulator;
  cluster?: ClusterTopology;
}

/** Starts the servers, the workers and the API; prints the `servers up`, `stack` and `stack ready` lines. */
export async function startStack(opts: StackOptions): Promise<BenchStack> {
  const { external, runId, cluster } = opts;
  // Servers side by side (each registers its stop as soon as it runs).
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'bench-'));
  const removeTmp = () => rmSync(tmp, { recursive: true, force: true });
  started('temp dir', async () => removeTmp());
  process.once('exit', removeTmp); // also when the process is made to exit before stopAll is done
  const servers = await Promise.allSettled([
    (async () => {
      if (external.databaseUrl) {
        await migrateDeploy(external.databaseUrl);
        return { url: external.databaseUrl };
      }
      const pg = await startPostgres();
      started('PostgreSQL 15', () => pg.stop());
      return createTestDatabase(pg.adminUrl);
    })(),
    (async () => {
      if (external.temporalAddress) return { address: external.temporalAddress };
      const server = await startTemporalDevServer({ dbFilename: path.join(tmp, 'temporal.sqlite'), logFile: path.join(tmp, 'temporal.log'), log: (l) => say(`temporal: ${l}`) });
      started('Temporal dev server', () => server.stop());
      return server;
    })(),
    (async () => {
      const pglite = await startEmbeddedPostgres({ dataDir: 'memory://' });
      started('embedded PGlite', () => pglite.stop());
      await migrateDeploy(pglite.url);
      return pglite;
    })(),
  ] as const);
  const [database, temporal, embedded] = servers.map((r) => {
    if (r.status === 'rejected') throw r.reason;
    return r.value;
  }) as [{ url: string }, { address: string }, EmbeddedPostgres];
  say(`${elapsed()} servers up`);

  const github = await startGithubEmulator();
  started('GitHub emulator', () => github.close());

  // The API's port is fixed before the config: the portal's callback URL names it.
  const portalEnv: Record<string, string> = {};
  let apiPort = 0;
  let portal: PortalEmulator | undefined;
  if (opts.portal && !cluster) {
    const emulator = await startPortalEmulator();
    portal = emulator;
    started('portal emulator', () => emulator.close());
    const moto = await startLocalObjectStore();
    started('object store (moto)', () => moto.stop());
    apiPort = await getFreePort();
    Object.assign(portalEnv, {
      OBJECT_STORE_ENDPOINT: moto.endpoint,
      OBJECT_STORE_ACCESS_KEY_ID: LOCAL_OBJECT_STORE_CREDENTIALS.accessKeyId,
      OBJECT_STORE_SECRET_ACCESS_KEY: LOCAL_OBJECT_STORE_CREDENTIALS.secretAccessKey,
      OBJECT_STORE_FORCE_PATH_STYLE: 'true',
      PORTAL_SUWON_BASE_URL: emulator.url,
      PORTAL_CALLBACK_URL: `http://127.0.0.1:${apiPort}/internal/scrape-results`,
    });
  }

  const config = loadConfig({
    ...process.env,
    ...portalEnv,
    ...cluster?.env,
    GITHUB_API_URL: github.url,
    NODE_ENV: 'development',
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn',
    DATABASE_URL: database.url,
    DATABASE_POOL_MAX: '10',
    TEMPORAL_ADDRESS: temporal.address,
    TEMPORAL_NAMESPACE: external.namespace,
    // On someone's cluster, queues of this run only: no other worker takes its tasks, nor it theirs.
    TEMPORAL_TASK_QUEUE_PREFIX: external.temporalAddress && !cluster ? `bench-${runId}-` : '',
    AI_PROVIDER: 'local',
    VECTOR_SEARCH: 'auto',
    SCHEDULES_ENABLED: 'false',
  });
  // Service logs go to stderr, so stdout holds only the report.
  const logger = pino({ level: config.logLevel, base: { component: 'bench' }, redact: ['req.headers.authorization'] }, pino.destination(2));
  installSdkRuntime(logger);

  const db = createPrisma(database.url, { poolMax: config.database.poolMax });
  started('Prisma (PostgreSQL 15)', () => db.$disconnect());
  const connection = await Connection.connect({ address: temporal.address });
  started('Temporal client', () => connection.close());
  const client = temporalClient(connection, config.temporal);
  if (external.temporalAddress) await ensureSearchAttributes(connection, config.temporal.namespace); // the dev server registers them at start
  const queues = taskQueues(config.temporal.taskQueuePrefix);
  const similarity = await createCardSimilarity(db, config.similarity.vectorSearch);
  const inProcess = cluster ? undefined : await startWorkersAndApi({ config, db, client, queues, logger, portal: portal !== undefined, apiPort });
  const apiUrl = cluster?.apiUrl ?? inProcess!.apiUrl;
  const pgVersion = (await db.$queryRaw<{ v: string }[]>`SELECT current_setting('server_version') AS v`)[0]?.v;
  if (external.temporalAddress || external.databaseUrl) {
    const prefix = config.temporal.taskQueuePrefix;
    say(`external: ${external.temporalAddress ? `Temporal ${external.temporalAddress} (namespace ${external.namespace}, task queues ${prefix ? `${prefix}*` : 'unprefixed'})` : 'own Temporal dev server'}; ${external.databaseUrl ? `database ${redactUrl(external.databaseUrl)}` : 'own PostgreSQL 15'}`);
  }
  say(`stack: PostgreSQL ${pgVersion} (${similarity.strategy} similarity), Temporal ${temporal.address}, API ${apiUrl}, AI_PROVIDER=${config.ai.provider}, LOG_LEVEL=${config.logLevel}`);
  say(`${elapsed()} stack ready`);
  return {
    config, logger, db, client, queues, apiUrl, similarity, databaseUrl: database.url, temporalAddress: temporal.address, embedded, github,
    ...(inProcess ? { app: inProcess.app } : {}), ...(portal ? { portal } : {}), ...(cluster ? { cluster } : {}),
  };
}

/** The in-process service: a worker per declared task queue (the portal's only with its object store) and the API on `apiPort` (0: a free one). */
async function startWorkersAndApi(o: { config: Config; db: Db; client: Client; queues: TaskQueues; logger: Logger; portal: boolean; apiPort: number }): Promise<{ app: FastifyInstance; apiUrl: string }> {
  const { config, db, client } = o;
  const native = await NativeConnection.connect({ address: config.temporal.address });
  started('Temporal worker connection', () => native.close());
  if (o.portal) {
    const bucket = createS3ObjectStore(config.objectStore);
    await bucket.ensureBucket();
    bucket.close();
  }
  const workers: Worker[] = [];
  for (const queue of workerQueues()) {
    if (queue !== PORTAL_QUEUE || o.portal) workers.push(await createQueueWorker(queue, { config, db, client, connection: native }));
  }
  const runs = workers.map((w) => w.run().catch(reportWorkerFailure));
  started('workers', async () => {
    for (const w of workers) if (w.getState() === 'RUNNING') w.shutdown();
    await Promise.allSettled(runs);
  });
  const app = await buildApp({ ...FAMILY_API, config, db, starter: createJobStarter(client, o.queues), temporal: client, logger: o.logger });
  await app.listen({ host: '127.0.0.1', port: o.apiPort });
  started('API', () => app.close());
  return { app, apiUrl: `http://127.0.0.1:${(app.server.address() as { port: number }).port}` };
}

/**
 * The Temporal SDK's runtime: its warnings (also the native core's, forwarded) are counted and
 * summarised at the end, its errors logged. "Workflow task duration exceeded 5 seconds" means the
 * machine is overloaded.
 */
function installSdkRuntime(logger: Logger): void {
  Runtime.install({
    logger: new DefaultLogger('WARN', (entry) => {
      if (entry.level === 'ERROR') logger.error(entry.meta ?? {}, entry.message);
      else {
        const key = entry.message.replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\S*/gi, '<run>').slice(0, 90);
        sdkWarnings.set(key, (sdkWarnings.get(key) ?? 0) + 1);
      }
    }),
    telemetryOptions: { logging: { filter: { core: 'WARN', other: 'ERROR' }, forward: {} } },
  });
}
