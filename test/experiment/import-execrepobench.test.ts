// The ExecRepoBench importer on synthetic records: runnable ones (a test_command, an
// evaluate_repo.py), ones without tests, a malformed line, hostile paths, module-level spans;
// the validator runs an imported task.

import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVALUATE_REPO_COMMAND, ExecRepoBenchImportError, importExecRepoBench, type ExecRepoBenchImportResult } from '../../main/benchmarks/execrepobench.ts';
import { readManifest } from '../../main/benchmarks/manifest-file.ts';
import { main } from '../../main/host/cli/main.ts';
import { createValidator, type Validator } from '../../main/validate/validator.ts';
import { tmpDir } from '../helpers/tmp-repo.ts';

const cleanup: string[] = [];
afterAll(() => {
  for (const d of cleanup.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});
function freshDir(prefix: string): string {
  const d = tmpDir(prefix);
  cleanup.push(d);
  return d;
}

const MATHX = [
  'import math',
  '',
  '',
  'def area(r):',
  '    """Area of a circle of radius r; a negative radius raises ValueError."""',
  '    if r < 0:',
  '        raise ValueError("negative radius")',
  '    return math.pi * r * r',
  '',
  '',
  'class Shape:',
  '    def __init__(self, n):',
  '        self.n = n',
  '',
  '    def sides(self):',
  '        def twice(v):',
  '            return v * 2',
  '        return twice(self.n)',
  '',
  '',
  'LIMIT = 10',
  '',
].join('\n');

const TESTS = [
  'import math',
  'import unittest',
  'from pkg.mathx import Shape, area',
  '',
  '',
  'class TestMathx(unittest.TestCase):',
  '    def test_area(self):',
  '        self.assertAlmostEqual(area(2), 4 * math.pi)',
  '',
  '    def test_negative(self):',
  '        with self.assertRaises(ValueError):',
  '            area(-1)',
  '',
  '    def test_sides(self):',
  '        self.assertEqual(Shape(3).sides(), 6)',
  '',
].join('\n');

/** A record whose middle is the given (1-based, inclusive) lines of MATHX. */
function masked(from: number, to: number, extra: Record<string, unknown> = {}) {
  const lines = MATHX.split('\n');
  const prefix = lines.slice(0, from - 1).join('\n') + '\n';
  const middle = lines.slice(from - 1, to).join('\n') + '\n';
  const suffix = lines.slice(to).join('\n');
  expect(prefix + middle + suffix).toBe(MATHX);
  return {
    repo_name: 'demo/mathx',
    file_name: 'pkg/mathx.py',
    prefix_code: prefix,
    middle_code: middle,
    suffix_code: suffix,
    context_code: [
      ['pkg/__init__.py', ''],
      ['tests/test_mathx.py', TESTS],
    ],
    fill_type: 'Random Multi-line Completion',
    ...extra,
  };
}

const line = (o: unknown) => JSON.stringify(o);

function stage(): { records: string; root: string } {
  const root = freshDir('oc-erb-');
  const records = path.join(root, 'records.jsonl');
  const rows = [
    line(masked(6, 8, { task_id: 'erb-area', test_command: 'python3 -m unittest tests.test_mathx' })), // 1: runnable
    line(masked(17, 17, { task_id: 'erb-sides', test_command: 'python3 -m unittest tests.test_mathx', fill_type: 'grammar-based: statement' })), // 2: nested def → Shape.sides
    line(
      masked(7, 7, {
        task_id: 'erb-eval',
        context_code: [
          ['evaluate_repo.py', 'import sys\nsys.exit(0)\n'],
          ['tests/test_mathx.py', TESTS],
        ],
      }),
    ), // 3: evaluate_repo.py
    line(masked(7, 7, { task_id: 'erb-none' })), // 4: no tests
    '{"repo_name": "broken", ', // 5: malformed
    line(masked(7, 7, { task_id: 'erb-hostile', test_command: 'python3 -m unittest', context_code: [['../../outside.py', 'x = 1\n']] })), // 6
    line(masked(7, 7, { task_id: 'erb-absolute', test_command: 'python3 -m unittest', file_name: '/tmp/abs.py' })), // 7
    line(masked(21, 21, { task_id: 'erb-module', test_command: 'python3 -m unittest' })), // 8: module level
    line({ task_id: 'erb-invalid', repo_name: 'x', file_name: 'a.py' }), // 9: fields missing
    line(masked(7, 7, { task_id: 'erb-area', test_command: 'python3 -m unittest' })), // 10: duplicate id
    line(masked(7, 7, { test_command: 'python3 -m unittest', file_name: 'docs/readme.md' })), // 11: not python, no task_id
    '',
  ];
  fs.writeFileSync(records, rows.join('\n'));
  return { records, root };
}

describe('importExecRepoBench on synthetic records', () => {
  let s: ReturnType<typeof stage>;
  let out: string;
  let r: ExecRepoBenchImportResult;
  let validator: Validator;

  beforeAll(async () => {
    s = stage();
    out = path.join(s.root, 'out');
    r = await importExecRepoBench({ recordsFile: s.records, outDir: out });
    validator = await createValidator({ validation: { timeoutFloorMs: 20_000 } });
    if (validator.sandbox.strength !== 'strong') console.warn(`[import-execrepobench] validator runs in ${validator.sandbox.label}`);
  });
  afterAll(() => validator?.close());

  it('writes a manifest that reads back, with the innermost addressable def as target', () => {
    const m = readManifest(r.manifestFile);
    expect(m.tasks.map((t) => t.id)).toEqual(['erb-area', 'erb-sides']);
    const area = m.tasks[0]!;
    expect(area).toMatchObject({
      repo: 'repos/erb-area',
      file: 'pkg/mathx.py',
      qualname: 'area',
      signature: 'def area(r):',
      requirement: 'Area of a circle of radius r; a negative radius raises ValueError.',
      test_command: 'python3 -m unittest tests.test_mathx',
    });
    expect(area.reference).toBe(MATHX.split('\n').slice(3, 8).join('\n') + '\n');
    expect(area.source).toMatchObject({
      benchmark: 'execrepobench',
      repo_name: 'demo/mathx',
      middle_lines: [6, 8],
      target_lines: [4, 8],
      test_source: 'test_command',
    });
    expect(fs.readFileSync(path.join(area.repoPath, 'pkg/mathx.py'), 'utf8')).toBe(MATHX);
    expect(fs.readFileSync(path.join(area.repoPath, 'tests/test_mathx.py'), 'utf8')).toBe(TESTS);
    const sides = m.tasks[1]!;
    expect(sides).toMatchObject({ qualname: 'Shape.sides', signature: 'def sides(self):', requirement: 'Implement `sides(self)`.' });
    expect(sides.reference!.startsWith('def sides(self):\n    def twice(v):\n')).toBe(true);
    // evaluate_repo.py cannot be validated: listed, not written (a manifest with it would be refused)
    expect(r.unsupportedCommands).toEqual([expect.objectContaining({ id: 'erb-eval', command: EVALUATE_REPO_COMMAND })]);
    expect(r.byFillType['grammar-based: statement']).toEqual({ records: 1, tasks: 1 });
  });

  it('lists every record that is not a task in IMPORT.md with its reason', () => {
    expect(r.counts).toMatchObject({ records: 10, tasks: 2, dropped: 8, malformed: 1 });
    expect(r.dropped).toEqual({
      'duplicate-id': 1,
      'invalid-record': 1,
      'no-enclosing-function': 1,
      'no-tests': 1,
      'not-python': 1,
      'unsafe-path': 2,
      'unsupported-test-command': 1,
    });
    const report = fs.readFileSync(r.reportFile, 'utf8');
    const expectations: [string, string, RegExp][] = [
      ['no-tests', 'erb-none', /no test_command and no evaluate_repo\.py/],
      ['unsafe-path', 'erb-hostile', /context_code path "\.\.\/\.\.\/outside\.py" contains \.\./],
      ['unsafe-path', 'erb-absolute', /file_name "\/tmp\/abs\.py" is absolute/],
      ['no-enclosing-function', 'erb-module', /lines 21-21 of pkg\/mathx\.py are not inside a function or method/],
      ['invalid-record', 'erb-invalid', /missing or not a string: prefix_code, middle_code, suffix_code/],
      ['duplicate-id', 'erb-area', /already used by an earlier record/],
      ['not-python', 'execrepobench-11', /docs\/readme\.md is not a \.py file/],
      ['unsupported-test-command', 'erb-eval', /evaluate_repo\.py.*cannot be validated/],
    ];
    for (const [reason, id, msg] of expectations) {
      const section = report.split(`### ${reason} (`)[1]!.split('\n### ')[0]!;
      const entry = section.split('\n').find((l) => l.startsWith(`- \`${id}\``));
      expect(entry, `${reason} ${id}`).toBeDefined();
      expect(entry).toMatch(msg);
    }
    expect(report).toContain('accounted for: 2 + 8 = 10 of 10 records');
    expect(report).toMatch(/Test commands the validator cannot run yet[\s\S]*`erb-eval`/);
  });

  it('warns about the malformed line and names the hostile records; nothing lands outside the output folder', () => {
    expect(r.warnings.find((w) => w.reason === 'malformed-json')).toMatchObject({ file: s.records, line: 5 });
    const unsafe = r.warnings.filter((w) => w.reason === 'unsafe-path');
    expect(unsafe.map((w) => w.line)).toEqual([6, 7]);
    expect(unsafe[0]!.message).toMatch(/record erb-hostile \(demo\/mathx\) refused: context_code path "\.\.\/\.\.\/outside\.py" contains \.\./);
    expect(unsafe[1]!.message).toMatch(/record erb-absolute .* refused: file_name "\/tmp\/abs\.py" is absolute/);
    expect(fs.existsSync(path.join(s.root, 'outside.py'))).toBe(false);
    expect(fs.existsSync(path.join(out, 'outside.py'))).toBe(false);
    expect(fs.existsSync('/tmp/abs.py')).toBe(false);
    expect(fs.readdirSync(path.join(out, 'repos')).sort()).toEqual(['erb-area', 'erb-sides']);
  });

  it('the imported task: its reference passes and a NotImplementedError body fails', async () => {
    const m = readManifest(r.manifestFile);
    for (const id of ['erb-area', 'erb-sides']) {
      const t = m.tasks.find((x) => x.id === id)!;
      const ok = await validator.validateReference(t);
      expect(ok.status, `${id}: ${ok.reason}\n${ok.stderr}`).toBe('passed');
      const bad = await validator.validate(t, `${t.signature}\n    raise NotImplementedError\n`);
      expect(bad.status, id).toBe('failed');
    }
  });

  it('re-imports into its own folder, refuses a foreign one and a missing input', async () => {
    const again = await importExecRepoBench({ recordsFile: s.records, outDir: out });
    expect(again.counts.tasks).toBe(2);
    const foreign = freshDir('oc-erb-foreign-');
    fs.writeFileSync(path.join(foreign, 'keep.txt'), 'mine');
    await expect(importExecRepoBench({ recordsFile: s.records, outDir: foreign })).rejects.toThrow(ExecRepoBenchImportError);
    await expect(importExecRepoBench({ recordsFile: path.join(s.root, 'nope.jsonl'), outDir: path.join(s.root, 'x') })).rejects.toThrow(/does not exist/);
  });

  it('writes an empty manifest when no record is runnable', async () => {
    const f = path.join(s.root, 'none.jsonl');
    fs.writeFileSync(f, line(masked(7, 7, { task_id: 'only' })) + '\n');
    const n = await importExecRepoBench({ recordsFile: f, outDir: path.join(s.root, 'none-out') });
    expect(n.counts).toMatchObject({ records: 1, tasks: 0, dropped: 1 });
    expect(readManifest(n.manifestFile).tasks).toEqual([]);
  });

  it('runs through the CLI with --json and refuses options of other importers', async () => {
    const o = path.join(freshDir('oc-erb-cli-'), 'o');
    const lines: string[] = [];
    const code = await main(['import', 'execrepobench', s.records, '--out', o, '--json', '--quiet'], { out: (l) => lines.push(l), err: () => {} });
    expect(code).toBe(0);
    expect(JSON.parse(lines.at(-1)!)).toMatchObject({ ok: true, importer: 'execrepobench', counts: { tasks: 2, dropped: 8 }, dropped: { 'unsafe-path': 2 } });
    expect(await main(['import', 'execrepobench', s.records, '--out', o, '--templates', 'x'], { out: () => {}, err: () => {} })).toBe(2);
  });
});
