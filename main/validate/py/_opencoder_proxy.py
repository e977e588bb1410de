"""Stand-ins that let an object stay in its own process while the other one uses it (an isolated validation).

Two kinds, one per direction:

- On the candidate side, a *handle* stands in for one of the tests' objects that is not data (a callback, a file-like
  object, a class the tests pass, an `object()` marker). Every use — a call, a public attribute, iteration, len,
  indexing, and the operators (`<`, `==`, `+`, `hash` …) — is asked of the test process and served there on the
  tests' own object, so that comparing two of the tests' objects inside the target means what it means to the tests.
- On the test side, a *candidate proxy* stands in for an object of the candidate's that is not data (an instance of a
  class only the candidate defines, such as its own iterator class, or a function it made). Its uses — iteration, next,
  len, indexing, `in`, attribute reads, calls, `with` — are served in the candidate process and come back as data
  (or as further proxies). It is read-only, and nothing that decides a test is left to candidate code: a proxy equals
  only itself, hashes by identity and is always true.

Only builtin modules are imported here (the test process loads this before the workspace is on the path).
"""

import _operator

from _opencoder_codec import fill

_type = type
_str = str
_int = int
_float = float
_bool = bool
_tuple = tuple
_dict = dict
_id = id
_getattr = getattr
_object = object
_BaseException = BaseException

# Dunder attributes the other side may read: names and documentation, plain text; and what introspection of a
# function, a wrapper or a typing construct reads (a code object's own fields only: see CODE_FIELDS).
DESCRIPTIVE = frozenset(("__name__", "__qualname__", "__module__", "__doc__"))
READABLE = DESCRIPTIVE | frozenset(("__wrapped__", "__defaults__", "__kwdefaults__", "__code__", "__annotations__",
                                    "__origin__", "__args__", "__parameters__", "__self__", "__func__",
                                    "_fields", "_field_defaults", "_asdict", "_replace"))  # a namedtuple's API
# What of the tests' code objects the candidate may read: their shape, never their bytecode or constants.
CODE_FIELDS = frozenset(("co_argcount", "co_posonlyargcount", "co_kwonlyargcount", "co_nlocals", "co_flags", "co_name",
                         "co_qualname", "co_varnames", "co_cellvars", "co_freevars", "co_filename", "co_firstlineno"))

# Binary operators served on the object's own side: name -> the function that applies it.
BINARY = {
    "lt": _operator.lt, "le": _operator.le, "gt": _operator.gt, "ge": _operator.ge, "ne": _operator.ne,
    "add": _operator.add, "sub": _operator.sub, "mul": _operator.mul, "truediv": _operator.truediv,
    "floordiv": _operator.floordiv, "mod": _operator.mod, "pow": _operator.pow, "lshift": _operator.lshift,
    "rshift": _operator.rshift, "and": _operator.and_, "or": _operator.or_, "xor": _operator.xor,
    "matmul": _operator.matmul, "divmod": divmod,
}
UNARY = {"neg": _operator.neg, "pos": _operator.pos, "abs": abs, "invert": _operator.invert, "index": _operator.index,
         "int": _int, "float": _float}


def public(name):
    return _type(name) is _str and (not name.startswith("_") or name in READABLE)


# ---------------------------------------------------------------------------------------------
# The candidate side: handles of the tests' objects

# The special methods a handle may have: it has exactly those the tests' object's type has (hasattr(h, "__len__")
# answers as it would in-process), each asked of the test process.
_BINARY_NAMES = ("lt", "le", "gt", "ge", "add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "lshift", "rshift",
                 "and", "or", "xor", "matmul", "divmod")
# What an object of the candidate's can be asked, by the special methods its type has (a handle also has __bool__ where
# the tests' class has it: a proxy's truth is never the candidate's).
CAPABILITIES = (("iter", "__iter__"), ("next", "__next__"), ("len", "__len__"), ("getitem", "__getitem__"),
                ("contains", "__contains__"), ("call", "__call__"), ("enter", "__enter__"))
