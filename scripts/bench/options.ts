/** The bench's command line (`npm run bench [-- --quick] [--only a,b] [--temporal-address …] [--topology cluster]`) and its load sizes. */
import { parseArgs } from 'node:util';

/**
 * Load sizes; `--quick` is a smoke run of the harness, its figures are not comparable. (b) stops
 * submitting after latencyCapSeconds (and says so) so that a heavily loaded machine still finishes.
 */
export const SIZES = {
  full: { posts: 64, latencyScraps: 200, latencyCapSeconds: 150, latencyConcurrency: 8, readSeconds: 10, cards: 2000, similarRuns: 60, chains: 8, aiChars: 100_000, aiRuns: 5, pollJobs: 200, pollCapSeconds: 150, fairnessFlood: 1000, burstJobs: 1000 },
  quick: { posts: 32, latencyScraps: 24, latencyCapSeconds: 40, latencyConcurrency: 8, readSeconds: 2, cards: 300, similarRuns: 10, chains: 2, aiChars: 20_000, aiRuns: 1, pollJobs: 24, pollCapSeconds: 40, fairnessFlood: 120, burstJobs: 100 },
};
/** One set of load sizes. */
export type Sizes = (typeof SIZES)['full'];

/** Clients of the POST loads of (a) and (h). */
export const POST_CLIENTS = 16;
/** Connections of the read loads of (c), (h), (i) and (l). */
export const READ_CONNECTIONS = 32;
/** Status-poll interval of (e), (i), (l) and of (g)'s short polling; 8 clients × 10/s stays well below the GET /async-jobs capacity. */
export const POLL_MS = 100;
/** `Prefer: wait` of the long polls in (b) and (g), seconds (the API's default cap, JOB_WAIT_MAX_SECONDS). */
export const LONG_POLL_WAIT_S = 30;
/** How long one job may take before a section gives up on it. */
export const JOB_TIMEOUT_MS = 120_000;

/** The section letters, alphabetical (their run order is the list in sections/index.ts). */
export const SECTION_LETTERS = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j', 'k', 'l', 'm', 'q'] as const;
/** One section letter. */
export type SectionLetter = (typeof SECTION_LETTERS)[number];

/** Where the run's servers are: given by options or BENCH_* variables, else started by the run. */
export interface ExternalTargets {
  temporalAddress?: string;
  databaseUrl?: string;
  namespace: string;
}

/** Sections `--topology cluster` runs: the others need the in-process API or workers ((d), (g)), the local AI model ((f), (j)) or start processes of their own ((h)). */
export const CLUSTER_SECTIONS: readonly SectionLetter[] = ['a', 'b', 'c', 'e', 'i', 'k', 'l', 'm', 'q'];

/** Where the API and the workers run: in the bench's process on the dev server, or the production topology's processes (`npm run cluster`). */
export type Topology = 'dev' | 'cluster';

/** The parsed command line. */
export interface BenchOptions {
  quick: boolean;
  /** `--only` as given (for the header), or undefined; on the cluster topology its sections by default. */
  onlyText?: string;
  external: ExternalTargets;
  topology: Topology;
}

/**
 * Parses `process.argv`.
 * @throws Error on a malformed `--temporal-address` or `--database-url` (`--only` is checked by {@link parseOnly}).
 */
export function parseBenchArgs(): BenchOptions {
  const { values } = parseArgs({
    options: {
      quick: { type: 'boolean', default: false },
      only: { type: 'string' },
      'temporal-address': { type: 'string' },
      'temporal-namespace': { type: 'string' },
      'database-url': { type: 'string' },
      topology: { type: 'string', default: 'dev' },
    },
  });
  const topology = values.topology;
  if (topology !== 'dev' && topology !== 'cluster') throw new Error(`--topology must be dev or cluster, not ${topology}`);
  const external = externalTargets(values);
  if (topology === 'cluster' && (external.temporalAddress || external.databaseUrl)) throw new Error('--topology cluster starts its own Temporal and database: leave out --temporal-address and --database-url');
  const onlyText = values.only ?? (topology === 'cluster' ? CLUSTER_SECTIONS.join(',') : undefined);
  if (topology === 'cluster') {
    const other = [...(parseOnly(onlyText) ?? [])].filter((l) => !CLUSTER_SECTIONS.includes(l));
    if (other.length > 0) throw new Error(`--topology cluster runs ${CLUSTER_SECTIONS.join(', ')}; not ${other.join(', ')}`);
  }
  return { quick: values.quick === true, ...(onlyText !== undefined ? { onlyText } : {}), external, topology };
}

/**
 * `--only` → the sections to run (undefined: all): letters, optionally comma-separated (`c,g`,
 * `cg`). (c) without (b) first submits its own scraps to have jobs to read; (d) without (a)
 * seeds its cards up front; `f` and `j` alone start no server.
 * @throws Error on a letter that names no section.
 */
export function parseOnly(value: string | undefined): Set<SectionLetter> | undefined {
  if (value === undefined) return undefined;
  const letters = value.toLowerCase().replace(/[\s,]/g, '').split('');
  const bad = letters.filter((l) => !(SECTION_LETTERS as readonly string[]).includes(l));
  if (letters.length === 0 || bad.length > 0) throw new Error(`--only takes section letters among ${SECTION_LETTERS.join(', ')} (e.g. --only c,g), not ${value}`);
  return new Set(letters as SectionLetter[]);
}

/** `--temporal-address`, `--database-url`, `--temporal-namespace`, else BENCH_TEMPORAL_ADDRESS, BENCH_DATABASE_URL, BENCH_TEMPORAL_NAMESPACE. */
function externalTargets(values: { 'temporal-address'?: string; 'database-url'?: string; 'temporal-namespace'?: string }): ExternalTargets {
  const temporalAddress = values['temporal-address'] ?? (process.env.BENCH_TEMPORAL_ADDRESS || undefined);
  const databaseUrl = values['database-url'] ?? (process.env.BENCH_DATABASE_URL || undefined);
  const namespace = values['temporal-namespace'] ?? (process.env.BENCH_TEMPORAL_NAMESPACE || 'default');
  if (temporalAddress !== undefined && !/^[^\s/]+:\d{1,5}$/.test(temporalAddress)) throw new Error(`--temporal-address must be host:port, not ${temporalAddress}`);
  if (databaseUrl !== undefined && !/^postgres(ql)?:\/\//.test(databaseUrl)) throw new Error('--database-url must be a postgresql:// URL');
  return { ...(temporalAddress ? { temporalAddress } : {}), ...(databaseUrl ? { databaseUrl } : {}), namespace };
}
