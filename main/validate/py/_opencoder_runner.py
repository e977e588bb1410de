"""The test runner: the only process that loads the candidate.

The supervisor (_opencoder_harness.py) forks this process before it has read the engine's key,
so nothing of that key or of the engine's report channel is ever in this process. The runner
gets its own per-run key from the supervisor, builds the report function from it, and only then
loads code of the workspace. What the candidate could use to forge that report is closed off:

- an audit hook (PEP 578), installed before any workspace code runs, refuses enumerating the
  interpreter's objects (gc.get_objects / get_referrers / get_referents), other threads' frames,
  new audit hooks, reading process memory through /proc, and ctypes; and, while candidate code
  is on the stack (or on a thread the runner did not start), handing out frames
  (sys._getframe, tb_frame, gi_frame …), tracing and profiling, and rebinding the code or
  defaults of functions the candidate did not write;
- signal handlers the candidate installs are called without the interrupted frame;
- the test framework's classes, builtins and the test program's names are snapshotted before the
  candidate loads and compared after it loaded and after every test: a candidate that patched
  them gets an error verdict naming what it altered;
- in check-template mode the candidate lives in a module of its own, so it cannot rebind the test
  program's names; redefining a name the tests decorate with or import is an error;
- the target is called through a thin dispatcher (its own function object keeps its identity)
  that counts calls made while tests run and fails a test when the returned value claims to equal
  objects it cannot equal (an always-true __eq__).

Records go to the supervisor as `<hmac-sha256 hex> <json>` lines on the report pipe, tagged with
this process's pid (a fork of the candidate's cannot speak for the runner).

Only builtin modules are imported before the workspace is first on sys.path; what else the runner
needs before that (ctypes, for prctl) is imported privately and removed from sys.modules again, so
the tests import the workspace's copies, never ones the runner loaded first; tracebacks are
formatted by the runner itself.
"""

import sys
import os
import builtins
import marshal
import _signal
import _thread
import gc
import _opencoder_wire as _wire  # from the runner's own folder (the supervisor puts it on the path)

_type = type
_str = str
_int = int
_float = float
_bool = bool
_list = list
_tuple = tuple
_dict = dict
_len = len
_isinstance = isinstance
_callable = callable
_getattr = getattr
import _operator
_is = _operator.is_
_id = id
_object = object
_BaseException = BaseException
_encode = str.encode
_startswith = str.startswith
_endswith = str.endswith
_write = os.write
_getpid = os.getpid
_exit = os._exit
_getframe = sys._getframe
_get_ident = _thread.get_ident
_FunctionType = type(lambda: 0)
_CodeType = type((lambda: 0).__code__)
_BuiltinType = type(len)
_ModuleType = type(sys)
_MethodType = type(object().__str__)
_real_signal = _signal.signal
_real_getsignal = _signal.getsignal

# Exact builtin types whose equality no candidate can change.
_PLAIN = frozenset((int, float, complex, str, bytes, bool, type(None), bytearray, range, slice))
_CONTAINERS = frozenset((list, tuple, set, frozenset, dict))


def _safe_text(e, limit=2000):
    try:
        s = _str(e)
        if _type(s) is not _str:
            s = "<unprintable>"
    except _BaseException:
        s = "<unprintable>"
    return s[:limit]


# ---------------------------------------------------------------------------------------------
# Private imports: loaded before the workspace is on the path, then removed from sys.modules

class _Private:
    resource = None


def _private_imports():
    before = set(sys.modules)
    if sys.platform.startswith("linux"):
        try:
            import ctypes
            # Not dumpable: processes the candidate starts (same uid) cannot read this one's memory
            # or file descriptors through /proc or ptrace.
            ctypes.CDLL(None, use_errno=True).prctl(4, 0, 0, 0, 0)  # PR_SET_DUMPABLE, 0
        except _BaseException:
            pass
    for name in _list(sys.modules):
        if name not in before and name not in sys.builtin_module_names:
            del sys.modules[name]


def _source_line(filename, lineno, cache={}):
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
# What counts as the candidate's code

