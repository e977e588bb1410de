"""What the candidate must not alter, checked by identity: snapshots of the functions, classes and modules
the interpreter holds (compared after the candidate loaded and after every test), the window around the
execution of the target's module (the test module that imports it is half-imported then), pytest's
plugin registry, and the traceback machinery whose readers alone may see a frame while candidate code
is on the stack.

Executed into the guard's private namespace after _opencoder_guard.py and _opencoder_stubs.py (their
names are this file's): no classes, nothing reachable from candidate code.
"""

_BuiltinType = _type(len)
_STRICT_PREFIXES = ("unittest", "_pytest", "pytest", "pluggy", "doctest", "_frozen_importlib", "importlib", "zipimport")
_WATCH_TYPES = frozenset((_FunctionType, _BuiltinType, _ModuleType, staticmethod, classmethod, property))
# Entries that change on their own (caches, bookkeeping the interpreter or the framework keeps).
_QUIET = frozenset(("__doc__", "__annotations__", "__weakref__", "__warningregistry__", "__builtins__", "__cached__",
                    "_abc_impl", "__abstractmethods__", "__parameters__", "__orig_bases__", "__slotnames__"))


def _strict_module(name):
    if name == "builtins":
        return True
    for p in _STRICT_PREFIXES:
        if name == p or name.startswith(p + "."):
            return True
    return False


def _watch_value(v):
    return _type(v) in _WATCH_TYPES or _is_a(v, _type)


def _behaviour(v, missing):
    """Whether a class member decides behaviour (a callable, a descriptor, a class). A framework class's data
    members are its bookkeeping (unittest sets tearDown_exceptions on every test class, doctest's included)."""
    if v is missing:
        return False
    if _callable(v) or _is_a(v, _type):
        return True
    try:
        for klass in _type_mro(_type(v)):
            if "__get__" in _type_dict(klass):
                return True
    except _BaseException:
        return True
    return False


def _in_ws(mod):
    f = _module_dict(mod).get("__file__") if _is_a(mod, _ModuleType) else None
    return _type(f) is _str and _st.ws is not None and f.startswith(_st.ws)


def make_snapshot(skip_files):
    """Identities of the functions, classes and modules that modules bind, and of classes' members.
    add_module(strict=True): any change of those is the candidate's; closed=True: of every entry (data too),
    and new ones; else only a value the candidate wrote, or a changed special method."""
    modules = {}   # name -> (module, dict, (keys, values), strict, closed)
    classes = {}   # id -> (class, strict, (keys, values))
    missing = _object()

    def module_is_candidates(mod):
        f = _module_dict(mod).get("__file__")
        return _type(f) is _str and f in skip_files

    def add_module(name, mod, strict=None, closed=False):
        if name in modules or not _is_a(mod, _ModuleType) or module_is_candidates(mod):
            return
        try:
            d = _module_dict(mod)
            if closed:
                items = _dict(d)
            else:
                items = {k: v for k, v in _dict.items(d) if _type(k) is _str and _watch_value(v)}
        except _BaseException:
            return
        is_strict = (_strict_module(name) or (_in_ws(mod) and _test_module_name(name))) if strict is None else strict
        modules[name] = (mod, d, (_tuple(items), _tuple(items.values())), is_strict or closed, closed)
        for v in items.values():
            if _is_a(v, _type) and _getattr(v, "__module__", None) == name:
                add_class(v, is_strict or closed)

    def add_class(cls, strict):
        key = _id(cls)
        if key in classes:
            return
        try:
            members = _dict(_type_dict(cls))
        except _BaseException:
            return
        classes[key] = (cls, strict, (_tuple(members), _tuple(members.values())))

    def add_all():
        for name, mod in _list(_modules.items()):
            if _type(name) is _str:
                add_module(name, mod)

    def changes(strict_only=False, only=None):
        """[(where, name, old, new, strict, kind)] for watched entries that differ now (kind: 'module',
        'closed' or 'class'; `only`: just these modules' own names, no classes)."""
        out = []
        is_, map_ = _operator.is_, map
        for name, (_mod, d, items, strict, closed) in _list(modules.items()):
            if (strict_only and not strict and only is None) or (only is not None and name not in only):
                continue
            keys, vals = items
            same = all(map_(is_, map_(d.get, keys), vals))
            if same and (not closed or _len(d) == _len(keys)):
                continue  # the common case, at C speed
            for k, v in zip(keys, vals):
                now = d.get(k, missing)
                if now is not v:
                    out.append((name, k, v, now, strict, "closed" if closed else "module"))
            if closed:
                for k in _list(d):
                    if k not in keys:
                        out.append((name, k, missing, d[k], strict, "closed"))
        for _key, (cls, strict, members) in ([] if only is not None else _list(classes.items())):
            if strict_only and not strict:
                continue
            try:
                cur = _type_dict(cls)
                keys, vals = members
                if _len(cur) == _len(keys) and all(map_(is_, map_(cur.get, keys), vals)):
                    continue
                cname = "%s.%s" % (_text(_type_dict(cls).get("__module__", "?"), 100), _text(_type_qualname(cls), 100))
                for k, v in zip(keys, vals):
                    now = cur.get(k, missing)
                    if now is not v:
                        out.append((cname, k, v, now, strict, "class"))
                for k in _list(cur):
                    if k not in keys:
                        out.append((cname, k, missing, cur[k], strict, "class"))
            except _BaseException:
                continue
        return out

    def tampering(strict_only=False, lenient=False, only=None):
        """Changes the candidate is answerable for: any change of builtins, of the test framework or of the
        tests' own modules (their behaviour: functions, classes, descriptors); elsewhere a value the
        candidate wrote, or a changed special method. lenient: judge the framework like the rest (pytest
        patches its own classes while it configures itself)."""
        found = []
        for where, k, old, new, strict, kind in changes(strict_only, only):
            if lenient and kind != "closed":
                strict = False
            if k in _QUIET:
                continue
            dunder = k.startswith("__") and k.endswith("__")
            if kind == "class" and strict and not (_behaviour(old, missing) or _behaviour(new, missing)):
                continue
            if strict or (new is not missing and is_value(new)) or (not lenient and dunder and kind == "class" and (_callable(new) or new is missing)):
                found.append("%s.%s" % (where, k))
        return found

    return _Namespace(modules=modules, classes=classes, skip_files=skip_files, add_module=add_module, add_class=add_class,
                      add_all=add_all, changes=changes, tampering=tampering)


