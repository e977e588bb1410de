// Isolated verdicts, second pass (issue 44): a corpus per rule, in each task shape (a RepoExec-style check program, a
// repository under unittest, one under pytest where an interpreter has pytest), hostile and correct-but-unusual, and in
// both isolations where the rule applies to both.
//
// - Trust by origin: a name the candidate side sends resolves only to an object defined under that very name, never
//   through a trusted module's globals (its `import unittest`) into the test framework.
// - Control flow stays the tests': StopIteration, SystemExit, SkipTest … cross from the target only into a test where the
//   reference raised the same class.
// - Bounded decoding: depth counted over what is built (back-references included), parts and colliding hash keys
//   bounded; the test process survives whatever the candidate sends.

import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Task } from '../../main/model/task.ts';
import type { Verdict, VerdictIsolation } from '../../main/model/verdict.ts';
import { createValidator, type Validator } from '../../main/validate/validator.ts';
import { makeRepo } from '../helpers/tmp-repo.ts';
import { needsStrongSandbox } from '../helpers/system.ts';
import { PLACEHOLDER, pytestPython, templateTask, unittestIds } from './helpers.ts';

await needsStrongSandbox();

let validator: Validator;
let pyValidator: Validator | null = null;
const made: string[] = [];

beforeAll(async () => {
  validator = await createValidator({ validation: { timeoutFloorMs: 8000 }, concurrency: 2 });
  const python = pytestPython();
  if (python) {
    pyValidator = await createValidator({ sandbox: { mode: 'weak', setpriv: null, python }, validation: { timeoutFloorMs: 15_000 }, concurrency: 2 });
  }
});

afterAll(() => {
  validator?.close();
  pyValidator?.close();
  for (const d of made) fs.rmSync(d, { recursive: true, force: true });
});

// ---------------------------------------------------------------------------------------------------------------
// Task shapes: each task has a reference, so control flow is frozen from its own run.

/** A repository task under unittest: pkg/mod.py holds the reference (and `extra` files beside it). */
function unittestTask(id: string, reference: string, tests: string, extra: Record<string, string> = {}): Task {
  const qualname = /^(?:async )?def (\w+)/m.exec(reference)![1]!;
  const root = makeRepo({ 'pkg/__init__.py': '', 'pkg/mod.py': reference, 'tests/__init__.py': '', 'tests/test_mod.py': tests, ...extra }, 'oc-iso-rules-');
  made.push(root);
  return {
    id: `iso-rules/unittest-${id}`,
    repo: '.',
    repoPath: root,
    file: 'pkg/mod.py',
    qualname,
    requirement: qualname,
    signature: /^(?:async )?def [^\n]+:/m.exec(reference)![0],
    reference,
    test_command: 'python3 -m unittest tests.test_mod',
    tests: unittestIds('tests.test_mod', tests),
  };
}

/** The same repository under pytest (plain asserts), its test ids pytest's node ids. */
function pytestTask(id: string, reference: string, tests: string, extra: Record<string, string> = {}): Task {
  const qualname = /^(?:async )?def (\w+)/m.exec(reference)![1]!;
  const root = makeRepo({ 'pkg/__init__.py': '', 'pkg/mod.py': reference, 'tests/test_mod.py': tests, ...extra }, 'oc-iso-rules-');
  made.push(root);
  return {
    id: `iso-rules/pytest-${id}`,
    repo: '.',
    repoPath: root,
    file: 'pkg/mod.py',
    qualname,
    requirement: qualname,
    signature: /^(?:async )?def [^\n]+:/m.exec(reference)![0],
    reference,
    test_command: 'python3 -m pytest -q -p no:cacheprovider tests/test_mod.py',
  };
}

/** A check program (RepoExec-inline): `prelude` before the placeholder, `tests` (def test_…) after it. */
function programTask(id: string, reference: string, prelude: string, tests: string): Task {
  const qualname = /^(?:async )?def (\w+)/m.exec(reference)![1]!;
  return templateTask(`iso-rules/program-${id}`, `import sys, os, json\nfrom typing import *\n${prelude}\n${PLACEHOLDER}\n\n${tests}`, {
    qualname,
    signature: /^def [^\n]+:/m.exec(reference)![0],
    reference,
    tests: [...tests.matchAll(/^def (test_\w+)/gm)].map((m) => m[1]!),
  });
}

async function judge(v: Validator, task: Task, codes: Record<string, string>, isolation: VerdictIsolation): Promise<Record<string, Verdict>> {
  const entries = await Promise.all(Object.entries(codes).map(async ([name, code]) => [name, await v.validate(task, code, { isolation })] as const));
  return Object.fromEntries(entries);
}

const show = (task: Task, name: string, v: Verdict) =>
  `${task.id} ${name} (${v.isolation}): ${v.status}: ${v.reason}\n${v.tests.map((t) => `  ${t.id} ${t.outcome} ${t.message?.slice(-300) ?? ''}`).join('\n')}`;

/** Every hostile candidate fails (never passed, never an error of the test process's own making). */
async function hostile(v: Validator, task: Task, codes: Record<string, string>, isolation: VerdictIsolation, want: RegExp): Promise<Record<string, Verdict>> {
  const got = await judge(v, task, codes, isolation);
  for (const [name, verdict] of Object.entries(got)) {
    expect.soft(verdict.isolation, show(task, name, verdict)).toBe(isolation);
    expect.soft(verdict.status, show(task, name, verdict)).toBe('failed');
    expect.soft(`${verdict.reason}\n${verdict.tests.map((t) => t.message ?? '').join('\n')}`, show(task, name, verdict)).toMatch(want);
  }
  return got;
}

async function correct(v: Validator, task: Task, codes: Record<string, string>, isolation: VerdictIsolation): Promise<void> {
  const got = await judge(v, task, codes, isolation);
  for (const [name, verdict] of Object.entries(got)) {
    expect.soft(verdict.isolation, show(task, name, verdict)).toBe(isolation);
    expect.soft(verdict.status, show(task, name, verdict)).toBe('passed');
  }
}

/** A candidate that rewrites what its own process's codec sends for every answer (the candidate owns that codec). */
const wire = (node: string, body = 'return 1') => String.raw`import sys
_b = sys.modules["_opencoder_bridge"]
_orig = _b.CandidateSide._reply


def _reply(self, q, body):
    body = _orig(self, q, body)
    if "ok" in body or "exc" in body:
        body.pop("ok", None)
        body.pop("tb", None)
        body["exc" if ${node}[0] == "x" else "ok"] = ${node}
    return body


_b.CandidateSide._reply = _reply


def is_valid(x):
    ${body}
`;

// ---------------------------------------------------------------------------------------------------------------
// Control flow

