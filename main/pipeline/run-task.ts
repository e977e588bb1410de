// One task under one condition, end to end: retrieve → generate → (verify, select, repair) → evaluate.
// The method's own validation follows its config (Baseline RAG returns its normalised-mode candidate unseen), but every
// raw candidate and repair is also run against the tests to measure it: that evaluation never changes what the
// method selects, it only records whether it was right (Pass@k, selected-output correctness). What is stored
// of it all is shaped by task-result.ts.

import type { Encoder } from '../model/encoder.ts';
import type { Task } from '../model/task.ts';
import type { PipelineConfig } from '../model/config.ts';
import type { RetrievalTrace } from '../model/trace.ts';
import type { ApiScore, TaskResult } from '../model/results.ts';
import { generateCandidates, makeRepairer } from '../generate/generate.ts';
import { groupCandidates, type PythonOptions } from '../generate/normalise.ts';
import type { PriceTable } from '../generate/cost.ts';
import type { LlmBackend } from '../generate/types.ts';
import type { Decomposer } from '../retrieve/decompose.ts';
import { retrieveForTask } from '../retrieve/engine.ts';
import type { VectorIndexCache } from '../retrieve/vector-index.ts';
import type { Store } from '../store/store.ts';
import { selectCandidate } from '../validate/select.ts';
import type { Validator } from '../validate/validator.ts';
import type { Condition } from './methods.ts';
import { buildTaskResult } from './task-result.ts';
import { errorCodeOf, OpenCoderError } from '../model/errors.ts';

export interface TaskServices {
  store: Store;
  encoder: Encoder;
  /** Repository id of each task's repository, by absolute path. */
  repoIds: Map<string, number>;
  backend: LlmBackend;
  validator: Validator;
  /** LLM decomposition for conditions that decompose (absent: the deterministic fallback). */
  decomposer?: (task: Task, signal?: AbortSignal) => Decomposer;
  prices?: PriceTable;
  python?: PythonOptions;
  cache?: VectorIndexCache;
  runId?: string;
  seed?: number;
  /** `full` keeps evidence texts and the prompt (interactive runs); `compact` (default) keeps scores and reasons. */
  detail?: 'compact' | 'full' | 'none';
  /**
   * The `evaluate` stage: scores the task's API retrieval against its truth (experiment/eval/api-score.ts
   * evaluateRunApis, which the experiment runner passes). Absent: no API score.
   */
  scoreApis?: (input: ApiScoreInput) => Promise<ApiScore | null>;
}

/** What the `evaluate` stage is given about one task's run. */
export interface ApiScoreInput {
  store: Store;
  encoder: Encoder;
  repoId: number;
  task: Task;
  trace: RetrievalTrace;
  config: PipelineConfig;
  cache?: VectorIndexCache;
}

/** Thrown with the stage that failed, so a run can store where a task broke. */
export class TaskRunError extends OpenCoderError {
  constructor(
    readonly stage: 'retrieve' | 'generate' | 'validate' | 'evaluate',
    readonly taskId: string,
    readonly condition: string,
    cause: unknown,
  ) {
    super(
      (cause as Error)?.name === 'AbortError' ? 'cancelled' : errorCodeOf(cause),
      `${taskId} / ${condition}: ${stage} failed: ${(cause as Error)?.message ?? String(cause)}`,
      { cause },
    );
    this.name = (cause as Error)?.name === 'AbortError' ? 'AbortError' : 'TaskRunError';
  }
}

async function stage<T>(name: TaskRunError['stage'], task: Task, cond: Condition, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof TaskRunError) throw err;
    throw new TaskRunError(name, task.id, cond.id, err);
  }
}

export async function runTask(task: Task, cond: Condition, svc: TaskServices, signal?: AbortSignal): Promise<TaskResult> {
  const t0 = performance.now();
  const config = cond.config;
  const repoId = svc.repoIds.get(task.repoPath);
  if (repoId === undefined) throw new TaskRunError('retrieve', task.id, cond.id, new Error(`the repository ${task.repoPath} is not indexed`));

  const trace = await stage('retrieve', task, cond, () =>
    retrieveForTask({
      store: svc.store,
      encoder: svc.encoder,
      repoId,
      task,
      config,
      persist: false,
      ...(svc.cache ? { cache: svc.cache } : {}),
      ...(config.retrieval.decompose && svc.decomposer ? { decomposer: svc.decomposer(task, signal) } : {}),
    }),
  );
  const tRetrieve = performance.now();

  const genOpts = {
    backend: svc.backend,
    config,
    encoder: svc.encoder,
    ...(svc.prices ? { prices: svc.prices } : {}),
    ...(signal ? { signal } : {}),
    ...(svc.runId ? { runId: svc.runId } : {}),
    ...(svc.seed !== undefined ? { seed: svc.seed } : {}),
    ...(svc.python ? { python: svc.python } : {}),
  };
  const set = await stage('generate', task, cond, () => generateCandidates(task, trace, genOpts));
  const tGenerate = performance.now();

  const codes = set.candidates.map((c) => c.code);
  // Repairs spend tokens too: their cost is added to the task's.
  const spend = { usd: set.cost.usd, inputTokens: set.usage.inputTokens, outputTokens: set.usage.outputTokens };
  const repairer = makeRepairer({
    ...genOpts,
    trace,
    onSet: (r) => {
      spend.usd = spend.usd === null || r.cost.usd === null ? null : spend.usd + r.cost.usd;
      spend.inputTokens += r.usage.inputTokens;
      spend.outputTokens += r.usage.outputTokens;
    },
  });
  const selection = await stage('validate', task, cond, () =>
    selectCandidate({
      task,
      candidates: codes,
      validator: svc.validator,
      group: (c) => groupCandidates(c, svc.python),
      repair: svc.backend.capabilities.repair === false ? null : repairer,
      config,
      ...(signal ? { signal } : {}),
    }),
  );

  // Evaluation: every raw candidate against the tests (identical code reuses its verdict).
  const verdicts = await stage('evaluate', task, cond, () =>
    Promise.all(codes.map((code, i) => Promise.resolve(selection.candidateVerdicts[i] ?? svc.validator.validate(task, code, signal ? { signal } : {})))),
  );
  const tValidate = performance.now();

  let api: ApiScore | null = null;
  const scoreApis = svc.scoreApis;
  if (scoreApis && (task.reference || task.ground_truth_apis?.length) && config.retrieval.sources.api) {
    api = await stage('evaluate', task, cond, () =>
      scoreApis({ store: svc.store, encoder: svc.encoder, repoId, task, trace, config, ...(svc.cache ? { cache: svc.cache } : {}) }),
    );
  }

  return buildTaskResult(
    { task, cond, trace, set, selection, verdicts, api, spend, detail: svc.detail ?? 'compact' },
    {
      retrieve: Math.round(tRetrieve - t0),
      generate: Math.round(tGenerate - tRetrieve),
      validate: Math.round(tValidate - tGenerate),
      total: Math.round(performance.now() - t0),
    },
  );
}
