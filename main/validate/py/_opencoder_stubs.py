"""The runner's stubs: what the test framework (and so the candidate) can reach of the runner. Each is a
function rebuilt with no globals from a template below that names nothing global; its defaults hold only
builtins, framework objects and other stubs. The one way from a stub to the runner is sys.audit (see
_opencoder_guard.py): an `opencoder.*` event the hook answers, or a handler it hands back for that one
call when no candidate code is on the stack. Also here: the wrapper swapped into the target's code, and into
the code of the candidate's functions the target returns (wrap_returned, run by the hook for a result check).

Executed into the guard's private namespace after _opencoder_guard.py (no classes).
"""

def _trampoline(signum, frame, _inner=None, _audit=None, _list=None):
    out = _list()
    _audit("opencoder.fire", signum, out)
    if out:
        return None  # the runner was busy: the signal comes again when it is done
    return _inner(signum, None)



# ---------------------------------------------------------------------------------------------
# Stubs: functions with no globals, built from the templates below (which name nothing global)

def _stub(fn, *defaults, name=None):
    """fn rebuilt with no globals (its template names nothing global) and these trailing defaults."""
    s = _FunctionType(fn.__code__, {"__builtins__": {}}, name or fn.__name__.strip("_"), defaults or None)
    s.__qualname__ = s.__name__
    _runner[_id(fn.__code__)] = fn.__code__
    return s


def _signal_stub(signalnum, handler, _audit=None, _list=None, _index=None, _callable=None):
    out = _list()
    _audit("opencoder.signal", _index(signalnum), handler if _callable(handler) else _index(handler), out)
    return out[0]


def _getsignal_stub(signalnum, _audit=None, _list=None, _index=None):
    out = _list()
    _audit("opencoder.getsignal", _index(signalnum), out)
    return out[0]


def _create_builtin_stub(spec, _audit=None, _list=None):
    out = _list()
    _audit("opencoder.create_builtin", spec, out)
    return out[0]


def _exec_builtin_stub(mod, _audit=None, _list=None):
    out = _list()
    _audit("opencoder.exec_builtin", mod, out)
    return out[0]


def _create_dynamic_stub(spec, file=None, _audit=None, _list=None):
    out = _list()
    if file is None:
        _audit("opencoder.create_dynamic", spec, out)
    else:
        _audit("opencoder.create_dynamic", spec, file, out)
    return out[0]


def _set_debug_stub(flags, _audit=None, _index=None):
    _audit("opencoder.set_debug", _index(flags))


def _setrecursionlimit_stub(limit, _real=None, _index=None, _margin=None):
    # The target's wrapper is a second frame per call of it: recursion gets twice the room, plus the runner's.
    n = _index(limit)
    _real(n * 2 + _margin if n > 0 else n)


def _getrecursionlimit_stub(_real=None, _margin=None):
    return (_real() - _margin) // 2


def _alarm_stub(signum, frame, _exc=None):
    raise _exc("timed out")


# ---------------------------------------------------------------------------------------------
# The target's result and arguments, after each call

# Special methods that decide how a value compares, or that produce further values from it as the tests look at
# it (items, attributes, arithmetic): a returned value whose type has one the candidate wrote cannot be trusted
# to compare honestly. Calling, descriptors, context managers and awaiting are left out: a factory or a
# decorator returns objects that do those by design.
_PRODUCERS = frozenset((
    "__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__", "__contains__", "__getattr__", "__getattribute__",
    "__getitem__", "__iter__", "__next__", "__reversed__", "__bool__", "__len__", "__index__", "__int__",
    "__float__", "__complex__", "__round__", "__trunc__", "__floor__", "__ceil__", "__abs__", "__neg__", "__pos__",
    "__invert__", "__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__", "__truediv__", "__rtruediv__",
    "__floordiv__", "__rfloordiv__", "__mod__", "__rmod__", "__pow__", "__rpow__", "__and__", "__rand__", "__or__",
    "__ror__", "__xor__", "__rxor__", "__lshift__", "__rlshift__", "__rshift__", "__rrshift__", "__matmul__",
    "__rmatmul__", "__divmod__", "__rdivmod__", "__class__", "__hash__",
))
# A returned class is judged by how it compares only: a class factory's metaclass customises instantiation,
# isinstance and issubclass by design (scrapy's create_deprecated_class).
_CLASS_PRODUCERS = frozenset(("__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__", "__hash__"))