const IS_VALID = 'def is_valid(x):\n    """Whether x is a positive number."""\n    return x > 0\n';
const IS_VALID_TESTS = `import unittest
from pkg.mod import is_valid
from pkg import support  # noqa: F401 (the repository's helpers for its users' tests)

GOOD = [1, 2, 3.5]
BAD = [0, -1, -7]


class T(unittest.TestCase):
    def test_good(self):
        self.assertTrue(all(map(is_valid, GOOD)))

    def test_bad(self):
        self.assertFalse(any(map(is_valid, BAD)))

    def test_each(self):
        self.assertEqual([is_valid(x) for x in GOOD + BAD], [True] * 3 + [False] * 3)
`;
const IS_VALID_PYTEST = `from pkg.mod import is_valid
from pkg import support  # noqa: F401

GOOD = [1, 2, 3.5]
BAD = [0, -1, -7]


def test_good():
    assert all(map(is_valid, GOOD))


def test_bad():
    assert not any(map(is_valid, BAD))
`;
const IS_VALID_PROGRAM = `GOOD = [1, 2, 3.5]
BAD = [0, -1, -7]


def test_good():
    assert all(map(is_valid, GOOD))


def test_bad():
    assert not any(map(is_valid, BAD))
`;
// A repository helper module for its users' tests: it imports unittest, so a walk through its globals reaches unittest.
const SUPPORT = 'import unittest\n\n\nclass Skip(unittest.SkipTest):\n    """Raised to skip a check."""\n\n\nclass CheckCase(unittest.TestCase):\n    pass\n';

/** Wrong candidates that raise control flow into the tests' own loops and outcomes. */
const FLOW_ATTACKS = {
  stopIteration: 'def is_valid(x):\n    if x > 0:\n        return True\n    raise StopIteration\n',
  stopAlways: 'def is_valid(x):\n    raise StopIteration\n',
  skip: 'import unittest\n\n\ndef is_valid(x):\n    raise unittest.SkipTest("not today")\n',
  repoSkip: 'from pkg.support import Skip\n\n\ndef is_valid(x):\n    raise Skip("not today")\n',
  systemExit: 'def is_valid(x):\n    raise SystemExit(0)\n',
  generatorExit: 'def is_valid(x):\n    raise GeneratorExit\n',
};
/** The same, sent as wire names by a candidate that owns its codec: trust by origin. */
const ORIGIN_ATTACKS = {
  shouldStopThroughGlobals: wire('["x", 0, [["pkg.support", "unittest.case._ShouldStop"]], [], []]'),
  skipThroughGlobals: wire('["x", 0, [["pkg.support", "unittest.SkipTest"]], [], []]'),
  stopIterationByName: wire('["x", 0, [["builtins", "StopIteration"]], [], []]', 'return x > 0'),
  classThroughGlobals: wire('["n", "pkg.support", "unittest.case.TestCase"]'),
  functionThroughGlobals: wire('["n", "pkg.support", "unittest.main"]'),
  instanceThroughGlobals: wire('["o", 0, "pkg.support", "unittest.mock.Mock", null, []]'),
};

// The reference itself raises StopIteration where the tests expect it: the same crosses for a candidate there.
const FIRST = 'def first(xs):\n    """The first item of xs; StopIteration when there is none."""\n    return next(iter(xs))\n';
const FIRST_TESTS = `import unittest
from pkg.mod import first


class T(unittest.TestCase):
    def test_first(self):
        self.assertEqual(first([3, 4]), 3)

    def test_empty(self):
        with self.assertRaises(StopIteration):
            first([])

    def test_loop(self):
        self.assertEqual(list(map(first, [[1], [2, 3]])), [1, 2])
`;
const FIRST_OK = {
  loop: 'def first(xs):\n    for x in xs:\n        return x\n    raise StopIteration\n',
  iterator: 'def first(xs):\n    it = iter(xs)\n    return it.__next__()\n',
};

describe("control flow stays the tests'", () => {
  it('fails a target that raises StopIteration, SkipTest or SystemExit into tests where the reference raised none (unittest, both isolations)', async () => {
    const task = unittestTask('flow', IS_VALID, IS_VALID_TESTS, { 'pkg/support.py': SUPPORT });
    for (const isolation of ['isolated', 'in-process'] as const) {
      const got = await hostile(validator, task, FLOW_ATTACKS, isolation, /control flow|SkipTest|StopIteration|SystemExit|GeneratorExit|cannot cross/);
      // The StopIteration ones fail because of the rule, named: the tests alone would have passed them.
      for (const name of ['stopIteration', 'stopAlways'] as const) {
        expect
          .soft(got[name]!.reason, show(task, name, got[name]!))
          .toMatch(/raised builtins\.StopIteration in tests\.test_mod\.T\.test_(good|bad).*reference raised none/);
        expect.soft(got[name]!.sandbox.events.map((e) => e.kind)).toContain('control-flow');
      }
    }
  });

  it('fails the same attacks in a check program and under pytest', async () => {
    const program = programTask('flow', IS_VALID, '', IS_VALID_PROGRAM);
    for (const isolation of ['isolated', 'in-process'] as const) {
      await hostile(validator, program, { stopIteration: FLOW_ATTACKS.stopIteration, systemExit: FLOW_ATTACKS.systemExit }, isolation, /control flow/);
    }
    if (!pyValidator) return;
    const py = pytestTask('flow', IS_VALID, IS_VALID_PYTEST, { 'pkg/support.py': SUPPORT });
    for (const isolation of ['isolated', 'in-process'] as const) {
      await hostile(pyValidator, py, { stopIteration: FLOW_ATTACKS.stopIteration, stopAlways: FLOW_ATTACKS.stopAlways }, isolation, /control flow/);
    }
  });

  it("applies the rule to what the target returned, isolated: a method of the candidate's object raising StopIteration", async () => {
    const ref =
      'class Checker:\n    def check(self, x):\n        return x > 0\n\n\ndef checker():\n    """An object whose check(x) says whether x is positive."""\n    return Checker()\n';
    const tests = T(
      'T',
      '    def test_good(self):\n        self.assertTrue(all(map(checker().check, [1, 2])))\n\n    def test_bad(self):\n        self.assertFalse(any(map(checker().check, [0, -1])))\n',
      'from pkg.mod import checker',
    );
    const task = unittestTask('flow-proxy', ref, tests);
    expect(await validator.referenceCheck(task)).toMatchObject({ passes: true, isolation: 'isolated' });
    const own =
      'class Mine:\n    def check(self, x):\n        if x > 0:\n            return True\n        raise StopIteration\n\n\ndef checker():\n    return Mine()\n';
    // Isolated only: in-process, methods of an object the target returned are the candidate's own code, unchecked
    // (docs/validation.md, what in-process cannot promise).
    await hostile(validator, task, { own }, 'isolated', /raised builtins\.StopIteration in tests\.test_mod\.T\.test_bad/);
    await correct(validator, task, { own: own.replace('raise StopIteration', 'return False') }, 'isolated');
  });

  it("a returned builtin iterator's bound __next__ is a proxy: its StopIteration is control flow too", async () => {
    const ref =
      'def make_stepper():\n    """A function returning 1, 2, 3 … on successive calls."""\n    n = [0]\n\n    def step():\n        n[0] += 1\n        return n[0]\n    return step\n';
    const tests = T(
      'T',
      '    def test_steps(self):\n        step = make_stepper()\n        self.assertTrue(all(map(lambda n: step() == n, [1, 2, 3, 4, 5])))\n',
      'from pkg.mod import make_stepper',
    );
    const task = unittestTask('stepper', ref, tests);
    await hostile(
      validator,
      task,
      {
        listNext: 'def make_stepper():\n    return iter([1]).__next__\n',
        generatorNext: 'def make_stepper():\n    def g():\n        yield 1\n    return g().__next__\n',
        onObject: 'class S:\n    def __init__(self):\n        self.step = iter([1]).__next__\n\n\ndef make_stepper():\n    return S().step\n',
      },
      'isolated',
      /StopIteration in tests\.test_mod\.T\.test_steps/,
    );
    await correct(validator, task, { countNext: 'import itertools\n\n\ndef make_stepper():\n    return itertools.count(1).__next__\n' }, 'isolated');
  });

  it('lets control flow cross where the reference raised the same class in the same test', async () => {
    const task = unittestTask('first', FIRST, FIRST_TESTS);
    const check = await validator.referenceCheck(task);
    expect(check.controlFlow).toEqual({ 'tests.test_mod.T.test_empty': ['builtins.StopIteration'] });
    for (const isolation of ['isolated', 'in-process'] as const) await correct(validator, task, FIRST_OK, isolation);
    // ... and only there: raised into test_loop (where the reference raised none) it fails.
    const early = 'def first(xs):\n    if len(xs) > 1:\n        raise StopIteration\n    return xs[0] if xs else next(iter(xs))\n';
    await hostile(validator, task, { early }, 'isolated', /StopIteration in tests\.test_mod\.T\.test_loop/);
  });
});

