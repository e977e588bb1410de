// Length-sorted batching: texts of similar length go together so that padding wastes little work, and results
// come back in input order.

import type { Encoder } from '../model/encoder.ts';

export interface BatchLimits {
  /** At most this many items per batch. */
  maxBatch: number;
  /** At most this many padded cells (items × longest length) per batch; a single longer item still forms a batch. */
  maxCells?: number;
  /**
   * Start a new batch rather than let padding exceed this fraction of the batch's padded cells (e.g. 0.2).
   * Items are sorted by length, so the item being added is always the batch's longest.
   */
  maxPaddingFraction?: number;
}

/** Groups item indices into batches, shortest items first; lengths are the per-item sizes after padding is removed. */
export function planBatches(lengths: ArrayLike<number>, limits: BatchLimits): number[][] {
  const maxBatch = Math.max(1, Math.floor(limits.maxBatch));
  const maxCells = limits.maxCells ?? Infinity;
  const maxPad = limits.maxPaddingFraction ?? 1;
  const order = Array.from({ length: lengths.length }, (_, i) => i);
  order.sort((a, b) => lengths[a]! - lengths[b]! || a - b);
  const batches: number[][] = [];
  let cur: number[] = [];
  let sum = 0;
  for (const i of order) {
    const len = Math.max(lengths[i]!, 1);
    const padded = (cur.length + 1) * len;
    if (cur.length > 0 && (cur.length >= maxBatch || padded > maxCells || padded - (sum + len) > maxPad * padded)) {
      batches.push(cur);
      cur = [];
      sum = 0;
    }
    cur.push(i);
    sum += len;
  }
  if (cur.length > 0) batches.push(cur);
  return batches;
}

/** Runs `run` on each planned batch (in order) and scatters its outputs back to input positions. */
export async function runBatched<I, O>(items: I[], lengths: ArrayLike<number>, limits: BatchLimits, run: (batch: I[]) => Promise<O[]>): Promise<O[]> {
  const out = new Array<O>(items.length);
  for (const idx of planBatches(lengths, limits)) {
    const res = await run(idx.map((i) => items[i]!));
    if (res.length !== idx.length) throw new Error(`batch returned ${res.length} results for ${idx.length} inputs`);
    idx.forEach((i, k) => (out[i] = res[k]!));
  }
  return out;
}

/**
 * An Encoder over one ONNX session: each text is prepared (hashed features, tokens), batched by its prepared
 * length and run; disposing releases the session once. Both model encoders (hash-encoder.ts, unixcoder.ts) are this.
 */
export function sessionEncoder<P>(
  spec: { id: string; name: string; description: string },
  dim: number,
  session: { release(): Promise<void> },
  limits: BatchLimits,
  prepare: (text: string) => P,
  lengthOf: (prepared: P) => number,
  runBatch: (batch: P[]) => Promise<Float32Array[]>,
): Encoder {
  let disposed = false;
  return {
    id: spec.id,
    name: spec.name,
    dim,
    description: spec.description,
    async embed(texts: string[]): Promise<Float32Array[]> {
      if (disposed) throw new Error(`encoder ${spec.id} is disposed`);
      if (texts.length === 0) return [];
      const prepared = texts.map(prepare);
      return runBatched(prepared, prepared.map(lengthOf), limits, runBatch);
    },
    async dispose(): Promise<void> {
      if (disposed) return;
      disposed = true;
      await session.release();
    },
  };
}
