import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_BOOTSTRAP,
  bootstrap,
  bootstrapMean,
  cellIndex,
  factorialEffects,
  holm,
  makeRng,
  mcnemarExact,
  oneSampleT,
  pairedBootstrapDiff,
  pairedCounts,
  passAtK,
  signFlipTest,
  type BootstrapOptions,
} from '../../main/stats/stats.ts';

// Reference values from scipy/statsmodels and an independent Python bootstrap: scripts/stats-fixtures.py.
const FIXTURES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'stats');

/** Reads a fixture; the script writes NaN as null. */
function fixture<T>(name: string): T {
  return JSON.parse(fs.readFileSync(path.join(FIXTURES, name), 'utf8'), (_k, v) => (v === null ? Number.NaN : v)) as T;
}

/** |actual − expected| ≤ tol (relative to |expected| when rel), NaN matching NaN. */
function expectClose(actual: number, expected: number, tol: number, what: string, rel = false): void {
  if (Number.isNaN(expected)) {
    expect(actual, what).toBeNaN();
    return;
  }
  const bound = rel ? tol * Math.max(Math.abs(expected), Number.MIN_VALUE) : tol;
  expect(Math.abs(actual - expected), `${what}: got ${actual}, expected ${expected}`).toBeLessThanOrEqual(bound);
}

interface IntervalFixture {
  estimate: number;
  lo: number;
  hi: number;
}

describe('passAtK', () => {
  const fx = fixture<{ cases: { n: number; c: number; k: number; expected: number }[] }>('pass-at-k.json');

  it('matches exact big-integer binomial ratios', () => {
    expect(fx.cases.length).toBeGreaterThan(20);
    for (const { n, c, k, expected } of fx.cases) expectClose(passAtK(n, c, k), expected, 1e-12, `passAtK(${n}, ${c}, ${k})`);
  });

  it('is exactly 0 without a correct sample and exactly 1 when every k-subset has one', () => {
    expect(passAtK(10, 0, 3)).toBe(0);
    expect(passAtK(10, 8, 3)).toBe(1);
    expect(passAtK(5, 5, 5)).toBe(1);
    expect(passAtK(200, 200, 1)).toBe(1);
  });

  it('is c/n for k = 1', () => {
    expect(passAtK(7, 3, 1)).toBeCloseTo(3 / 7, 15);
  });

  it('rejects invalid arguments with clear messages', () => {
    expect(() => passAtK(10, 3, 0)).toThrow(/k must be in \[1, n\].*k=0/);
    expect(() => passAtK(10, 3, 11)).toThrow(/k must be in \[1, n\].*k=11/);
    expect(() => passAtK(10, -1, 1)).toThrow(/c must be in \[0, n\].*c=-1/);
    expect(() => passAtK(10, 11, 1)).toThrow(/c must be in \[0, n\].*c=11/);
    expect(() => passAtK(10, 2.5, 1)).toThrow(/integers/);
    expect(() => passAtK(10.5, 2, 1)).toThrow(/integers/);
    expect(() => passAtK(10, 2, Number.NaN)).toThrow(RangeError);
  });
});

describe('mcnemarExact', () => {
  const fx = fixture<{ published: { wins: number; losses: number; ties: number; p: number }; cases: [number, number, number][] }>('mcnemar.json');

  it('reproduces the published W/L/T = 8/1/23 case', () => {
    const { wins, losses, p } = fx.published;
    expect(p).toBeCloseTo(0.0390625, 12);
    expectClose(mcnemarExact(wins, losses), 0.0390625, 1e-9, 'McNemar 8/1');
  });

  it('matches scipy.stats.binomtest over a grid', () => {
    expect(fx.cases.length).toBeGreaterThan(80);
    for (const [w, l, p] of fx.cases) expectClose(mcnemarExact(w, l), p, 1e-12, `mcnemarExact(${w}, ${l})`);
  });

  it('is 1 without discordant pairs and symmetric', () => {
    expect(mcnemarExact(0, 0)).toBe(1);
    expect(mcnemarExact(3, 11)).toBe(mcnemarExact(11, 3));
  });

  it('rejects non-count arguments', () => {
    expect(() => mcnemarExact(-1, 2)).toThrow(/non-negative integers/);
    expect(() => mcnemarExact(1.5, 2)).toThrow(RangeError);
  });
});

