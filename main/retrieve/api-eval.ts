// API-retrieval evaluation (the paper's RQ4). For each task:
//   truth      the repository-defined APIs the reference solution calls: each callee of the reference
//              (as the indexer extracts calls) resolved against the repository's API entries — by
//              qualified name when the call is qualified (`Money.from_cents`), else the target's own
//              module first, else a name defined exactly once; ambiguous or external names are left out.
//   predicted  the API evidence after refinement: every API item retrieved for any step that refinement
//              did not remove, deduplicated by canonical API (`X.__init__` ≡ `X`).
// Reported: macro precision / recall / F1 and exact-set match over tasks with a non-empty truth, count
// reliability (predicted more / exactly as many / fewer APIs than the truth), and, on a held-out half of
// the tasks (split by a hash of the task id), how well item uncertainty u detects wrongly retrieved
// items: AUROC, AUPRC, and ECE (10 equal-width bins) of u after Platt scaling fitted on the other half.

import { createHash } from 'node:crypto';
import { createExtractor } from '../index/extract.ts';
import type { Store } from '../store/store.ts';
import { auprc, auroc, ece, fitPlatt, mean, setPrf } from '../experiment/metrics.ts';
import { isTestFile } from '../index/test-files.ts';
import type { RetrievalTrace } from './types.ts';

export interface ApiTruthEntry {
  key: string;
  title: string;
}

interface ApiRow {
  id: number;
  name: string;
  qualname: string;
  module: string;
  path: string;
}

export function canonicalKey(module: string, qualname: string): string {
  return `${module}:${qualname.replace(/\.(__init__|constructor)$/, '')}`;
}

let extractorPromise: ReturnType<typeof createExtractor> | null = null;

/** The callees of a reference solution (Python), as the indexer would record them. */
export async function referenceCalls(reference: string): Promise<string[]> {
  extractorPromise ??= createExtractor();
  const ex = await extractorPromise;
  const parsed = ex.parse('reference.py', 'python', reference);
  const calls = new Set<string>();
  for (const u of parsed.units) for (const c of u.calls) calls.add(c);
  return [...calls];
}

/** Resolves callees to repository API entries (see the header for the rules). */
export function resolveTruth(
  store: Store,
  repoId: number,
  calls: string[],
  target: { module: string | null; qualname: string | null },
): ApiTruthEntry[] {
  const rows = store.db
    .prepare('SELECT a.id, a.name, a.qualname, a.module, f.path FROM api_entries a JOIN files f ON f.id = a.file_id WHERE a.repo_id = ?')
    .all(repoId) as ApiRow[];
  const byName = new Map<string, ApiRow[]>();
  for (const r of rows) {
    if (isTestFile(r.path)) continue;
    if (target.module && r.module === target.module && r.qualname === target.qualname) continue;
    let l = byName.get(r.name);
    if (!l) byName.set(r.name, (l = []));
    l.push(r);
  }
  const out = new Map<string, ApiTruthEntry>();
  for (const call of calls) {
    const parts = call.split('.');
    const name = parts.at(-1)!;
    const cands = byName.get(name) ?? [];
    if (!cands.length) continue;
    let pick: ApiRow[] = [];
    const qualifier = parts.slice(0, -1).filter((p) => p !== 'self' && p !== 'cls');
    if (qualifier.length) {
      const q = `${qualifier.join('.')}.${name}`;
      pick = cands.filter((c) => c.qualname === q || `${c.module}.${c.qualname}`.endsWith(q));
    }
    if (!pick.length && parts[0] === 'self' && target.qualname?.includes('.')) {
      const cls = target.qualname.split('.').slice(0, -1).join('.');
      pick = cands.filter((c) => c.module === target.module && c.qualname === `${cls}.${name}`);
    }
    if (!pick.length && !qualifier.length) pick = cands.filter((c) => c.module === target.module && !c.qualname.includes('.'));
    if (!pick.length && !qualifier.length && cands.length === 1) pick = cands;
    if (pick.length !== 1 && !(pick.length > 1 && new Set(pick.map((p) => canonicalKey(p.module, p.qualname))).size === 1)) continue;
    const p = pick[0]!;
    out.set(canonicalKey(p.module, p.qualname), { key: canonicalKey(p.module, p.qualname), title: `${p.module}.${p.qualname}` });
  }
  return [...out.values()];
}

