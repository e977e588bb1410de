"""Calls of the target between the test process and the candidate process, as data only.

The test process (trusted: the repository's code and the tests, never the candidate's) holds a
forwarding stub in place of the target; the candidate process holds the candidate and none of the
tests. A call crosses as one JSON line: the arguments one way; the return value or the exception,
and the state of mutable arguments after the call, the other way.

What the test side decodes is data: JSON's own values, builtin containers, a fixed table of
standard-library values (rebuilt by their constructors from plain fields), and instances of classes
that trusted code already loaded (found in sys.modules by name, made with their builtin base's
__new__ and given their attributes, so no method of theirs runs). It never imports, evaluates,
unpickles or calls anything the candidate side names. What cannot cross fails the call with a
CrossingError, a BaseException (an `except Exception` in a test cannot swallow it) that the runner
also reports, so a value made uncrossable on purpose is never a pass.

Objects of the tests that are not data (a callback, a file-like object, an `object()` marker) travel
as handles: the candidate side gets a proxy whose uses (calls, public attributes, iteration, len,
indexing, identity) are served in the test process on the test's own object. Iterators and
generators the candidate returns travel the other way, as handles pulled one item at a time.

Only builtin modules are imported here: the test process loads this before the workspace is on the
path, and must not load a standard-library module the workspace may provide itself.
"""

import sys
import _json

_type = type
_str = str
_int = int
_float = float
_bool = bool
_list = list
_tuple = tuple
_dict = dict
_set = set
_frozenset = frozenset
_bytes = bytes
_bytearray = bytearray
_complex = complex
_len = len
_isinstance = isinstance
_issubclass = issubclass
_getattr = getattr
_id = id
_object = object
_BaseException = BaseException
_float_repr = float.__repr__
_obj_getattribute = object.__getattribute__
_obj_setattr = object.__setattr__
_HEAPTYPE = 1 << 9
_MAX_LINE = 64 << 20
_BIG = 1 << 62
_DEPTH = 150  # nesting a value may have: the tests' own frames take stack too


class CrossingError(BaseException):
    """A call that could not cross between the processes (a value that is not data, a dead peer)."""


# ---------------------------------------------------------------------------------------------
# Control flow: exceptions that steer the tests' own loops and outcomes, never the target's to raise at will

_FLOW_BUILTINS = (StopIteration, StopAsyncIteration, GeneratorExit, KeyboardInterrupt, SystemExit)
_FLOW_MODULES = ("unittest.case", "_pytest.outcomes")  # SkipTest, _ShouldStop …; pytest's Skipped, Failed, Exit …
_mro_of = type.__dict__["__mro__"].__get__
_module_of = type.__dict__["__module__"].__get__
_qualname_of = type.__dict__["__qualname__"].__get__


def control_flow(cls):
    """The name (module.qualname) of cls when its exceptions are control flow — StopIteration ends the tests'
    own `map()` inside `all(...)`, unittest's SkipTest skips the test — else None. Reads the type's slots only:
    no code of the class runs."""
    try:
        mro = _mro_of(cls)
        flow = False
        for c in mro:
            m = _module_of(c)
            if any(c is b for b in _FLOW_BUILTINS) or (_type(m) is _str and m in _FLOW_MODULES):
                flow = True
                break
        if not flow:
            return None
        mod, qual = _module_of(cls), _qualname_of(cls)
    except _BaseException:
        return None
    return "%s.%s" % (mod, qual) if _type(mod) is _str and _type(qual) is _str else "an exception class"


class _Scan:
    strict = True
    object_hook = None
    object_pairs_hook = None
    parse_float = float
    parse_int = int
    parse_constant = float
    memo = {}


_scan = _json.make_scanner(_Scan())


def _loads(text):
    value, end = _scan(text, 0)
    if end != _len(text):
        raise ValueError("extra data")
    return value


def _refuse(v):
    raise CrossingError("internal: %s in a message" % _type(v).__name__)


# The C encoder: a message is made of exact builtin values only (floats finite, ints in range).
_c_dumps = _json.make_encoder(None, _refuse, _json.encode_basestring, None, ":", ",", False, False, True)


