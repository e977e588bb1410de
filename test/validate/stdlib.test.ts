// CPython's own standard library as the repository, with CPython's own unittest suites as the tests:
// references pass and `raise NotImplementedError` stubs fail, also for modules the runner itself
// (or the old harness) would have imported first (textwrap, tokenize, ast, json). A target in a
// module the interpreter loads at start-up cannot be exercised, and the verdict says so.

import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readManifest } from '../../main/benchmarks/manifest-file.ts';
import type { Task } from '../../main/model/task.ts';
import { createValidator, type Validator } from '../../main/validate/validator.ts';
import { copyStdlib, sourceOf, stub } from '../helpers/stdlib-copy.ts';
import { tmpDir } from '../helpers/tmp-repo.ts';
import { needs } from '../helpers/system.ts';
import { cpythonTestSuite } from '../../scripts/system-packages.mjs';

// An interpreter whose standard library ships CPython's test suite (Debian's does with libpython3.11-testsuite).
const found = cpythonTestSuite();
const SUITE = needs('libpython3.11-testsuite');

// The suites used here, the packages they read, and the files test_tokenize's round trip reads (it
// removes seven by name and samples ten of the rest).
const TEST_PARTS = [
  'typinganndata',
  'tokenizedata',
  'test_textwrap.py',
  'test_tokenize.py',
  'test_grammar.py',
  'test_ast.py',
  'test_json',
  ...['unicode_identifiers', 'buffer', 'builtin', 'fileio', 'os', 'platform', 'sys', 'bool', 'int', 'list', 'dict', 'set', 'string', 'tuple'].map(
    (n) => `test_${n}.py`,
  ),
];

const TARGETS = [
  { id: 'stdlib/textwrap.dedent', file: 'textwrap.py', qualname: 'dedent', command: 'PYTHONPATH=. python3 -m unittest -q test.test_textwrap' },
  { id: 'stdlib/tokenize.Untokenizer.untokenize', file: 'tokenize.py', qualname: 'Untokenizer.untokenize', command: 'python3 -m unittest test.test_tokenize' },
  { id: 'stdlib/ast.get_source_segment', file: 'ast.py', qualname: 'get_source_segment', command: 'python3 -m unittest -k source_segment test.test_ast' },
  { id: 'stdlib/json.dumps', file: 'json/__init__.py', qualname: 'dumps', command: 'python3 -m unittest test.test_json.test_dump' },
  // posixpath is loaded before any test runs (os imports it at start-up): it cannot be exercised.
  { id: 'stdlib/posixpath.basename', file: 'posixpath.py', qualname: 'basename', command: 'python3 -m unittest test.test_textwrap' },
];

describe.skipIf(SUITE.skip)(`the standard library as a repository (CPython’s own tests)${SUITE.note}`, () => {
  let dir: string;
  let tasks: Task[];
  let validator: Validator;

  beforeAll(async () => {
    dir = tmpDir('oc-stdlib-');
    copyStdlib(found!.stdlib, path.join(dir, 'repo'), TEST_PARTS);
    const lines = TARGETS.map((t) =>
      JSON.stringify({
        id: t.id,
        repo: 'repo',
        file: t.file,
        qualname: t.qualname,
        requirement: '',
        signature: sourceOf(found!.python, path.join(dir, 'repo', t.file), t.qualname).split('\n')[0],
        reference: sourceOf(found!.python, path.join(dir, 'repo', t.file), t.qualname),
        test_command: t.command,
      }),
    );
    // The interpreter comes from the manifest's defaults line, as a project names its own.
    fs.writeFileSync(path.join(dir, 'tasks.jsonl'), [JSON.stringify({ defaults: { python: found!.python } }), ...lines].join('\n') + '\n');
    tasks = readManifest(path.join(dir, 'tasks.jsonl')).tasks;
    // The interpreter may sit under a private home (pyenv under /root): weak mode, no uid change.
    validator = await createValidator({ sandbox: { mode: 'weak', setpriv: null }, validation: { timeoutFloorMs: 60_000 }, concurrency: 2 });
  }, 120_000);

  afterAll(() => {
    validator?.close();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('references pass against the workspace copy and NotImplementedError stubs fail', async () => {
    const byId = new Map(tasks.map((t) => [t.id, t]));
    const results = await Promise.all(
      TARGETS.slice(0, 4).map(async ({ id, file }) => {
        const t = byId.get(id)!;
        expect(t.python).toBe(found!.python);
        const check = await validator.referenceCheck(t);
        const ref = await validator.validateReference(t, { isolation: check.isolation });
        const bad = await validator.validate(t, stub(t.reference!));
        return { id, file, ref, bad };
      }),
    );
    for (const { id, file, ref, bad } of results) {
      expect(ref.status, `${id}: ${ref.reason}\n${ref.stderr.slice(-1500)}`).toBe('passed');
      expect(ref.target, id).toMatchObject({ expectedFile: file, loadedFrom: file });
      expect(ref.target!.calls, id).toBeGreaterThan(0);
      expect(ref.environment?.python, id).toBe(found!.python);
      expect(bad.status, `${id}: ${bad.reason}`).toBe('failed');
      expect(bad.expectedFrom, id).toBe('reference');
      expect(
        bad.tests.some((x) => /NotImplementedError/.test(x.message ?? '')),
        id,
      ).toBe(true);
    }
    // The environment assignment in front of the command reached the tests and the verdict.
    expect(results[0]!.ref.environment?.env).toEqual({ PYTHONPATH: '.' });
  }, 300_000);

  it('a target the interpreter loaded before the tests is never passed: the verdict says it was not exercised', async () => {
    const t = tasks.find((x) => x.id === 'stdlib/posixpath.basename')!;
    // Isolated, the candidate process refuses to serve the interpreter's own copy: a load error, never a pass.
    const isolated = await validator.validateReference(t, { isolation: 'isolated' });
    expect(isolated.status).not.toBe('passed');
    expect(isolated.reason).toMatch(/posixpath.*not from the workspace copy/s);
    const v = await validator.validateReference(t, { isolation: 'in-process' });
    expect(v.status).toBe('error');
    expect(v.reason).toMatch(
      /did not exercise the candidate: they imported the target's module from \/.*posixpath\.py, not from the workspace copy posixpath\.py/,
    );
    await expect(validator.validate(t, stub(t.reference!))).rejects.toThrow(/its reference does not pass its own tests/);
  }, 120_000);
});
