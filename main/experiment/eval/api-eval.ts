// API-retrieval evaluation (the paper's RQ4) under two declared protocols; docs/api-retrieval.md has the
// rules and how they differ from the paper's reference implementation.
//
//   repository  discovery in the whole indexed repository (what an analyst opening a folder gets); truth
//               and predictions are matched by strict `module:qualname` keys; macro over the tasks whose
//               truth is non-empty, count reliability over the same tasks.
//   task-view   the paper's protocol: the API pool is the task's own view (the manifest's `task_view`
//               folder; without one, the target's module and the repository modules it imports), matching
//               by bare name, case-insensitive; macro and count reliability over all tasks, empty truths
//               included (an empty prediction for an empty truth is a perfect, exact task).
//
// Both matchings (strict and bare) are computed under both protocols and reported; the protocol's own
// matching is the headline. Predicted sets come from a retrieval trace under one of three scopes:
//   kept       API items after the keep rule and API refinement (rules, then the selector), united over
//              steps (default: the set the method decides on);
//   retrieved  every API item retrieved in any step that the refinement rules did not remove;
//   fused      the API items in the fused top-K shown to the generator.
// Truth: the manifest's `ground_truth_apis` when given; otherwise every repository API the reference uses —
// calls, attribute reads, constants, exception classes, decorators (py-names.ts) — resolved against the
// pool: `self.x` to the target's class, a bare name to the target's module, then to what the module imports
// by that name, then to the one top-level definition of that name; `A.b` to a member of the class A or to
// `b` of the module A names. A builtin name is never resolved to a repository definition unless the target's
// module defines or imports that name. The target itself and test files are never truth.
// Uncertainty: on the held-out half of the tasks (task-id hash), how well u ranks the `retrieved` items
// that are not in the truth (false positives): AUROC, AUPRC, ECE (10 bins) raw and after Platt scaling
// fitted on the other half.

import { createHash } from 'node:crypto';
import type { Store } from '../../store/store.ts';
import { apiEntryRows } from '../../store/code-queries.ts';
import { auprc, auroc, ece, fitPlatt, mean, setPrf } from '../../stats/metrics.ts';
import { isTestFile } from '../../index/test-files.ts';
import { referencedNames, PY_BUILTINS, type NameUse } from '../../retrieve/py-names.ts';
import { bareName, canonicalOf } from '../../retrieve/select-api.ts';
import { importSource, resolveImport } from '../../retrieve/uncertainty.ts';
import type { Evidence, RetrievalTrace } from '../../model/trace.ts';

export type ApiProtocol = 'repository' | 'task-view';
export type PredictionScope = 'kept' | 'retrieved' | 'fused';
export type Matching = 'strict' | 'bare';
export const API_PROTOCOLS: readonly ApiProtocol[] = ['repository', 'task-view'];
export const PREDICTION_SCOPES: readonly PredictionScope[] = ['kept', 'retrieved', 'fused'];

/** The rules each protocol scores by. */
export const PROTOCOL_RULES: Record<ApiProtocol, { matching: Matching; emptyTruths: 'excluded' | 'included'; pool: string }> = {
  repository: { matching: 'strict', emptyTruths: 'excluded', pool: 'every API of the indexed repository (test files excluded)' },
  'task-view': {
    matching: 'bare',
    emptyTruths: 'included',
    pool: "the task's own view (manifest task_view); without one, the target's module and the repository modules it imports",
  },
};

export interface ApiTruthEntry {
  /** Canonical `module:qualname`; `?:name` for a stated truth name the pool does not define. */
  key: string;
  title: string;
}

export function canonicalKey(module: string, qualname: string): string {
  return canonicalOf(module, qualname);
}

interface PoolRow {
  name: string;
  qualname: string;
  module: string;
  kind: string;
  key: string;
}

/** The API entries truth may resolve to, indexed for the resolution rules. */
export class ApiPool {
  readonly byKey = new Map<string, PoolRow>();
  readonly topLevel = new Map<string, PoolRow[]>();
  readonly byDotted = new Map<string, PoolRow>();
  readonly modules = new Set<string>();

  constructor(rows: PoolRow[]) {
    for (const r of rows) {
      if (this.byKey.has(r.key)) continue;
      this.byKey.set(r.key, r);
      this.byDotted.set(`${r.module}.${r.key.slice(r.key.indexOf(':') + 1)}`, r);
      this.modules.add(r.module);
      if (!r.qualname.includes('.')) {
        let l = this.topLevel.get(r.name);
        if (!l) this.topLevel.set(r.name, (l = []));
        l.push(r);
      }
    }
  }

