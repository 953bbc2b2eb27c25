/**
 * The demo (README command 1): starts the stack (stack.ts: database, Temporal with its Web UI, the
 * families' emulators, the embedding model, workers and API), creates the demo user, runs every
 * family's part (families/<family>.ts, found by the manifests' family names) in the manifests'
 * order, and ends with `jobs: <completed>/<total> completed` over every family's jobs (exit 0 when
 * all completed and every completion webhook to the demo's own receiver, webhooks.ts, was
 * delivered). The receiver is the demo user's endpoint; a part may register it for a company too
 * (`webhooks.registerCompany`).
 *
 *   npm run demo [-- --files '<glob>' ...] [--limit N] [--keep] [--ai local]
 *
 * `--ai local`: the deterministic `local` embedding instead of the real multilingual model (used
 * when installed); the demo says which one served. With --keep everything stays up until
 * SIGINT/SIGTERM, and the demo prints what a second user needs: the API URL and the demo user's
 * token, the database URL (the embedded PGlite serves several connections, src/db/embedded.ts),
 * Temporal's address and Web UI, what the parts add (the GitHub emulator's URL and tokens), and
 * ready-to-paste commands (scripts/demo-second-user.sh runs them).
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { createUserWithToken } from '../../src/auth/tokens';
import { createApiClient } from '../lib/api-client';
import { createStops } from '../lib/stops';
import { keepBlock } from './keep';
import type { DemoShared, DemoUser, PartResult } from './part';
import { loadDemoParts } from './parts';
import { startDemoStack } from './stack';
import { startDemoWebhooks } from './webhooks';

const DATA = path.resolve(__dirname, '..', '..', '.data');
const say = (s: string) => void process.stdout.write(`${s}\n`);

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { files: { type: 'string', multiple: true }, limit: { type: 'string' }, keep: { type: 'boolean', default: false }, ai: { type: 'string', default: 'auto' } },
  });
  if (values.ai !== 'auto' && values.ai !== 'local') throw new Error('--ai must be local (or left out: the real embedding model when installed)');
  const limit = Number(values.limit ?? 24);
  if (!Number.isInteger(limit) || limit < 1) throw new Error('--limit must be a positive integer');
  mkdirSync(DATA, { recursive: true });
  const { parts, without } = await loadDemoParts();
  const stops = createStops('demo');

  try {
    const stack = await startDemoStack({ ai: values.ai, parts, stops, say });
    const { token } = await createUserWithToken(stack.db, `demo-${new Date().toISOString().replace(/[:.]/g, '-')}`);
    const auth = { authorization: `Bearer ${token}` };
    const api: DemoUser['api'] = createApiClient(stack.apiUrl, token);
    const webhooks = await startDemoWebhooks(api);
    stops.add('webhook receiver', () => webhooks.stop());
    say(`webhooks: receiver ${webhooks.url} registered as endpoint ${webhooks.endpointId}`);
    const shared: DemoShared = {};
    const results: PartResult[] = [];
    for (const [i, { family, part }] of parts.entries()) {
      if (i > 0) say('');
      const ctx = { apiUrl: stack.apiUrl, db: stack.db, config: stack.config, uiUrl: stack.uiUrl, user: { token, auth, api }, options: { files: values.files ?? [], limit }, shared, webhooks, say };
      results.push(await part.run(ctx, stack.states.get(family)));
    }
    for (const family of without) say(`(the ${family} family has no demo part: scripts/demo/families/${family}.ts)`);
    say('');
    const hooks = await webhooks.report(stack.db);
    for (const line of hooks.lines) say(line);

    const ns = stack.config.temporal.namespace;
    say('');
    say(`Temporal Web UI: ${stack.uiUrl}/namespaces/${ns}/workflows`);
    for (const r of results) for (const line of r.closing ?? []) say(line);
    if (values.keep) {
      say('');
      const info = { apiUrl: stack.apiUrl, token, dbUrl: stack.dbUrl, ...(stack.maxConnections !== undefined ? { maxConnections: stack.maxConnections } : {}), temporalAddress: stack.temporalAddress, namespace: ns, uiUrl: stack.uiUrl, ...(stack.config.temporal.codecServer.operatorToken ? { codecToken: stack.config.temporal.codecServer.operatorToken } : {}) };
      for (const line of keepBlock(info, results.flatMap((r) => (r.keep ? [r.keep] : [])))) say(line);
    }
    say(stack.embeddingsLine.replace(/^embeddings: /, 'embeddings served by: '));
    const completed = results.reduce((n, r) => n + r.completed, 0);
    const total = results.reduce((n, r) => n + r.total, 0);
    say(`jobs: ${completed}/${total} completed`);
    process.exitCode = completed === total && hooks.ok ? 0 : 1;
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
    await stops.stopAll();
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
