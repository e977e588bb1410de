/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
// (DOM types for the callbacks that run inside the browser page; the engine itself compiles without them.)
// Issue 31, the Task view in an analyst's second hour, end to end in Debian's Chromium (browser mode, offline
// backend): a task written on a folder outside the allowed roots offers "Allow this folder" where the error is
// shown and then runs; a requirement of only spaces is refused at its field; the evidence-fusion view shows item
// names with their last segment whole (the full name in the tooltip); and the Repository view says in words why
// files were skipped.

import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tmpDir } from '../helpers/tmp-repo.ts';
import { REPO_ROOT } from '../validate/helpers.ts';
import { acknowledgeSandboxNotice, CHROMIUM_NEED, launchChromium, startServe } from './helpers.ts';

const SCREENSHOTS = path.join(REPO_ROOT, 'docs', 'screenshots');

/** A small package with long dotted names (so the fusion view has names to shorten), a file over 1 MiB and a binary one. */
function writeRepo(root: string): void {
  const files: Record<string, string | Buffer> = {
    'pkg/__init__.py': '',
    'pkg/formatting/__init__.py': '',
    'pkg/formatting/filesize_helpers.py': [
      '"""Helpers that turn byte counts into text."""',
      '',
      'BINARY_PREFIXES = ["B", "KiB", "MiB", "GiB"]',
      '',
      '',
      'class FilesizeFormatter:',
      '    """Formats sizes with binary prefixes."""',
      '',
      '    def __init__(self, precision=1):',
      '        self.precision = precision',
      '',
      '    def scale_to_binary_prefix(self, n):',
      '        """Return (value, prefix) for n bytes, dividing by 1024 while the value is large."""',
      '        value = float(n)',
      '        for prefix in BINARY_PREFIXES:',
      '            if value < 1024 or prefix == BINARY_PREFIXES[-1]:',
      '                return value, prefix',
      '            value /= 1024',
      '        return value, BINARY_PREFIXES[-1]',
      '',
      '    def format_with_binary_prefix_and_precision(self, n):',
      '        """Format n bytes as text, e.g. 1.5 KiB."""',
      '        value, prefix = self.scale_to_binary_prefix(n)',
      '        return f"{value:.{self.precision}f} {prefix}"',
      '',
      '',
      'def human_size(n):',
      '    """Format n bytes with a binary prefix and one decimal."""',
      '    raise NotImplementedError',
      '',
    ].join('\n'),
    'tests/__init__.py': '',
    'tests/test_filesize.py': [
      'import unittest',
      '',
      'from pkg.formatting.filesize_helpers import human_size',
      '',
      '',
      'class TestFilesize(unittest.TestCase):',
      '    def test_binary_prefix(self):',
      '        self.assertEqual(human_size(1536), "1.5 KiB")',
      '',
    ].join('\n'),
    // Over the walk's 1 MiB limit: skipped as too large.
    'pkg/data/big_table.py': 'ROWS = [\n' + '    "0123456789abcdef0123456789abcdef",\n'.repeat(34_000) + ']\n',
    'pkg/blob.py': Buffer.from([0x78, 0, 0, 0x79, 0, 1, 2]),
  };
  for (const [rel, body] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    fs.writeFileSync(path.join(root, rel), body);
  }
}