  /** API entries of a repository (test files left out), optionally only those of some modules. */
  static load(store: Store, repoId: number, modules?: Set<string>): ApiPool {
    const rows = apiEntryRows(store, repoId);
    return new ApiPool(
      rows
        .filter((r) => !isTestFile(r.path) && (!modules || modules.has(r.module)))
        .map((r) => ({ name: r.name, qualname: r.qualname, module: r.module, kind: r.kind, key: canonicalOf(r.module, r.qualname) })),
    );
  }
}

export interface TruthTarget {
  module: string | null;
  qualname: string | null;
  /** Imports of the target's module as the indexer records them (`.validation.is_string`, `os.path`, `.regex.*`). */
  imports: string[];
}

/** The names a reference uses (see py-names.ts). */
export async function referenceUses(reference: string): Promise<NameUse[]> {
  return referencedNames(reference);
}

/** Resolves a bare name as the target's module sees it (own definition, imported by name, star import, unique top-level). */
function resolveBare(pool: ApiPool, name: string, target: TruthTarget): PoolRow | null {
  const own = target.module ? pool.byKey.get(`${target.module}:${name}`) : undefined;
  if (own) return own;
  if (target.module) {
    for (const imp of target.imports) {
      const src = importSource(imp, target.module);
      if (!src || (src.name !== name && src.name !== '*')) continue;
      const hit = pool.byKey.get(`${src.module}:${name}`);
      if (hit) return hit;
    }
  }
  const tops = pool.topLevel.get(name) ?? [];
  return tops.length === 1 ? tops[0]! : null;
}

function importsName(target: TruthTarget, name: string): boolean {
  return target.imports.some((imp) => imp.split('.').at(-1) === name);
}

/** Truth for a task from the names its reference uses (rules in the header). */
export function resolveTruth(pool: ApiPool, uses: NameUse[], target: TruthTarget): ApiTruthEntry[] {
  const out = new Map<string, ApiTruthEntry>();
  const targetKey = target.module && target.qualname ? canonicalOf(target.module, target.qualname) : null;
  const add = (r: PoolRow | undefined | null) => {
    if (!r || r.key === targetKey) return;
    out.set(r.key, { key: r.key, title: `${r.module}.${r.key.slice(r.key.indexOf(':') + 1)}` });
  };
  for (const { chain } of uses) {
    const root = chain[0]!;
    if (root === 'self' || root === 'cls') {
      if (chain.length > 1 && target.module && target.qualname?.includes('.')) {
        const cls = target.qualname.split('.').slice(0, -1).join('.');
        add(pool.byKey.get(`${target.module}:${cls}.${chain[1]}`));
      }
      continue;
    }
    if (PY_BUILTINS.has(root) && !(target.module && pool.byKey.has(`${target.module}:${root}`)) && !importsName(target, root)) continue;
    const rootRow = resolveBare(pool, root, target);
    add(rootRow);
    if (chain.length < 2) continue;
    if (rootRow) {
      if (rootRow.kind === 'class') add(pool.byKey.get(`${rootRow.module}:${rootRow.qualname}.${chain[1]}`));
      continue;
    }
    // `mod.func` / `pkg.mod.Class.attr`: the longest prefix that names a pool API through a module the target can see.
    const aliasModule = target.module
      ? target.imports.map((imp) => resolveImport(imp, target.module!)).find((abs) => abs === root || abs.endsWith(`.${root}`))
      : undefined;
    const base = aliasModule ? [aliasModule, ...chain.slice(1)] : chain;
    for (let j = base.length; j >= 2; j--) {
      const dotted = base.slice(0, j).join('.');
      const hit = pool.byDotted.get(dotted);
      if (hit) {
        add(hit);
        break;
      }
    }
  }
  return [...out.values()];
}

/** Truth from a manifest's `ground_truth_apis` (`module:qualname`, dotted `module.qualname`, or a bare name). */
export function statedTruth(pool: ApiPool, names: string[], target: TruthTarget): ApiTruthEntry[] {
  const out = new Map<string, ApiTruthEntry>();
  for (const raw of names) {
    const s = raw.trim();
    if (s.includes(':')) {
      const [m, q] = [s.slice(0, s.indexOf(':')), s.slice(s.indexOf(':') + 1)];
      const key = canonicalOf(m, q);
      out.set(key, { key, title: `${m}.${q}` });
      continue;
    }
    const row: PoolRow | null | undefined = pool.byDotted.get(s) ?? (s.includes('.') ? null : resolveBare(pool, s, target));
    if (row) out.set(row.key, { key: row.key, title: `${row.module}.${row.key.slice(row.key.indexOf(':') + 1)}` });
    else out.set(`?:${s}`, { key: `?:${s}`, title: s });
  }
  return [...out.values()];
}

