/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
// (DOM types for the callbacks that run inside the browser page; the engine itself compiles without them.)
// Issue 31, end to end in Debian's Chromium (browser mode, offline backend): every chart of the Analysis is drawn for
// three stored ablation runs at the edges — every candidate failing (all-zero), every condition the same (all-equal)
// and eight conditions that differ — at 1280 px and at 900 px, and read back from the page's bounding boxes: every
// bar carries its value (0.000 too), no two texts of a chart overlap, nothing sticks out of its chart, no category
// label is broken inside a word, and eight Pass@k series that coincide can still be told apart. Screenshots of the
// eight-condition and the all-zero charts land in docs/screenshots/.

import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../validate/helpers.ts';
import { EDGE_KINDS, EDGE_RUN_IDS, storeEdgeRuns, type EdgeKind } from '../helpers/edge-runs.ts';
import { acknowledgeSandboxNotice, CHROMIUM_NEED, launchChromium, startServe } from './helpers.ts';

const SCREENSHOTS = path.join(REPO_ROOT, 'docs', 'screenshots');
const WIDTHS = [1280, 900];
const CONDITIONS = 8;

interface Rect {
  x: number;
  y: number;
  w: number;
  h: number;
}
interface TextBox extends Rect {
  text: string;
}
/** One chart as the page draws it: its figure, each svg with its texts and marks, value labels, category ticks. */
interface ChartGeom {
  id: string;
  figure: Rect;
  svgs: { box: Rect; texts: TextBox[]; marks: TextBox[] }[];
  /** Value labels of bars (bar-value, effect-value). */
  values: string[];
  /** Category ticks: the full name (the tick's title), the lines drawn, the top of the text and the axis line's y. */
  ticks: { full: string; lines: string[]; top: number; axis: number }[];
  /** Other boxes that must stay inside the figure: captions, legend items. */
  parts: TextBox[];
}

const overlaps = (a: Rect, b: Rect) => a.x < b.x + b.w - 0.5 && b.x < a.x + a.w - 0.5 && a.y < b.y + b.h - 0.5 && b.y < a.y + a.h - 0.5;
const inside = (a: Rect, outer: Rect) =>
  a.x >= outer.x - 0.5 && a.y >= outer.y - 0.5 && a.x + a.w <= outer.x + outer.w + 0.5 && a.y + a.h <= outer.y + outer.h + 0.5;
const rect = (r: Rect) => `${r.x.toFixed(1)},${r.y.toFixed(1)} ${r.w.toFixed(1)}×${r.h.toFixed(1)}`;

/** Every chart figure of the Analysis' Charts tab, measured in the page. */
async function measure(page: Page): Promise<ChartGeom[]> {
  return page.evaluate(() => {
    const box = (el: Element) => {
      const r = el.getBoundingClientRect();
      return { x: r.x, y: r.y, w: r.width, h: r.height };
    };
    const text = (el: Element) => (el.textContent ?? '').trim();
    return [...document.querySelectorAll('[data-testid="analysis-charts"] figure.chart')].map((fig) => ({
      id: fig.getAttribute('data-testid') ?? '?',
      figure: box(fig),
      svgs: [...fig.querySelectorAll('svg.recharts-surface')].map((svg) => ({
        box: box(svg),
        texts: [...svg.querySelectorAll('text')].filter((t) => text(t) && box(t).w > 0).map((t) => ({ ...box(t), text: text(t) })),
        marks: [...svg.querySelectorAll('.recharts-bar-rectangle path, .recharts-dot, .recharts-scatter-symbol, .passk-marker, .recharts-errorBar line')]
          .filter((m) => box(m).w > 0 || box(m).h > 0)
          .map((m) => ({ ...box(m), text: m.getAttribute('class') ?? m.tagName })),
      })),
      values: [...fig.querySelectorAll('[data-testid="bar-value"], [data-testid="effect-value"]')].map(text),
      ticks: [...fig.querySelectorAll('.category-tick')].map((g) => {
        const axis = g.closest('svg')?.querySelector('.recharts-xAxis .recharts-cartesian-axis-line, .xAxis .recharts-cartesian-axis-line');
        return {
          full: (g.querySelector('title')?.textContent ?? '').trim(),
          lines: [...g.querySelectorAll('tspan')].map(text),
          top: box(g.querySelector('text')!).y,
          axis: axis ? box(axis).y : Number.NaN,
        };
      }),
      parts: [...fig.querySelectorAll('figcaption > span, [data-testid="legend-item"], .calibration-panel-title')].map((el) => ({
        ...box(el),
        text: text(el),
      })),
    }));
  });
}

