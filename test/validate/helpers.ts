// Shared pieces of the validator tests: tiny check-template tasks, the bench folder, a Python
// driver for the static checker.

import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Task } from '../../main/model/task.ts';
import { HARNESS_DIR, defaultPython } from '../../main/validate/sandbox.ts';
import { createValidator, type Validator } from '../../main/validate/validator.ts';

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const SAMPLE_REPO = path.join(REPO_ROOT, 'resources', 'sample-repo');

export function benchDir(): string {
  return process.env.OPENCODER_BENCH_DIR ? path.resolve(process.env.OPENCODER_BENCH_DIR) : path.resolve(REPO_ROOT, '..', 'shared', 'bench');
}

export const PLACEHOLDER = '# <<FOCAL_FUNCTION>>';

/**
 * A check program as RepoExec-inline ships them: a timeout_decorator shim in sys.modules and tests decorated with it,
 * each looking at f in its own place (1, 41, -1). `before` goes before the candidate; `test0` is test_0's body (RepoExec
 * pickles expected values).
 */
export function shimmedCheck(opts: { before?: string; test0?: string } = {}): string {
  return `import sys, os, types, signal, json, traceback, pickle, unittest
import math

class _TimeoutDecoratorShim(types.ModuleType):
    def timeout(self, *a, **k):
        def deco(f):
            return f
        return deco
sys.modules.setdefault("timeout_decorator", _TimeoutDecoratorShim("timeout_decorator"))
import timeout_decorator

OFFSET = 1

${opts.before ?? ''}${PLACEHOLDER}

# --- tests ---
LOCAL_TIMEOUT = 5

@timeout_decorator.timeout(LOCAL_TIMEOUT)
def test_0():
${opts.test0 ?? '    assert f(1) == 2'}

@timeout_decorator.timeout(LOCAL_TIMEOUT)
def test_1():
    assert f(41) == 42

@timeout_decorator.timeout(LOCAL_TIMEOUT)
def test_2():
    assert f(-1) == 0
`;
}

/** A standalone check program in the RepoExec-inline shape: f(x) must return x + 1. */
export const TEMPLATE = `import sys, os, json
from typing import *

OFFSET = 1

${PLACEHOLDER}

# --- tests ---
def test_0():
    assert f(1) == 2

def test_1():
    assert f(41) == 42

def test_2():
    assert f(-1) == 0

def __repoexec_run_all(per_test_timeout=5):
    pass

if __name__ == "__main__":
    __repoexec_run_all()
`;

export const GOOD = 'def f(x):\n    return x + OFFSET\n';

/** The test ids of a unittest module's source: module.Class.test_name for each test method. */
export function unittestIds(module: string, src: string): string[] {
  const ids: string[] = [];
  let cls = '';
  for (const m of src.matchAll(/^class (\w+)\(unittest\.TestCase\)|^ {4}def (test_\w+)/gm)) {
    if (m[1]) cls = m[1];
    else ids.push(`${module}.${cls}.${m[2]}`);
  }
  return ids;
}

export function templateTask(id = 'tiny/f', template = TEMPLATE, extra: Partial<Task> = {}): Task {
  return {
    id,
    repo: '.',
    repoPath: REPO_ROOT,
    file: 'x.py',
    qualname: 'f',
    requirement: 'return x + 1',
    signature: 'def f(x):',
    reference: GOOD,
    check_template: template,
    placeholder: PLACEHOLDER,
    ...extra,
  };
}

/** Runs the static checker in-process in Python on (target, candidate); returns its analysis. */
export function analyze(
  target: Record<string, unknown>,
  candidate: string,
  root = '/nonexistent',
): {
  findings: { kind: string; severity: string; message: string; line?: number; name?: string }[];
  blocking: boolean;
  spliced: string | null;
} {
  const driver = [
    'import json, sys',
    `sys.path.insert(0, ${JSON.stringify(HARNESS_DIR)})`,
    'import _opencoder_check as c',
    'd = json.load(sys.stdin)',
    'print(json.dumps(c.analyze(d["target"], d["candidate"], d["root"], sys.path[1:])))',
  ].join('\n');
  const r = spawnSync(defaultPython(), ['-I', '-B', '-c', driver], {
    input: JSON.stringify({ target, candidate, root }),
    encoding: 'utf8',
    timeout: 30_000,
  });
  if (r.status !== 0) throw new Error(`checker failed: ${r.stderr}`);
  return JSON.parse(r.stdout);
}

export function readJsonl<T = Record<string, unknown>>(file: string): T[] {
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as T);
}

/** Host processes whose command line holds `marker` (a hostile candidate's leftovers). */
export function processesWith(marker: string): number[] {
  const found: number[] = [];
  for (const pid of fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      if (fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(marker)) found.push(Number(pid));
    } catch {
      /* gone */
    }
  }
  return found;
}

let pytestMemo: string | null | undefined;
/** A python3 on PATH that has pytest (the pytest shape of the in-process checks), or null; said once when there is none. */
export function pytestPython(): string | null {
  if (pytestMemo === undefined) {
    const r = spawnSync('python3', ['-c', 'import pytest, sys; print(sys.executable)'], { encoding: 'utf8' });
    pytestMemo = r.status === 0 ? r.stdout.trim() : null;
    if (!pytestMemo) console.warn('[validate] no python3 with pytest on PATH: the pytest shape of the in-process checks is skipped');
  }
  return pytestMemo;
}

/** The in-process validators those tests share: the default interpreter's, and (where there is one) pytest's python3. */
export async function inProcessValidators(): Promise<{ validator: Validator; pyValidator: Validator | null }> {
  const validator = await createValidator({ validation: { timeoutFloorMs: 10_000 }, concurrency: 2, isolation: 'in-process' });
  const python = pytestPython();
  const pyValidator = python
    ? await createValidator({
        sandbox: { mode: 'weak', setpriv: null, python },
        validation: { timeoutFloorMs: 20_000 },
        concurrency: 2,
        isolation: 'in-process',
      })
    : null;
  return { validator, pyValidator };
}
