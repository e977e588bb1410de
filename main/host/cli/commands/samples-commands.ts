// Published sample sets: `samples import` (another system's generations, kept as published) and `passk`
// (their Pass@k from the official labels). Formats and the estimator: experiment/samples.ts.

import fs from 'node:fs';
import path from 'node:path';
import { allowOf, sandboxModeOf, UsageError, type Command, type CommandResult, type Io } from '../kit.ts';
import { num } from './generate-commands.ts';
import { SAMPLES_SPECS } from './specs.ts';
import { readManifest, type Task } from '../../../benchmarks/manifest.ts';
import { extractCode } from '../../../generate/extract.ts';
import { signatureName } from '../../../generate/prompts.ts';
import { createValidator } from '../../../validate/validator.ts';
import { TaskError } from '../../../validate/workspace.ts';
import { isolationOf } from '../../../model/verdict.ts';
import {
  SAMPLE_FORMATS,
  SampleFormatError,
  agreementOf,
  isolationCounts,
  matchTask,
  type ExecutedTask,
  officialCounts,
  passAtKOf,
  readSamples,
  sampleSetLines,
  type KOverN,
  type SampleFormat,
  type SampleSet,
  type SampleTask,
} from '../../../benchmarks/samples.ts';

function formatOf(values: Record<string, unknown>): SampleFormat | 'auto' {
  const f = (values.format as string | undefined) ?? 'auto';
  if (f !== 'auto' && !(SAMPLE_FORMATS as readonly string[]).includes(f))
    throw new UsageError(`--format must be auto or one of ${SAMPLE_FORMATS.join(', ')} (got ${f})`);
  return f as SampleFormat | 'auto';
}

/** A set written by `samples import`, or any input a reader understands; a format problem is a usage error. */
function readSet(input: string, values: Record<string, unknown>): SampleSet {
  try {
    return readSamples(input, { format: formatOf(values), indexMap: values['index-map'] as string | undefined });
  } catch (err) {
    if (err instanceof SampleFormatError) throw new UsageError(err.message);
    throw err;
  }
}

/**
 * `--labels executed`: every sample of the tasks the manifest holds is run in the sandbox as given (extracted only
 * with --extract), Pass@k is computed from those verdicts, and agreement with the official labels is reported.
 */
