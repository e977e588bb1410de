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
import { storedVector, storedVectors } from '../store/code-queries.ts';
import { unlessUnwritable } from '../store/errors.ts';
import { restampDerivedIds } from '../store/derived-ids.ts';
import { openVectorPackRows, readVectorPackHead, restampVectorPack, vectorPackVersion, writeVectorPack, type PackRows } from '../store/vector-packs.ts';
import { KernelSpace, MAX_QUERIES } from './kernels/kernels.ts';
import { inBackground } from '../util/background.ts';

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
/** Rows read per slice of background paging (a few MB: one slice is a few milliseconds). */
const PAGE_ROWS = 4096;
/** Sets this large are turned into a mask once and remembered. */
const REMEMBERED_SET = 512;

/** Rows of an index opened from a vector pack that are read on demand (see VectorIndex.load). */
interface LazyRows {
  rows: PackRows;
  /** Each position's row in the pack's file. */
  fileRow: Int32Array;
  resident: Uint8Array;
  missing: number;
  /** An item's vector from the vector table, when the file cannot give it. */
  fromTable: (id: number) => Buffer | null;
}

export class VectorIndex {
  readonly size: number;
  private readonly pos: Map<number, number>;
  private readonly space: KernelSpace;
  private readonly setMasks: WeakMap<ReadonlySet<number>, Uint8Array>;
  /** Items every search of this view skips (a view that shares its base's vectors; see without()). */
  private readonly always: ReadonlySet<number> | null = null;
  /** Rows not read yet (an index opened from a vector pack): read from the pack's file when a search needs them. */
  private lazy: LazyRows | null = null;

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
      this.lazy = view.of.lazy;
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

  /**
   * Every vector of `kind` the encoder made for the repository. From its vector pack when one of this repository
   * state (`version`) exists: a few blob reads; else from the vector table, row by row, and the pack is written for
   * the next process (a store that cannot be written, such as a read-only one, only loses that speed-up).
   */
  static load(store: Store, repoId: number, encoderId: number, kind: ItemKind, dim: number, version?: string): VectorIndex {
    const head = version === undefined ? null : readVectorPackHead(store, repoId, encoderId, kind);
    if (head && head.version === version && head.dim === dim) {
      const index = new VectorIndex(dim, head.ids);
      const s = index.space;
      const rows = head.stride === s.stride && head.lanes === s.lanes && head.codes.length === s.codes.length ? openVectorPackRows(head) : null;
      if (rows) {
        // The codes now (the approximate search scans them all); each row when a search first needs it.
        s.codes.set(head.codes);
        const fromTable = (id: number) => storedVector(store, encoderId, kind, id);
        index.lazy = { rows, fileRow: Int32Array.from({ length: head.n }, (_, i) => i), resident: new Uint8Array(head.n), missing: head.n, fromTable };
        index.pageInBackground();
        return index;
      }
    }
    const rows = storedVectors(store, repoId, encoderId, kind);
    const index = new VectorIndex(
      dim,
      Int32Array.from(rows, (r) => r.id),
    );
    rows.forEach((r, i) => index.space.setItem(i, new Float32Array(r.embedding.buffer, r.embedding.byteOffset, dim)));
    if (version !== undefined) index.savePack(store, repoId, encoderId, kind, version);
    return index;
  }

  /** Writes this index as the repository's vector pack of `kind` for the state `version` (see load()). */
  savePack(store: Store, repoId: number, encoderId: number, kind: ItemKind, version: string): void {
    const s = this.space;
    // A store or folder that cannot be written (read-only, full) only loses the speed-up.
    unlessUnwritable(
      () =>
        writeVectorPack(store, repoId, encoderId, kind, {
          version,
          n: this.size,
          dim: this.dim,
          stride: s.stride,
          lanes: s.lanes,
          ids: this.ids,
          codes: s.codes,
          vectors: s.vectors.subarray(0, this.size * s.stride),
        }),
      undefined,
    );
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
    const lazy = this.lazy;
    if (lazy) {
      // Codes now; rows from the same pack file when needed (those already read are copied).
      positions.forEach((i, j) => (lazy.resident[i] ? sub.space.copyItem(j, this.space, i) : sub.space.copyCode(j, this.space, i)));
      const resident = Uint8Array.from(positions, (i) => lazy.resident[i]!);
      const missing = resident.length - resident.reduce((a, b) => a + b, 0);
      if (missing)
        sub.lazy = {
          rows: lazy.rows,
          fileRow: Int32Array.from(positions, (i) => lazy.fileRow[i]!),
          resident,
          missing,
          fromTable: lazy.fromTable,
        };
      sub.pageInBackground();
      return sub;
    }
    positions.forEach((i, j) => sub.space.copyItem(j, this.space, i));
    return sub;
  }

  /** Exact cosine of the query with one stored item, or null when the item has no vector. */
  cosine(id: number, query: Float32Array): number | null {
    const i = this.pos.get(id);
    if (i === undefined) return null;
    this.ensureRow(i);
    const v = this.space.vectors;
    const o = i * this.space.stride;
    let s = 0;
    for (let j = 0; j < this.dim; j++) s += v[o + j]! * query[j]!;
    return s;
  }

  /** The stored vector of an item (a view; do not modify). */
  vector(id: number): Float32Array | null {
    const i = this.pos.get(id);
    if (i === undefined) return null;
    this.ensureRow(i);
    return this.space.vectors.subarray(i * this.space.stride, i * this.space.stride + this.dim);
  }

