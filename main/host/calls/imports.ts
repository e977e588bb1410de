// Imports from the UI (the Import view), each a job: a benchmark's files into tasks and a manifest, as `opencoder
// import <kind>` does (import.benchmark), and a published sample set into a set file, as `opencoder samples import`
// does (import.samples). The importers' own functions do the work (main/benchmarks); this file checks the paths,
// picks the default output in the app's data folder, reports progress and keeps what each finished job made for
// import.result.

import fs from 'node:fs';
import path from 'node:path';
import type { ImportKind, ImportSummary, ParsedInput } from '../../../contract/index.ts';
import type { CoderEvalImportResult } from '../../benchmarks/codereval.ts';
import type { ExecRepoBenchImportResult } from '../../benchmarks/execrepobench.ts';
import { checkOutDir, type ImportWarning } from '../../benchmarks/import-out.ts';
import type { RepoExecImportResult } from '../../benchmarks/repoexec/import.ts';
import { isSampleSetFile, officialCounts, passAtKOf, sampleSetLines, type SampleSet } from '../../benchmarks/samples.ts';
import { fixed, int } from '../../model/format.ts';
import type { JobContext } from '../jobs.ts';
import { fail, writeAtomic, type Workspace } from '../workspace.ts';
import type { CallTable } from './index.ts';
import { importBenchmark, optionsNotFor, type BenchmarkKind } from '../ops/imports.ts';
import { readSampleInput } from '../ops/samples.ts';

type BenchmarkInput = ParsedInput<'import.benchmark'>;
type SamplesInput = ParsedInput<'import.samples'>;

const TITLES: Record<ImportKind, string> = { repoexec: 'RepoExec', codereval: 'CoderEval', execrepobench: 'ExecRepoBench', samples: 'sample set' };

/** What each benchmark importer reads: a folder, or (ExecRepoBench) a records file. */
const INPUT_IS: Record<BenchmarkKind, 'folder' | 'file'> = { repoexec: 'folder', codereval: 'folder', execrepobench: 'file' };

/** How many warnings a summary lists one by one (the counts by reason cover them all). */
const FIRST_WARNINGS = 50;

/** A file or folder name made of safe characters (a subset or an input's name in a default output path). */
function slug(s: string): string {
  return (
    s
      .replace(/[^A-Za-z0-9._-]+/g, '-')
      .replace(/^[.-]+/, '')
      .slice(0, 100) || 'import'
  );
}

/** A sample set's default file name: its input's name without a JSON extension. */
function setName(input: string | undefined): string {
  const base = input ? path.basename(input.replace(/[\\/]+$/, '')) : '';
  return slug(base.replace(/\.jsonl?$/i, '') || 'samples');
}

/**
 * Where an import writes when no output is named: beside the CLI's imports, in the data folder's benchmarks/<kind>
 * (with `-<subset>` for a RepoExec subset), or a set file in sample-sets/ named after its input.
 */
export function defaultImportOut(dataDir: string, kind: ImportKind, input?: string, subset?: string): string {
  if (kind === 'samples') return path.join(dataDir, 'sample-sets', `${setName(input)}.jsonl`);
  return path.join(dataDir, 'benchmarks', subset ? `${kind}-${slug(subset)}` : kind);
}

/**
 * Where mining a repository (repo.mine) writes when no output is named: beside the imports, in the data folder's
 * benchmarks/mined-<the repository folder's name>.
 */
export function defaultMineOut(dataDir: string, folder: string): string {
  return path.join(dataDir, 'benchmarks', `mined-${slug(path.basename(folder.replace(/[\\/]+$/, '')))}`);
}

/** The input must exist and be what the importer reads (a folder or a file); else the field's error. */
function checkInput(field: string, p: string, want: 'folder' | 'file' | 'either', what: string): void {
  const st = fs.statSync(p, { throwIfNoEntry: false });
  if (!st) fail('invalid-input', `${p} does not exist (${what})`, [{ path: field, message: `does not exist (${what})` }]);
  if (want === 'folder' && !st!.isDirectory()) fail('invalid-input', `${p} is not a folder (${what})`, [{ path: field, message: `not a folder (${what})` }]);
  if (want === 'file' && !st!.isFile()) fail('invalid-input', `${p} is not a file (${what})`, [{ path: field, message: `not a file (${what})` }]);
}

