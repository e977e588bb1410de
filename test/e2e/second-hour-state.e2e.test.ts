/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
// (DOM types for the callbacks that run inside the browser page; the engine itself compiles without them.)
// Issue 31, end to end in Debian's Chromium (browser mode, offline backend, bundled sample repository): a reload keeps
// the Experiment view (the chosen run, the analysis tab, the task table's filter, the start form's kind and task
// limit), and "Back to the experiment" from a stored result opened there (also after a reload) shows that run again;
// an index job with nothing to embed ends full, still and worded as done; an information toast leaves by itself.

import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../validate/helpers.ts';
import { tmpDir } from '../helpers/tmp-repo.ts';
import { acknowledgeSandboxNotice, CHROMIUM_NEED, launchChromium, startServe } from './helpers.ts';

const SCREENSHOTS = path.join(REPO_ROOT, 'docs', 'screenshots');
const MANIFEST = path.join(REPO_ROOT, 'resources', 'sample-repo', 'tasks.jsonl');

describe.skipIf(CHROMIUM_NEED.skip)(`the second hour: the Experiment view survives a reload, honest jobs, toasts that leave${CHROMIUM_NEED.note}`, () => {
  let server: ChildProcess;
  let info: { url: string; openUrl: string; token: string };
  let context: BrowserContext;
  let page: Page;
  let runId = '';
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
  const hashParams = async () => {
    const hash = await page.evaluate(() => location.hash);
    return new URLSearchParams(hash.slice(hash.indexOf('?') + 1));
  };

  beforeAll(async () => {
    const served = await startServe('oc-e2e-second-hour-');
    server = served.server;
    info = { url: served.url, openUrl: served.openUrl, token: new URLSearchParams(new URL(served.openUrl).hash.slice(1)).get('token')! };
    context = await launchChromium(1440, 960, (u) => u.startsWith(served.url));
    page = context.pages()[0] ?? (await context.newPage());
    page.on('pageerror', (e) => pageErrors.push(e.message));
    // One stored run of two methods on the first sample task (the offline backend: nothing leaves the machine).
    const { jobId } = (await call('experiment.start', { manifest: MANIFEST, kind: 'run', methods: ['baseline-rag', 'opencoder'], limit: 1 })) as {
      jobId: string;
    };
    let job: { state: string; error: string | null; result: { runId?: string } | null } | undefined;
    for (let i = 0; i < 600; i++) {
      job = ((await call('job.list', {})) as { id: string; state: string; error: string | null; result: { runId?: string } | null }[]).find(
        (j) => j.id === jobId,
      );
      if (job && job.state !== 'running') break;
      await new Promise((r) => setTimeout(r, 500));
    }
    expect(job, `experiment job ${jobId}`).toMatchObject({ state: 'done', error: null });
    runId = job!.result!.runId!;
  }, 420_000);

  afterAll(async () => {
    await context?.close();
    server?.kill('SIGTERM');
  });

  it('keeps the chosen run, the tab, the filter and the start form across a reload', async () => {
    await page.goto(info.openUrl);
    await acknowledgeSandboxNotice(page);
    await page.getByTestId('nav-experiment').click();
    const row = page.locator(`[data-testid="run-row"][data-run-id="${runId}"]`);
    await row.getByTestId('run-select').check();
    await page.getByTestId('analysis-tab-tasks').click();
    await page.getByTestId('tasks-table-filter').fill('opencoder');
    await expect.poll(() => page.getByTestId('task-table-row').count(), { timeout: 30_000 }).toBe(1);
    await page.getByTestId('experiment-kind-ladder').click();
    await page.getByTestId('experiment-limit').fill('3');
    const manifestBefore = await page.getByTestId('experiment-manifest').inputValue();
    expect(manifestBefore).toBe(MANIFEST);
    expect((await hashParams()).getAll('runs')).toEqual([runId]);

    await page.reload();
    await page.getByTestId('experiment-view').waitFor({ timeout: 30_000 });
    await page.getByTestId('tasks-table').waitFor({ timeout: 60_000 });
    expect(await row.getByTestId('run-select').isChecked()).toBe(true);
    expect(await page.getByTestId('analysis-tab-tasks').getAttribute('aria-selected')).toBe('true');
    expect(await page.getByTestId('tasks-table-filter').inputValue()).toBe('opencoder');
    expect(await page.getByTestId('task-table-row').count()).toBe(1);
    expect(await page.getByTestId('task-table-row').getAttribute('data-condition')).toBe('opencoder');
    expect(await page.getByTestId('experiment-kind-ladder').getAttribute('aria-selected')).toBe('true');
    expect(await page.getByTestId('experiment-limit').inputValue()).toBe('3');
    expect(await page.getByTestId('experiment-manifest').inputValue()).toBe(manifestBefore);
    await page.mouse.move(0, 0);
    fs.mkdirSync(SCREENSHOTS, { recursive: true });
    await page.screenshot({ path: path.join(SCREENSHOTS, 'experiment-restored-after-reload.png') });
  }, 180_000);

  it('"Back to the experiment" from a stored result shows its run, also after a reload of the result', async () => {
    const taskRow = page.getByTestId('task-table-row').first();
    const taskId = (await taskRow.getAttribute('data-task-id'))!;
    await taskRow.click();
    await page.getByTestId('drill-result').waitFor({ timeout: 30_000 });
    const params = await hashParams();
    expect(params.get('run')).toBe(runId);
    expect(params.get('task')).toBe(taskId);
    await page.reload();
    await page.getByTestId('drill-result').waitFor({ timeout: 30_000 });
    await page.getByTestId('drill-back').click();
    await page.getByTestId('experiment-view').waitFor({ timeout: 30_000 });
    expect(await page.getByTestId('analysis-empty').count()).toBe(0);
    expect(await page.locator(`[data-testid="run-row"][data-run-id="${runId}"]`).getByTestId('run-select').isChecked()).toBe(true);
    await page.getByTestId('tasks-table').waitFor({ timeout: 60_000 });
    expect(await page.getByTestId('tasks-table-filter').inputValue()).toBe('opencoder');
  }, 120_000);

  it('Reports: the run menu is wide and names the run; every export of the session stays listed, newest first', async () => {
    await page.getByTestId('nav-reports').click();
    const menu = page.getByTestId('report-run');
    await menu.waitFor({ timeout: 30_000 });
    expect(await menu.inputValue()).toBe(runId);
    const width = (await menu.boundingBox())!.width;
    const card = (await page.getByTestId('report-export').boundingBox())!.width;
    expect(width).toBeGreaterThan(card * 0.8);
    expect(await menu.locator('option:checked').innerText()).toContain(runId);
    expect(await page.getByTestId('report-run-facts').innerText()).toContain(runId);
    await page.getByTestId('export-md').click();
    await expect.poll(() => page.getByTestId('report-file-row').count(), { timeout: 60_000 }).toBe(1);
    await page.getByTestId('export-json').click();
    await expect.poll(() => page.getByTestId('report-file-row').count(), { timeout: 60_000 }).toBe(2);
    const names = await page.getByTestId('report-file').allInnerTexts();
    expect(names[0]).toMatch(/\.json$/);
    expect(names[1]).toMatch(/\.md$/);
    await page.mouse.move(0, 0);
    await page.screenshot({ path: path.join(REPO_ROOT, 'test', 'e2e', 'artifacts', 'reports-files.png'), fullPage: true });
    // Leaving the view and coming back keeps the list.
    await page.getByTestId('nav-experiment').click();
    await page.getByTestId('nav-reports').click();
    expect(await page.getByTestId('report-file-row').count()).toBe(2);
  }, 120_000);

  it('an index job with nothing to embed ends full, still and done; the information toast about allowing leaves', async () => {
    const folder = tmpDir('oc-e2e-nothing-');
    fs.writeFileSync(path.join(folder, 'NOTES.md'), '# notes: no supported language, nothing to embed\n');
    await page.getByTestId('nav-repository').click();
    await call('repo.allow', { folder });
    const toast = page.locator('[data-testid="notice"][data-level="info"]', { hasText: 'may now open' });
    await toast.waitFor({ state: 'visible', timeout: 15_000 });

    const cards = page.getByTestId('index-job');
    const ids = async () => new Set(await cards.evaluateAll((cs) => cs.map((c) => c.getAttribute('data-job-id') ?? '')));
    const before = await ids();
    await page.getByTestId('repo-path').fill(folder);
    await page.getByTestId('repo-index').click();
    // This folder's own job (the card list may hold others), however long a loaded machine takes to finish it.
    await expect.poll(async () => [...(await ids())].filter((id) => !before.has(id)).length, { timeout: 30_000 }).toBe(1);
    const id = [...(await ids())].find((x) => !before.has(x))!;
    const job = page.locator(`[data-testid="index-job"][data-job-id="${id}"]`);
    await expect.poll(() => job.getAttribute('data-state'), { timeout: 180_000 }).toBe('done');
    const bar = job.getByTestId('job-progress');
    expect(await bar.getAttribute('data-animated')).toBe('false');
    const fill = await bar.evaluate((el) => {
      const f = el.firstElementChild as HTMLElement;
      return { animation: getComputedStyle(f).animationName, width: f.getBoundingClientRect().width, track: el.getBoundingClientRect().width };
    });
    expect(fill.animation).toBe('none');
    expect(fill.width).toBeCloseTo(fill.track, 0);
    const count = await job.getByTestId('job-count').innerText();
    expect(count).toMatch(/^done/);
    expect(await job.innerText()).not.toContain('?');

    // Information leaves by itself (the pointer is not on it).
    await page.mouse.move(0, 0);
    await toast.waitFor({ state: 'detached', timeout: 30_000 });
    expect(pageErrors).toEqual([]);
  }, 300_000);
});
