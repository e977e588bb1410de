"""The test runner: the only process that loads the candidate.

The supervisor (_opencoder_harness.py) forks this process before it has read the engine's key,
so nothing of that key or of the engine's report channel is ever in this process. The runner
gets its own per-run key from the supervisor, builds the report function from it, and only then
loads code of the workspace.

In an isolated run the candidate runs in a process of its own (_opencoder_serve.py) and the
workspace holds a forwarding stub. In-process, the candidate runs here, and the defences live in
_opencoder_guard.py and _opencoder_integrity.py, executed into a private namespace before any
workspace code runs (see those files):

- nothing the candidate can reach without frames leads to the report function or to state that
  decides a verdict: the runner defines no class with methods, and what the framework calls (the
  result recorder's methods, the pytest plugin, the import finder, the signal functions, the target's
  wrapper and its result check) are stubs with no globals, which reach the runner only through
  sys.audit, answered only when no candidate code is on the stack;
- an audit hook (PEP 578) judges frames by code object (the candidate's own, and what it compiles or
  builds at run time, under whatever file name) and refuses enumerating the interpreter's objects,
  other threads' frames, new audit hooks, reading process memory, ctypes, raw signal handlers, fresh
  copies of builtin modules; and, while candidate code is on the stack, frames (but to traceback's
  own formatting), tracing, rebinding the code or defaults of functions the candidate did not write,
  importing the tests' modules, writing Python files;
- the test framework's classes, builtins, the tests' modules and the test program's names are
  snapshotted before the candidate loads and compared after it loaded and after every test; what
  changes while the target's module executes (the test module importing it is half-imported then),
  modules planted for the tests and pytest plugins registered by the candidate are errors too;
- the target is called through a wrapper swapped into its code (its own function object keeps its
  identity) whose callees are constants: it counts calls made while tests run and fails a test when
  the returned value (or one inside it, attributes included) has comparisons the candidate wrote or
  claims to equal objects it cannot equal, or when the call left a method of an argument or of the
  result shadowed on the instance;
- a check program's file holds the candidate's part alone: the tests are in this process's memory.

Records go to the supervisor as `<hmac-sha256 hex> <json>` lines on the report pipe, tagged with
this process's pid (a fork of the candidate's cannot speak for the runner).

Only builtin modules are imported before the workspace is first on sys.path (`resource` is imported
after the tests), so the tests import the workspace's copies, never ones the runner loaded first;
tracebacks are formatted by the runner itself. The process is not dumpable: the supervisor made
itself so before the fork.
"""

import sys
import os
import builtins
import marshal
import _signal
import _opencoder_wire as _wire  # from the runner's own folder (the supervisor puts it on the path)
import _opencoder_bridge as _bridge  # likewise: builtin imports only (it loads _opencoder_codec)
from _opencoder_codec import control_flow as _control_flow

_type = type
_str = str
_int = int
_bool = bool
_list = list
_tuple = tuple
_dict = dict
_len = len
_isinstance = isinstance
_callable = callable
_getattr = getattr
_id = id
_BaseException = BaseException
_startswith = str.startswith
_endswith = str.endswith
_getpid = os.getpid
_exit = os._exit
_FunctionType = type(lambda: 0)
_CodeType = type((lambda: 0).__code__)
_ModuleType = type(sys)
_Namespace = type(sys.implementation)
_real_signal = _signal.signal  # before the guard puts its stub in its place


def _safe_text(e, limit=2000):
    try:
        s = _str(e)
        if _type(s) is not _str:
            s = "<unprintable>"
    except _BaseException:
        s = "<unprintable>"
    return s[:limit]


_SOURCES = {}  # file -> its lines, for a file whose text on disk is not all of it (the check program in-process)


def _source_line(filename, lineno, cache=_SOURCES):
    lines = cache.get(filename)
    if lines is None:
        try:
            with open(filename, "rb") as f:
                lines = f.read().decode("utf-8", "replace").split("\n")
        except _BaseException:
            lines = []
        cache[filename] = lines
    return lines[lineno - 1].strip() if 0 < lineno <= _len(lines) else ""


def _describe(e, with_tb=True, limit=2000):
    """The exception as a traceback's last frames and its message, formatted here: the traceback
    module would be the workspace's copy (or have to be imported before the workspace is on the path)."""
    try:
        name = _type(e).__name__
        if _type(name) is not _str:
            name = "Exception"
    except _BaseException:
        name = "Exception"
    text = "%s: %s" % (name, _safe_text(e, 500))
    if not with_tb:
        return text
    try:
        frames = []
        tb = e.__traceback__
        while tb is not None and _len(frames) < 200:
            co = tb.tb_frame.f_code
            frames.append('  File "%s", line %d, in %s\n    %s' % (co.co_filename, tb.tb_lineno, co.co_name, _source_line(co.co_filename, tb.tb_lineno)))
            tb = tb.tb_next
        body = "Traceback (most recent call last):\n" + "\n".join(frames[-6:]) + "\n" + text
        return body[-limit:]
    except _BaseException:
        return text


