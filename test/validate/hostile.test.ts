// Hostile candidates: each one must end with a verdict that is not a pass, leave nothing behind
// outside its workspace, and leave the engine (this test process) running.

import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createValidator, type Validator } from '../../main/validate/validator.ts';
import type { Verdict } from '../../main/model/verdict.ts';
import { needs, needsStrongSandbox, unless } from '../helpers/system.ts';
import { GOOD, processesWith, SAMPLE_REPO, templateTask } from './helpers.ts';
import { readManifest } from '../../main/benchmarks/manifest-file.ts';

// Every promise both modes make is tested in both: strong (bubblewrap) and weak (without it, forced here even where
// bubblewrap exists). What only the strong mode promises (file system, network, the workspace quota) is tested there.
const strongNeed = await needsStrongSandbox();
const isRoot = process.getuid?.() === 0;
// Weak mode drops privileges only when running as root; as another user its candidate is that user.
const weakDropped = unless(isRoot, 'weak mode as a user other than root runs the candidate as that user (no uid drop)');
const MODES = [
  { mode: 'strong' as const, need: strongNeed, dropped: unless(true, '') },
  { mode: 'weak' as const, need: needs('util-linux'), dropped: weakDropped },
];

const mark = randomBytes(4).toString('hex');
const SECRET_ENV = `sk-FAKE-${mark}-SECRET`;
const SECRET_KEY = `PRIVATE-KEY-MARKER-${mark}`;
const task = templateTask(`hostile/${mark}`);
let validator: Validator;
let home: string;
let scratch: string;
let server: net.Server;
let port = 0;
let connections = 0;
const savedEnv = { HOME: process.env.HOME, OPENAI_API_KEY: process.env.OPENAI_API_KEY };

beforeAll(async () => {
  home = fs.mkdtempSync(path.join(os.tmpdir(), 'oc-home-'));
  fs.mkdirSync(path.join(home, '.ssh'), { mode: 0o700 });
  fs.writeFileSync(path.join(home, '.ssh', 'id_rsa'), `${SECRET_KEY}\n`, { mode: 0o600 });
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'oc-scratch-'));
  process.env.HOME = home;
  process.env.OPENAI_API_KEY = SECRET_ENV;
  server = net.createServer((s) => {
    connections++;
    s.destroy();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as net.AddressInfo).port;
});

afterAll(async () => {
  process.env.HOME = savedEnv.HOME;
  if (savedEnv.OPENAI_API_KEY === undefined) delete process.env.OPENAI_API_KEY;
  else process.env.OPENAI_API_KEY = savedEnv.OPENAI_API_KEY;
  await new Promise<void>((r) => server.close(() => r()));
  fs.rmSync(home, { recursive: true, force: true });
  fs.rmSync(scratch, { recursive: true, force: true });
});

function isDanglingOrLink(p: string): boolean {
  try {
    return fs.lstatSync(p).isSymbolicLink();
  } catch {
    return false;
  }
}

async function noneLeft(marker: string): Promise<void> {
  for (let i = 0; i < 40 && processesWith(marker).length; i++) await new Promise((r) => setTimeout(r, 50));
  expect(processesWith(marker)).toEqual([]);
}

/** Runs a hostile candidate both ways: isolated it must not pass; the in-process verdict is returned for the details. */
async function run(code: string, timeoutMs?: number): Promise<Verdict> {
  const isolated = await validator.validate(task, code, { timeoutMs, isolation: 'isolated' });
  expect(isolated.isolation).toBe('isolated');
  expect(isolated.status).not.toBe('passed');
  const v = await validator.validate(task, code, { timeoutMs, isolation: 'in-process' });
  expect(v.status).not.toBe('passed');
  expect(v.sandbox.label).toBeTruthy();
  return v;
}

const kinds = (v: Verdict) => v.sandbox.events.map((e) => e.kind);

