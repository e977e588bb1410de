/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
// (DOM types for the callbacks that run inside the browser page; the engine itself compiles without them.)
// The HTML report at a 1280 px window in Debian's Chromium (issue 17, item 5): every value axis has round ticks
// (1, 2 or 5 × 10^k) with 0 on one of them, and every wide table either fits or scrolls inside its own box
// with its first column kept in view, so no column is cut off at the window's right edge.

import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeReport } from '../../main/experiment/report.ts';
import { buildReportFixture } from '../helpers/report-fixture.ts';
import { tmpDir } from '../helpers/tmp-repo.ts';
import { CHROMIUM_NEED, launchChromium } from '../e2e/helpers.ts';

/** True when `step` is 1, 2 or 5 × 10^k. */
function roundStep(step: number): boolean {
  const mag = 10 ** Math.floor(Math.log10(step) + 1e-9);
  return [1, 2, 5, 10].some((m) => Math.abs(step / mag - m) < 1e-6);
}

describe.skipIf(CHROMIUM_NEED.skip)(`HTML report readability at 1280 px${CHROMIUM_NEED.note}`, () => {
  let context: BrowserContext;
  let page: Page;

  beforeAll(async () => {
    const dir = tmpDir('oc-report-readable-');
    const [file] = writeReport(buildReportFixture(), 'html', path.join(dir, 'report.html'));
    const url = pathToFileURL(file!).href;
    context = await launchChromium(1280, 900, (u) => u === url);
    page = context.pages()[0] ?? (await context.newPage());
    await page.goto(url, { waitUntil: 'load' });
  }, 60_000);

  afterAll(async () => {
    await context?.close();
  });

  it('puts 0 on a tick of every value axis and steps the ticks by 1, 2 or 5 × 10^k', async () => {
    const axes = await page.evaluate(() =>
      [...document.querySelectorAll('svg[data-chart] .x-axis')].map((g) => ({
        chart: g.closest('svg')!.getAttribute('data-chart'),
        ticks: [...g.querySelectorAll('.tick-label')].map((t) => (t.textContent ?? '').trim()),
      })),
    );
    expect(axes.map((a) => a.chart)).toContain('factorial-effects');
    for (const { chart, ticks } of axes) {
      const values = ticks.map(Number);
      expect(values.every(Number.isFinite), `${chart}: ${ticks.join(' ')}`).toBe(true);
      expect(values, `${chart}: ${ticks.join(' ')}`).toContain(0);
      const steps = values.slice(1).map((v, i) => v - values[i]!);
      for (const s of steps) expect(s, `${chart}: ${ticks.join(' ')}`).toBeCloseTo(steps[0]!, 6);
      expect(roundStep(steps[0]!), `${chart}: ${ticks.join(' ')}`).toBe(true);
    }
  });

  it('cuts no table off at the right edge: each fits or scrolls in its box with a sticky first column', async () => {
    const view = await page.evaluate(() => document.documentElement.clientWidth);
    expect(await page.evaluate(() => document.documentElement.scrollWidth), 'no page-wide horizontal scroll').toBeLessThanOrEqual(view + 1);
    const tables = await page.evaluate(() =>
      [...document.querySelectorAll<HTMLElement>('.table-wrap')]
        .filter((w) => w.offsetParent !== null && w.querySelector('table:not(.kv)'))
        .map((wrap) => {
          const table = wrap.querySelector('table')!;
          const box = wrap.getBoundingClientRect();
          const wide = wrap.scrollWidth > wrap.clientWidth + 1;
          wrap.scrollLeft = wrap.scrollWidth;
          const first = table.querySelector('tbody tr')?.firstElementChild?.getBoundingClientRect();
          const head = table.querySelector('thead tr')?.firstElementChild?.getBoundingClientRect();
          const out = {
            name: table.getAttribute('data-table'),
            right: box.right,
            wide,
            overflow: getComputedStyle(wrap).overflowX,
            firstOffset: first ? first.left - box.left : 0,
            headOffset: head ? head.left - box.left : 0,
          };
          wrap.scrollLeft = 0;
          return out;
        }),
    );
    expect(tables.map((t) => t.name)).toContain('summary');
    for (const t of tables) {
      expect(t.right, `${t.name} box ends inside the window`).toBeLessThanOrEqual(view + 0.5);
      if (!t.wide) continue;
      expect(['auto', 'scroll'], `${t.name} scrolls`).toContain(t.overflow);
      expect(Math.abs(t.firstOffset), `${t.name}: first column stays in view when scrolled`).toBeLessThanOrEqual(1.5);
      expect(Math.abs(t.headOffset), `${t.name}: first header stays in view when scrolled`).toBeLessThanOrEqual(1.5);
    }
    expect(tables.find((t) => t.name === 'summary')!.wide, 'the fixture summary is wider than 1280 px').toBe(true);
  });
});
