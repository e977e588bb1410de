// Forgery attempts: wrong implementations that try to write their own verdict. Each one must end
// non-passing with the attempt named, in both task shapes (a RepoExec-style check program and a
// repository with unittest), while a correct candidate still passes.

import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Task } from '../../main/model/task.ts';
import { createValidator, type Validator } from '../../main/validate/validator.ts';
import type { Verdict } from '../../main/model/verdict.ts';
import { makeRepo } from '../helpers/tmp-repo.ts';
import { PLACEHOLDER, shimmedCheck } from './helpers.ts';

// The shape of a RepoExec-inline program: a timeout_decorator shim, pickled expected values.
const pickled = (n: number) => `pickle.loads(${JSON.stringify([...Buffer.from(`I${n}\n.`)].map((b) => String.fromCharCode(b)).join(''))}.encode('latin-1'))`;
const CHECK = shimmedCheck({ test0: `    output = ${pickled(2)}\n    assert f(1) == output` });

const GOOD = 'def f(x):\n    return x + 1\n';
const templateTask: Task = {
  id: 'forge/template',
  repo: '.',
  repoPath: process.cwd(),
  file: 'x.py',
  qualname: 'f',
  requirement: 'return x + 1',
  signature: 'def f(x):',
  reference: GOOD,
  check_template: CHECK,
  placeholder: PLACEHOLDER,
  tests: ['test_0', 'test_1', 'test_2'],
};

let repoTask: Task;
let validator: Validator;
const made: string[] = [];

beforeAll(async () => {
  const repo = makeRepo({
    'pkg/__init__.py': '',
    'pkg/mod.py': 'import math\n\n\ndef f(x):\n    """Return x plus one."""\n    return x\n\n\ndef g(x):\n    return f(x) * 2\n',
    'tests/__init__.py': '',
    'tests/test_mod.py':
      'import unittest\nfrom pkg.mod import f, g\n\n\nclass T(unittest.TestCase):\n    def test_one(self):\n        self.assertEqual(f(1), 2)\n\n    def test_many(self):\n        self.assertEqual([f(i) for i in range(3)], [1, 2, 3])\n\n    def test_g(self):\n        self.assertEqual(g(1), 4)\n',
  });
  made.push(repo);
  repoTask = {
    id: 'forge/repo',
    repo: '.',
    repoPath: repo,
    file: 'pkg/mod.py',
    qualname: 'f',
    requirement: 'return x + 1',
    signature: 'def f(x):',
    reference: GOOD,
    test_command: 'python3 -m unittest tests.test_mod',
  };
  validator = await createValidator({ validation: { timeoutFloorMs: 8000 }, concurrency: 2 });
});

afterAll(() => {
  validator.close();
  for (const d of made) fs.rmSync(d, { recursive: true, force: true });
});

const kinds = (v: Verdict) => v.sandbox.events.map((e) => e.kind);
const both = () => [templateTask, repoTask];

/**
 * A forgery fails both ways: isolated (the candidate never runs where the tests decide), and in-process, where the
 * runner's defences must name the attempt (`why`). Returns the in-process verdicts.
 */
async function forged(code: string, why: RegExp, tasks = both()): Promise<Verdict[]> {
  const out: Verdict[] = [];
  for (const t of tasks) {
    const isolated = await validator.validate(t, code, { isolation: 'isolated' });
    expect(isolated.isolation).toBe('isolated');
    expect(isolated.status, `${t.id} isolated: ${isolated.reason}`).not.toBe('passed');
    const v = await validator.validate(t, code, { isolation: 'in-process' });
    expect(v.isolation).toBe('in-process');
    expect(v.status, `${t.id}: ${v.reason}`).not.toBe('passed');
    expect(v.status, `${t.id}: ${v.reason}`).not.toBe('flaky');
    expect(`${v.reason}\n${v.sandbox.events.map((e) => e.detail).join('\n')}`, t.id).toMatch(why);
    out.push(v);
  }
  return out;
}