class _Private:
    resource = None


def _resource():
    # Imported when needed, after the tests: an extension module of the interpreter's own.
    if _Private.resource is None:
        try:
            import resource
            _Private.resource = resource
        except _BaseException:
            return None
    return _Private.resource


def _max_rss():
    res = _resource()
    try:
        scale = 1 if sys.platform == "darwin" else 1024
        s = res.getrusage(res.RUSAGE_SELF).ru_maxrss
        c = res.getrusage(res.RUSAGE_CHILDREN).ru_maxrss
        return _int(max(s, c) * scale)
    except _BaseException:
        return None


def _apply_limits(limits):
    if not limits:
        return  # prlimit set them already (all but macOS and Windows)
    res = _resource()
    if res is not None:
        _wire.apply_limits(limits, res)


# ---------------------------------------------------------------------------------------------
# The in-process defences (_opencoder_guard.py, _opencoder_integrity.py), loaded privately

def _load_guard(runner_file):
    """The guard's files executed into a namespace of their own, whose builtins are a copy taken now: no
    module, class or builtin the candidate can see leads there (see _opencoder_guard.py)."""
    import _frozen_importlib_external as external  # frozen: no workspace file can stand in for it

    here = os.path.dirname(runner_file)
    ns = {"__name__": "_opencoder_guard", "__builtins__": _dict(builtins.__dict__)}
    for name in ("_opencoder_guard", "_opencoder_stubs", "_opencoder_integrity"):
        path = os.path.join(here, name + ".py")
        ns["__file__"] = path
        exec(external.SourceFileLoader(name, path).get_code(name), ns)
    return ns


def _Candidate(file, spans, guard=None):
    """What counts as the candidate's code. In-process the guard knows it by code object (api set); in an
    isolated run (the workspace holds only the forwarding stub) the stub's file and line spans say it."""
    cand = _Namespace(file=file, spans=_tuple(_tuple(s) for s in spans) if spans is not None else None, guard=guard, api=None)

    def has_line(line):
        if cand.spans is None or line is None:
            return True
        for a, b in cand.spans:
            if a <= line <= b:
                return True
        return False

    def is_code(code):
        if cand.api is not None:
            return cand.api.is_code(code)
        return _type(code) is _CodeType and code.co_filename == cand.file and has_line(code.co_firstlineno)

    def set_spans(spans):
        cand.spans = _tuple(_tuple(x) for x in spans)
        if cand.api is not None:
            cand.api.set_spans(cand.spans)

    cand.has_line, cand.is_code, cand.set_spans = has_line, is_code, set_spans
    return cand


def _nothing(*args, **kwargs):
    return []


def _Snapshot(cand, skip_files):
    """Identities of what the candidate must not alter (_opencoder_integrity.make_snapshot). Off in an isolated
    run: no candidate code runs in this process, so nothing here is its doing."""
    if _Snapshot.off or cand.guard is None:
        return _Namespace(modules={}, classes={}, skip_files=skip_files, add_module=_nothing, add_class=_nothing,
                          add_all=_nothing, changes=_nothing, tampering=_nothing)
    return cand.guard["make_snapshot"](skip_files)


_Snapshot.off = False


def _find_function(root, qualname, cand):
    """The candidate's function object behind qualname in root (a module or namespace dict)."""
    obj = root
    for part in qualname.split("."):
        if _type(obj) is _dict:
            obj = obj.get(part)
        else:
            try:
                obj = _type(obj).__getattribute__(obj, part) if _type(obj) is _ModuleType else obj.__dict__.get(part)
            except _BaseException:
                obj = None
        if obj is None:
            return None
    for _ in range(8):
        t = _type(obj)
        if t is _FunctionType:
            return obj if cand.is_code(obj.__code__) else _find_wrapped(obj, cand)
        if t in (staticmethod, classmethod):
            obj = obj.__func__
        elif t is property:
            obj = obj.fget
        else:
            w = _getattr(obj, "__wrapped__", None)
            if w is None:
                return None
            obj = w
    return None


def _find_wrapped(fn, cand):
    for _ in range(8):
        fn = _getattr(fn, "__wrapped__", None)
        if _type(fn) is _FunctionType and cand.is_code(fn.__code__):
            return fn
        if fn is None:
            return None
    return None


# ---------------------------------------------------------------------------------------------
# Modes

