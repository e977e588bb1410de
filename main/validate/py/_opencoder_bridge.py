"""The connection between the test process and the candidate process of an isolated validation.

One JSON line a message over a socket; either side may ask a question while it waits for an answer
(the candidate calls a callback of the tests', the tests pull an iterator of the candidate's). The
test side (TestSide) sends the target's calls and rebuilds what comes back with a strict
_opencoder_codec.Decoder; the candidate side (CandidateSide, in _opencoder_serve.py's process)
calls the candidate and answers with data. What the values may be, and how they are rebuilt, is
_opencoder_codec's. Only builtin modules are imported here (the test process loads this before the
workspace is on the path).
"""

import sys
import os
import _thread
import _warnings
from time import perf_counter as _clock  # a builtin module

from _opencoder_codec import (
    CrossingError, Encoder, apply_state, VALUE_BASES, _BaseException, _NO, _HEAPTYPE, _MAX_LINE, _bool, _builtin_base,
    _bytearray, _bytes, _contents, _dict, _dumps, _frozenset, _getattr, _id, _int, _isinstance, _len, _list, _loads,
    _obj_getattribute, _object, _safe_repr, _set, _str, _tuple, _type,
)
from _opencoder_decode import Decoder
from _opencoder_proxy import (
    BINARY, CODE_FIELDS, UNARY, capabilities, handle_info, make_handle, new_proxy, public, value_stand_in,
)

# ---------------------------------------------------------------------------------------------
# The connection: one JSON line a message, either side may ask while it waits for an answer

class Peer:
    """One conversation on a socket. An exchange (a question and everything until its answer) holds the
    lock, so threads take turns: the tests' threads calling the target, the candidate's calling a callback."""

    def __init__(self, fd):
        self.fd = fd
        self.lock = _thread.RLock()
        try:
            os.set_blocking(fd, True)  # the engine's end of a socket pair comes non-blocking
        except OSError:
            pass
        self.buf = b""
        self.seq = 0
        self.dead = None

    def send(self, msg):
        with self.lock:
            self._send(msg)

    def _send(self, msg):
        data = (_dumps(msg) + "\n").encode("utf-8", "surrogatepass")
        try:
            while data:
                n = os.write(self.fd, data)
                data = data[n:]
        except OSError as e:
            self.dead = "the other process is gone (%s)" % e.strerror
            raise CrossingError(self.dead) from None

    def receive(self):
        while True:
            nl = self.buf.find(b"\n")
            if nl >= 0:
                line, self.buf = self.buf[:nl], self.buf[nl + 1:]
                try:
                    msg = _loads(line.decode("utf-8", "surrogatepass"))
                except (ValueError, UnicodeDecodeError, RecursionError):
                    raise CrossingError("a malformed message from the other process") from None
                if _type(msg) is not _dict:
                    raise CrossingError("a malformed message from the other process")
                return msg
            if _len(self.buf) > _MAX_LINE:
                raise CrossingError("a message over %d MiB" % (_MAX_LINE >> 20))
            try:
                chunk = os.read(self.fd, 1 << 20)
            except OSError as e:
                chunk = b""
                self.dead = "the other process is gone (%s)" % e.strerror
            if not chunk:
                self.dead = self.dead or "the other process ended"
                raise CrossingError(self.dead)
            self.buf += chunk

    def request(self, msg, serve):
        """Sends a question and serves the other side's questions until its answer comes."""
        with self.lock:
            return self._request(msg, serve)

    def _request(self, msg, serve):
        if self.dead:
            raise CrossingError(self.dead)
        self.seq += 1
        q = self.seq
        msg["q"] = q
        self.send(msg)
        while True:
            got = self.receive()
            r = got.get("r")
            if r == q:
                return got
            if "q" in got:
                self.send(serve(got))
            elif _type(r) is not _int or not 0 < r < q:
                raise CrossingError("a reply to a question that was not asked")
            # else: the late answer to a question abandoned when a test's time ran out


def error_reply(q, exc, encoder_factory, tb=None):
    try:
        node = encoder_factory().enc(exc)
    except CrossingError:
        node = ["x", 0, [["builtins", "RuntimeError"]], [_safe_repr(exc)], []]
    out = {"r": q, "exc": node}
    if tb:
        out["tb"] = tb[-4000:]
    return out




# ---------------------------------------------------------------------------------------------
# The test side

