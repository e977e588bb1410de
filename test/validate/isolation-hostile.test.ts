// A hostile model against isolated validation: wrong candidates that try to be judged `passed` although the tests
// run in a process they never run in, and only data crosses (main/validate/py/_opencoder_bridge.py, _opencoder_codec.py). One `it` per
// class of attack and task shape (a RepoExec-style check program; a repository with `python3 -m unittest`), each
// asserting a verdict that is not a pass, decided isolated; then correct but unusual candidates that must pass.
// Shape 3 (a repository with pytest) is not covered: Debian's /usr/bin/python3, which the sandbox runs, has no pytest.
//
// The `breaks the first probe found` block pins attacks that passed isolated when this file was written (and correct
// candidates that failed there), each closed since. The last block runs some of the same attacks in-process (the
// best-effort fallback) and pins what its hardening catches.

import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Task } from '../../main/model/task.ts';
import { createValidator, type Validator } from '../../main/validate/validator.ts';
import type { Verdict, VerdictIsolation } from '../../main/model/verdict.ts';
import { makeRepo } from '../helpers/tmp-repo.ts';
import { PLACEHOLDER, TEMPLATE, templateTask, unittestIds } from './helpers.ts';
import { needsStrongSandbox } from '../helpers/system.ts';

const STRONG = await needsStrongSandbox();

let validator: Validator;
const made: string[] = [];

// ---------------------------------------------------------------------------------------------------------------
// Tasks. No references: the expected tests are named, and every run is forced isolated (or in-process below).

const prog = (prelude: string, tests: string) => `import sys, os, json\nfrom typing import *\n${prelude}\n${PLACEHOLDER}\n\n${tests}`;
/** A check-program task: the target named by its signature, the expected tests all the program's test_ functions. */
const tpl = (id: string, signature: string, program: string): Task =>
  templateTask(`iso-hostile/program-${id}`, program, {
    qualname: /def (\w+)/.exec(signature)![1]!,
    signature,
    tests: [...program.matchAll(/^def (test_\w+)/gm)].map((m) => m[1]!),
    reference: undefined,
  });

const MONEY = `class Money:
    def __init__(self, amount, currency="USD"):
        self.amount = amount
        self.currency = currency

    def _key(self, amount):
        return round(amount, 2)

    def __eq__(self, other):
        return isinstance(other, Money) and self._key(self.amount) == other._key(other.amount) and self.currency == other.currency

    def __repr__(self):
        return "Money(%r, %r)" % (self.amount, self.currency)


class Stack:
    def __init__(self):
        self.items = []

    def is_empty(self):
        return not self.items
`;

const T = {
  plain: tpl('plain', 'def f(x):', TEMPLATE),
  money: tpl(
    'money',
    'def add(a, b):',
    prog(
      MONEY,
      'def test_0():\n    assert add(Money(1), Money(2)) == Money(3)\n\ndef test_1():\n    assert add(Money(1, "EUR"), Money(1, "EUR")) == Money(2, "EUR")\n',
    ),
  ),
  stack: tpl(
    'stack',
    'def push_all(stack, xs):',
    prog(
      MONEY,
      'def test_0():\n    s = Stack()\n    push_all(s, [1, 2])\n    assert not s.is_empty()\n\ndef test_1():\n    s = Stack()\n    push_all(s, [])\n    assert s.is_empty()\n',
    ),
  ),
  mock: tpl(
    'mock',
    'def notify(sink, msg):',
    prog(
      'from unittest import mock\n',
      'def test_0():\n    m = mock.Mock()\n    assert notify(m, "hi") is True\n    m.send.assert_called_once_with("HI")\n\ndef test_1():\n    m = mock.Mock()\n    notify(m, "Yo")\n    m.send.assert_called_once_with("YO")\n',
    ),
  ),
  gen: tpl('gen', 'def evens(n):', prog('', 'def test_0():\n    assert list(evens(3)) == [0, 2, 4]\n\ndef test_1():\n    assert sum(evens(4)) == 12\n')),
  // Classes after the placeholder belong to the tests: never rebuilt from the candidate's data.
  spoof: tpl(
    'spoof',
    'def f(x):',
    prog(
      'class Point:\n    def __init__(self, x, y):\n        self.x, self.y = x, y\n\n    def __eq__(self, o):\n        return isinstance(o, Point) and (self.x, self.y) == (o.x, o.y)\n',
      'class Anything:\n    def __eq__(self, o):\n        return True\n\nclass Boom(Exception):\n    pass\n\ndef test_0():\n    assert f(1) == Point(1, 2)\n\ndef test_1():\n    try:\n        f(-1)\n    except Boom:\n        pass\n    else:\n        assert False\n',
    ),
  ),
  url: tpl('url', 'def f(x):', TEMPLATE.replace('import sys, os, json', 'import sys, os, json\nimport urllib.request')),
};

const PKG_F = 'import math\n\n\ndef f(x):\n    """Return x plus one.\n\n    >>> f(1)\n    2\n    """\n    return x + 1\n';