def _producer_is_cand(m):
    """Whether the candidate wrote the member m, a special method: its function, or a class (or an instance of one:
    a callable one serves as a method too) with a method of the candidate's."""
    if _member_is_cand(m):
        return True
    for klass in _type_mro(m if _is_a(m, _type) else _type(m)):
        if _class_is_cand(klass):
            return True
    return False


_HEAPTYPE = 1 << 9  # Py_TPFLAGS_HEAPTYPE: a class made by a class statement (or type()), not by C
_type_flags = _type.__dict__["__flags__"].__get__
_BUILTIN_CALLABLES = frozenset((_type(int.__eq__), _type(str.join), _type(len), _type((0).__eq__)))


def _heap(klass):
    return _bool(_type_flags(klass) & _HEAPTYPE)


def _unwrap_member(m):
    """(what m calls, whether it was wrapped): a static or class method's function, a partial's."""
    wrapped = False
    if _type(m) in (staticmethod, classmethod):
        m = m.__func__
        wrapped = True
    if _type(m) is _partial:
        m = m.func
        wrapped = True
    return m, wrapped


def _builtin_name(m):
    m = _unwrap_member(m)[0]
    return _name(_getattr(m, "__name__", None)) if _type(m) in _BUILTIN_CALLABLES else _type_qualname(_type(m))


def _borrowed(name, m, mro):
    """Whether m, a special method in a class statement's own members, is a builtin taken from elsewhere: a C
    function (or a static or class method, or partial, of one) that is not the slot `name` of a class in mro.
    `__eq__ = int.__ne__`, `__eq__ = frozenset.__contains__` and `__eq__ = staticmethod(operator.index)` compare
    as what they were, and answered a red team's tests for any value; `__hash__ = int.__hash__` is the base's own.
    Only C callables are read here (their names and owners are C data, nothing of the candidate's runs)."""
    m, wrapped = _unwrap_member(m)
    if _type(m) not in _BUILTIN_CALLABLES:
        return False
    owner = _getattr(m, "__objclass__", None)
    if wrapped or owner is None or _name(_getattr(m, "__name__", None)) != name:
        return True
    for klass in mro:
        if klass is owner:
            return False
    return True


def _judge_type(cls):
    """Why values of cls cannot be trusted in a return value (a special method the candidate wrote), or None."""
    got = _judged.get(_id(cls))
    if got is not None and got[0] is cls:
        return got[1]
    why = None
    names = _CLASS_PRODUCERS if _issubclass(cls, _type) else _PRODUCERS
    try:
        for klass in (_type_mro(cls) + _type_mro(_type(cls))):
            for name, m in _own_members(klass):
                if name is None:
                    why = "a %s with a member named by a str subclass the candidate wrote (it may stand for any name)" % (
                        _text(_type_qualname(cls), 80))
                elif name in names and _producer_is_cand(m):
                    why = "a %s whose %s the candidate wrote (its comparisons and results cannot be trusted)" % (
                        _text(_type_qualname(cls), 80), name)
                elif name in names and _heap(klass) and _borrowed(name, m, _type_mro(cls)):
                    why = "a %s whose %s is %s, a builtin borrowed under another name (it does not compare as %s does)" % (
                        _text(_type_qualname(cls), 80), name, _text(_builtin_name(m), 80), name)
                if why:
                    break
            if why:
                break
    except _BaseException:
        why = None
    _judged[_id(cls)] = (cls, why)
    return why



def _check_stub(r, args=(), pre=None, me=None, _type=None, _plain=None, _claims=None, _shadows=None, _Error=None,
                _list=None, _audit=None, _what=None, _callable=None, _selfs=None, _mro=None, _tdict=None, _fdict=None):
    """After a call of the target (or of a function it returned, me; _what names which): r, what it returned, and
    args, what it was given (the wrapper's parameters, after the call). pre: the shadowed methods there were before
    the call (the tests' own patches). Functions of the candidate's in r are handed to the guard to be checked alike."""
    plain = _type(r) in _plain
    found = None
    if not plain:
        found = _list()
        why = _claims(r, found)
        if why:
            raise _Error("opencoder: %s %s" % (_what[0], why))
    fn = me() if me is not None else None  # me: a weak reference to the returned function whose wrapper calls this
    if fn is not None:
        # What the function itself holds now: an attribute set during this call (`wrapper.hits = lambda: ...`) was not
        # there when the function was returned and checked.
        attrs = _fdict(fn)
        if attrs:
            if found is None:
                found = _list()
            why = _claims(_list(attrs.values()), found)
            if why:
                raise _Error("opencoder: %s %s" % (_what[0], why))
    if me is not None and args and _callable(args[0]) and _type(args[0]) not in _selfs:
        # The __call__ of an instance the target returned? Its class's __call__ is looked up at each call: one rebound
        # during the call is wrapped before the next.
        for klass in _mro(_type(args[0])):
            m = _tdict(klass).get("__call__")
            if m is not None:
                if m is not fn and _type(m) in _selfs:
                    if found is None:
                        found = _list()
                    found.append(args[0])
                break
    if found:
        out = _list()
        _audit("opencoder.wrap", found, out)  # the guard wraps them when no candidate code is on the stack
        if out:
            raise _Error("opencoder: %s %s" % (_what[0], out[0]))
    for a in args:
        if _type(a) not in _plain:
            break
    else:
        if plain:
            return r  # the common case: nothing that has methods to shadow
    found = _shadows(args + (r,))
    if found:
        for key, what in found.items():
            if pre is None or key not in pre:
                raise _Error("opencoder: after %s, %s" % (_what[1], what))
    return r


