// Published sample sets as data: another system's n generations per task, kept byte for byte with their
// official labels when the source has them, and the Pass@k they give.
//
// Readers (`--format`, or detected from the input):
//   repoexec   a folder of `results_<i>.jsonl` (RepoExec's harness output: task_id = HF index, prediction_id,
//              generation, passed, message), with `repoexec_hf_index_map.json` found beside or above it
//              (or given) to name each task; task ids become the importer's `RepoExec/<i>`.
//   codereval  CoderEval's `*_out.jsonl`: `_id`, `generate_results` [{generate_code, is_pass, return_code}].
//   bigcode    bigcode-evaluation-harness `generations.json` (a list per task of generated strings), task
//              ids by position; an optional `references.json` beside it is kept as each task's reference.
//   evalplus   EvalPlus `samples.jsonl`: one line per sample, {task_id, solution | completion}.
// Written as JSONL, one task per line: {"task_id", "samples": [{"code", "passed"?, …}], "meta"}, which is also
// what `run --backend imported --samples SET` reads.
//
// Pass@k: the unbiased estimator per task (stats.passAtK), averaged over tasks. k > n for some task is refused
// unless `kOverN: 'humaneval'`, which applies the HumanEval harness's estimator as written (1 when n − c < k,
// so a task with fewer than k samples counts as solved at k) — what CoderEval's published pass@10 used.

import fs from 'node:fs';
import path from 'node:path';
import { passAtK } from '../stats/stats.ts';
import { OpenCoderError } from '../model/errors.ts';
import type { VerdictIsolation } from '../model/verdict.ts';

export const SAMPLE_FORMATS = ['repoexec', 'codereval', 'bigcode', 'evalplus'] as const;
export type SampleFormat = (typeof SAMPLE_FORMATS)[number];

export interface Sample {
  code: string;
  /** The official verdict, when the source has one. */
  passed?: boolean;
  /** The source's own fields for this sample (RepoExec's harness message, CoderEval's return code, …). */
  meta?: Record<string, unknown>;
}

export interface SampleTask {
  taskId: string;
  samples: Sample[];
  meta: Record<string, unknown>;
}

export interface SampleSet {
  /** The reader used; `set` for a file written by `samples import`. */
  format: SampleFormat | 'set';
  source: string;
  tasks: SampleTask[];
}

export class SampleFormatError extends OpenCoderError {
  constructor(message: string) {
    super('invalid-input', message);
  }
}

function readJson(file: string): unknown {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    throw new SampleFormatError(`Cannot read ${file}: ${(e as Error).message}`);
  }
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new SampleFormatError(`${file}: not valid JSON (${(e as Error).message})`);
  }
}

function* jsonLines(file: string): Generator<{ rec: Record<string, unknown>; line: number }> {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    throw new SampleFormatError(`Cannot read ${file}: ${(e as Error).message}`);
  }
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    if (!lines[i]!.trim()) continue;
    let rec: unknown;
    try {
      rec = JSON.parse(lines[i]!);
    } catch (e) {
      throw new SampleFormatError(`${file}:${i + 1}: not valid JSON (${(e as Error).message})`);
    }
    if (!rec || typeof rec !== 'object' || Array.isArray(rec)) throw new SampleFormatError(`${file}:${i + 1}: expected a JSON object`);
    yield { rec: rec as Record<string, unknown>, line: i + 1 };
  }
}

