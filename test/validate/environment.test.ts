// The project's own environment: environment assignments in front of the test command, a task's
// interpreter (a virtualenv folder), commands refused when the manifest loads, and timing-dependent
// verdicts rerun and marked flaky.

import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManifestError } from '../../main/model/manifest.ts';
import { readManifest } from '../../main/benchmarks/manifest-file.ts';
import type { Task } from '../../main/model/task.ts';
import { detectSandbox } from '../../main/validate/sandbox.ts';
import { createValidator, type Validator } from '../../main/validate/validator.ts';
import { makeRepo, tmpDir } from '../helpers/tmp-repo.ts';

const made: string[] = [];
afterAll(() => {
  for (const d of made) fs.rmSync(d, { recursive: true, force: true });
});

const REPO = {
  'src/calc/__init__.py': '',
  'src/calc/ops.py': 'import helperlib\n\n\ndef double(x):\n    return x\n',
  'tests/__init__.py': '',
  'tests/test_ops.py':
    'import os\nimport unittest\nfrom calc.ops import double\n\n\nclass T(unittest.TestCase):\n    def test_double(self):\n        self.assertEqual(double(21), 42)\n\n    def test_env(self):\n        self.assertEqual(os.environ.get("CALC_MODE"), "strict")\n',
};

describe('the project’s own environment', () => {
  let dir: string;
  let venv: string;
  let validator: Validator;

  beforeAll(async () => {
    // A world-readable folder: after the privilege drop the sandbox's uid must reach the virtualenv.
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'oc-env-'));
    made.push(dir);
    fs.chmodSync(dir, 0o755);
    venv = path.join(dir, 'venv');
    const r = spawnSync('/usr/bin/python3', ['-m', 'venv', '--without-pip', venv], { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`cannot make a virtualenv: ${r.stderr}`);
    // A package only the virtualenv has.
    const site = spawnSync(path.join(venv, 'bin', 'python'), ['-c', 'import sysconfig; print(sysconfig.get_paths()["purelib"])'], {
      encoding: 'utf8',
    }).stdout.trim();
    fs.writeFileSync(path.join(site, 'helperlib.py'), 'FACTOR = 2\n');
    spawnSync('chmod', ['-R', 'a+rX', dir]);
    validator = await createValidator({ validation: { timeoutFloorMs: 20_000 } });
  }, 60_000);

  afterAll(() => validator?.close());

  it('PYTHONPATH=src and VAR=value in front of the command, under the task’s virtualenv: the verdict shows them', async () => {
    const repo = makeRepo(REPO);
    made.push(repo);
    const lines = [
      JSON.stringify({ defaults: { python: path.relative(repo, venv) } }),
      JSON.stringify({
        id: 'env/double',
        repo: '.',
        file: 'src/calc/ops.py',
        qualname: 'double',
        requirement: '',
        signature: 'def double(x):',
        reference: 'def double(x):\n    return x * helperlib.FACTOR\n',
        test_command: 'PYTHONPATH=src CALC_MODE=strict python3 -m unittest tests.test_ops',
      }),
    ];
    fs.writeFileSync(path.join(repo, 'tasks.jsonl'), lines.join('\n') + '\n');
    const [task] = readManifest(path.join(repo, 'tasks.jsonl')).tasks as [Task];
    expect(task.python).toBe(venv);
    const ref = await validator.validateReference(task);
    expect(ref.status, `${ref.reason}\n${ref.stderr}`).toBe('passed');
    expect(ref.environment).toMatchObject({ env: { PYTHONPATH: 'src', CALC_MODE: 'strict' } });
    expect(ref.environment!.python.startsWith(venv)).toBe(true);
    expect(ref.target).toMatchObject({ expectedFile: 'src/calc/ops.py', loadedFrom: 'src/calc/ops.py' });
    const wrong = await validator.validate(task, 'def double(x):\n    return x + helperlib.FACTOR\n');
    expect(wrong.status).toBe('failed');
    expect(wrong.tests.find((t) => t.id.endsWith('test_double'))?.outcome).toBe('failed');
    expect(wrong.tests.find((t) => t.id.endsWith('test_env'))?.outcome).toBe('passed');
  });

  it('an interpreter the sandbox’s uid cannot reach is a task error naming the folder and the fix', async () => {
    if ((await detectSandbox()).uid === null) return; // nothing is dropped when not running as root
    const hidden = fs.mkdtempSync(path.join(os.tmpdir(), 'oc-private-'));
    made.push(hidden);
    fs.chmodSync(hidden, 0o700);
    const priv = path.join(hidden, 'venv');
    spawnSync('/usr/bin/python3', ['-m', 'venv', '--without-pip', priv]);
    const repo = makeRepo(REPO);
    made.push(repo);
    const task: Task = {
      id: 'env/private',
      repo: '.',
      repoPath: repo,
      file: 'src/calc/ops.py',
      qualname: 'double',
      requirement: '',
      signature: 'def double(x):',
      test_command: 'PYTHONPATH=src python3 -m unittest tests.test_ops',
      python: priv,
    };
    await expect(validator.validate(task, 'def double(x):\n    return 2 * x\n')).rejects.toThrow(
      /env\/private: its interpreter .* is unreachable for the sandbox's uid 65534: .*oc-private-.* is not searchable by others/,
    );
  });
});

