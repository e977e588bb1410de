// Degenerate factorial statistics are flagged and never marked significant; the factorial test is selectable.

import { describe, expect, it } from 'vitest';
import { factorialOf, summariseCondition } from '../../main/experiment/analysis.ts';
import type { LoadedRun } from '../../main/experiment/loaded-run.ts';
import { DEFAULT_BOOTSTRAP } from '../../main/stats/stats.ts';
import { cellId } from '../../main/pipeline/methods.ts';

const CELLS = Array.from({ length: 8 }, (_, i) => cellId({ api: (i & 4) !== 0, context: (i & 2) !== 0, similar: (i & 1) !== 0 }));

/** A factorial run over `tasks` tasks: pass@1 and uncertainty per (task, cell), candidates all in one group or not. */
function run(tasks: number, of: (t: number, cell: string) => { pass: number; u: number }, identical: boolean): LoadedRun {
  const results = [];
  for (let t = 0; t < tasks; t++) {
    for (const cell of CELLS) {
      const { pass, u } = of(t, cell);
      results.push({
        taskId: `t${t}`,
        condition: cell,
        n: 5,
        c: Math.round(pass * 5),
        generation: {
          backend: 'offline',
          costUsd: 0,
          inputTokens: 0,
          outputTokens: 0,
          uncertainty: { aggregate: u, entropy: null, consistency: null, variance: null },
        },
        candidates: Array.from({ length: 5 }, (_, i) => ({ group: identical ? 0 : i, passed: false, verdict: { status: 'failed' } })),
        selected: { correct: pass > 0.5, status: pass > 0.5 ? 'passed' : 'failed' },
        repairAttempted: false,
        repairRecovered: false,
        retrieval: { api: null },
      });
    }
  }
  return { run: { id: 'abl', conditions: CELLS.map((id) => ({ id })) }, results, failures: [] } as unknown as LoadedRun;
}

const similarOn = (cell: string) => cell.endsWith('S1');

describe('factorial degeneracy', () => {
  it('identical candidates make the uncertainty outcome degenerate: a large "effect" is flagged, not significant', () => {
    // The offline generator's case: five identical candidates, so u is a constant of each cell (0.77 with similar code).
    const l = run(12, (t, cell) => ({ pass: (t % 3 === 0 ? 1 : 0) * (similarOn(cell) ? 1 : 0.6), u: similarOn(cell) ? 0.77 : 0 }), true);
    const fa = factorialOf(l, DEFAULT_BOOTSTRAP)!;
    const u = fa.outcomes.find((o) => o.outcome === 'uncertainty')!;
    expect(u.degenerate).toMatch(/every candidate set is identical/);
    const sim = u.effects.find((e) => e.name === 'Similar code')!;
    expect(sim.value.estimate).toBeCloseTo(0.77, 12);
    expect(sim.pHolm).toBeLessThan(0.001);
    expect(sim.significant).toBe(false);
    expect(sim.degenerate).toBe(u.degenerate);
  });

  it('an effect on fewer than 3 informative tasks is flagged; with spread and enough tasks it can be significant', () => {
    const few = run(10, (t, cell) => ({ pass: t < 2 && similarOn(cell) ? 1 : 0, u: 0.1 * t }), false);
    const e = factorialOf(few, DEFAULT_BOOTSTRAP)!.outcomes[0]!.effects.find((x) => x.name === 'Similar code')!;
    expect(e.informativeTasks).toBe(2);
    expect(e.degenerate).toMatch(/rests on 2 informative tasks \(fewer than 3\)/);
    expect(e.significant).toBe(false);

    const real = run(16, (t, cell) => ({ pass: similarOn(cell) ? ((t % 3) + 3) / 5 : (t % 2) / 5, u: 0.1 + 0.01 * t }), false);
    const fa = factorialOf(real, DEFAULT_BOOTSTRAP)!;
    const sim = fa.outcomes[0]!.effects.find((x) => x.name === 'Similar code')!;
    expect(sim.degenerate).toBeNull();
    expect(sim.significant).toBe(true);
    expect(fa.test).toBe('t-test');
  });

  it('the sign-flip test can replace the t-test, and the analysis records which', () => {
    const real = run(16, (t, cell) => ({ pass: similarOn(cell) ? ((t % 3) + 3) / 5 : (t % 2) / 5, u: 0.1 + 0.01 * t }), false);
    const fa = factorialOf(real, DEFAULT_BOOTSTRAP, 'sign-flip')!;
    expect(fa.test).toBe('sign-flip');
    // 16 tasks, all contrasts positive: the exact sign-flip p is 2 / 2^16.
    expect(fa.outcomes[0]!.effects.find((x) => x.name === 'Similar code')!.p).toBe(2 / 2 ** 16);
  });
});

describe('condition warnings', () => {
  it('identical candidates and a constant uncertainty are said in plain words, and calibration is marked degenerate', () => {
    const l = run(6, (t) => ({ pass: t % 2, u: 0 }), true);
    const c = summariseCondition(l, { id: 'A1X1S1', label: 'API + Context + Similar', family: 'factorial' } as never, DEFAULT_BOOTSTRAP);
    expect(c.warnings.join('\n')).toMatch(/every task's candidates are identical/);
    expect(c.warnings.join('\n')).toMatch(/generation uncertainty is 0 on every task: its AUROC, AUPRC and ECE are not informative/);
    expect(c.uncertainty.degenerate).toBe('uncertainty is constant (0)');
    const fine = summariseCondition(
      run(6, (t) => ({ pass: t % 2, u: 0.1 * t }), false),
      { id: 'A1X1S1', label: 'x', family: 'factorial' } as never,
      DEFAULT_BOOTSTRAP,
    );
    expect(fine.warnings).toEqual([]);
    expect(fine.uncertainty.degenerate).toBeNull();
  });
});
