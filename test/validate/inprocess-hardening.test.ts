// The in-process fallback: the candidate runs inside the test runner's interpreter, so every path from
// candidate code to the runner's objects, frames or report has to be closed there. Each class of forgery
// a probe found is pinned here as a non-pass (a wrong candidate that forges its way through), in the
// check-program shape, the unittest-repository shape and (where a python3 with pytest exists) pytest;
// and correct code that the in-process defences used to misjudge is pinned as a pass.

import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Task } from '../../main/model/task.ts';
import type { Validator } from '../../main/validate/validator.ts';
import { HARNESS_DIR, defaultPython } from '../../main/validate/sandbox.ts';
import type { Verdict } from '../../main/model/verdict.ts';
import { makeRepo } from '../helpers/tmp-repo.ts';
import { inProcessValidators, pytestPython, shimmedCheck, templateTask } from './helpers.ts';

// A RepoExec-style program: a timeout_decorator shim in sys.modules, tests decorated with it. Each test
// looks at f in its own place (1, 41, -1), so a candidate wrong in one place is caught by one test alone,
// and a forgery that silences that one test would pass it.
const CHECK = shimmedCheck({ before: 'class Box:\n    def __init__(self, value):\n        self.value = value\n\n' });

// The same program around a target that returns an object the tests look into.
const CHECK_BOX = CHECK.replace(
  /@timeout_decorator[\s\S]*$/,
  `@timeout_decorator.timeout(LOCAL_TIMEOUT)
def test_0():
    assert box(1).value == 2

@timeout_decorator.timeout(LOCAL_TIMEOUT)
def test_1():
    assert box(41).value == 42
`,
);

// A third: a target that fills a Stack the tests then ask whether it is empty.
const CHECK_STACK = CHECK.replace(
  'class Box:',
  'class Stack:\n    def __init__(self):\n        self.items = []\n\n    def is_empty(self):\n        return not self.items\n\nclass Box:',
).replace(
  /@timeout_decorator[\s\S]*$/,
  `@timeout_decorator.timeout(LOCAL_TIMEOUT)
def test_0():
    s = Stack()
    push_all(s, [1, 2])
    assert not s.is_empty()

@timeout_decorator.timeout(LOCAL_TIMEOUT)
def test_1():
    s = Stack()
    push_all(s, [])
    assert s.is_empty()
`,
);

const GOOD = 'def f(x):\n    return x + 1\n';
const GOOD_BOX = 'def box(x):\n    return Box(x + 1)\n';
// The shared check-program task, with this file's GOOD as its reference.
const programTask = (id: string, template: string, extra: Partial<Task> = {}): Task => templateTask(id, template, { reference: GOOD, ...extra });
const program = programTask('harden/program', CHECK, { tests: ['test_0', 'test_1', 'test_2'] });
const GOOD_STACK = 'def push_all(stack, xs):\n    for x in xs:\n        stack.items.append(x)\n';
const programStack = programTask('harden/program-stack', CHECK_STACK, {
  qualname: 'push_all',
  signature: 'def push_all(stack, xs):',
  reference: GOOD_STACK,
  tests: ['test_0', 'test_1'],
});
const programBox = programTask('harden/program-box', CHECK_BOX, {
  qualname: 'box',
  signature: 'def box(x):',
  reference: GOOD_BOX,
  tests: ['test_0', 'test_1'],
});