def _framework_api(obj, name):
    """Whether `name` is an attribute the test framework's own class defines (unittest.mock's Mock API)."""
    for c in _type(obj).__mro__:
        m = _getattr(c, "__module__", "")
        if _type(m) is _str and (m == "unittest.mock" or m.startswith("_pytest") or m.startswith("unittest.")) and name in c.__dict__:
            return True
    return False


class TestSide:
    """The stub's end: sends calls, rebuilds what comes back as trusted data, serves the candidate's
    uses of the tests' objects (handles) on those objects themselves."""

    def __init__(self, fd, trusted_class, on_crossing, on_flow=None):
        self.peer = Peer(fd)
        self.trusted_class = trusted_class
        self.on_crossing = on_crossing
        self.on_flow = on_flow or (lambda cls: None)
        self.lent = {}
        self.lent_ids = {}
        self.remote = {}  # the candidate's number -> its stand-in here (a pulled iterator or a proxy), one per object
        self.remote_ids = {}  # id of a stand-in -> (tag, number)
        self.type_info = {}  # type -> what a handle of one of its objects mirrors (handle_info)
        self.lock = _thread.RLock()

    def local(self, hid):
        try:
            return self.lent[hid]
        except (KeyError, TypeError):
            raise CrossingError("a handle the test process never lent") from None

    def resolve(self, tag, hid, node=None):
        """["h", n]: one of the tests' own objects, lent before; ["g", n]: an iterator of the candidate's; ["p", n,
        capabilities, name]: another object of the candidate's. The same object is the same stand-in every time."""
        if tag == "h":
            return self.local(hid)
        if _type(hid) is not _int or tag not in ("g", "p"):
            raise CrossingError("malformed value (handle)")
        known = self.remote.get(hid)
        if known is not None:
            return known
        if tag == "g":
            made = self._pull(hid)
        else:
            caps, name = (node[2], node[3]) if node is not None and _len(node) == 4 else (None, None)
            if _type(caps) is not _list or not all(_type(c) is _str for c in caps) or _type(name) is not _str:
                raise CrossingError("malformed value (proxy)")
            made = new_proxy(self, caps)
        self.remote[hid] = made
        self.remote_ids[_id(made)] = (tag, hid)
        return made

    def _remote_origin(self, v):
        known = self.remote_ids.get(_id(v))
        if known is not None and self.remote.get(known[1]) is v:
            return ["p" if known[0] == "pv" else known[0], known[1]]
        return None

    def value_proxy(self, pid, value, name, caps):
        """The candidate's subclass of a builtin value: a copy of the value, in a class named like the candidate's,
        whose other attributes (a namedtuple's fields, an enum member's name, its methods) are asked of the
        candidate process; the same object each time it crosses."""
        known = self.remote.get(pid)
        if known is not None:
            return known
        made = value_stand_in(self, value, name, caps)
        self.remote[pid] = made
        self.remote_ids[_id(made)] = ("pv", pid)
        return made

    def _lend(self, v):
        hid = self.lent_ids.get(_id(v))
        if hid is None:
            hid = _len(self.lent) + 1
            self.lent[hid] = v
            self.lent_ids[_id(v)] = hid
        t = _type(v)
        info = self.type_info.get(t)
        if info is None:
            info = self.type_info[t] = handle_info(t)
        return ["h", hid, info[0], info[1], info[2]]

    def _encoder(self):
        return Encoder(origin=self._remote_origin, fallback=self._lend, nameable=self.trusted_class)

    def _decoder(self, args=None):
        return Decoder(True, self.trusted_class, args, self)

    def _guard(self, fn, *a):
        # Reading and rebuilding a message gets stack of its own: a test that lowered the recursion limit (tomllib's
        # nesting tests) must not see a value the bounds let through refused as too deep.
        limit = sys.getrecursionlimit()
        try:
            sys.setrecursionlimit(limit + _HEADROOM)
        except (ValueError, RecursionError):
            limit = None
        try:
            return fn(*a)
        except CrossingError as e:
            self.on_crossing(_str(e))
            raise
        except RecursionError:
            self.on_crossing("a value too deeply nested to cross")
            raise CrossingError("a value too deeply nested to cross") from None
        finally:
            if limit is not None:
                sys.setrecursionlimit(limit)

    def hello(self):
        """The candidate's load error, or None once it is loaded."""
        reply = self._guard(self.peer.request, {"op": "hello"}, self.serve)
        ok = reply.get("ok")
        err = ok.get("loadError") if _type(ok) is _dict else "no answer from the candidate process"
        return err if _type(err) is _str or err is None else "a malformed answer from the candidate process"

    def call(self, args, kwargs, awaited=False):
        # One call at a time: the tests' threads take turns (the connection is one conversation).
        with self.lock:
            returned, value = self._guard(self._call, {"op": "call", "await": awaited is True}, args, kwargs)
        if returned:
            return value
        self._flow(value)
        # Raised outside the guard: a RecursionError the candidate raised (endless recursion) is its own, not a value
        # too deeply nested for the bridge.
        raise value

    def _flow(self, exc):
        """An exception of the candidate's that would steer the tests' control flow fails the call instead, unless
        the reference raised the same in this test (the runner's on_flow decides and records)."""
        why = self.on_flow(_type(exc))
        if why:
            raise CrossingError(why)

    def proxy_op(self, proxy, do, args):
        """A use of a proxy of the candidate's object (iteration, len, an attribute, a call …), served there."""
        known = self.remote_ids.get(_id(proxy))
        if known is None or self.remote.get(known[1]) is not proxy:
            raise CrossingError("an object of the candidate's this test process never received")
        pid = known[1]
        if do == "call":
            args, kwargs = _tuple(args[0]), _dict(args[1])
        else:
            kwargs = {}
        with self.lock:
            returned, value = self._guard(self._call, {"op": "p", "p": pid, "do": do}, args, kwargs)
        if returned:
            if do in ("repr", "str") and _type(value) is not _str:
                return "<an object of the candidate's>"
            if do == "len" and _type(value) is not _int:
                raise TypeError("opencoder: len() of the candidate's object is not an int")
            return value
        if not (do == "next" and _type(value) is StopIteration):
            self._flow(value)
        raise value

    def _call(self, msg, args, kwargs):
        enc = self._encoder()
        msg["v"] = enc.enc((_tuple(args), _dict(kwargs)))
        reply = self.peer.request(msg, self.serve)
        self._output(reply)
        dec = self._decoder(enc.keep)
        for entry in reply.get("post") or ():
            self._update(dec, enc.keep, entry)
        self._warn(dec, reply.get("warned"))
        if "ok" in reply:
            return True, dec.dec(reply["ok"])
        if _type(reply.get("uncrossable")) is _str:
            raise CrossingError(reply["uncrossable"][:500])
        return False, self._exception(dec, reply)

    def _warn(self, dec, warned):
        """The warnings the candidate issued during the call, issued again here, through the tests' own filters
        (assertWarns sees them; a filter set to "error" raises them from the call, as in-process)."""
        if _type(warned) is not _list:
            return
        for entry in warned[:100]:
            if _type(entry) is not _list or _len(entry) != 3 or _type(entry[1]) is not _str or _type(entry[2]) is not _int:
                raise CrossingError("malformed warning")
            w = dec.dec(entry[0])
            if not _isinstance(w, Warning):
                w = UserWarning(_str(w)[:2000])
            _warnings.warn_explicit(w, _type(w), entry[1][:500], entry[2])

    def _exception(self, dec, reply):
        exc = dec.dec(reply.get("exc"))
        if not _isinstance(exc, _BaseException):
            raise CrossingError("malformed exception")
        tb = reply.get("tb")
        if _type(tb) is _str and tb:
            try:
                exc.__notes__ = ["(raised in the candidate process)\n" + tb[-4000:]]
            except _BaseException:
                pass
        return exc

    def _update(self, dec, keep, entry):
        if _type(entry) is not _list or _len(entry) != 3 or _type(entry[0]) is not _int or not 0 <= entry[0] < _len(keep):
            raise CrossingError("malformed state update")
        orig = keep[entry[0]]
        if entry[1] == "c":
            new = dec.dec(entry[2])
            if _contents(orig) is _NO or _type(new) is not _type(_contents(orig)):
                raise CrossingError("malformed state update")
            apply_state(orig, new)
        elif entry[1] == "o":
            t = _type(orig)
            base = _builtin_base(t)
            value = dec.dec(entry[2][0])
            if base in (_list, _set, _dict, _bytearray):
                if _type(value) is not base:
                    raise CrossingError("malformed state update")
                if base is _list:
                    _list.__setitem__(orig, slice(None), value)
                elif base is _bytearray:
                    _bytearray.__setitem__(orig, slice(None), value)
                else:
                    base.clear(orig)
                    base.update(orig, value)
            try:
                _obj_getattribute(orig, "__dict__").clear()
            except AttributeError:
                pass
            dec._set_attrs(orig, entry[2][1], 0)
        else:
            raise CrossingError("malformed state update")

    def _output(self, reply):
        if _type(reply) is not _dict:
            return
        for key, stream in (("out", "stdout"), ("err", "stderr")):
            text = reply.get(key)
            if _type(text) is _str and text:
                s = _getattr(sys, stream, None)
                if s is not None:
                    s.write(text)

    def _pull(self, gid):
        """The candidate's iterator as a generator of the test process, fetched a batch at a time (one round
        trip per item made long token streams crawl; an iterator runs at most a batch ahead of its reader)."""

        def remote_items():
            n = 1
            while True:
                with self.lock:
                    reply = self._guard(self.peer.request, {"op": "next", "g": gid, "n": n}, self.serve)
                n = min(n * 4, _BATCH)
                dec = self._decoder()
                items = reply.get("items")
                outs = reply.get("outs")
                if _type(items) is not _list or _type(outs) is not _list or _len(outs) != _len(items) + 1:
                    self._guard(_malformed)
                for node, out in zip(items, outs):
                    value = self._guard(dec.dec, node)
                    self._output(out)  # what the candidate printed making this item, as the tests take it
                    yield value
                self._output(outs[-1])
                if reply.get("stop"):
                    return
                if _type(reply.get("uncrossable")) is _str:
                    self.on_crossing(reply["uncrossable"][:500])
                    raise CrossingError(reply["uncrossable"][:500])
                if "exc" in reply:
                    exc = self._guard(self._exception, dec, reply)
                    self._flow(exc)
                    raise exc

        return remote_items()

    _OPS = frozenset(("call", "getattr", "iter", "next", "len", "bool", "getitem", "contains", "repr", "str", "eq", "hash", "enter", "exit",
                      "batch", "op", "rop", "unary", "isinstance", "issubclass"))

    def has(self, mod, qual, why):
        """Whether the test process rebuilds a value named (mod, qual) for this use: the candidate side sends
        what it does not as a proxy instead (a class only the candidate defines, a functools.partial)."""
        if _type(mod) is not _str or _type(qual) is not _str or why not in ("name", "instance", "enum"):
            return False
        dec = self._decoder()
        try:
            obj = dec._find(mod, qual)
        except _BaseException:
            return False
        if obj is None or (why != "name" and not _isinstance(obj, _type)):
            return False
        try:
            return _bool(self.trusted_class(mod, obj, why))
        except _BaseException:
            return False

    def serve(self, msg):
        """A question of the candidate's about a handle, answered on the test's own object."""
        q = msg.get("q")
        if msg.get("op") == "has":
            v = msg.get("v")
            return {"r": q, "ok": _type(v) is _list and _len(v) == 3 and self.has(v[0], v[1], v[2])}
        try:
            if msg.get("op") != "h" or msg.get("do") not in self._OPS:
                raise CrossingError("a question the test process does not answer")
            obj = self.local(msg.get("h"))
            arg = self._decoder().dec(msg.get("v"))
            if msg["do"] == "batch":
                return _batch(q, obj, arg, self._encoder())
            value = self._handle_op(obj, msg["do"], arg)
            return {"r": q, "ok": self._encoder().enc(value)}
        except CrossingError as e:
            self.on_crossing(_str(e))
            return error_reply(q, RuntimeError("opencoder: " + _str(e)), self._encoder)
        except _BaseException as e:
            # Lent, so that when it comes back (the candidate let it through) the tests get it as it was.
            body = error_reply(q, e, self._encoder)
            body["lent"] = self._lend(e)[1]
            return body

    def _handle_op(self, obj, do, arg):
        if do == "call":
            if _type(arg) is not _tuple or _len(arg) != 2 or _type(arg[1]) is not _dict:
                raise CrossingError("malformed call")
            return obj(*arg[0], **arg[1])
        if do == "getattr":
            if not public(arg):
                raise AttributeError("opencoder: only public attributes of the tests' objects cross (%r)" % (arg,))
            if _framework_api(obj, arg):
                # A mock's own controls (configure_mock, assert_called_with, side_effect …) are the tests'.
                raise AttributeError("opencoder: %r belongs to the test framework's object, not to what it stands in for" % arg)
            if _type(obj) is _CodeType and arg not in CODE_FIELDS:
                raise AttributeError("opencoder: of the tests' code, only its shape is read (%r)" % arg)
            return _getattr(obj, arg)
        if do == "iter":
            return iter(obj)
        if do == "next":
            return next(obj)
        if do == "len":
            return _len(obj)
        if do == "bool":
            return _bool(obj)
        if do == "getitem":
            return obj[arg]
        if do == "contains":
            return arg in obj
        if do == "repr":
            return repr(obj)
        if do == "str":
            return _str(obj)
        if do == "eq":
            return obj == arg
        if do == "hash":
            return hash(obj)
        if do == "enter":
            return obj.__enter__()
        if do in ("op", "rop"):
            # The tests' own object compared or combined, by its own operators, here (`<` between two of the
            # tests' objects inside a sorting target).
            if _type(arg) is not _tuple or _len(arg) != 2 or arg[0] not in BINARY:
                raise CrossingError("malformed operator")
            return BINARY[arg[0]](obj, arg[1]) if do == "op" else BINARY[arg[0]](arg[1], obj)
        if do == "unary":
            if arg not in UNARY:
                raise CrossingError("malformed operator")
            return UNARY[arg](obj)
        if do == "isinstance":
            return isinstance(arg, obj)
        if do == "issubclass":
            if _type(arg) is _tuple and _len(arg) == 2 and arg[0] == "type-of":
                return issubclass(_type(arg[1]), obj)  # the class of one of the tests' own objects
            return issubclass(arg, obj)
        if _type(arg) is not _tuple:
            raise CrossingError("malformed exit")
        return obj.__exit__(*arg)


