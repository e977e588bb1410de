// @vitest-environment happy-dom
import { act } from 'react';
import { describe, expect, it } from 'vitest';
import { EvidenceFusion } from '../../renderer/src/views/task/EvidenceFusion.tsx';
import { ResultView } from '../../renderer/src/views/task/ResultView.tsx';
import { mountPerTest } from './dom.ts';
import { EVIDENCE, taskResult } from './fixtures.ts';

const mount = mountPerTest();

const { q } = mount;
const mouse = (el: Element, type: 'mouseover' | 'mouseout') => el.dispatchEvent(new MouseEvent(type, { bubbles: true }));

describe('evidence-fusion view', () => {
  it('lists every item in its source column with r, w, u, γ and its kept / dropped reason', () => {
    act(() => mount.root.render(<EvidenceFusion detail={taskResult().detail!} sourceUncertainty={{ api: 0.27, context: 0.39, similar: 0.35 }} />));
    const items = q('[data-testid=evidence-item]');
    expect(items).toHaveLength(EVIDENCE.length);
    const api = q('[data-testid=evidence-column-api] [data-testid=evidence-item]');
    const context = q('[data-testid=evidence-column-context] [data-testid=evidence-item]');
    const similar = q('[data-testid=evidence-column-similar] [data-testid=evidence-item]');
    expect([api.length, context.length, similar.length]).toEqual([4, 2, 2]);

    const kept = items.filter((e) => e.dataset.kept === 'true');
    const dropped = items.filter((e) => e.dataset.kept === 'false');
    expect(kept).toHaveLength(3);
    expect(dropped).toHaveLength(5);
    expect(dropped.map((e) => e.dataset.stage).sort()).toEqual(['below-keep', 'cut', 'cut', 'duplicate', 'refined']);

    const first = api[0]!;
    expect(first.textContent).toContain('r 0.50');
    expect(first.textContent).toContain('w 0.33');
    expect(first.textContent).toContain('u 0.30');
    expect(first.textContent).toContain('γ 0.150');
    expect(first.querySelector('[data-testid=evidence-reason]')!.textContent).toBe('kept: fused rank 1');
    const dup = api.find((e) => e.dataset.stage === 'duplicate')!;
    expect(dup.querySelector('[data-testid=evidence-reason]')!.textContent).toMatch(/^duplicate of the same item found by similar/);
    expect(mount.container.querySelector('[data-testid=evidence-column-api]')!.textContent).toContain('ū 0.27');
  });

  it('says what the leakage audit found, marks a dropped suspect as a leak, and says when it did not run', () => {
    const detail = taskResult().detail!;
    const rows = detail.evidence.map((e, i) =>
      i === detail.evidence.length - 1 ? { ...e, kept: false, fusedRank: null, reason: 'leak suspect (20+ tokens shared with the reference): dropped' } : e,
    );
    act(() => mount.root.render(<EvidenceFusion detail={{ ...detail, evidence: rows }} leak={{ policy: 'drop', checked: 7, suspects: 1 }} />));
    const line = mount.container.querySelector<HTMLElement>('[data-testid=leak-audit]')!;
    expect(line.dataset.suspects).toBe('1');
    expect(line.textContent).toBe(
      "Leak audit (drop): 1 leak suspect among 7 items checked against the reference and the task's tests — dropped before the prompt (marked below).",
    );
    const leaked = q('[data-testid=evidence-item]').filter((e) => e.dataset.stage === 'leak');
    expect(leaked).toHaveLength(1);
    expect(leaked[0]!.textContent).toContain('leak suspect');
    act(() => mount.root.render(<EvidenceFusion detail={detail} />));
    expect(mount.container.querySelector('[data-testid=leak-audit]')!.textContent).toMatch(/^Leak audit: not run for this result/);
  });

  it('shows the fused list in rank order and each kept item’s fused rank', () => {
    act(() => mount.root.render(<EvidenceFusion detail={taskResult().detail!} />));
    const fused = q('[data-testid=fused-item]');
    expect(fused.map((e) => [e.dataset.fusedRank, e.dataset.source])).toEqual([
      ['0', 'api'],
      ['1', 'context'],
      ['2', 'similar'],
    ]);
    expect(fused[1]!.textContent).toContain('class Money');
    const pills = q('[data-testid=evidence-item] [data-testid=evidence-fused-rank]').map((e) => e.textContent);
    expect(pills.sort()).toEqual(['→ 1', '→ 2', '→ 3']);
    const withRank = q('[data-testid=evidence-item]').filter((e) => e.dataset.fusedRank !== '');
    expect(withRank.map((e) => e.dataset.fusedRank).sort()).toEqual(['0', '1', '2']);
  });

  it('links an item and its fused rank both ways, and marks the same unit found elsewhere', () => {
    act(() => mount.root.render(<EvidenceFusion detail={taskResult().detail!} />));
    const fusedSimilar = q('[data-testid=fused-item]').find((e) => e.dataset.fusedRank === '2')!;
    void act(() => mouse(fusedSimilar, 'mouseover'));
    const similarItem = q('[data-testid=evidence-column-similar] [data-testid=evidence-item]').find((e) => e.dataset.fusedRank === '2')!;
    expect(similarItem.className).toContain('ev-active');
    // the API item for the same unit (unit:2), dropped as a duplicate, is marked as the same item
    const apiDup = q('[data-testid=evidence-column-api] [data-testid=evidence-item]').find((e) => e.dataset.stage === 'duplicate')!;
    expect(apiDup.className).toContain('ev-same');
    void act(() => mouse(fusedSimilar, 'mouseout'));
    expect(similarItem.className).not.toContain('ev-active');

    const contextItem = q('[data-testid=evidence-column-context] [data-testid=evidence-item]')[0]!;
    void act(() => mouse(contextItem, 'mouseover'));
    const fusedContext = q('[data-testid=fused-item]').find((e) => e.dataset.fusedRank === '1')!;
    expect(fusedContext.className).toContain('ev-active');
  });

  it('pins an item to show its signals and text, and filters to fused items', () => {
    act(() => mount.root.render(<EvidenceFusion detail={taskResult().detail!} />));
    act(() => q('[data-testid=evidence-item]')[0]!.click());
    const detail = mount.container.querySelector('[data-testid=evidence-detail]')!;
    expect(detail.textContent).toContain('pkg.money.Money.amount');
    expect(detail.querySelectorAll('[data-testid=evidence-signals] li')).toHaveLength(2);
    expect(detail.textContent).toContain('def amount(self) -> Decimal');

    act(() => (mount.container.querySelector('[data-testid=evidence-filter-fused]') as HTMLElement).click());
    expect(q('[data-testid=evidence-item]')).toHaveLength(3);
    act(() => (mount.container.querySelector('[data-testid=evidence-filter-all]') as HTMLElement).click());
    expect(q('[data-testid=evidence-item]')).toHaveLength(EVIDENCE.length);
  });

  it('says so when nothing was retrieved and when a source was off', () => {
    act(() => mount.root.render(<EvidenceFusion detail={{ steps: [], evidence: [] }} />));
    expect(mount.container.querySelector('[data-testid=evidence-empty]')).not.toBeNull();
    const noApi = EVIDENCE.filter((e) => e.source !== 'api');
    act(() =>
      mount.root.render(
        <EvidenceFusion detail={{ steps: taskResult().detail!.steps, evidence: noApi }} sourcesOn={{ api: false, context: true, similar: true }} />,
      ),
    );
    expect(mount.container.querySelector('[data-testid=evidence-column-api]')!.textContent).toContain('Switched off');
  });

  it('shows each name with its last segment whole and the full name in the tooltip', () => {
    act(() => mount.root.render(<EvidenceFusion detail={taskResult().detail!} />));
    const names = q('[data-testid=evidence-name]');
    expect(names.length).toBeGreaterThan(0);
    for (const n of names) {
      const full = n.getAttribute('title')!;
      expect(n.querySelector('.ev-title-last')!.textContent).toBe(full.includes('.') && !/\s/.test(full) ? full.split('.').pop() : full);
    }
  });
});

