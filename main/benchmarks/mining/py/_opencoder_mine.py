"""Mining's source analysis, with Python's own parser: the candidate functions of a repository, and mutants of a reference.

Run by the engine outside the sandbox: it parses the repository's files and prints JSON, and never imports or runs
any of them. One JSON document on stdin, one on stdout:

- `{"op": "scan", "root": ..., "files": [...]}`: for each file, its documented functions and methods (module level
  and in classes, nested classes included; functions inside functions cannot be targets), each with its signature,
  reference text, docstring, why it is trivial (if it is), the names it uses (for its API truth and its context
  level) and its size; a file that does not parse is reported with its line.
- `{"op": "mutants", "items": [{"key": ..., "code": ..., "max": n, "seed": s}, ...]}`: for each reference, up to
  `max` mutants, one change each (see MUTATORS), chosen with the seed among every place a change can be made,
  one of each kind first.
"""

import ast
import builtins
import io
import json
import random
import sys
import tokenize

BUILTINS = set(dir(builtins))


def _segment_lines(text):
    return text.splitlines(keepends=True)


def _dedent_by(lines, col):
    """The lines with the def's own indentation taken off (lines indented less, inside a string, stay as they are)."""
    out = []
    for ln in lines:
        if ln[:col].strip(" \t") == "":
            out.append(ln[col:] if len(ln.rstrip("\r\n")) >= col else ln.lstrip(" \t"))
        else:
            out.append(ln)
    return "".join(out)


def _docstring_node(fn):
    if fn.body and isinstance(fn.body[0], ast.Expr) and isinstance(fn.body[0].value, ast.Constant) and isinstance(fn.body[0].value.value, str):
        return fn.body[0]
    return None


def _decorator_names(fn):
    names = []
    for d in fn.decorator_list:
        node = d.func if isinstance(d, ast.Call) else d
        names.append(ast.unparse(node))
    return names


def _trivial(fn, is_method):
    """Why the body is trivial (nothing to generate or nothing the tests can tell apart), or None."""
    decos = _decorator_names(fn)
    if any(d.split(".")[-1] in ("abstractmethod", "abstractproperty", "overload") for d in decos):
        return "abstract or an overload declaration"
    body = list(fn.body)
    if _docstring_node(fn) is not None:
        body = body[1:]
    body = [s for s in body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant) and isinstance(s.value.value, str))]
    if not body:
        return "only a docstring"
    if all(isinstance(s, ast.Pass) or (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant) and s.value.value is Ellipsis) for s in body):
        return "only pass or ..."
    if len(body) == 1:
        s = body[0]
        if isinstance(s, ast.Raise) and s.exc is not None:
            exc = s.exc.func if isinstance(s.exc, ast.Call) else s.exc
            if isinstance(exc, ast.Name) and exc.id == "NotImplementedError":
                return "only raise NotImplementedError"
        if isinstance(s, ast.Return) and s.value is not None and isinstance(s.value, (ast.Attribute, ast.Name)):
            return "one return of an attribute or a name"
        if isinstance(s, ast.Return) and (s.value is None or isinstance(s.value, ast.Constant)):
            return "one return of a constant"
    return None


class _Names(ast.NodeVisitor):
    """Names a function's body reads (globals, self attributes), and the names it binds itself."""

    def __init__(self):
        self.loads = set()
        self.stores = set()
        self.self_attrs = set()
        self.calls = set()

    def visit_Name(self, node):
        if isinstance(node.ctx, ast.Load):
            self.loads.add(node.id)
        else:
            self.stores.add(node.id)

    def visit_arg(self, node):
        self.stores.add(node.arg)

    def visit_Attribute(self, node):
        if isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"):
            self.self_attrs.add(node.attr)
        self.generic_visit(node)

    def visit_Call(self, node):
        f = node.func
        if isinstance(f, ast.Name):
            self.calls.add(f.id)
        elif isinstance(f, ast.Attribute):
            parts = []
            while isinstance(f, ast.Attribute):
                parts.append(f.attr)
                f = f.value
            if isinstance(f, ast.Name):
                parts.append(f.id)
                self.calls.add(".".join(reversed(parts)))
        self.generic_visit(node)

    def visit_Import(self, node):
        for a in node.names:
            self.stores.add((a.asname or a.name).split(".")[0])

    def visit_ImportFrom(self, node):
        for a in node.names:
            self.stores.add(a.asname or a.name)


