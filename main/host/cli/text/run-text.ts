// How a run reads in a terminal: the summary table of its conditions, the unscored and set-apart verdicts, the
// comparisons and the factorial effects (the report's figures, from experiment/analysis.ts), and a finished run's
// outcome with what to do next.

import type { RunOutcome } from '../../../experiment/runner.ts';
import type { QueueAddress } from '../../../experiment/queue/url.ts';
import type { estimateRun } from '../../../experiment/orchestrate.ts';
import { spendText } from './generate-text.ts';
import { displayNames, droppedText, repliesText, scoredText, VERDICTS_APART } from '../../../experiment/report/format.ts';
import type { ReportModel } from '../../../model/report.ts';
import { counts as fmtCounts, duration as fmtDuration, fixed, interval as fmtInterval, plural, usd as fmtUsd } from '../../../model/format.ts';

const f3 = (x: number | null | undefined) => fixed(x, 3);
const usd = (x: number | null) => fmtUsd(x, 'unknown (no price)');

/** Per condition with unscored pairs or replies without code: its n and what was left out or named. */
function scoringLines(model: ReportModel, name: ReturnType<typeof displayNames>): string[] {
  return model.conditions
    .filter((c) => c.unscored.total || c.replies.empty + c.replies.noCode + c.replies.refused + c.replies.unknown)
    .map(
      (c) =>
        `${name(c.runId, c.condition, c.label)}: ${scoredText(c)} (unscored pairs are excluded from every figure); ${repliesText(c.replies)} (failed samples)`,
    );
}

/** Task ids a summary line lists before it points to the report, which lists them all. */
const SUMMARY_IDS = 10;

/**
 * Per kind counted apart (flaky and in-process verdicts, leak suspects), a line per condition with any, and the leak
 * audit's line for every audited condition (`leak suspects: 0` is worth saying): its counts and (the first) task ids.
 */
export function verdictsApartLines(model: ReportModel, name: ReturnType<typeof displayNames>): string[] {
  return VERDICTS_APART.flatMap((kind) =>
    model.conditions
      .map((c) => ({ c, ids: kind.ids(c) }))
      .filter(({ c, ids }) => ids.length || (kind.list === 'leak' && c.leak.audited > 0))
      .map(({ c, ids }) =>
        `${name(c.runId, c.condition, c.label)}: ${kind.text(c)} ${ids.slice(0, SUMMARY_IDS).join(', ')}${ids.length > SUMMARY_IDS ? ` and ${ids.length - SUMMARY_IDS} more (the report lists them all)` : ''}`.trimEnd(),
      ),
  );
}

/**
 * The summary table and comparisons. A condition's name is the report's display name (displayNames): with its run id
 * when another run shows the same name, so two runs of one method are told apart; `runLabels` (compare) first lists
 * each run's id and label.
 */
export function summaryLines(model: ReportModel, runLabels?: ReadonlyMap<string, string | null>): string[] {
  const name = displayNames(model);
  const names = model.conditions.map((c) => name(c.runId, c.condition, c.label));
  const width = Math.max(34, ...names.map((n) => n.length));
  const lines = runLabels ? [...runLabels].map(([id, label]) => `Run ${id}${label ? `: ${label}` : ''}`) : [];
  lines.push(`${'condition'.padEnd(width)} tasks unscd  Pass@1                 selected-correct       raw Pass@1  uncert.  API F1 repo/view  cost`);
  model.conditions.forEach((c, i) => {
    const p1 = c.passAtK.find((p) => p.k === 1)?.value;
    lines.push(
      `${names[i]!.padEnd(width)} ${String(c.tasks).padStart(5)} ${String(c.unscored.total).padStart(5)}  ${(p1 ? fmtInterval(p1) : 'n/a').padEnd(22)} ${fmtInterval(c.selectedCorrect).padEnd(22)} ${f3(c.rawPass1.estimate).padStart(10)}  ${f3(c.uncertainty.mean).padStart(7)}  ${`${c.api ? f3(c.api.f1) : 'n/a'} / ${c.apiTaskView ? f3(c.apiTaskView.f1) : 'n/a'}`.padStart(17)}  ${usd(c.cost.usd)}`,
    );
  });
  lines.push(...scoringLines(model, name), ...verdictsApartLines(model, name));
  for (const cmp of model.comparisons) {
    const dropped = droppedText(cmp);
    lines.push(
      `${cmp.a.label} (${cmp.a.runId}) vs ${cmp.b.label} (${cmp.b.runId}): ${plural(cmp.tasks, 'paired task')}${dropped ? `, ${dropped}` : ''}, W/L/T ${cmp.wins}/${cmp.losses}/${cmp.ties}, McNemar p ${f3(cmp.mcnemarP)} (Holm ${f3(cmp.mcnemarPHolm)} over ${cmp.holmFamily.size} comparison${cmp.holmFamily.size === 1 ? '' : 's'} of ${cmp.holmFamily.key}), Δ selected-correct ${fmtInterval(cmp.selectedDiff)}` +
        (cmp.passAtKDiff.length
          ? `; Δ Pass@1 ${fmtInterval(cmp.passAtKDiff[0]!.diff)}, sign-flip p ${f3(cmp.passAtKDiff[0]!.test.p)} (${cmp.passAtKDiff[0]!.test.method}, ${cmp.passAtKDiff[0]!.test.informative} differing tasks)`
          : ''),
    );
  }
  for (const f of model.factorial) {
    for (const o of f.outcomes) {
      lines.push(
        `Factorial (${plural(f.tasks, 'paired task')}${f.dropped ? `, ${f.dropped} dropped: unscored or missing in a cell` : ''}, ${f.test}) — ${o.label}:`,
      );
      if (o.degenerate) lines.push(`  degenerate: ${o.degenerate}`);
      for (const e of o.effects)
        lines.push(
          `  ${e.name.padEnd(26)} ${fmtInterval(e.value)}  p ${f3(e.p)}  Holm ${f3(e.pHolm)}${e.degenerate ? `  (degenerate: ${e.degenerate})` : e.significant ? '  *' : ''}`,
        );
    }
  }
  return lines;
}