/** What is wrong with one chart: overlapping texts, things outside their box, labels broken inside a word. */
function problems(c: ChartGeom): string[] {
  const out: string[] = [];
  for (const p of c.parts) if (!inside(p, c.figure)) out.push(`${c.id}: "${p.text}" (${rect(p)}) outside the figure (${rect(c.figure)})`);
  for (const s of c.svgs) {
    if (!inside(s.box, c.figure)) out.push(`${c.id}: a plot (${rect(s.box)}) outside the figure (${rect(c.figure)})`);
    for (const t of [...s.texts, ...s.marks]) if (!inside(t, s.box)) out.push(`${c.id}: "${t.text}" (${rect(t)}) clipped by its plot (${rect(s.box)})`);
    for (let i = 0; i < s.texts.length; i++)
      for (let j = i + 1; j < s.texts.length; j++)
        if (overlaps(s.texts[i]!, s.texts[j]!)) out.push(`${c.id}: "${s.texts[i]!.text}" overlaps "${s.texts[j]!.text}"`);
  }
  for (const t of c.ticks) {
    const words = t.full.split(/\s+/).filter(Boolean);
    const drawn = t.lines.flatMap((l) => l.split(/\s+/).filter(Boolean));
    const whole = drawn.every((w) => words.includes(w));
    if (!whole || drawn.join(' ') !== words.join(' ')) out.push(`${c.id}: category "${t.full}" drawn as ${JSON.stringify(t.lines)}`);
    if (!(t.top >= t.axis + 1)) out.push(`${c.id}: category "${t.full}" (top ${t.top.toFixed(1)}) drawn over its axis line (${t.axis.toFixed(1)})`);
  }
  return out;
}

/** Bar value labels each chart must carry for eight conditions (bars per condition × conditions, or six effects). */
const EXPECTED_VALUES: Record<string, number> = {
  'chart-factorial-pass1': 6,
  'chart-factorial-uncertainty': 6,
  'chart-selected-vs-raw': 2 * CONDITIONS,
  'chart-api': 3 * CONDITIONS,
  'chart-api-task-view': 3 * CONDITIONS,
};

