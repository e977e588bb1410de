"""The warm validation server: one per task and sandbox, forking one fresh, isolated child per run.

It runs inside a strong sandbox as today's runs do (bubblewrap: its own user, PID, network, IPC and
UTS namespaces, a read-only root, no capabilities), but without bubblewrap's ban on further user
namespaces, so that each child can make namespaces of its own. It never runs candidate code and
never holds a run's input:

- the *test zygote* (this process, P) has loaded the harness, the static checker, the test runner
  and the standard-library modules the task imports, and forks each run's test side;
- the *candidate zygote* (C) was forked from P before anything of the tests' side was loaded, and
  has loaded the candidate side's harness and the same standard-library modules; it forks each
  isolated run's candidate side;
- the *feeder* (F), forked first, receives every run's input (the config with the per-run key,
  the candidate's code) on fd 3 and writes it into that run's stdin pipes. So no zygote ever holds
  a run's key or a candidate's code, and no child inherits one in its memory.

Each child (a "relay", in P's PID namespace) sets its own limits, unshares user, mount, PID, IPC,
UTS and network namespaces and forks the new PID namespace's init. The init mounts a fresh /proc
and fresh size-limited tmpfs /ws, /tmp and /dev/shm (nothing of an earlier run's files), covers the
paths its side may not read (the tests, for a candidate), forbids further user namespaces, drops
every capability, sets no_new_privs, and forks the run's first process: the supervisor
(_opencoder_harness) or the candidate process (_opencoder_serve), which then go on exactly as in a
cold run. The init reaps and, when that process ends, exits with its status; the kernel then kills
whatever else of the namespace is left. P ends a run by SIGTERM to its relay, which kills the init.

An isolated run's two sides share their temporary folders, as the target would in-process: before it
starts the run, P forks a *holder* that makes a user and a mount namespace of the run's own and mounts
fresh size-limited tmpfs /tmp and /dev/shm there; P keeps the two namespaces by descriptor and the
holder exits. Both relays enter them (their uid, the server's, owns them) before they make their own
namespaces, which are then copies of the holder's: the same two tmpfs in both sides, nothing else of
either side's (each still mounts its own /ws, and the candidate's covers). The run's namespaces hold
the last references: when its processes are gone, so are the two tmpfs.

Protocol. Engine -> P (fd 0): frames `>I` length + JSON: first the init document, then `run` and
`kill` requests. Engine -> F (fd 3): frames `>IIB` length, run id, side (0 tests, 1 candidate) +
the bytes for that side's stdin. P -> engine (fd 1): frames `>IIB` length, run id, stream + bytes;
stream 0 is a JSON event (run id 0: the server's own), 1-3 the tests' stdout, stderr and report
channel, 4-5 the candidate's stdout and stderr.
"""

import os
import sys

_M0 = set(sys.modules)

import json  # noqa: E402
import resource  # noqa: E402
import select  # noqa: E402
import signal  # noqa: E402
import socket  # noqa: E402
import struct  # noqa: E402
import time  # noqa: E402
import ctypes  # noqa: E402
import fcntl  # noqa: E402

# What the server itself needed: taken out of sys.modules again (its objects stay referenced here), so
# a run's sys.modules holds what a cold run's would plus the warm-up's modules, not this machinery.
_MACHINERY = set(sys.modules) - _M0

_LEN = struct.Struct(">I")
_HDR = struct.Struct(">IIB")

CLONE_NEWNS = 0x00020000
CLONE_NEWUTS = 0x04000000
CLONE_NEWIPC = 0x08000000
CLONE_NEWUSER = 0x10000000
CLONE_NEWPID = 0x20000000
CLONE_NEWNET = 0x40000000
MS_RDONLY = 1
MS_NOSUID = 2
MS_NODEV = 4
MS_NOEXEC = 8
MS_REMOUNT = 32
MS_BIND = 4096
MS_REC = 0x4000
MS_PRIVATE = 1 << 18
PR_SET_PDEATHSIG = 1
PR_CAPBSET_DROP = 24
PR_SET_NO_NEW_PRIVS = 38
PR_CAP_AMBIENT = 47
PR_CAP_AMBIENT_CLEAR_ALL = 4

