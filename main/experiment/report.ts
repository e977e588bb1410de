// Renders a ReportModel (report-model.ts) as one self-contained HTML file (inline CSS and hand-drawn inline
// SVG, no external resource, strict CSP), GitHub Markdown, pretty JSON, or RFC 4180 CSV tables. Rendering is
// pure: every figure shown comes from the model, so the HTML tables can be reproduced from the JSON/CSV.

import fs from 'node:fs';
import path from 'node:path';
import { MIN_INFORMATIVE_TASKS, type ApiAggregate, type ConditionSummary, type FactorialAnalysis, type FactorialOutcome, type Interval, type PairedComparison, type ReportModel, type RunProvenance, type TaskRow } from './report-model.ts';
import { escapeXml, forestPlot, groupedBars, reliabilityDiagram } from './svg-charts.ts';

export type ReportFormat = 'html' | 'md' | 'json' | 'csv';
export const REPORT_FORMATS: readonly ReportFormat[] = ['html', 'md', 'json', 'csv'];

export type CsvTable = 'tasks' | 'candidates' | 'conditions' | 'effects' | 'comparisons' | 'runs';

// ---------------------------------------------------------------------------------------------------------
// Number formatting (shared by HTML and Markdown)

const finite = (x: number | null | undefined): x is number => typeof x === 'number' && Number.isFinite(x);

function fixed(x: number, digits: number): string {
  const s = x.toFixed(digits);
  return /^-0(\.0+)?$/.test(s) ? s.slice(1) : s;
}

/** A rate or score with 3 decimals; NaN/null as `n/a`. */
export function formatRate(x: number | null | undefined): string {
  return finite(x) ? fixed(x, 3) : 'n/a';
}

/** `0.412 [0.350, 0.470]`. */
export function formatInterval(iv: Interval): string {
  return `${formatRate(iv.estimate)} [${formatRate(iv.lo)}, ${formatRate(iv.hi)}]`;
}

/** `p < 0.001` when small, else `p = 0.034`; NaN as `n/a`. */
export function formatP(p: number | null | undefined): string {
  if (!finite(p)) return 'n/a';
  return p < 0.001 ? 'p < 0.001' : `p = ${fixed(p, 3)}`;
}

export function formatUsd(usd: number | null | undefined): string {
  return finite(usd) ? `$${fixed(usd, 4)}` : 'n/a';
}

function formatInt(n: number | null | undefined): string {
  return finite(n) ? Math.round(n).toLocaleString('en-US') : 'n/a';
}

function formatMs(ms: number): string {
  if (!finite(ms)) return 'n/a';
  return ms < 1000 ? `${Math.round(ms)} ms` : `${fixed(ms / 1000, 1)} s`;
}

function formatDuration(fromIso: string, toIso: string | null): string {
  if (!toIso) return 'n/a';
  const ms = Date.parse(toIso) - Date.parse(fromIso);
  if (!finite(ms) || ms < 0) return 'n/a';
  const s = Math.round(ms / 1000);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  return h ? `${h} h ${m} min` : m ? `${m} min ${s % 60} s` : `${s} s`;
}

function percentLevel(model: ReportModel): string {
  const l = model.statistics.level;
  return finite(l) ? `${+(l * 100).toFixed(1)} %` : 'n/a';
}

const KIND_LABEL: Record<RunProvenance['kind'], string> = { run: 'method run', ablate: '2³ factorial ablation', ladder: 'component ladder' };

const OUTCOME_AXIS: Record<string, string> = {
  'pass@1': 'Effect on Pass@1 (difference in proportion of tasks solved)',
  uncertainty: 'Effect on mean uncertainty (difference on the 0–1 scale)',
};

// ---------------------------------------------------------------------------------------------------------
// Shared views of the model

function passKs(conditions: readonly ConditionSummary[]): number[] {
  return [...new Set(conditions.flatMap((c) => c.passAtK.map((p) => p.k)))].sort((a, b) => a - b);
}

function comparisonKs(comparisons: readonly PairedComparison[]): number[] {
  return [...new Set(comparisons.flatMap((c) => c.passAtKDiff.map((p) => p.k)))].sort((a, b) => a - b);
}

/** Conditions grouped by run, in the order of model.runs (then any run the provenance list lacks). */
function conditionsByRun(model: ReportModel): { runId: string; run: RunProvenance | undefined; conditions: ConditionSummary[] }[] {
  const ids = [...model.runs.map((r) => r.id), ...model.conditions.map((c) => c.runId)];
  return [...new Set(ids)]
    .map((runId) => ({ runId, run: model.runs.find((r) => r.id === runId), conditions: model.conditions.filter((c) => c.runId === runId) }))
    .filter((g) => g.conditions.length || g.run);
}

/** Display name of a condition: its label, with the run id appended when another run uses the same label. */
function displayNames(model: ReportModel): (runId: string, condition: string, label: string) => string {
  const runsByLabel = new Map<string, Set<string>>();
  for (const c of model.conditions) {
    const s = runsByLabel.get(c.label) ?? new Set<string>();
    s.add(c.runId);
    runsByLabel.set(c.label, s);
  }
  return (runId, _condition, label) => ((runsByLabel.get(label)?.size ?? 0) > 1 ? `${label} · ${runId}` : label);
}

const isPartial = (run: RunProvenance | undefined): boolean => !!run && run.status !== 'done';

/** What each API-retrieval protocol is, how it matches, and which tasks its means are over (docs/api-retrieval.md). */
const API_PROTOCOL: Record<ApiAggregate['protocol'], { name: string; matching: string; over: string; meaning: string }> = {
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
    meaning: 'the task’s own view is the API pool (RQ4); bare names, case-insensitive; mean over all tasks, empty truths included (an empty prediction of an empty truth scores 1)',
  },
};

/** `repository · strict keys · 42 tasks with truth`: the protocol, its matching and the tasks a figure is over. */
export function apiProtocolLabel(protocol: ApiAggregate['protocol'], tasks?: number): string {
  const p = API_PROTOCOL[protocol];
  return `${p.name} · ${p.matching}${tasks === undefined ? '' : ` · ${formatInt(tasks)} ${p.over}`}`;
}

const API_COLUMNS_NOTE = `API P / R / F1: ${API_PROTOCOL.repository.name} protocol — ${API_PROTOCOL.repository.meaning}. Task-view F1 / exact: ${API_PROTOCOL['task-view'].name} protocol — ${API_PROTOCOL['task-view'].meaning}.`;

const FLAKY_MEANING = 'A flaky verdict: the outcome depended on timing, so the candidate ran twice and the two runs disagreed. It never counts as a pass.';

/** A condition's flaky counts and what each is over, ending where the task ids go (shared by HTML and Markdown). */
function flakyCountsText(c: ConditionSummary): string {
  const f = c.flaky;
  const cands = `${formatInt(f.candidates)} of ${formatInt(f.candidateVerdicts)} candidate verdicts`;
  const sel = `${formatInt(f.selected)} of ${formatInt(c.tasks)} selected outputs`;
  return f.taskIds.length ? `${cands} and ${sel} flaky, on ${formatInt(f.taskIds.length)} task(s):` : `no flaky verdicts (${cands}, ${sel}).`;
}

function partialText(run: RunProvenance): string {
  return `PARTIAL — run ${run.status}: results cover only the tasks that finished`;
}

// ---------------------------------------------------------------------------------------------------------
// HTML

const h = escapeXml;

