// Fits the API selector (main/retrieve/select-api.ts) and writes resources/api-selector.json.
//
//   node bin/run-ts.js scripts/fit-api-selector.ts [--bench ../shared/bench/repoexec] [--work DIR] [--check]
//
// Data: the RepoExec-inline tasks imported from the staged benchmark (both API-retrieval protocols: the
// whole rebuilt repository and each task's own view), retrieved with the default feature-hashing encoder and
// a neutral selector (selects everything, so the features are those the shipped engine computes).
// Split: the development split is every task whose id hashes to the fitting half (api-eval.ts isHeldOut is
// false) and that belongs to no `report_*` subset; held-out and report tasks are never seen.
// Model: logistic regression on standardised features, L2 ridge, Newton steps (IRLS) from zero, a fixed
// number of iterations, items in task-then-candidate order; the threshold maximises the mean of the two
// protocols' development macro F1 over a 0.01 grid (ties: the lower threshold). Numbers are rounded to 6
// decimals and nothing time-dependent is written, so a re-fit reproduces the file byte for byte; --check
// re-fits and fails when the shipped file differs.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { importRepoExec } from '../main/benchmarks/repoexec/import.ts';
import { readManifest } from '../main/benchmarks/manifest-file.ts';
import { loadHashEncoderSpec } from '../main/embed/hash-encoder.ts';
import { openEncoder } from '../main/embed/open.ts';
import { runIndex } from '../main/index/indexer.ts';
import { makeConfig } from '../main/model/config.ts';
import { API_PROTOCOLS, isHeldOut, isHit, PROTOCOL_RULES, type ApiProtocol } from '../main/experiment/eval/api-eval.ts';
import { benchmarkOf, evaluateTaskApis } from '../main/experiment/eval/api-run.ts';
import { SELECTOR_FEATURES, type Candidate, type SelectorModel } from '../main/retrieve/select-api.ts';
import { VectorIndexCache } from '../main/retrieve/vector-index.ts';
import { Store } from '../main/store/store.ts';

export const SELECTOR_VERSION = '2';
const RIDGE = 1;
const ITERATIONS = 40;

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const OUT = path.join(ROOT, 'resources', 'api-selector.json');

/** A neutral model: p = 0.5 for every candidate, threshold 0 (everything selected). */
function neutral(): SelectorModel {
  const n = SELECTOR_FEATURES.length;
  return {
    version: 'neutral',
    features: [...SELECTOR_FEATURES],
    mean: Array(n).fill(0),
    scale: Array(n).fill(1),
    weights: Array(n).fill(0),
    bias: 0,
    threshold: 0,
    fittedOn: {},
  };
}

export interface Sample {
  taskId: string;
  protocol: ApiProtocol;
  x: number[];
  y: boolean;
}

/** Logistic regression by Newton steps with an L2 ridge on the weights (not the bias); deterministic. */
export function fitLogistic(
  xs: number[][],
  ys: boolean[],
  ridge = RIDGE,
  iterations = ITERATIONS,
): { mean: number[]; scale: number[]; weights: number[]; bias: number } {
  const d = xs[0]?.length ?? 0;
  const n = xs.length;
  const mean = Array.from({ length: d }, (_, j) => xs.reduce((a, x) => a + x[j]!, 0) / Math.max(1, n));
  const scale = Array.from({ length: d }, (_, j) => {
    const v = xs.reduce((a, x) => a + (x[j]! - mean[j]!) ** 2, 0) / Math.max(1, n);
    return v > 1e-12 ? Math.sqrt(v) : 1;
  });
  const z = xs.map((x) => [1, ...x.map((v, j) => (v - mean[j]!) / scale[j]!)]);
  const beta = Array(d + 1).fill(0);
  for (let it = 0; it < iterations; it++) {
    const g = Array(d + 1).fill(0);
    const h = Array.from({ length: d + 1 }, () => Array(d + 1).fill(0));
    for (let i = 0; i < n; i++) {
      const zi = z[i]!;
      let s = 0;
      for (let j = 0; j <= d; j++) s += beta[j] * zi[j]!;
      const p = 1 / (1 + Math.exp(-s));
      const w = Math.max(p * (1 - p), 1e-9);
      const r = p - (ys[i] ? 1 : 0);
      for (let j = 0; j <= d; j++) {
        g[j] += r * zi[j]!;
        for (let k = 0; k <= d; k++) h[j]![k] += w * zi[j]! * zi[k]!;
      }
    }
    for (let j = 1; j <= d; j++) {
      g[j] += ridge * beta[j];
      h[j]![j] += ridge;
    }
    const step = solve(h, g);
    for (let j = 0; j <= d; j++) beta[j] -= step[j]!;
  }
  return { mean, scale, weights: beta.slice(1), bias: beta[0] };
}