const WHAT: Record<BenchmarkKind, string> = {
  repoexec: 'expected the staged RepoExec folder with repoexec_inline.jsonl and data_with_test_case/',
  codereval: 'expected the staged CoderEval folder with CoderEval-Input4Models/',
  execrepobench: 'expected ExecRepoBench records, one JSON object a line',
};

function warningsOf(warnings: ImportWarning[], byReason: Record<string, number>): ImportSummary['warnings'] {
  return { count: warnings.length, byReason, first: warnings.slice(0, FIRST_WARNINGS) };
}

const counts = (r: Record<string, { records: number; tasks: number }>) =>
  Object.entries(r)
    .map(([k, v]) => `${k} ${int(v.tasks)}/${int(v.records)}`)
    .join(', ') || 'none';

function readReport(file: string): string {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (err) {
    return `(${file} could not be read: ${(err as Error).message})`;
  }
}

/** What every benchmark importer's result has in common (its own folders, files, counts and warnings). */
interface BenchmarkResult {
  outDir: string;
  manifestFile: string;
  reportFile: string;
  dropped: ImportSummary['dropped'];
  warnings: ImportWarning[];
  warningCounts: Record<string, number>;
  counts: { tasks: number };
}

/** A benchmark import's summary: the shared part from the result, the importer's own facts beside it. */
function benchmarkSummary(jobId: string, kind: BenchmarkKind, input: string, r: BenchmarkResult, facts: ImportSummary['facts']): ImportSummary {
  return {
    jobId,
    kind,
    input,
    out: r.outDir,
    manifest: r.manifestFile,
    sampleSet: null,
    reportFile: r.reportFile,
    report: readReport(r.reportFile),
    tasks: r.counts.tasks,
    dropped: r.dropped,
    warnings: warningsOf(r.warnings, r.warningCounts),
    facts,
    samples: null,
  };
}

function repoExecSummary(jobId: string, r: RepoExecImportResult): ImportSummary {
  const c = r.counts;
  return benchmarkSummary(jobId, 'repoexec', r.benchDir, r, [
    { label: 'Projects', value: int(c.projects) },
    { label: 'Modules', value: `${int(c.modules)} (${int(c.files)} .py files)` },
    { label: 'Definitions', value: `${int(c.functions)} functions, ${int(c.methods)} methods, ${int(c.classes)} classes` },
    { label: 'Raw rows read', value: int(c.rows) },
    { label: 'Body-less stubs filled', value: int(c.stubsFilled) },
    { label: 'Subset', value: r.subset ?? 'all RepoExec-inline tasks' },
  ]);
}

function coderEvalSummary(jobId: string, r: CoderEvalImportResult): ImportSummary {
  const c = r.counts;
  return benchmarkSummary(jobId, 'codereval', r.benchDir, r, [
    { label: 'Records', value: int(c.records) },
    { label: 'Tasks by shape', value: `${int(c.templateTasks)} check-template, ${int(c.repositoryTasks)} repository` },
    { label: 'Levels (tasks/records)', value: counts(r.levels) },
    { label: 'Docstrings', value: r.docstrings },
    { label: 'Metadata', value: r.metadataFile },
  ]);
}

function execRepoBenchSummary(jobId: string, r: ExecRepoBenchImportResult): ImportSummary {
  const c = r.counts;
  return benchmarkSummary(jobId, 'execrepobench', r.recordsFile, r, [
    { label: 'Records', value: `${int(c.records)} (${int(c.malformed)} lines not JSON objects)` },
    { label: 'Files under repos/', value: int(c.files) },
    { label: 'Fill types (tasks/records)', value: counts(r.byFillType) },
    { label: 'Test command the validator cannot run yet', value: `${int(r.unsupportedCommands.length)} tasks` },
  ]);
}

