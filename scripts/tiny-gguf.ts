// A tiny llama-architecture GGUF model with random weights, for the tests and the benchmark of the llama-cpp
// backend (dev-only, like onnx-builder.ts: nothing here ships). It loads and runs in llama.cpp in milliseconds
// with no download: a few transformer blocks, a SentencePiece ("llama") vocabulary of ~700 pieces and a ChatML
// chat template, so tokenization, the chat template, sampling, log-probabilities and cancellation all run the
// real code. Its output is gibberish. The same options give the same bytes: weights come from a seeded integer
// PRNG (the embedder's xoshiro128), multiplications and Math.sqrt only (no Math.random, no transcendental functions).
//
// GGUF v3, little-endian (llama.cpp's ggml/include/gguf.h):
//   "GGUF" | u32 version 3 | u64 n_tensors | u64 n_kv
//   n_kv × { string key | u32 value type | value }          string = u64 byte length + UTF-8, bool = 1 byte,
//   n_tensors × { string name | u32 n_dims | u64 ne[] |      array = u32 element type + u64 count + elements
//                 u32 ggml type | u64 offset }
//   zero padding to general.alignment (32), then the tensor data, each tensor at an aligned offset from the start
//   of the data, laid out in info order (llama.cpp checks that offset i is the padded size of tensors 0..i-1).
// Shapes are ggml `ne` (ne[0] varies fastest): a weight used as ggml_mul_mat(W, x) has ne = [n_in, n_out].
//
// `npm run tiny-model -- OUT.gguf` (scripts/tiny-model.ts) writes the file the tests use.

import fs from 'node:fs';
import { Xoshiro128 } from '../main/embed/hash-table.ts';

/** gguf_type: the value types of metadata. */
const GGUF = { UINT32: 4, INT32: 5, FLOAT32: 6, BOOL: 7, STRING: 8, ARRAY: 9 } as const;

/** ggml_type of the tensors we write. */
const GGML_F32 = 0;
const GGML_F16 = 1;
type GgmlType = typeof GGML_F32 | typeof GGML_F16;

/** llama_token_type, as stored in tokenizer.ggml.token_type (llama.cpp include/llama.h). */
export const TokenType = { NORMAL: 1, UNKNOWN: 2, CONTROL: 3, BYTE: 6 } as const;
type TokenTypeValue = (typeof TokenType)[keyof typeof TokenType];

const ALIGNMENT = 32;

export interface TinyGgufOptions {
  /** PRNG seed: the same seed and options give a byte-identical file. Default 1. */
  seed?: number;
  /** Transformer blocks. Default 2. */
  layers?: number;
  /** Hidden size, divisible by `heads`. Default 64. */
  embd?: number;
  /** Attention heads. Default 4. */
  heads?: number;
  /** Key/value heads (grouped-query attention), dividing `heads`. Default heads / 2. */
  kvHeads?: number;
  /** Feed-forward size. Default 2 × embd. */
  ff?: number;
  /** llama.context_length (the training context). Default 2048. */
  contextLength?: number;
  /** More vocabulary pieces ("▁" for a leading space, SentencePiece style); their prefixes are added too, so merging reaches them. */
  vocabExtra?: string[];
  /** Storage of the weight matrices (norms are always f32). Default f32. */
  dtype?: 'f32' | 'f16';
  /** tokenizer.chat_template; null leaves it out. Default ChatML. */
  chatTemplate?: string | null;
  /** general.name. Default tiny-random-llama. */
  name?: string;
  /** Rough logit bias of the control tokens: negative keeps the model from ending early, so "N tokens" means N. Default -12. */
  specialTokenBias?: number;
  /** Rough logit bias of the end-of-turn tokens (</s>, <|im_end|>): raise it for replies that end on their own. Default: specialTokenBias. */
  endTokenBias?: number;
  /** Rough logit bias of the 256 byte-fallback tokens (keeps the output valid UTF-8 mostly). Default -6. */
  byteTokenBias?: number;
  /** Standard deviation of the unbiased output logits: larger gives peakier next-token distributions. Default 3. */
  logitStd?: number;
}

export interface TinyGgufInfo {
  file?: string;
  bytes: number;
  nVocab: number;
  tokens: string[];
  special: { unk: number; bos: number; eos: number; imStart: number; imEnd: number };
  hparams: { layers: number; embd: number; heads: number; kvHeads: number; ff: number; contextLength: number };
  chatTemplate: string | null;
}

