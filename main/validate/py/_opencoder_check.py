"""Static checks of a candidate and its splice into the target. Parses only: nothing of the
candidate (or of the repository) is ever imported or executed here.

Used in-process by _opencoder_harness.py before any candidate code runs. Line numbers in
findings are the candidate's own (1-based), not the spliced file's.
"""

import ast
import builtins
import io
import os
import symtable
import sys
import tokenize
from importlib.machinery import PathFinder

BLOCKING = frozenset(("syntax", "target-missing", "splice"))
MODULE_DUNDERS = frozenset(
    ("__name__", "__file__", "__doc__", "__builtins__", "__spec__", "__loader__", "__package__",
     "__path__", "__annotations__", "__dict__", "__cached__", "__module__", "__qualname__", "__class__")
)
SCOPE_NODES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef,
               ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


def finding(kind, severity, message, line=None, col=None, name=None):
    out = {"kind": kind, "severity": severity, "message": message}
    if line is not None:
        out["line"] = line
    if col is not None:
        out["col"] = col
    if name is not None:
        out["name"] = name
    return out


class TaskProblem(Exception):
    """The task itself is unusable (target not in its file, …): not the candidate's fault."""


# ---------------------------------------------------------------------------------------------
# Indentation that respects multi-line strings (their inner lines are data, never re-indented)

def string_interior_lines(src):
    inside = set()
    try:
        for tok in tokenize.generate_tokens(io.StringIO(src).readline):
            if tok.type == tokenize.STRING and tok.end[0] > tok.start[0]:
                inside.update(range(tok.start[0] + 1, tok.end[0] + 1))
    except (tokenize.TokenError, IndentationError, SyntaxError, ValueError):
        pass
    return inside


def _lead(line):
    return line[: len(line) - len(line.lstrip(" \t"))]


def dedent_code(src):
    """Removes the common leading whitespace of code lines (not comments, not string interiors)."""
    lines = src.split("\n")
    interior = string_interior_lines(src)
    margin = None
    for i, line in enumerate(lines, 1):
        s = line.strip()
        if not s or s.startswith("#") or i in interior:
            continue
        lead = _lead(line)
        if margin is None:
            margin = lead
        else:
            k = 0
            while k < min(len(margin), len(lead)) and margin[k] == lead[k]:
                k += 1
            margin = margin[:k]
    if not margin:
        return src
    out = []
    for i, line in enumerate(lines, 1):
        if i in interior:
            out.append(line)
        elif line.startswith(margin):
            out.append(line[len(margin):])
        else:
            out.append(line.lstrip(" \t") if not line.strip() or line.strip().startswith("#") else line)
    return "\n".join(out)


def reindent(lines, first_line_no, remove, add, interior):
    """Re-indents `lines` (numbered from first_line_no in their source) by removing `remove`
    characters of leading whitespace and prefixing `add`, skipping string interiors."""
    out = []
    for k, line in enumerate(lines):
        if first_line_no + k in interior:
            out.append(line)
        elif not line.strip():
            out.append("")
        else:
            lead = _lead(line)
            cut = min(remove, len(lead))
            out.append(add + line[cut:])
    return out


# ---------------------------------------------------------------------------------------------
# Parsing the candidate

def parse_candidate(code):
    """(tree, dedented source, findings)."""
    findings = []
    if "\x00" in code:
        # CPython 3.11 raises ValueError (not SyntaxError) for NUL bytes; report it as syntax.
        pos = code.index("\x00")
        findings.append(finding("syntax", "error", "source code contains a NUL byte", code.count("\n", 0, pos) + 1))
        return None, code, findings
    src = dedent_code(code)
    try:
        tree = ast.parse(src, "<candidate>")
        compile(tree, "<candidate>", "exec", dont_inherit=True)
    except SyntaxError as e:  # IndentationError and TabError included
        findings.append(finding("syntax", "error", "%s: %s" % (type(e).__name__, e.msg), e.lineno, e.offset))
        return None, src, findings
    except (ValueError, RecursionError, MemoryError) as e:
        findings.append(finding("syntax", "error", "%s: %s" % (type(e).__name__, e)))
        return None, src, findings
    return tree, src, findings


def node_start(node):
    decos = getattr(node, "decorator_list", None) or []
    return min([node.lineno] + [d.lineno for d in decos])


def is_def(node):
    return isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))


