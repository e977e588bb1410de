// Starting and resuming experiment runs on an open workspace: freezes the manifest and conditions, records
// provenance, indexes what is needed, wires retrieval / generation / validation and hands off to the runner.
// The CLI and the desktop host both come through here.

import type { Encoder } from '../model/encoder.ts';
import { autoRunLabel, storedBackendLabel } from '../model/run-label.ts';
import type { PriceTable } from '../generate/cost.ts';
import { llmDecomposer } from '../generate/generate.ts';
import { promptTemplatesRecord } from '../generate/prompts.ts';
import { recordExchanges } from '../generate/record.ts';
import type { LlmBackend } from '../generate/types.ts';
import type { Condition } from '../pipeline/methods.ts';
import type { TaskServices } from '../pipeline/run-task.ts';
import { VectorIndexCache } from '../retrieve/vector-index.ts';
import { ExperimentStore, newExperimentId, type ExperimentRunRecord } from '../store/experiments.ts';
import type { Store } from '../store/store.ts';
import type { ExchangeStore } from '../store/exchanges.ts';
import type { SandboxOptions } from '../validate/sandbox.ts';
import { createValidator, type Validator } from '../validate/validator.ts';
import { TaskError } from '../validate/task-plan.ts';
import { preflightTasks } from '../validate/preflight.ts';
import type { StoredProvenance } from './loaded-run.ts';
import { storedRunRequest, type RunRequest } from '../model/run-request.ts';
import { readManifest } from '../benchmarks/manifest-file.ts';
import type { Manifest } from '../model/manifest.ts';
import type { Task } from '../model/task.ts';
import type { QueueAddress } from './queue/url.ts';
import { minedProvenanceOf } from './mined-set.ts';
import type { BundleRef } from './queue/bundles.ts';
import {
  appInfo,
  configHashes,
  estimateRun,
  executeRun,
  ExperimentError,
  machineInfo,
  storedConditions,
  tasksOfRun,
  type Progress,
  type RunOutcome,
  type StoredCondition,
} from './runner.ts';

export interface ExperimentContext {
  store: Store;
  encoder: Encoder;
  backend: LlmBackend;
  prices: PriceTable;
  /** Indexes (or refreshes) the tasks' repositories; returns repo ids by absolute path. */
  ensureIndexed: (tasks: Task[]) => Promise<Map<string, number>>;
  packageRoot: string;
  sandbox?: SandboxOptions;
  /** Sandboxed runs at once (default: the validator's own default). */
  validatorConcurrency?: number;
  /** (task, condition) pairs at once (default 2). */
  parallel?: number;
  /** How much of each task's trace to keep (default compact; the desktop app's single-task runs keep it full). */
  detail?: 'compact' | 'full' | 'none';
  signal?: AbortSignal;
  onProgress?: (p: Progress) => void;
  /** Folders besides the manifest's own that its tasks' repositories may lie in (readManifest's allow). */
  allow?: readonly string[];
  /** Called once the run exists in the store, before any work: a run prints its id. */
  onStart?: (run: ExperimentRunRecord) => void;
  /**
   * Run the pairs through a BullMQ queue on this Redis instead of in this process: workers elsewhere do retrieval,
   * generation and validation; indexing, reference checks and the store stay here (queue/coordinator.ts).
   */
  queue?: QueueAddress;
  /** A queued run: called once its bundles are published and its jobs queued. */
  onQueued?: (info: { queue: string; jobs: number; bundles: BundleRef[] }) => void;
}

export interface NewRun {
  kind: ExperimentRunRecord['kind'];
  manifest: Manifest;
  tasks: Task[];
  conditions: Condition[];
  /** What was asked for (model/run-request.ts): stored as it is, with its backend record beside it. */
  request: RunRequest;
}

export function selectTasks(manifest: Manifest, ids: string[] | null, limit: number | null): Task[] {
  let tasks = manifest.tasks;
  if (ids) {
    const known = new Set(tasks.map((t) => t.id));
    const missing = ids.filter((id) => !known.has(id));
    if (missing.length)
      throw new ExperimentError(
        `${manifest.file} has no task ${missing.slice(0, 5).join(', ')}${missing.length > 5 ? ` (and ${missing.length - 5} more)` : ''}`,
      );
    const want = new Set(ids);
    tasks = tasks.filter((t) => want.has(t.id));
  }
  if (limit !== null) tasks = tasks.slice(0, limit);
  if (!tasks.length) throw new ExperimentError(`no tasks selected from ${manifest.file}`);
  return tasks;
}

function openValidator(ctx: ExperimentContext, manifestHash: string): Promise<Validator> {
  // Reference checks are kept per manifest: a resume (or a second run on the same manifest) reuses them.
  const experiments = ctx.store.experiments;
  return createValidator({
    ...(ctx.sandbox ? { sandbox: ctx.sandbox } : {}),
    ...(ctx.validatorConcurrency ? { concurrency: ctx.validatorConcurrency } : {}),
    expectations: {
      get: (taskId, key) => experiments.referenceCheck(manifestHash, taskId, key),
      put: (taskId, check) => experiments.saveReferenceCheck(manifestHash, taskId, check),
    },
  });
}

