// From stored runs to a ReportModel: metrics per condition, paired comparisons, factorial effects. Reads only
// the store, so every report and chart is regenerated without re-running anything.

import { cellSources } from '../pipeline/methods.ts';

import { isolationOf, isolationReasonOf, type VerdictIsolation, type VerdictStatus } from '../model/verdict.ts';
import { auprc, auroc, ece, mean } from '../stats/metrics.ts';
import type {
  ApiAggregate,
  CandidateRow,
  ConditionSummary,
  FactorialAnalysis,
  FlakyCounts,
  InProcessCounts,
  InProcessReason,
  LeakCounts,
  ReportModel,
  TaskRow,
  VerdictsApart,
} from '../model/report.ts';
import { MIN_INFORMATIVE_TASKS } from '../model/report.ts';
import type { ApiProtocolScore, ApiScore, ApiSetScore, TaskResult, VerdictSummary } from '../model/results.ts';
import type { StoredCondition } from './runner.ts';
import { causeOf, ISOLATION_NOTE, repliesOf, REPLIES_NOTE, replyTally, UNSCORED_NOTE, unscoredCounts } from './eval/scoring.ts';
import {
  bootstrapMean,
  cellIndex,
  DEFAULT_BOOTSTRAP,
  factorialEffects,
  SIGN_FLIP_EXACT_UP_TO,
  type FactorialTest,
  type BootstrapOptions,
} from '../stats/stats.ts';

import { compare, defaultComparisons, holmByFamily, passAtK1, type ComparisonSpec } from './comparisons.ts';
import { AnalysisError, byCondition, identicalCandidates, provenanceOf, type LoadedRun } from './loaded-run.ts';

export const ECE_BINS = 10;

export function summariseCondition(l: LoadedRun, cond: StoredCondition, boot: Required<BootstrapOptions>): ConditionSummary {
  // Only scored pairs: an unscored one (l.failures) is counted beside the figures, never inside them.
  const rs = byCondition(l.results, cond.id);
  const unscored = unscoredCounts(l.failures.filter((f) => f.condition === cond.id));
  const samples = rs.length ? Math.min(...rs.map((r) => r.n)) : 0;
  const atK = Array.from({ length: samples }, (_, i) => ({
    k: i + 1,
    value: bootstrapMean(
      rs.map((r) => passAtK1(r, i + 1)),
      boot,
    ),
  }));
  const fails = rs.map((r) => !r.selected.correct);
  const us = rs.map((r) => Math.min(1, Math.max(0, r.generation.uncertainty.aggregate)));
  const costs = rs.map((r) => r.generation.costUsd);
  const identical = rs.filter(identicalCandidates).length;
  const warnings: string[] = [];
  if (rs.length && identical === rs.length)
    warnings.push(
      `every task's candidates are identical (one normalised group of ${samples}): Pass@k equals Pass@1 and generation uncertainty measures nothing`,
    );
  else if (identical > rs.length / 2) warnings.push(`${identical} of ${rs.length} tasks have identical candidates`);
  const constantU = rs.length > 1 && us.every((u) => u === us[0]);
  if (constantU) warnings.push(`generation uncertainty is ${us[0]} on every task: its AUROC, AUPRC and ECE are not informative`);
  const oneClass = rs.length > 0 && (fails.every(Boolean) || fails.every((f) => !f));
  const uDegenerate = constantU
    ? `uncertainty is constant (${us[0]})`
    : oneClass
      ? `every selected output ${fails[0] ? 'fails' : 'passes'}: one class only`
      : rs.length && identical === rs.length
        ? 'every candidate set is identical'
        : null;
  return {
    runId: l.run.id,
    condition: cond.id,
    label: cond.label,
    family: cond.family,
    tasks: rs.length,
    failures: unscored.total,
    unscored,
    replies: replyTally(rs),
    samples,
    passAtK: atK,
    rawPass1: bootstrapMean(
      rs.map((r) => (r.n ? r.c / r.n : 0)),
      boot,
    ),
    selectedCorrect: bootstrapMean(
      rs.map((r) => (r.selected.correct ? 1 : 0)),
      boot,
    ),
    repair: (() => {
      const attempted = rs.filter((r) => r.repairAttempted).length;
      const recovered = rs.filter((r) => r.repairRecovered).length;
      return { attempted, recovered, rate: attempted ? recovered / attempted : null };
    })(),
    uncertainty: {
      mean: rs.length ? mean(us) : Number.NaN,
      auroc: auroc(us, fails),
      auprc: auprc(us, fails),
      ...(() => {
        if (!rs.length) return { ece: Number.NaN, bins: [] };
        const e = ece(us, fails, ECE_BINS);
        return { ece: e.ece, bins: e.bins };
      })(),
      degenerate: uDegenerate,
    },
    warnings,
    api: apiAggregate(rs.map(repositoryScore), 'repository'),
    apiTaskView: apiAggregate(rs.map(taskViewScore), 'task-view'),
    cost: {
      usd: costs.some((c) => c === null) ? null : costs.reduce<number>((s, c) => s + (c ?? 0), 0),
      inputTokens: rs.reduce((s, r) => s + r.generation.inputTokens, 0),
      outputTokens: rs.reduce((s, r) => s + r.generation.outputTokens, 0),
    },
    flaky: flakyCounts(rs),
    inProcess: inProcessCounts(rs),
    leak: leakCounts(rs),
  };
}

