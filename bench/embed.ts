// Encoder benchmarks, called from bench/run.ts (`npm run bench`); each figure comes with a baseline measured in
// the same run: onnxruntime alone on the same, already-featurised / already-tokenised batches.
//
//   benchDefaultEncoder(texts?)   shipped default encoder, in its worker, vs raw onnxruntime
//   benchUnixcoderSized(opts?)    a UniXcoder-sized model built into a temp dir (not committed), through our
//                                 UniXcoder encoder (tokenizer + batching + worker) vs raw onnxruntime
//
// Standalone: node bin/run-ts.js bench/embed.ts

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { planBatches } from '../main/embed/batching.ts';
import { hashFeatures } from '../main/embed/features.ts';
import { HASH_BATCH_DEFAULTS, hashBatchTensors, loadHashEncoderSpec } from '../main/embed/hash-encoder.ts';
import { openEncoder } from '../main/embed/open.ts';
import { createSession, defaultThreads, ort } from '../main/embed/ort.ts';
import { loadUnixcoderSpec, UNIXCODER_MAX_PADDING, UnixcoderTokenizer } from '../main/embed/unixcoder.ts';
import { buildUnixcoderSizedModel, byteLevelTokenizerJson, learnMerges, writeUnixcoderFolder } from '../scripts/unixcoder-fixtures.ts';
import { stdlibPath } from './stdlib.ts';

export interface ThroughputResult {
  /** texts/s through our encoder (worker, featurisation or tokenisation, batching, pooling, transfer). */
  ours: number;
  /** texts/s of onnxruntime alone on the same batches, prepared beforehand, in this thread. */
  raw: number;
  /** ours / raw */
  ratio: number;
  texts: number;
  /** Per-round figures: [ours, raw] texts/s. */
  rounds: Array<[number, number]>;
  notes: string[];
}

/** Code chunks from the local Python standard library (top-level and method definitions), deterministic. */
export function stdlibCodeTexts(count: number, maxChars = 6000): string[] {
  let root: string;
  try {
    root = stdlibPath();
  } catch {
    return syntheticTexts(count);
  }
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      if (e.name === 'site-packages' || e.name === '__pycache__' || e.name === 'test' || e.name === 'tests') continue;
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith('.py')) files.push(p);
    }
  };
  walk(root);
  const out: string[] = [];
  // take every k-th file so the sample spans the library
  const step = Math.max(1, Math.floor(files.length / Math.max(1, count / 4)));
  for (let i = 0; i < files.length && out.length < count; i += step) {
    const src = fs.readFileSync(files[i]!, 'utf8');
    for (const chunk of src.split(/\n(?=(?:async\s+def|def|class| {4}def| {4}async\s+def)\s)/)) {
      if (chunk.length >= 80) out.push(chunk.slice(0, maxChars));
      if (out.length >= count) break;
    }
  }
  return out.length >= count ? out : [...out, ...syntheticTexts(count - out.length)];
}

function syntheticTexts(count: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < count; i++) {
    const body = `    value_${i % 13} = compute_${i % 7}(item, limit=${i})\n    return formatResult(value_${i % 13})\n`;
    out.push(`def handler_${i}(self, item):\n` + body.repeat(1 + (i % 9)));
  }
  return out;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function timeIt(f: () => Promise<unknown>): Promise<number> {
  const t = performance.now();
  await f();
  return (performance.now() - t) / 1000;
}

/** (a) The shipped default encoder: our worker vs onnxruntime alone on pre-featurised batches. */
export async function benchDefaultEncoder(texts?: string[], opts: { threads?: number; rounds?: number; batchSize?: number } = {}): Promise<ThroughputResult> {
  const input = texts ?? stdlibCodeTexts(4000);
  const threads = opts.threads ?? defaultThreads();
  const rounds = opts.rounds ?? 3;
  const limits = { ...HASH_BATCH_DEFAULTS, maxBatch: opts.batchSize ?? HASH_BATCH_DEFAULTS.maxBatch };
  const spec = await loadHashEncoderSpec();
  const encoder = await openEncoder(spec, { threads, batchSize: limits.maxBatch });
  const session = await createSession(spec.modelPath, { threads });
  const notes: string[] = [];
  try {
    // raw: features computed beforehand, same batch plan as the encoder uses
    const feats = input.map((t) => hashFeatures(t, spec.config.features));
    const plan = planBatches(
      feats.map((f) => f.ids.length),
      limits,
    );
    const feeds = plan.map((idx) => {
      const { ids, weights, width } = hashBatchTensors(idx.map((i) => feats[i]!));
      return {
        [spec.config.inputs.ids]: new ort.Tensor('int64', ids, [idx.length, width]),
        [spec.config.inputs.weights]: new ort.Tensor('float32', weights, [idx.length, width]),
      };
    });
    const featuriseS = await timeIt(async () => input.forEach((t) => hashFeatures(t, spec.config.features)));
    notes.push(`featurisation alone: ${(input.length / featuriseS).toFixed(0)} texts/s (JS, one thread)`);
    await encoder.embed(input.slice(0, 64));
    for (const f of feeds.slice(0, 2)) await session.run(f);
    const res: Array<[number, number]> = [];
    for (let r = 0; r < rounds; r++) {
      const ours = input.length / (await timeIt(() => encoder.embed(input)));
      const raw =
        input.length /
        (await timeIt(async () => {
          for (const f of feeds) await session.run(f);
        }));
      res.push([ours, raw]);
    }
    const ours = median(res.map((r) => r[0]));
    const raw = median(res.map((r) => r[1]));
    return { ours, raw, ratio: ours / raw, texts: input.length, rounds: res, notes };
  } finally {
    await encoder.dispose();
    await session.release();
  }
}

