// A sandbox that stops starting in the middle of a run: the pair whose verdicts it decided is stored unscored with
// its cause (the computed result kept in the failure), left out of the condition's figures and counted beside them,
// and run again on resume, where it is scored. The offline backend on the bundled sample repository; the sandbox is
// the real bubblewrap behind a wrapper that fails, like bwrap without namespaces, once a marker file exists.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { offlineRequest } from '../helpers/run-request.ts';
import { readManifest } from '../../main/benchmarks/manifest-file.ts';
import { openConfiguredEncoder } from '../../main/embed/select.ts';
import { buildReportModel } from '../../main/experiment/analysis.ts';
import { loadRun } from '../../main/experiment/loaded-run.ts';
import { resumeExperiment, startExperiment, type ExperimentContext } from '../../main/experiment/orchestrate.ts';
import { DEFAULT_PRICES } from '../../main/generate/cost.ts';
import { OfflineBackend } from '../../main/generate/offline-backend.ts';
import { runIndex } from '../../main/index/indexer.ts';
import type { Encoder } from '../../main/model/encoder.ts';
import type { TaskFailure } from '../../main/model/results.ts';
import { METHODS } from '../../main/pipeline/methods.ts';
import { Store } from '../../main/store/store.ts';
import { detectSandbox } from '../../main/validate/sandbox.ts';
import { copyIndexedSample } from '../helpers/indexed-sample.ts';
import { tmpDir } from '../helpers/tmp-repo.ts';
import { needsStrongSandbox } from '../helpers/system.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const manifest = readManifest(path.join(ROOT, 'resources', 'sample-repo', 'tasks.jsonl'));
const tasks = manifest.tasks.slice(0, 2);
const REAL_BWRAP = ['/usr/bin/bwrap', '/bin/bwrap'].find((p) => fs.existsSync(p));
const STRONG = await needsStrongSandbox();

describe.skipIf(STRONG.skip)(`a sandbox failure in the middle of a run${STRONG.note}`, () => {
  let store: Store;
  let encoder: Encoder;
  let repoIds: Map<string, number>;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'oc-breaking-sandbox-'));
  const marker = path.join(dir, 'broken');
  const fake = path.join(dir, 'bwrap');

  const ctx = (extra: Partial<ExperimentContext> = {}): ExperimentContext => ({
    store,
    encoder,
    backend: new OfflineBackend(),
    prices: DEFAULT_PRICES,
    packageRoot: ROOT,
    // The copied sample is indexed already: one refresh in beforeAll found its id.
    ensureIndexed: async () => repoIds,
    parallel: 1,
    sandbox: { bwrap: fake },
    ...extra,
  });

  beforeAll(async () => {
    // Cold runs, each starting a sandbox of its own: a warm server started before the break would go on serving (a
    // warm server that dies mid-run is test/validate/warm.test.ts's case).
    process.env.OPENCODER_WARM = '0';
    fs.chmodSync(dir, 0o755); // setpriv runs the sandbox as uid 65534
    fs.writeFileSync(
      fake,
      `#!/bin/sh\nif [ -e "${marker}" ]; then echo "bwrap: Creating new namespace failed: No space left on device" >&2; exit 1; fi\nexec ${REAL_BWRAP} "$@"\n`,
      { mode: 0o755 },
    );
    store = Store.open(await copyIndexedSample(path.join(tmpDir('oc-unscored-runner-'), 'w.db'), { encoder: 'default' }));
    encoder = (await openConfiguredEncoder({ prefer: 'default', modelsDir: path.join(ROOT, 'resources', 'models') })).encoder;
    repoIds = new Map([[tasks[0]!.repoPath, (await runIndex({ store, root: tasks[0]!.repoPath, encoder })).repoId]]);
  });
  afterAll(async () => {
    delete process.env.OPENCODER_WARM;
    await encoder.dispose();
    store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('stores the pair unscored with its cause, keeps it out of the figures, and scores it on resume', async () => {
    const sandbox = await detectSandbox({ bwrap: fake });
    expect(sandbox.strength).toBe('strong');
    const out = await startExperiment(
      ctx({
        onProgress: (p) => {
          if (p.done === 1 && !fs.existsSync(marker)) fs.writeFileSync(marker, '');
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
    expect(out).toMatchObject({ status: 'done', total: 2, ran: 2, failed: 1, failures: { 'evaluate/sandbox': 1 }, unscored: { sandbox: 1 } });
    // The pairs' own time, summed, is within the run's (the rest is dispatch and waiting).
    expect(out.pairMs).toBeGreaterThan(0);
    expect(out.pairMs).toBeLessThanOrEqual(out.durationMs * 2 + 1);
    const [stored] = store.experiments.results<TaskFailure>(out.runId).filter((r) => r.status === 'error');
    expect(stored!.result).toMatchObject({ taskId: tasks[1]!.id, stage: 'evaluate', kind: 'sandbox', cause: 'sandbox' });
    expect(stored!.result.error).toMatch(/candidate 1: the sandbox failed: bwrap: Creating new namespace failed/);
    // What was computed is kept: the candidates, their verdicts and the spend.
    expect(stored!.result.result).toMatchObject({ taskId: tasks[1]!.id, unscored: { cause: 'sandbox' } });
    expect(stored!.result.result!.candidates.every((c) => c.verdict.infrastructure?.cause === 'sandbox')).toBe(true);

    const model = buildReportModel([loadRun(store.experiments, out.runId)], { tool: { name: 'opencoder', version: 't' }, bootstrap: { resamples: 200 } });
    expect(model.conditions[0]).toMatchObject({ tasks: 1, unscored: { total: 1, byCause: { sandbox: 1 } } });
    expect(model.tasks.find((t) => t.taskId === tasks[1]!.id)).toMatchObject({ unscored: 'sandbox' });

    fs.rmSync(marker);
    const again = await resumeExperiment(ctx(), out.runId);
    expect(again).toMatchObject({ status: 'done', ran: 1, failed: 0, resumed: 1, unscored: {} });
    expect(store.experiments.results(out.runId).every((r) => r.status === 'ok')).toBe(true);
  }, 180_000);
});