class _Candidate:
    """The candidate's file and line spans (spans None: the whole file)."""

    def __init__(self, file, spans):
        self.file = file
        self.spans = _tuple(_tuple(s) for s in spans) if spans is not None else None

    def has_line(self, line):
        if self.spans is None or line is None:
            return True
        for a, b in self.spans:
            if a <= line <= b:
                return True
        return False

    def is_code(self, code):
        return _type(code) is _CodeType and code.co_filename == self.file and self.has_line(code.co_firstlineno)

    def is_value(self, v, depth=0):
        """Whether v is a function (or a class with methods) written by the candidate."""
        t = _type(v)
        if t is _FunctionType:
            return self.is_code(v.__code__)
        if t is _MethodType:
            return self.is_value(v.__func__, depth)
        if _isinstance(v, _type) and depth == 0:
            try:
                for member in _dict.values(v.__dict__):
                    if self.is_value(member, 1):
                        return True
            except _BaseException:
                return False
        f = _getattr(v, "__func__", None) if t in (staticmethod, classmethod) else None
        return f is not None and self.is_value(f, depth)


# ---------------------------------------------------------------------------------------------
# The audit hook

_UNCONDITIONAL = {
    "gc.get_objects": "enumerate the interpreter's objects (gc.get_objects)",
    "gc.get_referrers": "walk the object graph (gc.get_referrers)",
    "gc.get_referents": "walk the object graph (gc.get_referents)",
    "sys._current_frames": "read other threads' frames (sys._current_frames)",
    "sys.addaudithook": "add an audit hook",
}
_FRAME_ATTRS = frozenset(("tb_frame", "gi_frame", "cr_frame", "ag_frame", "f_back", "gi_yieldfrom", "cr_await"))
_FUNC_ATTRS = frozenset(("__code__", "__defaults__", "__kwdefaults__", "__globals__", "__closure__"))
_PROC_NAMES = frozenset(("mem", "pagemap", "kcore", "kmem"))


def _install_policy(cand, events, runner_file, note_fd):
    """The audit hook. `events` collects refusals (kind, detail) for the verdict."""
    main_ident = _get_ident()
    busy = [False]
    watched = frozenset(_UNCONDITIONAL) | frozenset((
        "sys._getframe", "object.__getattr__", "object.__setattr__", "object.__delattr__",
        "sys.settrace", "sys.setprofile", "open", "import", "code.__new__",
    ))
    get_ident = _get_ident
    getframe = _getframe
    gc_disable, gc_enable, gc_isenabled = gc.disable, gc.enable, gc.isenabled
    str_t = _str
    type_ = _type

    def candidate_context():
        if get_ident() != main_ident:
            return True
        if cand.spans == ():
            return False  # no candidate line is loaded yet (the program's code before it runs)
        f = getframe(2)
        while f is not None:
            co = f.f_code
            if co.co_filename == cand.file and cand.has_line(f.f_lineno):
                return True
            f = f.f_back
        return False

    write = _write
    encode = _encode

    def refuse(kind, what, exc=RuntimeError):
        events.append((kind, what))
        try:
            write(note_fd, encode("refused %s\n" % what, "utf-8", "replace"))
        except OSError:
            pass
        raise exc("opencoder: the test runner refuses to %s" % what)

    def suspicious(event, args):
        """Cheap checks first: most audited events (opens and imports above all) are harmless."""
        if event == "open":
            path = args[0] if args else None
            if type_(path) is bytes:
                try:
                    path = path.decode("utf-8", "replace")
                except _BaseException:
                    return False
            if type_(path) is not str_t:
                return False
            base = path.rpartition("/")[2]
            return base in _PROC_NAMES or ("/proc/" in path and "/fd/" in path)
        if event == "import":
            name = args[0] if args else None
            return name == "ctypes" or name == "_ctypes"
        if event == "object.__getattr__":
            return _len(args) > 1 and args[1] in _FRAME_ATTRS
        if event == "object.__setattr__" or event == "object.__delattr__":
            return _len(args) > 1 and type_(args[0]) is _FunctionType and args[1] in _FUNC_ATTRS
        if event == "code.__new__":
            return _len(args) > 1 and args[1] == runner_file
        return True

    def hook(event, args):
        if event not in watched and not _startswith(event, "ctypes."):
            return
        if busy[0]:
            return  # the hook's own frame look-up
        if not suspicious(event, args):
            return
        was = gc_isenabled()
        gc_disable()  # no finalizer of the candidate's runs inside the hook
        busy[0] = True
        try:
            why = _UNCONDITIONAL.get(event)
            if why is not None:
                refuse("refused", why)
            if event == "open":
                refuse("refused", "read process memory or descriptors through %s" % _safe_text(args[0], 200))
            if event == "import":
                if candidate_context():
                    refuse("refused", "import %s" % args[0], ImportError)
                return
            if _startswith(event, "ctypes."):
                if candidate_context():
                    refuse("refused", "use ctypes (%s)" % event)
                return
            if event == "sys._getframe":
                if candidate_context():
                    # ValueError is what callers already expect when no frame is available
                    # (logging, warnings, namedtuple and typing fall back gracefully).
                    events.append(("frame", "sys._getframe"))
                    raise ValueError("opencoder: frames are not available to the candidate")
                return
            if event == "object.__getattr__":
                if candidate_context():
                    events.append(("frame", args[1]))
                    raise RuntimeError("opencoder: the test runner refuses the candidate access to %s" % args[1])
                return
            if event == "object.__setattr__" or event == "object.__delattr__":
                code = args[0].__code__
                if code.co_filename == runner_file or (not cand.is_code(code) and candidate_context()):
                    refuse("refused", "rebind %s of %s, a function it did not write" % (args[1], _safe_text(args[0].__qualname__, 100)))
                return
            if event == "sys.settrace" or event == "sys.setprofile":
                if candidate_context():
                    refuse("refused", "install a trace or profile function (%s)" % event)
                return
            if event == "code.__new__":
                # A code object claiming to come from the runner could pass for the runner's own.
                if candidate_context():
                    refuse("refused", "forge a code object of the runner")
                return
        finally:
            busy[0] = False
            if was:
                gc_enable()

    sys.addaudithook(hook)


