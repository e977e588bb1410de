/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
// (DOM types for the callbacks that run inside the browser page; the engine itself compiles without them.)
// Issue 44 item 9, end to end in Debian's Chromium (browser mode, offline backend): a task run from the Task view
// shows on each candidate where its verdict was decided (an `isolated` / `in-process` badge, the reason as its
// tooltip) and, in the opened card, why. Screenshots at 1440 and 1024 px wide; the 1440 one goes to docs/.

import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../validate/helpers.ts';
import { acknowledgeSandboxNotice, CHROMIUM_NEED, launchChromium, startServe } from './helpers.ts';

const SAMPLE_REPO = path.join(REPO_ROOT, 'resources', 'sample-repo');
const SCREENSHOTS = path.join(REPO_ROOT, 'docs', 'screenshots');
const ARTIFACTS = path.join(REPO_ROOT, 'test', 'e2e', 'artifacts');

describe.skipIf(CHROMIUM_NEED.skip)(`candidates say where their verdicts were decided${CHROMIUM_NEED.note}`, () => {
  let server: ChildProcess;
  let context: BrowserContext;
  let page: Page;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    const served = await startServe('oc-e2e-isolation-home-');
    server = served.server;
    context = await launchChromium(1440, 960, (u) => u.startsWith(served.url));
    page = context.pages()[0] ?? (await context.newPage());
    page.on('pageerror', (e) => pageErrors.push(e.message));
    await page.goto(served.openUrl);
    await acknowledgeSandboxNotice(page);
  }, 240_000);

  afterAll(async () => {
    await context?.close();
    server?.kill('SIGTERM');
  });

  it('badges each candidate isolated or in-process with the reason, and the opened card says why', async () => {
    await page.getByTestId('nav-repository').click();
    await page.getByTestId('repo-path').fill(SAMPLE_REPO);
    await page.getByTestId('repo-index').click();
    await expect.poll(async () => (await page.getByTestId('repo-item').count()) > 0, { timeout: 90_000 }).toBe(true);
    await page.getByTestId('nav-task').click();
    await expect.poll(() => page.getByTestId('task-row').count(), { timeout: 30_000 }).toBeGreaterThan(0);
    await page.locator('[data-testid="task-row"][data-task-id="inventory/add_tax"]').click();
    await page.getByTestId('task-run').click();
    await page.getByTestId('task-result').first().waitFor({ state: 'visible', timeout: 180_000 });
    await page.getByTestId('tab-candidates').click();
    await expect.poll(() => page.getByTestId('verdict-badge').count(), { timeout: 10_000 }).toBe(5);

    // The sample repository's references pass isolated, so every candidate is isolated, and says why.
    const badges = page.locator('[data-testid="candidate-chip"] [data-testid="candidate-isolation"]');
    expect(await badges.count()).toBe(5);
    expect(await badges.allInnerTexts()).toEqual(Array(5).fill('isolated'));
    for (const title of await badges.evaluateAll((els) => els.map((e) => e.getAttribute('title') ?? '')))
      expect(title).toBe('isolated: the reference passes every test the task names isolated');
    const detail = page.locator('[data-testid="candidate"] [data-testid="candidate-isolation-detail"]');
    expect(await detail.getAttribute('data-isolation')).toBe('isolated');
    expect(await detail.getByTestId('candidate-isolation-reason').innerText()).toBe('the reference passes every test the task names isolated');

    fs.mkdirSync(SCREENSHOTS, { recursive: true });
    fs.mkdirSync(ARTIFACTS, { recursive: true });
    const candidates = page.getByTestId('candidates');
    await candidates.scrollIntoViewIfNeeded();
    await candidates.screenshot({ path: path.join(SCREENSHOTS, 'candidate-isolation.png') });
    // At 1024 px the strip wraps; the badge stays inside its chip and the reason inside the card.
    await page.setViewportSize({ width: 1024, height: 900 });
    await candidates.scrollIntoViewIfNeeded();
    await candidates.screenshot({ path: path.join(ARTIFACTS, 'candidate-isolation-1024.png') });
    const inside = await page.evaluate(() =>
      [...document.querySelectorAll('[data-testid="candidate-chip"]')].every((chip) => {
        const c = chip.getBoundingClientRect();
        const b = chip.querySelector('[data-testid="candidate-isolation"]')!.getBoundingClientRect();
        return b.left >= c.left && b.right <= c.right && b.top >= c.top && b.bottom <= c.bottom;
      }),
    );
    expect(inside).toBe(true);
    expect(pageErrors).toEqual([]);
  }, 360_000);
});