const CSS = `
:root { color-scheme: light; --ink: #1f2328; --muted: #57606a; --line: #d0d7de; --band: #f6f8fa; --warn-bg: #fff4e5; --warn: #9a4d00; --bad: #b42318; --good: #1a7f37; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; color: var(--ink); background: #fff; }
main { max-width: 1480px; margin: 0 auto; padding: 24px 28px 64px; }
h1 { font-size: 26px; margin: 0 0 4px; overflow-wrap: anywhere; }
h2 { font-size: 20px; margin: 40px 0 12px; padding-bottom: 6px; border-bottom: 1px solid var(--line); }
h3 { font-size: 16px; margin: 24px 0 8px; overflow-wrap: anywhere; }
h4 { font-size: 14px; margin: 18px 0 6px; }
p { margin: 6px 0; }
code, .mono { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 12.5px; }
.muted { color: var(--muted); }
.meta { color: var(--muted); margin: 0 0 12px; }
nav.toc { margin: 12px 0 8px; font-size: 13px; }
nav.toc a { margin-right: 14px; color: #0969da; text-decoration: none; }
.banner { border: 1px solid #f0b46b; background: var(--warn-bg); color: var(--warn); padding: 10px 14px; border-radius: 6px; margin: 12px 0; font-weight: 600; }
.badge { display: inline-block; font-size: 12px; font-weight: 600; padding: 1px 8px; border-radius: 10px; border: 1px solid var(--line); background: var(--band); color: var(--muted); vertical-align: middle; }
.badge.partial { background: var(--warn-bg); border-color: #f0b46b; color: var(--warn); }
.warning { color: var(--warn); }
div.warning, p.warning { background: var(--warn-bg); border: 1px solid #f0b46b; border-radius: 6px; padding: 6px 10px; margin: 8px 0; }
.badge.done { background: #e6f4ea; border-color: #9fd3ad; color: var(--good); }
.run { border: 1px solid var(--line); border-radius: 8px; padding: 4px 16px 12px; margin: 14px 0; }
.run.partial { border-color: #f0b46b; border-left: 6px solid #e69f00; }
.table-wrap { overflow-x: auto; margin: 8px 0 12px; }
table { border-collapse: collapse; font-size: 12.5px; }
th, td { border-bottom: 1px solid var(--line); padding: 5px 7px; text-align: left; vertical-align: top; }
th { background: var(--band); font-weight: 600; white-space: nowrap; vertical-align: bottom; }
th .sub { font-weight: 400; font-size: 11px; color: var(--muted); }
td.name { min-width: 11em; }
table[data-table="summary"] td:first-child, table[data-table="summary"] th:first-child { position: sticky; left: 0; background: inherit; box-shadow: 1px 0 0 var(--line); }
table[data-table="summary"] th:first-child { background: var(--band); }
tbody tr { background: #fff; }
tbody tr:nth-child(even) { background: #fbfcfd; }
tbody tr:hover { background: #f0f6ff; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
td .ci { color: var(--muted); font-size: 12px; }
table.kv th { text-align: left; width: 150px; background: none; border-bottom: 1px solid var(--line); vertical-align: top; white-space: normal; }
table.kv td { overflow-wrap: anywhere; }
.hash { word-break: break-all; }
td.ok { color: var(--good); font-weight: 600; }
td.fail { color: var(--bad); font-weight: 600; }
td.error { color: var(--bad); max-width: 360px; overflow-wrap: anywhere; }
table[data-table="tasks"] td[data-col="runId"], table[data-table="tasks"] td[data-col="condition"], table[data-table="tasks"] td[data-col="selectedOrigin"], table[data-table="tasks"] td[data-col="selectedCorrect"] { white-space: nowrap; }
table[data-table="tasks"] td[data-col="taskId"] { min-width: 12em; overflow-wrap: anywhere; }
.chart-box { margin: 16px 0 24px; }
.chart-box svg { display: block; border: 1px solid var(--line); border-radius: 6px; }
.chart-missing { border: 1px dashed var(--line); border-radius: 6px; padding: 14px 16px; color: var(--muted); background: var(--band); margin: 16px 0 24px; }
.chart-missing strong { color: var(--ink); }
details { margin: 10px 0; }
details > summary { cursor: pointer; font-weight: 600; padding: 6px 0; }
footer { margin-top: 48px; color: var(--muted); font-size: 12px; }
`;

function td(content: string, col: string, cls = ''): string {
  return `<td data-col="${h(col)}"${cls ? ` class="${cls}"` : ''}>${content}</td>`;
}

/** `0.412 [0.350, 0.470]`; stacked puts the interval on a second line (the text content stays the same). */
function intervalHtml(iv: Interval, stacked = false): string {
  return `<span class="est">${formatRate(iv.estimate)}</span>${stacked ? '<br>' : ' '}<span class="ci">[${formatRate(iv.lo)}, ${formatRate(iv.hi)}]</span>`;
}

interface Header {
  label: string;
  /** Second header line, e.g. the interval level. */
  sub?: string;
  num?: boolean;
  title?: string;
}

function table(name: string, headers: Header[], rows: string[]): string {
  const head = headers.map((x) => `<th${x.num ? ' class="num"' : ''}${x.title ? ` title="${h(x.title)}"` : ''}>${h(x.label)}${x.sub ? `<br><span class="sub">${h(x.sub)}</span>` : ''}</th>`).join('');
  return `<div class="table-wrap"><table data-table="${h(name)}"><thead><tr>${head}</tr></thead><tbody>\n${rows.join('\n')}\n</tbody></table></div>`;
}

function missing(chart: string, heading: string, why: string): string {
  return `<div class="chart-missing" data-chart-missing="${h(chart)}" role="note"><strong>${h(heading)}</strong> ${h(why)}</div>`;
}

function runProvenanceHtml(run: RunProvenance): string {
  const partial = isPartial(run);
  const status = partial ? `<span class="badge partial">${h(partialText(run))}</span>` : `<span class="badge done">done</span>`;
  const kv = (k: string, v: string) => `<tr><th scope="row">${h(k)}</th><td>${v}</td></tr>`;
  const m = run.machine;
  const rows = [
    kv('Status', status),
    kv('Kind', h(KIND_LABEL[run.kind] ?? run.kind)),
    kv('Created', h(run.createdAt)),
    kv('Finished', run.finishedAt ? h(run.finishedAt) : '<span class="muted">not finished</span>'),
    kv('Duration', h(formatDuration(run.createdAt, run.finishedAt))),
    kv('Manifest', `<code>${h(run.manifest.file)}</code> · ${formatInt(run.manifest.tasks)} tasks<br><span class="muted">sha256</span> <code class="hash">${h(run.manifest.hash)}</code>`),
    kv('Backend', `${h(run.backend.label)} <span class="muted">(${h(run.backend.provider)} · model <code>${h(run.backend.model)}</code> · id <code>${h(run.backend.id)}</code>)</span>`),
    kv('Encoder', `${h(run.encoder.name)} <span class="muted">(id <code>${h(run.encoder.id)}</code>)</span>`),
    kv('Prompts', `version <code>${h(run.prompts.version)}</code> · <span class="muted">hash</span> <code class="hash">${h(run.prompts.hash)}</code>`),
    kv('Sandbox', h(run.sandbox)),
    kv('Machine', h(`${m.platform} ${m.arch} · ${m.cpus} CPUs · ${finite(m.memoryGiB) ? +m.memoryGiB.toFixed(1) : 'n/a'} GiB · Node ${m.node}`)),
    kv('App', `${h(run.app.name)} ${h(run.app.version)}${run.app.commit ? ` <span class="muted">commit</span> <code class="hash">${h(run.app.commit)}</code>` : ' <span class="muted">(no commit recorded)</span>'}`),
  ];
  const condRows = run.conditions.map(
    (c, i) =>
      `<tr><td><code>${h(c.id)}</code></td><td>${h(c.label)}</td><td>${h(c.family)}</td><td><code class="hash">${h(run.configHashes[i] ?? 'n/a')}</code></td></tr>`,
  );
  return [
    `<article class="run${partial ? ' partial' : ''}" data-run="${h(run.id)}" data-status="${h(run.status)}">`,
    `<h3>Run <code>${h(run.id)}</code> ${status}</h3>`,
    `<div class="table-wrap"><table class="kv" data-table="provenance">${rows.join('')}</table></div>`,
    `<h4>Conditions and configuration hashes</h4>`,
    table('run-conditions', [{ label: 'Condition' }, { label: 'Label' }, { label: 'Family' }, { label: 'Config sha256' }], condRows),
    `</article>`,
  ].join('\n');
}