def _install_signal_guard():
    """Handlers the candidate installs are called with frame=None (a frame leads to the runner)."""
    real_signal, real_getsignal = _real_signal, _real_getsignal
    originals = {}

    def unwrap(h):
        try:
            return originals.get(h, h)
        except TypeError:
            return h

    def signal(signalnum, handler):
        if _callable(handler):
            inner = handler

            def trampoline(signum, frame):
                return inner(signum, None)

            originals[trampoline] = inner
            prev = real_signal(signalnum, trampoline)
        else:
            prev = real_signal(signalnum, handler)
        return unwrap(prev)

    def getsignal(signalnum):
        return unwrap(real_getsignal(signalnum))

    signal.__doc__ = real_signal.__doc__
    getsignal.__doc__ = real_getsignal.__doc__
    _signal.signal = signal
    _signal.getsignal = getsignal
    mod = sys.modules.get("signal")
    if mod is not None:
        # signal.py calls _signal.signal at call time, but `from _signal import *` copied names too
        d = mod.__dict__
        if d.get("_signal") is None:
            d["_signal"] = _signal


# ---------------------------------------------------------------------------------------------
# Integrity: what the candidate must not alter

_STRICT_PREFIXES = ("unittest", "_pytest", "pytest", "pluggy", "doctest")


def _strict_module(name):
    if name == "builtins":
        return True
    for p in _STRICT_PREFIXES:
        if name == p or _startswith(name, p + "."):
            return True
    return False


_WATCH_TYPES = frozenset((_FunctionType, _BuiltinType, _ModuleType, staticmethod, classmethod, property))


def _watch_value(v):
    return _type(v) in _WATCH_TYPES or _isinstance(v, _type)