describe('pairedCounts', () => {
  it('counts wins, losses and ties', () => {
    expect(pairedCounts([true, true, false, false, true], [false, true, true, false, false])).toEqual({ wins: 2, losses: 1, ties: 2 });
    expect(pairedCounts([], [])).toEqual({ wins: 0, losses: 0, ties: 0 });
  });
  it('throws when the arms differ in length', () => {
    expect(() => pairedCounts([true], [true, false])).toThrow(/differ in length \(1 vs 2\)/);
  });
});

describe('holm', () => {
  const fx = fixture<{ cases: { p: number[]; expected: number[] }[] }>('holm.json');

  it('matches statsmodels multipletests(method="holm")', () => {
    for (const { p, expected } of fx.cases) {
      const got = holm(p);
      expect(got).toHaveLength(expected.length);
      got.forEach((g, i) => expectClose(g, expected[i]!, 1e-12, `holm([${p}])[${i}]`));
    }
  });

  it('keeps NaN in place without counting it', () => {
    const got = holm([0.02, Number.NaN, 0.01]);
    expect(got[1]).toBeNaN();
    expect(got[0]).toBeCloseTo(0.02, 15);
    expect(got[2]).toBeCloseTo(0.02, 15);
    expect(holm([])).toEqual([]);
  });

  it('is monotone in the order of the raw p-values and never below them', () => {
    const p = [0.04, 0.001, 0.3, 0.012, 0.012, 0.9];
    const adj = holm(p);
    const order = p.map((_, i) => i).sort((i, j) => p[i]! - p[j]!);
    for (let r = 1; r < order.length; r++) expect(adj[order[r]!]!).toBeGreaterThanOrEqual(adj[order[r - 1]!]!);
    adj.forEach((a, i) => expect(a).toBeGreaterThanOrEqual(p[i]!));
    adj.forEach((a) => expect(a).toBeLessThanOrEqual(1));
  });

  it('rejects p-values outside [0, 1]', () => {
    expect(() => holm([0.1, 1.5])).toThrow(/1\.5 at index 1 outside \[0, 1\]/);
  });
});

describe('oneSampleT', () => {
  const fx = fixture<{ cases: { values: number[]; t: number; df: number; p: number; mean: number }[] }>('ttest.json');

  it('matches scipy.stats.ttest_1samp', () => {
    for (const c of fx.cases) {
      const r = oneSampleT(c.values);
      expect(r.df).toBe(c.df);
      expectClose(r.mean, c.mean, 1e-12, `mean of [${c.values}]`);
      expectClose(r.t, c.t, 1e-12, `t of [${c.values}]`, true);
      expectClose(r.p, c.p, 1e-12, `p of [${c.values}]`, true);
    }
  });

  it('decides all-equal samples directly', () => {
    expect(oneSampleT([0, 0, 0])).toEqual({ t: 0, df: 2, p: 1, mean: 0 });
    expect(oneSampleT([0.25, 0.25, 0.25])).toEqual({ t: Infinity, df: 2, p: 0, mean: 0.25 });
    expect(oneSampleT([-1, -1])).toEqual({ t: -Infinity, df: 1, p: 0, mean: -1 });
  });

  it('is NaN with fewer than two values', () => {
    const one = oneSampleT([3]);
    expect(one.t).toBeNaN();
    expect(one.p).toBeNaN();
    expect(one.mean).toBe(3);
    expect(oneSampleT([]).p).toBeNaN();
  });
});

describe('makeRng', () => {
  const fx = fixture<{ rng: { seed: number; first: number[] }[] }>('bootstrap.json');

  it('is mulberry32 (matches the independent Python implementation)', () => {
    for (const { seed, first } of fx.rng) {
      const rng = makeRng(seed);
      expect(
        first.map(() => rng()),
        `seed ${seed}`,
      ).toEqual(first);
    }
  });

  it('reduces seeds modulo 2^32 and stays in [0, 1)', () => {
    const a = makeRng(-1);
    const b = makeRng(2 ** 32 - 1);
    for (let i = 0; i < 1000; i++) {
      const x = a();
      expect(x).toBe(b());
      expect(x).toBeGreaterThanOrEqual(0);
      expect(x).toBeLessThan(1);
    }
    expect(() => makeRng(1.5)).toThrow(/seed must be an integer/);
  });
});

