"""The in-process defences of the test runner: the audit hook, and what counts as the candidate's code.

Not imported: the runner executes this file, _opencoder_stubs.py and _opencoder_integrity.py into one
private namespace whose builtins are a copy taken before any workspace code ran (_opencoder_runner.
_load_guard), and none of them defines a class (a class is reachable from object.__subclasses__(), and
its methods' globals from there). So nothing here is reachable from candidate code except through
frames, which it is refused.

What the framework or the candidate can reach of the runner (the result recorder's methods, the pytest
plugin, the import finder, the signal functions, the target's wrapper) are stubs (_opencoder_stubs.py):
functions with no globals, whose defaults hold only builtins and framework objects. Their one way in is
sys.audit: they raise an `opencoder.*` event, and the hook answers (or hands the runner's handler back
for that one call) only when no candidate code is on the stack. The hook means to run nothing of the
candidate's (exact types, C slots); where a look-up may still meet a key of a class the candidate wrote (in
sys.modules, a module's or an instance's dict) and run its __eq__ inside the hook, the events that code raises
there are judged as they would be outside.

The candidate's code is known by code object, never by file name and line: the code objects of its own
source (the target module's lines that are the candidate's, or the check program's candidate part), and
every code object that is executed, made into a function or swapped into one while candidate code is on
the stack (what it compiles, unmarshals or builds at run time, under whatever file name).
"""

import sys
import _thread
import _signal
import _imp
import _operator
import _functools
import itertools as _itertools
import gc as _gc
import _weakref

_type = type
_id = id
_len = len
_str = str
_int = int
_bytes = bytes
_tuple = tuple
_list = list
_dict = dict
_callable = callable
_isinstance = isinstance
_next = next
_issubclass = issubclass
_getattr = getattr
_object = object
_bool = bool
_BaseException = BaseException
_getframe = sys._getframe
_get_ident = _thread.get_ident
_index = _operator.index
_audit = sys.audit
_FunctionType = _type(lambda: 0)
_CodeType = _type((lambda: 0).__code__)
_MethodType = _type((lambda self: 0).__get__(0))
_ModuleType = _type(sys)
_Namespace = _type(sys.implementation)
_weakref_ref = _weakref.ref
_partial = _functools.partial
_type_dict = _type.__dict__["__dict__"].__get__   # a class's own members, past any metaclass
_type_mro = _type.__dict__["__mro__"].__get__
_type_qualname = _type.__dict__["__qualname__"].__get__
_module_dict = _ModuleType.__dict__["__dict__"].__get__
_gc_isenabled, _gc_disable, _gc_enable = _gc.isenabled, _gc.disable, _gc.enable
_real_signal, _real_getsignal, _raise_signal = _signal.signal, _signal.getsignal, _signal.raise_signal
_real_create_builtin, _real_exec_builtin, _real_create_dynamic = _imp.create_builtin, _imp.exec_builtin, _imp.create_dynamic
_real_set_debug = _gc.set_debug
_is_frozen, _get_frozen_object = _imp.is_frozen, _imp.get_frozen_object
_builtin_names = frozenset(sys.builtin_module_names)
_real_setrecursionlimit, _real_getrecursionlimit = sys.setrecursionlimit, sys.getrecursionlimit
_modules = sys.modules  # the interpreter's own dict (a rebound sys.modules attribute is not it)
_str_copy = _str.__str__  # an exact str from a str subclass, without its methods
_startswith = _str.startswith


def _is_a(v, cls):
    """isinstance without v's say (isinstance asks v's __class__, which the candidate can define)."""
    return _issubclass(_type(v), cls)


def _exact_get(d, key):
    """d[key] for an exact str key, or None, found without a look-up: in a dict the candidate can write to
    (sys.modules, a module's or an instance's dict) a key of a class of its own would run its __eq__ inside the
    hook, and could match one look-up and not the next. Only exact str keys are compared."""
    if not _issubclass(_type(d), _dict):
        return None
    for k, v in _dict.items(d):
        if _type(k) is _str and k == key:
            return v
    return None


