// Sandbox mode detection and fallback, calibrated timeouts, test-command parsing, cleanup.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_CONFIG } from '../../main/model/config.ts';
import { removeTree } from '../../main/validate/cleanup.ts';
import { detectSandbox, SandboxUnavailableError } from '../../main/validate/sandbox.ts';
import { createValidator } from '../../main/validate/validator.ts';
import { parseTestCommand, planTask, shellWords, timeoutFor } from '../../main/validate/task-plan.ts';
import { GOOD, templateTask } from './helpers.ts';
import { needsStrongSandbox } from '../helpers/system.ts';

const STRONG = await needsStrongSandbox();

describe('sandbox modes', () => {
  it('falls back to the labelled weak mode when bubblewrap is missing, and still validates', async () => {
    const info = await detectSandbox({ bwrap: '/nonexistent/bwrap' });
    expect(info.strength).toBe('weak');
    expect(info.label).toMatch(/^weak: bubblewrap \(bwrap\) is not installed/);
    // As root each weak run gets PID and network namespaces of its own (util-linux unshare); otherwise neither processes nor
    // the network are isolated.
    expect(info.label).toMatch(
      process.getuid?.() === 0
        ? /each run as a uid of its own \(2000000000\+\), an isolated run's tests and candidate as two, own PID namespace, own network namespace \(no network, loopback its own\); NO filesystem isolation$/
        : /NO filesystem or network isolation, NO process isolation, and the candidate runs as this user, so it can change what the tests read \(its process limit counts above this user’s own processes\)$/,
    );
    const v = await createValidator({ sandbox: { bwrap: '/nonexistent/bwrap' } });
    const good = await v.validate(templateTask('weak/f'), GOOD);
    expect(good.status).toBe('passed');
    expect(good.sandbox.strength).toBe('weak');
    expect(good.sandbox.label).toBe(info.label);
  });

  it('a setting that requires the strong mode refuses to run without it', async () => {
    await expect(detectSandbox({ mode: 'strong', bwrap: '/nonexistent/bwrap' })).rejects.toThrow(SandboxUnavailableError);
    await expect(createValidator({ sandbox: { mode: 'strong', bwrap: '/nonexistent/bwrap' } })).rejects.toThrow(/strong sandbox is required/);
  });

  it('falls back when the bubblewrap probe fails (a bwrap that cannot run)', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'oc-fakebwrap-'));
    try {
      fs.chmodSync(dir, 0o755); // setpriv runs it as uid 65534
      const fake = path.join(dir, 'bwrap');
      fs.writeFileSync(fake, '#!/bin/sh\necho "bwrap: No permissions to create new namespace" >&2\nexit 1\n', { mode: 0o755 });
      const info = await detectSandbox({ bwrap: fake });
      expect(info.strength).toBe('weak');
      expect(info.fallbackReason).toMatch(/probe failed \(bwrap: No permissions/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it.skipIf(STRONG.skip)(`uses bubblewrap with a dropped uid where it is available${STRONG.note}`, async () => {
    const info = await detectSandbox();
    expect(info.strength).toBe('strong');
    expect(info.label).toMatch(/^strong: bubblewrap/);
    if (process.getuid?.() === 0) expect(info.uid).toBe(65534);
  });
});

describe('calibrated time limits', () => {
  const v = DEFAULT_CONFIG.validation;
  it('scales the reference run time by the factor within floor and ceiling', () => {
    expect(timeoutFor({ reference_runtime_ms: 1000 }, v)).toBe(20_000);
    expect(timeoutFor({ reference_runtime_ms: 10 }, v)).toBe(v.timeoutFloorMs);
    expect(timeoutFor({ reference_runtime_ms: 60_000 }, v)).toBe(v.timeoutCeilingMs);
    expect(timeoutFor({}, v)).toBe(v.timeoutFloorMs);
    expect(timeoutFor({ reference_runtime_ms: 700 }, { ...v, timeoutFactor: 3, timeoutFloorMs: 500 })).toBe(2100);
  });

  it('every verdict carries the limit it ran under', async () => {
    const val = await createValidator({ validation: { timeoutFloorMs: 1500, timeoutFactor: 4 } });
    const t = templateTask('limits/f', undefined, { reference_runtime_ms: 1000 });
    expect(planTask(t, val.validation).timeoutMs).toBe(4000);
    expect((await val.validate(t, GOOD)).timeoutMs).toBe(4000);
  });
});

describe('test commands', () => {
  it('splits words like a shell and recognises unittest and pytest forms', () => {
    expect(shellWords(`python3 -m unittest "tests.test x" 'a b' c\\ d`)).toEqual(['python3', '-m', 'unittest', 'tests.test x', 'a b', 'c d']);
    const plain = { env: {}, pythonPath: [], interpreter: null };
    expect(parseTestCommand('python3 -m unittest tests.test_x', 't')).toEqual({ mode: 'unittest', args: ['tests.test_x'], ...plain });
    expect(parseTestCommand('/usr/bin/python3.11 -B -X dev -m pytest -q tests/test_x.py', 't')).toEqual({
      mode: 'pytest',
      args: ['-q', 'tests/test_x.py'],
      env: {},
      pythonPath: [],
      interpreter: '/usr/bin/python3.11',
    });
    expect(parseTestCommand('pytest tests', 't')).toEqual({ mode: 'pytest', args: ['tests'], ...plain });
    // environment assignments in front, as a shell reads them; PYTHONPATH's entries kept apart
    expect(parseTestCommand('PYTHONPATH=.:src DEBUG="a b" python3 -m unittest -q test.test_textwrap', 't')).toEqual({
      mode: 'unittest',
      args: ['-q', 'test.test_textwrap'],
      env: { PYTHONPATH: '.:src', DEBUG: 'a b' },
      pythonPath: ['.', 'src'],
      interpreter: null,
    });
    expect(parseTestCommand('.venv/bin/pytest -x', 't').interpreter).toBe('.venv/bin/python');
    expect(() => parseTestCommand('PYTHONHOME=/x python3 -m pytest', 't')).toThrow(/sets PYTHONHOME/);
    expect(() => parseTestCommand('PYTHONPATH=. make test', 't')).toThrow(/unsupported test_command/);
    expect(() => parseTestCommand('bash run_tests.sh', 'my/task')).toThrow(/my\/task: unsupported test_command/);
  });
});

describe('workspace cleanup', () => {
  it('removes unreadable folders and never follows planted symlinks', () => {
    const outside = fs.mkdtempSync(path.join(os.tmpdir(), 'oc-outside-'));
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'oc-clean-'));
    try {
      fs.writeFileSync(path.join(outside, 'keep'), 'keep');
      fs.mkdirSync(path.join(root, 'a', 'b', 'c'), { recursive: true });
      fs.writeFileSync(path.join(root, 'a', 'b', 'c', 'f'), 'x');
      fs.symlinkSync(outside, path.join(root, 'a', 'to-outside'));
      fs.symlinkSync(path.join(outside, 'keep'), path.join(root, 'a', 'b', 'to-file'));
      fs.symlinkSync('/nonexistent', path.join(root, 'dangling'));
      // nested past PATH_MAX (made with relative paths, as a candidate would)
      const cwd = process.cwd();
      try {
        process.chdir(root);
        for (let i = 0; i < 60; i++) {
          fs.mkdirSync('d'.repeat(100));
          process.chdir('d'.repeat(100));
        }
      } finally {
        process.chdir(cwd);
      }
      for (const d of ['a/b/c', 'a/b', 'a']) fs.chmodSync(path.join(root, d), 0);
      expect(removeTree(root)).toBeNull();
      expect(fs.existsSync(root)).toBe(false);
      expect(fs.readFileSync(path.join(outside, 'keep'), 'utf8')).toBe('keep');
    } finally {
      fs.rmSync(outside, { recursive: true, force: true });
      if (fs.existsSync(root)) fs.rmSync(root, { recursive: true, force: true });
    }
  });
});
