// Isolated verdicts: the tests run in a process the candidate never runs in. The sample repository's tasks are
// all validated that way; a candidate's sandbox holds no tests, no manifest and no unmasked target; the reference
// decides where isolation is faithful; every verdict says where it was decided.

import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readManifest } from '../../main/benchmarks/manifest-file.ts';
import { findTask } from '../../main/model/manifest.ts';
import type { Task } from '../../main/model/task.ts';
import { detectSandbox } from '../../main/validate/sandbox.ts';
import { createValidator, decideIsolation, type Validator } from '../../main/validate/validator.ts';
import { testPaths, type RepoListing } from '../../main/validate/task-plan.ts';
import type { Verdict } from '../../main/model/verdict.ts';
import { PLACEHOLDER, SAMPLE_REPO, templateTask } from './helpers.ts';

const strong = (await detectSandbox()).strength === 'strong';

const manifest = readManifest(path.join(SAMPLE_REPO, 'tasks.jsonl'));
let validator: Validator;

beforeAll(async () => {
  validator = await createValidator({ concurrency: 2 });
});
afterAll(() => validator.close());

/** The reference's signature with a body that only raises. */
function notImplemented(task: Task): string {
  return `${task.signature.trim()}\n    raise NotImplementedError\n`;
}

describe('isolated validation of the sample repository', () => {
  it('decides every task isolated from its reference, and fails every NotImplementedError body there', async () => {
    const results = await Promise.all(
      manifest.tasks.map(async (t) => {
        const check = await validator.referenceCheck(t);
        const stub = await validator.validate(t, notImplemented(t));
        return { id: t.id, check, stub };
      }),
    );
    for (const r of results) {
      expect(r.check, r.id).toMatchObject({ passes: true, isolation: 'isolated' });
      expect(r.check.isolationReason).toBe('the reference passes every test the task names isolated');
      expect(r.stub.isolation, r.id).toBe('isolated');
      expect(r.stub.status, r.id).toBe('failed');
    }
    // Methods stay methods of their class, and a returned argument stays the same object (PriceRule.apply
    // returns `amount` itself below the minimum quantity).
    expect(results.map((r) => r.id)).toEqual(expect.arrayContaining(['inventory/Money.multiply', 'inventory/PriceRule.apply']));
  }, 240_000);

  it('gives the candidate process no tests, no manifest and no copy of the answer', async () => {
    const task = findTask(manifest, 'inventory/add_tax');
    // A wrong candidate that looks for the answer everywhere it could be, and reports what it found.
    const snoop = `def add_tax(amount, tax_class="standard"):
    import os
    found = []
    for p in ("tests", "/base/tests", "tasks.jsonl", "/base/tasks.jsonl", "tests/test_pricing.py", "/base/tests/test_pricing.py"):
        if os.path.isdir(p) and os.listdir(p) or os.path.isfile(p) and os.path.getsize(p):
            found.append(p)
    answer = "_round_half_up(Decimal(amount.cents) * " + "tax_rate(tax_class))"  # split: not in this source
    for p in ("inventory/pricing.py", "/base/inventory/pricing.py"):
        if os.path.exists(p) and answer in open(p).read():
            found.append(p)
    raise RuntimeError("FOUND[" + ",".join(found) + "]")
`;
    const v = await validator.validate(task, snoop);
    expect(v.isolation).toBe('isolated');
    expect(v.status).toBe('failed');
    const messages = v.tests.map((t) => t.message ?? '').join('\n');
    expect(messages).toContain('RuntimeError: FOUND[');
    if (strong) expect(messages).not.toMatch(/RuntimeError: FOUND\[[^\]]/);
    // And in-process, the one file a test run cannot do without is there, but not the original target.
    const inProcess = await validator.validate(task, snoop, { isolation: 'in-process' });
    expect(inProcess.isolation).toBe('in-process');
    const inMessages = inProcess.tests.map((t) => t.message ?? '').join('\n');
    expect(inMessages).toContain('RuntimeError: FOUND[');
    expect(inMessages).not.toMatch(/RuntimeError: FOUND\[[^\]]*inventory\/pricing\.py/);
    expect(inMessages).not.toMatch(/RuntimeError: FOUND\[[^\]]*tasks\.jsonl/);
  }, 120_000);

  it("holds none of a check program's tests in the candidate process", async () => {
    const task = templateTask('iso/template');
    const v = await validator.validate(
      task,
      'def f(x):\n    import __main__\n    raise RuntimeError("TESTS" + str(sorted(n for n in vars(__main__) if n.startswith("test_"))))\n',
    );
    expect(v.isolation).toBe('isolated');
    expect(v.status).toBe('failed');
    expect(v.tests[0]!.message).toContain('TESTS[]');
  }, 60_000);
});

