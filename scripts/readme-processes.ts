/**
 * The README's list of processes, generated from the manifests (src/families): the API and one
 * worker process per `workerProcesses()` entry with its task queues and concurrency variables.
 * `npm run docs:processes` rewrites the block between the markers; test/unit/core/readme-processes.test.ts
 * fails when it is stale.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { workerProcesses } from '../src/families';

export const BEGIN = '<!-- processes:begin (generated from src/families by `npm run docs:processes`) -->';
export const END = '<!-- processes:end -->';

/** The Markdown table of the deployment's processes. */
export function processesTable(): string {
  const code = (s: string) => `\`${s}\``;
  const rows = [
    ['API', `${code('node dist/server.js')} (${code('npm run api')})`, '—', '—'],
    ...workerProcesses().map((p) => [
      code(`worker-${p.name}`),
      `${code(`node dist/workers/main.js --queue ${p.name}`)} (${code(`npm run worker -- --queue ${p.name}`)})`,
      p.queues.map(code).join(', '),
      p.concurrencyEnv.length > 0 ? p.concurrencyEnv.map(code).join(', ') : '—',
    ]),
  ];
  return ['| Process | Command | Task queues | Activity concurrency |', '|---|---|---|---|', ...rows.map((r) => `| ${r.join(' | ')} |`)].join('\n');
}

/**
 * `readme` with the block between {@link BEGIN} and {@link END} replaced by {@link processesTable}.
 * @throws Error when the markers are missing.
 */
export function withProcesses(readme: string): string {
  const start = readme.indexOf(BEGIN);
  const end = readme.indexOf(END);
  if (start < 0 || end < start) throw new Error(`README.md has no ${BEGIN} … ${END} block`);
  return `${readme.slice(0, start)}${BEGIN}\n${processesTable()}\n${readme.slice(end)}`;
}

if (require.main === module) {
  const file = path.join(__dirname, '..', 'README.md');
  writeFileSync(file, withProcesses(readFileSync(file, 'utf8')));
}