/**
 * Runs every task's reference before the first model call: the tests it passes are what candidates
 * must pass, and a task whose reference fails its own tests is refused, named with the reason.
 */
async function checkReferences(validator: Validator, tasks: Task[], signal?: AbortSignal): Promise<void> {
  const checks = await Promise.all(
    tasks
      .filter((t) => t.reference !== undefined)
      .map(async (t) => {
        try {
          return { task: t, check: await validator.referenceCheck(t, signal ? { signal } : {}) };
        } catch (err) {
          if (err instanceof TaskError) return { task: t, check: { passes: false, tests: [], reason: err.message, key: '' } };
          throw err;
        }
      }),
  );
  const failing = checks.filter((c) => !c.check.passes);
  if (failing.length) {
    const shown = failing
      .slice(0, 10)
      .map((c) => `  ${c.task.id}: ${c.check.reason}`)
      .join('\n');
    throw new ExperimentError(
      `${failing.length} of ${checks.length} task(s) have a reference that does not pass its own tests, so no candidate of theirs can be judged:\n${shown}${failing.length > 10 ? `\n  … and ${failing.length - 10} more` : ''}\n` +
        'Fix those tasks, or leave them out with --ids.',
    );
  }
}

/**
 * Checks every task's set-up (repository, target file, test command, interpreter) before anything starts, and
 * refuses the run with every problem listed by manifest line: a task that cannot be judged would otherwise fail
 * only after its retrieval and generation (and their cost).
 */
function preflight(manifest: Manifest, tasks: Task[], conditions: Condition[]): void {
  const problems = preflightTasks(tasks, conditions[0]!.config.validation);
  if (!problems.length) return;
  const at = (id: string) => `${manifest.file}${manifest.lines?.[id] ? `:${manifest.lines[id]}` : ''}`;
  const shown = problems.slice(0, 10).map((p) => `  ${at(p.taskId)}: ${p.message}`);
  if (problems.length > 10) shown.push(`  … and ${problems.length - 10} more`);
  throw new ExperimentError(
    `${problems.length} of ${tasks.length} task(s) cannot be validated, so nothing was started (no model was called):\n${shown.join('\n')}\n` +
      'Fix those tasks, or leave them out with --ids.',
  );
}

/**
 * What runTask needs for one run's pairs, wherever they run (here, or on a queue worker): the backend recording its
 * exchanges in `exchanges` (unless it calls no model: imported samples, a replay), and an LLM decomposer when the
 * run decomposes with one.
 */
export function pairServices(o: {
  store: Store;
  encoder: Encoder;
  repoIds: Map<string, number>;
  backend: LlmBackend;
  exchanges: ExchangeStore;
  validator: Validator;
  prices: PriceTable;
  cache: VectorIndexCache;
  runId: string;
  decompose: 'llm' | 'fallback';
  detail?: 'compact' | 'full' | 'none';
}): TaskServices & { runId: string } {
  const llm =
    o.backend.provider === 'imported' || o.backend.id.startsWith('replay')
      ? o.backend
      : recordExchanges(o.backend, o.exchanges, { runId: o.runId, prices: o.prices });
  return {
    store: o.store,
    encoder: o.encoder,
    repoIds: o.repoIds,
    backend: llm,
    validator: o.validator,
    prices: o.prices,
    cache: o.cache,
    runId: o.runId,
    ...(o.detail ? { detail: o.detail } : {}),
    ...(o.decompose === 'llm'
      ? { decomposer: (task: Task, signal?: AbortSignal) => llmDecomposer(llm, { taskId: task.id, runId: o.runId, ...(signal ? { signal } : {}) }) }
      : {}),
  };
}

/** Runs what is left of `run` with `validator`, and closes it. */
async function execute(
  ctx: ExperimentContext,
  experiments: ExperimentStore,
  run: ExperimentRunRecord,
  tasks: Task[],
  conditions: Condition[],
  request: RunRequest,
  validator: Validator,
): Promise<RunOutcome> {
  const decompose = request.decompose;
  try {
    ctx.onStart?.(run);
    const exchanges = ctx.store.exchanges;
    const repoIds = await ctx.ensureIndexed(tasks);
    if (ctx.queue) {
      const { executeQueued } = await import('./queue/coordinator.ts');
      return await executeQueued(run, tasks, conditions, {
        experiments,
        store: ctx.store,
        queue: ctx.queue,
        repoIds,
        backend: request.backend,
        decompose,
        encoderId: ctx.encoder.id,
        sandbox: ctx.sandbox?.mode ?? 'auto',
        ...(ctx.detail ? { detail: ctx.detail } : {}),
        ...(ctx.signal ? { signal: ctx.signal } : {}),
        ...(ctx.onProgress ? { onProgress: ctx.onProgress } : {}),
        ...(ctx.onQueued ? { onQueued: ctx.onQueued } : {}),
      });
    }
    const services = pairServices({
      store: ctx.store,
      encoder: ctx.encoder,
      repoIds,
      backend: ctx.backend,
      exchanges,
      validator,
      prices: ctx.prices,
      cache: new VectorIndexCache(),
      runId: run.id,
      decompose,
      ...(ctx.detail ? { detail: ctx.detail } : {}),
    });
    return await executeRun(run, tasks, conditions, {
      experiments,
      services,
      ...(ctx.parallel ? { concurrency: ctx.parallel } : {}),
      ...(ctx.signal ? { signal: ctx.signal } : {}),
      ...(ctx.onProgress ? { onProgress: ctx.onProgress } : {}),
    });
  } finally {
    validator.close();
  }
}

