/**
 * The local embedding (model `local:hash-tfidf-1536@1`): signed feature hashing of sublinear-tf
 * weighted features. Part of the extractive toolkit; no I/O.
 */
import { EMBEDDING_DIMENSIONS } from '../types';
import { contentTokens, stem } from './tokens';

export const imul = Math.imul;
export const FNV_OFFSET = 0x811c9dc5;
export const FNV_PRIME = 0x01000193;

/** 32-bit FNV-1a over the UTF-16 code units of `s`, continuing from state `h`. */
export function fnv1a(s: string, h = FNV_OFFSET): number {
  for (let i = 0; i < s.length; i++) h = imul(h ^ s.charCodeAt(i), FNV_PRIME);
  return h >>> 0;
}

/** Relative weight of each feature family in the final vector (tuned on paraphrase vs unrelated pairs). */
export const GROUP_WEIGHTS = { word: 1.0, bigram: 0.3, char: 1.0 } as const;
export type Group = keyof typeof GROUP_WEIGHTS;
/** Hash state after each family's namespace prefix, so equal strings of different families differ. */
export const GROUP_SEED: Record<Group, number> = { word: fnv1a('w\u0001'), bigram: fnv1a('b\u0001'), char: fnv1a('c\u0001') };

export function count<K>(map: Map<K, number>, key: K): void {
  map.set(key, (map.get(key) ?? 0) + 1);
}

/** Open-addressing counter of 32-bit feature hashes; typed arrays, several times cheaper than a Map. */
export class HashCounter {
  private keys = new Uint32Array(256);
  private counts = new Uint32Array(256);
  private size = 0;

  add(h: number): void {
    const mask = this.keys.length - 1;
    let i = (imul(h, 0x9e3779b1) >>> 0) & mask;
    while ((this.counts[i] ?? 0) !== 0) {
      if (this.keys[i] === h) {
        this.counts[i] = (this.counts[i] ?? 0) + 1;
        return;
      }
      i = (i + 1) & mask;
    }
    this.keys[i] = h;
    this.counts[i] = 1;
    if (++this.size * 2 > this.keys.length) this.grow();
  }

  /** Calls `fn(hash, count)` for every distinct hash. */
  each(fn: (h: number, n: number) => void): void {
    for (let i = 0; i < this.keys.length; i++) {
      const n = this.counts[i] ?? 0;
      if (n !== 0) fn(this.keys[i] ?? 0, n);
    }
  }

  private grow(): void {
    const { keys, counts } = this;
    this.keys = new Uint32Array(keys.length * 2);
    this.counts = new Uint32Array(keys.length * 2);
    const mask = this.keys.length - 1;
    for (let j = 0; j < keys.length; j++) {
      const n = counts[j] ?? 0;
      if (n === 0) continue;
      const h = keys[j] ?? 0;
      let i = (imul(h, 0x9e3779b1) >>> 0) & mask;
      while ((this.counts[i] ?? 0) !== 0) i = (i + 1) & mask;
      this.keys[i] = h;
      this.counts[i] = n;
    }
  }
}

/** Adds one feature family (feature hash → term frequency), normalised and weighted, into `vec`. */
export function addGroup(vec: Float64Array, counts: HashCounter, group: Group): void {
  const part = new Float64Array(EMBEDDING_DIMENSIONS);
  counts.each((h, tf) => {
    const idx = (h & 0x7fffffff) % EMBEDDING_DIMENSIONS;
    part[idx] = (part[idx] ?? 0) + (1 + Math.log(tf)) * (h & 0x80000000 ? -1 : 1);
  });
  let sq = 0;
  for (let i = 0; i < part.length; i++) sq += (part[i] ?? 0) ** 2;
  if (sq === 0) return;
  const scale = GROUP_WEIGHTS[group] / Math.sqrt(sq);
  for (let i = 0; i < part.length; i++) vec[i] = (vec[i] ?? 0) + (part[i] ?? 0) * scale;
}

/**
 * 1536-d, L2-normalised embedding of `text`: word unigrams, adjacent word bigrams and
 * character 3-grams of content words (padded with `<`/`>`, so Korean works without a segmenter),
 * sublinear tf, stopwords as the idf proxy, signed FNV-1a hashing. Each family is normalised and
 * weighted before the sum. Text with no content words gets the unit vector e0. Pure and synchronous.
 */
export function localEmbedding(text: string): number[] {
  const tokens = contentTokens(text).map(stem);
  const uni = new HashCounter();
  const bi = new HashCounter();
  const tri = new HashCounter();
  let prev: string | undefined;
  for (const t of tokens) {
    uni.add(fnv1a(t, GROUP_SEED.word));
    if (prev !== undefined) bi.add(fnv1a(t, fnv1a(' ', fnv1a(prev, GROUP_SEED.bigram))));
    prev = t;
    // Character 3-grams of `<t>` (60 = '<', 62 = '>'), hashed in place without allocating substrings.
    let a = 60;
    let b = t.charCodeAt(0);
    for (let i = 1; i <= t.length; i++) {
      const c = i < t.length ? t.charCodeAt(i) : 62;
      tri.add(imul(imul(imul(GROUP_SEED.char ^ a, FNV_PRIME) ^ b, FNV_PRIME) ^ c, FNV_PRIME) >>> 0);
      a = b;
      b = c;
    }
  }
  const vec = new Float64Array(EMBEDDING_DIMENSIONS);
  addGroup(vec, uni, 'word');
  addGroup(vec, bi, 'bigram');
  addGroup(vec, tri, 'char');
  let sq = 0;
  for (let i = 0; i < vec.length; i++) sq += (vec[i] ?? 0) ** 2;
  const out = new Array<number>(EMBEDDING_DIMENSIONS).fill(0);
  if (!(sq > 0) || !Number.isFinite(sq)) {
    out[0] = 1;
    return out;
  }
  const inv = 1 / Math.sqrt(sq);
  for (let i = 0; i < vec.length; i++) out[i] = (vec[i] ?? 0) * inv;
  return out;
}