def binds_name(stmt, name):
    if isinstance(stmt, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
        targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
        return any(isinstance(n, ast.Name) and n.id == name for t in targets for n in ast.walk(t))
    if isinstance(stmt, (ast.Import, ast.ImportFrom)):
        return any((a.asname or a.name.split(".")[0]) == name for a in stmt.names)
    return False


def find_candidate_target(tree, parts):
    """(def node, enclosing candidate class or None, bound-otherwise flag)."""
    name = parts[-1]
    fn, cls = None, None
    for node in tree.body:
        if is_def(node) and node.name == name:
            fn, cls = node, None
    if fn is None and len(parts) > 1:
        for node in tree.body:
            if isinstance(node, ast.ClassDef) and node.name == parts[-2]:
                for member in node.body:
                    if is_def(member) and member.name == name:
                        fn, cls = member, node
    other = fn is None and any(binds_name(s, name) for s in tree.body)
    return fn, cls, other


# ---------------------------------------------------------------------------------------------
# Signatures

def signature_of(fn):
    a = fn.args
    pos = [x.arg for x in a.posonlyargs + a.args]
    n_def = len(a.defaults)
    decos = set()
    for d in fn.decorator_list:
        target = d.func if isinstance(d, ast.Call) else d
        if isinstance(target, ast.Name):
            decos.add(target.id)
        elif isinstance(target, ast.Attribute):
            decos.add(target.attr)
    return {
        "pos": pos,
        "required": len(pos) - n_def,
        "vararg": a.vararg is not None,
        "kwarg": a.kwarg is not None,
        "kwonly": [(x.arg, d is None) for x, d in zip(a.kwonlyargs, a.kw_defaults)],
        "async": isinstance(fn, ast.AsyncFunctionDef),
        "kind": "staticmethod" if "staticmethod" in decos else "classmethod" if "classmethod" in decos
        else "property" if "property" in decos else "plain",
    }


def parse_signature_text(text):
    s = text.strip()
    if not s:
        return None
    if not s.endswith(":"):
        s += ":"
    for body in ("\n    pass\n", " pass\n"):
        try:
            tree = ast.parse(dedent_code(s) + body)
        except (SyntaxError, ValueError):
            continue
        for node in ast.walk(tree):
            if is_def(node):
                return node
    return None


def compare_signatures(ref, cand):
    """Problems that make calls valid for the target fail on the candidate."""
    out = []
    if ref["async"] != cand["async"]:
        out.append("the target is %s but the candidate is %s" % (
            "async" if ref["async"] else "not async", "async" if cand["async"] else "not async"))
    if ref["kind"] != cand["kind"]:
        out.append("the target is a %s but the candidate is a %s" % (ref["kind"], cand["kind"]))
    for i, name in enumerate(ref["pos"]):
        if i < len(cand["pos"]):
            if cand["pos"][i] != name:
                out.append("parameter %d is named '%s' but the target's is '%s'" % (i + 1, cand["pos"][i], name))
            if i >= ref["required"] and i < cand["required"]:
                out.append("parameter '%s' has a default in the target but not in the candidate" % name)
        elif not cand["vararg"]:
            out.append("the candidate lacks the target's parameter '%s'" % name)
    if cand["required"] > len(ref["pos"]) and not (ref["vararg"] and cand["vararg"]):
        extra = cand["pos"][len(ref["pos"]):cand["required"]]
        if extra:
            out.append("the candidate requires extra parameter(s) %s" % ", ".join("'%s'" % x for x in extra))
    if ref["vararg"] and not cand["vararg"]:
        out.append("the target accepts *args but the candidate does not")
    if ref["kwarg"] and not cand["kwarg"]:
        out.append("the target accepts **kwargs but the candidate does not")
    cand_kw = dict(cand["kwonly"])
    for name, _required in ref["kwonly"]:
        if name not in cand_kw and name not in cand["pos"] and not cand["kwarg"]:
            out.append("the candidate lacks the target's keyword-only parameter '%s'" % name)
    ref_kw = dict(ref["kwonly"])
    for name, required in cand["kwonly"]:
        if required and name not in ref_kw and name not in ref["pos"]:
            out.append("the candidate requires an extra keyword-only parameter '%s'" % name)
    return out


# ---------------------------------------------------------------------------------------------
# Splicing

class Spliced:
    def __init__(self, text, line_map):
        self.text = text          # the whole spliced module
        self.line_map = line_map  # spliced line (1-based) -> candidate line, for candidate lines


def splice_template(template, placeholder, cand_src):
    before, sep, after = template.partition(placeholder)
    if not sep:
        raise TaskProblem("the check template has no placeholder %r" % placeholder)
    line_start = before.rfind("\n") + 1
    indent = before[line_start:]
    if indent.strip():
        indent = ""  # placeholder not alone on its line: splice at column 0 on a new line
        before = before + "\n"
    else:
        before = before[:line_start]
    cand_lines = cand_src.rstrip("\n").split("\n")
    interior = string_interior_lines(cand_src)
    cand_lines = reindent(cand_lines, 1, 0, indent, interior) if indent else cand_lines
    first = before.count("\n") + 1
    text = before + "\n".join(cand_lines) + "\n" + after.lstrip(" \t")
    line_map = {first + k: k + 1 for k in range(len(cand_lines))}
    return Spliced(text, line_map)


def locate(tree, parts):
    """(target node, chain of enclosing nodes from the module down)."""
    chain = []
    scope = tree
    node = None
    for depth, part in enumerate(parts):
        want_def = depth == len(parts) - 1
        found = None
        for stmt in _flat_body(scope.body):
            if want_def and is_def(stmt) and stmt.name == part:
                found = stmt
            elif not want_def and isinstance(stmt, ast.ClassDef) and stmt.name == part:
                found = stmt
        if found is None:
            return None, chain
        if not want_def:
            chain.append(found)
            scope = found
        node = found
    return node, chain


def _flat_body(body):
    # Definitions guarded by if/try at module or class level still count (version switches).
    for stmt in body:
        yield stmt
        if isinstance(stmt, (ast.If, ast.Try)):
            for block in (stmt.body, stmt.orelse, getattr(stmt, "finalbody", []),
                          *[h.body for h in getattr(stmt, "handlers", [])]):
                yield from _flat_body(block)


def top_level_stmt(tree, line):
    for stmt in tree.body:
        if node_start(stmt) <= line <= stmt.end_lineno:
            return stmt
    return None


def splice_file(file_text, qualname, cand_tree, cand_src, cand_fn, cand_cls):
    try:
        file_tree = ast.parse(file_text)
    except (SyntaxError, ValueError) as e:
        raise TaskProblem("the target file does not parse: %s" % e) from e
    parts = qualname.split(".")
    target, chain = locate(file_tree, parts)
    if target is None:
        raise TaskProblem("the target %s is not defined in its file" % qualname)
    file_lines = file_text.split("\n")
    t_start, t_end = node_start(target), target.end_lineno
    indent = _lead(file_lines[t_start - 1])
    cand_lines = cand_src.split("\n")
    cand_interior = string_interior_lines(cand_src)
    is_method = bool(chain)

    if not is_method:
        block = cand_src.rstrip("\n").split("\n")
        if indent:
            block = reindent(block, 1, 0, indent, cand_interior)
        new_lines = file_lines[: t_start - 1] + block + file_lines[t_end:]
        line_map = {t_start + k: k + 1 for k in range(len(block))}
        return Spliced("\n".join(new_lines), line_map), target, list(cand_tree.body), []

    # A method: the target def (and new members the candidate adds to the class) go into the
    # class at the method's indentation; the candidate's other top-level code (imports,
    # helper functions) goes to module level just before the outermost enclosing statement.
    owner = chain[-1]
    existing = {m.name for m in _flat_body(owner.body) if is_def(m) or isinstance(m, ast.ClassDef)}
    members = [cand_fn]
    prelude = []
    if cand_cls is not None:
        for m in cand_cls.body:
            if m is not cand_fn and is_def(m) and m.name not in existing and m.name != cand_fn.name:
                members.append(m)
    for stmt in cand_tree.body:
        if stmt is cand_fn or stmt is cand_cls:
            continue
        if is_def(stmt) and stmt.name not in existing and stmt.args.args and stmt.args.args[0].arg in ("self", "cls"):
            members.append(stmt)  # a helper written as a method
        elif isinstance(stmt, ast.ImportFrom) and stmt.module == "__future__":
            continue  # cannot be spliced mid-module; reported by the caller
        else:
            prelude.append(stmt)

    def take(node):
        s, e = node_start(node), node.end_lineno
        col = len(_lead(cand_lines[s - 1]))
        return s, reindent(cand_lines[s - 1: e], s, col, indent, cand_interior)

    out = file_lines[:]
    line_map = {}
    top = top_level_stmt(file_tree, t_start)
    top_start = node_start(top) if top is not None else t_start
    pre_block, pre_map = [], []
    prev_end = None
    for stmt in prelude:
        s, e = node_start(stmt), stmt.end_lineno
        if prev_end is not None and s > prev_end + 1:
            pre_block.append("")
            pre_map.append(None)
        pre_block += cand_lines[s - 1: e]
        pre_map += list(range(s, e + 1))
        prev_end = e
    body_block, body_map = [], []
    for m in members:
        s, lines = take(m)
        if body_block:
            body_block.append("")
            body_map.append(None)
        body_block += lines
        body_map += list(range(s, s + len(lines)))
    new_lines = out[: top_start - 1]
    if pre_block:
        pre_block += ["", ""]
        pre_map += [None, None]
    for k, cl in enumerate(pre_map):
        if cl is not None:
            line_map[len(new_lines) + k + 1] = cl
    new_lines += pre_block
    new_lines += out[top_start - 1: t_start - 1]
    for k, cl in enumerate(body_map):
        if cl is not None:
            line_map[len(new_lines) + k + 1] = cl
    new_lines += body_block
    new_lines += out[t_end:]
    return Spliced("\n".join(new_lines), line_map), target, prelude, members


# ---------------------------------------------------------------------------------------------
# Module resolution, statically (PathFinder only looks at files; nothing is imported)

class Resolver:
    def __init__(self, root, search_path):
        self.root = root
        self.path = [root] + [p for p in search_path if p and p != root]
        self._names = {}

    def find(self, dotted):
        parts = dotted.split(".")
        if not parts[0]:
            return None
        if parts[0] in sys.builtin_module_names:
            return "builtin" if len(parts) == 1 else None
        spec = PathFinder.find_spec(parts[0], self.path)
        for i in range(1, len(parts)):
            if spec is None:
                return None
            locs = spec.submodule_search_locations
            if not locs:
                # `import os.path`: a module that binds the name (os.py binds path)
                names, complete = self.module_names(spec)
                return spec if (parts[i] in names or not complete) and i == len(parts) - 1 else None
            spec = PathFinder.find_spec(".".join(parts[: i + 1]), list(locs))
        return spec

    def module_names(self, spec):
        """(names bound at the module's top level, complete?)."""
        if spec == "builtin":
            return set(), False
        origin = getattr(spec, "origin", None)
        if not origin or not origin.endswith(".py"):
            return set(), False  # extension, namespace package or frozen: cannot tell
        if origin in self._names:
            return self._names[origin]
        result = (set(), False)
        try:
            with open(origin, "rb") as f:
                tree = ast.parse(f.read())
            names, complete = set(), True
            for stmt in _flat_body(tree.body):
                if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    names.add(stmt.name)
                    if stmt.name == "__getattr__":
                        complete = False
                elif isinstance(stmt, (ast.Import, ast.ImportFrom)):
                    for a in stmt.names:
                        if a.name == "*":
                            complete = False
                        else:
                            names.add(a.asname or a.name.split(".")[0])
                elif isinstance(stmt, (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.For, ast.With)):
                    for n in ast.walk(stmt):
                        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
                            names.add(n.id)
            result = (names, complete)
        except (OSError, SyntaxError, ValueError, RecursionError):
            pass
        self._names[origin] = result
        return result

    def star_names(self, spec):
        """Names `from M import *` binds: __all__ when literal, else public top-level names."""
        if spec is None or spec == "builtin":
            return set(), False
        origin = getattr(spec, "origin", None)
        if not origin or not origin.endswith(".py"):
            return set(), False
        try:
            with open(origin, "rb") as f:
                tree = ast.parse(f.read())
        except (OSError, SyntaxError, ValueError, RecursionError):
            return set(), False
        exported = None
        for stmt in tree.body:
            if isinstance(stmt, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__all__" for t in stmt.targets):
                try:
                    exported = set(ast.literal_eval(stmt.value))
                except ValueError:
                    return set(), False
            elif isinstance(stmt, ast.AugAssign) and isinstance(stmt.target, ast.Name) and stmt.target.id == "__all__":
                try:
                    exported = (exported or set()) | set(ast.literal_eval(stmt.value))
                except ValueError:
                    return set(), False
        if exported is not None:
            return exported, True
        names, complete = self.module_names(spec)
        return {n for n in names if not n.startswith("_")}, complete


# ---------------------------------------------------------------------------------------------
# Facts about the code around the target, computed once per task

# Standard-library modules whose import does something visible; never imported for their names.
_NO_IMPORT = frozenset(("antigravity", "this", "__hello__", "__phello__", "idlelib", "tkinter", "turtle",
                        "turtledemo", "webbrowser", "pydoc", "site", "__main__", "ensurepip", "venv"))


def _star_names(resolver, module):
    top = module.split(".")[0]
    stdlib = getattr(sys, "stdlib_module_names", ())
    if top in stdlib and top not in _NO_IMPORT:
        # The program itself imports this module anyway; asking it for its names is exact.
        try:
            import importlib
            m = importlib.import_module(module)
            names = getattr(m, "__all__", None)
            if names is None:
                names = [n for n in dir(m) if not n.startswith("_")]
            return {str(n) for n in names}, True
        except BaseException:  # noqa: B036 - any failure just means "unknown"
            pass
    return resolver.star_names(resolver.find(module))


def _writes_globals_dynamically(tree):
    for n in ast.walk(tree):
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "exec":
            return True
        if isinstance(n, ast.Subscript) and isinstance(n.ctx, ast.Store) and isinstance(n.value, ast.Call) \
                and isinstance(n.value.func, ast.Name) and n.value.func.id in ("globals", "vars"):
            return True
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in ("update", "setdefault") \
                and isinstance(n.func.value, ast.Call) and isinstance(n.func.value.func, ast.Name) \
                and n.func.value.func.id in ("globals", "vars"):
            return True
    return False


def _module_bindings(tree, text):
    """Names bound at module level, including those functions declare global and assign."""
    names = set()
    for s in symtable.symtable(text, "<context>", "exec").get_symbols():
        if s.is_assigned() or s.is_imported() or s.is_namespace():
            names.add(s.get_name())
    for n in ast.walk(tree):
        if isinstance(n, ast.Global):
            names.update(n.names)
    return names


def context_facts(target, root, search_path):
    """What the module around the target binds (names, star imports), for undefined-name checks."""
    if target["kind"] == "template":
        text = target["template"]
    else:
        text = target["file_text"]
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError) as e:
        raise TaskProblem("the %s does not parse: %s" % ("check template" if target["kind"] == "template" else "target file", e)) from e
    resolver = Resolver(root, search_path)
    defined = _module_bindings(tree, text)
    star_unknown = []
    for stmt in _flat_body(tree.body):
        if isinstance(stmt, ast.ImportFrom) and any(a.name == "*" for a in stmt.names):
            if stmt.level:
                star_unknown.append("." * stmt.level + (stmt.module or ""))
                continue
            names, complete = _star_names(resolver, stmt.module or "")
            defined |= names
            if not complete:
                star_unknown.append(stmt.module or "")
    class_names = []
    parts = target["qualname"].split(".")
    if target["kind"] == "file" and len(parts) > 1:
        node, chain = locate(tree, parts)
        if node is None:
            raise TaskProblem("the target %s is not defined in its file" % target["qualname"])
        owner = chain[-1]
        for stmt in _flat_body(owner.body):
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                class_names.append(stmt.name)
            elif isinstance(stmt, (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.Import, ast.ImportFrom)):
                for n in ast.walk(stmt):
                    if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
                        class_names.append(n.id)
                    elif isinstance(n, ast.alias):
                        class_names.append(n.asname or n.name.split(".")[0])
    elif target["kind"] == "file":
        if locate(tree, parts)[0] is None:
            raise TaskProblem("the target %s is not defined in its file" % target["qualname"])
    future_ann = any(isinstance(s, ast.ImportFrom) and s.module == "__future__" and
                     any(a.name == "annotations" for a in s.names) for s in tree.body)
    return {
        "defined": sorted(defined),
        "starUnknown": star_unknown,
        "dynamic": _writes_globals_dynamically(tree),
        "classNames": sorted(set(class_names)),
        "futureAnnotations": future_ann,
    }


# ---------------------------------------------------------------------------------------------
# Undefined names under Python's scoping rules (symtable decides what binds where)

def _children_scoped(node):
    """(expressions evaluated in the enclosing scope, annotations, nodes in node's own scope)."""
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        a = node.args
        outer = list(node.decorator_list) + list(a.defaults) + [d for d in a.kw_defaults if d is not None]
        ann = [x.annotation for x in a.posonlyargs + a.args + a.kwonlyargs if x.annotation is not None]
        for x in (a.vararg, a.kwarg):
            if x is not None and x.annotation is not None:
                ann.append(x.annotation)
        if node.returns is not None:
            ann.append(node.returns)
        return outer, ann, list(node.body)
    if isinstance(node, ast.Lambda):
        a = node.args
        return list(a.defaults) + [d for d in a.kw_defaults if d is not None], [], [node.body]
    if isinstance(node, ast.ClassDef):
        return list(node.decorator_list) + list(node.bases) + [k.value for k in node.keywords], [], list(node.body)
    gens = node.generators  # comprehensions: the first iterable is evaluated outside
    inner = [g.target for g in gens] + [c for g in gens for c in g.ifs] + [g.iter for g in gens[1:]]
    inner += [node.key, node.value] if isinstance(node, ast.DictComp) else [node.elt]
    return [gens[0].iter], [], inner


_TABLE_NAMES = {ast.ListComp: "listcomp", ast.SetComp: "setcomp", ast.DictComp: "dictcomp",
                ast.GeneratorExp: "genexpr", ast.Lambda: "lambda"}


def _table_type(t):
    ty = t.get_type()
    return getattr(ty, "value", ty)  # a str in 3.11, an enum later


def undefined_names(tree, src, facts, module_level, class_members):
    """Names the candidate loads that nothing binds where Python would look them up.

    module_level: candidate top-level statements that stay at module level after the splice;
    class_members: candidate defs that go into the target's class (their decorators, defaults
    and annotations are evaluated in the class body, so class attributes count there)."""
    top = symtable.symtable(src, "<candidate>", "exec")
    defined = set(MODULE_DUNDERS) | set(dir(builtins)) | set(facts.get("defined", ()))
    bound_here = {id(s) for s in module_level}
    if not class_members:
        for s in top.get_symbols():  # the whole candidate lands at module level
            if s.is_assigned() or s.is_imported() or s.is_namespace():
                defined.add(s.get_name())
    else:
        for stmt in module_level:  # only the prelude lands at module level
            for n in [stmt] if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) else ast.walk(stmt):
                if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    defined.add(n.name)
                elif isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
                    defined.add(n.id)
                elif isinstance(n, ast.alias):
                    defined.add(n.asname or n.name.split(".")[0])
    class_defined = defined | set(facts.get("classNames", ()))
    by_key = {}

    def index(t):
        for c in t.get_children():
            by_key.setdefault((c.get_name(), c.get_lineno()), []).append(c)
            for s in c.get_symbols():
                if s.is_declared_global() and (s.is_assigned() or s.is_imported()):
                    defined.add(s.get_name())
                    class_defined.add(s.get_name())
            index(c)

    index(top)
    star_unknown = facts.get("starUnknown") or []
    soft = bool(star_unknown) or bool(facts.get("dynamic")) or _writes_globals_dynamically(tree)
    future_ann = facts.get("futureAnnotations", False)
    found = {}
    class_tables = []

    def table_for(node):
        name = node.name if hasattr(node, "name") else _TABLE_NAMES[type(node)]
        lst = by_key.get((name, node.lineno))
        return lst.pop(0) if lst else None

    def check(name_node, table, names):
        name = name_node.id
        try:
            sym = table.lookup(name)
        except KeyError:
            return
        if _table_type(table) != "module" and not sym.is_global():
            return  # local, parameter or free (bound by an enclosing function)
        if name in names:
            return
        key = (name, id(table))
        if key in found:
            return
        hint = ""
        for ct in reversed(class_tables):
            try:
                if ct.lookup(name).is_assigned():
                    hint = " (a class attribute, not visible here: use self.%s or %s.%s)" % (name, ct.get_name(), name)
                    break
            except KeyError:
                pass
        if not hint and name in facts.get("classNames", ()):
            hint = " (a class attribute, not visible inside a method: use self.%s)" % name
        msg = "undefined name '%s'%s" % (name, hint)
        if star_unknown:
            msg += " (unless `from %s import *` provides it)" % star_unknown[0]
        found[key] = finding("undefined-name", "warning" if soft else "error", msg, name_node.lineno, name_node.col_offset + 1, name)

    def visit(node, table, names):
        if isinstance(node, SCOPE_NODES):
            outer, ann, inner = _children_scoped(node)
            outer_names = class_defined if id(node) in members else names
            for n in outer:
                visit(n, table, outer_names)
            if not future_ann:
                for n in ann:
                    visit(n, table, outer_names)
            own = table_for(node)
            if own is None:
                return
            is_class = _table_type(own) == "class"
            if is_class:
                class_tables.append(own)
            for n in inner:
                visit(n, own, defined)
            if is_class:
                class_tables.pop()
            return
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            check(node, table, names)
        for child in ast.iter_child_nodes(node):
            visit(child, table, names)

    members = {id(m) for m in class_members}
    for stmt in tree.body:
        if id(stmt) in bound_here or id(stmt) in members:
            visit(stmt, top, defined)
        elif isinstance(stmt, ast.ClassDef):
            # a class wrapper around the target method: only the members that get spliced count
            own = table_for(stmt)
            if own is None:
                continue
            class_tables.append(own)
            for m in stmt.body:
                if id(m) in members:
                    visit(m, own, class_defined)
            class_tables.pop()
    return list(found.values())


