// Number and time formatting for tables and charts: fixed decimals so columns line up (tabular figures in CSS).

export const isNum = (x: unknown): x is number => typeof x === 'number' && Number.isFinite(x);

export function num(x: number | null | undefined, digits = 3): string {
  return isNum(x) ? x.toFixed(digits) : '—';
}

export function pct(x: number | null | undefined, digits = 1): string {
  return isNum(x) ? `${(x * 100).toFixed(digits)} %` : '—';
}

export function signed(x: number | null | undefined, digits = 3): string {
  if (!isNum(x)) return '—';
  const s = x.toFixed(digits);
  return x > 0 ? `+${s}` : Number(s) === 0 ? s.replace('-', '') : s;
}

export function usd(x: number | null | undefined): string {
  if (!isNum(x)) return 'unknown';
  if (x === 0) return '$0';
  return x < 0.01 ? `$${x.toFixed(4)}` : `$${x.toFixed(2)}`;
}

export function int(x: number | null | undefined): string {
  return isNum(x) ? Math.round(x).toLocaleString('en-US') : '—';
}

export function duration(ms: number | null | undefined): string {
  if (!isNum(ms)) return '—';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${String(s % 60).padStart(2, '0')} s`;
  return `${Math.floor(s / 3600)} h ${String(Math.floor((s % 3600) / 60)).padStart(2, '0')} min`;
}

export function dateTime(iso: string | null | undefined): string {
  if (!iso) return '—';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

export function interval(v: { estimate: number; lo: number; hi: number } | null | undefined, digits = 3): string {
  if (!v || !isNum(v.estimate)) return '—';
  const ci = isNum(v.lo) && isNum(v.hi) ? ` [${v.lo.toFixed(digits)}, ${v.hi.toFixed(digits)}]` : '';
  return `${v.estimate.toFixed(digits)}${ci}`;
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

export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;
}
