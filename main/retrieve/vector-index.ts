// Nearest-neighbour search over one repository's vectors of one kind (units, chunks or API entries).
//
// The vectors are loaded once into a WebAssembly memory (kernels/kernels.ts) with a sign-bit code per vector
// (for these embeddings, Hamming distance between sign codes tracks the angle). Which search runs is chosen by
// the corpus size: up to EXACT_UP_TO vectors, an exact scan; above, the approximate search scans the codes
// with SIMD popcounts, keeps the `candidates` nearest by Hamming distance and rescores those exactly. A task
// makes one query per source and step, and the rescoring pool is wide (768) because rescoring is cheap: the
// bench (`npm run bench`) measures recall@8 of this search against the exact scan on the same query vectors.
// Relevance r reported by the engine is always the exact cosine (cosine(), in double precision).

import type { Store, ItemKind } from '../store/store.ts';
import { storedVectors } from '../store/code-queries.ts';
import { KernelSpace, MAX_QUERIES } from './kernels/kernels.ts';

export interface Hit {
  id: number;
  r: number;
}

/**
 * Items a search must skip: `has` answers for one id; `sets`, when given, are the sets whose union is
 * excluded, so that the index can mark them without asking about every item (a set passed here must not
 * change afterwards: large ones are remembered as masks).
 */
export interface Exclusion {
  has(id: number): boolean;
  sets?: readonly ReadonlySet<number>[];
}

/** At or below this many vectors the search is an exact scan. */
export const EXACT_UP_TO = 4096;
/** Default rescoring pool of the approximate search. */
export const DEFAULT_CANDIDATES = 768;
/** Sets this large are turned into a mask once and remembered. */
const REMEMBERED_SET = 512;

export class VectorIndex {
  readonly size: number;
  private readonly pos: Map<number, number>;
  private readonly space: KernelSpace;
  private readonly setMasks: WeakMap<ReadonlySet<number>, Uint8Array>;
  /** Items every search of this view skips (a view that shares its base's vectors; see without()). */
  private readonly always: ReadonlySet<number> | null = null;

  /**
   * `vectors`: row-major, L2-normalised, `dim` per item (copied). With `view`, a view of `view.of` that shares its
   * vectors and skips `view.always` in every search.
   */
  constructor(
    readonly dim: number,
    readonly ids: Int32Array,
    vectors?: Float32Array,
    view?: { of: VectorIndex; always: ReadonlySet<number> },
  ) {
    this.size = ids.length;
    if (view) {
      this.pos = view.of.pos;
      this.space = view.of.space;
      this.setMasks = view.of.setMasks;
      this.always = view.always;
      return;
    }
    this.pos = new Map();
    this.setMasks = new WeakMap();
    this.space = new KernelSpace(this.size, dim);
    for (let i = 0; i < this.size; i++) {
      this.pos.set(ids[i]!, i);
      if (vectors) this.space.setItem(i, vectors.subarray(i * dim, (i + 1) * dim));
    }
  }

  /** Loads every vector of `kind` the encoder made for the repository. */
  static load(store: Store, repoId: number, encoderId: number, kind: ItemKind, dim: number): VectorIndex {
    const rows = storedVectors(store, repoId, encoderId, kind);
    const index = new VectorIndex(
      dim,
      Int32Array.from(rows, (r) => r.id),
    );
    rows.forEach((r, i) => index.space.setItem(i, new Float32Array(r.embedding.buffer, r.embedding.byteOffset, dim)));
    return index;
  }

  has(id: number): boolean {
    return this.pos.has(id);
  }

  private readonly views = new WeakMap<ReadonlySet<number>, VectorIndex>();

  /**
   * This index without the items of `set` (a set that does not change, such as the repository's test-file
   * items), built once per set: no search of it returns one of them, whatever exclusion the search is given.
   * When the set removes a quarter of the items or more, the view is a copy of the rest (smaller scans); below
   * that, a copy costs more than a mask, and the view shares these vectors and masks the set in every search.
   */
  without(set: ReadonlySet<number>): VectorIndex {
    const known = this.views.get(set);
    if (known) return known;
    const keep: number[] = [];
    for (let i = 0; i < this.size; i++) if (!set.has(this.ids[i]!) && !this.always?.has(this.ids[i]!)) keep.push(i);
    if (keep.length === this.size) return this; // nothing of the set is here
    const view =
      keep.length > 0.75 * this.size
        ? new VectorIndex(this.dim, this.ids, undefined, { of: this, always: this.always ? new Set([...this.always, ...set]) : set })
        : this.subset(keep);
    this.views.set(set, view);
    return view;
  }

  /** `exclude` together with what this view always skips. */
  private withAlways(exclude: Exclusion | ReadonlySet<number> | undefined): Exclusion | ReadonlySet<number> | undefined {
    const always = this.always;
    if (!always) return exclude;
    if (!exclude) return always;
    const sets = exclude instanceof Set ? [exclude as ReadonlySet<number>] : (exclude as Exclusion).sets;
    return { has: (id: number) => always.has(id) || exclude.has(id), ...(sets ? { sets: [always, ...sets] } : {}) };
  }

  /** A new index of the items at these positions. */
  private subset(positions: number[]): VectorIndex {
    const sub = new VectorIndex(
      this.dim,
      Int32Array.from(positions, (i) => this.ids[i]!),
    );
    positions.forEach((i, j) => sub.space.copyItem(j, this.space, i));
    return sub;
  }