/** Which reader an input needs, from its shape. */
export function detectFormat(input: string): SampleFormat {
  const st = fs.statSync(input, { throwIfNoEntry: false });
  if (!st) throw new SampleFormatError(`${input} does not exist`);
  if (st.isDirectory()) {
    if (fs.readdirSync(input).some((f) => /^results_\d+\.jsonl$/.test(f))) return 'repoexec';
    if (fs.existsSync(path.join(input, 'generations.json'))) return 'bigcode';
    if (fs.existsSync(path.join(input, 'samples.jsonl'))) return 'evalplus';
    throw new SampleFormatError(`${input}: no results_<i>.jsonl (RepoExec), generations.json (bigcode) or samples.jsonl (EvalPlus) in it; pass --format`);
  }
  if (input.endsWith('.json')) return 'bigcode';
  const first = jsonLines(input).next().value?.rec;
  if (!first) throw new SampleFormatError(`${input} holds no samples`);
  if (Array.isArray(first.generate_results)) return 'codereval';
  if ('prediction_id' in first && 'generation' in first) return 'repoexec';
  if ('task_id' in first && ('solution' in first || 'completion' in first)) return 'evalplus';
  throw new SampleFormatError(`${input}: cannot tell the format from its first line (fields ${Object.keys(first).join(', ')}); pass --format`);
}

function findIndexMap(dir: string, given?: string): string | null {
  if (given) return given;
  for (let d = path.resolve(dir), i = 0; i < 3; i++, d = path.dirname(d)) {
    const f = path.join(d, 'repoexec_hf_index_map.json');
    if (fs.existsSync(f)) return f;
  }
  return null;
}

function readRepoExec(input: string, indexMap?: string): SampleSet {
  const st = fs.statSync(input);
  const files = st.isDirectory()
    ? fs
        .readdirSync(input)
        .filter((f) => /^results_\d+\.jsonl$/.test(f))
        .sort((a, b) => Number(a.match(/\d+/)![0]) - Number(b.match(/\d+/)![0]))
        .map((f) => path.join(input, f))
    : [input];
  if (!files.length) throw new SampleFormatError(`${input}: no results_<i>.jsonl files`);
  const mapFile = findIndexMap(st.isDirectory() ? input : path.dirname(input), indexMap);
  const map = new Map<number, Record<string, unknown>>();
  if (mapFile) {
    const rows = readJson(mapFile);
    if (!Array.isArray(rows)) throw new SampleFormatError(`${mapFile}: expected a list of {hf_index, problem_id, …}`);
    for (const r of rows as Record<string, unknown>[]) if (typeof r.hf_index === 'number') map.set(r.hf_index, r);
  }
  const byTask = new Map<number, { pid: number; sample: Sample }[]>();
  for (const file of files) {
    for (const { rec, line } of jsonLines(file)) {
      const tid = rec.task_id;
      const pid = rec.prediction_id;
      if (typeof tid !== 'number' || typeof pid !== 'number' || typeof rec.generation !== 'string') {
        throw new SampleFormatError(`${file}:${line}: expected task_id (number), prediction_id (number) and generation (string)`);
      }
      const sample: Sample = { code: rec.generation };
      if (typeof rec.passed === 'boolean') sample.passed = rec.passed;
      if (typeof rec.message === 'string') sample.meta = { message: rec.message };
      let list = byTask.get(tid);
      if (!list) byTask.set(tid, (list = []));
      if (list.some((x) => x.pid === pid)) throw new SampleFormatError(`${file}:${line}: task ${tid} has prediction_id ${pid} twice`);
      list.push({ pid, sample });
    }
  }
  const tasks = [...byTask.entries()]
    .sort((a, b) => a[0] - b[0])
    .map(([tid, list]) => ({
      taskId: `RepoExec/${tid}`,
      samples: list.sort((a, b) => a.pid - b.pid).map((x) => x.sample),
      meta: { hf_index: tid, ...(map.get(tid) ?? {}) },
    }));
  return { format: 'repoexec', source: path.resolve(input), tasks };
}