def _shadows_stub(values, _type=None, _plain=None, _containers=None, _dict=None, _list=None, _str=None, _id=None,
                  _callable=None, _getattr=None, _mro=None, _tdict=None, _methods=None, _BaseException=None):
    """{(id, name, id): description} for the objects among values (and their attributes, a few levels) whose
    instance dict shadows a method of their class with another callable: a method the tests rely on that no
    longer runs (stack.is_empty = bool; a Mock's assert_called_once_with replaced). None when there are none."""
    found = None
    stack = [(v, 0) for v in values]
    budget = 60
    while stack and budget > 0:
        x, depth = stack.pop()
        t = _type(x)
        if t in _plain:
            continue
        budget -= 1
        if t in _containers:
            if depth < 2:
                items = _list(x.values()) if t is _dict else _list(x)
                for y in items[:10]:
                    stack.append((y, depth + 1))
            continue
        try:
            d = _getattr(x, "__dict__", None)
            if _type(d) is not _dict:
                continue
            mro = _mro(t)
            for k, v in _list(d.items())[:100]:
                if _type(k) is not _str or (k[:2] == "__" and k[-2:] == "__"):
                    continue
                if _callable(v) and _getattr(v, "__self__", None) is not x:
                    for klass in mro:
                        m = _tdict(klass).get(k)
                        if m is not None:
                            if _type(m) in _methods and m is not v:
                                if found is None:
                                    found = {}
                                found[(_id(x), k, _id(v))] = "the method %s of a %s is shadowed on the instance by %r" % (
                                    k, t.__qualname__, v)
                            break
                elif depth < 3 and _type(v) not in _plain:
                    stack.append((v, depth + 1))
        except _BaseException:
            continue
    return found


def _pre_stub(args, _shadows=None, _type=None, _plain=None):
    for a in args:
        if _type(a) not in _plain:
            return _shadows(args)
    return None


def _claims_stub(v, found, _type=None, _plain=None, _containers=None, _dict=None, _list=None, _len=None, _getattr=None,
                 _bool=None, _object=None, _probes=None, _audit=None, _isinstance=None, _callable=None, _BaseException=None):
    """Why v (or a value inside it: items, attributes) cannot be trusted as a result, or None: a type whose
    comparisons the candidate wrote, or a value that equals objects no honest value equals. What is callable
    among them goes into found (the guard wraps those the candidate wrote, so that what they return is checked too)."""
    stack = [v]
    budget = 200
    while stack and budget > 0:
        x = stack.pop()
        budget -= 1
        t = _type(x)
        if t in _plain:
            continue
        if _callable(x):
            found.append(x)
        if t in _containers:
            items = _list(x.items()) if t is _dict else _list(x)
            for y in items[:50]:
                if t is _dict:
                    stack.append(y[0])
                    stack.append(y[1])
                else:
                    stack.append(y)
            continue
        if not _isinstance(x, _type):
            try:
                name = t.__qualname__
                sentinel = _object()
                if _bool(x == sentinel) or not _bool(x != sentinel):
                    return "a %s that claims to equal a fresh object() (its __eq__ answers True whatever it is given)" % name
                equal = [p for p in _probes if _bool(x == p)]
                if _len(equal) >= 2:
                    return "a %s that claims to equal both %r and %r" % (name, equal[0], equal[1])
            except _BaseException:
                pass
        # Probes can be told apart (or counted): a comparison the candidate wrote is never trusted.
        out = _list()
        _audit("opencoder.judge", t, out)
        if out and out[0]:
            return out[0]
        if _isinstance(x, _type):
            continue
        d = _getattr(x, "__dict__", None)
        if _type(d) is _dict:
            for y in _list(d.values())[:50]:
                stack.append(y)
    return None


