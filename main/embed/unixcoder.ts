// UniXcoder (microsoft/unixcoder-base) as an encoder, on onnxruntime-node, from a user-supplied ONNX export.
//
// Input format of the official UniXcoder encoder-only mode (github.com/microsoft/CodeBERT, UniXcoder/unixcoder.py):
//   <s> <encoder-only> </s> BPE(text)[: max_length - 4] </s>, padded with <pad>; max_length = 512.
// Sentence vector: mean of last_hidden_state over non-pad positions, then L2 normalisation.
// Batches are padded to their longest sequence (not to 512), which does not change the result: pad positions
// are masked out of attention and of the mean, and RoBERTa position ids skip padding.

import fs from 'node:fs';
import path from 'node:path';
import { Tokenizer } from '@huggingface/tokenizers';
import { sessionEncoder } from './batching.ts';
import type { Encoder } from '../model/encoder.ts';
import { checkValue, createSession, describeValues, formatValues, ort, type Session } from './ort.ts';
import { sha256File, shortHash, type UnixcoderEncoderSpec } from './spec.ts';

export const UNIXCODER_DIRNAME = 'unixcoder-base';
export const UNIXCODER_MAX_LENGTH = 512;
export const UNIXCODER_DESCRIPTION =
  'UniXcoder (microsoft/unixcoder-base), a RoBERTa-style code transformer, encoder-only mode, mean-pooled last hidden state; run locally with onnxruntime.';
/** Part of the id: bump when tokenisation or pooling here changes. */
const PIPELINE_VERSION = 'unixcoder-encoder-only-mean-l2-v1';

export interface UnixcoderFiles {
  dir: string;
  modelPath: string;
  tokenizerPath: string;
  tokenizerConfigPath: string;
  /** Hugging Face config.json (optional; gives the hidden size). */
  configPath: string;
}

export function unixcoderFiles(modelsDir: string): UnixcoderFiles {
  const dir = path.join(modelsDir, UNIXCODER_DIRNAME);
  return {
    dir,
    modelPath: path.join(dir, 'model.onnx'),
    tokenizerPath: path.join(dir, 'tokenizer.json'),
    tokenizerConfigPath: path.join(dir, 'tokenizer_config.json'),
    configPath: path.join(dir, 'config.json'),
  };
}

/** The required files that are missing (model.onnx, tokenizer.json), as absolute paths. */
export function missingUnixcoderFiles(modelsDir: string): string[] {
  const f = unixcoderFiles(modelsDir);
  return [f.modelPath, f.tokenizerPath].filter((p) => !fs.existsSync(p)).map((p) => path.resolve(p));
}

export async function loadUnixcoderSpec(modelsDir: string, opts: { maxLength?: number } = {}): Promise<UnixcoderEncoderSpec> {
  const f = unixcoderFiles(modelsDir);
  const missing = missingUnixcoderFiles(modelsDir);
  if (missing.length > 0) {
    throw new Error(`UniXcoder files missing: ${missing.join(', ')} (see scripts/export-unixcoder.md for how to export microsoft/unixcoder-base to ONNX)`);
  }
  const maxLength = opts.maxLength ?? UNIXCODER_MAX_LENGTH;
  if (!Number.isInteger(maxLength) || maxLength < 5) throw new Error(`UniXcoder maxLength must be an integer ≥ 5, got ${maxLength}`);
  const tokenizerConfigPath = fs.existsSync(f.tokenizerConfigPath) ? f.tokenizerConfigPath : null;
  let dim: number | null = null;
  if (fs.existsSync(f.configPath)) {
    try {
      const hs = (JSON.parse(await fs.promises.readFile(f.configPath, 'utf8')) as { hidden_size?: unknown }).hidden_size;
      if (typeof hs === 'number') dim = hs;
    } catch {
      // config.json is optional; the dimension is read from the model when it is opened
    }
  }
  const parts = [
    PIPELINE_VERSION,
    await sha256File(f.modelPath),
    await sha256File(f.tokenizerPath),
    tokenizerConfigPath ? await sha256File(tokenizerConfigPath) : '-',
    String(maxLength),
  ];
  return {
    kind: 'unixcoder',
    id: `${UNIXCODER_DIRNAME}@${shortHash(parts)}`,
    name: UNIXCODER_DIRNAME,
    description: UNIXCODER_DESCRIPTION,
    dim,
    dir: f.dir,
    modelPath: f.modelPath,
    tokenizerPath: f.tokenizerPath,
    tokenizerConfigPath,
    maxLength,
  };
}

function tokenName(v: unknown, fallback: string): string {
  if (typeof v === 'string') return v;
  if (v && typeof v === 'object' && typeof (v as { content?: unknown }).content === 'string') return (v as { content: string }).content;
  return fallback;
}

export interface SpecialIds {
  cls: number;
  sep: number;
  pad: number;
  mode: number;
}

/** Tokenisation in the official UniXcoder encoder-only format. */
export class UnixcoderTokenizer {
  readonly special: SpecialIds;
  private readonly cutFrom: number;
  private readonly cutTo: number;

