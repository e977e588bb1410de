// Runs tasks × conditions of an experiment: in parallel up to a limit (the backend applies its own rate limit
// below this), each (task, condition) stored the moment it finishes, resumable after a crash, a kill or a cancel,
// with progress (done / total, ETA, spend so far) and a cost estimate before anything is sent.

import os from 'node:os';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { estimateGeneration, runEstimateAssumptions, sumEstimates, type CostEstimate, type PriceTable } from '../generate/cost.ts';
import { generationRequest } from '../generate/generate.ts';
import type { LlmBackend } from '../generate/types.ts';
import { LlmError } from '../generate/errors.ts';
import { configHash } from '../util/config-hash.ts';
import type { Condition } from '../pipeline/methods.ts';
import { runTask, TaskRunError, type TaskServices } from '../pipeline/run-task.ts';
import { evaluateRunApis } from './eval/api-score.ts';
import type { ExperimentRunRecord, ExperimentStore } from '../store/experiments.ts';
import { StoreError } from '../store/errors.ts';
import { SandboxUnavailableError } from '../validate/sandbox.ts';
import { TaskError } from '../validate/task-plan.ts';
import { TestCommandError } from '../validate/command.ts';
import type { Manifest } from '../model/manifest.ts';
import type { Task } from '../model/task.ts';
import { addVerdictUse, emptyVerdictUse, type VerdictUse } from '../model/verdict.ts';
import type { Validator } from '../validate/validator.ts';
import type { RunProvenance } from '../model/report.ts';
import type { TaskFailure, TaskResult } from '../model/results.ts';
import { OpenCoderError, type ErrorCode } from '../model/errors.ts';

/** What a run stores about each condition: enough to re-run it exactly. */
export interface StoredCondition {
  id: string;
  label: string;
  family: Condition['family'];
  description: string;
  config: Condition['config'];
}

export interface Progress {
  runId: string;
  done: number;
  total: number;
  failed: number;
  /** Already done before this process started (a resume). */
  resumed: number;
  etaMs: number | null;
  spentUsd: number | null;
  last: { taskId: string; condition: string; ok: boolean; correct: boolean | null; error?: string; worker?: string } | null;
  /** A queued run: the workers seen on its queue, each with the jobs it holds now and has finished for this run. */
  workers?: { name: string; active: number; done: number }[];
  /** A queued run: its jobs waiting in the queue. */
  queued?: number;
}

export interface ExecuteOptions {
  experiments: ExperimentStore;
  services: TaskServices;
  /** (task, condition) pairs run at once (default 2). */
  concurrency?: number;
  signal?: AbortSignal;
  onProgress?: (p: Progress) => void;
}

export interface RunOutcome {
  runId: string;
  status: 'done' | 'cancelled';
  total: number;
  ran: number;
  failed: number;
  /** Failed (task, condition) pairs by `stage/kind` (e.g. `generate/network`). */
  failures: Record<string, number>;
  /** The same pairs by cause (`network`, `sandbox`, …): each is unscored, left out of Pass@k and selected-output correctness. */
  unscored: Record<string, number>;
  resumed: number;
  durationMs: number;
  /** The pairs' own times summed (on their workers for a queued run): what is left of durationMs × concurrency is dispatch and waiting. */
  pairMs: number;
  /** How this run's verdicts were come by (model/verdict.ts): run, reused for identical candidates, shared, refused. */
  verdicts: VerdictUse;
  /** A queued run: jobs a worker refused and results this coordinator refused, because their seal did not open. */
  refused?: { jobs: number; results: number };
}

/** What kind of failure ended a (task, condition): an LLM error's kind, else the engine error's code or the error's name. */
export function failureKind(err: unknown): string {
  const cause = err instanceof TaskRunError ? err.cause : err;
  if (cause instanceof LlmError) return cause.kind;
  if (cause instanceof OpenCoderError) return cause.code;
  return (cause as Error)?.name || 'Error';
}

/**
 * Why a (task, condition) that threw is unscored, in one word: an LLM error's kind (after its retries), `sandbox`
 * (no sandbox), `workspace` (the task's workspace or test command could not be set up), `store`, else `engine`.
 * A model's own failures never throw (a reply without code is a failed sample), so every one of these is ours.
 */
