// The runner in process: a task whose generation fails is stored as an error (with its stage) and the run goes
// on; a cancel keeps what finished; a resume runs only what is missing, errors included.

import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { offlineRequest } from '../helpers/run-request.ts';
import { openConfiguredEncoder } from '../../main/embed/select.ts';
import type { Encoder } from '../../main/model/encoder.ts';
import { readManifest } from '../../main/benchmarks/manifest-file.ts';
import { resumeExperiment, startExperiment, type ExperimentContext } from '../../main/experiment/orchestrate.ts';
import type { TaskFailure } from '../../main/model/results.ts';
import { DEFAULT_PRICES } from '../../main/generate/cost.ts';
import { OfflineBackend } from '../../main/generate/offline-backend.ts';
import { wrapBackend } from '../../main/generate/reply-cap.ts';
import type { ChatRequest, LlmBackend } from '../../main/generate/types.ts';
import { runIndex } from '../../main/index/indexer.ts';
import { METHODS } from '../../main/pipeline/methods.ts';
import { ExperimentStore } from '../../main/store/experiments.ts';
import { Store } from '../../main/store/store.ts';
import { copyIndexedSample } from '../helpers/indexed-sample.ts';
import { tmpDir } from '../helpers/tmp-repo.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const manifest = readManifest(path.join(ROOT, 'resources', 'sample-repo', 'tasks.jsonl'));
const tasks = manifest.tasks.slice(0, 4);

/** The offline backend, except that generation for `failTask` fails like an API error would. */
function flaky(failTask: string | null): LlmBackend {
  const inner = new OfflineBackend();
  return wrapBackend(inner, async (req: ChatRequest) => {
    if (req.grounding?.task.id === failTask) throw new Error('HTTP 500 from the mock: internal error');
    return inner.chat(req);
  });
}

describe('experiment runner', () => {
  let store: Store;
  let encoder: Encoder;
  const ctx = (backend: LlmBackend, extra: Partial<ExperimentContext> = {}): ExperimentContext => ({
    store,
    encoder,
    backend,
    prices: DEFAULT_PRICES,
    packageRoot: ROOT,
    ensureIndexed: async (ts) => {
      const ids = new Map<string, number>();
      for (const p of new Set(ts.map((t) => t.repoPath))) ids.set(p, (await runIndex({ store, root: p, encoder })).repoId);
      return ids;
    },
    parallel: 1,
    ...extra,
  });

  beforeAll(async () => {
    // The sample repository already indexed with this encoder: ensureIndexed only confirms nothing changed.
    store = Store.open(await copyIndexedSample(path.join(tmpDir('oc-runner-'), 'w.db'), { encoder: 'default' }));
    encoder = (await openConfiguredEncoder({ prefer: 'default', modelsDir: path.join(ROOT, 'resources', 'models') })).encoder;
  });
  afterAll(async () => {
    await encoder.dispose();
    store.close();
  });

  it('stores a failing task as an error with its stage, goes on, and retries it on resume', async () => {
    const bad = tasks[1]!.id;
    const out = await startExperiment(ctx(flaky(bad)), {
      kind: 'run',
      manifest,
      tasks,
      conditions: [METHODS.opencoder!],
      request: offlineRequest(manifest.file),
    });
    expect(out).toMatchObject({ status: 'done', total: 4, ran: 4, failed: 1 });
    const experiments = new ExperimentStore(store.db, store.path);
    const errors = experiments.results<TaskFailure>(out.runId).filter((r) => r.status === 'error');
    expect(errors).toHaveLength(1);
    expect(errors[0]!.result).toMatchObject({ taskId: bad, condition: 'opencoder', stage: 'generate' });
    expect(errors[0]!.result.error).toMatch(/HTTP 500 from the mock/);

    const again = await resumeExperiment(ctx(flaky(null)), out.runId);
    expect(again).toMatchObject({ status: 'done', total: 4, ran: 1, failed: 0, resumed: 3 });
    expect(experiments.results(out.runId).every((r) => r.status === 'ok')).toBe(true);
  }, 60_000);

  it('a cancel keeps finished tasks and leaves the run resumable', async () => {
    const controller = new AbortController();
    const seen: number[] = [];
    const out = await startExperiment(
      ctx(flaky(null), {
        signal: controller.signal,
        onProgress: (p) => {
          seen.push(p.done);
          if (p.done === 2) controller.abort();
        },
      }),
      {
        kind: 'run',
        manifest,
        tasks,
        conditions: [METHODS['baseline-rag']!],
        request: offlineRequest(manifest.file),
      },
    );
    expect(out.status).toBe('cancelled');
    expect(out.ran).toBe(2);
    expect(seen).toEqual([0, 1, 2]);
    const experiments = new ExperimentStore(store.db, store.path);
    expect(experiments.get(out.runId)!.state).toBe('cancelled');
    const rest = await resumeExperiment(ctx(flaky(null)), out.runId);
    expect(rest).toMatchObject({ status: 'done', ran: 2, resumed: 2 });
    expect(experiments.get(out.runId)!.state).toBe('done');
  }, 60_000);
});