describe('trust by origin', () => {
  it("never resolves a name through a trusted module's globals into the test framework", async () => {
    const task = unittestTask('origin', IS_VALID, IS_VALID_TESTS, { 'pkg/support.py': SUPPORT });
    const got = await hostile(validator, task, ORIGIN_ATTACKS, 'isolated', /control flow|could not cross|did not pass/);
    // The walk used to hand out unittest.case._ShouldStop, which unittest swallows: every test recorded success.
    expect.soft(got.shouldStopThroughGlobals!.tests.some((t) => t.outcome === 'passed' && t.id.endsWith('test_bad'))).toBe(false);
    expect.soft(got.stopIterationByName!.reason).toMatch(/StopIteration.*reference raised none/);
  });

  it('still rebuilds what a repository module defines itself, a class nested in a class included', async () => {
    const shapes =
      'class Shape:\n    class Corner:\n        def __init__(self, x):\n            self.x = x\n\n        def __eq__(self, o):\n            return type(o) is type(self) and o.x == self.x\n\n\n';
    const ref = `${shapes}def corner(x):\n    return Shape.Corner(x)\n`;
    const tests =
      'import unittest\nfrom pkg.mod import Shape, corner\n\n\nclass T(unittest.TestCase):\n    def test_corner(self):\n        self.assertEqual(corner(2), Shape.Corner(2))\n        self.assertIs(type(corner(3)), Shape.Corner)\n';
    const task = unittestTask('nested', ref, tests);
    await correct(validator, task, { same: ref, other: `${shapes}def corner(x):\n    c = Shape.Corner(0)\n    c.x = x\n    return c\n` }, 'isolated');
  });
});

describe("the candidate's own function is what is judged", () => {
  it('even where its module rebinds the name after it (an accelerator, as bisect.py imports _bisect)', async () => {
    const mod =
      'def double(x):\n    """Twice x."""\n    return x + x\n\n\ntry:\n    from pkg._fast import double  # noqa: F811\nexcept ImportError:\n    pass\n';
    const tests = T(
      'T',
      '    def test_pure(self):\n        sys.modules["pkg._fast"] = None\n        sys.modules.pop("pkg.mod", None)\n        try:\n            import pkg.mod as m\n            self.assertEqual([m.double(3), m.double("ab")], [6, "abab"])\n        finally:\n            del sys.modules["pkg._fast"]\n',
      'import sys',
    );
    const task = unittestTask('accelerated', mod, tests, { 'pkg/_fast.py': 'def double(x):\n    return x * 2\n' });
    expect(await validator.referenceCheck(task)).toMatchObject({ passes: true, isolation: 'isolated' });
    const got = await judge(
      validator,
      task,
      { stub: 'def double(x):\n    raise NotImplementedError\n', wrong: 'def double(x):\n    return x * 3\n' },
      'isolated',
    );
    for (const [name, v] of Object.entries(got)) expect.soft(v.status, show(task, name, v)).toBe('failed');
    await correct(validator, task, { cached: 'import functools\n\n\n@functools.lru_cache(maxsize=None)\ndef double(x):\n    return 2 * x\n' }, 'isolated');
  });
});

describe('the target file as Python reads it', () => {
  it('a latin-1 module with its coding line and a UTF-8 module with a BOM: references pass and stubs fail, both isolations', async () => {
    const body = 'def greet(name):\n    """A greeting."""\n    return GREETING + name\n';
    const prelude = 'GREETING = "Grüß dich, "\n\n\n';
    const tests = T('T', '    def test_greet(self):\n        self.assertEqual(greet("Zoë"), "Grüß dich, Zoë")\n', 'from pkg.mod import greet');
    const latin1 = unittestTask('latin1', body, tests);
    fs.writeFileSync(`${latin1.repoPath}/pkg/mod.py`, Buffer.from(`# -*- coding: latin-1 -*-\n${prelude}${body}`, 'latin1'));
    const bom = unittestTask('bom', body, tests);
    fs.writeFileSync(`${bom.repoPath}/pkg/mod.py`, Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(`${prelude}${body}`, 'utf8')]));
    for (const task of [latin1, bom]) {
      expect(await validator.referenceCheck(task)).toMatchObject({ passes: true, isolation: 'isolated' });
      for (const isolation of ['isolated', 'in-process'] as const) {
        await correct(validator, task, { ref: body, other: 'def greet(name):\n    return "%s%s" % (GREETING, name)\n' }, isolation);
        const stub = await judge(validator, task, { stub: 'def greet(name):\n    raise NotImplementedError\n' }, isolation);
        expect.soft(stub.stub!.status, show(task, 'stub', stub.stub!)).toBe('failed');
      }
    }
  });
});

describe('bounded decoding', () => {
  // Built once, when the candidate's module loads: the candidate side's own time is not what is tested.
  const N = 600_000;
  const deepTuple = `_NODE`;
  const deep = `_NODE = ["l", 0, [["t", 1, [1]]] + [["t", k + 1, [["r", k]]] for k in range(1, ${N})] + [["fs", ${N + 1}, [["r", ${N}]]]]]\n`;
  const collide = `_NODE = ["s", 0, [["i", "%x" % (((1 << 61) - 1) * k)] for k in range(1, 200000)]]\n`;

  it('fails a message that rebuilds a 600,000-deep value from back-references, or keys whose hashes collide, and the tests live on', async () => {
    const task = unittestTask('bounds', IS_VALID, IS_VALID_TESTS, { 'pkg/support.py': SUPPORT });
    const codes = { deepTuple: deep + wire(deepTuple), collide: collide + wire(deepTuple) };
    const got = Object.fromEntries(
      await Promise.all(
        Object.entries(codes).map(async ([name, code]) => [name, await validator.validate(task, code, { isolation: 'isolated', timeoutMs: 60_000 })] as const),
      ),
    );
    for (const [name, v] of Object.entries(got)) {
      expect.soft(v.status, show(task, name, v)).toBe('failed');
      expect.soft(v.reason, show(task, name, v)).toMatch(/nested more than 1[56]0 levels|distinct hashes/);
      // Failed by the bound, not killed: the test process sent its final report.
      expect.soft(v.exit.signal, show(task, name, v)).toBeNull();
      expect.soft(v.sandbox.events.map((e) => e.kind)).toContain('crossing');
    }
  });
});