  /** Exact cosine of the query with one stored item, or null when the item has no vector. */
  cosine(id: number, query: Float32Array): number | null {
    const i = this.pos.get(id);
    if (i === undefined) return null;
    const v = this.space.vectors;
    const o = i * this.space.stride;
    let s = 0;
    for (let j = 0; j < this.dim; j++) s += v[o + j]! * query[j]!;
    return s;
  }

  /** The stored vector of an item (a view; do not modify). */
  vector(id: number): Float32Array | null {
    const i = this.pos.get(id);
    return i === undefined ? null : this.space.vectors.subarray(i * this.space.stride, i * this.space.stride + this.dim);
  }

  /** Marks the excluded items in the kernel's mask; false when nothing is excluded. */
  private prepareMask(exclude: Exclusion | ReadonlySet<number> | undefined): boolean {
    if (!exclude) return false;
    const mask = this.space.mask;
    mask.fill(0);
    const sets = exclude instanceof Set ? [exclude as ReadonlySet<number>] : (exclude as Exclusion).sets;
    if (!sets) {
      for (let i = 0; i < this.size; i++) if (exclude.has(this.ids[i]!)) mask[i] = 1;
      return true;
    }
    for (const set of sets) {
      if (set.size >= REMEMBERED_SET) {
        let m = this.setMasks.get(set);
        if (!m) {
          m = new Uint8Array(this.size);
          for (const id of set) {
            const p = this.pos.get(id);
            if (p !== undefined) m[p] = 1;
          }
          this.setMasks.set(set, m);
        }
        for (let i = 0; i < this.size; i++) mask[i]! |= m[i]!;
      } else {
        for (const id of set) {
          const p = this.pos.get(id);
          if (p !== undefined) mask[p] = 1;
        }
      }
    }
    return true;
  }

  /** The best k of the first `m` scores (scores[j] belongs to the item at position positionOf(j)), by r then id. */
  private best(k: number, m: number, positionOf: (j: number) => number, skip: Uint8Array | null): Hit[] {
    const scores = this.space.scores;
    const topR: number[] = [];
    const topId: number[] = [];
    for (let j = 0; j < m; j++) {
      const p = positionOf(j);
      if (skip && skip[p]) continue;
      const r = scores[j]!;
      const id = this.ids[p]!;
      const n = topR.length;
      if (n >= k && (r < topR[n - 1]! || (r === topR[n - 1]! && id > topId[n - 1]!))) continue;
      let at = n < k ? n : n - 1;
      while (at > 0 && (topR[at - 1]! < r || (topR[at - 1]! === r && topId[at - 1]! > id))) {
        topR[at] = topR[at - 1]!;
        topId[at] = topId[at - 1]!;
        at--;
      }
      topR[at] = r;
      topId[at] = id;
    }
    return topR.map((r, i) => ({ id: topId[i]!, r }));
  }

  /**
   * Top k by cosine. Above EXACT_UP_TO vectors: the `candidates` nearest sign codes (Hamming distance, SIMD),
   * rescored exactly; at or below it, the exact scan.
   */
  search(query: Float32Array, k: number, exclude?: Exclusion | ReadonlySet<number>, candidates = DEFAULT_CANDIDATES): Hit[] {
    return this.searchMany([query], k, exclude, candidates)[0]!;
  }

  /** search() for several queries with the same exclusion (a task's steps): one pass over the codes per MAX_QUERIES queries. */
  searchMany(queries: readonly Float32Array[], k: number, exclude?: Exclusion | ReadonlySet<number>, candidates = DEFAULT_CANDIDATES): Hit[][] {
    if (!this.size || k <= 0) return queries.map(() => []);
    const want = Math.max(candidates, k);
    if (this.size <= EXACT_UP_TO || want >= this.size) return queries.map((q) => this.exactSearch(q, k, exclude));
    const s = this.space;
    const useMask = this.prepareMask(this.withAlways(exclude));
    const out: Hit[][] = [];
    for (let from = 0; from < queries.length; from += MAX_QUERIES) {
      const batch = queries.slice(from, from + MAX_QUERIES);
      s.setQueryCodes(batch);
      s.hammingMany(batch.length, useMask);
      batch.forEach((q, j) => {
        // The smallest distance th whose cumulative count reaches `want`: everything below it, and ties at it
        // up to `want` (in item order). Masked items sit at maskedDistance and are never collected.
        const hist = s.histOf(j);
        const maxD = s.maskedDistance - 1;
        let below = 0;
        let th = 0;
        while (th <= maxD && below + hist[th]! < want) below += hist[th++]!;
        const m = th > maxD ? s.collect(maxD + 1, 0, j) : s.collect(th, want - below, j);
        s.setQuery(q);
        s.dotsPicked(m);
        const picked = s.picked;
        out.push(this.best(k, m, (i) => picked[i]!, null));
      });
    }
    return out;
  }

  /** Exact top-k by a full scan (SIMD dot products). */
  exactSearch(query: Float32Array, k: number, exclude?: Exclusion | ReadonlySet<number>): Hit[] {
    if (!this.size || k <= 0) return [];
    const s = this.space;
    s.setQuery(query);
    const masked = this.prepareMask(this.withAlways(exclude));
    s.dotsAll();
    return this.best(k, this.size, (j) => j, masked ? s.mask : null);
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
