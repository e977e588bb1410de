// Stand-ins for a UniXcoder export, for tests and the benchmark (dev-only; nothing here ships):
//  - a RoBERTa-style byte-level BPE tokenizer.json with the UniXcoder special tokens,
//  - a tiny ONNX model with UniXcoder's interface (input_ids, attention_mask → last_hidden_state) whose output
//    can be computed by hand,
//  - a UniXcoder-sized ONNX model (50k × 768 embedding + 768×3072 / 3072×768 feed-forward layers) for throughput.

import fs from 'node:fs';
import path from 'node:path';
import { Xoshiro128 } from '../main/embed/hash-table.ts';
import { DT, GraphBuilder } from './onnx-builder.ts';

/** GPT-2's byte → printable character mapping used by byte-level BPE. */
export function bytesToUnicode(): string[] {
  const keep: number[] = [];
  for (let b = 33; b <= 126; b++) keep.push(b);
  for (let b = 161; b <= 172; b++) keep.push(b);
  for (let b = 174; b <= 255; b++) keep.push(b);
  const out = new Array<string>(256);
  let n = 0;
  for (let b = 0; b < 256; b++) out[b] = String.fromCodePoint(keep.includes(b) ? b : 256 + n++);
  return out;
}

const PRETOKENIZE = /'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+/gu;

/** Byte-level pre-tokens of a text, as byte-level strings (what BPE merges operate on). */
export function byteLevelWords(text: string): string[] {
  const map = bytesToUnicode();
  const enc = new TextEncoder();
  return (text.match(PRETOKENIZE) ?? []).map((w) => Array.from(enc.encode(w), (b) => map[b]!).join(''));
}

/** Learns `count` BPE merges from texts (plain greedy pair counting; good enough for a fixture). */
export function learnMerges(texts: string[], count: number): Array<[string, string]> {
  const wordFreq = new Map<string, number>();
  for (const t of texts) for (const w of byteLevelWords(t)) wordFreq.set(w, (wordFreq.get(w) ?? 0) + 1);
  const words = [...wordFreq].map(([w, f]) => ({ parts: Array.from(w), f }));
  const merges: Array<[string, string]> = [];
  for (let m = 0; m < count; m++) {
    const pairs = new Map<string, number>();
    for (const { parts, f } of words) {
      for (let i = 0; i + 1 < parts.length; i++) {
        const k = parts[i] + '\u0000' + parts[i + 1];
        pairs.set(k, (pairs.get(k) ?? 0) + f);
      }
    }
    let best = '';
    let bestN = 1;
    for (const [k, n] of pairs) if (n > bestN || (n === bestN && best !== '' && k < best)) [best, bestN] = [k, n];
    if (!best) break;
    const [a, b] = best.split('\u0000') as [string, string];
    merges.push([a, b]);
    for (const w of words) {
      const p = w.parts;
      const next: string[] = [];
      for (let i = 0; i < p.length; i++) {
        if (i + 1 < p.length && p[i] === a && p[i + 1] === b) {
          next.push(a + b);
          i++;
        } else next.push(p[i]!);
      }
      w.parts = next;
    }
  }
  return merges;
}

export const FIXTURE_SPECIALS = ['<s>', '<pad>', '</s>', '<unk>', '<encoder-only>'] as const;

/**
 * A RoBERTa-style tokenizer.json: ids 0–4 are <s> <pad> </s> <unk> <encoder-only> (unless `specials` says
 * otherwise), then the 256 byte characters, then one token per merge.
 */
export function byteLevelTokenizerJson(
  merges: Array<[string, string]>,
  specials: readonly string[] = FIXTURE_SPECIALS,
): { json: Record<string, unknown>; vocab: Map<string, number> } {
  const vocab = new Map<string, number>();
  for (const s of specials) vocab.set(s, vocab.size);
  for (const ch of bytesToUnicode()) if (!vocab.has(ch)) vocab.set(ch, vocab.size);
  for (const [a, b] of merges) if (!vocab.has(a + b)) vocab.set(a + b, vocab.size);
  const json = {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: specials.map((content) => ({
      id: vocab.get(content),
      content,
      single_word: false,
      lstrip: false,
      rstrip: false,
      normalized: false,
      special: true,
    })),
    normalizer: null,
    pre_tokenizer: { type: 'ByteLevel', add_prefix_space: false, trim_offsets: true, use_regex: true },
    post_processor: {
      type: 'RobertaProcessing',
      sep: ['</s>', vocab.get('</s>') ?? 2],
      cls: ['<s>', vocab.get('<s>') ?? 0],
      trim_offsets: true,
      add_prefix_space: false,
    },
    decoder: { type: 'ByteLevel', add_prefix_space: true, trim_offsets: true, use_regex: true },
    model: {
      type: 'BPE',
      dropout: null,
      unk_token: '<unk>',
      continuing_subword_prefix: '',
      end_of_word_suffix: '',
      fuse_unk: false,
      byte_fallback: false,
      ignore_merges: false,
      vocab: Object.fromEntries(vocab),
      merges: merges.map(([a, b]) => `${a} ${b}`),
    },
  };
  return { json, vocab };
}

function randomFloats(n: number, seed: number, std: number): Float32Array {
  const rng = new Xoshiro128(seed);
  const out = new Float32Array(n);
  // uniform on [-√3·std, √3·std]: variance std²
  const k = (2 * Math.sqrt(3) * std) / 2 ** 32;
  const off = Math.sqrt(3) * std;
  for (let i = 0; i < n; i++) out[i] = rng.nextU32() * k - off;
  return out;
}

