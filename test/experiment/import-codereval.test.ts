// The CoderEval importer: synthetic staged data (prompts, metadata, a records file, test templates)
// with a runnable record of each shape, records without tests, a malformed line and a hostile
// path; the validator runs the imported tasks; and the real staged data, when present.

import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CODEREVAL_TEMPLATE_TEST,
  CoderEvalImportError,
  checkProgramFromTemplate,
  importCoderEval,
  type CoderEvalImportResult,
  type ImportWarning,
} from '../../main/benchmarks/codereval.ts';
import { DEFAULT_PLACEHOLDER, type Task } from '../../main/model/task.ts';
import { readManifest } from '../../main/benchmarks/manifest-file.ts';
import { main } from '../../main/host/cli/main.ts';
import { createValidator, type Validator } from '../../main/validate/validator.ts';
import { tmpDir, writeFiles } from '../helpers/tmp-repo.ts';
import { NO_BENCH } from '../helpers/system.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const BENCH_ROOT = process.env.OPENCODER_BENCH_DIR ? path.resolve(process.env.OPENCODER_BENCH_DIR) : path.resolve(ROOT, '..', 'shared', 'bench');
const REAL = path.join(BENCH_ROOT, 'codereval');
const HAVE_REAL = fs.existsSync(path.join(REAL, 'CoderEval-Input4Models', 'CEPythonRaw.jsonl'));
if (!HAVE_REAL) {
  console.warn(`[import-codereval] real-data test skipped: no CoderEval data at ${REAL} (stage ../shared/bench/codereval or set OPENCODER_BENCH_DIR)`);
}