/** A finished (or cancelled) run: its counts and time, the summary, its failed pairs, and the next command. */
export function outcomeLines(kind: 'run' | 'ablate' | 'ladder', outcome: RunOutcome, model: ReportModel): string[] {
  return [
    `Run ${outcome.runId}: ${outcome.status}; ${outcome.ran} ran now, ${outcome.resumed} from before, ${outcome.failed} failed, of ${outcome.total}; ${fmtDuration(outcome.durationMs, '?')}`,
    ...summaryLines(model),
    verdictUseLine(outcome),
    ...(outcome.failed
      ? [
          `Failed: ${outcome.failed} of ${outcome.total} (task, condition) pairs — ${Object.entries(outcome.failures)
            .sort((a, b) => b[1] - a[1])
            .map(([k, n]) => `${k} ${n}`)
            .join(
              ', ',
            )}; these pairs are unscored (${fmtCounts(outcome.unscored)}): excluded from Pass@k and selected-correct, counted beside them; each pair's error is stored with its result, and a resume runs the failed pairs again.`,
        ]
      : []),
    outcome.status === 'cancelled'
      ? `Resume with: opencoder ${kind === 'run' ? 'run' : 'ablate'} --resume ${outcome.runId}`
      : `Report with: opencoder report ${outcome.runId} --format html --out report.html`,
  ];
}

/** How the run's verdicts were come by, and anything the queue refused because its seal did not open. */
export function verdictUseLine(outcome: Pick<RunOutcome, 'verdicts' | 'refused'>): string {
  const u = outcome.verdicts;
  const parts = [`${u.judged} candidate run(s) in the sandbox`, `${u.reused} reused for a byte-identical candidate`];
  if (u.shared) parts.push(`${u.shared} taken from another worker`);
  if (u.sharedRefused) parts.push(`${u.sharedRefused} shared verdict(s) REFUSED (seal did not open; run again here)`);
  const r = outcome.refused;
  if (r && (r.jobs || r.results)) {
    parts.push(
      `${r.jobs} job(s) and ${r.results} result(s) REFUSED by the queue's seal (altered in Redis, or another queue secret): those pairs are unscored, and a resume runs them again`,
    );
  }
  return `Verdicts: ${parts.join('; ')}.`;
}

/** The estimate a run prints before it starts (on stderr), or alone with --estimate-only. */
export function estimateText(est: ReturnType<typeof estimateRun>, pricesSource: string): string {
  return `Estimate before the run: ${est.calls} call(s), ~${est.inputTokens} input / ~${est.outputTokensExpected} output tokens; ${spendText(est)}; ${est.assumptions}. Prices: ${pricesSource}.`;
}

/** Where a queued run's pairs went, and how to start workers for them. */
export function queuedText(
  q: { queue: string; jobs: number; bundles: { kind: string; sha256: string; bytes: number }[]; warning?: string },
  queue: QueueAddress,
): string {
  const bundles = q.bundles.map((b) => `${b.kind} ${b.sha256.slice(0, 12)} (${(b.bytes / 2 ** 20).toFixed(1)} MiB)`).join(', ');
  const text = `Queued ${q.jobs} job(s) on ${q.queue} at ${queue.display}; bundles: ${bundles}. Start workers with: opencoder worker --queue ${queue.display}`;
  return q.warning ? `${text}\n${q.warning}` : text;
}
