/**
 * `npm run cluster`: the production topology on this machine (scripts/cluster/cluster.ts), kept up
 * until Ctrl-C or SIGTERM, which stop everything it started and nothing else. Prints every address
 * once all is ready, in the demo's `--keep` style. A process that exits unexpectedly stops the
 * whole cluster and makes the command exit 1 with that process's log tail.
 *
 *   npm run cluster [-- --workers-per-queue N] [--env KEY=VALUE …] [--state-file FILE]
 *
 * `--state-file` writes `{ control: { url, token }, state }` once ready (the test suite and the
 * benchmark drive the cluster through that control API, scripts/cluster/control.ts);
 * `--exit-with-parent` stops the cluster when the process that started it is gone.
 */
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { startCluster, type Cluster, type ClusterState } from './cluster';
import { serveControl } from './control';

const say = (line = '') => process.stdout.write(`${line}\n`);

/** `KEY=VALUE` strings → a record. @throws Error on a malformed entry. */
export function parseEnvArgs(values: string[] = []): Record<string, string> {
  const out: Record<string, string> = {};
  for (const v of values) {
    const m = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/s.exec(v);
    if (!m) throw new Error(`--env takes KEY=VALUE, not ${JSON.stringify(v)}`);
    out[m[1]!] = m[2]!;
  }
  return out;
}

/** The `--keep`-style block: one `label: value` line each, then commands to paste. */
export function addressBlock(s: ClusterState): string[] {
  const by = (kind: string) => s.processes.filter((p) => p.kind === kind);
  const lines = [
    'cluster: everything is up; press Ctrl-C to stop it all.',
    `  API (balancer):       ${s.apiUrl}  (docs ${s.apiUrl}/docs)`,
    ...by('api').map((p) => `  ${p.name.padEnd(21)} ${p.endpoint}  pid ${p.pid}`),
    `  Temporal (balancer):  ${s.temporalAddress}  namespace ${s.namespace}`,
    ...by('temporal').map((p) => `  ${p.name.padEnd(21)} ${p.endpoint}  pid ${p.pid}  (frontend, history, matching, worker)`),
    ...by('worker').map((p) => `  ${p.name.padEnd(21)} pid ${p.pid}  task queues ${p.queues?.join(', ')}`),
    `  PostgreSQL (Temporal):     ${s.temporalDatabaseUrl}`,
    `  PostgreSQL (projections):  ${s.databaseUrl}`,
    `  GitHub emulator:      ${s.emulators.github}   portal emulator: ${s.emulators.portal}   object store (moto): ${s.emulators.objectStore}`,
    `  logs:                 ${s.dataDir}/logs/<process>.log`,
    '',
    'Try it (paste into another shell, in this directory):',
    `  export API=${s.apiUrl} DATABASE_URL='${s.databaseUrl}'`,
    '  TOKEN=$(npm run -s user:create -- --name alice --token-only)',
    `  curl -s -X POST "$API/scraps" -H "authorization: Bearer $TOKEN" -H 'content-type: application/json' -d '{"content":"# Partial indexes\\n\\nA partial index stores only the rows that match its WHERE clause."}'`,
    '  curl -s "$API/async-jobs/<analysisJobId>" -H "authorization: Bearer $TOKEN"',
    `  .tools/venv/bin/temporal workflow list --address ${s.temporalAddress} --query 'JobType="CARD_ANALYSIS"'`,
    `  .tools/venv/bin/temporal operator cluster describe --address ${s.temporalAddress}`,
    '',
  ];
  return lines;
}

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      'workers-per-queue': { type: 'string', default: '1' },
      env: { type: 'string', multiple: true },
      'state-file': { type: 'string' },
      quiet: { type: 'boolean', default: false },
      'exit-with-parent': { type: 'boolean', default: false },
    },
  });
  const perQueue = Number(values['workers-per-queue']);
  if (!Number.isInteger(perQueue) || perQueue < 1 || perQueue > 4) throw new Error('--workers-per-queue must be 1 … 4');
  const env = parseEnvArgs(values.env);
  let cluster: Cluster | undefined;
  let fail: (err: Error) => void = () => undefined;
  const failed = new Promise<Error>((resolve) => (fail = resolve));
  let signalled: () => void = () => undefined;
  const stopRequested = new Promise<void>((resolve) => (signalled = resolve));
  // `on`, not `once`: one Ctrl-C may arrive more than once (terminal group, npm); later ones are ignored.
  for (const sig of ['SIGINT', 'SIGTERM'] as const) process.on(sig, () => signalled());
  if (values['exit-with-parent']) {
    // Launched by a test run or the benchmark: stop everything when that process is gone.
    const parent = process.ppid;
    setInterval(() => {
      try {
        process.kill(parent, 0);
      } catch {
        signalled();
      }
    }, 1000).unref();
  }
  const log = values.quiet ? () => undefined : (l: string) => say(l);
  const t0 = Date.now();
  try {
    const started = startCluster({ workersPerQueue: perQueue, env, log, onFailure: (err) => fail(err) });
    const first = await Promise.race([started.then((c) => ({ c })), stopRequested.then(() => ({ c: undefined }))]);
    if (!first.c) {
      say('cluster: stopping before it was ready …');
      cluster = await started.catch(() => undefined);
      return 130;
    }
    cluster = first.c;
    const { endpoint, server } = await serveControl(cluster, randomBytes(24).toString('hex'));
    server.unref();
    const state = cluster.state();
    if (values['state-file']) writeFileSync(values['state-file'], JSON.stringify({ control: endpoint, state }), { mode: 0o600 });
    say(`cluster: ready in ${((Date.now() - t0) / 1000).toFixed(0)} s`);
    for (const line of addressBlock(state)) say(line);
    const outcome = await Promise.race([failed, stopRequested.then(() => undefined)]);
    if (outcome) {
      process.stderr.write(`cluster: FAILED: ${outcome.message}\n`);
      return 1;
    }
    say('cluster: stopping …');
    return 0;
  } finally {
    if (cluster) {
      await cluster.stop();
      say('cluster: stopped: every process it started is down');
    }
  }
}

if (require.main === module) {
  main().then(
    (code) => process.exit(code),
    (err: unknown) => {
      process.stderr.write(`cluster: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
      process.exit(1);
    },
  );
}
