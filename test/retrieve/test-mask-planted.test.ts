// Issue 29: test files recognised by what they are, planted after a first retrieval on the same database: a
// Django-style `inventory/tests.py` (a TestCase subclass, not named test_*), and a module that only the task's test
// command names (`python3 -m unittest inventory.checks_discount`, functions that are not named as tests). Both hold
// the task's expected outputs; neither may reach the evidence.

import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { readJsonl } from '../validate/helpers.ts';
import { cli } from '../helpers/cli.ts';
import { tmpDir } from '../helpers/tmp-repo.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const SAMPLE = path.join(ROOT, 'resources', 'sample-repo');
const dir = tmpDir('oc-mask-planted-');
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const DJANGO_STYLE = `from django.test import TestCase

from inventory.money import Money
from inventory.pricing import apply_discount, add_tax


class DiscountTaxTests(TestCase):
    def check_discount_rounds_half_up_in_cents(self):
        self.assertEqual(apply_discount(Money(1999, "EUR"), 12.5), Money(1749, "EUR"))

    def check_discount_keeps_currency_and_refunds(self):
        self.assertEqual(apply_discount(Money(-1000, "USD"), 10), Money(-900, "USD"))

    def check_tax_standard_rate(self):
        self.assertEqual(add_tax(Money(1000, "EUR"), "standard"), Money(1200, "EUR"))
`;

const COMMAND_ONLY = `"""Discount checks run by the task's own command."""
from inventory.money import Money
from inventory.pricing import apply_discount


def discount_percentage_rounded_half_up_in_cents():
    assert apply_discount(Money(1999, "EUR"), 12.5) == Money(1749, "EUR")


def discount_outside_0_100_raises_value_error():
    try:
        apply_discount(Money(100, "EUR"), 120)
    except ValueError:
        return
    raise AssertionError("no ValueError for a percentage outside 0-100")
`;

describe('test files planted after a first run never reach the evidence', () => {
  it('a Django-style tests.py and a module only the test command names', async () => {
    const repo = path.join(dir, 'repo');
    fs.cpSync(SAMPLE, repo, { recursive: true });
    const tasks = readJsonl<{ id: string; test_command?: string }>(path.join(repo, 'tasks.jsonl'));
    const discount = tasks.find((t) => t.id === 'inventory/apply_discount')!;
    discount.test_command = 'python3 -m unittest inventory.checks_discount';
    fs.writeFileSync(path.join(repo, 'tasks.jsonl'), tasks.map((t) => JSON.stringify(t)).join('\n') + '\n');
    const db = path.join(dir, 'p.db');
    const retrieve = async (id: string) => {
      const r = await cli(['retrieve', '--manifest', path.join(repo, 'tasks.jsonl'), '--id', id, '--db', db, '--quiet', '--json']);
      expect(r.code, r.err.join('\n')).toBe(0);
      return r.json().trace as { evidence: { file: string; kept: boolean }[]; fused: { file: string }[] };
    };
    expect((await retrieve(discount.id)).evidence.length).toBeGreaterThan(10);

    fs.writeFileSync(path.join(repo, 'inventory', 'tests.py'), DJANGO_STYLE);
    fs.writeFileSync(path.join(repo, 'inventory', 'checks_discount.py'), COMMAND_ONLY);
    // apply_discount: neither file; add_tax: not the TestCase file (checks_discount.py is another task's tests,
    // named by that task's command only, and ordinary code to this one).
    const files = (trace: { evidence: { file: string }[] }) => new Set(trace.evidence.map((e) => e.file));
    const d = files(await retrieve(discount.id));
    expect(d.has('inventory/tests.py') || d.has('inventory/checks_discount.py')).toBe(false);
    const t = files(await retrieve('inventory/add_tax'));
    expect(t.has('inventory/tests.py')).toBe(false);
    // The planted files were indexed: the mask is the retrieval's, not a gap in the index.
    expect(t.has('inventory/checks_discount.py')).toBe(true);
  }, 240_000);

  it('a vendored twin of the target (another docstring and layout) is masked, and none of its code reaches the evidence', async () => {
    const repo = path.join(dir, 'twin-repo');
    fs.cpSync(SAMPLE, repo, { recursive: true });
    const task = readJsonl<{ id: string; reference: string }>(path.join(repo, 'tasks.jsonl')).find((t) => t.id === 'inventory/apply_discount')!;
    const copy = task.reference.replace(/"""[\s\S]*?"""/, '"""Vendored copy of the discount rule."""').replace(/\n\n/g, '\n');
    fs.mkdirSync(path.join(repo, 'vendor'));
    fs.writeFileSync(path.join(repo, 'vendor', '__init__.py'), '');
    fs.writeFileSync(
      path.join(repo, 'vendor', 'pricing_copy.py'),
      `from decimal import Decimal\n\nfrom inventory.money import Money, _round_half_up\n\n\n${copy}`,
    );
    const r = await cli(['retrieve', '--manifest', path.join(repo, 'tasks.jsonl'), '--id', task.id, '--db', path.join(dir, 't.db'), '--quiet', '--json']);
    expect(r.code, r.err.join('\n')).toBe(0);
    const trace = r.json().trace as { evidence: { file: string; title: string; text: string }[]; masked: string[] };
    expect(trace.masked).toContain('unit vendor/pricing_copy.py:apply_discount');
    // Nothing of the copy's code reaches the evidence (a chunk listing its signature and docstring may: the prompt
    // shows the signature anyway).
    const fromCopy = trace.evidence.filter((e) => e.file === 'vendor/pricing_copy.py');
    expect(fromCopy.filter((e) => e.text.includes('_round_half_up(')).map((e) => e.title)).toEqual([]);
  }, 240_000);
});