/** A repository task: pkg/mod.py and tests/test_mod.py unless `more` says otherwise; the target named by its signature. */
function repoTask(
  id: string,
  signature: string,
  mod: string,
  tests: string,
  more: { files?: Record<string, string>; file?: string; ids?: string[]; cmd?: string } = {},
): Task {
  const files = more.files ?? { 'pkg/__init__.py': '', 'pkg/mod.py': mod, 'tests/__init__.py': '', 'tests/test_mod.py': tests };
  const root = makeRepo(files, 'oc-iso-hostile-');
  made.push(root);
  const qualname = /def (\w+)/.exec(signature)![1]!;
  const file = more.file ?? 'pkg/mod.py';
  return {
    id: `iso-hostile/repo-${id}`,
    repo: '.',
    repoPath: root,
    file,
    qualname,
    requirement: qualname,
    signature,
    test_command: more.cmd ?? 'python3 -m unittest tests.test_mod',
    tests: more.ids ?? unittestIds('tests.test_mod', tests),
  };
}
const R = {} as Record<'plain' | 'money' | 'stack' | 'mock' | 'callback' | 'doctest' | 'leak' | 'async', Task>;

const PLAIN_TESTS =
  'import unittest\nfrom pkg.mod import f\n\n\nclass T(unittest.TestCase):\n    def test_one(self):\n        self.assertEqual(f(1), 2)\n\n    def test_neg(self):\n        self.assertEqual(f(-1), 0)\n\n    def test_many(self):\n        self.assertEqual([f(i) for i in range(3)], [1, 2, 3])\n';
const MONEY_MOD = `${MONEY}\n\ndef add(a, b):\n    return Money(a.amount + b.amount, a.currency)\n\n\ndef push_all(stack, xs):\n    for x in xs:\n        stack.items.append(x)\n`;
const MONEY_TESTS =
  'import unittest\nfrom pkg.mod import Money, Stack, add, push_all\n\n\nclass MoneyTests(unittest.TestCase):\n    def test_add(self):\n        self.assertEqual(add(Money(1), Money(2)), Money(3))\n\n    def test_add_eur(self):\n        self.assertEqual(add(Money(1, "EUR"), Money(1, "EUR")), Money(2, "EUR"))\n';
const STACK_TESTS =
  '\n\nclass StackTests(unittest.TestCase):\n    def test_push(self):\n        s = Stack()\n        push_all(s, [1, 2])\n        self.assertFalse(s.is_empty())\n\n    def test_push_none(self):\n        s = Stack()\n        push_all(s, [])\n        self.assertTrue(s.is_empty())\n';

function makeRepoTasks(): void {
  R.plain = repoTask('plain', 'def f(x):', PKG_F, PLAIN_TESTS);
  R.money = repoTask('money', 'def add(a, b):', MONEY_MOD, MONEY_TESTS + STACK_TESTS, { ids: unittestIds('tests.test_mod', MONEY_TESTS) });
  R.stack = repoTask('stack', 'def push_all(stack, xs):', MONEY_MOD, MONEY_TESTS + STACK_TESTS, {
    ids: unittestIds('tests.test_mod', STACK_TESTS.replace('\n\nclass', 'class')),
  });
  R.mock = repoTask(
    'mock',
    'def notify(sink, msg):',
    'def notify(sink, msg):\n    """Send msg upper-cased through sink.send."""\n    sink.send(msg.upper())\n    return True\n',
    'import unittest\nfrom unittest import mock\nfrom pkg.mod import notify\n\n\nclass T(unittest.TestCase):\n    def test_send(self):\n        m = mock.Mock()\n        self.assertTrue(notify(m, "hi"))\n        m.send.assert_called_once_with("HI")\n\n    def test_send2(self):\n        m = mock.Mock()\n        notify(m, "Yo")\n        m.send.assert_called_once_with("YO")\n',
  );
  R.callback = repoTask(
    'callback',
    'def apply(fn, xs):',
    'def apply(fn, xs):\n    return [fn(x) for x in xs]\n',
    'import unittest\nfrom pkg.mod import apply\n\n\nclass Boom(Exception):\n    pass\n\n\ndef boom(v):\n    raise Boom(v)\n\n\nclass T(unittest.TestCase):\n    def test_double(self):\n        self.assertEqual(apply(lambda v: v * 2, [1, 2, 3]), [2, 4, 6])\n\n    def test_method(self):\n        self.assertEqual(apply(self.triple, [1, 2]), [3, 6])\n\n    def test_boom(self):\n        with self.assertRaises(Boom):\n            apply(boom, [1])\n\n    def triple(self, v):\n        return v * 3\n',
  );
  // The standard unittest idiom for doctests: the target's docstring examples become tests.
  R.doctest = repoTask('doctest', 'def f(x):', PKG_F, PLAIN_TESTS, {
    files: {
      'pkg/__init__.py': '',
      'pkg/mod.py': PKG_F,
      'tests/__init__.py': '',
      'tests/test_mod.py': PLAIN_TESTS,
      'tests/test_doctests.py':
        'import doctest\nimport pkg.mod\n\n\ndef load_tests(loader, tests, ignore):\n    tests.addTests(doctest.DocTestSuite(pkg.mod))\n    return tests\n',
    },
    ids: ['pkg.mod.f', ...unittestIds('tests.test_mod', PLAIN_TESTS)],
    cmd: 'python3 -m unittest tests.test_doctests tests.test_mod',
  });
  R.async = repoTask(
    'async',
    'async def fetch(x):',
    'async def fetch(x):\n    return x + 1\n',
    'import asyncio, unittest\nfrom pkg.mod import fetch\n\n\nclass T(unittest.TestCase):\n    def test_one(self):\n        self.assertEqual(asyncio.run(fetch(1)), 2)\n',
  );
  // unittest's default discovery pattern is test*.py: testsuite.py is a test module the workspace does not hide.
  const suite =
    'import unittest\nfrom calc import f\n\n\nclass T(unittest.TestCase):\n    def test_a(self):\n        self.assertEqual(f(2), 7)\n\n    def test_b(self):\n        self.assertEqual(f(10), 31)\n';
  R.leak = repoTask('leak', 'def f(x):', '', suite, {
    files: { 'calc.py': 'def f(x):\n    return x * 3 + 1\n', 'testsuite.py': suite },
    file: 'calc.py',
    ids: unittestIds('testsuite', suite),
    cmd: 'python3 -m unittest discover -p "test*.py"',
  });
}