# ---------------------------------------------------------------------------------------------
# The candidate side

class _Output:
    """What the candidate prints during a call, sent back with the answer (the tests may capture it). Past
    4 MiB a call's output goes straight to the process's own stdout, where the engine's output limit ends it."""

    def __init__(self, fd):
        self.fd = fd
        self.parts = []
        self.size = 0

    def write(self, s):
        if _type(s) is not _str:
            raise TypeError("write() argument must be str, not %s" % _type(s).__name__)
        if self.size < (4 << 20):
            self.parts.append(s)
            self.size += _len(s)
        else:
            try:
                os.write(self.fd, s.encode("utf-8", "replace"))
            except OSError:
                pass
        return _len(s)

    def flush(self):
        pass

    def isatty(self):
        return False

    def take(self):
        s = "".join(self.parts)
        self.parts = []
        self.size = 0
        return s


class CandidateSide:
    """The candidate's end: calls the target with the arguments rebuilt, answers with data; serves the tests' uses of
    its objects that are not data (iterators pulled, proxies used)."""

    def __init__(self, fd, target, load_error):
        self.peer = Peer(fd)
        self.target = target
        self.load_error = load_error
        self.proxies = {}  # the tests' objects: number -> handle
        self.objs = {}  # objects of ours the tests hold: number -> object (never reused: each is its own stream)
        self.obj_ids = {}  # id -> (tag, number)
        self.numbered = 0
        self.exported = 0  # how many times an object of ours or the tests' went out in an answer
        self.buffers = {}
        self.foreign = {}  # id -> (handle, exception) of the tests' exceptions seen here
        self.known = {}  # (module, qualname, use) -> whether the test process rebuilds it
        self.thread = _thread.get_ident()
        self.out = _Output(1)
        self.err = _Output(2)

    def resolve(self, tag, hid, node=None):
        """["h", n]: a stand-in for one of the tests' objects; ["g", n] or ["p", n]: an object of ours, sent back."""
        if tag == "h":
            return self.proxy(hid, node)
        known = self.objs.get(hid) if tag in ("g", "p") and _type(hid) is _int else None
        if known is not None and self.obj_ids.get(_id(known), (None,))[0] in (tag, "pv" if tag == "p" else tag):
            return known
        raise CrossingError("malformed value (handle)")

    def proxy(self, hid, node=None):
        p = self.proxies.get(hid)
        if p is None:
            info = node[2:5] if node is not None and _len(node) == 5 and _type(node[4]) is _list else None
            p = self.proxies[hid] = make_handle(self, hid, info)
        return p

    def ask(self, hid, do, value=None):
        reply = self.peer.request({"op": "h", "h": hid, "do": do, "v": self._encoder().enc(value)}, self.serve)
        dec = Decoder(False, handles=self)
        if "ok" in reply:
            return dec.dec(reply["ok"])
        raise self._foreign(dec, reply)

    def _nameable(self, mod, obj, why):
        """Whether the test process has what `obj` is named (asked once per name): a class or function only the
        candidate defines (or a standard-library one the tests do not rebuild) goes as a proxy."""
        qual = _getattr(obj, "__qualname__", None)
        key = (mod, qual, why)
        known = self.known.get(key)
        if known is None:
            reply = self.peer.request({"op": "has", "v": [mod, qual, why]}, self.serve)
            known = self.known[key] = reply.get("ok") is True
        return known

    def _encoder(self, origin=None):
        return Encoder(origin=origin or self._origin, fallback=self._export, nameable=self._nameable, methods=True)

    def check_class(self, hid, do, obj):
        """isinstance or issubclass against a class of the tests': an object of ours is never an instance of it."""
        of = _getattr(obj, "_oc_type_of", None) if do == "issubclass" else None
        if of is not None and self.proxies.get(of) is not None and _type(self.proxies[of]) is obj:
            return _bool(self.ask(hid, do, ("type-of", self.proxies[of])))
        try:
            Encoder(origin=self._origin, nameable=self._nameable).enc(obj)
        except CrossingError:
            if do == "isinstance":
                return False
            raise TypeError("issubclass() arg 1 must be a class") from None
        return _bool(self.ask(hid, do, obj))

    def _foreign(self, dec, reply):
        """The tests' exception, remembered so that it goes back as itself."""
        exc = dec.dec(reply.get("exc"))
        if not _isinstance(exc, _BaseException):
            return RuntimeError("opencoder: a malformed answer")
        if _type(reply.get("lent")) is _int:
            self.foreign[_id(exc)] = (reply["lent"], exc)
        return exc

    def _origin(self, v):
        """How a value that is not ours to copy goes back: one of the tests' objects as its handle, one of ours
        the tests already hold as its number."""
        hid = _getattr(_type(v), "_oc_proxy_of", None)
        if hid is not None and self.proxies.get(hid) is v:
            self.exported += 1
            return ["h", hid]
        known = self.foreign.get(_id(v))
        if known is not None and known[1] is v:
            return ["h", known[0]]
        mine = self.obj_ids.get(_id(v))
        if mine is not None and self.objs.get(mine[1]) is v:
            self.exported += 1
            return ["p" if mine[0] == "pv" else mine[0], mine[1]]
        return None

    def _export(self, v):
        """An object that is not data stays here; the tests get a stand-in. A generator or a builtin iterator is
        pulled as a stream ("g"); anything else (an instance of the candidate's own class, a function it made) is a
        proxy ("p") whose uses are served here."""
        self.numbered += 1
        n = self.numbered
        t = _type(v)
        name = "%s.%s" % (_getattr(t, "__module__", "?"), _getattr(t, "__qualname__", "?"))
        if not (t.__flags__ & _HEAPTYPE) and _getattr(t, "__next__", None) is not None and _getattr(t, "__iter__", None) is not None:
            node = ["g", n]
        elif t.__flags__ & _HEAPTYPE and _builtin_base(t) in VALUE_BASES:
            # Its value is data (compared, hashed and tested for truth as that value); the rest is asked of it.
            node = ["pv", n, None, name, ["missing"] if _getattr(t, "__missing__", None) is not None else []]
        else:
            node = ["p", n, capabilities(t), name]
        self.objs[n] = v
        self.obj_ids[_id(v)] = (node[0], n)
        self.exported += 1
        return node

    def serve_forever(self):
        while True:
            try:
                with self.peer.lock:
                    msg = self.peer.receive()
            except CrossingError:
                return
            self.peer.send(self.serve(msg))

    def serve(self, msg):
        q = msg.get("q")
        op = msg.get("op")
        if op == "hello":
            return {"r": q, "ok": {"loadError": self.load_error}}
        if op == "call":
            if self.target is None:
                return self._reply(q, error_reply(q, RuntimeError("the candidate failed to load: %s" % (self.load_error or "?")), Encoder))
            awaited = msg.get("await") is True
            target = self.target
            return self._call(q, msg.get("v"), lambda a, k: self._await(target(*a, **k), awaited))
        if op == "p":
            obj = self.objs.get(msg.get("p")) if _type(msg.get("p")) is _int else None
            use = _USES.get(msg.get("do"))
            if obj is None or use is None:
                return error_reply(q, RuntimeError("opencoder: an unknown object or use"), Encoder)
            return self._call(q, msg.get("v"), lambda a, k: use(obj, a, k))
        if op == "next":
            n = msg.get("n")
            return self._next(q, msg.get("g"), n if _type(n) is _int and 0 < n <= _BATCH else 1)
        return error_reply(q, RuntimeError("unknown question"), Encoder)

    def _run(self, fn):
        saved = sys.stdout, sys.stderr
        sys.stdout, sys.stderr = self.out, self.err
        try:
            return fn()
        finally:
            if sys.stdout is self.out:
                sys.stdout = saved[0]
            if sys.stderr is self.err:
                sys.stderr = saved[1]

    def _taken(self):
        """What the candidate printed since the last answer."""
        body = {}
        out, err = self.out.take(), self.err.take()
        if out:
            body["out"] = out
        if err:
            body["err"] = err
        return body

    def _reply(self, q, body):
        body["r"] = q
        body.update(self._taken())
        return body

    def _call(self, q, node, fn):
        dec = Decoder(False, handles=self)
        try:
            args, kwargs = dec.dec(node)
        except _BaseException as e:
            return self._reply(q, error_reply(q, RuntimeError("opencoder: the arguments could not be rebuilt: %s" % _safe_repr(e)), Encoder))
        made = _dict((_id(v), k) for k, v in dec.table)
        before = _dict((k, self._fingerprint(v)) for k, v in dec.table)

        def origin(v):
            k = made.get(_id(v))
            if k is not None:
                return ["a", k]
            return self._origin(v)

        import warnings  # the candidate's process: its copy, where the workspace has one

        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")  # each one goes to the tests' filters, which decide
            try:
                result = self._run(lambda: fn(args, kwargs))
                failed = None
            except _BaseException as e:
                result, failed = None, e
        enc = self._encoder(origin)
        body = {}
        try:
            warned = [[enc.enc(w.message), _str(w.filename), w.lineno if _type(w.lineno) is _int else 0]
                      for w in caught[:100] if _isinstance(w.message, Warning)]
            if warned:
                body["warned"] = warned
            post = []
            for k, v in dec.table:
                fp = self._fingerprint(v)
                if fp is not None and not _same(fp, before.get(k)):
                    post.append(self._state(enc, k, v))
            body["post"] = post
            if failed is None:
                body["ok"] = enc.enc(result)
            else:
                body.update(error_reply(q, failed, lambda: enc, _format_tb(failed)))
        except (CrossingError, RecursionError) as e:
            why = _str(e) if _type(e) is CrossingError else "a value too deeply nested to cross"
            body = error_reply(q, RuntimeError("opencoder: the result cannot cross: %s" % why), Encoder)
            body["uncrossable"] = why
        return self._reply(q, body)

    def _await(self, r, awaited):
        """An async target's coroutine is run to its end here (the test process awaits the stub); a
        coroutine where none is awaited, or none where one is, stays what it is: a mismatch."""
        if not awaited:
            return r
        if _type(r).__name__ != "coroutine":
            raise TypeError("object %s can't be used in 'await' expression" % _type(r).__name__)
        import asyncio
        return asyncio.run(r)

    def _fingerprint(self, v):
        """A shallow copy of what a call may change in v (nested containers have their own), or None."""
        t = _type(v)
        if t is _set or t is _bytearray:
            return (t, _frozenset(v) if t is _set else _bytes(v))
        c = _contents(v)
        if c is not _NO:
            return (t, _tuple(c.items()) if _type(c) is _dict else _tuple(c))
        if t.__flags__ & _HEAPTYPE and not _isinstance(v, _BaseException):
            try:
                return (t, _tuple(Encoder().attrs_raw(v, t)), _contents_of_base(v, t))
            except _BaseException:
                return (t, _object())  # unreadable now: sent again, to be safe
        return None

    def _state(self, enc, k, v):
        c = _contents(v)
        if c is not _NO:
            return [k, "c", enc.enc(c)]
        t = _type(v)
        base = _builtin_base(t)
        value = (
            enc.enc(base(base.__iter__(v)) if base in (_list, _set, _bytearray) else _dict(_dict.items(v)))
            if base in (_list, _set, _dict, _bytearray)
            else None
        )
        return [k, "o", [value, enc.attrs(v, t, 1)]]

    def _next(self, q, gid, n):
        """Items of one of our iterators the tests are reading. Read ahead (a batch) only where the tests cannot see
        it: while the candidate holds none of the tests' objects, and up to an item that brings an object the
        tests hold by reference (another iterator of ours, a proxy, one of their own); what is printed making each
        item goes with that item."""
        it = self.objs.get(gid) if _type(gid) is _int else None
        if it is None or self.obj_ids.get(_id(it), (None,))[0] != "g":
            return error_reply(q, RuntimeError("unknown iterator"), Encoder)
        if self.proxies:
            n = 1
        items = []
        outs = []
        body = {"r": q, "items": items, "outs": outs}
        enc = self._encoder()
        start = _clock()
        try:
            for _ in range(n):
                before = self.exported
                began = _clock()
                item = self._run(lambda: next(it))
                items.append(enc.enc(item))
                outs.append(self._taken())
                if self.exported != before or self.proxies:
                    break
                # Read ahead only while items come cheap: an item the tests never take must not cost them time (a
                # lazy search whose next item takes minutes timed a correct candidate out).
                now = _clock()
                if now - began > _AHEAD_ITEM or now - start > _AHEAD_BATCH:
                    break
        except StopIteration:
            body["stop"] = True
        except (CrossingError, RecursionError) as e:
            why = _str(e) if _type(e) is CrossingError else "a value too deeply nested to cross"
            body.update(error_reply(q, RuntimeError("opencoder: an item cannot cross: %s" % why), Encoder))
            body["uncrossable"] = why
        except _BaseException as e:
            body.update(error_reply(q, e, lambda: enc, _format_tb(e)))
        body["items"], body["outs"] = items, outs + [self._taken()]
        return body

    def next_of(self, hid):
        """The next item of one of the tests' iterators, fetched one at a time: the tests may count what was taken."""
        reply = self.peer.request({"op": "h", "h": hid, "do": "batch", "v": 1}, self.serve)
        dec = Decoder(False, handles=self)
        got = reply.get("items")
        items = [dec.dec(x) for x in got] if _type(got) is _list else []
        if items:
            return items[0]
        if reply.get("stop"):
            raise StopIteration
        if "exc" in reply:
            raise self._foreign(dec, reply)
        raise RuntimeError("opencoder: a malformed answer")


