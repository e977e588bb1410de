// Calls over experiments: methods.list, experiment.estimate (what a run would cost, sending nothing),
// experiment.start / experiment.resume (jobs), experiment.list and experiment.result (one task's result).

import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { CostEstimateInfo, MethodInfo, ParsedInput, RunListItem } from '../../../contract/index.ts';
import { readManifest, type Manifest, type Task } from '../../benchmarks/manifest.ts';
import { sampleSetLines, type SampleSet } from '../../benchmarks/samples.ts';
import { loadSampleSets } from '../../generate/imported-backend.ts';
import { estimateRun, resumableRun, selectTasks, type StoredBackend } from '../../experiment/orchestrate.ts';
import { ExperimentError } from '../../experiment/runner.ts';
import { causeOf } from '../../experiment/scoring.ts';
import { backendSpecOfRecord } from '../../generate/backends.ts';
import { autoRunLabel, runSubject, storedBackendLabel } from '../../model/run-label.ts';
import type { TaskFailure, TaskResult } from '../../model/results.ts';
import { factorialConditions, LADDER, METHODS, type Condition } from '../../pipeline/methods.ts';
import { fail, writeAtomic, type Workspace } from '../workspace.ts';
import { conditionsFor } from './conditions.ts';
import type { CallTable } from './index.ts';
import { checkBackend, runBackendFor, startExperimentJob } from './runs.ts';
import { readSampleInput } from './samples.ts';

type Request = ParsedInput<'experiment.start'>;

function plannedTasks(
  ws: Workspace,
  input: { manifest: string; taskIds?: string[] | undefined; limit?: number | undefined },
): { manifest: Manifest; tasks: Task[] } {
  // Its tasks' repositories must lie in the manifest's folder (itself inside an allowed root) or an allowed root.
  const manifest = readManifest(input.manifest, { allow: ws.allowedRoots });
  let tasks: Task[];
  try {
    tasks = selectTasks(manifest, input.taskIds ?? null, input.limit ?? null);
  } catch (err) {
    if (err instanceof ExperimentError) fail('invalid-input', err.message, [{ path: input.taskIds ? 'taskIds' : 'manifest', message: err.message }]);
    throw err;
  }
  return { manifest, tasks };
}

/**
 * The file the imported backend reads for an experiment's `samples`, which takes what samples.passk takes (one reader,
 * samples.ts readSampleInput): a set written by an import, or CoderEval's *_out.jsonl, is read as it is; any other
 * input (a RepoExec results folder, bigcode, EvalPlus) is written once as a set in the data folder's
 * sample-sets/converted/ under `dataDir`, named by its content, and the run uses (and a resume reads) that file. The
 * CLI's `--backend imported --samples` reads through here too.
 */
export function samplesFileIn(dataDir: string, input: string): string {
  const isFile = fs.statSync(input, { throwIfNoEntry: false })?.isFile() === true;
  let set: SampleSet;
  try {
    set = readSampleInput('samples', input);
  } catch (err) {
    // A JSONL file in one of the imported backend's own looser shapes ({id, candidates: [...]}) is still read as it is.
    if (isFile && readsAsImported(input)) return input;
    throw err;
  }
  if (isFile && (set.format === 'set' || set.format === 'codereval')) return input;
  const lines = sampleSetLines(set);
  const hash = createHash('sha256').update(lines).digest('hex').slice(0, 12);
  const name =
    path
      .basename(set.source)
      .replace(/\.jsonl?$/i, '')
      .replace(/[^A-Za-z0-9._-]+/g, '-')
      .replace(/^[.-]+/, '') || 'samples';
  const file = path.join(dataDir, 'sample-sets', 'converted', `${name}-${hash}.jsonl`);
  if (!fs.existsSync(file)) {
    try {
      writeAtomic(file, lines);
    } catch (err) {
      fail('engine', `Cannot write the sample set read from ${input} to ${file}: ${(err as Error).message}`);
    }
  }
  return file;
}

function readsAsImported(file: string): boolean {
  try {
    return loadSampleSets(file).length > 0;
  } catch {
    return false;
  }
}

/** The request with its `samples` (if any) as the file the imported backend reads. */
function withSamplesFile<T extends { samples?: string | undefined }>(ws: Workspace, input: T): T {
  return input.samples ? { ...input, samples: samplesFileIn(ws.dataDir, input.samples) } : input;
}

function methods() {
  const info = (c: Condition): MethodInfo => ({ id: c.id, label: c.label, family: c.family, description: c.description });
  return { methods: Object.values(METHODS).map(info), ladder: LADDER.map(info), factorial: factorialConditions().map(info) };
}

