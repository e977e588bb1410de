// @vitest-environment happy-dom
import { act } from 'react';
import { describe, expect, it } from 'vitest';
import type { ConditionSummary, ReportModel, TaskResult } from '../../contract/index.ts';
import { ApiChart } from '../../renderer/src/views/experiment/Charts.tsx';
import { ResultView } from '../../renderer/src/views/task/ResultView.tsx';
import { mountPerTest } from './dom.ts';
import { API_SCORE, taskResult } from './fixtures.ts';

const mount = mountPerTest();

const { $, q } = mount;
const text = (sel: string) => $(sel)?.textContent ?? null;

function withApi(api: TaskResult['retrieval']['api']): TaskResult {
  const r = taskResult();
  return { ...r, retrieval: { ...r.retrieval, api } };
}

function openApiTab(result: TaskResult) {
  act(() => mount.root.render(<ResultView results={[result]} />));
  act(() => $('[data-testid=tab-api]')!.click());
}

describe('API set panel', () => {
  it('lists, per protocol, the predicted set next to the truth: hits, misses and extras with reasons, u and p', () => {
    openApiTab(taskResult());
    expect(text('[data-testid=stat-api-repository] dd')).toBe('0.400');
    expect(text('[data-testid=stat-api-task-view] dd')).toBe('0.500');

    const repo = $('[data-testid=api-items-repository]')!;
    expect(repo.dataset.scored).toBe('true');
    expect(repo.dataset.matching).toBe('strict');
    expect(repo.textContent).toContain('strict module:qualname keys');
    const rows = (panel: HTMLElement, status: string) => Array.from(panel.querySelectorAll<HTMLElement>(`[data-testid=api-item-${status}]`));
    expect(rows(repo, 'hit').map((e) => e.dataset.key)).toEqual(['pkg.money:Money.amount']);
    expect(rows(repo, 'miss').map((e) => e.dataset.key)).toEqual(['pkg.money:Money.__sub__']);
    expect(rows(repo, 'extra').map((e) => e.dataset.key)).toEqual(['pkg.pricing:add_tax', 'pkg.pricing:apply_rule']);
    // Every row says why, in the order the score stored them per group.
    expect(rows(repo, 'hit')[0]!.querySelector('[data-testid=api-item-reason]')!.textContent).toBe('step 1, rank 1: kept: fused rank 1');
    expect(rows(repo, 'miss')[0]!.querySelector('[data-testid=api-item-reason]')!.textContent).toBe(
      "not retrieved in any step (truth from the reference's uses)",
    );
    expect(rows(repo, 'extra')[0]!.querySelector('[data-testid=api-item-reason]')!.textContent).toMatch(/^step 1, rank 2: duplicate/);
    // u when known, no p where the selector did not run, nothing when neither is known.
    expect(rows(repo, 'hit')[0]!.querySelector('[data-testid=api-item-signals]')!.textContent).toBe('u 0.30');
    expect(rows(repo, 'extra')[1]!.querySelector('[data-testid=api-item-signals]')).toBeNull();
    const score = repo.querySelector('[data-testid=api-set-score]')!.textContent;
    expect(score).toContain('predicted 3');
    expect(score).toContain('truth 2');
    expect(score).toContain('F1 0.400');

    const view = $('[data-testid=api-items-task-view]')!;
    expect(view.dataset.matching).toBe('bare');
    expect(view.textContent).toContain('bare names, case-insensitive');
    expect(rows(view, 'hit').map((e) => e.dataset.key)).toEqual(['pkg.money:Money.amount']);
    expect(rows(view, 'extra').map((e) => e.dataset.key)).toEqual(['pkg.money:_round']);
    const miss = rows(view, 'miss')[0]!;
    expect(miss.querySelector('[data-testid=api-item-reason]')!.textContent).toBe('retrieved but dropped — step 2, rank 4: below the selector threshold');
    expect(miss.querySelector('[data-testid=api-item-signals]')!.textContent).toBe('u 0.62 · p 0.21');
  });

  it('tolerates a result stored before the two protocols: figures only, no task-view score', () => {
    const old = { truth: 2, predicted: 3, precision: 0.33, recall: 0.5, f1: 0.4, exact: false, count: 'over' } as unknown as TaskResult['retrieval']['api'];
    openApiTab(withApi(old));
    expect(text('[data-testid=stat-api-repository] dd')).toBe('0.400');
    expect(text('[data-testid=stat-api-task-view] dd')).toBe('—');
    expect($('[data-testid=api-items-repository] [data-testid=api-set-no-items]')).not.toBeNull();
    expect(q('[data-testid^=api-item-]').filter((e) => e.dataset.status)).toHaveLength(0);
    expect($('[data-testid=api-items-task-view]')!.dataset.scored).toBe('false');
    expect($('[data-testid=api-items-task-view] [data-testid=api-set-none]')).not.toBeNull();
  });

  it('an empty truth: not scored under the repository protocol, perfect under task-view when nothing is predicted', () => {
    const empty = { precision: 1, recall: 1, f1: 1, exact: true, count: 'exact' as const };
    openApiTab(
      withApi({
        ...API_SCORE,
        ...empty,
        truth: 0,
        predicted: 0,
        strict: empty,
        bare: empty,
        items: [],
        taskView: { ...API_SCORE.taskView!, ...empty, truth: 0, predicted: 0, strict: empty, bare: empty, items: [] },
      }),
    );
    expect(text('[data-testid=stat-api-repository] dd')).toBe('—');
    expect(text('[data-testid=stat-api-task-view] dd')).toBe('1.000');
    expect($('[data-testid=api-items-repository] [data-testid=api-set-empty-truth]')!.textContent).toMatch(/leaves this task out/);
    expect($('[data-testid=api-items-task-view] [data-testid=api-set-empty-truth]')!.textContent).toMatch(/empty prediction scores 1/);
    expect($('[data-testid=api-items-task-view] [data-testid=api-set-no-items]')).toBeNull();
  });

  it('says why there is no API set when the result has no score', () => {
    openApiTab(withApi(null));
    expect($('[data-testid=api-set-empty]')).not.toBeNull();
    expect(text('[data-testid=stat-api-repository] dd')).toBe('—');
  });
});

