// The repository task shape on resources/sample-repo: references pass, broken candidates fail
// with per-test results, methods are spliced at their class's indentation.

import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readManifest } from '../../main/benchmarks/manifest-file.ts';
import type { Task } from '../../main/model/task.ts';
import { createValidator, type Validator } from '../../main/validate/validator.ts';
import { TaskError } from '../../main/validate/task-plan.ts';
import { makeRepo } from '../helpers/tmp-repo.ts';
import { SAMPLE_REPO } from './helpers.ts';

const manifest = readManifest(path.join(SAMPLE_REPO, 'tasks.jsonl'));
const byId = (id: string) => manifest.tasks.find((t) => t.id === id)!;
let validator: Validator;
const made: string[] = [];

beforeAll(async () => {
  validator = await createValidator({ validation: { timeoutFloorMs: 20_000 } });
});
afterAll(() => {
  validator.close();
  for (const d of made) fs.rmSync(d, { recursive: true, force: true });
});

describe('repository tasks (sample repository, python3 -m unittest)', () => {
  it('every task’s reference passes, with each expected test reported', async () => {
    const verdicts = await Promise.all(manifest.tasks.map((t) => validator.validateReference(t)));
    for (const [i, v] of verdicts.entries()) {
      const t = manifest.tasks[i]!;
      expect(v.status, `${t.id}: ${v.reason}\n${v.stderr}`).toBe('passed');
      expect(
        v.findings.filter((f) => f.severity === 'error'),
        t.id,
      ).toEqual([]);
      for (const id of t.tests!) expect(v.tests.find((r) => r.id === id)?.outcome, `${t.id} ${id}`).toBe('passed');
    }
  });

  it('a broken candidate fails with per-test results and failure messages', async () => {
    const t = byId('inventory/apply_discount');
    const v = await validator.validate(
      t,
      'def apply_discount(amount: Money, percent: float) -> Money:\n    # truncates instead of rounding half-up, never validates\n    return Money.from_cents(amount.cents - int(amount.cents * percent / 100), amount.currency)\n',
    );
    expect(v.status).toBe('failed');
    const mine = v.tests.filter((r) => r.expected);
    expect(mine.map((r) => r.id).sort()).toEqual([...t.tests!].sort());
    const outcome = Object.fromEntries(mine.map((r) => [r.id.split('.').pop(), r.outcome]));
    expect(outcome.test_apply_discount_keeps_currency).toBe('passed');
    expect(outcome.test_apply_discount_rejects_out_of_range).toBe('failed');
    expect(mine.find((r) => r.outcome === 'failed')!.message).toMatch(/AssertionError|ValueError not raised/);
    // other tests of the module ran too and are reported, but do not decide the verdict
    expect(v.tests.some((r) => !r.expected)).toBe(true);
  });

  it('splices a method at the class’s indentation, whether given flat, indented or inside its class', async () => {
    const t = byId('inventory/Money.multiply');
    const body = [
      'def multiply(self, factor: Number) -> Money:',
      '    """Scale and round half-up.',
      '',
      'Docstring lines keep their own indentation."""',
      '    scaled = Decimal(self.cents) * _to_decimal(factor)',
      '    return Money.from_cents(_round_half_up(scaled), self.currency)',
      '',
    ].join('\n');
    const indented = body
      .split('\n')
      .map((l, i) => (l && i !== 3 ? `        ${l}` : l))
      .join('\n');
    const wrapped = `class Money:\n${body
      .split('\n')
      .map((l, i) => (l && i !== 3 ? `    ${l}` : l))
      .join('\n')}`;
    const [flat, deep, inClass] = await Promise.all([validator.validate(t, body), validator.validate(t, indented), validator.validate(t, wrapped)]);
    for (const v of [flat, deep, inClass]) expect(v.status, v.reason).toBe('passed');
  });

  it('keeps the helper functions and imports a method candidate adds (at module level)', async () => {
    const t = byId('inventory/StockLedger.quantity_on_hand');
    const code = [
      'import itertools',
      '',
      'def _counts(movements, key, as_of):',
      '    return (m.signed_quantity for m in movements if m.sku == key and (as_of is None or m.when <= as_of))',
      '',
      'def quantity_on_hand(self, sku: str, *, as_of: date | None = None) -> int:',
      '    return sum(itertools.chain(_counts(self._movements, _normalize_sku(sku), as_of)))',
      '',
    ].join('\n');
    const v = await validator.validate(t, code);
    expect(v.status, `${v.reason}\n${v.stderr}`).toBe('passed');
  });

  it('static findings come back with the verdict (undefined name inside a method)', async () => {
    const t = byId('inventory/StockLedger.quantity_on_hand');
    const v = await validator.validate(t, 'def quantity_on_hand(self, sku, *, as_of=None):\n    return totl\n');
    expect(v.status).toBe('failed');
    expect(v.findings).toEqual([expect.objectContaining({ kind: 'undefined-name', name: 'totl', line: 2, severity: 'error' })]);
  });

  it('expected tests that never ran fail the candidate; zero collected tests is an error, never a pass', async () => {
    const t: Task = {
      ...byId('inventory/add_tax'),
      tests: ['tests.test_pricing.TaxTests.test_add_tax_standard_rate', 'tests.test_pricing.TaxTests.test_does_not_exist'],
    };
    const v = await validator.validateReference(t);
    expect(v.status).toBe('failed');
    expect(v.tests.find((r) => r.id.endsWith('test_does_not_exist'))?.outcome).toBe('not-run');

    const repo = makeRepo({
      'pkg/__init__.py': '',
      'pkg/mod.py': 'def g(x):\n    return x\n',
      'tests/__init__.py': '',
      'tests/test_empty.py': 'import unittest\n',
    });
    made.push(repo);
    const empty: Task = {
      id: 'empty/g',
      repo: '.',
      repoPath: repo,
      file: 'pkg/mod.py',
      qualname: 'g',
      requirement: '',
      signature: 'def g(x):',
      test_command: 'python3 -m unittest tests.test_empty',
    };
    const e = await validator.validate(empty, 'def g(x):\n    return x\n');
    expect(e.status).toBe('error');
    expect(e.reason).toMatch(/no tests ran/);
  });

  it('runs unittest discovery and pytest commands through the harness (pytest only where installed)', async () => {
    const repo = makeRepo({
      'pkg/__init__.py': '',
      'pkg/mod.py': 'class K:\n    def g(self, x):\n        return x\n',
      'tests/__init__.py': '',
      'tests/test_mod.py':
        'import unittest\nfrom pkg.mod import K\n\nclass T(unittest.TestCase):\n    def test_g(self):\n        self.assertEqual(K().g(2), 3)\n',
      'tests/test_py.py': 'from pkg.mod import K\n\ndef test_g():\n    assert K().g(2) == 3\n',
    });
    made.push(repo);
    const base = { repo: '.', repoPath: repo, file: 'pkg/mod.py', qualname: 'K.g', requirement: '', signature: 'def g(self, x):' };
    const disc: Task = { ...base, id: 'disc/K.g', test_command: 'python3 -m unittest discover -s tests -t .', tests: ['tests.test_mod.T.test_g'] };
    expect((await validator.validate(disc, 'def g(self, x):\n    return x + 1\n')).status).toBe('passed');
    expect((await validator.validate(disc, 'def g(self, x):\n    return x\n')).status).toBe('failed');

    const py: Task = { ...base, id: 'py/K.g', test_command: 'python3 -m pytest -q tests/test_py.py', tests: ['tests/test_py.py::test_g'] };
    const v = await validator.validate(py, 'def g(self, x):\n    return x + 1\n');
    if (/pytest is not installed/.test(v.reason)) {
      expect(v.status).toBe('error'); // an environment problem is never a pass
    } else {
      expect(v.status).toBe('passed');
      expect((await validator.validate(py, 'def g(self, x):\n    return x\n')).status).toBe('failed');
    }
  });

  it('pytest: per-test node ids, and zero collected tests (exit 5) is never a pass', async () => {
    // Debian's python3 may lack pytest; any python3 on PATH that has it serves for this check,
    // run in weak mode without a privilege drop (a pyenv under /root is unreachable for 65534).
    const probe = spawnSync('python3', ['-c', 'import pytest, sys; print(sys.executable)'], { encoding: 'utf8' });
    const python = probe.status === 0 ? probe.stdout.trim() : null;
    if (!python) {
      console.warn('[validate] no python3 with pytest on PATH: the real-pytest check is skipped');
      return;
    }
    const repo = makeRepo({
      'pkg/__init__.py': '',
      'pkg/mod.py': 'def g(x):\n    return x\n',
      'tests/test_py.py':
        'import pytest\nfrom pkg.mod import g\n\ndef test_g():\n    assert g(2) == 3\n\n@pytest.mark.parametrize("v", [1, 2])\ndef test_param(v):\n    assert g(v) == v + 1\n',
      'tests/test_none.py': 'X = 1\n',
    });
    made.push(repo);
    const v = await createValidator({ sandbox: { mode: 'weak', setpriv: null, python }, validation: { timeoutFloorMs: 30_000 } });
    const base = { repo: '.', repoPath: repo, file: 'pkg/mod.py', qualname: 'g', requirement: '', signature: 'def g(x):' };
    const t: Task = {
      ...base,
      id: 'pytest/g',
      test_command: 'python3 -m pytest -q tests/test_py.py',
      tests: ['tests/test_py.py::test_g', 'tests/test_py.py::test_param[1]', 'tests/test_py.py::test_param[2]'],
    };
    const good = await v.validate(t, 'def g(x):\n    return x + 1\n');
    expect(good.status, good.reason + good.stderr).toBe('passed');
    const bad = await v.validate(t, 'def g(x):\n    return x + (x == 2)\n');
    expect(bad.status).toBe('failed');
    expect(Object.fromEntries(bad.tests.map((r) => [r.id, r.outcome]))).toEqual({
      'tests/test_py.py::test_g': 'passed',
      'tests/test_py.py::test_param[1]': 'failed',
      'tests/test_py.py::test_param[2]': 'passed',
    });
    const none = await v.validate({ ...base, id: 'pytest/none', test_command: 'pytest tests/test_none.py' }, 'def g(x):\n    return x\n');
    expect(none.status).toBe('error');
    expect(none.reason).toMatch(/no tests ran/);
    v.close();
  });

  it('check() runs the static checks alone', async () => {
    const r = await validator.check(
      byId('inventory/add_tax'),
      'import no_such_mod\n\ndef add_tax(amount, tax_class="standard"):\n    return amount + undefined_x\n',
    );
    expect(r.blocking).toBe(false);
    expect(r.findings.map((f) => f.kind).sort()).toEqual(['undefined-name', 'unresolved-import']);
    expect((await validator.check(byId('inventory/add_tax'), 'def add_tax(:\n')).blocking).toBe(true);
  });

  it('rejects unusable tasks with a TaskError naming the task', async () => {
    const bad: Task = { ...byId('inventory/add_tax'), id: 'bad/cmd', test_command: 'make test' };
    await expect(validator.validate(bad, 'def add_tax(a, t="standard"):\n    return a\n')).rejects.toThrow(TaskError);
    const missing: Task = { ...byId('inventory/add_tax'), id: 'bad/target', qualname: 'no_such_function' };
    await expect(validator.validate(missing, 'def no_such_function():\n    pass\n')).rejects.toThrow(/bad\/target.*not defined/);
  });
});
