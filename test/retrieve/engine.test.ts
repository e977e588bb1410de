import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Store } from '../../main/store/store.ts';
import { runIndex } from '../../main/index/indexer.ts';
import { openConfiguredEncoder } from '../../main/embed/select.ts';
import type { Encoder } from '../../main/model/encoder.ts';
import { readManifest } from '../../main/benchmarks/manifest-file.ts';
import { loadTrace, retrieveForTask, RetrievalError } from '../../main/retrieve/engine.ts';
import { makeConfig } from '../../main/model/config.ts';
import { fakeEncoder } from '../helpers/fake-encoder.ts';
import { copyIndexedSample } from '../helpers/indexed-sample.ts';
import { tmpDir } from '../helpers/tmp-repo.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const manifest = readManifest(path.join(ROOT, 'resources', 'sample-repo', 'tasks.jsonl'));
const squash = (s: string) => s.replace(/\s+/g, '');

let dir: string;
let store: Store;
let encoder: Encoder;
let repoId: number;

beforeAll(async () => {
  dir = tmpDir('oc-retrieve-');
  // The sample repository already indexed with this encoder: runIndex only confirms nothing changed.
  store = Store.open(await copyIndexedSample(path.join(dir, 'w.db'), { encoder: 'default' }));
  encoder = (await openConfiguredEncoder({ prefer: 'default', modelsDir: path.join(dir, 'none') })).encoder;
  repoId = (await runIndex({ store, root: manifest.tasks[0]!.repoPath, encoder })).repoId;
});

afterAll(async () => {
  await encoder.dispose();
  store.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('retrieveForTask on the sample repository', () => {
  it('never shows the reference body in any source, for every sample task', async () => {
    for (const task of manifest.tasks) {
      const trace = await retrieveForTask({ store, encoder, repoId, task, persist: false });
      expect(
        trace.masked.some((m) => m.endsWith(`:${task.qualname}`)),
        task.id,
      ).toBe(true);
      const body = squash(task.reference!);
      for (const e of trace.evidence) expect(squash(e.text).includes(body), `${task.id}: ${e.title}`).toBe(false);
      // Test files are left out: the task's own tests would leak expected outputs.
      expect(trace.evidence.some((e) => e.file.startsWith('tests/'))).toBe(false);
    }
  });

  it('returns up to 8 items per source and step, with r, w, u, γ and a reason on every item', async () => {
    const task = manifest.tasks.find((t) => t.id === 'inventory/price_line')!;
    const trace = await retrieveForTask({ store, encoder, repoId, task });
    expect(trace.steps.length).toBeGreaterThanOrEqual(2);
    for (const step of trace.steps) {
      for (const s of ['api', 'context', 'similar'] as const) {
        const n = trace.evidence.filter((e) => e.step === step.index && e.source === s).length;
        expect(n).toBeGreaterThan(0);
        expect(n).toBeLessThanOrEqual(8);
      }
    }
    for (const e of trace.evidence) {
      expect(e.u).toBeGreaterThanOrEqual(0);
      expect(e.u).toBeLessThanOrEqual(1);
      expect(e.signals.length).toBeGreaterThan(0);
      expect(e.reason).not.toBe('');
      expect(e.gamma).toBeCloseTo(e.r * e.w * Math.max(0, 1 - 0.5 * e.u), 12);
    }
    expect(trace.fused.length).toBeLessThanOrEqual(10);
    expect(new Set(trace.fused.map((e) => e.key)).size).toBe(trace.fused.length);
    for (const s of ['api', 'context', 'similar'] as const) expect(trace.sourceUncertainty[s]).not.toBeNull();
    // Repository context favours the target's own module: its header or skeletons are among the items.
    expect(trace.evidence.some((e) => e.source === 'context' && e.file === 'inventory/pricing.py')).toBe(true);
    // The trace is stored and can be read back as one document.
    expect(loadTrace(store, task.id)?.fused.map((e) => e.key)).toEqual(trace.fused.map((e) => e.key));
  });

  it('honours source switches and the refinement switch', async () => {
    const task = manifest.tasks.find((t) => t.id === 'inventory/price_line')!;
    const onlyApi = await retrieveForTask({
      store,
      encoder,
      repoId,
      task,
      persist: false,
      config: makeConfig({ retrieval: { sources: { api: true, context: false, similar: false } } }),
    });
    expect(new Set(onlyApi.evidence.map((e) => e.source))).toEqual(new Set(['api']));
    expect(onlyApi.sourceUncertainty.context).toBeNull();
    const noRefine = await retrieveForTask({ store, encoder, repoId, task, persist: false, config: makeConfig({ fusion: { refineApi: false } }) });
    expect(noRefine.evidence.some((e) => e.reason.startsWith('API refinement'))).toBe(false);
  });

  it('refuses a repository indexed with another encoder, naming both', async () => {
    const task = manifest.tasks[0]!;
    await expect(retrieveForTask({ store, encoder: fakeEncoder('other@1', 8), repoId, task })).rejects.toThrow(RetrievalError);
    await expect(retrieveForTask({ store, encoder: fakeEncoder('other@1', 8), repoId, task })).rejects.toThrow(/indexed with opencoder-subtoken-hash-256/);
  });
});
