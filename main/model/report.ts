// The data a report shows: built from stored runs by analysis.ts, rendered by report.ts as HTML, Markdown,
// JSON and CSV. Every figure in a rendered report comes from this model, and the model comes only from the
// store, so a report is regenerated without re-running anything.

import type { Source } from './config.ts';
import type { CalibrationBin } from './estimates.ts';
import type { Interval } from './estimates.ts';
import type { VerdictIsolation } from './verdict.ts';

export type { Interval };

export interface RunProvenance {
  id: string;
  /** What started it: one method set (`run`), the 2³ factorial (`ablate`), the component ladder (`ladder`). */
  kind: 'run' | 'ablate' | 'ladder';
  createdAt: string;
  finishedAt: string | null;
  status: 'running' | 'done' | 'cancelled' | 'interrupted';
  manifest: { file: string; hash: string; tasks: number; mined?: MinedSetProvenance };
  conditions: { id: string; label: string; family: 'method' | 'ladder' | 'factorial' }[];
  backend: { id: string; provider: string; model: string; label: string };
  encoder: { id: string; name: string };
  prompts: { version: string; hash: string };
  /** sha256 of each condition's full PipelineConfig, in conditions order. */
  configHashes: string[];
  sandbox: string;
  machine: { platform: string; arch: string; cpus: number; memoryGiB: number; node: string };
  app: { name: string; version: string; commit: string | null };
}

/**
 * Where a mined task set came from and how strong its tests are (`opencoder mine`), over the run's tasks that were
 * mined: frozen with the run, so a report says it without reading the manifest again.
 */
export interface MinedSetProvenance {
  /** The repositories (their folder names) the tasks were mined from. */
  projects: string[];
  /** The run's tasks that were mined (of `manifest.tasks`). */
  tasks: number;
  /** Mutation score of those tasks' tests (killed / made mutants of the reference): median and lowest. */
  mutationScore: { median: number | null; min: number | null };
  /** Tasks whose reference check chose isolated validation (the rest are judged in-process). */
  isolated: number;
}

export interface PassAtK {
  k: number;
  /** Mean over tasks of the unbiased estimator 1 − C(n−c, k) / C(n, k), with a bootstrap interval over tasks. */
  value: Interval;
}

export interface ConditionSummary {
  runId: string;
  condition: string;
  label: string;
  family: 'method' | 'ladder' | 'factorial';
  /** Scored tasks: the n every figure below is over (Pass@k, selected-output correctness, calibration, cost). */
  tasks: number;
  /** Unscored pairs (the same as `unscored.total`, kept for readers of earlier reports). */
  failures: number;
  /** Pairs left out of every figure because the infrastructure failed them, counted beside them by cause. */
  unscored: UnscoredCounts;
  /** The scored tasks' raw candidates by what their reply held (replies without code are failed samples). */
  replies: ReplyTally;
  /** Raw samples per task (the n of Pass@k; the smallest over tasks when they differ). */
  samples: number;
  passAtK: PassAtK[];
  /** Mean c/n: Pass@1 of a raw sample. */
  rawPass1: Interval;
  /** Selected-output correctness: the effective Pass@1 of what the method returns. */
  selectedCorrect: Interval;
  repair: { attempted: number; recovered: number; rate: number | null };
  uncertainty: {
    /** Mean generation-uncertainty aggregate. */
    mean: number;
    /** The aggregate read as P(selected output fails). */
    auroc: number;
    auprc: number;
    ece: number;
    bins: CalibrationBin[];
    /** Why the calibration figures say nothing (a constant aggregate, identical candidates, one class only); null when fine. */
    degenerate: string | null;
  };
  /** Plain-language warnings about degenerate signals of this condition (identical candidates, constant uncertainty). */
  warnings: string[];
  /**
   * API-knowledge retrieval quality under the repository protocol (discovery in the whole repository, strict
   * `module:qualname` keys), mean over the tasks whose truth is non-empty (null: none had one, or API evidence was off).
   */
  api: ApiAggregate | null;
  /**
   * The same under the task-view protocol (the paper's RQ4: the task's own view is the API pool, bare names
   * matched case-insensitively), mean over every task with a task-view score, empty truths included (null: no
   * task has one, e.g. results stored before the two protocols).
   */
  apiTaskView: ApiAggregate | null;
  cost: { usd: number | null; inputTokens: number; outputTokens: number };
  /** Verdicts whose outcome depended on timing (status `flaky`), counted apart: every figure above treats them as not passed. */
  flaky: FlakyCounts;
  /**
   * Verdicts decided in-process (model/verdict.ts VerdictIsolation), counted apart as flaky ones are: every figure
   * above counts them as they came out, and these counts say how many of its verdicts rest on best-effort hardening.
   */
  inProcess: InProcessCounts;
  /**
   * The leakage audit over the condition's results: evidence items it found suspect, the tasks with any, and the
   * tasks it ran on (results stored before the audit, or with the policy off, were not audited).
   */
  leak: LeakCounts;
}

