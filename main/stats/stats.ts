// Experiment statistics: unbiased Pass@k, seeded task-level bootstrap intervals, paired tests and the
// 2³ factorial effects. Pure functions; every result is reproducible from its inputs and seed.
// Checked against scipy/statsmodels fixtures made by scripts/stats-fixtures.py (test/fixtures/stats/).

import binomialCdf from '@stdlib/stats-base-dists-binomial-cdf';
import tCdf from '@stdlib/stats-base-dists-t-cdf';

export type { Interval } from '../model/estimates.ts';
import type { Interval } from '../model/estimates.ts';

export interface BootstrapOptions {
  /** Bootstrap resamples (default 10 000). */
  resamples?: number;
  /** Seed of the mulberry32 generator (default 1); reduced modulo 2³². */
  seed?: number;
  /** Coverage of the percentile interval (default 0.95). */
  level?: number;
}

export const DEFAULT_BOOTSTRAP: Required<BootstrapOptions> = Object.freeze({ resamples: 10_000, seed: 1, level: 0.95 });

function isNonNegInt(x: number): boolean {
  return Number.isInteger(x) && x >= 0;
}

/**
 * Unbiased Pass@k = 1 − C(n−c, k)/C(n, k) (Chen et al. 2021), numerically stable product form;
 * throws a clear RangeError for k < 1, k > n, c < 0, c > n, non-integers. c = 0 → 0; n − c < k → 1.
 */
export function passAtK(n: number, c: number, k: number): number {
  if (!isNonNegInt(n) || !Number.isInteger(c) || !Number.isInteger(k)) {
    throw new RangeError(`passAtK: n, c and k must be integers (got n=${n}, c=${c}, k=${k})`);
  }
  if (k < 1 || k > n) throw new RangeError(`passAtK: k must be in [1, n] (got k=${k}, n=${n})`);
  if (c < 0 || c > n) throw new RangeError(`passAtK: c must be in [0, n] (got c=${c}, n=${n})`);
  if (c === 0) return 0;
  if (n - c < k) return 1;
  // C(n−c, k)/C(n, k) = Π_{i=n−c+1}^{n} (1 − k/i): no huge binomials, each factor in (0, 1).
  let miss = 1;
  for (let i = n - c + 1; i <= n; i++) miss *= 1 - k / i;
  return 1 - miss;
}

/**
 * Seeded PRNG returning floats in [0, 1): mulberry32 (Tommy Ettinger), state a uint32 = seed mod 2³².
 * Each call, with uint32 arithmetic (all products/sums mod 2³², >>> a logical shift):
 *   a = a + 0x6D2B79F5
 *   t = (a ^ (a >>> 15)) · (a | 1)
 *   t = (t + (t ^ (t >>> 7)) · (t | 61)) ^ t
 *   return (t ^ (t >>> 14)) / 2³²
 */