def _dumps(v):
    return "".join(_c_dumps(v, 0))



# ---------------------------------------------------------------------------------------------
# Names: classes and functions travel by module and qualified name

def _walk(root, qual):
    """The object `qual` names in the module `root`, found by attribute access on that module and the classes
    defined in it, each step an object defined there: its own __module__ is the module's name and its own
    __qualname__ the path so far. Nothing is reached through another module's globals, an instance or a dict (a
    repository module's `import unittest` does not make unittest's classes the repository's)."""
    try:
        modname = _obj_getattribute(root, "__name__")
    except _BaseException:
        return None
    if _type(modname) is not _str:
        return None
    obj = root
    path = None
    for part in qual.split("."):
        if part == "<locals>" or not part:
            return None
        try:
            d = _obj_getattribute(obj, "__dict__")
        except _BaseException:
            return None
        if part not in d:
            return None
        obj = d[part]
        if _type(obj) in (staticmethod, classmethod):
            obj = obj.__func__
        path = part if path is None else path + "." + part
        if _origin(obj) != (modname, path):
            return None
    return obj


def _origin(obj):
    """(module, qualname) an object says it was defined under: its own, or for a method of a builtin class
    (str.upper, object.__init__) its class's module."""
    try:
        qual = _getattr(obj, "__qualname__", None)
        mod = _getattr(obj, "__module__", None)
        if mod is None and _type(qual) is _str and _type(obj).__name__ in _DESCRIPTORS:
            owner = _getattr(obj, "__objclass__", None)
            mod = _getattr(owner, "__module__", None) if owner is not None else None
    except _BaseException:
        return None
    if _type(mod) is not _str or _type(qual) is not _str:
        return None
    return (mod, qual)


_DESCRIPTORS = frozenset(("method_descriptor", "wrapper_descriptor", "getset_descriptor", "classmethod_descriptor", "member_descriptor"))


def name_of(obj):
    """(module, qualname) under which obj is found again, or None."""
    named = _origin(obj)
    if named is None:
        return None
    m = sys.modules.get(named[0])
    if m is None:
        return None
    return named if _walk(m, named[1]) is obj else None


_FUNC_TYPES = None
_BOUND = frozenset((_type(len), _type((1).__abs__)))  # builtin methods and method-wrappers
_METHOD_OWNERS = frozenset((int, float, complex, str, bytes, bytearray, list, tuple, dict, set, frozenset, range, slice, bool))


def _func_types():
    global _FUNC_TYPES
    if _FUNC_TYPES is None:
        # Functions, and the attribute descriptors of builtin classes (OSError.errno): named, never rebuilt.
        _FUNC_TYPES = (_type(_walk), _type(len), _type(str.upper), _type(object.__init__), _type(_dict.__dict__["fromkeys"]),
                       _type(_type.__dict__["__name__"]), _type(_BaseException.__dict__["__traceback__"]),
                       _type(slice.__dict__["start"]))
    return _FUNC_TYPES


# ---------------------------------------------------------------------------------------------
# Encoding (both sides)

_NO = _object()
# Standard-library modules the test side may load to rebuild a value of theirs (a Decimal equal to the
# int a test expects, where the tests never imported decimal): a fixed list, never a name the peer sent.
_STDLIB_VALUES = frozenset(("decimal", "fractions", "datetime", "collections", "uuid", "re", "pathlib", "ipaddress", "zoneinfo", "array"))
_TEXTUAL = frozenset((str, type(None), bool))
_INTS = frozenset((int,))
_PLAIN = frozenset((str, type(None), bool, int, float))


