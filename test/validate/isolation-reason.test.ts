// Every verdict says why it was decided where it was (Verdict.isolationReason): the task's reference check's reason,
// the validator's or the caller's setting, or the default for a task without a reference. Reused verdicts say it too.

import crypto from 'node:crypto';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readManifest } from '../../main/benchmarks/manifest-file.ts';
import { sealText, unsealText } from '../../main/experiment/queue/seal.ts';
import { findTask } from '../../main/model/manifest.ts';
import type { VerdictSummary } from '../../main/model/results.ts';
import { isolationReasonOf, ISOLATION_REASON_NOT_RECORDED, type Verdict } from '../../main/model/verdict.ts';
import { summariseVerdict } from '../../main/pipeline/task-result.ts';
import { ExperimentStore } from '../../main/store/experiments.ts';
import { Store } from '../../main/store/store.ts';
import { createValidator, type Validator } from '../../main/validate/validator.ts';
import { tmpDir } from '../helpers/tmp-repo.ts';
import { SAMPLE_REPO, templateTask } from './helpers.ts';

const manifest = readManifest(path.join(SAMPLE_REPO, 'tasks.jsonl'));
const task = findTask(manifest, 'inventory/add_tax');
const WRONG = 'def add_tax(amount, tax_class="standard"):\n    return amount\n';

let auto: Validator;
let inProcess: Validator;
beforeAll(async () => {
  [auto, inProcess] = await Promise.all([createValidator({ concurrency: 2 }), createValidator({ concurrency: 2, isolation: 'in-process' })]);
});
afterAll(() => {
  auto.close();
  inProcess.close();
});

describe('why a verdict was decided where it was', () => {
  it('isolated: the reference check’s reason, on a fresh verdict and on a reused one', async () => {
    const check = await auto.referenceCheck(task);
    expect(check.isolation).toBe('isolated');
    const v = await auto.validate(task, WRONG);
    expect(v.isolation).toBe('isolated');
    expect(v.isolationReason).toMatch(/isolated/);
    expect(v.isolationReason).toBe(check.isolationReason);
    const again = await auto.validate(task, WRONG);
    expect(again.cached).toBe(true);
    expect(again.isolationReason).toBe(check.isolationReason);
  }, 120_000);

  it('in-process by the validator’s setting, or by the caller’s for one run', async () => {
    const v = await inProcess.validate(task, WRONG);
    expect(v.isolation).toBe('in-process');
    expect(v.isolationReason).toMatch(/^in-process by the validator's setting/);
    const asked = await auto.validate(task, WRONG, { isolation: 'in-process' });
    expect(asked.isolation).toBe('in-process');
    expect(asked.isolationReason).toMatch(/^in-process, as the caller asked/);
  }, 120_000);

  it('a task without a reference: isolated by default', async () => {
    const v = await auto.validate(templateTask('tiny/noref', undefined, { reference: undefined }), 'def f(x):\n    return x\n');
    expect(v.isolationReason).toMatch(/^the task has no reference: isolated by default/);
  }, 60_000);

  it('a verdict stored before the reason was kept reads as not recorded', () => {
    expect(isolationReasonOf({})).toBe(ISOLATION_REASON_NOT_RECORDED);
    expect(isolationReasonOf({ isolationReason: 'the reference passes the same tests isolated as in-process' })).toMatch(/same tests/);
  });

  it('stored results keep it (and older ones without it still load, as not recorded); a sealed shared verdict keeps it', async () => {
    const v = await auto.validate(task, WRONG);
    const summary = summariseVerdict(v);
    expect(summary.isolationReason).toBe(v.isolationReason);
    const store = Store.open(path.join(tmpDir('oc-isolation-reason-'), 'w.db'));
    try {
      const experiments = new ExperimentStore(store.db, store.path);
      experiments.create({
        id: 'r1',
        kind: 'run',
        manifestFile: 'm.jsonl',
        manifestHash: 'h',
        taskIds: [task.id],
        conditions: [{ id: 'c' }],
        backend: {},
        provenance: {},
        options: {},
      });
      const old: VerdictSummary = { status: 'failed', reason: 'r', passedTests: 0, totalTests: 5, durationMs: 1, isolation: 'in-process' };
      const result = { taskId: task.id, condition: 'c', candidates: [{ verdict: summary }, { verdict: old }] };
      experiments.saveResult('r1', { taskId: task.id, condition: 'c', status: 'ok', costUsd: null, result });
      const [back] = experiments.results<typeof result>('r1');
      expect(back!.result.candidates.map((c) => isolationReasonOf(c.verdict))).toEqual([v.isolationReason, ISOLATION_REASON_NOT_RECORDED]);
    } finally {
      store.close();
    }
    const secret = crypto.randomBytes(32);
    const shared = unsealText<Verdict>(secret, 'verdict', 'k', sealText(secret, 'verdict', 'k', v));
    expect(shared?.isolationReason).toBe(v.isolationReason);
  }, 60_000);
});