async function executedPassK(
  input: string,
  format: string,
  tasks: SampleTask[],
  ks: number[],
  kOverN: KOverN,
  values: Record<string, unknown>,
  io: Io,
): Promise<CommandResult> {
  const manifestFile = values.manifest as string | undefined;
  if (!manifestFile) throw new UsageError('--labels executed needs --manifest FILE: the tasks whose tests run the samples');
  const mode = sandboxModeOf(values);
  const limit = num(values, 'limit', { int: true, min: 1 });
  const manifest = readManifest(manifestFile, { allow: allowOf(values) });
  const matched = tasks.map((t) => ({ set: t, task: matchTask(manifest.tasks, t.taskId) })).filter((x): x is { set: SampleTask; task: Task } => !!x.task);
  const unmatched = tasks.length - matched.length;
  if (!matched.length)
    throw new UsageError(
      `none of the ${tasks.length} tasks of ${input} is in ${manifest.file} (ids like ${tasks
        .slice(0, 3)
        .map((t) => t.taskId)
        .join(', ')})`,
    );
  const chosen = limit ? matched.slice(0, limit) : matched;
  const validator = await createValidator({ sandbox: { mode } });
  const executed: ExecutedTask[] = [];
  // Tasks no sample can be judged on (the reference fails its own tests here, or the task cannot be set up): named
  // with the reason, left out of Pass@k and agreement, and the run goes on with the next task.
  const notJudged: { taskId: string; manifestTaskId: string; reason: string }[] = [];
  try {
    for (const [i, { set, task }] of chosen.entries()) {
      const name = signatureName(task.signature);
      let verdicts;
      try {
        verdicts = await Promise.all(
          set.samples.map((s) => validator.validate(task, values.extract ? extractCode(s.code, { name, qualname: task.qualname }).code : s.code)),
        );
      } catch (err) {
        if (!(err instanceof TaskError)) throw err;
        notJudged.push({ taskId: set.taskId, manifestTaskId: task.id, reason: err.message });
        io.err(`[passk] ${i + 1}/${chosen.length} ${task.id}: not judged: ${err.message}`);
        continue;
      }
      executed.push({
        taskId: set.taskId,
        manifestTaskId: task.id,
        samples: verdicts.map((v, j) => ({
          index: j,
          official: set.samples[j]!.passed ?? null,
          executed: v.status === 'passed',
          status: v.status,
          reason: v.reason,
          isolation: isolationOf(v),
        })),
      });
      if (values.quiet !== true)
        io.err(`[passk] ${i + 1}/${chosen.length} ${task.id}: ${verdicts.filter((v) => v.status === 'passed').length}/${verdicts.length} passed`);
    }
  } finally {
    validator.close();
  }
  if (!executed.length) throw new UsageError(`no task could be judged: ${notJudged.map((t) => `${t.manifestTaskId} (${t.reason})`).join('; ')}`);
  let report;
  try {
    report = passAtKOf(
      executed.map((t) => ({ taskId: t.taskId, n: t.samples.length, c: t.samples.filter((s) => s.executed).length })),
      ks,
      kOverN,
    );
  } catch (err) {
    if (err instanceof RangeError) throw new UsageError(err.message);
    throw err;
  }
  const official = executed.every((t) => t.samples.every((s) => s.official !== null))
    ? passAtKOf(
        executed.map((t) => ({ taskId: t.taskId, n: t.samples.length, c: t.samples.filter((s) => s.official).length })),
        ks,
        kOverN,
      ).passAtK
    : null;
  const agreement = agreementOf(executed);
  const isolation = isolationCounts(executed);
  const text = [
    `${path.resolve(input)} (${format}): ${executed.length} tasks executed against ${manifest.file}${unmatched ? ` (${unmatched} of the set's tasks are not in the manifest)` : ''}${limit ? ` (--limit ${limit})` : ''}; samples ${values.extract ? 'extracted' : 'byte for byte'}`,
    ...ks.map(
      (k) => `pass@${k} executed ${report.passAtK[String(k)]!.toFixed(10)}${official ? `   official ${official[String(k)]!.toFixed(10)} (same tasks)` : ''}`,
    ),
    agreement.labelled
      ? `Agreement with official labels: ${agreement.agree}/${agreement.labelled} samples (${((agreement.rate ?? 0) * 100).toFixed(1)} %); official pass → executed fail ${agreement.officialPassExecutedFail}, official fail → executed pass ${agreement.officialFailExecutedPass}; ${agreement.tasksAgreeing}/${executed.length} tasks agree on every sample`
      : 'No official labels to compare with.',
    ...(notJudged.length
      ? [
          `Not judged: ${notJudged.length} task${notJudged.length === 1 ? '' : 's'} left out of every figure above, their samples not run to the end: ${notJudged.map((t) => `${t.manifestTaskId} (${t.reason})`).join('; ')}`,
        ]
      : []),
    `Isolation: ${isolation.isolated}/${isolation.samples} samples decided isolated (${isolation.tasksIsolated}/${isolation.tasks} tasks), the rest in-process (where the reference showed isolation is not faithful)`,
    `Computed over: ${report.computedOver}; labels: sandboxed runs of the manifest's tests`,
  ];
  return {
    text,
    json: {
      ok: true,
      command: 'passk',
      input: path.resolve(input),
      format,
      labels: 'executed',
      manifest: manifest.file,
      unmatched,
      ...report,
      officialPassAtK: official,
      agreement,
      isolation,
      notJudged,
      executed,
    },
  };
}

function parseKs(raw: string): number[] {
  const ks = raw
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map(Number);
  if (!ks.length || ks.some((k) => !Number.isInteger(k) || k < 1)) throw new UsageError(`--k takes positive integers separated by commas (got ${raw})`);
  return [...new Set(ks)].sort((a, b) => a - b);
}

export const SAMPLES_COMMANDS: Record<string, Command> = {
  samples: {
    ...SAMPLES_SPECS.samples,
    async run({ values, positionals }) {
      const [sub, input, ...extra] = positionals;
      if (sub !== 'import') throw new UsageError('usage: opencoder samples import FILE|DIR --out SET.jsonl');
      if (!input) throw new UsageError('samples import needs the published file or folder');
      if (extra.length) throw new UsageError(`unexpected arguments: ${extra.join(' ')}`);
      const out = values.out as string | undefined;
      if (!out) throw new UsageError('samples import needs --out SET.jsonl (the set is written there, one task per line)');
      const set = readSet(input, values);
      fs.mkdirSync(path.dirname(path.resolve(out)), { recursive: true });
      fs.writeFileSync(out, sampleSetLines(set));
      const samples = set.tasks.reduce((a, t) => a + t.samples.length, 0);
      const labelled = set.tasks.reduce((a, t) => a + t.samples.filter((s) => s.passed !== undefined).length, 0);
      const ns = [...new Set(set.tasks.map((t) => t.samples.length))].sort((a, b) => a - b);
      return {
        text: [
          `Imported ${set.format} samples from ${set.source}`,
          `Tasks: ${set.tasks.length}; samples: ${samples} (n per task: ${ns.join(', ')}); official labels: ${labelled ? `${labelled} of ${samples}` : 'none'}`,
          `Written: ${path.resolve(out)} (each sample byte for byte as published)`,
          labelled === samples && samples
            ? `Pass@k: opencoder passk ${out}`
            : 'Without official labels for every sample there is no official Pass@k; validate the samples against a manifest instead.',
        ],
        json: {
          ok: true,
          command: 'samples import',
          format: set.format,
          source: set.source,
          out: path.resolve(out),
          tasks: set.tasks.length,
          samples,
          labelled,
          samplesPerTask: ns,
        },
      };
    },
  },
  passk: {
    ...SAMPLES_SPECS.passk,
    async run({ values, positionals }, io) {
      const [input, ...extra] = positionals;
      if (!input) throw new UsageError('passk needs a sample set (from samples import) or a published file or folder');
      if (extra.length) throw new UsageError(`unexpected arguments: ${extra.join(' ')}`);
      const labels = values.labels as string;
      if (labels !== 'official' && labels !== 'executed') throw new UsageError(`--labels must be official or executed (got ${labels})`);
      const kOverN = values['k-over-n'] as string;
      if (kOverN !== 'refuse' && kOverN !== 'humaneval') throw new UsageError(`--k-over-n must be refuse or humaneval (got ${kOverN})`);
      const ks = parseKs(values.k as string);
      const set = readSet(input, values);
      const tasks = set.tasks;
      const format = set.format === 'set' ? 'sample set' : set.format;
      if (labels === 'executed') return executedPassK(input, format, tasks, ks, kOverN as KOverN, values, io);
      if (values.manifest || values.extract) throw new UsageError('--manifest and --extract go with --labels executed');
      let report;
      try {
        report = passAtKOf(officialCounts(tasks), ks, kOverN as KOverN);
      } catch (err) {
        if (err instanceof RangeError) throw new UsageError(err.message);
        throw err;
      }
      const text = [
        `${path.resolve(input)} (${format}): ${report.tasks} tasks, ${report.samples} samples (n ${report.n.min === report.n.max ? report.n.min : `${report.n.min}–${report.n.max}`}), official labels`,
        ...ks.map((k) => `pass@${k} ${report.passAtK[String(k)]!.toFixed(10)}`),
        `Computed over: ${report.computedOver}`,
      ];
      return { text, json: { ok: true, command: 'passk', input: path.resolve(input), format, labels, ...report } };
    },
  },
};