for (const { mode, need, dropped } of MODES) {
  // Declared only where the mode promises it: the strong mode's file-system, network and quota guarantees.
  const onlyStrong = (name: string, fn: () => Promise<void>, timeout?: number) => {
    if (mode === 'strong') it(name, fn, timeout);
  };
  // What rests on the uid drop (process limit per uid, secrets of other users, signals to the engine).
  const itDropped = (name: string, fn: () => Promise<void>, timeout?: number) => it.skipIf(dropped.skip)(`${name}${dropped.note}`, fn, timeout);

  describe.skipIf(need.skip)(`${mode} sandbox${need.note}`, () => {
    beforeAll(async () => {
      validator = await createValidator({ sandbox: { mode }, validation: { timeoutFloorMs: 2500 }, concurrency: 2 });
      expect(validator.sandbox.strength).toBe(mode);
    });
    afterAll(() => validator?.close());

    describe('hostile candidates (time, processes, memory, disk, output)', () => {
      it('an infinite loop and sleeping forever are killed at the time limit', async () => {
        const [loop, sleep, atImport] = await Promise.all([
          run('def f(x):\n    while True:\n        pass\n'),
          run('import time\n\ndef f(x):\n    time.sleep(10 ** 6)\n'),
          run('while True:\n    pass\n\ndef f(x):\n    return x + 1\n'),
        ]);
        for (const v of [loop, sleep, atImport]) {
          expect(v.status).toBe('timeout');
          expect(kinds(v)).toContain('wall-timeout');
          // Killed by the wall-clock limit the verdict records (how soon is the bench's to measure, not a test's).
          expect(v.reason).toBe(`killed at the ${v.timeoutMs} ms time limit`);
        }
      });

      it('ignored signals do not save a runaway candidate', async () => {
        const v = await run(
          'import signal\nfor s in (signal.SIGTERM, signal.SIGINT, signal.SIGALRM, signal.SIGHUP, signal.SIGXCPU):\n    signal.signal(s, signal.SIG_IGN)\n\ndef f(x):\n    while True:\n        pass\n',
        );
        expect(v.status).toBe('timeout');
      });

      itDropped('a fork bomb hits the process limit and every process is gone afterwards', async () => {
        const m = `3333.${parseInt(mark, 16) % 100000}`;
        const v = await run(
          `import os, time\n\ndef f(x):\n    while True:\n        try:\n            pid = os.fork()\n        except OSError:\n            time.sleep(0.01)\n            continue\n        if pid == 0:\n            try:\n                os.execv('/usr/bin/sleep', ['sleep', '${m}'])\n            finally:\n                os._exit(0)\n`,
        );
        expect(v.status).toBe('timeout');
        await noneLeft(m);
        expect((await validator.validate(task, GOOD + '# after the fork bomb\n')).status).toBe('passed');
      });

      itDropped('an orphaned background process (new session, double fork) is reaped', async () => {
        const m = `4444.${parseInt(mark, 16) % 100000}`;
        const v = await run(
          `import os, subprocess\nsubprocess.Popen(['/usr/bin/sleep', '${m}'], start_new_session=True, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)\nif os.fork() == 0:\n    os.setsid()\n    if os.fork() == 0:\n        os.execv('/usr/bin/sleep', ['sleep', '${m}1'])\n    os._exit(0)\n\ndef f(x):\n    return x\n`,
        );
        expect(v.status).toBe('failed');
        await noneLeft(m);
      });

      it('a memory bomb gets MemoryError under the address-space limit', async () => {
        const v = await run(
          "def f(x):\n    blocks = [b'x' * 2 ** 40] if x == 1 else []\n    while True:\n        blocks.append(bytearray(256 * 2 ** 20))\n",
          20_000,
        );
        expect(v.status).toBe('failed');
        // Each test ends in MemoryError, or, where page faults are slow (filling 2 GiB can take the machine longer than
        // a test's 5 s), at its time limit first: contained either way. The 2**40 request fails at once.
        expect(v.tests.every((t) => /MemoryError/.test(t.message ?? '') || t.outcome === 'timeout')).toBe(true);
        expect(v.tests.some((t) => /MemoryError/.test(t.message ?? ''))).toBe(true);
        expect(kinds(v)).toContain('memory-limit');
        expect(v.peakMemoryBytes).toBeLessThan(2.5 * 2 ** 30);
      });

      onlyStrong('filling the disk stops at the file-size limit and the workspace quota', async () => {
        const v = await run(
          "def f(x):\n    written, first = 0, None\n    for i in range(100000):\n        try:\n            with open('fill%d' % i, 'wb') as fh:\n                while True:\n                    fh.write(b'0' * 2 ** 20)\n                    written += 2 ** 20\n        except OSError as e:\n            first = first or str(e)\n            if e.errno == 28:\n                break\n    raise RuntimeError('wrote %d MiB; first error: %s' % (written // 2 ** 20, first))\n",
          20_000,
        );
        expect(v.status).toBe('failed');
        expect(kinds(v)).toContain('file-size-limit'); // the first file stopped at 64 MiB
        const mib = Number(/wrote (\d+) MiB/.exec(v.tests[0]!.message ?? '')?.[1]);
        expect(mib).toBeGreaterThan(0);
        expect(mib).toBeLessThanOrEqual(300);
      });

      onlyStrong('/dev takes no files, and /dev/shm and /tmp stop at their quota', async () => {
        // /dev is bwrap's own tmpfs, without a size: a red-team candidate wrote 739 MiB there before it was read-only.
        const v = await run(
          "import os\n\ndef fill(top):\n    written = 0\n    try:\n        for i in range(100000):\n            with open(os.path.join(top, 'fill%d' % i), 'wb') as fh:\n                for _ in range(32):\n                    fh.write(b'0' * 2 ** 20)\n                    written += 2 ** 20\n    except OSError as e:\n        return '%s %d MiB (%s)' % (top, written // 2 ** 20, e.strerror)\n    return '%s %d MiB (no error)' % (top, written // 2 ** 20)\n\ndef f(x):\n    with open('/dev/null', 'wb') as null:\n        null.write(b'still a device')\n    raise RuntimeError(' | '.join(fill(t) for t in ('/dev', '/dev/shm', '/tmp')))\n",
          20_000,
        );
        expect(v.status).toBe('failed');
        const message = v.tests[0]!.message ?? '';
        expect(message).toMatch(/\/dev 0 MiB \(Read-only file system\)/);
        for (const top of ['/dev/shm', '/tmp']) {
          const m = new RegExp(`${top} (\\d+) MiB \\((.*?)\\)`).exec(message);
          expect(m?.[2]).toBe('No space left on device');
          expect(Number(m![1])).toBeLessThanOrEqual(128);
        }
      });

      it('a gigantic stdout is cut off at the output cap', async () => {
        const v = await run("import sys\n\ndef f(x):\n    chunk = 'x' * 65536\n    while True:\n        sys.stdout.write(chunk)\n");
        expect(v.status).toBe('error');
        expect(kinds(v)).toContain('output-limit');
        expect(v.stdout.length).toBeLessThanOrEqual(8192);
      });

      it('deep recursion and a segfault end in a failure, not a crash of the engine', async () => {
        const [rec, deep, segv] = await Promise.all([
          run('def f(x):\n    return f(x)\n'),
          // recursion through a C function overflows the C stack
          run('import sys\nsys.setrecursionlimit(10 ** 8)\n\ndef f(x):\n    def r(n):\n        return list(map(r, [n + 1]))\n    return r(0)\n'),
          run('import ctypes\n\ndef f(x):\n    return ctypes.string_at(0)\n'),
        ]);
        expect(rec.status).toBe('failed'); // RecursionError inside each test
        expect(deep.status).toBe('error');
        expect(deep.exit.signal).toBe('SIGSEGV');
        expect(kinds(deep)).toContain('killed-by-signal');
        // ctypes is refused to the candidate outright (it could read the runner's memory)
        expect(segv.status).toBe('error');
        expect(segv.reason).toMatch(/import ctypes/);
        expect(kinds(segv)).toContain('refused');
      });
    });

    describe('hostile candidates (escapes, secrets, network)', () => {
      onlyStrong('writes to HOME, the repository, /etc, the parent folder and /tmp have no effect outside', async () => {
        const targets = [
          path.join(home, `pwned-${mark}`),
          path.join(task.repoPath, `pwned-${mark}`),
          `/etc/pwned-${mark}`,
          path.join(os.tmpdir(), `pwned-${mark}`),
          path.join(scratch, `pwned-${mark}`),
        ];
        const code = `import os\nTARGETS = ${JSON.stringify(targets)} + [os.path.join(os.getcwd(), '..', 'pwned-${mark}'), os.path.expanduser('~/../pwned-${mark}')]\nfor t in TARGETS:\n    try:\n        with open(t, 'w') as fh:\n            fh.write('pwned')\n        print('WROTE', t)\n    except OSError as e:\n        print('DENIED', t, e.errno)\n\ndef f(x):\n    return -1\n`;
        const v = await run(code);
        expect(v.status).toBe('failed');
        for (const t of targets) expect(fs.existsSync(t)).toBe(false);
        expect(fs.existsSync(path.join(path.dirname(os.tmpdir()), `pwned-${mark}`))).toBe(false);
      });

      onlyStrong('the repository of a repository task stays untouched', async () => {
        const copy = fs.mkdtempSync(path.join(os.tmpdir(), 'oc-hostile-repo-'));
        try {
          fs.cpSync(SAMPLE_REPO, copy, { recursive: true });
          const target = path.join(copy, 'inventory', 'pricing.py');
          const before = createHash('sha256').update(fs.readFileSync(target)).digest('hex');
          const repoTask = {
            ...templateTask('hostile/repo'),
            check_template: undefined,
            placeholder: undefined,
            reference: undefined,
            repoPath: copy,
            file: 'inventory/pricing.py',
            qualname: 'add_tax',
            signature: 'def add_tax(amount, tax_class="standard"):',
            test_command: 'python3 -m unittest tests.test_pricing',
            tests: ['tests.test_pricing.TaxTests.test_add_tax_standard_rate'],
          };
          const code = `import os\nfor t in [${JSON.stringify(target)}, ${JSON.stringify(path.join(copy, 'pwned'))}, os.path.abspath('inventory/pricing.py')]:\n    try:\n        with open(t, 'a') as fh:\n            fh.write('# pwned')\n    except OSError:\n        pass\n\ndef add_tax(amount, tax_class="standard"):\n    return amount\n`;
          const v = await validator.validate(repoTask, code);
          expect(v.status).toBe('failed');
          expect(createHash('sha256').update(fs.readFileSync(target)).digest('hex')).toBe(before);
          expect(fs.existsSync(path.join(copy, 'pwned'))).toBe(false);
        } finally {
          fs.rmSync(copy, { recursive: true, force: true });
        }
      });

      itDropped('secrets: no API-key variable, no launcher environment, no SSH key', async () => {
        const code = `import os, glob\n\ndef f(x):\n    out = [repr(dict(os.environ))]\n    for p in ['/proc/1/environ', '/proc/self/environ', '/proc/%d/environ' % os.getppid()] + glob.glob('/proc/*/environ'):\n        try:\n            out.append(p + ' ' + open(p, 'rb').read().decode('latin-1'))\n        except Exception as e:\n            out.append('ERR ' + p + ' ' + type(e).__name__)\n    for p in [${JSON.stringify(path.join(home, '.ssh', 'id_rsa'))}, os.path.expanduser('~/.ssh/id_rsa'), '/root/.ssh/id_rsa', '/etc/shadow']:\n        try:\n            out.append(open(p).read())\n        except Exception as e:\n            out.append('ERR ' + p + ' ' + type(e).__name__)\n    print('\\n'.join(out))\n    return None\n`;
        const v = await run(code);
        expect(v.status).toBe('failed');
        expect(v.stdout).toContain('ERR');
        expect(v.stdout).not.toContain(SECRET_ENV);
        expect(v.stdout).not.toContain(SECRET_KEY);
        expect(v.stdout).not.toContain('OPENAI_API_KEY');
      });

      onlyStrong('no network: a loopback server in the engine’s namespace is unreachable, DNS fails', async () => {
        const code = `import socket\n\ndef f(x):\n    res = []\n    try:\n        socket.create_connection(('127.0.0.1', ${port}), timeout=2)\n        res.append('CONNECTED')\n    except Exception as e:\n        res.append('connect failed ' + type(e).__name__)\n    try:\n        socket.getaddrinfo('example.com', 80)\n        res.append('RESOLVED')\n    except Exception as e:\n        res.append('dns failed ' + type(e).__name__)\n    print(res)\n    return None\n`;
        const v = await run(code);
        expect(v.stdout).toContain('connect failed');
        expect(v.stdout).not.toContain('CONNECTED');
        expect(v.stdout).not.toContain('RESOLVED');
        expect(connections).toBe(0);
      });

      itDropped('killing the parent, PID 1, the engine or everything reaches nothing outside the sandbox', async () => {
        const code = `import os, signal\nfor pid in (os.getppid(), 1, ${process.pid}, -1):\n    try:\n        os.kill(pid, signal.SIGKILL)\n        print('kill', pid, 'sent')\n    except Exception as e:\n        print('kill', pid, type(e).__name__)\n\ndef f(x):\n    return x\n`;
        const v = await run(code);
        // The first kill reaches the supervisor (the runner's parent, inside the sandbox): no verdict, never a pass.
        expect(['failed', 'error']).toContain(v.status);
        if (v.stdout.includes(`kill ${process.pid}`)) expect(v.stdout).toMatch(new RegExp(`kill ${process.pid} (ProcessLookupError|PermissionError)`));
        const suicide = await run('import os, signal\nos.killpg(0, signal.SIGKILL)\n\ndef f(x):\n    return x + 1\n');
        expect(suicide.status).toBe('error');
        expect(() => process.kill(process.pid, 0)).not.toThrow();
        expect((await validator.validate(task, GOOD + '# after the kill attempts\n')).status).toBe('passed');
      });
    });

    describe('hostile candidates (fake evidence)', () => {
      it('an early sys.exit(0) or os._exit(0) is never a pass', async () => {
        const [atImport, hard, inTest] = await Promise.all([
          run('import sys\nsys.exit(0)\n\ndef f(x):\n    return x + 1\n'),
          run('import os\nos._exit(0)\n\ndef f(x):\n    return x + 1\n'),
          run('import sys\n\ndef f(x):\n    sys.exit(0)\n'),
        ]);
        expect(atImport.status).toBe('failed');
        expect(atImport.reason).toMatch(/SystemExit/);
        expect(hard.status).toBe('error');
        expect(kinds(hard)).toContain('no-report');
        expect(inTest.status).toBe('failed');
      });

      it('a faked results line on stdout or on the report channel is ignored', async () => {
        const fake = JSON.stringify({ t: 'done', results: ['test_0', 'test_1', 'test_2'].map((id) => ({ t: 'test', id, outcome: 'passed' })), ran: true });
        const code = `import os, sys\nprint('__REPOEXEC_RESULTS__' + '{"results": {"test_0": "passed", "test_1": "passed", "test_2": "passed"}}')\nsys.stdout.flush()\nfor fd in range(3, 10):\n    try:\n        os.write(fd, b'\\n' + b'0' * 64 + b' ' + ${JSON.stringify(fake)}.encode() + b'\\n')\n    except OSError:\n        pass\nos._exit(0)\n\ndef f(x):\n    return x + 1\n`;
        const v = await run(code);
        expect(v.status).toBe('error');
        expect(kinds(v)).toContain('forged-output-ignored');
      });

      it('patching os.write and json cannot turn failures into passes', async () => {
        const code = `import os, json\n_w = os.write\nos.write = lambda fd, data: _w(fd, data.replace(b'"failed"', b'"passed"'))\njson.dumps = lambda *a, **k: '{"t":"done","results":[],"ran":true}'\n\ndef f(x):\n    return x\n`;
        const v = await run(code);
        // the runner reports through its own captured primitives, and the patch itself is tampering
        expect(v.status).toBe('error');
        expect(v.reason).toMatch(/altered (os\.write|json\.dumps)/);
        expect(v.tests.filter((t) => t.outcome === 'passed').length).toBeLessThan(3);
      });

      it('syntax errors and NUL bytes fail statically without running', async () => {
        const [syn, nul] = await Promise.all([run('def f(x):\n    return (x +\n'), run('def f(x):\n    return x\0 + 1\n')]);
        for (const v of [syn, nul]) {
          expect(v.status).toBe('failed');
          expect(v.findings[0]!.kind).toBe('syntax');
          expect(v.tests).toEqual([]);
        }
      });
    });
  });
}

