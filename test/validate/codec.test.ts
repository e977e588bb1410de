// The isolated validation's wire (main/validate/py/_opencoder_bridge.py and _opencoder_codec.py), without sandboxes: a test side and a
// candidate side in two Python processes over a socket pair, as an isolated run connects them. What crosses
// comes back as the same data; what is not data is refused on the test side and counted as a crossing failure.

import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { HARNESS_DIR, defaultPython } from '../../main/validate/sandbox.ts';

/**
 * Runs `body` as the test side, with `candidate` (Python source defining `target`) served by a forked candidate
 * side; `shared` (classes both sides load, as the repository's modules are) runs before the fork.
 */
function pair(candidate: string, body: string, shared = ''): { out: string; err: string; status: number | null } {
  const script = `
import os, socket, sys, json
sys.path.insert(0, ${JSON.stringify(HARNESS_DIR)})
import _opencoder_bridge as C
${shared}
${candidate}
a, b = socket.socketpair()
pid = os.fork()
if pid == 0:
    a.close()
    C.CandidateSide(b.fileno(), target, None).serve_forever()
    os._exit(0)
b.close()
crossings = []
TRUSTED = {"builtins", "__main__", "collections", "datetime", "decimal", "fractions", "uuid", "pathlib", "ast", "enum", "re", "time"}
T = C.TestSide(a.fileno(), lambda mod, obj, why: mod in TRUSTED, crossings.append)
def call(*args, **kwargs):
    return T.call(args, kwargs)
${body}
`;
  const r = spawnSync(defaultPython(), ['-I', '-c', script], { encoding: 'utf8', timeout: 60_000 });
  return { out: r.stdout, err: r.stderr, status: r.status };
}

