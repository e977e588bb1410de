// Issue 31, item 5: the cost estimate says what it counted. Imported (published) samples call no model and cannot
// be repaired, so no repair round is counted and nothing is billed; a backend that repairs counts every round.

import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CostEstimateInfo } from '../../contract/index.ts';
import { runEstimateAssumptions } from '../../main/generate/cost.ts';
import { sampleRepoPath } from '../../main/host/paths.ts';
import type { EngineService } from '../../main/host/service.ts';
import { ok, openService } from '../helpers/service-calls.ts';
import { tmpDir } from '../helpers/tmp-repo.ts';

const MANIFEST = path.join(sampleRepoPath(), 'tasks.jsonl');
const TASK = 'inventory/apply_discount';

describe('the estimate with imported samples', () => {
  const dir = tmpDir('oc-estimate-');
  let s: EngineService;
  beforeAll(async () => {
    s = await openService(dir, 'w', { allowedRoots: [dir, sampleRepoPath()] });
  });
  afterAll(async () => {
    await s?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('counts no call, no cost and no repair round, and says why', async () => {
    const set = path.join(dir, 'set.jsonl');
    fs.writeFileSync(set, `${JSON.stringify({ task_id: TASK, samples: [{ code: 'def apply_discount(a, p):\n    return a\n', passed: false }] })}\n`);
    const input = { manifest: MANIFEST, kind: 'run', methods: ['rag-verify-repair'], taskIds: [TASK] };
    const imported = await ok<CostEstimateInfo>(s, 'experiment.estimate', { ...input, samples: set });
    expect(imported).toMatchObject({ calls: 0, inputTokens: 0, usdExpected: 0, usdMax: 0 });
    expect(imported.assumptions).toMatch(/^1 task × 1 condition from imported samples: no model is called and nothing is billed/);
    expect(imported.assumptions).toMatch(/imported samples cannot be repaired, so no repair round is counted/);
    expect(imported.assumptions).not.toMatch(/every repair round/);

    const settings = await ok<CostEstimateInfo>(s, 'experiment.estimate', input);
    expect(settings.calls).toBeGreaterThan(0);
    expect(settings.assumptions).not.toMatch(/imported/);
  });
});

describe('experiment.start with a budget', () => {
  const dir = tmpDir('oc-budget-');
  const services: EngineService[] = [];
  const open = async (name: string, env: Record<string, string>) => {
    const s = await openService(dir, name, { allowedRoots: [dir, sampleRepoPath()], env });
    services.push(s);
    return s;
  };
  afterAll(async () => {
    for (const s of services) await s.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  const request = (model: string) => ({
    manifest: MANIFEST,
    kind: 'run',
    methods: ['baseline-rag'],
    taskIds: [TASK],
    maxUsd: 1000,
    backend: { kind: 'openai', model },
  });

  it('refuses a run without the backend key before pricing it, and an unpriced model at the budget field', async () => {
    const noKey = await open('no-key', {});
    const r1 = await noKey.call('experiment.start', request('gpt-4o-mini'));
    expect(r1.ok).toBe(false);
    if (!r1.ok) expect(r1.error.message).toMatch(/OPENAI_API_KEY/);

    const keyed = await open('keyed', { OPENAI_API_KEY: 'sk-test-not-a-real-key' });
    const r2 = await keyed.call('experiment.start', request('no-such-model-anywhere'));
    expect(r2).toMatchObject({ ok: false, error: { code: 'invalid-input', issues: [{ path: 'maxUsd' }] } });
    if (!r2.ok) expect(r2.error.message).toMatch(/unknown \(no price\) is over the budget of \$1000; nothing was started/);
  });
});

describe('the estimate sentence', () => {
  const base = { tasks: 2, conditions: 3, evidenceChars: 1200, imported: false, repairRounds: 12, canRepair: true, repairingConditions: 2 };
  it('says each case plainly', () => {
    expect(runEstimateAssumptions(base)).toBe(
      '2 tasks × 3 conditions; ~1,200 characters per evidence item; every repair round counted, 12 rounds in all (an upper bound: most tasks need none)',
    );
    expect(runEstimateAssumptions({ ...base, repairingConditions: 0, repairRounds: 0 })).toMatch(/no repair rounds \(none of these methods repairs\)$/);
    expect(runEstimateAssumptions({ ...base, canRepair: false, repairRounds: 0 })).toMatch(/no repair rounds \(this backend cannot repair\)$/);
    expect(runEstimateAssumptions({ ...base, imported: true, repairingConditions: 0 })).toBe(
      '2 tasks × 3 conditions from imported samples: no model is called and nothing is billed',
    );
  });
});