/** The leakage audit's suspects over one condition's results (tasks stored before the audit count as not audited). */
export function leakCounts(rs: TaskResult[]): LeakCounts {
  const audited = rs.filter((r) => r.retrieval.leak);
  const policies = new Set(audited.map((r) => r.retrieval.leak!.policy));
  return {
    policy: policies.size === 0 ? null : policies.size === 1 ? [...policies][0]! : 'mixed',
    suspects: audited.reduce((n, r) => n + r.retrieval.leak!.suspects, 0),
    checked: audited.reduce((n, r) => n + r.retrieval.leak!.checked, 0),
    audited: audited.length,
    tasks: rs.length,
    taskIds: audited
      .filter((r) => r.retrieval.leak!.suspects > 0)
      .map((r) => r.taskId)
      .sort(),
  };
}

/**
 * A task's score under the repository protocol when it counts there: a non-empty truth (docs/api-retrieval.md).
 * Results stored before the two protocols kept `api` null for an empty truth, so a stored score counts.
 */
export function repositoryScore(r: TaskResult): ApiScore | null {
  const a = r.retrieval.api;
  if (!a) return null;
  return typeof a.truth === 'number' && a.truth <= 0 ? null : a;
}

/** A task's score under the task-view protocol, empty truth included; null when absent (results stored before it). */
export function taskViewScore(r: TaskResult): ApiProtocolScore | null {
  return r.retrieval.api?.taskView ?? null;
}

type ScoredSet = ApiSetScore & { truth?: number };

const PROTOCOL: Record<ApiAggregate['protocol'], Pick<ApiAggregate, 'protocol' | 'matching' | 'over'>> = {
  repository: { protocol: 'repository', matching: 'strict', over: 'tasks-with-truth' },
  'task-view': { protocol: 'task-view', matching: 'bare', over: 'all-tasks' },
};

/** Means of one protocol's per-task scores (null entries: the task is not scored there); null when none is scored. */
export function apiAggregate(scores: readonly (ScoredSet | null)[], protocol: ApiAggregate['protocol']): ApiAggregate | null {
  const xs = scores.filter((x): x is ScoredSet => x != null);
  if (!xs.length) return null;
  return {
    ...PROTOCOL[protocol],
    tasks: xs.length,
    emptyTruth: xs.filter((a) => a.truth === 0).length,
    precision: mean(xs.map((a) => a.precision)),
    recall: mean(xs.map((a) => a.recall)),
    f1: mean(xs.map((a) => a.f1)),
    exact: mean(xs.map((a) => (a.exact ? 1 : 0))),
    count: {
      over: xs.filter((a) => a.count === 'over').length,
      exact: xs.filter((a) => a.count === 'exact').length,
      under: xs.filter((a) => a.count === 'under').length,
    },
  };
}

