// Paired comparisons for a report: which conditions are compared (within a run, along the ladder, across two
// runs), each comparison's statistics over the tasks both arms scored, and Holm's correction within each family.

import type { PairedComparison } from '../model/report.ts';
import type { TaskResult } from '../model/results.ts';
import { holm, mcnemarExact, pairedBootstrapDiff, pairedCounts, passAtK, signFlipTest, type BootstrapOptions } from '../stats/stats.ts';
import { AnalysisError, byCondition, type LoadedRun } from './loaded-run.ts';

export function passAtK1(r: TaskResult, k: number): number {
  return r.n >= k ? passAtK(r.n, r.c, k) : Number.NaN;
}

export interface ComparisonSpec {
  a: { runId: string; condition: string };
  b: { runId: string; condition: string };
}

/** Default pairs: within a method run every later method against each earlier one; along the ladder each step against the previous. */
export function defaultComparisons(runs: LoadedRun[]): ComparisonSpec[] {
  const out: ComparisonSpec[] = [];
  for (const { run } of runs) {
    const ids = run.conditions.map((c) => c.id);
    if (run.kind === 'ladder') {
      for (let i = 1; i < ids.length; i++) out.push({ a: { runId: run.id, condition: ids[i]! }, b: { runId: run.id, condition: ids[i - 1]! } });
    } else if (run.kind === 'run') {
      for (let i = 1; i < ids.length; i++)
        for (let j = 0; j < i; j++) out.push({ a: { runId: run.id, condition: ids[i]! }, b: { runId: run.id, condition: ids[j]! } });
    } else {
      // The factorial: all sources against no retrieval (the effects table covers the rest).
      if (ids.includes('A1X1S1') && ids.includes('A0X0S0')) out.push({ a: { runId: run.id, condition: 'A1X1S1' }, b: { runId: run.id, condition: 'A0X0S0' } });
    }
  }
  return out;
}

/** Pairs two runs condition by condition (same ids), or their only conditions when each has one; null when nothing pairs. */
export function pairRuns(a: LoadedRun, b: LoadedRun): ComparisonSpec[] | null {
  const shared = a.run.conditions.map((c) => c.id).filter((id) => b.run.conditions.some((x) => x.id === id));
  if (shared.length) return shared.map((id) => ({ a: { runId: a.run.id, condition: id }, b: { runId: b.run.id, condition: id } }));
  if (a.run.conditions.length === 1 && b.run.conditions.length === 1) {
    return [{ a: { runId: a.run.id, condition: a.run.conditions[0]!.id }, b: { runId: b.run.id, condition: b.run.conditions[0]!.id } }];
  }
  return null;
}

/** Pairs two runs condition by condition (same ids), or their only conditions when each has one. */
export function crossRunComparisons(a: LoadedRun, b: LoadedRun): ComparisonSpec[] {
  const pairs = pairRuns(a, b);
  if (pairs) return pairs;
  throw new AnalysisError(
    `runs ${a.run.id} and ${b.run.id} share no condition (${a.run.conditions.map((c) => c.id).join(', ')} vs ${b.run.conditions.map((c) => c.id).join(', ')}); compare runs of the same methods, or runs of one method each`,
  );
}

/** What a report of these runs compares: within each run as usual, and two runs of the same conditions with each other. */
export function reportComparisons(runs: LoadedRun[]): ComparisonSpec[] {
  const cross = runs.length === 2 ? (pairRuns(runs[0]!, runs[1]!) ?? []) : [];
  return [...defaultComparisons(runs), ...cross];
}

