// A stored run read back for analysis: its record, conditions and results, and its provenance as a report shows it.

import type { ExperimentRunRecord, ExperimentStore } from '../store/experiments.ts';
import type { MinedSetProvenance, RunProvenance } from '../model/report.ts';
import type { TaskFailure, TaskResult } from '../model/results.ts';
import type { StoredCondition } from './runner.ts';
import { OpenCoderError, type ErrorCode } from '../model/errors.ts';

/** What a run stores under `provenance` (the rest of RunProvenance comes from the run's own columns). */
export type StoredProvenance = Omit<RunProvenance, 'id' | 'kind' | 'createdAt' | 'finishedAt' | 'status' | 'manifest' | 'conditions'> & {
  manifestTasks: number;
  /** Set when tasks of the run were mined (absent in runs stored before mining existed). */
  mined?: MinedSetProvenance;
};

export interface LoadedRun {
  run: ExperimentRunRecord<StoredCondition, unknown, StoredProvenance>;
  results: TaskResult[];
  failures: TaskFailure[];
}

export class AnalysisError extends OpenCoderError {
  constructor(message: string, code: ErrorCode = 'invalid-input') {
    super(code, message);
  }
}

export function loadRun(experiments: ExperimentStore, runId: string): LoadedRun {
  const run = experiments.get(runId) as LoadedRun['run'] | undefined;
  if (!run) {
    const known = experiments.list(5).map((r) => r.id);
    throw new AnalysisError(
      `No experiment run ${runId} in ${experiments.dbPath}${known.length ? ` (recent: ${known.join(', ')})` : ' (it holds no runs)'}`,
      'not-found',
    );
  }
  const results: TaskResult[] = [];
  const failures: TaskFailure[] = [];
  // Task-id order (the frozen manifest order, then by id), never the order tasks finished in: parallel workers
  // finish in a different order each time, and the bootstrap resamples by position.
  const taskOrder = new Map(run.taskIds.map((id, i) => [id, i]));
  const condOrder = new Map(run.conditions.map((c, i) => [c.id, i]));
  const rank = (m: Map<string, number>, k: string) => m.get(k) ?? Number.MAX_SAFE_INTEGER;
  const records = experiments
    .results(runId)
    .sort(
      (a, b) =>
        rank(taskOrder, a.taskId) - rank(taskOrder, b.taskId) ||
        (a.taskId < b.taskId ? -1 : a.taskId > b.taskId ? 1 : 0) ||
        rank(condOrder, a.condition) - rank(condOrder, b.condition) ||
        (a.condition < b.condition ? -1 : a.condition > b.condition ? 1 : 0),
    );
  for (const r of records) {
    if (r.status === 'ok') results.push(r.result as TaskResult);
    else failures.push(r.result as TaskFailure);
  }
  return { run, results, failures };
}

export function provenanceOf(l: LoadedRun): RunProvenance {
  const { run } = l;
  const { manifestTasks, mined, ...p } = run.provenance;
  return {
    ...p,
    id: run.id,
    kind: run.kind,
    createdAt: run.createdAt,
    finishedAt: run.finishedAt,
    status: run.state,
    manifest: { file: run.manifestFile, hash: run.manifestHash, tasks: run.taskIds.length || manifestTasks, ...(mined ? { mined } : {}) },
    conditions: run.conditions.map((c) => ({ id: c.id, label: c.label, family: c.family })),
  };
}

export const identicalCandidates = (r: TaskResult) => r.candidates.length >= 2 && new Set(r.candidates.map((c) => c.group)).size === 1;

export const byCondition = (results: TaskResult[], condition: string) => results.filter((r) => r.condition === condition);