def _name(v):
    """An attribute or module name as an exact str (a subclass's __eq__ and __hash__ are the candidate's), or None."""
    if _type(v) is _str:
        return v
    return _str_copy(v) if _issubclass(_type(v), _str) else None


_posix = _modules.get("posix") or _modules.get("nt")
_WRITE_FLAGS = 0
for _flag_name in ("O_WRONLY", "O_RDWR", "O_CREAT", "O_TRUNC", "O_APPEND"):
    _WRITE_FLAGS |= _getattr(_posix, _flag_name, 0)
_write = _posix.write

# ---------------------------------------------------------------------------------------------
# State (module-level: this namespace is private)

_own = {}        # id -> code: the candidate's own source
_tainted = {}    # id -> code: what ran as code while candidate code was on the stack
_mixed = {}      # id -> code: module and class bodies holding candidate lines and others: judged by line
_runner = {}     # id -> code: the runner's wrappers and stubs
_wrappers = {}   # id -> code: the target's wrappers (they count calls)
_busy = {}       # thread ident -> 1 while the hook runs on it
_nested = {}     # thread ident -> 1 while the hook judges an event raised inside it by code not its own
_GUARD = globals()  # this namespace: the frames of its functions are the hook's own
_deferred = []   # signals that arrived while the hook ran
_originals = {}  # id(trampoline) -> (trampoline, the handler it calls)
_started = {}    # id -> object: threads (their objects or functions) started where no candidate code was
_endpoints = {}  # name -> (the object the caller must pass, or None; the runner's handler)
_judged = {}     # id(class) -> (class, why it cannot be trusted in a return value, or None)
_returned = {}   # id -> weak reference to code: the wrappers of the candidate's functions the target returned
_templates = {}  # id(code) -> (code, its shape, the code of its wrapper before its callees are put in)
# Calls of the target: each call ticks a C counter (cheap; the candidate could only make it larger), and the
# first call in a test asks the hook, which counts it only when the tests made it (`seen`); the flag spares
# the later calls of that test the question (a candidate that sets it only goes uncounted).
_tick = _itertools.count()
_flag = bytearray(1)
_st = _Namespace(main=_get_ident(), cand_file=None, spans=(), program=False, loaded=False, in_test=False,
                 calls=0, seen=0, tick_start=0, events=None, note_fd=None, runner_file=None, ws=None,
                 trace=None, import_types=None, window_execs=None, module_spec=None, spec_dict=None,
                 returned_check=None)

_UNCONDITIONAL = {
    "gc.get_objects": "enumerate the interpreter's objects (gc.get_objects)",
    "gc.get_referrers": "walk the object graph (gc.get_referrers)",
    "gc.get_referents": "walk the object graph (gc.get_referents)",
    "sys._current_frames": "read other threads' frames (sys._current_frames)",
    "sys._current_exceptions": "read other threads' exceptions (sys._current_exceptions)",
    "sys.addaudithook": "add an audit hook",
}
# The frame-valued attributes Python 3.11 audits (f_back, f_locals and f_globals are not: no frame may be had at all).
_FRAME_ATTRS = frozenset(("tb_frame", "gi_frame", "cr_frame", "ag_frame"))
_FUNC_ATTRS = frozenset(("__code__", "__defaults__", "__kwdefaults__", "__globals__", "__closure__"))
_PROC_NAMES = frozenset(("mem", "pagemap", "kcore", "kmem"))
# Extension modules that reach past the interpreter's own checks.
_DENIED_IMPORTS = frozenset(("ctypes", "_ctypes", "_testcapi", "_testinternalcapi", "_testmultiphase", "_xxsubinterpreters", "_xxtestfuzz"))
# Builtin modules whose functions the runner replaced or relies on: a fresh copy would bring the originals back.
_GUARDED_BUILTINS = frozenset(("_signal", "gc", "_imp", "_thread", "sys", "builtins", "_weakref", "_functools", "_operator"))
_PY_SUFFIXES = (".py", ".pyc", ".pyo", ".pth", ".pyw")


def _text(v, limit=200):
    """v when it is an exact str (a subclass could run the candidate's __str__), else a placeholder."""
    return v[:limit] if _type(v) is _str else "<object>"


