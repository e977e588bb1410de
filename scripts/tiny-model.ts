// `npm run tiny-model -- OUT.gguf [--seed N] [--layers N] [--embd N] [--f16]`: writes the tiny random-weight llama
// model the llama-cpp backend's tests build (scripts/tiny-gguf.ts), for trying the backend by hand:
//   opencoder generate --backend llama-cpp --model OUT.gguf …   (gibberish, but every step of local generation runs)

import path from 'node:path';
import { parseArgs } from 'node:util';
import { writeTinyGguf } from './tiny-gguf.ts';

const { values, positionals } = parseArgs({
  options: { seed: { type: 'string' }, layers: { type: 'string' }, embd: { type: 'string' }, f16: { type: 'boolean', default: false } },
  allowPositionals: true,
});
const out = positionals[0];
if (!out || positionals.length > 1) {
  console.error('usage: npm run tiny-model -- OUT.gguf [--seed N] [--layers N] [--embd N] [--f16]');
  process.exit(2);
}
const int = (key: 'seed' | 'layers' | 'embd'): number | undefined => {
  const raw = values[key];
  if (raw === undefined) return undefined;
  const v = Number(raw);
  if (!Number.isInteger(v) || v < 0) {
    console.error(`--${key} must be a whole number, got ${JSON.stringify(raw)}`);
    process.exit(2);
  }
  return v;
};
const [seed, layers, embd] = (['seed', 'layers', 'embd'] as const).map(int);
const info = writeTinyGguf(path.resolve(out), {
  ...(seed !== undefined ? { seed } : {}),
  ...(layers !== undefined ? { layers } : {}),
  ...(embd !== undefined ? { embd } : {}),
  ...(values.f16 ? { dtype: 'f16' as const } : {}),
});
const h = info.hparams;
console.log(
  `wrote ${info.file}: ${info.bytes} bytes, llama architecture, ${h.layers} blocks, hidden ${h.embd}, ${h.heads} heads, vocabulary ${info.nVocab}, ChatML template (random weights)`,
);
