/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
// (DOM types for the callbacks that run inside the browser page; the engine itself compiles without them.)
// Issue 17, items 3 and 7, end to end in Debian's Chromium (browser mode, offline backend): a reload restores the
// view, the task and its result (a stored result shows its own task in the left panel); the written-task form
// survives a reload; a notice repeated on every reconnect is one toast with a count; pause and cancel are
// acknowledged within 1 s; the page connects while a large repository is being indexed (how fast: `npm run bench`,
// ui.connectWhileIndexingMs; a 2 s bound asserted here failed on a busy 2-core machine).
//
// The ack checks assert only the bound the issue states (1 s), measured in the page (performance.now and the
// browser's resource timing), so the test runner's own pace does not count. Before the fix the pause ack
// came when the indexer stopped (7 s here) and the first call waited behind long SQLite transactions (batches of
// parsed files and of 256 vectors, one transaction each: 4 to 9 s here).

import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { BrowserContext, Page, WebSocketRoute } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../validate/helpers.ts';
import { acknowledgeSandboxNotice, CHROMIUM_NEED, launchChromium, startServe } from './helpers.ts';

const SCREENSHOTS = path.join(REPO_ROOT, 'docs', 'screenshots');
/**
 * A repository that takes a while to index: 120 generated modules of 1,500 small functions each (15 MB). Large
 * modules are what made the engine's long SQLite transactions block its event loop for seconds.
 */
function largeRepo(dest: string): string {
  fs.mkdirSync(dest, { recursive: true });
  for (let m = 0; m < 120; m++) {
    const fns = Array.from({ length: 1500 }, (_, i) => `def f${m}_${i}(x, y=${i}):\n    """Add ${i} to x, then y."""\n    return x + ${i} + y\n`);
    fs.writeFileSync(path.join(dest, `mod${m}.py`), fns.join('\n'));
  }
  return dest;
}

