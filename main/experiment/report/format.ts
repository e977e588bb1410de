// Number formatting and the shared views of a report model (labels, k values, display names), for every format.

import { backendDisplayLabel, mixedBackendLabels } from '../../model/backend-label.ts';
import * as fmt from '../../model/format.ts';
import { ISOLATION_PROMISE, THIN_TESTS } from '../eval/scoring.ts';
import type {
  ApiAggregate,
  ConditionSummary,
  FactorialAnalysis,
  Interval,
  PairedComparison,
  ReplyTally,
  ReportModel,
  RunProvenance,
  TaskRow,
  UnscoredCounts,
  VerdictsApart,
} from '../../model/report.ts';

// ---------------------------------------------------------------------------------------------------------
// Number formatting: the shared rules of model/format.ts under the names the HTML and Markdown writers use.

export { finite, fixed } from '../../model/format.ts';

/** A rate or score with 3 decimals (model/format.ts rate); NaN/null as `n/a`. */
export const formatRate = (x: number | null | undefined): string => fmt.rate(x);
/** `0.412 [0.350, 0.470]`. */
export const formatInterval = (iv: Interval): string => fmt.interval(iv, fmt.RATE_DIGITS, fmt.MISSING, 'always');
export const formatP = (p: number | null | undefined): string => fmt.pValue(p);

export { mcnemarFlag, permutationFlag, uncertaintyFlag } from '../../model/degenerate.ts';

/** A figure with the reason it says nothing, as the text formats write it: `1.000 (degenerate: one class only)`. */
export const flaggedText = (value: string, flag: string | null): string => (flag ? `${value} (degenerate: ${flag})` : value);
export const formatUsd = (x: number | null | undefined): string => fmt.usd(x);
export const formatInt = (n: number | null | undefined): string => fmt.int(n);
export const formatMs = (ms: number): string => fmt.duration(ms);

/** The wall time between two ISO instants. */
export function formatDuration(fromIso: string, toIso: string | null): string {
  return toIso ? fmt.duration(Date.parse(toIso) - Date.parse(fromIso)) : fmt.MISSING;
}

export function percentLevel(model: ReportModel): string {
  return fmt.finite(model.statistics.level) ? `${+(model.statistics.level * 100).toFixed(1)} %` : fmt.MISSING;
}

export const KIND_LABEL: Record<RunProvenance['kind'], string> = { run: 'method run', ablate: '2³ factorial ablation', ladder: 'component ladder' };

export const OUTCOME_AXIS: Record<string, string> = {
  'pass@1': 'Effect on Pass@1 (difference in proportion of tasks solved)',
  uncertainty: 'Effect on mean uncertainty (difference on the 0–1 scale)',
};

// ---------------------------------------------------------------------------------------------------------
// Shared views of the model

export function passKs(conditions: readonly ConditionSummary[]): number[] {
  return [...new Set(conditions.flatMap((c) => c.passAtK.map((p) => p.k)))].sort((a, b) => a - b);
}

export function comparisonKs(comparisons: readonly PairedComparison[]): number[] {
  return [...new Set(comparisons.flatMap((c) => c.passAtKDiff.map((p) => p.k)))].sort((a, b) => a - b);
}

/** Conditions grouped by run, in the order of model.runs (then any run the provenance list lacks). */
export function conditionsByRun(model: ReportModel): { runId: string; run: RunProvenance | undefined; conditions: ConditionSummary[] }[] {
  const ids = [...model.runs.map((r) => r.id), ...model.conditions.map((c) => c.runId)];
  return [...new Set(ids)]
    .map((runId) => ({ runId, run: model.runs.find((r) => r.id === runId), conditions: model.conditions.filter((c) => c.runId === runId) }))
    .filter((g) => g.conditions.length || g.run);
}

/** A run's backend as a reader sees it: the offline generator as "no model (retrieval-only baseline)", else its label. */
export const backendName = (run: RunProvenance): string => backendDisplayLabel(run.backend);

/** The backend of each run by id when the report's runs came from more than one backend, else null. */
export const mixedBackends = (model: ReportModel): Map<string, string> | null => mixedBackendLabels(model.runs);

/**
 * Display name of a condition: its label; with its run's backend when the runs shown together came from more than
 * one backend (so retrieval-only results never stand unlabelled beside a model's); and with the run id appended
 * when another run shows the same name. `backend: false` leaves the backend out, for a chart that shows it beside
 * the name (a section per run, a line per panel).
 */
export function displayNames(model: ReportModel, opts: { backend?: boolean } = {}): (runId: string, condition: string, label: string) => string {
  const backends = opts.backend === false ? null : mixedBackends(model);
  const named = (runId: string, label: string) => (backends ? `${label} — ${backends.get(runId) ?? 'unknown backend'}` : label);
  const runsByName = new Map<string, Set<string>>();
  for (const c of model.conditions) {
    const name = named(c.runId, c.label);
    const s = runsByName.get(name) ?? new Set<string>();
    s.add(c.runId);
    runsByName.set(name, s);
  }
  return (runId, _condition, label) => {
    const name = named(runId, label);
    return (runsByName.get(name)?.size ?? 0) > 1 ? `${name} · ${runId}` : name;
  };
}

