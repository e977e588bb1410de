// Pieces the experiment charts share so they stay readable: a legend built from the same series list as the
// marks (bar order, never re-sorted, wrapping into columns when there are many series), category x-axis labels
// that wrap into lines no wider than their band (never colliding), value labels on effect bars placed past the
// whisker, and round axis ticks from the one tick rule the HTML report uses too (main/model/ticks.ts).

import type { ReactElement } from 'react';
import { useYAxisScale, type LabelProps, type XAxisTickContentProps } from 'recharts';
import { niceTicks, tickLabel } from '../../../../main/model/ticks.ts';

export interface LegendItem {
  name: string;
  color: string;
  /** How the series is drawn, so the swatch looks like the mark. */
  mark?: 'bar' | 'line' | 'point';
  /** A line's marker and dash pattern, drawn in its swatch too. */
  shape?: MarkerShape;
  dash?: string;
}

/** Markers that tell line series apart where they coincide (with LINE_DASHES and the colours). */
export const MARKER_SHAPES = ['circle', 'square', 'triangle', 'diamond', 'triangle-down', 'plus', 'cross', 'star'] as const;
export type MarkerShape = (typeof MARKER_SHAPES)[number];
/** Dash patterns of line series, in series order ('' is solid). */
export const LINE_DASHES = ['', '6 3', '2 3', '9 3 2 3', '4 4', '12 4', '1 3', '12 3 3 3'] as const;

/** The outline of a marker of `shape` centred on (cx, cy), about 2r across. */
export function markerPath(shape: MarkerShape, cx: number, cy: number, r: number): string {
  const pts = (list: [number, number][]) => `M${list.map(([dx, dy]) => `${(cx + dx * r).toFixed(2)} ${(cy + dy * r).toFixed(2)}`).join('L')}Z`;
  const t = 0.36; // half the width of a plus or cross arm, in r
  switch (shape) {
    case 'circle':
      return `M${cx - r} ${cy}a${r} ${r} 0 1 0 ${2 * r} 0a${r} ${r} 0 1 0 ${-2 * r} 0Z`;
    case 'square':
      return pts([
        [-0.85, -0.85],
        [0.85, -0.85],
        [0.85, 0.85],
        [-0.85, 0.85],
      ]);
    case 'triangle':
      return pts([
        [0, -1.05],
        [1, 0.8],
        [-1, 0.8],
      ]);
    case 'triangle-down':
      return pts([
        [0, 1.05],
        [1, -0.8],
        [-1, -0.8],
      ]);
    case 'diamond':
      return pts([
        [0, -1.1],
        [1, 0],
        [0, 1.1],
        [-1, 0],
      ]);
    case 'plus':
      return pts([
        [-t, -1],
        [t, -1],
        [t, -t],
        [1, -t],
        [1, t],
        [t, t],
        [t, 1],
        [-t, 1],
        [-t, t],
        [-1, t],
        [-1, -t],
        [-t, -t],
      ]);
    case 'cross': {
      const a = t * Math.SQRT1_2 * 1.4;
      const e = 0.8;
      return pts([
        [-e, -e + a],
        [-e + a, -e],
        [0, -a],
        [e - a, -e],
        [e, -e + a],
        [a, 0],
        [e, e - a],
        [e - a, e],
        [0, a],
        [-e + a, e],
        [-e, e - a],
        [-a, 0],
      ]);
    }
    case 'star': {
      const list: [number, number][] = [];
      for (let i = 0; i < 10; i++) {
        const ang = -Math.PI / 2 + (i * Math.PI) / 5;
        const rr = i % 2 ? 0.45 : 1.1;
        list.push([Math.cos(ang) * rr, Math.sin(ang) * rr]);
      }
      return pts(list);
    }
  }
}

/** The swatch of a legend entry: a square (bar), a dot (point), or a short line with its dash and marker. */
function Swatch({ item }: { item: LegendItem }) {
  if (item.mark === 'line' && (item.shape || item.dash)) {
    return (
      <svg className="chart-legend-swatch swatch-svg" width={26} height={12} viewBox="0 0 26 12" aria-hidden="true">
        <line x1={1} y1={6} x2={25} y2={6} stroke={item.color} strokeWidth={2} strokeDasharray={item.dash || undefined} />
        {item.shape ? <path d={markerPath(item.shape, 13, 6, 3.6)} fill={item.color} stroke="#fff" strokeWidth={0.8} /> : null}
      </svg>
    );
  }
  return <span className={`chart-legend-swatch swatch-${item.mark ?? 'bar'}`} style={{ background: item.color }} aria-hidden="true" />;
}

