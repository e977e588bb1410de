// The Markdown report (GitHub tables).

import { plural } from '../../model/format.ts';
import { minedSetText } from '../mined-set.ts';
import { backendDisplayLabel } from '../../model/backend-label.ts';
import type { ConditionSummary, FactorialAnalysis, ReportModel } from '../../model/report.ts';
import {
  API_COLUMNS_NOTE,
  apiProtocolLabel,
  comparisonKs,
  conditionsByRun,
  backendName,
  displayNames,
  droppedText,
  finite,
  flaggedText,
  formatDuration,
  formatInt,
  formatInterval,
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
  permutationFlag,
  passKs,
  percentLevel,
  REPLIES_MEANING,
  repliesText,
  scoredText,
  taskRepliesText,
  testName,
  uncertaintyFlag,
  UNSCORED_MEANING,
  VERDICTS_APART,
} from './format.ts';

// ---------------------------------------------------------------------------------------------------------
// Markdown

/** Text safe inside a GitHub Markdown table cell or heading. */
export function md(s: string): string {
  return s
    .replace(/\\/g, '\\\\')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/\|/g, '\\|')
    .replace(/[*_`[\]#]/g, '\\$&')
    .replace(/\r\n|\r|\n/g, ' ');
}

export const MD_PLAIN = /^[A-Za-z0-9._:/+@=-]+$/;

/** A code span when the text is plain enough, else escaped text. */
export function mdCode(s: string): string {
  return MD_PLAIN.test(s) ? `\`${s}\`` : md(s);
}

/** An id in running text: a code span when plain, else escaped text in inline <code>, so a list of ids keeps its boundaries. */
export function mdId(s: string): string {
  return MD_PLAIN.test(s) ? mdCode(s) : `<code>${md(s)}</code>`;
}

export function mdTable(headers: string[], rows: string[][], align?: ('l' | 'r')[]): string {
  const sep = headers.map((_, i) => (align?.[i] === 'r' ? '---:' : '---'));
  return [`| ${headers.join(' | ')} |`, `| ${sep.join(' | ')} |`, ...rows.map((r) => `| ${r.join(' | ')} |`)].join('\n');
}

export function renderMarkdown(model: ReportModel): string {
  const level = percentLevel(model);
  return [
    ...headerMd(model, level),
    ...runsMd(model),
    ...summaryMd(model, level),
    ...comparisonsMd(model, level),
    ...factorialMd(model, level),
    ...tasksMd(model),
    ...statisticsMd(model, level),
  ].join('\n');
}

/** Title, what made the report, and a warning for each partial run. */
function headerMd(model: ReportModel, level: string): string[] {
  const out: string[] = [];
  out.push(`# ${md(model.title)}`, '');
  out.push(
    `Generated ${md(model.generatedAt)} by ${md(model.tool.name)} ${md(model.tool.version)} · ${model.runs.length} run(s), ${model.conditions.length} condition(s), ${model.tasks.length} task rows · intervals are ${level} percentile bootstrap (${formatInt(model.statistics.resamples)} resamples, seed ${md(String(model.statistics.seed))}).`,
    '',
  );
  out.push('_The charts (factorial forest plots, Pass@k, reliability diagrams, API retrieval) are in the HTML report._', '');
  for (const r of model.runs.filter(isPartial)) out.push(`> **⚠ Run ${mdCode(r.id)} is ${md(partialText(r))}.** Its figures are not final.`, '');
  return out;
}

/** Per run: its provenance table and its conditions with their config hashes. */
function runsMd(model: ReportModel): string[] {
  const out: string[] = ['## Runs and provenance', ''];
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
          ...(run.manifest.mined ? [['Mined set', md(minedSetText(run.manifest.mined))]] : []),
          ['Backend', `${md(backendName(run))} (${md(run.backend.provider)} · model ${mdCode(run.backend.model)} · id ${mdCode(run.backend.id)})`],
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
  return out;
}

/** Per run with conditions: the summary table, the API retrieval table by protocol, and the flaky and in-process verdicts. */
function summaryMd(model: ReportModel, level: string): string[] {
  const out: string[] = ['## Summary by condition', ''];
  for (const g of conditionsByRun(model).filter((x) => x.conditions.length)) {
    out.push(
      `### Run ${mdCode(g.runId)}${g.run ? ` — ${md(KIND_LABEL[g.run.kind])} · ${md(backendName(g.run))}` : ''}${isPartial(g.run) ? ' (partial)' : ''}`,
      '',
    );
    out.push(conditionTableMd(g.conditions, level), '');
    out.push(`_${md(API_COLUMNS_NOTE)}_`, '');
    const warned = g.conditions.flatMap((c) => (c.warnings ?? []).map((w) => `- **Degenerate** — ${md(c.label)}: ${md(w)}`));
    if (warned.length) out.push(...warned, '');
    out.push(...apiByProtocolMd(g.conditions));
    out.push(...scoringMd(g.conditions));
    out.push(...verdictsApartMd(g.conditions));
  }
  return out;
}

/** Per kind of verdict counted apart (flaky, in-process): what it means, and a line per condition with its counts and task ids. */
function verdictsApartMd(conditions: ConditionSummary[]): string[] {
  return VERDICTS_APART.flatMap((kind) => [
    `**${md(kind.title)}.** ${md(kind.meaning)}`,
    '',
    ...conditions.map((c) => {
      const ids = kind.ids(c).map(mdId).join(', ');
      return `- ${md(c.label)} (${mdCode(c.condition)}): ${md(kind.text(c))}${ids ? ` ${ids}` : ''}`;
    }),
    '',
    ...(kind.reasons ? inProcessReasonsMd(conditions) : []),
  ]);
}

/** The run's in-process tasks with why each was not isolated (nothing when no condition has one). */
function inProcessReasonsMd(conditions: ConditionSummary[]): string[] {
  const rows = inProcessReasonRows(conditions);
  if (!rows.length) return [];
  return [
    `_${md(IN_PROCESS_REASONS_TITLE)}._ ${md(IN_PROCESS_REASONS_MEANING)}`,
    '',
    mdTable(
      ['Condition', 'Task', 'Why in-process', 'Verdicts'],
      rows.map((r) => [`${md(r.c.label)} (${mdCode(r.c.condition)})`, mdId(r.taskId), md(r.reason), String(r.verdicts)]),
      ['l', 'l', 'l', 'r'],
    ),
    '',
  ];
}

/** Per condition: what its figures are over and what they leave out (unscored pairs), and its replies without code. */
function scoringMd(conditions: ConditionSummary[]): string[] {
  return [
    `**Scored and unscored pairs; replies without code.** ${md(UNSCORED_MEANING)} ${md(REPLIES_MEANING)}`,
    '',
    mdTable(
      ['Condition', 'Figures are over (and unscored by cause)', 'Replies without code'],
      conditions.map((c) => [`${md(c.label)} (${mdCode(c.condition)})`, md(scoredText(c)), md(repliesText(c.replies))]),
    ),
    '',
  ];
}

/** One run's conditions, a row each: Pass@k, selection, repair, uncertainty, API retrieval and cost. */
function conditionTableMd(conditions: ConditionSummary[], level: string): string {
  const ks = passKs(conditions);
  const headers = [
    'Condition',
    'Family',
    'Tasks',
    'Unscored',
    'n',
    ...ks.map((k) => `Pass@${k} [${level}]`),
    `Raw Pass@1 [${level}]`,
    `Selected correct [${level}]`,
    'Repair recovered',
    'Mean U',
    'AUROC',
    'AUPRC',
    'ECE',
    'API P (repository)',
    'API R (repository)',
    'API F1 (repository)',
    'API F1 (task-view)',
    'API exact (task-view)',
    'Cost',
    'Tokens in / out',
  ];
  const rows = conditions.map((c) => [
    `${md(c.label)} (${mdCode(c.condition)})`,
    md(c.family),
    formatInt(c.tasks),
    formatInt(c.unscored.total),
    formatInt(c.samples),
    ...ks.map((k) => {
      const v = c.passAtK.find((p) => p.k === k)?.value;
      return v ? formatInterval(v) : 'n/a';
    }),
    formatInterval(c.rawPass1),
    formatInterval(c.selectedCorrect),
    `${formatInt(c.repair.recovered)}/${formatInt(c.repair.attempted)} (${formatRate(c.repair.rate)})`,
    formatRate(c.uncertainty.mean),
    ...(['auroc', 'auprc', 'ece'] as const).map((stat) => md(flaggedText(formatRate(c.uncertainty[stat]), uncertaintyFlag(c.uncertainty, stat, c.tasks)))),
    formatRate(c.api?.precision),
    formatRate(c.api?.recall),
    formatRate(c.api?.f1),
    formatRate(c.apiTaskView?.f1),
    formatRate(c.apiTaskView?.exact),
    formatUsd(c.cost.usd),
    `${formatInt(c.cost.inputTokens)} / ${formatInt(c.cost.outputTokens)}`,
  ]);
  return mdTable(
    headers,
    rows,
    headers.map((_, i) => (i < 2 ? 'l' : 'r')),
  );
}

/** API retrieval per condition and protocol (repository, task view); nothing when no condition has it. */
function apiByProtocolMd(conditions: ConditionSummary[]): string[] {
  const apiRows = conditions.flatMap((c) =>
    (
      [
        ['repository', c.api],
        ['task-view', c.apiTaskView],
      ] as const
    )
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
  if (!apiRows.length) return [];
  return [
    '**API retrieval by protocol.**',
    '',
    mdTable(['Condition', 'Protocol · matching · tasks', 'P', 'R', 'F1', 'Exact', 'Count over / exact / under'], apiRows, ['l', 'l', 'r', 'r', 'r', 'r', 'r']),
    '',
  ];
}

function comparisonsMd(model: ReportModel, level: string): string[] {
  const out: string[] = ['## Paired comparisons', ''];
  if (!model.comparisons.length) {
    out.push('_No paired comparisons in this report._', '');
    return out;
  }
  const name = displayNames(model);
  const ks = comparisonKs(model.comparisons);
  const headers = [
    'A',
    'B',
    'Paired tasks',
    'Dropped',
    'W / L / T',
    'McNemar p',
    'Holm p',
    'Holm family',
    `Δ selected correct [${level}]`,
    ...ks.flatMap((k) => [`Δ Pass@${k} [${level}]`, `Pass@${k} p (sign-flip)`]),
  ];
  out.push(
    mdTable(
      headers,
      model.comparisons.map((c) => [
        md(name(c.a.runId, c.a.condition, c.a.label)),
        md(name(c.b.runId, c.b.condition, c.b.label)),
        formatInt(c.tasks),
        md(droppedText(c) || '0'),
        `${formatInt(c.wins)} / ${formatInt(c.losses)} / ${formatInt(c.ties)}`,
        md(flaggedText(formatP(c.mcnemarP), mcnemarFlag(c))),
        md(flaggedText(formatP(c.mcnemarPHolm), mcnemarFlag(c))),
        `${md(c.holmFamily.key)} (${formatInt(c.holmFamily.size)})`,
        formatInterval(c.selectedDiff),
        ...ks.flatMap((k) => {
          const p = c.passAtKDiff.find((x) => x.k === k);
          return [p ? formatInterval(p.diff) : 'n/a', p ? md(flaggedText(formatP(p.test.p), permutationFlag(p.test))) : 'n/a'];
        }),
      ]),
      headers.map((_, i) => (i < 2 ? 'l' : 'r')),
    ),
    '',
    `_Only tasks scored in both arms pair; Dropped counts the rest. W = A right and B wrong. McNemar p exact two-sided; Holm p adjusted within its family (the comparisons of one backend, or pair of backends; count in brackets). Pass@k p: paired sign-flip permutation test. Δ = A − B._`,
    '',
  );
  return out;
}

/** Per factorial run: the effects on each outcome, then the cell means over the paired tasks. */
function factorialMd(model: ReportModel, level: string): string[] {
  const out: string[] = ['## Factorial effects (2³: API × Context × Similar code)', ''];
  if (!model.factorial.length) out.push('_No 2³ factorial ablation run (kind "ablate") in this report._', '');
  for (const fa of model.factorial) {
    out.push(
      `### Run ${mdCode(fa.runId)} · backend ${md(backendDisplayLabel({ id: fa.backend }))} · ${plural(fa.tasks, 'paired task')}${fa.dropped ? ` (${formatInt(fa.dropped)} dropped: unscored or missing in a cell)` : ''} · ${md(testName(fa.test))}`,
      '',
    );
    for (const o of fa.outcomes) {
      out.push(`#### ${md(o.label)}`, '');
      if (o.degenerate) out.push(`**Degenerate:** ${md(o.degenerate)}. No effect on it is marked significant.`, '');
      out.push(
        mdTable(
          ['Effect', 'Kind', 'Factors', `Estimate [${level}]`, 'p', 'Holm p', 'Informative tasks', 'Flag'],
          o.effects.map((e) => [
            md(e.name),
            md(e.kind),
            md(e.factors.join(' × ')),
            formatInterval(e.value),
            formatP(e.p),
            formatP(e.pHolm),
            formatInt(e.informativeTasks),
            e.degenerate ? `degenerate: ${md(e.degenerate)}` : e.significant ? '*' : '',
          ]),
          ['l', 'l', 'l', 'r', 'r', 'r', 'r', 'l'],
        ),
        '',
      );
    }
    out.push(...cellMeansMd(fa));
  }
  return out;
}

function cellMeansMd(fa: FactorialAnalysis): string[] {
  const cellIds = [...new Set(fa.outcomes.flatMap((o) => o.cells.map((c) => c.cell)))];
  if (!cellIds.length) return [];
  return [
    '#### Cell means over the paired tasks',
    '',
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
  ];
}

/** Every task row in a collapsed table (a failed row shows its error instead of its figures). */
function tasksMd(model: ReportModel): string[] {
  return [
    '## Per-task results',
    '',
    `<details><summary>${model.tasks.length} task rows (${model.tasks.filter((t) => t.error).length} unscored)</summary>`,
    '',
    mdTable(
      [
        'Run',
        'Condition',
        'Task',
        'n',
        'c',
        'Raw Pass@1',
        'Selected',
        'Origin',
        'Repair rounds',
        'Recovered',
        'Uncertainty',
        'API F1 (repository)',
        'API F1 (task-view)',
        'Replies without code',
        'Cost',
        'Duration',
        'Unscored',
        'Error',
      ],
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
          f ? '' : md(taskRepliesText(t)),
          formatUsd(t.costUsd),
          formatMs(t.durationMs),
          f ? md(t.unscored ?? 'unscored') : '',
          f ? md(t.error!) : '',
        ];
      }),
      ['l', 'l', 'l', 'r', 'r', 'r', 'l', 'l', 'r', 'l', 'r', 'r', 'r', 'l', 'r', 'r', 'l', 'l'],
    ),
    '',
    '</details>',
    '',
    `_The ${model.candidates.length} per-candidate rows are in the JSON and CSV exports._`,
    '',
  ];
}

function statisticsMd(model: ReportModel, level: string): string[] {
  const out: string[] = ['## Statistics', ''];
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
  return out;
}