def _note(kind, what):
    _st.events.append((kind, what))
    if kind == "refused":
        try:
            _write(_st.note_fd, ("refused %s\n" % what).encode("utf-8", "replace"))
        except OSError:
            pass


def _refuse(what, exc=RuntimeError):
    _note("refused", what)
    raise exc("opencoder: the test runner refuses to %s" % what)


# ---------------------------------------------------------------------------------------------
# What counts as the candidate's code

def _has_line(line):
    if line is None:
        return True
    for a, b in _st.spans:
        if a <= line <= b:
            return True
    return False


def _code_lines(co):
    first = co.co_firstlineno
    last = first
    for _, _, line in co.co_lines():
        if line is not None and line > last:
            last = line
    return first, last


def _add_tree(co, into):
    stack = [co]
    while stack:
        c = stack.pop()
        if _id(c) in into:
            continue
        into[_id(c)] = c
        for k in c.co_consts:
            if _type(k) is _CodeType:
                stack.append(k)


def _classify(co):
    """The target module's code: candidate lines' code objects are the candidate's own; bodies that
    mix candidate lines with the module's own are judged line by line."""
    _mixed[_id(co)] = co
    stack = [co]
    while stack:
        c = stack.pop()
        for k in c.co_consts:
            if _type(k) is not _CodeType:
                continue
            first, last = _code_lines(k)
            inside = [1 for a, b in _st.spans if a <= first and last <= b]
            overlaps = [1 for a, b in _st.spans if a <= last and first <= b]
            if inside:
                _add_tree(k, _own)
            elif overlaps:
                _mixed[_id(k)] = k
                stack.append(k)
    _st.loaded = True


def _is_cand_code(co):
    k = _id(co)
    return k in _own or k in _tainted


def _returned_code(co):
    """Whether co is the wrapper of a function of the candidate's that the target returned (held weakly: what the
    function holds is not kept alive by the runner once the function is gone)."""
    w = _returned.get(_id(co))
    return w is not None and w() is co


def _runner_code(co):
    return _id(co) in _runner or _returned_code(co)


def _is_cand_frame(f):
    co = f.f_code
    k = _id(co)
    if k in _own or k in _tainted:
        return True
    return k in _mixed and _has_line(f.f_lineno)


def _thread_trusted(bottom):
    """Whether a thread was started where no candidate code was (the tests', the framework's)."""
    if bottom is None:
        return False
    if _id(bottom.f_code) in _started:
        return True
    try:
        me = _exact_get(bottom.f_locals, "self")
    except _BaseException:
        return False
    return me is not None and _id(me) in _started and _started[_id(me)] is me


def _candidate_context(f, runner_too=True):
    """Whether candidate code is on the stack from frame f down, or f's thread is one the candidate started.
    runner_too=False: a frame of the runner's code (a wrapper, a stub) is never the candidate's, even where the
    candidate made a function of that code (which taints it)."""
    if _get_ident() != _st.main:
        bottom = None
        while f is not None:
            if _is_cand_frame(f) and (runner_too or not _runner_code(f.f_code)):
                return True
            bottom = f
            f = f.f_back
        return not _thread_trusted(bottom)
    if not _st.loaded:
        return False  # nothing of the candidate's has been loaded yet
    while f is not None:
        if _is_cand_frame(f) and (runner_too or not _runner_code(f.f_code)):
            return True
        f = f.f_back
    return False


def _member_is_cand(v):
    t = _type(v)
    if t is _FunctionType:
        code = v.__code__
        return _is_cand_code(code) or _returned_code(code)  # the candidate's, wrapped to check what it returns
    if t is _MethodType or t is staticmethod or t is classmethod:
        return _member_is_cand(v.__func__)
    if t is property:
        return _member_is_cand(v.fget) or _member_is_cand(v.fset) or _member_is_cand(v.fdel)
    if t is _partial:
        return _member_is_cand(v.func)
    return False