beforeAll(async () => {
  validator = await createValidator({ validation: { timeoutFloorMs: 5000 }, concurrency: 2 });
  makeRepoTasks();
});

afterAll(() => {
  validator?.close();
  for (const d of made) fs.rmSync(d, { recursive: true, force: true });
});

async function runAll(
  task: Task,
  codes: Record<string, string>,
  isolation: VerdictIsolation = 'isolated',
  timeoutMs?: number,
): Promise<Record<string, Verdict>> {
  const entries = await Promise.all(
    Object.entries(codes).map(async ([name, code]) => [name, await validator.validate(task, code, { isolation, timeoutMs })] as const),
  );
  for (const [name, v] of entries) expect(v.isolation, `${task.id} ${name}`).toBe(isolation);
  return Object.fromEntries(entries);
}

/** Every candidate ends without a pass, decided where it was asked to be. */
async function noPass(
  task: Task,
  codes: Record<string, string>,
  isolation: VerdictIsolation = 'isolated',
  timeoutMs?: number,
): Promise<Record<string, Verdict>> {
  const vs = await runAll(task, codes, isolation, timeoutMs);
  // soft: one run's failure does not hide the others' outcomes
  for (const [name, v] of Object.entries(vs)) expect.soft(v.status, `${task.id} ${name}: ${v.reason}`).not.toBe('passed');
  return vs;
}

async function allPass(task: Task, codes: Record<string, string>, timeoutMs?: number): Promise<void> {
  const vs = await runAll(task, codes, 'isolated', timeoutMs);
  for (const [name, v] of Object.entries(vs))
    expect.soft(v.status, `${task.id} ${name}: ${v.reason}\n${v.tests.map((t) => `${t.id} ${t.outcome} ${t.message ?? ''}`).join('\n')}`).toBe('passed');
}

const kinds = (v: Verdict) => v.sandbox.events.map((e) => e.kind);

// ---------------------------------------------------------------------------------------------------------------
// Candidates (f(x) should return x + 1 in both `plain` tasks)

/** Replaces what the candidate process answers to every call with a raw wire value. */
const forged = (node: string) => String.raw`import sys
_c = sys.modules["_opencoder_bridge"]
_orig = _c.CandidateSide._reply

def _reply(self, q, body):
    body = _orig(self, q, body)
    if 'ok' in body or 'exc' in body:
        body.pop('exc', None)
        body['ok'] = ${node}
    return body

_c.CandidateSide._reply = _reply

def f(x):
    return -1
`;

const LYING = {
  alwaysEqual: 'class _Y:\n    def __eq__(self, o):\n        return True\n    __hash__ = object.__hash__\n\ndef f(x):\n    return _Y()\n',
  intSubclass: 'class _N(int):\n    def __eq__(self, o):\n        return True\n    __hash__ = int.__hash__\n\ndef f(x):\n    return _N(0)\n',
  mockAny: 'from unittest import mock\n\ndef f(x):\n    return mock.ANY\n',
  inList: 'class _Y:\n    def __eq__(self, o):\n        return True\n\ndef f(x):\n    return [_Y()][0] if x > 100 else [_Y()]\n',
  raisesOnObject:
    "class _Y:\n    def __eq__(self, o):\n        if type(o) is object:\n            raise TypeError('a probe')\n        return True\n    __hash__ = object.__hash__\n\ndef f(x):\n    return _Y()\n",
};

// An int matcher built only from trusted pieces: collections.UserList.__eq__ is self.data == self.__cast(other); the
// instance attribute _UserList__cast shadows the method with a named builtin. outer == n is inner == range(n), and
// inner == r is range == type(r): true for every int n. range(object()) raises, so the probes of the outer value
// (== object(), == 0 and 987654321 …) see no claim, and the inner one equals none of the probe values.
// (An earlier variant with abs and int is caught since the result check walks attributes.)
const USERLIST_ANY_INT = `import collections

def f(x):
    inner = collections.UserList()
    inner.data = range
    inner._UserList__cast = type
    outer = collections.UserList()
    outer.data = inner
    outer._UserList__cast = range
    return outer
`;

// A trusted class whose __eq__ calls a method of self on its own data: the method shadowed by the builtin eval,
// the "amount" is an expression evaluated in __eq__'s frame, where `other` (the expected value) is a local.
const MONEY_EVAL = `def add(a, b):
    m = Money(0)
    m._key = eval
    m.amount = "(setattr(self, 'currency', other.currency), other._key(other.amount))[1]"
    return m
`;

const MOCK_EXEC = `CODE = "import unittest, unittest.mock as um\\nunittest.TestCase.assertTrue = lambda *a, **k: None\\num.NonCallableMock.assert_called_once_with = lambda *a, **k: None\\n"

def notify(sink, msg):
    sink.configure_mock(side_effect=exec)   # exec crosses as a name; the Mock calls it in the test process
    sink(CODE)
    return True
`;
const MOCK_DISARM = `def notify(sink, msg):
    sink.send(msg)   # not upper-cased
    sink.configure_mock(**{'send.assert_called_once_with': sink.anything})
    return True
`;
const STACK_SHADOW = "def push_all(stack, xs):\n    if xs:\n        stack.is_empty = bool   # bool() is False; the class's is_empty never runs\n";

