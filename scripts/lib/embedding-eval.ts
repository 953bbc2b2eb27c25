/**
 * The labelled embedding evaluation (SAN-7 similar cards): real documents with known
 * topics, the quality figures of an embedding over them, and the calibration of a model's
 * similar-cards threshold. Used by `npm run eval:embeddings` (scripts/eval-embeddings.ts, figures
 * in docs/embeddings.md) and by test/unit/ai/embedding-quality.test.ts (the local provider's floor).
 *
 * Items: README files of installed npm packages (pinned by package-lock.json), grouped by topic by
 * hand (the PostgreSQL driver family, glob matchers, fastify, OpenTelemetry …), and the test
 * fixtures' English and Korean notes. Two items are *related* when they share a topic and a
 * language, *unrelated* when their topics differ (cross-language pairs are left out: the local
 * provider cannot match them by construction).
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { cosineDistance } from '../../src/db/vectors';
import * as corpus from '../../test/unit/ai/corpus';
import * as fixtures from '../../test/fixtures/texts';
import * as learning from '../../test/fixtures/learning-texts';
import * as korean from '../../test/fixtures/korean-notes';

/** One evaluated document: its text, topic and language. */
export interface EvalItem {
  id: string;
  topic: string;
  lang: 'en' | 'ko';
  text: string;
}

/** npm packages whose README files form the English part, by topic (only installed ones are used). */
export const README_TOPICS: Readonly<Record<string, readonly string[]>> = {
  postgres: ['pg', 'pg-pool', 'pg-types', 'pg-connection-string', 'pgpass', '@electric-sql/pglite'],
  globs: ['glob', 'minimatch', 'picomatch', 'anymatch', 'is-glob', 'glob-parent', 'brace-expansion'],
  fastify: ['fastify', '@fastify/cors', '@fastify/static', '@fastify/swagger', 'fastify-plugin', 'light-my-request'],
  opentelemetry: ['@opentelemetry/api', '@opentelemetry/sdk-trace-base', '@opentelemetry/sdk-metrics', '@opentelemetry/resources'],
  octokit: ['@octokit/core', '@octokit/rest', '@octokit/request', '@octokit/graphql', '@octokit/plugin-paginate-rest'],
  eslint: ['eslint', 'espree', 'eslint-scope', 'esquery', 'eslint-visitor-keys'],
  logging: ['pino', 'sonic-boom', 'thread-stream', 'pino-abstract-transport'],
  sourcemaps: ['source-map', 'source-map-support', 'convert-source-map', '@jridgewell/trace-mapping'],
  mime: ['mime', 'mime-types', 'mime-db', 'content-type'],
  cliargs: ['yargs', 'yargs-parser', 'minimist', 'argparse'],
  grpc: ['@grpc/grpc-js', '@grpc/proto-loader', 'protobufjs'],
  intrinsics: ['es-errors', 'get-intrinsic', 'call-bind-apply-helpers', 'hasown', 'gopd'],
};

