// @vitest-environment happy-dom
// The task view's candidates say where each verdict was decided: an `isolated` / `in-process` badge (in-process in a
// warning tone) with the reason as its tooltip, and the reason in the opened card, read from the structured fields.
// A verdict that does not say where gets no badge, and its card says isolation was not recorded.
import { act } from 'react';
import { describe, expect, it } from 'vitest';
import type { TaskResult } from '../../contract/index.ts';
import { ResultView } from '../../renderer/src/views/task/ResultView.tsx';
import { mountPerTest } from './dom.ts';
import { taskResult } from './fixtures.ts';

const mount = mountPerTest();
const { $, q } = mount;

const ISOLATED = 'the reference passes every test the task names isolated';
const IN_PROCESS = 'isolated, the reference was judged failed (CrossingError: a value that is not data)';

/** Candidates 1–2 isolated, 3 in-process, 4 isolated without a reason (stored before it was kept), 5 saying nothing. */
function withIsolation(): TaskResult {
  const r = taskResult();
  const over = [
    { isolation: 'isolated' as const, isolationReason: ISOLATED },
    { isolation: 'isolated' as const, isolationReason: ISOLATED },
    { isolation: 'in-process' as const, isolationReason: IN_PROCESS },
    { isolation: 'isolated' as const },
    {},
  ];
  return { ...r, candidates: r.candidates.map((c, i) => ({ ...c, verdict: { ...c.verdict, ...over[i] } })) };
}

function openCandidates(result: TaskResult) {
  act(() => mount.root.render(<ResultView results={[result]} />));
  act(() => $('[data-testid=tab-candidates]')!.click());
}

describe('candidates: where each verdict was decided', () => {
  it('badges each chip isolated or in-process (a warning), the reason as its tooltip; none where the verdict does not say', () => {
    openCandidates(withIsolation());
    const badges = q('[data-testid=candidate-chip]').map((c) => c.querySelector<HTMLElement>('[data-testid=candidate-isolation]'));
    expect(badges.map((b) => b?.textContent ?? null)).toEqual(['isolated', 'isolated', 'in-process', 'isolated', null]);
    expect(badges[0]!.title).toBe(`isolated: ${ISOLATED}`);
    expect(badges[2]!.title).toBe(`in-process: ${IN_PROCESS}`);
    expect(badges[2]!.className).toContain('badge-warn');
    expect(badges[0]!.className).not.toContain('badge-warn');
    expect(badges[3]!.title).toMatch(/^isolated; why: not recorded/);
  });

  it('the opened card says the reason; one without isolation says it was not recorded', () => {
    openCandidates(withIsolation());
    const chips = q('[data-testid=candidate-chip]');
    act(() => chips[2]!.click());
    const detail = $('[data-testid=candidate] [data-testid=candidate-isolation-detail]')!;
    expect(detail.dataset.isolation).toBe('in-process');
    expect(detail.querySelector('[data-testid=candidate-isolation]')!.textContent).toBe('in-process');
    expect(detail.querySelector('[data-testid=candidate-isolation-reason]')!.textContent).toBe(IN_PROCESS);
    act(() => q('[data-testid=candidate-chip]')[4]!.click());
    const none = $('[data-testid=candidate] [data-testid=candidate-isolation-detail]')!;
    expect(none.dataset.isolation).toBe('unknown');
    expect(none.textContent).toBe('Isolation not recorded.');
    expect($('[data-testid=candidate] [data-testid=candidate-isolation]')).toBeNull();
  });
});
