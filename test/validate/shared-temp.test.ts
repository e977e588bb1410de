// An isolated run's shared temporary folders (issue 44, item 6): what the tests make in /tmp and /dev/shm while they
// run (tempfile.mkdtemp, a file of their own there) is visible and writable to the candidate process at the same paths,
// as the target would see it in-process, in warm and in cold strong mode. The tests' own files, the repository and the
// unmasked target stay out of its reach, and nothing a run leaves there reaches the next run.

import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Task } from '../../main/model/task.ts';
import type { Verdict } from '../../main/model/verdict.ts';
import { detectSandbox } from '../../main/validate/sandbox.ts';
import { createValidator, WARM_LABEL, type Validator } from '../../main/validate/validator.ts';
import { makeRepo, tmpDir } from '../helpers/tmp-repo.ts';
import { needsStrongSandbox } from '../helpers/system.ts';

const STRONG = await needsStrongSandbox();

// The answer's tell-tale (in the reference, so in no sandbox's copy of pkg/mod.py) and the tests' (in their module only).
const ANSWER = 'ANSWER_MARK_7Q';
const TESTS_MARK = 'TESTS_MARK_4Z';

const TALLY = `import os


def tally(folder):
    """[(name, text)] of the folder's files but total.txt, which gets the texts' total length."""
    # ${ANSWER}
    names = sorted(n for n in os.listdir(folder) if n != "total.txt")
    out = []
    for n in names:
        with open(os.path.join(folder, n)) as f:
            out.append((n, f.read()))
    with open(os.path.join(folder, "total.txt"), "w") as f:
        f.write(str(sum(len(t) for _, t in out)))
    return out
`;

const TESTS = `# ${TESTS_MARK}
import os
import shutil
import tempfile
import unittest

from pkg.mod import tally


def check(test, folder):
    with open(os.path.join(folder, "a.txt"), "w") as f:
        f.write("1")
    os.mkdir(os.path.join(folder, "sub"))
    with open(os.path.join(folder, "b.txt"), "w") as f:
        f.write("22")
    os.rmdir(os.path.join(folder, "sub"))
    test.assertEqual(tally(folder), [("a.txt", "1"), ("b.txt", "22")])
    with open(os.path.join(folder, "total.txt")) as f:
        test.assertEqual(f.read(), "3")
    # A repository module the tests import only now: a candidate that rewrote it must not reach them.
    from pkg import late
    test.assertEqual(late.VALUE, 1)


class T(unittest.TestCase):
    def test_mkdtemp(self):
        d = tempfile.mkdtemp()
        try:
            self.assertTrue(d.startswith("/tmp/"), d)
            check(self, d)
        finally:
            shutil.rmtree(d)

    def test_shm(self):
        d = tempfile.mkdtemp(dir="/dev/shm")
        try:
            check(self, d)
        finally:
            shutil.rmtree(d)
`;

let repo: string;
let task: Task;
let warm: Validator;
let cold: Validator;

beforeAll(async () => {
  if (STRONG.skip) return;
  repo = makeRepo(
    { 'pkg/__init__.py': '', 'pkg/mod.py': TALLY, 'pkg/late.py': 'VALUE = 1\n', 'tests/__init__.py': '', 'tests/test_shared.py': TESTS },
    'oc-shared-temp-',
  );
  task = {
    id: 'shared-temp/tally',
    repo: '.',
    repoPath: repo,
    file: 'pkg/mod.py',
    qualname: 'tally',
    requirement: 'tally',
    signature: 'def tally(folder):',
    reference: TALLY.slice(TALLY.indexOf('def tally')),
    test_command: 'python3 -m unittest tests.test_shared',
    tests: ['tests.test_shared.T.test_mkdtemp', 'tests.test_shared.T.test_shm'],
  };
  [warm, cold] = await Promise.all([createValidator({ concurrency: 2 }), createValidator({ concurrency: 2, warm: false })]);
}, 60_000);

afterAll(() => {
  warm?.close();
  cold?.close();
  if (repo) fs.rmSync(repo, { recursive: true, force: true });
});