export function failureCause(err: unknown): string {
  const cause = err instanceof TaskRunError ? err.cause : err;
  if (cause instanceof LlmError) return cause.kind;
  if (cause instanceof SandboxUnavailableError) return 'sandbox';
  if (cause instanceof TaskError || cause instanceof TestCommandError) return 'workspace';
  if (cause instanceof StoreError) return 'store';
  return 'engine';
}

/** The failure stored for a pair that threw. */
function thrownFailure(task: Task, cond: Condition, err: unknown): TaskFailure {
  return {
    taskId: task.id,
    condition: cond.id,
    stage: err instanceof TaskRunError ? err.stage : 'run',
    kind: failureKind(err),
    cause: failureCause(err),
    error: (err as Error)?.message ?? String(err),
  };
}

/** The failure stored for a result the infrastructure decided a verdict of: unscored, the result kept in it. */
function unscoredFailure(result: TaskResult, unscored: NonNullable<TaskResult['unscored']>): TaskFailure {
  return {
    taskId: result.taskId,
    condition: result.condition,
    stage: 'evaluate',
    kind: unscored.cause,
    cause: unscored.cause,
    error: `${result.taskId} / ${result.condition}: the infrastructure decided a verdict (${unscored.detail})`,
    result,
  };
}

export class ExperimentError extends OpenCoderError {
  constructor(message: string, code: ErrorCode = 'invalid-input') {
    super(code, message);
  }
}

/** The machine and build a run happened on. */
export function machineInfo(): RunProvenance['machine'] {
  return {
    platform: `${os.platform()} ${os.release()}`,
    arch: os.arch(),
    cpus: os.cpus().length,
    memoryGiB: Math.round((os.totalmem() / 2 ** 30) * 10) / 10,
    node: process.version,
  };
}

export function appInfo(packageRoot: string): RunProvenance['app'] {
  let name = 'opencoder';
  let version = '0.0.0';
  try {
    const pkg = JSON.parse(fs.readFileSync(path.join(packageRoot, 'package.json'), 'utf8')) as { name: string; version: string };
    name = pkg.name;
    version = pkg.version;
  } catch {
    /* a packaged app without package.json beside it: the defaults say so */
  }
  let commit: string | null;
  try {
    commit =
      execFileSync('git', ['rev-parse', 'HEAD'], { cwd: packageRoot, stdio: ['ignore', 'pipe', 'ignore'] })
        .toString()
        .trim() || null;
  } catch {
    commit = null;
  }
  return { name, version, commit };
}

export function storedConditions(conditions: Condition[]): StoredCondition[] {
  return conditions.map((c) => ({ id: c.id, label: c.label, family: c.family, description: c.description, config: c.config }));
}

export function configHashes(conditions: { config: Condition['config'] }[]): string[] {
  return conditions.map((c) => configHash(c.config));
}

/** The tasks a run covers, checked against the manifest it froze (same bytes, every task still there). */
export function tasksOfRun(run: ExperimentRunRecord, manifest: Manifest): Task[] {
  if (manifest.hash !== run.manifestHash) {
    throw new ExperimentError(
      `${manifest.file} has changed since run ${run.id} froze it (sha256 ${run.manifestHash.slice(0, 12)}…, now ${manifest.hash.slice(0, 12)}…): ` +
        'results would no longer be paired. Restore the manifest or start a new run.',
    );
  }
  const byId = new Map(manifest.tasks.map((t) => [t.id, t]));
  return run.taskIds.map((id) => {
    const t = byId.get(id);
    if (!t) throw new ExperimentError(`task ${id} of run ${run.id} is missing from ${manifest.file}`);
    return t;
  });
}

/**
 * Cost before the run: per task and condition, the generation prompt without evidence plus an allowance of
 * `evidenceChars` per fused item, a decomposition call where an LLM decomposes, and every repair round at the
 * size of a generation prompt (the upper bound: most tasks need no repair) when the backend can repair. Imported
 * samples call no model: nothing is counted but the pairs.
 */