describe('test commands are checked when the manifest loads', () => {
  it('a command the validator cannot run is refused with the file and line, before anything runs', () => {
    const d = tmpDir('oc-cmd-');
    made.push(d);
    const ok = { id: 'a', repo: '.', file: 'm.py', qualname: 'f', requirement: '', signature: 'def f():', test_command: 'python3 -m pytest -q' };
    fs.writeFileSync(
      path.join(d, 'tasks.jsonl'),
      [ok, { ...ok, id: 'b', test_command: 'PYTHONPATH=. bash run_tests.sh' }].map((x) => JSON.stringify(x)).join('\n') + '\n',
    );
    expect(() => readManifest(path.join(d, 'tasks.jsonl'))).toThrow(ManifestError);
    expect(() => readManifest(path.join(d, 'tasks.jsonl'))).toThrow(/tasks\.jsonl:2 \(task b\): unsupported test_command "PYTHONPATH=\. bash run_tests\.sh"/);
    fs.writeFileSync(path.join(d, 'bad-defaults.jsonl'), JSON.stringify({ defaults: { interpreter: 'x' } }) + '\n');
    expect(() => readManifest(path.join(d, 'bad-defaults.jsonl'))).toThrow(/bad-defaults\.jsonl:1: defaults: .*interpreter/);
  });
});

describe('timing-dependent verdicts', () => {
  it('a run near its limit is rerun; when the two runs disagree the verdict is flaky with both outcomes', async () => {
    // Weak mode as the current user: a marker in a folder outside the workspace survives between the
    // two runs, so the first run is slow and wrong and the second fast and right.
    const marks = tmpDir('oc-flaky-');
    made.push(marks);
    const repo = makeRepo({
      'm.py': 'def f(x):\n    return x\n',
      'test_m.py': 'import unittest\nfrom m import f\n\n\nclass T(unittest.TestCase):\n    def test_f(self):\n        self.assertEqual(f(1), 2)\n',
    });
    made.push(repo);
    // The first run sleeps past 80 % of the limit (so it is rerun) and leaves 1 s for start-up on a loaded machine.
    const v = await createValidator({ sandbox: { mode: 'weak', setpriv: null }, validation: { timeoutFloorMs: 6000 } });
    try {
      const task: Task = {
        id: 'flaky/f',
        repo: '.',
        repoPath: repo,
        file: 'm.py',
        qualname: 'f',
        requirement: '',
        signature: 'def f(x):',
        test_command: 'python3 -m unittest test_m',
      };
      const mark = path.join(marks, 'seen');
      const code = `import os, time\n\ndef f(x):\n    if os.path.exists(${JSON.stringify(mark)}):\n        return x + 1\n    open(${JSON.stringify(mark)}, 'w').close()\n    time.sleep(5.0)\n    return x\n`;
      const verdict = await v.validate(task, code);
      expect(verdict.status).toBe('flaky');
      expect(verdict.flaky).toEqual({ outcomes: ['failed', 'passed'], reasons: [expect.stringMatching(/did not pass/), expect.stringMatching(/passed/)] });
      expect(verdict.sandbox.events.map((e) => e.kind)).toContain('rerun');
      // A steady verdict far from the limit is not rerun.
      const steady = await v.validate(task, 'def f(x):\n    return x + 1\n');
      expect(steady.status).toBe('passed');
      expect(steady.sandbox.events.map((e) => e.kind)).not.toContain('rerun');
    } finally {
      v.close();
    }
  }, 60_000);
});
