// The HTML report's figures: the factorial analysis (effects, forest plot, cell means) and the charts (Pass@k,
// reliability, API retrieval), each as HTML with its inline SVG. html.ts puts them in the page.

import { plural } from '../../model/format.ts';
import { backendDisplayLabel } from '../../model/backend-label.ts';
import {
  MIN_INFORMATIVE_TASKS,
  type ApiAggregate,
  type ConditionSummary,
  type FactorialAnalysis,
  type FactorialOutcome,
  type ReportModel,
} from '../../model/report.ts';
import { forestPlot, groupedBars, reliabilityDiagram } from '../svg-charts.ts';
import {
  API_PROTOCOL,
  apiProtocolLabel,
  conditionsByRun,
  displayNames,
  mixedBackends,
  formatInt,
  formatInterval,
  formatP,
  formatRate,
  isPartial,
  KIND_LABEL,
  OUTCOME_AXIS,
  passKs,
  testName,
  uncertaintyFlag,
} from './format.ts';
import { h, td, intervalHtml, table, missing } from './html-parts.ts';

export function factorialHtml(model: ReportModel, level: string): string {
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
    out.push(
      `<h3>Run <code>${h(fa.runId)}</code> · backend ${h(backendDisplayLabel({ id: fa.backend }))} · ${plural(fa.tasks, 'paired task')}${fa.dropped ? ` (${formatInt(fa.dropped)} dropped: unscored or missing in a cell)` : ''} · ${h(testName(fa.test))} ${isPartial(run) ? `<span class="badge partial">partial run</span>` : ''}</h3>`,
    );
    if (!fa.outcomes.length) out.push(`<p class="muted">The analysis has no outcomes.</p>`);
    fa.outcomes.forEach((o: FactorialOutcome, j) => out.push(...factorialOutcomeHtml(fa, o, `chart-factorial-${i}-${j}`, level)));
    const cells = cellMeansHtml(fa);
    if (cells) out.push(`<h4>Cell means over the paired tasks</h4>`, cells);
  });
  return out.join('\n');
}