def _own_members(cls):
    """cls's own members as (name, member) pairs, read without a look-up by name: a key of a class the candidate
    wrote (a str subclass) would run its __eq__ (inside the hook). The name is None for such a key (it may stand
    for any name), a plain copy for a key of another str subclass; other keys are left out."""
    out = []
    for k, m in _type_dict(cls).items():
        t = _type(k)
        if t is _str:
            out.append((k, m))
            continue
        cand = False
        for klass in _type_mro(t):
            if _class_is_cand(klass):
                cand = True
        if cand:
            out.append((None, m))
        elif _issubclass(t, _str):
            out.append((_str_copy(k), m))
    return out


def _class_is_cand(cls):
    try:
        for member in _type_dict(cls).values():
            if _member_is_cand(member):
                return True
    except _BaseException:
        return False
    return False


def is_value(v):
    """Whether v is something the candidate wrote: its function (or method, descriptor, partial of one),
    a class with a method of its, or an instance of such a class."""
    if _member_is_cand(v):
        return True
    if _is_a(v, _type):
        return _class_is_cand(v) or _class_is_cand(_type(v))
    t = _type(v)
    if t is _ModuleType or t is _Namespace or t is _FunctionType:
        return False
    return _class_is_cand(t)


# ---------------------------------------------------------------------------------------------
# The audit hook

def _on_open(args, actor):
    path = args[0] if args else None
    if _type(path) is _bytes:
        path = path.decode("utf-8", "replace")
    path = _name(path)
    if path is None:
        return
    base = path.rpartition("/")[2]
    if base in _PROC_NAMES or ("/proc/" in path and "/fd/" in path):
        _refuse("read process memory or descriptors through %s" % path[:200])
    flags = args[2] if _len(args) > 2 else 0
    if _type(flags) is _int and flags & _WRITE_FLAGS and _writes_python(path) and _candidate_context(actor):
        _refuse("write Python source or bytecode (%s)" % path[:200])


def _writes_python(path):
    if _type(path) is _bytes:
        path = path.decode("utf-8", "replace")
    path = _name(path)
    if path is None:
        return False
    return _str.endswith(path, _PY_SUFFIXES) or "__pycache__" in path


def _on_rename(args, actor):
    if _len(args) > 1 and _writes_python(args[1]) and _candidate_context(actor):
        _refuse("write Python source or bytecode (%s)" % _text(args[1]))


def _test_module_name(name):
    for part in name.split("."):
        if part in ("test", "tests", "testing", "conftest") or part.startswith("test_") or part.endswith("_test"):
            return True
    return False


def _repository_module(name):
    """Whether the module name resolves in the workspace (its top-level package or module is there)."""
    ws = _st.ws
    if not ws:
        return False
    top = name.partition(".")[0]
    mod = _exact_get(_modules, top)
    if mod is not None:
        f = _module_dict(mod).get("__file__") if _is_a(mod, _ModuleType) else None
        return _type(f) is _str and _startswith(f, ws)
    for path in (ws + top, ws + top + ".py"):
        try:
            _posix.stat(path)
            return True
        except OSError:
            pass
    return False


def _suspect_entry(e):
    t = _type(e)
    if is_value(e):
        return True
    if t is _ModuleType or t is _Namespace:
        d = _module_dict(e) if t is _ModuleType else _getattr(e, "__dict__", None)
        if _type(d) is _dict:
            for v in d.values():
                if _member_is_cand(v):
                    return True
    return False


def import_system_problem():
    """What the candidate changed in the import system (a finder or path hook of its own), or None."""
    mp, ph = sys.meta_path, sys.path_hooks
    if _type(mp) is not _list or _type(ph) is not _list:
        return "sys.meta_path or sys.path_hooks (replaced by another object)"
    known = _st.import_types
    for e in _tuple(mp) + _tuple(ph):
        key = _id(e) if _is_a(e, _type) or _type(e) is _FunctionType else _id(_type(e))
        if known is not None and key in known and _type(e) is not _ModuleType and _type(e) is not _Namespace:
            continue
        if _suspect_entry(e):
            return "the import system (a finder or path hook of its own in sys.meta_path or sys.path_hooks)"
    return None