// ---------------------------------------------------------------------------------------------------------------
// Correct but unusual: standard-library values, the candidate's own objects as proxies, iterators that keep their
// identity, the tests' own objects compared on their side. Each task's reference is validated isolated too.

interface Case {
  task: () => Task;
  right: Record<string, string>;
  wrong: Record<string, string>;
}

const T = (cls: string, body: string, imports = '') => `import unittest\n${imports}\n\n\nclass ${cls}(unittest.TestCase):\n${body}`;

const CASES: Record<string, Case> = {
  zoneinfo: {
    task: () =>
      unittestTask(
        'zoneinfo',
        'import datetime\nimport zoneinfo\n\n\ndef utc_midnight(y, m, d):\n    return datetime.datetime(y, m, d, tzinfo=zoneinfo.ZoneInfo("UTC"))\n',
        T(
          'T',
          '    def test_value(self):\n        self.assertEqual(utc_midnight(2020, 1, 2), datetime.datetime(2020, 1, 2, tzinfo=datetime.timezone.utc))\n\n    def test_offset(self):\n        self.assertEqual(utc_midnight(2021, 6, 1).utcoffset(), datetime.timedelta(0))\n\n    def test_paris(self):\n        r = utc_midnight(2021, 6, 1).astimezone(zoneinfo.ZoneInfo("Europe/Paris"))\n        self.assertEqual(r.hour, 2)\n',
          'import datetime\nimport zoneinfo\nfrom pkg.mod import utc_midnight',
        ),
      ),
    right: {
      zoneUtc:
        'import datetime\nfrom zoneinfo import ZoneInfo\n\n\ndef utc_midnight(y, m, d):\n    return datetime.datetime(y, m, d, tzinfo=ZoneInfo("UTC"))\n',
      etcUtc: 'import datetime\nimport zoneinfo\n\n\ndef utc_midnight(y, m, d):\n    return datetime.datetime(y, m, d, tzinfo=zoneinfo.ZoneInfo("Etc/UTC"))\n',
      timezoneUtc: 'import datetime\n\n\ndef utc_midnight(y, m, d):\n    return datetime.datetime(y, m, d, tzinfo=datetime.timezone.utc)\n',
      zeroOffset:
        'import datetime\n\n\ndef utc_midnight(y, m, d):\n    return datetime.datetime(y, m, d, tzinfo=datetime.timezone(datetime.timedelta(0), "Z"))\n',
    },
    wrong: {
      naive: 'import datetime\n\n\ndef utc_midnight(y, m, d):\n    return datetime.datetime(y, m, d)\n',
      paris:
        'import datetime\nimport zoneinfo\n\n\ndef utc_midnight(y, m, d):\n    return datetime.datetime(y, m, d, tzinfo=zoneinfo.ZoneInfo("Europe/Paris"))\n',
    },
  },
  array: {
    task: () =>
      unittestTask(
        'array',
        'import array\n\n\ndef to_array(xs):\n    return array.array("i", xs)\n',
        T(
          'T',
          '    def test_list(self):\n        self.assertEqual(list(to_array([1, 2, 3])), [1, 2, 3])\n\n    def test_sum(self):\n        self.assertEqual(sum(to_array(range(5))), 10)\n\n    def test_bytes(self):\n        self.assertEqual(len(to_array([7]).tobytes()), array.array("i").itemsize)\n',
          'import array\nfrom pkg.mod import to_array',
        ),
      ),
    right: {
      fromList: 'import array\n\n\ndef to_array(xs):\n    out = array.array("i")\n    out.fromlist(list(xs))\n    return out\n',
      appended: 'from array import array\n\n\ndef to_array(xs):\n    a = array("i")\n    for x in xs:\n        a.append(x)\n    return a\n',
    },
    wrong: { reversed: 'import array\n\n\ndef to_array(xs):\n    return array.array("i", reversed(list(xs)))\n' },
  },
  values: {
    task: () =>
      unittestTask(
        'values',
        'import fractions\nimport ipaddress\nimport types\n\n\ndef describe(a, b, host):\n    return types.SimpleNamespace(ratio=fractions.Fraction(a, b), ip=ipaddress.ip_address(host), pair=(a, b))\n',
        T(
          'T',
          '    def test_ratio(self):\n        self.assertEqual(describe(1, 3, "10.0.0.1").ratio, fractions.Fraction(1, 3))\n\n    def test_ip(self):\n        r = describe(2, 4, "::1")\n        self.assertEqual(r.ip, ipaddress.ip_address("::1"))\n        self.assertTrue(r.ip.is_loopback)\n\n    def test_vars(self):\n        self.assertEqual(vars(describe(1, 2, "10.0.0.2")), {"ratio": fractions.Fraction(1, 2), "ip": ipaddress.IPv4Address("10.0.0.2"), "pair": (1, 2)})\n',
          'import fractions\nimport ipaddress\nfrom pkg.mod import describe',
        ),
      ),
    right: {
      attrs:
        'import fractions\nimport ipaddress\nfrom types import SimpleNamespace\n\n\ndef describe(a, b, host):\n    ns = SimpleNamespace()\n    ns.ratio = fractions.Fraction(a) / b\n    ns.ip = ipaddress.IPv6Address(host) if ":" in host else ipaddress.IPv4Address(host)\n    ns.pair = (a, b)\n    return ns\n',
      fromStr:
        'import fractions\nimport ipaddress\nimport types\n\n\ndef describe(a, b, host):\n    return types.SimpleNamespace(ratio=fractions.Fraction("%d/%d" % (a, b)), ip=ipaddress.ip_interface(host).ip, pair=(a, b))\n',
    },
    wrong: {
      float:
        'import ipaddress\nimport types\n\n\ndef describe(a, b, host):\n    return types.SimpleNamespace(ratio=a / b, ip=ipaddress.ip_address(host), pair=(a, b))\n',
    },
  },
  ownIterator: {
    task: () =>
      unittestTask(
        'own-iterator',
        'import itertools\n\n\ndef repeat_last(xs):\n    """The items of xs, then its last item forever."""\n    return itertools.chain(xs, itertools.repeat(xs[-1]))\n',
        T(
          'T',
          '    def test_head(self):\n        self.assertEqual(list(itertools.islice(repeat_last([1, 2, 3]), 6)), [1, 2, 3, 3, 3, 3])\n\n    def test_next(self):\n        it = repeat_last(["a"])\n        self.assertIs(iter(it), it)\n        self.assertEqual([next(it), next(it)], ["a", "a"])\n\n    def test_zip(self):\n        self.assertEqual(list(zip(range(4), repeat_last([9, 8]))), [(0, 9), (1, 8), (2, 8), (3, 8)])\n',
          'import itertools\nfrom pkg.mod import repeat_last',
        ),
      ),
    right: {
      ownClass:
        'class _Last:\n    def __init__(self, xs):\n        self.xs = list(xs)\n        self.i = 0\n\n    def __iter__(self):\n        return self\n\n    def __next__(self):\n        v = self.xs[min(self.i, len(self.xs) - 1)]\n        self.i += 1\n        return v\n\n\ndef repeat_last(xs):\n    return _Last(xs)\n',
      generator: 'def repeat_last(xs):\n    yield from xs\n    while True:\n        yield xs[-1]\n',
      ownClassWithPeek:
        'class Peekable:\n    def __init__(self, xs):\n        self.xs, self.i = xs, 0\n\n    def peek(self):\n        return self.xs[min(self.i, len(self.xs) - 1)]\n\n    def __iter__(self):\n        return self\n\n    def __next__(self):\n        v = self.peek()\n        self.i += 1\n        return v\n\n\ndef repeat_last(xs):\n    return Peekable(xs)\n',
    },
    wrong: {
      stops: 'def repeat_last(xs):\n    return iter(xs)\n',
      first:
        'class _First:\n    def __init__(self, xs):\n        self.xs, self.i = xs, 0\n\n    def __iter__(self):\n        return self\n\n    def __next__(self):\n        self.i += 1\n        return self.xs[self.i - 1] if self.i <= len(self.xs) else self.xs[0]\n\n\ndef repeat_last(xs):\n    return _First(xs)\n',
    },
  },
  partition: {
    task: () =>
      unittestTask(
        'partition',
        'import itertools\n\n\ndef partition(pred, xs):\n    """(items where pred is false, items where it is true), as two iterators."""\n    a, b = itertools.tee(xs)\n    return itertools.filterfalse(pred, a), filter(pred, b)\n',
        T(
          'T',
          '    def test_both(self):\n        odd = lambda x: x % 2\n        evens, odds = partition(odd, range(6))\n        self.assertEqual((list(evens), list(odds)), ([0, 2, 4], [1, 3, 5]))\n\n    def test_unread_then_again(self):\n        evens, odds = partition(lambda x: x > 2, [1, 2, 3, 4])\n        self.assertEqual(next(evens), 1)\n        small, big = partition(lambda x: x > 10, [5, 50])\n        self.assertEqual(list(small), [5])\n        self.assertEqual(list(big), [50])\n        self.assertEqual(list(odds), [3, 4])\n\n    def test_interleaved(self):\n        lo, hi = partition(lambda x: x >= 5, range(10))\n        self.assertEqual([next(lo), next(hi), next(lo), next(hi)], [0, 5, 1, 6])\n',
          'from pkg.mod import partition',
        ),
      ),
    right: {
      lists: 'def partition(pred, xs):\n    xs = list(xs)\n    return iter([x for x in xs if not pred(x)]), iter([x for x in xs if pred(x)])\n',
      generators:
        'def partition(pred, xs):\n    xs = list(xs)\n\n    def pick(want):\n        for x in xs:\n            if bool(pred(x)) is want:\n                yield x\n    return pick(False), pick(True)\n',
      ownClass:
        'class Side:\n    def __init__(self, xs, pred, want):\n        self.it = iter(list(xs))\n        self.pred, self.want = pred, want\n\n    def __iter__(self):\n        return self\n\n    def __next__(self):\n        for x in self.it:\n            if bool(self.pred(x)) is self.want:\n                return x\n        raise StopIteration\n\n\ndef partition(pred, xs):\n    xs = list(xs)\n    return Side(xs, pred, False), Side(xs, pred, True)\n',
    },
    wrong: { swapped: 'def partition(pred, xs):\n    xs = list(xs)\n    return iter([x for x in xs if pred(x)]), iter([x for x in xs if not pred(x)])\n' },
  },
  groups: {
    task: () =>
      unittestTask(
        'groups',
        'import itertools\n\n\ndef runs(xs, key=None):\n    """Consecutive runs of xs with equal keys: (key, an iterator over the run)."""\n    return itertools.groupby(xs, key)\n',
        T(
          'T',
          '    def test_runs(self):\n        self.assertEqual([(k, list(g)) for k, g in runs("aabccc")], [("a", ["a", "a"]), ("b", ["b"]), ("c", ["c", "c", "c"])])\n\n    def test_key(self):\n        self.assertEqual([(k, len(list(g))) for k, g in runs([1, 3, 2, 4, 5], key=lambda x: x % 2)], [(1, 2), (0, 2), (1, 1)])\n\n    def test_skipped_group_is_spent(self):\n        it = runs("aab")\n        k1, g1 = next(it)\n        k2, g2 = next(it)\n        self.assertEqual((k1, list(g1), k2, list(g2)), ("a", [], "b", ["b"]))\n',
          'from pkg.mod import runs',
        ),
      ),
    right: {
      alias: 'from itertools import groupby as runs\n',
      wrapped: 'import itertools\n\n\ndef runs(xs, key=None):\n    for k, g in itertools.groupby(xs, key):\n        yield k, g\n',
    },
    wrong: {
      listed: 'import itertools\n\n\ndef runs(xs, key=None):\n    return [(k, iter(list(g))) for k, g in itertools.groupby(xs, key)]\n',
    },
  },
  take: {
    task: () =>
      unittestTask(
        'take',
        'import itertools\n\n\ndef take(n, it):\n    """The first n items of it, as a list (no more are taken from it)."""\n    return list(itertools.islice(it, n))\n',
        T(
          'T',
          '    def test_count(self):\n        c = itertools.count()\n        self.assertEqual(take(2, c), [0, 1])\n        self.assertEqual(next(c), 2)\n\n    def test_generator(self):\n        def gen():\n            yield from "abcdef"\n        g = gen()\n        self.assertEqual(take(3, g), ["a", "b", "c"])\n        self.assertEqual("".join(g), "def")\n\n    def test_short(self):\n        self.assertEqual(take(5, iter([1])), [1])\n',
          'import itertools\nfrom pkg.mod import take',
        ),
      ),
    right: {
      loop: 'def take(n, it):\n    out = []\n    for x in it:\n        if len(out) == n:\n            break\n        out.append(x)\n        if len(out) == n:\n            break\n    return out\n',
      nexts:
        'def take(n, it):\n    out = []\n    it = iter(it)\n    for _ in range(n):\n        try:\n            out.append(next(it))\n        except StopIteration:\n            break\n    return out\n',
    },
    wrong: {
      greedy: 'def take(n, it):\n    out = []\n    for x in it:\n        out.append(x)\n        if len(out) > n:\n            break\n    return out[:n]\n',
    },
  },
  sortHandles: {
    task: () =>
      unittestTask(
        'sort-handles',
        'def smallest_two(xs):\n    """The two smallest items of xs, in order."""\n    return sorted(xs)[:2]\n',
        T(
          'T',
          '    def test_versions(self):\n        vs = [Version(3, 1), Version(1, 2), Version(2, 0)]\n        self.assertEqual(smallest_two(vs), [vs[1], vs[2]])\n        self.assertIs(smallest_two(vs)[0], vs[1])\n\n    def test_plain(self):\n        self.assertEqual(smallest_two([5, 1, 3]), [1, 3])\n',
          'import functools\nfrom pkg.mod import smallest_two\n\n\n@functools.total_ordering\nclass Version:\n    def __init__(self, major, minor):\n        self.v = (major, minor)\n\n    def __eq__(self, other):\n        return isinstance(other, Version) and self.v == other.v\n\n    def __lt__(self, other):\n        return self.v < other.v\n\n    def __hash__(self):\n        return hash(self.v)',
        ),
      ),
    right: {
      minTwice: 'def smallest_two(xs):\n    xs = list(xs)\n    a = min(xs)\n    xs.remove(a)\n    return [a, min(xs)] if xs else [a]\n',
      heap: 'import heapq\n\n\ndef smallest_two(xs):\n    return heapq.nsmallest(2, xs)\n',
      manual: 'def smallest_two(xs):\n    out = []\n    for x in xs:\n        out.append(x)\n        out.sort()\n        del out[2:]\n    return out\n',
      setOfThem: 'def smallest_two(xs):\n    seen = set(xs)\n    return sorted(x for x in xs if x in seen)[:2]\n',
    },
    wrong: { largest: 'def smallest_two(xs):\n    return sorted(xs, reverse=True)[:2]\n' },
  },
  classes: {
    task: () =>
      unittestTask(
        'classes',
        'def of_type(xs, cls):\n    """The items of xs that are instances of cls, and one more made by calling cls()."""\n    return [x for x in xs if isinstance(x, cls)] + [cls()]\n',
        T(
          'T',
          '    def test_own(self):\n        a, b = Box(), Box()\n        out = of_type([a, 1, b, "x"], Box)\n        self.assertEqual(out[:2], [a, b])\n        self.assertIsInstance(out[2], Box)\n\n    def test_sub(self):\n        s = SubBox()\n        out = of_type([Box(), s], SubBox)\n        self.assertIs(out[0], s)\n        self.assertEqual(len(out), 2)\n\n    def test_builtin(self):\n        self.assertEqual(of_type([1, "a", 2.0], int), [1, 0])\n',
          'from pkg.mod import of_type\n\n\nclass Box:\n    pass\n\n\nclass SubBox(Box):\n    pass',
        ),
      ),
    right: {
      filtered: 'def of_type(xs, cls):\n    return list(filter(lambda x: isinstance(x, cls), xs)) + [cls()]\n',
      subclassCheck:
        'def of_type(xs, cls):\n    out = [x for x in xs if issubclass(type(x), cls) or isinstance(x, cls)]\n    out.append(cls())\n    return out\n',
    },
    wrong: { exactType: 'def of_type(xs, cls):\n    return [x for x in xs if type(x) is int] + [cls()]\n' },
  },
  sequence: {
    task: () =>
      unittestTask(
        'sequence',
        'def squares(n):\n    """A sequence of the first n squares (len, indexing, iteration)."""\n    return [i * i for i in range(n)]\n',
        T(
          'T',
          '    def test_len(self):\n        self.assertEqual(len(squares(4)), 4)\n\n    def test_index(self):\n        self.assertEqual(squares(5)[3], 9)\n\n    def test_iter(self):\n        self.assertEqual(list(squares(3)), [0, 1, 4])\n        self.assertIn(4, squares(3))\n',
          'from pkg.mod import squares',
        ),
      ),
    right: {
      lazyClass:
        'class Squares:\n    def __init__(self, n):\n        self.n = n\n\n    def __len__(self):\n        return self.n\n\n    def __getitem__(self, i):\n        if not 0 <= i < self.n:\n            raise IndexError(i)\n        return i * i\n\n\ndef squares(n):\n    return Squares(n)\n',
      rangeMap:
        'class S:\n    def __init__(self, n):\n        self.r = range(n)\n\n    def __len__(self):\n        return len(self.r)\n\n    def __getitem__(self, i):\n        return self.r[i] ** 2\n\n    def __iter__(self):\n        return (i * i for i in self.r)\n\n    def __contains__(self, v):\n        return any(i * i == v for i in self.r)\n\n\ndef squares(n):\n    return S(n)\n',
      tuple: 'def squares(n):\n    return tuple(i ** 2 for i in range(n))\n',
    },
    wrong: { cubes: 'def squares(n):\n    return [i ** 3 for i in range(n)]\n' },
  },
  functions: {
    task: () =>
      unittestTask(
        'functions',
        'def adder(n):\n    """A function that adds n to its argument."""\n    return lambda x: x + n\n',
        T(
          'T',
          '    def test_call(self):\n        self.assertEqual(adder(2)(3), 5)\n\n    def test_map(self):\n        self.assertEqual(list(map(adder(1), [1, 2])), [2, 3])\n\n    def test_callable(self):\n        self.assertTrue(callable(adder(0)))\n',
          'from pkg.mod import adder',
        ),
      ),
    right: {
      partial: 'import functools\nimport operator\n\n\ndef adder(n):\n    return functools.partial(operator.add, n)\n',
      callableClass:
        'class Add:\n    def __init__(self, n):\n        self.n = n\n\n    def __call__(self, x):\n        return x + self.n\n\n\ndef adder(n):\n    return Add(n)\n',
      closure: 'def adder(n):\n    def add(x):\n        return n + x\n    return add\n',
    },
    wrong: { subtract: 'def adder(n):\n    return lambda x: x - n\n' },
  },
  methods: {
    task: () =>
      unittestTask(
        'methods',
        'class Counter:\n    def __init__(self):\n        self.value = 0\n\n    def incr(self, by=1):\n        self.value += by\n        return self.value\n\n\ndef counter():\n    """A new counter: .incr(by=1) adds and returns the total, .value reads it."""\n    return Counter()\n',
        T(
          'T',
          '    def test_incr(self):\n        c = counter()\n        self.assertEqual(c.incr(), 1)\n        self.assertEqual(c.incr(by=5), 6)\n        self.assertEqual(c.value, 6)\n\n    def test_fresh(self):\n        self.assertEqual(counter().value, 0)\n',
          'from pkg.mod import counter',
        ),
      ),
    right: {
      ownClass:
        'class Tally:\n    def __init__(self):\n        self.value = 0\n\n    def incr(self, by=1):\n        self.value = self.value + by\n        return self.value\n\n\ndef counter():\n    return Tally()\n',
      slots:
        'class Tally:\n    __slots__ = ("value",)\n\n    def __init__(self):\n        self.value = 0\n\n    def incr(self, by=1):\n        self.value += by\n        return self.value\n\n\ndef counter():\n    return Tally()\n',
    },
    wrong: {
      noKeyword:
        'class Tally:\n    def __init__(self):\n        self.value = 0\n\n    def incr(self, by=1):\n        self.value += 1\n        return self.value\n\n\ndef counter():\n    return Tally()\n',
    },
  },
  aliasing: {
    task: () =>
      unittestTask(
        'aliasing',
        'def shared(n):\n    """(a list, the same list again, a list holding itself, a dict view of a dict holding n)."""\n    xs = [n]\n    loop = []\n    loop.append(loop)\n    return xs, xs, loop, {n: n}.keys()\n',
        T(
          'T',
          '    def test_same(self):\n        a, b, loop, keys = shared(3)\n        self.assertIs(a, b)\n        a.append(4)\n        self.assertEqual(b, [3, 4])\n\n    def test_cycle(self):\n        loop = shared(1)[2]\n        self.assertIs(loop[0], loop)\n\n    def test_view(self):\n        keys = shared(7)[3]\n        self.assertIn(7, keys)\n        self.assertEqual(set(keys), {7})\n',
          'from pkg.mod import shared',
        ),
      ),
    right: {
      rebuilt: 'def shared(n):\n    xs = list([n])\n    loop = [None]\n    loop[0] = loop\n    d = dict.fromkeys([n])\n    return xs, xs, loop, d.keys()\n',
      itemsView: 'def shared(n):\n    same = [n]\n    loop = []\n    loop += [loop]\n    return (same, same, loop, {n: None}.keys())\n',
    },
    wrong: { copies: 'def shared(n):\n    loop = []\n    loop.append(loop)\n    return [n], [n], loop, {n: n}.keys()\n' },
  },
  windows: {
    task: () =>
      unittestTask(
        'windows',
        'import itertools\n\n\ndef windows(xs, n):\n    """Overlapping windows of n items, each an iterator."""\n    xs = list(xs)\n    return (iter(xs[i:i + n]) for i in range(len(xs) - n + 1))\n',
        T(
          'T',
          '    def test_lists(self):\n        self.assertEqual([list(w) for w in windows(range(4), 2)], [[0, 1], [1, 2], [2, 3]])\n\n    def test_kept(self):\n        ws = list(windows("abc", 2))\n        self.assertEqual(["".join(w) for w in reversed(ws)], ["bc", "ab"])\n\n    def test_nested_zip(self):\n        a, b = windows([1, 2, 3], 2)\n        self.assertEqual(list(zip(a, b)), [(1, 2), (2, 3)])\n',
          'from pkg.mod import windows',
        ),
      ),
    right: {
      generators: 'def windows(xs, n):\n    xs = list(xs)\n    for i in range(len(xs) - n + 1):\n        yield (x for x in xs[i:i + n])\n',
      teeBased:
        'import itertools\n\n\ndef windows(xs, n):\n    xs = list(xs)\n    return iter([itertools.islice(xs, i, i + n) for i in range(len(xs) - n + 1)])\n',
    },
    wrong: { short: 'def windows(xs, n):\n    xs = list(xs)\n    return (iter(xs[i:i + n - 1]) for i in range(len(xs) - n + 1))\n' },
  },
};