export function estimateRun(
  tasks: Task[],
  conditions: Condition[],
  backend: LlmBackend,
  prices: PriceTable,
  opts: { llmDecomposition: boolean; evidenceChars?: number },
): CostEstimate & { assumptions: string } {
  const perItem = opts.evidenceChars ?? 1200;
  const speed = backend.localSpeed?.();
  const imported = backend.provider === 'imported';
  const canRepair = backend.capabilities.repair !== false;
  const parts: CostEstimate[] = [];
  let repairRounds = 0;
  for (const cond of conditions) {
    const anySource = Object.values(cond.config.retrieval.sources).some(Boolean);
    const allowance = anySource ? 'x'.repeat(perItem * cond.config.fusion.topK) : '';
    for (const task of tasks) {
      if (imported) continue;
      const { request } = generationRequest(task, null, { config: cond.config });
      const messages = request.messages.map((m, i) => (i === request.messages.length - 1 ? { ...m, content: m.content + allowance } : m));
      const est = (n: number, maxTokens: number) =>
        estimateGeneration(
          { messages, n, maxTokens, nativeN: backend.capabilities.nativeN, ...(speed ? { speed } : {}) },
          backend.model,
          backend.billing,
          prices,
        );
      parts.push(est(request.n, request.maxTokens));
      if (cond.config.retrieval.decompose && opts.llmDecomposition) parts.push(est(1, 1024));
      if (!canRepair) continue;
      for (let r = 0; r < cond.config.validation.repairRounds; r++) parts.push(est(1, request.maxTokens));
      repairRounds += cond.config.validation.repairRounds;
    }
  }
  const sum = sumEstimates(parts);
  return {
    ...sum,
    ...(imported ? { note: `candidates from ${backend.model}: no model called, $0` } : {}),
    assumptions: runEstimateAssumptions({
      tasks: tasks.length,
      conditions: conditions.length,
      evidenceChars: perItem,
      imported,
      repairRounds,
      canRepair,
      repairingConditions: conditions.filter((c) => c.config.validation.repairRounds > 0).length,
    }),
  };
}

/** What one (task, condition) came to, as the store keeps it: a scored result, or a failure that is unscored. */
export type PairOutcome =
  | { taskId: string; condition: string; status: 'ok'; costUsd: number | null; result: TaskResult }
  | { taskId: string; condition: string; status: 'error'; costUsd: number | null; result: TaskFailure };

/**
 * Runs one (task, condition) and says what to store; null when it was cancelled (a pair finished by a cancel is
 * not trusted: it runs again on resume). A local run and a queue worker both come through here, so a pair gives
 * the same stored outcome wherever it ran.
 */
export async function runPair(task: Task, cond: Condition, services: TaskServices & { runId: string }, signal?: AbortSignal): Promise<PairOutcome | null> {
  let result: TaskResult;
  try {
    // The API evaluation lives with the rest of evaluation (experiment/eval); a run scores every pair with it.
    result = await runTask(task, cond, { scoreApis: evaluateRunApis, ...services }, signal);
  } catch (err) {
    if (signal?.aborted || (err as Error)?.name === 'AbortError') return null;
    return { taskId: task.id, condition: cond.id, status: 'error', costUsd: null, result: thrownFailure(task, cond, err) };
  }
  if (signal?.aborted) return null;
  if (result.unscored) {
    return { taskId: task.id, condition: cond.id, status: 'error', costUsd: result.generation.costUsd, result: unscoredFailure(result, result.unscored) };
  }
  return { taskId: task.id, condition: cond.id, status: 'ok', costUsd: result.generation.costUsd, result };
}

/** The (task, condition) pairs of a run in task-major order, and those without a stored ok result. */
export function pairsOf(run: ExperimentRunRecord, tasks: Task[], conditions: Condition[], experiments: ExperimentStore) {
  const done = experiments.doneKeys(run.id);
  const pairs: { task: Task; cond: Condition }[] = [];
  // Task-major order: a partial run has every condition of the tasks it reached, so it stays paired.
  for (const task of tasks) for (const cond of conditions) pairs.push({ task, cond });
  const todo = pairs.filter((p) => !done.has(`${p.task.id}\u0000${p.cond.id}`));
  return { pairs, todo };
}

/** Counts, progress and storing of a run's outcomes as they arrive, for a local run and a queued one alike. */
export class RunTally {
  finished: number;
  failed = 0;
  ran = 0;
  readonly failures: Record<string, number> = {};
  readonly unscored: Record<string, number> = {};
  private readonly durations: number[] = [];
  private readonly started = performance.now();

