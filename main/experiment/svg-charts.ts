// Hand-written inline SVG charts for the experiment report: a forest plot, horizontal grouped bars with
// interval whiskers and a small-multiple reliability diagram. No chart library and no external resource:
// each function returns one `<svg>` element as a string, meant to be embedded in an HTML page (no xmlns
// needed there). Every string that reaches the markup goes through escapeXml.

import { rate } from '../model/format.ts';
import { niceTicks, tickLabel } from '../model/ticks.ts';
import type { CalibrationBin } from '../stats/metrics.ts';

/** Okabe–Ito palette (colour-blind safe), minus yellow which is unreadable on white. */
export const PALETTE = ['#0072B2', '#E69F00', '#009E73', '#CC79A7', '#D55E00', '#56B4E9', '#000000'] as const;

const FONT = 'system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif';
const INK = '#1f2328';
const MUTED = '#57606a';
const GRID = '#d0d7de';

export function escapeXml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

const finite = (x: number | null | undefined): x is number => typeof x === 'number' && Number.isFinite(x);

/** Rounds a coordinate to 0.1 px so the markup stays short and deterministic. */
const r = (x: number): string => {
  const v = Math.round(x * 10) / 10;
  return Object.is(v, -0) ? '0' : String(v);
};

/** Approximate rendered width of `text` at `size` px in a sans-serif font (no layout engine here). */
export function textWidth(text: string, size: number): number {
  let w = 0;
  for (const ch of text) {
    if ("il.,:;|!'’ ".includes(ch)) w += 0.3;
    else if ('mwMW@%'.includes(ch)) w += 0.9;
    else if (ch >= 'A' && ch <= 'Z') w += 0.68;
    else if (ch >= '0' && ch <= '9') w += 0.56;
    else w += 0.55;
  }
  return w * size;
}

/**
 * `text` shortened with an ellipsis so it fits in `width` px at `size` px: whole words are dropped from the end, so
 * a word is never broken; only when the first word alone is too wide is it cut (the caller gives the full text as a
 * tooltip either way).
 */
export function fitText(text: string, width: number, size: number): string {
  if (textWidth(text, size) <= width) return text;
  const words = text.split(' ');
  while (words.length > 1) {
    words.pop();
    const shown = `${words.join(' ').replace(/[\s·,;:+—–-]+$/, '')}…`;
    if (textWidth(shown, size) <= width) return shown;
  }
  const chars = [...words[0]!];
  while (chars.length > 1 && textWidth(chars.join('') + '…', size) > width) chars.pop();
  return chars.join('') + '…';
}

// Round ticks (1-2-5 steps, zero on a tick) live in main/model/ticks.ts, shared with the UI's charts.
export { niceTicks, tickLabel };

interface SvgFrame {
  id: string;
  chart: string;
  title: string;
  description: string;
  width: number;
  height: number;
  body: string[];
}

function svg(f: SvgFrame): string {
  const t = `${f.id}-title`;
  const d = `${f.id}-desc`;
  return [
    `<svg class="chart" id="${escapeXml(f.id)}" data-chart="${escapeXml(f.chart)}" role="img" aria-labelledby="${escapeXml(t)} ${escapeXml(d)}"`,
    ` viewBox="0 0 ${r(f.width)} ${r(f.height)}" width="${r(f.width)}" height="${r(f.height)}"`,
    ` style="max-width:100%;height:auto" font-family='${FONT}' font-size="12" fill="${INK}">`,
    `<title id="${escapeXml(t)}">${escapeXml(f.title)}</title>`,
    `<desc id="${escapeXml(d)}">${escapeXml(f.description)}</desc>`,
    `<rect class="bg" x="0" y="0" width="${r(f.width)}" height="${r(f.height)}" fill="#ffffff"/>`,
    ...f.body,
    '</svg>',
  ].join('\n');
}

function text(x: number, y: number, s: string, attrs: Record<string, string | number> = {}): string {
  const a = Object.entries(attrs)
    .map(([k, v]) => ` ${k}="${escapeXml(String(v))}"`)
    .join('');
  return `<text x="${r(x)}" y="${r(y)}"${a}>${escapeXml(s)}</text>`;
}