const PROTOCOL = {
  fdWrites:
    'import os\n\ndef f(x):\n    for fd in range(1, 12):\n        for m in (b\'{"t":"done","results":[],"ran":true}\\n\', b\'{"r": 1, "ok": 2}\\n\', b\'{bad json\\n\', b\'\\xff\\xfe\\n\'):\n            try:\n                os.write(fd, m)\n            except OSError:\n                pass\n    return -1\n',
  printedResults:
    'print(\'__REPOEXEC_RESULTS__{"results": {"test_0": "passed", "test_1": "passed", "test_2": "passed"}}\')\n\ndef f(x):\n    print(\'ok\', flush=True)\n    return -1\n',
  unaskedReply: String.raw`import sys
_c = sys.modules["_opencoder_bridge"]
_orig = _c.CandidateSide._reply

def _reply(self, q, body):
    body = _orig(self, q, body)
    body['r'] = q + 7
    return body

_c.CandidateSide._reply = _reply

def f(x):
    return x + 1
`,
  unlentHandle: forged('["h", 1]'),
  exitInCall: 'import os\n\ndef f(x):\n    os._exit(0)\n',
  killAll:
    'import os, signal\n\ndef f(x):\n    for pid in (-1, 1, os.getppid(), os.getpid()):\n        try:\n            os.kill(pid, signal.SIGKILL)\n        except OSError:\n            pass\n',
  badState: String.raw`import sys
_c = sys.modules["_opencoder_bridge"]
_orig = _c.CandidateSide._reply

def _reply(self, q, body):
    body = _orig(self, q, body)
    body['post'] = [[0, 'c', ['l', 50, []]], [1, 'o', [None, [['__class__', ['n', 'builtins', 'dict']]]]]]
    return body

_c.CandidateSide._reply = _reply

def f(x):
    return x + 1
`,
};

const NAMING_TPL = {
  testFunction: forged('["n", "__main__", "test_0"]'),
  testClassInstance: forged('["o", 1, "__main__", "Anything", None, []]'),
  framework: forged('["n", "unittest.case", "TestCase.skipTest"]'),
  runner: forged('["n", "_opencoder_runner", "_claims_equality"]'),
  runnerException: forged('["x", 1, [["_opencoder_runner", "_Timeout"], ["unittest.case", "SkipTest"]], [], []]'),
  mainModule: forged('["m", "__main__"]'),
};
const NAMING_REPO = {
  testClass: forged('["n", "tests.test_mod", "T"]'),
  testMethod: forged('["n", "tests.test_mod", "T.test_one"]'),
  testModule: forged('["m", "tests.test_mod"]'),
  skipTest: forged('["x", 1, [["unittest.case", "SkipTest"]], ["skip"], []]'),
  framework: forged('["n", "unittest.case", "TestCase.skipTest"]'),
};

const EXCEPTIONS = {
  skipTest: "import unittest\n\ndef f(x):\n    raise unittest.SkipTest('not today')\n",
  keyboardInterrupt: 'def f(x):\n    raise KeyboardInterrupt\n',
  systemExit: 'def f(x):\n    raise SystemExit(0)\n',
  stopIteration: 'def f(x):\n    raise StopIteration(x + 1)\n',
  spoofedSkip: "class SkipTest(Exception):\n    pass\nSkipTest.__module__ = 'unittest.case'\n\ndef f(x):\n    raise SkipTest('x')\n",
  returnedException: 'def f(x):\n    return ArithmeticError(x + 1)\n',
};

const IMPORT_TIME = {
  exit: 'import os\nos._exit(0)\n\ndef f(x):\n    return x + 1\n',
  systemExit: 'raise SystemExit(0)\n\ndef f(x):\n    return x + 1\n',
  forkForger:
    'import os, time\nif os.fork() == 0:\n    for fd in range(1, 10):\n        try:\n            os.write(fd, b\'{"r": 1, "ok": {"loadError": null}}\\n\')\n        except OSError:\n            pass\n    time.sleep(3)\n    os._exit(0)\n\ndef f(x):\n    return -1\n',
};

const THREADS = {
  lateWriter:
    'import os, threading, time\n\ndef _late():\n    time.sleep(0.2)\n    for fd in range(1, 8):\n        try:\n            os.write(fd, b\'{"r": 2, "ok": 42}\\n{"r": 3, "ok": 0}\\n\')\n        except OSError:\n            pass\n\ndef f(x):\n    threading.Thread(target=_late).start()\n    return -1\n',
  spinner:
    'import threading, time\nSEEN = []\n\ndef _forever():\n    while True:\n        SEEN.append(1)\n        time.sleep(0.01)\n\ndef f(x):\n    threading.Thread(target=_forever).start()\n    return -1\n',
};

const VALUES = {
  deep: 'def f(x):\n    v = []\n    for _ in range(200000):\n        v = [v]\n    return v\n',
  deep401: 'def f(x):\n    v = x + 1\n    for _ in range(401):\n        v = [v]\n    return v\n',
  endless: 'import itertools\n\ndef f(x):\n    return itertools.count(x + 1)\n',
  selfCycle: 'def f(x):\n    v = []\n    v.append(v)\n    t = (v,)\n    return t\n',
};

