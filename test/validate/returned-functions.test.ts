// In-process, a function the target returns is judged like the target: its results (and what it returns
// in turn) pass the same check, so an always-equal value made later by a returned closure, bound method,
// partial or callable instance is caught (issue 42, item 4: a wrong `memoize` passed in-process that way).
// The check keeps identities (a decorator returning its argument, a factory's cached function), never
// wraps what the candidate did not write, and calls of returned functions are not calls of the target.

import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Task } from '../../main/model/task.ts';
import type { Verdict } from '../../main/model/verdict.ts';
import type { Validator } from '../../main/validate/validator.ts';
import { makeRepo } from '../helpers/tmp-repo.ts';
import { inProcessValidators, PLACEHOLDER, pytestPython, templateTask } from './helpers.ts';

const program = (tests: string, before = ''): string => `import functools

${before}${PLACEHOLDER}

# --- tests ---
${tests}`;

// memoize(fn): a caching function. The tests look at results only (a forgery that answers every comparison
// with True passes them unless its values are checked).
const MEMO_TESTS = `def test_0():
    m = memoize(lambda x: x * 2)
    assert m(3) == 6
    assert m(3) == 6

def test_1():
    m = memoize(lambda x: x + 1)
    assert m(41) == 42
    assert m(41) == 42
`;
const MEMO_GOOD = `def memoize(fn):
    cache = {}

    @functools.wraps(fn)
    def wrapper(x):
        if x not in cache:
            cache[x] = fn(x)
        return cache[x]
    return wrapper
`;

// A memoize whose closure refers to itself (it counts its own hits).
const SELF_REFERRING = `def memoize(fn):
    cache = {}

    def wrapper(x):
        wrapper.hits = getattr(wrapper, 'hits', 0) + 1
        if x not in cache:
            cache[x] = fn(x)
        return cache[x]
    return wrapper
`;

// deco(fn): registers fn and returns it unchanged (the tests hold its identity).
const DECO_TESTS = `def test_0():
    def g():
        return 1
    assert deco(g) is g
    assert REGISTRY[-1] is g
    assert g() == 1
`;
const DECO_GOOD = 'def deco(fn):\n    REGISTRY.append(fn)\n    return fn\n';

// make(): one function, made once and handed out again.
const MAKE_TESTS = `def test_0():
    assert make() is make()
    assert make()(1) == 2
    assert make()(41) == 42
`;
const MAKE_GOOD = `def make():
    fn = CACHE.get('fn')
    if fn is None:
        def fn(x):
            return x + 1
        CACHE['fn'] = fn
    return fn
`;

// adder(a)(b)(c): a function returned by a function the target returned.
const ADDER_TESTS = `def test_0():
    assert adder(1)(2)(3) == 6
    assert adder(0)(0)(0) == 0
`;
const ADDER_GOOD = 'def adder(a):\n    return lambda b: lambda c: a + b + c\n';

// ops(): functions in a dict.
const OPS_TESTS = `def test_0():
    assert ops()['double'](3) == 6
    assert ops()['double'](21) == 42
`;
const OPS_GOOD = "def ops():\n    return {'double': lambda x: x * 2}\n";

// counting(fn): the tests call the target three times and what it returns eleven times.
const COUNT_TESTS = `def test_0():
    m = memoize(lambda x: x * 2)
    for i in range(10):
        assert m(i) == i * 2
    m2 = memoize(m)
    assert m2(4) == 8

def test_1():
    assert memoize(abs)(-3) == 3
`;

// gen(n): a generator; the tests compare what it yields.
const GEN_TESTS = `def test_0():
    assert list(gen(3)) == [0, 1, 2]

def test_1():
    assert next(gen(5)) == 0
`;
const GEN_GOOD = 'def gen(n):\n    for i in range(n):\n        yield i\n';

