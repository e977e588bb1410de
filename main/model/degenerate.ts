// When a statistic of a report says nothing: one class only, too few tasks, no spread, every pair tied. One set of
// rules, read by every place that prints such a figure (the app's tables and charts, the HTML, Markdown and CSV
// reports), so AUPRC is never printed as a plain 1.000 beside an AUROC flagged degenerate.

/** The uncertainty figures of a condition, as the report model holds them (model/report.ts ConditionSummary). */
export interface UncertaintyFigures {
  auroc: number;
  auprc: number;
  ece: number;
  bins: readonly { count: number }[];
  /** Why AUROC and AUPRC say nothing (constant aggregate, one class only, identical candidates); null when fine. */
  degenerate: string | null;
}

export type UncertaintyStat = 'auroc' | 'auprc' | 'ece';

/** Fewer scored tasks than this and no uncertainty figure is read as evidence. */
export const MIN_CALIBRATION_TASKS = 2;

/**
 * Why one uncertainty figure of a condition with `tasks` scored tasks says nothing, or null. AUROC and AUPRC share
 * the condition's flag (with one class only AUROC is undefined and AUPRC is trivially 1 or undefined); ECE is
 * flagged when every task falls in one bin (a constant aggregate: calibration-in-the-large, not a reliability curve).
 */
export function uncertaintyFlag(u: UncertaintyFigures, stat: UncertaintyStat, tasks: number): string | null {
  if (tasks < MIN_CALIBRATION_TASKS) return tasks ? 'one scored task only' : 'no scored tasks';
  if (stat === 'ece') return u.bins.filter((b) => b.count > 0).length <= 1 ? 'every task falls in one bin' : null;
  return u.degenerate;
}

/** The paired counts of a comparison (model/report.ts PairedComparison). */
export interface PairedCounts {
  tasks: number;
  wins: number;
  losses: number;
}

/** Why the McNemar p of a comparison says nothing (no pair, or every pair tied), or null. */
export function mcnemarFlag(c: PairedCounts): string | null {
  if (!c.tasks) return 'no paired tasks';
  return c.wins + c.losses ? null : 'all ties: no task where the two differ';
}

/** Why a paired permutation test says nothing (every per-task difference is 0), or null. */
export function permutationFlag(t: { informative: number } | null | undefined): string | null {
  if (!t) return null;
  return t.informative ? null : 'all ties: no task where the two differ';
}