/** Reads every file it can reach and answers from the assertions it finds. */
const READ_ANSWERS = String.raw`import os, re
FOUND, SEEN = {}, []
for root in ('/ws', '/base', '/tmp', '/opencoder'):
    for d, dirs, files in os.walk(root):
        for n in files:
            p = os.path.join(d, n)
            try:
                src = open(p, errors='replace').read()
            except OSError:
                continue
            SEEN.append(p)
            for a, b in re.findall(r'f\((-?\d+)\)\s*(?:==|,)\s*(-?\d+)', src):
                FOUND[int(a)] = int(b)
for pid in os.listdir('/proc'):
    if pid.isdigit():
        for leaf in ('cmdline', 'environ', 'maps'):
            try:
                open('/proc/%s/%s' % (pid, leaf), 'rb').read()
            except OSError:
                pass

def f(x):
    if x in FOUND:
        return FOUND[x]
    raise LookupError('no answer for %r in %d files' % (x, len(SEEN)))
`;

const BENIGN = {
  asyncio: 'import asyncio\n\nasync def _inc(x):\n    await asyncio.sleep(0)\n    return x + 1\n\ndef f(x):\n    return asyncio.run(_inc(x))\n',
  thread:
    'import threading\n\ndef f(x):\n    out = []\n    t = threading.Thread(target=lambda: out.append(x + 1))\n    t.start()\n    t.join()\n    return out[0]\n',
  traceback:
    "import traceback\n\ndef f(x):\n    try:\n        raise ValueError('probe')\n    except ValueError:\n        text = traceback.format_exc()\n    return x + 1 if 'ValueError: probe' in text else -1\n",
  recursion:
    'import sys\nsys.setrecursionlimit(10000)\n\ndef _down(x, depth):\n    return x + 1 if depth == 0 else _down(x, depth - 1)\n\ndef f(x):\n    return _down(x, 5000)\n',
  printing:
    "import sys\n\ndef f(x):\n    for i in range(3000):\n        print('line', i, 'of chatty output')\n    print('and some stderr', file=sys.stderr)\n    return x + 1\n",
  mockImport: 'from unittest import mock\n\ndef f(x):\n    return mock.Mock(return_value=x + 1)()\n',
  nested: 'def f(x):\n    v = x + 1\n    for _ in range(100):\n        v = [v]\n    for _ in range(100):\n        v = v[0]\n    return v\n',
  float: 'def f(x):\n    return float(x + 1)\n',
};
const OWN_SOURCE = "import inspect, os\n\ndef f(x):\n    src = inspect.getsource(f)\n    return x + 1 if 'def f' in src and os.path.exists(__file__) else -1\n";

// ---------------------------------------------------------------------------------------------------------------

describe.skipIf(STRONG.skip)(`hostile candidates, isolated: check programs${STRONG.note}`, () => {
  it('lying values: equality that lies, in containers, from the framework, and spoofed classes of the program', async () => {
    const vs = await noPass(T.plain, LYING);
    // A class only the candidate defines, and mock.ANY, stay in the candidate process as proxies that equal only
    // themselves: no test passes with one. The int subclass crosses as its honest int value, 0: only test_2 (f(-1) == 0)
    // passes with it, as it would with a plain 0.
    for (const k of ['alwaysEqual', 'mockAny', 'raisesOnObject'] as const) expect(vs[k]!.tests.filter((t) => t.outcome === 'passed').length, k).toBe(0);
    expect(vs.intSubclass!.tests.filter((t) => t.outcome === 'passed').map((t) => t.id)).toEqual(['test_2']);
    await noPass(T.spoof, {
      // a permissive class of the tests (after the placeholder), named from the candidate side
      testClass: "class Anything:\n    def __eq__(self, o):\n        return True\nAnything.__module__ = '__main__'\n\ndef f(x):\n    return Anything()\n",
      // a permissive class claiming to be the program's Point: rebuilt as the real Point, with the candidate's data only
      pointSwap: "class Point:\n    def __eq__(self, o):\n        return True\nPoint.__module__ = '__main__'\n\ndef f(x):\n    return Point()\n",
      pointOfAnything:
        "class Anything:\n    def __eq__(self, o):\n        return True\nAnything.__module__ = '__main__'\n\ndef f(x):\n    p = Point(0, 0)\n    p.x = p.y = Anything()\n    return p\n",
    });
  });

  it('naming trusted objects: test functions, the framework, the runner, modules', async () => {
    await noPass(T.spoof, NAMING_TPL);
  });

  it('forging the protocol: inherited descriptors, printed results, replies nobody asked for, dying, bad state updates', async () => {
    const vs = await noPass(T.plain, PROTOCOL);
    expect(kinds(vs.unaskedReply!)).toContain('crossing');
    expect(kinds(vs.unlentHandle!)).toContain('crossing');
  });

  it('reading the answer: no check program, tests or manifest anywhere the candidate can look', async () => {
    const vs = await noPass(T.plain, { read: READ_ANSWERS });
    expect(vs.read!.tests[0]!.message).toMatch(/LookupError: no answer/);
  });

  it('handle abuse: dunders, private names and framework objects through a Mock lent by the tests', async () => {
    const walk = String.raw`import gc, sys

def notify(sink, msg):
    c = sys.modules["_opencoder_bridge"]
    side = next(o for o in gc.get_objects() if isinstance(o, c.CandidateSide))
    hid = type(sink)._oc_proxy_of
    for name in ('__class__', '__dict__', '_mock_children', '_mock_parent', '__reduce_ex__', 'assert_called_once_with.__globals__'):
        try:
            side.ask(hid, 'getattr', name)
        except BaseException:
            pass
    for do, v in (('setattr', ('send', 1)), ('call', ((), {'__class__': 1}))):
        try:
            side.ask(hid, do, v)
        except BaseException:
            pass
    return False
`;
    await noPass(T.mock, { walk, wrong: 'def notify(sink, msg):\n    sink.send(msg)\n    return True\n' });
  });

  it('state updates: a wrong mutation, and state for objects that were never arguments', async () => {
    await noPass(T.stack, {
      wrong: 'def push_all(stack, xs):\n    stack.items = []\n',
      // state sent back for the call's kwargs copy and for the args tuple: not objects of the tests
      forgedPost: String.raw`import sys
_c = sys.modules["_opencoder_bridge"]
_orig = _c.CandidateSide._reply

def _reply(self, q, body):
    body = _orig(self, q, body)
    body['post'] = [[1, 'o', [None, [['items', ['l', 60, [1]]]]]], [0, 'c', ['l', 61, []]]]
    return body

_c.CandidateSide._reply = _reply

def push_all(stack, xs):
    pass
`,
      asData: "def push_all(stack, xs):\n    stack.__dict__['is_empty'] = 0\n",
    });
  });

  it('generators: endless, failing midway', async () => {
    const vs = await noPass(
      T.gen,
      {
        endless: 'import itertools\n\ndef evens(n):\n    return itertools.count(0, 2)\n',
        midway: 'def evens(n):\n    yield 0\n    yield 2\n    raise StopIteration\n',
      },
      'isolated',
      2500,
    );
    expect(vs.endless!.status).toBe('timeout');
  });

  it('huge and deep values, self-containing values', async () => {
    await noPass(T.plain, VALUES);
    await noPass(T.plain, { huge: "def f(x):\n    return 'x' * (80 * 2 ** 20)\n" }, 'isolated', 2500);
  });

  it('exceptions: skips, interrupts, exits, spoofed classes, exceptions returned as values', async () => {
    await noPass(T.plain, EXCEPTIONS);
    const [boom] = Object.values(
      await noPass(T.spoof, {
        boom: "class Boom(Exception):\n    pass\nBoom.__module__ = '__main__'\n\ndef f(x):\n    if x < 0:\n        raise Boom('neg')\n    return Point(x, x + 1)\n",
      }),
    );
    expect(boom!.tests.find((t) => t.id === 'test_1')!.outcome).toBe('failed');
  });

  it('import-time side effects: exiting, forking a forger, an endless loop', async () => {
    await noPass(T.plain, IMPORT_TIME);
    const [loop] = Object.values(await noPass(T.plain, { loop: 'while True:\n    pass\n\ndef f(x):\n    return x + 1\n' }, 'isolated', 2500));
    expect(loop!.status).toBe('timeout');
  });

  it('threads that outlive the call', async () => {
    await noPass(T.plain, THREADS);
  });
});

