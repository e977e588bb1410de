// Retrieval evaluation of the default hashing encoder's design choices on the local Python standard library.
// Task: docstring summary (query) → the function's code without its docstring (document), among all functions of
// the held-out modules. Reports MRR and recall@1/10. Uses the plain-JS reference of the ONNX graph, so it can sweep
// settings without building models. Nothing it produces is committed.
//
//   python3 scripts/extract-stdlib-functions.py > /tmp/stdlib-functions.jsonl
//   node bin/run-ts.js scripts/eval-default-encoder.ts /tmp/stdlib-functions.jsonl

import fs from 'node:fs';
import { DEFAULT_FEATURE_CONFIG, hashFeatures, type FeatureConfig, type HashedFeatures } from '../main/embed/features.ts';
import { randomInt8Table, referenceEmbed } from '../main/embed/hash-table.ts';

/** 32-bit FNV-1a of a string: splits modules into evaluation and idf-training halves. */
function fnv32(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

interface Item {
  module: string;
  name: string;
  query: string;
  code: string;
}

const file = process.argv[2] ?? '/tmp/stdlib-functions.jsonl';
const items: Item[] = fs
  .readFileSync(file, 'utf8')
  .trim()
  .split('\n')
  .map((l) => JSON.parse(l) as Item);
const isEval = (m: string) => fnv32(m) % 2 === 1;
const evalItems = items.filter((i) => isEval(i.module));
const trainItems = items.filter((i) => !isEval(i.module));
console.log(`functions: ${items.length} (eval ${evalItems.length}, idf-train ${trainItems.length})`);

const sparseNorms = new WeakMap<HashedFeatures, number>();
function sparseNorm(x: HashedFeatures): number {
  let n = sparseNorms.get(x);
  if (n === undefined) sparseNorms.set(x, (n = Math.sqrt(x.weights.reduce((s, w) => s + w * w, 0)) || 1));
  return n;
}

function sparseCos(a: HashedFeatures, b: HashedFeatures): number {
  let i = 0,
    j = 0,
    dot = 0;
  while (i < a.ids.length && j < b.ids.length) {
    if (a.ids[i] === b.ids[j]) dot += a.weights[i++]! * b.weights[j++]!;
    else if (a.ids[i]! < b.ids[j]!) i++;
    else j++;
  }
  return dot / (sparseNorm(a) * sparseNorm(b));
}

function scoreRanks(sim: (q: number, d: number) => number, n: number) {
  let mrr = 0,
    r1 = 0,
    r10 = 0;
  for (let q = 0; q < n; q++) {
    const target = sim(q, q);
    let rank = 1;
    for (let d = 0; d < n; d++) if (d !== q && sim(q, d) > target) rank++;
    mrr += 1 / rank;
    if (rank === 1) r1++;
    if (rank <= 10) r10++;
  }
  return { mrr: mrr / n, r1: r1 / n, r10: r10 / n };
}

function idfRowScale(cfg: FeatureConfig): Float32Array {
  const df = new Uint32Array(cfg.buckets);
  for (const it of trainItems) for (const id of hashFeatures(it.code, cfg).ids) df[id]!++;
  const n = trainItems.length;
  const out = new Float32Array(cfg.buckets);
  for (let b = 0; b < cfg.buckets; b++) out[b] = Math.log((n + 1) / (df[b]! + 1)) + 1;
  return out;
}

function run(label: string, cfg: FeatureConfig, dim: number, opts: { idf?: boolean; sparse?: boolean } = {}) {
  const qs = evalItems.map((i) => hashFeatures(i.query, cfg));
  const ds = evalItems.map((i) => hashFeatures(i.code, cfg));
  let res;
  if (opts.sparse) {
    if (opts.idf) {
      const rs = idfRowScale(cfg);
      for (const f of [...qs, ...ds]) for (let i = 0; i < f.ids.length; i++) f.weights[i]! *= rs[f.ids[i]!]!;
    }
    res = scoreRanks((q, d) => sparseCos(qs[q]!, ds[d]!), evalItems.length);
  } else {
    const table = randomInt8Table(cfg.buckets, dim, 1);
    const rs = opts.idf ? idfRowScale(cfg) : undefined;
    const qv = qs.map((f) => referenceEmbed(f, table, dim, 1 / 127, rs));
    const dv = ds.map((f) => referenceEmbed(f, table, dim, 1 / 127, rs));
    const n = evalItems.length;
    const sims = new Float32Array(n * n);
    for (let q = 0; q < n; q++)
      for (let d = 0; d < n; d++) {
        let s = 0;
        const a = qv[q]!,
          b = dv[d]!;
        for (let k = 0; k < dim; k++) s += a[k]! * b[k]!;
        sims[q * n + d] = s;
      }
    res = scoreRanks((q, d) => sims[q * n + d]!, n);
  }
  console.log(`${label.padEnd(48)} MRR ${res.mrr.toFixed(3)}  R@1 ${res.r1.toFixed(3)}  R@10 ${res.r10.toFixed(3)}`);
}

const base = DEFAULT_FEATURE_CONFIG;
const only = process.argv[3];
if (only === 'custom') {
  // node … eval-default-encoder.ts FILE custom '{"trigramWeight":0.5}' DIM [idf] [sparse]
  const cfg = { ...base, ...(JSON.parse(process.argv[4] ?? '{}') as Partial<FeatureConfig>) };
  const dim = Number(process.argv[5] ?? 256);
  const flags = process.argv.slice(6);
  run(`custom ${process.argv.slice(4).join(' ')}`, cfg, dim, { idf: flags.includes('idf'), sparse: flags.includes('sparse') });
  process.exit(0);
}
// The shipped setting is `base` (V = 8192 buckets, D = 256); the rest are ablations.
const runs: Array<[string, () => void]> = [
  ['shipped', () => run('shipped: D=256, V=8192', base, 256)],
  ['sparse', () => run('sparse (no projection; upper bound)', base, 0, { sparse: true })],
  ['D512', () => run('D=512, V=8192', base, 512)],
  ['idf', () => run('D=256 + idf row scale (from held-out stdlib half)', base, 256, { idf: true })],
  ['no-trigrams', () => run('D=256, no trigrams', { ...base, trigramWeight: 0 }, 256)],
  ['no-stop', () => run('D=256, no stop words', { ...base, stopWords: [] }, 256)],
  ['no-identifiers', () => run('D=256, no whole identifiers', { ...base, identifierWeight: 0 }, 256)],
  ['V16384', () => run('D=256, V=16384', { ...base, buckets: 16384 }, 256)],
];
for (const [name, f] of runs) if (!only || name.includes(only)) f();