def _on_import(args, actor):
    name = _name(args[0]) if args else None
    if name is None:
        return
    if not _st.loaded and _get_ident() == _st.main:
        return
    if (name in _DENIED_IMPORTS or name in _GUARDED_BUILTINS) and _candidate_context(actor):
        _refuse("import %s" % name, ImportError)
    if _test_module_name(name) and _exact_get(_modules, name) is None and _repository_module(name) and _candidate_context(actor):
        _refuse("import %s, a module of the tests" % name, ImportError)
    if _st.loaded:
        why = import_system_problem()
        if why:
            _note("tampering", "the candidate altered %s, which it did not define" % why)
            raise ImportError("opencoder: the import system was altered by the candidate")


def _on_getframe(args, actor):
    if _candidate_context(actor):
        if _traceback_reader(actor, getframe=True):
            return
        # ValueError is what callers already expect when no frame is available
        # (logging, warnings, namedtuple and typing fall back gracefully).
        _st.events.append(("frame", "sys._getframe"))
        raise ValueError("opencoder: frames are not available to the candidate")


def _suspendable_types():
    async def coro():
        pass

    async def agen():
        yield

    c = coro()
    c.close()
    return {_type((lambda: (yield))()): "gi_running", _type(c): "cr_running", _type(agen()): "ag_running"}


_RUNNING = _suspendable_types()  # generator, coroutine, async generator -> the member saying it runs


def _on_getattr(args, actor):
    name = _name(args[1]) if _len(args) > 1 else None
    if name not in _FRAME_ATTRS:
        return
    running = None
    for kind, member in _RUNNING.items():  # by identity: a look-up would hash a type the candidate may have made
        if _type(args[0]) is kind:
            running = member
    if running is not None and name in ("gi_frame", "cr_frame", "ag_frame"):
        # A generator's or coroutine's frame while it is suspended or done leads nowhere (its f_back is None):
        # asyncio's repr of a task reads it. A running one's leads to whoever resumed it.
        if _type_dict(_type(args[0]))[running].__get__(args[0]) is False:
            return
    if _candidate_context(actor):
        if name == "tb_frame" and _traceback_reader(actor):
            return
        _st.events.append(("frame", name))
        raise RuntimeError("opencoder: the test runner refuses the candidate access to %s" % name)


def _flag_only(old, new):
    """types.coroutine's rebinding (asyncio does it as it loads): the same code, marked an iterable coroutine."""
    return _type(new) is _CodeType and new.co_flags == (old.co_flags | 0x100) and new == old.replace(co_flags=new.co_flags)


def _on_setattr(event, args, actor):
    attr = _name(args[1]) if _len(args) > 1 else None
    if _type(args[0]) is not _FunctionType or attr not in _FUNC_ATTRS:
        return
    fn = args[0]
    code = fn.__code__
    what = "rebind %s of %s, a function it did not write" % (attr, _text(fn.__qualname__, 100))
    if _runner_code(code):
        if _returned_code(code) and attr in ("__defaults__", "__kwdefaults__"):
            return  # the candidate's own function, wrapped: the wrapper passes on whatever defaults it has
        if _candidate_context(actor):
            _refuse(what)
        return
    if not _candidate_context(actor):
        return
    if _id(code) in _own:
        if event == "object.__setattr__" and attr == "__code__" and _len(args) > 2 and _type(args[2]) is _CodeType:
            _add_tree(args[2], _tainted)
        return
    if event == "object.__setattr__" and attr == "__code__" and _len(args) > 2 and _flag_only(code, args[2]):
        return
    if attr != "__code__" and _id(code) in _tainted and _generated(code) and not _is_cand_frame(actor):
        return  # the library's own function made for the candidate (namedtuple sets its __new__'s defaults)
    _refuse(what)


def _generated(code):
    """Code compiled from a string (`<string>`, `<...>`), not from a source file of a module."""
    f = _name(code.co_filename)
    return f is not None and (_startswith(f, "<") or "/" not in f)