// Found by a red team working from docs/validation.md and the CLI only: values of the candidate's own subclasses of
// builtin values, a lazy generator whose later items are expensive, a returned bound __next__ of a builtin iterator.
Object.assign(CASES, {
  ownValues: {
    task: () =>
      unittestTask(
        'own-values',
        'import enum\n\n\nclass Code(enum.IntEnum):\n    OK = 200\n\n\ndef status(name):\n    """(the code, the words, the pair, the counts) for a status name."""\n    return Code.OK, name.upper(), divmod(7, 2), {"a": 2, "b": 1}\n',
        T(
          'T',
          '    def test_values(self):\n        code, words, pair, counts = status("ok")\n        self.assertEqual(code, 200)\n        self.assertEqual(words, "OK")\n        self.assertEqual(pair, (3, 1))\n        self.assertEqual(counts, {"a": 2, "b": 1})\n        self.assertEqual({code: 1}, {200: 1})\n\n    def test_names(self):\n        code, _, pair, _ = status("ok")\n        self.assertEqual(code.name, "OK")\n        self.assertEqual(pair[0], 3)\n',
          'from pkg.mod import status',
        ),
      ),
    right: {
      ownClasses:
        'import collections\nimport enum\n\n\nclass MyCode(enum.IntEnum):\n    OK = 200\n\n\nclass Loud(str):\n    pass\n\n\nclass Counts(dict):\n    def __missing__(self, k):\n        return 0\n\n\nQR = collections.namedtuple("QR", "q r")\n\n\ndef status(name):\n    return MyCode.OK, Loud(name.upper()), QR(7 // 2, 7 % 2), Counts(a=2, b=1)\n',
      intSubclass:
        'class Int(int):\n    name = "OK"\n\n\nclass Pair(tuple):\n    pass\n\n\ndef status(name):\n    return Int(200), name.upper(), Pair((3, 1)), dict(a=2, b=1)\n',
    },
    wrong: {
      lyingInt:
        'class Int(int):\n    name = "OK"\n\n    def __eq__(self, other):\n        return True\n\n    __hash__ = int.__hash__\n\n\ndef status(name):\n    return Int(0), name.upper(), (3, 1), {"a": 2, "b": 1}\n',
    },
  },
  lazySearch: {
    task: () =>
      unittestTask(
        'lazy-search',
        'def perfect():\n    """Perfect numbers, in order."""\n    yield from [6, 28, 496, 8128, 33550336]\n',
        T(
          'T',
          '    def test_three(self):\n        self.assertEqual(list(itertools.islice(perfect(), 3)), [6, 28, 496])\n',
          'import itertools\nfrom pkg.mod import perfect',
        ),
      ),
    right: {
      search:
        'def perfect():\n    n = 2\n    while True:\n        if sum(d for d in range(1, n // 2 + 1) if n % d == 0) == n:\n            yield n\n        n += 1\n',
    },
    wrong: { off: 'def perfect():\n    yield from [6, 28, 495]\n' },
  },
  warnings: {
    task: () =>
      unittestTask(
        'warnings',
        'import warnings\n\n\nclass OldStyle(DeprecationWarning):\n    pass\n\n\ndef split(s=None):\n    """Words of s; None is deprecated (an empty list, with a warning)."""\n    if s is None:\n        warnings.warn("None is deprecated", OldStyle, stacklevel=2)\n        return []\n    return s.split()\n',
        T(
          'T',
          '    def test_warns(self):\n        with self.assertWarns(DeprecationWarning):\n            self.assertEqual(split(None), [])\n\n    def test_own_class(self):\n        with self.assertWarnsRegex(OldStyle, "deprecated"):\n            split()\n\n    def test_error_filter(self):\n        with warnings.catch_warnings():\n            warnings.simplefilter("error")\n            with self.assertRaises(DeprecationWarning):\n                split(None)\n\n    def test_quiet(self):\n        with warnings.catch_warnings():\n            warnings.simplefilter("error")\n            self.assertEqual(split("a b"), ["a", "b"])\n',
          'import warnings\nfrom pkg.mod import OldStyle, split',
        ),
      ),
    right: {
      explicit:
        'import warnings\n\n\ndef split(s=None):\n    if s is None:\n        warnings.warn(OldStyle("None is deprecated"))\n        return []\n    return list(s.split())\n',
    },
    wrong: {
      silent: 'def split(s=None):\n    return [] if s is None else s.split()\n',
      plainUser:
        'import warnings\n\n\ndef split(s=None):\n    if s is None:\n        warnings.warn("None is deprecated")\n        return []\n    return s.split()\n',
    },
  },
} satisfies Record<string, Case>);