def _Run(cfg, send, events, cand):
    """State shared by a mode and main: a namespace of plain attributes and closures (no class of the runner's
    has methods: their globals would lead from object.__subclasses__() back to this module)."""
    run = _Namespace(cfg=cfg, send=send, events=events, cand=cand, targets=[], clones=[], dispatching=False,
                     reported=set(), snapshot=None, guard=cand.guard, api=None, armed=False, check=None,
                     bridge=None,    # isolated runs: the connection to the candidate process
                     prelude=None,   # isolated check programs: ids of what the code before the candidate defined
                     current=None,   # the test running now (its id), for control flow
                     flow={})        # test id -> the control-flow exception classes the target raised in it

    def event(kind, detail):
        key = (kind, detail)
        if key in run.reported:
            return
        run.reported.add(key)
        run.send({"t": "event", "kind": kind, "detail": detail[:500]})

    def flush_events():
        while run.events:
            kind, what = run.events.pop(0)
            event(kind, what)

    def check_integrity(strict_only, lenient=False, only=None):
        if run.snapshot is None:
            return
        for what in run.snapshot.tampering(strict_only, lenient, only)[:5]:
            event("tampering", "the candidate altered %s, which it did not define" % what)

    def set_in_test(on):
        run.api.set_in_test(on)

    def calls():
        return run.api.calls()

    def wrap_targets(namespaces):
        if not run.dispatching:
            run.check = run.guard["make_check"]()
            run.dispatching = True
        for ns in namespaces:
            fn = _find_function(ns, run.cfg["qualname"], run.cand)
            if fn is None or any(fn is t for t in run.targets):
                continue
            # Calls are counted by the guard (sys.audit is the one way to it), the result checked by a stub.
            clone = run.guard["wrap_function"](fn, _len(run.clones), sys.audit, run.check)
            if clone:
                run.targets.append(fn)
                run.clones.append(clone)

    def flow(cls):
        """The target (or what it returned) raised an exception of cls: None when the tests may see it, else why not.
        Control flow (StopIteration, SkipTest, SystemExit …) crosses only into a test where the reference raised
        the same class (the reference's own run records them); the tests' loops and outcomes are theirs."""
        name = _control_flow(cls)
        if name is None:
            return None
        tid = run.current if _type(run.current) is _str else "(outside any test)"
        seen = run.flow.get(tid)
        if seen is None:
            seen = run.flow[tid] = []
        if name not in seen:
            seen.append(name)
        allowed = run.cfg.get("controlFlow")
        if allowed is None or name in (allowed.get(tid) or ()):
            return None
        why = "the target raised %s in %s, where the reference raised none: control flow that belongs to the tests" % (name, tid)
        event("control-flow", why)
        return "opencoder: " + why

    run.event, run.flush_events, run.check_integrity = event, flush_events, check_integrity
    run.on_flow = flow
    run.set_in_test, run.calls, run.wrap_targets = set_in_test, calls, wrap_targets
    return run


def _reseed():
    # Verdicts are reproducible: `random` draws the same numbers in every run and test.
    r = sys.modules.get("random")
    if r is not None:
        try:
            r.seed(0)
        except _BaseException:
            pass


class _Timeout(_BaseException):
    pass


