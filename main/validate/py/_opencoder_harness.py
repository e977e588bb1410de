"""Runs one candidate against its task's tests and reports each outcome to the engine.

Protocol: the engine writes one JSON document (config, candidate and a per-run key) to stdin and
closes it; everything is read before any candidate code runs, and stdin is then replaced by
/dev/null, so the candidate never sees the key. Records go to fd 3 (never stdout, which the
candidate controls), one per line as `<hmac-sha256 hex> <json>`; the engine accepts only lines
whose MAC checks out under the key. A pass needs the final `done` record, so an early exit, a
crash or a printed fake result line is never a pass.

Limits of in-process tests: the candidate shares this interpreter, so one that deliberately
inspects the harness's memory or patches the test framework could still forge; the primitives the
reporting path uses are captured here before the candidate is loaded so that ordinary
monkeypatching (os.write, json, builtins) cannot reach the key or the records.
"""

import os
import sys

_write = os.write
_exit = os._exit
_BaseException = BaseException
_type = type
_str = str
_int = int
_float = float
_list = list
_tuple = tuple
_dict = dict
_callable = callable
_len = len
_isinstance = isinstance
_translate = str.translate
_join = str.join
_encode = str.encode
_int_repr = int.__repr__
_float_repr = float.__repr__
_INF = float("inf")

import hashlib  # noqa: E402
import traceback  # noqa: E402  (loaded before the candidate can plant its own)

try:
    import resource  # noqa: E402
except ImportError:  # Windows
    resource = None

_sha256 = hashlib.sha256
_ESC = {i: "\\u%04x" % i for i in range(32)}
_ESC[ord('"')] = '\\"'
_ESC[ord("\\")] = "\\\\"
_ESC[0x2028] = "\\u2028"
_ESC[0x2029] = "\\u2029"


def _enc(v):
    # A tiny JSON encoder built only from captured primitives (json's internals are patchable).
    if v is None:
        return "null"
    if v is True:
        return "true"
    if v is False:
        return "false"
    t = _type(v)
    if t is _str:
        return '"' + _translate(v, _ESC) + '"'
    if t is _int:
        return _int_repr(v)
    if t is _float:
        return _float_repr(v) if v == v and v not in (_INF, -_INF) else "null"
    if t is _list or t is _tuple:
        return "[" + _join(",", [_enc(x) for x in v]) + "]"
    if t is _dict:
        return "{" + _join(",", ['"' + _translate(k, _ESC) + '":' + _enc(x) for k, x in v.items()]) + "}"
    return '"<unencodable>"'


def _make_channel(fd, key):
    block = key.ljust(64, b"\0") if _len(key) <= 64 else _sha256(key).digest().ljust(64, b"\0")
    ikey = bytes(b ^ 0x36 for b in block)
    okey = bytes(b ^ 0x5C for b in block)

    def send(record):
        payload = _encode(_enc(record), "utf-8", "replace")
        mac = _sha256(okey + _sha256(ikey + payload).digest()).hexdigest()
        data = b"\n" + _encode(mac, "ascii") + b" " + payload + b"\n"
        try:
            while data:
                n = _write(fd, data)
                data = data[n:]
        except OSError:
            pass

    return send


def _safe_text(e, limit=2000):
    try:
        s = _str(e)
        if _type(s) is not _str:
            s = "<unprintable>"
    except _BaseException:
        s = "<unprintable>"
    return s[:limit]


def _describe(e, with_tb=True, limit=2000):
    try:
        name = _type(e).__name__
        if _type(name) is not _str:
            name = "Exception"
    except _BaseException:
        name = "Exception"
    text = "%s: %s" % (name, _safe_text(e, 500))
    if with_tb:
        try:
            tb = "".join(traceback.format_exception(_type(e), e, e.__traceback__, limit=-6))
            text = tb[-limit:]
        except _BaseException:
            pass
    return text


def _read_all(fd):
    chunks = []
    while True:
        b = os.read(fd, 1 << 20)
        if not b:
            break
        chunks.append(b)
    return b"".join(chunks)