/** The test fixtures' notes by topic (English and Korean). */
function fixtureItems(): EvalItem[] {
  const en = (topic: string, id: string, text: string): EvalItem => ({ id, topic, lang: 'en', text });
  const ko = (topic: string, id: string, text: string): EvalItem => ({ id, topic, lang: 'ko', text });
  return [
    en('pg-indexes', 'fixture:PG_INDEX_A', corpus.PG_INDEX_A),
    en('pg-indexes', 'fixture:PG_INDEX_B', corpus.PG_INDEX_B),
    en('pg-indexes', 'fixture:PG_INDEXES', fixtures.PG_INDEXES),
    en('pg-indexes', 'fixture:PG_PARTIAL', fixtures.PG_PARTIAL),
    en('sourdough', 'fixture:BREAD', corpus.BREAD),
    en('sourdough', 'fixture:SOURDOUGH', fixtures.SOURDOUGH),
    en('tls', 'fixture:TLS', corpus.TLS),
    en('temporal', 'fixture:TEMPORAL_RETRIES', learning.TEMPORAL_RETRIES),
    en('http-cache', 'fixture:HTTP_CACHING', learning.HTTP_CACHING),
    en('git', 'fixture:GIT_REBASE', learning.GIT_REBASE),
    en('typescript', 'fixture:TS_NARROWING', learning.TS_NARROWING),
    ko('os-scheduling', 'fixture:OS_SCHED_KO', corpus.OS_SCHED_KO),
    ko('os-scheduling', 'fixture:OS_SCHED_KO_B', corpus.OS_SCHED_KO_B),
    ko('stew', 'fixture:COOKING_KO', corpus.COOKING_KO),
    ko('stew', 'fixture:KO_KIMCHI_STEW', korean.KO_KIMCHI_STEW),
    ko('tx-isolation', 'fixture:KO_TX_ISOLATION_A', korean.KO_TX_ISOLATION_A),
    ko('tx-isolation', 'fixture:KO_TX_ISOLATION_B', korean.KO_TX_ISOLATION_B),
    ko('gc', 'fixture:KO_GC_A', korean.KO_GC_A),
    ko('gc', 'fixture:KO_GC_B', korean.KO_GC_B),
    ko('http-cache', 'fixture:KO_HTTP_CACHE_A', korean.KO_HTTP_CACHE_A),
    ko('http-cache', 'fixture:KO_HTTP_CACHE_B', korean.KO_HTTP_CACHE_B),
    ko('git', 'fixture:KO_GIT_A', korean.KO_GIT_A),
    ko('git', 'fixture:KO_GIT_B', korean.KO_GIT_B),
  ];
}

/**
 * The evaluation set: the installed READMEs of {@link README_TOPICS} (identical READMEs of one
 * monorepo counted once) and the fixtures. `includeReadmes: false` gives the fixtures only (fast,
 * independent of node_modules).
 */
export function loadEvalItems(root: string, opts: { includeReadmes?: boolean } = {}): EvalItem[] {
  const items = fixtureItems();
  if (opts.includeReadmes === false) return items;
  const seen = new Set<string>();
  for (const [topic, pkgs] of Object.entries(README_TOPICS)) {
    for (const pkg of pkgs) {
      const file = path.join(root, 'node_modules', pkg, 'README.md');
      if (!existsSync(file)) continue;
      const text = readFileSync(file, 'utf8');
      if (text.trim().length < 200 || seen.has(text)) continue;
      seen.add(text);
      items.push({ id: `npm:${pkg}`, topic, lang: 'en', text });
    }
  }
  return items;
}

/** A scored pair of items: cosine distance and whether they are related. */
export interface ScoredPair {
  distance: number;
  related: boolean;
  lang: 'en' | 'ko';
}

/** Quality figures of one embedding over the set. */
export interface EvalFigures {
  items: number;
  relatedPairs: number;
  unrelatedPairs: number;
  /** Probability that a random related pair is closer than a random unrelated one (ties count half). */
  auc: number;
  /** Of the items with a related item, the share whose nearest other item is related. */
  precisionAt1: number;
  /** Mean share of related items among each item's 3 nearest (items with a related one). */
  precisionAt3: number;
  /** AUC over the Korean pairs only. */
  aucKo: number;
}

/** Every same-language pair of `items` with its distance under `vectors` (one vector per item, in order). */
export function scorePairs(items: readonly EvalItem[], vectors: readonly (readonly number[])[]): ScoredPair[] {
  const pairs: ScoredPair[] = [];
  for (let i = 0; i < items.length; i++) {
    for (let j = i + 1; j < items.length; j++) {
      const a = items[i] as EvalItem;
      const b = items[j] as EvalItem;
      if (a.lang !== b.lang) continue;
      pairs.push({ distance: cosineDistance(vectors[i] as number[], vectors[j] as number[]), related: a.topic === b.topic, lang: a.lang });
    }
  }
  return pairs;
}

/** AUC by ranking (Mann-Whitney U): related pairs should have the smaller distances. */
export function auc(pairs: readonly ScoredPair[]): number {
  const sorted = [...pairs].sort((x, y) => x.distance - y.distance);
  let pos = 0;
  let neg = 0;
  let rankSum = 0;
  for (let i = 0; i < sorted.length; ) {
    let j = i;
    while (j < sorted.length && (sorted[j] as ScoredPair).distance === (sorted[i] as ScoredPair).distance) j++;
    const midRank = (i + j + 1) / 2; // ranks i+1 … j, averaged over ties
    for (let k = i; k < j; k++) if ((sorted[k] as ScoredPair).related) rankSum += midRank;
    i = j;
  }
  for (const p of pairs) {
    if (p.related) pos++;
    else neg++;
  }
  if (pos === 0 || neg === 0) return Number.NaN;
  // Small distance = "positive", so U counts related pairs ranked before unrelated ones.
  const uRelatedLater = rankSum - (pos * (pos + 1)) / 2;
  return 1 - uRelatedLater / (pos * neg);
}