_libc = ctypes.CDLL(None, use_errno=True)
_libc.mount.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_ulong, ctypes.c_char_p]
_libc.prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong]
_libc.setns.argtypes = [ctypes.c_int, ctypes.c_int]

# Where a relay finds the shared area's namespaces (its user and mount namespace), when its run has one.
_NS_USER_FD = 10
_NS_MNT_FD = 11


class _CapHeader(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class _CapData(ctypes.Structure):
    _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32), ("inheritable", ctypes.c_uint32)]


def _check(rc, what):
    if rc != 0:
        e = ctypes.get_errno()
        raise OSError(e, "%s: %s" % (what, os.strerror(e)))


def _mount(src, target, fstype, flags, data=None):
    enc = lambda s: s.encode() if s is not None else None  # noqa: E731
    _check(_libc.mount(enc(src), enc(target), enc(fstype), flags, enc(data)), "mount %s" % target)


def _write(path, text):
    fd = os.open(path, os.O_WRONLY)
    try:
        os.write(fd, text.encode())
    finally:
        os.close(fd)


def _drop_capabilities():
    try:
        last = int(open("/proc/sys/kernel/cap_last_cap").read())
    except (OSError, ValueError):
        last = 63
    for cap in range(last + 1):
        _check(_libc.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0), "dropping capability %d from the bounding set" % cap)
    _libc.prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)
    header = _CapHeader(0x20080522, 0)  # _LINUX_CAPABILITY_VERSION_3
    data = (_CapData * 2)()
    _check(_libc.capset(ctypes.byref(header), data), "capset")
    _check(_libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "no_new_privs")


def _send_all(fd, data):
    view = memoryview(data)
    while view:
        try:
            n = os.write(fd, view)
        except InterruptedError:
            continue
        view = view[n:]


def _read_exact(fd, n):
    out = b""
    while len(out) < n:
        b = os.read(fd, n - len(out))
        if not b:
            return None
        out += b
    return out


def _place_fds(fds):
    """fds: {target fd: current fd}. Puts each at its target, closes every other descriptor."""
    top = max(list(fds) + [2]) + 1
    # Above every target first, so that no dup2 below clobbers a source.
    moved = {t: fcntl.fcntl(f, fcntl.F_DUPFD_CLOEXEC, top) for t, f in fds.items()}
    for t, f in moved.items():
        os.dup2(f, t, inheritable=True)
    os.closerange(top, 1 << 16)
    for t in range(3, top):
        if t not in fds:
            try:
                os.close(t)
            except OSError:
                pass


def _status_code(status):
    if os.WIFSIGNALED(status):
        return 128 + os.WTERMSIG(status)
    return os.WEXITSTATUS(status) if os.WIFEXITED(status) else 70


def _spawn(fds, side, init, here):
    """Forks a run's relay with `fds` as its descriptors 0..4; returns its pid (in this namespace)."""
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM, signal.SIGCHLD})
    pid = os.fork()
    if pid:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM, signal.SIGCHLD})
        return pid
    code = 71
    try:
        _place_fds(fds)
        code = _relay(side, init, here)
    except BaseException as e:
        _complain("the warm server could not start a run: %s" % e)
    os._exit(code)


def _complain(text):
    try:
        os.write(2, ("opencoder warm server: %s\n" % text).encode("utf-8", "replace"))
    except OSError:
        pass