function summaryTableHtml(conditions: ConditionSummary[], level: string): string {
  const ks = passKs(conditions);
  const ci = `${level} CI`;
  const headers: Header[] = [
    { label: 'Condition' },
    { label: 'Tasks', num: true, title: 'Tasks with a result' },
    { label: 'Failed', num: true, title: 'Tasks that failed to run' },
    { label: 'n', num: true, title: 'Raw samples per task' },
    ...ks.map((k) => ({ label: `Pass@${k}`, sub: ci, num: true, title: 'Unbiased Pass@k, bootstrap interval over tasks' })),
    { label: 'Raw Pass@1', sub: ci, num: true, title: 'Mean c/n over raw samples' },
    { label: 'Selected', sub: ci, num: true, title: 'Selected-output correctness: the output the method returns' },
    { label: 'Repair', sub: 'recovered', num: true, title: 'Recovered / attempted (rate)' },
    { label: 'Mean U', num: true, title: 'Mean generation-uncertainty aggregate' },
    { label: 'AUROC', num: true, title: 'Uncertainty as a predictor of failure' },
    { label: 'AUPRC', num: true },
    { label: 'ECE', num: true },
    { label: 'API P', sub: 'repository', num: true, title: API_PROTOCOL.repository.meaning },
    { label: 'API R', sub: 'repository', num: true, title: API_PROTOCOL.repository.meaning },
    { label: 'API F1', sub: 'repository', num: true, title: API_PROTOCOL.repository.meaning },
    { label: 'API F1', sub: 'task-view', num: true, title: API_PROTOCOL['task-view'].meaning },
    { label: 'API exact', sub: 'task-view', num: true, title: `Share of tasks whose predicted set equals the truth; ${API_PROTOCOL['task-view'].meaning}` },
    { label: 'Cost', sub: 'USD', num: true },
    { label: 'Tokens', sub: 'in / out', num: true },
  ];
  const rows = conditions.map((c) => {
    const pk = new Map(c.passAtK.map((p) => [p.k, p.value]));
    const cells = [
      td(`${h(c.label)}<br><code class="muted">${h(c.condition)}</code>`, 'condition', 'name'),
      td(formatInt(c.tasks), 'tasks', 'num'),
      td(formatInt(c.failures), 'failures', 'num'),
      td(formatInt(c.samples), 'samples', 'num'),
      ...ks.map((k) => {
        const v = pk.get(k);
        return td(v ? intervalHtml(v, true) : 'n/a', `pass@${k}`, 'num');
      }),
      td(intervalHtml(c.rawPass1, true), 'rawPass1', 'num'),
      td(intervalHtml(c.selectedCorrect, true), 'selectedCorrect', 'num'),
      td(`${formatInt(c.repair.recovered)}/${formatInt(c.repair.attempted)}<br><span class="ci">(${formatRate(c.repair.rate)})</span>`, 'repair', 'num'),
      td(formatRate(c.uncertainty.mean), 'uncertaintyMean', 'num'),
      td(`${formatRate(c.uncertainty.auroc)}${c.uncertainty.degenerate ? `<br><span class="warning" title="${h(c.uncertainty.degenerate)}">degenerate</span>` : ''}`, 'auroc', 'num'),
      td(formatRate(c.uncertainty.auprc), 'auprc', 'num'),
      td(formatRate(c.uncertainty.ece), 'ece', 'num'),
      td(formatRate(c.api?.precision), 'apiPrecision', 'num'),
      td(formatRate(c.api?.recall), 'apiRecall', 'num'),
      td(formatRate(c.api?.f1), 'apiF1', 'num'),
      td(formatRate(c.apiTaskView?.f1), 'apiTaskViewF1', 'num'),
      td(formatRate(c.apiTaskView?.exact), 'apiTaskViewExact', 'num'),
      td(formatUsd(c.cost.usd), 'costUsd', 'num'),
      td(`${formatInt(c.cost.inputTokens)}<br><span class="ci">/ ${formatInt(c.cost.outputTokens)}</span>`, 'tokens', 'num'),
    ];
    return `<tr data-run="${h(c.runId)}" data-condition="${h(c.condition)}">${cells.join('')}</tr>`;
  });
  const warnings = conditions.flatMap((c) => (c.warnings ?? []).map((w) => `<li data-run="${h(c.runId)}" data-condition="${h(c.condition)}">${h(c.label)}: ${h(w)}</li>`));
  const warnHtml = warnings.length ? `\n<div class="warning" data-list="condition-warnings"><strong>Degenerate signals</strong><ul>${warnings.join('')}</ul></div>` : '';
  return `${table('summary', headers, rows)}\n<p class="muted" data-note="api-protocols">${h(API_COLUMNS_NOTE)}</p>${warnHtml}`;
}

function flakyHtml(conditions: ConditionSummary[]): string {
  const items = conditions.map((c) => {
    const ids = c.flaky.taskIds.map((t) => `<code>${h(t)}</code>`).join(', ');
    return `<li data-run="${h(c.runId)}" data-condition="${h(c.condition)}">${h(c.label)} <code class="muted">${h(c.condition)}</code>: ${h(flakyCountsText(c))}${ids ? ` ${ids}` : ''}</li>`;
  });
  return `<h4>Flaky verdicts</h4>\n<p class="muted">${h(FLAKY_MEANING)}</p>\n<ul data-list="flaky">\n${items.join('\n')}\n</ul>`;
}

function comparisonsHtml(model: ReportModel, name: (r: string, c: string, l: string) => string, level: string): string {
  if (!model.comparisons.length) return `<p class="muted">No paired comparisons in this report (they need two conditions with results on the same tasks).</p>`;
  const ks = comparisonKs(model.comparisons);
  const ci = `${level} CI`;
  const headers: Header[] = [
    { label: 'A' },
    { label: 'B' },
    { label: 'Paired', sub: 'tasks', num: true },
    { label: 'W / L / T', num: true, title: 'A right and B wrong / the reverse / equal' },
    { label: 'McNemar p', sub: 'exact', num: true, title: 'Exact two-sided' },
    { label: 'Holm p', num: true, title: 'Holm-adjusted within its family (one backend, one outcome)' },
    { label: 'Holm family', title: 'The comparisons adjusted together: one backend (or pair of backends), selected-output correctness' },
    { label: 'Δ selected', sub: ci, num: true, title: 'A − B in selected-output correctness, paired bootstrap' },
    ...ks.flatMap((k) => [
      { label: `Δ Pass@${k}`, sub: ci, num: true },
      { label: `Pass@${k} p`, sub: 'sign-flip', num: true, title: 'Paired sign-flip permutation test of the per-task Pass@k differences (exact up to 20 differing tasks)' },
    ]),
  ];
  const rows = model.comparisons.map((c) => {
    const pk = new Map(c.passAtKDiff.map((p) => [p.k, p.diff]));
    const cells = [
      td(`${h(name(c.a.runId, c.a.condition, c.a.label))}<br><code class="muted">${h(c.a.condition)}</code>`, 'a', 'name'),
      td(`${h(name(c.b.runId, c.b.condition, c.b.label))}<br><code class="muted">${h(c.b.condition)}</code>`, 'b', 'name'),
      td(formatInt(c.tasks), 'tasks', 'num'),
      td(`${formatInt(c.wins)} / ${formatInt(c.losses)} / ${formatInt(c.ties)}`, 'wlt', 'num'),
      td(formatP(c.mcnemarP), 'mcnemarP', 'num'),
      td(formatP(c.mcnemarPHolm), 'mcnemarPHolm', 'num'),
      td(`${h(c.holmFamily.key)} <span class="muted">(${formatInt(c.holmFamily.size)})</span>`, 'holmFamily', 'name'),
      td(intervalHtml(c.selectedDiff, true), 'selectedDiff', 'num'),
      ...ks.flatMap((k) => {
        const d = pk.get(k);
        const t = c.passAtKDiff.find((p) => p.k === k)?.test;
        return [td(d ? intervalHtml(d, true) : 'n/a', `pass@${k}Diff`, 'num'), td(t ? formatP(t.p) : 'n/a', `pass@${k}P`, 'num')];
      }),
    ];
    return `<tr data-run="${h(c.a.runId)}" data-a="${h(c.a.condition)}" data-b="${h(c.b.condition)}">${cells.join('')}</tr>`;
  });
  return table('comparisons', headers, rows);
}

function testName(test: FactorialAnalysis['test']): string {
  return test === 'sign-flip' ? 'p: sign-flip permutation test over per-task contrasts' : 'p: one-sample t-test over per-task contrasts';
}