_PLAIN = frozenset((int, float, complex, str, bytes, bool, type(None), bytearray, range, slice))
_CONTAINERS = frozenset((list, tuple, set, frozenset, dict))
_PROBES = (0, 987654321, "", "\x00opencoder-probe", None, (), 0.5)


_METHODS = frozenset((_FunctionType, staticmethod, classmethod, _type(len), _type(list.append), _type(object.__init__),
                      _type(dict.__dict__["fromkeys"])))


_exception_args = _BaseException.__dict__["args"].__get__  # an exception's args as C holds them (no property of its class)
_function_dict = _FunctionType.__dict__["__dict__"].__get__  # a function's attributes, past anything its class says


def _raised_stub(e, _claims=None, _list=None, _args=None, _Error=None, _what=None, _type=None, _issubclass=None,
                 _BaseException=None, _audit=None):
    """After a call of the target (or of a function it returned) that raised e: what e carries (its args, and its
    attributes and type, which the claims walk) passes the check a returned value does. A forged value in a raised
    KeyError's args met a test's `e.args == ('zz',)` unchecked."""
    if not _issubclass(_type(e), _BaseException):
        return
    why = _claims((_args(e), e), _list())
    if why:
        raise _Error("opencoder: %s an exception carrying %s" % (_what[2], why))
    out = _list()
    _audit("opencoder.handoff", "flow", None, out)  # the runner's rule on control flow (none inside candidate code)
    if out:
        why = out[0](_type(e))
        if why:
            raise _Error(why)


_WHAT_TARGET = ("the target returned", "the call of the target", "the target raised")
_WHAT_RETURNED = ("a function the target returned returned", "a call of a function the target returned",
                  "a function the target returned raised")


# What a callable first argument is not when it may be an instance whose __call__ was called, and what that __call__
# may be (the members the guard follows to the candidate's functions).
_NOT_SELF = frozenset((_FunctionType, _MethodType, _partial, _type, _type(len), _type(list.append), staticmethod, classmethod,
                       property))


def make_check(what=_WHAT_TARGET):
    """(pre, check, raised): what the target's wrapper calls before and after each call, and with an exception the
    call raised (stubs: no globals, nothing mutable). what: how a failure names the call (the target's, or a
    function's it returned: returned_check)."""
    claims = _stub(_claims_stub, _type, _PLAIN, _CONTAINERS, _dict, _list, _len, _getattr, _bool, _object, _PROBES,
                   _audit, _isinstance, _callable, _BaseException)
    shadows = _stub(_shadows_stub, _type, _PLAIN, _CONTAINERS, _dict, _list, _str, _id, _callable, _getattr, _type_mro,
                    _type_dict, _METHODS, _BaseException, name="shadows")
    pre = _stub(_pre_stub, shadows, _type, _PLAIN, name="pre")
    check = _stub(_check_stub, (), None, None, _type, _PLAIN, claims, shadows, AssertionError, _list, _audit, what, _callable,
                  _NOT_SELF, _type_mro, _type_dict, _function_dict, name="check")
    raised = _stub(_raised_stub, claims, _list, _exception_args, AssertionError, what, _type, _issubclass, _BaseException,
                   _audit, name="raised")
    return pre, check, raised


def returned_check():
    """The pair the wrappers of functions the target returned call (made once)."""
    if _st.returned_check is None:
        _st.returned_check = make_check(_WHAT_RETURNED)
    return _st.returned_check


def _result_1(self, test, _base=None, _audit=None, _name=None, _list=None):
    _base(self, test)
    out = _list()
    _audit("opencoder.handoff", "result", self, out)
    if out:
        out[0](_name, test, None)


def _result_2(self, test, err, _base=None, _audit=None, _name=None, _list=None):
    _base(self, test, err)
    out = _list()
    _audit("opencoder.handoff", "result", self, out)
    if out:
        out[0](_name, test, err)


def _result_sub(self, test, subtest, err, _base=None, _audit=None, _name=None, _list=None):
    _base(self, test, subtest, err)
    out = _list()
    _audit("opencoder.handoff", "result", self, out)
    if out:
        out[0](_name, test, (subtest, err))