// What a candidate does once code of its runs inside the audit hook (which ignored the events raised there): a str
// subclass whose __eq__ walks the frames, looks for the report function in their locals and globals and reports
// every test passed. Its __hash__ decides which look-up of the hook's meets it.
const REACH = `import sys, types, functools, os

_IDS = ['test_0', 'test_1']


def _forge(send):
    for i in _IDS:
        send({'t': 'test', 'id': i, 'outcome': 'passed'})
    send({'t': 'target', 'loadedFrom': 'program.py', 'calls': 3})
    send({'t': 'done', 'maxrss': 1})
    os._exit(0)


def _crawl(root):
    seen, queue = set(), [root]
    while queue and len(seen) < 200000:
        o = queue.pop()
        if id(o) in seen:
            continue
        seen.add(id(o))
        t = type(o)
        try:
            if t is types.FunctionType:
                if o.__qualname__.endswith('make_sender.<locals>.send'):
                    return o
                queue += [o.__globals__, *(c.cell_contents for c in o.__closure__ or ()), *(o.__defaults__ or ())]
            elif t is dict:
                queue += list(o.values())
            elif t in (list, tuple, set, frozenset):
                queue += list(o)
            elif t is types.MethodType:
                queue += [o.__func__, o.__self__]
            elif t is functools.partial:
                queue += [o.func, *o.args]
            elif t is types.SimpleNamespace or t is type(sys.implementation):
                queue += list(vars(o).values())
        except Exception:
            pass
    return None


class _Key(str):
    def __eq__(self, other):
        try:
            f = sys._getframe(0)
            roots = []
            while f is not None:
                roots += [f.f_locals, f.f_globals]
                f = f.f_back
            send = _crawl(roots)
            if send is not None:
                _forge(send)
        except Exception:
            pass
        return str.__eq__(self, other)

`;

// A class member named by such a key, with the hash of a special method's name: the hook's judgement of the class
// looked that name up.
const HOOK_ESCAPE = `${REACH}    def __hash__(self):
        return str.__hash__('__eq__')


_V = type('_V', (), {_Key('label'): 1, '__call__': lambda self, x: 0})


def memoize(fn):
    return _V()
`;

// A key planted in sys.modules with the hash of a test module's name: the hook's check of whether that module is
// loaded already looked it up.
const IMPORT_ESCAPE = `${REACH}    def __hash__(self):
        return str.__hash__('test_opencoder_planted')


def memoize(fn):
    sys.modules[_Key('planted')] = sys
    try:
        import test_opencoder_planted
    except ImportError:
        pass
    return lambda x: 0
`;

const task = (id: string, qualname: string, tests: string, reference: string, before = ''): Task =>
  templateTask(`returned/${id}`, program(tests, before), { qualname, signature: `def ${qualname}(...):`, reference, tests: testIds(tests) });
