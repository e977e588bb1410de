import fs from 'node:fs';
import path from 'node:path';
import { Tokenizer } from '@huggingface/tokenizers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Encoder } from '../../main/model/encoder.ts';
import { createUnixcoderEncoder, loadUnixcoderSpec, meanPoolNormalize, UnixcoderTokenizer } from '../../main/embed/unixcoder.ts';
import { DT, GraphBuilder } from '../../scripts/onnx-builder.ts';
import { byteLevelTokenizerJson, FIXTURE_SPECIALS, writeUnixcoderFolder } from '../../scripts/unixcoder-fixtures.ts';
import { handVector, makeTinyUnixcoder, type TinyUnixcoder } from './unixcoder-helpers.ts';

// A tokenizer with hand-written merges, so the expected tokens are known without running any tokenizer.
const HAND_MERGES: Array<[string, string]> = [
  ['p', 'a'],
  ['pa', 'r'],
  ['s', 'e'],
  ['par', 'se'],
  ['Ġ', 'x'],
  ['Ġ', 'parse'],
];
const hand = byteLevelTokenizerJson(HAND_MERGES);
const id = (t: string) => {
  const v = hand.vocab.get(t);
  if (v === undefined) throw new Error(`no ${t}`);
  return v;
};

describe('UnixcoderTokenizer', () => {
  const tok = UnixcoderTokenizer.fromJSON(hand.json);
  const S = { cls: id('<s>'), pad: id('<pad>'), sep: id('</s>'), mode: id('<encoder-only>') };

  it('looks up the special token ids from the tokenizer', () => {
    expect(tok.special).toEqual(S);
    expect(S).toEqual({ cls: 0, pad: 1, sep: 2, mode: 4 });
  });

  it('finds the ids wherever the tokenizer puts them', () => {
    const shuffled = byteLevelTokenizerJson(HAND_MERGES, ['<unk>', '<encoder-only>', '</s>', '<pad>', '<s>']);
    const t = UnixcoderTokenizer.fromJSON(shuffled.json);
    expect(t.special).toEqual({ cls: 4, pad: 3, sep: 2, mode: 1 });
  });

  it('uses the official encoder-only layout: <s> <encoder-only> </s> tokens </s>', () => {
    expect(tok.encode('parse x parse')).toEqual([S.cls, S.mode, S.sep, id('parse'), id('Ġx'), id('Ġparse'), S.sep]);
    expect(tok.encode('')).toEqual([S.cls, S.mode, S.sep, S.sep]);
  });

  it("does not add the tokenizer's own special tokens to the text", () => {
    const own = new Tokenizer(hand.json, {}).encode('parse').ids;
    expect(own).toEqual([S.cls, id('parse'), S.sep]); // RobertaProcessing would add <s> … </s>
    expect(tok.bpe('parse')).toEqual([id('parse')]);
  });

  it('truncates the text to max_length - 4 tokens, 512 in total', () => {
    const text = 'x' + ' x'.repeat(700);
    const ids = tok.encode(text);
    expect(ids).toHaveLength(512);
    expect(ids.slice(0, 3)).toEqual([S.cls, S.mode, S.sep]);
    expect(ids[511]).toBe(S.sep);
    expect(ids.slice(3, 511)).toEqual([id('x'), ...new Array(507).fill(id('Ġx'))]);
    expect(tok.encode('x' + ' x'.repeat(507))).toHaveLength(512);
    expect(tok.encode('x' + ' x'.repeat(506))).toHaveLength(511);
  });

  it('gives the same ids for a very long text as tokenising all of it (the pre-cut is exact)', () => {
    const words = ['parse', 'x', 'response', '(', ')', '\n    ', 'data_value', 'résumé', '😀', '\t', 'a'];
    let text = '';
    for (let i = 0; text.length < 60_000; i++) text += (i % 3 === 0 ? ' ' : '') + words[(i * 7) % words.length];
    const full = tok.bpe(text);
    expect(full.length).toBeGreaterThan(600);
    expect(tok.encode(text)).toEqual([S.cls, S.mode, S.sep, ...full.slice(0, 508), S.sep]);
    const small = UnixcoderTokenizer.fromJSON(hand.json, {}, 16);
    expect(small.encode(text)).toEqual([S.cls, S.mode, S.sep, ...full.slice(0, 12), S.sep]);
    // long tokens (6 characters each) need a long prefix
    const dense = 'parse' + ' parse'.repeat(8000);
    expect(tok.encode(dense)).toEqual([S.cls, S.mode, S.sep, id('parse'), ...new Array(507).fill(id('Ġparse')), S.sep]);
    expect(small.encode(dense)).toEqual([S.cls, S.mode, S.sep, id('parse'), ...new Array(11).fill(id('Ġparse')), S.sep]);
  });

  it('pads a batch to its longest sequence with <pad> and masks the padding', () => {
    const { inputIds, attentionMask } = tok.encodeForModel(['parse', 'parse x parse']);
    expect(inputIds).toEqual([
      [S.cls, S.mode, S.sep, id('parse'), S.sep, S.pad, S.pad],
      [S.cls, S.mode, S.sep, id('parse'), id('Ġx'), id('Ġparse'), S.sep],
    ]);
    expect(attentionMask).toEqual([
      [1, 1, 1, 1, 1, 0, 0],
      [1, 1, 1, 1, 1, 1, 1],
    ]);
  });

  it('rejects a tokenizer without UniXcoder special tokens', () => {
    const noMode = byteLevelTokenizerJson(HAND_MERGES, ['<s>', '<pad>', '</s>', '<unk>']);
    expect(() => UnixcoderTokenizer.fromJSON(noMode.json)).toThrow(/no <encoder-only> token/);
  });
});

