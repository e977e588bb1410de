/// <reference lib="dom" />
// (DOM types for the callbacks that run inside the browser page; the engine itself compiles without them.)
// End to end, issue 17 items 1, 2 and 4, in Debian's Chromium against browser mode (`opencoder serve`):
//   1. a folder outside the allowed roots is refused with both ways to allow it named, and "Allow this folder"
//      (after a confirmation naming the folder) allows it, remembers it and indexes it;
//   2. the Runs list and the Reports menu show each run's label, task or manifest, methods, backend, created and
//      status; a run stored before labels shows its automatic label; a label is renamed inline;
//   4. the index job, the repository card and its count line agree on what is counted (texts to embed), and the
//      card shows the other files (no supported language).
// Screenshots of the reworked views go to docs/screenshots/.

import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OFFLINE_LABEL } from '../../main/model/backend-label.ts';
import { Store } from '../../main/store/store.ts';
import { REPO_ROOT } from '../validate/helpers.ts';
import { tmpDir } from '../helpers/tmp-repo.ts';
import { acknowledgeSandboxNotice, CHROMIUM_NEED, launchChromium, startServe } from './helpers.ts';

const SCREENSHOTS = path.join(REPO_ROOT, 'docs', 'screenshots');

async function shot(page: Page, name: string, testId: string): Promise<void> {
  fs.mkdirSync(SCREENSHOTS, { recursive: true });
  await page
    .getByTestId(testId)
    .first()
    .evaluate((el) => el.scrollIntoView({ block: 'start' }));
  await page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`) });
}

const digits = (s: string): number => Number(s.replace(/\D/g, ''));

/** Two runs stored before the server starts: one as a release before labels left it (label null), one labelled. */
function seedRuns(db: string): void {
  const store = Store.open(db);
  try {
    const base = { kind: 'run' as const, manifestHash: 'h', backend: { kind: 'offline', model: null }, provenance: {}, options: {} };
    store.experiments.create({
      ...base,
      id: 'run-20260101T000000-old000',
      manifestFile: '/bench/tasks.jsonl',
      taskIds: ['a', 'b'],
      conditions: [{ id: 'opencoder' }],
    });
    store.experiments.finish('run-20260101T000000-old000', 'done');
    store.experiments.create({
      ...base,
      id: 'run-20260102T000000-new000',
      label: `inventory/add_tax · baseline-rag, opencoder · ${OFFLINE_LABEL}`,
      manifestFile: '/bench/tasks.jsonl',
      taskIds: ['inventory/add_tax'],
      conditions: [{ id: 'baseline-rag' }, { id: 'opencoder' }],
    });
    store.experiments.finish('run-20260102T000000-new000', 'cancelled');
  } finally {
    store.close();
  }
}

describe.skipIf(CHROMIUM_NEED.skip)(`first hour: allow a folder, tell runs apart, counts that agree${CHROMIUM_NEED.note}`, () => {
  let server: ChildProcess;
  let context: BrowserContext;
  let page: Page;
  const outside = tmpDir('oc-e2e-outside-');

  beforeAll(async () => {
    fs.mkdirSync(path.join(outside, 'pkg'), { recursive: true });
    fs.writeFileSync(path.join(outside, 'pkg', 'shop.py'), 'class Cart:\n    def total(self):\n        return 1\n\n\ndef tax(x):\n    return x * 1.2\n');
    fs.writeFileSync(path.join(outside, 'NOTES.md'), '# notes, no supported language\n');
    const served = await startServe('oc-e2e-runs-home-', undefined, seedRuns);
    server = served.server;
    context = await launchChromium(1440, 960, (u) => u.startsWith(served.url));
    page = context.pages()[0] ?? (await context.newPage());
    await page.goto(served.openUrl);
    await acknowledgeSandboxNotice(page);
  }, 240_000);

  afterAll(async () => {
    await context?.close();
    server?.kill('SIGTERM');
  });

  it('1. a refused folder names both ways to allow it; "Allow this folder" confirms by name, then indexes it', async () => {
    await page.getByTestId('nav-repository').click();
    await page.getByTestId('repo-path').fill(outside);
    await page.getByTestId('repo-index').click();
    const fieldError = page.getByTestId('field-error').first();
    await expect.poll(() => fieldError.innerText(), { timeout: 15_000 }).toContain('opencoder serve --allow DIR');
    expect(await fieldError.innerText()).toContain('Allow this folder');
    await page.getByTestId('repo-allow-open').click();
    const confirm = page.getByTestId('repo-allow-confirm');
    expect(await confirm.innerText()).toContain(fs.realpathSync(outside));
    await shot(page, 'repository-allow-folder', 'open-folder');
    await page.getByTestId('repo-allow-yes').click();
    await page.locator('[data-testid="repo-item"]').first().waitFor({ timeout: 60_000 });
    await expect.poll(() => page.getByTestId('allowed-root').allInnerTexts(), { timeout: 15_000 }).toContain(fs.realpathSync(outside));
    // A system folder is refused with the reason, and no allow action is offered for it.
    await page.getByTestId('repo-path').fill('/etc');
    await page.getByTestId('repo-index').click();
    await expect.poll(() => fieldError.innerText(), { timeout: 15_000 }).toContain('Its folder cannot be allowed');
    expect(await fieldError.innerText()).toContain('which no task may read');
    expect(await page.getByTestId('repo-allow').count()).toBe(0);
  }, 120_000);

  it('1b. "Allow only" allows a folder without indexing it: no repository entry, no job', async () => {
    const only = tmpDir('oc-e2e-allow-only-');
    fs.writeFileSync(path.join(only, 'mod.py'), 'def f():\n    return 1\n');
    const reposBefore = await page.getByTestId('repo-item').count();
    const jobsBefore = await page.getByTestId('index-job').count();
    await page.getByTestId('repo-path').fill(only);
    await page.getByTestId('repo-index').click();
    await page.getByTestId('repo-allow-open').click();
    await page.getByTestId('repo-allow-only').click();
    await expect.poll(() => page.getByTestId('allowed-root').allInnerTexts(), { timeout: 15_000 }).toContain(fs.realpathSync(only));
    await page.getByTestId('repo-allow-done').waitFor();
    expect(await page.getByTestId('repo-item').count()).toBe(reposBefore);
    expect(await page.getByTestId('index-job').count()).toBe(jobsBefore);
  }, 60_000);

  it('4. the job, the repository card and its count line count the same texts; the card shows the other files', async () => {
    const job = page.getByTestId('index-job').first();
    await expect.poll(() => job.getAttribute('data-state'), { timeout: 60_000 }).toBe('done');
    const [jobDone, jobTotal] = (await job.getByTestId('job-count').innerText()).split('/').map(digits);
    expect(await job.innerText()).toContain(`${jobDone} of ${jobTotal} texts embedded in this run`);
    await page.getByTestId('repo-refresh').click();
    const card = page.getByTestId('repo-detail');
    await expect.poll(async () => digits(await card.getByTestId('count-units').innerText()), { timeout: 30_000 }).toBeGreaterThan(0);
    const [embedded, embeddable] = (await card.getByTestId('count-embedded').innerText()).split('/').map(digits);
    // A first index embeds every text the repository holds: the job's count is the card's, and the card is complete.
    expect(embedded).toBe(embeddable);
    expect(jobDone).toBe(embedded);
    expect(jobTotal).toBe(embeddable);
    expect(digits(await card.getByTestId('count-files').innerText())).toBe(1);
    expect(digits(await card.getByTestId('count-other-files').innerText())).toBe(1);
    expect(await card.getByTestId('repo-count-line').innerText()).toContain(
      `1 code file indexed · 1 other file (no supported language) · nothing skipped; ${embedded} of ${embeddable} texts embedded`,
    );
    await shot(page, 'repository-counts', 'index-jobs');
  }, 120_000);

  it('2. the Runs list shows label, task / manifest, methods, backend, created and status; a label is renamed inline', async () => {
    await page.getByTestId('nav-experiment').click();
    const head = page.locator('[data-testid="runs-list"] .vtable-head');
    await head.waitFor({ timeout: 30_000 });
    expect((await head.innerText()).split(/\s*\n\s*/).filter(Boolean)).toEqual([
      'Label',
      'Task / manifest',
      'Methods',
      'Backend',
      'Created',
      'Status',
      'Results',
    ]);
    const oldRow = page.locator('[data-testid="run-row"][data-run-id="run-20260101T000000-old000"]');
    expect(await oldRow.getByTestId('run-label').innerText()).toContain(`tasks.jsonl (2 tasks) · opencoder · ${OFFLINE_LABEL}`);
    expect(await oldRow.getByTestId('run-subject').innerText()).toBe('tasks.jsonl · 2 tasks');
    const newRow = page.locator('[data-testid="run-row"][data-run-id="run-20260102T000000-new000"]');
    expect(await newRow.getByTestId('run-subject').innerText()).toBe('inventory/add_tax (tasks.jsonl)');
    expect(await newRow.getByTestId('run-methods').innerText()).toBe('baseline-rag, opencoder');
    expect(await newRow.getByTestId('run-backend').innerText()).toBe(OFFLINE_LABEL);
    expect(await newRow.innerText()).toContain('cancelled');
    await newRow.getByTestId('run-label').click();
    await newRow.getByTestId('run-label-input').fill('add_tax, first try');
    await newRow.getByTestId('run-label-input').press('Enter');
    await expect.poll(() => newRow.getByTestId('run-label').innerText(), { timeout: 15_000 }).toContain('add_tax, first try');
    await shot(page, 'runs-labels', 'runs');

    await page.getByTestId('nav-reports').click();
    const options = await page.getByTestId('report-run').locator('option').allInnerTexts();
    expect(options.find((o) => o.startsWith('add_tax, first try'))).toContain(`inventory/add_tax (tasks.jsonl) · baseline-rag, opencoder · ${OFFLINE_LABEL}`);
    expect(options.find((o) => o.startsWith('tasks.jsonl (2 tasks)'))).toMatch(/done$/);
  }, 120_000);
});