/**
 * The status of the selected output's evaluation verdict, or null when the result does not say. Results
 * stored before `selected.status` existed still say it for a raw candidate: the evaluation verdict of the
 * selected candidate is that candidate's own stored verdict. A repair's status was never stored.
 */
export function selectedStatus(r: TaskResult): VerdictStatus | null {
  if (r.selected.status) return r.selected.status;
  if (r.selected.origin !== 'candidate' || r.selected.candidateIndex === null) return null;
  return r.candidates.find((c) => c.index === r.selected.candidateIndex)?.verdict.status ?? null;
}

/**
 * Where the selected output's evaluation verdict was decided. Results stored before it was recorded say nothing,
 * and every verdict then was decided in-process (isolationOf).
 */
export function selectedIsolation(r: TaskResult): VerdictIsolation {
  return isolationOf(r.selected);
}

/** Verdicts of one kind in one condition's results: the raw candidates' of the kind, and the selected outputs'. */
function verdictsApart(rs: TaskResult[], candidate: (v: VerdictSummary) => boolean, selectedIs: (r: TaskResult) => boolean): VerdictsApart {
  const taskIds = new Set<string>();
  let candidates = 0;
  let candidateVerdicts = 0;
  let selected = 0;
  for (const r of rs) {
    const cands = r.candidates.filter((c) => candidate(c.verdict)).length;
    const sel = selectedIs(r);
    candidates += cands;
    candidateVerdicts += r.candidates.length;
    if (sel) selected++;
    if (cands || sel) taskIds.add(r.taskId);
  }
  return { candidates, candidateVerdicts, selected, taskIds: [...taskIds].sort() };
}

/** Flaky verdicts of one condition's results (an unknown selected status counts as not flaky). */
export function flakyCounts(rs: TaskResult[]): FlakyCounts {
  return verdictsApart(
    rs,
    (v) => v.status === 'flaky',
    (r) => selectedStatus(r) === 'flaky',
  );
}

/** In-process verdicts of one condition's results (a verdict stored before isolation was recorded counts as in-process), and the share decided isolated. */
export function inProcessCounts(rs: TaskResult[]): InProcessCounts {
  const counts = verdictsApart(
    rs,
    (v) => isolationOf(v) === 'in-process',
    (r) => selectedIsolation(r) === 'in-process',
  );
  const { candidates, candidateVerdicts } = counts;
  return { ...counts, isolatedShare: candidateVerdicts ? (candidateVerdicts - candidates) / candidateVerdicts : null, reasons: inProcessReasons(rs) };
}

/** Per task, each distinct reason its in-process verdicts give for not being isolated, with how many give it. */
function inProcessReasons(rs: TaskResult[]): InProcessReason[] {
  const counts = new Map<string, Map<string, number>>();
  const add = (taskId: string, v: { isolationReason?: string }) => {
    const byReason = counts.get(taskId) ?? new Map<string, number>();
    const reason = isolationReasonOf(v);
    byReason.set(reason, (byReason.get(reason) ?? 0) + 1);
    counts.set(taskId, byReason);
  };
  for (const r of rs) {
    for (const c of r.candidates) if (isolationOf(c.verdict) === 'in-process') add(r.taskId, c.verdict);
    if (selectedIsolation(r) === 'in-process') add(r.taskId, r.selected);
  }
  const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  return [...counts]
    .sort(([a], [b]) => byText(a, b))
    .flatMap(([taskId, byReason]) => [...byReason].sort(([a], [b]) => byText(a, b)).map(([reason, verdicts]) => ({ taskId, reason, verdicts })));
}

