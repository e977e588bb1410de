// The vector search kernels (vector-kernels.wat, WebAssembly SIMD) over one index's own memory: the item codes
// and vectors live in it once, next to the per-query scratch regions. One KernelSpace per loaded index; its
// size is fixed at creation, so the typed-array views below never detach.

import { VECTOR_KERNELS_WASM_BASE64 } from './vector-kernels.wasm.ts';

interface Exports {
  hammingMany(codes: number, n: number, lanes: number, q: number, nq: number, mask: number, dist: number, hist: number): void;
  collect(dist: number, n: number, th: number, ties: number, out: number): number;
  dots(vecs: number, stride: number, idx: number, m: number, q: number, out: number): void;
  dotsAll(vecs: number, stride: number, n: number, q: number, out: number): void;
}

let compiled: WebAssembly.Module | null = null;

function kernelModule(): WebAssembly.Module {
  compiled ??= new WebAssembly.Module(Buffer.from(VECTOR_KERNELS_WASM_BASE64, 'base64'));
  return compiled;
}

const PAGE = 65536;
/** Queries one hammingMany() pass takes (a task's steps: at most 6). */
export const MAX_QUERIES = 8;
/** Per-byte popcount sums in the Hamming kernel stay below 256 up to 31 lanes of 128 bits. */
export const MAX_DIM = 31 * 128;

export class KernelSpace {
  /** 128-bit lanes per sign code. */
  readonly lanes: number;
  /** float32 per stored vector (dim rounded up to a multiple of 16; the padding is 0). */
  readonly stride: number;
  readonly codes: Uint32Array;
  readonly vectors: Float32Array;
  /** Hamming distances, n per query slot (MAX_QUERIES slots). */
  readonly dist: Int32Array;
  readonly mask: Uint8Array;
  readonly picked: Int32Array;
  readonly scores: Float32Array;
  readonly query: Float32Array;
  /** Sign codes of the queries, one slot of lanes × 4 words each. */
  readonly queryCode: Uint32Array;
  /** Distance histograms, histSize per query slot. */
  readonly hist: Int32Array;
  readonly histSize: number;
  private readonly fn: Exports;
  private readonly at: Record<'codes' | 'vectors' | 'dist' | 'mask' | 'picked' | 'scores' | 'query' | 'queryCode' | 'hist', number>;

  constructor(
    readonly n: number,
    readonly dim: number,
  ) {
    if (dim < 1 || dim > MAX_DIM) throw new Error(`vector kernels: dimension ${dim} is outside 1…${MAX_DIM}`);
    this.lanes = Math.ceil(dim / 128);
    this.stride = Math.ceil(dim / 16) * 16;
    const words = this.lanes * 4;
    this.histSize = this.lanes * 128 + 2;
    const sizes = {
      codes: n * words * 4,
      vectors: n * this.stride * 4,
      dist: MAX_QUERIES * n * 4,
      mask: n,
      picked: n * 4,
      scores: n * 4,
      query: this.stride * 4,
      queryCode: MAX_QUERIES * words * 4,
      hist: MAX_QUERIES * this.histSize * 4,
    };
    let offset = 0;
    const at = {} as Record<keyof typeof sizes, number>;
    for (const [name, bytes] of Object.entries(sizes) as [keyof typeof sizes, number][]) {
      at[name] = offset;
      offset += Math.ceil(bytes / 16) * 16;
    }
    this.at = at;
    const pages = Math.max(1, Math.ceil(offset / PAGE));
    if (pages > 65536) throw new Error(`vector kernels: ${n} vectors of ${dim} dimensions need ${(offset / 2 ** 30).toFixed(1)} GiB, over WebAssembly's 4 GiB`);
    const memory = new WebAssembly.Memory({ initial: pages, maximum: pages });
    this.fn = new WebAssembly.Instance(kernelModule(), { env: { memory } }).exports as unknown as Exports;
    const buf = memory.buffer;
    this.codes = new Uint32Array(buf, at.codes, n * words);
    this.vectors = new Float32Array(buf, at.vectors, n * this.stride);
    this.dist = new Int32Array(buf, at.dist, MAX_QUERIES * n);
    this.mask = new Uint8Array(buf, at.mask, n);
    this.picked = new Int32Array(buf, at.picked, n);
    this.scores = new Float32Array(buf, at.scores, n);
    this.query = new Float32Array(buf, at.query, this.stride);
    this.queryCode = new Uint32Array(buf, at.queryCode, MAX_QUERIES * words);
    this.hist = new Int32Array(buf, at.hist, MAX_QUERIES * this.histSize);
  }

