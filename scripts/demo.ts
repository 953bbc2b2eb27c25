/**
 * The main job (README command 1): starts the embedded PostgreSQL (unless DATABASE_URL is set), the
 * Temporal dev server with its Web UI, the API and the `jobs` and `ai` workers; creates a user;
 * submits real documents as scraps over HTTP; shows progress; prints each card with its top-3
 * similar cards; ends with `jobs: <completed>/<total> completed` (exit 0 when all completed).
 *
 *   npm run demo [-- --files '<glob>' ...] [--limit N] [--keep]
 *
 * In one process on purpose: the embedded PGlite serves exactly one connection (src/db/embedded.ts).
 */
import { readFileSync, statSync, mkdirSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, Runtime } from '@temporalio/worker';
import { glob } from 'tinyglobby';
import { buildApp } from '../src/api/app';
import { createUserWithToken } from '../src/auth/tokens';
import { loadConfig } from '../src/config';
import { createPrisma } from '../src/db/client';
import { startEmbeddedPostgres } from '../src/db/embedded';
import { migrateDeploy } from '../src/db/migrate';
import { createCardSimilarity } from '../src/db/similarity';
import { ensureSearchAttributes, startTemporalDevServer } from '../src/dev/temporal-server';
import { createTemporalJobStarter } from '../src/jobs/starter';
import { createLogger, temporalLogger } from '../src/log';
import { taskQueues } from '../src/shared/contracts';
import { createAiWorker } from '../src/workers/ai';
import { createJobsWorker } from '../src/workers/jobs';
import { ensureReconcileSchedule } from '../src/workers/schedules';

const ROOT = path.resolve(__dirname, '..');
const DATA = path.join(ROOT, '.data');

function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = createServer().once('error', () => resolve(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
  });
}
const preferPort = async (p: number) => ((await portFree(p)) ? p : 0);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Doc { file: string; content: string; sourceUrl?: string }

/** Default corpus: README files of installed packages (written by others, nothing copied). */
async function defaultDocs(limit: number): Promise<Doc[]> {
  const files = (await glob(['node_modules/*/README.md', 'node_modules/@*/*/README.md'], { cwd: ROOT, absolute: true, caseSensitiveMatch: false })).sort();
  const docs: Doc[] = [];
  const seen = new Set<string>();
  for (const file of files) {
    const size = statSync(file).size;
    if (size < 1500 || size > 60_000) continue;
    const content = readFileSync(file, 'utf8');
    if (seen.has(content)) continue; // monorepo packages often share one README
    seen.add(content);
    const pkg = path.relative(path.join(ROOT, 'node_modules'), path.dirname(file));
    docs.push({ file: `node_modules/${pkg}/README.md`, content, sourceUrl: `https://www.npmjs.com/package/${pkg}` });
  }
  // Spread the picks over the alphabet instead of taking the first N.
  const step = Math.max(1, Math.floor(docs.length / limit));
  return docs.filter((_, i) => i % step === 0).slice(0, limit);
}