describe('meanPoolNormalize', () => {
  it('averages over unmasked positions only, then normalises', () => {
    // batch 1, length 3, hidden 2; the last position is padding with a large value
    const hidden = new Float32Array([3, 0, 1, 4, 100, -50]);
    const [v] = meanPoolNormalize(hidden, new BigInt64Array([1n, 1n, 0n]), 1, 3, 2);
    // mean (2, 2) → (1/√2, 1/√2)
    expect(v![0]).toBeCloseTo(Math.SQRT1_2, 6);
    expect(v![1]).toBeCloseTo(Math.SQRT1_2, 6);
  });
});

describe('UniXcoder encoder on a tiny model', () => {
  let fx: TinyUnixcoder;
  let enc: Encoder;
  let tok: UnixcoderTokenizer;
  beforeAll(async () => {
    fx = makeTinyUnixcoder();
    const spec = await loadUnixcoderSpec(fx.modelsDir);
    enc = await createUnixcoderEncoder(spec, { threads: 1 });
    tok = UnixcoderTokenizer.fromJSON(fx.tokenizerJson);
  });
  afterAll(async () => {
    await enc?.dispose();
    fx?.cleanup();
  });

  it('reads its dimension from the model', () => {
    expect(enc.dim).toBe(8);
    expect(enc.id).toMatch(/^unixcoder-base@[0-9a-f]{12}$/);
  });

  it('mean-pools and normalises exactly as computed by hand', async () => {
    const texts = ['def parse_http_response(resp):', 'x', '', 'return resp.json()  # ok'];
    const vs = await enc.embed(texts);
    texts.forEach((t, i) => {
      const expected = handVector(fx.model, tok.encode(t));
      const got = Array.from(vs[i]!);
      expect(got).toHaveLength(8);
      got.forEach((x, h) => expect(x).toBeCloseTo(expected[h]!, 5));
    });
  });

  it('gives a text the same vector alone and padded in a batch with a long text', async () => {
    const short = 'parse';
    const long = 'def compute_checksum(data):\n    return crc32(data) ' + 'response '.repeat(40);
    const [alone] = await enc.embed([short]);
    const wide = await createUnixcoderEncoder(await loadUnixcoderSpec(fx.modelsDir), {
      threads: 1,
      maxPaddingFraction: 1,
    });
    const [padded, other] = await wide.embed([short, long]);
    await wide.dispose();
    expect(tok.encode(long).length).toBeGreaterThan(tok.encode(short).length + 20);
    alone!.forEach((x, h) => expect(padded![h]).toBeCloseTo(x, 6));
    expect(Math.abs(other![0]! - alone![0]!)).toBeGreaterThan(1e-4);
  });

  it('returns unit vectors in input order for many texts', async () => {
    const texts = Array.from({ length: 70 }, (_, i) => `item_${i} = parse(${'x'.repeat(i % 13)})`);
    const vs = await enc.embed(texts);
    expect(vs).toHaveLength(70);
    vs.forEach((v, i) => {
      expect(Math.hypot(...v)).toBeCloseTo(1, 5);
      const expected = handVector(fx.model, tok.encode(texts[i]!));
      expect(v[0]).toBeCloseTo(expected[0]!, 5);
    });
  });
});