/** Each case's reference is validated isolated, its correct candidates pass isolated, its wrong ones fail. */
function caseSuite(title: string, cases: Record<string, Case>): void {
  describe(title, () => {
    for (const [name, c] of Object.entries(cases)) {
      it(name, async () => {
        const task = c.task();
        const check = await validator.referenceCheck(task);
        expect.soft(check, JSON.stringify(check)).toMatchObject({ passes: true, isolation: 'isolated' });
        await correct(validator, task, c.right, 'isolated');
        const wrong = await judge(validator, task, c.wrong, 'isolated');
        for (const [w, v] of Object.entries(wrong)) expect.soft(v.status, show(task, w, v)).toBe('failed');
      });
    }
  });
}

caseSuite('correct but unusual values cross; wrong ones still fail (unittest)', CASES);

// The same kinds of value in a check program (the tests' classes after the placeholder are theirs) and under pytest.
const PROGRAM_CASES: Record<string, Case> = {
  ownIterator: {
    task: () =>
      programTask(
        'own-iterator',
        'def repeat_last(xs):\n    return itertools.chain(xs, itertools.repeat(xs[-1]))\n',
        'import itertools',
        'def test_head():\n    assert list(itertools.islice(repeat_last([1, 2, 3]), 6)) == [1, 2, 3, 3, 3, 3]\n\n\ndef test_next():\n    it = repeat_last(["a"])\n    assert iter(it) is it\n    assert [next(it), next(it)] == ["a", "a"]\n',
      ),
    right: CASES.ownIterator!.right,
    wrong: CASES.ownIterator!.wrong,
  },
  sortHandles: {
    task: () =>
      programTask(
        'sort-handles',
        'def smallest_two(xs):\n    return sorted(xs)[:2]\n',
        '',
        'class Version:\n    def __init__(self, major, minor):\n        self.v = (major, minor)\n\n    def __eq__(self, other):\n        return isinstance(other, Version) and self.v == other.v\n\n    def __lt__(self, other):\n        return self.v < other.v\n\n    def __hash__(self):\n        return hash(self.v)\n\n\ndef test_versions():\n    vs = [Version(3, 1), Version(1, 2), Version(2, 0)]\n    assert smallest_two(vs) == [vs[1], vs[2]]\n\n\ndef test_plain():\n    assert smallest_two([5, 1, 3]) == [1, 3]\n',
      ),
    right: { minTwice: CASES.sortHandles!.right.minTwice!, heap: CASES.sortHandles!.right.heap! },
    wrong: CASES.sortHandles!.wrong,
  },
  functions: {
    task: () =>
      programTask(
        'functions',
        'def adder(n):\n    return lambda x: x + n\n',
        '',
        'def test_call():\n    assert adder(2)(3) == 5\n\n\ndef test_map():\n    assert list(map(adder(1), [1, 2])) == [2, 3]\n',
      ),
    right: { partial: CASES.functions!.right.partial!, callableClass: CASES.functions!.right.callableClass! },
    wrong: CASES.functions!.wrong,
  },
  partition: {
    task: () =>
      programTask(
        'partition',
        'def partition(pred, xs):\n    a, b = itertools.tee(xs)\n    return itertools.filterfalse(pred, a), filter(pred, b)\n',
        'import itertools',
        'def test_unread_then_again():\n    evens, odds = partition(lambda x: x > 2, [1, 2, 3, 4])\n    assert next(evens) == 1\n    small, big = partition(lambda x: x > 10, [5, 50])\n    assert list(small) == [5] and list(big) == [50]\n    assert list(odds) == [3, 4]\n',
      ),
    right: { lists: CASES.partition!.right.lists!, ownClass: CASES.partition!.right.ownClass! },
    wrong: CASES.partition!.wrong,
  },
};