_RESULT_METHODS = (("startTest", _result_1), ("stopTest", _result_1), ("addSuccess", _result_1),
                   ("addUnexpectedSuccess", _result_1), ("addFailure", _result_2), ("addError", _result_2),
                   ("addSkip", _result_2), ("addExpectedFailure", _result_2), ("addSubTest", _result_sub))


def recorder(result, handler):
    """Makes the unittest result object `result` report through handler(op, test, detail): its methods
    become stubs (instance attributes: no class of the runner's is among TestResult's subclasses)."""
    _endpoints["result"] = (result, handler)
    base_cls = _type(result)
    for name, template in _RESULT_METHODS:
        base = _getattr(base_cls, name)
        result.__dict__[name] = _MethodType(_stub(template, base, _audit, name, _list, name=name), result)


def _hook_session(session, _audit=None, _name=None, _list=None):
    out = _list()
    _audit("opencoder.handoff", "pytest", None, out)
    if out:
        out[0](_name, session, None)


def _hook_finish(session, exitstatus, _audit=None, _name=None, _list=None):
    out = _list()
    _audit("opencoder.handoff", "pytest", None, out)
    if out:
        out[0](_name, session, exitstatus)


def _hook_node(nodeid, location, _audit=None, _name=None, _list=None):
    out = _list()
    _audit("opencoder.handoff", "pytest", None, out)
    if out:
        out[0](_name, nodeid, location)


def _hook_report(report, _audit=None, _name=None, _list=None):
    out = _list()
    _audit("opencoder.handoff", "pytest", None, out)
    if out:
        out[0](_name, report, None)


_PYTEST_HOOKS = (("pytest_collection", _hook_session), ("pytest_collection_finish", _hook_session),
                 ("pytest_sessionfinish", _hook_finish), ("pytest_runtest_logstart", _hook_node),
                 ("pytest_runtest_logfinish", _hook_node), ("pytest_runtest_logreport", _hook_report),
                 ("pytest_collectreport", _hook_report))


def pytest_plugin(handler):
    """A plugin object (a module, not a class of the runner's) whose hooks report through handler(op, a, b)."""
    _endpoints["pytest"] = (None, handler)
    plugin = _ModuleType("_opencoder_pytest_plugin")
    for name, template in _PYTEST_HOOKS:
        _module_dict(plugin)[name] = _stub(template, _audit, name, _list, name=name)
    return plugin


def _find_spec_stub(name, path=None, target=None, _stem=None, _want=None, _finder=None, _wrap=None, _type=None, _str=None):
    if _type(name) is not _str or name.rpartition(".")[2] != _stem:
        return None
    spec = _finder.find_spec(name, path, target)
    if spec is None or spec.origin != _want or spec.loader is None:
        return spec
    spec.loader = _wrap(spec.loader)
    return spec


def _noop_stub():
    return None


_LOADER_ATTRS = ("name", "path", "create_module", "get_source", "get_filename", "is_package", "get_code", "get_data",
                 "get_resource_reader", "source_to_code", "path_stats", "load_module", "module_repr")


def _wrap_loader_stub(inner, _ns=None, _partial=None, _exec=None, _getattr=None, _names=None, _dict=None):
    attrs = _dict()
    for n in _names:
        v = _getattr(inner, n, None)
        if v is not None:
            attrs[n] = v
    attrs["exec_module"] = _partial(_exec, inner)
    return _ns(**attrs)


def _exec_module_stub(inner, module, _audit=None, _list=None):
    out = _list()
    _audit("opencoder.handoff", "loading", None, out)
    handler = out[0] if out else None
    if handler is not None:
        handler("start", module)
    ok = False
    try:
        inner.exec_module(module)
        ok = True
    finally:
        if handler is not None:
            handler("end" if ok else "abort", module)


def target_finder(stem, want, path_finder, handler):
    """A meta-path finder (a namespace of stubs) that wraps the loader of modules made from the target's file:
    handler('start' | 'end' | 'abort', module) runs around their execution."""
    _endpoints["loading"] = (None, handler)
    exec_module = _stub(_exec_module_stub, _audit, _list)
    wrap = _stub(_wrap_loader_stub, _Namespace, _partial, exec_module, _getattr, _LOADER_ATTRS, _dict)
    return _Namespace(find_spec=_stub(_find_spec_stub, stem, want, path_finder, wrap, _type, _str, name="find_spec"),
                      invalidate_caches=_stub(_noop_stub, name="invalidate_caches"))