/** Text with a tooltip carrying the full string when it had to be shortened. */
function labelText(x: number, y: number, full: string, width: number, size: number, attrs: Record<string, string | number> = {}): string {
  const shown = fitText(full, width, size);
  const a = Object.entries({ 'font-size': size, ...attrs })
    .map(([k, v]) => ` ${k}="${escapeXml(String(v))}"`)
    .join('');
  const tip = shown === full ? '' : `<title>${escapeXml(full)}</title>`;
  return `<text x="${r(x)}" y="${r(y)}"${a}>${tip}${escapeXml(shown)}</text>`;
}

function line(x1: number, y1: number, x2: number, y2: number, stroke: string, extra = ''): string {
  return `<line x1="${r(x1)}" y1="${r(y1)}" x2="${r(x2)}" y2="${r(y2)}" stroke="${stroke}"${extra ? ' ' + extra : ''}/>`;
}

/** A horizontal value axis: gridlines over the plot, tick labels and the axis title below it. */
function xAxis(o: {
  x: (v: number) => number;
  ticks: number[];
  step: number;
  top: number;
  bottom: number;
  label: string;
  left: number;
  right: number;
}): string[] {
  const out: string[] = [`<g class="axis x-axis">`];
  for (const t of o.ticks) {
    const x = o.x(t);
    out.push(line(x, o.top, x, o.bottom, GRID, 'stroke-width="1"'));
    out.push(line(x, o.bottom, x, o.bottom + 5, MUTED));
    out.push(text(x, o.bottom + 18, tickLabel(t, o.step), { class: 'tick-label', 'text-anchor': 'middle', 'font-size': 11, fill: MUTED }));
  }
  out.push(line(o.left, o.bottom, o.right, o.bottom, MUTED));
  out.push(text((o.left + o.right) / 2, o.bottom + 38, o.label, { class: 'axis-label', 'text-anchor': 'middle', 'font-size': 12 }));
  out.push('</g>');
  return out;
}

// ---------------------------------------------------------------------------------------------------------
// Forest plot

export interface ForestRow {
  label: string;
  estimate: number;
  lo: number;
  hi: number;
  /** Right-hand annotation, e.g. "0.120 [0.040, 0.200]  Holm p = 0.012". */
  note: string;
  /** Colour/marker group index (e.g. 0 main effect, 1 interaction). */
  group?: number;
}

export interface ForestOptions {
  id: string;
  chart: string;
  title: string;
  xLabel: string;
  rows: ForestRow[];
  /** Header of the right-hand annotation column. */
  noteHeader?: string;
  legend?: { label: string; group: number }[];
  width?: number;
}