const CELL_OUTCOMES: { outcome: 'pass@1' | 'uncertainty'; label: string; of: (r: TaskResult) => number }[] = [
  { outcome: 'pass@1', label: 'Pass@1 (unbiased, raw samples)', of: (r) => (r.n ? r.c / r.n : 0) },
  { outcome: 'uncertainty', label: 'Generation uncertainty (aggregate)', of: (r) => r.generation.uncertainty.aggregate },
];

/** Factorial effects of a run holding all eight cells, over the tasks with a result in every cell. */

/**
 * A per-task contrast this close to 0 is 0: the contrasts of equal cell values are sums of floating-point terms, so
 * "no difference" comes out as 1e-17 and would otherwise count as evidence (and a t-test over such noise as significant).
 */
const CONTRAST_NOISE = 1e-12;

/** Why an effect's p-value is not evidence, or null. */
function effectDegeneracy(contrasts: number[], informative: number, test: FactorialTest): string | null {
  if (informative < MIN_INFORMATIVE_TASKS)
    return `rests on ${informative} informative task${informative === 1 ? '' : 's'} (fewer than ${MIN_INFORMATIVE_TASKS})`;
  if (test === 't-test' && contrasts.every((c) => Math.abs(c - contrasts[0]!) <= CONTRAST_NOISE))
    return 'every task has the same contrast: no spread, so the t-test p is not evidence';
  return null;
}

/** Why a whole outcome is degenerate, or null. */
function outcomeDegeneracy(outcome: 'pass@1' | 'uncertainty', rows: TaskResult[][], values: number[][]): string | null {
  const flat = values.flat();
  if (flat.length && flat.every((v) => v === flat[0])) return `the outcome is ${flat[0]} in every cell of every task`;
  if (outcome === 'uncertainty' && rows.length && rows.every((row) => row.every(identicalCandidates))) {
    return 'every candidate set is identical (one normalised group): generation uncertainty is then a constant of each cell, not a measurement';
  }
  return null;
}

export function factorialOf(l: LoadedRun, boot: Required<BootstrapOptions>, test: FactorialTest = 't-test'): FactorialAnalysis | null {
  const cells = l.run.conditions.map((c) => ({ c, sources: cellSources(c.id) })).filter((x) => x.sources);
  if (new Set(cells.map((x) => cellIndex(x.sources!))).size !== 8) return null;
  const byTask = new Map<string, (TaskResult | undefined)[]>();
  for (const r of l.results) {
    const s = cellSources(r.condition);
    if (!s) continue;
    let row = byTask.get(r.taskId);
    if (!row) byTask.set(r.taskId, (row = Array(8).fill(undefined)));
    row[cellIndex(s)] = r;
  }
  const complete = [...byTask.values()].filter((row) => row.every(Boolean)) as TaskResult[][];
  const backend = l.results[0]?.generation.backend ?? '';
  const cellIds = new Set(cells.map((x) => x.c.id));
  const touched = new Set([...byTask.keys(), ...l.failures.filter((f) => cellIds.has(f.condition)).map((f) => f.taskId)]);
  return {
    runId: l.run.id,
    backend,
    tasks: complete.length,
    dropped: touched.size - complete.length,
    test,
    outcomes: CELL_OUTCOMES.map((o) => {
      const perTask = complete.map((row) => row.map(o.of));
      const effects = complete.length >= 2 ? factorialEffects(perTask, boot, test) : [];
      const whole = outcomeDegeneracy(o.outcome, complete, perTask);
      return {
        outcome: o.outcome,
        label: o.label,
        degenerate: whole,
        effects: effects.map((e) => {
          const informativeTasks = e.contrasts.filter((c) => Math.abs(c) > CONTRAST_NOISE).length;
          const degenerate = whole ?? effectDegeneracy(e.contrasts, informativeTasks, test);
          return {
            name: e.name,
            kind: e.kind,
            factors: e.factors,
            value: e.value,
            p: e.p,
            pHolm: e.pHolm,
            informativeTasks,
            degenerate,
            significant: !degenerate && e.pHolm < 0.05,
          };
        }),
        cells: cells
          .map(({ c, sources }) => ({
            cell: c.id,
            sources: sources!,
            mean: complete.length ? mean(complete.map((row) => o.of(row[cellIndex(sources!)]!))) : Number.NaN,
          }))
          .sort((a, b) => cellIndex(b.sources) - cellIndex(a.sources)),
      };
    }),
  };
}