  /** Reads the row at position i into the kernels' memory if it is not there yet. */
  private ensureRow(i: number): void {
    const lazy = this.lazy;
    if (!lazy || lazy.resident[i]) return;
    const s = this.space;
    if (!lazy.rows.read(lazy.fileRow[i]!, s.vectors, i * s.stride)) {
      // The pack's file changed under the index (removed, truncated): the row from the vector table instead.
      const id = this.ids[i]!;
      const blob = lazy.fromTable(id);
      if (!blob) throw new Error(`vector index: item ${id} has no stored vector (the index changed while in use; index the repository again)`);
      s.setItem(i, new Float32Array(blob.buffer, blob.byteOffset, this.dim));
    }
    lazy.resident[i] = 1;
    // Every row read: nothing is left to read. The file closes once no index holds it (indexes cut from this one
    // may still read it).
    if (--lazy.missing === 0) this.lazy = null;
  }

  /**
   * Reads the rows not read yet, PAGE_ROWS at a time on later turns of the event loop: the first task reads only the
   * rows it rescored, and the tasks after it should not pay a read per row.
   */
  private pageInBackground(): void {
    const lazy = this.lazy;
    if (!lazy) return;
    const s = this.space;
    let next = 0;
    inBackground(() => {
      if (this.lazy !== lazy) return true; // every row was read meanwhile
      const from = next;
      const to = Math.min(this.size, from + PAGE_ROWS);
      next = to;
      const first = lazy.fileRow[from]!;
      const span = lazy.fileRow[to - 1]! - first + 1;
      if (span === to - from) {
        // Consecutive rows of the file: one read straight into place.
        if (!lazy.rows.readRows(first, span, s.vectors, from * s.stride)) return true;
      } else {
        const buf = new Float32Array(span * s.stride);
        if (!lazy.rows.readRows(first, span, buf, 0)) return true;
        for (let j = from; j < to; j++)
          if (!lazy.resident[j]) s.vectors.set(buf.subarray((lazy.fileRow[j]! - first) * s.stride, (lazy.fileRow[j]! - first + 1) * s.stride), j * s.stride);
      }
      for (let j = from; j < to; j++) {
        if (lazy.resident[j]) continue;
        lazy.resident[j] = 1;
        lazy.missing--;
      }
      if (lazy.missing === 0 && this.lazy === lazy) this.lazy = null;
      return next >= this.size;
    });
  }

  /** Every row in the kernels' memory (an exact scan reads them all). */
  private ensureAll(): void {
    for (let i = 0; this.lazy && i < this.size; i++) this.ensureRow(i);
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
        const picked = s.picked;
        if (this.lazy?.missing) for (let i = 0; i < m; i++) this.ensureRow(picked[i]!);
        s.setQuery(q);
        s.dotsPicked(m);
        out.push(this.best(k, m, (i) => picked[i]!, null));
      });
    }
    return out;
  }

  /** Exact top-k by a full scan (SIMD dot products). */
  exactSearch(query: Float32Array, k: number, exclude?: Exclusion | ReadonlySet<number>): Hit[] {
    if (!this.size || k <= 0) return [];
    this.ensureAll();
    const s = this.space;
    s.setQuery(query);
    const masked = this.prepareMask(this.withAlways(exclude));
    s.dotsAll();
    return this.best(k, this.size, (j) => j, masked ? s.mask : null);
  }
}

/** The repository state a loaded index or a vector pack was made from: when it was last indexed, with which encoder. */
export function packVersion(store: Store, repoId: number): string {
  const repo = store.getRepository(repoId);
  return `${repo?.last_indexed_at ?? ''}|${repo?.encoder_id ?? ''}`;
}

const PACKED_KINDS: readonly ItemKind[] = ['unit', 'chunk', 'api'];

/**
 * After an index run of the repository: its vector packs made current, so the next process opens its indexes at
 * once. `unchangedSince`: the state before a run that changed no vector (its packs are only re-stamped); else, with
 * `remake`, each kind's pack is rebuilt from the vector table unless it is already of the current state (without,
 * a stale pack is left for the first load to remake).
 */
export function refreshVectorPacks(store: Store, repoId: number, encoderId: number, dim: number, unchangedSince: string | null, remake = true): void {
  const now = packVersion(store, repoId);
  if (unchangedSince !== null) unlessUnwritable(() => restampDerivedIds(store, repoId, unchangedSince, now), undefined);
  for (const kind of PACKED_KINDS) {
    const have = vectorPackVersion(store, repoId, encoderId, kind);
    if (have === now) continue;
    // Re-stamped, or a store that cannot take the write (nothing to remake it into either): done with this kind.
    if (
      unchangedSince !== null &&
      have === unchangedSince &&
      unlessUnwritable(() => restampVectorPack(store, repoId, encoderId, kind, unchangedSince, now), true)
    )
      continue;
    if (remake) VectorIndex.load(store, repoId, encoderId, kind, dim, now);
  }
}

/** Loaded indexes, reloaded when the repository was re-indexed since. */
export class VectorIndexCache {
  private readonly entries = new Map<string, { version: string; index: VectorIndex }>();

  get(store: Store, repoId: number, encoderId: number, kind: ItemKind, dim: number): VectorIndex {
    const key = `${store.path}|${repoId}|${encoderId}|${kind}`;
    const version = packVersion(store, repoId);
    const hit = this.entries.get(key);
    if (hit && hit.version === version) return hit.index;
    const index = VectorIndex.load(store, repoId, encoderId, kind, dim, version);
    this.entries.set(key, { version, index });
    return index;
  }

  clear(): void {
    this.entries.clear();
  }
}