# ---------------------------------------------------------------------------------------------
# The target's wrapper: its code takes the place of the target's, so the function object, its signature
# and its defaults stay what the tests and any registry hold. What it calls is in its constants (never
# looked up by name: the candidate's module could define those names). Functions of the candidate's that the
# target returns (or that such a function returns, and so on) get the same wrapper, in place, less the count.

# A generator's values are checked as it yields them: PEP 380's expansion of `yield from`, a check added.
# A call: what it returns goes through the check, and so does what an exception it raises carries (its args and
# attributes: a test that compares e.args must not meet a forged value either); the exception then goes on as it was.
_CALL_BODY = """%s
        try:
            __oc_r__ = %s
        except ('$OC_BASE' or 0) as __oc_e__:
            ('$OC_RAISED' or 0)(__oc_e__)
            raise
        return ('$OC_CHECK' or 0)(__oc_r__, %s, __oc_pre__%s)"""

_GENERATOR_BODY = """__oc_it__ = %s
        try:
            __oc_y__ = ('$OC_NEXT' or 0)(__oc_it__)
        except ('$OC_STOP' or 0) as __oc_e__:
            __oc_r__ = __oc_e__.value
        else:
            while 1:
                ('$OC_CHECK' or 0)(__oc_y__)
                try:
                    __oc_s__ = yield __oc_y__
                except ('$OC_EXIT' or 0):
                    __oc_it__.close()
                    raise
                except ('$OC_BASE' or 0) as __oc_e__:
                    try:
                        __oc_y__ = __oc_it__.throw(__oc_e__)
                    except ('$OC_STOP' or 0) as __oc_x__:
                        __oc_r__ = __oc_x__.value
                        break
                else:
                    try:
                        __oc_y__ = ('$OC_NEXT' or 0)(__oc_it__) if __oc_s__ is None else __oc_it__.send(__oc_s__)
                    except ('$OC_STOP' or 0) as __oc_e__:
                        __oc_r__ = __oc_e__.value
                        break
        return ('$OC_CHECK' or 0)(__oc_r__)"""


def _wrapper_source(co, n_defaults, kwdefaults, slot, cells):
    """The wrapper's source: counted as a call of the target when slot is not None."""
    flags = co.co_flags
    if flags & 0x200:  # async generator: left unwrapped
        return None
    names = co.co_varnames
    argc, posonly, kwonly = co.co_argcount, co.co_posonlyargcount, co.co_kwonlyargcount
    params, pos_fwd, kw_fwd = [], [], []
    for i in range(argc):
        params.append(names[i] + ("=None" if i >= argc - n_defaults else ""))
        pos_fwd.append(names[i])
        if i == posonly - 1:
            params.append("/")
    if flags & 0x04:
        star = names[argc + kwonly]
        params.append("*" + star)
        pos_fwd.append("*" + star)
    elif kwonly:
        params.append("*")
    for j in range(kwonly):
        name = names[argc + j]
        params.append(name + ("=None" if name in kwdefaults else ""))
        kw_fwd.append("%s=%s" % (name, name))
    if flags & 0x08:
        dstar = names[argc + kwonly + (1 if flags & 0x04 else 0)]
        params.append("**" + dstar)
        kw_fwd.append("**" + dstar)
    # The target's wrapper calls a clone of it (a constant); a returned function's calls a function made afresh at
    # each call from the original code and the wrapper's own cells (nothing kept that would keep its closure alive).
    callee = "('$OC_CLONE' or 0)" if slot is not None else "__oc_inner__"
    call = "%s(%s)" % (callee, ", ".join(pos_fwd + kw_fwd))
    given = "(%s)" % "".join(n + ", " for n in names[:argc + kwonly + (1 if flags & 0x04 else 0) + (1 if flags & 0x08 else 0)])
    pre = "__oc_pre__ = ('$OC_PRE' or 0)(%s)" % given
    if slot is None:  # the placeholder, whose code is replaced by the original's: its free variables are the cells
        count = "def __oc_inner__():\n            %s" % (("(%s)" % "".join(c + ", " for c in cells)) if cells else "pass")
    else:
        count = "('$OC_TICK' or 0)()\n        if not ('$OC_FLAG' or 0)[0]:\n            ('$OC_COUNT' or 0)('opencoder.call', %d)" % slot
    me = ", ('$OC_ME' or 0)" if slot is None else ""  # a returned function's check is told which function it is
    if flags & 0x80:
        head, body = "async def", _CALL_BODY % (pre, "await " + call, given, me)
    elif flags & 0x20:
        head, body = "def", _GENERATOR_BODY % call
    else:
        head, body = "def", _CALL_BODY % (pre, call, given, me)
    name = co.co_name if co.co_name.isidentifier() else "target"
    cell_ref = "".join(c + ", " for c in cells)
    return "def _outer(%s):\n    %s %s(%s):\n        if 0:\n            (%s)\n        %s\n        %s\n    return %s\n" % (
        ", ".join(cells), head, name, ", ".join(params), cell_ref, count, body, name)


