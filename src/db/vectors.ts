/**
 * SAN-7 embedding storage format: float32 little-endian, 4 bytes per dimension
 * (1536 dimensions = 6144 bytes in `knowledge_cards.embedding`).
 */

/** Bytes per stored dimension. */
export const EMBEDDING_BYTES_PER_DIM = 4;

/**
 * Encodes an embedding as float32 little-endian bytes (values are rounded to float32), in a
 * buffer of its own (offset 0, never pooled), usable directly as a Prisma `Bytes` value.
 * @throws RangeError if a value is not finite.
 */
export function encodeEmbedding(v: ArrayLike<number>): Buffer<ArrayBuffer> {
  const buf = Buffer.alloc(v.length * EMBEDDING_BYTES_PER_DIM);
  for (let i = 0; i < v.length; i++) {
    const x = v[i] as number;
    if (!Number.isFinite(x)) throw new RangeError(`embedding[${i}] is not finite: ${x}`);
    buf.writeFloatLE(x, i * EMBEDDING_BYTES_PER_DIM);
  }
  return buf;
}

/**
 * Decodes float32 little-endian bytes into a new Float32Array (the input is copied, so any
 * byte offset or alignment works).
 * @throws RangeError if the length is not a multiple of 4.
 */
export function decodeEmbedding(b: Uint8Array): Float32Array {
  if (b.byteLength % EMBEDDING_BYTES_PER_DIM !== 0) {
    throw new RangeError(`embedding byte length ${b.byteLength} is not a multiple of ${EMBEDDING_BYTES_PER_DIM}`);
  }
  const n = b.byteLength / EMBEDDING_BYTES_PER_DIM;
  const out = new Float32Array(n);
  const view = new DataView(b.buffer, b.byteOffset, b.byteLength);
  for (let i = 0; i < n; i++) out[i] = view.getFloat32(i * EMBEDDING_BYTES_PER_DIM, true);
  return out;
}

/** Euclidean norm, accumulated in float64. */
export function vectorNorm(v: ArrayLike<number>): number {
  let s = 0;
  for (let i = 0; i < v.length; i++) {
    const x = v[i] as number;
    s += x * x;
  }
  return Math.sqrt(s);
}

/**
 * Cosine distance `1 - a·b / (|a||b|)` in [0, 2], accumulated in float64 (pgvector's `<=>`).
 * NaN when either vector has zero norm, as in pgvector.
 * @throws RangeError when the lengths differ.
 */
export function cosineDistance(a: ArrayLike<number>, b: ArrayLike<number>): number {
  if (a.length !== b.length) throw new RangeError(`vector lengths differ: ${a.length} vs ${b.length}`);
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    const x = a[i] as number;
    const y = b[i] as number;
    dot += x * y;
    na += x * x;
    nb += y * y;
  }
  return cosineFromParts(dot, Math.sqrt(na), Math.sqrt(nb));
}

/** Cosine distance from a dot product and the two norms; clamps rounding overshoot to [0, 2]. */
export function cosineFromParts(dot: number, normA: number, normB: number): number {
  if (normA === 0 || normB === 0) return Number.NaN;
  const sim = dot / (normA * normB);
  return 1 - Math.max(-1, Math.min(1, sim));
}