def _run_program(run, cfg, ws):
    """Check-template mode: the test program in __main__, the candidate in a module of its own."""
    prog = os.path.join(ws, cfg["program"])
    P = _ModuleType("__main__")
    P.__file__ = prog
    P.__builtins__ = builtins
    P.__loader__ = None
    P.__spec__ = None
    sys.modules["__main__"] = P
    sys.argv = [prog]
    pd = P.__dict__
    loaded = _dict.fromkeys(sys.modules)
    _SOURCES[prog] = cfg["before"].split("\n")
    try:
        exec(compile(cfg["before"], prog, "exec", dont_inherit=True), pd)
    except _BaseException as e:
        return "the test program's code before the candidate failed: " + _describe(e)
    _reseed()
    # The program's code before the candidate ran while the supervisor checked the candidate.
    _second_frame(run)
    snap = _Snapshot(run.cand, set())
    # Modules the program made up itself (a timeout_decorator shim): nothing of theirs may change, no name be added.
    made_up = ["builtins", "__main__"]
    for name, mod in _list(sys.modules.items()):
        if name not in loaded and _isinstance(mod, _ModuleType) and _getattr(mod, "__file__", None) is None:
            snap.add_module(name, mod, strict=True, closed=True)
            made_up.append(name)
    snap.add_all()
    run.snapshot = snap
    before = _dict(pd)
    if _getattr(run, "bridge", None) is not None:
        run.prelude = frozenset(_id(v) for v in before.values())
        run.prelude_values = before  # keeps those ids alive
        err = _candidate_loaded(run)
        if err is not None:
            return err
    C = _ModuleType("__main__")
    cd = C.__dict__
    cd.update(before)
    C.__file__ = prog
    cand_lines, after_lines = cfg["candidate"].split("\n"), cfg["after"].split("\n")
    first, last = run.cand.spans[0] if run.cand.spans else (1, 0)
    full = _SOURCES[prog]
    full = (full + [""] * first)[:first - 1] + cand_lines[first - 1:last] + after_lines[last:]
    _SOURCES[prog] = full  # the whole program, for tracebacks (the file holds the candidate's part alone)
    try:
        code = compile(cfg["candidate"], prog, "exec", dont_inherit=True)
        if run.armed:
            run.api.register_program(code)  # the candidate's code objects, whatever file name they carry
        exec(code, cd)
    except _BaseException as e:
        return _describe(e)
    run.flush_events()
    # P's own dict must still be what the program made it (a candidate reaching __main__ directly).
    for k in set(pd) | set(before):
        if pd.get(k, before) is not before.get(k, pd):
            run.event("tampering", "the candidate altered the test program's name %s" % k)
    protected = set(cfg.get("protected") or [])
    entry = cfg["qualname"].split(".")[0]
    for k, v in _list(cd.items()):
        if _startswith(k, "__") and _endswith(k, "__"):
            continue
        old = before.get(k, cd)
        if old is v:
            continue
        if k in protected and k != entry:
            run.event("tampering", "the candidate redefines %s, a name the tests use (decorator, import or test)" % k)
        elif old is cd or k == entry:
            pd[k] = v
    snap.modules.pop("__main__", None)
    snap.add_module("__main__", P, strict=True)
    run.check_integrity(False)
    run.wrap_targets([cd])
    # The rest of the program is the tests' own code: a check program may compute its cases as it
    # loads (CoderEval's templates do), so calls made then count as the tests' calls.
    run.set_in_test(True)
    run.current = "(loading the tests)"
    try:
        exec(compile(cfg["after"], prog, "exec", dont_inherit=True), pd)
    except _BaseException as e:
        return "the tests failed to load: " + _describe(e)
    finally:
        run.set_in_test(False)
        run.current = None
    tests = [(name, _dict.get(pd, name)) for name in cfg.get("tests") or []]
    _enter_shared_cwd(run)
    send, flush = run.send, run.flush_events
    per_test = _int(cfg.get("perTestTimeout") or 0)
    use_alarm = per_test > 0 and _getattr(_signal, "SIGALRM", None) is not None
    SIGALRM = _getattr(_signal, "SIGALRM", None)
    alarm = _getattr(_signal, "alarm", None)

    on_alarm = run.guard["alarm_handler"](_Timeout)  # a stub: getsignal hands it out

    for name, fn in tests:
        if not _callable(fn):
            rec = {"t": "test", "id": name, "outcome": "missing", "message": "the program defines no test %s" % name}
        else:
            try:
                if use_alarm:
                    _real_signal(SIGALRM, on_alarm)
                    alarm(per_test)
                try:
                    _reseed()
                    run.current = name
                    run.set_in_test(True)
                    fn()
                    rec = {"t": "test", "id": name, "outcome": "passed"}
                finally:
                    run.set_in_test(False)
                    run.current = None
                    if use_alarm:
                        alarm(0)
            except _Timeout:
                rec = {"t": "test", "id": name, "outcome": "timeout", "message": "timed out after %d s" % per_test}
            except _BaseException as e:
                rec = {"t": "test", "id": name, "outcome": "failed", "message": _describe(e)}
        flush()
        run.check_integrity(True, only=made_up)  # the rest once, after the last test
        send(rec)
    return None


def _target_modules(run, ws):
    want = os.path.join(ws, run.cfg["file"])
    found = []
    for _name, mod in _list(sys.modules.items()):
        f = _getattr(mod, "__file__", None) if _type(mod) is _ModuleType else None
        if _type(f) is _str and f == want:
            found.append(mod)
    return found


def _loaded_from(run, ws):
    """Where the tests' copy of the target module came from: the workspace file, another file, or None."""
    if _target_modules(run, ws):
        return run.cfg["file"]
    name = run.cfg.get("module")
    mod = sys.modules.get(name) if name else None
    if mod is None:
        return None
    f = _getattr(mod, "__file__", None)
    return _safe_text(f, 500) if f else "<%s: no file (builtin or frozen)>" % name


def _install_target_finder(run, ws):
    """Wraps the target in every module made from the target's file, when it is made: tests that
    import a fresh copy (test.support.import_fresh_module) or import it under a second name still
    call through the wrapper. In-process, what changes while that module executes (the candidate's
    module-level code with it) is checked: _opencoder_integrity.window_end."""
    import _frozen_importlib_external as external  # frozen: no workspace file can stand in for it

    want = os.path.join(ws, run.cfg["file"])
    stem = os.path.basename(want)[:-3] if want.endswith(".py") else None
    if stem == "__init__":
        stem = os.path.basename(os.path.dirname(want))
    guard, armed = run.guard, run.armed

    def loading(op, module):
        if op == "start":
            if armed:
                guard["window_start"](module)
        elif op == "abort":
            guard["window_abort"]()
        else:
            if armed:
                for what in guard["window_end"](module)[:5]:
                    run.events.append(("tampering", "the candidate altered %s while its module loaded, which it did not define" % what))
            run.wrap_targets([module])

    if stem:
        # A namespace of stubs, not a class of the runner's: it sits in sys.meta_path for anyone to see.
        sys.meta_path.insert(0, guard["target_finder"](stem, want, external.PathFinder, loading))