describe.skipIf(CHROMIUM_NEED.skip)(`state that survives reloads, toasts, job acks and connecting while indexing${CHROMIUM_NEED.note}`, () => {
  let server: ChildProcess;
  let info: { url: string; openUrl: string; token: string };
  let home: string;
  let context: BrowserContext;
  let page: Page;
  const pageErrors: string[] = [];

  const call = async (name: string, input: object): Promise<unknown> => {
    const res = await fetch(`${info.url}/api/call/${name}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${info.token}` },
      body: JSON.stringify(input),
    });
    const body = (await res.json()) as { ok: boolean; value?: unknown; error?: { message: string } };
    if (!body.ok) throw new Error(`${name}: ${body.error?.message}`);
    return body.value;
  };
  const jobOf = async (id: string) =>
    ((await call('job.list', {})) as { id: string; state: string; progress: { phase: string; done: number } | null }[]).find((j) => j.id === id)!;

  beforeAll(async () => {
    const served = await startServe('oc-e2e-state-home-', undefined, (db) => {
      home = path.dirname(db);
      // A damaged settings file: the engine falls back to the defaults and says so to every client that connects.
      fs.writeFileSync(path.join(home, 'settings.json'), '{ "backend": ');
    });
    server = served.server;
    info = { url: served.url, openUrl: served.openUrl, token: new URLSearchParams(new URL(served.openUrl).hash.slice(1)).get('token')! };
    context = await launchChromium(1440, 960, (u) => u.startsWith(served.url));
    page = context.pages()[0] ?? (await context.newPage());
    page.on('pageerror', (e) => pageErrors.push(e.message));
  }, 240_000);

  afterAll(async () => {
    await context?.close();
    server?.kill('SIGTERM');
  });

  const dismissNotices = async (p: Page) => {
    for (const b of await p.locator('[data-testid="notice"] .toast-close').all()) await b.click();
  };

  it('restores the task view and its result after a reload; a stored result shows its own task in the left panel', async () => {
    await page.goto(info.openUrl);
    await acknowledgeSandboxNotice(page);
    await page.getByTestId('nav-task').click();
    await page.locator('[data-testid="task-row"][data-task-id="inventory/add_tax"]').click();
    await page.getByTestId('task-run').click();
    await page.getByTestId('task-result').first().waitFor({ state: 'visible', timeout: 180_000 });
    await expect.poll(() => page.evaluate(() => location.hash), { timeout: 10_000 }).toMatch(/^#\/task\?.*run=/);
    const hash = await page.evaluate(() => location.hash);
    const runId = new URLSearchParams(hash.slice(hash.indexOf('?') + 1)).get('run')!;

    await page.reload();
    await page.getByTestId('view-task').waitFor({ timeout: 30_000 });
    await page.getByTestId('task-result').first().waitFor({ state: 'visible', timeout: 60_000 });
    expect(await page.getByTestId('task-run-result').innerText()).toContain(runId);
    expect(await page.getByTestId('task-detail').innerText()).toContain('inventory/add_tax');

    // A stored result opened by its address alone (no manifest named): the left panel shows that result's task,
    // not the sample manifest's first task.
    await page.goto('about:blank');
    await page.goto(`${info.url}/#/task?run=${encodeURIComponent(runId)}&task=inventory%2Fadd_tax&condition=opencoder`);
    await page.getByTestId('drill-result').waitFor({ timeout: 30_000 });
    expect(await page.getByTestId('drill-result').innerText()).toMatch(/Stored result · inventory\/add_tax/);
    await expect.poll(() => page.getByTestId('task-detail').innerText(), { timeout: 30_000 }).toContain('inventory/add_tax');
    expect(await page.locator('[data-testid="task-row"].task-row-selected').getAttribute('data-task-id')).toBe('inventory/add_tax');
    await page.getByTestId('task-result').first().waitFor({ state: 'visible', timeout: 30_000 });
    await dismissNotices(page);
    fs.mkdirSync(SCREENSHOTS, { recursive: true });
    await page.screenshot({ path: path.join(SCREENSHOTS, 'task-restored-after-reload.png') });
  }, 300_000);

  it('keeps the written-task form across a reload', async () => {
    await page.getByTestId('nav-task').click();
    await page.getByTestId('task-source-custom').click();
    await page.getByTestId('custom-file').fill('inventory/pricing.py');
    await page.getByTestId('custom-qualname').fill('round_cents');
    await page.getByTestId('custom-requirement').fill('Round an amount in cents half-up.');
    await page.reload();
    await page.getByTestId('custom-task-form').waitFor({ timeout: 30_000 });
    expect(await page.getByTestId('custom-file').inputValue()).toBe('inventory/pricing.py');
    expect(await page.getByTestId('custom-qualname').inputValue()).toBe('round_cents');
    expect(await page.getByTestId('custom-requirement').inputValue()).toBe('Round an amount in cents half-up.');
  }, 120_000);

  it('shows a notice repeated on every reconnect as one toast with a count', async () => {
    const p = await context.newPage();
    const sockets: WebSocketRoute[] = [];
    await p.routeWebSocket(/\/api\/events/, (ws) => {
      ws.connectToServer();
      sockets.push(ws);
    });
    await p.goto(info.openUrl); // a new tab: its session token comes from the URL again
    await p.getByTestId('notice').first().waitFor({ timeout: 30_000 });
    // The event socket drops three times; each reconnect brings the engine's standing notice again.
    for (let i = 1; i <= 3; i++) {
      await expect.poll(() => p.getByTestId('connection-state').getAttribute('data-state'), { timeout: 30_000 }).toBe('open');
      const before = sockets.length;
      await sockets.at(-1)!.close();
      await expect.poll(() => sockets.length, { timeout: 30_000 }).toBeGreaterThan(before);
    }
    await expect.poll(() => p.getByTestId('notice-count').first().innerText(), { timeout: 30_000 }).toMatch(/×[2-4]/);
    expect(await p.getByTestId('notice').count()).toBe(1);
    expect(await p.getByTestId('notice').innerText()).toMatch(/settings/i);
    await p.screenshot({ path: path.join(SCREENSHOTS, 'toast-deduplicated.png') });
    await p.close();
  }, 120_000);

  /**
   * Clicks `button` of the job card inside the page and reads, at the next animation frame, whether the card says
   * `until`: the acknowledgement is the page's own state, set by the click, not an answer it waits for.
   */
  const saysByNextFrame = (p: Page, button: string, until: string) =>
    p.evaluate(
      ({ button, until }) =>
        new Promise<boolean>((resolve, reject) => {
          const card = document.querySelector<HTMLElement>('[data-testid="index-job"]');
          const b = card?.querySelector<HTMLButtonElement>(`[data-testid="${button}"]`);
          if (!card || !b) return reject(new Error(`no ${button} button on the index job`));
          b.click();
          requestAnimationFrame(() => resolve(card.matches(until)));
        }),
      { button, until },
    );

  it('acknowledges pause and cancel by the next frame, before the engine answers, while an index runs', async () => {
    const repo = largeRepo(path.join(home, 'pylib-a'));
    await page.goto('about:blank');
    await page.goto(`${info.url}/#/repository`);
    await page.getByTestId('repo-path').fill(repo);
    await page.getByTestId('repo-index').click();
    const card = page.getByTestId('index-job').first();
    await expect
      .poll(
        () =>
          card
            .getByTestId('job-phase')
            .innerText()
            .catch(() => ''),
        { timeout: 60_000 },
      )
      .toBe('parse');
    expect(await saysByNextFrame(page, 'job-pause', '[data-stopping="pausing"], [data-state="paused"]')).toBe(true);
    await expect.poll(() => card.getAttribute('data-state'), { timeout: 60_000 }).toBe('paused');
    await card.getByTestId('job-resume').click();
    await expect.poll(() => card.getAttribute('data-state'), { timeout: 30_000 }).toBe('running');
    expect(await saysByNextFrame(page, 'job-cancel', '[data-stopping="cancelling"], [data-state="cancelled"]')).toBe(true);
    // The engine's own record says it too (the ack is not only the page's guess), then the job ends cancelled.
    const id = (await card.getAttribute('data-job-id'))!;
    await expect.poll(async () => (await jobOf(id)).state, { timeout: 60_000 }).toBe('cancelled');
  }, 180_000);

  it('connects while a large repository is being indexed (the index job is still running when the page reads open)', async () => {
    const repo = largeRepo(path.join(home, 'pylib-b'));
    const { jobId } = (await call('repo.index', { path: repo })) as { jobId: string };
    // Well into parsing, when parsed files are written and their vectors stored while the rest is parsed.
    await expect
      .poll(async () => ((p) => (p?.phase === 'parse' ? p.done : 0))((await jobOf(jobId)).progress), { timeout: 60_000, interval: 100 })
      .toBeGreaterThanOrEqual(20);
    const p = await context.newPage();
    // From the start of the navigation to the moment the page shows itself connected, by the browser's clock: an
    // observer installed before the page's own scripts notes when the connection state first reads "open".
    await p.addInitScript(() => {
      const w = window as unknown as { __openAt?: number };
      new MutationObserver(() => {
        if (w.__openAt === undefined && document.querySelector('[data-testid="connection-state"][data-state="open"]')) w.__openAt = performance.now();
      }).observe(document, { subtree: true, childList: true, attributes: true });
    });
    await p.goto(info.openUrl); // a new tab: its session token comes from the URL again
    await expect.poll(() => p.getByTestId('connection-state').getAttribute('data-state'), { timeout: 30_000 }).toBe('open');
    const firstCallMs = await p.evaluate(() => (window as unknown as { __openAt?: number }).__openAt ?? Infinity);
    expect((await jobOf(jobId)).state, 'the index finished before the page connected: the check needs a larger repository').toBe('running');
    // How long it takes is measured by `npm run bench` (a timed assertion here fails on a busy machine).
    expect(Number.isFinite(firstCallMs), 'the observer never saw the page connected').toBe(true);
    await p.close();
    await call('job.cancel', { jobId });
    expect(pageErrors).toEqual([]);
  }, 180_000);
});