describe('forgery attempts get a non-pass verdict that names them', () => {
  it('a correct candidate passes in both shapes, with the target loaded from the workspace and called', async () => {
    for (const t of both()) {
      const v = await validator.validate(t, GOOD);
      expect(v.status, `${t.id}: ${v.reason}\n${v.stderr}`).toBe('passed');
      expect(v.expectedFrom).toBe(t.tests ? 'task' : 'reference');
      expect(v.target?.loadedFrom).toBe(v.target?.expectedFile);
      expect(v.target?.calls).toBeGreaterThan(0);
      expect(v.environment?.version).toMatch(/^3\./);
    }
  });

  it('module-level unittest.TestCase.run that records every test as a success', async () => {
    const code = `import unittest

def _run(self, result=None):
    result.startTest(self)
    result.addSuccess(self)
    result.stopTest(self)

unittest.TestCase.run = _run

def f(x):
    return -1
`;
    const [, repo] = await forged(code, /altered unittest\.case\.TestCase\.run/);
    expect(repo!.status).toBe('error');
    expect(kinds(repo!)).toContain('tampering');
  });

  it('gc.get_objects from the function body to find the report function, send "all passed", then os._exit(0)', async () => {
    const code = `import gc, os

def f(x):
    try:
        objs = gc.get_objects()
    except Exception:
        objs = []
    for o in objs:
        if callable(o) and getattr(o, '__name__', '') == 'send':
            o({'t': 'done', 'results': [], 'ran': True})
    os._exit(0)
`;
    const vs = await forged(code, /enumerate the interpreter's objects \(gc\.get_objects\)/);
    for (const v of vs) expect(v.status).toBe('error');
  });

  it('the same through the class of the result recorder (patching addFailure)', async () => {
    const code = `import unittest

def _swallow(self, test, err):
    self.addSuccess(test)

def _all(cls):
    for c in cls.__subclasses__():
        yield c
        yield from _all(c)

for c in [unittest.TestResult, *_all(unittest.TestResult)]:
    c.addFailure = _swallow
    c.addError = _swallow

def f(x):
    return -1
`;
    const [, repo] = await forged(code, /altered unittest\.result\.TestResult\.addFailure|altered .*Recorder\.addFailure/);
    expect(repo!.status).toBe('error');
  });

  it('check-template mode: the candidate defines class timeout_decorator so decorated tests become no-ops', async () => {
    const code = `class timeout_decorator:
    @staticmethod
    def timeout(*a, **k):
        return lambda fn: (lambda: None)

def f(x):
    return -1
`;
    const [v] = await forged(code, /redefines timeout_decorator, a name the tests use/, [templateTask]);
    expect(v!.status).toBe('error');
    expect(kinds(v!)).toContain('tampering');
  });

  it('a printed fake __REPOEXEC_RESULTS__ line plus os._exit(0)', async () => {
    const code = `import os, sys
print('__REPOEXEC_RESULTS__' + '{"results": {"test_0": "passed", "test_1": "passed", "test_2": "passed"}}')
sys.stdout.flush()
os._exit(0)

def f(x):
    return -1
`;
    const [tpl, repo] = await forged(code, /before its final report|early exit/);
    expect(kinds(tpl!)).toContain('forged-output-ignored');
    for (const v of [tpl!, repo!]) expect(v.status).toBe('error');
  });

  it('a return value whose __eq__ always answers True (also inside a list, also True for ints only)', async () => {
    const always = `class _Yes:
    def __eq__(self, other):
        return True
    def __ne__(self, other):
        return False
    __hash__ = object.__hash__

def f(x):
    return _Yes()
`;
    for (const v of await forged(always, /claims to equal a fresh object\(\)/)) expect(v.status).toBe('failed');
    const ints = `class _N(int):
    def __eq__(self, other):
        return isinstance(other, int) or NotImplemented
    __hash__ = int.__hash__

def f(x):
    return _N(0)
`;
    await forged(ints, /claims to equal both 0 and 987654321/);
    const nested = `class _Yes:
    def __eq__(self, other):
        return True

def f(x):
    return [_Yes()] if x > 100 else _Yes()
`;
    await forged(nested, /claims to equal/);
  });

  it('siblings: frames from sys._getframe or a traceback, a trace function, a signal handler’s frame, /proc/self/mem', async () => {
    const frames = `import sys

def f(x):
    fr = sys._getframe()
    while fr is not None:
        for v in list(fr.f_locals.values()):
            if callable(v) and getattr(v, '__name__', '') == 'send':
                v({'t': 'test', 'id': 'test_0', 'outcome': 'passed'})
        fr = fr.f_back
    return -1
`;
    for (const t of both()) {
      expect((await validator.validate(t, frames, { isolation: 'isolated' })).status).toBe('failed');
      const v = await validator.validate(t, frames, { isolation: 'in-process' });
      expect(v.status).toBe('failed');
      expect(v.sandbox.events.some((e) => /frame access refused/.test(e.detail))).toBe(true);
    }
    const tb = `def f(x):
    try:
        raise KeyError(x)
    except KeyError as e:
        fr = e.__traceback__.tb_frame
    return fr.f_back
`;
    for (const t of both())
      for (const isolation of ['isolated', 'in-process'] as const) expect((await validator.validate(t, tb, { isolation })).status).toBe('failed');
    await forged('import sys\n\ndef f(x):\n    sys.settrace(lambda *a: None)\n    return -1\n', /install a trace or profile function/);
    const handler = `import signal

SEEN = []

def f(x):
    signal.signal(signal.SIGALRM, lambda s, frame: SEEN.append(frame))
    signal.setitimer(signal.ITIMER_REAL, 0.001)
    while not SEEN:
        pass
    raise RuntimeError('the handler was given %r' % (SEEN[0],))
`;
    for (const t of both()) {
      expect((await validator.validate(t, handler, { isolation: 'isolated' })).status).toBe('failed');
      const v = await validator.validate(t, handler, { isolation: 'in-process' });
      expect(v.status).toBe('failed');
      expect(v.tests.every((r) => /the handler was given None/.test(r.message ?? ''))).toBe(true); // no frame reached it
    }
    await forged("def f(x):\n    open('/proc/self/mem', 'rb').read(1)\n    return x + 1\n", /read process memory/);
  });

  it('siblings: patching builtins or the test program’s names from inside the target', async () => {
    await forged('import builtins\nbuiltins.sorted = lambda *a, **k: []\n\ndef f(x):\n    return -1\n', /altered builtins\.sorted/);
    const rebind = `import sys

def f(x):
    main = sys.modules['__main__']
    for name in ('test_1', 'test_2'):
        setattr(main, name, lambda: None)
    return x + 1 if x == 1 else -1
`;
    await forged(rebind, /altered __main__\.test_[12]|did not pass/, [templateTask]);
  });
});
