/// <reference lib="dom" />
// (DOM types for the callbacks that run inside the browser page; the engine itself compiles without them.)
// "Find tasks" end to end in Debian's Chromium at 1024 px (browser mode, offline backend, the Settings sandbox): the
// sample repository is indexed, then mined from the Repository view (the job card goes through its phases to the
// checks' i / N), the mined set shows its counts and its two tables (apply_discount kept with a mutation score, drops
// with their reasons), and "Use in an experiment" / "Use in an ablation" hand its manifest over. No error box, no
// error toast and no page error on the way. A screenshot of each step lands in test/e2e/artifacts/find-tasks-*.png.

import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../validate/helpers.ts';
import { acknowledgeSandboxNotice, CHROMIUM_NEED, launchChromium, startServe } from './helpers.ts';

const ARTIFACTS = path.join(REPO_ROOT, 'test', 'e2e', 'artifacts');
const WIDTH = 1024;
const HEIGHT = 900;
/** Mining the sample repository runs its suite once traced, then each kept function's tests about a dozen times. */
const MINE_TIMEOUT_MS = 480_000;

describe.skipIf(CHROMIUM_NEED.skip)(`Find tasks in the Repository view, at ${WIDTH} px${CHROMIUM_NEED.note}`, () => {
  let server: ChildProcess;
  let home: string;
  let context: BrowserContext;
  let page: Page;
  const pageErrors: string[] = [];
  const errorToasts: string[] = [];

  beforeAll(async () => {
    const served = await startServe('oc-e2e-mine-home-', undefined, (db) => {
      home = path.dirname(db);
    });
    server = served.server;
    context = await launchChromium(WIDTH, HEIGHT, (u) => u.startsWith(served.url));
    page = context.pages()[0] ?? (await context.newPage());
    page.on('pageerror', (e) => pageErrors.push(e.message));
    await page.exposeFunction('__ocErrorToast', (text: string) => errorToasts.push(text));
    await context.addInitScript(() => {
      const seen = new WeakSet<Element>();
      new MutationObserver(() => {
        for (const el of document.querySelectorAll('[data-testid="notice"][data-level="error"]')) {
          if (seen.has(el)) continue;
          seen.add(el);
          (window as unknown as { __ocErrorToast: (t: string) => void }).__ocErrorToast((el as HTMLElement).innerText);
        }
      }).observe(document, { subtree: true, childList: true, attributes: true });
    });
    await page.goto(served.openUrl);
    await acknowledgeSandboxNotice(page);
  }, 240_000);

  afterAll(async () => {
    await context?.close();
    server?.kill('SIGTERM');
  });

  /** The viewport as test/e2e/artifacts/find-tasks-<name>.png, scrolled so `testId` starts at the top; no toast over it. */
  const shot = async (name: string, testId?: string) => {
    await page.mouse.move(0, 0);
    for (const b of await page.locator('[data-testid="notice"] .toast-close').all()) await b.click().catch(() => {});
    if (testId)
      await page
        .getByTestId(testId)
        .first()
        .evaluate((el) => el.scrollIntoView({ block: 'start' }));
    fs.mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: path.join(ARTIFACTS, `find-tasks-${name}.png`) });
  };

  const noErrors = async (step: string) => {
    expect(await page.locator('.state-error').allInnerTexts(), `${step}: error boxes`).toEqual([]);
    expect(errorToasts, `${step}: error toasts`).toEqual([]);
    expect(pageErrors, `${step}: page errors`).toEqual([]);
  };

  /** Whether an element's content is wider than its box (a path or label cut off or spilling out). */
  const overflowing = (testId: string) =>
    page
      .getByTestId(testId)
      .evaluateAll((els) => els.filter((el) => el.scrollWidth > el.clientWidth + 1).map((el) => (el as HTMLElement).innerText.slice(0, 80)));

  it('indexes the sample repository and offers to find tasks in it', async () => {
    await page.getByTestId('nav-repository').click();
    await page.getByTestId('repo-index-sample').click();
    await page.getByTestId('index-job').first().waitFor({ state: 'visible', timeout: 30_000 });
    await expect.poll(() => page.getByTestId('index-job').first().getAttribute('data-state'), { timeout: 120_000 }).toBe('done');
    await page.locator('[data-testid="repo-item"]', { hasText: 'sample-repo' }).first().click();
    await page.getByTestId('find-tasks').waitFor();
    expect(await page.getByTestId('find-tasks-start').innerText()).toBe('Find tasks');
    await noErrors('indexed');
    await shot('1-repository', 'find-tasks');
  }, 180_000);

  it(
    'finds tasks as a job with its phases, up to the checks i / N',
    async () => {
      await page.getByTestId('find-tasks-start').click();
      const card = page.getByTestId('mine-job');
      await card.waitFor({ state: 'visible', timeout: 30_000 });
      expect(await page.getByTestId('find-tasks-start').isDisabled()).toBe(true);
      expect(await card.getByTestId('job-cancel').count()).toBe(1);
      expect(await card.getByTestId('job-pause').count()).toBe(1);
      await expect.poll(() => card.getByTestId('job-phase').innerText(), { timeout: 120_000 }).toBe('checks');
      await expect.poll(() => card.getByTestId('job-count').innerText(), { timeout: 120_000 }).toMatch(/^\d+ \/ \d+$/);
      await shot('2-checks', 'find-tasks');
      await expect.poll(() => card.getAttribute('data-state'), { timeout: MINE_TIMEOUT_MS }).toBe('done');
      await noErrors('mined');
    },
    MINE_TIMEOUT_MS + 60_000,
  );

  it('shows the mined set: counts, the kept tasks with their mutation scores, the drops with their reasons', async () => {
    await page.getByTestId('mined-kept-list').waitFor({ state: 'visible', timeout: 30_000 });
    const manifest = path.join(home, 'benchmarks', 'mined-sample-repo', 'tasks.jsonl');
    expect(await page.getByTestId('mined-manifest').innerText()).toBe(manifest);
    const kept = Number((await page.locator('[data-testid="mined-kept-count"] dd').innerText()).replace(/\D/g, ''));
    expect(kept).toBeGreaterThan(0);
    expect(await page.locator('[data-testid="mined-median-score"] dd').innerText()).toMatch(/^\d\.\d{3}$/);
    expect(await page.getByTestId('mined-reasons').innerText()).toMatch(/no docstring/);
    expect(await page.getByTestId('mined-drop').count()).toBeGreaterThan(0);
    await shot('3-mined-set', 'mined-set');
    await shot('4-tables', 'mined-kept');
    // No path, label or head cut off or spilling out at this width.
    expect(await overflowing('mined-manifest')).toEqual([]);
    expect(
      await page
        .locator('.mined-kept-grid.vtable-head > span, .mined-dropped-grid.vtable-head > span')
        .evaluateAll((els) => els.filter((el) => el.scrollWidth > el.clientWidth + 1).map((el) => (el as HTMLElement).innerText)),
    ).toEqual([]);

    await page.getByTestId('mined-kept-filter').fill('apply_discount');
    const row = page.locator('[data-testid="mined-task"][data-task-id="inventory.pricing.apply_discount"]');
    await row.waitFor({ state: 'visible', timeout: 10_000 });
    expect(await row.getByTestId('mined-score').innerText()).toMatch(/^\d\.\d{3} \(\d+\/\d+\)$/);
    expect(Number(await row.getByTestId('mined-tests').innerText())).toBeGreaterThan(0);
    expect(await row.getByTestId('mined-isolation').innerText()).toMatch(/^(isolated|in-process)$/);
    await shot('5-apply-discount', 'mined-kept');
    await noErrors('tables');
  }, 60_000);

  it('hands the manifest to the Experiment view and to the Ablation view', async () => {
    const manifest = await page.getByTestId('mined-manifest').innerText();
    await page.getByTestId('mined-kept-filter').fill('');
    await page.getByTestId('mined-use-experiment').click();
    await page.getByTestId('experiment-manifest').waitFor({ timeout: 30_000 });
    expect(await page.getByTestId('experiment-manifest').inputValue()).toBe(manifest);
    await shot('6-experiment');

    await page.getByTestId('nav-repository').click();
    await page.getByTestId('mined-use-ablation').click();
    await page.getByTestId('ablation-manifest').waitFor({ timeout: 30_000 });
    expect(await page.getByTestId('ablation-manifest').innerText()).toBe(manifest);
    await shot('7-ablation');
    await noErrors('handed over');
  }, 90_000);
});
