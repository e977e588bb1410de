// Nearest-neighbour search over one repository's vectors of one kind (units, chunks or API entries).
//
// sqlite-vec's exact scan costs ~40 ms per query at 100k 256-d vectors (~120 ms at 768-d), and a task
// makes one query per source and step. So the vectors are loaded once into memory with a sign-bit
// code per vector (for random-projection-like embeddings, Hamming distance between sign codes tracks
// the angle): a query scans the codes, keeps the best `candidates`, and rescores those exactly. The
// relevance r reported is always the exact cosine.

import type { Store, ItemKind } from '../store/store.ts';
import { storedVectors } from '../store/code-queries.ts';

/** Bit count of a 32-bit word (SWAR: no table lookups in the hot loop). */
function popcount32(x: number): number {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  x = (x + (x >>> 4)) & 0x0f0f0f0f;
  return Math.imul(x, 0x01010101) >>> 24;
}

export interface Hit {
  id: number;
  r: number;
}

export class VectorIndex {
  readonly size: number;
  private readonly words: number;
  private readonly pos = new Map<number, number>();

  constructor(
    readonly dim: number,
    readonly ids: Int32Array,
    /** Row-major, L2-normalised. */
    readonly vectors: Float32Array,
  ) {
    this.size = ids.length;
    this.words = Math.ceil(dim / 32);
    this.codes = new Uint32Array(this.size * this.words);
    for (let i = 0; i < this.size; i++) {
      this.pos.set(ids[i]!, i);
      this.encode(vectors.subarray(i * dim, (i + 1) * dim), this.codes, i * this.words);
    }
  }

  private readonly codes: Uint32Array;

  private encode(v: Float32Array, out: Uint32Array, at: number): void {
    for (let w = 0; w < this.words; w++) {
      let bits = 0;
      for (let b = 0; b < 32; b++) {
        const j = w * 32 + b;
        if (j < this.dim && v[j]! > 0) bits |= 1 << b;
      }
      out[at + w] = bits >>> 0;
    }
  }

  /** Loads every vector of `kind` the encoder made for the repository. */
  static load(store: Store, repoId: number, encoderId: number, kind: ItemKind, dim: number): VectorIndex {
    const rows = storedVectors(store, repoId, encoderId, kind);
    const ids = new Int32Array(rows.length);
    const vectors = new Float32Array(rows.length * dim);
    rows.forEach((r, i) => {
      ids[i] = r.id;
      vectors.set(new Float32Array(r.embedding.buffer, r.embedding.byteOffset, dim), i * dim);
    });
    return new VectorIndex(dim, ids, vectors);
  }

  has(id: number): boolean {
    return this.pos.has(id);
  }

  /** Exact cosine of the query with one stored item, or null when the item has no vector. */
  cosine(id: number, query: Float32Array): number | null {
    const i = this.pos.get(id);
    if (i === undefined) return null;
    return this.dot(i, query);
  }

  /** The stored vector of an item (a view; do not modify). */
  vector(id: number): Float32Array | null {
    const i = this.pos.get(id);
    return i === undefined ? null : this.vectors.subarray(i * this.dim, (i + 1) * this.dim);
  }

  private dot(i: number, q: Float32Array): number {
    const v = this.vectors;
    const o = i * this.dim;
    let s = 0;
    for (let j = 0; j < this.dim; j++) s += v[o + j]! * q[j]!;
    return s;
  }

  /** Approximate top-k: Hamming prefilter to `candidates`, exact cosine rescoring. */
  search(query: Float32Array, k: number, exclude?: { has(id: number): boolean }, candidates = Math.max(384, k * 48)): Hit[] {
    if (!this.size) return [];
    const words = this.words;
    const qc = new Uint32Array(words);
    this.encode(query, qc, 0);
    const c = Math.min(candidates, this.size);
    // Bounded max-heap on distance via a simple sorted insertion (c is small).
    const bestD = new Int32Array(c).fill(0x7fffffff);
    const bestI = new Int32Array(c).fill(-1);
    let worst = 0x7fffffff;
    const codes = this.codes;
    for (let i = 0, o = 0; i < this.size; i++, o += words) {
      let d = 0;
      for (let w = 0; w < words; w++) d += popcount32(codes[o + w]! ^ qc[w]!);
      if (d >= worst) continue;
      if (exclude?.has(this.ids[i]!)) continue;
      let p = c - 1;
      while (p > 0 && bestD[p - 1]! > d) {
        bestD[p] = bestD[p - 1]!;
        bestI[p] = bestI[p - 1]!;
        p--;
      }
      bestD[p] = d;
      bestI[p] = i;
      worst = bestD[c - 1]!;
    }
    const hits: Hit[] = [];
    for (let n = 0; n < c; n++) {
      const i = bestI[n]!;
      if (i < 0) break;
      hits.push({ id: this.ids[i]!, r: this.dot(i, query) });
    }
    hits.sort((a, b) => b.r - a.r || a.id - b.id);
    return hits.slice(0, k);
  }

  /** Exact top-k by brute force (the baseline the approximate search is measured against). */
  exactSearch(query: Float32Array, k: number, exclude?: { has(id: number): boolean }): Hit[] {
    const hits: Hit[] = [];
    let floor = -Infinity;
    for (let i = 0; i < this.size; i++) {
      if (exclude?.has(this.ids[i]!)) continue;
      const r = this.dot(i, query);
      if (hits.length >= k && r <= floor) continue;
      hits.push({ id: this.ids[i]!, r });
      if (hits.length > k * 4) {
        hits.sort((a, b) => b.r - a.r || a.id - b.id);
        hits.length = k;
        floor = hits[k - 1]!.r;
      }
    }
    hits.sort((a, b) => b.r - a.r || a.id - b.id);
    return hits.slice(0, k);
  }
}

/** Loaded indexes, reloaded when the repository was re-indexed since. */
export class VectorIndexCache {
  private readonly entries = new Map<string, { version: string; index: VectorIndex }>();

  get(store: Store, repoId: number, encoderId: number, kind: ItemKind, dim: number): VectorIndex {
    const key = `${store.path}|${repoId}|${encoderId}|${kind}`;
    const repo = store.getRepository(repoId);
    const version = `${repo?.last_indexed_at ?? ''}|${repo?.encoder_id ?? ''}`;
    const hit = this.entries.get(key);
    if (hit && hit.version === version) return hit.index;
    const index = VectorIndex.load(store, repoId, encoderId, kind, dim);
    this.entries.set(key, { version, index });
    return index;
  }

  clear(): void {
    this.entries.clear();
  }
}