class Encoder:
    """Encodes one message's values; objects seen twice become references (shared and cyclic values).
    `origin(obj)` gives a node for objects that came from the peer (they go back as themselves);
    `fallback(obj)` a node for objects that are not data (a handle), or None to refuse them."""

    def __init__(self, origin=None, fallback=None, nameable=None, methods=False):
        self.methods = methods  # the candidate side: a builtin method of data goes as (its data, its name)
        self.memo = {}
        self.keep = []
        self.origin = origin
        self.fallback = fallback
        # The test side names only what the candidate side can have (not the tests' own classes).
        self.nameable = nameable or (lambda mod, obj, why: True)
        self.types = {}  # type -> (its name, or False when it cannot be named; its builtin base)

    def _slot(self, v):
        k = _len(self.keep)
        self.memo[_id(v)] = k
        self.keep.append(v)
        return k

    def enc(self, v, depth=0):
        if v is None or v is True or v is False:
            return v
        t = _type(v)
        if t is _str:
            return v
        if t is _int:
            return v if -_BIG < v < _BIG else ["i", "%x" % v]
        if t is _float:
            return v if v == v and v not in (float("inf"), float("-inf")) else ["f", _float_repr(v)]
        if depth > _DEPTH:
            raise CrossingError("a value nested more than %d levels deep" % _DEPTH)
        k = self.memo.get(_id(v))
        if k is not None:
            return ["r", k]
        if self.origin is not None:
            node = self.origin(v)
            if node is not None:
                return node
        d = depth + 1
        if t is _list:
            k = self._slot(v)
            return ["l", k, self.items(v, d)]
        if t is _tuple:
            k = self._slot(v)
            return ["t", k, self.items(v, d)]
        if t is _dict:
            k = self._slot(v)
            return ["d", k, [[self.enc(a, d), self.enc(b, d)] for a, b in v.items()]]
        if t is _set or t is _frozenset:
            k = self._slot(v)
            return ["s" if t is _set else "fs", k, self.items(v, d)]
        if t is _bytes:
            return ["b", v.hex()]
        if t is _bytearray:
            return ["ba", self._slot(v), v.hex()]
        if t is memoryview:
            # Rebuilt as a memoryview over a copy of its object, read-only or writable as this one, of its format and
            # shape (a candidate that accepts only bytes must see the memoryview it was given). Only a view of the
            # whole of a bytes or bytearray crosses: over part of one, a write through `.obj` outside the window
            # would be lost on the way back, and another exporter's `.obj` could not be rebuilt as itself.
            o = v.obj
            ot = _type(o)
            if (ot is not _bytes and ot is not _bytearray) or v.nbytes != _len(o) or not v.c_contiguous:
                raise CrossingError("a memoryview crosses only over the whole of a bytes or bytearray (this one: %d of %d bytes of a %s)"
                                    % (v.nbytes, _len(o) if ot is _bytes or ot is _bytearray else -1, ot.__name__))
            return ["mv", self._slot(v), v.tobytes().hex(), _bool(v.readonly), v.format, _list(v.shape), "b" if ot is _bytes else "ba"]
        if t in _VIEWS:
            # A dict's keys, values or items (and a read-only mapping): rebuilt over a dict of their own.
            kind = _VIEWS[t]
            items = _list(v.items()) if kind == "mp" else _list(v)
            return ["dv", kind, [self.enc(x, d) for x in (items if kind != "mp" else [_list(p) for p in items])]]
        if t is _complex:
            return ["c", self.enc(v.real), self.enc(v.imag)]
        if t is range:
            return ["rg", v.start, v.stop, v.step]
        if t is slice:
            return ["sl", self.enc(v.start, d), self.enc(v.stop, d), self.enc(v.step, d)]
        if v is Ellipsis:
            return ["..."]
        if v is NotImplemented:
            return ["NI"]
        node = self.stdlib(v, t, d)
        if node is not None:
            return node
        if t is _type(sys):
            return ["m", v.__name__]
        if _isinstance(v, _type) or t in _func_types() or t in _BOUND:
            named = name_of(v)
            if named is not None and self.nameable(named[0], v, "name"):
                return ["n", named[0], named[1]]
            if self.methods and t in _BOUND:
                node = self.bound(v, d)
                if node is not None:
                    return node
        elif _isinstance(v, _BaseException):
            return self.exception(v, d)
        else:
            node = self.instance(v, t, d)
            if node is not None:
                return node
        if self.fallback is not None:
            node = self.fallback(v)
            if node is not None:
                if node[0] == "pv":
                    # An instance of the candidate's own subclass of a builtin value (a namedtuple, an IntEnum
                    # member, a str subclass): its value as data, its other uses asked of it where it stays.
                    node[2] = self.enc(base_value(v, _builtin_base(t)), d)
                return node
        raise CrossingError("%s cannot cross between the processes" % _describe_type(t))

    def bound(self, v, d):
        """(10).bit_length, (1).__abs__, int.mro: a builtin type's method bound to data, as that data and the name
        (the test side looks the name up on the value it rebuilt: builtin code only)."""
        owner = _getattr(v, "__self__", None)
        name = _getattr(v, "__name__", None)
        if _type(name) is not _str or owner is None or (_type(owner) not in _METHOD_OWNERS and not _isinstance(owner, _type)):
            # Only methods of plain data: a generator's or an iterator's bound __next__ stays a proxy, whose calls are
            # checked for control flow (its StopIteration would otherwise end the tests' own map()).
            return None
        try:
            return ["bm", self.enc(owner, d), name]
        except CrossingError:
            return None

    def items(self, v, d):
        """A container's items; at C speed when they are all strings, or all ints in range (a test's
        set of a million paths)."""
        items = _list(v)
        kinds = _set(map(_type, items))
        if kinds <= _TEXTUAL or (kinds == _INTS and -_BIG < min(items) and max(items) < _BIG):
            return items
        return [self.enc(x, d) for x in items]

    def stdlib(self, v, t, d):
        mod = _getattr(t, "__module__", "")
        name = t.__name__
        if _is_struct_seq(t):
            # A struct sequence (time.struct_time, os.stat_result, grp.struct_group): a named tuple of data.
            named = name_of(t)
            if named is not None:
                extra = [[k, self.enc(_getattr(v, k, None), d)] for k in _dir_fields(t, _len(v))]
                return ["sq", named[0], named[1], [self.enc(x, d) for x in v], extra]
        if mod == "collections":
            if name == "OrderedDict":
                return ["od", self._slot(v), [[self.enc(a, d), self.enc(b, d)] for a, b in v.items()]]
            if name == "defaultdict":
                return ["dd", self._slot(v), self.enc(v.default_factory, d), [[self.enc(a, d), self.enc(b, d)] for a, b in _dict.items(v)]]
            if name == "deque":
                return ["dq", self._slot(v), v.maxlen, [self.enc(x, d) for x in v]]
        elif mod == "datetime":
            if name == "datetime":
                return ["dt", name, [v.year, v.month, v.day, v.hour, v.minute, v.second, v.microsecond], self.enc(v.tzinfo, d), v.fold]
            if name == "date":
                return ["dt", name, [v.year, v.month, v.day], None, 0]
            if name == "time":
                return ["dt", name, [v.hour, v.minute, v.second, v.microsecond], self.enc(v.tzinfo, d), v.fold]
            if name == "timedelta":
                return ["dt", name, [v.days, v.seconds, v.microseconds], None, 0]
            if name == "timezone":
                return ["tz", self.enc(v.utcoffset(None), d), v.tzname(None)]
        elif mod == "decimal" and name == "Decimal":
            return ["dec", _str(v)]
        elif mod == "zoneinfo" and name == "ZoneInfo":
            # By its key: ZoneInfo(key) is the one cached object per key, as the tests' own would be.
            key = v.key
            if _type(key) is not _str:
                raise CrossingError("a zoneinfo.ZoneInfo made from a file (it has no key to be found again by)")
            return ["zi", key]
        elif mod == "array" and name == "array":
            return ["arr", self._slot(v), v.typecode, v.tobytes().hex()]
        elif mod == "types" and name == "SimpleNamespace":
            k = self._slot(v)
            return ["ns", k, [[key, self.enc(val, d)] for key, val in _dict.items(_obj_getattribute(v, "__dict__")) if _type(key) is _str]]
        elif mod == "re" and name == "Pattern":
            return ["re", self.enc(v.pattern, d), v.flags]
        elif mod.startswith("pathlib") and name in ("PurePath", "PurePosixPath", "PureWindowsPath", "Path", "PosixPath", "WindowsPath"):
            return ["path", name, _str(v)]
        elif mod == "enum" or _is_enum_member(v):
            named = name_of(t)
            member = _getattr(v, "_name_", None)
            if named is not None and _type(member) is _str and self.nameable(named[0], t, "enum"):
                return ["e", named[0], named[1], member]
        return None

    def exception(self, v, d):
        mro = []
        for c in _type(v).__mro__:
            n = name_of(c)
            if n is not None:
                mro.append([n[0], n[1]])
        args = []
        for a in v.args if _type(v.args) is _tuple else ():
            try:
                args.append(self.enc(a, d))
            except CrossingError:
                args.append(_safe_repr(a))
        state = []
        try:
            items = _list(_obj_getattribute(v, "__dict__").items())
        except _BaseException:
            items = []
        for key, val in items:
            if _type(key) is _str and key != "__notes__":
                try:
                    state.append([key, self.enc(val, d)])
                except CrossingError:
                    pass
        return ["x", self._slot(v), mro, args, state]

    def instance(self, v, t, d):
        known = self.types.get(t)
        if known is None:
            named = name_of(t)
            known = self.types[t] = (named if named is not None and self.nameable(named[0], t, "instance") else False, _builtin_base(t))
        named, base = known
        if not named:
            return None
        value = None
        if base in (_str, _int, _float, _bytes, _tuple, _frozenset, _complex):
            value = self.enc(base(v) if base is not _tuple and base is not _frozenset else base(base.__iter__(v)), d)
        elif base in (_list, _set, _bytearray):
            value = self.enc(base(base.__iter__(v)), d)
        elif base is _dict:
            value = self.enc(_dict(_dict.items(v)), d)
        elif base is not _object and base.__module__ not in ("ast", "_ast"):
            return None  # a builtin base whose state this codec does not know (a file, a lock …)
        k = self._slot(v)
        return ["o", k, named[0], named[1], value, self.attrs(v, t, d)]

    def attrs(self, v, t, d):
        return [[key, self.enc(val, d)] for key, val in self.attrs_raw(v, t)]

    def attrs_raw(self, v, t):
        try:
            items = _list(_obj_getattribute(v, "__dict__").items())
        except _BaseException:
            items = []
        for attr in _slot_names(t):
            try:
                items.append((attr, _obj_getattribute(v, attr)))
            except AttributeError:
                pass
        return [(key, val) for key, val in items if _type(key) is _str]


