// A small repository to mine, with one function for each way a candidate is kept or dropped, and its unittest suite.

import { makeRepo } from '../helpers/tmp-repo.ts';

const CORE = `"""Arithmetic helpers."""

MODE = "plain"


def add(a, b):
    """Return the sum of a and b, two numbers."""
    total = a + b
    return total


def undocumented(x):
    return x * 3


def short_doc(x):
    """Triple it."""
    return x * 3


def trivial_pass(x):
    """This one is not written yet at all."""
    pass


def clamp(x, low, high):
    """Clamp x into the range from low to high."""
    if x < low:
        return low
    if x > high:
        return high
    return x


def untested_fn(x):
    """Nothing in the suite ever calls this function."""
    return x - 1


def log_it(x):
    """Log the value somewhere and say nothing back."""
    print("value", x)
    return None


def thin_fn(x):
    """Double x when it is bigger than one, else keep it."""
    return x * 2 if x > 1 else x


def moded(x):
    """Scale x by ten in loud mode and keep it otherwise."""
    if MODE == "loud":
        return x * 10
    return x


def greet(name):
    """Greet someone by their name, politely and warmly."""
    return "Hello, " + name + "!"


def overloaded(x):
    """First definition of a name defined twice in this file."""
    return x + 1


def overloaded(x):  # noqa: F811
    """Second definition of a name defined twice in this file."""
    return x + 2


class Counter:
    """Counts things."""

    def __init__(self):
        self.n = 0

    def bump(self, by=1):
        """Add by to the count and return the new count."""
        self.n += by
        return self.n
`;

const OTHER = `"""The same clamp, copied."""


def clamp(x, low, high):
    """Clamp x into the range from low to high."""
    if x < low:
        return low
    if x > high:
        return high
    return x
`;

const TESTS = `import unittest

from pkg import core


class AddTests(unittest.TestCase):
    def test_add(self):
        self.assertEqual(core.add(2, 3), 5)
        self.assertEqual(core.add(-1, 1), 0)

    def test_short_and_undocumented(self):
        self.assertEqual(core.short_doc(2), 6)
        self.assertEqual(core.undocumented(2), 6)
        core.trivial_pass(1)


class ClampTests(unittest.TestCase):
    def test_clamp(self):
        self.assertEqual(core.clamp(5, 0, 3), 3)
        self.assertEqual(core.clamp(-5, 0, 3), 0)
        self.assertEqual(core.clamp(2, 0, 3), 2)


class WeakTests(unittest.TestCase):
    def test_log_it_runs(self):
        try:
            core.log_it(3)
        except Exception:
            pass

    def test_thin(self):
        r = core.thin_fn(3)
        self.assertIsInstance(r, (int, bool, type(None)))

    def test_greet(self):
        self.assertEqual(core.greet("Ann"), "Hello, Ann!")

    def test_overloaded(self):
        self.assertEqual(core.overloaded(1), 3)


class CounterTests(unittest.TestCase):
    def test_bump(self):
        c = core.Counter()
        self.assertEqual(c.bump(), 1)
        self.assertEqual(c.bump(2), 3)
`;

// Two modules whose order matters: the first leaves MODE loud, the second passes only after it (and so fails alone).
const ORDER_A = `import unittest

from pkg import core


class A(unittest.TestCase):
    def test_sets_mode(self):
        core.MODE = "loud"
        self.assertTrue(True)
`;

const ORDER_B = `import unittest

from pkg import core


class B(unittest.TestCase):
    def test_moded_loud(self):
        self.assertEqual(core.moded(2), 20)
`;

/** The repository: pkg/core.py, pkg/other.py, a module that does not parse, and tests/ (unittest, a package). */
export function miningRepo(extra: Record<string, string> = {}): string {
  return makeRepo(
    {
      'pkg/__init__.py': '',
      'pkg/core.py': CORE,
      'pkg/other.py': OTHER,
      'pkg/broken.py': 'def broken(:\n    """Never parses."""\n',
      'tests/__init__.py': '',
      'tests/test_core.py': TESTS,
      'tests/test_order_a.py': ORDER_A,
      'tests/test_order_b.py': ORDER_B,
      'README.md': '# a repository to mine\n',
      ...extra,
    },
    'oc-mine-',
  );
}
