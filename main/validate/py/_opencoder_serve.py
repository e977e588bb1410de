"""The candidate process of an isolated validation: loads the candidate, and serves the test
process's calls of the target until that process hangs up.

It runs in a sandbox of its own (its own PID namespace: it cannot see, signal or trace the test
process), in a workspace with the repository's code, the target already replaced by the candidate,
and none of the tests, no reference and no unmasked copy of the target's file. Nothing here is
trusted: whatever this process answers is decoded as data by the test process
(_opencoder_bridge.TestSide), so it can make a call fail, never forge a verdict.

Protocol: the engine writes one JSON document (the workspace, the target and the candidate) to
stdin; the test process's calls come on fd 3 (_opencoder_bridge.Peer).
"""

import os
import sys


def _read_config(codec):
    data = b""
    while True:
        b = os.read(0, 1 << 20)
        if not b:
            break
        data += b
    return codec._loads(data.decode("utf-8"))


def _describe(e):
    import traceback
    return "".join(traceback.format_exception(type(e), e, e.__traceback__, limit=-6))[-3000:]


def _resolve(root, qualname):
    obj = root
    parts = qualname.split(".")
    for i, part in enumerate(parts):
        d = obj.__dict__ if not isinstance(obj, dict) else obj
        if part not in d:
            raise LookupError("the candidate's module has no %s" % ".".join(parts[: i + 1]))
        obj = d[part]
    if isinstance(obj, (staticmethod, classmethod)):
        return obj.__func__
    if isinstance(obj, property):
        return obj.fget
    return obj


def _program_parts(cfg, harness):
    """A check program's code before the placeholder and the candidate padded to its line there, without
    the splicer (whose imports cost more than the rest of this process's start): the common case of a
    placeholder alone at column 0. None when the splicer is needed (an indented placeholder, say)."""
    target = cfg["target"]
    before = harness._prelude_of(target["template"], target["placeholder"])
    line_start = target["template"].partition(target["placeholder"])[0].rfind("\n") + 1
    if target["template"][line_start:].startswith(target["placeholder"]) is False:
        return None
    candidate = cfg["candidate"].replace("\r\n", "\n")
    try:
        compile(candidate, "<candidate>", "exec", dont_inherit=True)
    except SyntaxError:
        return None  # dedenting and the rest are the splicer's
    return before, "\n" * before.count("\n") + candidate


def _load(cfg, here, harness, startup):
    ws = cfg["ws"]
    target = dict(cfg["target"])
    search_path = [p for p in sys.path if p and os.path.abspath(p) != here]
    parts = _program_parts(cfg, harness) if target["kind"] == "template" else None
    if parts is None:
        sys.path.insert(0, here)
        import _opencoder_check as check
        sys.path.remove(here)
        if target["kind"] == "file":
            target["file_text"], target["encoding"] = check.read_source(os.path.join(ws, target["file"]))
        analysis = check.analyze(target, cfg["candidate"], ws, search_path, None, False)
        if analysis.get("spliced") is None:
            raise RuntimeError("the candidate could not be spliced: %s" % "; ".join(f["message"] for f in analysis["findings"]))
    for k, v in (cfg.get("env") or {}).items():
        os.environ[str(k)] = str(v)
    os.chdir(ws)
    extra = [os.path.normpath(os.path.join(ws, p)) for p in cfg.get("pythonPath") or []]
    sys.path[:] = [ws] + extra + [p for p in sys.path if p and p != ws and p not in extra and os.path.abspath(p) != here]
    if target["kind"] == "template":
        # The check program's code before the candidate (the repository context), then the candidate;
        # the tests after it are not here.
        import types
        prog = os.path.join(ws, cfg["program"])
        module = types.ModuleType("__main__")
        module.__file__ = prog
        sys.modules["__main__"] = module
        if parts is not None:
            before, candidate = parts
            text = before + candidate[len(before.split("\n")) - 1:]
        else:
            before = harness._prelude_of(target["template"], target["placeholder"])
            candidate, _, (_, last) = harness._candidate_parts(analysis["spliced"], analysis["lineMap"])
            text = "\n".join(analysis["spliced"].split("\n")[:last])
        # program.py as the candidate process has it: the code before the candidate and the candidate, no
        # tests (inspect.getsource and tracebacks read it).
        with open(prog, "w", encoding="utf-8") as f:
            f.write(text.rstrip("\n") + "\n")
        exec(compile(before, prog, "exec", dont_inherit=True), module.__dict__)
        exec(compile(candidate, prog, "exec", dont_inherit=True), module.__dict__)
        return _resolve(module, target["qualname"])
    path = os.path.join(ws, target["file"])
    check.write_source(path, analysis["spliced"], target.get("encoding") or "utf-8")
    name = harness._module_name(target["file"], ["."] + list(cfg.get("pythonPath") or []))
    # What this process imported to get here (the splicer's ast, tokenize …) goes: the candidate's module
    # and everything it imports come from the workspace where it has them, as the tests' copies do.
    for mod in list(sys.modules):
        if mod not in startup and mod not in ("_opencoder_codec", "_opencoder_decode", "_opencoder_proxy", "_opencoder_bridge", "_json", "_operator"):
            del sys.modules[mod]
    made = _Made(path, target["qualname"])
    sys.settrace(made.trace)
    try:
        if name:
            import importlib
            module = importlib.import_module(name)
        else:
            import importlib.util
            spec = importlib.util.spec_from_file_location(os.path.basename(path)[:-3], path)
            module = importlib.util.module_from_spec(spec)
            sys.modules[spec.name] = module
            spec.loader.exec_module(module)
    finally:
        sys.settrace(None)
    loaded = os.path.realpath(getattr(module, "__file__", None) or "?")
    if loaded != os.path.realpath(path):
        raise ImportError("the candidate's module %s was loaded from %s, not from the workspace copy %s (the interpreter "
                          "loads it at start-up)" % (name, loaded, target["file"]))
    found = _resolve(module, target["qualname"])
    own = made.last
    if own is not None and not _from(found, own, path):
        # The module bound something else to the target's name after the candidate's definition (bisect.py's
        # `from _bisect import *` puts the C insort_right there): the candidate's own function is what is judged,
        # as the tests' copy of the module, made without the accelerator, calls the stub standing for it.
        return own
    return found