def _run_unittest(run, cfg, ws):
    sys.argv = ["python -m unittest"] + _list(cfg.get("testArgs") or [])
    import unittest

    run.snapshot.add_all()  # the framework as loaded, before any test module (or the candidate) is

    opts = _parse_unittest_args(_list(cfg.get("testArgs") or []))
    send, flush = run.send, run.flush_events
    rank = {"passed": 0, "skipped": 0, "expected-failure": 0, "unexpected-success": 1, "failed": 2, "error": 3}
    _safe = _safe_text

    result = unittest.TestResult()
    counts, keys, outcomes = {}, {}, {}

    def key_of(test):
        k = keys.get(_id(test))
        if k is None:
            try:
                base = test.id()
                if _type(base) is not _str:
                    base = "<unknown test>"
            except _BaseException:
                base = "<unknown test>"
            n = counts.get(base, 0) + 1
            counts[base] = n
            k = base if n == 1 else "%s#%d" % (base, n)  # two doctests with one name stay two tests
            keys[_id(test)] = k
        return k

    def put(test, outcome, message=None):
        k = key_of(test)
        prev = outcomes.get(k)
        if prev is not None and rank.get(prev[0], 0) >= rank.get(outcome, 0):
            return
        outcomes[k] = (outcome, message)

    def emit(k):
        got = outcomes.pop(k, None)
        if got is None:
            got = ("error", "the test framework reported no outcome for this test")
        flush()
        run.check_integrity(True)
        rec = {"t": "test", "id": k, "outcome": got[0]}
        if got[1]:
            rec["message"] = got[1][-2000:]
        send(rec)

    def text(err, test):
        try:
            return result._exc_info_to_string(err, test)
        except _BaseException as e:
            return _describe(e, with_tb=False)

    def handle(op, test, detail):
        """What unittest told the result object (its methods are the guard's stubs: they hand this
        function over only when no candidate code is on the stack)."""
        if op == "startTest":
            run.current = key_of(test)
            _reseed()
            run.set_in_test(True)
        elif op == "stopTest":
            run.set_in_test(False)
            run.current = None
            k = key_of(test)
            keys.pop(_id(test), None)
            emit(k)
        elif op == "addSuccess":
            put(test, "passed")
        elif op == "addFailure":
            put(test, "failed", text(detail, test))
        elif op == "addError":
            put(test, "error", text(detail, test))
            if not hasattr(test, "_testMethodName"):  # setUpClass / module fixtures: no stopTest follows
                emit(key_of(test))
        elif op == "addSkip":
            put(test, "skipped", _safe(detail, 300))
        elif op == "addExpectedFailure":
            put(test, "expected-failure")
        elif op == "addUnexpectedSuccess":
            put(test, "unexpected-success", "marked expectedFailure but passed")
        elif op == "addSubTest":
            subtest, err = detail
            if err is not None:
                failed = _isinstance(err[0], _type) and issubclass(err[0], _getattr(test, "failureException", AssertionError))
                put(test, "failed" if failed else "error", "%s\n%s" % (_safe(subtest, 300), text(err, test)))

    run.guard["recorder"](result, handle)  # no class of the runner's among TestResult's subclasses
    try:
        suite = _load_suite(unittest.TestLoader(), opts)
    except _BaseException as e:
        return _describe(e)
    flush()
    run.check_integrity(False)
    run.snapshot.add_all()
    run.wrap_targets(_target_modules(run, ws))
    _enter_shared_cwd(run)
    try:
        result.startTestRun()
        suite.run(result)
        result.stopTestRun()
    except _BaseException as e:
        return "the test run stopped: " + _describe(e)
    return None


def _load_suite(loader, opts):
    """The tests `opts` (_parse_unittest_args) name, loaded as `python -m unittest` would (mining's tracer loads its
    suite through here too)."""
    if opts["patterns"]:
        loader.testNamePatterns = ["*%s*" % p if "*" not in p else p for p in opts["patterns"]]
    if opts["discover"]:
        d = opts["discover"]
        return loader.discover(d["start"], d["pattern"], d["top"])
    return loader.loadTestsFromNames(opts["names"])


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