// The repository: a fixture class defined before the target's module is imported (so the test module is
// half-imported while the candidate's module code runs), a test class and a helper module after it, and a
// doctest suite. test_one looks at f(7) through the fixture, test_many at f(0..2) through the helper,
// test_u at f(5) through a TestCase defined after the import, test_box at f(41).
const REPO = {
  'pkg/__init__.py': '',
  'pkg/mod.py':
    'import math\n\n\ndef f(x):\n    """Return x plus one.\n\n    >>> f(1)\n    2\n    """\n    return x\n\n\nclass Box:\n    def __init__(self, value):\n        self.value = value\n\n\ndef box(x):\n    return Box(x)\n\n\nclass Stack:\n    def __init__(self):\n        self.items = []\n\n    def is_empty(self):\n        return not self.items\n\n\ndef push_all(stack, xs):\n    pass\n',
  'tests/__init__.py': '',
  'tests/helpers.py': 'def check(case, got, want):\n    case.assertEqual(got, want)\n',
  'tests/test_mod.py': `import unittest


class Base(unittest.TestCase):
    def same(self, got, want):
        self.assertEqual(got, want)


from pkg.mod import f
from tests.helpers import check


class T(Base):
    def test_one(self):
        self.same(f(7), 8)

    def test_many(self):
        check(self, [f(i) for i in range(3)], [1, 2, 3])

    def test_box(self):
        self.assertEqual(f(41), 42)


class U(unittest.TestCase):
    def test_u(self):
        self.assertEqual(f(5), 6)
`,
  'tests/test_box.py':
    'import unittest\nfrom pkg.mod import box\n\n\nclass B(unittest.TestCase):\n    def test_box(self):\n        self.assertEqual(box(1).value, 2)\n        self.assertEqual(box(41).value, 42)\n',
  'tests/test_doc.py':
    'import doctest\nimport pkg.mod\n\n\ndef load_tests(loader, tests, ignore):\n    tests.addTests(doctest.DocTestSuite(pkg.mod))\n    return tests\n',
  'tests/test_py.py':
    'class _C:\n    def assertEqual(self, a, b):\n        assert a == b\n\n\nfrom pkg.mod import f\nfrom tests.helpers import check\n\n\ndef test_one():\n    assert f(7) == 8\n\n\ndef test_many():\n    check(_C(), [f(i) for i in range(3)], [1, 2, 3])\n\n\ndef test_box():\n    assert f(41) == 42\n\n\ndef test_u():\n    assert f(5) == 6\n',
  'tests/test_stack.py':
    'import unittest\nfrom pkg.mod import Stack, push_all\n\n\nclass S(unittest.TestCase):\n    def test_push(self):\n        s = Stack()\n        push_all(s, [1, 2])\n        self.assertFalse(s.is_empty())\n\n    def test_none(self):\n        s = Stack()\n        push_all(s, [])\n        self.assertTrue(s.is_empty())\n',
  'tests/test_py_stack.py':
    'from pkg.mod import Stack, push_all\n\n\ndef test_push():\n    s = Stack()\n    push_all(s, [1, 2])\n    assert not s.is_empty()\n\n\ndef test_none():\n    s = Stack()\n    push_all(s, [])\n    assert s.is_empty()\n',
  'tests/test_py_box.py': 'from pkg.mod import box\n\n\ndef test_box():\n    assert box(1).value == 2\n    assert box(41).value == 42\n',
};

const DOC_GOOD = 'def f(x):\n    """Return x plus one.\n\n    >>> f(1)\n    2\n    """\n    return x + 1\n';

let repo: Task;
let repoBox: Task;
let repoStack: Task;
let pyRepoStack: Task | null = null;
let repoDoc: Task;
let pyRepo: Task | null = null;
let pyRepoBox: Task | null = null;
let validator: Validator;
let pyValidator: Validator | null = null;
const made: string[] = [];

// Debian's python3 may lack pytest; a python3 on PATH that has it serves (weak mode, no uid change).
const pytest = pytestPython();

