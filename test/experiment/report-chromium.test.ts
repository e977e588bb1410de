/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
// (DOM types for the callbacks that run inside the browser page; the engine itself compiles without them.)
// Opens the written HTML report in Debian's Chromium (headless, via playwright-core) with every request that
// is not the report file itself aborted and recorded: the report must load nothing, raise no console error or
// CSP violation, and draw its four charts. A full-page screenshot lands in test/e2e/artifacts/report.png.

import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeReport } from '../../main/experiment/report.ts';
import { buildReportFixture } from '../helpers/report-fixture.ts';
import { CHROMIUM, CHROMIUM_ARGS, CHROMIUM_NEED } from '../e2e/helpers.ts';
import { tmpDir } from '../helpers/tmp-repo.ts';

const CHARTS = ['factorial-effects', 'pass-at-k', 'uncertainty-vs-correctness', 'api-f1'] as const;
const ARTIFACTS = path.resolve(import.meta.dirname, '../e2e/artifacts');

describe.skipIf(CHROMIUM_NEED.skip)(`HTML report in Chromium (${CHROMIUM})${CHROMIUM_NEED.note}`, () => {
  let context: BrowserContext;
  let profile: string;
  let reportUrl: string;
  const blocked: string[] = [];
  const requests: string[] = [];
  const consoleErrors: string[] = [];

  beforeAll(async () => {
    const dir = tmpDir('oc-report-e2e-');
    const [file] = writeReport(buildReportFixture(), 'html', path.join(dir, 'report.html'));
    reportUrl = pathToFileURL(file!).href;
    profile = tmpDir('oc-chromium-profile-');
    context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      viewport: { width: 1500, height: 900 },
      args: CHROMIUM_ARGS,
    });
    await context.route('**/*', async (route) => {
      const url = route.request().url();
      if (url === reportUrl) return route.continue();
      blocked.push(url);
      return route.abort('blockedbyclient');
    });
    context.on('request', (r) => requests.push(r.url()));
    // Runs in the page before the document, outside its CSP: records any CSP violation the document triggers.
    await context.addInitScript(() => {
      const w = window as unknown as { __cspViolations: string[] };
      w.__cspViolations = [];
      document.addEventListener('securitypolicyviolation', (e) => w.__cspViolations.push(`${e.violatedDirective} ${e.blockedURI}`));
    });
  }, 60_000);

  afterAll(async () => {
    await context?.close();
    if (profile) fs.rmSync(profile, { recursive: true, force: true });
  });

  it('loads nothing but itself, draws the four charts and saves a screenshot', async () => {
    const page = context.pages()[0] ?? (await context.newPage());
    page.on('console', (m) => {
      if (m.type() === 'error' || /Content Security Policy/i.test(m.text())) consoleErrors.push(m.text());
    });
    page.on('pageerror', (e) => consoleErrors.push(String(e)));

    const response = await page.goto(reportUrl, { waitUntil: 'load' });
    expect(response === null || response.ok()).toBe(true);
    await page.waitForTimeout(300);

    expect(await page.title()).toMatch(/RepoExec-small/);
    expect(blocked, `blocked requests: ${blocked.join(', ')}`).toEqual([]);
    expect(requests.filter((u) => u !== reportUrl)).toEqual([]);
    expect(consoleErrors).toEqual([]);
    expect(await page.evaluate(() => (window as unknown as { __cspViolations: string[] }).__cspViolations)).toEqual([]);

    for (const chart of CHARTS) {
      const svg = page.locator(`svg[data-chart="${chart}"]`).first();
      await expect(svg.isVisible(), chart).resolves.toBe(true);
      const box = await svg.boundingBox();
      expect(box, chart).not.toBeNull();
      expect(box!.width, chart).toBeGreaterThan(300);
      expect(box!.height, chart).toBeGreaterThan(150);
      const marks = await svg.evaluate(
        (el) =>
          [...el.querySelectorAll('.mark')].filter((m) => {
            const b = (m as SVGGraphicsElement).getBBox();
            return b.width > 0 && b.height > 0;
          }).length,
      );
      expect(marks, `${chart} drawn marks`).toBeGreaterThanOrEqual(5);
    }

    // No text is clipped by its chart, and labels of one kind do not overlap each other.
    const layout = await page.evaluate(() => {
      const problems: string[] = [];
      for (const svg of document.querySelectorAll<SVGSVGElement>('svg[data-chart]')) {
        const vb = svg.viewBox.baseVal;
        const texts = [...svg.querySelectorAll<SVGTextElement>('text')].map((t) => {
          const b = t.getBBox();
          // Rotated labels: measure in the root's coordinates.
          const m = t.getCTM();
          const rootM = svg.getCTM();
          if (m && rootM) {
            const rel = rootM.inverse().multiply(m);
            const pts = [
              new DOMPoint(b.x, b.y),
              new DOMPoint(b.x + b.width, b.y),
              new DOMPoint(b.x, b.y + b.height),
              new DOMPoint(b.x + b.width, b.y + b.height),
            ].map((p) => p.matrixTransform(rel));
            const xs = pts.map((p) => p.x);
            const ys = pts.map((p) => p.y);
            return {
              t,
              cls: t.getAttribute('class') ?? '',
              x: Math.min(...xs),
              y: Math.min(...ys),
              w: Math.max(...xs) - Math.min(...xs),
              h: Math.max(...ys) - Math.min(...ys),
            };
          }
          return { t, cls: t.getAttribute('class') ?? '', x: b.x, y: b.y, w: b.width, h: b.height };
        });
        for (const r of texts) {
          if (r.x < vb.x - 0.5 || r.y < vb.y - 0.5 || r.x + r.w > vb.x + vb.width + 0.5 || r.y + r.h > vb.y + vb.height + 0.5) {
            problems.push(`${svg.dataset.chart}: clipped "${r.t.textContent}"`);
          }
        }
        for (const cls of [
          'tick-label',
          'row-label',
          'legend-label',
          'row-note',
          'panel-label',
          'axis-label',
          'section-label',
          'count-label',
          'value-label',
          'panel-note',
        ]) {
          const same = texts.filter((r) => r.cls === cls);
          for (let i = 0; i < same.length; i++)
            for (let j = i + 1; j < same.length; j++) {
              const a = same[i]!;
              const b = same[j]!;
              const overlap = a.x < b.x + b.w - 1 && b.x < a.x + a.w - 1 && a.y < b.y + b.h - 1 && b.y < a.y + a.h - 1;
              if (overlap) problems.push(`${svg.dataset.chart}: "${a.t.textContent}" overlaps "${b.t.textContent}"`);
            }
        }
      }
      return problems;
    });
    expect(layout).toEqual([]);

    // The partial run is flagged visibly.
    await expect(page.locator('.banner.partial').first().isVisible()).resolves.toBe(true);
    // The per-task table is collapsed until opened.
    await expect(page.locator('table[data-table="tasks"]').isVisible()).resolves.toBe(false);

    fs.mkdirSync(ARTIFACTS, { recursive: true });
    const shot = path.join(ARTIFACTS, 'report.png');
    await page.screenshot({ path: shot, fullPage: true });
    expect(fs.statSync(shot).size).toBeGreaterThan(10_000);
  }, 60_000);
});
