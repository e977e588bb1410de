// How published sample sets read in a terminal: what `samples import` wrote, and the Pass@k tables of `passk`
// (from the official labels, or from executed ones beside the official figures and their agreement).

import path from 'node:path';
import type { PassAtKReport, SampleSet } from '../../../benchmarks/samples.ts';
import type { executedPassAtK, NotJudged } from '../../ops/passk.ts';

/** A set's size: its samples, how many carry an official label, and the distinct numbers of samples per task. */
export function setCounts(set: SampleSet): { samples: number; labelled: number; samplesPerTask: number[] } {
  const samples = set.tasks.reduce((a, t) => a + t.samples.length, 0);
  const labelled = set.tasks.reduce((a, t) => a + t.samples.filter((s) => s.passed !== undefined).length, 0);
  const samplesPerTask = [...new Set(set.tasks.map((t) => t.samples.length))].sort((a, b) => a - b);
  return { samples, labelled, samplesPerTask };
}

/** What `samples import` wrote, and how to get its Pass@k. */
export function sampleImportLines(set: SampleSet, out: string): string[] {
  const { samples, labelled, samplesPerTask } = setCounts(set);
  return [
    `Imported ${set.format} samples from ${set.source}`,
    `Tasks: ${set.tasks.length}; samples: ${samples} (n per task: ${samplesPerTask.join(', ')}); official labels: ${labelled ? `${labelled} of ${samples}` : 'none'}`,
    `Written: ${path.resolve(out)} (each sample byte for byte as published)`,
    labelled === samples && samples
      ? `Pass@k: opencoder passk ${out}`
      : 'Without official labels for every sample there is no official Pass@k; validate the samples against a manifest instead.',
  ];
}

/** Pass@k from the official labels. */
export function officialPassKLines(input: string, format: string, report: PassAtKReport, ks: number[]): string[] {
  const n = report.n.min === report.n.max ? report.n.min : `${report.n.min}–${report.n.max}`;
  return [
    `${path.resolve(input)} (${format}): ${report.tasks} tasks, ${report.samples} samples (n ${n}), official labels`,
    ...ks.map((k) => `pass@${k} ${report.passAtK[String(k)]!.toFixed(10)}`),
    `Computed over: ${report.computedOver}`,
  ];
}

/** What the run was: the set, the manifest, the tasks run and left out, and how the samples were read. */
export interface ExecutedRun {
  input: string;
  format: string;
  manifest: string;
  tasks: number;
  unmatched: number;
  limit: number | undefined;
  extract: boolean;
  notJudged: NotJudged[];
}

/** Pass@k from executed labels, beside the official figures of the same tasks, their agreement and the isolation. */
export function executedPassKLines(run: ExecutedRun, figures: ReturnType<typeof executedPassAtK>, ks: number[]): string[] {
  const { report, official, agreement, isolation } = figures;
  const { notJudged } = run;
  return [
    `${path.resolve(run.input)} (${run.format}): ${run.tasks} tasks executed against ${run.manifest}${run.unmatched ? ` (${run.unmatched} of the set's tasks are not in the manifest)` : ''}${run.limit ? ` (--limit ${run.limit})` : ''}; samples ${run.extract ? 'extracted' : 'byte for byte'}`,
    ...ks.map(
      (k) => `pass@${k} executed ${report.passAtK[String(k)]!.toFixed(10)}${official ? `   official ${official[String(k)]!.toFixed(10)} (same tasks)` : ''}`,
    ),
    agreement.labelled
      ? `Agreement with official labels: ${agreement.agree}/${agreement.labelled} samples (${((agreement.rate ?? 0) * 100).toFixed(1)} %); official pass → executed fail ${agreement.officialPassExecutedFail}, official fail → executed pass ${agreement.officialFailExecutedPass}; ${agreement.tasksAgreeing}/${run.tasks} tasks agree on every sample`
      : 'No official labels to compare with.',
    ...(notJudged.length
      ? [
          `Not judged: ${notJudged.length} task${notJudged.length === 1 ? '' : 's'} left out of every figure above, their samples not run to the end: ${notJudged.map((t) => `${t.manifestTaskId} (${t.reason})`).join('; ')}`,
        ]
      : []),
    `Isolation: ${isolation.isolated}/${isolation.samples} samples decided isolated (${isolation.tasksIsolated}/${isolation.tasks} tasks), the rest in-process (where the reference showed isolation is not faithful)`,
    `Computed over: ${report.computedOver}; labels: sandboxed runs of the manifest's tests`,
  ];
}