def _from(found, own, path):
    """Whether what the target's name holds is the candidate's function, defined in its file, or wraps it (an
    lru_cache or a decorator that keeps __wrapped__)."""
    for _ in range(8):
        if found is own or (isinstance(found, type(_resolve)) and found.__code__.co_filename == path):
            return True
        found = getattr(found, "__wrapped__", None)
        if found is None:
            return False
    return False


class _Made:
    """Keeps the functions named like the target that the target's file defines while it loads (its module body and
    class bodies, seen by a trace of those frames only), so that a later rebinding of the name cannot hide them."""

    def __init__(self, path, qualname):
        self.path = path
        self.owner = qualname.split(".")[-2] if "." in qualname else "<module>"
        self.name = qualname.split(".")[-1]
        self.last = None

    def trace(self, frame, event, arg):
        code = frame.f_code
        if code.co_filename != self.path or code.co_name != self.owner:
            return None
        return self.local

    def local(self, frame, event, arg):
        if event in ("line", "return"):
            fn = frame.f_locals.get(self.name)
            for _ in range(8):
                if isinstance(fn, (staticmethod, classmethod)):
                    fn = fn.__func__
                elif isinstance(fn, property):
                    fn = fn.fget
                else:
                    break
            if isinstance(fn, type(_resolve)) and fn.__code__.co_filename == self.path and fn is not self.last:
                self.last = fn
        return self.local


SHARED_CWD = "/tmp/.opencoder-cwd"  # bwrap.ts's SHARED_CWD


def main(here, startup=None):
    # A warm server's child passes the modules a cold process would have had at this point.
    startup = set(sys.modules) if startup is None else set(startup)
    sys.path.insert(0, here)
    import _opencoder_codec as codec
    import _opencoder_bridge as bridge
    import _opencoder_harness as harness
    sys.path.remove(here)
    cfg = _read_config(codec)
    fd = os.open(os.devnull, os.O_RDONLY)
    os.dup2(fd, 0)
    os.close(fd)
    try:
        os.set_inheritable(3, False)
    except OSError:
        pass
    harness._prepare_workspace(cfg)
    target, load_error = None, None
    try:
        target = _load(cfg, here, harness, startup)
    except BaseException as e:
        load_error = _describe(e)
    if cfg.get("ws", "").rstrip("/") == "/ws" and os.path.isdir(SHARED_CWD):
        # Strong mode: where the tests work while their tests run (their view is writable, this one read-only).
        try:
            os.chdir(SHARED_CWD)
        except OSError:
            pass
    bridge.CandidateSide(3, target, load_error).serve_forever()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except BaseException:
            pass
    os._exit(0)