def _on_exec(args, actor):
    code = args[0] if args else None
    if _type(code) is not _CodeType:
        return
    co_name, fname = _name(code.co_name), _name(code.co_filename)
    if _st.window_execs is not None and co_name == "<module>" and fname is not None:
        _st.window_execs[fname] = code  # a module the import system executed while the target's loaded
    if not _st.program and co_name == "<module>" and fname == _st.cand_file and _st.spans:
        if not _candidate_context(actor):
            if not _st.loaded:
                _st.trace = _trace_baseline()
                _st.import_types = _import_baseline()
            _classify(code)
            return
    if not _st.loaded and _get_ident() == _st.main:
        return
    if not _candidate_context(actor):
        return
    if co_name == "<module>" and fname is not None and _test_file(fname):
        _refuse("load %s, a module of the tests" % fname[:200], ImportError)
    if actor is not None and _startswith(_name(actor.f_code.co_filename) or "", "<frozen importlib"):
        return  # a module the import system loaded from its file (writing Python files is refused to the candidate)
    _add_tree(code, _tainted)


def _test_file(path):
    ws = _st.ws
    if not ws or not _startswith(path, ws):
        return False
    rel = path[_len(ws):].lstrip("/")
    name = rel[:-3].replace("/", ".") if rel.endswith(".py") else rel.replace("/", ".")
    return _test_module_name(name)


def _on_function_new(args, actor):
    code = args[0] if args else None
    if _type(code) is _CodeType and (_st.loaded or _get_ident() != _st.main) and _candidate_context(actor):
        _add_tree(code, _tainted)


def _on_thread_start(args, actor):
    fn = args[0] if args else None
    if fn is None or _candidate_context(actor):
        return
    if _type(fn) is _MethodType:
        me = fn.__self__
        _started[_id(me)] = me
    elif _type(fn) is _FunctionType:
        _started[_id(fn.__code__)] = fn.__code__


def _on_trace(event, args, actor):
    if _candidate_context(actor):
        _refuse("install a trace or profile function (%s)" % event)


def _on_code_new(args, actor):
    # A code object claiming to come from the runner could pass for the runner's own.
    if _len(args) > 1 and _name(args[1]) == _st.runner_file and _candidate_context(actor):
        _refuse("forge a code object of the runner")


def _on_call(args, actor):
    """The target's wrapper, on each call: counted while tests run, unless the candidate called it."""
    if not _st.in_test or actor is None or _id(actor.f_code) not in _wrappers:
        return
    caller = actor.f_back
    if caller is None or _is_cand_frame(caller):
        return
    if _get_ident() != _st.main and _candidate_context(caller):
        return
    _st.seen += 1
    _flag[0] = 1


def _on_wrap(args, actor):
    """A result check hands over the callables in a value: the candidate's functions among them are wrapped
    (wrap_returned, _opencoder_stubs.py) when no candidate code is on the stack (what the candidate's own calls
    return is checked when it reaches the tests). Why one cannot be checked goes into the list args[1]."""
    if _len(args) != 2 or _type(args[0]) is not _list or _type(args[1]) is not _list or _candidate_context(actor, False):
        return
    why = wrap_returned(_tuple(args[0]))
    if why:
        args[1].append(why)


def _on_judge(args, actor):
    if _len(args) > 1 and _is_a(args[0], _type) and _type(args[1]) is _list:
        args[1].append(_judge_type(args[0]))


def _on_handoff(args, actor):
    """A stub asks for the runner's handler: given only when no candidate code is on the stack."""
    if _len(args) < 3 or _type(args[2]) is not _list:
        return
    ep = _endpoints.get(args[0]) if _type(args[0]) is _str else None
    if ep is None:
        return
    want, handler = ep
    if want is not None and args[1] is not want:
        return
    if args[0] == "flow" and _candidate_context(actor, False):
        return  # the target raised inside the candidate's own call of it: the outermost call is judged
    if _candidate_context(actor):
        _refuse("report to the runner (%s) from its own code" % args[0])
    args[2].append(handler)


def _on_signal(args, actor):
    if _len(args) != 3:
        return
    signum, handler, out = args
    if _type(signum) is not _int or _type(out) is not _list:
        raise TypeError("signal number must be an int")
    if _callable(handler):
        tramp = _stub(_trampoline, handler, _audit, _list, name="handler")
        prev = _real_signal(signum, tramp)
        _originals[_id(tramp)] = (tramp, handler)
    else:
        prev = _real_signal(signum, handler)
    out.append(_unwrap(prev))


def _unwrap(h):
    got = _originals.get(_id(h))
    return got[1] if got is not None and got[0] is h else h


