/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
// (DOM types for the callbacks that run inside the browser page; the engine itself compiles without them.)
// End to end: the real UI in Debian's Chromium (playwright-core) against browser mode (`opencoder serve`), on the
// bundled sample repository with the offline backend. Open and index the repository with visible progress, run a
// task and read its evidence and verdicts, toggle a source and see the comparison, run a small factorial and see
// its charts, export a report and open it. Each view is saved as a screenshot under test/e2e/artifacts/.

import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../validate/helpers.ts';
import { tmpDir } from '../helpers/tmp-repo.ts';
import { acknowledgeSandboxNotice, CHROMIUM_NEED, launchChromium, startServe } from './helpers.ts';

const ARTIFACTS = path.join(REPO_ROOT, 'test', 'e2e', 'artifacts');
const SAMPLE_REPO = path.join(REPO_ROOT, 'resources', 'sample-repo');

/** Saves the viewport, scrolled so the element with `testId` (when given) starts at the top. */
async function shot(page: Page, name: string, testId?: string): Promise<void> {
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  if (testId)
    await page
      .getByTestId(testId)
      .first()
      .evaluate((el) => el.scrollIntoView({ block: 'start' }));
  await page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`) });
}

describe.skipIf(CHROMIUM_NEED.skip)(`the desktop UI in browser mode${CHROMIUM_NEED.note}`, () => {
  let server: ChildProcess;
  let url: string;
  let openUrl: string;
  let context: BrowserContext;
  let page: Page;
  const pageErrors: string[] = [];
  const foreignRequests: string[] = [];

  beforeAll(async () => {
    // A fresh build of the renderer from this checkout (a stale dist/ must not be what is tested).
    const served = await startServe('oc-e2e-home-');
    server = served.server;
    url = served.url;
    openUrl = served.openUrl;
    // Nothing may leave the machine: every request must go to the local server (or be a blob / data / file URL).
    context = await launchChromium(
      1440,
      960,
      (u) => {
        if (u.startsWith(url) || u.startsWith('file:')) return true;
        foreignRequests.push(u);
        return false;
      },
      { acceptDownloads: true },
    );
    page = context.pages()[0] ?? (await context.newPage());
    page.on('pageerror', (e) => pageErrors.push(e.message));
  }, 180_000);

  afterAll(async () => {
    await context?.close();
    server?.kill('SIGTERM');
  });

  it('refuses the app without its token and explains how to get one', async () => {
    await page.goto(url);
    await expect.poll(() => page.getByTestId('no-token').isVisible(), { timeout: 15_000 }).toBe(true);
    expect(await page.getByTestId('no-token').innerText()).toMatch(/opencoder serve|npm start/);
  });

  it('opens the sample repository and indexes it with visible progress', async () => {
    await page.goto('about:blank'); // a hash-only change would not reload the app
    await page.goto(openUrl);
    // First, once: which sandbox runs candidates, in plain words; the navigation keeps it in a word.
    const mode = (await page.getByTestId('nav-sandbox').innerText()).replace('sandbox: ', '');
    expect(['strong', 'weak']).toContain(mode);
    expect(await acknowledgeSandboxNotice(page)).toMatch(new RegExp(`^Candidates run in the ${mode} sandbox`));
    await page.goto('about:blank');
    await page.goto(openUrl);
    await page.getByTestId('nav-repository').waitFor({ state: 'visible' });
    expect(await page.getByTestId('sandbox-banner').count()).toBe(0); // said once
    await page.getByTestId('nav-repository').click();
    await page.getByTestId('repo-path').fill(SAMPLE_REPO);
    await page.getByTestId('repo-index').click();
    // progress is shown while it runs (a job card with a phase), then the counts
    await page.getByTestId('index-job').first().waitFor({ state: 'visible', timeout: 30_000 });
    await expect.poll(async () => (await page.getByTestId('repo-item').count()) > 0, { timeout: 60_000 }).toBe(true);
    await page.getByTestId('repo-item').first().click();
    await expect.poll(async () => Number((await page.getByTestId('count-units').innerText()).replace(/\D/g, '')), { timeout: 30_000 }).toBeGreaterThan(0);
    expect(await page.getByTestId('repo-encoder').innerText()).toMatch(/opencoder-subtoken-hash-256/);
    // a path outside the allowed roots is refused with the reason
    await page.getByTestId('repo-path').fill('/etc');
    await page.getByTestId('repo-index').click();
    await expect
      .poll(() => page.locator('[data-testid="field-error"], [data-testid="error-box"]').first().innerText(), { timeout: 10_000 })
      .toMatch(/allowed|outside/i);
    await shot(page, 'repository');
  }, 120_000);

  it('runs a task and shows decomposition, evidence fusion, uncertainty and verdicts', async () => {
    await page.getByTestId('nav-task').click();
    await expect.poll(() => page.getByTestId('task-row').count(), { timeout: 30_000 }).toBeGreaterThan(0);
    await page.locator('[data-testid="task-row"][data-task-id="inventory/add_tax"]').click();
    await page.getByTestId('task-run').click();
    await page.getByTestId('task-result').first().waitFor({ state: 'visible', timeout: 120_000 });

    await page.getByTestId('tab-decomposition').click();
    expect(await page.getByTestId('decomposition-step').count()).toBeGreaterThan(0);

    await page.getByTestId('tab-evidence').click();
    const items = page.getByTestId('evidence-item');
    expect(await items.count()).toBeGreaterThan(3);
    // kept and dropped items, each with its reason; the fused list has at most ten
    expect(await page.locator('[data-testid="evidence-item"][data-kept="false"]').count()).toBeGreaterThan(0);
    expect(await page.getByTestId('fused-item').count()).toBeGreaterThan(0);
    expect(await page.getByTestId('fused-item').count()).toBeLessThanOrEqual(10);
    expect((await page.getByTestId('evidence-reason').first().innerText()).length).toBeGreaterThan(3);
    expect(await page.getByTestId('evidence-fusion').innerText()).toMatch(/γ/);
    await shot(page, 'task-evidence', 'task-run-result');

    await page.getByTestId('tab-uncertainty').click();
    await page.getByTestId('uncertainty-trace').waitFor();
    expect(await page.getByTestId('ubar-api').count()).toBeGreaterThan(0);

    await page.getByTestId('tab-candidates').click();
    await expect.poll(() => page.getByTestId('verdict-badge').count(), { timeout: 10_000 }).toBe(5);
    expect(await page.getByTestId('test-result').count()).toBeGreaterThan(0);
    await shot(page, 'task-candidates', 'task-run-result');

    // The README's screenshot of the task view: the result with its evidence-fusion view.
    await page.getByTestId('tab-evidence').click();
    await shot(page, 'task-view', 'task-run-result');
  }, 180_000);

  it('toggles a source, re-runs, and compares with the previous condition', async () => {
    await page.getByTestId('nav-ablation').click();
    await page.getByTestId('ablation-view').waitFor();
    await page.getByTestId('toggle-similar').click();
    expect(await page.getByTestId('ablation-cell').innerText()).toBe('A1X1S0');
    await page.getByTestId('ablation-run').click();
    await page.getByTestId('compare-table').waitFor({ state: 'visible', timeout: 120_000 });
    // previous condition (all sources) vs current (no similar code): the row reads "Fused items Similar code | prev | cur | Δ"
    const cells = async () => (await page.getByTestId('cmp-fused-similar').locator('td').allInnerTexts()).map((t) => t.trim());
    await expect.poll(async () => (await cells()).slice(0, 2).every((t) => /^\d+$/.test(t)), { timeout: 120_000 }).toBe(true);
    const [previous, current] = (await cells()).slice(0, 2).map(Number);
    expect(previous).toBeGreaterThan(0);
    expect(current).toBe(0);
    expect(await page.getByTestId('cmp-delta').count()).toBeGreaterThan(0);
    await shot(page, 'ablation', 'ablation-compare');
  }, 180_000);

  it('runs a small factorial experiment and shows its charts', async () => {
    await page.getByTestId('nav-experiment').click();
    await page.getByTestId('experiment-kind-ablate').click();
    await page.getByTestId('experiment-limit').fill('2');
    await page.getByTestId('experiment-estimate').click();
    await page.getByTestId('experiment-estimate-result').waitFor({ timeout: 30_000 });
    expect(await page.getByTestId('estimate-usd').innerText()).toMatch(/\$0/);
    await page.getByTestId('experiment-start-button').click();
    await page.getByTestId('experiment-job').first().waitFor({ timeout: 30_000 });
    const ablateRow = page.locator('[data-testid="run-row"][data-run-id^="ablate-"]').first();
    await ablateRow.waitFor({ timeout: 120_000 });
    await expect.poll(() => ablateRow.innerText(), { timeout: 180_000 }).toMatch(/done/);
    const checked = await ablateRow.getByTestId('run-select').isChecked();
    if (!checked) await ablateRow.getByTestId('run-select').check();
    await page.getByTestId('analysis-tab-charts').click();
    for (const id of ['chart-factorial-pass1', 'chart-factorial-uncertainty', 'chart-passk', 'chart-calibration']) {
      const chart = page.getByTestId(id);
      await chart.waitFor({ state: 'visible', timeout: 30_000 });
      const box = await chart.boundingBox();
      expect(box!.width, id).toBeGreaterThan(100);
      expect(await chart.locator('svg .recharts-surface, svg.recharts-surface').count(), id).toBeGreaterThan(0);
    }
    await shot(page, 'experiment', 'experiment-start');
    await shot(page, 'experiment-charts', 'analysis-charts');
  }, 300_000);

  it('exports a report and opens it', async () => {
    await page.getByTestId('nav-reports').click();
    await page.getByTestId('reports-view').waitFor();
    const runSelect = page.getByTestId('report-run');
    const ablate = await runSelect.locator('option').evaluateAll((os) => os.map((o) => (o as HTMLOptionElement).value).find((v) => v.startsWith('ablate-')));
    await runSelect.selectOption(ablate!);
    const download = page.waitForEvent('download', { timeout: 60_000 });
    await page.getByTestId('export-html').click();
    const d = await download;
    expect(d.suggestedFilename()).toMatch(/\.html$/);
    const file = path.join(tmpDir('oc-e2e-report-'), d.suggestedFilename());
    await d.saveAs(file);
    const html = fs.readFileSync(file, 'utf8');
    expect(html).toContain('data-chart="factorial-effects"');
    await shot(page, 'reports');
    const report = await context.newPage();
    await report.goto(`file://${file}`);
    for (const chart of ['factorial-effects', 'pass-at-k', 'uncertainty-vs-correctness', 'api-f1']) {
      const n = await report.locator(`[data-chart="${chart}"], [data-chart-missing="${chart}"]`).count();
      expect(n, chart).toBeGreaterThan(0);
    }
    expect(await report.locator('svg[data-chart="factorial-effects"]').first().isVisible()).toBe(true);
    await report.screenshot({ path: path.join(ARTIFACTS, 'report-export.png') });
    await report.close();
  }, 120_000);

  it('is usable from the keyboard: arrows move through the navigation, Enter opens a view', async () => {
    await page.getByTestId('nav-repository').focus();
    await page.keyboard.press('ArrowDown');
    expect(await page.evaluate(() => document.activeElement?.getAttribute('data-testid'))).toBe('nav-task');
    await page.keyboard.press('End');
    expect(await page.evaluate(() => document.activeElement?.getAttribute('data-testid'))).toBe('nav-settings');
    // One up from Settings is Import.
    await page.keyboard.press('ArrowUp');
    await page.keyboard.press('Enter');
    await page.getByTestId('import-view').waitFor({ timeout: 5_000 });
  });

  it('shows the settings and keeps keys write-only', async () => {
    await page.getByTestId('nav-settings').click();
    await page.getByTestId('settings-form').waitFor();
    expect(await page.getByTestId('key-storage').innerText()).toMatch(/session/i);
    // prices: edit one, a bad value is refused with the row named, a good one is saved
    await expect.poll(() => page.getByTestId('price-row').count(), { timeout: 10_000 }).toBeGreaterThan(0);
    await page.getByTestId('price-input').first().fill('-3');
    await page.getByTestId('prices-save').click();
    expect(await page.getByTestId('prices-error').innerText()).toMatch(/row 1 .*input price/);
    await page.getByTestId('price-input').first().fill('0.2');
    await page.getByTestId('prices-save').click();
    await page.getByTestId('prices-saved').waitFor({ timeout: 10_000 });
    expect(await page.getByTestId('prices-source').innerText()).toMatch(/prices\.json/);
    await shot(page, 'settings', 'settings-view');
    await shot(page, 'settings-prices', 'settings-keys');
    expect(pageErrors).toEqual([]);
    expect(foreignRequests).toEqual([]);
  });
});
