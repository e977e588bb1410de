"""The supervisor: prepares one candidate's run, starts the test runner, and reports to the engine.

Protocol with the engine: it writes one JSON document (config, candidate and a per-run key) to
stdin and closes it; records go to fd 3, one per line as `<hmac-sha256 hex> <json>`, and the
engine accepts only lines whose MAC checks out under that key. A pass needs the final `done`
record, so an early exit, a crash or a printed fake result line is never a pass.

Trust: this process never imports or runs candidate code. Its first act is to fork the test
runner (_opencoder_runner.py), before stdin is read, so the runner's memory never held the
engine's key, and the runner closes fd 3 at once. The runner reports to this process over a pipe
under a key of its own (given after the fork) and tags every record with its pid; this process
checks those records, decides each test's outcome, and alone writes to the engine. It makes
itself non-dumpable before the fork (the runner inherits that), so processes the candidate starts
cannot read either one's memory or descriptors.
Static checks (parsing only) run here, before the runner gets the candidate.
"""

import os
import sys

import _opencoder_wire as wire  # builtin imports only: safe before the fork
import _opencoder_codec as _codec  # its JSON reader (the C scanner; builtin imports and _json only)

_exit = os._exit


def _read_all(fd):
    chunks = []
    while True:
        b = os.read(fd, 1 << 20)
        if not b:
            break
        chunks.append(b)
    return b"".join(chunks)


def _runner_child(here, cfg_r, cfg_w, rep_r, rep_w, note_r, note_w, keep=None):
    code = 70
    try:
        if keep is not None:
            # Forked from a warm server: only what a cold runner would have loaded stays in sys.modules.
            for name in list(sys.modules):
                if name not in keep:
                    del sys.modules[name]
        os.close(cfg_w)
        os.close(rep_r)
        os.close(note_r)
        try:
            os.close(3)  # the engine's channel: never in the runner
        except OSError:
            pass
        fd = os.open(os.devnull, os.O_RDONLY)
        os.dup2(fd, 0)
        os.close(fd)
        sys.modules.pop("_opencoder_harness", None)
        sys.modules.pop("_opencoder_wire", None)
        path = os.path.join(here, "_opencoder_runner.py")
        # Imported (so a bytecode cache the engine left beside it is used), then taken out of
        # sys.modules and sys.path again: nothing of the runner's is there for the tests to find.
        sys.path.insert(0, here)
        try:
            import _opencoder_runner as runner
        finally:
            sys.path.remove(here)
            sys.modules.pop("_opencoder_runner", None)
            sys.modules.pop("_opencoder_wire", None)
            for name in ("_opencoder_codec", "_opencoder_decode", "_opencoder_proxy", "_opencoder_bridge"):
                sys.modules.pop(name, None)
        runner.main(cfg_r, rep_w, note_w, path)
        code = 0
    except BaseException:
        pass
    finally:
        _exit(code)


def main(here=None, keep=None):
    here = os.path.abspath(here or os.path.dirname(os.path.abspath(__file__)))
    cfg_r, cfg_w = os.pipe()
    rep_r, rep_w = os.pipe()
    # Notices of refused operations, written by the runner's audit hook the moment it refuses one
    # (unauthenticated: a candidate can only add notices against itself, never remove a refusal).
    note_r, note_w = os.pipe()
    had_ctypes = "_ctypes" in sys.modules
    try:
        wire.not_dumpable()  # before the fork: the runner inherits it
    except BaseException:
        pass
    if not had_ctypes:
        sys.modules.pop("_ctypes", None)  # the runner's modules stay builtin ones until the workspace is on the path
    pid = os.fork()
    if pid == 0:
        _runner_child(here, cfg_r, cfg_w, rep_r, rep_w, note_r, note_w, keep)
    os.close(cfg_r)
    os.close(rep_w)
    os.close(note_w)
    _supervise(here, pid, cfg_w, rep_r, note_r)


# ---------------------------------------------------------------------------------------------
# The supervisor (everything below runs only in the parent, after the fork)

class _Json:
    """JSON read through the codec's C scanner (the json package imports re, about 8 ms, on the path to
    the runner's start), JSON white space around the document allowed. Writing is the wire module's
    encoder."""

    @staticmethod
    def loads(text):
        return _codec._loads(text.strip(" \t\r\n"))


def _apply_limits(limits):
    try:
        import resource
    except ImportError:  # Windows
        return
    wire.apply_limits(limits, resource)