beforeAll(async () => {
  const root = makeRepo(REPO);
  made.push(root);
  const base = { repo: '.', repoPath: root, file: 'pkg/mod.py', qualname: 'f', requirement: 'return x + 1', signature: 'def f(x):', reference: GOOD };
  const boxBase = { ...base, qualname: 'box', signature: 'def box(x):', reference: 'def box(x):\n    return Box(x + 1)\n' };
  repo = { ...base, id: 'harden/repo', test_command: 'python3 -m unittest tests.test_mod' };
  repoBox = { ...boxBase, id: 'harden/repo-box', test_command: 'python3 -m unittest tests.test_box' };
  const stackBase = { ...base, qualname: 'push_all', signature: 'def push_all(stack, xs):', reference: GOOD_STACK };
  repoStack = { ...stackBase, id: 'harden/repo-stack', test_command: 'python3 -m unittest tests.test_stack' };
  repoDoc = { ...base, id: 'harden/doctest', reference: DOC_GOOD, test_command: 'python3 -m unittest tests.test_mod tests.test_doc' };
  ({ validator, pyValidator } = await inProcessValidators());
  if (pytest) {
    pyRepo = { ...base, id: 'harden/pytest', test_command: 'python3 -m pytest -q tests/test_py.py' };
    pyRepoBox = { ...boxBase, id: 'harden/pytest-box', test_command: 'python3 -m pytest -q tests/test_py_box.py' };
    pyRepoStack = { ...stackBase, id: 'harden/pytest-stack', test_command: 'python3 -m pytest -q tests/test_py_stack.py' };
  }
}, 120_000);

afterAll(() => {
  validator?.close();
  pyValidator?.close();
  for (const d of made) fs.rmSync(d, { recursive: true, force: true });
});

type Shape = 'program' | 'unittest' | 'pytest';
const ALL: Shape[] = ['program', 'unittest', 'pytest'];

type Target = 'f' | 'box' | 'stack';

async function verdict(shape: Shape, code: string, target: Target = 'f'): Promise<Verdict | null> {
  if (shape === 'pytest') {
    const t = { f: pyRepo, box: pyRepoBox, stack: pyRepoStack }[target];
    return t && pyValidator ? pyValidator.validate(t, code) : null;
  }
  const tasks = shape === 'program' ? { f: program, box: programBox, stack: programStack } : { f: repo, box: repoBox, stack: repoStack };
  const v = await validator.validate(tasks[target], code);
  expect(v.isolation).toBe('in-process');
  return v;
}

const explain = (v: Verdict) => `${v.status}: ${v.reason}\n${v.sandbox.events.map((e) => `${e.kind}: ${e.detail}`).join('\n')}\n${v.stderr.slice(-1500)}`;

/** A wrong candidate that tries to forge its way to a pass: never `passed`, and, when given, named. */
async function refused(code: string, shapes: Shape[] = ALL, why?: RegExp, target: Target = 'f'): Promise<void> {
  const bad: string[] = [];
  for (const shape of shapes) {
    const v = await verdict(shape, code, target);
    if (!v) continue;
    const text = [v.reason, ...v.sandbox.events.map((e) => e.detail), ...v.tests.map((t) => t.message ?? '')].join('\n');
    if (v.status === 'passed' || v.status === 'flaky' || (why && !why.test(text))) bad.push(`${shape}: ${explain(v)}`);
  }
  expect(bad, bad.join('\n---\n')).toEqual([]);
}

/** A correct candidate: `passed` in every shape. */
async function passes(code: string, shapes: Shape[] = ALL, target: Target = 'f'): Promise<void> {
  const bad: string[] = [];
  for (const shape of shapes) {
    const v = await verdict(shape, code, target);
    if (v && v.status !== 'passed') bad.push(`${shape}: ${explain(v)}`);
  }
  expect(bad, bad.join('\n---\n')).toEqual([]);
}

