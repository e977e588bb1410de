import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  IMPORT_MARKER,
  RepoExecImportError,
  importRepoExec,
  viewFolderFor,
  type ImportWarning,
  type RepoExecImportResult,
} from '../../main/benchmarks/repoexec/import.ts';
import { readManifest } from '../../main/benchmarks/manifest-file.ts';
import { createExtractor, type Extractor } from '../../main/index/extract.ts';
import { main } from '../../main/host/cli/main.ts';
import { tmpDir, writeFiles } from '../helpers/tmp-repo.ts';
import { needs, NO_BENCH } from '../helpers/system.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const BENCH_ROOT = process.env.OPENCODER_BENCH_DIR ? path.resolve(process.env.OPENCODER_BENCH_DIR) : path.resolve(ROOT, '..', 'shared', 'bench');
const REPOEXEC = path.join(BENCH_ROOT, 'repoexec');
const HAVE_BENCH = fs.existsSync(path.join(REPOEXEC, 'repoexec_inline.jsonl'));
const PYTHON = '/usr/bin/python3';
const PY = needs('python3');
if (!HAVE_BENCH) {
  console.warn(`[import-repoexec] real-data tests skipped: no RepoExec data at ${REPOEXEC} (stage ../shared/bench or set OPENCODER_BENCH_DIR)`);
}

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
    task(
      0,
      1,
      'demo.text',
      'shout',
      'def shout(s):\n    """Upper-case s and add a bang."""\n',
      'def shout(s):\n    """Upper-case s and add a bang."""\n    return s.upper() + "!"',
    ),
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
    expect(shout).toMatchObject({
      repo: 'repos/demo',
      file: 'demo/text.py',
      qualname: 'shout',
      signature: 'def shout(s):',
      requirement: 'Upper-case s and add a bang.',
    });
    expect(shout!.source).toMatchObject({
      benchmark: 'repoexec-inline',
      problem_id: 1,
      hf_index: 0,
      subsets: [],
      requirement_source: 'docstring',
      n_tests_kept: 1,
    });
    expect(area).toMatchObject({ file: 'demo/shapes.py', qualname: 'Box.area', signature: 'def area(self):', requirement: 'Width times height.' });
    expect(area!.source).toMatchObject({ subsets: ['mini'] });
    expect(whisper).toMatchObject({ requirement: 'Implement `whisper(s)`.' });
    expect(whisper!.source).toMatchObject({ requirement_source: 'signature' });
    for (const t of m.tasks) {
      expect(fs.existsSync(t.repoPath)).toBe(true);
      expect(qualnamesIn(path.join(t.repoPath, t.file))).toContain(t.qualname);
    }
  });

  it('writes each task its own view: the repaired code view, at views/<id>/<file>, with package __init__ files', () => {
    const lines = fs
      .readFileSync(path.join(out, 'tasks.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines.map((l) => l.task_view)).toEqual(['views/RepoExec_0', 'views/RepoExec_1', 'views/RepoExec_3']);
    expect(listFiles(path.join(out, 'views'))).toEqual([
      'RepoExec_0/demo/__init__.py',
      'RepoExec_0/demo/text.py',
      'RepoExec_1/demo/__init__.py',
      'RepoExec_1/demo/shapes.py',
      'RepoExec_3/demo/__init__.py',
      'RepoExec_3/demo/text.py',
    ]);
    const m = readManifest(path.join(out, 'tasks.jsonl'));
    for (const t of m.tasks) {
      expect(t.taskViewPath).toBe(path.join(out, 'views', t.id.replace('/', '_')));
      expect(qualnamesIn(path.join(t.taskViewPath!, t.file)), t.id).toContain(t.qualname);
      expect(fs.readFileSync(path.join(t.taskViewPath!, 'demo', '__init__.py'), 'utf8')).toBe('');
    }
    // The view is the row's own view, repaired: its stub of is_str (util.py has the full body), no garbage line.
    const shout = fs.readFileSync(path.join(out, 'views/RepoExec_0/demo/text.py'), 'utf8');
    expect(shout).toContain('def is_str(x):\n    ...\n');
    expect(shout).not.toContain('isinstance');
    expect(shout).not.toMatch(/^\.$/m);
    expect(shout).toContain('LIMIT = 3');
    expect(shout).toMatch(/def shout\(s\):\n {4}"""Upper-case s and add a bang."""\n {4}return s\.upper\(\) \+ "!"\n$/);
    // A method target stays inside its class in the view.
    expect(qualnamesIn(path.join(out, 'views/RepoExec_1/demo/shapes.py'))).toEqual(expect.arrayContaining(['Box', 'Box.__init__', 'Box.area']));
    // whisper's view is its own row's view only: nothing another row's view of demo.text showed.
    const whisper = fs.readFileSync(path.join(out, 'views/RepoExec_3/demo/text.py'), 'utf8');
    expect(whisper).not.toContain('LIMIT');
    expect(whisper).toContain('return s.lower()');
    expect(r.counts).toMatchObject({ views: 3, viewsFromReference: 0 });
    expect(fs.readFileSync(path.join(out, 'IMPORT.md'), 'utf8')).toMatch(/## Task views \(views\/\)[\s\S]*RQ4/);
  });

  it.skipIf(PY.skip)(`writes only files Python can parse${PY.note}`, () => {
    const files = ['repos', 'views'].flatMap((d) => listFiles(path.join(out, d), '.py').map((f) => path.join(out, d, f)));
    expect(files.filter((f) => f.includes(`${path.sep}views${path.sep}`))).toHaveLength(6);
    expect(pythonSyntaxErrors(files)).toEqual([]);
  });

  it('filters by subset and rejects an unknown one', async () => {
    const sub = await importRepoExec({ benchDir: bench, outDir: path.join(freshDir('oc-rx-sub-'), 'o'), subset: 'mini' });
    expect(readManifest(sub.manifestFile).tasks.map((t) => t.id)).toEqual(['RepoExec/1']);
    await expect(importRepoExec({ benchDir: bench, outDir: path.join(freshDir('oc-rx-sub-'), 'o'), subset: 'nope' })).rejects.toThrow(
      /Unknown subset "nope".*mini/,
    );
  });

  it('replaces its own previous import cleanly and refuses a foreign non-empty folder', async () => {
    const stale = path.join(out, 'repos', 'demo', 'demo', 'stale.py');
    fs.writeFileSync(stale, 'x = 1\n');
    const staleView = path.join(out, 'views', 'RepoExec_9', 'demo', 'gone.py');
    fs.mkdirSync(path.dirname(staleView), { recursive: true });
    fs.writeFileSync(staleView, 'x = 1\n');
    fs.writeFileSync(path.join(out, 'notes.txt'), 'mine');
    await importRepoExec({ benchDir: bench, outDir: out });
    expect(fs.existsSync(stale)).toBe(false);
    expect(fs.existsSync(path.join(out, 'views', 'RepoExec_9'))).toBe(false);
    expect(fs.existsSync(path.join(out, 'views', 'RepoExec_0', 'demo', 'text.py'))).toBe(true);
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

describe('task views when the row view cannot serve', () => {
  it('names view folders safely and without collisions', () => {
    const taken = new Set<string>();
    expect(['RepoExec/12', 'RepoExec_12', 'repoexec/12', 'a b:c', '../x', '', 'RepoExec/12_2'].map((id) => viewFolderFor(id, taken))).toEqual([
      'RepoExec_12',
      'RepoExec_12_2',
      'repoexec_12_3',
      'a_b_c',
      '_.._x',
      '_',
      'RepoExec_12_2_2',
    ]);
  });

  it('writes the reference alone for an unrepairable view, and appends it when repair lost the target', async () => {
    const dir = freshDir('oc-rx-views-');
    const P = 'test-apps/demo';
    const rowOf = (pid: number, mod: string, ep: string, code: string) =>
      row({ problem_ids: pid, project: P, module: mod, entry_point: ep, focal_function: `def ${ep}():\n    return ${pid}`, code });
    // 70 `else:` lines that each parse alone but not where they stand: more than repair's 60 attempts.
    const unrepairable = Array.from({ length: 70 }, (_, i) => `x${i} = 1\nelse:\n    y = 2`).join('\n') + '\n\ndef f1():\n    return 1';
    // An unterminated string swallows the rest of the view: repair drops all of it, the target too.
    const swallowed = 'x = """abc\n\ndef f2():\n    return 2';
    const taskOf = (i: number, pid: number, mod: string, ep: string) =>
      JSON.stringify({
        task_id: `RepoExec/${i}`,
        hf_index: i,
        problem_id: pid,
        project: P,
        module: mod,
        entry_point: ep,
        target_function_prompt: `def ${ep}():\n    ...\n`,
        solution: `def ${ep}():\n    return ${pid}`,
        check_template: '# <<FOCAL_FUNCTION>>\n',
        placeholder: '# <<FOCAL_FUNCTION>>',
        test_names: ['test_0'],
      });
    writeFiles(dir, {
      'data_with_test_case/test-apps+demo/pass_data.jsonl': [rowOf(1, 'demo.a', 'f1', unrepairable), rowOf(2, 'demo.b', 'f2', swallowed)].join('\n') + '\n',
      'data_with_test_case/test-apps+demo/failed_data.jsonl': '',
      'repoexec_inline.jsonl': [taskOf(0, 1, 'demo.a', 'f1'), taskOf(1, 2, 'demo.b', 'f2')].join('\n') + '\n',
      'repoexec_inline_subsets.json': '{}',
    });
    const out = path.join(freshDir('oc-rx-views-out-'), 'o');
    const r = await importRepoExec({ benchDir: dir, outDir: out });
    expect(r.warningCounts).toEqual({ 'unrepairable-view': 1, 'view-without-target': 1 });
    expect(r.dropped['unrepairable-view']).toBe(1);
    expect(r.counts).toMatchObject({ tasks: 2, views: 2, viewsFromReference: 1 });
    expect(fs.readFileSync(path.join(out, 'views/RepoExec_0/demo/a.py'), 'utf8')).toBe('def f1():\n    return 1\n');
    expect(fs.readFileSync(path.join(out, 'views/RepoExec_1/demo/b.py'), 'utf8')).toBe('def f2():\n    return 2\n');
    for (const t of readManifest(r.manifestFile).tasks) expect(qualnamesIn(path.join(t.taskViewPath!, t.file))).toContain(t.qualname);
    expect(fs.readFileSync(r.reportFile, 'utf8')).toMatch(/task views in views\/: 2 \(1 holding only the reference: unrepairable-view\)/);
  });
});

// ---------------------------------------------------------------------------------------------
// The real data

describe.skipIf(!HAVE_BENCH)(`importRepoExec on the staged RepoExec data (${REPOEXEC})${!HAVE_BENCH ? NO_BENCH : ''}`, () => {
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

  it.skipIf(PY.skip)(`writes only files Python can parse${PY.note}`, () => {
    const repos = path.join(out, 'repos');
    const files = listFiles(repos, '.py').map((f) => path.join(repos, f));
    expect(files.length).toBe(r.counts.files);
    expect(pythonSyntaxErrors(files)).toEqual([]);
    const views = path.join(out, 'views');
    expect(pythonSyntaxErrors(listFiles(views, '.py').map((f) => path.join(views, f)))).toEqual([]);
  });

  it('writes one view per task, named by task_view, that shows the target under its module path', () => {
    const lines = fs
      .readFileSync(path.join(out, 'tasks.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { id: string; task_view?: string });
    expect(lines.every((l) => l.task_view === `views/${l.id.replace('/', '_')}`)).toBe(true);
    expect(fs.readdirSync(path.join(out, 'views'))).toHaveLength(176);
    expect(r.counts).toMatchObject({ views: 176, viewsFromReference: 0 });
    const m = readManifest(path.join(out, 'tasks.jsonl'));
    for (const t of m.tasks) {
      const file = path.join(t.taskViewPath!, t.file);
      expect(qualnamesIn(file), `${t.id} ${t.qualname} in its view`).toContain(t.qualname);
      // RepoExec's views end with the focal function, verbatim.
      expect(fs.readFileSync(file, 'utf8'), t.id).toContain(t.reference!.trim());
      // The view's folders are packages, so its module name is the repository's.
      const dirs = t.file.split('/').slice(0, -1);
      for (let i = 1; i <= dirs.length; i++) {
        expect(fs.existsSync(path.join(t.taskViewPath!, ...dirs.slice(0, i), '__init__.py')), `${t.id} ${dirs.slice(0, i).join('/')}`).toBe(true);
      }
    }
    const reverse = m.tasks.find((t) => t.id === 'RepoExec/0')!;
    expect(listFiles(reverse.taskViewPath!)).toEqual(['string_utils/__init__.py', 'string_utils/manipulation.py']);
    // Dependencies are stubs in the view (the repository has is_string's full body).
    const view = fs.readFileSync(path.join(reverse.taskViewPath!, 'string_utils/manipulation.py'), 'utf8');
    expect(view).toContain('def is_string(obj: Any) -> bool:');
    expect(view).not.toContain('isinstance(obj, str)');
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
