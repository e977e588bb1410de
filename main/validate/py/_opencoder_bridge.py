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

from _opencoder_codec import (
    CrossingError, Decoder, Encoder, apply_state, _BaseException, _NO, _HEAPTYPE, _MAX_LINE, _bool, _builtin_base,
    _bytearray, _bytes, _contents, _dict, _dumps, _frozenset, _getattr, _id, _int, _isinstance, _len, _list, _loads,
    _obj_getattribute, _object, _safe_repr, _set, _str, _tuple, _type,
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

# Dunder attributes of the tests' objects the candidate may read: names and documentation, plain text.
_DESCRIPTIVE = frozenset(("__name__", "__qualname__", "__module__", "__doc__"))


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

    def __init__(self, fd, trusted_class, on_crossing):
        self.peer = Peer(fd)
        self.trusted_class = trusted_class
        self.on_crossing = on_crossing
        self.lent = {}
        self.lent_ids = {}
        self.lock = _thread.RLock()

    def local(self, hid):
        try:
            return self.lent[hid]
        except (KeyError, TypeError):
            raise CrossingError("a handle the test process never lent") from None

    def resolve(self, tag, hid):
        """["h", n]: one of the tests' own objects, lent before; ["g", n]: an iterator of the candidate's."""
        if tag == "h":
            return self.local(hid)
        if tag == "g" and _type(hid) is _int:
            return self._pull(hid)
        raise CrossingError("malformed value (handle)")

    def _lend(self, v):
        hid = self.lent_ids.get(_id(v))
        if hid is None:
            hid = _len(self.lent) + 1
            self.lent[hid] = v
            self.lent_ids[_id(v)] = hid
        return ["h", hid]

    def _encoder(self):
        return Encoder(fallback=self._lend, nameable=self.trusted_class)

    def _decoder(self, args=None):
        return Decoder(True, self.trusted_class, args, self)

    def _guard(self, fn, *a):
        try:
            return fn(*a)
        except CrossingError as e:
            self.on_crossing(_str(e))
            raise
        except RecursionError:
            self.on_crossing("a value too deeply nested to cross")
            raise CrossingError("a value too deeply nested to cross") from None

    def hello(self):
        """The candidate's load error, or None once it is loaded."""
        reply = self._guard(self.peer.request, {"op": "hello"}, self.serve)
        ok = reply.get("ok")
        err = ok.get("loadError") if _type(ok) is _dict else "no answer from the candidate process"
        return err if _type(err) is _str or err is None else "a malformed answer from the candidate process"

    def call(self, args, kwargs, awaited=False):
        # One call at a time: the tests' threads take turns (the connection is one conversation).
        with self.lock:
            returned, value = self._guard(self._call, args, kwargs, awaited)
        if returned:
            return value
        # Raised outside the guard: a RecursionError the candidate raised (endless recursion) is its own, not a value
        # too deeply nested for the bridge.
        raise value

    def _call(self, args, kwargs, awaited):
        enc = self._encoder()
        node = enc.enc((_tuple(args), _dict(kwargs)))
        reply = self.peer.request({"op": "call", "v": node, "await": awaited is True}, self.serve)
        self._output(reply)
        dec = self._decoder(enc.keep)
        for entry in reply.get("post") or ():
            self._update(dec, enc.keep, entry)
        if "ok" in reply:
            return True, dec.dec(reply["ok"])
        if _type(reply.get("uncrossable")) is _str:
            raise CrossingError(reply["uncrossable"][:500])
        return False, self._exception(dec, reply)

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
                reply = self._guard(self.peer.request, {"op": "next", "g": gid, "n": n}, self.serve)
                n = min(n * 4, _BATCH)
                self._output(reply)
                dec = self._decoder()
                items = reply.get("items")
                if _type(items) is not _list:
                    self._guard(_malformed)
                for node in items:
                    yield self._guard(dec.dec, node)
                if reply.get("stop"):
                    return
                if _type(reply.get("uncrossable")) is _str:
                    self.on_crossing(reply["uncrossable"][:500])
                    raise CrossingError(reply["uncrossable"][:500])
                if "exc" in reply:
                    raise self._guard(self._exception, dec, reply)

        return remote_items()

    _OPS = frozenset(("call", "getattr", "iter", "next", "len", "bool", "getitem", "contains", "repr", "str", "eq", "hash", "enter", "exit", "batch"))

    def serve(self, msg):
        """A question of the candidate's about a handle, answered on the test's own object."""
        q = msg.get("q")
        try:
            if msg.get("op") != "h" or msg.get("do") not in self._OPS:
                raise CrossingError("a question the test process does not answer")
            obj = self.local(msg.get("h"))
            arg = self._decoder().dec(msg.get("v"))
            if msg["do"] == "batch":
                return _batch(q, obj, arg, self._encoder(), None)
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
            if _type(arg) is not _str or (arg.startswith("_") and arg not in _DESCRIPTIVE):
                raise AttributeError("opencoder: only public attributes of the tests' objects cross (%r)" % (arg,))
            if _framework_api(obj, arg):
                # A mock's own controls (configure_mock, assert_called_with, side_effect …) are the tests'.
                raise AttributeError("opencoder: %r belongs to the test framework's object, not to what it stands in for" % arg)
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
    """The candidate's end: calls the target with the arguments rebuilt, answers with data."""

    def __init__(self, fd, target, load_error):
        self.peer = Peer(fd)
        self.target = target
        self.load_error = load_error
        self.proxies = {}
        self.iters = {}
        self.buffers = {}
        self.foreign = {}  # id -> (handle, exception) of the tests' exceptions seen here
        self.thread = _thread.get_ident()
        self.out = _Output(1)
        self.err = _Output(2)

    def resolve(self, tag, hid):
        """["h", n]: a stand-in for one of the tests' objects; ["g", n]: an iterator of ours, sent back."""
        if tag == "h":
            return self.proxy(hid)
        if tag == "g" and hid in self.iters:
            return self.iters[hid]
        raise CrossingError("malformed value (handle)")

    def proxy(self, hid):
        p = self.proxies.get(hid)
        if p is None:
            p = self.proxies[hid] = _make_proxy(self, hid)
        return p

    def ask(self, hid, do, value=None):
        self._same_thread()
        reply = self.peer.request({"op": "h", "h": hid, "do": do, "v": Encoder(origin=self._proxy_origin).enc(value)}, self.serve)
        dec = Decoder(False, handles=self)
        if "ok" in reply:
            return dec.dec(reply["ok"])
        raise self._foreign(dec, reply)

    def _foreign(self, dec, reply):
        """The tests' exception, remembered so that it goes back as itself."""
        exc = dec.dec(reply.get("exc"))
        if not _isinstance(exc, _BaseException):
            return RuntimeError("opencoder: a malformed answer")
        if _type(reply.get("lent")) is _int:
            self.foreign[_id(exc)] = (reply["lent"], exc)
        return exc

    def _same_thread(self):
        pass  # any thread: the connection's lock makes them take turns

    def _proxy_origin(self, v):
        hid = _getattr(_type(v), "_oc_proxy_of", None)
        if hid is not None and self.proxies.get(hid) is v:
            return ["h", hid]
        known = self.foreign.get(_id(v))
        if known is not None and known[1] is v:
            return ["h", known[0]]
        return None

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
            return self._call(q, msg.get("v"), msg.get("await") is True)
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

    def _reply(self, q, body):
        body["r"] = q
        out, err = self.out.take(), self.err.take()
        if out:
            body["out"] = out
        if err:
            body["err"] = err
        return body

    def _call(self, q, node, awaited):
        if self.target is None:
            return self._reply(q, error_reply(q, RuntimeError("the candidate failed to load: %s" % (self.load_error or "?")), Encoder))
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
            return self._proxy_origin(v)

        try:
            result = self._run(lambda: self._await(self.target(*args, **kwargs), awaited))
            failed = None
        except _BaseException as e:
            result, failed = None, e
        enc = Encoder(origin=origin, fallback=self._export)
        body = {}
        try:
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

    def _export(self, v):
        t = _type(v)
        if _getattr(t, "__next__", None) is not None and _getattr(t, "__iter__", None) is not None:
            gid = _len(self.iters) + 1
            self.iters[gid] = v
            return ["g", gid]
        return None

    def _next(self, q, gid, n):
        it = self.iters.get(gid)
        if it is None:
            return error_reply(q, RuntimeError("unknown iterator"), Encoder)
        body = _batch(q, it, n, Encoder(origin=self._proxy_origin, fallback=self._export), self._run)
        if body.get("stop"):
            self.iters.pop(gid, None)
        return self._reply(q, body)

    def next_of(self, hid):
        """The next item of one of the tests' iterators, fetched in batches."""
        buf = self.buffers.get(hid)
        if buf is None:
            buf = self.buffers[hid] = [[], 0, None, 1]  # items, position, what ends them, next batch size
        items, pos, end, n = buf
        if pos < _len(items):
            buf[1] = pos + 1
            return items[pos]
        if end is not None:
            raise end
        self._same_thread()
        reply = self.peer.request({"op": "h", "h": hid, "do": "batch", "v": n}, self.serve)
        dec = Decoder(False, handles=self)
        got = reply.get("items")
        buf[:] = [[dec.dec(x) for x in got] if _type(got) is _list else [], 0, None, min(n * 4, _BATCH)]
        if reply.get("stop"):
            buf[2] = StopIteration()
        elif "exc" in reply:
            buf[2] = self._foreign(dec, reply)
        elif not buf[0]:
            buf[2] = RuntimeError("opencoder: a malformed answer")
        return self.next_of(hid)


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


def _malformed():
    raise CrossingError("a malformed message from the other process")


def _batch(q, it, n, enc, run):
    """Up to n items of an iterator, encoded, and what ended the batch early (exhausted, or an exception)."""
    items = []
    body = {"r": q, "items": items}
    if _type(n) is not _int or not 0 < n <= _BATCH:
        n = 1
    try:
        for _ in range(n):
            item = run(lambda: next(it)) if run is not None else next(it)
            items.append(enc.enc(item))
    except StopIteration:
        body["stop"] = True
    except (CrossingError, RecursionError) as e:
        why = _str(e) if _type(e) is CrossingError else "a value too deeply nested to cross"
        body.update(error_reply(q, RuntimeError("opencoder: an item cannot cross: %s" % why), Encoder))
        body["uncrossable"] = why
        body["items"] = items
    except _BaseException as e:
        body.update(error_reply(q, e, lambda: enc, _format_tb(e) if run is not None else None))
        body["items"] = items
    return body


def _format_tb(e):
    try:
        import traceback
        return "".join(traceback.format_exception(_type(e), e, e.__traceback__, limit=-8))
    except _BaseException:
        return None


def _make_proxy(side, hid):
    """A stand-in for one of the tests' objects: its uses are asked of the test process."""

    def op(do):
        def f(self, *a):
            return side.ask(hid, do, a[0] if a else None)
        return f

    class Handle:
        _oc_proxy_of = hid
        __slots__ = ()

        def __call__(self, *args, **kwargs):
            return side.ask(hid, "call", (args, kwargs))

        def __getattr__(self, name):
            if name.startswith("_") and name not in _DESCRIPTIVE:
                raise AttributeError(name)
            return side.ask(hid, "getattr", name)

        def __eq__(self, other):
            return self is other or side.ask(hid, "eq", other)

        def __ne__(self, other):
            return not self.__eq__(other)

        def __exit__(self, *a):
            return side.ask(hid, "exit", a)

        __iter__ = op("iter")

        def __next__(self):
            return side.next_of(hid)

        __len__ = op("len")
        __bool__ = op("bool")
        __getitem__ = op("getitem")
        __contains__ = op("contains")
        __repr__ = op("repr")
        __str__ = op("str")
        __hash__ = op("hash")
        __enter__ = op("enter")

    return Handle()