def _module_facts(tree):
    """What a module defines at top level, and what it imports (name -> (module, attribute or None, level))."""
    defs = {}
    imports = {}
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            defs[node.name] = "function"
        elif isinstance(node, ast.ClassDef):
            defs[node.name] = "class"
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for t in targets:
                for n in ast.walk(t):
                    if isinstance(n, ast.Name):
                        defs.setdefault(n.id, "variable")
        elif isinstance(node, ast.Import):
            for a in node.names:
                name = (a.asname or a.name).split(".")[0]
                imports[name] = (a.name if a.asname else a.name.split(".")[0], None, 0)
        elif isinstance(node, ast.ImportFrom):
            for a in node.names:
                if a.name != "*":
                    imports[a.asname or a.name] = (node.module or "", a.name, node.level)
        elif isinstance(node, (ast.If, ast.Try)):
            for sub in ast.walk(node):
                if isinstance(sub, ast.ImportFrom):
                    for a in sub.names:
                        if a.name != "*":
                            imports.setdefault(a.asname or a.name, (sub.module or "", a.name, sub.level))
                elif isinstance(sub, ast.Import):
                    for a in sub.names:
                        name = (a.asname or a.name).split(".")[0]
                        imports.setdefault(name, (a.name.split(".")[0], None, 0))
                elif isinstance(sub, (ast.FunctionDef, ast.ClassDef)):
                    defs.setdefault(sub.name, "class" if isinstance(sub, ast.ClassDef) else "function")
    return defs, imports


def _signature(text_lines, fn, col):
    """The header as written, decorators included, up to the colon that ends it (the first at bracket depth 0 after
    `def`, found with the tokenizer, so comments, strings and annotations cannot mislead it); None if there is none."""
    start = fn.decorator_list[0].lineno if fn.decorator_list else fn.lineno
    segment = "".join(text_lines[start - 1 : fn.body[0].lineno])
    depth, seen_def = 0, False
    try:
        for tok in tokenize.generate_tokens(io.StringIO(segment).readline):
            if tok.type == tokenize.NAME and tok.string == "def" and depth == 0:
                seen_def = True
            elif tok.type == tokenize.OP and tok.string in "([{":
                depth += 1
            elif tok.type == tokenize.OP and tok.string in ")]}":
                depth -= 1
            elif seen_def and depth == 0 and tok.type == tokenize.OP and tok.string == ":":
                lines = segment.splitlines(keepends=True)[: tok.end[0]]
                lines[-1] = lines[-1][: tok.end[1]]
                return _dedent_by(lines, col).rstrip()
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return None
    return None


def _scan_file(root, rel):
    path = root.rstrip("/") + "/" + rel
    try:
        with open(path, "rb") as fh:
            raw = fh.read()
        # As Python reads a source file: a BOM, or a coding declaration, says how (PEP 263).
        encoding = tokenize.detect_encoding(io.BytesIO(raw).readline)[0]
        text = raw.decode(encoding)
        if text.startswith("\ufeff"):
            text = text[1:]
    except (OSError, UnicodeDecodeError, SyntaxError, LookupError) as e:
        return {"file": rel, "error": "cannot read it: %s" % e}
    try:
        tree = ast.parse(text, filename=rel)
    except SyntaxError as e:
        return {"file": rel, "error": "line %s: %s" % (e.lineno, e.msg), "line": e.lineno}
    text_lines = _segment_lines(text)
    defs, imports = _module_facts(tree)
    out = []

    def visit(body, prefix, cls):
        for node in body:
            if isinstance(node, ast.ClassDef):
                visit(node.body, prefix + node.name + ".", node)
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                out.append(_function(text_lines, node, prefix, cls, defs, imports))

    classes = []

    def visit_classes(body, prefix):
        for node in body:
            if isinstance(node, ast.ClassDef):
                classes.append(prefix + node.name)
                visit_classes(node.body, prefix + node.name + ".")

    visit_classes(tree.body, "")
    visit(tree.body, "", None)
    counts = {}
    for f in out:
        counts[f["qualname"]] = counts.get(f["qualname"], 0) + 1
    for f in out:
        f["sameName"] = counts[f["qualname"]]
    return {"file": rel, "functions": out, "classes": classes, "imports": {k: list(v) for k, v in imports.items()}}