_PROTOCOL = CAPABILITIES + (("bool", "__bool__"),)


def _dunder(name):
    return "__%s__" % (name + "_" if name in ("and", "or") else name)


def handle_info(t):
    """What the candidate side needs to stand in for an object of type t: its type's module and qualname (type(h)
    reads as the tests' class does) and the special methods t has."""
    caps = [cap for cap, dunder in _PROTOCOL if _getattr(t, dunder, None) is not None]
    for name in _BINARY_NAMES + _tuple(UNARY):
        if _getattr(t, _dunder(name), None) is not None:
            caps.append(name)
        if name in _BINARY_NAMES and name not in ("lt", "le", "gt", "ge") and _getattr(t, "__r%s" % _dunder(name)[2:], None) is not None:
            caps.append("r" + name)
    if _getattr(t, "__hash__", None) is None:
        caps.append("unhashable")
    if isinstance(t, _type) and issubclass(t, _type):
        caps.append("class")
    mod, qual = _getattr(t, "__module__", "?"), _getattr(t, "__qualname__", "?")
    return [mod if _type(mod) is _str else "?", qual if _type(qual) is _str else "?", caps]


class _HandleType(type):
    """The class of a handle reads as the tests' class does (module, qualname), while a handle's own __module__ and
    __doc__ are asked of the tests' object."""

    @property
    def __module__(cls):
        return type.__getattribute__(cls, "_oc_module")

    @property
    def __doc__(cls):
        return None


def make_handle(side, hid, info=None):
    """A stand-in for one of the tests' objects: its uses are asked of the test process."""
    mod, qual, caps = info if info is not None else ("builtins", "object", [])
    caps = frozenset(caps)

    def op(do):
        def f(self, *a):
            return side.ask(hid, do, a[0] if a else None)
        return f

    def binary(name):
        def f(self, other):
            return side.ask(hid, "op", (name, other))
        return f

    def reflected(name):
        def f(self, other):
            return side.ask(hid, "rop", (name, other))
        return f

    def unary(name):
        def f(self):
            return side.ask(hid, "unary", name)
        return f

    ns = {
        "_oc_proxy_of": hid,
        "_oc_type_of": hid,  # type(handle) stands for the class of the tests' object (issubclass)
        "__slots__": (),
        "_oc_module": mod,
        "__module__": property(lambda self: side.ask(hid, "getattr", "__module__")),
        "__doc__": property(lambda self: side.ask(hid, "getattr", "__doc__")),
        "__getattr__": lambda self, name: side.ask(hid, "getattr", name) if public(name) else _raise_attr(name),
        "__eq__": lambda self, other: self is other or side.ask(hid, "eq", other),
        "__ne__": lambda self, other: self is not other and side.ask(hid, "op", ("ne", other)),
        "__repr__": op("repr"), "__str__": op("str"),
        "__hash__": None if "unhashable" in caps else op("hash"),
    }
    for cap, dunder in _PROTOCOL:
        if cap in caps:
            ns[dunder] = op(cap)
    if "call" in caps:
        ns["__call__"] = lambda self, *args, **kwargs: side.ask(hid, "call", (args, kwargs))
    if "next" in caps:
        ns["__next__"] = lambda self: side.next_of(hid)
    if "enter" in caps:
        ns["__exit__"] = lambda self, *a: side.ask(hid, "exit", a)
    for name in _BINARY_NAMES:
        if name in caps:
            ns[_dunder(name)] = binary(name)
        if "r" + name in caps:
            ns["__r%s" % _dunder(name)[2:]] = reflected(name)
    for name in UNARY:
        if name in caps:
            ns[_dunder(name)] = unary(name)
    if "class" in caps:
        # A class of the tests' (passed to the target): isinstance and issubclass are the tests' to answer.
        ns["__instancecheck__"] = lambda self, obj: side.check_class(hid, "isinstance", obj)
        ns["__subclasscheck__"] = lambda self, cls: side.check_class(hid, "issubclass", cls)
    cls = _HandleType(qual.rpartition(".")[2] or "Handle", (_object,), ns)
    cls.__qualname__ = qual
    return cls()


