// The fixed random projection table of the default encoder, and a plain-JS reference of what its ONNX graph
// computes (used by tests and by the evaluation script; the encoder itself runs the ONNX model).

import type { HashedFeatures } from './features.ts';

/** xoshiro128** seeded through splitmix32: integer-only, so the table is bit-identical on every platform. */
export class Xoshiro128 {
  private s: Uint32Array;
  constructor(seed: number) {
    this.s = new Uint32Array(4);
    let x = seed >>> 0;
    for (let i = 0; i < 4; i++) {
      x = (x + 0x9e3779b9) >>> 0;
      let z = x;
      z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
      z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
      this.s[i] = (z ^ (z >>> 16)) >>> 0;
    }
  }
  nextU32(): number {
    const s = this.s;
    const result = Math.imul(rotl(Math.imul(s[1]!, 5), 7), 9) >>> 0;
    const t = (s[1]! << 9) >>> 0;
    s[2]! ^= s[0]!;
    s[3]! ^= s[1]!;
    s[1]! ^= s[2]!;
    s[0]! ^= s[3]!;
    s[2]! ^= t;
    s[3] = rotl(s[3]!, 11);
    return result;
  }
}

function rotl(x: number, k: number): number {
  return ((x << k) | (x >>> (32 - k))) >>> 0;
}

/**
 * A [rows, dim] int8 table of approximately Gaussian, zero-mean entries: each is the sum of four independent
 * uniform integers in [0, 63] minus 126 (Irwin–Hall), so values lie in [-126, 126] with standard deviation ≈ 36.9.
 */
export function randomInt8Table(rows: number, dim: number, seed: number): Int8Array {
  const rng = new Xoshiro128(seed);
  const out = new Int8Array(rows * dim);
  for (let i = 0; i < out.length; i++) {
    const r = rng.nextU32();
    // the low six bits of each of the four bytes
    const v = (r & 63) + ((r >>> 8) & 63) + ((r >>> 16) & 63) + ((r >>> 24) & 63);
    out[i] = v - 126;
  }
  return out;
}

/** What the ONNX graph computes for one text: Σ w_f · scale · rowScale[id_f] · table[id_f], then L2-normalised. */
export function referenceEmbed(features: HashedFeatures, table: Int8Array, dim: number, scale: number, rowScale?: Float32Array): Float32Array {
  const acc = new Float64Array(dim);
  for (let i = 0; i < features.ids.length; i++) {
    const id = features.ids[i]!;
    const w = features.weights[i]! * (rowScale ? rowScale[id]! : 1);
    const off = id * dim;
    for (let d = 0; d < dim; d++) acc[d]! += w * table[off + d]!;
  }
  let norm = 0;
  for (let d = 0; d < dim; d++) {
    acc[d]! *= scale;
    norm += acc[d]! * acc[d]!;
  }
  norm = Math.max(Math.sqrt(norm), 1e-12);
  const out = new Float32Array(dim);
  for (let d = 0; d < dim; d++) out[d] = acc[d]! / norm;
  return out;
}
