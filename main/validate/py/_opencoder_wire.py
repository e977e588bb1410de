"""What the supervisor and the test runner share: how a record goes on a pipe, and the limits.

A record is one line, `<hmac-sha256 hex> <json>`, under a per-run key. The JSON encoder handles only
exact builtin types and is made of primitives captured when this module loads: in the runner it
works after the candidate has patched json, str or anything else. Only builtin modules are
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


def encode(v):
    """JSON of None, bools, ints, floats, strings, lists, tuples and dicts with string keys."""
    if v is None:
        return "null"
    if v is True:
        return "true"
    if v is False:
        return "false"
    t = _type(v)
    if t is _str:
        return '"' + _translate(v, _ESC) + '"'
    if t is _int:
        return _int_repr(v)
    if t is _float:
        return _float_repr(v) if v == v and v not in (_INF, -_INF) else "null"
    if t is _list or t is _tuple:
        return "[" + _join(",", [encode(x) for x in v]) + "]"
    if t is _dict:
        return "{" + _join(",", ['"' + _translate(k, _ESC) + '":' + encode(x) for k, x in v.items() if _type(k) is _str]) + "}"
    return '"<unencodable>"'


class _Pads:
    """HMAC-SHA256's inner and outer key pads (RFC 2104), from the key once."""

    def __init__(self, key):
        block = (key if _len(key) <= 64 else _sha(key).digest()).ljust(64, b"\0")
        self.inner = _bytes(b ^ 0x36 for b in block)
        self.outer = _bytes(b ^ 0x5C for b in block)

    def mac(self, payload):
        return _sha(self.outer + _sha(self.inner + payload).digest()).hexdigest()


def make_sender(fd, key, tag=None):
    """send(record): the record (with `tag` merged in) as one authenticated line on fd."""
    pads = _Pads(key)

    def send(record):
        if tag:
            record.update(tag)
        payload = _encode(encode(record), "utf-8", "replace")
        data = b"\n" + _encode(pads.mac(payload), "ascii") + b" " + payload + b"\n"
        try:
            while data:
                n = _write(fd, data)
                data = data[n:]
        except OSError:
            pass

    return send


def make_verifier(key):
    """payload_of(line): the line's payload when its MAC checks out under key, else None."""
    pads = _Pads(key)

    def payload_of(line):
        if _len(line) < 66 or line[64:65] != b" ":
            return None
        payload = line[65:]
        return payload if _compare(line[:64], _encode(pads.mac(payload), "ascii")) else None

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