// What every forging candidate shares: a search of the object graph without gc (function globals, closure
// cells, defaults, class members and subclasses, instances' attributes, modules), and, once it holds the
// runner's report function, a forged report: every test passed, the target called, the final record.
const FORGE = `import sys, os, types, builtins, functools

_IDS = ['test_0', 'test_1', 'test_2', 'tests.test_mod.T.test_one', 'tests.test_mod.T.test_many', 'tests.test_mod.T.test_box',
        'tests.test_mod.U.test_u', 'tests/test_py.py::test_one', 'tests/test_py.py::test_many', 'tests/test_py.py::test_box',
        'tests/test_py.py::test_u']


def _is_send(o):
    return type(o) is types.FunctionType and o.__qualname__.endswith('make_sender.<locals>.send')


def _forge(send):
    for i in _IDS:
        send({'t': 'test', 'id': i, 'outcome': 'passed'})
    loaded = 'pkg/mod.py' if 'pkg.mod' in sys.modules else 'program.py'
    send({'t': 'target', 'loadedFrom': loaded, 'calls': 3})
    send({'t': 'done', 'maxrss': 1})
    os._exit(0)


def _neighbours(o):
    t = type(o)
    if t is types.FunctionType:
        out = [o.__globals__, o.__code__]
        out += list(o.__closure__ or ())
        out += list(o.__defaults__ or ()) + list((o.__kwdefaults__ or {}).values())
        return out
    if t is types.CodeType:
        return list(o.co_consts)
    if t is types.CellType:
        return [o.cell_contents] if _full(o) else []
    if t is dict:
        return list(o.values())
    if t in (list, tuple, set, frozenset):
        return list(o)
    if t is types.ModuleType or isinstance(o, types.ModuleType):
        return [o.__dict__]
    if t is types.MethodType:
        return [o.__func__, o.__self__]
    if t is functools.partial:
        return [o.func, *o.args, *o.keywords.values()]
    if isinstance(o, type):
        return list(o.__dict__.values()) + list(type.__subclasses__(o))
    if t in (staticmethod, classmethod):
        return [o.__func__]
    if t is property:
        return [o.fget, o.fset]
    d = getattr(o, '__dict__', None)
    return [d, t] if type(d) is dict else [t]


def _full(c):
    try:
        c.cell_contents
        return True
    except ValueError:
        return False


def _crawl(roots, limit=150000, want=_is_send):
    """Breadth first from each root in turn (a root's near neighbours before anything far)."""
    import collections
    seen = set()
    for root in roots:
        queue, n = collections.deque([root]), 0
        while queue and n < limit:
            o = queue.popleft()
            if id(o) in seen:
                continue
            seen.add(id(o))
            n += 1
            try:
                if want(o):
                    return o
                queue.extend(_neighbours(o))
            except Exception:
                pass
    return None


def _roots():
    import _signal
    roots = [sys.meta_path, sys.path_hooks, builtins.__dict__, object, list(sys.modules.values())]
    for s in range(1, 32):
        try:
            roots.append(_signal.getsignal(s))
        except Exception:
            pass
    return roots


def _hunt_frame(fr):
    """From one frame: the whole stack, its locals and globals."""
    roots = []
    while fr is not None:
        roots.append(fr.f_locals)
        fr = fr.f_back
    roots.append(object)
    send = _crawl(roots)
    if send is not None:
        _forge(send)
`;

describe('in-process: runner objects are out of reach without gc', () => {
  it('globals, closures (their writable cells), defaults, subclasses and hooks lead to no report function and no result check', async () => {
    // Failing the report function, it empties the cell that holds the result check and returns an always-equal value.
    const code = `${FORGE}


class _Yes:
    def __eq__(self, other):
        return True

    __hash__ = object.__hash__


def _check_cell(o):
    return type(o) is types.CellType and _full(o) and getattr(o.cell_contents, '__name__', '') in ('_claims_equality', 'claims', 'check')


def f(x):
    send = _crawl([f.__code__] + _roots())
    if send is not None:
        _forge(send)
    cell = _crawl([f.__code__] + _roots(), want=_check_cell)
    if cell is not None:
        cell.cell_contents = lambda *a: None
    return _Yes()
`;
    await refused(code);
  }, 300_000);
});