def _run_pytest(run, cfg, ws):
    try:
        import pytest
    except ImportError as e:
        raise RuntimeError("pytest is not installed for %s: %s" % (sys.executable, e)) from e
    run.snapshot.add_all()
    send, flush = run.send, run.flush_events
    results = {}
    rank = {"passed": 0, "skipped": 0, "expected-failure": 0, "unexpected-success": 1, "failed": 2, "error": 3}
    guard = run.guard
    registry = _Namespace(pm=None, base=None)

    def registry_check():
        # A plugin the candidate registered (its config is one attribute away from the assertion rewriting
        # hook in sys.meta_path) could rewrite every report.
        if registry.base is not None:
            for what in guard["pm_problems"](registry.base, registry.pm)[:5]:
                run.event("tampering", "the candidate altered %s, which it did not define" % what)

    def logreport(report):
        when, outcome = report.when, report.outcome
        if outcome == "passed" and when != "call":
            return
        if hasattr(report, "wasxfail"):
            out = "expected-failure" if outcome == "skipped" else "unexpected-success"
        elif outcome == "passed":
            out = "passed"
        elif outcome == "skipped":
            out = "skipped"
        else:
            out = "failed" if when == "call" else "error"
        msg = _safe_text(_getattr(report, "longreprtext", ""), 100000)[-2000:] if outcome == "failed" else None
        prev = results.get(report.nodeid)
        if prev is not None and rank.get(prev[0], 0) >= rank.get(out, 0):
            return
        results[report.nodeid] = (out, msg)

    def handle(op, a, b):
        """pytest's hooks (the plugin's are the guard's stubs: they hand this function over only when no
        candidate code is on the stack, so a report the candidate makes up through pytest's hook relay
        never gets here)."""
        if op == "pytest_collection":
            if run.armed:
                registry.pm = a.config.pluginmanager
                registry.base = guard["pm_state"](registry.pm)
        elif op == "pytest_collection_finish":
            _enter_shared_cwd(run)
            flush()
            registry_check()
            run.check_integrity(False, lenient=True)
            # From here on the framework is what pytest configured it to be: snapshot it afresh.
            if registry.base is not None:
                registry.base = guard["pm_state"](registry.pm)
            run.snapshot = _Snapshot(run.cand, run.snapshot.skip_files)
            run.snapshot.add_all()
            run.wrap_targets(_target_modules(run, ws))
        elif op == "pytest_sessionfinish":
            # Before pytest unconfigures (and so undoes its own patches of its classes).
            flush()
            registry_check()
            run.check_integrity(False)
            run.final_checked = True
        elif op == "pytest_runtest_logstart":
            run.current = a
            _reseed()
            run.set_in_test(True)
        elif op == "pytest_runtest_logfinish":
            run.set_in_test(False)
            run.current = None
            got = results.pop(a, None) or ("error", "pytest reported no outcome for this test")
            flush()
            registry_check()
            run.check_integrity(True)
            rec = {"t": "test", "id": a, "outcome": got[0]}
            if got[1]:
                rec["message"] = got[1]
            send(rec)
        elif op == "pytest_runtest_logreport":
            logreport(a)
        elif op == "pytest_collectreport":
            if a.failed:
                rec = {"t": "test", "id": a.nodeid or "<collection>", "outcome": "error",
                       "message": ("collection failed: " + _safe_text(_getattr(a, "longreprtext", ""), 100000))[-2000:]}
                send(rec)

    args = _list(cfg.get("testArgs") or []) + ["-p", "no:cacheprovider"]
    try:
        rc = pytest.main(args, plugins=[guard["pytest_plugin"](handle)])
    except _BaseException as e:
        return "pytest stopped: " + _describe(e)
    run.pytest_rc = _int(rc)
    return None


# ---------------------------------------------------------------------------------------------

def _read_exact(fd, n):
    chunks, got = [], 0
    while got < n:
        b = os.read(fd, min(n - got, 1 << 20))
        if not b:
            return None
        chunks.append(b)
        got += _len(b)
    return b"".join(chunks)


def _read_frame(fd):
    """One marshal frame from the supervisor (8-byte length first); None when it closed the pipe."""
    head = _read_exact(fd, 8)
    if head is None:
        return None
    body = _read_exact(fd, _int.from_bytes(head, "big"))
    return marshal.loads(body) if body is not None else None


def _second_frame(run):
    """The candidate part of the config: it comes once the supervisor's static checks passed.
    None (the pipe closed) means the supervisor needs nothing more: the runner just ends."""
    part = _read_frame(run.cfg_fd)
    try:
        os.close(run.cfg_fd)
    except OSError:
        pass
    if part is None:
        _exit(0)
    run.cfg.update(part)
    run.cand.set_spans(part.get("candSpans") or [])


