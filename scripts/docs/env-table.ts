/**
 * The README's table of environment variables, generated from the config schema (src/config: the
 * core's section and each family's, as assembled by src/families): every variable with its default
 * (the zod `.default`; "unset" when it has none), its meaning (the zod `.describe`) and the
 * processes that read it (a concurrency variable: its worker process; the core's section: every
 * process; a family's section: the API and the worker processes running that family's queues).
 * `npm run docs:env` rewrites the block between its markers in README.md; `--check` only compares
 * and exits 1 when the file differs; `--file <path>` reads (and writes) another file than README.md
 * (test/unit/scripts/env-table.test.ts).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import type { ConfigSection } from '../../src/config';
import { CONFIG_SECTIONS, FAMILIES, workerProcesses, type WorkerProcess } from '../../src/families';
import { withBlock } from '../sync-processes';

/** Markers of the README's block. */
export const ENV_BLOCK = {
  begin: '<!-- env:begin (generated from src/config by `npm run docs:env`) -->',
  end: '<!-- env:end -->',
};

/** One row of the table. */
export interface EnvRow {
  name: string;
  /** The default as the variable would be written, or undefined when there is none. */
  defaultValue: string | undefined;
  /** The variable's `.describe()` text. */
  meaning: string;
  /** Processes that read it, e.g. `every process` or `API, worker-portal`. */
  readBy: string;
}

/** The default of a variable's schema (its outermost `.default`), as a string; undefined when none. */
export function defaultOf(schema: z.ZodType): string | undefined {
  let s: z.ZodType = schema;
  for (;;) {
    if (s instanceof z.ZodDefault) {
      const v: unknown = s.def.defaultValue;
      return typeof v === 'string' ? v : JSON.stringify(v);
    }
    if (s instanceof z.ZodOptional || s instanceof z.ZodNullable) s = s.def.innerType as z.ZodType;
    else return undefined;
  }
}

/** Who reads the variables of `section`, per {@link EnvRow.readBy}. */
function readersOf(section: ConfigSection<object>, processes: readonly WorkerProcess[]): string {
  const family = FAMILIES.find((f) => f.config === section);
  if (!family) return 'every process';
  const own = processes.filter((p) => p.queues.some((q) => family.queues.some((fq) => fq.name === q) || q in (family.activities ?? {})));
  return ['API', ...own.map((p) => `worker-${p.name}`)].join(', ');
}

/**
 * Every variable of every config section, in declaration order.
 * @throws Error when a variable has no `.describe()` text.
 */
export function envRows(sections: readonly ConfigSection<object>[] = CONFIG_SECTIONS, processes: readonly WorkerProcess[] = workerProcesses()): EnvRow[] {
  return sections.flatMap((section) => {
    const readBy = readersOf(section, processes);
    return Object.entries(section.env).map(([name, schema]) => {
      const meaning = (schema as z.ZodType).description;
      if (!meaning) throw new Error(`environment variable ${name} has no .describe() text in its config section`);
      const worker = processes.find((p) => p.concurrencyEnv.includes(name));
      return { name, defaultValue: defaultOf(schema as z.ZodType), meaning, readBy: worker ? `worker-${worker.name}` : readBy };
    });
  });
}

const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');
const code = (s: string) => (s.includes('`') ? `\`\` ${s} \`\`` : `\`${s}\``);

/** The Markdown table of {@link envRows}. */
export function envTable(rows: readonly EnvRow[] = envRows()): string {
  return [
    '| Variable | Default | Meaning | Read by |',
    '|---|---|---|---|',
    ...rows.map((r) => `| ${[code(r.name), r.defaultValue === undefined ? 'unset' : r.defaultValue === '' ? '(empty)' : code(r.defaultValue), r.meaning, r.readBy].map(cell).join(' | ')} |`),
  ].join('\n');
}

/**
 * `file`'s text (README.md) and what it is with a current table.
 * @throws Error when the file lacks the markers.
 */
export function withEnvTable(file: string): { current: string; synced: string } {
  const current = readFileSync(file, 'utf8');
  return { current, synced: withBlock(current, ENV_BLOCK, envTable()) };
}

if (require.main === module) {
  const args = process.argv.slice(2);
  const given = args.includes('--file') ? args[args.indexOf('--file') + 1] : undefined;
  const file = given ? path.resolve(given) : path.join(__dirname, '..', '..', 'README.md');
  const { current, synced } = withEnvTable(file);
  if (args.includes('--check')) {
    if (synced !== current) {
      process.stderr.write(`${path.basename(file)}: the environment variable table differs from the config schema (run npm run docs:env)\n`);
      process.exit(1);
    }
  } else if (synced !== current) {
    writeFileSync(file, synced);
  }
}
