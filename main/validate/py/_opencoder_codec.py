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


class _Scan:
    strict = True
    object_hook = None
    object_pairs_hook = None
    parse_float = float
    parse_int = int
    parse_constant = float
    memo = {}


_scan = _json.make_scanner(_Scan())
_intern = sys.intern


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
    obj = root
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
    return obj


def name_of(obj):
    """(module, qualname) under which obj is found again, or None."""
    try:
        mod = _getattr(obj, "__module__", None)
        qual = _getattr(obj, "__qualname__", None)
    except _BaseException:
        return None
    if _type(mod) is not _str or _type(qual) is not _str:
        if _type(qual) is _str and _type(obj).__name__ in ("method_descriptor", "wrapper_descriptor", "getset_descriptor", "classmethod_descriptor"):
            owner = _getattr(obj, "__objclass__", None)
            if owner is not None and _type(_getattr(owner, "__module__", None)) is _str:
                mod = owner.__module__
        if _type(mod) is not _str or _type(qual) is not _str:
            return None
    m = sys.modules.get(mod)
    if m is None:
        return None
    return (mod, qual) if _walk(m, qual) is obj else None


_FUNC_TYPES = None


def _func_types():
    global _FUNC_TYPES
    if _FUNC_TYPES is None:
        _FUNC_TYPES = (_type(_walk), _type(len), _type(str.upper), _type(object.__init__), _type(_dict.__dict__["fromkeys"]))
    return _FUNC_TYPES


# ---------------------------------------------------------------------------------------------
# Encoding (both sides)

_NO = _object()
# Standard-library modules the test side may load to rebuild a value of theirs (a Decimal equal to the
# int a test expects, where the tests never imported decimal): a fixed list, never a name the peer sent.
_STDLIB_VALUES = frozenset(("decimal", "fractions", "datetime", "collections", "uuid", "re", "pathlib", "ipaddress"))
_TEXTUAL = frozenset((str, type(None), bool))
_INTS = frozenset((int,))
_PLAIN = frozenset((str, type(None), bool, int, float))


class Encoder:
    """Encodes one message's values; objects seen twice become references (shared and cyclic values).
    `origin(obj)` gives a node for objects that came from the peer (they go back as themselves);
    `fallback(obj)` a node for objects that are not data (a handle), or None to refuse them."""

    def __init__(self, origin=None, fallback=None, nameable=None):
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
        if _isinstance(v, _type) or t in _func_types():
            named = name_of(v)
            if named is not None and self.nameable(named[0], v, "name"):
                return ["n", named[0], named[1]]
        elif _isinstance(v, _BaseException):
            return self.exception(v, d)
        else:
            node = self.instance(v, t, d)
            if node is not None:
                return node
        if self.fallback is not None:
            node = self.fallback(v)
            if node is not None:
                return node
        raise CrossingError("%s cannot cross between the processes" % _describe_type(t))

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


# ---------------------------------------------------------------------------------------------
# Decoding