/**
 * ChatML (Jinja) with a leading BOS: node-llama-cpp recognises it as its built-in ChatML wrapper (which emits BOS),
 * and the `{{ bos_token }}` keeps a Jinja rendering of it token for token the same.
 */
export const CHATML_TEMPLATE =
  '{{ bos_token }}' +
  '{% for message in messages %}' +
  "{{ '<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>' + '\\n' }}" +
  '{% endfor %}' +
  "{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}";

/** Words added bare and with a leading "▁", with all their prefixes. */
const WORDS = (
  'the a an and or of to in on is are was be it that this you I we they he she hello Hello world yes no ok not can will do what how ' +
  'why code test model tiny file function return value true false answer question assistant user system def if else for while import'
).split(' ');
/** Single characters with a piece of their own (and "▁" + char). */
const CHARS = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.,!?;:\'"-()[]{}<>/\\=+*_#@&%$';

/** A growable little-endian byte buffer. */
class ByteWriter {
  private buf = Buffer.alloc(1 << 16);
  length = 0;

  /** Makes room for n bytes (growing the buffer) and returns where they go: call it before touching `buf`. */
  private room(n: number): number {
    if (this.length + n > this.buf.length) {
      let size = this.buf.length;
      while (size < this.length + n) size *= 2;
      const next = Buffer.alloc(size);
      this.buf.copy(next, 0, 0, this.length);
      this.buf = next;
    }
    const at = this.length;
    this.length += n;
    return at;
  }
  u8(v: number): void {
    const at = this.room(1);
    this.buf.writeUInt8(v, at);
  }
  u16(v: number): void {
    const at = this.room(2);
    this.buf.writeUInt16LE(v, at);
  }
  u32(v: number): void {
    const at = this.room(4);
    this.buf.writeUInt32LE(v, at);
  }
  i32(v: number): void {
    const at = this.room(4);
    this.buf.writeInt32LE(v, at);
  }
  u64(v: number): void {
    const at = this.room(8);
    this.buf.writeBigUInt64LE(BigInt(v), at);
  }
  f32(v: number): void {
    const at = this.room(4);
    this.buf.writeFloatLE(v, at);
  }
  bytes(b: Uint8Array): void {
    const at = this.room(b.length);
    this.buf.set(b, at);
  }
  str(s: string): void {
    const b = Buffer.from(s, 'utf8');
    this.u64(b.length);
    this.bytes(b);
  }
  pad(): void {
    while (this.length % ALIGNMENT !== 0) this.u8(0);
  }
  result(): Buffer {
    return this.buf.subarray(0, this.length);
  }
}

type KvValue =
  | { t: 'u32'; v: number }
  | { t: 'f32'; v: number }
  | { t: 'bool'; v: boolean }
  | { t: 'str'; v: string }
  | { t: 'strs'; v: string[] }
  | { t: 'f32s'; v: number[] }
  | { t: 'i32s'; v: number[] };

function writeKv(w: ByteWriter, key: string, val: KvValue): void {
  w.str(key);
  const array = (type: number, n: number) => {
    w.u32(GGUF.ARRAY);
    w.u32(type);
    w.u64(n);
  };
  switch (val.t) {
    case 'u32':
      w.u32(GGUF.UINT32);
      return w.u32(val.v);
    case 'f32':
      w.u32(GGUF.FLOAT32);
      return w.f32(val.v);
    case 'bool':
      w.u32(GGUF.BOOL);
      return w.u8(val.v ? 1 : 0);
    case 'str':
      w.u32(GGUF.STRING);
      return w.str(val.v);
    case 'strs':
      array(GGUF.STRING, val.v.length);
      return val.v.forEach((s) => w.str(s));
    case 'f32s':
      array(GGUF.FLOAT32, val.v.length);
      return val.v.forEach((x) => w.f32(x));
    case 'i32s':
      array(GGUF.INT32, val.v.length);
      return val.v.forEach((x) => w.i32(x));
  }
}

const f32 = new Float32Array(1);
const f32Bits = new Uint32Array(f32.buffer);