class _Snapshot:
    """Identities of the functions, classes and modules that modules bind, and of classes' members."""

    def __init__(self, cand, skip_files):
        self.cand = cand
        self.skip_files = skip_files
        self.modules = {}   # name -> (module, dict, {attr: value})
        self.classes = {}   # id -> (cls, strict, {attr: value})

    def module_is_candidates(self, mod):
        f = _getattr(mod, "__file__", None) if _type(mod) is _ModuleType else None
        return _type(f) is _str and f in self.skip_files

    def add_module(self, name, mod, strict=None):
        if name in self.modules or _type(mod) is not _ModuleType or self.module_is_candidates(mod):
            return
        try:
            d = mod.__dict__
            items = {k: v for k, v in _dict.items(d) if _type(k) is _str and _watch_value(v)}
        except _BaseException:
            return
        is_strict = _strict_module(name) if strict is None else strict
        self.modules[name] = (mod, d, (_tuple(items), _tuple(items.values())), is_strict)
        for v in items.values():
            if _isinstance(v, _type) and _getattr(v, "__module__", None) == name:
                self.add_class(v, is_strict)

    def add_class(self, cls, strict):
        key = _id(cls)
        if key in self.classes:
            return
        try:
            members = _dict(cls.__dict__)
        except _BaseException:
            return
        self.classes[key] = (cls, strict, (_tuple(members), _tuple(members.values())))

    def add_all(self):
        for name, mod in _list(sys.modules.items()):
            if _type(name) is _str:
                self.add_module(name, mod)

    def changes(self, strict_only=False, only=None):
        """[(where, name, old, new, strict, is_class)] for watched entries that differ now
        (`only`: just these modules' own names, no classes)."""
        out = []
        missing = _object()
        is_, map_ = _is, map
        for name, (mod, d, items, strict) in _list(self.modules.items()):
            if (strict_only and not strict and only is None) or (only is not None and name not in only):
                continue
            keys, vals = items
            if all(map_(is_, map_(d.get, keys), vals)):  # the common case, at C speed
                continue
            for k, v in zip(keys, vals):
                now = d.get(k, missing)
                if now is not v:
                    out.append((name, k, v, now, strict, False))
        for key, (cls, strict, members) in ([] if only is not None else _list(self.classes.items())):
            if strict_only and not strict:
                continue
            try:
                cur = cls.__dict__
                keys, vals = members
                if _len(cur) == _len(keys) and all(map_(is_, map_(cur.get, keys), vals)):
                    continue
                cname = "%s.%s" % (_getattr(cls, "__module__", "?"), cls.__qualname__)
                for k, v in zip(keys, vals):
                    now = cur.get(k, missing)
                    if now is not v:
                        out.append((cname, k, v, now, strict, True))
                for k in _list(cur):
                    if k not in keys:
                        out.append((cname, k, missing, cur[k], strict, True))
            except _BaseException:
                continue
        return out, missing

    def tampering(self, strict_only=False, lenient=False, only=None):
        """Changes the candidate is answerable for: any change of builtins or of the test
        framework; elsewhere a value the candidate wrote, or a changed special method.
        lenient: judge the framework like the rest (pytest patches its own classes while it
        configures itself)."""
        found = []
        changes, missing = self.changes(strict_only, only)
        for where, k, old, new, strict, is_class in changes:
            if lenient:
                strict = False
            if k in ("__doc__", "__annotations__", "__weakref__"):
                continue
            dunder = _startswith(k, "__") and _endswith(k, "__")
            if strict or (new is not missing and self.cand.is_value(new)) or (not lenient and dunder and is_class and (_callable(new) or new is missing)):
                found.append("%s.%s" % (where, k))
        return found


# ---------------------------------------------------------------------------------------------
# The dispatcher in front of the target

_PROBES = (0, 987654321, "", "\x00opencoder-probe", None, (), 0.5)


def _claims_equality(v, budget):
    """A reason when v (or something inside it) equals objects that no honest value equals."""
    t = _type(v)
    if t in _PLAIN:
        return None
    if t in _CONTAINERS:
        items = _list(v.items()) if t is _dict else _list(v) if t in (set, frozenset) else v
        for x in items[:50]:
            if budget[0] <= 0:
                return None
            budget[0] -= 1
            pair = x if t is _dict else (x,)
            for y in pair:
                why = _claims_equality(y, budget)
                if why:
                    return why
        return None
    try:
        sentinel = _object()
        if _bool(v == sentinel) or not _bool(v != sentinel):
            return "a %s that claims to equal a fresh object() (its __eq__ answers True whatever it is given)" % _safe_text(t.__name__, 80)
        equal = [p for p in _PROBES if _bool(v == p)]
        if _len(equal) >= 2:
            return "a %s that claims to equal both %r and %r" % (_safe_text(t.__name__, 80), equal[0], equal[1])
    except _BaseException:
        return None
    return None