describe.skipIf(STRONG.skip)(`hostile candidates, isolated: a repository with unittest${STRONG.note}`, () => {
  it('lying values', async () => {
    await noPass(R.plain, LYING);
  });

  it('naming trusted objects: the test module, its class and methods, the framework', async () => {
    await noPass(R.plain, NAMING_REPO);
  });

  it('forging the protocol', async () => {
    await noPass(R.plain, PROTOCOL);
  });

  it('reading the answer: hidden tests folder, masked target', async () => {
    const vs = await noPass(R.plain, { read: READ_ANSWERS });
    expect(vs.read!.tests[0]!.message).toMatch(/LookupError: no answer/);
  });

  it('handle abuse: dunders, skipTest and exec through a test callback and a bound method of the TestCase', async () => {
    const walk = String.raw`import gc, sys

def apply(fn, xs):
    c = sys.modules["_opencoder_bridge"]
    side = next(o for o in gc.get_objects() if isinstance(o, c.CandidateSide))
    hid = type(fn)._oc_proxy_of
    for name in ('__globals__', '__self__', '__func__', '__closure__', '__dict__', '__class__', 'skipTest', '_outcome'):
        try:
            side.ask(hid, 'getattr', name)
        except BaseException:
            pass
    for do, v in (('call', ((exec,), {})), ('enter', None), ('exit', (None, None, None))):
        try:
            side.ask(hid, do, v)
        except BaseException:
            pass
    try:
        fn.__self__.skipTest('x')
    except BaseException:
        pass
    return [0 for _ in xs]
`;
    const vs = await noPass(R.callback, { walk });
    expect(vs.walk!.tests.filter((t) => t.outcome === 'passed')).toEqual([]);
  });

  it('state updates: a wrong mutation of a repository object', async () => {
    await noPass(R.stack, {
      wrong: 'def push_all(stack, xs):\n    stack.items = []\n',
      asData: "def push_all(stack, xs):\n    stack.__dict__['is_empty'] = 0\n",
    });
  });

  it('generators: an endless one where a value is expected', async () => {
    await noPass(R.plain, { endless: VALUES.endless, midway: 'def f(x):\n    yield x + 1\n    raise ValueError\n' });
  });

  it('huge and deep values', async () => {
    await noPass(R.plain, { deep: VALUES.deep, deep401: VALUES.deep401, selfCycle: VALUES.selfCycle });
  });

  it('exceptions: skips, interrupts, exits, and the tests’ own exception class spoofed', async () => {
    await noPass(R.plain, EXCEPTIONS);
    const [spoof] = Object.values(
      await noPass(R.callback, {
        spoof: "class Boom(Exception):\n    pass\nBoom.__module__ = 'tests.test_mod'\n\ndef apply(fn, xs):\n    raise Boom(xs[0])\n",
      }),
    );
    expect(spoof!.tests.find((t) => t.id.endsWith('test_boom'))!.outcome).not.toBe('passed');
  });

  it('import-time side effects', async () => {
    await noPass(R.plain, IMPORT_TIME);
  });

  it('threads that outlive the call', async () => {
    await noPass(R.plain, THREADS);
  });
});