def _relay(side, init, here):
    signal.set_wakeup_fd(-1)
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    if init.get("shared"):
        # The run's shared area: the namespaces below are made inside the holder's, and so copy its two tmpfs.
        _check(_libc.setns(_NS_USER_FD, CLONE_NEWUSER), "entering the shared area's user namespace")
        _check(_libc.setns(_NS_MNT_FD, CLONE_NEWNS), "entering the shared area's mount namespace")
        os.close(_NS_USER_FD)
        os.close(_NS_MNT_FD)
    uid, gid = os.getuid(), os.getgid()  # in the holder's namespace, 0: still the server's uid outside
    lim = init["limits"]
    _check(_libc.unshare(CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWIPC | CLONE_NEWUTS | CLONE_NEWNET), "unshare")
    # After the user namespace is made, not before: the kernel bounds every run's processes together, in the server's
    # namespace, by the limit its creator had then (the server's), and this run's alone by this one. Set before, a run
    # that filled its 64 left no process to the runs beside it.
    resource.setrlimit(resource.RLIMIT_NPROC, (lim["nproc"], lim["nproc"]))
    _write("/proc/self/setgroups", "deny")
    _write("/proc/self/uid_map", "0 %d 1" % uid)
    _write("/proc/self/gid_map", "0 %d 1" % gid)
    child = [0]

    def on_term(signum, frame):
        if child[0]:
            os.kill(child[0], signal.SIGKILL)

    signal.signal(signal.SIGTERM, on_term)
    pid = os.fork()  # SIGTERM still blocked: no kill is lost between the fork and knowing the pid
    if pid == 0:
        code = 72
        try:
            code = _init(side, init, here)
        except BaseException as e:
            _complain("a run's namespace could not be set up: %s" % e)
        os._exit(code)
    child[0] = pid
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM})
    while True:
        try:
            _, status = os.waitpid(pid, 0)
            return _status_code(status)
        except ChildProcessError:
            return 70
        except InterruptedError:
            continue