export const isPartial = (run: RunProvenance | undefined): boolean => !!run && run.status !== 'done';

/** What each API-retrieval protocol is, how it matches, and which tasks its means are over (docs/api-retrieval.md). */
export const API_PROTOCOL: Record<ApiAggregate['protocol'], { name: string; matching: string; over: string; meaning: string }> = {
  repository: {
    name: 'repository',
    matching: 'strict keys',
    over: 'tasks with truth',
    meaning: 'discovery in the whole repository; strict module:qualname keys; mean over the tasks whose truth is non-empty',
  },
  'task-view': {
    name: 'task-view',
    matching: 'bare names',
    over: 'tasks',
    meaning:
      'the task’s own view is the API pool (RQ4); bare names, case-insensitive; mean over all tasks, empty truths included (an empty prediction of an empty truth scores 1)',
  },
};

/** `repository · strict keys · 42 tasks with truth`: the protocol, its matching and the tasks a figure is over. */
export function apiProtocolLabel(protocol: ApiAggregate['protocol'], tasks?: number): string {
  const p = API_PROTOCOL[protocol];
  return `${p.name} · ${p.matching}${tasks === undefined ? '' : ` · ${formatInt(tasks)} ${p.over}`}`;
}

export const API_COLUMNS_NOTE = `API P / R / F1: ${API_PROTOCOL.repository.name} protocol — ${API_PROTOCOL.repository.meaning}. Task-view F1 / exact: ${API_PROTOCOL['task-view'].name} protocol — ${API_PROTOCOL['task-view'].meaning}.`;

export const FLAKY_MEANING =
  'A flaky verdict: the outcome depended on timing, so the candidate ran twice and the two runs disagreed. It never counts as a pass.';

export const IN_PROCESS_MEANING = `An in-process verdict: ${ISOLATION_PROMISE['in-process']}. An isolated verdict: ${ISOLATION_PROMISE.isolated}. ${THIN_TESTS} A verdict stored before isolation was recorded counts as in-process.`;

/** A condition's counts of one kind of verdict and what each is over, ending where the task ids go; `extra` rides along. */
function apartText(c: ConditionSummary, v: VerdictsApart, kind: string, extra?: string): string {
  const cands = `${formatInt(v.candidates)} of ${formatInt(v.candidateVerdicts)} candidate verdicts`;
  const sel = `${formatInt(v.selected)} of ${formatInt(c.tasks)} selected outputs`;
  return v.taskIds.length
    ? `${cands} and ${sel} ${kind}${extra ? ` (${extra})` : ''}, on ${formatInt(v.taskIds.length)} task(s):`
    : `no ${kind} verdicts (${cands}, ${sel}${extra ? `; ${extra}` : ''}).`;
}

/** A condition's flaky counts and what each is over, ending where the task ids go (shared by HTML and Markdown). */
export const flakyCountsText = (c: ConditionSummary): string => apartText(c, c.flaky, 'flaky');

/** `80.0 % of candidate verdicts isolated`: the share of a condition's raw-candidate verdicts decided isolated. */
export const isolatedShareText = (c: ConditionSummary): string => `${fmt.percent(c.inProcess.isolatedShare)} of candidate verdicts isolated`;

/** A condition's in-process counts, what each is over and the share decided isolated, ending where the task ids go. */
export const inProcessCountsText = (c: ConditionSummary): string => apartText(c, c.inProcess, 'in-process', isolatedShareText(c));

export const LEAK_MEANING =
  'A leak suspect: an evidence item the leakage audit found to share a long run of tokens with the reference or with the assertions of the tests that name the target, or to hold a value those assertions expect. Under the drop policy it never reached a prompt; under flag it did, marked.';

/** `leak suspects: 0 among 300 evidence items of 10 of 10 tasks (dropped before the prompt)`, or why none were audited. */
export function leakCountsText(c: ConditionSummary): string {
  const l = c.leak;
  if (!l.audited) return `not audited for leaks (results stored before the leakage audit existed, or the policy was off; ${fmt.plural(l.tasks, 'task')}).`;
  const fate = l.policy === 'drop' ? 'dropped before the prompt' : l.policy === 'flag' ? 'flagged and left in the prompt' : 'policies differ between tasks';
  const over = `among ${formatInt(l.checked)} evidence items of ${formatInt(l.audited)} of ${formatInt(l.tasks)} tasks audited (${fate})`;
  return l.taskIds.length ? `leak suspects: ${formatInt(l.suspects)} ${over}, on ${formatInt(l.taskIds.length)} task(s):` : `leak suspects: 0 ${over}.`;
}