export interface PredictedApi {
  key: string;
  title: string;
  u: number;
}

/**
 * API evidence after refinement (`retrieved`: every API item of any step that refinement kept), or only
 * the API items that reached the fused list shown to the generator (`fused`); deduplicated by canonical
 * API, the lowest-u occurrence kept.
 */
export function predictedApis(trace: RetrievalTrace, scope: 'retrieved' | 'fused' = 'retrieved'): PredictedApi[] {
  const out = new Map<string, PredictedApi>();
  const items = scope === 'fused' ? trace.fused : trace.evidence;
  for (const e of items) {
    if (e.source !== 'api' || e.reason.startsWith('API refinement')) continue;
    const key = canonicalKey(e.module, e.qualname);
    const prev = out.get(key);
    if (!prev || e.u < prev.u) out.set(key, { key, title: e.title, u: e.u });
  }
  return [...out.values()];
}

export interface TaskApiResult {
  taskId: string;
  truth: string[];
  predicted: PredictedApi[];
  precision: number;
  recall: number;
  f1: number;
  exact: boolean;
  count: 'over' | 'exact' | 'under';
}

export function scoreTask(taskId: string, truth: ApiTruthEntry[], predicted: PredictedApi[]): TaskApiResult {
  const t = new Set(truth.map((x) => x.key));
  const p = new Set(predicted.map((x) => x.key));
  const prf = setPrf(p, t);
  return {
    taskId,
    truth: [...t],
    predicted,
    ...prf,
    count: p.size > t.size ? 'over' : p.size === t.size ? 'exact' : 'under',
  };
}

export function isHeldOut(taskId: string): boolean {
  return createHash('sha256').update(taskId).digest()[0]! % 2 === 1;
}

export interface ApiEvalSummary {
  tasks: number;
  tasksWithTruth: number;
  precision: number;
  recall: number;
  f1: number;
  exactMatch: number;
  count: { over: number; exact: number; under: number };
  uncertainty: {
    heldOutTasks: number;
    items: number;
    wrongItems: number;
    auroc: number;
    auprc: number;
    eceRaw: number;
    eceCalibrated: number;
    platt: { a: number; b: number };
  };
}

export function summarise(results: TaskApiResult[]): ApiEvalSummary {
  const withTruth = results.filter((r) => r.truth.length > 0);
  const count = { over: 0, exact: 0, under: 0 };
  for (const r of withTruth) count[r.count]++;
  const items = (rs: TaskApiResult[]) =>
    rs.flatMap((r) => r.predicted.map((p) => ({ u: p.u, wrong: !r.truth.includes(p.key) })));
  const dev = items(withTruth.filter((r) => !isHeldOut(r.taskId)));
  const held = items(withTruth.filter((r) => isHeldOut(r.taskId)));
  const platt = fitPlatt(
    dev.map((x) => x.u),
    dev.map((x) => x.wrong),
  );
  return {
    tasks: results.length,
    tasksWithTruth: withTruth.length,
    precision: mean(withTruth.map((r) => r.precision)),
    recall: mean(withTruth.map((r) => r.recall)),
    f1: mean(withTruth.map((r) => r.f1)),
    exactMatch: mean(withTruth.map((r) => (r.exact ? 1 : 0))),
    count,
    uncertainty: {
      heldOutTasks: withTruth.filter((r) => isHeldOut(r.taskId)).length,
      items: held.length,
      wrongItems: held.filter((x) => x.wrong).length,
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
    },
  };
}