export function compare(runs: Map<string, LoadedRun>, spec: ComparisonSpec, boot: Required<BootstrapOptions>): Omit<PairedComparison, 'mcnemarPHolm'> {
  const side = (s: ComparisonSpec['a']) => {
    const l = runs.get(s.runId);
    if (!l) throw new AnalysisError(`run ${s.runId} is not loaded`);
    const cond = l.run.conditions.find((c) => c.id === s.condition);
    if (!cond) throw new AnalysisError(`run ${s.runId} has no condition ${s.condition}`);
    const rs = new Map(byCondition(l.results, s.condition).map((r) => [r.taskId, r]));
    const unscored = new Set(l.failures.filter((f) => f.condition === s.condition).map((f) => f.taskId));
    return { ref: { runId: s.runId, condition: s.condition, label: cond.label }, rs, unscored, manifest: l.run.manifestHash };
  };
  const A = side(spec.a);
  const B = side(spec.b);
  // Only tasks scored in both arms pair; the rest are dropped and counted.
  const ids = [...A.rs.keys()].filter((id) => B.rs.has(id));
  const unscoredEither = new Set([...A.unscored, ...B.unscored]);
  const touched = new Set([...A.rs.keys(), ...B.rs.keys(), ...unscoredEither]);
  const ra = ids.map((id) => A.rs.get(id)!);
  const rb = ids.map((id) => B.rs.get(id)!);
  const { wins, losses, ties } = pairedCounts(
    ra.map((r) => r.selected.correct),
    rb.map((r) => r.selected.correct),
  );
  const maxK = ids.length ? Math.min(...ra.map((r) => r.n), ...rb.map((r) => r.n)) : 0;
  return {
    a: A.ref,
    b: B.ref,
    tasks: ids.length,
    dropped: { tasks: touched.size - ids.length, unscored: unscoredEither.size },
    wins,
    losses,
    ties,
    mcnemarP: mcnemarExact(wins, losses),
    selectedPermutation: permutationOf(
      ra.map((r, i) => (r.selected.correct ? 1 : 0) - (rb[i]!.selected.correct ? 1 : 0)),
      boot.seed,
    ),
    holmFamily: { key: familyKey(runs.get(spec.a.runId)!, runs.get(spec.b.runId)!), outcome: 'selected-output correctness (exact McNemar)', size: 0 },
    selectedDiff: pairedBootstrapDiff(
      ra.map((r) => (r.selected.correct ? 1 : 0)),
      rb.map((r) => (r.selected.correct ? 1 : 0)),
      boot,
    ),
    passAtKDiff: Array.from({ length: maxK }, (_, i) => {
      const xa = ra.map((r) => passAtK1(r, i + 1));
      const xb = rb.map((r) => passAtK1(r, i + 1));
      return {
        k: i + 1,
        diff: pairedBootstrapDiff(xa, xb, boot),
        test: permutationOf(
          xa.map((x, j) => x - xb[j]!),
          boot.seed,
        ),
      };
    }),
  };
}

export function permutationOf(diffs: number[], seed: number): PairedComparison['selectedPermutation'] {
  const r = signFlipTest(diffs, { seed });
  return { p: r.p, informative: r.informative, method: r.method };
}

/** The backend a run's results came from (kind and model), what a Holm family is drawn along. */
export function backendOf(l: LoadedRun): string {
  const b = l.run.backend as { kind?: string; model?: string | null } | undefined;
  return b?.kind ? `${b.kind}${b.model ? `:${b.model}` : ''}` : (l.results[0]?.generation.backend ?? 'unknown backend');
}

export function familyKey(a: LoadedRun, b: LoadedRun): string {
  const x = backendOf(a);
  const y = backendOf(b);
  return x === y ? x : `${x} vs ${y}`;
}

/** Holm within each family (one backend, or one pair of backends; the outcome is selected-output correctness). */
export function holmByFamily(raw: Omit<PairedComparison, 'mcnemarPHolm'>[]): PairedComparison[] {
  const families = new Map<string, number[]>();
  raw.forEach((c, i) => {
    let f = families.get(c.holmFamily.key);
    if (!f) families.set(c.holmFamily.key, (f = []));
    f.push(i);
  });
  const out = raw.map((c) => ({ ...c, holmFamily: { ...c.holmFamily }, mcnemarPHolm: Number.NaN })) as PairedComparison[];
  for (const idx of families.values()) {
    const adjusted = holm(idx.map((i) => raw[i]!.mcnemarP));
    idx.forEach((i, j) => {
      out[i]!.mcnemarPHolm = adjusted[j]!;
      out[i]!.holmFamily.size = idx.length;
    });
  }
  return out;
}