function readCoderEval(input: string): SampleSet {
  const tasks: SampleTask[] = [];
  const seen = new Set<string>();
  for (const { rec, line } of jsonLines(input)) {
    const id = rec._id;
    const gr = rec.generate_results;
    if (typeof id !== 'string' || !Array.isArray(gr)) throw new SampleFormatError(`${input}:${line}: expected _id (string) and generate_results (list)`);
    if (seen.has(id)) throw new SampleFormatError(`${input}:${line}: task ${id} appears twice`);
    seen.add(id);
    const samples = gr.map((g, j) => {
      const o = g as Record<string, unknown>;
      if (typeof o.generate_code !== 'string') throw new SampleFormatError(`${input}:${line}: generate_results[${j}] has no generate_code string`);
      const s: Sample = { code: o.generate_code };
      if (typeof o.is_pass === 'boolean') s.passed = o.is_pass;
      if (o.return_code !== undefined) s.meta = { return_code: o.return_code };
      return s;
    });
    const { generate_results: _g, code: _c, ...meta } = rec;
    tasks.push({ taskId: id, samples, meta });
  }
  return { format: 'codereval', source: path.resolve(input), tasks };
}

function readBigcode(input: string): SampleSet {
  const file = fs.statSync(input).isDirectory() ? path.join(input, 'generations.json') : input;
  const gens = readJson(file);
  if (!Array.isArray(gens) || !gens.every((g) => Array.isArray(g) && g.every((s) => typeof s === 'string'))) {
    throw new SampleFormatError(`${file}: expected a list (one per task) of lists of generated strings`);
  }
  const refFile = path.join(path.dirname(file), 'references.json');
  const refs = fs.existsSync(refFile) ? readJson(refFile) : null;
  if (refs !== null && (!Array.isArray(refs) || refs.length !== gens.length)) {
    throw new SampleFormatError(`${refFile}: expected a list of ${gens.length} references, one per task of ${file}`);
  }
  const tasks = gens.map((g, i) => ({
    taskId: String(i),
    samples: g.map((code) => ({ code })),
    meta: refs ? { reference: (refs as unknown[])[i] } : {},
  }));
  return { format: 'bigcode', source: path.resolve(file), tasks };
}

function readEvalPlus(input: string): SampleSet {
  const file = fs.statSync(input).isDirectory() ? path.join(input, 'samples.jsonl') : input;
  const byTask = new Map<string, Sample[]>();
  for (const { rec, line } of jsonLines(file)) {
    const code = typeof rec.solution === 'string' ? rec.solution : typeof rec.completion === 'string' ? rec.completion : null;
    if (typeof rec.task_id !== 'string' || code === null) throw new SampleFormatError(`${file}:${line}: expected task_id and solution (or completion) strings`);
    let list = byTask.get(rec.task_id);
    if (!list) byTask.set(rec.task_id, (list = []));
    list.push({ code, meta: { field: typeof rec.solution === 'string' ? 'solution' : 'completion' } });
  }
  return { format: 'evalplus', source: path.resolve(file), tasks: [...byTask.entries()].map(([taskId, samples]) => ({ taskId, samples, meta: {} })) };
}

/** Whether a file was written by `samples import` (first line: task_id and a samples list). */
export function isSampleSetFile(input: string): boolean {
  if (!fs.statSync(input, { throwIfNoEntry: false })?.isFile() || input.endsWith('.json')) return false;
  try {
    const first = jsonLines(input).next().value?.rec;
    return !!first && typeof first.task_id === 'string' && Array.isArray(first.samples);
  } catch {
    return false;
  }
}

export function readSamples(input: string, opts: { format?: SampleFormat | 'auto'; indexMap?: string } = {}): SampleSet {
  if ((!opts.format || opts.format === 'auto') && isSampleSetFile(input))
    return { format: 'set', source: path.resolve(input), tasks: readSampleSetFile(input) };
  const format = !opts.format || opts.format === 'auto' ? detectFormat(input) : opts.format;
  switch (format) {
    case 'repoexec':
      return readRepoExec(input, opts.indexMap);
    case 'codereval':
      return readCoderEval(input);
    case 'bigcode':
      return readBigcode(input);
    case 'evalplus':
      return readEvalPlus(input);
    default:
      throw new SampleFormatError(`unknown sample format ${String(format)} (one of ${SAMPLE_FORMATS.join(', ')})`);
  }
}