  constructor(
    private readonly run: ExperimentRunRecord,
    private readonly total: number,
    readonly resumed: number,
    private readonly experiments: ExperimentStore,
    private readonly onProgress: ((p: Progress) => void) | undefined,
    private readonly concurrency: number,
  ) {
    this.finished = resumed;
  }

  /** Stores one outcome (an upsert keyed by run, task and condition) and reports progress. */
  record(o: PairOutcome, durationMs: number, worker?: string): void {
    this.ran++;
    this.finished++;
    this.durations.push(durationMs);
    this.experiments.saveResult(this.run.id, { taskId: o.taskId, condition: o.condition, status: o.status, costUsd: o.costUsd, result: o.result });
    const at = worker ? { worker } : {};
    if (o.status === 'error') {
      const failure = o.result;
      const key = `${failure.stage}/${failure.kind}`;
      this.failures[key] = (this.failures[key] ?? 0) + 1;
      this.unscored[failure.cause!] = (this.unscored[failure.cause!] ?? 0) + 1;
      this.failed++;
      this.report({ taskId: o.taskId, condition: o.condition, ok: false, correct: null, error: failure.error, ...at });
    } else {
      this.report({ taskId: o.taskId, condition: o.condition, ok: true, correct: o.result.selected.correct, ...at });
    }
  }

  /** A queued run's workers and waiting jobs, added to every report. */
  queueState: (() => Pick<Progress, 'workers' | 'queued'>) | null = null;
  /** The run's verdict counts so far (the local validator's, or the sum of the workers'). */
  verdictUse: (() => VerdictUse) | null = null;
  /** A queued run: what did not verify (seal.ts), counted apart from the pairs' own failures. */
  refused: { jobs: number; results: number } | null = null;

  report(last: Progress['last']): void {
    if (!this.onProgress) return;
    const remaining = this.total - this.finished;
    const avg = this.durations.length ? this.durations.reduce((a, b) => a + b, 0) / this.durations.length : null;
    const usd = this.experiments.spent(this.run.id);
    this.onProgress({
      runId: this.run.id,
      done: this.finished,
      total: this.total,
      failed: this.failed,
      resumed: this.resumed,
      etaMs: avg === null ? null : Math.round((avg * remaining) / this.concurrency),
      spentUsd: Number.isFinite(usd) ? usd : null,
      last,
      ...(this.queueState ? this.queueState() : {}),
    });
  }

  outcome(status: RunOutcome['status']): RunOutcome {
    return {
      runId: this.run.id,
      status,
      total: this.total,
      ran: this.ran,
      failed: this.failed,
      failures: this.failures,
      unscored: this.unscored,
      resumed: this.resumed,
      durationMs: Math.round(performance.now() - this.started),
      pairMs: Math.round(this.durations.reduce((a, b) => a + b, 0)),
      verdicts: this.verdictUse?.() ?? emptyVerdictUse(),
      ...(this.refused ? { refused: { ...this.refused } } : {}),
    };
  }
}

/** Runs every (task, condition) of the run that has no stored ok result yet. */
export async function executeRun(run: ExperimentRunRecord, tasks: Task[], conditions: Condition[], opts: ExecuteOptions): Promise<RunOutcome> {
  const { experiments, services, signal } = opts;
  const concurrency = Math.max(1, Math.floor(opts.concurrency ?? 2));
  const { pairs, todo } = pairsOf(run, tasks, conditions, experiments);
  experiments.claim(run.id);
  const tally = new RunTally(run, pairs.length, pairs.length - todo.length, experiments, opts.onProgress, concurrency);
  // The validator's counts since the run's pairs began (its reference checks before them are not the run's verdicts).
  const v = services.validator as Partial<Pick<Validator, 'use'>> | undefined;
  const start = { ...(v?.use ?? emptyVerdictUse()) };
  tally.verdictUse = () => addVerdictUse({ ...(v?.use ?? emptyVerdictUse()) }, start, -1);
  tally.report(null);

  let next = 0;
  const worker = async () => {
    while (next < todo.length && !signal?.aborted) {
      const { task, cond } = todo[next++]!;
      const t = performance.now();
      const outcome = await runPair(task, cond, { ...services, runId: run.id }, signal);
      if (!outcome) return;
      tally.record(outcome, performance.now() - t);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, Math.max(1, todo.length)) }, worker));
  const status = signal?.aborted ? 'cancelled' : 'done';
  experiments.finish(run.id, status);
  return tally.outcome(status);
}
