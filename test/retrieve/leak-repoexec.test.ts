// Issue 29's target on RepoExec-inline: after masking, the leakage audit finds no suspect in any of the 176 tasks'
// evidence (its check programs' tests and the references are what it compares with). Reads ../shared/bench.

import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readManifest } from '../../main/benchmarks/manifest-file.ts';
import { runIndex } from '../../main/index/indexer.ts';
import { retrieveForTask } from '../../main/retrieve/engine.ts';
import { VectorIndexCache } from '../../main/retrieve/vector-index.ts';
import { Store } from '../../main/store/store.ts';
import { openConfiguredEncoder } from '../../main/embed/select.ts';
import { defaultModelsDir } from '../../main/host/paths.ts';
import { cli } from '../helpers/cli.ts';
import { tmpDir } from '../helpers/tmp-repo.ts';
import { benchDir } from '../validate/helpers.ts';
import { NO_BENCH } from '../helpers/system.ts';

const source = path.join(benchDir(), 'repoexec');
const present = fs.existsSync(path.join(source, 'repoexec_inline.jsonl'));
if (!present) console.warn(`[retrieve] RepoExec data not found at ${source} (set OPENCODER_BENCH_DIR): skipping the leak audit over RepoExec-inline`);

const dir = tmpDir('oc-leak-repoexec-');
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe.skipIf(!present)(`the leakage audit on RepoExec-inline${!present ? NO_BENCH : ''}`, () => {
  it('finds no suspect in any task after masking, comparing with the reference and the check program', async () => {
    const out = path.join(dir, 're');
    const imported = await cli(['import', 'repoexec', source, '--out', out, '--quiet']);
    expect(imported.code, imported.err.join('\n')).toBe(0);
    const manifest = readManifest(path.join(out, 'tasks.jsonl'));
    expect(manifest.tasks).toHaveLength(176);
    const store = Store.open(path.join(dir, 'r.db'));
    // The product's default encoder: which items are retrieved (and so audited) is what an analyst's run retrieves.
    const { encoder } = await openConfiguredEncoder({ prefer: 'default', modelsDir: defaultModelsDir() });
    const cache = new VectorIndexCache();
    const repos = new Map<string, number>();
    const suspects: string[] = [];
    let checked = 0;
    try {
      for (const task of manifest.tasks) {
        let repoId = repos.get(task.repoPath);
        if (repoId === undefined) repos.set(task.repoPath, (repoId = (await runIndex({ store, root: task.repoPath, encoder })).repoId));
        const trace = await retrieveForTask({ store, encoder, repoId, task, cache, persist: false });
        expect(trace.leak!.against, task.id).toEqual(['reference', 'tests check program']);
        checked += trace.leak!.checked;
        for (const s of trace.leak!.suspects) suspects.push(`${task.id}: ${s.title} (${s.kind} ${s.against}: ${s.match})`);
      }
    } finally {
      store.close();
      await encoder.dispose();
    }
    expect(suspects).toEqual([]);
    expect(checked).toBeGreaterThan(176 * 10);
  }, 600_000);
});
