import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IMPORT_MARKER, RepoExecImportError, importRepoExec, type ImportWarning, type RepoExecImportResult } from '../../main/experiment/import-repoexec.ts';
import { readManifest } from '../../main/experiment/manifest.ts';
import { createExtractor, type Extractor } from '../../main/index/extract.ts';
import { main } from '../../main/host/cli.ts';
import { tmpDir, writeFiles } from '../helpers/tmp-repo.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const BENCH_ROOT = process.env.OPENCODER_BENCH_DIR ? path.resolve(process.env.OPENCODER_BENCH_DIR) : path.resolve(ROOT, '..', 'shared', 'bench');
const REPOEXEC = path.join(BENCH_ROOT, 'repoexec');
const HAVE_BENCH = fs.existsSync(path.join(REPOEXEC, 'repoexec_inline.jsonl'));
const PYTHON = '/usr/bin/python3';
const HAVE_PYTHON = fs.existsSync(PYTHON);
if (!HAVE_BENCH) {
  console.warn(`[import-repoexec] real-data tests skipped: no RepoExec data at ${REPOEXEC} (stage ../shared/bench or set OPENCODER_BENCH_DIR)`);
}
if (!HAVE_PYTHON) console.warn(`[import-repoexec] Python syntax checks skipped: ${PYTHON} not found`);

const cleanup: string[] = [];
let ex: Extractor;
beforeAll(async () => {
  ex = await createExtractor();
});
afterAll(() => {
  ex.dispose();
  for (const d of cleanup.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

function freshDir(prefix: string): string {
  const d = tmpDir(prefix);
  cleanup.push(d);
  return d;
}

function listFiles(root: string, ext = ''): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const abs = path.join(dir, e.name);
      if (e.isDirectory()) walk(abs);
      else if (abs.endsWith(ext)) out.push(path.relative(root, abs).split(path.sep).join('/'));
    }
  };
  walk(root);
  return out.sort();
}

/** Syntax errors of the given Python files, one Python process for all of them. */
function pythonSyntaxErrors(files: string[]): string[] {
  const script = [
    'import ast, sys',
    'for f in sys.argv[1:]:',
    '    try:',
    "        ast.parse(open(f, encoding='utf-8').read(), f)",
    '    except SyntaxError as e:',
    "        print(f'{f}:{e.lineno}: {e.msg}')",
  ].join('\n');
  const out = execFileSync(PYTHON, ['-c', script, ...files], { encoding: 'utf8' });
  return out.split('\n').filter(Boolean);
}

function qualnamesIn(file: string): string[] {
  return ex.parse(path.basename(file), 'python', fs.readFileSync(file, 'utf8')).units.map((u) => u.qualname);
}

// ---------------------------------------------------------------------------------------------
// A small synthetic bench folder: always available, exercises repair, attribution and bad lines.

const row = (o: Record<string, unknown>) => JSON.stringify({ test: '', test_list: [], ...o });