const detail = (v: Verdict) => `${v.status}: ${v.reason}\n${v.tests.map((t) => `${t.id} ${t.outcome} ${t.message ?? ''}`).join('\n')}`;
const body = (code: string) => `import os\n\n\ndef tally(folder):\n${code}`;

describe.skipIf(STRONG.skip)(`an isolated run's tests and candidate share /tmp and /dev/shm${STRONG.note}`, () => {
  for (const how of ['warm', 'cold'] as const) {
    const v = () => (how === 'warm' ? warm : cold);

    it(`the reference passes isolated, a wrong candidate fails (${how})`, async () => {
      const check = await v().referenceCheck(task);
      expect(check, JSON.stringify(check)).toMatchObject({ passes: true, isolation: 'isolated' });
      const ref = await v().validate(task, task.reference!, { isolation: 'isolated' });
      expect(ref.isolation).toBe('isolated');
      expect(ref.status, detail(ref)).toBe('passed');
      expect(ref.sandbox.label.endsWith(WARM_LABEL)).toBe(how === 'warm');
      // Sees the files but writes no total: the tests read what the candidate wrote, so this fails.
      const wrong = body('    return [(n, open(os.path.join(folder, n)).read()) for n in sorted(os.listdir(folder))]\n');
      const w = await v().validate(task, wrong, { isolation: 'isolated' });
      expect(w.isolation).toBe('isolated');
      expect(w.status, detail(w)).toBe('failed');
    }, 120_000);

    it(`a candidate cannot rewrite the tests or a repository module they import later, through the shared area or otherwise (${how})`, async () => {
      const rewrite = body(`    import glob
    done = []
    for p in ["/ws/pkg/late.py", "/ws/tests/test_shared.py", "/base/pkg/late.py", "/base/tests/test_shared.py",
              "/tmp/pkg/late.py", "/dev/shm/pkg/late.py"] + glob.glob("/tmp/**/*.py", recursive=True):
        try:
            os.makedirs(os.path.dirname(p), exist_ok=True)
            with open(p, "w") as f:
                f.write("VALUE = 1\\nimport unittest\\nunittest.TestCase.assertEqual = lambda *a, **k: None\\n")
            done.append(p)
        except OSError:
            pass
    # and a link from the shared area to the tests' folder, in case the tests follow one
    try:
        os.symlink("/ws/tests", os.path.join(folder, "tests-link"))
    except OSError:
        pass
    return [("wrote", ",".join(done))]
`);
      const r = await v().validate(task, rewrite, { isolation: 'isolated' });
      expect(r.isolation).toBe('isolated');
      expect(r.status, detail(r)).toBe('failed');
      expect(r.tests.every((t) => t.outcome !== 'passed')).toBe(true);
    }, 120_000);

    it(`a candidate reads neither the tests nor the unmasked target through the shared area (${how})`, async () => {
      // Looks through every file it can reach in the shared folders (and its own work folder) for either tell-tale.
      const snoop = body(`    found = []
    marks = ("ANSWER_" + "MARK_7Q", "TESTS_" + "MARK_4Z")
    for top in ("/tmp", "/dev/shm", "/ws", "/base"):
        for dirpath, dirs, files in os.walk(top):
            for n in files:
                p = os.path.join(dirpath, n)
                try:
                    with open(p, "rb") as f:
                        data = f.read(1 << 20)
                except OSError:
                    continue
                if any(m.encode() in data for m in marks):
                    found.append(p)
    raise RuntimeError("FOUND[" + ",".join(found) + "]")
`);
      const r = await v().validate(task, snoop, { isolation: 'isolated' });
      expect(r.isolation).toBe('isolated');
      expect(r.status).toBe('failed');
      const messages = r.tests.map((t) => t.message ?? '').join('\n');
      expect(messages, detail(r)).toContain('FOUND[]');
    }, 120_000);

    it(`nothing a run leaves in the shared folders reaches the next run (${how})`, async () => {
      const plant = body(`    for p in ("/tmp/oc-shared-left", "/dev/shm/oc-shared-left"):
        with open(p, "w") as f:
            f.write("1")
    return []
`);
      const planted = await v().validate(task, plant, { isolation: 'isolated' });
      expect(planted.status).toBe('failed');
      const look = `${task.reference!.replace('    names = sorted', '    if any(os.path.exists(p) for p in ("/tmp/oc-shared-left", "/dev/shm/oc-shared-left")):\n        return []\n    names = sorted')}`;
      const after = await v().validate(task, look, { isolation: 'isolated' });
      expect(after.status, detail(after)).toBe('passed');
    }, 120_000);
  }

  it('a task whose interpreter lives below /tmp shares nothing (warm and cold)', async () => {
    // A virtualenv in the host's /tmp is bound there in the sandbox: inside a shared /tmp a candidate could move the
    // folder above it and plant modules where the tests import the interpreter's.
    const venv = tmpDir('oc-shared-venv-');
    try {
      fs.chmodSync(venv, 0o755);
      fs.mkdirSync(`${venv}/bin`);
      fs.symlinkSync('/usr/bin/python3', `${venv}/bin/python3`);
      fs.writeFileSync(`${venv}/pyvenv.cfg`, 'home = /usr/bin\ninclude-system-site-packages = false\n');
      const inVenv: Task = { ...task, id: 'shared-temp/tally-venv', python: `${venv}/bin/python3` };
      for (const v of [warm, cold]) {
        const iso = await v.validate(inVenv, task.reference!, { isolation: 'isolated' });
        expect(iso.isolation).toBe('isolated');
        expect(iso.status, detail(iso)).toBe('failed');
        const inProcess = await v.validate(inVenv, task.reference!, { isolation: 'in-process' });
        expect(inProcess.status, detail(inProcess)).toBe('passed');
      }
    } finally {
      fs.rmSync(venv, { recursive: true, force: true });
    }
  }, 120_000);

  it("tests that run code they wrote to the shared area are not validated isolated: that code is the candidate's to rewrite", async () => {
    const plugins = makeRepo(
      {
        'pkg/__init__.py': '',
        'pkg/mod.py': 'import os\n\n\ndef touch(folder):\n    open(os.path.join(folder, "seen"), "w").close()\n    return True\n',
        'tests/__init__.py': '',
        'tests/test_plug.py':
          'import os\nimport sys\nimport tempfile\nimport unittest\n\nfrom pkg.mod import touch\n\n\nclass T(unittest.TestCase):\n    def test_plugin(self):\n        d = tempfile.mkdtemp()\n        with open(os.path.join(d, "plug.py"), "w") as f:\n            f.write("VALUE = 1\\n")\n        self.assertTrue(touch(d))\n        sys.path.insert(0, d)\n        try:\n            import plug\n        finally:\n            sys.path.remove(d)\n        self.assertEqual(plug.VALUE, 1)\n',
      },
      'oc-shared-plug-',
    );
    try {
      const plug: Task = {
        id: 'shared-temp/plugin',
        repo: '.',
        repoPath: plugins,
        file: 'pkg/mod.py',
        qualname: 'touch',
        requirement: 'touch',
        signature: 'def touch(folder):',
        reference: 'def touch(folder):\n    open(os.path.join(folder, "seen"), "w").close()\n    return True\n',
        test_command: 'python3 -m unittest tests.test_plug',
        tests: ['tests.test_plug.T.test_plugin'],
      };
      for (const v of [warm, cold]) {
        const check = await v.referenceCheck(plug);
        expect(check, JSON.stringify(check)).toMatchObject({ passes: true, isolation: 'in-process' });
        expect(check.isolationReason).toMatch(/temporary folder they share with the candidate/);
        // Forced isolated, a candidate that rewrites the plugin to disarm the tests' assertions is refused, not passed.
        const hostile =
          'import os\n\n\ndef touch(folder):\n    with open(os.path.join(folder, "plug.py"), "w") as f:\n        f.write("import unittest\\nunittest.TestCase.assertEqual = lambda *a, **k: None\\nVALUE = 2\\n")\n    return True\n';
        const r = await v.validate(plug, hostile, { isolation: 'isolated' });
        expect(r.status, detail(r)).toBe('failed');
        expect(r.reason).toMatch(/temporary folder they share with the candidate/);
      }
    } finally {
      fs.rmSync(plugins, { recursive: true, force: true });
    }
  }, 180_000);

  it("the target sees what the tests make in their working folder, read-only, and cannot change it or the repository's links", async () => {
    const lister =
      'import os\n\n\ndef listing(folder):\n    """The names in folder (relative to the working folder), sorted."""\n    return sorted(os.listdir(folder))\n';
    const cwdRepo = makeRepo(
      {
        'pkg/__init__.py': '',
        'pkg/mod.py': lister,
        'data/expected.txt': 'a.txt,b.txt\n',
        'tests/__init__.py': '',
        'tests/test_cwd.py':
          'import os\nimport shutil\nimport unittest\n\nfrom pkg.mod import listing\n\n\nclass T(unittest.TestCase):\n    def test_made_here(self):\n        os.mkdir("@made_dir")\n        try:\n            for n in ("a.txt", "b.txt"):\n                open(os.path.join("@made_dir", n), "w").close()\n            with open("data/expected.txt") as f:\n                want = f.read().strip().split(",")\n            self.assertEqual(listing("@made_dir"), want)\n            self.assertEqual(open("data/expected.txt").read(), "a.txt,b.txt\\n")\n        finally:\n            shutil.rmtree("@made_dir")\n',
      },
      'oc-shared-cwd-',
    );
    try {
      const cwdTask: Task = {
        id: 'shared-temp/cwd',
        repo: '.',
        repoPath: cwdRepo,
        file: 'pkg/mod.py',
        qualname: 'listing',
        requirement: 'listing',
        signature: 'def listing(folder):',
        reference: lister.slice(lister.indexOf('def listing')),
        test_command: 'python3 -m unittest tests.test_cwd',
        tests: ['tests.test_cwd.T.test_made_here'],
      };
      // Writes into what the tests made, and swaps the working folder's link to the data for its own: refused
      // (read-only), so the tests still read their own expectations.
      const tamper =
        'import os\n\n\ndef listing(folder):\n    for p in (os.path.join(folder, "a.txt"), "data"):\n        try:\n            if p == "data":\n                os.unlink(p)\n                os.makedirs("data")\n                open("data/expected.txt", "w").write("z\\n")\n            else:\n                open(p, "w").write("x")\n        except OSError:\n            pass\n    return ["z"]\n';
      for (const v of [warm, cold]) {
        const check = await v.referenceCheck(cwdTask);
        expect(check, JSON.stringify(check)).toMatchObject({ passes: true, isolation: 'isolated' });
        const wrong = await v.validate(cwdTask, 'import os\n\n\ndef listing(folder):\n    return sorted(os.listdir("."))\n', { isolation: 'isolated' });
        expect(wrong.status, detail(wrong) + wrong.stderr).toBe('failed');
        const t = await v.validate(cwdTask, tamper, { isolation: 'isolated' });
        expect(t.status, detail(t)).toBe('failed');
      }
    } finally {
      fs.rmSync(cwdRepo, { recursive: true, force: true });
    }
  }, 180_000);

  it('a cold run removes its shared folder', async () => {
    const before = sharedRuns();
    const r = await cold.validate(task, task.reference!, { isolation: 'isolated' });
    expect(r.status, detail(r)).toBe('passed');
    expect(sharedRuns()).toEqual(before);
  }, 60_000);
});

describe('weak mode shares no temporary folder with an isolated candidate, and says so', () => {
  it('in its label', async () => {
    const weak = await detectSandbox({ mode: 'weak' });
    expect(weak.label).toContain("temporary folders not shared between an isolated run's tests and candidate");
  });
});

/** The cold runs' shared folders left on the machine by this process. */
function sharedRuns(): string[] {
  const out: string[] = [];
  for (const d of fs.readdirSync('/tmp').filter((n) => n.startsWith(`oc-share-${process.pid}-`)))
    for (const r of fs.readdirSync(`/tmp/${d}`)) out.push(`${d}/${r}`);
  return out.sort();
}