describe('API chart', () => {
  const agg = (protocol: 'repository' | 'task-view', tasks: number, f1: number): NonNullable<ConditionSummary['api']> => ({
    protocol,
    matching: protocol === 'repository' ? 'strict' : 'bare',
    over: protocol === 'repository' ? 'tasks-with-truth' : 'all-tasks',
    tasks,
    emptyTruth: protocol === 'repository' ? 0 : 134,
    precision: f1,
    recall: f1,
    f1,
    exact: 0.1,
    count: { over: 1, exact: 1, under: tasks - 2 },
  });
  const model = (api: ConditionSummary['api'], apiTaskView: ConditionSummary['apiTaskView']): ReportModel =>
    ({ runs: [], conditions: [{ runId: 'r', condition: 'opencoder', label: 'OpenCoder', api, apiTaskView } as ConditionSummary] }) as unknown as ReportModel;

  it('draws one chart per protocol, each captioned with its matching and the tasks it is over', () => {
    act(() => mount.root.render(<ApiChart model={model(agg('repository', 42, 0.4), agg('task-view', 176, 0.6))} />));
    expect(text('[data-testid=chart-api] .chart-title')).toBe('API retrieval — repository protocol');
    expect(text('[data-testid=chart-api] .chart-sub')).toMatch(/^repository · strict keys · 42 tasks with truth · /);
    expect(text('[data-testid=chart-api-task-view] .chart-title')).toBe('API retrieval — task-view protocol');
    expect(text('[data-testid=chart-api-task-view] .chart-sub')).toMatch(/^task-view · bare names · 176 tasks · .*empty truths included/);
  });

  it('keeps the repository chart for results stored before the task-view protocol, and says when nothing is scored', () => {
    act(() => mount.root.render(<ApiChart model={model(agg('repository', 42, 0.4), null)} />));
    expect($('[data-testid=chart-api]')).not.toBeNull();
    expect($('[data-testid=chart-api-task-view]')).toBeNull();
    expect($('[data-testid=chart-api-task-view-empty]')).not.toBeNull();
    act(() => mount.root.render(<ApiChart model={model(null, null)} />));
    expect($('[data-testid=api-empty]')).not.toBeNull();
  });
});