export function forestPlot(o: ForestOptions): string {
  const width = o.width ?? 980;
  const rowH = 28;
  const labelSize = 13;
  const noteSize = 12;
  const labelW = Math.min(200, Math.max(80, ...o.rows.map((row) => textWidth(row.label, labelSize)))) + 12;
  const noteW = Math.min(300, Math.max(150, textWidth(o.noteHeader ?? '', 11), ...o.rows.map((row) => textWidth(row.note, noteSize)))) + 16;
  const left = 12 + labelW;
  const right = width - noteW - 12;
  const top = o.legend?.length ? 56 : 40;
  const bottom = top + Math.max(1, o.rows.length) * rowH + 8;
  const height = bottom + 50;

  const values = o.rows.flatMap((row) => [row.estimate, row.lo, row.hi]).filter(finite);
  const lo = Math.min(0, ...values);
  const hi = Math.max(0, ...values);
  const pad = (hi - lo || 1) * 0.06;
  const scale = niceTicks(lo - pad, hi + pad, { count: 6, includeZero: true });
  const x = (v: number) => left + ((v - scale.min) / (scale.max - scale.min)) * (right - left);

  const body: string[] = [];
  body.push(text(12, 24, o.title, { class: 'chart-title', 'font-size': 14, 'font-weight': 600 }));
  if (o.legend?.length) {
    let lx = 12;
    for (const item of o.legend) {
      body.push(marker(lx + 5, 42, item.group));
      body.push(text(lx + 14, 46, item.label, { class: 'legend-label', 'font-size': 11, fill: MUTED }));
      lx += 24 + textWidth(item.label, 11);
    }
  }
  body.push(text(right + 12, top - 8, o.noteHeader ?? '', { class: 'column-header', 'font-size': 11, fill: MUTED }));
  body.push(...xAxis({ x, ticks: scale.ticks, step: scale.step, top, bottom, label: o.xLabel, left, right }));
  body.push(line(x(0), top - 4, x(0), bottom, INK, 'class="zero-line" stroke-width="1.5" stroke-dasharray="5 3"'));

  o.rows.forEach((row, i) => {
    const cy = top + i * rowH + rowH / 2 + 4;
    if (i % 2 === 1)
      body.push(`<rect class="band" x="${r(left)}" y="${r(cy - rowH / 2)}" width="${r(right - left)}" height="${rowH}" fill="#f6f8fa" fill-opacity="0.7"/>`);
    body.push(labelText(left - 10, cy + 4, row.label, labelW - 8, labelSize, { class: 'row-label', 'text-anchor': 'end' }));
    const color = PALETTE[(row.group ?? 0) % PALETTE.length]!;
    if (finite(row.lo) && finite(row.hi)) {
      body.push(
        `<g class="whisker">${line(x(row.lo), cy, x(row.hi), cy, color, 'stroke-width="2"')}${line(x(row.lo), cy - 5, x(row.lo), cy + 5, color, 'stroke-width="2"')}${line(x(row.hi), cy - 5, x(row.hi), cy + 5, color, 'stroke-width="2"')}</g>`,
      );
    }
    if (finite(row.estimate)) body.push(marker(x(row.estimate), cy, row.group ?? 0));
    else body.push(text(x(0) + 6, cy + 4, 'n/a', { 'font-size': 11, fill: MUTED }));
    body.push(text(right + 12, cy + 4, row.note, { class: 'row-note', 'font-size': noteSize }));
  });

  return svg({
    id: o.id,
    chart: o.chart,
    title: o.title,
    description: `Forest plot: ${o.rows.length} estimates with intervals; the dashed line marks zero. ${o.xLabel}.`,
    width,
    height,
    body,
  });
}

function marker(cx: number, cy: number, group: number): string {
  const color = PALETTE[group % PALETTE.length]!;
  if (group % 2 === 1) {
    const s = 6.5;
    return `<path class="mark" d="M${r(cx)} ${r(cy - s)}L${r(cx + s)} ${r(cy)}L${r(cx)} ${r(cy + s)}L${r(cx - s)} ${r(cy)}Z" fill="${color}" stroke="#ffffff" stroke-width="1"/>`;
  }
  return `<rect class="mark" x="${r(cx - 5)}" y="${r(cy - 5)}" width="10" height="10" fill="${color}" stroke="#ffffff" stroke-width="1"/>`;
}

// ---------------------------------------------------------------------------------------------------------
// Horizontal grouped bars

export interface BarValue {
  value: number;
  lo?: number;
  hi?: number;
}

export interface BarGroup {
  label: string;
  /** Optional section header shown above the first group of each section (e.g. the run). */
  section?: string;
  /** One entry per series, in series order; null where the series has no value for this group. */
  values: (BarValue | null)[];
}

export interface BarOptions {
  id: string;
  chart: string;
  title: string;
  xLabel: string;
  series: { label: string }[];
  groups: BarGroup[];
  /** Value domain; [0, 1] for rates. */
  domain?: [number, number];
  /** Legend text of the whiskers, when any value has an interval. */
  intervalLabel?: string;
  width?: number;
}

const BAR_H = 13;
const BAR_GAP = 2;
const GROUP_GAP = 12;
const SECTION_H = 24;

/** Where a grouped-bar chart puts things: the label column, the plot between left and right, the value scale. */
interface BarLayout {
  labelW: number;
  labelSize: number;
  left: number;
  right: number;
  top: number;
  /** Height of one group of bars (a bar per series). */
  groupH: number;
  scale: ReturnType<typeof niceTicks>;
  x: (v: number) => number;
}

