// Checks an exported UniXcoder folder against the reference.json written by scripts/export-unixcoder.py:
// the token ids must be identical to the official UniXcoder code's, and the vectors (our tokenizer, batching,
// onnxruntime, pooling) must match PyTorch's.
//
//   node bin/run-ts.js scripts/check-unixcoder.ts MODELS_DIR

import fs from 'node:fs';
import path from 'node:path';
import { openEncoder } from '../main/embed/open.ts';
import { loadUnixcoderSpec, UnixcoderTokenizer } from '../main/embed/unixcoder.ts';

interface Reference {
  quantized?: boolean;
  samples: Array<{ text: string; ids: number[]; vector: number[] }>;
}

const modelsDir = process.argv[2];
if (!modelsDir) {
  console.error('usage: check-unixcoder.ts MODELS_DIR');
  process.exit(2);
}
const spec = await loadUnixcoderSpec(modelsDir);
const ref = JSON.parse(fs.readFileSync(path.join(spec.dir, 'reference.json'), 'utf8')) as Reference;
const tok = await UnixcoderTokenizer.load(spec.tokenizerPath, spec.tokenizerConfigPath, spec.maxLength);
let failures = 0;
for (const s of ref.samples) {
  const ids = tok.encode(s.text);
  const same = ids.length === s.ids.length && ids.every((x, i) => x === s.ids[i]);
  if (!same) failures++;
  console.log(`ids ${same ? 'identical' : 'DIFFER'} (${ids.length} tokens): ${JSON.stringify(s.text.slice(0, 40))}`);
}
const enc = await openEncoder(spec);
try {
  const vs = await enc.embed(ref.samples.map((s) => s.text));
  const minCos = ref.quantized ? 0.98 : 0.9999;
  ref.samples.forEach((s, i) => {
    const c = s.vector.reduce((acc, x, h) => acc + x * vs[i]![h]!, 0);
    if (c < minCos) failures++;
    console.log(`cosine with PyTorch ${c.toFixed(6)} ${c >= minCos ? 'ok' : `BELOW ${minCos}`}`);
  });
} finally {
  await enc.dispose();
}
console.log(`${spec.id}: ${failures === 0 ? 'matches the reference' : `${failures} mismatches`}`);
process.exitCode = failures === 0 ? 0 : 1;