describe('where isolation is not faithful, the reference keeps the task in-process', () => {
  const returnsFunction = `${PLACEHOLDER}

def test_0():
    assert f(2)(3) == 5
`;

  it('a target that returns a function is validated isolated: the function stays in the candidate process and is called there', async () => {
    const task = templateTask('iso/returns-function', returnsFunction, {
      reference: 'def f(x):\n    return lambda y: x + y\n',
      signature: 'def f(x):',
      tests: ['test_0'],
    });
    const check = await validator.referenceCheck(task);
    expect(check).toMatchObject({ passes: true, isolation: 'isolated' });
    const wrong = await validator.validate(task, 'def f(x):\n    return lambda y: x - y\n');
    expect(wrong).toMatchObject({ status: 'failed', isolation: 'isolated' });
    const right = await validator.validate(task, 'def f(x):\n    def g(y):\n        return y + x\n    return g\n');
    expect(right).toMatchObject({ status: 'passed', isolation: 'isolated' });
  }, 120_000);

  it('tests that need a returned function to be a function (inspect, its closure) keep the task in-process, and its verdicts say so', async () => {
    const task = templateTask(
      'iso/reads-closure',
      `import inspect\n${PLACEHOLDER}\n\ndef test_0():\n    g = f(2)\n    assert g(3) == 5 and inspect.isfunction(g) and g.__closure__ is not None\n`,
      {
        reference: 'def f(x):\n    return lambda y: x + y\n',
        signature: 'def f(x):',
        tests: ['test_0'],
      },
    );
    const check = await validator.referenceCheck(task);
    expect(check.passes).toBe(true);
    expect(check.isolation).toBe('in-process');
    expect(check.isolationReason).toMatch(/test_0/);
    const wrong = await validator.validate(task, 'def f(x):\n    return lambda y: x - y\n');
    expect(wrong).toMatchObject({ status: 'failed', isolation: 'in-process' });
    const right = await validator.validate(task, 'def f(x):\n    def g(y):\n        return y + x\n    return g\n');
    expect(right).toMatchObject({ status: 'passed', isolation: 'in-process' });
  }, 120_000);

  it('decides from the two reference runs', () => {
    const verdict = (status: Verdict['status'], passed: string[], reason = 'r'): Verdict =>
      ({ status, reason, tests: passed.map((id) => ({ id, outcome: 'passed', expected: true })) }) as unknown as Verdict;
    expect(decideIsolation(verdict('passed', ['a', 'b']), verdict('passed', ['a', 'b']), 'k')).toMatchObject({
      isolation: 'isolated',
      passes: true,
      tests: ['a', 'b'],
    });
    // Other tests pass isolated: something the process boundary changes.
    expect(decideIsolation(verdict('passed', ['a', 'b']), verdict('passed', ['a']), 'k')).toMatchObject({ isolation: 'in-process', tests: ['a', 'b'] });
    expect(decideIsolation(verdict('passed', ['a']), verdict('failed', []), 'k')).toMatchObject({ isolation: 'in-process', passes: true });
    // The in-process defences misjudged the reference: isolated decides.
    expect(decideIsolation(verdict('error', [], 'forgery'), verdict('passed', ['a']), 'k')).toMatchObject({ isolation: 'isolated', passes: true });
    expect(decideIsolation(verdict('failed', []), verdict('failed', []), 'k')).toMatchObject({ passes: false });
    // Told to run one way only.
    expect(decideIsolation(null, verdict('passed', ['a']), 'k').isolationReason).toMatch(/setting/);
    expect(decideIsolation(verdict('passed', ['a']), null, 'k')).toMatchObject({ isolation: 'in-process' });
  });
});

describe('what the candidate sandbox leaves out', () => {
  it('hides test folders and files, and what the test command names, but not the target', () => {
    const listing: RepoListing = {
      root: '/r',
      dirs: ['pkg', 'pkg/tests', 'tests', 'tests/unit', 'testing_utils', 'Lib', 'Lib/test', 'spec'],
      files: ['pkg/a.py', 'pkg/tests/test_a.py', 'tests/unit/t.py', 'conftest.py', 'pkg/a_test.py', 'spec/check_a.py', 'Lib/test/test_x.py', 'Lib/x.py'],
      links: [],
      bytes: 0,
      withheld: [],
    };
    expect(testPaths(listing, 'pkg/a.py', ['-q', 'spec/check_a.py'])).toEqual([
      { rel: 'pkg/tests', dir: true },
      { rel: 'tests', dir: true },
      { rel: 'Lib/test', dir: true },
      { rel: 'conftest.py', dir: false },
      { rel: 'pkg/a_test.py', dir: false },
      { rel: 'spec/check_a.py', dir: false },
    ]);
    // A target inside a test folder keeps its folder (its own module must load), not its test files.
    expect(testPaths({ ...listing, dirs: ['tests'], files: ['tests/helpers.py', 'tests/test_h.py'] }, 'tests/helpers.py', [])).toEqual([
      { rel: 'tests/test_h.py', dir: false },
    ]);
  });

  it('withholds task manifests from every workspace', () => {
    const t = findTask(manifest, 'inventory/add_tax');
    expect(fs.existsSync(path.join(SAMPLE_REPO, 'tasks.jsonl'))).toBe(true);
    return validator.prepare(t).then((plan) => {
      expect(plan.repo!.withheld).toContain('tasks.jsonl');
      expect(plan.repo!.files).not.toContain('tasks.jsonl');
    });
  });
});