def main(cfg_fd, rep_fd, note_fd, runner_file):
    # The private imports first: they overlap with the supervisor's own start and static checks.
    cfg = _read_frame(cfg_fd)
    if cfg is None:
        _exit(0)  # the supervisor needed no runner (facts, static checks only, a task problem)
    key = cfg.pop("key")
    send = _wire.make_sender(rep_fd, key, {"pid": _getpid()})
    del key
    try:
        os.set_inheritable(rep_fd, False)
    except OSError:
        pass
    _apply_limits(cfg.get("limits"))
    ws = cfg["ws"]
    # Nothing is the candidate's until the supervisor says which lines are (the second frame).
    cand = _Candidate(cfg["candFile"], (), _load_guard(runner_file))
    events = []
    run = _Run(cfg, send, events, cand)
    run.cfg_fd = cfg_fd
    isolated = _bool(cfg.get("isolated"))
    env = cfg.get("env") or {}
    for k, v in env.items():
        os.environ[k] = v
    os.chdir(ws)
    extra = [os.path.normpath(os.path.join(ws, p)) for p in cfg.get("pythonPath") or []]
    sys.path[:] = [ws] + extra + [p for p in sys.path if p and p != ws and p not in extra]
    send({"t": "env", "python": sys.executable or "", "version": sys.version.split()[0]})
    if isolated:
        # The candidate runs in another process: its calls cross as data, and the in-process
        # defences (which can misjudge the tests' own doings) have nothing to defend against here.
        _Snapshot.off = True
        _install_bridge(run, ws)
    else:
        # Before any workspace code runs: the audit hook, and stubs in place of what must not be called raw.
        run.api = cand.api = cand.guard["install"](cfg["candFile"], cfg["mode"] == "program", runner_file, note_fd, events, ws)
        run.api.endpoint("flow", None, run.on_flow)  # the target's wrapper asks, after a call that raised
        run.armed = True
    if run.api is None:
        run.api = cand.guard["install_light"]()  # counts the target's calls, answers the recorder's stubs
    load_error = None
    if cfg["mode"] != "program":
        _second_frame(run)  # the workspace holds the spliced target from here on
        run.snapshot = _Snapshot(cand, {os.path.join(ws, cfg["file"])})
        run.snapshot.add_all()
        _install_target_finder(run, ws)
        _seed_random()
        if isolated:
            load_error = _candidate_loaded(run)
    try:
        if load_error is not None:
            pass
        elif cfg["mode"] == "program":
            load_error = _run_program(run, cfg, ws)
        elif cfg["mode"] == "unittest":
            load_error = _run_unittest(run, cfg, ws)
        else:
            load_error = _run_pytest(run, cfg, ws)
        run.flush_events()
        if not _getattr(run, "final_checked", False):
            run.check_integrity(False)
        run.flush_events()
        done = {"t": "done", "maxrss": _max_rss()}
        if run.flow:
            done["flow"] = run.flow
        if load_error is not None:
            done["loadError"] = load_error
        pr = _getattr(run, "pytest_rc", None)
        if pr is not None:
            done["pytestExit"] = pr
        send({"t": "target", "loadedFrom": _loaded_from(run, ws) if cfg["mode"] != "program" else cfg["program"],
              "calls": run.calls() if run.targets else None})
        send(done)
    except _BaseException as e:
        send({"t": "runner-error", "message": _describe(e)})
    finally:
        for stream in (sys.stdout, sys.stderr, sys.__stdout__, sys.__stderr__):
            try:
                stream.flush()
            except _BaseException:
                pass
        _exit(0)


_BRIDGE_FD = 4


def _close_fd(fd):
    try:
        os.close(fd)
    except OSError:
        pass


# Standard-library modules whose plain data classes (named tuples, value classes, enums) a result may
# be an instance of; the repository's own modules are trusted by where they were loaded from.
_DATA_MODULES = frozenset(("collections", "datetime", "decimal", "fractions", "uuid", "pathlib", "ast", "_ast", "enum", "re",
                           "time", "types", "ipaddress", "argparse", "tokenize", "token", "difflib", "string", "calendar",
                           "zoneinfo", "numbers", "statistics", "urllib.parse"))
# Modules whose plain functions may be named back (a key or converter the candidate returns).
_FUNCTION_MODULES = frozenset(("operator", "math", "cmath", "string", "statistics", "functools", "itertools"))
# Builtin functions that may be named back: pure ones. Never exec, eval, compile, open, getattr …
_PURE_BUILTINS = frozenset(("abs", "all", "any", "ascii", "bin", "callable", "chr", "divmod", "format", "hash", "hex", "isinstance",
                            "issubclass", "iter", "len", "max", "min", "next", "oct", "ord", "pow", "repr", "round", "sorted", "sum"))
# Never: the test framework's own objects (mock.ANY equals anything), and the harness's.
_DESCRIPTORS = frozenset(("getset_descriptor", "member_descriptor"))  # OSError.errno: reads, never runs code
_NOT_DATA = frozenset(("unittest", "doctest", "pytest", "_pytest", "test", "__main__", "builtins"))