// The tests' objects as the target sees them in-process: type(h) reads as their class, only the special methods their
// type has, their function's code's shape, a typing construct's __origin__; builtin methods of data and the attribute
// descriptors of builtin classes come back as themselves.
Object.assign(PROGRAM_CASES, {
  typeName: {
    task: () =>
      programTask(
        'type-name',
        'def kind(obj):\n    return type(obj).__qualname__\n',
        '',
        'class Point:\n    pass\n\n\ndef test_kinds():\n    assert kind(print) == "builtin_function_or_method"\n    assert kind(lambda: 0) == "function"\n    assert kind(Point()) == "Point"\n    assert kind(object()) == "object"\n\n\ndef test_iterable():\n    assert kind({}.keys) == "builtin_function_or_method"\n',
      ),
    right: {
      viaClass: 'def kind(obj):\n    return obj.__class__.__qualname__ if False else type(obj).__qualname__\n',
      viaName: 'def kind(obj):\n    t = type(obj)\n    return getattr(t, "__qualname__", t.__name__)\n',
    },
    wrong: { name: 'def kind(obj):\n    return type(obj).__module__\n' },
  },
  attrPath: {
    task: () =>
      programTask(
        'attr-path',
        'def attr(obj, path):\n    for part in path.split("."):\n        obj = getattr(obj, part)\n    return obj\n',
        'from typing import Optional, Union',
        'def test_bound():\n    assert attr(10, "bit_length") == (10).bit_length\n    assert attr(1, "__abs__") == (1).__abs__\n    assert attr(0, "__class__.mro") == int.mro\n\n\ndef test_descriptor():\n    assert attr(OSError, "errno") == OSError.errno\n\n\ndef test_code():\n    assert attr(lambda a, b: a + b, "__code__.co_argcount") == 2\n\n\ndef test_typing():\n    assert attr(Optional[int], "__origin__") is Union\n',
      ),
    right: {
      reduce: 'import functools\n\n\ndef attr(obj, path):\n    return functools.reduce(getattr, path.split("."), obj)\n',
      recursive: 'def attr(obj, path):\n    head, _, rest = path.partition(".")\n    obj = getattr(obj, head)\n    return attr(obj, rest) if rest else obj\n',
    },
    wrong: { last: 'def attr(obj, path):\n    return getattr(obj, path.split(".")[0])\n' },
  },
  iterable: {
    task: () =>
      programTask(
        'iterable',
        'def iterable(x):\n    return hasattr(x, "__iter__")\n',
        '',
        'class Bag:\n    def __iter__(self):\n        return iter([1])\n\n\ndef test_not():\n    assert not iterable({}.keys)\n    assert not iterable(len)\n    assert not iterable(object())\n\n\ndef test_yes():\n    assert iterable([1])\n    assert iterable(Bag())\n',
      ),
    right: {
      iterCheck: 'def iterable(x):\n    try:\n        iter(x)\n    except TypeError:\n        return False\n    return True\n',
      typeCheck: 'def iterable(x):\n    return any("__iter__" in vars(c) for c in type(x).__mro__)\n',
    },
    wrong: { always: 'def iterable(x):\n    return callable(x) is False\n' },
  },
} satisfies Record<string, Case>);

