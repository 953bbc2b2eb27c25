import { cosineDistance, decodeEmbedding, encodeEmbedding, vectorNorm } from '../../../src/db/vectors';

describe('embedding encoding (SAN-7: float32 little-endian)', () => {
  it('encodes 4 bytes per dimension, little-endian', () => {
    const buf = encodeEmbedding([1, -2.5]);
    expect(buf).toHaveLength(8);
    expect([...buf]).toEqual([0x00, 0x00, 0x80, 0x3f, 0x00, 0x00, 0x20, 0xc0]);
  });

  it('stores 1536 dimensions in 6144 bytes and round-trips float32 values exactly', () => {
    const v = Float32Array.from({ length: 1536 }, (_, i) => Math.sin(i) * 0.1);
    const buf = encodeEmbedding(v);
    expect(buf).toHaveLength(6144);
    expect(decodeEmbedding(buf)).toEqual(v);
  });

  it('rounds float64 input to float32', () => {
    const decoded = decodeEmbedding(encodeEmbedding([0.1]));
    expect(decoded[0]).toBe(Math.fround(0.1));
  });

  it('decodes from an unaligned view', () => {
    const payload = encodeEmbedding([3.25, -7]);
    const backing = new Uint8Array(payload.length + 1);
    backing.set(payload, 1);
    expect(Array.from(decodeEmbedding(backing.subarray(1)))).toEqual([3.25, -7]);
  });

  it('rejects non-finite values and partial floats', () => {
    expect(() => encodeEmbedding([1, Number.NaN])).toThrow(RangeError);
    expect(() => encodeEmbedding([Number.POSITIVE_INFINITY])).toThrow(RangeError);
    expect(() => decodeEmbedding(new Uint8Array(6))).toThrow(RangeError);
  });
});

describe('cosineDistance', () => {
  it('is 0 for the same direction, 1 for orthogonal, 2 for opposite', () => {
    expect(cosineDistance([1, 2, 3], [2, 4, 6])).toBeCloseTo(0, 12);
    expect(cosineDistance([1, 0], [0, 5])).toBeCloseTo(1, 12);
    expect(cosineDistance([1, 1], [-1, -1])).toBeCloseTo(2, 12);
  });

  it('matches 1 - cos(angle)', () => {
    const angle = 0.7;
    expect(cosineDistance([1, 0], [Math.cos(angle), Math.sin(angle)])).toBeCloseTo(1 - Math.cos(angle), 12);
  });

  it('never leaves [0, 2] through rounding', () => {
    const v = Float32Array.from({ length: 1536 }, (_, i) => ((i * 7919) % 1000) / 997 - 0.5);
    const d = cosineDistance(v, v);
    expect(d).toBeGreaterThanOrEqual(0);
    expect(d).toBeLessThan(1e-12);
  });

  it('is NaN when a vector has zero norm (as pgvector)', () => {
    expect(cosineDistance([0, 0], [1, 2])).toBeNaN();
  });

  it('rejects different lengths', () => {
    expect(() => cosineDistance([1, 2], [1, 2, 3])).toThrow(RangeError);
  });

  it('vectorNorm is the euclidean norm', () => {
    expect(vectorNorm([3, 4])).toBe(5);
  });
});