const cleanup: string[] = [];
afterAll(() => {
  for (const d of cleanup.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});
function freshDir(prefix: string): string {
  const d = tmpDir(prefix);
  cleanup.push(d);
  return d;
}

// ---------------------------------------------------------------------------------------------
// Synthetic staged data

const ID = {
  template: 'aaaaaaaaaaaaaaaaaaaaaa01', // add_one: runnable through a test template
  repo: 'aaaaaaaaaaaaaaaaaaaaaa02', // scale: runnable through a record's test_command
  none: 'aaaaaaaaaaaaaaaaaaaaaa03', // halve: no tests anywhere
  hostile: 'aaaaaaaaaaaaaaaaaaaaaa04', // evil: test_command, but a file_path that escapes
  badTemplate: 'aaaaaaaaaaaaaaaaaaaaaa05', // broken: its template has no marker
};

const ADD_ONE = 'def add_one(x):\n    """Return x plus one."""\n    return x + 1\n';
const SCALE_FILE = [
  'FACTOR = 3',
  '',
  '',
  'class Scaler:',
  '    def __init__(self, base):',
  '        self.base = base',
  '',
  '    def scale(self, x):',
  '        """Multiply x by FACTOR and add the base."""',
  '        return x * FACTOR + self.base',
  '',
].join('\n');
const SCALE_REF = 'def scale(self, x):\n    """Multiply x by FACTOR and add the base."""\n    return x * FACTOR + self.base\n';
const SCALE_TEST = [
  'import unittest',
  'from pkg.calc import Scaler',
  '',
  '',
  'class TestScale(unittest.TestCase):',
  '    def test_scale(self):',
  '        self.assertEqual(Scaler(1).scale(2), 7)',
  '',
  '    def test_zero(self):',
  '        self.assertEqual(Scaler(5).scale(0), 5)',
  '',
].join('\n');
const TEMPLATE = [
  '<insert generated code here>',
  '',
  '',
  'def test_add_one():',
  '    test_cases = dict()',
  '    try:',
  "        test_cases['test1'] = add_one(1) == 2",
  '    except Exception as error:',
  "        test_cases['test1'] = type(error).__name__",
  '    try:',
  "        test_cases['test2'] = add_one(-1) == 0",
  '    except Exception as error:',
  "        test_cases['test2'] = type(error).__name__",
  '    print(test_cases)',
  '',
  'if __name__ == "__main__":',
  '    test_add_one()',
  '',
].join('\n');

const line = (o: unknown) => JSON.stringify(o);

function prompt(id: string, signature: string, docstring: string) {
  return { question_id: id, input: `${signature}\n\t"""\n\t${docstring}\n\t"""\n\t`, signature, docstring };
}
function meta(id: string, name: string, level: string, filePath: string, passes: boolean[] = []) {
  return {
    _id: id,
    project: 'demo/demo',
    file_path: filePath,
    name,
    docstring: 'x',
    level,
    code: passes.map(() => 'def f(): pass'),
    generate_results: passes.map((p) => ({ generate_code: 'def f(): pass', is_pass: p, return_code: p ? 0 : 1 })),
  };
}

function stage(): { bench: string; records: string; templates: string; root: string } {
  const root = freshDir('oc-ce-');
  const bench = path.join(root, 'bench');
  writeFiles(bench, {
    'CoderEval-Input4Models/CEPythonRaw.jsonl': [
      line(prompt(ID.template, 'def add_one(x):', 'Return x plus one.')),
      line(prompt(ID.repo, 'def scale(self, x):', 'Multiply x by FACTOR and add the base.')),
      '{"question_id": "broken", "input": ', // malformed: line 3
      line(prompt(ID.none, 'def halve(x):', 'Half of x.')),
      line(prompt(ID.hostile, 'def evil():', 'Evil.')),
      line(prompt(ID.badTemplate, 'def broken():', 'Broken.')),
      '',
    ].join('\n'),
    'CoderEval-Input4Models/CEPythonHumanLabel.jsonl': [
      line(prompt(ID.template, 'def add_one(x):', 'Add one to the number.')),
      line(prompt(ID.repo, 'def scale(self, x):', 'Scale a value.')),
      line(prompt(ID.none, 'def halve(x):', 'Halve it.')),
      line(prompt(ID.hostile, 'def evil():', 'Evil.')),
      line(prompt(ID.badTemplate, 'def broken():', 'Broken.')),
      '',
    ].join('\n'),
    'experimental-results/GenerateResultPython/ChatGPT/Raw_Input.jsonl_out.jsonl': [
      line(meta(ID.template, 'add_one', 'self_contained', 'demo/ops.py', [true, false])),
      line(meta(ID.repo, 'scale', 'class_runnable', 'pkg/calc.py')),
      line(meta(ID.none, 'halve', 'slib_runnable', 'demo/ops.py')),
      line(meta(ID.hostile, 'evil', 'file_runnable', 'demo/evil.py')),
      line(meta(ID.badTemplate, 'broken', 'self_contained', 'demo/ops.py')),
      '',
    ].join('\n'),
  });
  const records = path.join(root, 'records.jsonl');
  fs.writeFileSync(
    records,
    [
      line({ _id: ID.template, name: 'add_one', code: ADD_ONE }),
      line({
        _id: ID.repo,
        name: 'scale',
        file_path: 'pkg/calc.py',
        file_content: SCALE_FILE,
        lineno: 8,
        code: SCALE_REF,
        test_command: 'python3 -m unittest tests.test_calc',
        test_files: { 'tests/test_calc.py': SCALE_TEST },
      }),
      line({ _id: ID.hostile, name: 'evil', file_path: '../../escaped.py', file_content: 'def evil():\n    pass\n', test_command: 'python3 -m unittest' }),
      '',
    ].join('\n'),
  );
  const templates = path.join(root, 'templates');
  writeFiles(templates, {
    [`add_one_${ID.template}.py`]: TEMPLATE,
    [`broken_${ID.badTemplate}.py`]: 'def test_broken():\n    print({"a": True})\n',
    'README.txt': 'not a template',
  });
  return { bench, records, templates, root };
}

function notImplemented(t: Task): string {
  return `${t.signature}\n    raise NotImplementedError\n`;
}

// ---------------------------------------------------------------------------------------------

describe('checkProgramFromTemplate', () => {
  it('turns the marker into the placeholder and appends the all-True check', () => {
    const p = checkProgramFromTemplate(TEMPLATE);
    if ('error' in p) throw new Error(p.error);
    expect(p.placeholder).toBe(DEFAULT_PLACEHOLDER);
    expect(p.template).not.toContain('<insert generated code here>');
    expect(p.template.split('\n')).toContain(DEFAULT_PLACEHOLDER);
    expect(p.template).toContain(`def ${CODEREVAL_TEMPLATE_TEST}():`);
  });

  it('indents a marker that sits between two methods of a class, and keeps __future__ imports first', () => {
    const t = [
      'from __future__ import annotations',
      'class Box:',
      '    def __init__(self, v):',
      '        self.v = v',
      '',
      '<insert generated code here>',
      '',
      '    def other(self):',
      '        return 0',
      '',
      'print({"t": Box(2).get() == 2})',
    ].join('\n');
    const p = checkProgramFromTemplate(t);
    if ('error' in p) throw new Error(p.error);
    expect(p.template).toContain(`\n    ${DEFAULT_PLACEHOLDER}\n`);
    expect(p.template.startsWith('from __future__ import annotations\n')).toBe(true);
  });

  it('refuses templates without exactly one marker on its own line', () => {
    expect(checkProgramFromTemplate('print({})\n')).toEqual({ error: expect.stringMatching(/no <insert generated code here> marker/) });
    expect(checkProgramFromTemplate('<insert generated code here>\n<insert generated code here>\nprint({})\n')).toEqual({
      error: expect.stringMatching(/2 times/),
    });
    expect(checkProgramFromTemplate('x = 1  # <insert generated code here>\nprint({})\n')).toEqual({ error: expect.stringMatching(/shares its line/) });
  });
});

describe('importCoderEval on synthetic data', () => {
  let s: ReturnType<typeof stage>;
  let out: string;
  let r: CoderEvalImportResult;
  const seen: ImportWarning[] = [];
  let validator: Validator;

  beforeAll(async () => {
    s = stage();
    out = path.join(s.root, 'out');
    r = await importCoderEval({ benchDir: s.bench, outDir: out, records: s.records, templates: s.templates, onWarning: (w) => seen.push(w) });
    validator = await createValidator({ validation: { timeoutFloorMs: 20_000 } });
    if (validator.sandbox.strength !== 'strong') console.warn(`[import-codereval] validator runs in ${validator.sandbox.label}`);
  });
  afterAll(() => validator?.close());

  it('writes a manifest that reads back, with one task of each shape', () => {
    const m = readManifest(r.manifestFile);
    expect(m.tasks.map((t) => t.id).sort()).toEqual([`codereval/${ID.template}`, `codereval/${ID.repo}`]);
    const tpl = m.tasks.find((t) => t.id === `codereval/${ID.template}`)!;
    expect(tpl).toMatchObject({
      qualname: 'add_one',
      signature: 'def add_one(x):',
      requirement: 'Return x plus one.',
      reference: ADD_ONE,
      placeholder: DEFAULT_PLACEHOLDER,
      tests: [CODEREVAL_TEMPLATE_TEST],
    });
    expect(tpl.source).toMatchObject({ benchmark: 'codereval-python', level: 'self_contained', tests_from: 'template', chatgpt_samples: { n: 2, passed: 1 } });
    const repo = m.tasks.find((t) => t.id === `codereval/${ID.repo}`)!;
    expect(repo).toMatchObject({
      repo: `repos/${ID.repo}`,
      file: 'pkg/calc.py',
      qualname: 'Scaler.scale',
      test_command: 'python3 -m unittest tests.test_calc',
    });
    expect(fs.readFileSync(path.join(repo.repoPath, 'pkg/calc.py'), 'utf8')).toBe(SCALE_FILE);
    expect(fs.readFileSync(path.join(repo.repoPath, 'tests/test_calc.py'), 'utf8')).toBe(SCALE_TEST);
    expect(r.counts).toMatchObject({ records: 5, tasks: 2, templateTasks: 1, repositoryTasks: 1, dropped: 3 });
  });

  it('lists every record that is not runnable in IMPORT.md with its reason, and all records in metadata.jsonl', () => {
    expect(r.dropped).toEqual({ 'bad-template': 1, 'no-tests': 1, 'unsafe-path': 1 });
    const report = fs.readFileSync(r.reportFile, 'utf8');
    expect(report).toMatch(/### no-tests \(1\)/);
    expect(report).toContain(`\`${ID.none}\` \`halve\``);
    expect(report).toMatch(/### unsafe-path \(1\)/);
    expect(report).toMatch(new RegExp(`\`${ID.hostile}\` \`evil\`.*file_path "\\.\\./\\.\\./escaped\\.py" contains \\.\\.`));
    expect(report).toMatch(/### bad-template \(1\)/);
    expect(report).toMatch(new RegExp(`\`${ID.badTemplate}\` \`broken\`.*no <insert generated code here> marker`));
    expect(report).toContain('accounted for: 2 + 3 = 5 of 5');
    const meta = fs
      .readFileSync(r.metadataFile, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(meta).toHaveLength(5);
    expect(meta.find((x) => x._id === ID.none)).toMatchObject({
      project: 'demo/demo',
      level: 'slib_runnable',
      signature: 'def halve(x):',
      requirement: 'Half of x.',
      task: null,
      dropped: { reason: 'no-tests' },
    });
    expect(meta.find((x) => x._id === ID.template)).toMatchObject({ task: `codereval/${ID.template}`, dropped: null });
  });

  it('warns about the malformed line (file:line) and refuses the hostile path, writing nothing outside', () => {
    const malformed = r.warnings.filter((w) => w.reason === 'malformed-json');
    expect(malformed).toHaveLength(1);
    expect(malformed[0]).toMatchObject({ file: path.join(s.bench, 'CoderEval-Input4Models/CEPythonRaw.jsonl'), line: 3 });
    const unsafe = r.warnings.find((w) => w.reason === 'unsafe-path')!;
    expect(unsafe).toMatchObject({ file: s.records, line: 3 });
    expect(unsafe.message).toContain(`record ${ID.hostile} refused`);
    expect(seen).toEqual(r.warnings);
    expect(r.warningCounts['malformed-json']).toBe(1);
    expect(fs.existsSync(path.join(s.root, 'escaped.py'))).toBe(false);
    expect(fs.existsSync(path.join(out, 'repos', ID.hostile))).toBe(false);
    expect(fs.readFileSync(r.reportFile, 'utf8')).toMatch(/malformed-json: .*CEPythonRaw\.jsonl:3: not valid JSON/);
  });

  it('the template task: its reference passes and a NotImplementedError body fails', async () => {
    const t = readManifest(r.manifestFile).tasks.find((x) => x.id === `codereval/${ID.template}`)!;
    const ok = await validator.validateReference(t);
    expect(ok.status, `${ok.reason}\n${ok.stderr}`).toBe('passed');
    expect(ok.tests.find((x) => x.id === CODEREVAL_TEMPLATE_TEST)?.outcome).toBe('passed');
    const bad = await validator.validate(t, notImplemented(t));
    expect(bad.status).toBe('failed');
    expect(bad.tests.find((x) => x.id === CODEREVAL_TEMPLATE_TEST)?.message).toMatch(/NotImplementedError/);
    const wrong = await validator.validate(t, 'def add_one(x):\n    return x + 2\n');
    expect(wrong.status).toBe('failed');
  });

  it('the repository task: its reference passes and a NotImplementedError body fails', async () => {
    const t = readManifest(r.manifestFile).tasks.find((x) => x.id === `codereval/${ID.repo}`)!;
    const ok = await validator.validateReference(t);
    expect(ok.status, `${ok.reason}\n${ok.stderr}`).toBe('passed');
    const bad = await validator.validate(t, notImplemented(t));
    expect(bad.status).toBe('failed');
  });

  it('takes requirements from the human-written docstrings when asked', async () => {
    const o = path.join(freshDir('oc-ce-human-'), 'o');
    const h = await importCoderEval({ benchDir: s.bench, outDir: o, records: s.records, templates: s.templates, docstrings: 'human' });
    const t = readManifest(h.manifestFile).tasks.find((x) => x.id === `codereval/${ID.template}`)!;
    expect(t.requirement).toBe('Add one to the number.');
    expect(h.warnings.filter((w) => w.reason === 'malformed-json')).toHaveLength(0);
  });

  it('without records or templates every record is listed as having no tests, and tasks.jsonl is empty', async () => {
    const o = path.join(freshDir('oc-ce-bare-'), 'o');
    const b = await importCoderEval({ benchDir: s.bench, outDir: o });
    expect(b.counts).toMatchObject({ records: 5, tasks: 0, dropped: 5 });
    expect(b.dropped).toEqual({ 'no-tests': 5 });
    expect(readManifest(b.manifestFile).tasks).toEqual([]);
    expect(fs.readFileSync(b.reportFile, 'utf8')).toContain('no tests in the staged CoderEval data: the harness lives only in the Docker image');
  });

  it('re-imports into its own folder and refuses a foreign one', async () => {
    const again = await importCoderEval({ benchDir: s.bench, outDir: out, records: s.records, templates: s.templates });
    expect(again.counts.tasks).toBe(2);
    const foreign = freshDir('oc-ce-foreign-');
    fs.writeFileSync(path.join(foreign, 'keep.txt'), 'mine');
    await expect(importCoderEval({ benchDir: s.bench, outDir: foreign })).rejects.toThrow(CoderEvalImportError);
    expect(fs.readFileSync(path.join(foreign, 'keep.txt'), 'utf8')).toBe('mine');
  });

  it('runs through the CLI with --json', async () => {
    const o = path.join(freshDir('oc-ce-cli-'), 'o');
    const lines: string[] = [];
    const errs: string[] = [];
    const code = await main(['import', 'codereval', s.bench, '--out', o, '--records', s.records, '--templates', s.templates, '--json'], {
      out: (l) => lines.push(l),
      err: (l) => errs.push(l),
    });
    expect(code).toBe(0);
    const doc = JSON.parse(lines.at(-1)!);
    expect(doc).toMatchObject({ ok: true, command: 'import', importer: 'codereval', counts: { records: 5, tasks: 2 }, dropped: { 'no-tests': 1 } });
    expect(errs.some((l) => /CEPythonRaw\.jsonl:3:/.test(l))).toBe(true);
    const text: string[] = [];
    expect(await main(['import', 'codereval', s.bench, '--out', o, '--quiet'], { out: (l) => text.push(l), err: () => {} })).toBe(0);
    expect(text.join('\n')).toMatch(/Not runnable: no-tests 5/);
    expect(await main(['import', 'codereval', s.bench, '--out', o, '--docstrings', 'both'], { out: () => {}, err: () => {} })).toBe(2);
  });
});

describe.skipIf(!HAVE_REAL)(`importCoderEval on the staged data${!HAVE_REAL ? NO_BENCH : ''}`, () => {
  it('keeps all 230 records in metadata.jsonl and accounts for every one of them', async () => {
    const o = path.join(freshDir('oc-ce-real-'), 'o');
    const r = await importCoderEval({ benchDir: REAL, outDir: o });
    const meta = fs
      .readFileSync(r.metadataFile, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { level: string; signature: string; requirement: string });
    expect(meta).toHaveLength(230);
    expect(r.counts.records).toBe(230);
    expect(r.counts.tasks + r.counts.dropped).toBe(230);
    expect(readManifest(r.manifestFile).tasks).toHaveLength(r.counts.tasks);
    expect(meta.every((x) => x.signature.startsWith('def ') && x.requirement.length > 0)).toBe(true);
    const levels = Object.fromEntries(Object.entries(r.levels).map(([k, v]) => [k, v.records]));
    expect(levels).toEqual({ class_runnable: 55, file_runnable: 68, plib_runnable: 21, project_runnable: 23, self_contained: 35, slib_runnable: 28 });
    expect(r.warnings).toEqual([]);
    const report = fs.readFileSync(r.reportFile, 'utf8');
    for (const d of r.droppedEntries) expect(report).toContain(`\`${d.id}\``);
  });
});