class _Calls:
    in_test = False
    count = 0


def _wrapper_source(fn, slot, cells):
    """A def with exactly fn's parameters (names, kinds, which have defaults) that forwards them to
    the dispatcher: swapped in as fn's code, it keeps what introspection sees (argument names and
    counts, signature, defaults stored on the function object)."""
    co = fn.__code__
    flags = co.co_flags
    if flags & 0x200:  # async generator: left unwrapped
        return None
    names = co.co_varnames
    argc, posonly, kwonly = co.co_argcount, co.co_posonlyargcount, co.co_kwonlyargcount
    n_def = _len(fn.__defaults__ or ())
    kwdefs = fn.__kwdefaults__ or {}
    params, pos_fwd, kw_fwd = [], [], []
    for i in range(argc):
        params.append(names[i] + ("=None" if i >= argc - n_def else ""))
        pos_fwd.append(names[i])
        if i == posonly - 1:
            params.append("/")
    k = argc
    star = None
    if flags & 0x04:
        star = names[argc + kwonly]
        params.append("*" + star)
        pos_fwd.append("*" + star)
    elif kwonly:
        params.append("*")
    for j in range(kwonly):
        name = names[k + j]
        params.append(name + ("=None" if name in kwdefs else ""))
        kw_fwd.append("%r: %s" % (name, name))
    if flags & 0x08:
        dstar = names[argc + kwonly + (1 if flags & 0x04 else 0)]
        params.append("**" + dstar)
        kw_fwd.append("**" + dstar)
    call = "__opencoder_target__(%d, (%s), {%s})" % (slot, "".join(x + ", " for x in pos_fwd), ", ".join(kw_fwd))
    name = co.co_name if co.co_name.isidentifier() else "target"
    if flags & 0x80:
        head, body = "async def", "return __opencoder_check__(await %s)" % call
    elif flags & 0x20:
        head, body = "def", "return (yield from %s)" % call
    else:
        head, body = "def", "return __opencoder_check__(%s)" % call
    cell_ref = "".join(c + ", " for c in cells)
    return "def _outer(%s):\n    %s %s(%s):\n        if 0:\n            (%s)\n        %s\n    return %s\n" % (
        ", ".join(cells), head, name, ", ".join(params), cell_ref, body, name)


def _wrap_function(fn, cand, slot):
    """Routes calls of fn through the dispatcher, keeping the function object itself (aliases,
    registries and decorators that captured it still reach it)."""
    if _type(fn) is not _FunctionType:
        return False
    original = fn.__code__
    clone = _FunctionType(original, fn.__globals__, fn.__name__, fn.__defaults__, fn.__closure__)
    clone.__kwdefaults__ = fn.__kwdefaults__
    clone.__qualname__ = fn.__qualname__
    n = _len(original.co_freevars)
    cells = ["__oc_cell%d" % i for i in range(n)]
    src = _wrapper_source(fn, slot, cells)
    if src is None:
        return False
    ns = {}
    try:
        exec(compile(src, cand.file, "exec", dont_inherit=True), ns)
    except SyntaxError:
        return False
    inner = None
    for c in ns["_outer"].__code__.co_consts:
        if _type(c) is _CodeType:
            inner = c
    if inner is None or _len(inner.co_freevars) != n:
        return False
    try:
        inner = inner.replace(co_filename=original.co_filename, co_firstlineno=original.co_firstlineno, co_name=original.co_name,
                              co_qualname=_getattr(original, "co_qualname", original.co_name))
    except TypeError:  # before 3.11: no co_qualname
        inner = inner.replace(co_filename=original.co_filename, co_firstlineno=original.co_firstlineno, co_name=original.co_name)
    try:
        fn.__code__ = inner
    except _BaseException:
        return False
    return clone


def _install_dispatcher(targets):
    calls = _Calls
    check = _claims_equality

    def dispatch(slot, args, kwargs):
        if calls.in_test:
            calls.count += 1
        return targets[slot](*args, **kwargs)

    def checked(r):
        why = check(r, [200])
        if why:
            raise AssertionError("opencoder: the target returned %s" % why)
        return r

    builtins.__opencoder_target__ = dispatch
    builtins.__opencoder_check__ = checked


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