describe('bootstrap', () => {
  const fx = fixture<{
    mean: ({ values: number[]; opts: BootstrapOptions } & IntervalFixture)[];
    paired: ({ a: number[]; b: number[]; opts: BootstrapOptions } & IntervalFixture)[];
    nanDropped: ({ values: number[]; opts: BootstrapOptions } & IntervalFixture)[];
  }>('bootstrap.json');

  const expectInterval = (got: IntervalFixture, want: IntervalFixture, what: string) => {
    expectClose(got.estimate, want.estimate, 1e-12, `${what} estimate`);
    expectClose(got.lo, want.lo, 1e-12, `${what} lo`);
    expectClose(got.hi, want.hi, 1e-12, `${what} hi`);
  };

  it('bootstrapMean matches the Python reimplementation (mulberry32 + numpy linear percentile)', () => {
    expect(fx.mean.length).toBeGreaterThan(6);
    for (const c of fx.mean) expectInterval(bootstrapMean(c.values, c.opts), c, `mean ${JSON.stringify(c.opts)} n=${c.values.length}`);
  });

  it('pairedBootstrapDiff matches the Python reimplementation', () => {
    for (const c of fx.paired) expectInterval(pairedBootstrapDiff(c.a, c.b, c.opts), c, `paired ${JSON.stringify(c.opts)}`);
  });

  it('drops NaN statistic values from the percentile set', () => {
    for (const c of fx.nanDropped) {
      const values = c.values;
      const stat = (idx: readonly number[]) => (idx[0]! % 3 === 0 ? Number.NaN : idx.reduce((s, i) => s + values[i]!, 0) / idx.length);
      expectInterval(bootstrap(values.length, stat, c.opts), c, 'NaN-dropping bootstrap');
    }
  });

  it('has the documented defaults', () => {
    expect(DEFAULT_BOOTSTRAP).toEqual({ resamples: 10_000, seed: 1, level: 0.95 });
    const values = [0, 1, 1, 0, 1, 0.5, 0.25];
    expect(bootstrapMean(values)).toEqual(bootstrapMean(values, { resamples: 10_000, seed: 1, level: 0.95 }));
    expect(bootstrapMean(values, { seed: undefined })).toEqual(bootstrapMean(values));
  });

  it('is reproducible for a seed and changes with it', () => {
    const values = [0.1, 0.9, 0.4, 0.7, 0.3, 0.8, 0.2, 0.6, 0.5, 1.0, 0.0, 0.35];
    const a = bootstrapMean(values, { seed: 3 });
    expect(bootstrapMean(values, { seed: 3 })).toEqual(a);
    const b = bootstrapMean(values, { seed: 4 });
    expect(b.estimate).toBe(a.estimate);
    expect([b.lo, b.hi]).not.toEqual([a.lo, a.hi]);
  });

  it('draws indices in order with floor(rng() * n)', () => {
    const seen: number[][] = [];
    bootstrap(5, (idx) => (seen.push([...idx]), 0), { resamples: 3, seed: 9 });
    const rng = makeRng(9);
    const expected = [Array.from({ length: 5 }, (_, i) => i)];
    for (let r = 0; r < 3; r++) expected.push(Array.from({ length: 5 }, () => Math.floor(rng() * 5)));
    expect(seen).toEqual(expected);
  });

  it('resamples the same indices for both arms of a paired difference', () => {
    const b = [0, 1, 1, 0, 3, 2, 0, 1, 5, 1];
    const a = b.map((x) => x + 1);
    expect(pairedBootstrapDiff(a, b)).toEqual({ estimate: 1, lo: 1, hi: 1 });
    // Independent resampling of the arms would spread; a paired one of identical arms is exactly 0.
    expect(pairedBootstrapDiff(b, b, { seed: 77 })).toEqual({ estimate: 0, lo: 0, hi: 0 });
  });

  it('has NaN bounds with fewer than two tasks', () => {
    const one = bootstrapMean([0.5]);
    expect(one.estimate).toBe(0.5);
    expect(one.lo).toBeNaN();
    expect(one.hi).toBeNaN();
    const none = bootstrapMean([]);
    expect(none.estimate).toBeNaN();
    expect(none.lo).toBeNaN();
  });

  it('narrows with a lower level', () => {
    const values = [0, 1, 0, 1, 1, 1, 0, 1, 0, 0, 1, 1, 1, 0, 1];
    const wide = bootstrapMean(values, { level: 0.99 });
    const narrow = bootstrapMean(values, { level: 0.5 });
    expect(narrow.lo).toBeGreaterThan(wide.lo);
    expect(narrow.hi).toBeLessThan(wide.hi);
  });

  it('rejects bad options and inputs', () => {
    expect(() => bootstrapMean([1, 2], { resamples: 0 })).toThrow(/resamples must be a positive integer/);
    expect(() => bootstrapMean([1, 2], { resamples: 2.5 })).toThrow(/resamples/);
    expect(() => bootstrapMean([1, 2], { level: 1 })).toThrow(/level must be in \(0, 1\)/);
    expect(() => bootstrapMean([1, 2], { level: 0 })).toThrow(/level/);
    expect(() => bootstrapMean([1, 2], { seed: 0.5 })).toThrow(/seed must be an integer/);
    expect(() => bootstrap(-1, () => 0)).toThrow(/n must be a non-negative integer/);
    expect(() => pairedBootstrapDiff([1, 2], [1])).toThrow(/arms differ in length \(2 vs 1\)/);
  });
});