export function groupedBars(o: BarOptions): string {
  const width = o.width ?? 980;
  const labelSize = 12;
  const labelW = Math.min(300, Math.max(80, ...o.groups.map((g) => textWidth(g.label, labelSize)))) + 12;
  const left = 12 + labelW;
  const right = width - 56; // room for the value printed after the last whisker
  const top = 58;
  const groupH = o.series.length * (BAR_H + BAR_GAP) - BAR_GAP;

  const values = o.groups.flatMap((g) => g.values.flatMap((v) => (v ? [v.value, v.lo ?? Number.NaN, v.hi ?? Number.NaN] : []))).filter(finite);
  const [dMin, dMax] = o.domain ?? [Math.min(0, ...values), Math.max(0, ...values)];
  const scale = niceTicks(dMin, dMax, { count: 5, includeZero: true });
  const x = (v: number) => left + ((Math.max(scale.min, Math.min(scale.max, v)) - scale.min) / (scale.max - scale.min)) * (right - left);
  const layout: BarLayout = { labelW, labelSize, left, right, top, groupH, scale, x };

  const body: string[] = [text(12, 24, o.title, { class: 'chart-title', 'font-size': 14, 'font-weight': 600 }), ...barLegend(o)];
  const { rows, bottom } = barRows(o, layout);
  body.push(...xAxis({ x, ticks: scale.ticks, step: scale.step, top, bottom, label: o.xLabel, left, right }));
  body.push(...rows);
  const height = bottom + 50;

  return svg({
    id: o.id,
    chart: o.chart,
    title: o.title,
    description: `Horizontal bars for ${o.groups.length} groups and series ${o.series.map((s) => s.label).join(', ')}. ${o.xLabel}.`,
    width,
    height,
    body,
  });
}

/** A swatch per series, then the whisker's meaning when any value has an interval. */
function barLegend(o: BarOptions): string[] {
  const out: string[] = [];
  let lx = 12;
  o.series.forEach((s, i) => {
    out.push(`<rect class="legend-swatch" x="${r(lx)}" y="36" width="12" height="12" fill="${PALETTE[i % PALETTE.length]}"/>`);
    out.push(text(lx + 17, 46, s.label, { class: 'legend-label', 'font-size': 11, fill: MUTED }));
    lx += 32 + textWidth(s.label, 11);
  });
  if (o.groups.some((g) => g.values.some((v) => v && finite(v.lo) && finite(v.hi)))) {
    out.push(
      line(lx + 8, 42, lx + 26, 42, INK, 'stroke-width="1.3"'),
      line(lx + 8, 38, lx + 8, 46, INK, 'stroke-width="1.3"'),
      line(lx + 26, 38, lx + 26, 46, INK, 'stroke-width="1.3"'),
    );
    out.push(text(lx + 32, 46, o.intervalLabel ?? 'interval', { class: 'legend-label', 'font-size': 11, fill: MUTED }));
  }
  return out;
}

/** Section headers, group labels and bars, top to bottom; `bottom` is where the plot ends. */
function barRows(o: BarOptions, l: BarLayout): { rows: string[]; bottom: number } {
  const rows: string[] = [];
  let y = l.top + 6;
  let lastSection: string | undefined;
  for (const g of o.groups) {
    if (g.section !== undefined && g.section !== lastSection) {
      if (lastSection !== undefined) y += 4;
      rows.push(labelText(12, y + 15, g.section, l.right - 12, 12, { class: 'section-label', 'font-weight': 600, fill: MUTED }));
      y += SECTION_H;
      lastSection = g.section;
    }
    rows.push(labelText(l.left - 10, y + l.groupH / 2 + 4, g.label, l.labelW - 8, l.labelSize, { class: 'row-label', 'text-anchor': 'end' }));
    g.values.forEach((v, i) => rows.push(...barMarks(`${g.label} — ${o.series[i]?.label ?? ''}`, v, i, y + i * (BAR_H + BAR_GAP), l)));
    y += l.groupH + GROUP_GAP;
  }
  return { rows, bottom: y - GROUP_GAP + 8 };
}

