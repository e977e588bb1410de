// Number and time formatting for tables and charts: the engine's shared rules (main/model/format.ts, also used by
// the CLI and the reports), with a dash for a missing value as the UI's tables write it.

import * as fmt from '../../../main/model/format.ts';

const DASH = '—';

export const isNum = fmt.finite;
export const num = (x: number | null | undefined, digits = 3): string => fmt.fixed(x, digits, DASH);
/** A rate, probability or score (Pass@k, correctness, AUROC, ECE, F1, uncertainty, sample-set figures): 3 decimals everywhere. */
export const rate = (x: number | null | undefined): string => fmt.rate(x, DASH);
/** A difference of rates (an effect, a Δ): signed, 3 decimals. */
export const rateDiff = (x: number | null | undefined): string => fmt.rateDiff(x, DASH);
/** `p < 0.001` or `p = 0.034`. */
export const pValue = (p: number | null | undefined): string => fmt.pValue(p, DASH);
export const pct = (x: number | null | undefined, digits = 1): string => fmt.percent(x, digits, DASH);
export const signed = (x: number | null | undefined, digits = 3): string => fmt.signed(x, digits, DASH);
export const usd = (x: number | null | undefined): string => fmt.usd(x, 'unknown');
export const int = (x: number | null | undefined): string => fmt.int(x, DASH);
export const duration = (ms: number | null | undefined): string => fmt.duration(ms, DASH);
export const interval = (v: { estimate: number; lo: number; hi: number } | null | undefined, digits = 3): string => fmt.interval(v, digits, DASH);
export const plural = fmt.plural;

export function dateTime(iso: string | null | undefined): string {
  if (!iso) return '—';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

function choose(n: number, k: number): number {
  if (k < 0 || k > n) return 0;
  let r = 1;
  for (let i = 1; i <= k; i++) r = (r * (n - k + i)) / i;
  return r;
}

/** Unbiased Pass@k of one task: 1 − C(n−c, k) / C(n, k). */
export function passAtK(n: number, c: number, k: number): number {
  if (n <= 0 || k > n) return Number.NaN;
  return n - c < k ? 1 : 1 - choose(n - c, k) / choose(n, k);
}