describe('UniXcoder spec and model checks', () => {
  let fx: TinyUnixcoder;
  beforeAll(() => {
    fx = makeTinyUnixcoder({ hiddenSize: 8 });
  });
  afterAll(() => fx?.cleanup());

  it('knows the hidden size from config.json before loading', async () => {
    expect((await loadUnixcoderSpec(fx.modelsDir)).dim).toBe(8);
  });

  it('changes its id when the model file changes, not otherwise', async () => {
    const a = await loadUnixcoderSpec(fx.modelsDir);
    const b = await loadUnixcoderSpec(fx.modelsDir);
    expect(b.id).toBe(a.id);
    const modelPath = path.join(fx.modelsDir, 'unixcoder-base', 'model.onnx');
    const bytes = fs.readFileSync(modelPath);
    fs.writeFileSync(modelPath, Buffer.concat([bytes, Buffer.from([0])])); // one byte more
    const c = await loadUnixcoderSpec(fx.modelsDir);
    expect(c.id).not.toBe(a.id);
    fs.writeFileSync(modelPath, bytes);
    expect((await loadUnixcoderSpec(fx.modelsDir)).id).toBe(a.id);
    expect((await loadUnixcoderSpec(fx.modelsDir, { maxLength: 256 })).id).not.toBe(a.id);
  });

  it('fails clearly when the model has other inputs or outputs', async () => {
    const g = new GraphBuilder('wrong');
    const ids = g.input('ids', DT.INT64, ['b', 't']);
    const emb = g.init('emb', DT.FLOAT, [400, 4], new Float32Array(1600));
    g.node('Gather', [emb, ids], { axis: 0 }, 'hidden');
    g.output('hidden', DT.FLOAT, ['b', 't', 4]);
    const dir = path.join(fx.modelsDir, 'wrong');
    writeUnixcoderFolder(dir, { model: g.toBytes(), tokenizer: fx.tokenizerJson });
    const spec = await loadUnixcoderSpec(dir);
    const err = await createUnixcoderEncoder(spec, { threads: 1 }).catch((e: Error) => e);
    expect(err).toBeInstanceOf(Error);
    const msg = (err as Error).message;
    expect(msg).toMatch(/does not look like a UniXcoder encoder export/);
    expect(msg).toMatch(/no input_ids/);
    expect(msg).toMatch(/no last_hidden_state/);
    expect(msg).toMatch(/this model has inputs ids: int64\[b, t\]/);
  });

  it('fails clearly on a file that is not an ONNX model', async () => {
    const dir = path.join(fx.modelsDir, 'garbage');
    writeUnixcoderFolder(dir, { model: new TextEncoder().encode('not a model'), tokenizer: fx.tokenizerJson });
    await expect(createUnixcoderEncoder(await loadUnixcoderSpec(dir), { threads: 1 })).rejects.toThrow(/cannot load ONNX model .*model\.onnx/);
  });

  it('names the missing files', async () => {
    const dir = path.join(fx.modelsDir, 'empty');
    fs.mkdirSync(dir, { recursive: true });
    await expect(loadUnixcoderSpec(dir)).rejects.toThrow(/unixcoder-base\/model\.onnx, .*unixcoder-base\/tokenizer\.json/);
  });

  it('fixture tokenizer has the UniXcoder specials', () => {
    for (const s of FIXTURE_SPECIALS) expect(fx.vocab.has(s)).toBe(true);
  });
});