class _Run:
    """State shared by a mode and main (plain attributes, no secrets)."""

    def __init__(self, cfg, send, events, cand):
        self.cfg = cfg
        self.send = send
        self.events = events
        self.cand = cand
        self.targets = []
        self.clones = []
        self.dispatching = False
        self.reported = set()
        self.snapshot = None

    def event(self, kind, detail):
        key = (kind, detail)
        if key in self.reported:
            return
        self.reported.add(key)
        self.send({"t": "event", "kind": kind, "detail": detail[:500]})

    def flush_events(self):
        while self.events:
            kind, what = self.events.pop(0)
            self.event(kind, what)

    def check_integrity(self, strict_only, lenient=False, only=None):
        if self.snapshot is None:
            return
        for what in self.snapshot.tampering(strict_only, lenient, only)[:5]:
            self.event("tampering", "the candidate altered %s, which it did not define" % what)

    def wrap_targets(self, namespaces):
        if not self.dispatching:
            _install_dispatcher(self.clones)  # it reads the list as it grows
            self.dispatching = True
        for ns in namespaces:
            fn = _find_function(ns, self.cfg["qualname"], self.cand)
            if fn is None or any(fn is t for t in self.targets):
                continue
            clone = _wrap_function(fn, self.cand, _len(self.clones))
            if clone:
                self.targets.append(fn)
                self.clones.append(clone)


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
    try:
        exec(compile(cfg["before"], prog, "exec", dont_inherit=True), pd)
    except _BaseException as e:
        return "the test program's code before the candidate failed: " + _describe(e)
    _reseed()
    # The program's code before the candidate ran while the supervisor checked the candidate.
    _second_frame(run)
    snap = _Snapshot(run.cand, set())
    snap.add_all()
    run.snapshot = snap
    before = _dict(pd)
    C = _ModuleType("__main__")
    cd = C.__dict__
    cd.update(before)
    C.__file__ = prog
    try:
        exec(compile(cfg["candidate"], prog, "exec", dont_inherit=True), cd)
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
    snap.add_module("__main__", P)
    run.check_integrity(False)
    run.wrap_targets([cd])
    calls = _Calls
    # The rest of the program is the tests' own code: a check program may compute its cases as it
    # loads (CoderEval's templates do), so calls made then count as the tests' calls.
    calls.in_test = True
    try:
        exec(compile(cfg["after"], prog, "exec", dont_inherit=True), pd)
    except _BaseException as e:
        return "the tests failed to load: " + _describe(e)
    finally:
        calls.in_test = False
    tests = [(name, _dict.get(pd, name)) for name in cfg.get("tests") or []]
    send, flush = run.send, run.flush_events
    per_test = _int(cfg.get("perTestTimeout") or 0)
    use_alarm = per_test > 0 and _getattr(_signal, "SIGALRM", None) is not None
    SIGALRM = _getattr(_signal, "SIGALRM", None)
    alarm = _getattr(_signal, "alarm", None)

    def on_alarm(signum, frame):
        raise _Timeout("timed out")

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
                    calls.in_test = True
                    fn()
                    rec = {"t": "test", "id": name, "outcome": "passed"}
                finally:
                    calls.in_test = False
                    if use_alarm:
                        alarm(0)
            except _Timeout:
                rec = {"t": "test", "id": name, "outcome": "timeout", "message": "timed out after %d s" % per_test}
            except _BaseException as e:
                rec = {"t": "test", "id": name, "outcome": "failed", "message": _describe(e)}
        flush()
        run.check_integrity(True, only=("builtins", "__main__"))  # the rest once, after the last test
        send(rec)
    return None