function factorialHtml(model: ReportModel, level: string): string {
  if (!model.factorial.length) {
    return missing(
      'factorial-effects',
      'No factorial effects to show.',
      'This report contains no 2³ factorial ablation run (kind "ablate") with a factorial analysis, so there are no main effects or interactions of the evidence sources to plot.',
    );
  }
  const out: string[] = [];
  model.factorial.forEach((fa: FactorialAnalysis, i) => {
    const run = model.runs.find((r) => r.id === fa.runId);
    out.push(`<h3>Run <code>${h(fa.runId)}</code> · backend ${h(fa.backend)} · ${formatInt(fa.tasks)} paired tasks · ${h(testName(fa.test))} ${isPartial(run) ? `<span class="badge partial">partial run</span>` : ''}</h3>`);
    if (!fa.outcomes.length) out.push(`<p class="muted">The analysis has no outcomes.</p>`);
    fa.outcomes.forEach((o: FactorialOutcome, j) => {
      out.push(`<h4>${h(o.label)}</h4>`);
      if (o.degenerate) out.push(`<p class="warning" data-degenerate="${h(o.outcome)}">Degenerate: ${h(o.degenerate)}. No effect on it is marked significant.</p>`);
      if (!o.effects.length) {
        out.push(missing('factorial-effects', `No effects for ${o.label}.`, 'Too few tasks had a result in all eight cells to estimate effects.'));
      } else {
        out.push(
          `<div class="chart-box">${forestPlot({
            id: `chart-factorial-${i}-${j}`,
            chart: 'factorial-effects',
            title: `Factorial effects on ${o.label} — ${fa.runId} (${fa.tasks} paired tasks)`,
            xLabel: OUTCOME_AXIS[o.outcome] ?? `Effect on ${o.label} (difference)`,
            noteHeader: `Effect [${level} CI] · Holm p`,
            legend: [
              { label: 'main effect', group: 0 },
              { label: 'interaction', group: 1 },
            ],
            rows: o.effects.map((e) => ({
              label: e.name,
              estimate: e.value.estimate,
              lo: e.value.lo,
              hi: e.value.hi,
              group: e.kind === 'main' ? 0 : 1,
              note: `${formatInterval(e.value)} · ${formatP(e.pHolm)}${e.degenerate ? ' · degenerate' : e.significant ? ' *' : ''}`,
            })),
          })}</div>`,
        );
      }
      out.push(
        table(
          'effects',
          [
            { label: 'Effect' },
            { label: 'Kind' },
            { label: 'Factors' },
            { label: `Estimate [${level}]`, num: true },
            { label: 'p', num: true, title: testName(fa.test) },
            { label: 'Holm p', num: true },
            { label: 'Informative', sub: 'tasks', num: true, title: 'Tasks whose contrast is not 0' },
            { label: 'Flag', title: `* significant (Holm p < 0.05); degenerate: too few informative tasks (< ${MIN_INFORMATIVE_TASKS}), no spread or a constant signal` },
          ],
          o.effects.map(
            (e) =>
              `<tr data-run="${h(fa.runId)}" data-outcome="${h(o.outcome)}" data-effect="${h(e.name)}">${[
                td(h(e.name), 'effect'),
                td(h(e.kind), 'kind'),
                td(h(e.factors.join(' × ')), 'factors'),
                td(intervalHtml(e.value), 'estimate', 'num'),
                td(formatP(e.p), 'p', 'num'),
                td(formatP(e.pHolm), 'pHolm', 'num'),
                td(formatInt(e.informativeTasks), 'informativeTasks', 'num'),
                td(e.degenerate ? `<span class="warning">degenerate: ${h(e.degenerate)}</span>` : e.significant ? '*' : '', 'flag'),
              ].join('')}</tr>`,
          ),
        ),
      );
    });
    const cellIds = [...new Set(fa.outcomes.flatMap((o) => o.cells.map((c) => c.cell)))];
    if (cellIds.length) {
      out.push(`<h4>Cell means over the paired tasks</h4>`);
      const yes = (b: boolean | undefined) => (b ? '✓' : '—');
      out.push(
        table(
          'cells',
          [{ label: 'Cell' }, { label: 'API' }, { label: 'Context' }, { label: 'Similar code' }, ...fa.outcomes.map((o) => ({ label: o.label, num: true }))],
          cellIds.map((cell) => {
            const first = fa.outcomes.flatMap((o) => o.cells).find((c) => c.cell === cell);
            const s = first?.sources;
            return `<tr data-run="${h(fa.runId)}" data-cell="${h(cell)}">${[
              td(`<code>${h(cell)}</code>`, 'cell'),
              td(yes(s?.api), 'api'),
              td(yes(s?.context), 'context'),
              td(yes(s?.similar), 'similar'),
              ...fa.outcomes.map((o) => td(formatRate(o.cells.find((c) => c.cell === cell)?.mean), o.outcome, 'num')),
            ].join('')}</tr>`;
          }),
        ),
      );
    }
  });
  return out.join('\n');
}

function chartsHtml(model: ReportModel, name: (r: string, c: string, l: string) => string, level: string): string {
  const groups = conditionsByRun(model);
  const multiRun = groups.length > 1;
  const section = (g: (typeof groups)[number]) => (multiRun ? `Run ${g.runId}${g.run ? ` — ${KIND_LABEL[g.run.kind]}` : ''}${isPartial(g.run) ? ' (partial)' : ''}` : undefined);
  const out: string[] = [];

  // (1) Pass@k
  const ks = passKs(model.conditions);
  out.push(`<h3 id="chart-pass-at-k-heading">Pass@k</h3>`);
  if (!ks.length) {
    out.push(missing('pass-at-k', 'No Pass@k to plot.', 'No condition in this report has a Pass@k estimate (no task produced raw samples).'));
  } else {
    out.push(
      `<div class="chart-box">${groupedBars({
        id: 'chart-pass-at-k',
        chart: 'pass-at-k',
        title: `Pass@k per condition (${level} bootstrap intervals over tasks)`,
        xLabel: 'Pass@k (proportion of tasks solved, 0–1)',
        domain: [0, 1],
        intervalLabel: `${level} bootstrap interval`,
        series: ks.map((k) => ({ label: `Pass@${k}` })),
        groups: groups.flatMap((g) =>
          g.conditions.map((c) => ({
            label: name(c.runId, c.condition, c.label),
            section: section(g),
            values: ks.map((k) => {
              const v = c.passAtK.find((p) => p.k === k)?.value;
              return v ? { value: v.estimate, lo: v.lo, hi: v.hi } : null;
            }),
          })),
        ),
      })}</div>`,
    );
  }

  // (2) Reliability
  out.push(`<h3>Uncertainty vs correctness</h3>`);
  const scored = model.conditions.filter((c) => c.uncertainty.bins.some((b) => b.count > 0));
  if (!scored.length) {
    out.push(missing('uncertainty-vs-correctness', 'No reliability diagram.', 'No condition has tasks with an uncertainty score, so there is nothing to bin.'));
  } else {
    out.push(
      `<div class="chart-box">${reliabilityDiagram({
        id: 'chart-reliability',
        chart: 'uncertainty-vs-correctness',
        title: `Reliability of uncertainty as P(selected output fails), ${model.statistics.eceBins} bins; n = tasks per bin`,
        xLabel: 'Mean predicted failure probability per bin (uncertainty, 0–1)',
        yLabel: 'Observed failure rate (fraction of tasks, 0–1)',
        panels: scored.map((c) => ({
          label: name(c.runId, c.condition, c.label),
          note: `ECE ${formatRate(c.uncertainty.ece)} · AUROC ${formatRate(c.uncertainty.auroc)} · n = ${c.uncertainty.bins.reduce((a, b) => a + b.count, 0)}`,
          bins: c.uncertainty.bins,
        })),
      })}</div>`,
    );
    const unscored = model.conditions.filter((c) => !scored.includes(c));
    if (unscored.length) out.push(`<p class="muted">No scored tasks for: ${unscored.map((c) => h(name(c.runId, c.condition, c.label))).join(', ')}.</p>`);
  }

  // (3) API retrieval: one chart per protocol, each saying its matching and the tasks it is over.
  out.push(`<h3>API-knowledge retrieval</h3>`);
  const withApi = model.conditions.filter((c) => c.api || c.apiTaskView);
  if (!withApi.length) {
    out.push(
      missing('api-f1', 'No API retrieval scores.', 'No condition has API truth: either no task had a reference with resolvable API calls, or API evidence was off in every condition.'),
    );
  } else {
    const protocols: { protocol: ApiAggregate['protocol']; chart: string; of: (c: ConditionSummary) => ApiAggregate | null; none: string }[] = [
      { protocol: 'repository', chart: 'api-f1', of: (c) => c.api, none: 'No task has a non-empty API truth' },
      { protocol: 'task-view', chart: 'api-f1-task-view', of: (c) => c.apiTaskView, none: 'No task-view scores (results stored before the task-view protocol, or no task view)' },
    ];
    for (const pr of protocols) {
      const meta = API_PROTOCOL[pr.protocol];
      const scoredHere = model.conditions.filter((c) => pr.of(c));
      out.push(`<h4 data-api-protocol="${h(pr.protocol)}">${h(`${meta.name} protocol · ${meta.matching}`)}</h4>`);
      out.push(`<p class="muted">${h(`${meta.name}: ${meta.meaning}.`)}</p>`);
      if (!scoredHere.length) {
        out.push(missing(pr.chart, `No ${meta.name}-protocol API scores.`, `${pr.none}.`));
        continue;
      }
      out.push(
        `<div class="chart-box" data-api-protocol="${h(pr.protocol)}">${groupedBars({
          id: `chart-${pr.chart}`,
          chart: pr.chart,
          title: `API-knowledge retrieval — ${apiProtocolLabel(pr.protocol)} · ${pr.protocol === 'repository' ? 'pool: the whole repository · over tasks with truth' : 'pool: the task’s own view · over all tasks'}`,
          xLabel: pr.protocol === 'repository' ? 'Score (mean over the tasks with a non-empty API truth, 0–1)' : 'Score (mean over all tasks, empty truths included, 0–1)',
          domain: [0, 1],
          series: [{ label: 'Precision' }, { label: 'Recall' }, { label: 'F1' }],
          groups: groups.flatMap((g) =>
            g.conditions
              .filter((c) => pr.of(c))
              .map((c) => {
                const a = pr.of(c)!;
                return {
                  label: `${name(c.runId, c.condition, c.label)} (${formatInt(a.tasks)} ${pr.protocol === 'repository' ? 'with truth' : 'tasks'})`,
                  section: section(g),
                  values: [{ value: a.precision }, { value: a.recall }, { value: a.f1 }],
                };
              }),
          ),
        })}</div>`,
      );
      const without = model.conditions.filter((c) => !pr.of(c));
      if (without.length) out.push(`<p class="muted">No ${h(meta.name)}-protocol scores for: ${without.map((c) => h(name(c.runId, c.condition, c.label))).join(', ')}.</p>`);
    }
  }
  return out.join('\n');
}