# ---------------------------------------------------------------------------------------------
# The load window: while the target's module executes (the candidate's module-level code with it), the
# module that imports it is half-imported, and modules not loaded yet can be planted. What changes there
# in that window is the candidate's doing, value or no value of its own.

_window = _Namespace(active=None)


def _initializing(mod):
    spec = _module_dict(mod).get("__spec__")
    if _st.module_spec is None or _type(spec) is not _st.module_spec:
        return False
    return _st.spec_dict(spec).get("_initializing") is True


def window_start(target):
    if _st.trace is None:
        _ensure_traceback()
        _st.trace = _trace_baseline()
    mods, classes = [], []
    for name, mod in _list(_modules.items()):
        if not _is_a(mod, _ModuleType) or mod is target or _type(name) is not _str:
            continue
        d = _module_dict(mod)
        ws = _in_ws(mod)
        full = _initializing(mod) or (ws and _test_module_name(name))
        mods.append((name, mod, d, _tuple(d), _tuple(d.values()), full, ws))
        if full:
            for v in _list(d.values()):
                if _is_a(v, _type) and _getattr(v, "__module__", None) == name:
                    cd = _type_dict(v)
                    classes.append((name, v, _tuple(cd), _tuple(cd.values())))
    _st.window_execs = {}
    _window.active = (target, mods, classes, _dict(_modules))


def window_abort():
    _window.active = None
    _st.window_execs = None


def window_end(target):
    """What the candidate altered while its module loaded: [description]."""
    active, execs = _window.active, _st.window_execs or {}
    window_abort()
    if active is None or active[0] is not target:
        return []
    _, mods, classes, before = active
    found = []
    missing = _object()
    is_, map_ = _operator.is_, map
    for name, _mod, d, keys, vals, full, ws in mods:
        if _len(d) == _len(keys) and all(map_(is_, map_(d.get, keys), vals)):
            continue
        old_of = _dict(zip(keys, vals))
        for k in _list(d) + [k for k in keys if k not in d]:
            if _type(k) is not _str or k in _QUIET:
                continue
            old, new = old_of.get(k, missing), d.get(k, missing)
            if old is new:
                continue
            if _type(new) is _ModuleType and _modules.get(name + "." + k) is new:
                continue  # a submodule, bound on its package as it loaded
            if full or (ws and (_watch_value(old) or _watch_value(new))) or (new is not missing and _watch_value(new) and is_value(new)):
                found.append("%s.%s" % (name, k))
    for name, cls, keys, vals in classes:
        cur = _type_dict(cls)
        if _len(cur) == _len(keys) and all(map_(is_, map_(cur.get, keys), vals)):
            continue
        old_of = _dict(zip(keys, vals))
        for k in _list(cur) + [k for k in keys if k not in cur]:
            if k in _QUIET or old_of.get(k, missing) is cur.get(k, missing):
                continue
            found.append("%s.%s.%s" % (name, _text(_type_qualname(cls), 100), k))
    earlier = {_id(m[1]): m for m in mods}
    for name, mod in _list(_modules.items()):
        if name in before or _type(name) is not _str:
            continue
        if _planted(name, mod, execs) and not _repository_made(name, mod, execs, earlier):
            found.append("_modules[%r] (a module planted for the tests to import)" % name[:100])
    why = import_system_problem()
    if why:
        found.append(why)
    return found


