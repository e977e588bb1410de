"""What the supervisor and the test runner share: how a record goes on a pipe, and the limits.

A record is one line, `<hmac-sha256 hex> <json>`, under a per-run key. The JSON encoder handles only
exact builtin types and is made of primitives captured when this module loads: in the runner it
works after the candidate has patched json, str or anything else, and the sender holds its own copy
of everything it calls (this module's names are reachable to an in-process candidate; the sender is not). Only builtin modules are
imported here, so the runner can load this before the workspace is on the path.
"""

import os
import _operator
import _sha256

_type = type
_str = str
_int = int
_float = float
_list = list
_tuple = tuple
_dict = dict
_len = len
_bytes = bytes
_translate = str.translate
_join = str.join
_encode = str.encode
_int_repr = int.__repr__
_float_repr = float.__repr__
_INF = float("inf")
_write = os.write
_sha = _sha256.sha256
_compare = _operator._compare_digest

_ESC = {i: "\\u%04x" % i for i in range(32)}
_ESC[ord('"')] = '\\"'
_ESC[ord("\\")] = "\\\\"
_ESC[0x2028] = "\\u2028"
_ESC[0x2029] = "\\u2029"


def _make_encoder():
    """JSON of None, bools, ints, floats, strings, lists, tuples and dicts with string keys: a closure over
    primitives captured now, so nothing it calls is looked up where the candidate could rebind it."""
    type_, str_, int_, float_, list_, tuple_, dict_ = _type, _str, _int, _float, _list, _tuple, _dict
    translate, join, int_repr, float_repr, inf, esc = _translate, _join, _int_repr, _float_repr, _INF, _ESC
    items = dict.items

    def enc(v):
        if v is None:
            return "null"
        if v is True:
            return "true"
        if v is False:
            return "false"
        t = type_(v)
        if t is str_:
            return '"' + translate(v, esc) + '"'
        if t is int_:
            return int_repr(v)
        if t is float_:
            return float_repr(v) if v == v and v not in (inf, -inf) else "null"
        if t is list_ or t is tuple_:
            return "[" + join(",", [enc(x) for x in v]) + "]"
        if t is dict_:
            return "{" + join(",", ['"' + translate(k, esc) + '":' + enc(x) for k, x in items(v) if type_(k) is str_]) + "}"
        return '"<unencodable>"'

    return enc


encode = _make_encoder()


def _pads(key):
    """HMAC-SHA256's inner and outer key pads (RFC 2104)."""
    block = (key if _len(key) <= 64 else _sha(key).digest()).ljust(64, b"\0")
    return _bytes(b ^ 0x36 for b in block), _bytes(b ^ 0x5C for b in block)


def _mac(inner, outer, payload, sha=_sha):
    return sha(outer + sha(inner + payload).digest()).hexdigest()


def make_sender(fd, key, tag=None):
    """send(record): the record (with `tag` merged in) as one authenticated line on fd. Everything it uses is
    bound here (no class, no global looked up when it runs): in the runner, the candidate can reach and rebind
    this module's names, never the sender's."""
    inner, outer = _pads(key)
    enc, sha, encode_str, write, update = _make_encoder(), _sha, _encode, _write, dict.update
    tag = _dict(tag) if tag else None

    def send(record):
        if tag:
            update(record, tag)
        payload = encode_str(enc(record), "utf-8", "replace")
        mac = sha(outer + sha(inner + payload).digest()).hexdigest()
        data = b"\n" + encode_str(mac, "ascii") + b" " + payload + b"\n"
        try:
            while data:
                n = write(fd, data)
                data = data[n:]
        except OSError:
            pass

    return send


def make_verifier(key):
    """payload_of(line): the line's payload when its MAC checks out under key, else None."""
    inner, outer = _pads(key)

    def payload_of(line):
        if _len(line) < 66 or line[64:65] != b" ":
            return None
        payload = line[65:]
        return payload if _compare(line[:64], _encode(_mac(inner, outer, payload), "ascii")) else None

    return payload_of


_LIMITS = {"cpu": "RLIMIT_CPU", "as": "RLIMIT_AS", "fsize": "RLIMIT_FSIZE", "nproc": "RLIMIT_NPROC", "core": "RLIMIT_CORE"}


def apply_limits(limits, resource):
    """Sets the rlimits the engine asked for (only where prlimit could not, e.g. macOS)."""
    for k, name in _LIMITS.items():
        v = limits.get(k)
        if v is None or not hasattr(resource, name):
            continue
        try:
            resource.setrlimit(getattr(resource, name), (v, v + 1) if k == "cpu" else (v, v))
        except (ValueError, OSError):
            pass


def not_dumpable():
    """prctl(PR_SET_DUMPABLE, 0) through _ctypes alone (the ctypes package costs 3 to 10 ms to import).

    Called by the supervisor before it forks the runner: the flag is inherited across fork, so
    neither process can have its memory or descriptors read through /proc or ptrace by a process
    of the same uid that the candidate starts (those exec, and so become dumpable again themselves).
    Returns whether the call succeeded (False off Linux or where there is no _ctypes)."""
    if not os.uname().sysname == "Linux":
        return False
    try:
        import _ctypes
    except ImportError:
        return False

    class _Int(_ctypes._SimpleCData):
        _type_ = "i"

    class _Fn(_ctypes.CFuncPtr):
        _flags_ = _ctypes.FUNCFLAG_CDECL | _ctypes.FUNCFLAG_USE_ERRNO
        _restype_ = _Int

    class _Libc:
        _handle = _ctypes.dlopen(None)

    prctl = _Fn(("prctl", _Libc))
    return prctl(4, 0, 0, 0, 0) == 0 and prctl(3, 0, 0, 0, 0) == 0  # PR_SET_DUMPABLE 0, then PR_GET_DUMPABLE