/** A sample set's summary: what was read and written, its labels, and the official Pass@k where every sample has one. */
function samplesSummary(jobId: string, input: string, out: string, set: SampleSet): ImportSummary {
  const samples = set.tasks.reduce((a, t) => a + t.samples.length, 0);
  const labelled = set.tasks.reduce((a, t) => a + t.samples.filter((s) => s.passed !== undefined).length, 0);
  const perTask = [...new Set(set.tasks.map((t) => t.samples.length))].sort((a, b) => a - b);
  const format = set.format === 'set' ? 'sample set' : set.format;
  const facts: ImportSummary['facts'] = [
    { label: 'Format', value: format },
    { label: 'Samples', value: `${int(samples)} (n per task: ${perTask.join(', ') || 'none'})` },
    { label: 'Official labels', value: labelled ? `${int(labelled)} of ${int(samples)}` : 'none' },
  ];
  let passk: string[] = [];
  if (samples && labelled === samples) {
    const ks = [1, 5, 10].filter((k) => k <= Math.min(...set.tasks.map((t) => t.samples.length)));
    if (ks.length) {
      const report = passAtKOf(officialCounts(set.tasks), ks);
      passk = ks.map((k) => `pass@${k} ${fixed(report.passAtK[String(k)], 3)}`);
      facts.push({ label: 'Official Pass@k', value: passk.join(', ') });
    }
  }
  const report = [
    '# Sample set import',
    '',
    `Read \`${set.source}\` (${format}) and wrote \`${out}\`: one task a line, each sample byte for byte as published.`,
    '',
    '## Totals',
    '',
    `- tasks: ${int(set.tasks.length)}`,
    `- samples: ${int(samples)} (n per task: ${perTask.join(', ') || 'none'})`,
    `- official labels: ${labelled ? `${int(labelled)} of ${int(samples)}` : 'none'}`,
    ...(passk.length ? [`- official Pass@k (mean over tasks of the unbiased estimate): ${passk.join(', ')}`] : []),
    '',
    '## Next',
    '',
    labelled === samples && samples
      ? '- Pass@k from the official labels: the Experiment view\'s "Published sample sets" box (or `opencoder passk`).'
      : '- Without an official label for every sample there is no official Pass@k; run the samples against a manifest instead.',
    '- As an experiment\'s candidates: its "Published samples" field (the samples are run byte for byte instead of calling a model).',
    '',
  ].join('\n');
  return {
    jobId,
    kind: 'samples',
    input,
    out,
    manifest: null,
    sampleSet: out,
    reportFile: null,
    report,
    tasks: set.tasks.length,
    dropped: {},
    warnings: { count: 0, byReason: {}, first: [] },
    facts,
    samples: { format, samples, labelled, perTask, source: set.source },
  };
}

/** Lets the call answer (with the job id) before the job's first synchronous step. */
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Counts warnings as they come and says so on the job (the summary lists them). */
function warningReporter(job: JobContext, phase: string, step: { done: number; total: number }, what: string): (w: ImportWarning) => void {
  let n = 0;
  return (w) => {
    n++;
    job.progress({ phase, ...step, message: `${what}: ${n} warning${n === 1 ? '' : 's'} so far (latest: ${w.reason})` });
  };
}