/** One bar at `by` (series i): the bar with its tooltip, its whisker, its value; `n/a` without a value. */
function barMarks(name: string, v: BarValue | null, i: number, by: number, { x, scale }: BarLayout): string[] {
  if (!v || !finite(v.value)) return [text(x(scale.min) + 4, by + BAR_H - 3, 'n/a', { 'font-size': 10, fill: MUTED })];
  const color = PALETTE[i % PALETTE.length]!;
  const x0 = x(Math.max(0, scale.min));
  const x1 = x(v.value);
  const tip = `${name}: ${rate(v.value)}${finite(v.lo) && finite(v.hi) ? ` [${rate(v.lo)}, ${rate(v.hi)}]` : ''}`;
  const out = [
    `<rect class="mark bar" x="${r(Math.min(x0, x1))}" y="${r(by)}" width="${r(Math.max(1, Math.abs(x1 - x0)))}" height="${BAR_H}" fill="${color}"><title>${escapeXml(tip)}</title></rect>`,
  ];
  let end = x1;
  if (finite(v.lo) && finite(v.hi)) {
    const wy = by + BAR_H / 2;
    out.push(
      `<g class="whisker">${line(x(v.lo), wy, x(v.hi), wy, INK, 'stroke-width="1.3"')}${line(x(v.lo), wy - 4, x(v.lo), wy + 4, INK, 'stroke-width="1.3"')}${line(x(v.hi), wy - 4, x(v.hi), wy + 4, INK, 'stroke-width="1.3"')}</g>`,
    );
    end = Math.max(end, x(v.hi));
  }
  // Every bar carries its value, a zero too (a bar of no length is otherwise invisible).
  out.push(text(end + 4, by + BAR_H - 2.5, rate(v.value), { class: 'value-label', 'font-size': 10, fill: MUTED }));
  return out;
}

// ---------------------------------------------------------------------------------------------------------
// Reliability diagram (small multiples)

export interface ReliabilityPanel {
  label: string;
  /** A line between the label and the note: the panel's backend, when panels of several backends share the diagram. */
  tag?: string;
  /** Second line under the label, e.g. "ECE 0.084 · AUROC 0.71". */
  note?: string;
  bins: CalibrationBin[];
}

export interface ReliabilityOptions {
  id: string;
  chart: string;
  title: string;
  xLabel: string;
  yLabel: string;
  panels: ReliabilityPanel[];
  columns?: number;
  width?: number;
}

/** Inset of a reliability panel's unit square inside its frame (at least the largest point's radius). */
const INSET = 8;