/** IEEE half of a float32, rounded to nearest even: bit-exact everywhere. */
function f16Bits(value: number): number {
  f32[0] = value;
  const x = f32Bits[0]!;
  const sign = (x >>> 16) & 0x8000;
  const exp = (x >>> 23) & 0xff;
  let mant = x & 0x7fffff;
  if (exp === 0xff) return sign | 0x7c00 | (mant ? 0x200 : 0);
  const e = exp - 127 + 15;
  if (e >= 0x1f) return sign | 0x7c00;
  if (e <= 0) {
    if (e < -10) return sign;
    mant |= 0x800000;
    const shift = 14 - e;
    let half = mant >>> shift;
    const rem = mant & ((1 << shift) - 1);
    const halfway = 1 << (shift - 1);
    if (rem > halfway || (rem === halfway && half & 1)) half++;
    return sign | half;
  }
  let half = (e << 10) | (mant >>> 13);
  const rem = mant & 0x1fff;
  if (rem > 0x1000 || (rem === 0x1000 && half & 1)) half++; // a carry into the exponent is still right
  return sign | half;
}

interface Vocab {
  tokens: string[];
  scores: number[];
  types: TokenTypeValue[];
  special: TinyGgufInfo['special'];
}

/**
 * SentencePiece vocabulary: <unk> <s> </s>, the 256 byte-fallback pieces (llama.cpp finds them by the text
 * "<0xAB>"), the ChatML control tokens, then normal pieces. SPM merges adjacent symbols into the best-scoring
 * piece in the vocabulary, starting from single characters, so every prefix of a piece is a piece too; the score
 * is the length (longer wins), less a tiny index term for a stable order.
 */
function buildVocab(extra: string[]): Vocab {
  const v: Vocab = { tokens: [], scores: [], types: [], special: { unk: 0, bos: 0, eos: 0, imStart: 0, imEnd: 0 } };
  const seen = new Set<string>();
  const add = (piece: string, type: TokenTypeValue, score: number): number => {
    if (piece.length === 0 || seen.has(piece)) return -1;
    seen.add(piece);
    v.tokens.push(piece);
    v.scores.push(score);
    v.types.push(type);
    return v.tokens.length - 1;
  };
  v.special.unk = add('<unk>', TokenType.UNKNOWN, 0);
  v.special.bos = add('<s>', TokenType.CONTROL, 0);
  v.special.eos = add('</s>', TokenType.CONTROL, 0);
  for (let b = 0; b < 256; b++) add(`<0x${b.toString(16).toUpperCase().padStart(2, '0')}>`, TokenType.BYTE, 0);
  v.special.imStart = add('<|im_start|>', TokenType.CONTROL, 0);
  v.special.imEnd = add('<|im_end|>', TokenType.CONTROL, 0);
  const pieces = ['▁', ...[...CHARS].flatMap((c) => [c, `▁${c}`]), ...WORDS.flatMap((w) => [w, `▁${w}`]), ...extra];
  let n = 0;
  for (const piece of pieces) {
    const cps = Array.from(piece);
    for (let len = 1; len <= cps.length; len++) add(cps.slice(0, len).join(''), TokenType.NORMAL, len - n++ * 1e-4);
  }
  return v;
}

interface Tensor {
  name: string;
  ne: number[];
  data: Float32Array;
  type: GgmlType;
}

interface Shape {
  layers: number;
  embd: number;
  heads: number;
  kvHeads: number;
  ff: number;
}

function shapeOf(opts: TinyGgufOptions): Shape {
  const heads = opts.heads ?? 4;
  const s: Shape = {
    layers: opts.layers ?? 2,
    embd: opts.embd ?? 64,
    heads,
    kvHeads: opts.kvHeads ?? (heads % 2 === 0 ? heads / 2 : heads),
    ff: 0,
  };
  s.ff = opts.ff ?? s.embd * 2;
  if (s.embd % s.heads !== 0) throw new Error(`embd (${s.embd}) must be divisible by heads (${s.heads})`);
  if (s.heads % s.kvHeads !== 0) throw new Error(`heads (${s.heads}) must be divisible by kvHeads (${s.kvHeads})`);
  if ((s.embd / s.heads) % 2 !== 0) throw new Error('the head size must be even (RoPE rotates pairs)');
  return s;
}