describe('cellIndex', () => {
  it('is api·4 + context·2 + similar', () => {
    expect(cellIndex({ api: false, context: false, similar: false })).toBe(0);
    expect(cellIndex({ api: false, context: false, similar: true })).toBe(1);
    expect(cellIndex({ api: false, context: true, similar: false })).toBe(2);
    expect(cellIndex({ api: true, context: false, similar: false })).toBe(4);
    expect(cellIndex({ api: true, context: true, similar: true })).toBe(7);
  });
});

describe('factorialEffects', () => {
  interface EffectFixture {
    name: string;
    kind: 'main' | 'interaction';
    factors: string[];
    value: IntervalFixture;
    p: number;
    pHolm: number;
    contrasts: number[];
  }
  const fx = fixture<{ cases: { perTask: number[][]; opts: BootstrapOptions; effects: EffectFixture[] }[] }>('factorial.json');

  it('matches a ±1 design matrix, scipy t-tests and statsmodels Holm', () => {
    for (const [ci, c] of fx.cases.entries()) {
      const got = factorialEffects(c.perTask, c.opts);
      expect(got.map((e) => [e.name, e.kind, e.factors])).toEqual(c.effects.map((e) => [e.name, e.kind, e.factors]));
      got.forEach((e, j) => {
        const want = c.effects[j]!;
        const what = `case ${ci} ${want.name}`;
        expect(e.contrasts).toHaveLength(want.contrasts.length);
        e.contrasts.forEach((x, i) => expectClose(x, want.contrasts[i]!, 1e-12, `${what} contrast ${i}`));
        expectClose(e.value.estimate, want.value.estimate, 1e-12, `${what} estimate`);
        expectClose(e.value.lo, want.value.lo, 1e-12, `${what} lo`);
        expectClose(e.value.hi, want.value.hi, 1e-12, `${what} hi`);
        expectClose(e.p, want.p, 1e-12, `${what} p`, true);
        expectClose(e.pHolm, want.pHolm, 1e-12, `${what} pHolm`, true);
      });
    }
  });

  it('recovers planted effects exactly', () => {
    // y = 0.2·api + 0.1·context + 0.05·api·context per task (0/1 factors), plus a per-task offset.
    const rows = [0, 0.3, 0.1].map((offset) =>
      Array.from({ length: 8 }, (_, cell) => {
        const api = (cell >> 2) & 1;
        const context = (cell >> 1) & 1;
        return offset + 0.2 * api + 0.1 * context + 0.05 * api * context;
      }),
    );
    const byName = new Map(factorialEffects(rows, { resamples: 200 }).map((e) => [e.name, e]));
    // Main effect of API = 0.2 + 0.05·P(context on) = 0.225; the interaction is half the difference of API's
    // simple effects at context on (0.25) and off (0.2) = 0.025.
    expect(byName.get('API')!.value.estimate).toBeCloseTo(0.225, 12);
    expect(byName.get('Context')!.value.estimate).toBeCloseTo(0.125, 12);
    expect(byName.get('Similar code')!.value.estimate).toBeCloseTo(0, 12);
    expect(byName.get('API × Context')!.value.estimate).toBeCloseTo(0.025, 12);
    expect(byName.get('API × Similar code')!.value.estimate).toBeCloseTo(0, 12);
    expect(byName.get('Context × Similar code')!.value.estimate).toBeCloseTo(0, 12);
  });

  it('uses the same bootstrap seed for every effect', () => {
    // Symmetric in API ↔ Context (cells 2,3 equal cells 4,5): both effects get the same contrasts, so one
    // shared seed must give them the same interval.
    const rows = [
      [0, 0, 1, 0, 1, 0, 1, 1],
      [0, 1, 0, 0, 0, 0, 1, 1],
      [0, 0, 1, 1, 1, 1, 0, 1],
      [1, 1, 0, 1, 0, 1, 1, 1],
      [0, 0, 0, 0, 0, 0, 0, 1],
    ];
    const [api, context] = factorialEffects(rows, { seed: 21, resamples: 500 });
    expect(context!.contrasts).toEqual(api!.contrasts);
    expect(context!.value).toEqual(api!.value);
    expect(api!.value.hi).toBeGreaterThan(api!.value.lo);
  });

  it('rejects a task without all eight cells', () => {
    expect(() =>
      factorialEffects([
        [0, 1, 0, 1, 0, 1, 0, 1],
        [0, 1],
      ]),
    ).toThrow(/task 1 has 2 cells, expected 8/);
  });
});