def _function(text_lines, fn, prefix, cls, defs, imports):
    col = fn.col_offset
    start = fn.decorator_list[0].lineno if fn.decorator_list else fn.lineno
    end = fn.end_lineno
    reference = _dedent_by(text_lines[start - 1 : end], col)
    if not reference.endswith("\n"):
        reference += "\n"
    doc = ast.get_docstring(fn, clean=True)
    names = _Names()
    for stmt in fn.body:
        names.visit(stmt)
    for a in fn.args.args + fn.args.kwonlyargs + fn.args.posonlyargs:
        names.stores.add(a.arg)
    for a in (fn.args.vararg, fn.args.kwarg):
        if a is not None:
            names.stores.add(a.arg)
    free = sorted(n for n in names.loads - names.stores)
    in_file = sorted([n, defs[n]] for n in free if n in defs and n != fn.name)
    imported = sorted([n, *imports[n]] for n in free if n in imports)
    builtin = sorted(n for n in free if n not in defs and n not in imports and n in BUILTINS)
    unknown = sorted(n for n in free if n not in defs and n not in imports and n not in BUILTINS and n != fn.name)
    class_members = []
    if cls is not None:
        members = {n.name for n in cls.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))}
        for n in cls.body:
            if isinstance(n, (ast.Assign, ast.AnnAssign)):
                for t in n.targets if isinstance(n, ast.Assign) else [n.target]:
                    if isinstance(t, ast.Name):
                        members.add(t.id)
        class_members = sorted(a for a in names.self_attrs if a in members and a != fn.name)
    body = [s for s in fn.body if s is not _docstring_node(fn)]
    return {
        "qualname": prefix + fn.name,
        "name": fn.name,
        "line": fn.lineno,
        "start": start,
        "end": end,
        "method": cls is not None,
        "className": prefix[:-1] if cls is not None else None,
        "async": isinstance(fn, ast.AsyncFunctionDef),
        "decorators": _decorator_names(fn),
        "doc": doc,
        "trivial": _trivial(fn, cls is not None),
        "signature": _signature(text_lines, fn, col),
        "reference": reference,
        "uses": {
            "inFile": in_file,
            "imported": imported,
            "builtin": builtin,
            "unknown": unknown,
            "classMembers": class_members,
            "selfAttrs": sorted(names.self_attrs),
        },
        "calls": sorted(names.calls),
        "loads": sorted(names.loads - names.stores),
        "statements": sum(1 for n in ast.walk(fn) if isinstance(n, ast.stmt)) - 1 - (1 if _docstring_node(fn) is not None else 0),
        "lines": end - start + 1,
        "bodyLines": (end - body[0].lineno + 1) if body else 0,
    }


# ---------------------------------------------------------------------------------------------
# Mutants: one small change to the reference each, as mutation testing tools make them.

_CMP_SWAP = {ast.Lt: ast.GtE, ast.GtE: ast.Lt, ast.Gt: ast.LtE, ast.LtE: ast.Gt, ast.Eq: ast.NotEq, ast.NotEq: ast.Eq,
             ast.In: ast.NotIn, ast.NotIn: ast.In, ast.Is: ast.IsNot, ast.IsNot: ast.Is}
_BIN_SWAP = {ast.Add: ast.Sub, ast.Sub: ast.Add, ast.Mult: ast.FloorDiv, ast.Div: ast.Mult, ast.FloorDiv: ast.Mult, ast.Mod: ast.FloorDiv,
             ast.Pow: ast.Mult, ast.BitAnd: ast.BitOr, ast.BitOr: ast.BitAnd, ast.LShift: ast.RShift, ast.RShift: ast.LShift}


