/**
 * The lists of processes outside the code, generated from the manifests (src/families): the
 * README's table of processes and docker-compose.yml's worker services (one per
 * `workerProcesses()` entry: the generic entry point, its concurrency variables, its health by its
 * first queue, and the services its activities need); and docker-compose.yml's Temporal node
 * environment, from the one `npm run cluster` gives its nodes (scripts/cluster/temporal.ts).
 * `npm run sync:processes` rewrites the blocks between their markers;
 * test/unit/core/sync-processes.test.ts fails when one is stale.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { loadConfig, QUEUES, workerProcesses, type WorkerProcess } from '../src/families';
import type { DeploymentService } from '../src/families/manifest';
import { composeTemporalNodeEnv } from './cluster/temporal';

/** Markers of the README's block. */
export const README_BLOCK = {
  begin: '<!-- processes:begin (generated from src/families by `npm run sync:processes`) -->',
  end: '<!-- processes:end -->',
};

/** Markers of docker-compose.yml's block (inside `services:`). */
export const COMPOSE_BLOCK = {
  begin: '  # worker services:begin (generated from src/families by `npm run sync:processes`)',
  end: '  # worker services:end',
};

/** Markers of docker-compose.yml's Temporal node environment (top level). */
export const COMPOSE_TEMPORAL_BLOCK = {
  begin: '# temporal node env:begin (generated from scripts/cluster/temporal.ts by `npm run sync:processes`)',
  end: '# temporal node env:end',
};

/** docker-compose service that provides each deployment service once it is ready. */
const COMPOSE_SERVICE_OF: Readonly<Record<DeploymentService, string>> = { 'object-store': 'minio-setup' };

const code = (s: string) => `\`${s}\``;

/** The Markdown table of the deployment's processes. */
export function processesTable(processes: readonly WorkerProcess[] = workerProcesses()): string {
  const rows = [
    ['API', `${code('node dist/server.js')} (${code('npm run api')})`, '—', '—', 'the REST API'],
    ...processes.map((p) => [
      code(`worker-${p.name}`),
      `${code(`node dist/workers/main.js --queue ${p.name}`)} (${code(`npm run worker -- --queue ${p.name}`)})`,
      p.queues.map(code).join(', '),
      p.concurrencyEnv.length > 0 ? p.concurrencyEnv.map(code).join(', ') : '—',
      p.summary || '—',
    ]),
  ];
  return ['| Process | Command | Task queues | Activity concurrency | Runs |', '|---|---|---|---|---|', ...rows.map((r) => `| ${r.join(' | ')} |`)].join('\n');
}

/** Default of each concurrency variable: the config's value with an empty environment. */
function concurrencyDefaults(): Map<string, number> {
  const config = loadConfig({});
  return new Map(QUEUES.flatMap((q) => (q.activityConcurrency?.env ? [[q.activityConcurrency.env, q.activityConcurrency.of(config)] as const] : [])));
}

/** docker-compose.yml's worker services (YAML, indented for `services:`). */
export function composeWorkerServices(processes: readonly WorkerProcess[] = workerProcesses()): string {
  const defaults = concurrencyDefaults();
  return processes
    .map((p) => {
      const waits = ['migrate', 'temporal-setup', ...p.needs.map((n) => COMPOSE_SERVICE_OF[n])];
      return [
        ...(p.summary ? [`  # ${p.summary.charAt(0).toUpperCase()}${p.summary.slice(1)}.`] : []),
        `  worker-${p.name}:`,
        '    build:',
        '      context: .',
        '      target: runtime',
        '    init: true',
        '    depends_on:',
        ...waits.flatMap((w) => [`      ${w}:`, '        condition: service_completed_successfully']),
        '    environment:',
        '      <<: *app-env',
        ...p.concurrencyEnv.map((env) => `      ${env}: \${${env}:-${defaults.get(env)}}`),
        `    command: ["node", "dist/workers/main.js", "--queue", "${p.name}"]`,
        '    healthcheck:',
        `      test: ["CMD", "node", "-e", *poller-check, "${p.queues[0]}"]`,
        '      interval: 30s',
        '      timeout: 10s',
        '      retries: 3',
        '      start_period: 60s',
        '    stop_grace_period: 30s',
        '    restart: unless-stopped',
      ].join('\n');
    })
    .join('\n\n');
}

/** A YAML scalar: plain when unambiguous, else a double-quoted string (numbers, booleans, addresses). */
const yamlString = (v: string) => (/^[A-Za-z_/][A-Za-z0-9_./-]*$/.test(v) && !/^(true|false|yes|no|on|off|null|y|n)$/i.test(v) ? v : JSON.stringify(v));

/** docker-compose.yml's `x-temporal-node-env` anchor: the environment of each Temporal node. */
export function composeTemporalEnv(env: Record<string, string> = composeTemporalNodeEnv()): string {
  return ['x-temporal-node-env: &temporal-node-env', ...Object.entries(env).map(([k, v]) => `  ${k}: ${yamlString(v)}`)].join('\n');
}

/**
 * `text` with the block between `marks` replaced by `body`.
 * @throws Error when the markers are missing.
 */
export function withBlock(text: string, marks: { begin: string; end: string }, body: string): string {
  const start = text.indexOf(marks.begin);
  const end = text.indexOf(marks.end);
  if (start < 0 || end < start) throw new Error(`no ${marks.begin} … ${marks.end} block`);
  return `${text.slice(0, start)}${marks.begin}\n${body}\n${text.slice(end)}`;
}

/** Every generated file, with its current text made current. */
export function syncedFiles(root: string): { file: string; current: string; synced: string }[] {
  const files: [string, { begin: string; end: string }, string][] = [
    ['README.md', README_BLOCK, processesTable()],
    ['docker-compose.yml', COMPOSE_BLOCK, composeWorkerServices()],
    ['docker-compose.yml', COMPOSE_TEMPORAL_BLOCK, composeTemporalEnv()],
  ];
  const out = new Map<string, { file: string; current: string; synced: string }>();
  for (const [name, marks, body] of files) {
    const file = path.join(root, name);
    const entry = out.get(file) ?? { file, current: readFileSync(file, 'utf8'), synced: readFileSync(file, 'utf8') };
    entry.synced = withBlock(entry.synced, marks, body);
    out.set(file, entry);
  }
  return [...out.values()];
}

if (require.main === module) {
  for (const { file, current, synced } of syncedFiles(path.join(__dirname, '..'))) {
    if (synced !== current) writeFileSync(file, synced);
  }
}