/**
 * The weights. The llama graph has no output bias, so hidden dimension 0 carries one: every token embedding holds
 * BIAS_C there and the rows writing dimension 0 (attention output, FFN down) are zero, so the residual stream keeps
 * x[0] = BIAS_C through every block; after the final RMSNorm x[0] ≈ h0, and output[t][0] = bias_t / h0 adds about
 * bias_t to token t's logit (about: the RMS drifts a little through the blocks).
 */
function buildTensors(s: Shape, vocab: Vocab, opts: TinyGgufOptions): Tensor[] {
  const rng = new Xoshiro128(opts.seed ?? 1);
  const rand = () => rng.nextU32() / 4294967296;
  const matType: GgmlType = opts.dtype === 'f16' ? GGML_F16 : GGML_F32;
  const nVocab = vocab.tokens.length;
  const kvDim = (s.embd / s.heads) * s.kvHeads;
  // uniform(-a, a) has standard deviation a / √3
  const random = (count: number, std: number) => {
    const a = std * Math.sqrt(3);
    const out = new Float32Array(count);
    for (let i = 0; i < count; i++) out[i] = (rand() * 2 - 1) * a;
    return out;
  };
  const ones = (count: number) => new Float32Array(count).fill(1);
  const tensors: Tensor[] = [];
  const add = (name: string, ne: number[], data: Float32Array, type: GgmlType = matType) => {
    if (data.length !== ne.reduce((x, y) => x * y, 1)) throw new Error(`bad size for ${name}`);
    tensors.push({ name, ne, data, type });
  };
  const BIAS_C = 4;
  const h0 = BIAS_C / Math.sqrt((BIAS_C * BIAS_C + (s.embd - 1)) / s.embd);
  const tokEmbd = random(s.embd * nVocab, 1);
  for (let t = 0; t < nVocab; t++) tokEmbd[t * s.embd] = BIAS_C;
  add('token_embd.weight', [s.embd, nVocab], tokEmbd);
  const inStd = 1 / Math.sqrt(s.embd);
  for (let il = 0; il < s.layers; il++) {
    const p = `blk.${il}.`;
    add(`${p}attn_norm.weight`, [s.embd], ones(s.embd), GGML_F32);
    add(`${p}attn_q.weight`, [s.embd, s.embd], random(s.embd * s.embd, inStd));
    add(`${p}attn_k.weight`, [s.embd, kvDim], random(s.embd * kvDim, inStd));
    add(`${p}attn_v.weight`, [s.embd, kvDim], random(s.embd * kvDim, inStd));
    add(`${p}attn_output.weight`, [s.embd, s.embd], random(s.embd * s.embd, 0.5 * inStd).fill(0, 0, s.embd));
    add(`${p}ffn_norm.weight`, [s.embd], ones(s.embd), GGML_F32);
    add(`${p}ffn_gate.weight`, [s.embd, s.ff], random(s.embd * s.ff, inStd));
    add(`${p}ffn_down.weight`, [s.ff, s.embd], random(s.ff * s.embd, 0.5 / Math.sqrt(s.ff)).fill(0, 0, s.ff));
    add(`${p}ffn_up.weight`, [s.embd, s.ff], random(s.embd * s.ff, inStd));
  }
  add('output_norm.weight', [s.embd], ones(s.embd), GGML_F32);
  const output = random(s.embd * nVocab, (opts.logitStd ?? 3) / Math.sqrt(Math.max(1, s.embd - h0 * h0)));
  const specialBias = opts.specialTokenBias ?? -12;
  const byteBias = opts.byteTokenBias ?? -6;
  const endBias = opts.endTokenBias ?? specialBias;
  vocab.types.forEach((type, t) => {
    const bias =
      t === vocab.special.eos || t === vocab.special.imEnd
        ? endBias
        : type === TokenType.BYTE
          ? byteBias
          : type === TokenType.CONTROL || type === TokenType.UNKNOWN
            ? specialBias
            : 0;
    output[t * s.embd] = bias / h0;
  });
  add('output.weight', [s.embd, nVocab], output);
  return tensors;
}