def _sites(fn):
    """Every change a mutant can make: (kind, node, variant) triples, in the order ast.walk visits them."""
    doc = _docstring_node(fn)
    params = [a.arg for a in fn.args.posonlyargs + fn.args.args if a.arg not in ("self", "cls")]
    sites = []
    for node in ast.walk(fn):
        if node is fn:
            continue
        if isinstance(node, ast.Return) and node.value is not None and not (isinstance(node.value, ast.Constant) and node.value.value is None):
            sites.append(("return value replaced", node, "none"))
            sites.append(("return value replaced", node, "not"))
            if params and not (isinstance(node.value, ast.Name) and node.value.id == params[0]):
                sites.append(("return value replaced", node, params[0]))
        elif isinstance(node, ast.Compare):
            for i, op in enumerate(node.ops):
                if type(op) in _CMP_SWAP:
                    sites.append(("comparison swapped", node, i))
        elif isinstance(node, (ast.BinOp, ast.AugAssign)) and type(node.op) in _BIN_SWAP:
            sites.append(("arithmetic swapped", node, None))
        elif isinstance(node, ast.BoolOp):
            sites.append(("boolean operator swapped", node, None))
        elif isinstance(node, ast.Constant) and type(node.value) in (int, bool):
            sites.append(("constant off by one", node, None))
        elif isinstance(node, (ast.If, ast.While, ast.IfExp)):
            sites.append(("condition negated", node, None))
        elif isinstance(node, ast.Call):
            for i, arg in enumerate(node.args):
                if not isinstance(arg, ast.Starred):
                    sites.append(("argument replaced", node, i))
        if isinstance(node, ast.stmt) and node is not doc and not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Pass)):
            sites.append(("statement removed", node, None))
    return sites


def _apply(kind, node, variant):
    if kind == "return value replaced":
        if variant == "none":
            node.value = ast.Constant(value=None)
        elif variant == "not":
            node.value = ast.UnaryOp(op=ast.Not(), operand=node.value)
        else:  # the first argument handed back unchanged
            node.value = ast.Name(id=variant, ctx=ast.Load())
    elif kind == "comparison swapped":
        node.ops[variant] = _CMP_SWAP[type(node.ops[variant])]()
    elif kind == "arithmetic swapped":
        node.op = _BIN_SWAP[type(node.op)]()
    elif kind == "boolean operator swapped":
        node.op = ast.Or() if isinstance(node.op, ast.And) else ast.And()
    elif kind == "constant off by one":
        node.value = (not node.value) if type(node.value) is bool else node.value + 1
    elif kind == "condition negated":
        node.test = ast.UnaryOp(op=ast.Not(), operand=node.test)
    elif kind == "argument replaced":
        node.args[variant] = ast.Constant(value=None)
    elif kind == "statement removed":
        node.__class__ = ast.Pass
        for f in list(node._fields):
            if hasattr(node, f):
                delattr(node, f)


def _mutants(code, limit, seed):
    try:
        tree = ast.parse(code)
    except SyntaxError as e:
        return {"error": "the reference does not parse: line %s: %s" % (e.lineno, e.msg)}
    fn = tree.body[0] if tree.body and isinstance(tree.body[0], (ast.FunctionDef, ast.AsyncFunctionDef)) else None
    if fn is None:
        return {"error": "the reference is not one function"}
    n_sites = len(_sites(fn))
    order = list(range(n_sites))
    kinds = [k for k, _, _ in _sites(fn)]
    rng = random.Random(seed)
    rng.shuffle(order)
    # One of each kind first (in the seeded order), then the rest.
    firsts, rest, seen = [], [], set()
    for i in order:
        (rest if kinds[i] in seen else firsts).append(i)
        seen.add(kinds[i])
    out, texts = [], {ast.unparse(tree)}
    for i in firsts + rest:
        if len(out) >= limit:
            break
        t = ast.parse(code)
        f = t.body[0]
        kind, node, variant = _sites(f)[i]
        line = getattr(node, "lineno", None)
        _apply(kind, node, variant)
        ast.fix_missing_locations(t)
        try:
            text = ast.unparse(t) + "\n"
            compile(text, "<mutant>", "exec")
        except (SyntaxError, ValueError, TypeError, RecursionError):
            continue
        if text in texts:
            continue
        texts.add(text)
        out.append({"kind": kind, "line": line, "code": text})
    return {"mutants": out, "sites": n_sites}


def _module_of(rel, roots=()):
    """The module a file is imported as: its path from the deepest import root holding it (`src/pkg/a.py` → `pkg.a`
    when the suite puts `src` on the path)."""
    for root in sorted(roots, key=len, reverse=True):
        if rel.startswith(root.rstrip("/") + "/"):
            rel = rel[len(root.rstrip("/")) + 1 :]
            break
    parts = rel[:-3].split("/") if rel.endswith(".py") else rel.split("/")
    if parts and parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts), rel.endswith("__init__.py")


def _absolute(module, attr, level, here, is_pkg):
    if not level:
        return module
    base = here.split(".") if here else []
    if not is_pkg:
        base = base[:-1]
    if level > 1:
        base = base[: len(base) - (level - 1)]
    return ".".join(base + ([module] if module else []))