export interface PredictedApi {
  key: string;
  title: string;
  u: number;
  /** The selector's probability, when it ran. */
  p?: number;
}

/** Whether an API item was removed by the refinement rules (older traces only say so in the reason). */
function ruledOut(e: Evidence): boolean {
  return e.droppedAt ? e.droppedAt === 'refinement' : e.reason.startsWith('API refinement');
}

/** Whether an API item survived the keep rule and API refinement (dedup, top K and the cap do not matter: union semantics). */
function keptByMethod(e: Evidence): boolean {
  if (e.kept) return true;
  if (e.droppedAt) return e.droppedAt === 'dedup' || e.droppedAt === 'topk' || e.droppedAt === 'cap';
  return /^(duplicate of|outside the fused top|over the per-source cap)/.test(e.reason);
}

/** The predicted API set of a trace under a scope (see the header), deduplicated by canonical API (lowest u kept). */
export function predictedApis(trace: RetrievalTrace, scope: PredictionScope = 'kept'): PredictedApi[] {
  const out = new Map<string, PredictedApi>();
  const items =
    scope === 'fused'
      ? trace.fused.filter((e) => e.source === 'api')
      : trace.evidence.filter((e) => e.source === 'api' && !ruledOut(e) && (scope === 'retrieved' || keptByMethod(e)));
  for (const e of items) {
    const key = canonicalOf(e.module, e.qualname);
    const prev = out.get(key);
    if (!prev || e.u < prev.u) out.set(key, { key, title: e.title, u: e.u, ...(e.selectorP !== undefined ? { p: e.selectorP } : {}) });
  }
  return [...out.values()];
}

export interface SetScore {
  precision: number;
  recall: number;
  f1: number;
  exact: boolean;
  count: 'over' | 'exact' | 'under';
}

export interface TaskApiResult {
  taskId: string;
  benchmark: string;
  truth: ApiTruthEntry[];
  truthFrom: 'manifest' | 'reference';
  predicted: PredictedApi[];
  /** Every retrieved API item the rules left (what the uncertainty evaluation ranks). */
  pool: PredictedApi[];
  strict: SetScore;
  bare: SetScore;
}

function score(p: Set<string>, t: Set<string>): SetScore {
  return { ...setPrf(p, t), count: p.size > t.size ? 'over' : p.size === t.size ? 'exact' : 'under' };
}

export function isHit(truth: ApiTruthEntry[], key: string, matching: Matching): boolean {
  return matching === 'strict' ? truth.some((t) => t.key === key) : truth.some((t) => bareName(t.key) === bareName(key));
}

export function scoreTask(
  taskId: string,
  truth: ApiTruthEntry[],
  predicted: PredictedApi[],
  extra: { benchmark?: string; pool?: PredictedApi[]; truthFrom?: 'manifest' | 'reference' } = {},
): TaskApiResult {
  const keys = new Set(predicted.map((x) => x.key));
  return {
    taskId,
    benchmark: extra.benchmark ?? 'manifest',
    truth,
    truthFrom: extra.truthFrom ?? 'reference',
    predicted,
    pool: extra.pool ?? predicted,
    strict: score(keys, new Set(truth.map((x) => x.key))),
    bare: score(new Set([...keys].map(bareName)), new Set(truth.map((x) => bareName(x.key)))),
  };
}

export function isHeldOut(taskId: string): boolean {
  return createHash('sha256').update(taskId).digest()[0]! % 2 === 1;
}

export interface SetSummary {
  /** Tasks the macro is over (the protocol decides whether empty truths count). */
  tasks: number;
  precision: number;
  recall: number;
  f1: number;
  exactMatch: number;
  count: { over: number; exact: number; under: number };
}

export interface UncertaintySummary {
  over: string;
  heldOutTasks: number;
  items: number;
  wrongItems: number;
  auroc: number;
  auprc: number;
  eceRaw: number;
  eceCalibrated: number;
  platt: { a: number; b: number };
  /** Set when a statistic cannot be computed meaningfully (no items, or one class only). */
  degenerate: string | null;
}

export interface ApiEvalSummary extends SetSummary {
  protocol: ApiProtocol;
  scope: PredictionScope;
  matching: Matching;
  /** Tasks evaluated, and those with a non-empty truth. */
  allTasks: number;
  tasksWithTruth: number;
  strict: SetSummary;
  bare: SetSummary;
  /** The same figures on the held-out half only (the selector never saw these tasks). */
  heldOut: SetSummary;
  uncertainty: UncertaintySummary;
}

