// Round axis ticks (main/model/ticks.ts), shared by the UI's charts and the HTML report: steps of 1, 2 or 5 × 10^k,
// zero a tick whenever the domain spans it, labels that never read 0.05 where 0 belongs.

import { describe, expect, it } from 'vitest';
import { niceStep, niceTicks, tickDecimals, tickLabel } from '../../main/model/ticks.ts';

/** True when `step` is 1, 2 or 5 times a power of ten. */
function isRound(step: number): boolean {
  const mag = 10 ** Math.floor(Math.log10(step) + 1e-9);
  return [1, 2, 5, 10].some((m) => Math.abs(step / mag - m) < 1e-9);
}

describe('niceTicks', () => {
  it('puts 0 on a tick for a negative-to-positive effect range (−0.85 … 0.4)', () => {
    const t = niceTicks(-0.85, 0.4, { includeZero: true });
    expect(t.ticks).toContain(0);
    expect(t.min).toBeLessThanOrEqual(-0.85);
    expect(t.max).toBeGreaterThanOrEqual(0.4);
    expect(isRound(t.step)).toBe(true);
    expect(t.ticks.map((v) => tickLabel(v, t.step))).toEqual(['-1.0', '-0.5', '0.0', '0.5']);
    expect(t.ticks.map((v) => tickLabel(v, t.step))).not.toContain('0.05');
  });

  it('steps are 1, 2 or 5 × 10^k and evenly spaced over many ranges', () => {
    const ranges: [number, number][] = [
      [0, 1],
      [-0.85, 0.85],
      [-0.013, 0.027],
      [3, 97],
      [-1234, 56],
      [0.0001, 0.0009],
      [-0.4, -0.05],
    ];
    for (const [lo, hi] of ranges) {
      for (const count of [3, 5, 8]) {
        const t = niceTicks(lo, hi, { count, includeZero: true });
        expect(isRound(t.step), `${lo}..${hi} step ${t.step}`).toBe(true);
        expect(t.min).toBeLessThanOrEqual(Math.min(0, lo));
        expect(t.max).toBeGreaterThanOrEqual(Math.max(0, hi));
        expect(t.ticks).toContain(0);
        for (let i = 1; i < t.ticks.length; i++) expect(t.ticks[i]! - t.ticks[i - 1]!).toBeCloseTo(t.step, 9);
        expect(t.ticks.length).toBeLessThanOrEqual(2 * count + 2);
      }
    }
  });

  it('an all-negative range reaches 0 only when asked to', () => {
    const bars = niceTicks(-0.4, -0.15, { includeZero: true });
    expect(bars.max).toBe(0);
    expect(bars.ticks[bars.ticks.length - 1]).toBe(0);
    const free = niceTicks(-0.4, -0.15);
    expect(free.max).toBeLessThan(0);
    expect(free.min).toBeLessThanOrEqual(-0.4);
  });

  it('zero is exactly 0 (not -0 nor floating noise), and ticks carry no noise like 0.30000000000000004', () => {
    const t = niceTicks(-0.3, 0.3, { count: 6 });
    expect(t.ticks).toEqual([-0.3, -0.2, -0.1, 0, 0.1, 0.2, 0.3]);
    expect(Object.is(t.ticks[3], 0)).toBe(true);
  });

  it('a degenerate or non-finite range still gives a usable axis around its value', () => {
    const one = niceTicks(0.5, 0.5);
    expect(one.min).toBeLessThan(0.5);
    expect(one.max).toBeGreaterThan(0.5);
    const zero = niceTicks(0, 0, { includeZero: true });
    expect(zero.ticks).toContain(0);
    expect(zero.max).toBeGreaterThan(0);
    const nan = niceTicks(Number.NaN, Number.NaN);
    expect(nan.ticks.every(Number.isFinite)).toBe(true);
    expect(nan.ticks).toContain(0);
  });

  it('accepts the reversed bounds and the plain count argument the SVG charts used', () => {
    expect(niceTicks(1, 0, 5).ticks).toEqual([0, 0.2, 0.4, 0.6, 0.8, 1]);
  });
});

describe('tick labels', () => {
  it('have the decimals the step needs and never read -0', () => {
    expect(niceStep(0.17)).toBe(0.2);
    expect(niceStep(0.041)).toBe(0.05);
    expect(niceStep(3)).toBe(5);
    expect(tickDecimals(0.05)).toBe(2);
    expect(tickDecimals(0.2)).toBe(1);
    expect(tickDecimals(5)).toBe(0);
    expect(tickLabel(-0, 0.1)).toBe('0.0');
    expect(tickLabel(-0.0000001, 0.05)).toBe('0.00');
    expect(tickLabel(0.15, 0.05)).toBe('0.15');
    expect(tickLabel(20, 10)).toBe('20');
  });
});
