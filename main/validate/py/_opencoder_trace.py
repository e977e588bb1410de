"""The repository's own test suite, run once with a call tracer: which repository functions each test calls.

Mining (main/benchmarks/mining/) runs this in the sandbox, as it runs a candidate's tests: the engine writes one
JSON document to stdin (the workspace, the files to copy, the test command's arguments, the repository's source
files and test files) and reads records from fd 3, one JSON object per line:

- `{"t": "start", "id": ...}` when a test starts (the last one names a test that hung);
- `{"t": "test", "id": ..., "outcome": ..., "ms": ..., "calls": [[file, qualname, depth], ...]}` when it ends;
- `{"t": "outside", "phase": "import" | "fixtures", "calls": [...]}`: calls no test made (a module calling its
  own function when imported, a class fixture);
- `{"t": "load-error", "message": ...}` when the tests cannot be loaded, and `{"t": "done"}` at the end.

A call's depth is 1 when test code called the function itself, 2 when a repository function called from test code
did, and so on (the repository's own frames between the test and the call, counted). Only functions of the named
source files are recorded, by their code's qualified name; nested functions (`f.<locals>.g`) are left out.

With `"trace": false` the same suite runs with no tracer: the benchmark's plain run to compare with.
The repository is the analyst's own and runs here only in the sandbox; nothing of it is trusted with the engine.
"""

import json
import os
import signal
import sys
import time

import _opencoder_harness as _harness  # its workspace copy (imported while the harness folder is on the path)

_OUT = None
_MAX_WALK = 64
# Walks per function and test: a function called (or a generator resumed) thousands of times in one test has shown
# its smallest depth long before; later calls only cost time.
_MAX_WALKS = 32


def _emit(rec):
    try:
        os.write(_OUT, (json.dumps(rec, separators=(",", ":")) + "\n").encode("utf-8", "replace"))
    except OSError:
        pass


def _text(e, limit=2000):
    try:
        import traceback

        return "".join(traceback.format_exception(type(e), e, e.__traceback__, limit=-6))[-limit:]
    except BaseException:
        return type(e).__name__


class _TestTimeout(Exception):
    """Raised inside a test that ran past its time (an Exception, so the framework records an error and goes on)."""


class _Tracer:
    """Per-test call records. Code objects are classified once: a source function, test code, or anything else."""

    SRC, TEST, OTHER = 1, 2, 3

    def __init__(self, ws, sources, tests):
        real = os.path.realpath
        self.sources = {real(os.path.join(ws, rel)): rel for rel in sources}
        self.tests = {real(os.path.join(ws, rel)) for rel in tests}
        self.kinds = {}  # code -> (kind, key)
        self.calls = {}  # key -> smallest depth, for the test (or phase) at hand
        self.walks = {}  # key -> walks made for it in the test at hand
        self.real = {}

    def _classify(self, code):
        fn = code.co_filename
        r = self.real.get(fn)
        if r is None:
            r = os.path.realpath(fn) if fn and not fn.startswith("<") else ""
            self.real[fn] = r
        rel = self.sources.get(r)
        if rel is not None:
            q = getattr(code, "co_qualname", code.co_name)
            got = (self.OTHER, None) if "<" in q else (self.SRC, (rel, q))
        elif r in self.tests:
            got = (self.TEST, None)
        else:
            got = (self.OTHER, None)
        self.kinds[code] = got
        return got

    def hook(self, frame, event, arg):
        kinds = self.kinds
        got = kinds.get(frame.f_code)
        if got is None:
            got = self._classify(frame.f_code)
        if got[0] != 1:
            return None
        key = got[1]
        calls = self.calls
        if calls.get(key) == 1:
            return None
        walks = self.walks.get(key, 0)
        if walks >= _MAX_WALKS:
            return None
        self.walks[key] = walks + 1
        depth = 1
        f = frame.f_back
        n = 0
        found = False
        while f is not None and n < _MAX_WALK:
            k = kinds.get(f.f_code)
            if k is None:
                k = self._classify(f.f_code)
            if k[0] == 2:
                found = True
                break
            if k[0] == 1:
                depth += 1
            f = f.f_back
            n += 1
        if not found:
            depth = 99  # reached from the framework (a callback, a fixture), not from test code
        prev = calls.get(key)
        if prev is None or depth < prev:
            calls[key] = depth
        return None

    def take(self):
        got, self.calls, self.walks = self.calls, {}, {}
        return sorted([k[0], k[1], d] for k, d in got.items())


def _why(err):
    """An outcome's exception, in one line: its type and message."""
    try:
        return "%s: %s" % (err[0].__name__, str(err[1])[:400])
    except BaseException:
        return "an exception"


def _on_alarm(signum, frame):
    raise _TestTimeout("the test ran past its time limit while the suite was traced")