# Builtin bases whose value crosses as data when the candidate's own subclass of one cannot be named.
VALUE_BASES = frozenset((_int, _float, _complex, _str, _bytes, _tuple, _frozenset, _list, _dict, _set, _bytearray))


def fill(made, base, value):
    """Gives `made` (a fresh instance of a subclass of the mutable builtin `base`) the items of `value`, by the
    base's own methods."""
    if base is _dict:
        _dict.update(made, value)
    elif base is _set:
        _set.update(made, value)
    else:
        base.extend(made, value)
    return made


def base_value(v, base):
    """v's value as its builtin base holds it (the base's own code: no method of v's class runs)."""
    if base is _dict:
        return _dict(_dict.items(v))
    if base in (_tuple, _frozenset, _list, _set, _bytearray):
        return base(base.__iter__(v))
    return _EXACT[base](v)


# The base's own slot, which returns an exact copy for a subclass (int(v) would call the subclass's __int__).
_EXACT = {_int: lambda v: _int.__add__(v, 0), _float: _float.__float__, _complex: _complex.__complex__, _str: _str.__str__,
          _bytes: _bytes.__bytes__}


def _is_struct_seq(t):
    """A struct sequence type: a tuple subclass with builtin construction and named fields."""
    d = t.__dict__
    return t.__base__ is _tuple and _type(d.get("n_sequence_fields")) is _int and _type(d.get("__new__")).__name__ == "builtin_function_or_method"


