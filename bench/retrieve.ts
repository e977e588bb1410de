// Retrieval latency (three sources plus fusion for one task) at about 10k and 100k indexed units, beside
// the same retrieval with an exact brute-force vector scan, and recall@8 of the vector search against
// that scan. Corpora: a slice of this machine's Python standard library (10k) and the whole library plus
// a second copy of part of it (100k).

import fs from 'node:fs';
import path from 'node:path';
import { Store } from '../main/store/store.ts';
import { runIndex } from '../main/index/indexer.ts';
import type { Encoder } from '../main/model/encoder.ts';
import { retrieveForTask, SOURCE_KIND } from '../main/retrieve/engine.ts';
import { SOURCES } from '../main/model/config.ts';
import { VectorIndexCache } from '../main/retrieve/vector-index.ts';
import { quantile } from '../main/stats/metrics.ts';
import { stdlibPath } from './stdlib.ts';

export interface RetrievalBench {
  units: number;
  approx: { p50: number; p95: number };
  exact: { p50: number; p95: number };
  recallAt8: number;
  queries: number;
}

function copyTree(src: string, dst: string, keep: (rel: string) => boolean): void {
  fs.cpSync(src, dst, {
    recursive: true,
    verbatimSymlinks: true,
    filter: (p) => {
      const base = path.basename(p);
      if (base === 'site-packages' || base === '__pycache__') return false;
      return keep(path.relative(src, p));
    },
  });
}

/** Builds the corpus folder for a target unit count (approximately). */
export function retrievalCorpus(target: '10k' | '100k', parent: string): string {
  const src = stdlibPath();
  const root = path.join(parent, `corpus-${target}`);
  if (target === '10k') {
    // Top-level modules only, no packages: about 10k units.
    copyTree(src, root, (rel) => rel === '' || (!rel.includes(path.sep) && rel.endsWith('.py')) || /^(json|email|http)(\/|$)/.test(rel));
  } else {
    copyTree(src, path.join(root, 'lib'), () => true);
    // A second copy of the test suite (renamed) lifts the count past 100k units.
    copyTree(path.join(src, 'test'), path.join(root, 'extra'), () => true);
  }
  return root;
}

export async function benchRetrieval(store: Store, encoder: Encoder, root: string, queries = 40): Promise<RetrievalBench> {
  const stats = await runIndex({ store, root, encoder });
  const repoId = stats.repoId;
  const units = (store.db.prepare('SELECT count(*) AS n FROM units WHERE repo_id = ?').get(repoId) as { n: number }).n;
  // Tasks: documented functions of the corpus, spread over it (requirement = docstring).
  const rows = store.db
    .prepare(
      `SELECT u.qualname, u.signature, u.docstring, u.body, f.path FROM units u JOIN files f ON f.id = u.file_id
       WHERE u.repo_id = ? AND u.kind = 'function' AND u.docstring IS NOT NULL AND length(u.docstring) > 40 ORDER BY u.id`,
    )
    .all(repoId) as { qualname: string; signature: string; docstring: string; body: string; path: string }[];
  const step = Math.max(1, Math.floor(rows.length / queries));
  const tasks = rows
    .filter((_, i) => i % step === 0)
    .slice(0, queries)
    .map((r, i) => ({
      id: `bench/${i}`,
      requirement: r.docstring,
      signature: r.signature,
      file: r.path,
      qualname: r.qualname,
      reference: r.body,
    }));
  const cache = new VectorIndexCache();
  const enc = store.registerEncoder(encoder);
  // Warm up: load the vector indexes once (a one-time cost per repository and process).
  await retrieveForTask({ store, encoder, repoId, task: tasks[0]!, cache, persist: false });
  const approxMs: number[] = [];
  const exactMs: number[] = [];
  let hits = 0;
  let total = 0;
  for (const task of tasks) {
    let t = performance.now();
    const a = await retrieveForTask({ store, encoder, repoId, task, cache, persist: false });
    approxMs.push(performance.now() - t);
    t = performance.now();
    await retrieveForTask({ store, encoder, repoId, task, cache, persist: false, search: 'exact' });
    exactMs.push(performance.now() - t);
    // recall@8 of the vector search against the exact scan, on the same query vectors
    const texts = a.steps.flatMap((st) => SOURCES.map((src) => ({ src, text: st.queries[src] })));
    const vecs = await encoder.embed(texts.map((x) => x.text));
    texts.forEach((x, i) => {
      const idx = cache.get(store, repoId, enc.id, SOURCE_KIND[x.src], enc.dim);
      const exact = new Set(idx.exactSearch(vecs[i]!, 8).map((h) => h.id));
      for (const h of idx.search(vecs[i]!, 8)) if (exact.has(h.id)) hits++;
      total += exact.size;
    });
  }
  return {
    units,
    queries: tasks.length,
    approx: { p50: quantile(approxMs, 0.5), p95: quantile(approxMs, 0.95) },
    exact: { p50: quantile(exactMs, 0.5), p95: quantile(exactMs, 0.95) },
    recallAt8: total ? hits / total : Number.NaN,
  };
}