function tasksHtml(model: ReportModel): string {
  const headers = [
    { label: 'Run' },
    { label: 'Condition' },
    { label: 'Task' },
    { label: 'n', num: true },
    { label: 'c', num: true },
    { label: 'Raw Pass@1', num: true },
    { label: 'Selected' },
    { label: 'Origin' },
    { label: 'Repair rounds', num: true },
    { label: 'Recovered' },
    { label: 'Uncertainty', num: true },
    { label: 'API F1', sub: 'repository', num: true, title: API_PROTOCOL.repository.meaning },
    { label: 'API F1', sub: 'task-view', num: true, title: API_PROTOCOL['task-view'].meaning },
    { label: 'Cost', num: true },
    { label: 'Duration', num: true },
    { label: 'Error' },
  ];
  const rows = model.tasks.map((t: TaskRow) => {
    const failed = t.error !== null;
    const cells = [
      td(`<code>${h(t.runId)}</code>`, 'runId'),
      td(`<code>${h(t.condition)}</code>`, 'condition'),
      td(`<code>${h(t.taskId)}</code>`, 'taskId'),
      td(failed ? '' : formatInt(t.n), 'n', 'num'),
      td(failed ? '' : formatInt(t.c), 'c', 'num'),
      td(failed ? '' : formatRate(t.pass1), 'pass1', 'num'),
      failed ? td('', 'selectedCorrect') : td(t.selectedCorrect ? '✓ pass' : '✗ fail', 'selectedCorrect', t.selectedCorrect ? 'ok' : 'fail'),
      td(failed ? '' : h(`${t.selectedOrigin}${t.selectedIndex !== null ? ` #${t.selectedIndex}` : ''}`), 'selectedOrigin'),
      td(failed ? '' : formatInt(t.repairRounds), 'repairRounds', 'num'),
      td(failed ? '' : t.repairRecovered ? 'yes' : 'no', 'repairRecovered'),
      td(failed ? '' : formatRate(t.uncertainty), 'uncertainty', 'num'),
      td(failed ? '' : formatRate(t.apiF1), 'apiF1', 'num'),
      td(failed ? '' : formatRate(t.apiF1TaskView), 'apiF1TaskView', 'num'),
      td(formatUsd(t.costUsd), 'costUsd', 'num'),
      td(formatMs(t.durationMs), 'durationMs', 'num'),
      td(failed ? h(t.error!) : '', 'error', failed ? 'error' : ''),
    ];
    return `<tr data-run="${h(t.runId)}" data-condition="${h(t.condition)}" data-task="${h(t.taskId)}">${cells.join('')}</tr>`;
  });
  return `<details id="tasks-details"><summary>Per-task results — ${formatInt(model.tasks.length)} rows (${formatInt(model.tasks.filter((t) => t.error).length)} failed to run)</summary>\n${table('tasks', headers, rows)}\n</details>`;
}

export function renderHtml(model: ReportModel): string {
  const level = percentLevel(model);
  const name = displayNames(model);
  const partialRuns = model.runs.filter(isPartial);
  const groups = conditionsByRun(model);

  const summary = groups
    .filter((g) => g.conditions.length)
    .map(
      (g) =>
        `<h3>Run <code>${h(g.runId)}</code>${g.run ? ` <span class="muted">${h(KIND_LABEL[g.run.kind])} · ${h(g.run.backend.label)}</span>` : ''} ${isPartial(g.run) ? `<span class="badge partial">partial</span>` : ''}</h3>\n${summaryTableHtml(g.conditions, level)}\n${flakyHtml(g.conditions)}`,
    )
    .join('\n');

  const body = [
    `<header>`,
    `<h1>${h(model.title)}</h1>`,
    `<p class="meta">Generated ${h(model.generatedAt)} by ${h(model.tool.name)} ${h(model.tool.version)} · ${formatInt(model.runs.length)} run(s), ${formatInt(model.conditions.length)} condition(s), ${formatInt(model.tasks.length)} task rows · intervals are ${level} percentile bootstrap (${formatInt(model.statistics.resamples)} resamples, seed ${h(String(model.statistics.seed))})</p>`,
    ...partialRuns.map((r) => `<div class="banner partial" role="alert">⚠ Run <code>${h(r.id)}</code> is ${h(partialText(r))}. Its figures are not final.</div>`),
    `<nav class="toc"><a href="#runs">Runs</a><a href="#summary">Summary</a><a href="#charts">Charts</a><a href="#comparisons">Comparisons</a><a href="#factorial">Factorial effects</a><a href="#tasks">Per-task</a><a href="#statistics">Statistics</a></nav>`,
    `</header>`,
    `<section id="runs"><h2>Runs and provenance</h2>`,
    model.runs.length ? model.runs.map(runProvenanceHtml).join('\n') : `<p class="muted">No runs.</p>`,
    `</section>`,
    `<section id="summary"><h2>Summary by condition</h2>`,
    summary || `<p class="muted">No condition summaries.</p>`,
    `</section>`,
    `<section id="charts"><h2>Charts</h2>`,
    chartsHtml(model, name, level),
    `</section>`,
    `<section id="comparisons"><h2>Paired comparisons</h2>`,
    `<p class="muted">Selected-output correctness paired by task; W = A right and B wrong. McNemar p is exact two-sided; Holm p is adjusted over all comparisons in this report. Δ = A − B.</p>`,
    comparisonsHtml(model, name, level),
    `</section>`,
    `<section id="factorial"><h2>Factorial effects (2³: API × Context × Similar code)</h2>`,
    factorialHtml(model, level),
    `</section>`,
    `<section id="tasks"><h2>Per-task results</h2>`,
    tasksHtml(model),
    `<p class="muted">The ${formatInt(model.candidates.length)} per-candidate rows are in the JSON and CSV exports.</p>`,
    `</section>`,
    `<section id="statistics"><h2>Statistics</h2>`,
    `<table class="kv"><tr><th scope="row">Seed</th><td>${h(String(model.statistics.seed))}</td></tr><tr><th scope="row">Bootstrap resamples</th><td>${formatInt(model.statistics.resamples)}</td></tr><tr><th scope="row">Interval level</th><td>${level}</td></tr><tr><th scope="row">ECE bins</th><td>${formatInt(model.statistics.eceBins)}</td></tr></table>`,
    model.statistics.notes.length ? `<ul>${model.statistics.notes.map((n) => `<li>${h(n)}</li>`).join('')}</ul>` : '',
    `</section>`,
    `<footer>Self-contained report: no scripts, fonts or images are loaded from anywhere. ${h(model.tool.name)} ${h(model.tool.version)}.</footer>`,
  ];

  return [
    '<!doctype html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">`,
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${h(model.title)}</title>`,
    `<style>${CSS}</style>`,
    '</head>',
    '<body><main>',
    ...body.filter(Boolean),
    '</main></body>',
    '</html>',
    '',
  ].join('\n');
}

// ---------------------------------------------------------------------------------------------------------
// Markdown

/** Text safe inside a GitHub Markdown table cell or heading. */
function md(s: string): string {
  return s
    .replace(/\\/g, '\\\\')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/\|/g, '\\|')
    .replace(/[*_`[\]#]/g, '\\$&')
    .replace(/\r\n|\r|\n/g, ' ');
}

const MD_PLAIN = /^[A-Za-z0-9._:/+@=-]+$/;

/** A code span when the text is plain enough, else escaped text. */
function mdCode(s: string): string {
  return MD_PLAIN.test(s) ? `\`${s}\`` : md(s);
}

/** An id in running text: a code span when plain, else escaped text in inline <code>, so a list of ids keeps its boundaries. */
function mdId(s: string): string {
  return MD_PLAIN.test(s) ? mdCode(s) : `<code>${md(s)}</code>`;
}

function mdTable(headers: string[], rows: string[][], align?: ('l' | 'r')[]): string {
  const sep = headers.map((_, i) => (align?.[i] === 'r' ? '---:' : '---'));
  return [`| ${headers.join(' | ')} |`, `| ${sep.join(' | ')} |`, ...rows.map((r) => `| ${r.join(' | ')} |`)].join('\n');
}

export function renderMarkdown(model: ReportModel): string {
  const level = percentLevel(model);
  const name = displayNames(model);
  const out: string[] = [];
  out.push(`# ${md(model.title)}`, '');
  out.push(
    `Generated ${md(model.generatedAt)} by ${md(model.tool.name)} ${md(model.tool.version)} · ${model.runs.length} run(s), ${model.conditions.length} condition(s), ${model.tasks.length} task rows · intervals are ${level} percentile bootstrap (${formatInt(model.statistics.resamples)} resamples, seed ${md(String(model.statistics.seed))}).`,
    '',
  );
  out.push('_The charts (factorial forest plots, Pass@k, reliability diagrams, API retrieval) are in the HTML report._', '');
  for (const r of model.runs.filter(isPartial)) out.push(`> **⚠ Run ${mdCode(r.id)} is ${md(partialText(r))}.** Its figures are not final.`, '');

  out.push('## Runs and provenance', '');
  for (const run of model.runs) {
    const m = run.machine;
    out.push(`### Run ${mdCode(run.id)} — ${isPartial(run) ? `**${md(partialText(run))}**` : 'done'}`, '');
    out.push(
      mdTable(
        ['Field', 'Value'],
        [
          ['Status', isPartial(run) ? `**${md(partialText(run))}**` : 'done'],
          ['Kind', md(KIND_LABEL[run.kind] ?? run.kind)],
          ['Created', md(run.createdAt)],
          ['Finished', run.finishedAt ? md(run.finishedAt) : 'not finished'],
          ['Duration', formatDuration(run.createdAt, run.finishedAt)],
          ['Manifest', `${mdCode(run.manifest.file)} · ${formatInt(run.manifest.tasks)} tasks · sha256 ${mdCode(run.manifest.hash)}`],
          ['Backend', `${md(run.backend.label)} (${md(run.backend.provider)} · model ${mdCode(run.backend.model)} · id ${mdCode(run.backend.id)})`],
          ['Encoder', `${md(run.encoder.name)} (id ${mdCode(run.encoder.id)})`],
          ['Prompts', `version ${mdCode(run.prompts.version)} · hash ${mdCode(run.prompts.hash)}`],
          ['Sandbox', md(run.sandbox)],
          ['Machine', md(`${m.platform} ${m.arch} · ${m.cpus} CPUs · ${finite(m.memoryGiB) ? +m.memoryGiB.toFixed(1) : 'n/a'} GiB · Node ${m.node}`)],
          ['App', `${md(run.app.name)} ${md(run.app.version)}${run.app.commit ? ` commit ${mdCode(run.app.commit)}` : ' (no commit recorded)'}`],
        ],
      ),
      '',
    );
    out.push(
      mdTable(
        ['Condition', 'Label', 'Family', 'Config sha256'],
        run.conditions.map((c, i) => [mdCode(c.id), md(c.label), md(c.family), mdCode(run.configHashes[i] ?? 'n/a')]),
      ),
      '',
    );
  }

  out.push('## Summary by condition', '');
  for (const g of conditionsByRun(model).filter((x) => x.conditions.length)) {
    const ks = passKs(g.conditions);
    out.push(`### Run ${mdCode(g.runId)}${g.run ? ` — ${md(KIND_LABEL[g.run.kind])} · ${md(g.run.backend.label)}` : ''}${isPartial(g.run) ? ' (partial)' : ''}`, '');
    const headers = ['Condition', 'Family', 'Tasks', 'Failures', 'n', ...ks.map((k) => `Pass@${k} [${level}]`), `Raw Pass@1 [${level}]`, `Selected correct [${level}]`, 'Repair recovered', 'Mean U', 'AUROC', 'AUPRC', 'ECE', 'API P (repository)', 'API R (repository)', 'API F1 (repository)', 'API F1 (task-view)', 'API exact (task-view)', 'Cost', 'Tokens in / out'];
    const rows = g.conditions.map((c) => [
      `${md(c.label)} (${mdCode(c.condition)})`,
      md(c.family),
      formatInt(c.tasks),
      formatInt(c.failures),
      formatInt(c.samples),
      ...ks.map((k) => {
        const v = c.passAtK.find((p) => p.k === k)?.value;
        return v ? formatInterval(v) : 'n/a';
      }),
      formatInterval(c.rawPass1),
      formatInterval(c.selectedCorrect),
      `${formatInt(c.repair.recovered)}/${formatInt(c.repair.attempted)} (${formatRate(c.repair.rate)})`,
      formatRate(c.uncertainty.mean),
      `${formatRate(c.uncertainty.auroc)}${c.uncertainty.degenerate ? ' (degenerate)' : ''}`,
      formatRate(c.uncertainty.auprc),
      formatRate(c.uncertainty.ece),
      formatRate(c.api?.precision),
      formatRate(c.api?.recall),
      formatRate(c.api?.f1),
      formatRate(c.apiTaskView?.f1),
      formatRate(c.apiTaskView?.exact),
      formatUsd(c.cost.usd),
      `${formatInt(c.cost.inputTokens)} / ${formatInt(c.cost.outputTokens)}`,
    ]);
    out.push(mdTable(headers, rows, headers.map((_, i) => (i < 2 ? 'l' : 'r'))), '');
    out.push(`_${md(API_COLUMNS_NOTE)}_`, '');
    const warned = g.conditions.flatMap((c) => (c.warnings ?? []).map((w) => `- **Degenerate** — ${md(c.label)}: ${md(w)}`));
    if (warned.length) out.push(...warned, '');
    const apiRows = g.conditions.flatMap((c) =>
      ([['repository', c.api], ['task-view', c.apiTaskView]] as const)
        .filter(([, a]) => a)
        .map(([p, a]) => [
          `${md(c.label)} (${mdCode(c.condition)})`,
          md(apiProtocolLabel(p, a!.tasks)),
          formatRate(a!.precision),
          formatRate(a!.recall),
          formatRate(a!.f1),
          formatRate(a!.exact),
          `${formatInt(a!.count.over)} / ${formatInt(a!.count.exact)} / ${formatInt(a!.count.under)}`,
        ]),
    );
    if (apiRows.length) {
      out.push('**API retrieval by protocol.**', '');
      out.push(mdTable(['Condition', 'Protocol · matching · tasks', 'P', 'R', 'F1', 'Exact', 'Count over / exact / under'], apiRows, ['l', 'l', 'r', 'r', 'r', 'r', 'r']), '');
    }
    out.push(`**Flaky verdicts.** ${md(FLAKY_MEANING)}`, '');
    for (const c of g.conditions) {
      const ids = c.flaky.taskIds.map(mdId).join(', ');
      out.push(`- ${md(c.label)} (${mdCode(c.condition)}): ${md(flakyCountsText(c))}${ids ? ` ${ids}` : ''}`);
    }
    out.push('');
  }

  out.push('## Paired comparisons', '');
  if (!model.comparisons.length) out.push('_No paired comparisons in this report._', '');
  else {
    const ks = comparisonKs(model.comparisons);
    const headers = ['A', 'B', 'Paired tasks', 'W / L / T', 'McNemar p', 'Holm p', 'Holm family', `Δ selected correct [${level}]`, ...ks.flatMap((k) => [`Δ Pass@${k} [${level}]`, `Pass@${k} p (sign-flip)`])];
    out.push(
      mdTable(
        headers,
        model.comparisons.map((c) => [
          md(name(c.a.runId, c.a.condition, c.a.label)),
          md(name(c.b.runId, c.b.condition, c.b.label)),
          formatInt(c.tasks),
          `${formatInt(c.wins)} / ${formatInt(c.losses)} / ${formatInt(c.ties)}`,
          formatP(c.mcnemarP),
          formatP(c.mcnemarPHolm),
          `${md(c.holmFamily.key)} (${formatInt(c.holmFamily.size)})`,
          formatInterval(c.selectedDiff),
          ...ks.flatMap((k) => {
            const p = c.passAtKDiff.find((x) => x.k === k);
            return [p ? formatInterval(p.diff) : 'n/a', p ? formatP(p.test.p) : 'n/a'];
          }),
        ]),
        headers.map((_, i) => (i < 2 ? 'l' : 'r')),
      ),
      '',
      `_W = A right and B wrong. McNemar p exact two-sided; Holm p adjusted within its family (the comparisons of one backend, or pair of backends; count in brackets). Pass@k p: paired sign-flip permutation test. Δ = A − B._`,
      '',
    );
  }

  out.push('## Factorial effects (2³: API × Context × Similar code)', '');
  if (!model.factorial.length) out.push('_No 2³ factorial ablation run (kind "ablate") in this report._', '');
  for (const fa of model.factorial) {
    out.push(`### Run ${mdCode(fa.runId)} · backend ${md(fa.backend)} · ${formatInt(fa.tasks)} paired tasks · ${md(testName(fa.test))}`, '');
    for (const o of fa.outcomes) {
      out.push(`#### ${md(o.label)}`, '');
      if (o.degenerate) out.push(`**Degenerate:** ${md(o.degenerate)}. No effect on it is marked significant.`, '');
      out.push(
        mdTable(
          ['Effect', 'Kind', 'Factors', `Estimate [${level}]`, 'p', 'Holm p', 'Informative tasks', 'Flag'],
          o.effects.map((e) => [md(e.name), md(e.kind), md(e.factors.join(' × ')), formatInterval(e.value), formatP(e.p), formatP(e.pHolm), formatInt(e.informativeTasks), e.degenerate ? `degenerate: ${md(e.degenerate)}` : e.significant ? '*' : '']),
          ['l', 'l', 'l', 'r', 'r', 'r', 'r', 'l'],
        ),
        '',
      );
    }
    const cellIds = [...new Set(fa.outcomes.flatMap((o) => o.cells.map((c) => c.cell)))];
    if (cellIds.length) {
      out.push('#### Cell means over the paired tasks', '');
      out.push(
        mdTable(
          ['Cell', 'API', 'Context', 'Similar code', ...fa.outcomes.map((o) => md(o.label))],
          cellIds.map((cell) => {
            const s = fa.outcomes.flatMap((o) => o.cells).find((c) => c.cell === cell)?.sources;
            const yes = (b: boolean | undefined) => (b ? '✓' : '—');
            return [mdCode(cell), yes(s?.api), yes(s?.context), yes(s?.similar), ...fa.outcomes.map((o) => formatRate(o.cells.find((c) => c.cell === cell)?.mean))];
          }),
          ['l', 'l', 'l', 'l', ...fa.outcomes.map(() => 'r' as const)],
        ),
        '',
      );
    }
  }

  out.push('## Per-task results', '');
  out.push(`<details><summary>${model.tasks.length} task rows (${model.tasks.filter((t) => t.error).length} failed to run)</summary>`, '');
  out.push(
    mdTable(
      ['Run', 'Condition', 'Task', 'n', 'c', 'Raw Pass@1', 'Selected', 'Origin', 'Repair rounds', 'Recovered', 'Uncertainty', 'API F1 (repository)', 'API F1 (task-view)', 'Cost', 'Duration', 'Error'],
      model.tasks.map((t) => {
        const f = t.error !== null;
        return [
          mdCode(t.runId),
          mdCode(t.condition),
          mdCode(t.taskId),
          f ? '' : formatInt(t.n),
          f ? '' : formatInt(t.c),
          f ? '' : formatRate(t.pass1),
          f ? '' : t.selectedCorrect ? 'pass' : 'fail',
          f ? '' : md(`${t.selectedOrigin}${t.selectedIndex !== null ? ` #${t.selectedIndex}` : ''}`),
          f ? '' : formatInt(t.repairRounds),
          f ? '' : t.repairRecovered ? 'yes' : 'no',
          f ? '' : formatRate(t.uncertainty),
          f ? '' : formatRate(t.apiF1),
          f ? '' : formatRate(t.apiF1TaskView),
          formatUsd(t.costUsd),
          formatMs(t.durationMs),
          f ? md(t.error!) : '',
        ];
      }),
      ['l', 'l', 'l', 'r', 'r', 'r', 'l', 'l', 'r', 'l', 'r', 'r', 'r', 'r', 'r', 'l'],
    ),
    '',
    '</details>',
    '',
  );
  out.push(`_The ${model.candidates.length} per-candidate rows are in the JSON and CSV exports._`, '');

  out.push('## Statistics', '');
  out.push(
    mdTable(
      ['Setting', 'Value'],
      [
        ['Seed', md(String(model.statistics.seed))],
        ['Bootstrap resamples', formatInt(model.statistics.resamples)],
        ['Interval level', level],
        ['ECE bins', formatInt(model.statistics.eceBins)],
      ],
    ),
    '',
  );
  for (const n of model.statistics.notes) out.push(`- ${md(n)}`);
  if (model.statistics.notes.length) out.push('');
  return out.join('\n');
}

// ---------------------------------------------------------------------------------------------------------
// JSON

/** The model itself, pretty-printed; NaN and ±Infinity become null. */
export function renderJson(model: ReportModel): string {
  return JSON.stringify(model, (_k, v: unknown) => (typeof v === 'number' && !Number.isFinite(v) ? null : v), 2) + '\n';
}

// ---------------------------------------------------------------------------------------------------------
// CSV

type CsvValue = string | number | boolean | null | undefined;

/** One RFC 4180 field: empty for null/NaN, true/false for booleans, quoted when it holds `,` `"` CR or LF. */
export function csvField(v: CsvValue): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  if (typeof v === 'number') return Number.isFinite(v) ? String(v) : '';
  return /[",\r\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v;
}

function csv(header: string[], rows: CsvValue[][]): string {
  return [header, ...rows].map((r) => r.map(csvField).join(',') + '\r\n').join('');
}

const ivCols = (iv: Interval | undefined): CsvValue[] => [iv?.estimate, iv?.lo, iv?.hi];
const ivHead = (name: string): string[] => [name, `${name}_lo`, `${name}_hi`];

export function renderCsv(model: ReportModel): Record<CsvTable, string> {
  const tasks = csv(
    ['runId', 'condition', 'taskId', 'n', 'c', 'pass1', 'selectedCorrect', 'selectedOrigin', 'selectedIndex', 'repairRounds', 'repairRecovered', 'uncertainty', 'apiF1', 'apiF1TaskView', 'costUsd', 'durationMs', 'error'],
    model.tasks.map((t) => [t.runId, t.condition, t.taskId, t.n, t.c, t.pass1, t.selectedCorrect, t.selectedOrigin, t.selectedIndex, t.repairRounds, t.repairRecovered, t.uncertainty, t.apiF1, t.apiF1TaskView, t.costUsd, t.durationMs, t.error]),
  );

  const candidates = csv(
    ['runId', 'condition', 'taskId', 'index', 'group', 'status', 'passed', 'passedTests', 'totalTests', 'durationMs', 'reason'],
    model.candidates.map((c) => [c.runId, c.condition, c.taskId, c.index, c.group, c.status, c.passed, c.passedTests, c.totalTests, c.durationMs, c.reason]),
  );

  const ks = passKs(model.conditions);
  const conditions = csv(
    [
      'runId', 'condition', 'label', 'family', 'tasks', 'failures', 'samples',
      ...ks.flatMap((k) => ivHead(`pass@${k}`)),
      ...ivHead('rawPass1'),
      ...ivHead('selectedCorrect'),
      'repairAttempted', 'repairRecovered', 'repairRate',
      'uncertaintyMean', 'auroc', 'auprc', 'ece', 'uncertaintyDegenerate',
      // API retrieval: the repository protocol (strict keys, tasks with truth), then the task-view protocol (bare names, all tasks).
      'apiMatching', 'apiTasks', 'apiPrecision', 'apiRecall', 'apiF1', 'apiExact', 'apiCountOver', 'apiCountExact', 'apiCountUnder',
      'apiTaskViewMatching', 'apiTaskViewTasks', 'apiTaskViewEmptyTruth', 'apiTaskViewPrecision', 'apiTaskViewRecall', 'apiTaskViewF1', 'apiTaskViewExact', 'apiTaskViewCountOver', 'apiTaskViewCountExact', 'apiTaskViewCountUnder',
      'costUsd', 'inputTokens', 'outputTokens',
      'flakyCandidates', 'candidateVerdicts', 'flakySelected', 'flakyTaskIds', 'warnings',
    ],
    model.conditions.map((c) => [
      c.runId, c.condition, c.label, c.family, c.tasks, c.failures, c.samples,
      ...ks.flatMap((k) => ivCols(c.passAtK.find((p) => p.k === k)?.value)),
      ...ivCols(c.rawPass1),
      ...ivCols(c.selectedCorrect),
      c.repair.attempted, c.repair.recovered, c.repair.rate,
      c.uncertainty.mean, c.uncertainty.auroc, c.uncertainty.auprc, c.uncertainty.ece, c.uncertainty.degenerate ?? '',
      c.api?.matching, c.api?.tasks, c.api?.precision, c.api?.recall, c.api?.f1, c.api?.exact, c.api?.count.over, c.api?.count.exact, c.api?.count.under,
      c.apiTaskView?.matching, c.apiTaskView?.tasks, c.apiTaskView?.emptyTruth, c.apiTaskView?.precision, c.apiTaskView?.recall, c.apiTaskView?.f1, c.apiTaskView?.exact,
      c.apiTaskView?.count.over, c.apiTaskView?.count.exact, c.apiTaskView?.count.under,
      c.cost.usd, c.cost.inputTokens, c.cost.outputTokens,
      // Task ids may hold spaces and commas, so the list is a JSON array: one field, parsed back unambiguously.
      c.flaky.candidates, c.flaky.candidateVerdicts, c.flaky.selected, JSON.stringify(c.flaky.taskIds), JSON.stringify(c.warnings ?? []),
    ]),
  );

  const effects = csv(
    ['runId', 'backend', 'pairedTasks', 'test', 'outcome', 'outcomeLabel', 'effect', 'kind', 'factors', 'estimate', 'lo', 'hi', 'p', 'pHolm', 'informativeTasks', 'significant', 'degenerate'],
    model.factorial.flatMap((fa) =>
      fa.outcomes.flatMap((o) =>
        o.effects.map((e) => [fa.runId, fa.backend, fa.tasks, fa.test, o.outcome, o.label, e.name, e.kind, e.factors.join('+'), e.value.estimate, e.value.lo, e.value.hi, e.p, e.pHolm, e.informativeTasks, e.significant, e.degenerate ?? '']),
      ),
    ),
  );

  const cks = comparisonKs(model.comparisons);
  const comparisons = csv(
    [
      'runId', 'aCondition', 'aLabel', 'bRunId', 'bCondition', 'bLabel', 'tasks', 'wins', 'losses', 'ties', 'mcnemarP', 'mcnemarPHolm', 'holmFamily', 'holmFamilySize',
      ...ivHead('selectedDiff'),
      ...cks.flatMap((k) => [...ivHead(`pass@${k}Diff`), `pass@${k}P`]),
    ],
    model.comparisons.map((c) => [
      c.a.runId, c.a.condition, c.a.label, c.b.runId, c.b.condition, c.b.label, c.tasks, c.wins, c.losses, c.ties, c.mcnemarP, c.mcnemarPHolm, c.holmFamily.key, c.holmFamily.size,
      ...ivCols(c.selectedDiff),
      ...cks.flatMap((k) => [...ivCols(c.passAtKDiff.find((p) => p.k === k)?.diff), c.passAtKDiff.find((p) => p.k === k)?.test.p]),
    ]),
  );

  // Provenance of every run, so the CSV set carries what the HTML and JSON carry.
  const runs = csv(
    ['runId', 'kind', 'status', 'createdAt', 'finishedAt', 'manifestFile', 'manifestHash', 'manifestTasks', 'conditions', 'backend', 'provider', 'model', 'encoder', 'promptVersion', 'promptHash', 'configHashes', 'sandbox', 'machine', 'app', 'appVersion', 'commit'],
    model.runs.map((r) => [
      r.id, r.kind, r.status, r.createdAt, r.finishedAt, r.manifest.file, r.manifest.hash, r.manifest.tasks, r.conditions.map((c) => c.id).join(' '),
      r.backend.id, r.backend.provider, r.backend.model, r.encoder.name, r.prompts.version, r.prompts.hash, r.configHashes.join(' '), r.sandbox,
      `${r.machine.platform} ${r.machine.arch}, ${r.machine.cpus} CPUs, ${r.machine.memoryGiB} GiB, Node ${r.machine.node}`, r.app.name, r.app.version, r.app.commit,
    ]),
  );
  return { tasks, candidates, conditions, effects, comparisons, runs };
}

// ---------------------------------------------------------------------------------------------------------
// Files

function writeFile(file: string, content: string): void {
  try {
    fs.mkdirSync(path.dirname(file), { recursive: true });
  } catch (err) {
    throw new Error(`Cannot create the folder for report file ${file}: ${(err as Error).message}`);
  }
  try {
    fs.writeFileSync(file, content, 'utf8');
  } catch (err) {
    throw new Error(`Cannot write report file ${file}: ${(err as Error).message}`);
  }
}

/** Paths the csv format writes for `outFile`: the tasks table there, the other tables beside it. */
export function csvPaths(outFile: string): Record<CsvTable, string> {
  const abs = path.resolve(outFile);
  const parsed = path.parse(abs);
  const stem = parsed.ext.toLowerCase() === '.csv' ? path.join(parsed.dir, parsed.name) : abs;
  return {
    tasks: abs,
    candidates: `${stem}.candidates.csv`,
    conditions: `${stem}.conditions.csv`,
    effects: `${stem}.effects.csv`,
    comparisons: `${stem}.comparisons.csv`,
    runs: `${stem}.runs.csv`,
  };
}

/** Writes the report in `format` to `outFile` (csv: five files) and returns the absolute paths written. */
export function writeReport(model: ReportModel, format: ReportFormat, outFile: string): string[] {
  if (!outFile) throw new Error('writeReport: no output file given');
  const abs = path.resolve(outFile);
  switch (format) {
    case 'html':
      writeFile(abs, renderHtml(model));
      return [abs];
    case 'md':
      writeFile(abs, renderMarkdown(model));
      return [abs];
    case 'json':
      writeFile(abs, renderJson(model));
      return [abs];
    case 'csv': {
      const tables = renderCsv(model);
      const paths = csvPaths(abs);
      const order: CsvTable[] = ['tasks', 'candidates', 'conditions', 'effects', 'comparisons', 'runs'];
      for (const t of order) writeFile(paths[t], tables[t]);
      return order.map((t) => paths[t]);
    }
    default:
      throw new Error(`Unknown report format "${String(format)}" (expected one of ${REPORT_FORMATS.join(', ')})`);
  }
}
