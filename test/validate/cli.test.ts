// `opencoder validate`: text and JSON verdicts, exit codes, usage errors.

import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { writeManifest } from '../../main/benchmarks/manifest-file.ts';
import { cli } from '../helpers/cli.ts';
import { tmpDir } from '../helpers/tmp-repo.ts';
import { GOOD, PLACEHOLDER, TEMPLATE } from './helpers.ts';

const dir = tmpDir('oc-validate-cli-');
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
const manifest = path.join(dir, 'tasks.jsonl');
writeManifest(manifest, [
  {
    id: 'tiny/f',
    repo: '.',
    file: 'x.py',
    qualname: 'f',
    requirement: 'return x + 1',
    signature: 'def f(x):',
    reference: GOOD,
    check_template: TEMPLATE,
    placeholder: PLACEHOLDER,
  },
  {
    id: 'tiny/noref',
    repo: '.',
    file: 'x.py',
    qualname: 'f',
    requirement: 'return x + 1',
    signature: 'def f(x):',
    check_template: TEMPLATE,
    placeholder: PLACEHOLDER,
  },
]);

describe('opencoder validate', () => {
  it('validates the reference (--reference) and prints the verdict', async () => {
    const r = await cli(['validate', '--manifest', manifest, '--id', 'tiny/f', '--reference']);
    expect(r.code).toBe(0);
    const text = r.out.join('\n');
    expect(text).toMatch(/Verdict: PASSED — all 3 expected tests passed/);
    expect(text).toMatch(/Sandbox: (strong|weak):/);
    expect(text).toMatch(/ok {3}test_0/);
    expect(text).toMatch(/Duration: \d+ ms \(limit \d+ ms\)/);
    expect(text).toMatch(/Interpreter: \S+python3\S* \(Python 3\.\d+\.\d+\)/);
    expect(text).toMatch(/Target: program\.py, loaded from program\.py, called \d+ time\(s\) while tests ran/);
    // Where the task's candidates are validated and why (the reference check), and where this verdict was decided.
    expect(text).toMatch(/^Reference check: passes; candidates (isolated|in-process) — \S/m);
    expect(text).toMatch(/^Isolation: (isolated|in-process) — \S/m);
  });

  it('--json says where the verdict was decided and why, and for --reference the reference check’s reason', async () => {
    const r = await cli(['validate', '--manifest', manifest, '--id', 'tiny/f', '--reference', '--json']);
    expect(r.code).toBe(0);
    const doc = r.json();
    expect(doc.isolation).toMatch(/^(isolated|in-process)$/);
    expect(typeof doc.isolationReason).toBe('string');
    expect(doc.isolationReason.length).toBeGreaterThan(0);
    expect(doc.referenceCheck).toMatchObject({ passes: true, isolation: doc.isolation });
    // The verdict's reason is the reference check's, where the check decided it.
    if (doc.verdict.isolation === doc.referenceCheck.isolation) expect(doc.isolationReason).toBe(doc.referenceCheck.isolationReason);
    expect(doc.verdict).toMatchObject({ isolation: doc.isolation, isolationReason: doc.isolationReason });
    const cand = path.join(dir, 'cand-ok.py');
    fs.writeFileSync(cand, GOOD);
    const c = (await cli(['validate', '--manifest', manifest, '--id', 'tiny/f', '--candidate', cand, '--json'])).json();
    expect(c.isolationReason).toBe(doc.isolationReason);
    expect(c.referenceCheck).toBeUndefined();
  });

  it('validates a candidate file; --json ends stdout with the verdict; a failing verdict exits 4', async () => {
    const cand = path.join(dir, 'cand.py');
    fs.writeFileSync(cand, 'def f(x):\n    return x + undefined_thing\n');
    const r = await cli(['validate', '--manifest', manifest, '--id', 'tiny/f', '--candidate', cand, '--json']);
    expect(r.code).toBe(4);
    const doc = r.json();
    expect(doc).toMatchObject({ ok: true, command: 'validate', task: 'tiny/f', candidate: cand });
    expect(doc.verdict.status).toBe('failed');
    expect(doc.verdict.tests).toHaveLength(3);
    expect(doc.verdict.tests[0]).toMatchObject({ id: 'test_0', outcome: 'failed' });
    expect(doc.verdict.findings[0]).toMatchObject({ kind: 'undefined-name', name: 'undefined_thing', line: 2 });
    expect(typeof doc.verdict.durationMs).toBe('number');
    expect(doc.verdict.sandbox.label).toBeTruthy();
    const text = await cli(['validate', '--manifest', manifest, '--id', 'tiny/f', '--candidate', cand]);
    expect(text.out.join('\n')).toMatch(/line 2: error undefined-name: undefined name 'undefined_thing'/);
    expect(text.out.join('\n')).toMatch(/FAIL test_1 \(failed\)/);
  });

  it('reports usage errors with exit 2', async () => {
    expect((await cli(['validate', '--manifest', manifest, '--id', 'tiny/f'])).code).toBe(2);
    expect((await cli(['validate', '--manifest', manifest, '--id', 'tiny/noref', '--reference'])).code).toBe(2);
    const missing = await cli(['validate', '--manifest', manifest, '--id', 'nope', '--reference', '--json']);
    expect(missing.code).toBe(1);
    expect(missing.json()).toMatchObject({ ok: false, command: 'validate' });
  });
});