const testIds = (tests: string): string[] => [...tests.matchAll(/^def (test_\w+)\(/gm)].map((m) => m[1]!);

const memo = task('memoize', 'memoize', MEMO_TESTS, MEMO_GOOD);
const deco = task('deco', 'deco', DECO_TESTS, DECO_GOOD, 'REGISTRY = []\n\n');
const make = task('make', 'make', MAKE_TESTS, MAKE_GOOD, 'CACHE = {}\n\n');
const adder = task('adder', 'adder', ADDER_TESTS, ADDER_GOOD);
const ops = task('ops', 'ops', OPS_TESTS, OPS_GOOD);
const counting = task('count', 'memoize', COUNT_TESTS, MEMO_GOOD);
const gen = task('gen', 'gen', GEN_TESTS, GEN_GOOD);

// The unittest shape: a repository whose module defines memoize, and a test module that imports it.
const REPO = {
  'pkg/__init__.py': '',
  'pkg/memo.py': 'import functools\n\n\ndef memoize(fn):\n    return fn\n',
  'tests/__init__.py': '',
  'tests/test_memo.py': `import unittest
from pkg.memo import memoize


class M(unittest.TestCase):
    def test_double(self):
        m = memoize(lambda x: x * 2)
        self.assertEqual(m(3), 6)
        self.assertEqual(m(3), 6)

    def test_plus(self):
        m = memoize(lambda x: x + 1)
        self.assertEqual(m(41), 42)
`,
  'tests/test_py_memo.py': `from pkg.memo import memoize


def test_double():
    m = memoize(lambda x: x * 2)
    assert m(3) == 6
    assert m(3) == 6


def test_plus():
    m = memoize(lambda x: x + 1)
    assert m(41) == 42
`,
};

// Always-equal results: an int subclass whose __eq__ answers True, and one that answers the probes honestly
// (only the judgement of its type, a comparison the candidate wrote, catches that one).
const ALWAYS = `class _E(int):
    __eq__ = lambda self, other: True
    __ne__ = lambda self, other: False
    __hash__ = int.__hash__


`;
const PROBE_AWARE = `class _N(int):
    def __eq__(self, other):
        if type(other) is not int or other in (0, 987654321):
            return int.__eq__(self, other)
        return True

    __hash__ = int.__hash__


`;

const FORGED_MEMOIZE = {
  closure: `${ALWAYS}def memoize(fn):
    cache = {}

    def wrapper(x):
        if x not in cache:
            cache[x] = _E(0)
        return cache[x]
    return wrapper
`,
  'closure, probe-aware value': `${PROBE_AWARE}def memoize(fn):
    def wrapper(x):
        return _N(5)
    return wrapper
`,
  'bound method': `${ALWAYS}class _Memo:
    def __init__(self, fn):
        self.fn = fn

    def call(self, x):
        return _E(0)


def memoize(fn):
    return _Memo(fn).call
`,
  partial: `${ALWAYS}def memoize(fn):
    return functools.partial(lambda fn, x: _E(0), fn)
`,
  'callable instance': `${ALWAYS}class _Memo:
    def __init__(self, fn):
        self.fn = fn

    def __call__(self, x):
        return _E(0)


def memoize(fn):
    return _Memo(fn)
`,
  'lru_cache of a lambda': `${ALWAYS}def memoize(fn):
    return functools.lru_cache(maxsize=None)(lambda x: _E(0))
`,
  'closure in a tuple': `${ALWAYS}def memoize(fn):
    return (lambda x: _E(0), 0)[0]
`,
};

let validator: Validator;
let pyValidator: Validator | null = null;
let repoMemo: Task;
let pyRepoMemo: Task | null = null;
const made: string[] = [];

const pytest = pytestPython();

beforeAll(async () => {
  const root = makeRepo(REPO);
  made.push(root);
  const base = {
    repo: '.',
    repoPath: root,
    file: 'pkg/memo.py',
    qualname: 'memoize',
    requirement: 'a caching function',
    signature: 'def memoize(fn):',
    reference: MEMO_GOOD,
  };
  repoMemo = { ...base, id: 'returned/repo-memoize', test_command: 'python3 -m unittest tests.test_memo' };
  ({ validator, pyValidator } = await inProcessValidators());
  if (pytest) {
    pyRepoMemo = { ...base, id: 'returned/pytest-memoize', test_command: 'python3 -m pytest -q tests/test_py_memo.py' };
  }
}, 120_000);

afterAll(() => {
  validator?.close();
  pyValidator?.close();
  for (const d of made) fs.rmSync(d, { recursive: true, force: true });
});

const explain = (v: Verdict) =>
  `${v.status}: ${v.reason}\n${v.tests.map((t) => `${t.id} ${t.outcome} ${t.message ?? ''}`).join('\n')}\n${v.stderr.slice(-1500)}`;
const text = (v: Verdict) => [v.reason, ...v.sandbox.events.map((e) => e.detail), ...v.tests.map((t) => t.message ?? ''), v.stderr].join('\n');

async function judge(t: Task, code: string, v: Validator = validator): Promise<Verdict> {
  const verdict = await v.validate(t, code);
  expect(verdict.isolation).toBe('in-process');
  return verdict;
}

/** A wrong candidate: not passed, and failed for the reason given. */
async function refused(t: Task, code: string, why: RegExp, v?: Validator): Promise<void> {
  const verdict = await judge(t, code, v);
  expect(verdict.status, explain(verdict)).not.toBe('passed');
  expect(verdict.status, explain(verdict)).not.toBe('flaky');
  expect(text(verdict), explain(verdict)).toMatch(why);
}

async function passes(t: Task, code: string, v?: Validator): Promise<Verdict> {
  const verdict = await judge(t, code, v);
  expect(verdict.status, explain(verdict)).toBe('passed');
  return verdict;
}

const WHY = /a function the target returned returned a _[EN] (whose __eq__ the candidate wrote|that claims to equal)/;

describe('in-process: what a function the target returned returns is checked', () => {
  for (const [name, code] of Object.entries(FORGED_MEMOIZE)) {
    it(`memoize forged through a ${name}`, async () => {
      await refused(memo, code, WHY);
    }, 120_000);
  }

  it('memoize forged in a repository (unittest, and pytest where a python3 has it)', async () => {
    await refused(repoMemo, FORGED_MEMOIZE.closure, WHY);
    await refused(repoMemo, FORGED_MEMOIZE['callable instance'], WHY);
    if (pyRepoMemo && pyValidator) {
      await refused(pyRepoMemo, FORGED_MEMOIZE.closure, WHY, pyValidator);
      await refused(pyRepoMemo, FORGED_MEMOIZE.partial, WHY, pyValidator);
    }
  }, 300_000);

  it('a function returned by a function the target returned', async () => {
    await refused(adder, `${ALWAYS}def adder(a):\n    return lambda b: lambda c: _E(0)\n`, WHY);
    await refused(
      adder,
      `${PROBE_AWARE}def adder(a):\n    def one(b):\n        def two(c):\n            return _N(6)\n        return two\n    return one\n`,
      WHY,
    );
  }, 120_000);

  it('a lambda in a dict the target returned', async () => {
    await refused(ops, `${ALWAYS}def ops():\n    return {'double': lambda x: _E(0)}\n`, WHY);
  }, 120_000);
});

describe('in-process: what a generator yields, and the ways round the wrapping', () => {
  it('a generator target, or a generator function the target returned, that yields always-equal values', async () => {
    await refused(gen, `${ALWAYS}def gen(n):\n    for i in range(n):\n        yield _E(0)\n`, /the target returned a _E that claims to equal/);
    await refused(memo, `${ALWAYS}def memoize(fn):\n    def g(x):\n        yield _E(0)\n    return lambda x: next(g(x))\n`, WHY);
    await passes(gen, GEN_GOOD);
    // send, throw and close reach the generator as they would through yield from
    const protocolGood = `def gen(n):
    try:
        for i in range(n):
            try:
                got = yield i
                if got is not None:
                    log.append(got)
            except ValueError as e:
                log.append('caught %s' % e)
                yield 'handled'
    finally:
        log.append('closed')
`;
    const protocol = task(
      'gen-protocol',
      'gen',
      `def test_0():
    g = gen(3)
    assert next(g) == 0
    assert g.send('a') == 1
    assert g.throw(ValueError('v')) == 'handled'
    g.close()
    assert log == ['a', 'caught v', 'closed']
`,
      protocolGood,
      'log = []\n\n',
    );
    await passes(protocol, protocolGood);
  }, 300_000);

  it('a __call__ rebound on its class during the first call, and a returned function whose __code__ is swapped back', async () => {
    const rebind = `${ALWAYS}class _Memo:
    def __call__(self, x):
        _Memo.__call__ = lambda self, x: _E(0)
        return x * 2 if x == 3 else x + 1


def memoize(fn):
    return _Memo()
`;
    await refused(memo, rebind, WHY);
    const swap = `${ALWAYS}_honest = []


def memoize(fn):
    def wrapper(x):
        if _honest:
            wrapper.__code__ = _honest[0]
            return _E(0)
        return fn(x)
    _honest.append((lambda x: _E(0)).__code__)
    return wrapper
`;
    await refused(memo, swap, /refuses to rebind __code__|a function the target returned returned a _E/);
  }, 300_000);

  it('a function made of a wrapper’s code does not make the wrapper the candidate’s (a nested function would go unchecked)', async () => {
    const taint = `${ALWAYS}import types


def adder(a):
    def one(b):
        types.FunctionType(one.__code__, {}, None, None, one.__closure__)
        return lambda c: _E(0)
    return one
`;
    await refused(adder, taint, WHY);
  }, 120_000);

  it('a class member named by a str subclass of the candidate’s runs nothing of it inside the audit hook', async () => {
    await refused(memo, HOOK_ESCAPE, /a _V with a member named by a str subclass the candidate wrote/);
  }, 120_000);

  it('a sys.modules key of a class of the candidate’s runs nothing of it inside the audit hook', async () => {
    await refused(memo, IMPORT_ESCAPE, /AssertionError|assert/);
  }, 120_000);

  it('a special method that is an instance of a class of the candidate’s is the candidate’s', async () => {
    const code = `class _Eq:
    def __call__(self, other):
        if type(other) is not int or other in (0, 987654321):
            return False
        return True


class _N(int):
    __eq__ = _Eq()
    __hash__ = int.__hash__


def memoize(fn):
    return lambda x: _N(5)
`;
    await refused(memo, code, /a function the target returned returned a _N whose __eq__ the candidate wrote/);
  }, 120_000);
});

// Red team, second round: values that compare through a builtin borrowed under another name, a function attached to
// the returned one during a call, and forged values carried by a raised exception.
const STATS_TESTS = `def test_0():
    m = memoize(lambda x: x * x)
    assert m(3) == 9
    assert m(3) == 9
    assert m.hits() == 1
    assert m(4) == 16
    assert m.hits() == 1
`;
const STATS_GOOD = `def memoize(fn):
    cache = {}
    stats = [0]

    def wrapper(*args):
        if args in cache:
            stats[0] += 1
        else:
            cache[args] = fn(*args)
        return cache[args]
    wrapper.hits = lambda: stats[0]
    return wrapper
`;
const stats = task('stats', 'memoize', STATS_TESTS, STATS_GOOD);
const LOOKUP_TESTS = `def test_0():
    f = make_lookup({'a': 1})
    assert f('a') == 1
    try:
        f('zz')
    except KeyError as e:
        assert e.args == ('zz',)
    else:
        assert False
`;
const LOOKUP_GOOD = `def make_lookup(d):
    def lookup(k):
        if k not in d:
            raise KeyError(k)
        return d[k]
    return lookup
`;
const lookup = task('lookup', 'make_lookup', LOOKUP_TESTS, LOOKUP_GOOD);
const CHECKED_TESTS = `def test_0():
    try:
        checked(-2)
    except ValueError as e:
        assert e.args == ('negative', -2)
    else:
        assert False
    assert checked(3) == 3
`;
const CHECKED_GOOD = "def checked(n):\n    if n < 0:\n        raise ValueError('negative', n)\n    return n\n";
const checked = task('checked', 'checked', CHECKED_TESTS, CHECKED_GOOD);
const PAIR_TESTS = `def test_0():
    v, f = make(3)
    assert v == 4
    assert f(2) == 5

def test_1():
    v, f = make(10)
    assert v == 11
    assert f(1) == 11
`;
const PAIR_GOOD = 'def make(n):\n    def add(x):\n        return x + n\n    return n + 1, add\n';
const pair = task('pair', 'make', PAIR_TESTS, PAIR_GOOD);
const WRITTEN_EQ = `class _E(int):
    def __eq__(self, o):
        return True

    __hash__ = int.__hash__


`;

describe('in-process: borrowed comparisons, attributes set later, values in exceptions (red team, round 2)', () => {
  it('a comparison borrowed from a builtin under another name, returned by the target or by a function it returned', async () => {
    const memoOf = (cls: string, value: string) =>
      `${cls}\n\ndef memoize(fn):\n    cache = {}\n\n    def wrapper(*args):\n        if args not in cache:\n            cache[args] = fn(*args)\n        return ${value}\n    return wrapper\n`;
    const BORROWED = /a _E whose __eq__ is \S+, a builtin borrowed under another name/;
    await refused(memo, memoOf('class _E(int):\n    __eq__ = int.__ne__\n    __hash__ = int.__hash__', '_E(0)'), BORROWED);
    await refused(
      memo,
      memoOf(
        'class _E(frozenset):\n    __eq__ = frozenset.__contains__\n    __hash__ = frozenset.__hash__',
        '_E(x for x in range(-300, 300) if x not in (0, 1, -1))',
      ),
      BORROWED,
    );
    await refused(
      pair,
      'import operator\n\nclass _E(int):\n    __eq__ = staticmethod(operator.index)\n    __hash__ = int.__hash__\n\n\ndef make(n):\n    def add(x):\n        return x + n\n    return _E(0), add\n',
      BORROWED,
    );
    // The base's own slots, delegated to under their own names, are honest.
    await passes(memo, memoOf('class _E(int):\n    __eq__ = int.__eq__\n    __hash__ = int.__hash__', '_E(cache[args])'));
    await passes(pair, PAIR_GOOD);
  }, 180_000);

  it('a function attached to the returned function during one of its calls', async () => {
    const lazy = `${WRITTEN_EQ}def memoize(fn):\n    cache = {}\n\n    def wrapper(*args):\n        if args not in cache:\n            cache[args] = fn(*args)\n        wrapper.hits = lambda: _E(0)\n        return cache[args]\n    return wrapper\n`;
    await refused(stats, lazy, /a function the target returned returned a _E (whose __eq__ the candidate wrote|that claims to equal)/);
    const viaDict = `${WRITTEN_EQ}def _h():\n    return _E(0)\n\n\ndef memoize(fn):\n    cache = {}\n\n    def wrapper(*args):\n        wrapper.__dict__.setdefault('hits', _h)\n        if args not in cache:\n            cache[args] = fn(*args)\n        return cache[args]\n    return wrapper\n`;
    await refused(stats, viaDict, /a _E (whose __eq__ the candidate wrote|that claims to equal)/);
    await passes(stats, STATS_GOOD);
  }, 180_000);

  it('forged values carried by an exception the target, or a function it returned, raised', async () => {
    const badLookup = `${WRITTEN_EQ}def make_lookup(d):\n    def lookup(k):\n        if k not in d:\n            raise KeyError(_E(0))\n        return d[k]\n    return lookup\n`;
    await refused(
      lookup,
      badLookup,
      /a function the target returned raised an exception carrying a _E (whose __eq__ the candidate wrote|that claims to equal)/,
    );
    const badChecked = `${WRITTEN_EQ}def checked(n):\n    if n < 0:\n        raise ValueError(_E(0), _E(0))\n    return n\n`;
    await refused(checked, badChecked, /the target raised an exception carrying a _E (whose __eq__ the candidate wrote|that claims to equal)/);
    // An exception of the candidate's own class, carrying honest values, is the reference's behaviour.
    await passes(lookup, LOOKUP_GOOD);
    await passes(checked, `class _Bad(ValueError):\n    def __str__(self):\n        return 'bad'\n\n\n${CHECKED_GOOD.replace('ValueError(', '_Bad(')}`);
  }, 180_000);
});

describe('in-process: returned functions keep their identity and their calls are not the target’s', () => {
  it('a correct memoize passes (check program, unittest, pytest)', async () => {
    await passes(memo, MEMO_GOOD);
    const lru = 'def memoize(fn):\n    return functools.lru_cache(maxsize=None)(fn)\n';
    await passes(memo, lru);
    const cls = `class _Memo:
    def __init__(self, fn):
        self.fn, self.cache = fn, {}

    def __call__(self, x):
        if x not in self.cache:
            self.cache[x] = self.fn(x)
        return self.cache[x]


def memoize(fn):
    return _Memo(fn)
`;
    await passes(memo, cls);
    await passes(memo, `def memoize(fn):\n    return functools.partial(lambda f, x: f(x), fn)\n`);
    await passes(repoMemo, MEMO_GOOD);
    if (pyRepoMemo && pyValidator) await passes(pyRepoMemo, MEMO_GOOD, pyValidator);
  }, 300_000);

  it('a decorator that returns its argument, and a factory that hands out one function twice', async () => {
    await passes(deco, DECO_GOOD);
    await passes(make, MAKE_GOOD);
    await passes(adder, ADDER_GOOD);
    await passes(ops, OPS_GOOD);
  }, 300_000);

  it('a returned function gains no reference (RepoExec/48 counts them) and keeps nothing alive', async () => {
    const refs = task(
      'refs',
      'memoize',
      `import sys


def _fresh(fn):
    def g(x):
        return fn(x)
    return g


def test_0():
    assert sys.getrefcount(memoize(lambda x: x)) == sys.getrefcount(_fresh(lambda x: x))
    m = memoize(lambda x: x + 1)
    assert m(1) == 2
    assert sys.getrefcount(m) == sys.getrefcount(_fresh(lambda x: x)) + 1
`,
      MEMO_GOOD,
    );
    await passes(refs, MEMO_GOOD);
    // nor keeps what it holds alive once it is gone (its closure refers to itself here)
    const collected = task(
      'collected',
      'memoize',
      `import gc, weakref


class _Obj:
    pass


def test_0():
    o = _Obj()
    gone = weakref.ref(o)
    m = memoize(lambda x, o=o: x * 2)
    assert m(3) == 6
    del m, o
    gc.collect()
    assert gone() is None
`,
      SELF_REFERRING,
    );
    await passes(collected, SELF_REFERRING);
  }, 120_000);

  it('calls of returned functions are not counted as calls of the target', async () => {
    const v = await passes(counting, MEMO_GOOD);
    // memoize is called three times by the tests (m, m2, memoize(abs)); what it returned, twelve times.
    expect(v.target?.calls).toBe(3);
  }, 120_000);

  it('deep recursion through a returned function (the tests memoize their own recursive function)', async () => {
    const deep = task(
      'deep',
      'memoize',
      `def test_0():
    @memoize
    def down(n):
        return 0 if n == 0 else down(n - 1) + 1
    assert down(400) == 400
`,
      MEMO_GOOD,
    );
    await passes(deep, MEMO_GOOD);
  }, 120_000);
});
