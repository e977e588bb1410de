// Pieces the experiment charts share so they stay readable: a legend built from the same series list as the
// marks (bar order, never re-sorted, wrapping into columns when there are many series), category x-axis labels
// that wrap into lines no wider than their band (never colliding), value labels on effect bars placed past the
// whisker, and round axis ticks from the one tick rule the HTML report uses too (main/model/ticks.ts).

import type { ReactElement } from 'react';
import type { LabelProps, XAxisTickContentProps } from 'recharts';
import { niceTicks, tickLabel } from '../../../../main/model/ticks.ts';

export interface LegendItem {
  name: string;
  color: string;
  /** How the series is drawn, so the swatch looks like the mark. */
  mark?: 'bar' | 'line' | 'point';
}

/** The legend of a chart, in the order of its series; a grid of columns once there are more than four. */
export function SeriesLegend({ items, testId = 'chart-legend' }: { items: LegendItem[]; testId?: string }) {
  if (!items.length) return null;
  return (
    <ul className={`chart-legend${items.length > 4 ? ' chart-legend-columns' : ''}`} data-testid={testId}>
      {items.map((it) => (
        <li key={it.name} className="chart-legend-item" data-testid="legend-item" title={it.name}>
          <span className={`chart-legend-swatch swatch-${it.mark ?? 'bar'}`} style={{ background: it.color }} aria-hidden="true" />
          <span className="chart-legend-label">{it.name}</span>
        </li>
      ))}
    </ul>
  );
}

/** Ticks for a value axis: round steps, domain on ticks, 0 included when `includeZero`. */
export function valueAxis(values: number[], opts: { includeZero?: boolean; count?: number; pad?: number } = {}) {
  const finite = values.filter((v) => Number.isFinite(v));
  const lo = finite.length ? Math.min(...finite) : 0;
  const hi = finite.length ? Math.max(...finite) : 1;
  const pad = (hi - lo || 1) * (opts.pad ?? 0);
  // Padding goes on both sides, except below a zero baseline of bars that are all positive.
  const below = opts.includeZero && lo >= 0 && hi > 0 ? 0 : pad;
  const t = niceTicks(lo - below, hi + pad, { count: opts.count ?? 5, includeZero: opts.includeZero ?? false });
  return { domain: [t.min, t.max] as [number, number], ticks: t.ticks, tickFormatter: (v: number) => tickLabel(v, t.step) };
}

/** Splits `text` into at most `maxLines` lines of at most `chars` characters, on spaces where it can. */
export function wrapLabel(text: string, chars: number, maxLines = 3): string[] {
  const width = Math.max(4, chars);
  const lines: string[] = [];
  let rest = text.trim();
  while (rest && lines.length < maxLines) {
    if (rest.length <= width) {
      lines.push(rest);
      rest = '';
      break;
    }
    const cut = rest.lastIndexOf(' ', width);
    const at = cut > width / 3 ? cut : width;
    lines.push(rest.slice(0, at).trimEnd());
    rest = rest.slice(at).trimStart();
  }
  if (rest) lines[lines.length - 1] = `${lines[lines.length - 1]!.slice(0, Math.max(1, width - 1))}…`;
  return lines;
}

const CHAR_PX = 6.6; // mean glyph width of the 12 px axis font

/** A category tick wrapped into lines that fit its band, with the full name as a tooltip. */
export function WrappedTick(props: XAxisTickContentProps): ReactElement {
  const x = Number(props.x);
  const y = Number(props.y);
  const name = String(props.payload?.value ?? '');
  const band = Number(props.width ?? 0) / Math.max(1, props.visibleTicksCount);
  const lines = wrapLabel(name, Math.floor((band - 6) / CHAR_PX), 3);
  return (
    <g transform={`translate(${x},${y})`} className="category-tick">
      <title>{name}</title>
      <text textAnchor="middle" fontSize={12} fill="#4a5566" dy={16}>
        {lines.map((l, i) => (
          <tspan key={i} x={0} dy={i ? 14 : 0}>
            {l}
          </tspan>
        ))}
      </text>
    </g>
  );
}

/** Props of a category x-axis whose labels wrap into their band (up to three lines). */
export function categoryAxis() {
  return { dataKey: 'name', tick: WrappedTick, interval: 0 as const, height: 58 };
}

/**
 * The value of an effect bar (horizontal bars from 0), printed just past the end of its whisker on the side the
 * bar points to, so it never sits on the interval.
 */
export function effectValueLabel(rows: { estimate: number; lo: number; hi: number }[], format: (v: number) => string) {
  return function EffectValue(p: LabelProps): ReactElement | null {
    const row = rows[p.index ?? -1];
    if (!row || !Number.isFinite(row.estimate)) return null;
    const x = Number(p.x ?? 0);
    const w = Number(p.width ?? 0);
    const cy = Number(p.y ?? 0) + Number(p.height ?? 0) / 2;
    const v = row.estimate;
    // recharts may hand a bar to the left of zero as (x = zero, width < 0) or (x = end, width > 0).
    const zero = v < 0 && w > 0 ? x + w : x;
    const end = v < 0 && w > 0 ? x : x + w;
    const perUnit = v !== 0 ? Math.abs(end - zero) / Math.abs(v) : 0;
    const reach = v < 0 ? (Number.isFinite(row.lo) ? Math.min(row.lo, v) : v) : Number.isFinite(row.hi) ? Math.max(row.hi, v) : v;
    const tip = perUnit ? zero + reach * perUnit : end;
    return (
      <text
        className="effect-value"
        data-testid="effect-value"
        x={v < 0 ? tip - 6 : tip + 6}
        y={cy + 4}
        textAnchor={v < 0 ? 'end' : 'start'}
        fontSize={11}
        fill="#1f2937"
      >
        {format(v)}
      </text>
    );
  };
}