def _template(original, n_defaults, kwnames, slot):
    """The wrapper's code for original, its callees still named by strings (made once per code and shape: a
    factory's closures share one)."""
    got = _templates.get(_id(original))
    if got is not None and got[0] is original and got[1] == (n_defaults, kwnames, slot):
        return got[2]
    n = _len(original.co_freevars)
    cells = ["__oc_cell%04d" % i for i in range(n)]  # in order when sorted, as a code object's free variables are
    src = _wrapper_source(original, n_defaults, kwnames, slot, cells)
    if src is None:
        return None
    ns = {"__builtins__": {}}
    try:
        exec(compile(src, "<opencoder wrapper>", "exec", dont_inherit=True), ns)
    except SyntaxError:
        return None
    inner = None
    for c in ns["_outer"].__code__.co_consts:
        if _type(c) is _CodeType:
            inner = c
    if inner is None or _len(inner.co_freevars) != n:
        return None
    if slot is None:
        # The placeholder's code gives way to the original's; before 3.11 the qualified name it is made with too.
        consts = []
        for k in inner.co_consts:
            if _type(k) is _CodeType and k.co_name == "__oc_inner__":
                if k.co_freevars != inner.co_freevars:
                    return None
                k = original
            elif _type(k) is _str and k.endswith(".<locals>.__oc_inner__"):
                k = _getattr(original, "co_qualname", original.co_name)
            consts.append(k)
        inner = inner.replace(co_consts=_tuple(consts))
    _templates[_id(original)] = (original, (n_defaults, kwnames, slot), inner)
    return inner


def _wrap(fn, slot, counter, check, into):
    """fn's code swapped for a wrapper (its code registered in into first): the target's calls a clone of fn (returned),
    a returned function's the original code (a weak reference to fn returned). None when fn cannot be wrapped. Runs
    inside the hook for functions the target returned: it reads fn's attributes by C slots only (its defaults may be a
    tuple or dict subclass of the candidate's)."""
    original = fn.__code__
    defaults, kwdefaults = fn.__defaults__, fn.__kwdefaults__
    kwnames = frozenset(k for k in _dict.keys(kwdefaults) if _type(k) is _str) if kwdefaults is not None else frozenset()
    try:
        inner = _template(original, _tuple.__len__(defaults) if defaults is not None else 0, kwnames, slot)
    except _BaseException:
        return None
    if inner is None:
        return None
    swap = {"$OC_PRE": check[0], "$OC_CHECK": check[1], "$OC_RAISED": check[2], "$OC_NEXT": _next, "$OC_STOP": StopIteration,
            "$OC_EXIT": GeneratorExit, "$OC_BASE": _BaseException}
    if slot is None:
        clone = swap["$OC_ME"] = _weakref_ref(fn)
    else:
        clone = _FunctionType(original, fn.__globals__, fn.__name__, defaults, fn.__closure__)
        clone.__kwdefaults__ = kwdefaults
        clone.__qualname__ = fn.__qualname__
        swap.update({"$OC_CLONE": clone, "$OC_COUNT": counter, "$OC_TICK": _tick.__next__, "$OC_FLAG": _flag})
    consts = _tuple(swap.get(k, k) if _type(k) is _str else k for k in inner.co_consts)
    try:
        inner = inner.replace(co_consts=consts, co_filename=original.co_filename, co_firstlineno=original.co_firstlineno,
                              co_name=original.co_name, co_qualname=_getattr(original, "co_qualname", original.co_name))
    except TypeError:  # before 3.11: no co_qualname
        inner = inner.replace(co_consts=consts, co_filename=original.co_filename, co_firstlineno=original.co_firstlineno,
                              co_name=original.co_name)
    if slot is None:
        into[_id(inner)] = _weakref_ref(inner)
    else:
        _runner[_id(inner)] = inner
        into[_id(inner)] = inner
    try:
        fn.__code__ = inner
    except _BaseException:
        return None
    return clone


def wrap_function(fn, slot, counter, check):
    """Swaps fn's code for a wrapper that counts the call (counter('opencoder.call', slot)), calls a clone of
    fn and passes what it returns, and its arguments after the call, through check (a pair from make_check).
    Returns the clone, or None when fn cannot be wrapped."""
    if _type(fn) is not _FunctionType:
        return None
    return _wrap(fn, slot, counter, check, _wrappers)


