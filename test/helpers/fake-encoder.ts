// A deterministic in-process encoder for tests of indexing logic (not of embedding quality).

import { createHash } from 'node:crypto';
import type { Encoder } from '../../main/model/encoder.ts';

export interface CountingEncoder extends Encoder {
  /** Every text embedded so far, in call order. */
  seen: string[];
}

export function fakeEncoder(id = 'fake@1', dim = 8): CountingEncoder {
  const seen: string[] = [];
  return {
    id,
    name: `fake encoder ${id}`,
    dim,
    description: 'sha256 bytes as a vector; for tests only',
    seen,
    async embed(texts) {
      seen.push(...texts);
      return texts.map((t) => {
        const h = createHash('sha256').update(t).digest();
        const v = new Float32Array(dim);
        for (let i = 0; i < dim; i++) v[i] = h[i]! - 127.5;
        const n = Math.hypot(...v);
        return v.map((x) => x / n);
      });
    },
    async dispose() {},
  };
}
