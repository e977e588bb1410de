// @vitest-environment happy-dom
// The Experiment view's conditions table counts flaky and in-process verdicts apart per condition, as the reports
// do: raw-candidate verdicts of the kind out of all, the share decided isolated, and the rest in the cell's title.
import { act } from 'react';
import { describe, expect, it } from 'vitest';
import { ConditionsTable } from '../../renderer/src/views/experiment/Analysis.tsx';
import { buildReportFixture } from '../helpers/report-fixture.ts';
import { mountPerTest } from './dom.ts';

const mount = mountPerTest();
const { $, q } = mount;

describe('conditions table: verdicts counted apart', () => {
  const model = buildReportFixture();
  const row = (condition: string) => q('[data-testid=conditions-table] tbody tr')[model.conditions.findIndex((c) => c.condition === condition)]!;
  const cell = (condition: string, testId: string) => row(condition).querySelector<HTMLElement>(`[data-testid=${testId}]`)!;

  it('shows in-process raw-candidate verdicts of all, the share decided isolated, and the selected outputs and tasks in the title', () => {
    act(() => mount.root.render(<ConditionsTable model={model} />));
    expect($('[data-testid=conditions-table] thead')!.textContent).toContain('In-process · isolated');
    expect(cell('baseline-rag', 'in-process-verdicts').textContent).toBe('2 / 30 · 93.3 %');
    expect(cell('baseline-rag', 'in-process-verdicts').title).toBe(
      '2 of 30 candidate verdicts and 1 of 6 selected outputs in-process, on 1 task: repo-a/fmt_date — the candidate ran inside the test process, where hardening is a best effort, never a guarantee (verdicts stored before isolation was recorded count here)',
    );
    expect(cell('rag-verify-repair', 'in-process-verdicts').textContent).toBe('0 / 30 · 100.0 %');
    expect(cell('rag-verify-repair', 'in-process-verdicts').title).toMatch(/^0 of 30 candidate verdicts and 0 of 6 selected outputs in-process — /);
    // OpenCoder: one raw candidate, and a selected repair that no raw-candidate count shows.
    expect(cell('opencoder', 'in-process-verdicts').textContent).toBe('1 / 30 · 96.7 %');
    expect(cell('opencoder', 'in-process-verdicts').title).toMatch(
      /^1 of 30 candidate verdicts and 1 of 6 selected outputs in-process, on 2 tasks: repo-a\/fmt_date, repo-c\/json "merge" — /,
    );
    // The ablation run reads as stored before isolation was recorded: all in-process, none isolated.
    expect(cell('f111', 'in-process-verdicts').textContent).toBe('20 / 20 · 0.0 %');
    expect(cell('f111', 'in-process-verdicts').title).toMatch(/^20 of 20 candidate verdicts and 4 of 4 selected outputs in-process, on 4 tasks: /);
  });

  it('shows flaky raw-candidate verdicts the same way', () => {
    act(() => mount.root.render(<ConditionsTable model={model} />));
    expect(cell('baseline-rag', 'flaky-verdicts').textContent).toBe('1 / 30');
    expect(cell('baseline-rag', 'flaky-verdicts').title).toMatch(
      /^1 of 30 candidate verdicts and 1 of 6 selected outputs flaky, on 1 task: repo-a\/parse-args — /,
    );
    expect(cell('opencoder', 'flaky-verdicts').textContent).toBe('3 / 30');
    expect(cell('rag-verify-repair', 'flaky-verdicts').textContent).toBe('0 / 30');
  });

  it('shows none when every verdict was isolated', () => {
    const clean = buildReportFixture({ inProcess: false, flaky: false });
    act(() => mount.root.render(<ConditionsTable model={clean} />));
    const cells = q('[data-testid=in-process-verdicts]');
    expect(cells).toHaveLength(clean.conditions.length);
    for (const c of cells) expect(c.textContent).toMatch(/^0 \/ \d+ · 100\.0 %$/);
    expect(q('[data-testid=in-process-verdicts] .text-warn')).toHaveLength(0);
  });
});