/** One outcome of a factorial analysis: its heading, a forest plot of its effects and their table. */
export function factorialOutcomeHtml(fa: FactorialAnalysis, o: FactorialOutcome, chartId: string, level: string): string[] {
  const out: string[] = [`<h4>${h(o.label)}</h4>`];
  if (o.degenerate) out.push(`<p class="warning" data-degenerate="${h(o.outcome)}">Degenerate: ${h(o.degenerate)}. No effect on it is marked significant.</p>`);
  if (!o.effects.length) {
    out.push(missing('factorial-effects', `No effects for ${o.label}.`, 'Too few tasks had a result in all eight cells to estimate effects.'));
  } else {
    out.push(
      `<div class="chart-box">${forestPlot({
        id: chartId,
        chart: 'factorial-effects',
        title: `Factorial effects on ${o.label} — ${fa.runId} (${plural(fa.tasks, 'paired task')})`,
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
  out.push(effectsTableHtml(fa, o, level));
  return out;
}

export function effectsTableHtml(fa: FactorialAnalysis, o: FactorialOutcome, level: string): string {
  return table(
    'effects',
    [
      { label: 'Effect' },
      { label: 'Kind' },
      { label: 'Factors' },
      { label: `Estimate [${level}]`, num: true },
      { label: 'p', num: true, title: testName(fa.test) },
      { label: 'Holm p', num: true },
      { label: 'Informative', sub: 'tasks', num: true, title: 'Tasks whose contrast is not 0' },
      {
        label: 'Flag',
        title: `* significant (Holm p < 0.05); degenerate: too few informative tasks (< ${MIN_INFORMATIVE_TASKS}), no spread or a constant signal`,
      },
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
  );
}

/** The mean of each outcome in each of the eight cells; '' when the analysis has no cells. */
export function cellMeansHtml(fa: FactorialAnalysis): string {
  const cellIds = [...new Set(fa.outcomes.flatMap((o) => o.cells.map((c) => c.cell)))];
  if (!cellIds.length) return '';
  const yes = (b: boolean | undefined) => (b ? '✓' : '—');
  return table(
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
  );
}

/** How the charts name and group conditions: per run (a section each when there are several runs). */
export interface ChartLayout {
  groups: ReturnType<typeof conditionsByRun>;
  section: (g: ReturnType<typeof conditionsByRun>[number]) => string | undefined;
  name: (r: string, c: string, l: string) => string;
}

/**
 * The charts. When the runs came from more than one backend, each run's section (and each reliability panel) names
 * its backend, so no series of one backend stands unlabelled beside another's; the bars keep their short names.
 */
export function chartsHtml(model: ReportModel, level: string): string {
  const groups = conditionsByRun(model);
  const multiRun = groups.length > 1;
  const backends = mixedBackends(model);
  const section: ChartLayout['section'] = (g) =>
    multiRun
      ? `Run ${g.runId}${g.run ? ` — ${KIND_LABEL[g.run.kind]}` : ''}${backends ? ` · ${backends.get(g.runId) ?? 'unknown backend'}` : ''}${isPartial(g.run) ? ' (partial)' : ''}`
      : undefined;
  const layout: ChartLayout = { groups, section, name: displayNames(model, { backend: false }) };
  return [...passAtKChartHtml(model, layout, level), ...reliabilityChartHtml(model, layout.name, backends), ...apiChartsHtml(model, layout)].join('\n');
}

/** (1) Pass@k per condition, a bar per k with its bootstrap interval. */
export function passAtKChartHtml(model: ReportModel, { groups, section, name }: ChartLayout, level: string): string[] {
  const ks = passKs(model.conditions);
  const out: string[] = [`<h3 id="chart-pass-at-k-heading">Pass@k</h3>`];
  if (!ks.length) {
    out.push(missing('pass-at-k', 'No Pass@k to plot.', 'No condition in this report has a Pass@k estimate (no task produced raw samples).'));
    return out;
  }
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
          // n: the scored tasks the bars are over; unscored pairs are left out and said so.
          label: `${name(c.runId, c.condition, c.label)} (n = ${formatInt(c.tasks)}${c.unscored.total ? `; ${formatInt(c.unscored.total)} unscored` : ''})`,
          section: section(g),
          values: ks.map((k) => {
            const v = c.passAtK.find((p) => p.k === k)?.value;
            return v ? { value: v.estimate, lo: v.lo, hi: v.hi } : null;
          }),
        })),
      ),
    })}</div>`,
  );
  return out;
}

/** (2) Reliability: uncertainty as a failure probability against the observed failure rate, a panel per scored condition. */
export function reliabilityChartHtml(model: ReportModel, name: ChartLayout['name'], backends: Map<string, string> | null): string[] {
  const out: string[] = [`<h3>Uncertainty vs correctness</h3>`];
  const scored = model.conditions.filter((c) => c.uncertainty.bins.some((b) => b.count > 0));
  if (!scored.length) {
    out.push(missing('uncertainty-vs-correctness', 'No reliability diagram.', 'No condition has tasks with an uncertainty score, so there is nothing to bin.'));
    return out;
  }
  out.push(
    `<div class="chart-box">${reliabilityDiagram({
      id: 'chart-reliability',
      chart: 'uncertainty-vs-correctness',
      title: `Reliability of uncertainty as P(selected output fails), ${model.statistics.eceBins} bins; n = tasks per bin`,
      xLabel: 'Mean predicted failure probability per bin (uncertainty, 0–1)',
      yLabel: 'Observed failure rate (fraction of tasks, 0–1)',
      panels: scored.map((c) => ({
        label: name(c.runId, c.condition, c.label),
        ...(backends ? { tag: backends.get(c.runId) ?? 'unknown backend' } : {}),
        note: `${(['ece', 'auroc'] as const).map((stat) => `${stat.toUpperCase()} ${formatRate(c.uncertainty[stat])}${uncertaintyFlag(c.uncertainty, stat, c.tasks) ? ' (degenerate)' : ''}`).join(' · ')} · n = ${c.uncertainty.bins.reduce((a, b) => a + b.count, 0)}`,
        bins: c.uncertainty.bins,
      })),
    })}</div>`,
  );
  const unscored = model.conditions.filter((c) => !scored.includes(c));
  if (unscored.length) out.push(`<p class="muted">No scored tasks for: ${unscored.map((c) => h(name(c.runId, c.condition, c.label))).join(', ')}.</p>`);
  return out;
}

/** One API retrieval protocol as the charts show it: which chart, which aggregate, what to say when none has it. */
export interface ApiProtocolChart {
  protocol: ApiAggregate['protocol'];
  chart: string;
  of: (c: ConditionSummary) => ApiAggregate | null;
  none: string;
}

export const API_PROTOCOL_CHARTS: ApiProtocolChart[] = [
  { protocol: 'repository', chart: 'api-f1', of: (c) => c.api, none: 'No task has a non-empty API truth' },
  {
    protocol: 'task-view',
    chart: 'api-f1-task-view',
    of: (c) => c.apiTaskView,
    none: 'No task-view scores (results stored before the task-view protocol, or no task view)',
  },
];

/** (3) API retrieval: one chart per protocol, each saying its matching and the tasks it is over. */
export function apiChartsHtml(model: ReportModel, layout: ChartLayout): string[] {
  const out: string[] = [`<h3>API-knowledge retrieval</h3>`];
  const withApi = model.conditions.filter((c) => c.api || c.apiTaskView);
  if (!withApi.length) {
    out.push(
      missing(
        'api-f1',
        'No API retrieval scores.',
        'No condition has API truth: either no task had a reference with resolvable API calls, or API evidence was off in every condition.',
      ),
    );
    return out;
  }
  for (const pr of API_PROTOCOL_CHARTS) out.push(...apiProtocolChartHtml(model, layout, pr));
  return out;
}

export function apiProtocolChartHtml(model: ReportModel, { groups, section, name }: ChartLayout, pr: ApiProtocolChart): string[] {
  const meta = API_PROTOCOL[pr.protocol];
  const scoredHere = model.conditions.filter((c) => pr.of(c));
  const out: string[] = [
    `<h4 data-api-protocol="${h(pr.protocol)}">${h(`${meta.name} protocol · ${meta.matching}`)}</h4>`,
    `<p class="muted">${h(`${meta.name}: ${meta.meaning}.`)}</p>`,
  ];
  if (!scoredHere.length) {
    out.push(missing(pr.chart, `No ${meta.name}-protocol API scores.`, `${pr.none}.`));
    return out;
  }
  out.push(
    `<div class="chart-box" data-api-protocol="${h(pr.protocol)}">${groupedBars({
      id: `chart-${pr.chart}`,
      chart: pr.chart,
      title: `API-knowledge retrieval — ${apiProtocolLabel(pr.protocol)} · ${pr.protocol === 'repository' ? 'pool: the whole repository · over tasks with truth' : 'pool: the task’s own view · over all tasks'}`,
      xLabel:
        pr.protocol === 'repository'
          ? 'Score (mean over the tasks with a non-empty API truth, 0–1)'
          : 'Score (mean over all tasks, empty truths included, 0–1)',
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
  if (without.length)
    out.push(`<p class="muted">No ${h(meta.name)}-protocol scores for: ${without.map((c) => h(name(c.runId, c.condition, c.label))).join(', ')}.</p>`);
  return out;
}
