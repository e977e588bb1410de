// Results are analysed in task-id order, not in the order parallel workers happened to finish them: the
// bootstrap resamples by position, so completion order would change every interval from run to run.

import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadRun } from '../../main/experiment/loaded-run.ts';
import { bootstrapMean } from '../../main/stats/stats.ts';
import { ExperimentStore } from '../../main/store/experiments.ts';
import { Store } from '../../main/store/store.ts';
import { tmpDir } from '../helpers/tmp-repo.ts';

const store = Store.open(path.join(tmpDir('oc-order-'), 'w.db'));
afterAll(() => store.close());

const TASKS = ['t/c', 't/a', 't/b', 't/d'];
const CONDITIONS = [{ id: 'opencoder' }, { id: 'baseline-rag' }];
const value = (taskId: string, condition: string) => TASKS.indexOf(taskId) * 10 + CONDITIONS.findIndex((c) => c.id === condition);

function runWith(id: string, finishOrder: [string, string][]): ReturnType<typeof loadRun> {
  const experiments = new ExperimentStore(store.db, store.path);
  experiments.create({
    id,
    kind: 'run',
    manifestFile: 'm.jsonl',
    manifestHash: 'h',
    taskIds: TASKS,
    conditions: CONDITIONS,
    backend: {},
    provenance: {},
    options: {},
  });
  for (const [taskId, condition] of finishOrder) {
    experiments.saveResult(id, { taskId, condition, status: 'ok', costUsd: null, result: { taskId, condition, value: value(taskId, condition) } });
  }
  return loadRun(experiments, id);
}

describe('result order', () => {
  it('is the frozen task order, then the condition order, whatever order the results were stored in', () => {
    const all = TASKS.flatMap((t) => CONDITIONS.map((c) => [t, c.id] as [string, string]));
    const a = runWith('run-a', all);
    const b = runWith('run-b', [...all].reverse());
    const keys = (l: ReturnType<typeof loadRun>) => l.results.map((r) => `${r.taskId}|${r.condition}`);
    expect(keys(a)).toEqual(all.map(([t, c]) => `${t}|${c}`));
    expect(keys(b)).toEqual(keys(a));
    // So a seeded bootstrap over the per-task values gives the same interval for both.
    const values = (l: ReturnType<typeof loadRun>) =>
      l.results.filter((r) => r.condition === 'opencoder').map((r) => (r as unknown as { value: number }).value);
    expect(bootstrapMean(values(b), { seed: 7, resamples: 200 })).toEqual(bootstrapMean(values(a), { seed: 7, resamples: 200 }));
  });
});
