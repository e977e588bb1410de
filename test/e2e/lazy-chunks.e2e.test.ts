/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
// (DOM types for the callbacks that run inside the browser page; the engine itself compiles without them.)
// The split renderer build from a file:// URL in Debian's Chromium, as Electron loads it: the first screen runs on
// the main script alone, and the Experiment view's charts appear once their lazy chunks have been added to the
// page; a chunk that cannot be loaded shows an error naming it, and "Try again" loads it. The engine is a stand-in
// preload bridge (window.opencoder, as Electron's) answering from fixtures; nothing but file:// is reachable.

import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunListItem, Settings } from '../../contract/index.ts';
import { buildReportFixture } from '../helpers/report-fixture.ts';
import { tmpDir } from '../helpers/tmp-repo.ts';
import { APP_INFO } from '../renderer/app-info.ts';
import { REPO_ROOT } from '../validate/helpers.ts';
import { CHROMIUM_NEED, launchChromium } from './helpers.ts';

const SETTINGS: Settings = { backend: { kind: 'offline' }, sandbox: 'auto', encoder: 'auto', parallel: 2, pipeline: {} };
const RUN: RunListItem = {
  id: 'run-20260301T000000-lazy00',
  kind: 'ablate',
  state: 'done',
  createdAt: '2026-03-01T00:00:00.000Z',
  manifestFile: '/bench/tasks.jsonl',
  tasks: 6,
  conditions: ['A0X0S0', 'A1X1S1'],
  results: 12,
  errors: 0,
  backend: 'offline',
  label: 'lazy charts fixture',
  autoLabel: 'lazy charts fixture',
  subject: 'tasks.jsonl (6 tasks)',
};

/** What the stand-in engine answers per call; a call it does not know is an error, as an engine's would be. */
const ANSWERS: Record<string, unknown> = {
  'app.info': { ...APP_INFO, mode: 'electron' },
  'settings.get': SETTINGS,
  'repo.list': [],
  'job.list': [],
  'methods.list': { methods: [{ id: 'opencoder', label: 'OpenCoder', family: 'method', description: '' }], ladder: [], factorial: [] },
  'experiment.list': [RUN],
  'experiment.model': buildReportFixture(),
  'tasks.list': { manifest: APP_INFO.sampleManifest, hash: 'abc123', tasks: [] },
};

describe.skipIf(CHROMIUM_NEED.skip)(`lazy chunks from file:// (Chromium)${CHROMIUM_NEED.note}`, () => {
  let build: string;
  let context: BrowserContext;
  const requests: string[] = [];
  const pageErrors: string[] = [];

  beforeAll(async () => {
    build = tmpDir('oc-e2e-lazy-build-');
    const vite = await import('vite');
    await vite.build({ configFile: path.join(REPO_ROOT, 'renderer', 'vite.config.ts'), logLevel: 'warn', build: { outDir: build, emptyOutDir: true } });
    context = await launchChromium(1280, 900, (u) => u.startsWith('file://'));
    context.on('request', (r) => requests.push(r.url()));
    await context.exposeBinding('__ocAnswer', (_source, name: string) => {
      if (!(name in ANSWERS)) return { ok: false, error: { code: 'not-found', message: `the stand-in engine has no answer for ${name}` } };
      return { ok: true, value: ANSWERS[name] };
    });
    await context.addInitScript(() => {
      const answer = (window as unknown as { __ocAnswer: (name: string) => Promise<unknown> }).__ocAnswer;
      (window as unknown as { opencoder: unknown }).opencoder = { call: (name: string) => answer(name), subscribe: () => () => {} };
    });
  });

  afterAll(async () => {
    await context?.close();
  });

  async function open(hash = ''): Promise<Page> {
    requests.length = 0;
    pageErrors.length = 0;
    const page = await context.newPage();
    page.on('pageerror', (e) => pageErrors.push(e.message));
    await page.goto(pathToFileURL(path.join(build, 'index.html')).href + hash);
    return page;
  }

  const scriptsRequested = () => requests.filter((u) => u.endsWith('.js')).map((u) => path.basename(new URL(u).pathname));
  const lazyFiles = (): Record<string, string[]> => JSON.parse(/data-lazy-chunks='([^']+)'/.exec(fs.readFileSync(path.join(build, 'index.html'), 'utf8'))![1]!);

  async function showCharts(page: Page) {
    await page.getByTestId('nav-experiment').click();
    await page.locator(`[data-testid="run-row"][data-run-id="${RUN.id}"] [data-testid="run-select"]`).check();
  }

  it('shows the first screen with the main script alone, then the charts after their chunk loads', async () => {
    const page = await open();
    await page.getByTestId('view-repository').waitFor();
    await page.getByTestId('connection-state').waitFor();
    const main = [...fs.readFileSync(path.join(build, 'index.html'), 'utf8').matchAll(/<script\b[^>]*\bsrc="\.\/assets\/([^"]+)"/g)].map((m) => m[1]!);
    expect(scriptsRequested()).toEqual(main);

    await showCharts(page);
    const charts = page.getByTestId('analysis-charts');
    await charts.waitFor({ state: 'visible', timeout: 30_000 });
    await page.getByTestId('chart-factorial-pass1').locator('svg.recharts-surface').first().waitFor({ state: 'visible', timeout: 30_000 });
    expect(await charts.locator('figure.chart').count()).toBeGreaterThan(2);
    const lazy = lazyFiles();
    expect(scriptsRequested()).toEqual(expect.arrayContaining([...lazy.experiment!, ...lazy.charts!]));
    expect(pageErrors).toEqual([]);
    await page.close();
  });

  it('says which chunk failed to load and loads it on "Try again"', async () => {
    const chartsFile = lazyFiles().charts!.at(-1)!;
    const file = path.join(build, 'assets', chartsFile);
    const aside = `${file}.aside`;
    fs.renameSync(file, aside);
    let page: Page;
    try {
      page = await open();
      await showCharts(page);
      const error = page.getByTestId('lazy-charts-error');
      await error.waitFor({ state: 'visible', timeout: 30_000 });
      expect(await error.innerText()).toContain('Could not load the charts');
      expect(await error.innerText()).toContain(chartsFile);
      // The tables of the analysis stay usable.
      expect(await page.getByTestId('analysis-tab-summary').count()).toBe(1);
    } finally {
      fs.renameSync(aside, file);
    }
    await page.getByTestId('lazy-charts-retry').click();
    await page.getByTestId('chart-factorial-pass1').locator('svg.recharts-surface').first().waitFor({ state: 'visible', timeout: 30_000 });
    expect(await page.getByTestId('lazy-charts-error').count()).toBe(0);
    expect(pageErrors).toEqual([]);
    await page.close();
  });
});