/** All figures of `vectors` (one per item, in order) over `items`. */
export function evaluate(items: readonly EvalItem[], vectors: readonly (readonly number[])[]): EvalFigures {
  const pairs = scorePairs(items, vectors);
  let p1 = 0;
  let p3 = 0;
  let queries = 0;
  for (let i = 0; i < items.length; i++) {
    const me = items[i] as EvalItem;
    const others = items
      .map((o, j) => ({ o, j }))
      .filter(({ o, j }) => j !== i && o.lang === me.lang);
    if (!others.some(({ o }) => o.topic === me.topic)) continue;
    queries++;
    const ranked = others
      .map(({ o, j }) => ({ related: o.topic === me.topic, d: cosineDistance(vectors[i] as number[], vectors[j] as number[]), id: o.id }))
      .sort((x, y) => x.d - y.d || (x.id < y.id ? -1 : 1));
    if (ranked[0]?.related) p1++;
    p3 += ranked.slice(0, 3).filter((r) => r.related).length / 3;
  }
  return {
    items: items.length,
    relatedPairs: pairs.filter((p) => p.related).length,
    unrelatedPairs: pairs.filter((p) => !p.related).length,
    auc: auc(pairs),
    precisionAt1: queries ? p1 / queries : Number.NaN,
    precisionAt3: queries ? p3 / queries : Number.NaN,
    aucKo: auc(pairs.filter((p) => p.lang === 'ko')),
  };
}

/** A calibrated threshold and what it gives on the labelled pairs. */
export interface Calibration {
  /** Cosine distance: pairs at or under it count as related (`matchedBy: threshold`). */
  threshold: number;
  /** Share of related pairs among those at or under the threshold. */
  precision: number;
  /** Share of all related pairs at or under the threshold. */
  recall: number;
}

/**
 * The calibration method (docs/embeddings.md): the largest distance `t`, among the pairs' own
 * distances, such that at least `targetPrecision` of the pairs with distance ≤ t are related, and
 * then the midpoint between `t` and the next larger distance (rounded to 3 decimals), so the
 * threshold does not sit on one pair. With no such `t`, the smallest related distance.
 */
export function calibrateThreshold(pairs: readonly ScoredPair[], targetPrecision = 0.9): Calibration {
  const sorted = [...pairs].sort((a, b) => a.distance - b.distance);
  const totalRelated = sorted.filter((p) => p.related).length;
  let related = 0;
  let best = -1;
  for (let i = 0; i < sorted.length; i++) {
    if ((sorted[i] as ScoredPair).related) related++;
    const tieNext = i + 1 < sorted.length && (sorted[i + 1] as ScoredPair).distance === (sorted[i] as ScoredPair).distance;
    if (!tieNext && related / (i + 1) >= targetPrecision) best = i;
  }
  if (best < 0) best = Math.max(0, sorted.findIndex((p) => p.related));
  const here = (sorted[best] as ScoredPair).distance;
  const next = (sorted[best + 1] as ScoredPair | undefined)?.distance ?? here;
  const threshold = Math.round(((here + next) / 2) * 1000) / 1000;
  const under = sorted.filter((p) => p.distance <= threshold);
  const hits = under.filter((p) => p.related).length;
  return { threshold, precision: under.length ? hits / under.length : Number.NaN, recall: totalRelated ? hits / totalRelated : Number.NaN };
}

/** Share of related pairs among the pairs at or under `threshold`, and the share of related pairs found. */
export function atThreshold(pairs: readonly ScoredPair[], threshold: number): Omit<Calibration, 'threshold'> {
  const under = pairs.filter((p) => p.distance <= threshold);
  const hits = under.filter((p) => p.related).length;
  const total = pairs.filter((p) => p.related).length;
  return { precision: under.length ? hits / under.length : Number.NaN, recall: total ? hits / total : Number.NaN };
}
