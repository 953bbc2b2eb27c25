/** The bench's report frame: the machine it ran on, and the summary table of every section's rows. */
import { execFileSync } from 'node:child_process';
import os from 'node:os';
import { findTemporalCli } from '../../src/dev/temporal-server';
import { sdkWarnings, say } from './lifecycle';
import { fmt } from './measure';

/** One line of the summary table: a figure next to its baseline from the same run, and their ratio. */
export interface Row {
  measure: string;
  subject: string;
  baseline: string;
  ratio: string;
}

/** CPU, RAM, Node.js and Temporal CLI versions, load average: the lines under the report's title. */
export function machine(): string[] {
  const cpus = os.cpus();
  let temporal = 'unknown';
  try {
    const cli = findTemporalCli();
    if (cli) temporal = execFileSync(cli, ['--version'], { encoding: 'utf8' }).trim();
  } catch {
    // reported as unknown
  }
  return [
    `CPU: ${cpus[0]?.model ?? 'unknown'} × ${cpus.length} cores (os.cpus)`,
    `RAM: ${fmt(os.totalmem() / 2 ** 30, 1)} GiB, ${os.type()} ${os.release()} ${os.arch()}`,
    `Node.js ${process.version}; ${temporal}`,
    `load average at start: ${os.loadavg().map((x) => x.toFixed(2)).join(' ')}`,
  ];
}

/** The summary row of a section that threw: its error instead of figures (the run goes on). */
export function failureRow(letter: string, err: unknown): Row {
  const message = (err instanceof Error ? err.message : String(err)).replace(/\s+/g, ' ').replace(/\|/g, '/').slice(0, 200);
  return { measure: `(${letter}) did not finish`, subject: `error: ${message}`, baseline: '—', ratio: 'n/a' };
}

/** Prints the summary table of `rows`; `run` says which run it was (sizes, run id, duration). */
export function printSummary(rows: readonly Row[], run: string): void {
  say();
  say(`## Summary (${run}, load average now ${os.loadavg().map((x) => x.toFixed(2)).join(' ')})`);
  say();
  say('| Measure | Subject | Baseline (same run) | Ratio |');
  say('|---|---|---|---|');
  for (const r of rows) say(`| ${r.measure} | ${r.subject} | ${r.baseline} | ${r.ratio} |`);
  say();
  say('Ratios: (a), (c) subject rate / baseline rate; (b), (e) subject latency / baseline latency; (d) bytea / pgvector latency; (f) subject time / baseline time; (g) long polling / polling every 100 ms (requests per job, delay); (h) peak RSS / an idle node process; (i) run latency / baseline latency, replay rate / health rate; (m) mixed burst time / no-op burst time, runs per job workflow ID; (q) tenant B latency behind tenant A flood / B latency alone.');
  const warnings = [...sdkWarnings].filter(([m]) => !m.startsWith('No workflows registered'));
  if (warnings.length > 0) {
    say();
    say('Temporal SDK warnings during the run (a sign of an overloaded machine):');
    for (const [m, n] of warnings) say(`  ${n} × ${m}`);
  }
}