describe('task result view', () => {
  it('shows verdict badges, the selection, and repairs as diffs against what they repaired', () => {
    act(() => mount.root.render(<ResultView results={[taskResult()]} />));
    expect(mount.container.querySelector('[data-testid=selected-verdict]')!.textContent).toBe('selected output correct');
    act(() => (mount.container.querySelector('[data-testid=tab-candidates]') as HTMLElement).click());
    const badges = q('[data-testid=verdict-badge]');
    expect(badges.map((b) => b.textContent)).toEqual(['failed', 'failed', 'failed', 'failed', 'failed']);
    expect(q('[data-testid=test-result]').length).toBeGreaterThan(0);
    expect(mount.container.querySelector('[data-testid=static-findings]')!.textContent).toContain("argument 'percent' is unused");

    act(() => (mount.container.querySelector('[data-testid=tab-repairs]') as HTMLElement).click());
    const rounds = q('[data-testid=repair-round]');
    expect(rounds.map((r) => r.dataset.passed)).toEqual(['false', 'true']);
    // round 1 against candidate 1: `return amount` removed, two lines added
    const d1 = rounds[0]!;
    expect(d1.querySelector('[data-testid=diff-stats]')!.textContent).toBe('+2 −1');
    expect(d1.querySelectorAll('[data-testid=diff-line-del]')[0]!.textContent).toContain('return amount');
    // round 2 against round 1: the range check added
    expect(rounds[1]!.querySelector('[data-testid=diff-stats]')!.textContent).toBe('+2 −0');

    act(() => (mount.container.querySelector('[data-testid=tab-uncertainty]') as HTMLElement).click());
    expect(mount.container.querySelector('[data-testid=ubar-variance]')!.textContent).toContain('not measurable');
    expect(mount.container.querySelector('[data-testid=ubar-api]')!.textContent).toContain('0.270');

    act(() => (mount.container.querySelector('[data-testid=tab-decomposition]') as HTMLElement).click());
    expect(q('[data-testid=decomposition-step]')).toHaveLength(2);
    expect(mount.container.querySelector('[data-testid=decomposition-step] [data-testid=intent-api]')!.textContent).toContain('0.50');
  });

  it('explains a result without stored detail', () => {
    act(() => mount.root.render(<ResultView results={[taskResult({ detail: undefined })]} />));
    expect(mount.container.querySelector('[data-testid=no-detail]')).not.toBeNull();
  });
});