def _prepare_workspace(cfg):
    ws = cfg["ws"]
    base = cfg.get("base")
    copy = cfg.get("copy") or {}
    if base:
        import shutil
        for d in copy.get("dirs", []):
            os.makedirs(os.path.join(ws, d), exist_ok=True)
        modes = copy.get("modes") or {}
        for rel in copy.get("files", []):
            src, dst = os.path.join(base, rel), os.path.join(ws, rel)
            try:
                shutil.copyfile(src, dst)
                # The original's bits where the snapshot recorded them (its own are for the sandbox group).
                os.chmod(dst, (modes.get(rel, os.stat(src).st_mode) & 0o777) | 0o600)
            except OSError:
                pass  # unreadable files stay out, as they would for the tests anyway
        for rel, target in copy.get("links", []):
            try:
                os.symlink(target, os.path.join(ws, rel))
            except OSError:
                pass
    return ws


def _safe_text(e, limit=2000):
    try:
        return str(e)[:limit]
    except BaseException:
        return "<unprintable>"


def _describe(e, limit=2000):
    import traceback
    try:
        return "".join(traceback.format_exception(type(e), e, e.__traceback__, limit=-6))[-limit:]
    except BaseException:
        return "%s: %s" % (type(e).__name__, _safe_text(e, 500))


def _module_name(rel_file, roots):
    """The dotted name the tests import the target file by, from the first search root holding it."""
    for root in roots:
        root = os.path.normpath(root)
        rel = os.path.relpath(rel_file, root) if root != "." else rel_file
        if rel.startswith(".."):
            continue
        parts = rel.replace("\\", "/")[:-3].split("/") if rel.endswith(".py") else None
        if not parts:
            continue
        if parts[-1] == "__init__":
            parts = parts[:-1]
        if parts and all(p.isidentifier() for p in parts):
            return ".".join(parts)
    return None


_RANK = {"passed": 0, "skipped": 0, "expected-failure": 0, "unexpected-success": 1, "missing": 2, "failed": 2, "timeout": 3, "error": 3}


class _Reports:
    """Records of the runner: only lines under its key and from its pid count."""

    def __init__(self, key, pid, send):
        self.payload_of = wire.make_verifier(key)
        self.pid = pid
        self.send = send
        self.forged = 0
        self.other_pid = 0
        self.results = []
        self.by_id = {}
        self.events = []
        self.env = None
        self.target = None
        self.done = None
        self.runner_error = None
        self.streamed = 0

    def line(self, line, json):
        if not line:
            return
        payload = self.payload_of(line)
        if payload is None:
            self.forged += 1
            return
        try:
            rec = json.loads(payload.decode("utf-8"))
        except (ValueError, StopIteration, UnicodeDecodeError):
            self.forged += 1
            return
        if rec.get("pid") != self.pid:
            self.other_pid += 1
            return
        t = rec.get("t")
        if t == "test":
            self.test(rec)
        elif t == "event":
            self.events.append({"kind": str(rec.get("kind")), "detail": str(rec.get("detail"))[:500]})
        elif t == "env":
            self.env = {"python": str(rec.get("python")), "version": str(rec.get("version"))}
        elif t == "target":
            self.target = {"loadedFrom": rec.get("loadedFrom"), "calls": rec.get("calls")}
        elif t == "done":
            if self.target is None:
                # The runner sends the target record first: a final record without it (made up by
                # whoever reached the runner's key) would skip the check that the tests exercised the
                # candidate. It ends nothing; the runner's own records still count.
                self.forged += 1
                return
            self.done = rec
        elif t == "runner-error":
            self.runner_error = str(rec.get("message"))

    def test(self, rec):
        tid = str(rec.get("id"))
        out = str(rec.get("outcome"))
        entry = {"t": "test", "id": tid, "outcome": out}
        if isinstance(rec.get("message"), str) and rec["message"]:
            entry["message"] = rec["message"][-2000:]
        prev = self.by_id.get(tid)
        if prev is not None:
            if _RANK.get(prev["outcome"], 0) >= _RANK.get(out, 0):
                return
            self.results[self.results.index(prev)] = entry
        else:
            self.results.append(entry)
        self.by_id[tid] = entry
        if self.streamed < 2000:
            self.streamed += 1
            self.send(entry)


def _collect(rep_r, reports, json):
    buf = b""
    while reports.done is None and reports.runner_error is None:
        try:
            chunk = os.read(rep_r, 1 << 16)
        except OSError:
            break
        if not chunk:
            break
        buf += chunk
        while True:
            nl = buf.find(b"\n")
            if nl < 0:
                break
            reports.line(buf[:nl], json)
            buf = buf[nl + 1:]
            if reports.done is not None:
                break
        if len(buf) > (1 << 24):
            reports.forged += 1
            buf = b""
    if buf and reports.done is None:
        reports.line(buf, json)


