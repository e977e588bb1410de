// Running the API-retrieval evaluation for one task under a protocol (api-eval.ts has the rules): pick the
// pool (the repository, or the task's own view), retrieve, derive or read the truth, and score every scope.

import type { Encoder } from '../../model/encoder.ts';
import type { PipelineConfig } from '../../model/config.ts';
import { fileByPath, moduleImports, repositoryModules } from '../../store/code-queries.ts';
import type { Store } from '../../store/store.ts';
import {
  API_PROTOCOLS,
  ApiPool,
  PREDICTION_SCOPES,
  protocolReport,
  type ProtocolReport,
  predictedApis,
  referenceUses,
  resolveTruth,
  scoreTask,
  statedTruth,
  type ApiProtocol,
  type PredictionScope,
  type TaskApiResult,
  type TruthTarget,
} from './api-eval.ts';
import { retrieveForTask, type RetrievalTask, type RetrieveOptions } from '../../retrieve/engine.ts';
import type { SelectorModel } from '../../retrieve/select-api.ts';
import type { RetrievalTrace } from '../../model/trace.ts';
import { resolveImport } from '../../retrieve/uncertainty.ts';
import { VectorIndexCache } from '../../retrieve/vector-index.ts';

export interface ApiEvalTask extends RetrievalTask {
  /** Benchmark name the per-benchmark macro groups by (the manifest's source.benchmark). */
  benchmark: string;
  ground_truth_apis?: string[];
}

/** The target's module and its imports in an indexed repository. */
export function truthTarget(store: Store, repoId: number, task: { file?: string; qualname?: string }): TruthTarget {
  const f = task.file ? fileByPath(store, repoId, task.file) : undefined;
  return { module: f?.module ?? null, qualname: task.qualname ?? null, imports: (f && moduleImports(store, f.id)) ?? [] };
}

/** The module view of a target: its own module and the repository modules it imports (`from .x import y` names x). */
export function moduleView(store: Store, repoId: number, target: TruthTarget): Set<string> {
  const out = new Set<string>();
  if (!target.module) return out;
  out.add(target.module);
  const known = repositoryModules(store, repoId);
  for (const imp of target.imports) {
    const abs = resolveImport(imp, target.module);
    for (const m of [abs, abs.split('.').slice(0, -1).join('.')]) if (known.has(m)) out.add(m);
  }
  return out;
}

export interface TaskApiEvaluation {
  trace: RetrievalTrace;
  byScope: Record<PredictionScope, TaskApiResult>;
}

/**
 * Evaluates one task: `repoId` is the repository the protocol indexes (the whole repository, or the task's
 * own view for task-view); `moduleViewOnly` restricts the pool to the target's module view (task-view
 * without a view folder).
 */
export async function evaluateTaskApis(opts: {
  store: Store;
  encoder: Encoder;
  repoId: number;
  task: ApiEvalTask;
  protocol: ApiProtocol;
  config: PipelineConfig;
  cache?: VectorIndexCache;
  selector?: SelectorModel | null;
  moduleViewOnly?: boolean;
  onSelection?: RetrieveOptions['onSelection'];
}): Promise<TaskApiEvaluation> {
  const { store, repoId, task } = opts;
  const target = truthTarget(store, repoId, task);
  const modules = opts.moduleViewOnly ? moduleView(store, repoId, target) : undefined;
  const trace = await retrieveForTask({
    store,
    encoder: opts.encoder,
    repoId,
    task,
    config: opts.config,
    cache: opts.cache,
    persist: false,
    ...(opts.selector !== undefined ? { selector: opts.selector } : {}),
    ...(modules ? { apiModules: modules } : {}),
    ...(opts.onSelection ? { onSelection: opts.onSelection } : {}),
  });
  const pool = ApiPool.load(store, repoId, modules);
  const stated = task.ground_truth_apis?.length ? task.ground_truth_apis : null;
  const truth = stated ? statedTruth(pool, stated, target) : task.reference ? resolveTruth(pool, await referenceUses(task.reference), target) : [];
  const retrieved = predictedApis(trace, 'retrieved');
  const byScope = Object.fromEntries(
    PREDICTION_SCOPES.map((scope) => [
      scope,
      scoreTask(task.id, truth, scope === 'retrieved' ? retrieved : predictedApis(trace, scope), {
        benchmark: task.benchmark,
        pool: retrieved,
        truthFrom: stated ? 'manifest' : 'reference',
      }),
    ]),
  ) as Record<PredictionScope, TaskApiResult>;
  return { trace, byScope };
}

/** What evaluateManifestApis needs of a manifest task. */
export interface ManifestApiTask extends RetrievalTask {
  repoPath: string;
  taskViewPath?: string;
  ground_truth_apis?: string[];
  source?: Record<string, unknown>;
}

export interface ManifestApiRun {
  repository: Record<PredictionScope, ProtocolReport>;
  'task-view': Record<PredictionScope, ProtocolReport>;
  tasks: Record<ApiProtocol, Record<PredictionScope, TaskApiResult[]>>;
}

export function benchmarkOf(task: { source?: Record<string, unknown> }): string {
  const b = task.source?.benchmark;
  return typeof b === 'string' && b ? b : 'manifest';
}

/**
 * Both protocols over a manifest's tasks. `repos` maps repository paths to indexed repo ids; `views` maps
 * task-view folders to theirs (a task without a view is scored on its repository's module view).
 */
export async function evaluateManifestApis(opts: {
  store: Store;
  encoder: Encoder;
  tasks: ManifestApiTask[];
  repos: Map<string, number>;
  views: Map<string, number>;
  config: PipelineConfig;
  selector?: SelectorModel | null;
  onProgress?: (done: number, total: number) => void;
}): Promise<ManifestApiRun> {
  const cache = new VectorIndexCache();
  const tasks: ManifestApiRun['tasks'] = {
    repository: { kept: [], retrieved: [], fused: [] },
    'task-view': { kept: [], retrieved: [], fused: [] },
  };
  let done = 0;
  for (const t of opts.tasks) {
    const task: ApiEvalTask = { ...t, benchmark: benchmarkOf(t) };
    for (const protocol of API_PROTOCOLS) {
      const viewId = protocol === 'task-view' && t.taskViewPath ? opts.views.get(t.taskViewPath) : undefined;
      const repoId = viewId ?? opts.repos.get(t.repoPath);
      if (repoId === undefined)
        throw new Error(`task ${t.id}: ${viewId === undefined && protocol === 'task-view' && t.taskViewPath ? t.taskViewPath : t.repoPath} is not indexed`);
      const ev = await evaluateTaskApis({
        store: opts.store,
        encoder: opts.encoder,
        repoId,
        task,
        protocol,
        config: opts.config,
        cache,
        ...(opts.selector !== undefined ? { selector: opts.selector } : {}),
        moduleViewOnly: protocol === 'task-view' && viewId === undefined,
      });
      for (const scope of PREDICTION_SCOPES) tasks[protocol][scope].push(ev.byScope[scope]);
    }
    opts.onProgress?.(++done, opts.tasks.length);
  }
  const reports = (p: ApiProtocol) =>
    Object.fromEntries(PREDICTION_SCOPES.map((s) => [s, protocolReport(tasks[p][s], p, s)])) as Record<PredictionScope, ProtocolReport>;
  return { repository: reports('repository'), 'task-view': reports('task-view'), tasks };
}