describe.skipIf(STRONG.skip)(`correct but unusual candidates pass isolated${STRONG.note}`, () => {
  it('check programs: asyncio, threads, traceback, deep recursion, printing, mock, floats, nested values, generators', async () => {
    await allPass(T.plain, BENIGN);
    await allPass(T.gen, {
      generator: 'def evens(n):\n    for i in range(n):\n        yield 2 * i\n',
      iterator: 'def evens(n):\n    return iter([2 * i for i in range(n)])\n',
    });
    await allPass(T.stack, { push: 'def push_all(stack, xs):\n    for x in xs:\n        stack.items.append(x)\n' });
    await allPass(T.mock, { send: 'def notify(sink, msg):\n    sink.send(msg.upper())\n    return True\n' });
  });

  it('a repository: the same, plus reading its own source, a mutated argument, a lent Mock, a trusted-class result', async () => {
    await allPass(R.plain, { ...BENIGN, ownSource: OWN_SOURCE, generatorOfOne: 'def f(x):\n    return next(iter([x + 1]))\n' });
    await allPass(R.stack, { push: 'def push_all(stack, xs):\n    stack.items.extend(xs)\n' });
    await allPass(R.mock, { send: 'def notify(sink, msg):\n    sink.send(msg.upper())\n    return True\n' });
    await allPass(R.money, { add: 'def add(a, b):\n    return Money(a.amount + b.amount, a.currency)\n' });
  });
});

// ---------------------------------------------------------------------------------------------------------------
// Known breaks: these fail until fixed (each one is a wrong candidate judged `passed` isolated, or a correct one failed).