function taskRows(l: LoadedRun): TaskRow[] {
  const rows: TaskRow[] = l.results.map((r) => ({
    runId: l.run.id,
    condition: r.condition,
    taskId: r.taskId,
    n: r.n,
    c: r.c,
    pass1: r.n ? r.c / r.n : 0,
    selectedCorrect: r.selected.correct,
    selectedOrigin: r.selected.origin,
    selectedIndex: r.selected.candidateIndex,
    selectedIsolation: selectedIsolation(r),
    repairRounds: r.repairs.length,
    repairRecovered: r.repairRecovered,
    uncertainty: r.generation.uncertainty.aggregate,
    apiF1: repositoryScore(r)?.f1 ?? null,
    apiF1TaskView: taskViewScore(r)?.f1 ?? null,
    costUsd: r.generation.costUsd,
    durationMs: r.timingsMs.total,
    error: null,
    unscored: null,
    ...replyColumns(r),
  }));
  for (const f of l.failures) {
    rows.push({
      runId: l.run.id,
      condition: f.condition,
      taskId: f.taskId,
      n: 0,
      c: 0,
      pass1: Number.NaN,
      selectedCorrect: false,
      selectedOrigin: 'candidate',
      selectedIndex: null,
      selectedIsolation: null,
      repairRounds: 0,
      repairRecovered: false,
      uncertainty: Number.NaN,
      apiF1: null,
      apiF1TaskView: null,
      costUsd: f.result?.generation.costUsd ?? null,
      durationMs: f.result?.timingsMs.total ?? 0,
      error: `${f.stage}: ${f.error}`,
      unscored: causeOf(f),
      emptyReplies: null,
      noCodeReplies: null,
      refusedReplies: null,
    });
  }
  return rows;
}

function replyColumns(r: TaskResult): Pick<TaskRow, 'emptyReplies' | 'noCodeReplies' | 'refusedReplies'> {
  const c = repliesOf(r);
  return { emptyReplies: c?.empty ?? null, noCodeReplies: c?.noCode ?? null, refusedReplies: c?.refused ?? null };
}

function candidateRows(l: LoadedRun): CandidateRow[] {
  return l.results.flatMap((r) =>
    r.candidates.map((c) => ({
      runId: l.run.id,
      condition: r.condition,
      taskId: r.taskId,
      index: c.index,
      group: c.group,
      status: c.verdict.status,
      isolation: isolationOf(c.verdict),
      passed: c.passed,
      passedTests: c.verdict.passedTests,
      totalTests: c.verdict.totalTests,
      durationMs: c.verdict.durationMs,
      reason: c.verdict.reason,
      reply: c.reply ?? 'unknown',
    })),
  );
}

export interface ModelOptions {
  title?: string;
  bootstrap?: BootstrapOptions;
  /** Pairs to compare; default: defaultComparisons of the runs. */
  comparisons?: ComparisonSpec[];
  /** The test behind factorial p-values (default t-test); recorded in the analysis. */
  factorialTest?: FactorialTest;
  tool: { name: string; version: string };
}