async function userDocs(patterns: string[], limit: number, maxChars: number): Promise<Doc[]> {
  const files = (await glob(patterns, { absolute: true, onlyFiles: true })).sort().slice(0, limit);
  return files
    .map((file) => ({ file: path.relative(process.cwd(), file), content: readFileSync(file, 'utf8').slice(0, maxChars) }))
    .filter((d) => d.content.trim().length > 0);
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { files: { type: 'string', multiple: true }, limit: { type: 'string' }, keep: { type: 'boolean', default: false } },
  });
  const limit = Number(values.limit ?? 24);
  if (!Number.isInteger(limit) || limit < 1) throw new Error('--limit must be a positive integer');
  mkdirSync(DATA, { recursive: true });
  const base = loadConfig();
  const say = (s: string) => process.stdout.write(`${s}\n`);
  const stops: (() => Promise<unknown>)[] = [];

  try {
    // 1. Database: embedded PGlite + pgvector unless DATABASE_URL is set.
    let dbUrl = base.database.url;
    let poolMax = base.database.poolMax;
    if (!dbUrl) {
      const pg = await startEmbeddedPostgres({ dataDir: path.resolve(ROOT, base.database.embeddedDir) });
      stops.push(() => pg.stop());
      dbUrl = pg.url;
      poolMax = pg.poolMax;
      say(`database: embedded PostgreSQL (PGlite + pgvector), data in ${base.database.embeddedDir}`);
    } else {
      say('database: DATABASE_URL');
    }
    await migrateDeploy(dbUrl);

    // 2. Temporal: the dev server (real server, SQLite persistence, Web UI) unless TEMPORAL_ADDRESS is set.
    let address = base.temporal.address;
    let uiUrl = base.temporal.uiUrl;
    if (!process.env.TEMPORAL_ADDRESS) {
      const server = await startTemporalDevServer({
        port: await preferPort(7233),
        uiPort: await preferPort(8233),
        dbFilename: path.join(DATA, 'temporal.sqlite'),
        logFile: path.join(DATA, 'temporal.log'),
        log: (l) => say(`temporal: ${l}`),
      });
      stops.push(() => server.stop());
      address = server.address;
      uiUrl = server.uiUrl;
    }
    say(`temporal: ${address}, Web UI ${uiUrl}`);

    const config = loadConfig({ ...process.env, DATABASE_URL: dbUrl, DATABASE_POOL_MAX: String(poolMax), TEMPORAL_ADDRESS: address, TEMPORAL_UI_URL: uiUrl });
    const logger = createLogger(process.env.LOG_LEVEL ?? 'warn', 'demo');
    Runtime.install({ logger: temporalLogger(logger) });
    const db = createPrisma(dbUrl, { poolMax });
    stops.push(() => db.$disconnect());
    const connection = await Connection.connect({ address });
    stops.push(() => connection.close());
    const client = new Client({ connection, namespace: config.temporal.namespace });
    const native = await NativeConnection.connect({ address });
    stops.push(() => native.close());
    await ensureSearchAttributes(connection, config.temporal.namespace);
    const queues = taskQueues(config.temporal.taskQueuePrefix);
    await ensureReconcileSchedule(client, config, queues);

    // 3. Workers (jobs, ai) and the API.
    const workers = [await createJobsWorker({ config, db, client, connection: native }), await createAiWorker({ config, db, connection: native })];
    const runs = workers.map((w) => w.run());
    stops.unshift(async () => {
      for (const w of workers) if (w.getState() === 'RUNNING') w.shutdown();
      await Promise.allSettled(runs);
    });
    const similarity = await createCardSimilarity(db, config.similarity.vectorSearch);
    const app = await buildApp({ config, db, starter: createTemporalJobStarter(client, queues), similarity, logger });
    await app.listen({ host: config.api.host, port: await preferPort(config.api.port) });
    stops.unshift(() => app.close());
    const apiUrl = `http://${config.api.host}:${(app.server.address() as { port: number }).port}`;
    say(`api: ${apiUrl} (docs ${apiUrl}/docs), similar-cards via ${similarity.strategy}`);

    // 4. A user and the documents.
    const { token } = await createUserWithToken(db, `demo-${new Date().toISOString().replace(/[:.]/g, '-')}`);
    const auth = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const docs = values.files?.length ? await userDocs(values.files, limit, config.api.scrapMaxContentChars) : await defaultDocs(limit);
    if (docs.length === 0) throw new Error('no documents found');
    say(`submitting ${docs.length} documents as scraps …`);
    const call = async (method: string, url: string, body?: unknown) => {
      const res = await fetch(`${apiUrl}${url}`, { method, headers: auth, body: body === undefined ? undefined : JSON.stringify(body) });
      const json = (await res.json()) as Record<string, unknown>;
      if (!res.ok) throw new Error(`${method} ${url} → ${res.status} ${JSON.stringify(json)}`);
      return json;
    };
    const scraps: { doc: Doc; scrapId: string; jobIds: string[] }[] = [];
    for (const doc of docs) {
      const r = await call('POST', '/scraps', { content: doc.content, ...(doc.sourceUrl ? { sourceUrl: doc.sourceUrl } : {}) });
      scraps.push({ doc, scrapId: r.scrapId as string, jobIds: [r.analysisJobId as string, r.refineJobId as string].filter(Boolean) });
    }

    // 5. Progress until every job is terminal.
    const jobIds = scraps.flatMap((s) => s.jobIds);
    const status = new Map<string, string>();
    const deadline = Date.now() + 10 * 60_000;
    let last = '';
    for (;;) {
      for (const id of jobIds) {
        if (status.get(id) === 'COMPLETED' || status.get(id) === 'FAILED') continue;
        status.set(id, (await call('GET', `/async-jobs/${id}`)).status as string);
      }
      const count = (s: string) => [...status.values()].filter((v) => v === s).length;
      const line = `progress: ${count('COMPLETED')}/${jobIds.length} completed, ${count('FAILED')} failed, ${count('PROCESSING')} processing, ${count('PENDING')} pending`;
      if (line !== last) say(line);
      last = line;
      if (count('COMPLETED') + count('FAILED') === jobIds.length || Date.now() > deadline) break;
      await sleep(500);
    }

    // 6. Cards and their top-3 similar cards.
    say('');
    for (const s of scraps) {
      say(`• ${s.doc.file}`);
      const card = await fetch(`${apiUrl}/cards/${s.scrapId}`, { headers: auth });
      if (!card.ok) {
        say('    (no card: analysis failed)');
        continue;
      }
      const c = (await card.json()) as { cardId: string; title: string; category: string; tags: string[] };
      say(`    title:    ${c.title}`);
      say(`    category: ${c.category}   tags: ${c.tags.join(', ')}`);
      const sim = (await call('GET', `/cards/${c.cardId}/similar-cards?limit=3`)) as { matchedBy: string; cards: { title: string; distance: number }[] };
      const top = sim.cards.slice(0, 3).map((x) => `${x.title} (${x.distance.toFixed(3)})`);
      say(`    similar (${sim.matchedBy}): ${top.join(' | ') || '—'}`);
    }
    const completed = [...status.values()].filter((v) => v === 'COMPLETED').length;
    say('');
    say(`Temporal Web UI: ${uiUrl}/namespaces/${config.temporal.namespace}/workflows`);
    say(`  find these jobs: ${uiUrl}/namespaces/${config.temporal.namespace}/workflows?query=${encodeURIComponent('JobType="CARD_ANALYSIS"')}`);
    if (values.keep) {
      say(`--keep: API ${apiUrl} with token ${token}; press Ctrl-C to stop`);
    }
    say(`jobs: ${completed}/${jobIds.length} completed`);
    process.exitCode = completed === jobIds.length ? 0 : 1;
    if (values.keep) {
      await new Promise<void>((resolve) => {
        process.once('SIGINT', resolve);
        process.once('SIGTERM', resolve);
      });
    }
  } finally {
    for (const stop of stops) await stop().catch(() => undefined);
  }
}

main().then(
  () => process.exit(process.exitCode ?? 0),
  (err: unknown) => {
    console.error(err instanceof Error ? err.stack : err);
    process.exit(1);
  },
);