export function makeRng(seed: number): () => number {
  if (!Number.isInteger(seed)) throw new RangeError(`makeRng: seed must be an integer (got ${seed})`);
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t = (t + Math.imul(t ^ (t >>> 7), t | 61)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function resolveOptions(opts: BootstrapOptions | undefined): Required<BootstrapOptions> {
  // Field by field, so an explicit `undefined` still means the default.
  const o = {
    resamples: opts?.resamples ?? DEFAULT_BOOTSTRAP.resamples,
    seed: opts?.seed ?? DEFAULT_BOOTSTRAP.seed,
    level: opts?.level ?? DEFAULT_BOOTSTRAP.level,
  };
  if (!Number.isInteger(o.resamples) || o.resamples < 1) throw new RangeError(`bootstrap: resamples must be a positive integer (got ${o.resamples})`);
  if (!(o.level > 0 && o.level < 1)) throw new RangeError(`bootstrap: level must be in (0, 1) (got ${o.level})`);
  if (!Number.isInteger(o.seed)) throw new RangeError(`bootstrap: seed must be an integer (got ${o.seed})`);
  return o;
}

/** Quantile q of ascending `sorted`, numpy's 'linear' method including its two-sided lerp (bit-for-bit). */
function linearQuantile(sorted: Float64Array, q: number): number {
  const n = sorted.length;
  if (!n) return Number.NaN;
  const virtual = (n - 1) * q;
  const prev = Math.min(Math.max(Math.floor(virtual), 0), n - 1);
  const next = Math.min(prev + 1, n - 1);
  const gamma = virtual - prev;
  const a = sorted[prev]!;
  const b = sorted[next]!;
  // numpy interpolates from the nearer end, so a == b gives exactly a.
  return gamma >= 0.5 ? b - (b - a) * (1 - gamma) : a + (b - a) * gamma;
}

/**
 * Generic task-level bootstrap: draws `resamples` samples of n indices with replacement (index = floor(rng()*n),
 * drawn in order), calls statistic(indices) for each; the interval is the percentile interval at `level` using
 * linear interpolation between order statistics (numpy's default 'linear' method); estimate = statistic(all
 * indices 0..n-1). NaN bounds when n < 2. NaN statistic values are dropped from the percentile set.
 */
export function bootstrap(n: number, statistic: (indices: readonly number[]) => number, opts?: BootstrapOptions): Interval {
  if (!isNonNegInt(n)) throw new RangeError(`bootstrap: n must be a non-negative integer (got ${n})`);
  const o = resolveOptions(opts);
  const estimate = statistic(Array.from({ length: n }, (_, i) => i));
  // One task has no spread to resample: an interval would be a false certainty.
  if (n < 2) return { estimate, lo: Number.NaN, hi: Number.NaN };
  const rng = makeRng(o.seed);
  const values: number[] = [];
  for (let r = 0; r < o.resamples; r++) {
    const idx = new Array<number>(n);
    for (let i = 0; i < n; i++) idx[i] = Math.floor(rng() * n);
    const v = statistic(idx);
    if (!Number.isNaN(v)) values.push(v);
  }
  const sorted = Float64Array.from(values).sort();
  const alpha = 1 - o.level;
  return { estimate, lo: linearQuantile(sorted, alpha / 2), hi: linearQuantile(sorted, 1 - alpha / 2) };
}

function meanAt(values: readonly number[], indices: readonly number[]): number {
  if (!indices.length) return Number.NaN;
  let s = 0;
  for (const i of indices) s += values[i]!;
  return s / indices.length;
}

/** Mean of `values` with a task-level bootstrap interval. */
export function bootstrapMean(values: readonly number[], opts?: BootstrapOptions): Interval {
  return bootstrap(values.length, (idx) => meanAt(values, idx), opts);
}

/** Paired: resamples task indices once and takes mean(a) − mean(b) on the same indices. Throws when lengths differ. */
export function pairedBootstrapDiff(a: readonly number[], b: readonly number[], opts?: BootstrapOptions): Interval {
  if (a.length !== b.length) throw new Error(`pairedBootstrapDiff: arms differ in length (${a.length} vs ${b.length})`);
  // Computed as the mean of per-task differences: the same value, but without the rounding of two separate
  // means (arms that differ by a constant give exactly that constant).
  const diff = a.map((x, i) => x - b[i]!);
  return bootstrap(a.length, (idx) => meanAt(diff, idx), opts);
}

/** Holm–Bonferroni step-down adjusted p-values, in input order, monotone, capped at 1 (NaN inputs stay NaN and do not count in m). */
export function holm(pvalues: readonly number[]): number[] {
  const out = pvalues.map(() => Number.NaN);
  const present: number[] = [];
  pvalues.forEach((p, i) => {
    if (Number.isNaN(p)) return;
    if (p < 0 || p > 1) throw new RangeError(`holm: p-value ${p} at index ${i} outside [0, 1]`);
    present.push(i);
  });
  present.sort((i, j) => pvalues[i]! - pvalues[j]!);
  const m = present.length;
  // Step-down: the r-th smallest is multiplied by (m − r); the running max keeps the adjusted values monotone.
  let running = 0;
  present.forEach((i, r) => {
    running = Math.max(running, Math.min(1, (m - r) * pvalues[i]!));
    out[i] = running;
  });
  return out;
}

/** Paired binary outcomes: wins = a true & b false, losses = a false & b true, ties = equal. */
export function pairedCounts(a: readonly boolean[], b: readonly boolean[]): { wins: number; losses: number; ties: number } {
  if (a.length !== b.length) throw new Error(`pairedCounts: arms differ in length (${a.length} vs ${b.length})`);
  let wins = 0;
  let losses = 0;
  let ties = 0;
  a.forEach((x, i) => {
    const y = b[i]!;
    if (x === y) ties++;
    else if (x) wins++;
    else losses++;
  });
  return { wins, losses, ties };
}

/** Exact two-sided McNemar: min(1, 2 · BinomCDF(min(w, l); w + l, 0.5)); 1 when w + l = 0. */
export function mcnemarExact(wins: number, losses: number): number {
  if (!isNonNegInt(wins) || !isNonNegInt(losses)) {
    throw new RangeError(`mcnemarExact: wins and losses must be non-negative integers (got ${wins}, ${losses})`);
  }
  const discordant = wins + losses;
  // No discordant pairs: no evidence either way.
  if (discordant === 0) return 1;
  return Math.min(1, 2 * binomialCdf(Math.min(wins, losses), discordant, 0.5));
}

export interface SignFlipResult {
  /** Two-sided p-value. */
  p: number;
  /** Pairs whose difference is not 0 (the only ones a sign flip changes). */
  informative: number;
  method: 'exact' | 'monte-carlo';
  /** Sign patterns counted: 2^informative when exact, the seeded draws otherwise. */
  patterns: number;
}

/** Sign-flip tests enumerate every pattern up to this many informative pairs (2²⁰ ≈ 10⁶ patterns). */
export const SIGN_FLIP_EXACT_UP_TO = 20;

/**
 * Paired sign-flip permutation test of mean difference 0 (the paired case of scipy.stats.permutation_test with
 * permutation_type='samples'). Statistic S = Σ dᵢ; under H0 each dᵢ's sign is a fair coin. Two-sided
 * p = P(|S*| ≥ |S|): exactly, over all 2^m patterns of the m non-zero differences, when m ≤ exactUpTo; otherwise
 * from `draws` seeded random patterns as (1 + hits) / (1 + draws). No informative pair → p = 1. Comparisons
 * use a relative tolerance of 1e-12, so rounding in the sums does not decide a tie.
 */
export function signFlipTest(diffs: readonly number[], opts: { exactUpTo?: number; draws?: number; seed?: number } = {}): SignFlipResult {
  for (const [i, d] of diffs.entries()) if (!Number.isFinite(d)) throw new RangeError(`signFlipTest: difference ${i} is ${d}`);
  const d = diffs.filter((x) => x !== 0);
  const m = d.length;
  if (!m) return { p: 1, informative: 0, method: 'exact', patterns: 1 };
  const observed = Math.abs(d.reduce((a, b) => a + b, 0));
  const tol = 1e-12 * d.reduce((a, b) => a + Math.abs(b), 0);
  const exactUpTo = opts.exactUpTo ?? SIGN_FLIP_EXACT_UP_TO;
  if (m <= exactUpTo) {
    // Gray-code walk: one sign changes per step, so each pattern's sum costs O(1).
    const signs = new Int8Array(m).fill(1);
    let sum = d.reduce((a, b) => a + b, 0);
    let hits = Math.abs(sum) >= observed - tol ? 1 : 0;
    const total = 2 ** m;
    for (let g = 1; g < total; g++) {
      const bit = 31 - Math.clz32(g & -g);
      sum -= 2 * signs[bit]! * d[bit]!;
      signs[bit] = -signs[bit]!;
      if (Math.abs(sum) >= observed - tol) hits++;
    }
    return { p: Math.min(1, hits / total), informative: m, method: 'exact', patterns: total };
  }
  const draws = opts.draws ?? 20_000;
  const rng = makeRng(opts.seed ?? 1);
  let hits = 0;
  for (let b = 0; b < draws; b++) {
    let sum = 0;
    for (let i = 0; i < m; i++) sum += rng() < 0.5 ? -d[i]! : d[i]!;
    if (Math.abs(sum) >= observed - tol) hits++;
  }
  return { p: Math.min(1, (1 + hits) / (1 + draws)), informative: m, method: 'monte-carlo', patterns: draws };
}

/**
 * One-sample two-sided t-test of mean 0. When all values are equal: p = 1 if they are 0 (t = 0), else p = 0
 * (t = ±Infinity). n < 2 → t and p NaN (df = max(n − 1, 0)).
 */
export function oneSampleT(values: readonly number[]): { t: number; df: number; p: number; mean: number } {
  const n = values.length;
  const m = n ? values.reduce((s, v) => s + v, 0) / n : Number.NaN;
  const df = Math.max(n - 1, 0);
  if (n < 2) return { t: Number.NaN, df, p: Number.NaN, mean: m };
  // Exact ties are decided directly: the rounding in mean/variance must not invent a tiny spread.
  if (values.every((v) => v === values[0])) {
    const v = values[0]!;
    return v === 0 ? { t: 0, df, p: 1, mean: v } : { t: v > 0 ? Infinity : -Infinity, df, p: 0, mean: v };
  }
  let ss = 0;
  for (const v of values) ss += (v - m) * (v - m);
  const se = Math.sqrt(ss / (n - 1) / n);
  const t = m / se;
  return { t, df, p: Math.min(1, 2 * tCdf(-Math.abs(t), df)), mean: m };
}

export type FactorName = 'api' | 'context' | 'similar';

/** Cell index of a 2³ design: api·4 + context·2 + similar (booleans as 0/1). */
export function cellIndex(cell: { api: boolean; context: boolean; similar: boolean }): number {
  return (cell.api ? 4 : 0) + (cell.context ? 2 : 0) + (cell.similar ? 1 : 0);
}

export interface EffectEstimate {
  name: string;
  kind: 'main' | 'interaction';
  factors: FactorName[];
  value: Interval;
  p: number;
  pHolm: number;
  /** Per-task contrasts, in task order. */
  contrasts: number[];
}

const FACTOR_BIT: Record<FactorName, number> = { api: 4, context: 2, similar: 1 };

const EFFECTS: { name: string; kind: 'main' | 'interaction'; factors: FactorName[] }[] = [
  { name: 'API', kind: 'main', factors: ['api'] },
  { name: 'Context', kind: 'main', factors: ['context'] },
  { name: 'Similar code', kind: 'main', factors: ['similar'] },
  { name: 'API × Context', kind: 'interaction', factors: ['api', 'context'] },
  { name: 'API × Similar code', kind: 'interaction', factors: ['api', 'similar'] },
  { name: 'Context × Similar code', kind: 'interaction', factors: ['context', 'similar'] },
];

/** ±1 coding of an effect over the eight cells: the product of its factors' signs. */
function effectSigns(factors: readonly FactorName[]): number[] {
  return Array.from({ length: 8 }, (_, cell) => factors.reduce((s, f) => s * (cell & FACTOR_BIT[f] ? 1 : -1), 1));
}

/**
 * Factorial effects from per-task outcomes in all eight cells (perTask[i][cellIndex] = outcome of task i in that cell).
 * Per-task contrast: main effect of F = mean over the 4 cells with F on − mean over the 4 with F off;
 * two-way interaction F×G = (1/4) Σ_cells s_F · s_G · y (±1 coding) = half the difference of F's simple effects at
 * G on and off, averaged over the third factor.
 * Each effect: mean of the per-task contrasts with a bootstrap interval (same seed for every effect), p from
 * oneSampleT on the contrasts (test 't-test', the default) or the sign-flip permutation test ('sign-flip'),
 * pHolm = Holm over the six effects (3 main + 3 two-way).
 */
export type FactorialTest = 't-test' | 'sign-flip';
export const FACTORIAL_TESTS: readonly FactorialTest[] = ['t-test', 'sign-flip'];

export function factorialEffects(perTask: readonly (readonly number[])[], opts?: BootstrapOptions, test: FactorialTest = 't-test'): EffectEstimate[] {
  perTask.forEach((row, i) => {
    if (row.length !== 8) throw new Error(`factorialEffects: task ${i} has ${row.length} cells, expected 8`);
  });
  const effects = EFFECTS.map((e) => {
    const signs = effectSigns(e.factors);
    const contrasts = perTask.map((row) => {
      let s = 0;
      for (let cell = 0; cell < 8; cell++) s += signs[cell]! * row[cell]!;
      return s / 4;
    });
    const p = test === 'sign-flip' ? signFlipTest(contrasts, { seed: opts?.seed ?? DEFAULT_BOOTSTRAP.seed }).p : oneSampleT(contrasts).p;
    return { ...e, factors: [...e.factors], value: bootstrapMean(contrasts, opts), p, pHolm: Number.NaN, contrasts };
  });
  const adjusted = holm(effects.map((e) => e.p));
  effects.forEach((e, i) => (e.pHolm = adjusted[i]!));
  return effects;
}