def _apply_limits(limits):
    if resource is None:
        return
    table = {"cpu": "RLIMIT_CPU", "as": "RLIMIT_AS", "fsize": "RLIMIT_FSIZE", "nproc": "RLIMIT_NPROC", "core": "RLIMIT_CORE"}
    for k, name in table.items():
        v = limits.get(k)
        if v is None or not hasattr(resource, name):
            continue
        try:
            soft, hard = (v, v + 1) if k == "cpu" else (v, v)
            resource.setrlimit(getattr(resource, name), (soft, hard))
        except (ValueError, OSError):
            pass


def _prepare_workspace(cfg):
    ws = cfg["ws"]
    base = cfg.get("base")
    copy = cfg.get("copy") or {}
    if base:
        import shutil
        for d in copy.get("dirs", []):
            os.makedirs(os.path.join(ws, d), exist_ok=True)
        for rel in copy.get("files", []):
            src, dst = os.path.join(base, rel), os.path.join(ws, rel)
            try:
                shutil.copyfile(src, dst)
                os.chmod(dst, (os.stat(src).st_mode & 0o777) | 0o600)
            except OSError:
                pass  # unreadable files stay out, as they would for the tests anyway
        for rel, target in copy.get("links", []):
            try:
                os.symlink(target, os.path.join(ws, rel))
            except OSError:
                pass
    return ws


def _max_rss():
    try:
        scale = 1 if sys.platform == "darwin" else 1024
        s = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        c = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
        return _int(max(s, c) * scale)
    except _BaseException:
        return None


# ---------------------------------------------------------------------------------------------
# Test modes

class _Timeout(_BaseException):
    pass


def _reseed():
    # Verdicts are reproducible: a candidate (or test) drawing from `random` draws the same numbers in every
    # run, and each test of a check program starts from the same state whatever ran before it.
    import random

    random.seed(0)


def _run_program(cfg, ws, text, send, results):
    import builtins
    import signal
    import types

    path = os.path.join(ws, cfg["program"])
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    mod = types.ModuleType("__main__")
    mod.__file__ = path
    mod.__builtins__ = builtins
    mod.__loader__ = None
    mod.__spec__ = None
    sys.modules["__main__"] = mod
    sys.argv = [path]  # like `python3 -I program.py`: the program's folder is not on sys.path
    os.chdir(ws)
    _alarm = getattr(signal, "alarm", None)
    _signal = signal.signal
    _SIGALRM = getattr(signal, "SIGALRM", None)
    per_test = _int(cfg.get("perTestTimeout") or 0)
    try:
        code = compile(text, path, "exec", dont_inherit=True)
        exec(code, mod.__dict__)
    except _BaseException as e:
        return _describe(e)
    namespace = mod.__dict__

    def on_alarm(signum, frame):
        raise _Timeout("timed out")

    for name in cfg.get("tests") or []:
        fn = _dict.get(namespace, name)
        if not _callable(fn):
            rec = {"t": "test", "id": name, "outcome": "missing", "message": "the program defines no test %s" % name}
        else:
            use_alarm = per_test > 0 and _alarm is not None and _SIGALRM is not None
            try:
                if use_alarm:
                    _signal(_SIGALRM, on_alarm)
                    _alarm(per_test)
                try:
                    _reseed()
                    fn()
                    rec = {"t": "test", "id": name, "outcome": "passed"}
                finally:
                    if use_alarm:
                        _alarm(0)
            except _Timeout:
                rec = {"t": "test", "id": name, "outcome": "timeout", "message": "timed out after %d s" % per_test}
            except _BaseException as e:
                rec = {"t": "test", "id": name, "outcome": "failed", "message": _describe(e)}
        results.append(rec)
        send(rec)
    return None