def _on_getsignal(args, actor):
    if _len(args) != 2:
        return
    signum, out = args
    if _type(signum) is not _int or _type(out) is not _list:
        raise TypeError("signal number must be an int")
    out.append(_unwrap(_real_getsignal(signum)))


def _spec_name(spec):
    ms = _st.module_spec
    if ms is None or _type(spec) is not ms or "name" in _type_dict(ms):
        raise TypeError("opencoder: a builtin module is created from its ModuleSpec")
    name = _exact_get(_st.spec_dict(spec), "name")
    if _type(name) is not _str:
        raise TypeError("opencoder: a module spec's name is a str")
    return name


def _on_create_builtin(args, actor):
    spec, out = args
    name = _spec_name(spec)
    if name in _GUARDED_BUILTINS and _candidate_context(actor):
        _refuse("create a fresh copy of the builtin module %s" % name, ImportError)
    out.append(_real_create_builtin(spec))


def _on_exec_builtin(args, actor):
    mod, out = args
    if _type(mod) is not _ModuleType:
        raise TypeError("opencoder: exec_builtin needs a module")
    name = _exact_get(_module_dict(mod), "__name__")
    if (_type(name) is not _str or name in _GUARDED_BUILTINS) and _candidate_context(actor):
        _refuse("re-initialise the builtin module %s" % _text(name), ImportError)
    out.append(_real_exec_builtin(mod))


def _on_create_dynamic(args, actor):
    spec, out = args[0], args[-1]
    name = _spec_name(spec)
    if name.rpartition(".")[2] in _DENIED_IMPORTS and _candidate_context(actor):
        _refuse("import %s" % name, ImportError)
    out.append(_real_create_dynamic(*args[:-1]))


def _on_set_debug(args, actor):
    flags = args[0]
    if _type(flags) is not _int:
        raise TypeError("flags must be an int")
    if flags & _gc.DEBUG_SAVEALL and _candidate_context(actor):
        _refuse("keep every collected object (gc.DEBUG_SAVEALL)")
    _real_set_debug(flags)


def _on_fire(args, actor):
    pass  # not busy: the trampoline calls its handler


def _refuse_always(event):
    def handler(args, actor):
        _refuse(_UNCONDITIONAL[event])
    return handler


_HANDLERS = {
    "open": _on_open, "os.rename": _on_rename, "os.link": _on_rename, "os.symlink": _on_rename,
    "import": _on_import, "sys._getframe": _on_getframe, "object.__getattr__": _on_getattr,
    "exec": _on_exec, "function.__new__": _on_function_new, "_thread.start_new_thread": _on_thread_start,
    "code.__new__": _on_code_new, "opencoder.call": _on_call, "opencoder.judge": _on_judge, "opencoder.wrap": _on_wrap,
    "opencoder.handoff": _on_handoff, "opencoder.signal": _on_signal, "opencoder.getsignal": _on_getsignal,
    "opencoder.create_builtin": _on_create_builtin, "opencoder.exec_builtin": _on_exec_builtin,
    "opencoder.create_dynamic": _on_create_dynamic, "opencoder.set_debug": _on_set_debug, "opencoder.fire": _on_fire,
}
for _event in _UNCONDITIONAL:
    _HANDLERS[_event] = _refuse_always(_event)
_WITH_EVENT = {
    "object.__setattr__": _on_setattr, "object.__delattr__": _on_setattr,
    "sys.settrace": _on_trace, "sys.setprofile": _on_trace,
}
_WATCHED = frozenset(_HANDLERS) | frozenset(_WITH_EVENT)


def _dispatch(event, args, actor):
    handler = _HANDLERS.get(event)
    if handler is not None:
        handler(args, actor)
    else:
        with_event = _WITH_EVENT.get(event)
        if with_event is not None:
            with_event(event, args, actor)
        elif _candidate_context(actor):  # ctypes.*
            _refuse("use ctypes (%s)" % event)