describe.skipIf(CHROMIUM_NEED.skip)(`the Task view in the second hour${CHROMIUM_NEED.note}`, () => {
  let server: ChildProcess;
  let context: BrowserContext;
  let page: Page;
  const pageErrors: string[] = [];
  const outside = tmpDir('oc-e2e-task-outside-');

  beforeAll(async () => {
    writeRepo(outside);
    const served = await startServe('oc-e2e-task-home-');
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
    fs.rmSync(outside, { recursive: true, force: true });
  });

  const fill = async (values: Record<string, string>) => {
    for (const [k, v] of Object.entries(values)) await page.getByTestId(`custom-${k}`).fill(v);
  };

  it('refuses a requirement of only spaces at its field, before anything runs', async () => {
    await page.getByTestId('nav-task').click();
    await page.getByTestId('task-source-custom').click();
    await fill({
      repo: outside,
      file: 'pkg/formatting/filesize_helpers.py',
      qualname: 'human_size',
      signature: 'def human_size(n):',
      requirement: '   \n   ',
      test_command: 'python3 -m unittest discover -s tests -t .',
    });
    await page.getByTestId('task-run').click();
    const err = page.getByTestId('custom-field-requirement').getByTestId('field-error');
    await expect.poll(() => err.innerText(), { timeout: 10_000 }).toMatch(/only spaces/);
    expect(await page.getByTestId('custom-requirement').getAttribute('aria-invalid')).toBe('true');
    // Nothing was sent: no run error, no job.
    expect(await page.getByTestId('task-run-error').count()).toBe(0);
    expect(await page.getByTestId('task-job').count()).toBe(0);
  }, 60_000);

  it('a folder outside the allowed roots gets "Allow this folder" in place, and the task then runs', async () => {
    await fill({ requirement: 'Format n bytes with a binary prefix and one decimal, e.g. 1.5 KiB… Use FilesizeFormatter.' });
    // The field error goes as soon as the field is written again.
    expect(await page.getByTestId('custom-field-requirement').getByTestId('field-error').count()).toBe(0);
    await page.getByTestId('task-run').click();
    const box = page.getByTestId('task-run-error');
    await box.waitFor({ state: 'visible', timeout: 15_000 });
    expect(await box.innerText()).toMatch(/forbidden-path/);
    await page.getByTestId('task-run-error-allow-open').click();
    const confirm = page.getByTestId('task-run-error-allow-confirm');
    await confirm.waitFor({ state: 'visible' });
    expect(await confirm.innerText()).toContain(fs.realpathSync(outside));
    fs.mkdirSync(SCREENSHOTS, { recursive: true });
    await page.getByTestId('custom-task-form').scrollIntoViewIfNeeded();
    await confirm.scrollIntoViewIfNeeded();
    await page.screenshot({ path: path.join(SCREENSHOTS, 'task-allow-in-place.png') });
    await page.getByTestId('task-run-error-allow-yes').click();
    // Allowed, the same run starts at once: the error goes and the result comes.
    await box.waitFor({ state: 'detached', timeout: 15_000 });
    await page.getByTestId('task-result').first().waitFor({ state: 'visible', timeout: 240_000 });
    expect(await page.getByTestId('task-run-result').innerText()).toContain('human_size');
  }, 300_000);

  it('shows fused and retrieved item names with their last segment whole and the full name in the tooltip', async () => {
    await page.getByTestId('evidence-fusion').waitFor({ state: 'visible', timeout: 30_000 });
    const names = await page.locator('[data-testid="evidence-fusion"] [data-testid="evidence-name"]').evaluateAll((els) =>
      els.map((el) => {
        const item = el.closest('button')!.getBoundingClientRect();
        const last = el.querySelector('.ev-title-last')!;
        const r = last.getBoundingClientRect();
        return {
          full: el.getAttribute('title') ?? '',
          shown: (el as HTMLElement).innerText.replace(/\s+/g, ''),
          last: last.textContent ?? '',
          shortened: el.getAttribute('data-shortened') === 'true',
          fused: !!el.closest('[data-testid="fused-item"]'),
          inside: r.left >= item.left - 1 && r.right <= item.right + 1 && r.width > 0,
        };
      }),
    );
    expect(names.filter((n) => n.fused).length).toBeGreaterThan(0);
    for (const n of names) {
      const dotted = !/\s/.test(n.full) && n.full.includes('.');
      expect(n.last, n.full).toBe(dotted ? n.full.split('.').pop() : n.full);
      expect(n.inside, `${n.full}: its last segment lies inside the item`).toBe(true);
      // What is shown is the name itself, or its start and end around one "…".
      if (n.shortened) {
        const [head, tail] = n.shown.split('…');
        expect(n.full.startsWith(head!) && n.full.endsWith(tail!), n.shown).toBe(true);
      } else expect(n.shown).toBe(n.full.replace(/\s+/g, ''));
    }
    // The fixture's methods have long dotted names: some are shortened, none is cut inside its last segment.
    expect(names.some((n) => n.shortened)).toBe(true);
    // The summary says what the fused and API counts are taken over.
    expect(await page.getByTestId('summary-scope').innerText()).toMatch(/^Fused top \d+: .* \(what the prompt showed\)\./);
  }, 60_000);

  it('says in words why files were skipped', async () => {
    await page.getByTestId('nav-repository').click();
    const item = page.locator('[data-testid="repo-item"]', { hasText: path.basename(outside) });
    await item.first().waitFor({ state: 'visible', timeout: 30_000 });
    await item.first().click();
    await page.getByTestId('skipped-list').waitFor({ state: 'visible', timeout: 30_000 });
    const reasons = await page.getByTestId('skipped-reason').allInnerTexts();
    expect(reasons).toEqual(expect.arrayContaining(['larger than the 1 MiB limit', 'binary data']));
    for (const r of reasons) expect(r).not.toMatch(/^[a-z]+(_[a-z]+)+$/);
    const byReason = await page.getByTestId('skipped-by-reason').innerText();
    expect(byReason).toContain('larger than the 1 MiB limit');
    expect(byReason).not.toContain('too_large');
    expect(pageErrors).toEqual([]);
  }, 60_000);
});