describe('paired sign-flip permutation test', () => {
  const { cases } = fixture<{ cases: [number[], number][] }>('permutation.json');

  it('agrees with scipy.stats.permutation_test (paired, exact) on the fixtures', () => {
    for (const [d, p] of cases) {
      const r = signFlipTest(d);
      expect(r.method).toBe('exact');
      expectClose(r.p, p, 1e-12, `sign-flip p of ${JSON.stringify(d)}`);
    }
  });

  it('is the exact McNemar test on binary outcomes, ties included (8 wins, 1 loss, 23 ties: p = 0.0390625)', () => {
    const d = [...Array(8).fill(1), -1, ...Array(23).fill(0)];
    const r = signFlipTest(d);
    expect(r.p).toBe(0.0390625);
    expect(r.p).toBe(mcnemarExact(8, 1));
    expect(r.informative).toBe(9);
    for (const [w, l] of [
      [5, 0],
      [3, 3],
      [10, 4],
    ] as const)
      expect(signFlipTest([...Array(w).fill(1), ...Array(l).fill(-1)]).p).toBeCloseTo(mcnemarExact(w, l), 12);
  });

  it('gives p = 1 without an informative pair or with one; beyond the exact limit, a seeded Monte Carlo close to the exact value', () => {
    expect(signFlipTest([0, 0, 0])).toEqual({ p: 1, informative: 0, method: 'exact', patterns: 1 });
    expect(signFlipTest([0.3, 0]).p).toBe(1);
    const [d, p] = cases.at(-1)!;
    const mc = signFlipTest(d, { exactUpTo: 4, draws: 20_000, seed: 3 });
    expect(mc.method).toBe('monte-carlo');
    expect(Math.abs(mc.p - p)).toBeLessThan(0.01);
    expect(signFlipTest(d, { exactUpTo: 4, draws: 20_000, seed: 3 })).toEqual(mc);
    expect(() => signFlipTest([0.1, Number.NaN])).toThrow(/difference 1 is NaN/);
  });
});