function syntheticBench(): string {
  const dir = freshDir('oc-rx-bench-');
  const P = 'test-apps/demo';
  const pass = [
    row({
      problem_ids: 1,
      project: P,
      module: 'demo.text',
      entry_point: 'shout',
      focal_function: 'def shout(s):\n    """Upper-case s and add a bang."""\n    return s.upper() + "!"\n',
      // A body-less stub, a dependency from another module, a garbage line, then the focal function.
      code: [
        'import os',
        'from .util import is_str',
        '',
        'def is_str(x):',
        '',
        '.',
        '',
        'LIMIT = 3',
        '',
        'def shout(s):',
        '    """Upper-case s and add a bang."""',
        '    return s.upper() + "!"',
      ].join('\n'),
    }),
    row({
      problem_ids: 2,
      project: P,
      module: 'demo.util',
      entry_point: 'is_str',
      focal_function: 'def is_str(x):\n    """True for strings."""\n    return isinstance(x, str)',
      code: 'import re\n\nPATTERN = re.compile("x")\n\ndef is_str(x):\n    """True for strings."""\n    return isinstance(x, str)',
    }),
    '{"problem_ids": 3, "project": "test-apps/demo", ', // truncated: malformed
    row({
      problem_ids: 4,
      project: P,
      module: 'demo.shapes',
      entry_point: 'area',
      // A method: the focal function is indented and its view shows it inside its class.
      focal_function: '    def area(self):\n        """Width times height."""\n        return self.w * self.h\n',
      code: 'class Box:\n    """A box."""\n\n    def __init__(self, w, h):\n\n    def area(self):\n        """Width times height."""\n        return self.w * self.h',
    }),
  ];
  const failed = [
    row({
      problem_ids: 5,
      project: P,
      module: 'demo.text',
      entry_point: 'whisper',
      focal_function: 'def whisper(s):\n    return s.lower()',
      // Shows shout as a stub and a hollow class: neither may replace or duplicate anything.
      code: 'import os\nimport sys\n\nclass Helper:\n\ndef shout(s):\n    """Upper-case s and add a bang."""\n\ndef whisper(s):\n    return s.lower()',
    }),
    row({ problem_ids: 6, project: P, module: 'demo.text' }), // fields missing
  ];
  const task = (id: number, pid: number, module: string, ep: string, prompt: string, solution: string) =>
    JSON.stringify({
      task_id: `RepoExec/${id}`,
      hf_index: id,
      problem_id: pid,
      project: P,
      module,
      entry_point: ep,
      target_function_prompt: prompt,
      solution,
      check_template: `# <<FOCAL_FUNCTION>>\nprint("__REPOEXEC_RESULTS__ {}")`,
      placeholder: '# <<FOCAL_FUNCTION>>',
      test_names: ['test_0'],
      n_tests_kept: 1,
    });
  const inline = [
    task(0, 1, 'demo.text', 'shout', 'def shout(s):\n    """Upper-case s and add a bang."""\n', 'def shout(s):\n    """Upper-case s and add a bang."""\n    return s.upper() + "!"'),
    'not json at all',
    task(1, 4, 'demo.shapes', 'area', '    def area(self):\n        """Width times height."""\n', 'def area(self):\n    return self.w * self.h'),
    task(2, 99, 'demo.text', 'gone', 'def gone():\n    pass\n', 'def gone():\n    pass'),
    task(3, 5, 'demo.text', 'whisper', 'def whisper(s):\n    ...\n', 'def whisper(s):\n    return s.lower()'),
  ];
  writeFiles(dir, {
    'data_with_test_case/test-apps+demo/pass_data.jsonl': pass.join('\n') + '\n',
    'data_with_test_case/test-apps+demo/failed_data.jsonl': failed.join('\n') + '\n',
    'repoexec_inline.jsonl': inline.join('\n') + '\n',
    'repoexec_inline_subsets.json': JSON.stringify({ mini: { description: 'one', task_ids: ['RepoExec/1'] } }),
  });
  return dir;
}

