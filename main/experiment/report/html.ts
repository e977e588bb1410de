// The HTML report: one self-contained file (inline CSS and hand-drawn inline SVG, no external resource, strict CSP).

import { type ConditionSummary, type ReportModel, type RunProvenance, type TaskRow } from '../../model/report.ts';
import { minedSetText } from '../mined-set.ts';

import {
  API_COLUMNS_NOTE,
  API_PROTOCOL,
  comparisonKs,
  conditionsByRun,
  backendName,
  displayNames,
  droppedText,
  finite,
  formatDuration,
  formatInt,
  formatMs,
  formatP,
  formatRate,
  formatUsd,
  IN_PROCESS_REASONS_MEANING,
  IN_PROCESS_REASONS_TITLE,
  inProcessReasonRows,
  isPartial,
  KIND_LABEL,
  mcnemarFlag,
  partialText,
  passKs,
  percentLevel,
  permutationFlag,
  REPLIES_MEANING,
  repliesText,
  scoredText,
  taskRepliesText,
  uncertaintyFlag,
  UNSCORED_MEANING,
  VERDICTS_APART,
} from './format.ts';
import { factorialHtml, chartsHtml } from './html-figures.ts';
import { h, flaggedHtml, td, intervalHtml, table, type Header } from './html-parts.ts';

// ---------------------------------------------------------------------------------------------------------
// HTML

