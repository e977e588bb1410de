// The API-retrieval score of one task of a run, under both protocols (docs/api-retrieval.md): the repository
// protocol scores the run's own trace; the task-view protocol retrieves again with the same config against
// the task's own view (indexed on first use) or, without one, the target's module view.

import type { Encoder } from '../../model/encoder.ts';
import type { ApiItemRow, ApiProtocolScore, ApiScore } from '../../model/results.ts';
import { runIndex } from '../../index/indexer.ts';
import { ApiPool, isHit, predictedApis, referenceUses, resolveTruth, scoreTask, statedTruth, type TaskApiResult } from './api-eval.ts';
import { benchmarkOf, evaluateTaskApis, truthTarget, type ManifestApiTask } from './api-run.ts';
import { canonicalOf } from '../../retrieve/select-api.ts';
import type { RetrievalTrace } from '../../model/trace.ts';
import type { VectorIndexCache } from '../../retrieve/vector-index.ts';
import type { Store } from '../../store/store.ts';
import type { PipelineConfig } from '../../model/config.ts';

function why(trace: RetrievalTrace, key: string): string | null {
  const occ = trace.evidence.filter((e) => e.source === 'api' && canonicalOf(e.module, e.qualname) === key);
  if (!occ.length) return null;
  const kept = occ.find((e) => e.kept);
  const e = kept ?? occ.sort((a, b) => b.gamma - a.gamma)[0]!;
  return `step ${e.step + 1}, rank ${e.rank + 1}: ${e.reason}`;
}

/** The task-view rows: hits and extras from the predicted set, misses from the truth, each with its reason. */
export function apiItems(result: TaskApiResult, trace: RetrievalTrace, matching: 'strict' | 'bare'): ApiItemRow[] {
  const rows: ApiItemRow[] = [];
  for (const p of result.predicted) {
    const hit = isHit(result.truth, p.key, matching);
    rows.push({ key: p.key, title: p.title, status: hit ? 'hit' : 'extra', reason: why(trace, p.key) ?? 'predicted', u: p.u, p: p.p ?? null });
  }
  for (const t of result.truth) {
    if (result.predicted.some((p) => isHit([t], p.key, matching))) continue;
    const w = why(trace, t.key);
    const u = trace.evidence.find((e) => e.source === 'api' && canonicalOf(e.module, e.qualname) === t.key);
    rows.push({
      key: t.key,
      title: t.title,
      status: 'miss',
      reason: w
        ? `retrieved but dropped — ${w}`
        : `not retrieved in any step (truth from the ${result.truthFrom === 'manifest' ? "manifest's ground_truth_apis" : "reference's uses"})`,
      u: u?.u ?? null,
      p: u?.selectorP ?? null,
    });
  }
  return rows;
}

function protocolScore(r: TaskApiResult, trace: RetrievalTrace, matching: 'strict' | 'bare'): ApiProtocolScore {
  const s = r[matching];
  return {
    ...s,
    truth: r.truth.length,
    predicted: r.predicted.length,
    matching,
    strict: r.strict,
    bare: r.bare,
    truthFrom: r.truthFrom,
    items: apiItems(r, trace, matching),
  };
}

const viewIds = new WeakMap<Store, Map<string, Promise<number>>>();

/**
 * Indexes a task's view folder on first use (once per store and folder) and returns its repository id. This is the
 * one step of API evaluation that writes to the store; scoreRunApis itself only reads.
 */
export async function indexTaskView(store: Store, encoder: Encoder, folder: string): Promise<number> {
  let m = viewIds.get(store);
  if (!m) viewIds.set(store, (m = new Map()));
  let p = m.get(folder);
  if (!p) {
    p = runIndex({ store, root: folder, encoder }).then((s) => {
      if (s.status !== 'completed') throw new Error(`indexing the task view ${folder} did not complete (${s.status})`);
      return s.repoId;
    });
    m.set(folder, p);
  }
  return p;
}

/** What the API evaluation of one task of a run reads: the pipeline's `evaluate` stage passes it (TaskServices.scoreApis). */
export interface RunApisInput {
  store: Store;
  encoder: Encoder;
  repoId: number;
  task: ManifestApiTask;
  trace: RetrievalTrace;
  config: PipelineConfig;
  cache?: VectorIndexCache;
}

/** The API score of one task of a run: its task view indexed first when it has one (indexTaskView), then scored. */
export async function evaluateRunApis(opts: RunApisInput): Promise<ApiScore | null> {
  if (!opts.task.reference && !opts.task.ground_truth_apis?.length) return null;
  const viewRepoId = opts.task.taskViewPath ? await indexTaskView(opts.store, opts.encoder, opts.task.taskViewPath) : null;
  return scoreRunApis({ ...opts, viewRepoId });
}

/**
 * Scores the run's trace (repository protocol) and the task's view (task-view protocol: `viewRepoId`, the view's
 * index, or null for the target's module view); null when the task has no truth source.
 */
export async function scoreRunApis(opts: RunApisInput & { viewRepoId: number | null }): Promise<ApiScore | null> {
  const { store, repoId, task, trace } = opts;
  if (!task.reference && !task.ground_truth_apis?.length) return null;
  const target = truthTarget(store, repoId, task);
  const pool = ApiPool.load(store, repoId);
  const stated = task.ground_truth_apis?.length ? task.ground_truth_apis : null;
  const truth = stated ? statedTruth(pool, stated, target) : resolveTruth(pool, await referenceUses(task.reference!), target);
  const repo = scoreTask(task.id, truth, predictedApis(trace, 'kept'), { benchmark: benchmarkOf(task), truthFrom: stated ? 'manifest' : 'reference' });
  const viewId = opts.viewRepoId;
  const tv = await evaluateTaskApis({
    store,
    encoder: opts.encoder,
    repoId: viewId ?? repoId,
    task: { ...task, benchmark: benchmarkOf(task) },
    protocol: 'task-view',
    config: opts.config,
    ...(opts.cache ? { cache: opts.cache } : {}),
    moduleViewOnly: viewId == null,
  });
  return { ...protocolScore(repo, trace, 'strict'), protocol: 'repository', scope: 'kept', taskView: protocolScore(tv.byScope.kept, tv.trace, 'bare') };
}