/** Leak suspects of one condition (retrieve/leak-audit.ts), over its audited tasks. */
export interface LeakCounts {
  /** The policy the audited tasks ran under (`mixed` when they differ; null when none was audited). */
  policy: 'drop' | 'flag' | 'mixed' | null;
  suspects: number;
  /** Items checked, summed over the audited tasks. */
  checked: number;
  audited: number;
  tasks: number;
  /** Tasks with a suspect, sorted. */
  taskIds: string[];
}

/** Unscored (task, condition) pairs by cause (`network`, `sandbox`, `harness`, `workspace`, …; model/results.ts TaskFailure). */
export interface UnscoredCounts {
  total: number;
  byCause: Record<string, number>;
}

/**
 * Raw candidates by what the reply held (model/results.ts ReplyKind); `unknown`: candidates of results stored
 * before the reply was recorded (not assumed to hold code).
 */
export interface ReplyTally {
  candidates: number;
  code: number;
  empty: number;
  noCode: number;
  refused: number;
  unknown: number;
}

/** One condition's API-retrieval quality under one protocol (docs/api-retrieval.md). */
export interface ApiAggregate {
  /** repository: discovery in the whole repository; task-view: the task's own view is the API pool. */
  protocol: 'repository' | 'task-view';
  /** strict: `module:qualname` keys; bare: bare names, case-insensitive. */
  matching: 'strict' | 'bare';
  /** The tasks the means are over: those with a non-empty truth (repository) or all scored tasks (task-view). */
  over: 'tasks-with-truth' | 'all-tasks';
  /** Tasks the means are over. */
  tasks: number;
  /** Of those, tasks whose truth is empty (0 under the repository protocol; an empty prediction scores 1 there). */
  emptyTruth: number;
  /** Means over the tasks of per-task precision, recall, F1, and the share whose predicted set equals the truth. */
  precision: number;
  recall: number;
  f1: number;
  exact: number;
  /** Count reliability: tasks whose predicted set is larger than, as large as, or smaller than the truth. */
  count: { over: number; exact: number; under: number };
}

/** Verdicts of one kind (flaky, in-process) counted apart per condition: how many of its figures rest on such verdicts. */
export interface VerdictsApart {
  /** Raw-candidate verdicts of the kind, out of `candidateVerdicts` (all raw-candidate verdicts of the condition). */
  candidates: number;
  candidateVerdicts: number;
  /** Tasks whose selected output's verdict was of the kind, out of the condition's tasks with a result. */
  selected: number;
  /** Tasks with any such candidate or selected verdict, sorted. */
  taskIds: string[];
}

/**
 * `flaky` verdicts: the outcome depended on timing, so the candidate ran twice and the two runs disagreed. Never a
 * pass. A selected output whose status was not stored counts as not flaky.
 */
export type FlakyCounts = VerdictsApart;

/**
 * Verdicts decided `in-process`: the candidate ran inside the test process under best-effort hardening, where an
 * `isolated` verdict ran the tests in a process the candidate never ran in (model/verdict.ts VerdictIsolation). A
 * verdict stored before isolation was recorded counts as in-process: every such verdict was.
 */
export interface InProcessCounts extends VerdictsApart {
  /** Raw-candidate verdicts decided isolated, as a share of `candidateVerdicts`; null when there are none. */
  isolatedShare: number | null;
  /**
   * Why each task of `taskIds` was not isolated: a row per task and distinct reason its in-process verdicts (raw
   * candidates' and the selected output's) give, sorted by task then reason. A verdict stored before the reason was
   * kept gives ISOLATION_REASON_NOT_RECORDED (model/verdict.ts).
   */
  reasons: InProcessReason[];
}

/** One task's reason for being validated in-process (model/verdict.ts isolationReason), and how many verdicts give it. */
export interface InProcessReason {
  taskId: string;
  reason: string;
  /** The task's in-process verdicts giving this reason: raw candidates' plus the selected output's. */
  verdicts: number;
}

export interface PermutationTest {
  p: number;
  /** Tasks whose difference is not 0. */
  informative: number;
  method: 'exact' | 'monte-carlo';
}

