// Opens an encoder from its spec in the current thread. The worker uses this; so can benchmarks and tests.

import type { Encoder } from '../model/encoder.ts';
import { createHashEncoder } from './hash-encoder.ts';
import type { EncoderSpec } from './spec.ts';
import { createUnixcoderEncoder } from './unixcoder.ts';

export interface EncoderOptions {
  /** onnxruntime intra-op threads (default: all logical CPUs). */
  threads?: number;
  /** Texts per ONNX run: default 256 for the hashing encoder, 32 for UniXcoder. */
  batchSize?: number;
  /** Max texts × padded length per ONNX run. */
  maxCells?: number;
  /** Max share of padding in a batch before it is split (defaults: 0.25 hashing, 0.15 UniXcoder). */
  maxPaddingFraction?: number;
}

/** Opens the encoder in this thread: the ONNX session runs synchronously on this thread's event loop. */
export async function openEncoderInThread(spec: EncoderSpec, opts: EncoderOptions = {}): Promise<Encoder> {
  switch (spec.kind) {
    case 'subtoken-hash':
      return createHashEncoder(spec, opts);
    case 'unixcoder':
      return createUnixcoderEncoder(spec, opts);
    default:
      throw new Error(`unknown encoder kind ${(spec as { kind?: unknown }).kind}`);
  }
}