def _loopback_up():
    """The run's own network namespace starts with its loopback down; bwrap (a cold run) brings it up, and so does
    this, so that a test serving on 127.0.0.1 behaves the same warm and cold. Nothing of the machine's network is in it."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        ifr = ctypes.create_string_buffer(40)  # struct ifreq: the name, then the flags (a short) at 16
        ifr[0:2] = b"lo"
        struct.pack_into("H", ifr, 16, 0x1 | 0x8 | 0x40)  # IFF_UP | IFF_LOOPBACK | IFF_RUNNING
        if _libc.ioctl(s.fileno(), 0x8914, ifr) != 0:  # SIOCSIFFLAGS
            _complain("a run's loopback could not be brought up (errno %d)" % ctypes.get_errno())


_FRESH = ("/ws", "/tmp", "/dev/shm")


def _fresh_mounts(init, where):
    """Fresh size-limited tmpfs at `where` (some of /ws, /tmp, /dev/shm); folders of the task's interpreter that one
    covers are bound again where they were, read-only."""
    under = lambda d: any(d.startswith(p + "/") for p in where)  # noqa: E731
    # The task's interpreter (a virtualenv under /tmp, say) was bound below a folder the fresh tmpfs covers: held
    # open across the mount, and bound again where it was, read-only.
    held = [(d, os.open(d, os.O_PATH | os.O_DIRECTORY)) for d in init.get("rebind") or () if under(d)]
    for p in where:
        size, mode = (init["wsBytes"], "0755") if p == "/ws" else (init["tmpBytes"], "1777")
        _mount("tmpfs", p, "tmpfs", MS_NOSUID | MS_NODEV, "size=%d,mode=%s" % (size, mode))
    for d, fd in held:
        os.makedirs(d, exist_ok=True)
        _mount("/proc/self/fd/%d" % fd, d, None, MS_BIND | MS_REC)
        _mount(None, d, None, MS_BIND | MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV)
        os.close(fd)


SHARED_CWD = "/tmp/.opencoder-cwd"  # bwrap.ts's SHARED_CWD, below the shared /tmp


def _holder(init):
    """An isolated run's shared area (in a child of the test zygote, which holds nothing of any run): a user and a
    mount namespace of the run's own, with fresh size-limited tmpfs /tmp and /dev/shm. Both sides' relays make their
    namespaces inside these, so both see the same two tmpfs, and nothing an earlier run left."""
    uid, gid = os.getuid(), os.getgid()
    _check(_libc.unshare(CLONE_NEWUSER | CLONE_NEWNS), "unshare")
    _write("/proc/self/setgroups", "deny")
    _write("/proc/self/uid_map", "0 %d 1" % uid)
    _write("/proc/self/gid_map", "0 %d 1" % gid)
    _mount(None, "/", None, MS_REC | MS_PRIVATE)
    _fresh_mounts(init, ("/tmp", "/dev/shm"))
    os.mkdir(SHARED_CWD, 0o755)  # the tests' working folder while their tests run; the candidate's view is read-only


def _shared_area(init):
    """Makes a run's shared area; returns descriptors of its user and mount namespaces, or None where it could not
    be made (the run then goes on with private temporary folders on each side, as before)."""
    ready_r, ready_w = os.pipe()
    done_r, done_w = os.pipe()
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM, signal.SIGCHLD})
    pid = os.fork()
    if pid == 0:
        code = 73
        try:
            os.close(ready_r)
            os.close(done_w)
            _holder(init)
            os.write(ready_w, b"1")
            os.read(done_r, 1)  # until the test zygote has the namespaces (or is gone)
            code = 0
        except BaseException as e:
            _complain("a run's shared temporary folders could not be made: %s" % e)
        os._exit(code)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM, signal.SIGCHLD})
    os.close(ready_w)
    os.close(done_r)
    fds = []
    try:
        if _read_exact(ready_r, 1) == b"1":
            for ns in ("user", "mnt"):
                fds.append(os.open("/proc/%d/ns/%s" % (pid, ns), os.O_RDONLY | os.O_CLOEXEC))
    except OSError as e:
        _complain("a run's shared temporary folders could not be kept: %s" % e)
        for f in fds:
            os.close(f)
        fds = []
    finally:
        os.close(ready_r)
        os.close(done_w)
        while True:
            try:
                os.waitpid(pid, 0)
                break
            except InterruptedError:
                continue
            except ChildProcessError:
                break
    return tuple(fds) if len(fds) == 2 else None


def _init(side, init, here):
    """PID 1 of the run's namespaces: its file system, its limits, no capabilities; then the run."""
    # Belt and braces: the relay kills this process when told to; should the relay die first, so does this.
    _libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    _mount(None, "/", None, MS_REC | MS_PRIVATE)
    _mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)
    # The task's interpreter (a virtualenv under /tmp, say) was bound below a folder the fresh tmpfs covers: held
    # open across the mount, and bound again where it was, read-only.
    # An isolated run's /tmp and /dev/shm are the shared area's, already here (the holder rebound what they cover).
    shared = bool(init.get("shared"))
    fresh = ("/ws",) if shared else _FRESH
    _fresh_mounts(init, fresh)
    if side == "c" and shared and os.path.isdir(SHARED_CWD):
        _mount(SHARED_CWD, SHARED_CWD, None, MS_BIND)
        _mount(None, SHARED_CWD, None, MS_BIND | MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV)
    if side == "c":
        # What the candidate may not read: folders become empty, files empty files (as bwrap's covers do).
        for h in init.get("covers") or []:
            target = "/base/" + h["rel"]
            if h["dir"]:
                _mount("tmpfs", target, "tmpfs", MS_NOSUID | MS_NODEV | MS_RDONLY, "size=4096,mode=0755")
            else:
                _mount("/dev/null", target, None, MS_BIND)
                _mount(None, target, None, MS_BIND | MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV)
    _write("/proc/sys/user/max_user_namespaces", "0")
    _loopback_up()
    lim = init["limits"]
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    resource.setrlimit(resource.RLIMIT_FSIZE, (lim["fsize"], lim["fsize"]))
    resource.setrlimit(resource.RLIMIT_AS, (lim["as"], lim["as"]))
    resource.setrlimit(resource.RLIMIT_CPU, (lim["cpu"], lim["cpu"] + 1))
    _drop_capabilities()
    # The run starts with a fresh interpreter's signal dispositions.
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGPIPE, signal.SIG_IGN)
    if hasattr(signal, "SIGXFSZ"):
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    signal.pthread_sigmask(signal.SIG_SETMASK, set())
    pid = os.fork()
    if pid == 0:
        code = 70
        try:
            os.setsid()
            os.chdir("/ws")
            _run(side, here, init["keep"])
            code = 0
        except SystemExit as e:
            code = e.code if isinstance(e.code, int) else 1
        except BaseException as e:
            _complain("a run could not start: %s" % e)
        os._exit(code)
    while True:
        try:
            got, status = os.waitpid(-1, 0)
        except ChildProcessError:
            return 70
        except InterruptedError:
            continue
        if got == pid:
            return _status_code(status)


