// `npm run bench`: speed and memory of the engine, each figure beside a baseline measured in the same
// run so ratios hold on a noisy machine. Not a test: nothing here fails the build.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runIndex } from '../main/index/indexer.ts';
import { ParsePool } from '../main/index/parse-pool.ts';
import { walkRepository } from '../main/index/walk.ts';
import { Store } from '../main/store/store.ts';
import { openConfiguredEncoder } from '../main/embed/select.ts';
import { defaultModelsDir } from '../main/host/paths.ts';
import { copyStdlib } from './stdlib.ts';
import { benchDefaultEncoder, benchUnixcoderSized } from './embed.ts';
import { benchLlama } from './llama.ts';
import { benchRetrieval, retrievalCorpus } from './retrieve.ts';
import { benchValidate } from './validate.ts';

const rows: { what: string; value: string; baseline: string; ratio: string; target: string }[] = [];

function record(what: string, value: string, baseline: string, ratio: string, target = '') {
  rows.push({ what, value, baseline, ratio, target });
  console.log(`${what}: ${value}   (baseline: ${baseline}; ratio ${ratio})${target ? `   target: ${target}` : ''}`);
}

const secs = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
const only = new Set((process.env.BENCH_ONLY ?? 'index,encoder,retrieve,validate,llama').split(','));

async function parseAlone(root: string): Promise<{ ms: number; files: number; units: number }> {
  const t = performance.now();
  const walk = await walkRepository(root);
  const pool = new ParsePool();
  let units = 0;
  try {
    await Promise.all(
      walk.files.map(async (f) => {
        const source = await fs.promises.readFile(f.absPath, 'utf8');
        const reply = await pool.parse(f.relPath, f.language, source, { lexical: false });
        if (reply.ok) units += reply.result.units.length;
      }),
    );
  } finally {
    await pool.close();
  }
  return { ms: performance.now() - t, files: walk.files.length, units };
}

async function indexBench() {
  const corpus = copyStdlib();
  const dbDir = fs.mkdtempSync(path.join(path.dirname(corpus.root), 'db-'));
  console.log(`corpus: copy of ${corpus.source} (site-packages and caches left out) at ${corpus.root}`);
  const { encoder, notice } = await openConfiguredEncoder({ prefer: 'default', modelsDir: defaultModelsDir() });
  if (notice) console.log(`note: ${notice}`);
  console.log(`encoder: ${encoder.name} (${encoder.dim}-d)`);
  try {
    const parse = await parseAlone(corpus.root);
    console.log(`parsing alone: ${parse.files} files, ${parse.units} units in ${secs(parse.ms)}`);

    const store = Store.open(path.join(dbDir, 'bench.db'));
    let peakRss = process.memoryUsage().rss;
    const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 100);
    const cold = await runIndex({ store, root: corpus.root, encoder });
    clearInterval(sampler);
    const coldMs = cold.timings.total;
    const units = Object.values(store.stats(cold.repoId).units).reduce((a, b) => a + b, 0);
    record(
      'cold index, files/s',
      `${(cold.parsedFiles / (coldMs / 1000)).toFixed(0)} files/s (${cold.parsedFiles} files, ${secs(coldMs)}; ${cold.embeddedTexts} texts embedded)`,
      `parsing alone ${(parse.files / (parse.ms / 1000)).toFixed(0)} files/s (${secs(parse.ms)})`,
      `${(coldMs / parse.ms).toFixed(2)}× parsing time`,
      '≤ 2× parsing alone',
    );
    record(
      'cold index, units/s',
      `${(units / (coldMs / 1000)).toFixed(0)} units/s (${units} units)`,
      `parsing alone ${(parse.units / (parse.ms / 1000)).toFixed(0)} units/s`,
      `${(parse.units / (parse.ms / 1000) / (units / (coldMs / 1000))).toFixed(2)}× slower`,
    );
    record(
      'peak memory (RSS, cold index)',
      `${(Math.max(peakRss, process.resourceUsage().maxRSS * 1024) / 2 ** 20).toFixed(0)} MiB`,
      '1536 MiB budget',
      `${(Math.max(peakRss, process.resourceUsage().maxRSS * 1024) / 2 ** 30 / 1.5).toFixed(2)} of budget`,
      '< 1.5 GB',
    );

    const noChange = await runIndex({ store, root: corpus.root, encoder });
    if (noChange.parsedFiles || noChange.embeddedTexts) throw new Error('no-change re-index parsed or embedded something');
    record(
      'no-change re-index',
      secs(noChange.timings.total),
      `full rebuild ${secs(coldMs)}`,
      `${(noChange.timings.total / coldMs).toFixed(3)} of a rebuild`,
      '< 3 s',
    );

    const victim = path.join(corpus.root, 'textwrap.py');
    fs.appendFileSync(victim, '\n\ndef _bench_added(width):\n    """Added by the benchmark."""\n    return width * 2\n');
    const oneFile = await runIndex({ store, root: corpus.root, encoder });
    if (oneFile.parsedFiles !== 1) throw new Error(`one-file re-index parsed ${oneFile.parsedFiles} files`);
    record(
      'one-file re-index',
      `${secs(oneFile.timings.total)} (${oneFile.embeddedTexts} texts re-embedded)`,
      `full rebuild ${secs(coldMs)}`,
      `${(oneFile.timings.total / coldMs).toFixed(3)} of a rebuild`,
      '< 1 s',
    );
    store.close();
  } finally {
    await encoder.dispose();
    fs.rmSync(dbDir, { recursive: true, force: true });
    corpus.cleanup();
  }
}