def _use_call(obj, a, k):
    return obj(*a, **k)


def _use_getattr(obj, a, k):
    if _len(a) != 1 or not public(a[0]):
        raise AttributeError("opencoder: only public attributes of the candidate's objects are read")
    return _getattr(obj, a[0])


def _use_exit(obj, a, k):
    return obj.__exit__(*a)


# What the tests may do with a proxy of one of the candidate's objects (read-only: no setting, no deleting).
_USES = {
    "call": _use_call, "getattr": _use_getattr, "iter": lambda o, a, k: iter(o), "next": lambda o, a, k: next(o),
    "len": lambda o, a, k: _len(o), "getitem": lambda o, a, k: o[a[0]], "contains": lambda o, a, k: a[0] in o,
    "repr": lambda o, a, k: repr(o), "str": lambda o, a, k: _str(o), "enter": lambda o, a, k: o.__enter__(),
    "exit": _use_exit,
}


def _contents_of_base(v, t):
    base = _builtin_base(t)
    if base in (_list, _tuple):
        return _tuple(base.__iter__(v))
    if base is _dict:
        return _tuple(_dict.items(v))
    if base in (_set, _frozenset, _bytearray):
        return _frozenset(base.__iter__(v)) if base is not _bytearray else _bytes(v)
    return None