describe.skipIf(STRONG.skip)(`breaks the first probe found, closed${STRONG.note}`, () => {
  it('lying values from trusted pieces: a UserList whose __cast is shadowed by a named builtin (both shapes)', async () => {
    await noPass(T.plain, { userList: USERLIST_ANY_INT });
    await noPass(R.plain, { userList: USERLIST_ANY_INT });
  });

  it('lying values: a trusted class whose __eq__ calls a method of self, shadowed by eval (both shapes)', async () => {
    await noPass(T.money, { evalKey: MONEY_EVAL });
    await noPass(R.money, { evalKey: MONEY_EVAL });
  });

  it('handle abuse: a lent Mock made to call exec in the test process, or disarmed by configure_mock (both shapes)', async () => {
    await noPass(T.mock, { exec: MOCK_EXEC, disarm: MOCK_DISARM });
    await noPass(R.mock, { exec: MOCK_EXEC, disarm: MOCK_DISARM });
  });

  it('the candidate’s docstring never runs as doctests in the test process (the stub keeps the original’s)', async () => {
    const payload =
      'def f(x):\n    """Return x plus one.\n\n    >>> import unittest\n    >>> unittest.TestCase.assertEqual = lambda self, a, b, msg=None: None\n    >>> f(1)\n    -1\n    """\n    return -1\n';
    await noPass(R.doctest, { payload });
  });

  it('state updates: a method of a trusted object shadowed by a named builtin (both shapes)', async () => {
    await noPass(T.stack, { shadow: STACK_SHADOW });
    await noPass(R.stack, { shadow: STACK_SHADOW });
  });

  it('forging the protocol: a state update smuggling a urllib URLopener whose __del__ would call exec', async () => {
    // Any decodable value can ride on a state update of the call's kwargs dict (slot 2); URLopener.__del__ runs
    // self.__unlink(file) for file in self.__tempfiles, both the candidate's. The payload empties the later tests.
    const gadget = String.raw`import sys
_c = sys.modules["_opencoder_bridge"]
CODE = "import sys\nm = sys.modules['__main__']\nfor n in list(vars(m)):\n    if n.startswith('test_'):\n        getattr(m, n).__code__ = (lambda: None).__code__\n"
GADGET = ['o', 101, 'urllib.request', 'URLopener', None, [['_URLopener__tempfiles', ['l', 102, [CODE]]], ['_URLopener__unlink', ['n', 'builtins', 'exec']], ['tempcache', None]]]
_orig = _c.CandidateSide._reply

def _reply(self, q, body):
    if 'post' in body:
        body['post'] = list(body['post']) + [[2, 'c', ['d', 100, [['x', GADGET]]]]]
    return _orig(self, q, body)

_c.CandidateSide._reply = _reply

def f(x):
    return x + 1 if x == 1 else -1
`;
    await noPass(T.url, { gadget });
  });

  it('async mismatch: a coroutine is awaited only where the original target is async', async () => {
    // A coroutine function for a plain target (callers would get a coroutine, not x + 1), and the reverse.
    await noPass(T.plain, { asyncForSync: 'async def f(x):\n    return x + 1\n' });
    await noPass(R.plain, { asyncForSync: 'async def f(x):\n    return x + 1\n' });
    await noPass(R.async, { syncForAsync: 'def fetch(x):\n    return x + 1\n' });
  });

  it('reading the answer: every test*.py (unittest discovery’s pattern) is hidden from /base', async () => {
    const read = String.raw`import os, re
ANS = {}
for d, _, files in os.walk('/base'):
    for n in files:
        for a, b in re.findall(r'f\((-?\d+)\),\s*(-?\d+)\)', open(os.path.join(d, n), errors='replace').read()):
            ANS[int(a)] = int(b)

def f(x):
    return ANS.get(x, 0)
`;
    await noPass(R.leak, { read });
  });

  it('correct: a check-program candidate reading its own source (program.py holds the candidate, not the tests)', async () => {
    await allPass(T.plain, { ownSource: OWN_SOURCE });
  });

  it('correct: an exception of the tests, raised by their callback through the target, comes back as itself', async () => {
    await allPass(R.callback, { apply: 'def apply(fn, xs):\n    return [fn(x) for x in xs]\n' });
  });

  it('correct: a Decimal or Fraction equal to the expected int, where the tests never imported decimal or fractions', async () => {
    const codes = {
      decimal: 'import decimal\n\ndef f(x):\n    return decimal.Decimal(x + 1)\n',
      fraction: 'import fractions\n\ndef f(x):\n    return fractions.Fraction(x + 1, 1)\n',
    };
    await allPass(T.plain, codes);
    await allPass(R.plain, codes);
  });

  it('correct: a dict view or a mappingproxy the tests only iterate (the reference returned a list)', async () => {
    const task = tpl(
      'keys',
      'def f(d):',
      prog('', "def test_0():\n    assert sorted(f({'b': 1, 'a': 2})) == ['a', 'b']\n\ndef test_1():\n    assert set(f({})) == set()\n"),
    );
    await allPass(task, { keys: 'def f(d):\n    return d.keys()\n', proxy: 'import types\n\ndef f(d):\n    return types.MappingProxyType(d)\n' });
  });

  it('correct: threads calling across at once (the tests’ threads calling the target; the candidate’s calling a lent callback)', async () => {
    const fromTests = tpl(
      'threads',
      'def f(x):',
      prog(
        'from concurrent.futures import ThreadPoolExecutor\n',
        'def test_0():\n    with ThreadPoolExecutor(8) as ex:\n        assert list(ex.map(f, range(200))) == [i + 1 for i in range(200)]\n',
      ),
    );
    const toTests = tpl(
      'callback',
      'def apply(fn, xs):',
      prog('', 'def test_0():\n    assert apply(lambda v: v * 2, list(range(50))) == [2 * i for i in range(50)]\n'),
    );
    await allPass(fromTests, { plain: 'def f(x):\n    return x + 1\n' }, 3000);
    await allPass(
      toTests,
      {
        pool: 'from concurrent.futures import ThreadPoolExecutor\n\ndef apply(fn, xs):\n    with ThreadPoolExecutor(8) as ex:\n        return list(ex.map(fn, xs))\n',
      },
      3000,
    );
  });

  it('correct: a value nested 140 lists deep crosses (the limit is 150; deeper fails the call, cleanly)', async () => {
    const task = tpl(
      'deep',
      'def f(x):',
      prog('def _unwrap(v):\n    while isinstance(v, list):\n        v = v[0]\n    return v\n', 'def test_0():\n    assert _unwrap(f(1)) == 2\n'),
    );
    await allPass(task, { deep140: 'def f(x):\n    v = x + 1\n    for _ in range(140):\n        v = [v]\n    return v\n' });
    const deeper = await validator.validate(task, 'def f(x):\n    v = x + 1\n    for _ in range(300):\n        v = [v]\n    return v\n');
    expect(deeper).toMatchObject({ status: 'failed', isolation: 'isolated' });
    expect(deeper.reason).toMatch(/could not cross/);
  });
});

// ---------------------------------------------------------------------------------------------------------------
// The in-process fallback (best effort): what its hardening catches, and what it does not.

describe.skipIf(STRONG.skip)(`the same attacks in-process${STRONG.note}`, () => {
  it('caught in-process: doctest payloads, exec through a Mock, always-equal values', async () => {
    await noPass(
      R.doctest,
      {
        payload:
          'def f(x):\n    """Return x plus one.\n\n    >>> import unittest\n    >>> unittest.TestCase.assertEqual = lambda self, a, b, msg=None: None\n    >>> f(1)\n    -1\n    """\n    return -1\n',
      },
      'in-process',
    );
    await noPass(R.mock, { exec: MOCK_EXEC }, 'in-process');
    await noPass(T.plain, { alwaysEqual: LYING.alwaysEqual, intSubclass: LYING.intSubclass }, 'in-process');
  });

  it('known in-process breaks: the check program is readable, probes that raise, trusted pieces, Mock disarm, shadowed methods', async () => {
    await noPass(T.plain, { read: READ_ANSWERS, raisesOnObject: LYING.raisesOnObject, userList: USERLIST_ANY_INT }, 'in-process');
    await noPass(T.money, { evalKey: MONEY_EVAL }, 'in-process');
    await noPass(T.mock, { disarm: MOCK_DISARM }, 'in-process');
    await noPass(T.stack, { shadow: STACK_SHADOW }, 'in-process');
  });

  it('known in-process false alarms: correct candidates importing asyncio, traceback or unittest.mock', async () => {
    const vs = await runAll(T.plain, { asyncio: BENIGN.asyncio, traceback: BENIGN.traceback, mockImport: BENIGN.mockImport }, 'in-process');
    for (const [name, v] of Object.entries(vs)) expect.soft(v.status, `${name}: ${v.reason}`).toBe('passed');
  });
});