def _parse_unittest_args(args):
    opts = {"names": [], "discover": None, "patterns": []}
    i = 0
    if args and args[0] == "discover":
        d = {"start": ".", "pattern": "test*.py", "top": None}
        pos = []
        i = 1
        while i < _len(args):
            a = args[i]
            if a in ("-s", "--start-directory"):
                d["start"] = args[i + 1]
                i += 2
            elif a in ("-p", "--pattern"):
                d["pattern"] = args[i + 1]
                i += 2
            elif a in ("-t", "--top-level-directory"):
                d["top"] = args[i + 1]
                i += 2
            elif a == "-k":
                opts["patterns"].append(args[i + 1])
                i += 2
            elif a.startswith("-"):
                i += 1
            else:
                pos.append(a)
                i += 1
        for k, v in zip(("start", "pattern", "top"), pos):
            d[k] = v
        opts["discover"] = d
        return opts
    while i < _len(args):
        a = args[i]
        if a == "-k":
            opts["patterns"].append(args[i + 1])
            i += 2
        elif a.startswith("-"):
            i += 1
        else:
            opts["names"].append(a[:-3].replace("/", ".") if a.endswith(".py") else a)
            i += 1
    if not opts["names"]:
        opts["discover"] = {"start": ".", "pattern": "test*.py", "top": None}
    return opts


def _run_unittest(cfg, ws, send, results):
    sys.path.insert(0, ws)  # like `python -m unittest` run from the repository root
    os.chdir(ws)
    sys.argv = ["python -m unittest"] + _list(cfg.get("testArgs") or [])
    import unittest

    opts = _parse_unittest_args(_list(cfg.get("testArgs") or []))
    by_id = {}

    def put(test, outcome, message=None):
        try:
            tid = test.id()
        except _BaseException:
            tid = "<unknown test>"
        prev = by_id.get(tid)
        rank = {"passed": 0, "skipped": 0, "expected-failure": 0, "unexpected-success": 1, "failed": 2, "error": 3}
        if prev is not None and rank.get(prev["outcome"], 0) >= rank.get(outcome, 0):
            return
        rec = {"t": "test", "id": tid, "outcome": outcome}
        if message:
            rec["message"] = message[-2000:]
        if prev is None:
            results.append(rec)
        else:
            results[results.index(prev)] = rec
        by_id[tid] = rec
        send(rec)

    class Recorder(unittest.TestResult):
        def addSuccess(self, test):
            super().addSuccess(test)
            put(test, "passed")

        def addFailure(self, test, err):
            super().addFailure(test, err)
            put(test, "failed", self._text(err, test))

        def addError(self, test, err):
            super().addError(test, err)
            put(test, "error", self._text(err, test))

        def addSkip(self, test, reason):
            super().addSkip(test, reason)
            put(test, "skipped", _safe_text(reason, 300))

        def addExpectedFailure(self, test, err):
            super().addExpectedFailure(test, err)
            put(test, "expected-failure")

        def addUnexpectedSuccess(self, test):
            super().addUnexpectedSuccess(test)
            put(test, "unexpected-success", "marked expectedFailure but passed")

        def addSubTest(self, test, subtest, err):
            super().addSubTest(test, subtest, err)
            if err is not None:
                failed = _isinstance(err[0], _type) and issubclass(err[0], getattr(test, "failureException", AssertionError))
                put(test, "failed" if failed else "error", "%s\n%s" % (_safe_text(subtest, 300), self._text(err, test)))

        def _text(self, err, test):
            try:
                return self._exc_info_to_string(err, test)
            except _BaseException as e:
                return _describe(e, with_tb=False)

    loader = unittest.TestLoader()
    if opts["patterns"]:
        loader.testNamePatterns = ["*%s*" % p if "*" not in p else p for p in opts["patterns"]]
    try:
        if opts["discover"]:
            d = opts["discover"]
            suite = loader.discover(d["start"], d["pattern"], d["top"])
        else:
            suite = loader.loadTestsFromNames(opts["names"])
    except _BaseException as e:
        return _describe(e)
    result = Recorder()
    try:
        result.startTestRun()
        suite.run(result)
        result.stopTestRun()
    except _BaseException as e:
        return "the test run stopped: " + _describe(e)
    return None


