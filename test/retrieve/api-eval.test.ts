import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Store } from '../../main/store/store.ts';
import { runIndex } from '../../main/index/indexer.ts';
import { readManifest } from '../../main/experiment/manifest.ts';
import { canonicalKey, isHeldOut, predictedApis, referenceCalls, resolveTruth, scoreTask, summarise } from '../../main/retrieve/api-eval.ts';
import type { RetrievalTrace } from '../../main/retrieve/types.ts';
import { fakeEncoder } from '../helpers/fake-encoder.ts';
import { tmpDir } from '../helpers/tmp-repo.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const manifest = readManifest(path.join(ROOT, 'resources', 'sample-repo', 'tasks.jsonl'));
let dir: string;
let store: Store;
let repoId: number;

beforeAll(async () => {
  dir = tmpDir('oc-apieval-');
  store = Store.open(path.join(dir, 'w.db'));
  repoId = (await runIndex({ store, root: manifest.tasks[0]!.repoPath, encoder: fakeEncoder() })).repoId;
});
afterAll(() => {
  store.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('API-retrieval ground truth', () => {
  it('resolves the repository APIs a reference calls, leaving out builtins, the target and ambiguous names', async () => {
    const task = manifest.tasks.find((t) => t.id === 'inventory/price_line')!;
    const calls = await referenceCalls(task.reference!);
    expect(calls).toEqual(expect.arrayContaining(['find_product', 'add_tax']));
    const truth = resolveTruth(store, repoId, calls, { module: 'inventory.pricing', qualname: 'price_line' }).map((t) => t.key);
    expect(truth).toEqual(expect.arrayContaining(['inventory.catalog:find_product', 'inventory.pricing:add_tax']));
    expect(truth).not.toContain('inventory.pricing:price_line');
    expect(truth.some((k) => /:(len|int|ValueError)$/.test(k))).toBe(false);
  });
});

describe('scoring', () => {
  const ev = (module: string, qualname: string, u: number, reason = 'kept: fused rank 1') => ({ source: 'api', module, qualname, u, reason, title: `${module}.${qualname}` });
  const trace = {
    evidence: [ev('m', 'a', 0.1), ev('m', 'b', 0.5), ev('m', 'C.__init__', 0.2), ev('m', 'C', 0.3), ev('m', 'x', 0.9, 'API refinement: the target itself')],
    fused: [ev('m', 'a', 0.1)],
  } as unknown as RetrievalTrace;

  it('predicts the refined API evidence, collapsing constructors onto classes', () => {
    expect(predictedApis(trace).map((p) => p.key).sort()).toEqual(['m:C', 'm:a', 'm:b']);
    expect(predictedApis(trace).find((p) => p.key === 'm:C')?.u).toBe(0.2);
    expect(predictedApis(trace, 'fused').map((p) => p.key)).toEqual(['m:a']);
    expect(canonicalKey('m', 'C.constructor')).toBe('m:C');
  });

  it('computes P/R/F1, exact match and count reliability, and splits tasks deterministically', () => {
    const r = scoreTask('t', [{ key: 'm:a', title: '' }, { key: 'm:z', title: '' }], predictedApis(trace));
    expect(r).toMatchObject({ precision: 1 / 3, recall: 1 / 2, exact: false, count: 'over' });
    const s = summarise([r, scoreTask('u', [], [])]);
    expect(s.tasksWithTruth).toBe(1);
    expect(s.count).toEqual({ over: 1, exact: 0, under: 0 });
    expect(isHeldOut('RepoExec/0')).toBe(isHeldOut('RepoExec/0'));
    const split = Array.from({ length: 200 }, (_, i) => isHeldOut(`T/${i}`)).filter(Boolean).length;
    expect(split).toBeGreaterThan(70);
    expect(split).toBeLessThan(130);
  });
});