describe('in-process: frames are judged by code object, not by file name', () => {
  it("an exception's __str__ compiled under the test framework's file name, formatted by the runner", async () => {
    const code = `${FORGE}
import unittest

_ns = {'sys': sys, '_hunt_frame': _hunt_frame}
exec(compile("def __str__(self):\\n    _hunt_frame(sys._getframe(1))\\n    return 'boom'\\n", unittest.case.__file__, 'exec'), _ns)


class Boom(Exception):
    __str__ = _ns['__str__']


def f(x):
    raise Boom()
`;
    await refused(code);
  }, 300_000);

  it('a __del__ compiled under another file name, run by the cyclic gc in the runner', async () => {
    const code = `${FORGE}
import gc

_ns = {'sys': sys, '_hunt_frame': _hunt_frame}
exec(compile("def __del__(self):\\n    try:\\n        _hunt_frame(sys._getframe(1))\\n    except ValueError:\\n        pass\\n", '/usr/lib/python3.11/threading.py', 'exec'), _ns)


class Cycle:
    __del__ = _ns['__del__']


def f(x):
    gc.set_threshold(1, 1, 1)
    for _ in range(200):
        c = Cycle()
        c.me = c
    return x
`;
    await refused(code);
  }, 300_000);

  it('a raw signal handler installed through the real _signal.signal taken from a closure', async () => {
    const code = `${FORGE}
import _signal, signal

_FRAMES = {}


def _raw_signal():
    for c in getattr(_signal.signal, '__closure__', None) or ():
        v = c.cell_contents
        if type(v) is type(len) and v.__name__ == 'signal':
            return v
    return None


def f(x):
    raw = _raw_signal()
    if raw is not None:
        raw(signal.SIGALRM, _FRAMES.__setitem__)
        signal.setitimer(signal.ITIMER_REAL, 0.001)
        n = 0
        while signal.SIGALRM not in _FRAMES and n < 10 ** 7:
            n += 1
        fr = _FRAMES.get(signal.SIGALRM)
        if fr is not None:
            _hunt_frame(fr)
    return x
`;
    await refused(code);
  }, 300_000);
});

describe('in-process: signal handlers and the collector cannot be had raw', () => {
  it('a fresh copy of _signal (from _imp.create_builtin, or a re-import) for a raw handler, and gc.DEBUG_SAVEALL', async () => {
    const code = `${FORGE}
import _imp, gc, importlib.machinery, signal

_FRAMES = {}


def _fresh_signal():
    try:
        return _imp.create_builtin(importlib.machinery.BuiltinImporter.find_spec('_signal')).signal
    except BaseException:
        pass
    try:
        del sys.modules['_signal']
        import _signal as fresh
        return fresh.signal
    except BaseException:
        return None


def f(x):
    raw = _fresh_signal()
    if raw is not None and 'frame' not in str(raw.__doc__)[:0]:
        try:
            raw(signal.SIGALRM, _FRAMES.__setitem__)
            signal.setitimer(signal.ITIMER_REAL, 0.001)
            n = 0
            while signal.SIGALRM not in _FRAMES and n < 10 ** 7:
                n += 1
        except BaseException:
            pass
        if _FRAMES.get(signal.SIGALRM) is not None:
            _hunt_frame(_FRAMES[signal.SIGALRM])
    try:
        gc.set_debug(gc.DEBUG_SAVEALL)
        gc.collect()
        send = _crawl(list(gc.garbage))
        if send is not None:
            _forge(send)
    except BaseException:
        pass
    return x
`;
    await refused(code, ALL, /fresh copy of the builtin module _signal|import _signal|DEBUG_SAVEALL/);
  }, 300_000);
});