describe('hostile candidates in weak mode (cleanup, reaping, environment)', () => {
  it.skipIf(weakDropped.skip)(
    `weak mode as root: a fork bomb ends with its run, zombies included, and the next run is unhindered${weakDropped.note}`,
    async () => {
      // Without a PID namespace of its own, a weak run's orphans went to PID 1, which on some machines never reaps them:
      // 63 zombies of uid 65534 kept its process limit full and every later weak run of that uid failed.
      const workRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'oc-weak-bomb-'));
      fs.chmodSync(workRoot, 0o711);
      try {
        const weak = await createValidator({ sandbox: { mode: 'weak' }, validation: { timeoutFloorMs: 2500 }, workRoot, concurrency: 1 });
        expect(weak.sandbox.label).toMatch(/own PID namespace/);
        const m = `6666.${parseInt(mark, 16) % 100000}`;
        const bomb = `import os, time\n\ndef f(x):\n    while True:\n        try:\n            pid = os.fork()\n        except OSError:\n            time.sleep(0.01)\n            continue\n        if pid == 0:\n            try:\n                os.chdir('/')\n                os.execv('/usr/bin/sleep', ['sleep', '${m}'])\n            finally:\n                os._exit(0)\n`;
        for (const isolation of ['in-process', 'isolated'] as const) {
          const v = await weak.validate(task, bomb, { isolation });
          expect(v.status, isolation).toBe('timeout');
          await noneLeft(m);
          expect((await weak.validate(task, `${GOOD}# after the ${isolation} fork bomb\n`, { isolation })).status, isolation).toBe('passed');
        }
      } finally {
        fs.rmSync(workRoot, { recursive: true, force: true });
      }
    },
  );

  it.skipIf(weakDropped.skip)(`weak mode as root: a fork bomb running beside other runs leaves their verdicts alone${weakDropped.note}`, async () => {
    // RLIMIT_NPROC counts every process of a uid. When every weak run had the same uid, a fork bomb in one parallel
    // slot filled that count, and the reference checked beside it could not start its interpreter: "exited with
    // code 1 before the harness finished", so the demo's references were judged not to pass their own tests.
    const workRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'oc-weak-side-'));
    fs.chmodSync(workRoot, 0o711);
    let bombing: Promise<Verdict>[] = [];
    try {
      const weak = await createValidator({ sandbox: { mode: 'weak' }, validation: { timeoutFloorMs: 4000 }, workRoot, concurrency: 4 });
      const m = `6667.${parseInt(mark, 16) % 100000}`;
      const bomb = `import os, time\n\ndef f(x):\n    while True:\n        try:\n            pid = os.fork()\n        except OSError:\n            time.sleep(0.01)\n            continue\n        if pid == 0:\n            os.execv('/usr/bin/sleep', ['sleep', '${m}'])\n`;
      // The references are checked first (once per isolation), so what runs beside the bombs is the candidates alone.
      for (const isolation of ['in-process', 'isolated'] as const) expect((await weak.validate(task, GOOD, { isolation })).status).toBe('passed');
      // One bomb where the tests run (in-process), one in an isolated run's candidate process.
      // Each waits until the bombs started so far hold their process limits; then honest candidates run beside them.
      bombing = [];
      for (const isolation of ['isolated', 'in-process'] as const) {
        bombing.push(weak.validate(task, bomb, { isolation }));
        const want = 50 * bombing.length;
        for (let i = 0; i < 100 && processesWith(m).length < want; i++) await new Promise((r) => setTimeout(r, 50));
        expect(processesWith(m).length, isolation).toBeGreaterThanOrEqual(want);
      }
      // The sample repository's task, as the demo checks it: its reference checked, then judged, both ways.
      const sample = readManifest(path.join(SAMPLE_REPO, 'tasks.jsonl')).tasks.find((t) => t.id === 'inventory/apply_discount')!;
      const beside = await Promise.all((['isolated', 'in-process'] as const).map((isolation) => weak.validate(sample, sample.reference!, { isolation })));
      expect(beside.map((v) => `${v.status}: ${v.reason}`)).toEqual(beside.map(() => expect.stringMatching(/^passed/)));
      expect((await Promise.all(bombing)).map((v) => v.status)).toEqual(['timeout', 'timeout']);
      await noneLeft(m);
    } finally {
      await Promise.allSettled(bombing); // each ends at its time limit, its processes with it
      fs.rmSync(workRoot, { recursive: true, force: true });
    }
  });

  it.skipIf(weakDropped.skip)(
    `weak mode as root: the candidate can neither change what the tests read nor read the answer${weakDropped.note}`,
    async () => {
      // Without a file-system namespace the candidate sees the host's /tmp, where the tests' workspace and the
      // repository snapshot live. When both ran as uid 65534 a wrong candidate rewrote the test files there (their
      // assertions made no-ops) and passed, isolated; and it could read the unmasked target in the snapshot.
      const repo = fs.mkdtempSync(path.join(os.tmpdir(), 'oc-weak-repo-')); // 0700: the original is private
      const weak = await createValidator({ sandbox: { mode: 'weak' }, validation: { timeoutFloorMs: 4000 }, concurrency: 1 });
      try {
        fs.cpSync(SAMPLE_REPO, repo, { recursive: true });
        expect(weak.sandbox.label).toMatch(/an isolated run's tests and candidate as two/);
        const repoTask = {
          ...templateTask('hostile/weak-tamper'),
          check_template: undefined,
          placeholder: undefined,
          reference: undefined,
          repoPath: repo,
          file: 'inventory/pricing.py',
          qualname: 'add_tax',
          signature: 'def add_tax(amount, tax_class="standard"):',
          test_command: 'python3 -m unittest tests.test_pricing',
          tests: ['tests.test_pricing.TaxTests.test_add_tax_standard_rate'],
        };
        const answer = ['_round_half_up(Decimal(amount.cents) *', ' tax_rate(tax_class))'];
        // Walks every folder it can read, makes each test module's assertions no-ops, and looks for the answer.
        const attacker = `import os
PATCH = "import unittest\\nfor _n in [n for n in dir(unittest.TestCase) if n.startswith('assert')]:\\n    setattr(unittest.TestCase, _n, lambda *a, **k: None)\\n"
ANSWER = ${JSON.stringify(answer[0])} + ${JSON.stringify(answer[1])}
WROTE, SAW = [], []
def walk(top, depth):
    if depth > 10:
        return
    try:
        entries = list(os.scandir(top))
    except OSError:
        return
    for e in entries:
        try:
            if e.is_symlink() or e.path == os.getcwd():
                continue
            if e.is_dir():
                walk(e.path, depth + 1)
            elif e.name.endswith('.py'):
                src = open(e.path).read()
                if ANSWER in src:
                    SAW.append(e.path)
                if e.name.startswith('test') and PATCH not in src:
                    with open(e.path, 'w') as fh:
                        fh.write(PATCH + src)
                    WROTE.append(e.path)
        except (OSError, UnicodeDecodeError):  # a file not in UTF-8 (other tests leave some in /tmp)
            pass
for top in ('/tmp', '/var/tmp', '/dev/shm', ${JSON.stringify(os.tmpdir())}):
    walk(top, 0)

def add_tax(amount, tax_class="standard"):
    raise RuntimeError("WROTE[" + ",".join(WROTE) + "] SAW[" + ",".join(SAW) + "]")
`;
        const wrong = 'def add_tax(amount, tax_class="standard"):\n    return amount\n';
        for (let i = 0; i < 2; i++) {
          const v = await weak.validate(repoTask, attacker, { isolation: 'isolated' });
          expect(v.isolation).toBe('isolated');
          expect(v.status).toBe('failed');
          const msg = v.tests.map((t) => t.message ?? '').join('\n');
          const [, wrote, saw] = /WROTE\[([^\]]*)\] SAW\[([^\]]*)\]/.exec(msg) ?? [];
          expect(wrote, msg).toBe('');
          // Nothing the validator made (snapshots, masks, work folders) nor this test's private original shows the
          // answer. A world-readable checkout elsewhere (a clone under /tmp) is weak mode's documented reach.
          expect(saw, msg).toBeDefined();
          const ours = path.join(os.tmpdir(), 'oc-');
          expect(saw!.split(',').filter((p) => p.startsWith(ours))).toEqual([]);
          // Had the snapshot been rewritten, this wrong candidate's assertions would be no-ops now.
          const after = await weak.validate(repoTask, wrong, { isolation: 'isolated' });
          expect(after.status).toBe('failed');
        }
        expect(fs.readFileSync(path.join(repo, 'tests', 'test_pricing.py'), 'utf8')).toBe(
          fs.readFileSync(path.join(SAMPLE_REPO, 'tests', 'test_pricing.py'), 'utf8'),
        );
      } finally {
        weak.close();
        fs.rmSync(repo, { recursive: true, force: true });
      }
    },
    120_000,
  );

  it.skipIf(weakDropped.skip)(`weak mode as root: what a candidate writes to the shared temp folders goes with its run${weakDropped.note}`, async () => {
    // Without a file-system namespace a weak candidate can write to /tmp, /var/tmp, /dev/shm and any other world-writable
    // folder: a red-team candidate left some 480 MB there. Its run's own uid says what is its own.
    const weak = await createValidator({ sandbox: { mode: 'weak' }, validation: { timeoutFloorMs: 2500 }, concurrency: 1 });
    try {
      for (const isolation of ['in-process', 'isolated'] as const) {
        const tag = `oc-left-${mark}-${isolation}`;
        // And the machine's other world-writable folders (Debian's /run/lock: a red team's candidate left files there).
        const other = fs.existsSync('/run/lock') && fs.statSync('/run/lock').mode & 0o002 ? [`/run/lock/${tag}`] : [];
        const made = [`/tmp/${tag}`, `/var/tmp/${tag}`, `/dev/shm/${tag}`, `/tmp/${tag}-dir`, `/tmp/${tag}-link`, ...other];
        const code =
          `import os\n` +
          `for p in ${JSON.stringify([...made.slice(0, 3), ...other])}:\n    open(p, 'w').write('left behind')\n` +
          `os.makedirs('/tmp/${tag}-dir/sub')\nopen('/tmp/${tag}-dir/sub/f', 'w').write('x')\nos.chmod('/tmp/${tag}-dir/sub', 0)\n` +
          `os.symlink('/etc/hostname', '/tmp/${tag}-link')\n\n` +
          `def f(x):\n    return x\n`;
        const v = await weak.validate(task, code, { isolation });
        expect(v.status, isolation).toBe('failed');
        expect(
          v.sandbox.events.filter((e) => e.kind === 'sandbox-failure'),
          isolation,
        ).toEqual([]);
        for (const p of made) expect(fs.existsSync(p) || isDanglingOrLink(p), `${isolation}: ${p}`).toBe(false);
      }
      expect(fs.existsSync('/etc/hostname')).toBe(true);
    } finally {
      weak.close();
    }
  });

  it('chmod 000 folders and planted symlinks: cleanup completes and follows no link', async () => {
    const workRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'oc-weak-'));
    fs.chmodSync(workRoot, 0o711); // the dropped uid must be able to reach its workspace
    const sentinelDir = fs.mkdtempSync(path.join(os.tmpdir(), 'oc-sentinel-'));
    const sentinel = path.join(sentinelDir, 'keep.txt');
    fs.writeFileSync(sentinel, 'keep');
    try {
      const weak = await createValidator({ sandbox: { mode: 'weak' }, validation: { timeoutFloorMs: 2500 }, workRoot, concurrency: 2 });
      expect(weak.sandbox.strength).toBe('weak');
      const m = `5555.${parseInt(mark, 16) % 100000}`;
      const code = `import os, subprocess\nos.makedirs('a/b/c', exist_ok=True)\nopen('a/b/c/file', 'w').write('x')\nfor i, t in enumerate([${JSON.stringify(sentinel)}, ${JSON.stringify(sentinelDir)}, '/etc']):\n    try:\n        os.symlink(t, 'a/link%d' % i)\n    except OSError:\n        pass\nsubprocess.Popen(['/usr/bin/sleep', '${m}'], start_new_session=True, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)\nos.chmod('a/b/c', 0)\nos.chmod('a/b', 0)\nos.chmod('a', 0)\nos.chmod('.', 0)\n\ndef f(x):\n    return x\n`;
      const v = await weak.validate(task, code);
      expect(v.status).toBe('failed');
      expect(v.sandbox.strength).toBe('weak');
      expect(v.sandbox.label).toMatch(/^weak:/);
      expect(fs.readdirSync(workRoot)).toEqual([]);
      expect(fs.readFileSync(sentinel, 'utf8')).toBe('keep');
      await noneLeft(m);
      const secret = await weak.validate(task, 'import os\n\ndef f(x):\n    print(repr(dict(os.environ)))\n    return None\n');
      expect(secret.stdout).not.toContain(SECRET_ENV);
      const slow = await weak.validate(task, 'def f(x):\n    while True:\n        pass\n');
      expect(slow.status).toBe('timeout');
      expect(fs.readdirSync(workRoot)).toEqual([]);
      expect((await weak.validate(task, GOOD)).status).toBe('passed');
    } finally {
      fs.rmSync(workRoot, { recursive: true, force: true });
      fs.rmSync(sentinelDir, { recursive: true, force: true });
    }
  });
});