describe('isolated calls: the codec between the test process and the candidate process', () => {
  it('carries data, the standard library values and trusted instances back as equal values of the same types', () => {
    const r = pair(
      'def target(v):\n    return v\n',
      `
values = [1, 2**100, -0.0, "x\\udcff\\n", b"\\x00", bytearray(b"ab"), (1, [2]), {1: "a", (1, 2): None}, {1, 2}, frozenset([3]),
          collections.OrderedDict(a=1), collections.defaultdict(list, {1: [2]}), collections.deque([1, 2], 5), collections.Counter("aab"),
          datetime.datetime(2020, 1, 2, 3, 4, 5, 6, tzinfo=datetime.timezone.utc), datetime.date(2020, 1, 1), datetime.timedelta(3),
          decimal.Decimal("1.10"), fractions.Fraction(1, 3), uuid.UUID(int=5), re.compile("a+", re.I), Color.RED, time.gmtime(0),
          pathlib.PurePosixPath("/a/b"), Point(1, 2), Pair(1, 2), range(1, 5, 2), slice(1, None), Ellipsis, 1 + 2j, len, str.upper, Point, None, True,
          {"f%06d" % i for i in range(200000)}]
bad = [repr(v)[:60] for v in values if not (call(v) == v and type(call(v)) is type(v))]
node = ast.parse("x = 1").body[0]
nan = call(float("nan"))
print(json.dumps({"bad": bad, "ast": ast.dump(call(node)) == ast.dump(node), "nan": nan != nan, "view": call(memoryview(b"xy")) == b"xy", "crossings": crossings}))
`,
      `
import collections, datetime, decimal, fractions, uuid, re, ast, enum, time, pathlib
class Color(enum.Enum):
    RED = 1
class Point:
    def __init__(s, x, y): s.x, s.y = x, y
    def __eq__(s, o): return type(o) is Point and (s.x, s.y) == (o.x, o.y)
Pair = collections.namedtuple("Pair", "a b")
`,
    );
    expect(r.err).toBe('');
    expect(JSON.parse(r.out)).toEqual({ bad: [], ast: true, nan: true, view: true, crossings: [] });
  });

  it("keeps identity and in-place changes: the tests' own objects come back as themselves, with the candidate's changes", () => {
    const r = pair(
      `
def target(kind, *a):
    if kind == "mutate":
        a[0].append(9); a[1]["k"] = 1; a[2].x = 42
        return a[0]
    if kind == "marker":
        return a[0]
    if kind == "key":
        return sorted(a[0], key=a[1])
    if kind == "file":
        return a[0].readline()
    if kind == "interned":
        return a[0] + ""
`,
      `
import io
lst, dct, pt = [1], {}, Point(1)
back = call("mutate", lst, dct, pt)
marker = object()
print(json.dumps({
    "same": back is lst, "lst": lst, "dct": dct, "pt": pt.x,
    "marker": call("marker", marker) is marker,
    "key": call("key", ["b", "A", "c"], lambda s: s.lower()),
    "file": call("file", io.StringIO("l1\\nl2")),
    "interned": call("interned", name) is name,
    "crossings": crossings}))
`,
      'class Point:\n    def __init__(s, x): s.x = x\nname = "abc"\n',
    );
    expect(r.err).toBe('');
    expect(JSON.parse(r.out)).toEqual({
      same: true,
      lst: [1, 9],
      dct: { k: 1 },
      pt: 42,
      marker: true,
      key: ['A', 'b', 'c'],
      file: 'l1\n',
      interned: true,
      crossings: [],
    });
  });

  it('gives the candidate a memoryview where the tests pass one (format, shape, read-only kept), and writes its changes back', () => {
    // Found re-executing phi-2's RepoExec samples: a sample that rejects anything but bytes and bytearray failed the
    // official tests and in-process, but passed isolated while a memoryview crossed as bytes.
    const r = pair(
      `
def target(kind, v):
    if kind == "strict":
        if not isinstance(v, (bytes, bytearray)):
            raise TypeError("data must be bytes or bytearray, not %r" % type(v))
        return len(v)
    if kind == "describe":
        return [type(v).__name__, v.readonly, v.format, list(v.shape), v.tobytes()]
    if kind == "write":
        v[0] = 65
        return None
    if kind == "obj":
        v.obj[0] = 90  # outside the window it was given
        return None
    if kind == "objtype":
        return [type(v.obj).__name__, v.readonly]
`,
      `
ro = memoryview(b"xyz")
ints = memoryview(bytearray(8)).cast("i")
buf = bytearray(b"abc")
try:
    call("strict", ro)
    strict = "passed"
except TypeError as e:
    strict = "TypeError"
call("write", memoryview(buf))
window = bytearray(b"abcdef")
try:
    call("obj", memoryview(window)[2:4])
    sliced = "crossed"
except BaseException as e:
    sliced = "%s: %s" % (type(e).__name__, e)
print(json.dumps({
    "sliced": sliced,
    "window": window.decode(),
    "objtype": call("objtype", memoryview(bytearray(b"pq")).toreadonly()),
    "strict": strict,
    "ro": [x if not isinstance(x, bytes) else x.decode() for x in call("describe", ro)],
    "ints": [x if not isinstance(x, bytes) else len(x) for x in call("describe", ints)],
    "written": buf.decode(),
    "back": type(call("describe", ro)[4]).__name__,
    "crossings": crossings}))
`,
    );
    expect(r.err).toBe('');
    expect(JSON.parse(r.out)).toEqual({
      strict: 'TypeError',
      ro: ['memoryview', true, 'B', [3], 'xyz'],
      ints: ['memoryview', false, 'i', [2], 8],
      written: 'Abc',
      back: 'bytes',
      // Over part of its object a view does not cross: a write through .obj outside the window would be lost (a
      // wrong candidate passed isolated that way). The task's reference then fails isolated, so it runs in-process.
      sliced: 'CrossingError: a memoryview crosses only over the whole of a bytes or bytearray (this one: 2 of 6 bytes of a bytearray)',
      window: 'abcdef',
      objtype: ['bytearray', true],
      crossings: ['a memoryview crosses only over the whole of a bytes or bytearray (this one: 2 of 6 bytes of a bytearray)'],
    });
  });

  it("raises the candidate's exceptions as the nearest class the test process trusts, and pulls generators lazily", () => {
    const r = pair(
      `
def target(kind, n=0):
    class Custom(KeyError):
        pass
    if kind == "raise":
        raise ValueError("bad", 3)
    if kind == "custom":
        raise Custom("k")
    if kind == "oserror":
        raise OSError(2, "gone")
    def squares():
        i = 0
        while True:
            yield i * i
            i += 1
    return squares()
`,
      `
out = {}
for kind in ("raise", "custom", "oserror"):
    try:
        call(kind)
    except BaseException as e:
        out[kind] = [type(e).__name__, list(e.args), getattr(e, "errno", None)]
g = call("gen")
out["gen"] = [next(g) for _ in range(5)]
out["crossings"] = crossings
print(json.dumps(out))
`,
    );
    expect(r.err).toBe('');
    // Custom is the candidate's own class: it crosses as KeyError, its nearest base the tests can know.
    expect(JSON.parse(r.out)).toEqual({
      raise: ['ValueError', ['bad', 3], null],
      custom: ['KeyError', ['k'], null],
      oserror: ['FileNotFoundError', [2, 'gone'], 2],
      gen: [0, 1, 4, 9, 16],
      crossings: [],
    });
  });

  it('refuses always-equal data and a dead candidate; a function or an object the tests do not rebuild is a proxy that equals only itself', () => {
    const r = pair(
      `
import os
class Anything:
    def __eq__(self, other):
        return True
def target(kind):
    if kind == "function":
        return lambda: 1
    if kind == "own-class":
        return Anything()
    if kind == "mock-any":
        import unittest.mock
        return unittest.mock.ANY
    if kind == "die":
        os._exit(0)
`,
      `
import unittest.mock
out = {}
for kind in ("function", "own-class", "mock-any", "die", "after"):
    try:
        v = call(kind)
        if kind == "function":
            out[kind] = "proxy, called: %r, equal to a copy: %s" % (v(), v == (lambda: 1))
        elif kind == "mock-any":
            out[kind] = "proxy, equal to 5: %s, to itself: %s" % (v == 5, v == v)
        else:
            out[kind] = "returned " + repr(v)[:40]
    except C.CrossingError as e:
        out[kind] = "crossing"
    except Exception as e:
        out[kind] = "exception " + type(e).__name__
print(json.dumps({"out": out, "crossings": len(crossings)}))
`,
    );
    expect(r.err).toBe('');
    const got = JSON.parse(r.out);
    // Each one fails its call with a CrossingError (a BaseException: `except Exception` in a test cannot swallow it).
    expect(got.out).toEqual({
      function: 'proxy, called: 1, equal to a copy: False',
      'own-class': 'crossing',
      // Not data to the tests: it stays in the candidate process, and its __eq__ is never asked.
      'mock-any': 'proxy, equal to 5: False, to itself: True',
      die: 'crossing',
      after: 'crossing',
    });
    expect(got.crossings).toBe(3);
  });

  it("answers a candidate's use of a handle only on the test's object, and only its public attributes and its code's shape", () => {
    const r = pair(
      `
def target(cb):
    out = []
    for name in ("__globals__", "__closure__", "__self__", "_private"):
        try:
            out.append(repr(getattr(cb, name))[:30])
        except AttributeError:
            out.append("refused")
    # Its code's shape (introspection reads it), never its bytecode or constants.
    out.append(cb.__code__.co_argcount)
    for name in ("co_consts", "co_code"):
        try:
            out.append(repr(getattr(cb.__code__, name))[:30])
        except AttributeError:
            out.append("refused")
    out.append(cb.__name__)
    out.append(cb(2))
    return out
`,
      `
def make():
    def callback(x):
        return x * 21
    callback._private = "s3cret"
    return callback
print(json.dumps(call(make())))
`,
    );
    expect(r.err).toBe('');
    expect(JSON.parse(r.out)).toEqual(['refused', 'refused', 'refused', 'refused', 1, 'refused', 'refused', 'callback', 42]);
  });
});