def _run(side, here, keep):
    sys.modules.pop(__name__, None)
    if side == "t":
        import _opencoder_harness as harness
        harness.main(here, keep=keep)
    else:
        import _opencoder_serve as serve
        serve.main(here, startup=keep)


def _warm_up(side, init, here):
    """Loads what a run of this side loads anyway. Returns the modules a cold run's process has once it
    has started (the test runner; the candidate process) plus the standard-library modules the task's
    own code imports first thing (`preload`: a check program's imports, which both sides run before
    anything else); a run takes every other module out of sys.modules before it loads any of the task's
    code, so the tests and the candidate import what they would import cold. A module the workspace
    provides (`shadows`) is never preloaded: the run imports the workspace's copy, as it would cold."""
    for name in _MACHINERY:
        sys.modules.pop(name, None)
    stdlib = getattr(sys, "stdlib_module_names", ())
    shadows = set(init.get("shadows") or ())
    for name in init.get("preload") or ():
        top = name.partition(".")[0]
        if top in stdlib and top not in shadows:
            try:
                __import__(name)
            except BaseException:
                pass  # the run meets the same error where the task's code imports it
    sys.path.insert(0, here)
    try:
        __import__("_opencoder_runner" if side == "t" else "_opencoder_serve")
        keep = set(sys.modules) - {__name__}
        # The rest of the harness, warm (the supervisor, its static checks, the splicer), and the test framework.
        if side == "t":
            rest = ("_opencoder_harness", "_opencoder_check", "unittest")
        else:
            rest = ("_opencoder_codec", "_opencoder_decode", "_opencoder_proxy", "_opencoder_bridge", "_opencoder_harness", "_opencoder_check")
        for name in rest:
            __import__(name)
    finally:
        sys.path.remove(here)
    return frozenset(keep)


def _reap():
    """(pid, status code) of every ended child."""
    out = []
    while True:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return out
        if pid == 0:
            return out
        out.append((pid, _status_code(status)))


def _wakeup_pipe():
    r, w = os.pipe()
    os.set_blocking(r, False)
    os.set_blocking(w, False)
    signal.signal(signal.SIGCHLD, lambda *a: None)
    signal.set_wakeup_fd(w)
    return r


def _drain(fd):
    try:
        while os.read(fd, 4096):
            pass
    except OSError:
        pass


def _receive(sock, maxfds):
    """One message from the test zygote and the descriptors that came with it; its end is this process's."""
    try:
        msg, fds, _, _ = socket.recv_fds(sock, 4096, maxfds)
    except OSError:
        os._exit(0)
    if not msg:
        os._exit(0)
    return json.loads(msg), fds


# ---------------------------------------------------------------------------------------------
# The feeder: every run's input, written into that run's stdin pipes.