function metadata(s: Shape, vocab: Vocab, opts: TinyGgufOptions, chatTemplate: string | null, contextLength: number): [string, KvValue][] {
  const u32 = (v: number): KvValue => ({ t: 'u32', v });
  const kv: [string, KvValue][] = [
    ['general.architecture', { t: 'str', v: 'llama' }],
    ['general.name', { t: 'str', v: opts.name ?? 'tiny-random-llama' }],
    ['general.alignment', u32(ALIGNMENT)],
    ['general.file_type', u32(opts.dtype === 'f16' ? 1 : 0)], // llama_ftype: ALL_F32 / MOSTLY_F16
    ['llama.vocab_size', u32(vocab.tokens.length)],
    ['llama.context_length', u32(contextLength)],
    ['llama.embedding_length', u32(s.embd)],
    ['llama.block_count', u32(s.layers)],
    ['llama.feed_forward_length', u32(s.ff)],
    ['llama.attention.head_count', u32(s.heads)],
    ['llama.attention.head_count_kv', u32(s.kvHeads)],
    ['llama.attention.layer_norm_rms_epsilon', { t: 'f32', v: 1e-5 }],
    ['llama.rope.dimension_count', u32(s.embd / s.heads)],
    ['llama.rope.freq_base', { t: 'f32', v: 10000 }],
    ['tokenizer.ggml.model', { t: 'str', v: 'llama' }],
    ['tokenizer.ggml.tokens', { t: 'strs', v: vocab.tokens }],
    ['tokenizer.ggml.scores', { t: 'f32s', v: vocab.scores }],
    ['tokenizer.ggml.token_type', { t: 'i32s', v: vocab.types }],
    ['tokenizer.ggml.unknown_token_id', u32(vocab.special.unk)],
    ['tokenizer.ggml.bos_token_id', u32(vocab.special.bos)],
    ['tokenizer.ggml.eos_token_id', u32(vocab.special.eos)],
    ['tokenizer.ggml.eot_token_id', u32(vocab.special.imEnd)],
    ['tokenizer.ggml.add_bos_token', { t: 'bool', v: true }],
    ['tokenizer.ggml.add_eos_token', { t: 'bool', v: false }],
    // true would make llama.cpp's SPM tokenizer put a space after every special token ("<|im_start|>▁user")
    ['tokenizer.ggml.add_space_prefix', { t: 'bool', v: false }],
  ];
  if (chatTemplate !== null) kv.push(['tokenizer.chat_template', { t: 'str', v: chatTemplate }]);
  return kv;
}

function serialise(kv: [string, KvValue][], tensors: Tensor[]): Buffer {
  const w = new ByteWriter();
  w.bytes(Buffer.from('GGUF', 'ascii'));
  w.u32(3);
  w.u64(tensors.length);
  w.u64(kv.length);
  for (const [k, v] of kv) writeKv(w, k, v);
  const bytesOf = (t: Tensor) => t.data.length * (t.type === GGML_F16 ? 2 : 4);
  let offset = 0;
  for (const t of tensors) {
    w.str(t.name);
    w.u32(t.ne.length);
    for (const d of t.ne) w.u64(d);
    w.u32(t.type);
    w.u64(offset);
    offset += Math.ceil(bytesOf(t) / ALIGNMENT) * ALIGNMENT;
  }
  w.pad();
  for (const t of tensors) {
    if (t.type === GGML_F16) for (const x of t.data) w.u16(f16Bits(x));
    else w.bytes(new Uint8Array(t.data.buffer, t.data.byteOffset, t.data.byteLength));
    w.pad();
  }
  return w.result();
}

/** The whole file, built in memory (it is small), and what it holds. */
export function buildTinyGguf(opts: TinyGgufOptions = {}): { buffer: Buffer; info: TinyGgufInfo } {
  const s = shapeOf(opts);
  const contextLength = opts.contextLength ?? 2048;
  const chatTemplate = opts.chatTemplate === undefined ? CHATML_TEMPLATE : opts.chatTemplate;
  const vocab = buildVocab(opts.vocabExtra ?? []);
  const buffer = serialise(metadata(s, vocab, opts, chatTemplate, contextLength), buildTensors(s, vocab, opts));
  return {
    buffer,
    info: { bytes: buffer.length, nVocab: vocab.tokens.length, tokens: vocab.tokens, special: vocab.special, hparams: { ...s, contextLength }, chatTemplate },
  };
}

/** Writes the tiny model to `file` and says what was written. */
export function writeTinyGguf(file: string, opts: TinyGgufOptions = {}): TinyGgufInfo {
  const { buffer, info } = buildTinyGguf(opts);
  fs.writeFileSync(file, buffer);
  return { ...info, file };
}