  constructor(
    private readonly tokenizer: Tokenizer,
    tokenizerConfig: Record<string, unknown>,
    readonly maxLength: number = UNIXCODER_MAX_LENGTH,
  ) {
    const names = {
      cls: tokenName(tokenizerConfig.cls_token ?? tokenizerConfig.bos_token, '<s>'),
      sep: tokenName(tokenizerConfig.sep_token ?? tokenizerConfig.eos_token, '</s>'),
      pad: tokenName(tokenizerConfig.pad_token, '<pad>'),
      mode: '<encoder-only>',
    };
    const ids: Partial<SpecialIds> = {};
    const missing: string[] = [];
    for (const [k, name] of Object.entries(names) as Array<[keyof SpecialIds, string]>) {
      const id = tokenizer.token_to_id(name);
      if (id === undefined) missing.push(name);
      else ids[k] = id;
    }
    if (missing.length > 0) {
      throw new Error(`tokenizer has no ${missing.join(', ')} token${missing.length > 1 ? 's' : ''}: not a UniXcoder tokenizer`);
    }
    this.special = ids as SpecialIds;
    // Long texts are cut before BPE at a whitespace boundary far enough in that the kept prefix certainly yields
    // more than maxLength - 4 tokens: no token is longer than maxTokenChars, and ByteLevel pre-tokens never span
    // a non-space → space boundary, so the first tokens are unchanged by the cut.
    let maxTokenChars = 1;
    for (const t of tokenizer.get_vocab(true).keys()) if (t.length > maxTokenChars) maxTokenChars = t.length;
    this.cutFrom = (maxLength + 4) * maxTokenChars;
    this.cutTo = this.cutFrom * 2;
  }

  static fromJSON(tokenizerJson: object, tokenizerConfig: Record<string, unknown> = {}, maxLength?: number): UnixcoderTokenizer {
    return new UnixcoderTokenizer(new Tokenizer(tokenizerJson, tokenizerConfig), tokenizerConfig, maxLength);
  }

  static async load(tokenizerPath: string, tokenizerConfigPath: string | null, maxLength?: number): Promise<UnixcoderTokenizer> {
    const read = async (p: string) => {
      try {
        return JSON.parse(await fs.promises.readFile(p, 'utf8')) as Record<string, unknown>;
      } catch (e) {
        throw new Error(`cannot read ${p}: ${(e as Error).message}`, { cause: e });
      }
    };
    const json = await read(tokenizerPath);
    const config = tokenizerConfigPath ? await read(tokenizerConfigPath) : {};
    try {
      return UnixcoderTokenizer.fromJSON(json, config, maxLength);
    } catch (e) {
      throw new Error(`${tokenizerPath}: ${(e as Error).message}`, { cause: e });
    }
  }

  /** BPE ids of the text alone, without special tokens. */
  bpe(text: string): number[] {
    return this.tokenizer.encode(text, { add_special_tokens: false }).ids;
  }

  private cut(text: string): string {
    if (text.length <= this.cutTo) return text;
    for (let p = this.cutTo; p >= this.cutFrom; p--) {
      if (/\s/.test(text[p]!) && !/\s/.test(text[p - 1]!)) return text.slice(0, p);
    }
    return text;
  }

  /** The model's input ids for one text: <s> <encoder-only> </s> tokens[: maxLength - 4] </s>. */
  encode(text: string): number[] {
    const { cls, sep, mode } = this.special;
    const body = this.bpe(this.cut(text)).slice(0, this.maxLength - 4);
    return [cls, mode, sep, ...body, sep];
  }

  /** Pads sequences to the longest with <pad>; attention mask 1 on tokens, 0 on padding. */
  collate(seqs: number[][]): { inputIds: BigInt64Array; attentionMask: BigInt64Array; batch: number; length: number } {
    const length = Math.max(1, ...seqs.map((s) => s.length));
    const inputIds = new BigInt64Array(seqs.length * length).fill(BigInt(this.special.pad));
    const attentionMask = new BigInt64Array(seqs.length * length);
    seqs.forEach((s, b) => {
      for (let t = 0; t < s.length; t++) {
        inputIds[b * length + t] = BigInt(s[t]!);
        attentionMask[b * length + t] = 1n;
      }
    });
    return { inputIds, attentionMask, batch: seqs.length, length };
  }

  /** What a batch of texts becomes at the model's inputs (padded to the longest), as plain arrays. */
  encodeForModel(texts: string[]): { inputIds: number[][]; attentionMask: number[][] } {
    const { inputIds, attentionMask, batch, length } = this.collate(texts.map((t) => this.encode(t)));
    const rows = (a: BigInt64Array) => Array.from({ length: batch }, (_, b) => Array.from(a.subarray(b * length, (b + 1) * length), Number));
    return { inputIds: rows(inputIds), attentionMask: rows(attentionMask) };
  }
}

