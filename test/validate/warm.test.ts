// Warm validation (main/validate/warm.ts, py/_opencoder_warm.py): runs forked from a warm server must be as isolated
// from each other, from the server and from the machine as cold runs are. Each attack is a hostile candidate whose
// verdict says whether it got through; the runs are made both isolated and in-process (where the candidate shares the
// tests' process, and so the process the server forked).

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createValidator, WARM_LABEL, type Validator } from '../../main/validate/validator.ts';
import type { VerdictIsolation } from '../../main/model/verdict.ts';
import type { WarmServers } from '../../main/validate/warm.ts';
import { processesWith, templateTask } from './helpers.ts';
import { needsStrongSandbox } from '../helpers/system.ts';

const STRONG = await needsStrongSandbox();
const MODES: VerdictIsolation[] = ['isolated', 'in-process'];

let validator: Validator;
const task = templateTask('warm/f');

beforeAll(async () => {
  if (STRONG.skip) return;
  validator = await createValidator({ concurrency: 2, isolation: 'isolated' });
}, 60_000);
afterAll(() => validator?.close());

const run = (code: string, isolation: VerdictIsolation, tag: string) => validator.validate(task, `${code}\n# ${tag}\n`, { isolation });

describe.skipIf(STRONG.skip)(`warm validation: each run as isolated as a cold one${STRONG.note}`, () => {
  it('runs are forked from a warm server, and say so; warm: false starts them cold', async () => {
    const v = await run('def f(x):\n    return x + 1\n', 'isolated', 'label');
    expect(v.status).toBe('passed');
    expect(v.sandbox.label.endsWith(WARM_LABEL)).toBe(true);
    const cold = await createValidator({ warm: false });
    try {
      const c = await cold.validate(task, 'def f(x):\n    return x + 1\n', { isolation: 'isolated' });
      expect(c.status).toBe('passed');
      expect(c.sandbox.label).not.toContain(WARM_LABEL);
    } finally {
      cold.close();
    }
  }, 60_000);

  for (const isolation of MODES) {
    it(`nothing a run leaves reaches the next: files in /ws, /tmp and /dev/shm (${isolation})`, async () => {
      const plant = 'import os\nfor p in ("/tmp/oc-left", "/dev/shm/oc-left", "/ws/oc-left"):\n    open(p, "w").write("1")\n\ndef f(x):\n    return -1\n';
      const look =
        'import os\n\ndef f(x):\n    seen = [p for p in ("/tmp/oc-left", "/dev/shm/oc-left", "/ws/oc-left") if os.path.exists(p)]\n    return x + 1 if not seen else -1\n';
      expect((await run(plant, isolation, 'plant')).status).toBe('failed');
      const after = await run(look, isolation, 'look');
      expect(after.status, after.reason).toBe('passed');
    }, 60_000);

    it(`a process a candidate leaves behind ends with its run (${isolation})`, async () => {
      const marker = `oc-warm-orphan-${isolation}-${process.pid}`;
      const orphan = `import os\nif os.fork() == 0:\n    os.setsid()\n    if os.fork() == 0:\n        os.execv("/bin/sh", ["sh", "-c", "sleep 30; echo ${marker}"])\n    os._exit(0)\n\ndef f(x):\n    return -1\n`;
      const v = await run(orphan, isolation, 'orphan');
      expect(v.status).toBe('failed');
      // The run is over: its PID namespace went with it, and nothing of it is left on the machine.
      expect(processesWith(marker)).toEqual([]);
      const look = `import os\n\ndef f(x):\n    mine = []\n    for p in os.listdir("/proc"):\n        if p.isdigit():\n            try:\n                mine.append(open("/proc/%s/cmdline" % p, "rb").read())\n            except OSError:\n                pass\n    return x + 1 if not any(b"${marker}" in c for c in mine) else -1\n`;
      const after = await run(look, isolation, 'look-orphan');
      expect(after.status, after.reason).toBe('passed');
    }, 60_000);

    it(`a candidate sees only its own run's processes, and cannot make namespaces, mount, or lift its limits (${isolation})`, async () => {
      // Passes only when every attempt fails as it should; a success anywhere returns a wrong value.
      // The attempts run in a process the candidate starts (in-process, the runner refuses ctypes to candidate code).
      const attempts = `import ctypes, os, resource
libc = ctypes.CDLL(None, use_errno=True)
out = {}
out["unshare-user"] = libc.unshare(0x10000000)
out["unshare-mount"] = libc.unshare(0x00020000)
out["unshare-net"] = libc.unshare(0x40000000)
out["mount"] = libc.mount(b"tmpfs", b"/base", b"tmpfs", 0, None)
out["umount-ws"] = libc.umount2(b"/ws", 2)
try:
    open("/proc/sys/user/max_user_namespaces", "w").write("100")
    out["sysctl"] = 0
except OSError:
    out["sysctl"] = -1
try:
    resource.setrlimit(resource.RLIMIT_NPROC, (100000, 100000))
    out["nproc"] = 0
except (ValueError, OSError):
    out["nproc"] = -1
bad = {k: v for k, v in out.items() if v >= 0}
pids = [int(p) for p in os.listdir("/proc") if p.isdigit()]
if max(pids) > 50:
    bad["pids"] = max(pids)
status = open("/proc/self/status").read()
for line in status.splitlines():
    if line.startswith(("CapEff", "CapBnd", "CapPrm")) and line.split()[1].strip("0"):
        bad[line.split(":")[0]] = line.split()[1]
if "NoNewPrivs:\\t1" not in status:
    bad["no_new_privs"] = 0
print("BAD" if bad else "OK", bad)
`;
      const probe = `import subprocess, sys\n\nATTEMPTS = ${JSON.stringify(attempts)}\n\ndef f(x):\n    out = subprocess.run([sys.executable, "-c", ATTEMPTS], capture_output=True, text=True).stdout\n    return x + 1 if out.startswith("OK") else out\n`;
      const v = await run(probe, isolation, 'probe');
      expect(v.status, v.reason).toBe('passed');
    }, 60_000);
  }

  it('a run that fills its process limit leaves a concurrent run on the same server its own', async () => {
    // Two runs at once on one server: the first forks until its limit refuses (its processes then sleep), the second
    // must still start a process of its own. Each run's count is its own user namespace's, not the server's.
    const bomb =
      'import os, sys, time\n\ndef f(x):\n    n = 0\n    try:\n        while n < 500:\n            if os.fork() == 0:\n                time.sleep(4)\n                os._exit(0)\n            n += 1\n    except OSError:\n        pass\n    sys.stderr.write("forked %d\\n" % n)\n    time.sleep(2)\n    return -n\n';
    const spawner = 'import subprocess\n\ndef f(x):\n    return x + 1 if subprocess.run(["/bin/true"]).returncode == 0 else -1\n';
    const filling = validator.validate(task, bomb, { isolation: 'isolated', timeoutMs: 20_000 });
    await new Promise((r) => setTimeout(r, 1000));
    const beside = await validator.validate(task, spawner, { isolation: 'isolated', timeoutMs: 20_000 });
    expect(beside.status, beside.reason).toBe('passed');
    const filled = await filling;
    expect(filled.status).toBe('failed');
    // It hit its own limit (64 processes per run) well before its 500 forks.
    const forked = Number(/forked (\d+)/.exec(filled.stderr ?? '')?.[1] ?? NaN);
    expect(forked).toBeGreaterThan(20);
    expect(forked).toBeLessThan(64);
  }, 60_000);

  it('a server that dies mid-run gives an error naming it, and the next run starts a new one', async () => {
    const v = await createValidator({ concurrency: 1 });
    try {
      const slow = 'import time\n\ndef f(x):\n    time.sleep(30)\n    return x + 1\n';
      const pending = v.validate(task, slow, { isolation: 'isolated', timeoutMs: 20_000 });
      await new Promise((r) => setTimeout(r, 1500));
      const servers = (v as unknown as { warm: WarmServers }).warm.serverPids();
      expect(servers.length).toBe(1);
      process.kill(-servers[0]!, 'SIGKILL');
      const broken = await pending;
      expect(broken.status).toBe('error');
      expect(JSON.stringify(broken.sandbox.events)).toContain('warm validation server');
      const next = await v.validate(task, 'def f(x):\n    return x + 1\n', { isolation: 'isolated' });
      expect(next.status, next.reason).toBe('passed');
      expect(next.sandbox.label.endsWith(WARM_LABEL)).toBe(true);
    } finally {
      v.close();
    }
  }, 60_000);
});