describe('decoding on the test side: names by origin, bounds over what is built', () => {
  const decode = (body: string) => {
    const script = `
import sys, json, types, unittest
sys.path.insert(0, ${JSON.stringify(HARNESS_DIR)})
import _opencoder_codec as C
import _opencoder_decode as D
repo = types.ModuleType("repo_mod")
repo.unittest = unittest
exec("class Thing:\\n    class Inner:\\n        pass\\n\\ndef helper():\\n    pass\\n", repo.__dict__)
sys.modules["repo_mod"] = repo
def dec(node):
    try:
        v = D.Decoder(True, lambda mod, obj, why: mod in ("repo_mod", "builtins")).dec(node)
        return "%s %s" % (type(v).__name__, getattr(v, "__qualname__", ""))
    except C.CrossingError as e:
        return "refused: %s" % e
${body}
`;
    const r = spawnSync(defaultPython(), ['-I', '-c', script], { encoding: 'utf8', timeout: 120_000 });
    expect(r.stderr).toBe('');
    return JSON.parse(r.stdout);
  };

  it("resolves a name only to what is defined under it, never through a module's globals", () => {
    const out = decode(`print(json.dumps([
    dec(["n", "repo_mod", "Thing.Inner"]), dec(["n", "repo_mod", "helper"]), dec(["n", "builtins", "object.__init__"]),
    dec(["n", "repo_mod", "unittest.case.TestCase"]), dec(["n", "repo_mod", "unittest.main"]),
    dec(["o", 0, "repo_mod", "unittest.mock.Mock", None, []]),
    dec(["x", 0, [["repo_mod", "unittest.case._ShouldStop"]], [], []]),
]))`);
    expect(out.slice(0, 3)).toEqual(['type Thing.Inner', 'function helper', 'wrapper_descriptor object.__init__']);
    expect(out[3]).toMatch(/^refused: .*not something the test process loaded/);
    expect(out[4]).toMatch(/^refused: .*not something the test process loaded/);
    expect(out[5]).toMatch(/^refused: .*a class the test process does not have/);
    expect(out[6]).toBe('Exception '); // the nearest class it trusts: a plain Exception, never unittest's _ShouldStop
  });

  it('counts depth over what back-references build, and bounds the parts of a message and colliding keys', () => {
    const out = decode(`N = 600000
deep = ["l", 0, [["t", 1, [1]]] + [["t", k + 1, [["r", k]]] for k in range(1, N)] + [["fs", N + 1, [["r", N]]]]]
wide = ["l", 0, [["t", k, [1]] for k in range(1, 150)] + [["l", 200, [["r", k] for k in range(1, 150)]]]]
P = (1 << 61) - 1
print(json.dumps([
    dec(deep), dec(wide), dec(["l", 0, [["l", k, []] for k in range(1, 2100000)]]),
    dec(["s", 0, [["i", "%x" % (P * k)] for k in range(1, 20000)]]),
    dec(["d", 0, [[["i", "%x" % (P * k)], 1] for k in range(1, 20000)]]),
    dec(["s", 0, [["i", "%x" % ((1 << 70) + k)] for k in range(20000)]]),
]))`);
    expect(out[0]).toMatch(/^refused: a value nested more than 160 levels deep/);
    expect(out[1]).toBe('list '); // shared parts side by side do not add up
    expect(out[2]).toMatch(/^refused: a value of more than 2000000 parts/);
    expect(out[3]).toMatch(/^refused: a dict or set of 19999 keys with only 1 distinct hashes/);
    expect(out[4]).toMatch(/^refused: a dict or set of 19999 keys/);
    expect(out[5]).toBe('set ');
  });
});