def _target_modules(run, ws):
    want = os.path.join(ws, run.cfg["file"])
    found = []
    for name, mod in _list(sys.modules.items()):
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
    call through the dispatcher."""
    import _frozen_importlib_external as external  # frozen: no workspace file can stand in for it

    want = os.path.join(ws, run.cfg["file"])
    stem = os.path.basename(want)[:-3] if want.endswith(".py") else None
    if stem == "__init__":
        stem = os.path.basename(os.path.dirname(want))
    path_finder = external.PathFinder

    class _Loader:
        def __init__(self, inner):
            self._inner = inner

        def __getattr__(self, name):
            return _getattr(self._inner, name)

        def create_module(self, spec):
            return self._inner.create_module(spec)

        def exec_module(self, module):
            self._inner.exec_module(module)
            run.wrap_targets([module])

    class _TargetFinder:
        @classmethod
        def find_spec(cls, name, path=None, target=None):
            if _type(name) is not _str or name.rpartition(".")[2] != stem:
                return None
            spec = path_finder.find_spec(name, path, target)
            if spec is None or spec.origin != want or spec.loader is None:
                return spec
            spec.loader = _Loader(spec.loader)
            return spec

        @classmethod
        def invalidate_caches(cls):
            pass

    if stem:
        sys.meta_path.insert(0, _TargetFinder)


def _run_unittest(run, cfg, ws):
    sys.argv = ["python -m unittest"] + _list(cfg.get("testArgs") or [])
    import unittest

    run.snapshot.add_all()  # the framework as loaded, before any test module (or the candidate) is

    opts = _parse_unittest_args(_list(cfg.get("testArgs") or []))
    send, flush, calls = run.send, run.flush_events, _Calls
    rank = {"passed": 0, "skipped": 0, "expected-failure": 0, "unexpected-success": 1, "failed": 2, "error": 3}
    _safe = _safe_text

    class Recorder(unittest.TestResult):
        def __init__(self):
            super().__init__()
            self._counts = {}
            self._keys = {}
            self._outcome = {}

        def _key(self, test):
            k = self._keys.get(_id(test))
            if k is None:
                try:
                    base = test.id()
                    if _type(base) is not _str:
                        base = "<unknown test>"
                except _BaseException:
                    base = "<unknown test>"
                n = self._counts.get(base, 0) + 1
                self._counts[base] = n
                k = base if n == 1 else "%s#%d" % (base, n)  # two doctests with one name stay two tests
                self._keys[_id(test)] = k
            return k

        def _put(self, test, outcome, message=None):
            k = self._key(test)
            prev = self._outcome.get(k)
            if prev is not None and rank.get(prev[0], 0) >= rank.get(outcome, 0):
                return
            self._outcome[k] = (outcome, message)

        def startTest(self, test):
            super().startTest(test)
            self._key(test)
            _reseed()
            calls.in_test = True

        def stopTest(self, test):
            calls.in_test = False
            super().stopTest(test)
            k = self._key(test)
            self._keys.pop(_id(test), None)
            self._emit(k)

        def _emit(self, k):
            got = self._outcome.pop(k, None)
            if got is None:
                got = ("error", "the test framework reported no outcome for this test")
            flush()
            run.check_integrity(True)
            rec = {"t": "test", "id": k, "outcome": got[0]}
            if got[1]:
                rec["message"] = got[1][-2000:]
            send(rec)

        def addSuccess(self, test):
            super().addSuccess(test)
            self._put(test, "passed")

        def addFailure(self, test, err):
            super().addFailure(test, err)
            self._put(test, "failed", self._text(err, test))

        def addError(self, test, err):
            super().addError(test, err)
            self._put(test, "error", self._text(err, test))
            if not hasattr(test, "_testMethodName"):  # setUpClass / module fixtures: no stopTest follows
                self._emit(self._key(test))

        def addSkip(self, test, reason):
            super().addSkip(test, reason)
            self._put(test, "skipped", _safe(reason, 300))

        def addExpectedFailure(self, test, err):
            super().addExpectedFailure(test, err)
            self._put(test, "expected-failure")

        def addUnexpectedSuccess(self, test):
            super().addUnexpectedSuccess(test)
            self._put(test, "unexpected-success", "marked expectedFailure but passed")

        def addSubTest(self, test, subtest, err):
            super().addSubTest(test, subtest, err)
            if err is not None:
                failed = _isinstance(err[0], _type) and issubclass(err[0], _getattr(test, "failureException", AssertionError))
                self._put(test, "failed" if failed else "error", "%s\n%s" % (_safe(subtest, 300), self._text(err, test)))

        def _text(self, err, test):
            try:
                return self._exc_info_to_string(err, test)
            except _BaseException as e:
                return _describe(e, with_tb=False)

    run.snapshot.add_class(Recorder, True)
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
    flush()
    run.check_integrity(False)
    run.snapshot.add_all()
    run.wrap_targets(_target_modules(run, ws))
    result = Recorder()
    try:
        result.startTestRun()
        suite.run(result)
        result.stopTestRun()
    except _BaseException as e:
        return "the test run stopped: " + _describe(e)
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


def _run_pytest(run, cfg, ws):
    try:
        import pytest
    except ImportError as e:
        raise RuntimeError("pytest is not installed for %s: %s" % (sys.executable, e))
    run.snapshot.add_all()
    send, flush, calls = run.send, run.flush_events, _Calls
    results = {}
    rank = {"passed": 0, "skipped": 0, "expected-failure": 0, "unexpected-success": 1, "failed": 2, "error": 3}

    class Plugin:
        def pytest_collection_finish(self, session):
            flush()
            run.check_integrity(False, lenient=True)
            # From here on the framework is what pytest configured it to be: snapshot it afresh.
            run.snapshot = _Snapshot(run.cand, run.snapshot.skip_files)
            run.snapshot.add_all()
            run.wrap_targets(_target_modules(run, ws))

        def pytest_sessionfinish(self, session, exitstatus):
            # Before pytest unconfigures (and so undoes its own patches of its classes).
            flush()
            run.check_integrity(False)
            run.final_checked = True

        def pytest_runtest_logstart(self, nodeid, location):
            _reseed()
            calls.in_test = True

        def pytest_runtest_logfinish(self, nodeid, location):
            calls.in_test = False
            got = results.pop(nodeid, None) or ("error", "pytest reported no outcome for this test")
            flush()
            run.check_integrity(True)
            rec = {"t": "test", "id": nodeid, "outcome": got[0]}
            if got[1]:
                rec["message"] = got[1]
            send(rec)

        def pytest_runtest_logreport(self, report):
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

        def pytest_collectreport(self, report):
            if report.failed:
                rec = {"t": "test", "id": report.nodeid or "<collection>", "outcome": "error",
                       "message": ("collection failed: " + _safe_text(_getattr(report, "longreprtext", ""), 100000))[-2000:]}
                send(rec)

    args = _list(cfg.get("testArgs") or []) + ["-p", "no:cacheprovider"]
    try:
        rc = pytest.main(args, plugins=[Plugin()])
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
    run.cand.spans = _tuple(_tuple(x) for x in part.get("candSpans") or [])


def main(cfg_fd, rep_fd, note_fd, runner_file):
    # The private imports first: they overlap with the supervisor's own start and static checks.
    _private_imports()
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
    cand = _Candidate(cfg["candFile"], ())
    events = []
    run = _Run(cfg, send, events, cand)
    run.cfg_fd = cfg_fd
    env = cfg.get("env") or {}
    for k, v in env.items():
        os.environ[k] = v
    os.chdir(ws)
    extra = [os.path.normpath(os.path.join(ws, p)) for p in cfg.get("pythonPath") or []]
    sys.path[:] = [ws] + extra + [p for p in sys.path if p and p != ws and p not in extra]
    send({"t": "env", "python": sys.executable or "", "version": sys.version.split()[0]})
    _install_signal_guard()
    _install_policy(cand, events, runner_file, note_fd)
    if cfg["mode"] != "program":
        _second_frame(run)  # the workspace holds the spliced target from here on
        run.snapshot = _Snapshot(cand, {os.path.join(ws, cfg["file"])})
        run.snapshot.add_all()
        _install_target_finder(run, ws)
        _seed_random()
    try:
        if cfg["mode"] == "program":
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
        if load_error is not None:
            done["loadError"] = load_error
        pr = _getattr(run, "pytest_rc", None)
        if pr is not None:
            done["pytestExit"] = pr
        send({"t": "target", "loadedFrom": _loaded_from(run, ws) if cfg["mode"] != "program" else cfg["program"],
              "calls": _Calls.count if run.targets else None})
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


def _seed_random():
    # Module-level draws of the tests are reproducible too: `random` (the workspace's copy when it
    # has one; the runner is armed by now) is loaded and seeded before the tests load.
    try:
        import random
        random.seed(0)
    except _BaseException:
        pass
