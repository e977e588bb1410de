// The Import view's calls over the engine service: import.benchmark (RepoExec, CoderEval, ExecRepoBench) and
// import.samples run the importers as jobs with progress, write into a default folder in the data folder (or the one
// named), and import.result gives the manifest or set, IMPORT.md and the counts; paths are checked like every call's.
// Also the experiment's `samples` field, which reads what samples.passk reads (a results folder used to be EISDIR).

import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EngineEvent, ImportSummary, JobInfo, SamplePassK } from '../../contract/index.ts';
import { importCoderEval } from '../../main/benchmarks/codereval.ts';
import { readManifest } from '../../main/benchmarks/manifest-file.ts';
import type { EngineService } from '../../main/host/service.ts';
import { ok, openService, settled } from '../helpers/service-calls.ts';
import { NO_BENCH } from '../helpers/system.ts';
import { tmpDir, writeFiles } from '../helpers/tmp-repo.ts';
import { REPO_ROOT } from '../validate/helpers.ts';

const BENCH = process.env.OPENCODER_BENCH_DIR ? path.resolve(process.env.OPENCODER_BENCH_DIR) : path.resolve(REPO_ROOT, '..', 'shared', 'bench');
const PHI2 = path.join(BENCH, 'repoexec', 'phi-2-results');
const CODEREVAL = path.join(BENCH, 'codereval');
const HAVE_PHI2 = fs.existsSync(path.join(PHI2, 'passk_True.json'));
const HAVE_CODEREVAL = fs.existsSync(path.join(CODEREVAL, 'CoderEval-Input4Models'));

const root = tmpDir('oc-import-calls-');
const outside = tmpDir('oc-import-outside-');
afterAll(() => {
  for (const d of [root, outside]) fs.rmSync(d, { recursive: true, force: true });
});

const row = (o: Record<string, unknown>) => JSON.stringify({ test: '', test_list: [], ...o });
const inlineTask = (hf: number, pid: number, module: string, ep: string, prompt: string, solution: string) =>
  JSON.stringify({
    task_id: `RepoExec/${hf}`,
    hf_index: hf,
    problem_id: pid,
    project: 'test-apps/demo',
    module,
    entry_point: ep,
    target_function_prompt: prompt,
    solution,
    check_template: '# <<FOCAL_FUNCTION>>\nprint("__REPOEXEC_RESULTS__ {}")',
    placeholder: '# <<FOCAL_FUNCTION>>',
    test_names: ['test_0'],
    n_tests_kept: 1,
  });

/** A staged RepoExec folder of one project: two rows (one view with a garbage line), two inline tasks, one bad line. */
function repoExecBench(dir: string): { taskIds: string[] } {
  writeFiles(dir, {
    'data_with_test_case/test-apps+demo/pass_data.jsonl':
      [
        row({
          problem_ids: 1,
          project: 'test-apps/demo',
          module: 'demo.text',
          entry_point: 'shout',
          focal_function: 'def shout(s):\n    """Upper-case s and add a bang."""\n    return s.upper() + "!"\n',
          code: 'import os\n\n.\n\ndef shout(s):\n    """Upper-case s and add a bang."""\n    return s.upper() + "!"',
        }),
        row({
          problem_ids: 2,
          project: 'test-apps/demo',
          module: 'demo.util',
          entry_point: 'is_str',
          focal_function: 'def is_str(x):\n    """True for strings."""\n    return isinstance(x, str)',
          code: 'def is_str(x):\n    """True for strings."""\n    return isinstance(x, str)',
        }),
      ].join('\n') + '\n',
    'data_with_test_case/test-apps+demo/failed_data.jsonl': '',
    'repoexec_inline.jsonl':
      [
        inlineTask(0, 1, 'demo.text', 'shout', 'def shout(s):\n    """Upper-case s and add a bang."""\n', 'def shout(s):\n    return s.upper() + "!"'),
        'not json at all',
        inlineTask(1, 2, 'demo.util', 'is_str', 'def is_str(x):\n    """True for strings."""\n', 'def is_str(x):\n    return isinstance(x, str)'),
      ].join('\n') + '\n',
    'repoexec_inline_subsets.json': JSON.stringify({ mini: { task_ids: ['RepoExec/1'] } }),
  });
  return { taskIds: ['RepoExec/0', 'RepoExec/1'] };
}