export interface TinyModel {
  bytes: Uint8Array;
  vocabSize: number;
  hidden: number;
  /** [vocabSize, hidden] */
  embedding: Float32Array;
  /** [hidden] added at non-pad positions */
  maskVector: Float32Array;
}

/**
 * A tiny model with UniXcoder's interface. For a sequence with embedding rows E_t and mask m_t:
 *   ctx = Σ_t m_t E_t / max(Σ_t m_t, 1);  last_hidden_state_t = E_t + ctx + m_t · maskVector
 * so pad positions carry E[pad] + ctx (not zero) and every real position depends on the mask.
 */
export function buildTinyUnixcoderModel(vocabSize: number, hidden = 8, seed = 7): TinyModel {
  const embedding = randomFloats(vocabSize * hidden, seed, 1);
  const maskVector = randomFloats(hidden, seed + 1, 1);
  const g = new GraphBuilder('tiny_unixcoder');
  const ids = g.input('input_ids', DT.INT64, ['batch', 'sequence']);
  const mask = g.input('attention_mask', DT.INT64, ['batch', 'sequence']);
  const emb = g.init('embedding', DT.FLOAT, [vocabSize, hidden], embedding);
  const mv = g.init('mask_vector', DT.FLOAT, [hidden], maskVector);
  const axis1 = g.init('axis_1', DT.INT64, [1], new BigInt64Array([1n]));
  const axis2 = g.init('axis_2', DT.INT64, [1], new BigInt64Array([2n]));
  const one = g.init('one', DT.FLOAT, [], new Float32Array([1]));
  const e = g.node('Gather', [emb, ids], { axis: 0 }); // [B, T, H]
  const m = g.node('Unsqueeze', [g.node('Cast', [mask], { to: DT.FLOAT }), axis2]); // [B, T, 1]
  const num = g.node('ReduceSum', [g.node('Mul', [e, m]), axis1], { keepdims: 1 }); // [B, 1, H]
  const den = g.node('Max', [g.node('ReduceSum', [m, axis1], { keepdims: 1 }), one]); // [B, 1, 1]
  const ctx = g.node('Div', [num, den]);
  const masked = g.node('Mul', [m, mv]); // [B, T, H]
  g.node('Add', [g.node('Add', [e, ctx]), masked], {}, 'last_hidden_state');
  g.output('last_hidden_state', DT.FLOAT, ['batch', 'sequence', hidden]);
  return { bytes: g.toBytes(), vocabSize, hidden, embedding, maskVector };
}

export interface SizedModelOptions {
  vocabSize?: number;
  hidden?: number;
  ffn?: number;
  layers?: number;
  seed?: number;
}

/**
 * A model with UniXcoder's interface and size class: a vocab × hidden embedding, then `layers` residual
 * feed-forward blocks x += W2 · gelu≈(W1 · x + b1), the GELU approximated as h · sigmoid(1.702 h); output masked.
 * Per-token work is layers × 2 × hidden × ffn multiply-adds (no attention, so per token it is cheaper than
 * UniXcoder's 12 layers; it is the same kind of dense work, and padding costs as much as real tokens).
 */
export function buildUnixcoderSizedModel(opts: SizedModelOptions = {}): Uint8Array {
  const V = opts.vocabSize ?? 50265;
  const H = opts.hidden ?? 768;
  const F = opts.ffn ?? 3072;
  const L = opts.layers ?? 4;
  const seed = opts.seed ?? 11;
  const g = new GraphBuilder('unixcoder_sized');
  const ids = g.input('input_ids', DT.INT64, ['batch', 'sequence']);
  const mask = g.input('attention_mask', DT.INT64, ['batch', 'sequence']);
  const axis2 = g.init('axis_2', DT.INT64, [1], new BigInt64Array([2n]));
  const k = g.init('gelu_k', DT.FLOAT, [], new Float32Array([1.702]));
  let x = g.node('Gather', [g.init('word_embeddings', DT.FLOAT, [V, H], randomFloats(V * H, seed, 0.02)), ids], { axis: 0 });
  for (let l = 0; l < L; l++) {
    const w1 = g.init(`w1_${l}`, DT.FLOAT, [H, F], randomFloats(H * F, seed + 10 + l, 1 / Math.sqrt(H)));
    const b1 = g.init(`b1_${l}`, DT.FLOAT, [F], randomFloats(F, seed + 20 + l, 0.02));
    const w2 = g.init(`w2_${l}`, DT.FLOAT, [F, H], randomFloats(F * H, seed + 30 + l, 1 / Math.sqrt(F)));
    const h = g.node('Add', [g.node('MatMul', [x, w1]), b1]);
    const act = g.node('Mul', [h, g.node('Sigmoid', [g.node('Mul', [h, k])])]);
    x = g.node('Add', [x, g.node('MatMul', [act, w2])]);
  }
  const m = g.node('Unsqueeze', [g.node('Cast', [mask], { to: DT.FLOAT }), axis2]);
  g.node('Mul', [x, m], {}, 'last_hidden_state');
  g.output('last_hidden_state', DT.FLOAT, ['batch', 'sequence', H]);
  return g.toBytes();
}

/** Writes <modelsDir>/unixcoder-base/{model.onnx, tokenizer.json[, config.json]}. */
export function writeUnixcoderFolder(modelsDir: string, files: { model: Uint8Array; tokenizer: object; hiddenSize?: number }): string {
  const dir = path.join(modelsDir, 'unixcoder-base');
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'model.onnx'), files.model);
  fs.writeFileSync(path.join(dir, 'tokenizer.json'), JSON.stringify(files.tokenizer));
  if (files.hiddenSize) fs.writeFileSync(path.join(dir, 'config.json'), JSON.stringify({ hidden_size: files.hiddenSize }));
  return dir;
}