describe('importRepoExec on a synthetic bench folder', () => {
  let bench: string;
  let out: string;
  let r: RepoExecImportResult;
  const seen: ImportWarning[] = [];
  beforeAll(async () => {
    bench = syntheticBench();
    out = path.join(freshDir('oc-rx-out-'), 'import');
    r = await importRepoExec({ benchDir: bench, outDir: out, onWarning: (w) => seen.push(w) });
  });

  it('skips malformed lines with a warning naming file and line, and keeps the rest', () => {
    const at = (reason: string) => r.warnings.filter((w) => w.reason === reason).map((w) => `${path.basename(w.file)}:${w.line}`);
    expect(at('malformed-json').sort()).toEqual(['pass_data.jsonl:3', 'repoexec_inline.jsonl:2']);
    expect(at('invalid-row')).toEqual(['failed_data.jsonl:2']);
    expect(at('task-without-row')).toEqual(['repoexec_inline.jsonl:4']);
    expect(seen).toEqual(r.warnings);
    expect(r.counts.rows).toBe(4);
    expect(r.counts.tasks).toBe(3);
    expect(fs.readFileSync(path.join(out, 'IMPORT.md'), 'utf8')).toMatch(/malformed-json 2/);
  });

  it('repairs views, drops garbage lines and keeps every focal function once, in full', () => {
    expect(r.dropped['garbage-line']).toBe(1);
    const repo = path.join(out, 'repos', 'demo');
    expect(listFiles(repo)).toEqual(['demo/__init__.py', 'demo/shapes.py', 'demo/text.py', 'demo/util.py']);
    const text = fs.readFileSync(path.join(repo, 'demo/text.py'), 'utf8');
    expect(text.match(/def shout/g)).toHaveLength(1);
    expect(text).toContain('return s.upper() + "!"');
    expect(text).toMatch(/class Helper:\n {4}\.\.\./);
    expect(text).toContain('LIMIT = 3');
    expect(text).toContain('import sys'); // union of the module's imports
    // is_str is imported from .util: its (full) definition lives there, not in text.py.
    expect(text).not.toContain('def is_str');
    const util = fs.readFileSync(path.join(repo, 'demo/util.py'), 'utf8');
    expect(util.match(/def is_str/g)).toHaveLength(1);
    expect(util).toContain('return isinstance(x, str)');
    const shapes = fs.readFileSync(path.join(repo, 'demo/shapes.py'), 'utf8');
    expect(shapes).toMatch(/class Box:\n {4}"""A box."""\n\n {4}def __init__\(self, w, h\):\n {8}\.\.\.\n\n {4}def area\(self\):/);
    expect(qualnamesIn(path.join(repo, 'demo/shapes.py'))).toContain('Box.area');
  });

  it('writes a manifest that points at each target (methods as Class.method)', () => {
    const m = readManifest(path.join(out, 'tasks.jsonl'));
    expect(m.tasks.map((t) => t.id)).toEqual(['RepoExec/0', 'RepoExec/1', 'RepoExec/3']);
    const [shout, area, whisper] = m.tasks;
    expect(shout).toMatchObject({ repo: 'repos/demo', file: 'demo/text.py', qualname: 'shout', signature: 'def shout(s):', requirement: 'Upper-case s and add a bang.' });
    expect(shout!.source).toMatchObject({ benchmark: 'repoexec-inline', problem_id: 1, hf_index: 0, subsets: [], requirement_source: 'docstring', n_tests_kept: 1 });
    expect(area).toMatchObject({ file: 'demo/shapes.py', qualname: 'Box.area', signature: 'def area(self):', requirement: 'Width times height.' });
    expect(area!.source).toMatchObject({ subsets: ['mini'] });
    expect(whisper).toMatchObject({ requirement: 'Implement `whisper(s)`.' });
    expect(whisper!.source).toMatchObject({ requirement_source: 'signature' });
    for (const t of m.tasks) {
      expect(fs.existsSync(t.repoPath)).toBe(true);
      expect(qualnamesIn(path.join(t.repoPath, t.file))).toContain(t.qualname);
    }
  });

  it.skipIf(!HAVE_PYTHON)('writes only files Python can parse', () => {
    const repo = path.join(out, 'repos');
    expect(pythonSyntaxErrors(listFiles(repo, '.py').map((f) => path.join(repo, f)))).toEqual([]);
  });

  it('filters by subset and rejects an unknown one', async () => {
    const sub = await importRepoExec({ benchDir: bench, outDir: path.join(freshDir('oc-rx-sub-'), 'o'), subset: 'mini' });
    expect(readManifest(sub.manifestFile).tasks.map((t) => t.id)).toEqual(['RepoExec/1']);
    await expect(importRepoExec({ benchDir: bench, outDir: path.join(freshDir('oc-rx-sub-'), 'o'), subset: 'nope' })).rejects.toThrow(/Unknown subset "nope".*mini/);
  });

  it('replaces its own previous import cleanly and refuses a foreign non-empty folder', async () => {
    const stale = path.join(out, 'repos', 'demo', 'demo', 'stale.py');
    fs.writeFileSync(stale, 'x = 1\n');
    fs.writeFileSync(path.join(out, 'notes.txt'), 'mine');
    await importRepoExec({ benchDir: bench, outDir: out });
    expect(fs.existsSync(stale)).toBe(false);
    expect(fs.readFileSync(path.join(out, 'notes.txt'), 'utf8')).toBe('mine');
    expect(fs.existsSync(path.join(out, IMPORT_MARKER))).toBe(true);

    const foreign = freshDir('oc-rx-foreign-');
    fs.writeFileSync(path.join(foreign, 'keep.txt'), 'precious');
    const err = await importRepoExec({ benchDir: bench, outDir: foreign }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RepoExecImportError);
    expect((err as Error).message).toMatch(/Refusing to write into .*not made by/);
    expect(fs.readdirSync(foreign)).toEqual(['keep.txt']);
  });

  it('fails clearly on a missing bench folder or input file', async () => {
    const o = path.join(freshDir('oc-rx-miss-'), 'o');
    await expect(importRepoExec({ benchDir: path.join(bench, 'nope'), outDir: o })).rejects.toThrow(/bench folder .*nope does not exist/);
    const broken = syntheticBench();
    fs.rmSync(path.join(broken, 'data_with_test_case/test-apps+demo/failed_data.jsonl'));
    await expect(importRepoExec({ benchDir: broken, outDir: o })).rejects.toThrow(/Missing file .*failed_data\.jsonl/);
    fs.rmSync(path.join(broken, 'repoexec_inline.jsonl'));
    await expect(importRepoExec({ benchDir: broken, outDir: o })).rejects.toThrow(RepoExecImportError);
    expect(fs.existsSync(o)).toBe(false);
  });
});

// ---------------------------------------------------------------------------------------------
// The real data