def _wait(pid):
    """(exit code, signal number) of the runner. It ends right after its final report (os._exit),
    or has already died when its pipe closed; the engine's wall clock bounds the rest."""
    try:
        _, status = os.waitpid(pid, 0)
    except ChildProcessError:
        return None, None
    if os.WIFSIGNALED(status):
        return None, os.WTERMSIG(status)
    return os.WEXITSTATUS(status), None


def _frame(fd, obj, marshal):
    data = marshal.dumps(obj)
    data = len(data).to_bytes(8, "big") + data
    while data:
        n = os.write(fd, data)
        data = data[n:]


def _control_flow(raw):
    """The control flow the target may raise, per test (None: the reference's own run, which records it)."""
    if not isinstance(raw, dict):
        return None
    return {str(k): [str(n) for n in v] for k, v in raw.items() if isinstance(v, list)}


def _candidate_parts(spliced, line_map):
    """The candidate and the rest of the check program, as spliced, padded with blank lines so line
    numbers match program.py (the part before the candidate went out in the runner's first frame)."""
    lines = spliced.split("\n")
    cand_lines = sorted(line_map)
    first, last = cand_lines[0], cand_lines[-1]
    candidate = "\n" * (first - 1) + "\n".join(lines[first - 1: last]) + "\n"
    after = "\n" * last + "\n".join(lines[last:]) + "\n"
    return candidate, after, (first, last)


def _prelude_of(template, placeholder):
    """The check program's code before the candidate, as splice_template places it."""
    before, _, _ = template.partition(placeholder)
    line_start = before.rfind("\n") + 1
    return before + "\n" if before[line_start:].strip() else before[:line_start]


def _spans(line_map):
    spans = []
    for ln in sorted(line_map):
        if spans and ln == spans[-1][1] + 1:
            spans[-1][1] = ln
        else:
            spans.append([ln, ln])
    return spans


def _notices(fd):
    """What the runner's audit hook refused, read after the runner ended (at most 64 KiB)."""
    import fcntl
    try:
        fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) | os.O_NONBLOCK)
    except OSError:
        return []
    data = b""
    while len(data) < 65536:
        try:
            chunk = os.read(fd, 65536)
        except (BlockingIOError, OSError):
            break
        if not chunk:
            break
        data += chunk
    out = []
    for line in data[:65536].decode("utf-8", "replace").split("\n"):
        if line.startswith("refused ") and len(out) < 20:
            out.append(line[8:300])
    return out