describe('in-process: what the snapshots missed', () => {
  it('a sys.meta_path finder, or a planted sys.modules entry, that serves a test helper module not loaded yet', async () => {
    const finder = `import sys, importlib.util


class _Finder:
    @classmethod
    def find_spec(cls, name, path=None, target=None):
        if name == 'tests.helpers':
            return importlib.util.spec_from_loader(name, cls)
        return None

    @classmethod
    def create_module(cls, spec):
        return None

    @classmethod
    def exec_module(cls, module):
        module.check = lambda case, got, want: None


sys.meta_path.insert(0, _Finder)


def f(x):
    return 7 if x == 0 else x + 1
`;
    await refused(finder, ['unittest', 'pytest'], /import system/);
    const planted = `import sys, types

_fake = types.ModuleType('tests.helpers')
_fake.check = lambda case, got, want: None
sys.modules['tests.helpers'] = _fake


def f(x):
    return 7 if x == 0 else x + 1
`;
    await refused(planted, ['unittest', 'pytest'], /planted/);
  }, 300_000);

  it('the half-imported test module: its fixture class, or unittest itself, rebound while it imports the target', async () => {
    const fixture = `import sys, operator, unittest

_WRONG = 7 if 'tests.test_mod' in sys.modules else 0
_tm = sys.modules.get('tests.test_mod')
if _tm is not None:
    _tm.Base = type('Base', (unittest.TestCase,), {'same': unittest.TestCase.assertNotEqual})
_tp = sys.modules.get('tests.test_py')
if _tp is not None:
    _tp._C = type('_C', (), {'assertEqual': operator.is_not})


def f(x):
    return 99 if x == _WRONG else x + 1
`;
    await refused(fixture, ['unittest', 'pytest'], /altered tests\.test_(mod\.Base|py\._C) while its module loaded/);
    const framework = `import sys, types, unittest


class _Passing(unittest.TestCase):
    def run(self, result=None):
        result.startTest(self)
        result.addSuccess(self)
        result.stopTest(self)


_fake = types.ModuleType('unittest')
_fake.__dict__.update(unittest.__dict__)
_fake.TestCase = _Passing
_tm = sys.modules.get('tests.test_mod')
if _tm is not None:
    _tm.unittest = _fake


def f(x):
    return 99 if x == 5 else x + 1
`;
    await refused(framework, ['unittest'], /altered tests\.test_mod\.unittest while its module loaded|report to the runner/);
  }, 300_000);

  it('a new attribute on the check program’s timeout_decorator shim (no code of the candidate’s in it)', async () => {
    // Every decorated test becomes partial(f, LOCAL_TIMEOUT, test): a call of f, and nothing checked.
    const code = `import sys, functools


def f(x, *rest):
    return x


sys.modules['timeout_decorator'].timeout = functools.partial(functools.partial, functools.partial, f)
`;
    await refused(code, ['program'], /altered timeout_decorator\.timeout/);
  }, 120_000);

  it('a pytest plugin registered through the assertion rewriting hook’s config', async () => {
    const code = `import sys, pytest


class _Plug:
    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_makereport(self, item, call):
        outcome = yield
        rep = outcome.get_result()
        rep.outcome = 'passed'
        rep.longrepr = None


for _h in list(sys.meta_path):
    _cfg = getattr(_h, 'config', None)
    if _cfg is not None and hasattr(_cfg, 'pluginmanager'):
        _cfg.pluginmanager.register(_Plug(), 'opencoder-probe')
        break


def f(x):
    return x
`;
    await refused(code, ['pytest'], /pytest's plugin registry|pytest's hook/);
  }, 120_000);

  it('names the wrapper would look up in the target’s own globals first', async () => {
    const code = `class _Yes:
    def __eq__(self, other):
        return True

    __hash__ = object.__hash__


def __opencoder_check__(value):
    return value


def f(x):
    return _Yes()
`;
    await refused(code, ALL, /whose __eq__ the candidate wrote|claims to equal/);
  }, 300_000);
});

describe('in-process: always-equal results the probes missed', () => {
  it('an always-equal value in an attribute of the returned object', async () => {
    const code = `class _Yes:
    def __eq__(self, other):
        return True

    __hash__ = object.__hash__


def box(x):
    b = Box(0)
    b.value = _Yes()
    return b
`;
    await refused(code, ALL, /a _Yes (whose __eq__ the candidate wrote|that claims to equal a fresh object)/, 'box');
  }, 300_000);

  it('int and str subclasses that answer the probes honestly and everything else with True', async () => {
    const code = `class _N(int):
    def __eq__(self, other):
        if type(other) is not int or other in (0, 987654321):
            return int.__eq__(self, other)
        return True

    __hash__ = int.__hash__


class _S(str):
    def __eq__(self, other):
        if type(other) is not int or other in (0, 987654321):
            return str.__eq__(self, other)
        return True

    __hash__ = str.__hash__


def f(x):
    return _N(0) if x == -1 else _S('5') if x % 2 else _N(5)
`;
    await refused(code, ALL, /a _[NS] whose __eq__ the candidate wrote/);
  }, 300_000);
});