def _raise_attr(name):
    raise AttributeError(name)


# ---------------------------------------------------------------------------------------------
# The test side: proxies of the candidate's objects


def capabilities(t):
    """The capabilities an object of type t offers (read from its type, as Python's own protocols are)."""
    return [cap for cap, dunder in CAPABILITIES if _getattr(t, dunder, None) is not None]


_PROXY_CLASSES = {}


def proxy_class(caps):
    """The test side's class for proxies with these capabilities (one per set: `isinstance(p, Iterator)` holds
    exactly where the candidate's object is an iterator)."""
    key = frozenset(caps)
    cls = _PROXY_CLASSES.get(key)
    if cls is not None:
        return cls

    def use(do):
        def f(self, *a):
            return _object.__getattribute__(self, "_oc_side").proxy_op(self, do, a)
        return f

    ns = {
        "__slots__": ("_oc_side",),
        "__doc__": "An object of the candidate's, used from the test process (its uses are served in the candidate process).",
        # Equality, ordering, truth and hashing are never the candidate's to decide.
        "__eq__": lambda self, other: self is other,
        "__ne__": lambda self, other: self is not other,
        "__hash__": _object.__hash__,
        "__bool__": lambda self: True,
        "__repr__": use("repr"),
        "__str__": use("str"),
        "__getattr__": _proxy_getattr,
        "__setattr__": _read_only,
        "__delattr__": _read_only,
    }
    for cap, dunder in CAPABILITIES:
        if cap in key:
            ns[dunder] = use(cap)
    if "call" in key:
        ns["__call__"] = _proxy_call
    if "enter" in key:
        ns["__exit__"] = use("exit")
    cls = _PROXY_CLASSES[key] = _type("CandidateObject", (_object,), ns)
    return cls


def new_proxy(side, caps):
    """A proxy of the candidate's object; the side keeps its number (TestSide.remote_ids)."""
    p = _object.__new__(proxy_class(caps))
    _object.__setattr__(p, "_oc_side", side)
    return p


_VALUE_CLASSES = {}


def value_stand_in(side, value, name, caps):
    """A copy of the value of an object of the candidate's own subclass of a builtin value type (a namedtuple, an
    IntEnum member, a str or dict subclass), as an instance of a class named like the candidate's: equality, hashing,
    ordering, truth, length and iteration are the builtin value's, never the candidate's; an attribute the value does
    not have (a namedtuple's field, an enum member's name, a method) is read in the candidate process."""
    base = _type(value)
    key = (_id(side), base, name, "missing" in caps)
    cls = _VALUE_CLASSES.get(key)
    if cls is None:
        ns = {"__getattr__": _value_getattr(side), "__doc__": "A value of the candidate's %s (its other attributes are read there)." % name}
        if "missing" in caps and base is _dict:
            ns["__missing__"] = lambda self, k: side.proxy_op(self, "getitem", (k,))
        cls = _type(name.rpartition(".")[2] or "CandidateValue", (base,), ns)
        cls.__qualname__ = name.rpartition(".")[2] or "CandidateValue"
        cls.__module__ = name.rpartition(".")[0] or "candidate"
        _VALUE_CLASSES[key] = cls
    if base in (list, dict, set, bytearray):
        return fill(cls(), base, value)
    return base.__new__(cls, value)


def _value_getattr(side):
    def getattr_(self, name):
        if not public(name):
            raise AttributeError(name)
        return side.proxy_op(self, "getattr", (name,))
    return getattr_


def _proxy_getattr(self, name):
    if not public(name):
        raise AttributeError("opencoder: only public attributes of the candidate's objects are read (%r)" % (name,))
    return _object.__getattribute__(self, "_oc_side").proxy_op(self, "getattr", (name,))


def _proxy_call(self, *args, **kwargs):
    return _object.__getattribute__(self, "_oc_side").proxy_op(self, "call", (args, kwargs))


def _read_only(self, *a):
    raise AttributeError("opencoder: an object of the candidate's is read-only in the test process")
