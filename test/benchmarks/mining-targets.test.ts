// Mining's yardsticks: python-string-utils, from which RepoExec's authors curated 42 tasks by hand (at least 40 of
// those targets are kept, each with a passing reference, a failing stub and a mutation score, and each kept task
// checks again with the validator alone), and the bundled sample repository (every task of its hand-written
// manifest whose target has a docstring is found again, with the same tests or more).

import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readManifest } from '../../main/benchmarks/manifest-file.ts';
import { stubOf } from '../../main/benchmarks/mining/check.ts';
import { mineRepository } from '../../main/benchmarks/mining/mine.ts';
import type { Decision, MineSummary } from '../../main/benchmarks/mining/types.ts';
import { openConfiguredEncoder } from '../../main/embed/select.ts';
import { mineFolder } from '../../main/host/ops/mine.ts';
import { defaultModelsDir, sampleRepoPath } from '../../main/host/paths.ts';
import { Store } from '../../main/store/store.ts';
import { createValidator } from '../../main/validate/validator.ts';
import { needs, NO_BENCH } from '../helpers/system.ts';
import { tmpDir } from '../helpers/tmp-repo.ts';
import { benchDir } from '../validate/helpers.ts';

const PSU = path.join(benchDir(), 'mining', 'python-string-utils');
const CURATED = path.join(benchDir(), 'repoexec', 'data_with_test_case', 'test-apps+python-string-utils', 'pass_data.jsonl');
const present = fs.existsSync(PSU) && fs.existsSync(CURATED);
const sys = needs('bubblewrap');
if (!present)
  console.warn(`[mining] python-string-utils or RepoExec's curated rows not found under ${benchDir()} (set OPENCODER_BENCH_DIR): skipping the yardstick`);

function decisionsOf(out: string): Map<string, Decision> {
  const m = new Map<string, Decision>();
  for (const l of fs
    .readFileSync(path.join(out, '.mine', 'decisions.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .slice(1)) {
    const d = JSON.parse(l) as Decision;
    m.set(d.id, d);
  }
  return m;
}

describe.skipIf(!present || sys.skip)(`mining python-string-utils against RepoExec's 42 curated targets${!present ? NO_BENCH : sys.note}`, () => {
  let out: string;
  let summary: MineSummary;
  let store: Store;

  beforeAll(async () => {
    out = tmpDir('oc-mined-psu-');
    const dir = tmpDir('oc-mine-db-');
    store = Store.open(path.join(dir, 'db.sqlite'));
    const { encoder } = await openConfiguredEncoder({ prefer: 'default', modelsDir: defaultModelsDir() });
    // Through the op the CLI and the app call: the real leak audit over the frozen copy's index.
    summary = await mineFolder({ store, encoder }, { folder: PSU, out });
    await encoder.dispose();
  }, 400_000);
  afterAll(() => {
    store?.close();
    if (out) fs.rmSync(out, { recursive: true, force: true });
  });

  it('keeps at least 40 of the 42 targets, each with a passing reference, a failing stub and a mutation score', () => {
    const curated = fs
      .readFileSync(CURATED, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { module: string; entry_point: string })
      .map((r) => `${r.module}.${r.entry_point}`);
    expect(curated).toHaveLength(42);
    const tasks = new Map(readManifest(summary.out).tasks.map((t) => [t.id, t]));
    const kept = curated.filter((id) => tasks.has(id));
    const decisions = decisionsOf(out);
    const missing = curated.filter((id) => !tasks.has(id)).map((id) => `${id}: ${JSON.stringify(decisions.get(id))}`);
    expect(kept.length, `dropped: ${missing.join('\n')}`).toBeGreaterThanOrEqual(40);
    for (const id of kept) {
      const checks = (
        tasks.get(id)!.source as { checks: { reference: { runs: string[] }; stub: { status: string }; mutants: { made: number; score: number } } }
      ).checks;
      expect(checks.reference.runs, id).toEqual(['passed', 'passed']);
      expect(checks.stub.status, id).not.toBe('passed');
      expect(checks.mutants.made, id).toBeGreaterThanOrEqual(5);
      expect(checks.mutants.score, id).toBeGreaterThan(0);
    }
    // What the leak audit dropped says what it found.
    for (const d of decisions.values()) if (!d.kept && d.reason === 'leaks') expect(d.detail).toMatch(/against tests/);
    expect(summary.suite).toMatchObject({ tests: 407, passed: 407 });
  });

  it('every kept reference passes and every stub fails when the validator alone checks them again', async () => {
    const v = await createValidator();
    try {
      const tasks = readManifest(summary.out).tasks;
      // As an experiment checks them: the reference check (which also chooses the isolation), then the stub.
      const again = await Promise.all(
        tasks.map(async (t) => [t.id, (await v.referenceCheck(t)).passes, (await v.validate(t, stubOf(t.signature))).status] as const),
      );
      expect(again.filter(([, ref]) => !ref)).toEqual([]);
      expect(again.filter(([, , stub]) => stub === 'passed')).toEqual([]);
    } finally {
      v.close();
    }
  }, 300_000);

  it('gives each task its API truth and context level from the reference', () => {
    const tasks = new Map(readManifest(summary.out).tasks.map((t) => [t.id, t]));
    expect(tasks.get('string_utils.validation.is_ip')!.ground_truth_apis).toEqual(['string_utils.validation:is_ip_v4', 'string_utils.validation:is_ip_v6']);
    expect((tasks.get('string_utils.validation.is_ip')!.source as { context: { level: string } }).context.level).toBe('file_runnable');
    expect(tasks.get('string_utils.manipulation.slugify')!.ground_truth_apis).toContain('string_utils.validation:is_string');
  });
});

describe.skipIf(sys.skip)(`mining the sample repository${sys.note}`, () => {
  it('finds every documented task of its hand-written manifest again, with the same tests or more', async () => {
    const out = tmpDir('oc-mined-sample-');
    const v = await createValidator();
    try {
      await mineRepository({ folder: sampleRepoPath(), out }, { validator: v });
    } finally {
      v.close();
    }
    const mined = new Map(readManifest(path.join(out, 'tasks.jsonl')).tasks.map((t) => [`${t.file}:${t.qualname}`, t]));
    const written = readManifest(path.join(sampleRepoPath(), 'tasks.jsonl')).tasks.filter((t) =>
      /^\s*(?:"""|''')/m.test(t.reference!.split('\n').slice(1).join('\n')),
    );
    expect(written.length).toBeGreaterThanOrEqual(10);
    for (const t of written) {
      const m = mined.get(`${t.file}:${t.qualname}`);
      expect(m, t.id).toBeDefined();
      expect(m!.tests, t.id).toEqual(expect.arrayContaining(t.tests ?? []));
    }
    fs.rmSync(out, { recursive: true, force: true });
  }, 300_000);
});