function setSummary(rs: TaskApiResult[], matching: Matching): SetSummary {
  const s = rs.map((r) => r[matching]);
  return {
    tasks: rs.length,
    precision: mean(s.map((x) => x.precision)),
    recall: mean(s.map((x) => x.recall)),
    f1: mean(s.map((x) => x.f1)),
    exactMatch: mean(s.map((x) => (x.exact ? 1 : 0))),
    count: {
      over: s.filter((x) => x.count === 'over').length,
      exact: s.filter((x) => x.count === 'exact').length,
      under: s.filter((x) => x.count === 'under').length,
    },
  };
}

function uncertaintySummary(rs: TaskApiResult[], matching: Matching): UncertaintySummary {
  const items = (xs: TaskApiResult[]) => xs.flatMap((r) => r.pool.map((p) => ({ u: p.u, wrong: !isHit(r.truth, p.key, matching) })));
  const dev = items(rs.filter((r) => !isHeldOut(r.taskId)));
  const held = items(rs.filter((r) => isHeldOut(r.taskId)));
  const wrong = held.filter((x) => x.wrong).length;
  const platt = fitPlatt(
    dev.map((x) => x.u),
    dev.map((x) => x.wrong),
  );
  const degenerate = !held.length
    ? 'no retrieved API items on the held-out half'
    : wrong === 0
      ? 'no false positives on the held-out half'
      : wrong === held.length
        ? 'every held-out item is a false positive'
        : null;
  return {
    over: `retrieved API items the refinement rules left, held-out tasks (task-id hash), ${matching} matching; wrong = not in the truth`,
    heldOutTasks: rs.filter((r) => isHeldOut(r.taskId)).length,
    items: held.length,
    wrongItems: wrong,
    auroc: auroc(
      held.map((x) => x.u),
      held.map((x) => x.wrong),
    ),
    auprc: auprc(
      held.map((x) => x.u),
      held.map((x) => x.wrong),
    ),
    eceRaw: held.length
      ? ece(
          held.map((x) => x.u),
          held.map((x) => x.wrong),
        ).ece
      : Number.NaN,
    eceCalibrated: held.length
      ? ece(
          held.map((x) => platt.predict(x.u)),
          held.map((x) => x.wrong),
        ).ece
      : Number.NaN,
    platt: { a: platt.a, b: platt.b },
    degenerate,
  };
}

/** One protocol's summary over task results (which tasks count follows PROTOCOL_RULES). */
export function summarise(results: TaskApiResult[], protocol: ApiProtocol = 'repository', scope: PredictionScope = 'kept'): ApiEvalSummary {
  const rules = PROTOCOL_RULES[protocol];
  const scored = rules.emptyTruths === 'included' ? results : results.filter((r) => r.truth.length > 0);
  const head = setSummary(scored, rules.matching);
  return {
    protocol,
    scope,
    matching: rules.matching,
    ...head,
    allTasks: results.length,
    tasksWithTruth: results.filter((r) => r.truth.length > 0).length,
    strict: setSummary(scored, 'strict'),
    bare: setSummary(scored, 'bare'),
    heldOut: setSummary(
      scored.filter((r) => isHeldOut(r.taskId)),
      rules.matching,
    ),
    uncertainty: uncertaintySummary(
      results.filter((r) => r.truth.length > 0 || rules.emptyTruths === 'included'),
      rules.matching,
    ),
  };
}

export interface ProtocolReport {
  protocol: ApiProtocol;
  scope: PredictionScope;
  /** Per benchmark (the task's source.benchmark, else `manifest`), and the mean over benchmarks when there are several. */
  benchmarks: Record<string, ApiEvalSummary>;
  summary: ApiEvalSummary;
  meanOverBenchmarks: { f1: number; exactMatch: number; benchmarks: number } | null;
}

/** Per-benchmark summaries and their mean; `summary` is over all tasks pooled. */
export function protocolReport(results: TaskApiResult[], protocol: ApiProtocol, scope: PredictionScope): ProtocolReport {
  const byBench = new Map<string, TaskApiResult[]>();
  for (const r of results) {
    let l = byBench.get(r.benchmark);
    if (!l) byBench.set(r.benchmark, (l = []));
    l.push(r);
  }
  const benchmarks = Object.fromEntries([...byBench.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([b, rs]) => [b, summarise(rs, protocol, scope)]));
  const vals = Object.values(benchmarks);
  return {
    protocol,
    scope,
    benchmarks,
    summary: summarise(results, protocol, scope),
    meanOverBenchmarks: vals.length > 1 ? { f1: mean(vals.map((v) => v.f1)), exactMatch: mean(vals.map((v) => v.exactMatch)), benchmarks: vals.length } : null,
  };
}