/** Stores a new run: its generation record, frozen manifest hash, task ids, full configs and provenance. */
function freezeRun(ctx: ExperimentContext, spec: NewRun, sandbox: string): { experiments: ExperimentStore; run: ExperimentRunRecord } {
  const experiments = ctx.store.experiments;
  const exchanges = ctx.store.exchanges;
  const id = newExperimentId(spec.kind);
  const prompts = promptTemplatesRecord();
  // The LLM exchanges of the run hang off a generation run of the same id (record / replay, spend).
  exchanges.beginRun({
    id,
    backend: ctx.backend.id,
    provider: ctx.backend.provider,
    model: ctx.backend.model,
    prompts,
    config: storedConditions(spec.conditions),
    manifestHash: spec.manifest.hash,
  });
  const provenance: StoredProvenance = {
    backend: { id: ctx.backend.id, provider: ctx.backend.provider, model: ctx.backend.model, label: ctx.backend.label },
    encoder: { id: ctx.encoder.id, name: ctx.encoder.name },
    prompts: { version: prompts.version, hash: prompts.hash },
    configHashes: configHashes(spec.conditions),
    sandbox,
    machine: machineInfo(),
    app: appInfo(ctx.packageRoot),
    manifestTasks: spec.manifest.tasks.length,
    ...minedProvenanceOf(spec.tasks),
  };
  const conditions = storedConditions(spec.conditions);
  const label = autoRunLabel({
    manifestFile: spec.manifest.file,
    taskIds: spec.tasks.map((t) => t.id),
    conditions: conditions.map((c) => c.id),
    backend: storedBackendLabel(spec.request.backend, provenance),
  });
  experiments.create({
    id,
    label,
    kind: spec.kind,
    manifestFile: spec.manifest.file,
    manifestHash: spec.manifest.hash,
    taskIds: spec.tasks.map((t) => t.id),
    conditions,
    backend: spec.request.backend,
    provenance,
    options: spec.request,
  });
  const run = experiments.get(id)!;
  return { experiments, run };
}

/** Freezes a new run and runs it. */
export async function startExperiment(ctx: ExperimentContext, spec: NewRun): Promise<RunOutcome> {
  preflight(spec.manifest, spec.tasks, spec.conditions);
  // The sandbox is part of the run's provenance, and one that cannot start fails the run before anything is stored.
  const validator = await openValidator(ctx, spec.manifest.hash);
  let frozen: ReturnType<typeof freezeRun>;
  try {
    await checkReferences(validator, spec.tasks, ctx.signal);
    frozen = freezeRun(ctx, spec, validator.sandbox.label);
  } catch (err) {
    validator.close();
    throw err;
  }
  return execute(ctx, frozen.experiments, frozen.run, spec.tasks, spec.conditions, spec.request, validator);
}

/** The stored run, checked resumable: not finished, not running in another live process. */
export function resumableRun(store: Store, id: string): ExperimentRunRecord<StoredCondition> & { request: RunRequest } {
  const experiments = store.experiments;
  const run = experiments.get(id) as ExperimentRunRecord<StoredCondition> | undefined;
  if (!run) throw new ExperimentError(`No experiment run ${id} in ${store.path}`, 'not-found');
  if (run.state === 'running') throw new ExperimentError(`run ${id} is still running in process ${run.pid} on ${run.host}; stop it first (or wait)`);
  return { ...run, request: storedRunRequest(run) };
}

/** Runs what a stored run has left: same manifest (checked by hash), same tasks, same conditions and configs. */
export async function resumeExperiment(ctx: ExperimentContext, stored: string | ReturnType<typeof resumableRun>): Promise<RunOutcome> {
  const experiments = ctx.store.experiments;
  const run = typeof stored === 'string' ? resumableRun(ctx.store, stored) : stored;
  const manifest = readManifest(run.manifestFile, { allow: ctx.allow ?? [] });
  const tasks = tasksOfRun(run, manifest);
  const conditions: Condition[] = run.conditions.map((c) => ({ ...c }));
  preflight(manifest, tasks, conditions);
  const validator = await openValidator(ctx, run.manifestHash);
  try {
    await checkReferences(validator, tasks, ctx.signal);
  } catch (err) {
    validator.close();
    throw err;
  }
  return execute(ctx, experiments, run, tasks, conditions, run.request, validator);
}

export { estimateRun };