def _dir_fields(t, n):
    """The named fields of a struct sequence beyond its first n (tm_zone, st_atime …)."""
    out = []
    for k, member in t.__dict__.items():
        if _type(member).__name__ == "member_descriptor" and not k.startswith("_"):
            out.append(k)
    return out[n:] if _len(out) > n else []


_VIEWS = {_type({}.keys()): "keys", _type({}.values()): "values", _type({}.items()): "items", _type(_type.__dict__): "mp"}


def _is_enum_member(v):
    enum = sys.modules.get("enum")
    return enum is not None and _isinstance(v, enum.Enum)


def _builtin_base(t):
    """The class whose __new__ makes t's instances without running t's own code: the first builtin
    class in t's MRO (ast.AST for syntax-tree nodes, which are heap types themselves)."""
    for c in t.__mro__:
        if not (c.__flags__ & _HEAPTYPE) or (c.__name__ == "AST" and c.__module__ in ("ast", "_ast")):
            return c
    return _object


def _describe_type(t):
    try:
        return "a %s.%s" % (t.__module__, t.__qualname__)
    except _BaseException:
        return "a value"


def _safe_repr(v):
    try:
        r = repr(v)
        return r[:300] if _type(r) is _str else "<unprintable>"
    except _BaseException:
        return "<unprintable>"