def _candidate_functions(v, out, depth=0):
    """The candidate's functions behind the callable v, into out: v itself, the function of a bound method, a
    static or class method, a property's getter or a partial, what an instance's class has as __call__, or (v a
    function of someone else's) a function of the candidate's in its closure; None into out for a __call__ that
    cannot be found for sure. Runs inside the hook: exact types and C slots only, nothing that runs code of v's."""
    t = _type(v)
    if depth > 4:
        return
    if t is _FunctionType:
        code = v.__code__
        if _is_cand_code(code) or _returned_code(code):
            out.append(v)
        elif depth == 0 and not _runner_code(code):
            for cell in v.__closure__ or ():
                try:
                    x = cell.cell_contents
                except ValueError:
                    continue
                if _type(x) is _FunctionType and _is_cand_code(x.__code__):
                    out.append(x)
    elif t is _MethodType or t is staticmethod or t is classmethod:
        _candidate_functions(v.__func__, out, depth + 1)
    elif t is _partial:
        _candidate_functions(v.func, out, depth + 1)
    elif t is property:
        _candidate_functions(v.fget, out, depth + 1)
    elif not _is_a(v, _type) and _callable(v):
        for klass in _type_mro(t):
            for name, m in _own_members(klass):
                if name is None:
                    out.append(None)
                    return
                if name == "__call__":
                    _candidate_functions(m, out, depth + 1)
                    return


def wrap_returned(values):
    """The candidate's functions among values (callables the target returned, or a function it returned
    returned) wrapped in place, once each, so that what they return is checked as the target's result is (not
    counted as calls of the target). Why one cannot be checked, or None. Runs inside the hook (_on_wrap)."""
    fns = []
    for v in values[:200]:
        _candidate_functions(v, fns)
    for fn in fns:
        if fn is None:
            return "a callable whose class names its members with a str subclass the candidate wrote (it cannot be checked)"
        code = fn.__code__
        if _returned_code(code) or code.co_flags & 0x200:
            continue  # wrapped already; an async generator is left as the target's would be
        try:
            done = _wrap(fn, None, None, returned_check(), _returned)
        except _BaseException:
            done = None
        if done is None:
            return "a function the candidate wrote (%s) that cannot be checked" % _text(fn.__qualname__, 100)
    return None


def _install_replacements():
    """Functions the candidate must not call raw, replaced by stubs before any workspace code runs."""
    mdict = _module_dict
    sd = mdict(_signal)
    sd["signal"] = _stub(_signal_stub, _audit, _list, _index, _callable, name="signal")
    sd["getsignal"] = _stub(_getsignal_stub, _audit, _list, _index, name="getsignal")
    sd["signal"].__doc__ = _real_signal.__doc__
    sd["getsignal"].__doc__ = _real_getsignal.__doc__
    mod = sys.modules.get("signal")
    if _type(mod) is _ModuleType:
        for name in ("signal", "getsignal"):
            f = mdict(mod).get(name)
            if _type(f) is _FunctionType and _getattr(f, "__wrapped__", None) is not None:
                f.__wrapped__ = sd[name]
    idict = mdict(_imp)
    idict["create_builtin"] = _stub(_create_builtin_stub, _audit, _list, name="create_builtin")
    idict["exec_builtin"] = _stub(_exec_builtin_stub, _audit, _list, name="exec_builtin")
    idict["create_dynamic"] = _stub(_create_dynamic_stub, None, _audit, _list, name="create_dynamic")
    mdict(_gc)["set_debug"] = _stub(_set_debug_stub, _audit, _index, name="set_debug")
    margin = 200
    sysd = mdict(sys)
    base = _real_getrecursionlimit()
    sysd["setrecursionlimit"] = _stub(_setrecursionlimit_stub, _real_setrecursionlimit, _index, margin, name="setrecursionlimit")
    sysd["getrecursionlimit"] = _stub(_getrecursionlimit_stub, _real_getrecursionlimit, margin, name="getrecursionlimit")
    _real_setrecursionlimit(base * 2 + margin)
    fi = sys.modules.get("_frozen_importlib")
    ms = mdict(fi).get("ModuleSpec") if _type(fi) is _ModuleType else None
    _st.module_spec = ms
    _st.spec_dict = _type_dict(ms)["__dict__"].__get__ if ms is not None else None