def _planted(name, mod, execs):
    if is_value(mod):
        return True
    if _type(mod) is not _ModuleType:
        return False
    d = _module_dict(mod)
    for v in _list(d.values()):
        if _member_is_cand(v):
            return True
    top = _modules.get(name.partition(".")[0])
    if top is None or _type(top) is not _ModuleType or not _in_ws(top):
        return False  # not one of the repository's names (the interpreter's own aliases: os.path, typing.io)
    f = d.get("__file__")
    if _type(f) is _str:
        return f not in execs and not f.endswith((".so", ".pyd"))
    path = d.get("__path__")
    return path is None  # a namespace package has a path and no file


def _repository_made(name, mod, execs, earlier):
    """Whether a module that appeared in sys.modules under `name` while the target's module loaded is one the
    import system or the repository's own modules put there, with nothing of the candidate's in it (a repository
    that shadows the standard library runs its own importlib/__init__.py and xml/parsers/expat.py then):
    what the repository defines or re-imports is the repository's. Three kinds, none of which the candidate can
    fill with values of its choosing: a module loaded before the window, unchanged since but for its dunder
    data (importlib binds _frozen_importlib as importlib._bootstrap); the interpreter's frozen module of that
    name, executed from its frozen code (importlib.machinery, importlib.util); an extension module's own
    submodule that a module the import system executed in the window (not a package: no file of the
    repository can stand behind the name) binds under that name (pyexpat.model as xml.parsers.expat.model)."""
    if _type(mod) is not _ModuleType or _planted_or_cand(mod):
        return False
    d = _module_dict(mod)
    got = earlier.get(_id(mod))
    if got is not None and got[1] is mod:
        _, _, _, keys, vals, _, _ = got
        old = _dict(zip(keys, vals))
        missing = _object()
        for k in _list(d) + [k for k in keys if k not in d]:
            if _type(k) is not _str:
                return False
            if not (k.startswith("__") and k.endswith("__")) and old.get(k, missing) is not d.get(k, missing):
                return False
        return True
    own = d.get("__name__")
    if _type(own) is not _str:
        return False
    if own == name:
        code = execs.get("<frozen %s>" % name)
        try:
            return _type(code) is _CodeType and _is_frozen(name) and code == _get_frozen_object(name)
        except _BaseException:
            return False
    ext_name, _, child = own.rpartition(".")
    ext = _modules.get(ext_name)
    if "__file__" in d or _type(ext) is not _ModuleType or _module_dict(ext).get(child) is not mod:
        return False
    ef = _module_dict(ext).get("__file__")
    if not ((_type(ef) is _str and ef.endswith((".so", ".pyd"))) or ext_name in _builtin_names):
        return False
    parent_name, _, pchild = name.rpartition(".")
    parent = _modules.get(parent_name)
    if _type(parent) is not _ModuleType:
        return False
    pd = _module_dict(parent)
    pf = pd.get("__file__")
    return "__path__" not in pd and _type(pf) is _str and pf in execs and pd.get(pchild) is mod


# ---------------------------------------------------------------------------------------------
# pytest's plugin registry: a plugin the candidate registers (through the assertion rewriting hook's config,
# say) could rewrite every report; plugins registered once the session started must be conftest modules.

def pm_state(pm):
    plugins = {}
    for p in _list(pm.get_plugins()):
        plugins[_id(p)] = p
    hooks = {}
    relay = _getattr(pm, "hook", None)
    for name, hc in _list(_dict(_getattr(relay, "__dict__", {}) or {}).items()):
        try:
            impls = _tuple(hc.get_hookimpls())
        except _BaseException:
            continue
        hooks[name] = (_tuple((_id(i), _id(i.plugin), _id(i.function)) for i in impls), _id(_getattr(hc, "_hookexec", None)), impls)
    return _Namespace(plugins=plugins, hooks=hooks, hookexec=_id(_getattr(pm, "_inner_hookexec", None)),
                      keep=(_getattr(pm, "_inner_hookexec", None),))


def _allowed_plugin(p):
    """A conftest module pytest loaded from the repository (or a plugin module it names), nothing of the candidate's."""
    if _type(p) is not _ModuleType or _planted_or_cand(p):
        return False
    f = _module_dict(p).get("__file__")
    return _type(f) is _str