/** A RepoExec results folder (results_<i>.jsonl) with labels: task 0 passes 2 of 3, task 1 passes 0 of 3. */
function resultsFolder(dir: string): void {
  const line = (task: number, pred: number, passed: boolean) =>
    JSON.stringify({ task_id: task, prediction_id: pred, generation: `def f():\n    return ${task}${pred}\n`, passed, message: passed ? 'ok' : 'failed' });
  writeFiles(dir, {
    'results_0.jsonl': [line(0, 0, true), line(0, 1, false), line(0, 2, true)].join('\n') + '\n',
    'results_1.jsonl': [line(1, 0, false), line(1, 1, false), line(1, 2, false)].join('\n') + '\n',
  });
}

/** ExecRepoBench records: one runnable (a function body masked, a unittest command), one line that is not JSON. */
function execRepoBenchRecords(file: string): void {
  const source = 'def add(a, b):\n    """Sum of a and b."""\n    return a + b\n\n\ndef twice(x):\n    return add(x, x)\n';
  const lines = source.split('\n');
  const rec = {
    task_id: 'erb-add',
    repo_name: 'demo/calc',
    file_name: 'calc.py',
    prefix_code: lines.slice(0, 2).join('\n') + '\n',
    middle_code: lines[2] + '\n',
    suffix_code: lines.slice(3).join('\n'),
    context_code: [
      [
        'tests/test_calc.py',
        'import unittest\nfrom calc import add\n\nclass T(unittest.TestCase):\n    def test_add(self):\n        self.assertEqual(add(2, 3), 5)\n',
      ],
    ],
    fill_type: 'Random Single-line Completion',
    test_command: 'python3 -m unittest',
  };
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, [JSON.stringify(rec), '{"repo_name": "broken", '].join('\n') + '\n');
}

let s: EngineService;
const events: EngineEvent[] = [];
beforeAll(async () => {
  s = await openService(root, 'svc');
  s.subscribe((e) => events.push(e));
});
afterAll(async () => {
  await s?.close();
});

const dataDir = () => path.join(root, 'svc', 'data');

/** Starts an import, waits for its job and answers the job and what it made. */
async function imported(
  call: 'import.benchmark' | 'import.samples',
  input: Record<string, unknown>,
): Promise<{ job: JobInfo; summary: ImportSummary; out: string }> {
  const started = await ok<{ jobId: string; out: string }>(s, call, input);
  const job = await settled(s, started.jobId);
  expect(job, JSON.stringify(job)).toMatchObject({ state: 'done', kind: 'import' });
  return { job, summary: await ok<ImportSummary>(s, 'import.result', { jobId: started.jobId }), out: started.out };
}

/** The phases a job reported, in order, once each. */
function phasesOf(jobId: string): string[] {
  const seen: string[] = [];
  for (const e of events) if (e.type === 'job' && e.job.id === jobId && e.job.progress && seen.at(-1) !== e.job.progress.phase) seen.push(e.job.progress.phase);
  return seen;
}