def _feeder(sock, data_fd):
    pending = {}  # (id, side) -> bytes
    fds = {}  # (id, side) -> fd
    writing = {}  # fd -> [memoryview, key]
    ended = set()
    buf = b""
    poll = select.poll()
    poll.register(sock.fileno(), select.POLLIN)
    poll.register(data_fd, select.POLLIN)

    def match(key):
        if key in pending and key in fds:
            fd = fds.pop(key)
            os.set_blocking(fd, False)
            writing[fd] = [memoryview(pending.pop(key)), key]
            poll.register(fd, select.POLLOUT)

    while True:
        for fd, ev in poll.poll():
            if fd == data_fd:
                b = os.read(data_fd, 1 << 20)
                if not b:
                    os._exit(0)
                buf += b
                while len(buf) >= _HDR.size:
                    n, rid, side = _HDR.unpack_from(buf)
                    if len(buf) < _HDR.size + n:
                        break
                    if rid not in ended:
                        pending[(rid, side)] = buf[_HDR.size:_HDR.size + n]
                        match((rid, side))
                    buf = buf[_HDR.size + n:]
            elif fd == sock.fileno():
                doc, got = _receive(sock, 2)
                rid = doc["id"]
                if doc.get("end"):
                    ended.add(rid)
                    for key in [k for k in pending if k[0] == rid]:
                        del pending[key]
                    for key in [k for k in fds if k[0] == rid]:
                        os.close(fds.pop(key))
                    continue
                for side, f in zip(doc["sides"], got):
                    fds[(rid, side)] = f
                    match((rid, side))
            else:
                w = writing.get(fd)
                if w is None:
                    continue
                try:
                    n = os.write(fd, w[0]) if not ev & (select.POLLERR | select.POLLHUP) else -1
                except (BlockingIOError, InterruptedError):
                    continue
                except OSError:
                    n = -1
                if n >= 0:
                    w[0] = w[0][n:]
                if n < 0 or not w[0]:
                    poll.unregister(fd)
                    del writing[fd]
                    os.close(fd)


# ---------------------------------------------------------------------------------------------
# The candidate zygote

def _candidate_zygote(sock, init, here):
    init = dict(init, keep=_warm_up("c", init, here))
    wake = _wakeup_pipe()
    runs = {}  # relay pid -> run id
    poll = select.poll()
    poll.register(sock.fileno(), select.POLLIN)
    poll.register(wake, select.POLLIN)
    while True:
        try:
            events = poll.poll()
        except InterruptedError:
            continue
        for fd, _ in events:
            if fd == wake:
                _drain(wake)
                for pid, code in _reap():
                    rid = runs.pop(pid, None)
                    if rid is not None:
                        socket.send_fds(sock, [json.dumps({"id": rid, "exit": code}).encode()], [])
                continue
            doc, got = _receive(sock, 6)
            shared = bool(doc.get("shared")) and len(got) == 6
            run_init = dict(init, limits=doc["limits"], shared=shared)
            fds = {0: got[0], 1: got[1], 2: got[2], 3: got[3]}
            if shared:
                fds.update({_NS_USER_FD: got[4], _NS_MNT_FD: got[5]})
            pid = _spawn(fds, "c", run_init, here)
            for f in got:
                os.close(f)
            runs[pid] = doc["id"]
            socket.send_fds(sock, [json.dumps({"id": doc["id"], "pid": pid}).encode()], [])


# ---------------------------------------------------------------------------------------------
# The test zygote and the server's loop

class _Side:
    def __init__(self, streams):
        self.pid = None
        self.code = None
        self.killed = None
        self.open = dict(streams)  # fd -> stream number
        self.ended = False  # killed because the tests were done

    def done(self):
        return self.code is not None and not self.open


class _Run:
    def __init__(self, rid, deadline):
        self.id = rid
        self.deadline = deadline
        self.t = None
        self.c = None