def _trust(run, ws):
    """Which classes and functions named by the candidate side the test process will rebuild or hand
    out: builtins; the repository's modules except the tests' (what the candidate's workspace holds);
    in a check program, what its code before the candidate defined; the standard library's data types
    (and, for exceptions and functions, the rest of the interpreter's library)."""
    hidden = _tuple(cfg_path.rstrip("/") for cfg_path in run.cfg.get("hidden") or ())
    wsp = ws.rstrip("/") + "/"

    def visible(rel):
        for h in hidden:
            if rel == h or _startswith(rel, h + "/"):
                return False
        return True

    def trusted(mod, obj, why):
        if _type(mod) is not _str:
            return False
        if any(obj is t for t in run.targets):
            return True  # the candidate's function named back is the target: the stub here
        if why == "module":
            top = mod.partition(".")[0]
            return not (top in _NOT_DATA and top != "builtins") and not _startswith(top, "_opencoder")
        is_class = _isinstance(obj, _type)
        if mod == "builtins":
            # Classes and exceptions; of the functions, only pure ones (a Mock handed `exec` runs code).
            return is_class or _getattr(obj, "__name__", None) in _PURE_BUILTINS or _type(obj).__name__ in _DESCRIPTORS
        if is_class and not _plain_class(obj, why):
            return False
        if mod == "__main__" and run.prelude is not None:
            return _id(obj) in run.prelude
        top = mod.partition(".")[0]
        if top in _NOT_DATA or _startswith(top, "_opencoder"):
            return False
        m = sys.modules.get(mod)
        f = _getattr(m, "__file__", None) if _type(m) is _ModuleType else None
        if _type(f) is _str and _startswith(f, wsp):
            return visible(f[_len(wsp):])
        if why == "exception":
            return True
        if why == "name" and not is_class:
            return top in _FUNCTION_MODULES
        return mod in _DATA_MODULES or top in _DATA_MODULES

    return trusted


def _plain_class(cls, why):
    """A class whose instances may be rebuilt from data: none of its classes runs code when an instance
    dies (__del__ would run what the data says)."""
    if why == "exception" or why == "name":
        return True
    for c in cls.__mro__[:-1]:
        if "__del__" in c.__dict__:
            return False
    return True


def _install_bridge(run, ws):
    run.prelude = None

    def crossing(detail):
        run.event("crossing", detail)

    bridge = _bridge.TestSide(_BRIDGE_FD, _trust(run, ws), crossing, run.on_flow)
    run.bridge = bridge
    builtins.__opencoder_forward__ = bridge.call
    interpreter = (sys.prefix, sys.base_prefix, sys.exec_prefix, sys.executable)
    if ws.rstrip("/") == "/ws" and not any(_type(p) is _str and _startswith(p + "/", _SHARED_AREAS) for p in interpreter):
        _guard_shared_code(crossing)  # strong mode, where /tmp and /dev/shm are shared (not below a venv there)
        run.shared_cwd = ws  # links made once the tests are loaded (the workspace is complete by then)


_SHARED_AREAS = ("/tmp/", "/dev/shm/")
_SHARED_CWD = "/tmp/.opencoder-cwd"  # bwrap.ts's SHARED_CWD: the candidate sees it read-only


def _enter_shared_cwd(run):
    """Strong mode, isolated, once the tests are loaded: the working folder they run in is a folder of the shared area
    holding a link to each top-level entry of the repository, so that what the tests make in their working folder the
    target sees at the same path (read-only: it cannot change what the tests made, nor the links). Each process
    resolves the links to its own copy of the repository."""
    ws = _getattr(run, "shared_cwd", None)
    run.shared_cwd = None
    if not ws:
        return
    try:
        if not os.path.isdir(_SHARED_CWD) or os.listdir(_SHARED_CWD):
            return
        for name in os.listdir(ws):
            os.symlink(os.path.join(ws, name), os.path.join(_SHARED_CWD, name))
        os.chdir(_SHARED_CWD)
    except OSError:
        pass


def _guard_shared_code(crossing):
    """Strong mode shares /tmp and /dev/shm with the candidate process: code the tests would run from there (a module
    they wrote and import, a file they exec) is the candidate's to rewrite, so the test process refuses to run it."""

    def shared(path):
        return _type(path) is _str and _startswith(path.rstrip("/") + "/", _SHARED_AREAS)

    def hook(event, args):
        if event == "exec" and args:
            where = _getattr(args[0], "co_filename", None)
            if shared(where):
                why = "the tests ran code from %s, in the temporary folder they share with the candidate (its to rewrite)" % where[:200]
                crossing(why)
                raise ImportError("opencoder: " + why)
        elif event == "import" and _len(args) > 2 and _type(args[2]) is _list:
            for p in args[2]:
                if shared(p):
                    why = "the tests import with %s, a temporary folder they share with the candidate, on sys.path" % p[:200]
                    crossing(why)
                    raise ImportError("opencoder: " + why)

    sys.addaudithook(hook)


def _candidate_loaded(run):
    """None once the candidate process has loaded the candidate, else why it could not."""
    try:
        err = run.bridge.hello()
    except _bridge.CrossingError as e:
        return "the candidate process did not answer: %s" % _safe_text(e, 500)
    return None if err is None else "the candidate failed to load (in its own process): " + _safe_text(err, 3000)


def _seed_random():
    # Module-level draws of the tests are reproducible too: `random` (the workspace's copy when it
    # has one; the runner is armed by now) is loaded and seeded before the tests load.
    try:
        import random
        random.seed(0)
    except _BaseException:
        pass