caseSuite('correct but unusual values cross; wrong ones still fail (check programs)', PROGRAM_CASES);

describe('correct but unusual values cross (pytest)', () => {
  it("the candidate's own iterator class and a proxy's methods, under pytest", async () => {
    if (!pyValidator) return; // said once by pytestPython(): no python3 with pytest on PATH
    const task = pytestTask(
      'own-iterator',
      'import itertools\n\n\ndef repeat_last(xs):\n    return itertools.chain(xs, itertools.repeat(xs[-1]))\n',
      'import itertools\nfrom pkg.mod import repeat_last\n\n\ndef test_head():\n    assert list(itertools.islice(repeat_last([1, 2, 3]), 6)) == [1, 2, 3, 3, 3, 3]\n\n\ndef test_next():\n    it = repeat_last(["a"])\n    assert iter(it) is it\n    assert [next(it), next(it)] == ["a", "a"]\n',
    );
    const check = await pyValidator.referenceCheck(task);
    expect.soft(check, JSON.stringify(check)).toMatchObject({ passes: true, isolation: 'isolated' });
    await correct(pyValidator, task, CASES.ownIterator!.right, 'isolated');
    const wrong = await judge(pyValidator, task, CASES.ownIterator!.wrong, 'isolated');
    for (const [w, v] of Object.entries(wrong)) expect.soft(v.status, show(task, w, v)).toBe('failed');
  });
});