def _hook(event, args):
    if event not in _WATCHED and event[:7] != "ctypes.":
        return
    ident = _get_ident()
    if ident in _busy:
        if event == "opencoder.fire" and _len(args) > 1 and _type(args[1]) is _list:
            _deferred.append(args[0])  # a handler would run inside the hook: it comes again afterwards
            args[1].append(1)
            return
        if ident in _nested:
            return
        # Code that is not the hook's own may run inside it (a look-up that meets a key of a class the candidate
        # wrote runs its __eq__): its events are judged as they would be outside, the hook's own are not.
        _nested[ident] = 1
        try:
            try:
                caller = _getframe(1)
            except ValueError:
                caller = None
            if caller is not None and caller.f_globals is not _GUARD:
                _dispatch(event, args, caller)
        finally:
            del _nested[ident]
        return
    was = _gc_isenabled()
    _gc_disable()  # no finalizer of the candidate's runs inside the hook
    _busy[ident] = 1
    try:
        try:
            actor = _getframe(1)
        except ValueError:
            actor = None  # an event raised where no Python frame runs
        _dispatch(event, args, actor)
    finally:
        del _busy[ident]
        if was:
            _gc_enable()
        if _deferred and ident == _st.main:
            pending = _tuple(_deferred)
            del _deferred[:]
            for s in pending:
                try:
                    _raise_signal(s)
                except _BaseException:
                    pass


# ---------------------------------------------------------------------------------------------
# Installing

def _import_baseline():
    known = {}
    for e in _tuple(sys.meta_path) + _tuple(sys.path_hooks):
        if _type(e) is _ModuleType or _type(e) is _Namespace:
            continue
        key = _id(e) if _is_a(e, _type) or _type(e) is _FunctionType else _id(_type(e))
        known[key] = e
    return known


def install(cand_file, program, runner_file, note_fd, events, ws):
    """Arms the hook. Returns the runner's handle on the guard (a namespace of functions)."""
    _st.cand_file = cand_file
    _st.program = _bool(program)
    _st.runner_file = runner_file
    _st.note_fd = note_fd
    _st.events = events
    _st.ws = ws.rstrip("/") + "/" if ws else None
    _install_replacements()
    sys.addaudithook(_hook)
    return _api()


def _api():
    return _Namespace(set_spans=set_spans, register_program=register_program, is_value=is_value, is_code=_is_cand_code,
                      set_in_test=set_in_test, calls=calls, endpoint=endpoint, alarm_handler=alarm_handler,
                      import_system_problem=import_system_problem)


def _light_hook(event, args):
    """An isolated run's hook: no candidate code runs in this process, so it only counts the target's calls
    (the forwarding stub's) and answers the stubs."""
    if event == "opencoder.call":
        if _st.in_test:
            _st.seen += 1
            _flag[0] = 1
    elif event == "opencoder.handoff" and _len(args) > 2 and _type(args[2]) is _list:
        ep = _endpoints.get(args[0])
        if ep is not None and (ep[0] is None or ep[0] is args[1]):
            args[2].append(ep[1])


def install_light():
    sys.addaudithook(_light_hook)
    return _api()


def set_spans(spans):
    _st.spans = _tuple(_tuple(s) for s in spans)


def _ensure_traceback():
    """traceback and linecache loaded (the tests' copies, imported now if the tests had not) before the
    candidate loads: their state then is what traceback's readers are judged against."""
    try:
        __import__("traceback")
    except _BaseException:
        pass


def register_program(code):
    """Check-program mode: the candidate's code, compiled by the runner, is the candidate's own."""
    _ensure_traceback()
    _st.trace = _trace_baseline()
    _st.import_types = _import_baseline()
    _add_tree(code, _own)
    _st.loaded = True


def _ticks():
    return _tick.__reduce__()[1][0]


def set_in_test(on):
    on = _bool(on)
    if on and not _st.in_test:
        _st.tick_start = _ticks()
        _flag[0] = 0
    elif not on and _st.in_test:
        _st.calls += _ticks() - _st.tick_start
        _flag[0] = 1
    _st.in_test = on


def calls():
    """How often the target was called while tests ran: 0 unless the tests themselves called it."""
    return _st.calls if _st.seen else 0


def endpoint(name, want, handler):
    _endpoints[name] = (want, handler)


def alarm_handler(exc):
    return _stub(_alarm_stub, exc, name="on_alarm")