class Decoder:
    """Rebuilds one message's values. `strict` (the test side): classes only where `trusted_class`
    says so, nothing imported. Otherwise (the candidate side) classes are imported by name."""

    def __init__(self, strict, trusted_class=None, args=None, handles=None, remote=None):
        self.strict = strict
        self.trusted_class = trusted_class
        self.args = args if args is not None else []
        self.handles = handles
        self.remote = remote
        self.memo = {}
        self.table = []  # every container and instance made, by its slot number
        self.pos = {}    # slot number -> its place in table
        self.classes = {}  # (module, qualname, why) -> the class found and trusted

    def _put(self, k, v):
        if _type(k) is not _int or k in self.memo:
            raise CrossingError("malformed value (slot %r)" % (k,))
        self.memo[k] = v
        self.pos[k] = _len(self.table)
        self.table.append((k, v))
        return v

    def dec(self, n, depth=0):
        t = _type(n)
        if t is _str:
            # Like the compiler's constants: a name-like string is the one interned object, so a
            # test's `result is "abc"` sees what it would see in one process.
            return _intern(n) if _len(n) <= 64 and n.isascii() and n.replace("_", "a").isalnum() else n
        if n is None or t is _bool or t is _int or t is _float:
            return n
        if t is not _list or not n or _type(n[0]) is not _str:
            raise CrossingError("malformed value")
        if depth > _DEPTH:
            raise CrossingError("a value nested more than %d levels deep" % _DEPTH)
        tag = n[0]
        d = depth + 1
        try:
            return self.tags[tag](self, n, d)
        except KeyError:
            raise CrossingError("malformed value (tag %r)" % tag[:20]) from None
        except (TypeError, ValueError, IndexError, OverflowError, AttributeError) as e:
            raise CrossingError("malformed %r value: %s: %s" % (tag[:20], _type(e).__name__, _str(e)[:200])) from None

    def _items(self, items, d):
        if _type(items) is not _list:
            raise CrossingError("malformed value")
        if _set(map(_type, items)) <= _PLAIN:
            return items  # JSON's own values, nothing to rebuild
        return [self.dec(x, d) for x in items]

    def _list(self, n, d):
        out = self._put(n[1], [])
        out.extend(self._items(n[2], d))
        return out

    def _tuple(self, n, d):
        self._put(n[1], _NO)
        v = _tuple(self._items(n[2], d))
        self.memo[n[1]] = v
        self.table[self._index(n[1])] = (n[1], v)
        return v

    def _index(self, k):
        return self.pos[k]

    def _dict(self, n, d):
        out = self._put(n[1], {})
        for a, b in n[2]:
            out[self.dec(a, d)] = self.dec(b, d)
        return out

    def _set(self, n, d):
        if n[0] == "s":
            out = self._put(n[1], _set())
            out.update(self._items(n[2], d))
            return out
        self._put(n[1], _NO)
        v = _frozenset(self._items(n[2], d))
        self.memo[n[1]] = v
        self.table[self._index(n[1])] = (n[1], v)
        return v

    def _ref(self, n, d):
        v = self.memo[n[1]]
        if v is _NO:
            raise CrossingError("a tuple or frozenset that contains itself")
        return v

    def _origin(self, n, d):
        if n[0] == "a":
            return self.args[n[1]]
        if self.handles is None:
            raise CrossingError("malformed value (a handle where none can be)")
        return self.handles.resolve(n[0], n[1])

    def _int(self, n, d):
        return _int(n[1], 16)

    def _float(self, n, d):
        if n[1] not in ("nan", "inf", "-inf"):
            raise CrossingError("malformed float")
        return _float(n[1])

    def _bytes(self, n, d):
        return _bytes.fromhex(n[1])

    def _bytearray(self, n, d):
        return self._put(n[1], _bytearray.fromhex(n[2]))

    def _memoryview(self, n, d):
        if _len(n) != 7 or _type(n[2]) is not _str or _type(n[4]) is not _str or _type(n[5]) is not _list \
                or not all(_type(x) is _int for x in n[5]) or n[6] not in ("b", "ba"):
            raise CrossingError("malformed memoryview")
        # Over an object of the original's type: `.obj` is what the candidate may look at or write through.
        view = memoryview(_bytes.fromhex(n[2]) if n[6] == "b" else _bytearray.fromhex(n[2]))
        if n[3] and not view.readonly:
            view = view.toreadonly()
        if n[4] != "B" or _len(n[5]) != 1:
            try:
                view = view.cast(n[4], n[5])
            except (TypeError, ValueError) as e:
                raise CrossingError("a memoryview of format %r and shape %r cannot be rebuilt" % (n[4][:20], n[5][:8])) from e
        return self._put(n[1], view)

    def _complex(self, n, d):
        return _complex(self._number(n[1]), self._number(n[2]))

    def _number(self, n):
        v = self.dec(n)
        if _type(v) not in (_int, _float):
            raise CrossingError("malformed complex")
        return v

    def _range(self, n, d):
        if not all(_type(x) is _int for x in n[1:4]):
            raise CrossingError("malformed range")
        return range(n[1], n[2], n[3])

    def _slice(self, n, d):
        return slice(self.dec(n[1], d), self.dec(n[2], d), self.dec(n[3], d))

    def _module(self, n, d):
        m = sys.modules.get(n[1]) if _type(n[1]) is _str else None
        if m is None:
            if self.strict:
                raise CrossingError("the module %s is not loaded in the test process" % _str(n[1])[:100])
            m = _import(n[1])
        elif self.strict and not self.trusted_class(n[1], m, "module"):
            raise CrossingError("the module %s is the test framework's or the harness's" % n[1][:100])
        return m

    def _named(self, n, d):
        obj = self._find(n[1], n[2])
        if obj is None:
            raise CrossingError("%s.%s is not something the test process loaded" % (_str(n[1])[:100], _str(n[2])[:100]))
        if self.strict and not (_isinstance(obj, _type) or _type(obj) in _func_types()):
            raise CrossingError("%s.%s is neither a class nor a function" % (n[1], n[2]))
        if self.strict and not self.trusted_class(n[1], obj, "name"):
            raise CrossingError("%s.%s is not the repository's or the standard library's" % (n[1], n[2]))
        return obj

    def _find(self, mod, qual):
        if _type(mod) is not _str or _type(qual) is not _str:
            return None
        m = sys.modules.get(mod)
        if m is None and (not self.strict or mod in _STDLIB_VALUES):
            m = _import(mod)
        return _walk(m, qual) if m is not None else None

    def _class(self, mod, qual, why):
        key = (mod, qual, why) if _type(mod) is _str and _type(qual) is _str else None
        cls = self.classes.get(key) if key is not None else None
        if cls is not None:
            return cls
        cls = self._found_class(mod, qual, why)
        if key is not None:
            self.classes[key] = cls
        return cls

    def _found_class(self, mod, qual, why):
        cls = self._find(mod, qual)
        if not _isinstance(cls, _type):
            raise CrossingError(
                "an instance of %s.%s, a class the test process does not have (defined by the candidate?)" % (_str(mod)[:100], _str(qual)[:100])
            )
        if self.strict and not self.trusted_class(mod, cls, why):
            raise CrossingError("an instance of %s.%s, which is not a class of the repository or of the standard library's data types" % (mod, qual))
        return cls

    def _stdlib_class(self, mod, name):
        m = sys.modules.get(mod)
        if m is None and (not self.strict or mod in _STDLIB_VALUES):
            m = _import(mod)
        cls = _getattr(m, name, None) if m is not None else None
        if not _isinstance(cls, _type):
            raise CrossingError("a %s.%s, and the test process has not loaded %s" % (mod, name, mod))
        return cls

    def _odict(self, n, d):
        out = self._put(n[1], self._stdlib_class("collections", "OrderedDict")())
        for a, b in n[2]:
            out[self.dec(a, d)] = self.dec(b, d)
        return out

    def _ddict(self, n, d):
        factory = self.dec(n[2], d)
        if factory is not None and not (_isinstance(factory, _type) or _type(factory) in _func_types()):
            raise CrossingError("a defaultdict whose default factory is not a named class or function")
        out = self._put(n[1], self._stdlib_class("collections", "defaultdict")(factory))
        for a, b in n[3]:
            out[self.dec(a, d)] = self.dec(b, d)
        return out

    def _deque(self, n, d):
        if n[2] is not None and _type(n[2]) is not _int:
            raise CrossingError("malformed deque")
        out = self._put(n[1], self._stdlib_class("collections", "deque")((), n[2]))
        out.extend(self.dec(x, d) for x in n[3])
        return out

    def _datetime(self, n, d):
        if n[1] not in ("datetime", "date", "time", "timedelta") or not all(_type(x) is _int for x in n[2]):
            raise CrossingError("malformed datetime value")
        cls = self._stdlib_class("datetime", n[1])
        if n[1] in ("date", "timedelta"):
            return cls(*n[2])
        tz = self.dec(n[3], d)
        return cls(*n[2], tzinfo=tz, fold=n[4])

    def _tz(self, n, d):
        cls = self._stdlib_class("datetime", "timezone")
        off = self.dec(n[1], d)
        return cls(off) if n[2] is None else cls(off, _str(n[2]))

    def _decimal(self, n, d):
        return self._stdlib_class("decimal", "Decimal")(_str(n[1]))

    def _pattern(self, n, d):
        re = sys.modules.get("re") or (None if self.strict else _import("re"))
        if re is None:
            raise CrossingError("a compiled pattern, and the test process has not loaded re")
        p = self.dec(n[1], d)
        if _type(p) not in (_str, _bytes) or _type(n[2]) is not _int:
            raise CrossingError("malformed pattern")
        return re.compile(p, n[2])

    def _struct_seq(self, n, d):
        cls = self._find(n[1], n[2])
        # Trusted by what it is: a builtin tuple of named fields, whatever module holds it.
        if not _isinstance(cls, _type) or not _is_struct_seq(cls):
            raise CrossingError("%s.%s is not a struct sequence of the test process" % (_str(n[1])[:100], _str(n[2])[:100]))
        return cls(_tuple(self.dec(x, d) for x in n[3]), _dict((_str(k), self.dec(x, d)) for k, x in n[4]))

    def _path(self, n, d):
        return self._stdlib_class("pathlib", _str(n[1]))(_str(n[2]))

    def _enum(self, n, d):
        cls = self._class(n[1], n[2], "enum")
        members = _obj_getattribute(cls, "_member_map_")
        if n[3] not in members:
            raise CrossingError("%s has no member %s" % (n[2], _str(n[3])[:100]))
        return members[n[3]]

    def _exception(self, n, d):
        cls = None
        for mod, qual in n[2]:
            c = self._find(mod, qual)
            if _isinstance(c, _type) and _issubclass(c, _BaseException) and (not self.strict or self.trusted_class(mod, c, "exception")):
                cls = c
                break
        if cls is None:
            cls = Exception
        args = _tuple(self.dec(a, d) for a in n[3])
        base = _builtin_base(cls)
        # The builtin base's own __new__ and __init__ (C code: errno of an OSError, value of a
        # StopIteration), never the class's Python ones.
        try:
            e = base.__new__(cls, *args)
            base.__init__(e, *args)
        except (TypeError, ValueError):
            e = base.__new__(cls)
            e.args = args
        self._put(n[1], e)
        self._set_attrs(e, n[4], d)
        return e

    def _instance(self, n, d):
        cls = self._class(n[2], n[3], "instance")
        base = _builtin_base(cls)
        if base is _object or base.__module__ in ("ast", "_ast"):
            inst = base.__new__(cls)
            self._put(n[1], inst)
        elif base in (_str, _int, _float, _bytes, _tuple, _frozenset, _complex):
            self._put(n[1], _NO)
            value = self.dec(n[4], d)
            if _type(value) is not base:
                raise CrossingError("malformed %s value" % n[3])
            inst = base.__new__(cls, value)
            self.memo[n[1]] = inst
            self.table[self._index(n[1])] = (n[1], inst)
        elif base in (_list, _set, _dict, _bytearray):
            inst = base.__new__(cls)
            self._put(n[1], inst)
            value = self.dec(n[4], d)
            if _type(value) is not base:
                raise CrossingError("malformed %s value" % n[3])
            if base is _dict:
                _dict.update(inst, value)
            elif base is _set:
                _set.update(inst, value)
            else:
                base.extend(inst, value)
        else:
            raise CrossingError("an instance of %s, whose builtin base %s cannot be rebuilt" % (n[3], base.__name__))
        self._set_attrs(inst, n[5], d)
        if self.strict:
            _probe_equality(inst, n[3])
        return inst

    def _set_attrs(self, inst, pairs, d):
        try:
            dd = _obj_getattribute(inst, "__dict__")
        except AttributeError:
            dd = None
        cls = _type(inst)
        for key, val in pairs:
            if _type(key) is not _str:
                raise CrossingError("malformed attribute name")
            if self.strict and _shadows_code(cls, key):
                # An attribute in place of a method or property of the class (its __eq__ would call it).
                raise CrossingError("an instance of %s whose attribute %s stands in for the class's own %s" % (cls.__qualname__, key[:100], key[:100]))
            v = self.dec(val, d)
            if dd is not None and not _is_slot(_type(inst), key):
                dd[key] = v
            else:
                _obj_setattr(inst, key, v)

    def _view(self, n, d):
        kind = n[1]
        items = [self.dec(x, d) for x in n[2]]
        if kind == "keys":
            return _dict.fromkeys(items).keys()
        if kind == "values":
            return _dict(enumerate(items)).values()
        pairs = []
        for p in items:
            if _type(p) not in (_list, _tuple) or _len(p) != 2:
                raise CrossingError("malformed mapping items")
            pairs.append((p[0], p[1]))
        if kind == "items":
            return _dict(pairs).items()
        if kind == "mp":
            return _type(_type.__dict__)(_dict(pairs))
        raise CrossingError("malformed view")

    def _constant(self, n, d):
        return Ellipsis if n[0] == "..." else NotImplemented

    tags = {
        "l": _list, "t": _tuple, "d": _dict, "s": _set, "fs": _set, "r": _ref, "a": _origin, "h": _origin,
        "g": _origin, "i": _int, "f": _float, "b": _bytes, "ba": _bytearray, "mv": _memoryview, "c": _complex,
        "rg": _range, "sl": _slice, "m": _module, "n": _named, "od": _odict, "dd": _ddict, "dq": _deque,
        "dt": _datetime, "tz": _tz, "dec": _decimal, "re": _pattern, "sq": _struct_seq, "path": _path,
        "e": _enum, "x": _exception, "o": _instance, "dv": _view, "...": _constant, "NI": _constant,
    }


def _probe_equality(inst, name):
    """A trusted class whose == holds for an object() it cannot know (mock.ANY and its kind) is no
    value: rebuilt from the candidate's data, it would pass any equality assertion."""
    t = _type(inst)
    if _getattr(t, "__eq__", None) is _getattr(_builtin_base(t), "__eq__", None):
        return
    try:
        claims = _bool(inst == _object())
    except _BaseException:
        claims = False
    if claims:
        raise CrossingError("an instance of %s, which claims to equal anything" % _str(name)[:100])


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
    return _NO