def _run_pytest(cfg, ws, send, results):
    sys.path.insert(0, ws)
    os.chdir(ws)
    try:
        import pytest
    except ImportError as e:
        # the environment's problem, not the candidate's: reported as a harness error
        raise RuntimeError("pytest is not installed for %s: %s" % (sys.executable, e))

    class Plugin:
        def pytest_runtest_logreport(self, report):
            when, outcome = report.when, report.outcome
            if when != "call" and outcome == "passed":
                return
            if hasattr(report, "wasxfail"):
                out = "expected-failure" if outcome == "skipped" else "unexpected-success"
            elif outcome == "passed":
                out = "passed"
            elif outcome == "skipped":
                out = "skipped"
            else:
                out = "failed" if when == "call" else "error"
            rec = {"t": "test", "id": report.nodeid, "outcome": out}
            if outcome == "failed":
                rec["message"] = _safe_text(getattr(report, "longreprtext", ""), 100000)[-2000:]
            for i, prev in enumerate(results):
                if prev["id"] == report.nodeid:
                    if prev["outcome"] in ("failed", "error"):
                        return
                    results[i] = rec
                    break
            else:
                results.append(rec)
            send(rec)

        def pytest_collectreport(self, report):
            if report.failed:
                rec = {"t": "test", "id": report.nodeid or "<collection>", "outcome": "error",
                       "message": ("collection failed: " + _safe_text(getattr(report, "longreprtext", ""), 100000))[-2000:]}
                results.append(rec)
                send(rec)

    args = _list(cfg.get("testArgs") or []) + ["-p", "no:cacheprovider"]
    try:
        rc = pytest.main(args, plugins=[Plugin()])
    except _BaseException as e:
        return "pytest stopped: " + _describe(e)
    cfg["_pytest_rc"] = _int(rc)
    return None


# ---------------------------------------------------------------------------------------------

def main(here=None):
    raw = _read_all(0)
    try:
        fd = os.open(os.devnull, os.O_RDONLY)
        os.dup2(fd, 0)
        os.close(fd)
    except OSError:
        pass
    import json
    cfg = json.loads(raw.decode("utf-8"))
    key = bytes.fromhex(cfg.pop("nonce"))
    del raw
    try:
        os.set_inheritable(3, False)  # the candidate's subprocesses do not get the channel
    except OSError:
        pass
    send = _make_channel(3, key)
    del key
    _reseed()
    out, err = sys.stdout, sys.stderr
    results = []
    try:
        if cfg.get("limits"):
            _apply_limits(cfg["limits"])
        ws = _prepare_workspace(cfg)
        here = os.path.abspath(here or os.path.dirname(os.path.abspath(__file__)))
        search_path = [p for p in sys.path if p and os.path.abspath(p) != here]
        sys.path.insert(0, here)  # -I leaves the script's folder off sys.path
        import _opencoder_check as check
        sys.path.remove(here)

        target = dict(cfg["target"])
        if target["kind"] == "file":
            with open(os.path.join(ws, target["file"]), encoding="utf-8") as f:
                target["file_text"] = f.read()
        try:
            if cfg["mode"] == "facts":
                send({"t": "facts", "facts": check.context_facts(target, ws, search_path)})
                return
            analysis = check.analyze(target, cfg["candidate"], ws, search_path, cfg.get("facts"), cfg.get("static", True))
        except check.TaskProblem as e:
            send({"t": "task-error", "message": _safe_text(e)})
            return
        send({"t": "static", "findings": analysis["findings"], "blocking": analysis["blocking"]})
        if analysis["blocking"] or cfg.get("staticOnly"):
            send({"t": "done", "results": [], "ran": False, "maxrss": _max_rss()})
            return
        text = analysis["spliced"]
        del sys.modules["_opencoder_check"]
        mode = cfg["mode"]
        if mode == "program":
            load_error = _run_program(cfg, ws, text, send, results)
        else:
            with open(os.path.join(ws, target["file"]), "w", encoding="utf-8") as f:
                f.write(text)
            runner = _run_unittest if mode == "unittest" else _run_pytest
            load_error = runner(cfg, ws, send, results)
        done = {"t": "done", "results": results, "ran": True, "maxrss": _max_rss()}
        if load_error is not None:
            done["loadError"] = load_error
        if "_pytest_rc" in cfg:
            done["pytestExit"] = cfg["_pytest_rc"]
        send(done)
    except _BaseException as e:
        send({"t": "harness-error", "message": _describe(e)})
    finally:
        for stream in (out, err, sys.stdout, sys.stderr):
            try:
                stream.flush()
            except _BaseException:
                pass
        # Skip atexit handlers and non-daemon threads the candidate may have left behind.
        _exit(0)


if __name__ == "__main__":
    main(os.path.dirname(os.path.abspath(__file__)))