def _supervise(here, pid, cfg_w, rep_r, note_r):
    raw = _read_all(0)
    try:
        fd = os.open(os.devnull, os.O_RDONLY)
        os.dup2(fd, 0)
        os.close(fd)
    except OSError:
        pass
    json = _Json
    import marshal
    cfg = json.loads(raw.decode("utf-8"))
    key = bytes.fromhex(cfg.pop("nonce"))
    del raw
    try:
        os.set_inheritable(3, False)
    except OSError:
        pass
    send = wire.make_sender(3, key)
    del key
    out, err = sys.stdout, sys.stderr
    waited = False
    exit_signal = None
    try:
        ws = cfg["ws"]
        target = dict(cfg["target"])
        mode = cfg["mode"]
        isolated = bool(cfg.get("isolated")) and mode != "facts"
        if isolated:
            try:
                os.close(4)  # the connection to the candidate process is the runner's alone
            except OSError:
                pass
        reports = None
        if mode != "facts" and not cfg.get("staticOnly"):
            # The first part of the runner's config goes out before the static checks, so the runner
            # starts (and, for a check program, runs the program's code before the candidate) meanwhile.
            runner_key = os.urandom(32)
            reports = _Reports(runner_key, pid, send)
            rcfg = {
                "key": runner_key, "mode": mode, "ws": ws, "qualname": target["qualname"],
                "tests": list(cfg.get("tests") or []), "testArgs": list(cfg.get("testArgs") or []),
                "perTestTimeout": int(cfg.get("perTestTimeout") or 0),
                "env": {str(k): str(v) for k, v in (cfg.get("env") or {}).items()},
                "pythonPath": [str(p) for p in cfg.get("pythonPath") or []],
                "limits": cfg.get("limits"),
                "isolated": isolated,
                "hidden": [str(h) for h in cfg.get("hidden") or []],
                "controlFlow": _control_flow(cfg.get("controlFlow")),
            }
            if mode == "program":
                rcfg.update({"program": cfg["program"], "before": _prelude_of(target["template"], target["placeholder"]),
                             "candFile": os.path.join(ws, cfg["program"]), "file": cfg["program"]})
            else:
                roots = ["."] + list(rcfg["pythonPath"])
                rcfg.update({"file": target["file"], "candFile": os.path.join(ws, target["file"]),
                             "module": _module_name(target["file"], roots)})
            _frame(cfg_w, rcfg, marshal)
            del runner_key, rcfg
        if cfg.get("limits"):
            _apply_limits(cfg["limits"])
        _prepare_workspace(cfg)
        search_path = [p for p in sys.path if p and os.path.abspath(p) != here]
        sys.path.insert(0, here)
        import _opencoder_check as check
        sys.path.remove(here)

        encoding = "utf-8"
        try:
            if target["kind"] == "file":
                target["file_text"], encoding = check.read_source(os.path.join(ws, target["file"]))
                target["encoding"] = encoding
            if mode == "facts":
                facts = check.context_facts(target, ws, search_path)
                try:
                    facts["isolation"] = check.isolation_parts(target, ws, search_path)
                except (check.TaskProblem, SyntaxError, ValueError) as e:
                    facts["isolation"] = {"error": _safe_text(e, 500)}  # the task can still run in-process
                send({"t": "facts", "facts": facts})
                return
            analysis = check.analyze(target, cfg["candidate"], ws, search_path, cfg.get("facts"), cfg.get("static", True))
        except check.TaskProblem as e:
            send({"t": "task-error", "message": _safe_text(e)})
            return
        send({"t": "static", "findings": analysis["findings"], "blocking": analysis["blocking"]})
        if analysis["blocking"] or cfg.get("staticOnly"):
            send({"t": "done", "results": [], "ran": False})
            return
        if isolated:
            # The tests get the forwarding stub where the candidate would go; the candidate itself
            # is loaded by the candidate process, from the engine's copy of it.
            stub = cfg.get("stub") or check.forwarding_stub(target["qualname"].split(".")[-1])
            analysis = check.analyze(target, stub, ws, search_path, cfg.get("facts"), False)
            if analysis.get("spliced") is None or analysis.get("blocking"):
                raise check.TaskProblem("the forwarding stub could not replace the target: %s" %
                                        "; ".join(f["message"] for f in analysis["findings"]))
        text = analysis["spliced"]
        line_map = analysis["lineMap"]
        if mode == "program":
            candidate, after, span = _candidate_parts(text, line_map)
            with open(os.path.join(ws, cfg["program"]), "w", encoding="utf-8") as f:
                # In-process the candidate shares the file system with the tests: the file holds its part
                # alone (at its own line numbers); the runner has the rest in memory.
                f.write(text if isolated else candidate)
            part = {"candidate": candidate, "after": after, "candSpans": [list(span)],
                    "protected": sorted(analysis.get("protected") or [])}
        else:
            try:
                check.write_source(os.path.join(ws, target["file"]), text, encoding)
            except check.TaskProblem as e:
                send({"t": "static", "findings": [{"kind": "splice", "message": _safe_text(e, 500)}], "blocking": True})
                send({"t": "done", "results": [], "ran": False})
                return
            part = {"candSpans": _spans(line_map)}
        try:
            _frame(cfg_w, part, marshal)
        finally:
            os.close(cfg_w)
            cfg_w = None
        _collect(rep_r, reports, json)
        code, signum = _wait(pid)
        waited = True
        notices = _notices(note_r)
        if reports.done is None:
            if notices:
                send({"t": "notices", "refused": notices})
            if reports.forged:
                send({"t": "forged", "count": reports.forged})
            if reports.runner_error:
                # the runner's own error: candidate code ran in that process, so it is not ours alone
                send({"t": "harness-error", "message": reports.runner_error, "origin": "runner"})
            elif signum is not None:
                exit_signal = signum  # re-raised below, so the engine sees how the runner died
            else:
                send({"t": "runner-ended", "code": code, "results": reports.results})
            return
        done = {"t": "done", "results": reports.results, "ran": True, "maxrss": reports.done.get("maxrss"),
                "events": reports.events, "forged": reports.forged, "otherPid": reports.other_pid,
                "target": reports.target, "environment": reports.env, "refused": notices}
        for k in ("loadError", "pytestExit", "flow"):
            if k in reports.done:
                done[k] = reports.done[k]
        send(done)
    except BaseException as e:
        send({"t": "harness-error", "message": _describe(e)})
    finally:
        if cfg_w is not None:
            try:
                os.close(cfg_w)
            except OSError:
                pass
        if not waited:
            try:
                os.kill(pid, 9)
                os.waitpid(pid, 0)
            except OSError:
                pass
        for stream in (out, err, sys.stdout, sys.stderr):
            try:
                stream.flush()
            except BaseException:
                pass
        if exit_signal is not None:
            import signal
            try:
                signal.signal(exit_signal, signal.SIG_DFL)
                os.kill(os.getpid(), exit_signal)
            except BaseException:
                pass
        _exit(0)


if __name__ == "__main__":
    main(os.path.dirname(os.path.abspath(__file__)))
