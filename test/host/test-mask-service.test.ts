// Issue 29 in a long-lived engine (the browser-mode service, one process across index changes): a task runs, then
// test files are planted in its repository (a Django-style tests.py, a module only the task's test command names, a
// tests/ file), the repository is indexed again, and the task runs again: no evidence item comes from any of them,
// and every result says what the leakage audit found.

import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readJsonl } from '../validate/helpers.ts';
import type { EngineService } from '../../main/host/service.ts';
import { sampleRepoPath } from '../../main/host/paths.ts';
import type { TaskResult } from '../../main/model/results.ts';
import { ok, openService, settled } from '../helpers/service-calls.ts';
import { tmpDir } from '../helpers/tmp-repo.ts';

const PLANTED = {
  'inventory/tests.py': `from django.test import TestCase

from inventory.money import Money
from inventory.pricing import apply_discount


class DiscountTests(TestCase):
    def check_discount_rounds_half_up_in_cents(self):
        self.assertEqual(apply_discount(Money(1999, "EUR"), 12.5), Money(1749, "EUR"))
`,
  'inventory/checks_discount.py': `from inventory.money import Money
from inventory.pricing import apply_discount


def discount_percentage_rounded_half_up_in_cents():
    assert apply_discount(Money(1999, "EUR"), 12.5) == Money(1749, "EUR")
`,
  'tests/test_discount_more.py': `import unittest

from inventory.money import Money
from inventory.pricing import apply_discount


class MoreDiscountTests(unittest.TestCase):
    def test_discount_of_a_refund(self):
        self.assertEqual(apply_discount(Money(-1000, "USD"), 10), Money(-900, "USD"))
`,
};

describe('test files planted while the engine runs never reach the evidence', () => {
  let dir: string;
  let s: EngineService;
  let repo: string;
  let manifest: string;

  beforeAll(async () => {
    dir = tmpDir('oc-mask-service-');
    repo = path.join(dir, 'repo');
    fs.cpSync(sampleRepoPath(), repo, { recursive: true });
    const lines = readJsonl<{ id: string; test_command?: string }>(path.join(repo, 'tasks.jsonl'));
    lines.find((t) => t.id === 'inventory/apply_discount')!.test_command = 'python3 -m unittest inventory.checks_discount tests.test_pricing';
    manifest = path.join(repo, 'tasks.jsonl');
    fs.writeFileSync(manifest, lines.map((t) => JSON.stringify(t)).join('\n') + '\n');
    s = await openService(dir, 'home');
  }, 120_000);

  afterAll(async () => {
    await s?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const runOnce = async (): Promise<TaskResult> => {
    const { jobId } = await ok<{ jobId: string }>(s, 'task.run', { manifest, taskId: 'inventory/apply_discount', methods: ['opencoder'] });
    const job = await settled(s, jobId, 180_000);
    expect(job, JSON.stringify(job)).toMatchObject({ state: 'done' });
    return ok<TaskResult>(s, 'experiment.result', { runId: job.result!.runId!, taskId: 'inventory/apply_discount', condition: 'opencoder' });
  };

  it('index, run, plant, index again, run again: nothing of the planted files in the evidence', async () => {
    const first = await runOnce();
    expect(first.detail!.evidence.length).toBeGreaterThan(10);
    expect(first.retrieval.leak).toMatchObject({ policy: 'drop', suspects: 0 });

    for (const [rel, text] of Object.entries(PLANTED)) fs.writeFileSync(path.join(repo, rel), text);
    const { jobId } = await ok<{ jobId: string }>(s, 'repo.index', { path: repo });
    expect(await settled(s, jobId, 180_000)).toMatchObject({ state: 'done' });

    // The Repository view's counts: test files by reason (the command-named module is one task's tests only).
    const listed = (await ok<{ root: string; testFiles: Record<string, number> }[]>(s, 'repo.list')).find((r) => r.root === fs.realpathSync(repo))!;
    const namedBefore = fs.readdirSync(path.join(repo, 'tests')).filter((f) => f.endsWith('.py')).length;
    expect(listed.testFiles).toEqual({ 'named as a test': namedBefore, 'TestCase subclass': 1 });

    const second = await runOnce();
    const files = new Set(second.detail!.evidence.map((e) => e.file));
    for (const rel of Object.keys(PLANTED)) expect(files.has(rel), rel).toBe(false);
    expect(second.retrieval.leak).toMatchObject({ policy: 'drop' });
    expect(second.retrieval.leak!.checked).toBeGreaterThan(0);
  }, 400_000);
});