describe('import calls', () => {
  it('import.defaults: a folder of its own per benchmark in the data folder, a set file named after its input', async () => {
    const d = (input: Record<string, unknown>) => ok<{ out: string; dataDir: string }>(s, 'import.defaults', input);
    expect(await d({ kind: 'repoexec' })).toEqual({ out: path.join(dataDir(), 'benchmarks', 'repoexec'), dataDir: dataDir() });
    expect((await d({ kind: 'repoexec', subset: 'mini' })).out).toBe(path.join(dataDir(), 'benchmarks', 'repoexec-mini'));
    // A subset name cannot lead the output out of the benchmarks folder.
    expect(path.dirname((await d({ kind: 'repoexec', subset: '../../etc' })).out)).toBe(path.join(dataDir(), 'benchmarks'));
    expect((await d({ kind: 'samples', input: '/x/repoexec/phi-2-results/' })).out).toBe(path.join(dataDir(), 'sample-sets', 'phi-2-results.jsonl'));
    expect((await d({ kind: 'samples', input: '/x/Raw_Input.jsonl' })).out).toBe(path.join(dataDir(), 'sample-sets', 'Raw_Input.jsonl'));
  });

  it('import.benchmark repoexec: a job with progress, then the manifest, IMPORT.md, tasks, dropped lines and warnings', async () => {
    const bench = path.join(root, 'bench-rx');
    const { taskIds } = repoExecBench(bench);
    const { job, summary, out } = await imported('import.benchmark', { kind: 'repoexec', path: bench });
    expect(out).toBe(path.join(dataDir(), 'benchmarks', 'repoexec'));
    expect(phasesOf(job.id)).toEqual(['import', 'report']);
    expect(job.progress).toMatchObject({ done: 2, total: 2 });
    const manifest = readManifest(summary.manifest!, { allow: [root] });
    expect(manifest.tasks.map((t) => t.id).sort()).toEqual(taskIds);
    expect(summary).toMatchObject({ kind: 'repoexec', input: bench, out, tasks: taskIds.length, sampleSet: null, reportFile: path.join(out, 'IMPORT.md') });
    expect(summary.report).toBe(fs.readFileSync(path.join(out, 'IMPORT.md'), 'utf8'));
    expect(summary.report).toMatch(/^# RepoExec import/);
    expect(summary.dropped['garbage-line']).toBe(1);
    expect(summary.warnings.byReason['malformed-json']).toBe(1);
    expect(summary.warnings.first).toEqual([expect.objectContaining({ reason: 'malformed-json', file: path.join(bench, 'repoexec_inline.jsonl'), line: 2 })]);
    expect(summary.facts.find((f) => f.label === 'Projects')?.value).toBe('1');

    // Again with a subset: its own default folder, only the subset's task.
    const mini = await imported('import.benchmark', { kind: 'repoexec', path: bench, subset: 'mini' });
    expect(mini.out).toBe(path.join(dataDir(), 'benchmarks', 'repoexec-mini'));
    expect(readManifest(mini.summary.manifest!, { allow: [root] }).tasks.map((t) => t.id)).toEqual(['RepoExec/1']);
    // An unknown subset fails the job with the importer's words.
    const bad = await ok<{ jobId: string }>(s, 'import.benchmark', { kind: 'repoexec', path: bench, subset: 'nope', out: path.join(root, 'out-nope') });
    expect(await settled(s, bad.jobId)).toMatchObject({ state: 'failed', error: expect.stringMatching(/Unknown subset "nope".*mini/) });
    expect(await s.call('import.result', { jobId: bad.jobId })).toMatchObject({
      ok: false,
      error: { code: 'not-found', message: expect.stringMatching(/failed/) },
    });
  });

  it('refuses a foreign output folder, a missing input and paths outside the allowed folders, naming the field', async () => {
    const bench = path.join(root, 'bench-rx');
    const foreign = path.join(root, 'foreign');
    writeFiles(foreign, { 'notes.txt': 'mine' });
    const r1 = await s.call('import.benchmark', { kind: 'repoexec', path: bench, out: foreign });
    expect(r1).toMatchObject({ ok: false, error: { code: 'invalid-input', issues: [{ path: 'out' }] } });
    if (!r1.ok) expect(r1.error.message).toContain(foreign);
    expect(fs.readdirSync(foreign)).toEqual(['notes.txt']);

    const missing = path.join(root, 'no-such-bench');
    const r2 = await s.call('import.benchmark', { kind: 'repoexec', path: missing });
    expect(r2).toMatchObject({ ok: false, error: { code: 'invalid-input', issues: [{ path: 'path' }] } });
    if (!r2.ok) expect(r2.error.message).toContain(missing);

    // Outside the allowed folders: refused with the folder that, once allowed, lets the same call through.
    repoExecBench(path.join(outside, 'rx'));
    const r3 = await s.call('import.benchmark', { kind: 'repoexec', path: path.join(outside, 'rx') });
    expect(r3).toMatchObject({ ok: false, error: { code: 'forbidden-path', issues: [{ path: 'path' }], allow: fs.realpathSync(path.join(outside, 'rx')) } });
    const r4 = await s.call('import.benchmark', { kind: 'repoexec', path: bench, out: path.join(outside, 'new-out') });
    expect(r4).toMatchObject({ ok: false, error: { code: 'forbidden-path', issues: [{ path: 'out' }], allow: fs.realpathSync(outside) } });
    await ok(s, 'repo.allow', { folder: outside });
    const allowed = await imported('import.benchmark', { kind: 'repoexec', path: path.join(outside, 'rx'), out: path.join(outside, 'new-out') });
    expect(allowed.summary.tasks).toBe(2);

    const r5 = await s.call('import.benchmark', { kind: 'execrepobench', path: bench, subset: 'mini' });
    expect(r5).toMatchObject({ ok: false, error: { code: 'invalid-input', issues: [{ path: 'path' }] } });
    // An option another importer takes: refused at that option's field, before any job starts.
    const r6 = await s.call('import.benchmark', { kind: 'codereval', path: bench, subset: 'mini' });
    expect(r6).toMatchObject({ ok: false, error: { code: 'invalid-input', message: 'Only a RepoExec import takes a subset', issues: [{ path: 'subset' }] } });
    const r7 = await s.call('import.benchmark', { kind: 'repoexec', path: bench, docstrings: 'human' });
    expect(r7).toMatchObject({ ok: false, error: { code: 'invalid-input', issues: [{ path: 'docstrings', message: 'CoderEval only' }] } });
  });

  it('import.benchmark execrepobench: the records file → tasks, with the malformed line as a warning', async () => {
    const records = path.join(root, 'erb', 'records.jsonl');
    execRepoBenchRecords(records);
    const { summary, out } = await imported('import.benchmark', { kind: 'execrepobench', path: records });
    expect(out).toBe(path.join(dataDir(), 'benchmarks', 'execrepobench'));
    expect(summary).toMatchObject({ kind: 'execrepobench', input: records, tasks: 1 });
    expect(readManifest(summary.manifest!, { allow: [root] }).tasks.map((t) => t.id)).toEqual(['erb-add']);
    expect(summary.warnings.byReason['malformed-json']).toBe(1);
    expect(summary.report).toBe(fs.readFileSync(path.join(out, 'IMPORT.md'), 'utf8'));
  });

  it.skipIf(!HAVE_CODEREVAL)(`import.benchmark codereval on the staged folder gives what the importer gives${HAVE_CODEREVAL ? '' : NO_BENCH}`, async () => {
    await ok(s, 'repo.allow', { folder: CODEREVAL });
    const { summary, out } = await imported('import.benchmark', { kind: 'codereval', path: CODEREVAL, docstrings: 'human' });
    const direct = await importCoderEval({ benchDir: CODEREVAL, outDir: path.join(root, 'codereval-direct'), docstrings: 'human' });
    expect(summary.tasks).toBe(direct.counts.tasks);
    expect(summary.dropped).toEqual(direct.dropped);
    expect(summary.warnings.count).toBe(direct.warnings.length);
    expect(summary.facts.find((f) => f.label === 'Docstrings')?.value).toBe('human');
    expect(readManifest(summary.manifest!, { allow: [root] }).tasks).toHaveLength(direct.counts.tasks);
    expect(summary.report).toBe(fs.readFileSync(path.join(out, 'IMPORT.md'), 'utf8'));
  });

  it('import.samples: a results folder → a set file whose Pass@k is the folder’s; only a set file is overwritten', async () => {
    const folder = path.join(root, 'my-results');
    resultsFolder(folder);
    const { job, summary, out } = await imported('import.samples', { path: folder });
    expect(out).toBe(path.join(dataDir(), 'sample-sets', 'my-results.jsonl'));
    expect(phasesOf(job.id)).toEqual(['read', 'write']);
    expect(summary).toMatchObject({
      kind: 'samples',
      sampleSet: out,
      manifest: null,
      tasks: 2,
      samples: { format: 'repoexec', samples: 6, labelled: 6, perTask: [3] },
    });
    const fromFolder = await ok<SamplePassK>(s, 'samples.passk', { path: folder, ks: [1, 3] });
    const fromSet = await ok<SamplePassK>(s, 'samples.passk', { path: out, ks: [1, 3] });
    expect(fromSet.format).toBe('set');
    expect(fromSet.passAtK).toEqual(fromFolder.passAtK);
    expect(summary.report).toContain(out);

    // Re-importing replaces the set; a file that is not a set is never overwritten; a folder is not a file.
    await imported('import.samples', { path: folder, out });
    const other = path.join(root, 'notes.jsonl');
    fs.writeFileSync(other, '{"hello": 1}\n');
    expect(await s.call('import.samples', { path: folder, out: other })).toMatchObject({
      ok: false,
      error: { code: 'invalid-input', issues: [{ path: 'out' }] },
    });
    expect(fs.readFileSync(other, 'utf8')).toBe('{"hello": 1}\n');
    expect(await s.call('import.samples', { path: folder, out: root })).toMatchObject({
      ok: false,
      error: { code: 'invalid-input', issues: [{ path: 'out' }] },
    });

    // A folder that holds no sample set: the job fails naming it.
    const empty = path.join(root, 'empty-folder');
    fs.mkdirSync(empty, { recursive: true });
    const bad = await ok<{ jobId: string }>(s, 'import.samples', { path: empty, out: path.join(root, 'x.jsonl') });
    expect(await settled(s, bad.jobId)).toMatchObject({ state: 'failed', error: expect.stringContaining(empty) });
  });

  it.skipIf(!HAVE_PHI2)(
    `import.samples reads phi-2's published folder: 355 tasks and the official Pass@k published beside it${HAVE_PHI2 ? '' : NO_BENCH}`,
    async () => {
      await ok(s, 'repo.allow', { folder: PHI2 });
      const { summary } = await imported('import.samples', { path: PHI2 });
      const published = JSON.parse(fs.readFileSync(path.join(PHI2, 'passk_True.json'), 'utf8')) as Record<string, number>;
      const want = (k: number) => Object.entries(published).find(([key]) => key.replace(/\D/g, '') === String(k))![1];
      expect(summary.tasks).toBe(355);
      expect(summary.facts.find((f) => f.label === 'Official Pass@k')?.value).toBe(
        `pass@1 ${want(1).toFixed(3)}, pass@5 ${want(5).toFixed(3)}, pass@10 ${want(10).toFixed(3)}`,
      );
    },
  );
});

describe('experiment samples: the inputs samples.passk reads (a folder was EISDIR)', () => {
  it('estimate and start take a RepoExec results folder; a folder that holds no set is an error naming it', async () => {
    const { summary } = await imported('import.benchmark', { kind: 'repoexec', path: path.join(root, 'bench-rx'), out: path.join(root, 'rx-for-samples') });
    const folder = path.join(root, 'results-for-run');
    resultsFolder(folder);
    const request = { manifest: summary.manifest!, kind: 'run', methods: ['baseline-rag'], samples: folder };
    const est = await s.call('experiment.estimate', request);
    expect(est.ok, JSON.stringify(est)).toBe(true);
    if (est.ok) expect(est.value).toMatchObject({ usdExpected: 0 });

    // The set a folder gives is written once in the data folder; the run reads that file.
    const converted = path.join(dataDir(), 'sample-sets', 'converted');
    const files = fs.readdirSync(converted);
    expect(files).toHaveLength(1);
    expect(files[0]).toMatch(/^results-for-run-[0-9a-f]{12}\.jsonl$/);
    const setPassK = await ok<SamplePassK>(s, 'samples.passk', { path: path.join(converted, files[0]!), ks: [1] });
    expect(setPassK.passAtK).toEqual((await ok<SamplePassK>(s, 'samples.passk', { path: folder, ks: [1] })).passAtK);

    const started = await ok<{ jobId: string }>(s, 'experiment.start', request);
    await ok(s, 'job.cancel', { jobId: started.jobId });
    expect(['done', 'cancelled', 'failed']).toContain((await settled(s, started.jobId)).state);
    // The same folder again: the same converted file, not a second copy.
    expect(fs.readdirSync(converted)).toEqual(files);

    const empty = path.join(root, 'no-samples-here');
    fs.mkdirSync(empty, { recursive: true });
    const bad = await s.call('experiment.estimate', { ...request, samples: empty });
    expect(bad).toMatchObject({ ok: false, error: { code: 'invalid-input', issues: [{ path: 'samples' }] } });
    if (!bad.ok) {
      expect(bad.error.message).toContain(empty);
      expect(bad.error.message).not.toMatch(/EISDIR/);
    }
  });
});
