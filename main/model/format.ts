// How numbers are written for people: one set of rules shared by the CLI, the reports (HTML, Markdown) and the
// UI, so a figure reads the same wherever an analyst meets it. Fixed decimals (columns line up), no negative
// zero, one rule for money. Every function takes the marker for a missing value (null, undefined, NaN,
// ±Infinity) as its last argument: reports and the CLI write `n/a`, the UI's tables a dash.

export const MISSING = 'n/a';

export const finite = (x: unknown): x is number => typeof x === 'number' && Number.isFinite(x);

/** `x` with `digits` decimals; `-0.000` is written `0.000`. */
export function fixed(x: number | null | undefined, digits = 3, missing = MISSING): string {
  if (!finite(x)) return missing;
  const s = x.toFixed(digits);
  return /^-0(\.0+)?$/.test(s) ? s.slice(1) : s;
}

/** Decimals of a rate, probability or score (Pass@k, correctness, AUROC, AUPRC, ECE, F1, uncertainty): one for every one. */
export const RATE_DIGITS = 3;

/** A rate, probability or score on the 0–1 scale: `0.412`, `0.000`. The one format of such a figure, wherever it is shown. */
export function rate(x: number | null | undefined, missing = MISSING): string {
  return fixed(x, RATE_DIGITS, missing);
}

/** A difference of rates (an effect, Δ between conditions): `+0.120`, `-0.040`, `0.000`. */
export function rateDiff(x: number | null | undefined, missing = MISSING): string {
  return signed(x, RATE_DIGITS, missing);
}

/** A signed difference: `+0.120`, `-0.040`, `0.000`. */
export function signed(x: number | null | undefined, digits = 3, missing = MISSING): string {
  if (!finite(x)) return missing;
  const s = fixed(x, digits);
  return Number(s) > 0 ? `+${s}` : s;
}

/** A proportion as a percentage: 0.4123 → `41.2 %`. */
export function percent(x: number | null | undefined, digits = 1, missing = MISSING): string {
  return finite(x) ? `${fixed(x * 100, digits)} %` : missing;
}

/**
 * `0.412 [0.350, 0.470]`. When the bounds are undefined (one task) the bracket is left out (`0.412`), or, with
 * `bounds: 'always'`, written with missing markers (`0.412 [n/a, n/a]`): the reports' tables keep one shape per column.
 */
export function interval(
  v: { estimate: number; lo: number; hi: number } | null | undefined,
  digits = 3,
  missing = MISSING,
  bounds: 'drop' | 'always' = 'drop',
): string {
  if (bounds === 'always') return `${fixed(v?.estimate, digits, missing)} [${fixed(v?.lo, digits, missing)}, ${fixed(v?.hi, digits, missing)}]`;
  if (!v || !finite(v.estimate)) return missing;
  const ci = finite(v.lo) && finite(v.hi) ? ` [${fixed(v.lo, digits)}, ${fixed(v.hi, digits)}]` : '';
  return `${fixed(v.estimate, digits)}${ci}`;
}

/** `p < 0.001` when small, else `p = 0.034`. */
export function pValue(p: number | null | undefined, missing = MISSING): string {
  if (!finite(p)) return missing;
  return p < 0.001 ? 'p < 0.001' : `p = ${fixed(p, 3)}`;
}

/** A count with thousands separators: 12,345. */
export function int(x: number | null | undefined, missing = MISSING): string {
  return finite(x) ? Math.round(x).toLocaleString('en-US') : missing;
}

/**
 * Money in US dollars: `$0` for nothing spent, cents from one dollar up (`$12.34`), and three significant
 * digits below (`$0.0123`, `$0.000845`), so the cost of a few cheap calls is not shown as `$0.00`.
 */
export function usd(x: number | null | undefined, missing = MISSING): string {
  if (!finite(x)) return missing;
  if (x === 0) return '$0';
  const a = Math.abs(x);
  if (a >= 1) return `$${x.toFixed(2)}`;
  const decimals = Math.min(10, Math.max(2, 2 - Math.floor(Math.log10(a))));
  return `$${x.toFixed(decimals)}`;
}

/** A duration: `850 ms`, `12 s`, `3 min 05 s`, `1 h 02 min`. */
export function duration(ms: number | null | undefined, missing = MISSING): string {
  if (!finite(ms) || ms < 0) return missing;
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${String(s % 60).padStart(2, '0')} s`;
  return `${Math.floor(s / 3600)} h ${String(Math.floor((s % 3600) / 60)).padStart(2, '0')} min`;
}

/** A size in bytes: `512 B`, `3.4 KiB`, `12.0 MiB`, `1.2 GiB`. */
export function bytes(n: number | null | undefined, missing = MISSING): string {
  if (!finite(n) || n < 0) return missing;
  if (n < 1024) return `${Math.round(n)} B`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let v = n / 1024;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  return `${v.toFixed(1)} ${units[u]}`;
}

/** Counts by name in their order: `malformed-json 2, unsafe-path 1`; `empty` when there are none. */
export function counts(rec: Record<string, number>, empty = 'none'): string {
  const parts = Object.entries(rec).map(([k, v]) => `${k} ${v}`);
  return parts.length ? parts.join(', ') : empty;
}

/** `1 task`, `1,204 tasks`. */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${int(n)} ${n === 1 ? one : many}`;
}