async function retrieveBench() {
  const parent = fs.mkdtempSync(path.join(os.tmpdir(), 'oc-bench-retrieve-'));
  const { encoder } = await openConfiguredEncoder({ prefer: 'default', modelsDir: defaultModelsDir() });
  try {
    for (const size of ['10k', '100k'] as const) {
      const root = retrievalCorpus(size, parent);
      const store = Store.open(path.join(parent, `${size}.db`));
      const r = await benchRetrieval(store, encoder, root);
      store.close();
      record(
        `retrieval at ${r.units} units, 3 sources + fusion`,
        `p50 ${r.approx.p50.toFixed(1)} ms, p95 ${r.approx.p95.toFixed(1)} ms (${r.queries} tasks)`,
        `exact brute-force scan p50 ${r.exact.p50.toFixed(1)} ms, p95 ${r.exact.p95.toFixed(1)} ms`,
        `${(r.exact.p50 / r.approx.p50).toFixed(1)}× faster; recall@8 ${r.recallAt8.toFixed(3)}`,
        'p50 < 20 ms at 100k; recall@8 ≥ 0.95',
      );
    }
  } finally {
    await encoder.dispose();
    fs.rmSync(parent, { recursive: true, force: true });
  }
}

async function encoderBench() {
  const d = await benchDefaultEncoder();
  record('default encoder throughput', `${d.ours.toFixed(0)} texts/s`, `raw onnxruntime ${d.raw.toFixed(0)} texts/s`, `${(d.ours / d.raw).toFixed(2)}`);
  const u = await benchUnixcoderSized();
  record(
    'UniXcoder-sized model throughput',
    `${u.ours.toFixed(1)} texts/s through our encoder`,
    `raw onnxruntime ${u.raw.toFixed(1)} texts/s on the same batches`,
    `${(u.ours / u.raw).toFixed(2)}`,
    '≥ 0.80',
  );
}

if (only.has('index')) await indexBench();
if (only.has('encoder')) await encoderBench();
if (only.has('retrieve')) await retrieveBench();
if (only.has('validate')) await benchValidate(record);
if (only.has('llama')) await benchLlama(record);
console.log('\nSummary');
console.table(rows);
