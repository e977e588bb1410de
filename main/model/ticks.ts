// Round axis ticks shared by the UI's charts (renderer, recharts) and the HTML report's SVG charts: steps of
// 1, 2 or 5 × 10^k, a domain that starts and ends on a tick, zero always a tick when the domain spans it (and
// pulled into the domain for bars and effects), and labels with just enough decimals for the step. One place,
// so the two renderings of a chart never disagree on where 0 is.

export interface Ticks {
  /** Tick values, ascending, from min to max; exactly 0 (never -0 or 1e-17) where zero is a tick. */
  ticks: number[];
  step: number;
  min: number;
  max: number;
}

export interface TickOptions {
  /** About how many intervals between ticks (default 5). */
  count?: number;
  /** Extend the domain so that it contains 0 (bars, effects, differences). */
  includeZero?: boolean;
}

const isFiniteNum = (x: number): boolean => typeof x === 'number' && Number.isFinite(x);

/** The 1-2-5 step closest above `raw` (raw > 0). */
export function niceStep(raw: number): number {
  const mag = 10 ** Math.floor(Math.log10(raw));
  const norm = raw / mag;
  const m = norm <= 1 + 1e-9 ? 1 : norm <= 2 + 1e-9 ? 2 : norm <= 5 + 1e-9 ? 5 : 10;
  // Rounding to 12 significant digits keeps 0.1 + 0.2-style noise out of the step.
  return Number((m * mag).toPrecision(12));
}

/**
 * Round ticks covering [min, max] with about `count` intervals. A degenerate range (min = max within rounding
 * noise, or not finite) becomes one unit around its value; with includeZero the range is first extended to contain 0.
 */
export function niceTicks(min: number, max: number, opts: TickOptions | number = {}): Ticks {
  const { count = 5, includeZero = false } = typeof opts === 'number' ? { count: opts } : opts;
  let lo = isFiniteNum(min) ? min : 0;
  let hi = isFiniteNum(max) ? max : lo;
  if (lo > hi) [lo, hi] = [hi, lo];
  if (includeZero) {
    lo = Math.min(0, lo);
    hi = Math.max(0, hi);
  }
  // A range within rounding noise of one value (effects of 1e-17 that are 0 in truth) is that one value.
  if (!(hi - lo > 1e-9 * Math.max(1, Math.abs(lo), Math.abs(hi)))) {
    const mid = (lo + hi) / 2;
    const at = Math.abs(mid) < 1e-9 ? 0 : mid;
    lo = at - 0.5;
    hi = at + 0.5;
  }
  const step = niceStep((hi - lo) / Math.max(1, Math.round(count)));
  const first = Math.floor(lo / step + 1e-9);
  const last = Math.ceil(hi / step - 1e-9);
  const ticks: number[] = [];
  for (let i = first; i <= last; i++) {
    const v = Number((i * step).toPrecision(12));
    ticks.push(i === 0 || v === 0 ? 0 : v);
  }
  return { ticks, step, min: ticks[0]!, max: ticks[ticks.length - 1]! };
}

/** Decimals a label needs to tell ticks `step` apart (0.05 → 2, 0.2 → 1, 5 → 0). */
export function tickDecimals(step: number): number {
  if (!(step > 0) || !isFiniteNum(step)) return 0;
  let d = Math.max(0, -Math.floor(Math.log10(step) + 1e-9));
  while (d < 6 && Math.abs(Math.round(step * 10 ** d) - step * 10 ** d) > 1e-6) d++;
  return d;
}

/** Tick label with just enough decimals for the step; never "-0". */
export function tickLabel(v: number, step: number): string {
  const s = v.toFixed(tickDecimals(step));
  return /^-0(\.0+)?$/.test(s) ? s.slice(1) : s;
}
