import { describe, expect, it } from 'vitest';
import { VectorIndex } from '../../main/retrieve/vector-index.ts';

/** Vectors around `clusters` random centres (embeddings of code cluster by topic); clusters = n gives uniform noise. */
function randomIndex(n: number, dim: number, clusters = n, seed = 7): VectorIndex {
  let s = seed;
  const rnd = () => (s = (s * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff - 0.5;
  const centres = Array.from({ length: clusters }, () => Array.from({ length: dim }, rnd));
  const ids = new Int32Array(n).map((_, i) => i + 1);
  const v = new Float32Array(n * dim);
  for (let i = 0; i < n; i++) {
    let norm = 0;
    const c = centres[i % clusters]!;
    for (let j = 0; j < dim; j++) norm += (v[i * dim + j] = c[j]! + (clusters === n ? 0 : 0.35 * rnd())) ** 2;
    norm = Math.sqrt(norm);
    for (let j = 0; j < dim; j++) v[i * dim + j]! /= norm;
  }
  return new VectorIndex(dim, ids, v);
}

describe('VectorIndex', () => {
  it('matches the exact scan when the candidate pool covers everything, and reports exact cosines', () => {
    const idx = randomIndex(300, 32);
    const q = idx.vector(17)!.slice();
    const approx = idx.search(q, 8, undefined, 300);
    expect(approx).toEqual(idx.exactSearch(q, 8));
    expect(approx[0]).toEqual({ id: 17, r: expect.closeTo(1, 6) });
  });

  it('finds near neighbours with high recall at its default pool size and honours exclusions', () => {
    const idx = randomIndex(20000, 64, 400);
    let recall = 0;
    for (let t = 0; t < 20; t++) {
      const q = idx.vector(t * 37 + 1)!.slice();
      for (let j = 0; j < q.length; j++) q[j]! += Math.sin(t + j) * 0.02;
      const exact = new Set(idx.exactSearch(q, 8).map((h) => h.id));
      recall += idx.search(q, 8).filter((h) => exact.has(h.id)).length / 8;
    }
    expect(recall / 20).toBeGreaterThanOrEqual(0.9);
    const q = idx.vector(5)!;
    expect(idx.search(q, 5, new Set([5])).some((h) => h.id === 5)).toBe(false);
    expect(idx.cosine(999999, q)).toBeNull();
  });
});