/** The set as JSONL (one task per line), the form `run --backend imported` and `passk` read back. */
export function sampleSetLines(set: SampleSet): string {
  return set.tasks
    .map((t) =>
      JSON.stringify({
        task_id: t.taskId,
        samples: t.samples.map((s) => ({ code: s.code, ...(s.passed === undefined ? {} : { passed: s.passed }), ...(s.meta ? { meta: s.meta } : {}) })),
        meta: { ...t.meta, sample_format: set.format, sample_source: set.source },
      }),
    )
    .join('\n')
    .concat(set.tasks.length ? '\n' : '');
}

/** Reads a set written by sampleSetLines. */
export function readSampleSetFile(file: string): SampleTask[] {
  const tasks: SampleTask[] = [];
  for (const { rec, line } of jsonLines(file)) {
    if (typeof rec.task_id !== 'string' || !Array.isArray(rec.samples))
      throw new SampleFormatError(`${file}:${line}: expected task_id and samples (written by opencoder samples import)`);
    tasks.push({
      taskId: rec.task_id,
      samples: (rec.samples as Record<string, unknown>[]).map((s, j) => {
        if (typeof s.code !== 'string') throw new SampleFormatError(`${file}:${line}: samples[${j}] has no code`);
        const out: Sample = { code: s.code };
        if (typeof s.passed === 'boolean') out.passed = s.passed;
        return out;
      }),
      meta: (rec.meta as Record<string, unknown>) ?? {},
    });
  }
  return tasks;
}

export type KOverN = 'refuse' | 'humaneval';

export interface TaskPassAtK {
  taskId: string;
  n: number;
  c: number;
  passAtK: Record<string, number>;
}

export interface PassAtKReport {
  tasks: number;
  samples: number;
  n: { min: number; max: number };
  ks: number[];
  kOverN: KOverN;
  /** Mean over tasks of the per-task unbiased estimate. */
  passAtK: Record<string, number>;
  perTask: TaskPassAtK[];
  /** Tasks with fewer than k samples for some k (estimated by the HumanEval convention when allowed). */
  shortTasks: { taskId: string; n: number }[];
  computedOver: string;
}

/** The HumanEval harness's estimator as written: 1 when n − c < k (also when n < k), else 1 − C(n−c, k)/C(n, k). */
export function humanEvalEstimator(n: number, c: number, k: number): number {
  if (n - c < k) return 1;
  return passAtK(n, c, k);
}

/** Pass@k from per-task (n, c). */
export function passAtKOf(counts: { taskId: string; n: number; c: number }[], ks: number[], kOverN: KOverN = 'refuse'): PassAtKReport {
  if (!counts.length) throw new RangeError('no tasks to compute Pass@k over');
  const kmax = Math.max(...ks);
  const shortTasks = counts.filter((t) => t.n < kmax).map((t) => ({ taskId: t.taskId, n: t.n }));
  if (shortTasks.length && kOverN === 'refuse') {
    const list = shortTasks
      .slice(0, 5)
      .map((t) => `${t.taskId} (n = ${t.n})`)
      .join(', ');
    throw new RangeError(
      `Pass@${kmax} needs at least ${kmax} samples per task; ${shortTasks.length} task(s) have fewer: ${list}${shortTasks.length > 5 ? ', …' : ''}. ` +
        'Lower --k, or pass --k-over-n humaneval to count them as the HumanEval harness does (1 when n − c < k).',
    );
  }
  const perTask = counts.map((t) => ({
    ...t,
    passAtK: Object.fromEntries(ks.map((k) => [String(k), t.n < k ? humanEvalEstimator(t.n, t.c, k) : passAtK(t.n, t.c, k)])),
  }));
  const ns = counts.map((t) => t.n);
  return {
    tasks: counts.length,
    samples: ns.reduce((a, b) => a + b, 0),
    n: { min: Math.min(...ns), max: Math.max(...ns) },
    ks,
    kOverN,
    passAtK: Object.fromEntries(ks.map((k) => [String(k), perTask.reduce((a, t) => a + t.passAtK[String(k)]!, 0) / perTask.length])),
    perTask,
    shortTasks,
    computedOver:
      `mean over ${counts.length} tasks of the unbiased per-task estimate 1 − C(n−c, k)/C(n, k) (Chen et al. 2021)` +
      (shortTasks.length ? `; ${shortTasks.length} task(s) with n < k counted by the HumanEval convention (1 when n − c < k)` : ''),
  };
}