class _Server:
    def __init__(self, init, here, feeder, czyg):
        self.init = init
        self.here = here
        self.feeder = feeder
        self.czyg = czyg
        self.runs = {}
        self.by_fd = {}  # output fd -> (run, side)
        self.by_pid = {}  # test relay pid -> run
        self.poll = select.poll()
        self.buf = b""

    def out(self, rid, stream, data):
        _send_all(1, _HDR.pack(len(data), rid, stream) + data)

    def event(self, rid, doc):
        self.out(rid, 0, json.dumps(doc).encode())

    def start(self, doc):
        rid = doc["id"]
        now = time.monotonic()
        run = _Run(rid, now + doc["t"]["ms"] / 1000.0)
        pipes = [os.pipe() for _ in range(4)]
        (t_in_r, t_in_w), (t_out_r, t_out_w), (t_err_r, t_err_w), (t_ch_r, t_ch_w) = pipes
        fds = {0: t_in_r, 1: t_out_w, 2: t_err_w, 3: t_ch_w}
        feed = [t_in_w]
        sides = [0]
        c_fds = None
        # An isolated run's two sides share /tmp and /dev/shm (the holder's namespaces, entered by both relays).
        # Not where the task's interpreter lives below /tmp or /dev/shm: the candidate could move the folder above it
        # and put modules of its own where the tests import the interpreter's from.
        in_temp = any(d.startswith(("/tmp/", "/dev/shm/")) for d in self.init.get("rebind") or ())
        shared = _shared_area(self.init) if doc.get("c") and not in_temp else None
        if shared:
            fds.update({_NS_USER_FD: shared[0], _NS_MNT_FD: shared[1]})
        if doc.get("c"):
            st, sc = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
            fds[4] = st.fileno()
            (c_in_r, c_in_w), (c_out_r, c_out_w), (c_err_r, c_err_w) = os.pipe(), os.pipe(), os.pipe()
            c_fds = [c_in_r, c_out_w, c_err_w, sc.fileno()]
            feed.append(c_in_w)
            sides.append(1)
        run.t = _Side({t_out_r: 1, t_err_r: 2, t_ch_r: 3})
        run.t.pid = _spawn(fds, "t", dict(self.init, limits=doc["t"]["limits"], shared=bool(shared)), self.here)
        self.by_pid[run.t.pid] = run
        for f in (t_in_r, t_out_w, t_err_w, t_ch_w):
            os.close(f)
        if c_fds is not None:
            run.c = _Side({c_out_r: 4, c_err_r: 5})
            msg = {"id": rid, "limits": doc["c"]["limits"], "shared": bool(shared)}
            socket.send_fds(self.czyg, [json.dumps(msg).encode()], c_fds + list(shared or ()))
            for f in shared or ():
                os.close(f)
            st.close()
            sc.close()
            for f in (c_in_r, c_out_w, c_err_w):
                os.close(f)
        socket.send_fds(self.feeder, [json.dumps({"id": rid, "sides": sides}).encode()], feed)
        for f in feed:
            os.close(f)
        self.runs[rid] = run
        for side in (run.t, run.c):
            if side is None:
                continue
            for fd in side.open:
                self.by_fd[fd] = (run, side)
                self.poll.register(fd, select.POLLIN)

    def kill(self, run, side, why):
        if side is None or side.code is not None:
            return
        if side.killed is None:
            side.killed = why
        if side.pid is not None:
            try:
                os.kill(side.pid, signal.SIGTERM)
            except OSError:
                pass

    def control(self):
        b = os.read(0, 1 << 20)
        if not b:
            self.shutdown()
        self.buf += b
        while len(self.buf) >= 4:
            (n,) = _LEN.unpack_from(self.buf)
            if len(self.buf) < 4 + n:
                break
            doc = json.loads(self.buf[4:4 + n])
            self.buf = self.buf[4 + n:]
            if doc["op"] == "run":
                self.start(doc)
            elif doc["op"] == "kill":
                run = self.runs.get(doc["id"])
                if run is not None:
                    self.kill(run, run.t, doc.get("why") or "aborted")
                    self.kill(run, run.c, doc.get("why") or "aborted")

    def output(self, fd):
        run, side = self.by_fd[fd]
        try:
            b = os.read(fd, 1 << 16)
        except OSError:
            b = b""
        if b:
            self.out(run.id, side.open[fd], b)
            return
        self.poll.unregister(fd)
        del self.by_fd[fd]
        del side.open[fd]
        os.close(fd)
        self.settle(run)

    def czygote(self):
        msg, _, _, _ = socket.recv_fds(self.czyg, 4096, 0)
        if not msg:
            _complain("the candidate zygote ended")
            self.shutdown(3)
        doc = json.loads(msg)
        run = self.runs.get(doc["id"])
        if run is None or run.c is None:
            return
        if "pid" in doc:
            run.c.pid = doc["pid"]
            if run.c.killed is not None or run.t.code is not None:
                self.kill(run, run.c, run.c.killed or "ended")
        else:
            run.c.code = doc["exit"]
            self.settle(run)

    def reaped(self):
        for pid, code in _reap():
            run = self.by_pid.pop(pid, None)
            if run is not None:
                run.t.code = code
                self.settle(run)

    def settle(self, run):
        if run.t.done() and run.c is not None and run.c.code is None and not run.c.ended:
            run.c.ended = True  # the tests are done: the candidate side ends with them
            if run.c.pid is not None:
                self.kill(run, run.c, None)
        if not run.t.done() or (run.c is not None and not run.c.done()):
            return
        del self.runs[run.id]
        doc = {"end": True, "t": {"code": run.t.code, "killed": run.t.killed}}
        if run.c is not None:
            doc["c"] = {"code": run.c.code, "killed": run.c.killed, "ended": run.c.ended}
        self.event(run.id, doc)
        socket.send_fds(self.feeder, [json.dumps({"id": run.id, "end": True}).encode()], [])

    def deadlines(self):
        now = time.monotonic()
        nearest = None
        for run in list(self.runs.values()):
            if run.t.code is None and now >= run.deadline:
                self.kill(run, run.t, "wall-timeout")
            elif run.t.code is None:
                nearest = run.deadline if nearest is None else min(nearest, run.deadline)
        return None if nearest is None else max(0, int((nearest - now) * 1000) + 1)

    def shutdown(self, code=0):
        for run in list(self.runs.values()):
            for side in (run.t, run.c):
                if side is not None and side.pid is not None and side.code is None:
                    try:
                        os.kill(side.pid, signal.SIGTERM)
                    except OSError:
                        pass
        os._exit(code)

    def serve(self, wake):
        self.poll.register(0, select.POLLIN)
        self.poll.register(self.czyg.fileno(), select.POLLIN)
        self.poll.register(wake, select.POLLIN)
        self.event(0, {"ready": True, "pid": os.getpid()})
        while True:
            timeout = self.deadlines()
            try:
                events = self.poll.poll(timeout)
            except InterruptedError:
                continue
            for fd, _ in events:
                if fd == 0:
                    self.control()
                elif fd == wake:
                    _drain(wake)
                    self.reaped()
                elif fd == self.czyg.fileno():
                    self.czygote()
                elif fd in self.by_fd:
                    self.output(fd)


def _read_init():
    head = _read_exact(0, 4)
    if head is None:
        os._exit(0)
    (n,) = _LEN.unpack(head)
    return json.loads(_read_exact(0, n))


def main(here):
    init = _read_init()
    # The feeder and the candidate zygote first, while this process holds nothing of the tests'.
    f_ours, f_theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    if os.fork() == 0:
        f_ours.close()
        os.close(0)
        _feeder(f_theirs, 3)
    f_theirs.close()
    os.close(3)
    c_ours, c_theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    if os.fork() == 0:
        c_ours.close()
        f_ours.close()
        os.close(0)
        os.dup2(os.open(os.devnull, os.O_RDONLY), 0)
        _candidate_zygote(c_theirs, init, here)
    c_theirs.close()
    init = dict(init, keep=_warm_up("t", init, here))
    wake = _wakeup_pipe()
    _Server(init, here, f_ours, c_ours).serve(wake)