export function reliabilityDiagram(o: ReliabilityOptions): string {
  const width = o.width ?? 980;
  const columns = Math.max(1, Math.min(o.columns ?? 4, o.panels.length));
  const outerLeft = 44;
  const gapX = 34;
  const cellW = (width - outerLeft - 12 - gapX * (columns - 1)) / columns;
  const plot = Math.min(cellW, 220);
  const tagged = o.panels.some((p) => p.tag);
  const headH = tagged ? 54 : 40;
  const tickH = 18;
  const stripH = 26;
  const rowGap = 18;
  const cellH = headH + plot + tickH + stripH + rowGap;
  const top = 40;
  const rows = Math.ceil(o.panels.length / columns);
  const height = top + rows * cellH + 40;
  const maxCount = Math.max(1, ...o.panels.flatMap((p) => p.bins.map((b) => b.count)));

  const body: string[] = [];
  body.push(text(12, 24, o.title, { class: 'chart-title', 'font-size': 14, 'font-weight': 600 }));
  o.panels.forEach((p, i) => {
    const col = i % columns;
    const row = Math.floor(i / columns);
    const px = outerLeft + col * (cellW + gapX);
    const py = top + row * cellH + headH;
    // The unit square sits inset in its frame, so a point at 0 or 1 (the largest is 7 px across) is drawn whole.
    const inner = plot - 2 * INSET;
    const sx = (v: number) => px + INSET + v * inner;
    const sy = (v: number) => py + plot - INSET - v * inner;
    const color = PALETTE[0];
    const g: string[] = [`<g class="panel">`];
    g.push(labelText(px, py - (tagged ? 38 : 24), p.label, plot, 12, { class: 'panel-label', 'font-weight': 600 }));
    if (p.tag) g.push(labelText(px, py - 23, p.tag, plot, 10, { class: 'panel-tag', fill: INK }));
    if (p.note) g.push(labelText(px, py - 9, p.note, plot, 10, { class: 'panel-note', fill: MUTED }));
    g.push(`<rect class="frame" x="${r(px)}" y="${r(py)}" width="${r(plot)}" height="${r(plot)}" fill="#fbfcfd" stroke="${GRID}"/>`);
    for (const t of [0.25, 0.5, 0.75]) {
      g.push(line(sx(t), py, sx(t), py + plot, GRID, 'stroke-width="0.7"'));
      g.push(line(px, sy(t), px + plot, sy(t), GRID, 'stroke-width="0.7"'));
    }
    for (const t of [0, 0.5, 1]) {
      g.push(
        text(sx(t), py + plot + 14, tickLabel(t, 0.5), {
          class: 'tick-label',
          'text-anchor': t === 0 ? 'start' : t === 1 ? 'end' : 'middle',
          'font-size': 10,
          fill: MUTED,
        }),
      );
      g.push(text(px - 4, sy(t) + 3.5, tickLabel(t, 0.5), { class: 'tick-label', 'text-anchor': 'end', 'font-size': 10, fill: MUTED }));
    }
    g.push(line(sx(0), sy(0), sx(1), sy(1), MUTED, 'class="diagonal" stroke-width="1" stroke-dasharray="4 3"'));
    const used = p.bins.filter((b) => b.count > 0 && finite(b.meanPredicted) && finite(b.observedRate)).sort((a, b) => a.meanPredicted - b.meanPredicted);
    if (used.length > 1)
      g.push(
        `<polyline class="mark curve" points="${used.map((b) => `${r(sx(b.meanPredicted))},${r(sy(b.observedRate))}`).join(' ')}" fill="none" stroke="${color}" stroke-width="1.8"/>`,
      );
    for (const b of used) {
      const rad = 3 + 4 * Math.sqrt(b.count / maxCount);
      g.push(
        `<circle class="mark point" cx="${r(sx(b.meanPredicted))}" cy="${r(sy(b.observedRate))}" r="${r(rad)}" fill="${color}" fill-opacity="0.85" stroke="#ffffff" stroke-width="1"><title>${escapeXml(`bin [${b.lo.toFixed(2)}, ${b.hi.toFixed(2)}]: ${b.count} tasks, predicted ${rate(b.meanPredicted)}, observed ${rate(b.observedRate)}`)}</title></circle>`,
      );
    }
    // Bin counts in a strip under the panel: a bar (height ∝ count) and the count above it, one per bin.
    const stripTop = py + plot + tickH;
    g.push(text(px - 4, stripTop + stripH - 2, 'n', { class: 'tick-label', 'text-anchor': 'end', 'font-size': 10, fill: MUTED, 'font-style': 'italic' }));
    g.push(line(px, stripTop + stripH, px + plot, stripTop + stripH, GRID));
    for (const b of p.bins) {
      if (!b.count) continue;
      const bw = (b.hi - b.lo) * inner;
      const bh = Math.max(1.5, (b.count / maxCount) * (stripH - 12));
      g.push(
        `<rect class="mark count-bar" x="${r(sx(b.lo) + 1)}" y="${r(stripTop + stripH - bh)}" width="${r(Math.max(1, bw - 2))}" height="${r(bh)}" fill="${PALETTE[1]}" fill-opacity="0.6"><title>${escapeXml(`bin [${b.lo.toFixed(2)}, ${b.hi.toFixed(2)}]: ${b.count} tasks`)}</title></rect>`,
      );
      g.push(
        text(sx((b.lo + b.hi) / 2), stripTop + stripH - bh - 2, String(b.count), {
          class: 'count-label',
          'text-anchor': 'middle',
          'font-size': bw < 14 ? 7 : 9,
          fill: INK,
        }),
      );
    }
    if (!used.length) g.push(text(px + plot / 2, py + plot / 2, 'no scored tasks', { 'text-anchor': 'middle', 'font-size': 11, fill: MUTED }));
    g.push('</g>');
    body.push(...g);
  });
  const plotBottom = top + rows * cellH - rowGap;
  body.push(text(outerLeft + (width - outerLeft - 12) / 2, plotBottom + 26, o.xLabel, { class: 'axis-label', 'text-anchor': 'middle', 'font-size': 12 }));
  const midY = top + (rows * cellH) / 2;
  body.push(
    `<text class="axis-label" x="0" y="0" transform="translate(14 ${r(midY)}) rotate(-90)" text-anchor="middle" font-size="12">${escapeXml(o.yLabel)}</text>`,
  );

  return svg({
    id: o.id,
    chart: o.chart,
    title: o.title,
    description: `Reliability diagrams for ${o.panels.length} conditions: points are bins (size and n = task count), the dashed diagonal is perfect calibration, bars along the bottom show bin counts. ${o.xLabel} vs ${o.yLabel}.`,
    width,
    height,
    body,
  });
}