export interface PairedComparison {
  a: { runId: string; condition: string; label: string };
  b: { runId: string; condition: string; label: string };
  /** Tasks both have a scored result for (the pairing). */
  tasks: number;
  /**
   * Tasks left out of the pairing: those either arm has a pair for (scored or unscored) that are not scored in
   * both (`tasks`), and of them, those unscored in at least one arm (`unscored`; the rest are missing in one).
   */
  dropped: { tasks: number; unscored: number };
  /** Selected-output correctness, paired: a right and b wrong (wins), the reverse (losses), equal (ties). */
  wins: number;
  losses: number;
  ties: number;
  /** Exact two-sided McNemar p on wins vs losses. */
  mcnemarP: number;
  /** Holm-adjusted within its family (holmFamily). */
  mcnemarPHolm: number;
  /** The Holm family: the comparisons of one backend (or pair of backends) on one outcome, and how many there are. */
  holmFamily: { key: string; outcome: string; size: number };
  /** Sign-flip permutation test of the selected-output difference (equals McNemar for binary outcomes). */
  selectedPermutation: PermutationTest;
  /** Difference a − b in selected-output correctness and in Pass@k, paired bootstrap intervals. */
  selectedDiff: Interval;
  /** Per k: the paired bootstrap interval and the sign-flip permutation test of the per-task Pass@k differences. */
  passAtKDiff: { k: number; diff: Interval; test: PermutationTest }[];
}

/** Factorial effects resting on fewer informative tasks than this are flagged degenerate, never significant. */
export const MIN_INFORMATIVE_TASKS = 3;

export interface FactorialEffect {
  /** `API`, `Context`, `Similar code`, `API × Context`, … */
  name: string;
  kind: 'main' | 'interaction';
  factors: Source[];
  /** Effect as the mean over tasks of the per-task 2³ contrast (see stats.ts), with a paired bootstrap interval. */
  value: Interval;
  /** Two-sided p of the per-task contrasts (the analysis's `test`), and Holm-adjusted within (backend, outcome). */
  p: number;
  pHolm: number;
  /** Tasks whose contrast is not 0: the ones that carry evidence either way. */
  informativeTasks: number;
  /** Why the p-value cannot be read as evidence (too few informative tasks, no spread, a constant signal); null when fine. */
  degenerate: string | null;
  /** pHolm < 0.05 and not degenerate. */
  significant: boolean;
}

export interface FactorialOutcome {
  outcome: 'pass@1' | 'uncertainty';
  label: string;
  effects: FactorialEffect[];
  /** Mean outcome per cell over the paired tasks. */
  cells: { cell: string; sources: Record<Source, boolean>; mean: number }[];
  /** Why the whole outcome is degenerate (e.g. every cell's candidates identical, so uncertainty is a constant of the cell); null when fine. */
  degenerate: string | null;
}

export interface FactorialAnalysis {
  runId: string;
  backend: string;
  /** Tasks with a scored result in all eight cells (only those are paired). */
  tasks: number;
  /** Tasks with a pair in some cell that are left out: missing or unscored in at least one cell. */
  dropped: number;
  /** The test behind every p-value: one-sample t on the per-task contrasts, or the sign-flip permutation test. */
  test: 't-test' | 'sign-flip';
  outcomes: FactorialOutcome[];
}

export interface TaskRow {
  runId: string;
  condition: string;
  taskId: string;
  n: number;
  c: number;
  /** Unbiased Pass@1 of the raw samples (c / n). */
  pass1: number;
  selectedCorrect: boolean;
  selectedOrigin: 'candidate' | 'repair';
  selectedIndex: number | null;
  /** Where the selected output's verdict was decided (`in-process` for results stored before it was recorded); null when unscored. */
  selectedIsolation: VerdictIsolation | null;
  repairRounds: number;
  repairRecovered: boolean;
  uncertainty: number;
  /** API F1 under the repository protocol (strict keys); null when the truth is empty or nothing was scored. */
  apiF1: number | null;
  /** API F1 under the task-view protocol (bare names; 1 for an empty prediction of an empty truth); null when not scored. */
  apiF1TaskView: number | null;
  costUsd: number | null;
  durationMs: number;
  /** Set when the pair is unscored: what failed (then the outcome columns are empty). */
  error: string | null;
  /** Why the pair is unscored (model/results.ts TaskFailure cause), or null when it is scored. */
  unscored: string | null;
  /** Raw candidates whose reply was empty, prose without code, or a refusal; null when not recorded (older results, unscored pairs). */
  emptyReplies: number | null;
  noCodeReplies: number | null;
  refusedReplies: number | null;
}

export interface CandidateRow {
  runId: string;
  condition: string;
  taskId: string;
  index: number;
  group: number;
  status: string;
  /** Where the verdict was decided (model/verdict.ts); `in-process` for results stored before it was recorded. */
  isolation: VerdictIsolation;
  passed: boolean;
  passedTests: number;
  totalTests: number;
  durationMs: number;
  reason: string;
  /** What the reply held (model/results.ts ReplyKind), or `unknown` for results stored before it was recorded. */
  reply: string;
}

export interface ReportModel {
  title: string;
  generatedAt: string;
  tool: { name: string; version: string };
  runs: RunProvenance[];
  conditions: ConditionSummary[];
  comparisons: PairedComparison[];
  factorial: FactorialAnalysis[];
  tasks: TaskRow[];
  candidates: CandidateRow[];
  statistics: {
    seed: number;
    resamples: number;
    /** Interval level, e.g. 0.95. */
    level: number;
    eceBins: number;
    notes: string[];
  };
}