  /** Distance given to masked items by hammingMany(). */
  get maskedDistance(): number {
    return this.lanes * 128 + 1;
  }

  /** Writes the sign code of `v` (dim components from `offset`) to `out` at word `at`. */
  encode(v: Float32Array, offset: number, out: Uint32Array, at: number): void {
    const words = this.lanes * 4;
    for (let w = 0; w < words; w++) {
      let bits = 0;
      const base = w * 32;
      const end = Math.min(32, this.dim - base);
      for (let b = 0; b < end; b++) if (v[offset + base + b]! > 0) bits |= 1 << b;
      out[at + w] = bits >>> 0;
    }
  }

  /** Stores item i's vector (dim components) and its code. */
  setItem(i: number, v: Float32Array): void {
    this.vectors.set(v.subarray(0, this.dim), i * this.stride);
    this.encode(this.vectors, i * this.stride, this.codes, i * this.lanes * 4);
  }

  /** Copies only the sign code of item i of `from` (same dimension) to item j of this space. */
  copyCode(j: number, from: KernelSpace, i: number): void {
    const words = this.lanes * 4;
    this.codes.set(from.codes.subarray(i * words, (i + 1) * words), j * words);
  }

  /** Copies item i of `from` (same dimension) to item j of this space. */
  copyItem(j: number, from: KernelSpace, i: number): void {
    const words = this.lanes * 4;
    this.vectors.set(from.vectors.subarray(i * this.stride, (i + 1) * this.stride), j * this.stride);
    this.codes.set(from.codes.subarray(i * words, (i + 1) * words), j * words);
  }

  /** Loads the query vector that dotsPicked and dotsAll score against. */
  setQuery(q: Float32Array): void {
    this.query.fill(0);
    this.query.set(q.subarray(0, this.dim));
  }

  /** Loads the codes of up to MAX_QUERIES queries into their slots (for hammingMany). */
  setQueryCodes(qs: readonly Float32Array[]): void {
    if (qs.length > MAX_QUERIES) throw new Error(`vector kernels: ${qs.length} queries in one pass, at most ${MAX_QUERIES}`);
    const words = this.lanes * 4;
    qs.forEach((q, j) => {
      this.query.fill(0);
      this.query.set(q.subarray(0, this.dim));
      this.encode(this.query, 0, this.queryCode, j * words);
    });
  }

  /** Hamming distances of every item's code to query slots 0 … nq−1 (one pass over the codes) into their dist and hist slots. */
  hammingMany(nq: number, useMask: boolean): void {
    this.hist.fill(0, 0, nq * this.histSize);
    this.fn.hammingMany(this.at.codes, this.n, this.lanes, this.at.queryCode, nq, useMask ? this.at.mask : 0, this.at.dist, this.at.hist);
  }

  /** The histogram of query slot j. */
  histOf(j: number): Int32Array {
    return this.hist.subarray(j * this.histSize, (j + 1) * this.histSize);
  }

  /** Items whose distance in slot `slot` is below th, plus the first `ties` at th, into `picked`; returns their count. */
  collect(th: number, ties: number, slot = 0): number {
    return this.fn.collect(this.at.dist + slot * this.n * 4, this.n, th, ties, this.at.picked);
  }

  /** scores[j] = vector(picked[j]) · query for j < m. */
  dotsPicked(m: number): void {
    this.fn.dots(this.at.vectors, this.stride, this.at.picked, m, this.at.query, this.at.scores);
  }

  /** scores[i] = vector(i) · query for every item. */
  dotsAll(): void {
    this.fn.dotsAll(this.at.vectors, this.stride, this.n, this.at.query, this.at.scores);
  }
}