export function buildReportModel(loaded: LoadedRun[], opts: ModelOptions): ReportModel {
  if (!loaded.length) throw new AnalysisError('no runs to report');
  const boot = { ...DEFAULT_BOOTSTRAP, ...opts.bootstrap };
  const runs = new Map(loaded.map((l) => [l.run.id, l]));
  const conditions = loaded.flatMap((l) => l.run.conditions.map((c) => summariseCondition(l, c, boot)));
  // A run listed twice must not put its own comparisons into the family twice.
  const specKey = (c: ComparisonSpec) => `${c.a.runId}\u0000${c.a.condition}\u0000${c.b.runId}\u0000${c.b.condition}`;
  const specs = [...new Map((opts.comparisons ?? defaultComparisons(loaded)).map((c) => [specKey(c), c])).values()];
  const raw = specs.map((s) => compare(runs, s, boot));
  const comparisons = holmByFamily(raw);
  const factorialTest = opts.factorialTest ?? 't-test';
  const factorial = loaded.map((l) => factorialOf(l, boot, factorialTest)).filter((f): f is FactorialAnalysis => f !== null);
  const notes = [
    `Intervals: ${Math.round(boot.level * 100)} % percentile bootstrap over tasks (${boot.resamples} resamples, seed ${boot.seed}); comparisons resample tasks once for both arms (paired).`,
    'Pass@k: the unbiased estimator 1 − C(n−c, k)/C(n, k) per task, averaged over tasks; every raw candidate is run against the tests whatever the method selects.',
    'Selected-output correctness: whether the output the method returns passes the tests (Baseline RAG returns its normalised-mode candidate unvalidated, as the reference implementation of the paper does; runs frozen before that returned candidate 1). When every repair fails, the last repair is the output (Eq. 10). A backend that cannot repair (imported samples) attempts and counts no repair.',
    `Calibration: the generation-uncertainty aggregate read as P(selected output fails); ECE over ${ECE_BINS} equal-width bins on [0, 1].`,
    'McNemar: exact two-sided binomial test on wins vs losses of selected-output correctness; Holm-adjusted within each family: the comparisons of one backend (or one pair of backends) among the runs reported. `compare A B` and `report A B` use the same comparisons and families.',
    `Paired permutation tests: Pass@k and selected-output differences by a sign-flip test on the per-task differences (exact over all sign patterns up to ${SIGN_FLIP_EXACT_UP_TO} differing tasks, seeded Monte Carlo with 20 000 draws beyond); for binary outcomes it equals the exact McNemar test.`,
    'Flaky verdicts: an outcome that depended on timing is run twice; when the two runs disagree the verdict is flaky and counts as not passed in every figure. Per condition the report counts flaky raw-candidate verdicts (of all raw-candidate verdicts) and tasks whose selected output was flaky (of the tasks with a result), and lists the tasks with either.',
    ISOLATION_NOTE,
    UNSCORED_NOTE,
    REPLIES_NOTE,
    `Factorial effects: per-task 2³ contrasts (main effect = mean with the source on − mean with it off; two-way interaction = half the difference of simple effects), ${factorialTest === 'sign-flip' ? 'sign-flip permutation' : 'one-sample t'} p-values, Holm-adjusted over the six effects of each run and outcome. An effect resting on fewer than ${MIN_INFORMATIVE_TASKS} informative tasks, without spread, or on a constant signal (e.g. identical candidates) is flagged degenerate and never marked significant.`,
  ];
  const partial = loaded.filter((l) => l.run.state !== 'done');
  if (partial.length) notes.push(`Partial: ${partial.map((l) => `${l.run.id} is ${l.run.state}`).join('; ')} — figures cover the tasks stored so far.`);
  return {
    title:
      opts.title ??
      (loaded.length === 1 ? `OpenCoder experiment ${loaded[0]!.run.id}` : `OpenCoder comparison of ${loaded.map((l) => l.run.id).join(' and ')}`),
    generatedAt: new Date().toISOString(),
    tool: opts.tool,
    runs: loaded.map(provenanceOf),
    conditions,
    comparisons,
    factorial,
    tasks: loaded.flatMap(taskRows),
    candidates: loaded.flatMap(candidateRows),
    statistics: { seed: boot.seed, resamples: boot.resamples, level: boot.level, eceBins: ECE_BINS, notes },
  };
}