describe.skipIf(CHROMIUM_NEED.skip)(`charts at the edges: all-zero, all-equal and eight conditions${CHROMIUM_NEED.note}`, () => {
  let server: ChildProcess;
  let context: BrowserContext;
  let page: Page;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    const served = await startServe('oc-e2e-edges-home-', undefined, storeEdgeRuns);
    server = served.server;
    context = await launchChromium(WIDTHS[0]!, 900, (u) => u.startsWith(served.url));
    page = context.pages()[0] ?? (await context.newPage());
    page.on('pageerror', (e) => pageErrors.push(e.message));
    await page.goto(served.openUrl);
    await acknowledgeSandboxNotice(page);
    await page.getByTestId('nav-experiment').click();
    await page.locator(`[data-testid="run-row"][data-run-id="${EDGE_RUN_IDS.eight}"]`).waitFor({ timeout: 30_000 });
  }, 300_000);

  afterAll(async () => {
    await context?.close();
    server?.kill('SIGTERM');
  });

  /** Ticks `kind`'s run alone, opens the Charts tab and waits until every chart is drawn. */
  async function show(kind: EdgeKind): Promise<void> {
    for (const other of EDGE_KINDS) {
      const box = page.locator(`[data-testid="run-row"][data-run-id="${EDGE_RUN_IDS[other]}"] [data-testid="run-select"]`);
      if ((await box.isChecked()) !== (other === kind)) await box.click();
    }
    await page.getByTestId('analysis-tab-charts').click();
    const charts = page.getByTestId('analysis-charts');
    await charts.waitFor({ state: 'visible', timeout: 60_000 });
    await expect.poll(() => charts.locator('figure.chart').count(), { timeout: 60_000 }).toBeGreaterThanOrEqual(7);
    await expect.poll(() => charts.getByTestId('chart-passk').locator('.passk-marker').count(), { timeout: 30_000 }).toBeGreaterThan(0);
    await page.mouse.move(0, 0); // no hover tooltip
  }

  for (const width of WIDTHS) {
    for (const kind of EDGE_KINDS) {
      it(`${kind} at ${width} px: labels present, no overlap, nothing clipped, words whole`, async () => {
        await page.setViewportSize({ width, height: 900 });
        await show(kind);
        const charts = await measure(page);
        const ids = charts.map((c) => c.id);
        for (const id of [...Object.keys(EXPECTED_VALUES), 'chart-passk', 'chart-calibration']) expect(ids, ids.join(', ')).toContain(id);

        // Every bar carries its value, in the one format of a rate (zeros too).
        for (const [id, n] of Object.entries(EXPECTED_VALUES)) {
          const values = charts.find((c) => c.id === id)!.values;
          expect(values, id).toHaveLength(n);
          for (const v of values) expect(v, id).toMatch(/^-?\d\.\d{3}$/);
          if (kind === 'all-zero') expect(new Set(values), id).toEqual(new Set(['0.000']));
        }
        if (kind === 'all-equal')
          for (const id of ['chart-factorial-pass1', 'chart-factorial-uncertainty']) expect(charts.find((c) => c.id === id)!.values).toContain('0.000');

        // Category labels: the eight conditions named whole.
        for (const id of ['chart-selected-vs-raw', 'chart-api', 'chart-api-task-view'])
          expect(charts.find((c) => c.id === id)!.ticks, id).toHaveLength(CONDITIONS);

        expect(charts.flatMap(problems)).toEqual([]);

        // Calibration: every point of every panel inside its panel (the all-zero failure rate is 1.0, at the top).
        const calibration = charts.find((c) => c.id === 'chart-calibration')!;
        expect(calibration.svgs).toHaveLength(CONDITIONS);
        expect(calibration.svgs.flatMap((s) => s.marks).length).toBeGreaterThanOrEqual(CONDITIONS);

        // Pass@k: eight series, each with its own marker, and its own dash and colour of line; markers at one k set apart.
        const passk = page.getByTestId('chart-passk');
        const curves = await passk
          .locator('.recharts-line-curve')
          .evaluateAll((els) => els.map((e) => `${e.getAttribute('stroke')}|${e.getAttribute('stroke-dasharray') ?? ''}`));
        expect(curves).toHaveLength(CONDITIONS);
        expect(new Set(curves).size).toBe(CONDITIONS);
        expect(new Set(curves.map((c) => c.split('|')[1])).size, curves.join(', ')).toBe(CONDITIONS);
        const markers = await passk.locator('.passk-marker').evaluateAll((els) =>
          els.map((m) => {
            const r = m.getBoundingClientRect();
            return { series: Number(m.getAttribute('data-series')), shape: m.getAttribute('data-shape') ?? '', cx: r.x + r.width / 2, cy: r.y + r.height / 2 };
          }),
        );
        const bySeries = Array.from({ length: CONDITIONS }, (_, i) => markers.filter((m) => m.series === i));
        expect(new Set(bySeries.map((s) => s[0]?.shape)).size).toBe(CONDITIONS);
        const points = bySeries[0]!.length;
        expect(points).toBeGreaterThan(0);
        for (const s of bySeries) expect(s).toHaveLength(points);
        for (let k = 0; k < points; k++) {
          const at = bySeries.map((s) => s[k]!);
          for (let i = 0; i < at.length; i++)
            for (let j = i + 1; j < at.length; j++)
              expect(Math.hypot(at[i]!.cx - at[j]!.cx, at[i]!.cy - at[j]!.cy), `k #${k + 1}, series ${i} and ${j}`).toBeGreaterThanOrEqual(3);
        }
        const legend = await passk.getByTestId('legend-item').count();
        expect(legend).toBe(CONDITIONS);

        if (width === WIDTHS[0] && (kind === 'eight' || kind === 'all-zero')) {
          // The app scrolls inside its own pane: a window as tall as the charts shows them all in one picture.
          fs.mkdirSync(SCREENSHOTS, { recursive: true });
          const el = page.getByTestId('analysis-charts');
          const tall = await el.evaluate((e) => Math.ceil(e.getBoundingClientRect().height));
          await page.setViewportSize({ width, height: tall + 400 });
          await el.scrollIntoViewIfNeeded();
          await page.mouse.move(0, 0);
          await el.screenshot({ path: path.join(SCREENSHOTS, kind === 'eight' ? 'charts-eight-conditions.png' : 'charts-all-zero.png') });
          await page.setViewportSize({ width, height: 900 });
        }
      }, 180_000);
    }
  }

  it('flags AUPRC beside a degenerate AUROC, and paired p-values where every pair ties, in the summary tables', async () => {
    await page.setViewportSize({ width: WIDTHS[0]!, height: 900 });
    await show('all-zero');
    await page.getByTestId('analysis-tab-summary').click();
    const table = page.getByTestId('conditions-table');
    await table.waitFor({ timeout: 30_000 });
    expect(await table.getByTestId('auroc-degenerate').count()).toBe(CONDITIONS);
    expect(await table.getByTestId('auprc-degenerate').count()).toBe(CONDITIONS);
    expect(await table.getByTestId('auprc-degenerate').first().locator('xpath=..').getAttribute('title')).toMatch(/one class only/);
    await show('all-equal');
    await page.getByTestId('analysis-tab-summary').click();
    const comparisons = page.getByTestId('comparisons-table');
    await comparisons.waitFor({ timeout: 30_000 });
    expect(await comparisons.getByTestId('mcnemar-degenerate').count()).toBeGreaterThan(0);
    expect(await page.getByTestId('conditions-table').getByTestId('auprc-degenerate').count()).toBe(0);
  }, 120_000);

  it('raised no page error', () => {
    expect(pageErrors).toEqual([]);
  });
});