def _resolve(files, roots=()):
    """Each function's API truth (repository functions and classes it uses, `module:qualname`), the other files'
    names it uses, and its context level (CoderEval's: self-contained up to project-runnable)."""
    scanned = [f for f in files if "functions" in f]
    mods = {}
    for f in scanned:
        name, is_pkg = _module_of(f["file"], roots)
        f["_module"], f["_pkg"] = name, is_pkg
        mods[name] = f
    kinds = {m: {fn["qualname"]: ("method" if fn["method"] else "function") for fn in f["functions"]} for m, f in mods.items()}
    for m, f in mods.items():
        for c in f.get("classes", []):
            kinds[m][c] = "class"

    def find(module, attr, depth=0):
        """(module, qualname) where a repository module's name is defined, following re-exports once or twice."""
        if module not in mods or depth > 3:
            return None
        k = kinds[module].get(attr)
        if k in ("function", "class"):
            return module, attr
        imp = mods[module]["imports"].get(attr)
        if imp:
            src = _absolute(imp[0], imp[1], imp[2], module, mods[module]["_pkg"])
            if imp[1] is not None:
                return find(src, imp[1], depth + 1)
        return None

    stdlib = set(getattr(sys, "stdlib_module_names", ()))
    for f in scanned:
        here = f["_module"]
        for fn in f["functions"]:
            uses = fn["uses"]
            apis, cross, third, slib = set(), set(), set(), set()
            for name, kind in uses["inFile"]:
                if kind in ("function", "class"):
                    apis.add("%s:%s" % (here, name))
            if fn["className"]:
                for member in uses["classMembers"]:
                    q = "%s.%s" % (fn["className"], member)
                    if kinds[here].get(q) in ("method", "function"):
                        apis.add("%s:%s" % (here, q))
            for _name, module, attr, level in uses["imported"]:
                src = _absolute(module, attr, level, here, f["_pkg"])
                top = src.split(".")[0] if src else ""
                if attr is not None and ("%s.%s" % (src, attr)) in mods:
                    cross.add("%s.%s" % (src, attr))
                    continue
                if src in mods or (level and not src):
                    cross.add(src or here)
                    if attr is not None:
                        got = find(src, attr)
                        if got:
                            apis.add("%s:%s" % got)
                    continue
                if attr is None and src in mods:
                    cross.add(src)
                elif top in stdlib:
                    slib.add(top)
                elif any(m == top or m.startswith(top + ".") for m in mods):
                    cross.add(src)
                else:
                    third.add(top)
            imported = {u[0]: u for u in uses["imported"]}
            for call in fn["calls"]:
                parts = call.split(".")
                if len(parts) >= 2 and parts[0] in imported:
                    u = imported[parts[0]]
                    src = _absolute(u[1], u[2], u[3], here, f["_pkg"])
                    if u[2] is not None:
                        src = "%s.%s" % (src, u[2])
                    got = find(src, parts[1])
                    if got:
                        apis.add("%s:%s" % got)
                        cross.add(src)
            if cross:
                level = "project_runnable"
            elif uses["inFile"]:
                level = "file_runnable"
            elif uses["classMembers"] or (fn["method"] and uses["selfAttrs"]):
                level = "class_runnable"
            elif third:
                level = "plib_runnable"
            elif slib:
                level = "slib_runnable"
            else:
                level = "self_contained"
            fn["apis"] = sorted(apis)
            fn["context"] = {
                "level": level,
                "crossFile": sorted(cross),
                "inFile": sorted(n for n, _ in uses["inFile"]),
                "stdlib": sorted(slib),
                "thirdParty": sorted(third),
            }
    for f in scanned:
        f.pop("_module", None)
        f.pop("_pkg", None)
        f.pop("classes", None)
    return files


def main():
    req = json.loads(sys.stdin.read())
    if req.get("op") == "scan":
        res = {"files": _resolve([_scan_file(req["root"], rel) for rel in req["files"]], req.get("roots") or ())}
    elif req.get("op") == "mutants":
        res = {"items": [{"key": it["key"], **_mutants(it["code"], int(it.get("max", 8)), it.get("seed", 0))} for it in req["items"]]}
    else:
        res = {"error": "unknown op %r" % req.get("op")}
    sys.stdout.write(json.dumps(res, ensure_ascii=False))


if __name__ == "__main__":
    sys.setrecursionlimit(10000)
    main()