def _same(a, b):
    """Whether two fingerprints say nothing changed: same items, the same objects (equal for sets and bytes)."""
    if a is None or b is None or _len(a) != _len(b) or a[0] is not b[0]:
        return False
    for x, y in zip(a[1:], b[1:]):
        if _type(x) is _tuple and _type(y) is _tuple:
            if _len(x) != _len(y) or not all(map(_is_same_item, x, y)):
                return False
        elif x != y:
            return False
    return True


def _is_same_item(x, y):
    if _type(x) is _tuple and _type(y) is _tuple and _len(x) == 2 == _len(y):
        return x[0] is y[0] and x[1] is y[1]
    return x is y


_BATCH = 256
_HEADROOM = 2000  # frames a message's reading and rebuilding may add to the tests' recursion limit
_AHEAD_ITEM = 0.0005  # seconds an item may have taken for the next one to be read ahead
_AHEAD_BATCH = 0.005  # seconds a batch may take in all
_CodeType = _type((lambda: 0).__code__)


def _malformed():
    raise CrossingError("a malformed message from the other process")


def _batch(q, it, n, enc):
    """Up to n items of one of the tests' iterators, encoded, and what ended the batch early (exhausted, or an exception)."""
    items = []
    body = {"r": q, "items": items}
    if _type(n) is not _int or not 0 < n <= _BATCH:
        n = 1
    try:
        for _ in range(n):
            items.append(enc.enc(next(it)))
    except StopIteration:
        body["stop"] = True
    except _BaseException as e:
        body.update(error_reply(q, e, lambda: enc))
        body["items"] = items
    return body


def _format_tb(e):
    try:
        import traceback
        return "".join(traceback.format_exception(_type(e), e, e.__traceback__, limit=-8))
    except _BaseException:
        return None
