"""Decoding a message of the isolated validation's wire (_opencoder_codec.py encodes): what the test side rebuilds is data
only, found by origin, bounded in depth (over what is built, references included), parts and colliding hash keys.
Only builtin modules are imported here (the test process loads this before the workspace is on the path).
"""

import sys

from _opencoder_codec import (
    CrossingError, _BaseException, _DEPTH, _NO, _STDLIB_VALUES, _bool, _builtin_base, _bytearray, _bytes, _complex,
    _dict, _float, _frozenset, _func_types, _getattr, _id, _import, _int, _is_slot, _is_struct_seq, _isinstance,
    _issubclass, _len, _list, _METHOD_OWNERS, VALUE_BASES, _obj_getattribute, _obj_setattr, _object, _PLAIN, _set, _shadows_code, _str, _tuple,
    _type, _walk, fill,
)

_intern = sys.intern
_NODES = 2_000_000  # parts a message may rebuild (each holds memory in the test process)
_BUILT_DEPTH = _DEPTH + 10  # what is built: a little over what the encoder sends, so that no value it sends is refused
_CLASH = 4096  # keys of one dict or set that may share their hashes with others (each insertion compares them all)

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
        # Depth is counted over what is built, not over the message's nesting: a reference to a value built before
        # nests it again (600,000 flat back-references made a 600,000-deep tuple, whose hashing crashed the tests).
        self.height = {}  # id of a value built here -> how deeply it nests
        self.hmax = 0  # the deepest child of the value being built
        self.nodes = 0

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
        self.nodes += 1
        if self.nodes > _NODES:
            raise CrossingError("a value of more than %d parts" % _NODES)
        tag = n[0]
        d = depth + 1
        outer, self.hmax = self.hmax, 0
        try:
            v = self.tags[tag](self, n, d)
        except KeyError:
            raise CrossingError("malformed value (tag %r)" % tag[:20]) from None
        except (TypeError, ValueError, IndexError, OverflowError, AttributeError) as e:
            raise CrossingError("malformed %r value: %s: %s" % (tag[:20], _type(e).__name__, _str(e)[:200])) from None
        if tag == "r":
            h = self.height.get(_id(v), 1)
        elif tag in _FOREIGN:
            h = 0
        else:
            h = self.hmax + 1
            self.height[_id(v)] = h
        if h > _BUILT_DEPTH:
            raise CrossingError("a value nested more than %d levels deep (parts built before counted)" % _BUILT_DEPTH)
        self.hmax = h if h > outer else outer
        return v

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
        out.update(self._pairs(n[2], d))
        return out

    def _pairs(self, pairs, d):
        """A mapping's items rebuilt, their keys' hashes checked before any is inserted."""
        out = [(self.dec(a, d), self.dec(b, d)) for a, b in pairs]
        if _len(out) > _CLASH:
            _spread([p[0] for p in out])
        return out

    def _keys(self, items, d):
        out = self._items(items, d)
        if _len(out) > _CLASH and out is not items:
            _spread(out)
        return out

    def _set(self, n, d):
        if n[0] == "s":
            out = self._put(n[1], _set())
            out.update(self._keys(n[2], d))
            return out
        self._put(n[1], _NO)
        v = _frozenset(self._keys(n[2], d))
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
        return self.handles.resolve(n[0], n[1], n)

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
        out.update(self._pairs(n[2], d))
        return out

    def _ddict(self, n, d):
        factory = self.dec(n[2], d)
        if factory is not None and not (_isinstance(factory, _type) or _type(factory) in _func_types()):
            raise CrossingError("a defaultdict whose default factory is not a named class or function")
        out = self._put(n[1], self._stdlib_class("collections", "defaultdict")(factory))
        out.update(self._pairs(n[3], d))
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

    def _zoneinfo(self, n, d):
        if _type(n[1]) is not _str:
            raise CrossingError("malformed time zone")
        try:
            return self._stdlib_class("zoneinfo", "ZoneInfo")(n[1])
        except (OSError, ValueError, LookupError) as e:
            # ZoneInfoNotFoundError is a KeyError: a zone the test process cannot find is the candidate's to explain.
            raise CrossingError("the time zone %r is not known to the test process (%s)" % (n[1][:60], _type(e).__name__)) from None

    def _array(self, n, d):
        if _type(n[2]) is not _str or _len(n[2]) != 1 or _type(n[3]) is not _str:
            raise CrossingError("malformed array")
        out = self._stdlib_class("array", "array")(n[2])
        out.frombytes(_bytes.fromhex(n[3]))
        return self._put(n[1], out)

    def _namespace(self, n, d):
        out = self._put(n[1], _type(sys.implementation)())
        dd = _obj_getattribute(out, "__dict__")
        for key, val in n[2]:
            if _type(key) is not _str:
                raise CrossingError("malformed attribute name")
            dd[key] = self.dec(val, d)
        return out

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
            fill(inst, base, value)
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
        if _len(items) > _CLASH:
            _spread([p[0] if kind != "keys" and _type(p) in (_list, _tuple) and _len(p) == 2 else p for p in items] if kind != "values" else [])
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

    def _bound(self, n, d):
        owner = self.dec(n[1], d)
        name = n[2]
        ot = _type(owner)
        if _type(name) is not _str or (ot not in _METHOD_OWNERS and ot is not _type):
            raise CrossingError("malformed bound method")
        m = _getattr(owner, name, None)
        if _type(m).__name__ not in ("builtin_function_or_method", "method-wrapper"):
            raise CrossingError("%s is not a builtin method of a %s" % (name[:100], ot.__name__))
        return m

    def _value_proxy(self, n, d):
        if self.handles is None or _len(n) != 5 or _type(n[1]) is not _int or _type(n[3]) is not _str or _type(n[4]) is not _list:
            raise CrossingError("malformed value (proxy)")
        value = self.dec(n[2], d)
        if _type(value) not in VALUE_BASES:
            raise CrossingError("malformed value of a proxy")
        return self.handles.value_proxy(n[1], value, n[3][:200], [c for c in n[4] if c == "missing"])

    def _constant(self, n, d):
        return Ellipsis if n[0] == "..." else NotImplemented

    tags = {
        "l": _list, "t": _tuple, "d": _dict, "s": _set, "fs": _set, "r": _ref, "a": _origin, "h": _origin,
        "g": _origin, "i": _int, "f": _float, "b": _bytes, "ba": _bytearray, "mv": _memoryview, "c": _complex,
        "p": _origin, "rg": _range, "sl": _slice, "m": _module, "n": _named, "od": _odict, "dd": _ddict, "dq": _deque,
        "dt": _datetime, "tz": _tz, "dec": _decimal, "re": _pattern, "sq": _struct_seq, "path": _path,
        "e": _enum, "x": _exception, "o": _instance, "dv": _view, "...": _constant, "NI": _constant, "zi": _zoneinfo, "bm": _bound, "pv": _value_proxy,
        "arr": _array, "ns": _namespace,
    }


_FOREIGN = frozenset(("a", "h", "g", "p"))  # objects of a side's own, not built from the message


def _spread(keys):
    """Refuses keys that share their hashes on purpose (big ints or tuples made to collide): each insertion would
    compare it with all the others, and the tests would hang in a quadratic insert."""
    distinct = _len(_set(map(hash, keys)))
    if _len(keys) - distinct > _CLASH and distinct * 2 < _len(keys):
        raise CrossingError("a dict or set of %d keys with only %d distinct hashes" % (_len(keys), distinct))


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