def main(here=None):
    global _OUT
    cfg = json.loads(sys.stdin.read())
    _OUT = os.dup(3)
    os.close(3)
    os.set_inheritable(_OUT, False)
    ws = _harness._prepare_workspace(cfg)
    for k, v in (cfg.get("env") or {}).items():
        os.environ[k] = v
    os.chdir(ws)
    extra = [os.path.normpath(os.path.join(ws, p)) for p in cfg.get("pythonPath") or []]
    sys.path[:] = [ws] + extra + [p for p in sys.path if p and p != ws and p not in extra]
    per_test = float(cfg.get("perTestTimeout") or 0)
    if per_test > 0 and hasattr(signal, "setitimer"):
        signal.signal(signal.SIGALRM, _on_alarm)
    tracer = _Tracer(ws, cfg.get("sources") or [], cfg.get("testFiles") or []) if cfg.get("trace", True) else None
    state = {"id": None, "outcome": None, "t0": 0.0, "message": None}

    def start(test_id):
        if tracer is not None:
            calls = tracer.take()
            if calls:
                _emit({"t": "outside", "phase": "fixtures", "calls": calls})
        state["id"], state["outcome"], state["t0"], state["message"] = test_id, None, time.perf_counter(), None
        _emit({"t": "start", "id": test_id})
        if per_test > 0 and hasattr(signal, "setitimer"):
            signal.setitimer(signal.ITIMER_REAL, per_test)

    def outcome(value, message=None):
        if message and state["message"] is None:
            state["message"] = message[-500:]
        rank = {"passed": 0, "skipped": 0, "expected-failure": 0, "unexpected-success": 1, "failed": 2, "error": 3}
        if state["outcome"] is None or rank.get(value, 0) > rank.get(state["outcome"], 0):
            state["outcome"] = value

    def stop(test_id):
        if hasattr(signal, "setitimer"):
            signal.setitimer(signal.ITIMER_REAL, 0)
        rec = {"t": "test", "id": test_id, "outcome": state["outcome"] or "error", "ms": round((time.perf_counter() - state["t0"]) * 1000, 1)}
        if tracer is not None:
            rec["calls"] = tracer.take()
        if state["message"] and rec["outcome"] not in ("passed", "skipped", "expected-failure"):
            rec["message"] = state["message"]
        _emit(rec)
        state["id"] = None

    if tracer is not None:
        sys.settrace(tracer.hook)
        import threading

        threading.settrace(tracer.hook)
    try:
        if cfg.get("mode") == "pytest":
            err = _pytest(cfg, start, outcome, stop, tracer)
        else:
            err = _unittest(cfg, start, outcome, stop, tracer)
    except BaseException as e:
        err = "the test run stopped: " + _text(e)
    sys.settrace(None)
    if tracer is not None:
        calls = tracer.take()
        if calls:
            _emit({"t": "outside", "phase": "fixtures", "calls": calls})
    if err:
        _emit({"t": "load-error", "message": err})
    _emit({"t": "done"})
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except BaseException:
            pass
    os._exit(0)


def _unittest(cfg, start, outcome, stop, tracer):
    import unittest

    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    try:
        from _opencoder_runner import _load_suite, _parse_unittest_args
    finally:
        sys.path.pop(0)
    opts = _parse_unittest_args(list(cfg.get("testArgs") or []))
    sys.argv = ["python -m unittest"] + list(cfg.get("testArgs") or [])

    class Result(unittest.TestResult):
        def startTest(self, test):
            super().startTest(test)
            start(test.id())

        def stopTest(self, test):
            stop(test.id())
            super().stopTest(test)

        def addSuccess(self, test):
            outcome("passed")

        def addFailure(self, test, err):
            outcome("failed", _why(err))

        def addError(self, test, err):
            if hasattr(test, "_testMethodName"):
                outcome("error", _why(err))
            else:  # a class or module fixture failed: no startTest/stopTest pair
                _emit({"t": "test", "id": str(test), "outcome": "error", "ms": 0, "calls": [], "fixture": True})

        def addSkip(self, test, reason):
            outcome("skipped")

        def addExpectedFailure(self, test, err):
            outcome("expected-failure")

        def addUnexpectedSuccess(self, test):
            outcome("unexpected-success")

        def addSubTest(self, test, subtest, err):
            if err is not None:
                outcome("failed" if issubclass(err[0], test.failureException) else "error")

    loader = unittest.TestLoader()
    try:
        suite = _load_suite(loader, opts)
    except BaseException as e:
        return "the tests could not be loaded: " + _text(e)
    if tracer is not None:
        calls = tracer.take()
        if calls:
            _emit({"t": "outside", "phase": "import", "calls": calls})
    if loader.errors:
        _emit({"t": "load-errors", "messages": [str(m)[-1500:] for m in loader.errors[:20]], "count": len(loader.errors)})
    _emit({"t": "loaded", "count": suite.countTestCases()})
    result = Result()
    result.startTestRun()
    suite.run(result)
    result.stopTestRun()
    return None


def _pytest(cfg, start, outcome, stop, tracer):
    try:
        import pytest
    except ImportError as e:
        return "pytest is not installed for %s: %s" % (sys.executable, e)

    class Plugin:
        def pytest_collection_finish(self, session):
            if tracer is not None:
                calls = tracer.take()
                if calls:
                    _emit({"t": "outside", "phase": "import", "calls": calls})
            _emit({"t": "loaded", "count": len(session.items)})

        def pytest_runtest_logstart(self, nodeid, location):
            start(nodeid)

        def pytest_runtest_logreport(self, report):
            if hasattr(report, "wasxfail"):
                outcome("expected-failure" if report.outcome == "skipped" else "unexpected-success")
            elif report.outcome == "passed":
                if report.when == "call":
                    outcome("passed")
            elif report.outcome == "skipped":
                outcome("skipped")
            else:
                outcome("failed" if report.when == "call" else "error", str(getattr(report, "longreprtext", ""))[-500:])

        def pytest_runtest_logfinish(self, nodeid, location):
            stop(nodeid)

        def pytest_collectreport(self, report):
            if report.failed:
                _emit({"t": "load-errors", "messages": [str(getattr(report, "longreprtext", ""))[-1500:]], "count": 1})

    # A test module that cannot be collected is reported (pytest_collectreport) and the rest of the suite still runs.
    args = list(cfg.get("testArgs") or []) + ["-p", "no:cacheprovider", "-q", "--continue-on-collection-errors"]
    rc = pytest.main(args, plugins=[Plugin()])
    if int(rc) in (3, 4):
        return "pytest stopped with exit code %d (an internal or usage error)" % int(rc)
    return None