describe.skipIf(!HAVE_BENCH)(`importRepoExec on the staged RepoExec data (${REPOEXEC})`, () => {
  let out: string;
  let r: RepoExecImportResult;
  beforeAll(async () => {
    out = path.join(freshDir('oc-rx-real-'), 'import');
    r = await importRepoExec({ benchDir: REPOEXEC, outDir: out });
  });

  it('imports 176 tasks that readManifest accepts', () => {
    const m = readManifest(path.join(out, 'tasks.jsonl'));
    expect(m.tasks).toHaveLength(176);
    expect(r.counts).toMatchObject({ projects: 23, rows: 504, focalFunctions: 504, tasks: 176 });
    for (const t of m.tasks) {
      expect(t.check_template).toContain(t.placeholder!);
      expect(t.signature).toMatch(/^(async\s+)?def /);
      expect(t.requirement.length).toBeGreaterThan(0);
      expect(fs.existsSync(path.join(t.repoPath, t.file))).toBe(true);
    }
    // Nothing unexpected: the only warning is isort's empty row files.
    expect(r.warningCounts).toEqual({ 'project-without-rows': 1 });
  });

  it.skipIf(!HAVE_PYTHON)('writes only files Python can parse', () => {
    const repos = path.join(out, 'repos');
    const files = listFiles(repos, '.py').map((f) => path.join(repos, f));
    expect(files.length).toBe(r.counts.files);
    expect(pythonSyntaxErrors(files)).toEqual([]);
  });

  it('has each target, exactly once and as the reference, where the manifest says', () => {
    const m = readManifest(path.join(out, 'tasks.jsonl'));
    for (const t of m.tasks) {
      const file = path.join(t.repoPath, t.file);
      const units = ex.parse(t.file, 'python', fs.readFileSync(file, 'utf8')).units.filter((u) => u.qualname === t.qualname);
      expect(units, `${t.id} ${t.qualname} in ${t.file}`).toHaveLength(1);
      expect(units[0]!.body.trim()).toBe(t.reference!.trim());
    }
  });

  it('rebuilds RepoExec/0 (reverse) with its cross-file dependencies', () => {
    const m = readManifest(path.join(out, 'tasks.jsonl'));
    const t = m.tasks.find((x) => x.id === 'RepoExec/0')!;
    expect(t).toMatchObject({ repo: 'repos/python-string-utils', file: 'string_utils/manipulation.py', qualname: 'reverse' });
    expect(t.source).toMatchObject({ problem_id: 498, subsets: ['python_string_utils_inline'] });
    const validation = path.join(t.repoPath, 'string_utils/validation.py');
    const isString = ex.parse('string_utils/validation.py', 'python', fs.readFileSync(validation, 'utf8')).units.find((u) => u.qualname === 'is_string');
    expect(isString?.body).toContain('isinstance(obj, str)'); // the full body, not the stub other views show
    expect(qualnamesIn(path.join(t.repoPath, 'string_utils/errors.py'))).toContain('InvalidInputError');
    expect(fs.existsSync(path.join(t.repoPath, 'string_utils/__init__.py'))).toBe(true);
  });

  it('is deterministic, also through the CLI with --json', async () => {
    const other = path.join(freshDir('oc-rx-real2-'), 'import');
    const outLines: string[] = [];
    const code = await main(['import', 'repoexec', REPOEXEC, '--out', other, '--json', '--quiet'], { out: (l) => outLines.push(l), err: () => {} });
    expect(code).toBe(0);
    const doc = JSON.parse(outLines.at(-1)!);
    expect(doc).toMatchObject({ ok: true, command: 'import', importer: 'repoexec', counts: { tasks: 176 } });
    const a = listFiles(out);
    expect(listFiles(other)).toEqual(a);
    for (const f of a) expect(fs.readFileSync(path.join(other, f), 'utf8'), f).toBe(fs.readFileSync(path.join(out, f), 'utf8'));
  });

  it('restricts tasks to a subset', async () => {
    const subsets = JSON.parse(fs.readFileSync(path.join(REPOEXEC, 'repoexec_inline_subsets.json'), 'utf8')) as Record<string, { task_ids: string[] }>;
    for (const name of ['python_string_utils_inline', 'report_cross_project_30']) {
      const s = await importRepoExec({ benchDir: REPOEXEC, outDir: path.join(freshDir('oc-rx-sub-'), 'o'), subset: name });
      const ids = readManifest(s.manifestFile).tasks.map((t) => t.id);
      expect(new Set(ids)).toEqual(new Set(subsets[name]!.task_ids));
      expect(readManifest(s.manifestFile).tasks.every((t) => (t.source!.subsets as string[]).includes(name))).toBe(true);
    }
  });
});