function estimate(ws: Workspace, input: ParsedInput<'experiment.estimate'>): CostEstimateInfo {
  const { tasks } = plannedTasks(ws, input);
  const conditions = conditionsFor(ws, input.kind, input.methods);
  const { spec, stored } = runBackendFor(ws, withSamplesFile(ws, input));
  const backend = ws.backend(spec, { estimateOnly: true });
  try {
    const est = estimateRun(tasks, conditions, backend, ws.prices(), { llmDecomposition: stored.decompose === 'llm' });
    return {
      calls: est.calls,
      inputTokens: est.inputTokens,
      outputTokensExpected: est.outputTokensExpected,
      usdExpected: est.usdExpected,
      usdMax: est.usdMax,
      note: est.note,
      assumptions: est.assumptions,
    };
  } finally {
    void backend.dispose?.();
  }
}

function start(ws: Workspace, input: Request): { jobId: string } {
  const { manifest, tasks } = plannedTasks(ws, input);
  const conditions = conditionsFor(ws, input.kind, input.methods);
  const backend = runBackendFor(ws, withSamplesFile(ws, input));
  checkBackend(ws, backend.spec);
  const title = `${input.kind === 'run' ? 'Run' : input.kind === 'ladder' ? 'Ladder' : 'Ablation'}: ${tasks.length} task${tasks.length === 1 ? '' : 's'} × ${conditions.length} conditions (${path.basename(manifest.file)})`;
  return { jobId: startExperimentJob(ws, 'experiment', title, { kind: input.kind, manifest, tasks, conditions, backend }).id };
}

function resume(ws: Workspace, runId: string): { jobId: string } {
  const run = resumableRun(ws.store, runId);
  if (run.state === 'done') fail('invalid-input', `run ${runId} is done; there is nothing to resume`, [{ path: 'runId', message: 'run is done' }]);
  checkBackend(ws, backendSpecOfRecord(run.backend));
  return { jobId: startExperimentJob(ws, 'experiment', `Resume ${runId}`, { resume: runId }).id };
}

type ListedRun = ReturnType<Workspace['experiments']['list']>[number];

/** One stored run as the Runs list shows it; a run stored before labels existed shows its automatic label. */
export function runListItem(r: ListedRun): RunListItem {
  const backend = storedBackendLabel(r.backend as Partial<StoredBackend> | null, r.provenance as { backend?: { label?: string } } | null);
  const conditions = (r.conditions as { id: string }[]).map((c) => c.id);
  const autoLabel = autoRunLabel({ manifestFile: r.manifestFile, taskIds: r.taskIds, conditions, backend });
  return {
    id: r.id,
    kind: r.kind,
    state: r.state,
    createdAt: r.createdAt,
    manifestFile: r.manifestFile,
    tasks: r.taskIds.length,
    conditions,
    results: r.results,
    errors: r.errors,
    backend,
    label: r.label ?? autoLabel,
    autoLabel,
    subject: runSubject(r),
  };
}

function list(ws: Workspace): RunListItem[] {
  return ws.experiments.list(1000).map(runListItem);
}

function rename(ws: Workspace, { runId, label }: ParsedInput<'run.rename'>): RunListItem {
  if (!ws.experiments.rename(runId, label)) fail('not-found', `no experiment run ${runId} in ${ws.store.path}`, [{ path: 'runId', message: 'no such run' }]);
  ws.emit({ type: 'runs-changed' });
  return runListItem(ws.experiments.listed(runId)!);
}

function result(ws: Workspace, { runId, taskId, condition }: ParsedInput<'experiment.result'>): TaskResult {
  if (!ws.experiments.get(runId)) fail('not-found', `no experiment run ${runId} in ${ws.store.path}`);
  const r = ws.experiments.result<TaskResult | TaskFailure>(runId, taskId, condition);
  if (!r) fail('not-found', `run ${runId} has no result for task ${taskId} under ${condition} (yet)`);
  if (r!.status === 'error') {
    const f = r!.result as TaskFailure;
    // An unscored pair whose result was computed (the infrastructure decided a verdict) is shown, marked unscored.
    if (f.result) return { ...f.result, unscored: f.result.unscored ?? { cause: causeOf(f), detail: f.error } };
    fail('engine', `task ${taskId} under ${condition} is unscored in run ${runId} (${causeOf(f)}): it failed at ${f.stage}: ${f.error}`);
  }
  return r!.result as TaskResult;
}

export function experimentCalls(
  ws: Workspace,
): CallTable<'methods.list' | 'experiment.estimate' | 'experiment.start' | 'experiment.resume' | 'experiment.list' | 'experiment.result' | 'run.rename'> {
  return {
    'methods.list': () => methods(),
    'experiment.estimate': (input) => estimate(ws, input),
    'experiment.start': (input) => start(ws, input),
    'experiment.resume': ({ runId }) => resume(ws, runId),
    'experiment.list': () => list(ws),
    'experiment.result': (input) => result(ws, input),
    'run.rename': (input) => rename(ws, input),
  };
}