/** The legend of a chart, in the order of its series; a grid of columns once there are more than four. */
export function SeriesLegend({ items, testId = 'chart-legend' }: { items: LegendItem[]; testId?: string }) {
  if (!items.length) return null;
  return (
    <ul className={`chart-legend${items.length > 4 ? ' chart-legend-columns' : ''}`} data-testid={testId}>
      {items.map((it) => (
        <li key={it.name} className="chart-legend-item" data-testid="legend-item" title={it.name}>
          <Swatch item={it} />
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

const AXIS_FONT_PX = 12;

let measureCtx: CanvasRenderingContext2D | null | undefined;
let measureFont = '';

/** Width in px of `text` at `size` px in the page's font (a canvas measures it); an estimate where there is no canvas. */
export function textPx(text: string, size = AXIS_FONT_PX): number {
  if (measureCtx === undefined) {
    try {
      const ctx = typeof document === 'undefined' ? null : document.createElement('canvas').getContext('2d');
      measureCtx = ctx && typeof ctx.measureText === 'function' ? ctx : null;
      measureFont = typeof getComputedStyle === 'function' && document.body ? getComputedStyle(document.body).fontFamily : '';
    } catch {
      measureCtx = null;
    }
  }
  if (measureCtx) {
    measureCtx.font = `${size}px ${measureFont || 'sans-serif'}`;
    const w = measureCtx.measureText(text).width;
    if (Number.isFinite(w) && (w > 0 || !text)) return w;
  }
  let em = 0;
  for (const ch of text) em += "il.,:;|!'’ ()".includes(ch) ? 0.3 : 'mwMW@%'.includes(ch) ? 0.9 : ch >= 'A' && ch <= 'Z' ? 0.68 : 0.56;
  return em * size;
}

/**
 * Lines of `text` no wider than `width` px at `size` px, broken only between words. `whole` is false when a word
 * alone is wider than `width` or more than `maxLines` lines are needed.
 */
export function wrapWords(text: string, width: number, size = AXIS_FONT_PX, maxLines = 3): { lines: string[]; whole: boolean } {
  const words = text.trim().split(/\s+/).filter(Boolean);
  const lines: string[] = [];
  let whole = true;
  let cur = '';
  for (const w of words) {
    const next = cur ? `${cur} ${w}` : w;
    if (!cur || textPx(next, size) <= width) {
      if (!cur && textPx(w, size) > width) whole = false;
      cur = next;
    } else {
      lines.push(cur);
      cur = w;
      if (textPx(w, size) > width) whole = false;
    }
  }
  if (cur) lines.push(cur);
  return { lines, whole: whole && lines.length <= maxLines };
}

/** `text` cut to `width` px with an ellipsis, dropping whole words where it can (a lone word too wide is cut). */
function shorten(text: string, width: number, size: number): string {
  if (textPx(text, size) <= width) return text;
  const words = text.split(' ');
  while (words.length > 1) {
    words.pop();
    const shown = `${words.join(' ').replace(/[\s·,;:+—–-]+$/, '')}…`;
    if (textPx(shown, size) <= width) return shown;
  }
  const chars = [...words[0]!];
  while (chars.length > 1 && textPx(`${chars.join('')}…`, size) > width) chars.pop();
  return `${chars.join('')}…`;
}

/** Font sizes a category label may shrink to before it is shortened. */
const TICK_SIZES = [AXIS_FONT_PX, 11, 10];
const TICK_LINES = 3;

/**
 * How a category label fits a band `width` px wide: in up to three lines broken between words, at 12 px or a
 * little smaller; failing that, shortened with an ellipsis (whole words dropped first), the full name in a tooltip.
 */
export function layoutCategoryLabel(name: string, width: number): { lines: string[]; size: number; shortened: boolean } {
  for (const size of TICK_SIZES) {
    const w = wrapWords(name, width, size, TICK_LINES);
    if (w.whole) return { lines: w.lines, size, shortened: false };
  }
  const size = TICK_SIZES[TICK_SIZES.length - 1]!;
  const { lines } = wrapWords(name, width, size, Number.POSITIVE_INFINITY);
  const kept = lines.slice(0, TICK_LINES).map((l) => shorten(l, width, size));
  if (lines.length > TICK_LINES) kept[TICK_LINES - 1] = shorten(`${lines[TICK_LINES - 1]} ${lines[TICK_LINES]}`, width, size);
  return { lines: kept, size, shortened: true };
}

/** A category tick in lines that fit its band, broken between words only, with the full name as a tooltip. */
export function WrappedTick(props: XAxisTickContentProps): ReactElement {
  const x = Number(props.x);
  const y = Number(props.y);
  const name = String(props.payload?.value ?? '');
  const band = Number(props.width ?? 0) / Math.max(1, props.visibleTicksCount);
  const { lines, size } = layoutCategoryLabel(name, Math.max(24, band - 8));
  return (
    <g transform={`translate(${x},${y})`} className="category-tick">
      <title>{name}</title>
      <text textAnchor="middle" fontSize={size} fill="#4a5566">
        {/* Each line's offset is on its tspan: a tspan's own dy would cancel one set on the text. */}
        {lines.map((l, i) => (
          <tspan key={i} x={0} dy={i ? size + 2 : size + 5}>
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

/** A bar chart with more categories than this takes the whole row of the chart grid, so its labels keep room. */
export const WIDE_CATEGORIES = 4;

interface BarGeometry {
  x?: number | string;
  y?: number | string;
  width?: number | string;
  height?: number | string;
  fill?: string;
}

/**
 * The shape of a bar that draws a bar of no length too (recharts leaves such a bar, and so its value label, out):
 * a 2 px stub on the baseline, so a 0 reads as a bar at 0 and carries its label. `columns`: vertical bars.
 */
export function barShape(orientation: 'columns' | 'rows') {
  return function BarMark(p: BarGeometry): ReactElement {
    const x = Number(p.x ?? 0);
    const y = Number(p.y ?? 0);
    const w = Number(p.width ?? 0);
    const h = Number(p.height ?? 0);
    if (orientation === 'columns') {
      const top = Math.min(y, y + h);
      return <rect className="bar-mark" x={x} y={h ? top : top - 2} width={Math.abs(w)} height={Math.max(2, Math.abs(h))} fill={p.fill} />;
    }
    return <rect className="bar-mark" x={Math.min(x, x + w)} y={y} width={Math.max(2, Math.abs(w))} height={Math.abs(h)} fill={p.fill} />;
  };
}

const VALUE_FONT_PX = 10;

/**
 * The value of a column (vertical bar from 0), printed above the bar or its whisker: level when it fits over the
 * bar, else turned upright so neighbouring values never collide. Rendered as an element inside the chart, so it
 * reads the y scale to find the whisker's top.
 */
export function ColumnValue(
  p: LabelProps & { rows?: { value: number; hi?: number }[]; formatValue?: (v: number) => string; series?: string },
): ReactElement | null {
  const scale = useYAxisScale();
  const row = p.rows?.[p.index ?? -1];
  if (!row || !Number.isFinite(row.value)) return null;
  const x = Number(p.x ?? 0);
  const w = Number(p.width ?? 0);
  const y = Number(p.y ?? 0);
  const h = Number(p.height ?? 0);
  let top = Math.min(y, y + h) - (h ? 0 : 2);
  if (scale && row.hi !== undefined && Number.isFinite(row.hi)) {
    const hy = Number(scale(row.hi));
    if (Number.isFinite(hy)) top = Math.min(top, hy);
  }
  const label = (p.formatValue ?? String)(row.value);
  const cx = x + w / 2;
  const level = textPx(label, VALUE_FONT_PX) + 2 <= Math.abs(w);
  return (
    <text
      className="bar-value"
      data-testid="bar-value"
      data-series={p.series}
      x={level ? cx : cx + VALUE_FONT_PX / 2 - 1}
      y={top - 4}
      transform={level ? undefined : `rotate(-90 ${cx + VALUE_FONT_PX / 2 - 1} ${top - 4})`}
      textAnchor={level ? 'middle' : 'start'}
      fontSize={VALUE_FONT_PX}
      fill="#1f2937"
    >
      {label}
    </text>
  );
}

/**
 * The value of an effect bar (horizontal bars from 0), printed just right of whatever the row draws: past the end of
 * the whisker of a bar to the right, past zero (or the whisker, where it crosses zero) of a bar to the left. So it
 * never sits on the interval, and never runs into the category labels left of the plot.
 */
export function effectValueLabel(rows: { estimate: number; lo: number; hi: number }[], format: (v: number) => string) {
  return function EffectValue(p: LabelProps): ReactElement | null {
    const row = rows[p.index ?? -1];
    if (!row || !Number.isFinite(row.estimate)) return null;
    const x = Number(p.x ?? 0);
    const w = Number(p.width ?? 0);
    const cy = Number(p.y ?? 0) + Number(p.height ?? 0) / 2;
    // A difference within rounding noise of 0 is 0 (it is printed 0.000 and drawn as a bar at 0).
    const v = Math.abs(row.estimate) < 1e-12 ? 0 : row.estimate;
    // recharts may hand a bar to the left of zero as (x = zero, width < 0) or (x = end, width > 0).
    const zero = v < 0 && w > 0 ? x + w : x;
    const end = v < 0 && w > 0 ? x : x + w;
    const perUnit = v !== 0 ? Math.abs(end - zero) / Math.abs(v) : 0;
    const right = Math.max(0, v, Number.isFinite(row.hi) ? row.hi : v);
    const tip = perUnit ? zero + right * perUnit : Math.max(zero, end);
    return (
      <text className="effect-value" data-testid="effect-value" x={tip + 6} y={cy + 4} textAnchor="start" fontSize={11} fill="#1f2937">
        {format(v)}
      </text>
    );
  };
}