/** Per-task (n, c) from official labels; a task with an unlabelled sample is an error naming it. */
export function officialCounts(tasks: SampleTask[]): { taskId: string; n: number; c: number }[] {
  return tasks.map((t) => {
    const unlabelled = t.samples.findIndex((s) => s.passed === undefined);
    if (unlabelled >= 0) throw new RangeError(`task ${t.taskId}: sample ${unlabelled + 1} has no official label; use --labels executed to run the samples`);
    return { taskId: t.taskId, n: t.samples.length, c: t.samples.filter((s) => s.passed).length };
  });
}

export interface ExecutedSample {
  index: number;
  official: boolean | null;
  executed: boolean;
  status: string;
  reason: string;
  /** Where the verdict was decided (absent: in-process, as before isolation existed). */
  isolation?: VerdictIsolation;
}

export interface ExecutedTask {
  taskId: string;
  /** The manifest task the set's task was matched to. */
  manifestTaskId: string;
  samples: ExecutedSample[];
}

/** How many executed samples (and tasks, by their first sample) were decided isolated, the rest in-process. */
export function isolationCounts(tasks: ExecutedTask[]): { samples: number; isolated: number; tasks: number; tasksIsolated: number } {
  const all = tasks.flatMap((t) => t.samples);
  return {
    samples: all.length,
    isolated: all.filter((s) => s.isolation === 'isolated').length,
    tasks: tasks.length,
    tasksIsolated: tasks.filter((t) => t.samples.length && t.samples.every((s) => s.isolation === 'isolated')).length,
  };
}

export interface Agreement {
  /** Samples with an official label that were executed. */
  labelled: number;
  agree: number;
  rate: number | null;
  /** official pass → executed fail, and the reverse. */
  officialPassExecutedFail: number;
  officialFailExecutedPass: number;
  /** Tasks where every labelled sample agrees. */
  tasksAgreeing: number;
}

/** How executed verdicts agree with official labels (null labels are not counted). */
export function agreementOf(tasks: ExecutedTask[]): Agreement {
  let labelled = 0;
  let agree = 0;
  let pf = 0;
  let fp = 0;
  let tasksAgreeing = 0;
  for (const t of tasks) {
    let all = true;
    for (const s of t.samples) {
      if (s.official === null) continue;
      labelled++;
      if (s.official === s.executed) agree++;
      else {
        all = false;
        if (s.official) pf++;
        else fp++;
      }
    }
    if (all) tasksAgreeing++;
  }
  return { labelled, agree, rate: labelled ? agree / labelled : null, officialPassExecutedFail: pf, officialFailExecutedPass: fp, tasksAgreeing };
}

/** The manifest task a set's task id names: the same id, or a manifest id ending in `/<id>` (`codereval/<_id>`). */
export function matchTask<T extends { id: string }>(tasks: T[], setTaskId: string): T | undefined {
  return tasks.find((t) => t.id === setTaskId) ?? tasks.find((t) => t.id.endsWith(`/${setTaskId}`)) ?? tasks.find((t) => setTaskId.endsWith(`/${t.id}`));
}