/** The heading of the in-process tasks' reasons, and what a row says. */
export const IN_PROCESS_REASONS_TITLE = 'Why each in-process task was not isolated';
export const IN_PROCESS_REASONS_MEANING =
  "A row per condition, task and reason its in-process verdicts give (the task's reference check's reason, or the validator's setting), with how many of its verdicts (raw candidates' and the selected output's) give it.";

/** The rows of a run's in-process reasons table: condition, task, reason and verdicts, in the conditions' order. */
export function inProcessReasonRows(conditions: ConditionSummary[]): { c: ConditionSummary; taskId: string; reason: string; verdicts: number }[] {
  return conditions.flatMap((c) => c.inProcess.reasons.map((r) => ({ c, ...r })));
}

/** What every format counts apart per condition, in the order it is shown: a title, what it means, the counts and task ids. */
export const VERDICTS_APART: {
  list: string;
  title: string;
  meaning: string;
  ids: (c: ConditionSummary) => string[];
  text: (c: ConditionSummary) => string;
  /** Whether the kind is followed by its tasks' reasons (inProcessReasonRows). */
  reasons?: true;
}[] = [
  { list: 'flaky', title: 'Flaky verdicts', meaning: FLAKY_MEANING, ids: (c) => c.flaky.taskIds, text: flakyCountsText },
  {
    list: 'in-process',
    title: 'In-process verdicts',
    meaning: IN_PROCESS_MEANING,
    ids: (c) => c.inProcess.taskIds,
    text: inProcessCountsText,
    reasons: true,
  },
  { list: 'leak', title: 'Leak suspects', meaning: LEAK_MEANING, ids: (c) => c.leak.taskIds, text: leakCountsText },
];

/** `2 unscored (sandbox 1, network 1)`, or `none unscored`. */
export function unscoredText(u: UnscoredCounts): string {
  return u.total ? `${formatInt(u.total)} unscored (${fmt.counts(u.byCause)})` : 'none unscored';
}

/** `Pass@1 0.400 over 10 scored tasks; 2 unscored (sandbox 1, network 1)`: a condition's headline with its n and what it leaves out. */
export function scoredText(c: ConditionSummary): string {
  const p1 = c.passAtK.find((p) => p.k === 1)?.value.estimate;
  return `Pass@1 ${formatRate(p1)} over ${fmt.plural(c.tasks, 'scored task')}; ${unscoredText(c.unscored)}`;
}

/** `2 of 15 raw candidates had no code: 1 empty, 1 prose without code, 0 refused` (and the unknown ones of older results). */
export function repliesText(r: ReplyTally): string {
  const none = r.empty + r.noCode + r.refused;
  const unknown = r.unknown ? `; ${formatInt(r.unknown)} stored before reply kinds were recorded (unknown)` : '';
  return `${formatInt(none)} of ${formatInt(r.candidates)} raw candidates had no code: ${formatInt(r.empty)} empty, ${formatInt(r.noCode)} prose without code, ${formatInt(r.refused)} refused${unknown}`;
}

/** A task row's raw candidates without code: `1 empty, 2 prose`, `0`, or `unknown` (results stored before reply kinds). */
export function taskRepliesText(t: TaskRow): string {
  if (t.emptyReplies === null || t.noCodeReplies === null || t.refusedReplies === null) return 'unknown';
  const parts = [
    [t.emptyReplies, 'empty'],
    [t.noCodeReplies, 'prose'],
    [t.refusedReplies, 'refused'],
  ].filter(([n]) => n);
  return parts.length ? parts.map(([n, k]) => `${formatInt(n as number)} ${k}`).join(', ') : '0';
}

/** What a paired comparison left out, or '' when every task pairs: `2 tasks dropped (1 unscored in an arm)`. */
export function droppedText(c: PairedComparison): string {
  const d = c.dropped;
  if (!d.tasks) return '';
  return `${fmt.plural(d.tasks, 'task')} dropped (${formatInt(d.unscored)} unscored in an arm, ${formatInt(d.tasks - d.unscored)} missing in one)`;
}

export const UNSCORED_MEANING =
  'Unscored: the infrastructure failed the pair (an API error after its retries, no sandbox, a harness crash, a workspace that could not be built); it is left out of every figure and counted here by cause.';

export const REPLIES_MEANING = 'A reply without code (empty, prose, a refusal) is a failed sample of the model: it counts in n and never passes.';

export function partialText(run: RunProvenance): string {
  return `PARTIAL — run ${run.status}: results cover only the tasks that finished`;
}

export function testName(test: FactorialAnalysis['test']): string {
  return test === 'sign-flip' ? 'p: sign-flip permutation test over per-task contrasts' : 'p: one-sample t-test over per-task contrasts';
}
