import { describe, expect, it } from 'vitest';
import { auprc, auroc, ece, fitPlatt, quantile, setPrf } from '../../main/stats/metrics.ts';

describe('auroc', () => {
  it('is 1 for perfect ranking, 0 for inverted, 0.5 for ties', () => {
    expect(auroc([0.1, 0.2, 0.8, 0.9], [false, false, true, true])).toBe(1);
    expect(auroc([0.9, 0.8, 0.2, 0.1], [false, false, true, true])).toBe(0);
    expect(auroc([0.5, 0.5, 0.5, 0.5], [false, true, false, true])).toBe(0.5);
  });
  it('matches a hand count with ties', () => {
    // pairs (pos, neg): (0.8,0.1)=1 (0.8,0.8)=.5 (0.4,0.1)=1 (0.4,0.8)=0 → 2.5/4
    expect(auroc([0.1, 0.8, 0.8, 0.4], [false, false, true, true])).toBeCloseTo(0.625, 12);
  });
  it('is NaN with one class', () => expect(auroc([0.1, 0.2], [true, true])).toBeNaN());
});

describe('auprc', () => {
  it('is average precision', () => {
    // ranked: 0.9 T, 0.8 F, 0.7 T → AP = (1/2)·1 + (1/2)·(2/3)
    expect(auprc([0.9, 0.8, 0.7], [true, false, true])).toBeCloseTo(0.5 + 1 / 3, 12);
    expect(auprc([0.9, 0.1], [true, false])).toBe(1);
  });
});

describe('ece', () => {
  it('is 0 for perfectly calibrated bins and |p − rate| otherwise', () => {
    expect(ece([0.25, 0.25, 0.25, 0.25], [true, false, false, false], 4).ece).toBeCloseTo(0, 12);
    // one bin [0.9,1]: mean 0.95, observed 0.5 → 0.45
    expect(ece([0.95, 0.95], [true, false], 10).ece).toBeCloseTo(0.45, 12);
    expect(ece([1], [true], 10).bins[9]!.count).toBe(1);
  });
  it('rejects probabilities outside [0, 1]', () => expect(() => ece([1.2], [true])).toThrow(/outside/));
});

describe('fitPlatt', () => {
  it('recovers an increasing map for a score that predicts the label', () => {
    const x = [0.1, 0.2, 0.3, 0.6, 0.7, 0.9, 0.4, 0.5];
    const y = [false, false, false, true, true, true, false, true];
    const f = fitPlatt(x, y);
    expect(f.a).toBeGreaterThan(0);
    expect(f.predict(0.9)).toBeGreaterThan(f.predict(0.1));
  });
});

describe('setPrf and quantile', () => {
  it('computes set precision/recall/F1/exact', () => {
    const r = setPrf(new Set(['a', 'b', 'c']), new Set(['a', 'd']));
    expect(r.precision).toBeCloseTo(1 / 3);
    expect(r.recall).toBeCloseTo(1 / 2);
    expect(r.f1).toBeCloseTo(0.4);
    expect(r.exact).toBe(false);
    expect(setPrf(new Set(), new Set()).exact).toBe(true);
  });
  it('interpolates quantiles', () => {
    expect(quantile([1, 2, 3, 4], 0.5)).toBe(2.5);
    expect(quantile([5], 0.95)).toBe(5);
  });
});