export const CSS = `
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
.table-wrap { max-width: 100%; }
.table-wrap > table:not(.kv) tr > :first-child { position: sticky; left: 0; z-index: 1; background: inherit; box-shadow: 1px 0 0 var(--line); }
.table-wrap > table:not(.kv) thead tr > :first-child { background: var(--band); }
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

export function runProvenanceHtml(run: RunProvenance): string {
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
    kv(
      'Manifest',
      `<code>${h(run.manifest.file)}</code> · ${formatInt(run.manifest.tasks)} tasks<br><span class="muted">sha256</span> <code class="hash">${h(run.manifest.hash)}</code>`,
    ),
    ...(run.manifest.mined ? [kv('Mined set', h(minedSetText(run.manifest.mined)))] : []),
    kv(
      'Backend',
      `${h(backendName(run))} <span class="muted">(${h(run.backend.provider)} · model <code>${h(run.backend.model)}</code> · id <code>${h(run.backend.id)}</code>)</span>`,
    ),
    kv('Encoder', `${h(run.encoder.name)} <span class="muted">(id <code>${h(run.encoder.id)}</code>)</span>`),
    kv('Prompts', `version <code>${h(run.prompts.version)}</code> · <span class="muted">hash</span> <code class="hash">${h(run.prompts.hash)}</code>`),
    kv('Sandbox', h(run.sandbox)),
    kv('Machine', h(`${m.platform} ${m.arch} · ${m.cpus} CPUs · ${finite(m.memoryGiB) ? +m.memoryGiB.toFixed(1) : 'n/a'} GiB · Node ${m.node}`)),
    kv(
      'App',
      `${h(run.app.name)} ${h(run.app.version)}${run.app.commit ? ` <span class="muted">commit</span> <code class="hash">${h(run.app.commit)}</code>` : ' <span class="muted">(no commit recorded)</span>'}`,
    ),
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

export function summaryTableHtml(conditions: ConditionSummary[], level: string): string {
  const ks = passKs(conditions);
  const ci = `${level} CI`;
  const headers: Header[] = [
    { label: 'Condition' },
    { label: 'Tasks', num: true, title: 'Tasks with a result' },
    { label: 'Unscored', num: true, title: UNSCORED_MEANING },
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
      td(c.unscored.total ? `<span title="${h(scoredText(c))}">${formatInt(c.unscored.total)}</span>` : '0', 'failures', 'num'),
      td(formatInt(c.samples), 'samples', 'num'),
      ...ks.map((k) => {
        const v = pk.get(k);
        return td(v ? intervalHtml(v, true) : 'n/a', `pass@${k}`, 'num');
      }),
      td(intervalHtml(c.rawPass1, true), 'rawPass1', 'num'),
      td(intervalHtml(c.selectedCorrect, true), 'selectedCorrect', 'num'),
      td(`${formatInt(c.repair.recovered)}/${formatInt(c.repair.attempted)}<br><span class="ci">(${formatRate(c.repair.rate)})</span>`, 'repair', 'num'),
      td(formatRate(c.uncertainty.mean), 'uncertaintyMean', 'num'),
      ...(['auroc', 'auprc', 'ece'] as const).map((stat) =>
        td(flaggedHtml(formatRate(c.uncertainty[stat]), uncertaintyFlag(c.uncertainty, stat, c.tasks)), stat, 'num'),
      ),
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
  const warnings = conditions.flatMap((c) =>
    (c.warnings ?? []).map((w) => `<li data-run="${h(c.runId)}" data-condition="${h(c.condition)}">${h(c.label)}: ${h(w)}</li>`),
  );
  const warnHtml = warnings.length
    ? `\n<div class="warning" data-list="condition-warnings"><strong>Degenerate signals</strong><ul>${warnings.join('')}</ul></div>`
    : '';
  return `${table('summary', headers, rows)}\n<p class="muted" data-note="api-protocols">${h(API_COLUMNS_NOTE)}</p>${warnHtml}`;
}

/** Per condition: what its figures are over and what they leave out (unscored pairs), and its replies without code. */
export function scoringHtml(conditions: ConditionSummary[]): string {
  const item = (c: ConditionSummary, text: string) =>
    `<li data-run="${h(c.runId)}" data-condition="${h(c.condition)}">${h(c.label)} <code class="muted">${h(c.condition)}</code>: ${h(text)}</li>`;
  return [
    `<h4>Scored and unscored pairs</h4>`,
    `<p class="muted">${h(UNSCORED_MEANING)}</p>`,
    `<ul data-list="unscored">\n${conditions.map((c) => item(c, scoredText(c))).join('\n')}\n</ul>`,
    `<h4>Replies without code</h4>`,
    `<p class="muted">${h(REPLIES_MEANING)}</p>`,
    `<ul data-list="replies">\n${conditions.map((c) => item(c, repliesText(c.replies))).join('\n')}\n</ul>`,
  ].join('\n');
}

/** Per kind of verdict counted apart (flaky, in-process): what it means, and a line per condition with its counts and task ids. */
export function verdictsApartHtml(conditions: ConditionSummary[]): string {
  return VERDICTS_APART.map((kind) => {
    const items = conditions.map((c) => {
      const ids = kind
        .ids(c)
        .map((t) => `<code>${h(t)}</code>`)
        .join(', ');
      return `<li data-run="${h(c.runId)}" data-condition="${h(c.condition)}">${h(c.label)} <code class="muted">${h(c.condition)}</code>: ${h(kind.text(c))}${ids ? ` ${ids}` : ''}</li>`;
    });
    const section = `<h4>${h(kind.title)}</h4>\n<p class="muted">${h(kind.meaning)}</p>\n<ul data-list="${h(kind.list)}">\n${items.join('\n')}\n</ul>`;
    return kind.reasons ? `${section}${inProcessReasonsHtml(conditions)}` : section;
  }).join('\n');
}

/** The run's in-process tasks with why each was not isolated (nothing when no condition has one). */
function inProcessReasonsHtml(conditions: ConditionSummary[]): string {
  const rows = inProcessReasonRows(conditions).map(
    (r) =>
      `<tr data-run="${h(r.c.runId)}" data-condition="${h(r.c.condition)}">${td(`${h(r.c.label)} <code class="muted">${h(r.c.condition)}</code>`, 'condition', 'name')}${td(`<code>${h(r.taskId)}</code>`, 'task')}${td(h(r.reason), 'reason')}${td(formatInt(r.verdicts), 'verdicts', 'num')}</tr>`,
  );
  if (!rows.length) return '';
  const headers: Header[] = [
    { label: 'Condition' },
    { label: 'Task' },
    { label: 'Why in-process' },
    { label: 'Verdicts', num: true, title: 'In-process verdicts of the task giving this reason (raw candidates’ and the selected output’s)' },
  ];
  return `\n<p class="muted"><strong>${h(IN_PROCESS_REASONS_TITLE)}.</strong> ${h(IN_PROCESS_REASONS_MEANING)}</p>\n${table('in-process-reasons', headers, rows)}`;
}

export function comparisonsHtml(model: ReportModel, name: (r: string, c: string, l: string) => string, level: string): string {
  if (!model.comparisons.length) return `<p class="muted">No paired comparisons in this report (they need two conditions with results on the same tasks).</p>`;
  const ks = comparisonKs(model.comparisons);
  const ci = `${level} CI`;
  const headers: Header[] = [
    { label: 'A' },
    { label: 'B' },
    { label: 'Paired', sub: 'tasks', num: true, title: 'Tasks scored in both arms (only those pair)' },
    { label: 'Dropped', sub: 'tasks', num: true, title: 'Tasks one arm has a pair for that are not scored in both (unscored or missing in an arm)' },
    { label: 'W / L / T', num: true, title: 'A right and B wrong / the reverse / equal' },
    { label: 'McNemar p', sub: 'exact', num: true, title: 'Exact two-sided' },
    { label: 'Holm p', num: true, title: 'Holm-adjusted within its family (one backend, one outcome)' },
    { label: 'Holm family', title: 'The comparisons adjusted together: one backend (or pair of backends), selected-output correctness' },
    { label: 'Δ selected', sub: ci, num: true, title: 'A − B in selected-output correctness, paired bootstrap' },
    ...ks.flatMap((k) => [
      { label: `Δ Pass@${k}`, sub: ci, num: true },
      {
        label: `Pass@${k} p`,
        sub: 'sign-flip',
        num: true,
        title: 'Paired sign-flip permutation test of the per-task Pass@k differences (exact up to 20 differing tasks)',
      },
    ]),
  ];
  const rows = model.comparisons.map((c) => {
    const pk = new Map(c.passAtKDiff.map((p) => [p.k, p.diff]));
    const cells = [
      td(`${h(name(c.a.runId, c.a.condition, c.a.label))}<br><code class="muted">${h(c.a.condition)}</code>`, 'a', 'name'),
      td(`${h(name(c.b.runId, c.b.condition, c.b.label))}<br><code class="muted">${h(c.b.condition)}</code>`, 'b', 'name'),
      td(formatInt(c.tasks), 'tasks', 'num'),
      td(c.dropped.tasks ? `<span title="${h(droppedText(c))}">${formatInt(c.dropped.tasks)}</span>` : '0', 'dropped', 'num'),
      td(`${formatInt(c.wins)} / ${formatInt(c.losses)} / ${formatInt(c.ties)}`, 'wlt', 'num'),
      td(flaggedHtml(formatP(c.mcnemarP), mcnemarFlag(c)), 'mcnemarP', 'num'),
      td(flaggedHtml(formatP(c.mcnemarPHolm), mcnemarFlag(c)), 'mcnemarPHolm', 'num'),
      td(`${h(c.holmFamily.key)} <span class="muted">(${formatInt(c.holmFamily.size)})</span>`, 'holmFamily', 'name'),
      td(intervalHtml(c.selectedDiff, true), 'selectedDiff', 'num'),
      ...ks.flatMap((k) => {
        const d = pk.get(k);
        const t = c.passAtKDiff.find((p) => p.k === k)?.test;
        return [
          td(d ? intervalHtml(d, true) : 'n/a', `pass@${k}Diff`, 'num'),
          td(t ? flaggedHtml(formatP(t.p), permutationFlag(t)) : 'n/a', `pass@${k}P`, 'num'),
        ];
      }),
    ];
    return `<tr data-run="${h(c.a.runId)}" data-a="${h(c.a.condition)}" data-b="${h(c.b.condition)}">${cells.join('')}</tr>`;
  });
  return table('comparisons', headers, rows);
}

export function tasksHtml(model: ReportModel): string {
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
    { label: 'Replies', sub: 'without code', title: REPLIES_MEANING },
    { label: 'Cost', num: true },
    { label: 'Duration', num: true },
    { label: 'Unscored', sub: 'cause', title: UNSCORED_MEANING },
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
      td(failed ? '' : h(taskRepliesText(t)), 'replies'),
      td(formatUsd(t.costUsd), 'costUsd', 'num'),
      td(formatMs(t.durationMs), 'durationMs', 'num'),
      td(failed ? h(t.unscored ?? 'unscored') : '', 'unscored', failed ? 'fail' : ''),
      td(failed ? h(t.error!) : '', 'error', failed ? 'error' : ''),
    ];
    return `<tr data-run="${h(t.runId)}" data-condition="${h(t.condition)}" data-task="${h(t.taskId)}">${cells.join('')}</tr>`;
  });
  return `<details id="tasks-details"><summary>Per-task results — ${formatInt(model.tasks.length)} rows (${formatInt(model.tasks.filter((t) => t.error).length)} unscored)</summary>\n${table('tasks', headers, rows)}\n</details>`;
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
        `<h3>Run <code>${h(g.runId)}</code>${g.run ? ` <span class="muted">${h(KIND_LABEL[g.run.kind])} · ${h(backendName(g.run))}</span>` : ''} ${isPartial(g.run) ? `<span class="badge partial">partial</span>` : ''}</h3>\n${summaryTableHtml(g.conditions, level)}\n${scoringHtml(g.conditions)}\n${verdictsApartHtml(g.conditions)}`,
    )
    .join('\n');

  const body = [
    `<header>`,
    `<h1>${h(model.title)}</h1>`,
    `<p class="meta">Generated ${h(model.generatedAt)} by ${h(model.tool.name)} ${h(model.tool.version)} · ${formatInt(model.runs.length)} run(s), ${formatInt(model.conditions.length)} condition(s), ${formatInt(model.tasks.length)} task rows · intervals are ${level} percentile bootstrap (${formatInt(model.statistics.resamples)} resamples, seed ${h(String(model.statistics.seed))})</p>`,
    ...partialRuns.map(
      (r) => `<div class="banner partial" role="alert">⚠ Run <code>${h(r.id)}</code> is ${h(partialText(r))}. Its figures are not final.</div>`,
    ),
    `<nav class="toc"><a href="#runs">Runs</a><a href="#summary">Summary</a><a href="#charts">Charts</a><a href="#comparisons">Comparisons</a><a href="#factorial">Factorial effects</a><a href="#tasks">Per-task</a><a href="#statistics">Statistics</a></nav>`,
    `</header>`,
    `<section id="runs"><h2>Runs and provenance</h2>`,
    model.runs.length ? model.runs.map(runProvenanceHtml).join('\n') : `<p class="muted">No runs.</p>`,
    `</section>`,
    `<section id="summary"><h2>Summary by condition</h2>`,
    summary || `<p class="muted">No condition summaries.</p>`,
    `</section>`,
    `<section id="charts"><h2>Charts</h2>`,
    chartsHtml(model, level),
    `</section>`,
    `<section id="comparisons"><h2>Paired comparisons</h2>`,
    `<p class="muted">Selected-output correctness paired by task, over the tasks scored in both arms (Dropped counts the rest); W = A right and B wrong. McNemar p is exact two-sided; Holm p is adjusted over all comparisons in this report. Δ = A − B.</p>`,
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