# ---------------------------------------------------------------------------------------------
# Imports the candidate adds

def import_findings(cand_tree, resolver, package):
    out = []

    def unresolved(node, what, name):
        out.append(finding("unresolved-import", "error", what, node.lineno, node.col_offset + 1, name))

    for node in ast.walk(cand_tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                if resolver.find(a.name) is None:
                    unresolved(node, "cannot resolve module '%s' in the repository or the standard library" % a.name, a.name)
        elif isinstance(node, ast.ImportFrom) and node.module != "__future__":
            if node.level:
                if package is None:
                    unresolved(node, "relative import in a standalone program", node.module or ".")
                    continue
                base = package.split(".") if package else []
                up = node.level - 1
                if up > len(base):
                    unresolved(node, "relative import goes above the top-level package", node.module or ".")
                    continue
                base = base[: len(base) - up]
                mod = ".".join(base + ([node.module] if node.module else []))
                if not mod:
                    continue
            else:
                mod = node.module or ""
            spec = resolver.find(mod)
            if spec is None:
                unresolved(node, "cannot resolve module '%s' in the repository or the standard library" % mod, mod)
                continue
            names, complete = resolver.module_names(spec)
            locs = getattr(spec, "submodule_search_locations", None) if spec != "builtin" else None
            for a in node.names:
                if a.name == "*" or a.name in names or not complete:
                    continue
                if locs and PathFinder.find_spec(mod + "." + a.name, list(locs)) is not None:
                    continue
                unresolved(node, "cannot import name '%s' from '%s'" % (a.name, mod), a.name)
    return out


# ---------------------------------------------------------------------------------------------
# The whole check

def analyze(target, candidate, root, search_path, facts=None, full=True):
    """target: {"kind": "template", "template", "placeholder", "qualname", "signature"} or
    {"kind": "file", "file_text", "file", "qualname", "signature"}. facts: context_facts() of the
    same target (computed here when absent). full=False only parses and splices.
    Returns {"findings", "blocking", "spliced" (text or None)}."""
    tree, src, findings = parse_candidate(candidate)
    if tree is None:
        return {"findings": findings, "blocking": True, "spliced": None}
    parts = target["qualname"].split(".")
    fn, cls, bound_otherwise = find_candidate_target(tree, parts)
    if fn is None:
        if bound_otherwise and len(parts) == 1:
            findings.append(finding("target-not-def", "warning", "'%s' is bound by an assignment or import, not a def" % parts[-1], name=parts[-1]))
        else:
            where = "a function '%s'" % parts[-1] if len(parts) == 1 else "a method '%s' (at top level or inside class %s)" % (parts[-1], parts[-2])
            findings.append(finding("target-missing", "error", "the candidate does not define %s" % where, name=parts[-1]))
            return {"findings": findings, "blocking": True, "spliced": None}
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.module == "__future__":
            findings.append(
                finding("future-import", "warning", "`from __future__ import …` cannot go into the middle of a module; it was left out", node.lineno)
            )
    body_src = _drop_future(src, tree)

    if target["kind"] == "template":
        spliced = splice_template(target["template"], target["placeholder"], body_src)
        ref_fn, package = None, None
        module_level, class_members = [s for s in tree.body if not _is_future(s)], []
    else:
        spliced, ref_fn, module_level, class_members = splice_file(target["file_text"], target["qualname"], tree, body_src, fn, cls)
        module_level = [s for s in module_level if not _is_future(s)]
        package = ".".join(target["file"].replace("\\", "/").split("/")[:-1])
        try:
            compile(spliced.text, "<spliced>", "exec", dont_inherit=True)
        except SyntaxError as e:
            findings.append(finding("splice", "error", "the spliced file does not compile: %s: %s" % (type(e).__name__, e.msg), spliced.line_map.get(e.lineno)))
            return {"findings": findings, "blocking": True, "spliced": spliced.text}

    if full:
        sig_ref = signature_of(ref_fn) if ref_fn is not None else None
        if sig_ref is None and target.get("signature"):
            node = parse_signature_text(target["signature"])
            sig_ref = signature_of(node) if node is not None else None
        if fn is not None and sig_ref is not None:
            for msg in compare_signatures(sig_ref, signature_of(fn)):
                findings.append(finding("signature", "error", msg, fn.lineno, name=fn.name))
        resolver = Resolver(root, search_path)
        if facts is None:
            facts = context_facts(target, root, search_path)
        try:
            findings += undefined_names(tree, src, facts, module_level, class_members)
        except (SyntaxError, ValueError, RecursionError, MemoryError) as e:
            findings.append(finding("internal", "warning", "scope analysis skipped: %s: %s" % (type(e).__name__, e)))
        findings += import_findings(tree, resolver, package)
    findings.sort(key=lambda f: (f.get("line") or 0, f["kind"]))
    blocking = any(f["kind"] in BLOCKING for f in findings)
    out = {"findings": findings, "blocking": blocking, "spliced": spliced.text, "lineMap": spliced.line_map}
    if target["kind"] == "template":
        out["protected"] = sorted(protected_names(target["template"], target["placeholder"]))
    return out


def read_source(path):
    """A Python file's text and the encoding Python reads it with (a BOM, or a coding declaration in its first two
    lines, PEP 263; else UTF-8): a latin-1 module with its declaration is read as Python reads it."""
    with open(path, "rb") as f:
        data = f.read()
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError as e:
        raise TaskProblem("%s: %s" % (path, e)) from None
    try:
        text = data.decode(encoding)
    except (UnicodeDecodeError, LookupError) as e:
        raise TaskProblem("%s is not in its declared encoding %s: %s" % (path, encoding, e)) from None
    return text.replace("\r\n", "\n").replace("\r", "\n"), encoding


def write_source(path, text, encoding):
    """Writes a spliced module back in the encoding its file declares (utf-8-sig keeps the BOM)."""
    try:
        data = text.encode(encoding)
    except UnicodeEncodeError as e:
        raise TaskProblem("the spliced %s holds a character its declared encoding %s cannot (%s)" % (os.path.basename(path), encoding, e.reason)) from None
    with open(path, "wb") as f:
        f.write(data)


FORWARD = "__opencoder_forward__"


def forwarding_stub(name, decorators=(), is_async=False, doc=None):
    """The test process's stand-in for the target: its decorators (a method stays a static, class or
    property method of its class), the original's docstring (never the candidate's: doctests run it),
    and a body that hands the call as it came to the candidate process (awaited there when async)."""
    head = "async def" if is_async else "def"
    body = "    %r\n" % doc if doc is not None else ""
    return "".join("@%s\n" % d for d in decorators) + "%s %s(*args, **kwargs):\n%s    return %s(args, kwargs, %s)\n" % (
        head, name, body, FORWARD, "True" if is_async else "False")


def isolation_parts(target, root, search_path):
    """For a file target: the forwarding stub, and the file with the target's body masked (what every
    sandbox sees in place of the original, so no copy of the answer is there to read)."""
    if target["kind"] != "file":
        name = target["qualname"].split(".")[-1]
        return {"stub": forwarding_stub(name), "masked": None}
    text = target["file_text"]
    tree = ast.parse(text)
    node, _ = locate(tree, target["qualname"].split("."))
    if node is None:
        raise TaskProblem("the target %s is not defined in its file" % target["qualname"])
    decorators = []
    for d in node.decorator_list:
        seg = ast.get_source_segment(text, d)
        decorators.append(" ".join(seg.split()) if seg and "\n" not in seg else ast.unparse(d))
    is_async = isinstance(node, ast.AsyncFunctionDef)
    header = ast.FunctionDef if not is_async else ast.AsyncFunctionDef
    masked_def = header(name=node.name, args=node.args,
                        body=[ast.parse('raise NotImplementedError("masked by OpenCoder: the candidate provides this")').body[0]],
                        decorator_list=[], returns=node.returns, type_comment=None, lineno=1, col_offset=0)
    masked_src = "".join("@%s\n" % d for d in decorators) + ast.unparse(ast.fix_missing_locations(masked_def)) + "\n"
    masked = analyze(target, masked_src, root, search_path, full=False)
    if masked.get("spliced") is None or masked.get("blocking"):
        raise TaskProblem("the target %s could not be masked in its file" % target["qualname"])
    doc = ast.get_docstring(node, clean=False)
    encoding = target.get("encoding") or "utf-8"
    try:
        data = masked["spliced"].encode(encoding)
    except UnicodeEncodeError as e:
        raise TaskProblem("the masked %s cannot be written in its declared encoding %s (%s)" % (target["file"], encoding, e.reason)) from None
    return {"stub": forwarding_stub(node.name, decorators, is_async, doc), "masked": masked["spliced"], "maskedHex": data.hex()}


def protected_names(template, placeholder):
    """Names a check program's tests rely on that a candidate must not redefine: what the tests
    decorate with, what the program imports, and what the tests section itself binds."""
    before, _, after = template.partition(placeholder)
    names = set()
    for text in (before, after):
        try:
            tree = ast.parse(text)
        except (SyntaxError, ValueError):
            continue
        for stmt in tree.body:
            if isinstance(stmt, (ast.Import, ast.ImportFrom)):
                for a in stmt.names:
                    if a.name != "*":
                        names.add(a.asname or a.name.split(".")[0])
            if text is after:
                if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    names.add(stmt.name)
                    for d in stmt.decorator_list:
                        root = d.func if isinstance(d, ast.Call) else d
                        while isinstance(root, ast.Attribute):
                            root = root.value
                        if isinstance(root, ast.Name):
                            names.add(root.id)
                elif isinstance(stmt, (ast.Assign, ast.AnnAssign)):
                    targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
                    for t in targets:
                        for n in ast.walk(t):
                            if isinstance(n, ast.Name):
                                names.add(n.id)
    return names


def _is_future(stmt):
    return isinstance(stmt, ast.ImportFrom) and stmt.module == "__future__"


def _drop_future(src, tree):
    futures = [n for n in tree.body if _is_future(n)]
    if not futures:
        return src
    lines = src.split("\n")
    for n in futures:
        for i in range(n.lineno - 1, n.end_lineno):
            lines[i] = ""  # blank, so line numbers stay the candidate's
    return "\n".join(lines)