/** Gaussian elimination with partial pivoting (small, dense, symmetric positive definite). */
function solve(a: number[][], b: number[]): number[] {
  const n = b.length;
  const m = a.map((row, i) => [...row, b[i]!]);
  for (let c = 0; c < n; c++) {
    let piv = c;
    for (let r = c + 1; r < n; r++) if (Math.abs(m[r]![c]!) > Math.abs(m[piv]![c]!)) piv = r;
    [m[c], m[piv]] = [m[piv]!, m[c]!];
    const d = m[c]![c]! || 1e-12;
    for (let r = 0; r < n; r++) {
      if (r === c) continue;
      const f = m[r]![c]! / d;
      if (!f) continue;
      const row = m[r]!;
      const pivot = m[c]!;
      for (let k = c; k <= n; k++) row[k] = row[k]! - f * pivot[k]!;
    }
  }
  return m.map((row, i) => row[n]! / (row[i] || 1e-12));
}

const round6 = (x: number) => Math.round(x * 1e6) / 1e6 + 0;

/** Mean over protocols of the development macro F1 at a threshold (task sets follow each protocol's rules). */
export function thresholdScore(byTask: Map<string, { protocol: ApiProtocol; truth: number; p: number[]; y: boolean[] }>, t: number): number {
  const f1s: Record<ApiProtocol, number[]> = { repository: [], 'task-view': [] };
  for (const r of byTask.values()) {
    if (PROTOCOL_RULES[r.protocol].emptyTruths === 'excluded' && r.truth === 0) continue;
    let tp = 0;
    let pred = 0;
    r.p.forEach((p, i) => {
      if (p >= t) {
        pred++;
        if (r.y[i]) tp++;
      }
    });
    const precision = pred ? tp / pred : r.truth ? 0 : 1;
    const recall = r.truth ? tp / r.truth : 1;
    f1s[r.protocol].push(precision + recall ? (2 * precision * recall) / (precision + recall) : 0);
  }
  const means = API_PROTOCOLS.map((p) => (f1s[p].length ? f1s[p].reduce((a, b) => a + b, 0) / f1s[p].length : 0));
  return means.reduce((a, b) => a + b, 0) / means.length;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      bench: { type: 'string', default: path.join(ROOT, '..', 'shared', 'bench', 'repoexec') },
      work: { type: 'string' },
      check: { type: 'boolean', default: false },
    },
  });
  const bench = path.resolve(values.bench);
  if (!fs.existsSync(path.join(bench, 'repoexec_inline.jsonl')))
    throw new Error(`${bench} has no repoexec_inline.jsonl: pass --bench <staged RepoExec folder>`);
  const work = values.work ? path.resolve(values.work) : fs.mkdtempSync(path.join(os.tmpdir(), 'oc-fit-selector-'));
  const log = (s: string) => process.stderr.write(`[fit-api-selector] ${s}\n`);
  try {
    const imported = path.join(work, 'import');
    if (!fs.existsSync(path.join(imported, 'tasks.jsonl'))) await importRepoExec({ benchDir: bench, outDir: imported });
    const manifest = readManifest(path.join(imported, 'tasks.jsonl'));
    const dev = manifest.tasks.filter((t) => {
      const subsets = Array.isArray(t.source?.subsets) ? (t.source.subsets as string[]) : [];
      return !isHeldOut(t.id) && !subsets.some((s) => s.startsWith('report')) && t.reference;
    });
    const store = Store.open(path.join(work, 'fit.db'));
    const encoder = await openEncoder(await loadHashEncoderSpec());
    try {
      const repos = new Map<string, number>();
      for (const p of new Set(dev.map((t) => t.repoPath))) repos.set(p, (await runIndex({ store, root: p, encoder })).repoId);
      const views = new Map<string, number>();
      for (const t of dev) if (t.taskViewPath) views.set(t.taskViewPath, (await runIndex({ store, root: t.taskViewPath, encoder })).repoId);
      log(`${dev.length} development tasks, ${repos.size} repositories, ${views.size} views indexed`);
      const config = makeConfig();
      const cache = new VectorIndexCache();
      const samples: Sample[] = [];
      const byTask = new Map<string, { protocol: ApiProtocol; truth: number; idx: number[] }>();
      for (const t of dev) {
        for (const protocol of API_PROTOCOLS) {
          const viewId = protocol === 'task-view' && t.taskViewPath ? views.get(t.taskViewPath) : undefined;
          let cands: Candidate[] = [];
          const ev = await evaluateTaskApis({
            store,
            encoder,
            repoId: viewId ?? repos.get(t.repoPath)!,
            task: { ...t, benchmark: benchmarkOf(t) },
            protocol,
            config,
            cache,
            selector: neutral(),
            moduleViewOnly: protocol === 'task-view' && viewId === undefined,
            onSelection: (c) => (cands = c),
          });
          const truth = ev.byScope.kept.truth;
          const idx: number[] = [];
          for (const c of cands) {
            idx.push(samples.length);
            samples.push({ taskId: t.id, protocol, x: c.features, y: isHit(truth, c.canonical, PROTOCOL_RULES[protocol].matching) });
          }
          byTask.set(`${protocol}|${t.id}`, { protocol, truth: truth.length, idx });
        }
      }
      const fit = fitLogistic(
        samples.map((s) => s.x),
        samples.map((s) => s.y),
      );
      const model: SelectorModel = {
        version: SELECTOR_VERSION,
        features: [...SELECTOR_FEATURES],
        mean: fit.mean.map(round6),
        scale: fit.scale.map(round6),
        weights: fit.weights.map(round6),
        bias: round6(fit.bias),
        threshold: 0.5,
        fittedOn: {},
      };
      const { probability } = await import('../main/retrieve/select-api.ts');
      const scored = new Map(
        [...byTask.entries()].map(([k, r]) => [
          k,
          { protocol: r.protocol, truth: r.truth, p: r.idx.map((i) => probability(model, samples[i]!.x)), y: r.idx.map((i) => samples[i]!.y) },
        ]),
      );
      let best = { t: 0.5, s: -1 };
      for (let i = 5; i <= 95; i++) {
        const t = i / 100;
        const s = thresholdScore(scored, t);
        if (s > best.s + 1e-12) best = { t, s };
      }
      model.threshold = best.t;
      model.fittedOn = {
        benchmark: 'repoexec-inline',
        manifestHash: manifest.hash,
        split: 'development = task ids with an even first sha256 byte (api-eval isHeldOut false), report_* subsets excluded',
        tasks: dev.length,
        items: samples.length,
        positives: samples.filter((s) => s.y).length,
        protocols: [...API_PROTOCOLS],
        encoder: encoder.id,
        ridge: RIDGE,
        iterations: ITERATIONS,
        developmentMeanMacroF1: round6(best.s),
      };
      const text = `${JSON.stringify(model, null, 2)}\n`;
      if (values.check) {
        const shipped = fs.readFileSync(OUT, 'utf8');
        if (shipped !== text) {
          process.stderr.write(text);
          throw new Error(`${OUT} differs from a re-fit (above); run scripts/fit-api-selector.ts to update it`);
        }
        log(`${OUT} reproduces byte for byte`);
      } else {
        fs.writeFileSync(OUT, text);
        log(
          `wrote ${OUT}: threshold ${model.threshold}, ${samples.length} items (${model.fittedOn.positives} positive), development mean macro F1 ${best.s.toFixed(3)}`,
        );
      }
    } finally {
      await encoder.dispose();
      store.close();
    }
  } finally {
    if (!values.work) fs.rmSync(work, { recursive: true, force: true });
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((e) => {
    process.stderr.write(`fit-api-selector: ${(e as Error).message}\n`);
    process.exit(1);
  });
}