/** Mean of hidden states [B, T, H] over positions where mask is 1, then L2-normalised. */
export function meanPoolNormalize(hidden: Float32Array, mask: BigInt64Array, batch: number, length: number, dim: number): Float32Array[] {
  const out: Float32Array[] = [];
  const acc = new Float64Array(dim);
  for (let b = 0; b < batch; b++) {
    acc.fill(0);
    let n = 0;
    for (let t = 0; t < length; t++) {
      if (mask[b * length + t] === 0n) continue;
      n++;
      const off = (b * length + t) * dim;
      for (let h = 0; h < dim; h++) acc[h]! += hidden[off + h]!;
    }
    let norm = 0;
    for (let h = 0; h < dim; h++) {
      acc[h]! /= Math.max(n, 1);
      norm += acc[h]! * acc[h]!;
    }
    norm = Math.max(Math.sqrt(norm), 1e-12);
    const v = new Float32Array(dim);
    for (let h = 0; h < dim; h++) v[h] = acc[h]! / norm;
    out.push(v);
  }
  return out;
}

export const UNIXCODER_OUTPUT = 'last_hidden_state';
export const UNIXCODER_MAX_PADDING = 0.15;

/** Checks the session against the expected interface; returns the extra int64 inputs to feed with zeros. */
export function checkUnixcoderSession(session: Session, modelPath: string): { zeroInputs: string[] } {
  const inputs = describeValues(session.inputMetadata);
  const outputs = describeValues(session.outputMetadata);
  const problems = [
    checkValue(inputs, 'input_ids', ['int64'], 2),
    checkValue(inputs, 'attention_mask', ['int64'], 2),
    checkValue(outputs, UNIXCODER_OUTPUT, ['float32'], 3),
  ].filter((p): p is string => p !== null);
  const zeroInputs: string[] = [];
  for (const v of inputs) {
    if (v.name === 'input_ids' || v.name === 'attention_mask') continue;
    if (v.name === 'token_type_ids' && v.type === 'int64') zeroInputs.push(v.name);
    else problems.push(`unexpected input ${v.name}`);
  }
  if (problems.length > 0) {
    throw new Error(
      `${modelPath} does not look like a UniXcoder encoder export (${problems.join('; ')}). ` +
        `Expected inputs input_ids and attention_mask (int64 [batch, sequence]) and output last_hidden_state ` +
        `(float32 [batch, sequence, hidden]); this model has inputs ${formatValues(inputs)} and outputs ${formatValues(outputs)}.`,
    );
  }
  return { zeroInputs };
}

export interface UnixcoderOptions {
  threads?: number;
  /** Texts per ONNX run (default 32). */
  batchSize?: number;
  /** Max texts × padded length per run (default batchSize × maxLength). */
  maxCells?: number;
  /** Max share of padding tokens in a batch before it is split (default 0.15). */
  maxPaddingFraction?: number;
}

export async function createUnixcoderEncoder(spec: UnixcoderEncoderSpec, opts: UnixcoderOptions = {}): Promise<Encoder> {
  const tokenizer = await UnixcoderTokenizer.load(spec.tokenizerPath, spec.tokenizerConfigPath, spec.maxLength);
  const session = await createSession(spec.modelPath, { threads: opts.threads });
  let zeroInputs: string[];
  try {
    ({ zeroInputs } = checkUnixcoderSession(session, spec.modelPath));
  } catch (e) {
    await session.release();
    throw e;
  }
  const batchSize = opts.batchSize ?? 32;
  const maxCells = opts.maxCells ?? batchSize * spec.maxLength;
  const limits = { maxBatch: batchSize, maxCells, maxPaddingFraction: opts.maxPaddingFraction ?? UNIXCODER_MAX_PADDING };

  async function runIds(seqs: number[][]): Promise<Float32Array[]> {
    const { inputIds, attentionMask, batch, length } = tokenizer.collate(seqs);
    const feeds: Record<string, ort.Tensor> = {
      input_ids: new ort.Tensor('int64', inputIds, [batch, length]),
      attention_mask: new ort.Tensor('int64', attentionMask, [batch, length]),
    };
    for (const name of zeroInputs) feeds[name] = new ort.Tensor('int64', new BigInt64Array(batch * length), [batch, length]);
    const result = await session.run(feeds, [UNIXCODER_OUTPUT]);
    const out = result[UNIXCODER_OUTPUT]!;
    const [b, t, h] = out.dims;
    if (!(out.data instanceof Float32Array) || b !== batch || t !== length || typeof h !== 'number') {
      throw new Error(`${spec.modelPath}: ${UNIXCODER_OUTPUT} has shape [${out.dims.join(', ')}], expected [${batch}, ${length}, hidden]`);
    }
    return meanPoolNormalize(out.data, attentionMask, batch, length, h);
  }

  // The width the model really produces (a probe run), whatever its metadata or the spec says.
  let dim: number;
  try {
    const probe = await runIds([tokenizer.encode('')]);
    dim = probe[0]!.length;
  } catch (e) {
    await session.release();
    throw new Error(`${spec.modelPath}: test run failed: ${(e as Error).message}`, { cause: e });
  }

  return sessionEncoder(
    spec,
    dim,
    session,
    limits,
    (t) => tokenizer.encode(t),
    (s) => s.length,
    runIds,
  );
}