def _planted_or_cand(mod):
    for v in _list(_module_dict(mod).values()):
        if _member_is_cand(v):
            return True
    return False


def pm_problems(base, pm):
    """What changed in pytest's plugin registry since `base` that pytest itself would not have done."""
    now = pm_state(pm)
    found = []
    added = [p for k, p in now.plugins.items() if k not in base.plugins]
    for p in added:
        if not _allowed_plugin(p):
            found.append("pytest's plugin registry (a plugin of its own: %s)" % _text(_getattr(_type(p), "__qualname__", "?"), 80))
    allowed = set(base.plugins) | set(_id(p) for p in added if _allowed_plugin(p))
    if now.hookexec != base.hookexec:
        found.append("pytest's plugin manager (its hook executor)")
    for name, (impls, hookexec, _objs) in now.hooks.items():
        old = base.hooks.get(name)
        if old is not None and old[0] == impls and old[1] == hookexec:
            continue
        if old is not None and old[1] != hookexec:
            found.append("pytest's hook %s (its executor)" % _text(name, 80))
            continue
        known = set(old[0]) if old is not None else set()
        for entry in impls:
            if entry in known:
                continue
            if entry[1] not in allowed:
                found.append("pytest's hook %s (an implementation of its own)" % _text(name, 80))
                break
    return found


# ---------------------------------------------------------------------------------------------
# traceback's own readers: the one place a frame may be read while candidate code is on the stack
# (traceback.format_exc() and logging's exception formatting), as long as the traceback and linecache
# modules (and their classes) are what they were when the candidate loaded.

def _trace_baseline():
    tb = _modules.get("traceback")
    lc = _modules.get("linecache")
    if _type(tb) is not _ModuleType or _type(lc) is not _ModuleType:
        return None
    try:
        d, ld = _module_dict(tb), _module_dict(lc)
        ss, fs = d.get("StackSummary"), d.get("FrameSummary")
        readers = {}       # code of the generators that read frames and yield them
        for name in ("walk_tb", "_walk_tb_with_full_positions", "walk_stack"):
            fn = d.get(name)
            if _type(fn) is _FunctionType:
                readers[_id(fn.__code__)] = name
        holders = {}       # code of the functions that take a frame and keep it to themselves
        for name in ("extract_stack", "format_stack", "print_stack"):
            fn = d.get(name)
            if _type(fn) is _FunctionType:
                holders[_id(fn.__code__)] = name
        consumers = {}     # the extractor (0) and extract's generator over a reader (1)
        ssd = _type_dict(ss)
        ext = _getattr(ssd.get("_extract_from_extended_frame_gen"), "__func__", None)
        if _type(ext) is _FunctionType:
            consumers[_id(ext.__code__)] = 0
        extract = _getattr(ssd.get("extract"), "__func__", None)
        if _type(extract) is _FunctionType:
            for k in extract.__code__.co_consts:
                if _type(k) is _CodeType:
                    consumers[_id(k)] = 1
        parts = [(tb, _tuple(d), _tuple(d.values())), (lc, _tuple(ld), _tuple(ld.values()))]
        for cls in (ss, fs):
            cd = _type_dict(cls)
            parts.append((cls, _tuple(cd), _tuple(cd.values())))
        return _Namespace(parts=parts, readers=readers, holders=holders, consumers=consumers, keep=(tb, lc, ss, fs))
    except _BaseException:
        return None


def _trace_intact(base):
    if _modules.get("traceback") is not base.parts[0][0] or _modules.get("linecache") is not base.parts[1][0]:
        return False
    for obj, keys, vals in base.parts:
        now = _type_dict(obj) if _is_a(obj, _type) else _module_dict(obj)
        if _len(now) != _len(keys):
            return False
        for k, v in zip(keys, vals):
            if now.get(k, now) is not v:
                return False
    return True


def _traceback_reader(actor, getframe=False):
    """Whether actor is one of traceback's own frame readers feeding traceback's own extractor (or, for
    sys._getframe, one of its stack functions, which keep the frame to themselves), with the traceback and
    linecache modules (and their classes) as they were when the candidate loaded: then the frames only
    become text."""
    base = _st.trace
    if base is None or actor is None:
        return False
    code_id = _id(actor.f_code)
    if code_id in base.readers:
        f = actor.f_back
        while f is not None and base.consumers.get(_id(f.f_code)) == 1:
            f = f.f_back
        if f is None or base.consumers.get(_id(f.f_code)) != 0:
            return False
    elif not (getframe and code_id in base.holders):
        return False
    return _trace_intact(base)