export interface UnixcoderBenchOptions {
  /** Number of texts (default 64; stdlib code chunks). */
  texts?: number;
  /** Feed-forward layers of the stand-in model (default 4). */
  layers?: number;
  threads?: number;
  batchSize?: number;
  rounds?: number;
  /** BPE merges learned for the stand-in tokenizer (default 1000). */
  merges?: number;
}

/**
 * (b) A UniXcoder-sized stand-in (50265 × 768 embedding, `layers` × 768→3072→768 blocks; ~230 MB at 4 layers),
 * written to a temp dir with a byte-level BPE tokenizer learned from the texts: our UniXcoder encoder in its worker
 * vs onnxruntime alone on the same pre-tokenised, pre-padded batches.
 */
export async function benchUnixcoderSized(opts: UnixcoderBenchOptions = {}): Promise<ThroughputResult> {
  const threads = opts.threads ?? defaultThreads();
  const batchSize = opts.batchSize ?? 32;
  const rounds = opts.rounds ?? 2;
  const layers = opts.layers ?? 4;
  const texts = stdlibCodeTexts(opts.texts ?? 64, 3000);
  const notes: string[] = [];
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'oc-unixcoder-bench-'));
  try {
    let t = performance.now();
    const { json } = byteLevelTokenizerJson(learnMerges(stdlibCodeTexts(400, 3000), opts.merges ?? 1000));
    const model = buildUnixcoderSizedModel({ layers });
    writeUnixcoderFolder(tmp, { model, tokenizer: json, hiddenSize: 768 });
    notes.push(
      `stand-in model: ${(model.length / 2 ** 20).toFixed(0)} MiB, ${layers} feed-forward layers, built in ${((performance.now() - t) / 1000).toFixed(1)} s`,
    );
    const spec = await loadUnixcoderSpec(tmp);
    const encoder = await openEncoder(spec, { threads, batchSize });
    const session = await createSession(spec.modelPath, { threads });
    try {
      // raw: the same token ids, batches and padding as the encoder, prepared beforehand
      const tok = UnixcoderTokenizer.fromJSON(json);
      t = performance.now();
      const seqs = texts.map((x) => tok.encode(x));
      const tokS = (performance.now() - t) / 1000;
      const tokens = seqs.reduce((a, s) => a + s.length, 0);
      const plan = planBatches(
        seqs.map((s) => s.length),
        {
          maxBatch: batchSize,
          maxCells: batchSize * spec.maxLength,
          maxPaddingFraction: UNIXCODER_MAX_PADDING,
        },
      );
      const feeds = plan.map((idx) => {
        const { inputIds, attentionMask, batch, length } = tok.collate(idx.map((i) => seqs[i]!));
        return {
          input_ids: new ort.Tensor('int64', inputIds, [batch, length]),
          attention_mask: new ort.Tensor('int64', attentionMask, [batch, length]),
        };
      });
      const padded = plan.reduce((a, idx) => a + idx.length * Math.max(...idx.map((i) => seqs[i]!.length)), 0);
      notes.push(
        `${texts.length} texts, ${tokens} tokens (${(tokens / texts.length).toFixed(0)}/text), ${plan.length} batches, ` +
          `padding ${(100 * (padded / tokens - 1)).toFixed(1)} %; tokenising alone ${(texts.length / tokS).toFixed(0)} texts/s`,
      );
      await encoder.embed(texts.slice(0, 4));
      await session.run(feeds[0]!);
      const res: Array<[number, number]> = [];
      for (let r = 0; r < rounds; r++) {
        const ours = texts.length / (await timeIt(() => encoder.embed(texts)));
        const raw =
          texts.length /
          (await timeIt(async () => {
            for (const f of feeds) await session.run(f, ['last_hidden_state']);
          }));
        res.push([ours, raw]);
      }
      const ours = Math.max(...res.map((r) => r[0]));
      const raw = Math.max(...res.map((r) => r[1]));
      notes.push(`best of ${rounds} rounds each, alternating ours/raw; tokens/s raw ≈ ${((raw * tokens) / texts.length).toFixed(0)}`);
      return { ours, raw, ratio: ours / raw, texts: texts.length, rounds: res, notes };
    } finally {
      await encoder.dispose();
      await session.release();
    }
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const show = (label: string, r: ThroughputResult) => {
    console.log(`${label}: ours ${r.ours.toFixed(1)} texts/s, raw onnxruntime ${r.raw.toFixed(1)} texts/s, ratio ${r.ratio.toFixed(3)} (${r.texts} texts)`);
    for (const [o, w] of r.rounds) console.log(`  round: ours ${o.toFixed(1)}, raw ${w.toFixed(1)}`);
    for (const n of r.notes) console.log(`  ${n}`);
  };
  const t0 = performance.now();
  show('default encoder', await benchDefaultEncoder());
  show('UniXcoder-sized', await benchUnixcoderSized());
  console.log(`total ${((performance.now() - t0) / 1000).toFixed(1)} s`);
}
