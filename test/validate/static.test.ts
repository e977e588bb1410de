// Static checks and splicing, run through the Python checker directly (no sandbox needed).

import { describe, expect, it } from 'vitest';
import { analyze, PLACEHOLDER, SAMPLE_REPO, TEMPLATE } from './helpers.ts';
import fs from 'node:fs';
import path from 'node:path';

const tmpl = (signature = 'def f(x):') => ({ kind: 'template', template: TEMPLATE, placeholder: PLACEHOLDER, qualname: 'f', signature });
const kinds = (r: ReturnType<typeof analyze>) => r.findings.map((f) => `${f.kind}:${f.name ?? ''}`);
const undefinedNames = (code: string) =>
  analyze(tmpl(), code)
    .findings.filter((f) => f.kind === 'undefined-name')
    .map((f) => f.name);

describe('static checks: syntax and target', () => {
  it('reports a syntax error with its line and blocks execution', () => {
    const r = analyze(tmpl(), 'def f(x):\n    return (x +\n');
    expect(r.blocking).toBe(true);
    expect(r.findings[0]).toMatchObject({ kind: 'syntax', severity: 'error' });
    expect(r.findings[0]!.line).toBeGreaterThanOrEqual(2);
  });

  it('treats NUL bytes as a syntax error (CPython raises ValueError for them)', () => {
    const r = analyze(tmpl(), 'def f(x):\n    return x\x00 + 1\n');
    expect(r.blocking).toBe(true);
    expect(r.findings[0]).toMatchObject({ kind: 'syntax', line: 2 });
  });

  it('catches compile-time errors ast.parse lets through', () => {
    expect(kinds(analyze(tmpl(), 'return 1\ndef f(x):\n    return x\n'))).toContain('syntax:');
    expect(kinds(analyze(tmpl(), 'def f(x):\n    nonlocal y\n    return x\n'))).toContain('syntax:');
  });

  it('blocks when the target is not defined, warns when it is only assigned', () => {
    const missing = analyze(tmpl(), 'def g(x):\n    return x + 1\n');
    expect(missing.blocking).toBe(true);
    expect(kinds(missing)).toEqual(['target-missing:f']);
    const assigned = analyze(tmpl(), 'f = lambda x: x + 1\n');
    expect(assigned.blocking).toBe(false);
    expect(kinds(assigned)).toEqual(['target-not-def:f']);
  });

  it('accepts an indented candidate (dedents it without touching string contents)', () => {
    const r = analyze(tmpl(), "    def f(x):\n        s = '''a\n  b'''\n        return x + 1\n");
    expect(r.blocking).toBe(false);
    expect(r.spliced).toContain("def f(x):\n    s = '''a\n  b'''\n    return x + 1");
  });

  it('compares the signature with the target', () => {
    const r = analyze(tmpl('def f(x, y=2, *, z):'), 'async def f(a):\n    return a\n');
    const msgs = r.findings.filter((f) => f.kind === 'signature').map((f) => f.message);
    expect(msgs.join('\n')).toMatch(/async/);
    expect(msgs.join('\n')).toMatch(/parameter 1 is named 'a'/);
    expect(msgs.join('\n')).toMatch(/lacks the target's parameter 'y'/);
    expect(msgs.join('\n')).toMatch(/keyword-only parameter 'z'/);
    expect(r.blocking).toBe(false); // the tests decide; the findings feed repair
    const ok = analyze(tmpl('def f(x, y=2):'), 'def f(x, y=3, *args, extra=None, **kw):\n    return x\n');
    expect(ok.findings.filter((f) => f.kind === 'signature')).toEqual([]);
    const extra = analyze(tmpl(), 'def f(x, y):\n    return x\n');
    expect(extra.findings.map((f) => f.message).join()).toMatch(/extra parameter\(s\) 'y'/);
  });
});

describe('static checks: undefined names under Python scoping', () => {
  it('knows builtins, the context, star imports and the candidate’s own bindings', () => {
    expect(undefinedNames('import math\nHELP = 3\ndef f(x: Optional[int]) -> List[int]:\n    return len([math.pi, OFFSET, HELP, sys.argv, json])\n')).toEqual(
      [],
    );
  });

  it('flags names nothing binds, once per scope', () => {
    expect(undefinedNames('def f(x):\n    return x + missing_one + missing_one + undefined_two\n')).toEqual(['missing_one', 'undefined_two']);
  });

  it('comprehension variables do not leak; with/for/except/walrus targets bind', () => {
    expect(undefinedNames('def f(x):\n    ys = [i for i in range(3)]\n    return i\n')).toEqual(['i']);
    expect(
      undefinedNames(
        'def f(x):\n    with open(__file__) as fh:\n        pass\n    for q in []:\n        pass\n    try:\n        pass\n    except Exception as err:\n        print(err)\n    if any((w := v) for v in [1]):\n        return fh, q, w\n',
      ),
    ).toEqual([]);
  });

  it('class attributes are not visible in methods or class-body comprehensions', () => {
    const r = analyze(tmpl(), 'class K:\n    a = 1\n    b = [a for _ in range(2)]\n    def m(self):\n        return a\n\ndef f(x):\n    return x + 1\n');
    const found = r.findings.filter((f) => f.kind === 'undefined-name');
    expect(found.map((f) => f.line)).toEqual([3, 5]);
    expect(found[1]!.message).toMatch(/class attribute/);
  });

  it('global and nonlocal declarations resolve; closures see enclosing functions', () => {
    expect(
      undefinedNames('def setup():\n    global G\n    G = 1\n\ndef f(x):\n    def inner():\n        nonlocal x\n        x += G\n    inner()\n    return x\n'),
    ).toEqual([]);
    expect(undefinedNames('def f(x):\n    global NEVER_SET\n    return NEVER_SET\n')).toEqual(['NEVER_SET']);
  });

  it('checks decorators, defaults and annotations in the scope that evaluates them', () => {
    expect(undefinedNames('@no_such_decorator\ndef f(x: NoSuchType = no_default) -> int:\n    return x\n').sort()).toEqual([
      'NoSuchType',
      'no_default',
      'no_such_decorator',
    ]);
  });
});

describe('static checks: imports', () => {
  it('resolves the standard library and flags what is missing', () => {
    const r = analyze(
      tmpl(),
      'import os.path\nimport xml.etree.ElementTree\nfrom collections import abc, OrderedDict\nimport surely_not_a_module_xyz\nfrom json import no_such_name\nfrom . import sibling\ndef f(x):\n    return x + 1\n',
    );
    const imp = r.findings.filter((f) => f.kind === 'unresolved-import');
    expect(imp.map((f) => f.line)).toEqual([4, 5, 6]);
    expect(imp[1]!.message).toMatch(/cannot import name 'no_such_name' from 'json'/);
    expect(imp[2]!.message).toMatch(/relative import in a standalone program/);
  });

  it('resolves modules of the repository, absolute and relative', () => {
    const file = 'inventory/pricing.py';
    const target = { kind: 'file', file, file_text: fs.readFileSync(path.join(SAMPLE_REPO, file), 'utf8'), qualname: 'add_tax', signature: null };
    const code =
      'from inventory.money import Money\nfrom .money import Money as M2\nfrom .nothere import X\nfrom inventory.money import NoSuch\ndef add_tax(amount, tax_class="standard"):\n    return amount\n';
    const r = analyze(target, code, SAMPLE_REPO);
    const imp = r.findings.filter((f) => f.kind === 'unresolved-import');
    expect(imp.map((f) => [f.line, f.name])).toEqual([
      [3, 'inventory.nothere'],
      [4, 'NoSuch'],
    ]);
  });
});

describe('splicing into a repository file', () => {
  const fileText = [
    'import functools',
    '',
    '',
    'class A:',
    '    x = 1',
    '',
    '    @staticmethod',
    '    # a comment between decorators',
    '    @functools.lru_cache(maxsize=None)',
    '    def m(a, b):',
    '        return a - b',
    '',
    '    def other(self):',
    '        return 2',
    '',
  ].join('\n');
  const target = { kind: 'file', file: 'pkg/a.py', file_text: fileText, qualname: 'A.m', signature: null };

  it('replaces exactly the method’s lines (decorators included) at the class’s indentation; helpers go to module level', () => {
    const cand = [
      'import math',
      '',
      'def helper(v):',
      '    return math.floor(v)',
      '',
      '@staticmethod',
      'def m(a, b):',
      "    s = '''line1",
      "line2'''",
      '    return helper(a) + b',
      '',
    ].join('\n');
    const r = analyze(target, cand);
    expect(r.blocking).toBe(false);
    expect(r.spliced).toBe(
      [
        'import functools',
        '',
        '',
        'import math',
        '',
        'def helper(v):',
        '    return math.floor(v)',
        '',
        '',
        'class A:',
        '    x = 1',
        '',
        '    @staticmethod',
        '    def m(a, b):',
        "        s = '''line1",
        "line2'''",
        '        return helper(a) + b',
        '',
        '    def other(self):',
        '        return 2',
        '',
      ].join('\n'),
    );
  });

  it('takes the method out of a class wrapper and adds the new methods the candidate brings', () => {
    const cand =
      'class A:\n    @staticmethod\n    def m(a, b):\n        return A._aux(a) + b\n\n    @staticmethod\n    def _aux(v):\n        return v\n\n    def other(self):\n        return 99\n';
    const r = analyze(target, cand);
    expect(r.spliced).toContain('    @staticmethod\n    def m(a, b):\n        return A._aux(a) + b\n\n    @staticmethod\n    def _aux(v):\n        return v\n');
    expect(r.spliced).toContain('    def other(self):\n        return 2'); // existing members are not replaced
    expect(r.spliced).not.toContain('return 99');
  });

  it('re-indents an over-indented method and flags a decorator change', () => {
    const r = analyze(target, '        def m(a, b):\n            return a * b\n');
    expect(r.spliced).toContain('    def m(a, b):\n        return a * b\n\n    def other');
    expect(r.findings.map((f) => f.message).join()).toMatch(/staticmethod/);
  });
});
