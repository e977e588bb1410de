// Shared fixtures for the UniXcoder tests: a tiny byte-level BPE tokenizer and a tiny model with UniXcoder's
// interface, written to a temp models folder.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildTinyUnixcoderModel, byteLevelTokenizerJson, learnMerges, writeUnixcoderFolder, type TinyModel } from '../../scripts/unixcoder-fixtures.ts';

export const MERGE_TEXTS = [
  'def parse_http_response(resp):\n    return resp.json()',
  'function parseHttpResponse(response) { return response.body; }',
  'def compute_checksum(data):\n    return crc32(data)',
  'parse parse parse response response return return self self',
];

export interface TinyUnixcoder {
  modelsDir: string;
  tokenizerJson: Record<string, unknown>;
  vocab: Map<string, number>;
  model: TinyModel;
  cleanup: () => void;
}

export function makeTinyUnixcoder(opts: { hiddenSize?: number } = {}): TinyUnixcoder {
  const { json, vocab } = byteLevelTokenizerJson(learnMerges(MERGE_TEXTS, 40));
  const model = buildTinyUnixcoderModel(vocab.size, 8);
  const modelsDir = fs.mkdtempSync(path.join(os.tmpdir(), 'oc-unixcoder-'));
  writeUnixcoderFolder(modelsDir, { model: model.bytes, tokenizer: json, hiddenSize: opts.hiddenSize });
  return { modelsDir, tokenizerJson: json, vocab, model, cleanup: () => fs.rmSync(modelsDir, { recursive: true, force: true }) };
}

/** What the tiny model + mean pooling + L2 give for one token sequence, computed by hand in float64. */
export function handVector(model: TinyModel, ids: number[]): number[] {
  const H = model.hidden;
  const mean = new Array<number>(H).fill(0);
  for (const id of ids) for (let h = 0; h < H; h++) mean[h]! += model.embedding[id * H + h]! / ids.length;
  // every real position: E_t + ctx + maskVector, where ctx is the mean of E over real positions
  const pooled = mean.map((m, h) => 2 * m + model.maskVector[h]!);
  const n = Math.sqrt(pooled.reduce((s, x) => s + x * x, 0));
  return pooled.map((x) => x / n);
}