export function importCalls(ws: Workspace): CallTable<'import.defaults' | 'import.benchmark' | 'import.samples' | 'import.result'> {
  /** What each finished import job made, by job id. */
  const results = new Map<string, ImportSummary>();
  /** Output paths an import is writing now (a second import into one of them is refused), with the job's id. */
  const writing = new Map<string, string>();

  /** The output, checked: inside the allowed folders and not being written by another import. */
  const outputFor = (kind: ImportKind, out: string | undefined, input: string, subset?: string): string => {
    const chosen = out ?? defaultImportOut(ws.dataDir, kind, input, subset);
    const c = ws.checkPath('out', chosen);
    const busy = writing.get(c);
    const job = busy ? ws.jobs.get(busy) : undefined;
    if (job?.state === 'running')
      fail('invalid-input', `An import into ${c} is running (${job.title}); wait for it or choose another output`, [
        { path: 'out', message: 'an import into it is running' },
      ]);
    return c;
  };

  /** Starts the job; `work` returns the summary (or null when the job was cancelled before it finished). */
  const startJob = (kind: ImportKind, title: string, out: string, work: (job: JobContext, jobId: string) => Promise<ImportSummary | null>) => {
    let jobId = '';
    const info = ws.jobs.start('import', title, async (job) => {
      await nextTurn();
      try {
        const summary = await work(job, jobId);
        if (summary) results.set(jobId, summary);
      } finally {
        if (writing.get(out) === jobId) writing.delete(out);
      }
    });
    jobId = info.id;
    writing.set(out, jobId);
    return { jobId, out, kind };
  };

  const benchmark = (input: BenchmarkInput) => {
    const { kind } = input;
    checkInput('path', input.path, INPUT_IS[kind], WHAT[kind]);
    const foreign = optionsNotFor(kind, {
      subset: input.subset || undefined,
      records: input.records || undefined,
      templates: input.templates || undefined,
      docstrings: input.docstrings,
    });
    if (foreign.length) {
      const only = foreign[0] === 'subset' ? 'a RepoExec import takes a subset' : 'a CoderEval import takes records, templates or docstrings';
      fail('invalid-input', `Only ${only}`, [{ path: foreign[0]!, message: foreign[0] === 'subset' ? 'RepoExec only' : 'CoderEval only' }]);
    }
    if (input.records) {
      ws.checkPath('records', input.records);
      checkInput('records', input.records, 'file', 'a CoderEval4Python.json records file');
    }
    if (input.templates) {
      ws.checkPath('templates', input.templates);
      checkInput('templates', input.templates, 'folder', 'a folder of <name>_<_id>.py test templates');
    }
    const out = outputFor(kind, input.out, input.path, input.subset);
    // The importer's own check, now: a foreign folder is refused before a job starts.
    checkOutDir(out, kind, (message) => fail('invalid-input', message, [{ path: 'out', message: 'not empty, and not an earlier import of this kind' }]));
    const title = `Import ${TITLES[kind]}${input.subset ? ` (${input.subset})` : ''} from ${path.basename(input.path)}`;
    return startJob(kind, title, out, async (job, jobId) => {
      if (job.signal.aborted) return null;
      const step = { done: 0, total: 2 };
      const what = `Importing ${TITLES[kind]} from ${input.path} into ${out}`;
      job.progress({ phase: 'import', ...step, message: what });
      const onWarning = warningReporter(job, 'import', step, what);
      const done = await importBenchmark({
        kind,
        input: input.path,
        out,
        subset: input.subset,
        records: input.records,
        templates: input.templates,
        docstrings: input.docstrings,
        onWarning,
      });
      const summary =
        done.kind === 'repoexec'
          ? repoExecSummary(jobId, done.result)
          : done.kind === 'codereval'
            ? coderEvalSummary(jobId, done.result)
            : execRepoBenchSummary(jobId, done.result);
      job.progress({ phase: 'report', done: 1, total: 2, message: `Reading ${summary.reportFile}` });
      job.progress({ phase: 'report', done: 2, total: 2, message: `${int(summary.tasks)} tasks → ${summary.manifest}` });
      return summary;
    });
  };

  const samples = (input: SamplesInput) => {
    checkInput('path', input.path, 'either', 'a published sample file or folder');
    const out = outputFor('samples', input.out, input.path);
    const st = fs.statSync(out, { throwIfNoEntry: false });
    if (st?.isDirectory())
      fail('invalid-input', `${out} is a folder; the set is written to a file (name one, such as ${path.join(out, `${setName(input.path)}.jsonl`)})`, [
        { path: 'out', message: 'a folder: name a file' },
      ]);
    if (st && !isSampleSetFile(out))
      fail('invalid-input', `Refusing to overwrite ${out}: it is not a sample set written by an import. Choose a new file.`, [
        { path: 'out', message: 'exists and is not a sample set' },
      ]);
    return startJob('samples', `Import sample set from ${path.basename(input.path)}`, out, async (job, jobId) => {
      job.progress({ phase: 'read', done: 0, total: 2, message: `Reading ${input.path}` });
      const set = readSampleInput('path', input.path, input.format);
      await nextTurn();
      if (job.signal.aborted) return null;
      job.progress({ phase: 'write', done: 1, total: 2, message: `Writing ${int(set.tasks.length)} tasks to ${out}` });
      writeAtomic(out, sampleSetLines(set));
      job.progress({ phase: 'write', done: 2, total: 2, message: `${int(set.tasks.length)} tasks → ${out}` });
      return samplesSummary(jobId, input.path, out, set);
    });
  };

  return {
    'import.defaults': ({ kind, input, subset }) => ({ out: defaultImportOut(ws.dataDir, kind, input, subset), dataDir: ws.dataDir }),
    'import.benchmark': (input) => {
      const { jobId, out } = benchmark(input);
      return { jobId, out };
    },
    'import.samples': (input) => {
      const { jobId, out } = samples(input);
      return { jobId, out };
    },
    'import.result': ({ jobId }) => {
      const r = results.get(jobId);
      if (r) return r;
      const job = ws.jobs.get(jobId);
      if (!job) fail('not-found', `no job ${jobId}`);
      if (job!.kind !== 'import') fail('not-found', `job ${jobId} (${job!.title}) is not an import`);
      fail('not-found', `import ${jobId} has no result: it is ${job!.state}${job!.error ? ` (${job!.error})` : ''}`);
      return r!;
    },
  };
}
