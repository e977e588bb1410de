// The CSV report: RFC 4180 tables (tasks, candidates, conditions, effects, comparisons, runs).

import type { Interval, ReportModel } from '../../model/report.ts';
import { comparisonKs, passKs } from './format.ts';

// ---------------------------------------------------------------------------------------------------------
// CSV

export type CsvTable = 'tasks' | 'candidates' | 'conditions' | 'effects' | 'comparisons' | 'runs';

export type CsvValue = string | number | boolean | null | undefined;

/** One RFC 4180 field: empty for null/NaN, true/false for booleans, quoted when it holds `,` `"` CR or LF. */
export function csvField(v: CsvValue): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  if (typeof v === 'number') return Number.isFinite(v) ? String(v) : '';
  return /[",\r\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v;
}

export function csv(header: string[], rows: CsvValue[][]): string {
  return [header, ...rows].map((r) => r.map(csvField).join(',') + '\r\n').join('');
}

export const ivCols = (iv: Interval | undefined): CsvValue[] => [iv?.estimate, iv?.lo, iv?.hi];
export const ivHead = (name: string): string[] => [name, `${name}_lo`, `${name}_hi`];

export function renderCsv(model: ReportModel): Record<CsvTable, string> {
  const tasks = csv(
    [
      'runId',
      'condition',
      'taskId',
      'n',
      'c',
      'pass1',
      'selectedCorrect',
      'selectedOrigin',
      'selectedIndex',
      'repairRounds',
      'repairRecovered',
      'uncertainty',
      'apiF1',
      'apiF1TaskView',
      'costUsd',
      'durationMs',
      'error',
    ],
    model.tasks.map((t) => [
      t.runId,
      t.condition,
      t.taskId,
      t.n,
      t.c,
      t.pass1,
      t.selectedCorrect,
      t.selectedOrigin,
      t.selectedIndex,
      t.repairRounds,
      t.repairRecovered,
      t.uncertainty,
      t.apiF1,
      t.apiF1TaskView,
      t.costUsd,
      t.durationMs,
      t.error,
    ]),
  );

  const candidates = csv(
    ['runId', 'condition', 'taskId', 'index', 'group', 'status', 'passed', 'passedTests', 'totalTests', 'durationMs', 'reason'],
    model.candidates.map((c) => [c.runId, c.condition, c.taskId, c.index, c.group, c.status, c.passed, c.passedTests, c.totalTests, c.durationMs, c.reason]),
  );

  const ks = passKs(model.conditions);
  const conditions = csv(
    [
      'runId',
      'condition',
      'label',
      'family',
      'tasks',
      'failures',
      'samples',
      ...ks.flatMap((k) => ivHead(`pass@${k}`)),
      ...ivHead('rawPass1'),
      ...ivHead('selectedCorrect'),
      'repairAttempted',
      'repairRecovered',
      'repairRate',
      'uncertaintyMean',
      'auroc',
      'auprc',
      'ece',
      'uncertaintyDegenerate',
      // API retrieval: the repository protocol (strict keys, tasks with truth), then the task-view protocol (bare names, all tasks).
      'apiMatching',
      'apiTasks',
      'apiPrecision',
      'apiRecall',
      'apiF1',
      'apiExact',
      'apiCountOver',
      'apiCountExact',
      'apiCountUnder',
      'apiTaskViewMatching',
      'apiTaskViewTasks',
      'apiTaskViewEmptyTruth',
      'apiTaskViewPrecision',
      'apiTaskViewRecall',
      'apiTaskViewF1',
      'apiTaskViewExact',
      'apiTaskViewCountOver',
      'apiTaskViewCountExact',
      'apiTaskViewCountUnder',
      'costUsd',
      'inputTokens',
      'outputTokens',
      'flakyCandidates',
      'candidateVerdicts',
      'flakySelected',
      'flakyTaskIds',
      'warnings',
    ],
    model.conditions.map((c) => [
      c.runId,
      c.condition,
      c.label,
      c.family,
      c.tasks,
      c.failures,
      c.samples,
      ...ks.flatMap((k) => ivCols(c.passAtK.find((p) => p.k === k)?.value)),
      ...ivCols(c.rawPass1),
      ...ivCols(c.selectedCorrect),
      c.repair.attempted,
      c.repair.recovered,
      c.repair.rate,
      c.uncertainty.mean,
      c.uncertainty.auroc,
      c.uncertainty.auprc,
      c.uncertainty.ece,
      c.uncertainty.degenerate ?? '',
      c.api?.matching,
      c.api?.tasks,
      c.api?.precision,
      c.api?.recall,
      c.api?.f1,
      c.api?.exact,
      c.api?.count.over,
      c.api?.count.exact,
      c.api?.count.under,
      c.apiTaskView?.matching,
      c.apiTaskView?.tasks,
      c.apiTaskView?.emptyTruth,
      c.apiTaskView?.precision,
      c.apiTaskView?.recall,
      c.apiTaskView?.f1,
      c.apiTaskView?.exact,
      c.apiTaskView?.count.over,
      c.apiTaskView?.count.exact,
      c.apiTaskView?.count.under,
      c.cost.usd,
      c.cost.inputTokens,
      c.cost.outputTokens,
      // Task ids may hold spaces and commas, so the list is a JSON array: one field, parsed back unambiguously.
      c.flaky.candidates,
      c.flaky.candidateVerdicts,
      c.flaky.selected,
      JSON.stringify(c.flaky.taskIds),
      JSON.stringify(c.warnings ?? []),
    ]),
  );

  const effects = csv(
    [
      'runId',
      'backend',
      'pairedTasks',
      'test',
      'outcome',
      'outcomeLabel',
      'effect',
      'kind',
      'factors',
      'estimate',
      'lo',
      'hi',
      'p',
      'pHolm',
      'informativeTasks',
      'significant',
      'degenerate',
    ],
    model.factorial.flatMap((fa) =>
      fa.outcomes.flatMap((o) =>
        o.effects.map((e) => [
          fa.runId,
          fa.backend,
          fa.tasks,
          fa.test,
          o.outcome,
          o.label,
          e.name,
          e.kind,
          e.factors.join('+'),
          e.value.estimate,
          e.value.lo,
          e.value.hi,
          e.p,
          e.pHolm,
          e.informativeTasks,
          e.significant,
          e.degenerate ?? '',
        ]),
      ),
    ),
  );

  const cks = comparisonKs(model.comparisons);
  const comparisons = csv(
    [
      'runId',
      'aCondition',
      'aLabel',
      'bRunId',
      'bCondition',
      'bLabel',
      'tasks',
      'wins',
      'losses',
      'ties',
      'mcnemarP',
      'mcnemarPHolm',
      'holmFamily',
      'holmFamilySize',
      ...ivHead('selectedDiff'),
      ...cks.flatMap((k) => [...ivHead(`pass@${k}Diff`), `pass@${k}P`]),
    ],
    model.comparisons.map((c) => [
      c.a.runId,
      c.a.condition,
      c.a.label,
      c.b.runId,
      c.b.condition,
      c.b.label,
      c.tasks,
      c.wins,
      c.losses,
      c.ties,
      c.mcnemarP,
      c.mcnemarPHolm,
      c.holmFamily.key,
      c.holmFamily.size,
      ...ivCols(c.selectedDiff),
      ...cks.flatMap((k) => [...ivCols(c.passAtKDiff.find((p) => p.k === k)?.diff), c.passAtKDiff.find((p) => p.k === k)?.test.p]),
    ]),
  );

  // Provenance of every run, so the CSV set carries what the HTML and JSON carry.
  const runs = csv(
    [
      'runId',
      'kind',
      'status',
      'createdAt',
      'finishedAt',
      'manifestFile',
      'manifestHash',
      'manifestTasks',
      'conditions',
      'backend',
      'provider',
      'model',
      'encoder',
      'promptVersion',
      'promptHash',
      'configHashes',
      'sandbox',
      'machine',
      'app',
      'appVersion',
      'commit',
    ],
    model.runs.map((r) => [
      r.id,
      r.kind,
      r.status,
      r.createdAt,
      r.finishedAt,
      r.manifest.file,
      r.manifest.hash,
      r.manifest.tasks,
      r.conditions.map((c) => c.id).join(' '),
      r.backend.id,
      r.backend.provider,
      r.backend.model,
      r.encoder.name,
      r.prompts.version,
      r.prompts.hash,
      r.configHashes.join(' '),
      r.sandbox,
      `${r.machine.platform} ${r.machine.arch}, ${r.machine.cpus} CPUs, ${r.machine.memoryGiB} GiB, Node ${r.machine.node}`,
      r.app.name,
      r.app.version,
      r.app.commit,
    ]),
  );
  return { tasks, candidates, conditions, effects, comparisons, runs };
}