_SLOTS = {}


def _slot_names(t):
    """The attribute names of t's __slots__ along its MRO (mangled as Python stores them), once per type."""
    names = _SLOTS.get(t)
    if names is None:
        names = []
        for c in t.__mro__:
            slots = c.__dict__.get("__slots__")
            for s in () if slots is None else (slots,) if _type(slots) is _str else slots:
                if s not in ("__dict__", "__weakref__"):
                    names.append("_%s%s" % (c.__name__.lstrip("_"), s) if s.startswith("__") and not s.endswith("__") else s)
        names = _SLOTS[t] = _tuple(names)
    return names


def _shadows_code(cls, name):
    """Whether an instance attribute `name` would hide code of the class: a function, method or descriptor."""
    if _is_slot(cls, name):
        return False
    for c in cls.__mro__:
        member = c.__dict__.get(name, _NO)
        if member is not _NO:
            return _getattr(_type(member), "__get__", None) is not None
    return False


def _is_slot(cls, name):
    return name in _slot_names(cls)


def _import(name):
    if _type(name) is not _str:
        return None
    try:
        __import__(name)
    except _BaseException:
        return None
    return sys.modules.get(name)


def apply_state(orig, new):
    """Gives a test-side object the state its candidate-side copy had after the call."""
    t = _type(orig)
    if t is _list:
        _list.__setitem__(orig, slice(None), new)
    elif t is _dict or _type(new) is _dict and _isinstance(orig, _dict):
        _dict.clear(orig)
        _dict.update(orig, new)
    elif t is _set:
        _set.clear(orig)
        _set.update(orig, new)
    elif t is _bytearray:
        _bytearray.__setitem__(orig, slice(None), new)
    elif t is memoryview:
        try:
            (orig if orig.format == "B" and orig.ndim == 1 else orig.cast("B"))[:] = new
        except (TypeError, ValueError) as e:
            raise CrossingError("the changes to a memoryview (format %r) cannot be written back" % orig.format[:20]) from e
    elif t.__name__ == "deque" and t.__module__ == "collections":
        orig.clear()
        orig.extend(new)
    elif t.__name__ == "array" and t.__module__ == "array":
        del orig[:]
        orig.frombytes(new)
    elif t is _type(sys.implementation):
        dd = _obj_getattribute(orig, "__dict__")
        dd.clear()
        dd.update(new)
    else:
        raise CrossingError("internal: no way to update a %s in place" % t.__name__)

def _contents(v):
    """A plain copy of a mutable value's contents (what goes back as its state after a call), or _NO."""
    t = _type(v)
    if t is _list or t is _set or t is _bytearray:
        return t(v)
    if t is _dict:
        return _dict(v)
    if t is memoryview:
        return _NO if v.readonly else _bytes(v.tobytes())
    if t.__name__ in ("deque", "OrderedDict", "defaultdict") and t.__module__ == "collections":
        return _list(v) if t.__name__ == "deque" else _dict(_dict.items(v))
    if t.__name__ == "array" and t.__module__ == "array":
        return v.tobytes()
    if t is _type(sys.implementation):
        return _dict(_obj_getattribute(v, "__dict__"))
    return _NO