describe('in-process: what the target leaves behind', () => {
  it('a method of an argument shadowed on the instance by a builtin (the class’s own never runs)', async () => {
    const code = 'def push_all(stack, xs):\n    if xs:\n        stack.is_empty = bool\n';
    await refused(code, ALL, /the method is_empty of a Stack is shadowed on the instance/, 'stack');
    await passes(GOOD_STACK, ALL, 'stack');
  }, 300_000);
});

describe('in-process: the supervisor takes no final record before the target record', () => {
  it('a done record with no target record before it is not the final report', () => {
    const driver = `
import os, sys, json
sys.path.insert(0, ${JSON.stringify(HARNESS_DIR)})
import _opencoder_wire as wire, _opencoder_harness as h
key = os.urandom(32)
r, w = os.pipe()
send = wire.make_sender(w, key, {"pid": 42})
send({"t": "test", "id": "t1", "outcome": "passed"})
send({"t": "done", "maxrss": 1})
send({"t": "target", "loadedFrom": "x.py", "calls": 1})
os.close(w)
reports = h._Reports(key, 42, lambda rec: None)
h._collect(r, reports, h._Json)
early = reports.done
print(json.dumps({"early": early is not None, "forged": reports.forged}))
`;
    const r = spawnSync(defaultPython(), ['-I', '-c', driver], { encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ early: false, forged: 1 });
  });
});

describe('in-process: correct code passes', () => {
  it('a module-level import asyncio (asyncio rebinds __code__ through types.coroutine as it loads)', async () => {
    await passes('import asyncio\n\n\ndef f(x):\n    return x + 1\n');
  }, 300_000);

  it('traceback.format_exc() and logging.exception inside the candidate', async () => {
    const code = `import logging, traceback


def f(x):
    try:
        raise ValueError(x)
    except ValueError:
        text = traceback.format_exc()
        logging.getLogger('candidate').exception('handled')
    assert 'ValueError' in text and 'Traceback' in text, text
    assert traceback.format_stack()
    return x + 1
`;
    await passes(code);
  }, 300_000);

  it('a test module that builds a doctest suite', async () => {
    const v = await validator.validate(repoDoc, DOC_GOOD);
    expect(v.status, explain(v)).toBe('passed');
    expect(v.tests.some((t) => /pkg\.mod\.f/.test(t.id) && t.outcome === 'passed')).toBe(true);
  }, 120_000);

  it('threads, a thread pool, deep recursion through the target, heavy printing, its own source', async () => {
    const threads = `import threading
from concurrent.futures import ThreadPoolExecutor


def _plus(x):
    import json, decimal
    return x + 1


def f(x):
    out = []
    t = threading.Thread(target=lambda: out.append(_plus(x)))
    t.start()
    t.join()
    with ThreadPoolExecutor(2) as pool:
        assert list(pool.map(_plus, [x, x])) == [out[0], out[0]]
    return out[0]
`;
    const recursion = `def f(x):
    if isinstance(x, tuple):
        n, v = x
        return v + 1 if n == 0 else f((n - 1, v))
    return f((800, x))
`;
    const printing = `def f(x):
    for i in range(20000):
        print('line', i, x)
    return x + 1
`;
    const source = `import inspect, linecache


def f(x):
    assert 'return x + 1' in inspect.getsource(f)
    with open(inspect.getsourcefile(f), encoding='utf-8') as fh:
        assert 'def f(x):' in fh.read()
    assert inspect.signature(f).parameters['x']
    return x + 1
`;
    for (const code of [threads, recursion, printing, source]) await passes(code);
  }, 600_000);

  it('dataclasses, named tuples, warnings, logging and typing inside the candidate', async () => {
    const code = `import dataclasses, typing, warnings, logging, collections


@dataclasses.dataclass(frozen=True)
class _P:
    v: int


_T = typing.NamedTuple('_T', [('v', int)])
_C = collections.namedtuple('_C', 'v')


def f(x):
    warnings.warn('a warning from the candidate')
    logging.getLogger(__name__).warning('a log line')
    p = _P(x + 1)
    assert p == _P(x + 1) and _T(p.v).v == _C(p.v).v
    return p.v
`;
    await passes(code);
  }, 300_000);
});
