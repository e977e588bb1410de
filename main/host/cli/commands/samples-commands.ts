// Published sample sets: `samples import` (another system's generations, kept as published) and `passk`
// (their Pass@k from the official labels, or from running them: host/ops/passk.ts). Formats and the estimator:
// benchmarks/samples.ts.

import fs from 'node:fs';
import path from 'node:path';
import { allowOf, sandboxModeOf, UsageError, type Command, type CommandResult, type Io } from '../kit.ts';
import { num, type Flags } from '../flags.ts';
import { SAMPLES_SPECS } from '../specs.ts';
import { readManifest } from '../../../benchmarks/manifest-file.ts';
import {
  SAMPLE_FORMATS,
  SampleFormatError,
  officialCounts,
  passAtKOf,
  readSamples,
  sampleSetLines,
  type KOverN,
  type SampleFormat,
  type SampleSet,
  type SampleTask,
} from '../../../benchmarks/samples.ts';
import { executedPassAtK, executeSamples, matchTasks, type TaskOutcome } from '../../ops/passk.ts';
import { executedPassKLines, officialPassKLines, sampleImportLines, setCounts } from '../text/samples-text.ts';

function formatOf(values: Flags): SampleFormat | 'auto' {
  const f = (values.format as string | undefined) ?? 'auto';
  if (f !== 'auto' && !(SAMPLE_FORMATS as readonly string[]).includes(f))
    throw new UsageError(`--format must be auto or one of ${SAMPLE_FORMATS.join(', ')} (got ${f})`);
  return f as SampleFormat | 'auto';
}

/** A set written by `samples import`, or any input a reader understands; a format problem is a usage error. */
function readSet(input: string, values: Flags): SampleSet {
  try {
    return readSamples(input, { format: formatOf(values), indexMap: values['index-map'] as string | undefined });
  } catch (err) {
    if (err instanceof SampleFormatError) throw new UsageError(err.message);
    throw err;
  }
}

/** Pass@k figures; k beyond a task's samples (with --k-over-n refuse) is a usage error. */
function passAtK<T>(compute: () => T): T {
  try {
    return compute();
  } catch (err) {
    if (err instanceof RangeError) throw new UsageError(err.message);
    throw err;
  }
}

/** Each task's line on stderr as it is judged: its passed samples (unless --quiet), or why it was not judged. */
function taskPrinter(values: Flags, io: Io, total: number) {
  return (i: number, task: { id: string }, outcome: TaskOutcome) => {
    if ('notJudged' in outcome) io.err(`[passk] ${i + 1}/${total} ${task.id}: not judged: ${outcome.notJudged}`);
    else if (values.quiet !== true) io.err(`[passk] ${i + 1}/${total} ${task.id}: ${outcome.passed}/${outcome.total} passed`);
  };
}

/**
 * `--labels executed`: every sample of the tasks the manifest holds is run in the sandbox as given (extracted only
 * with --extract), Pass@k is computed from those verdicts, and agreement with the official labels is reported.
 */
async function executedPassK(input: string, format: string, tasks: SampleTask[], ks: number[], kOverN: KOverN, values: Flags, io: Io): Promise<CommandResult> {
  const manifestFile = values.manifest as string | undefined;
  if (!manifestFile) throw new UsageError('--labels executed needs --manifest FILE: the tasks whose tests run the samples');
  const sandbox = sandboxModeOf(values);
  const limit = num(values, 'limit', { int: true, min: 1 });
  const manifest = readManifest(manifestFile, { allow: allowOf(values) });
  const matched = matchTasks(manifest.tasks, tasks);
  const unmatched = tasks.length - matched.length;
  if (!matched.length) {
    const ids = tasks.slice(0, 3).map((t) => t.taskId);
    throw new UsageError(`none of the ${tasks.length} tasks of ${input} is in ${manifest.file} (ids like ${ids.join(', ')})`);
  }
  const chosen = limit ? matched.slice(0, limit) : matched;
  const extract = values.extract === true;
  const { executed, notJudged } = await executeSamples(chosen, { sandbox, extract, onTask: taskPrinter(values, io, chosen.length) });
  if (!executed.length) throw new UsageError(`no task could be judged: ${notJudged.map((t) => `${t.manifestTaskId} (${t.reason})`).join('; ')}`);
  const figures = passAtK(() => executedPassAtK(executed, ks, kOverN));
  const run = { input, format, manifest: manifest.file, tasks: executed.length, unmatched, limit, extract, notJudged };
  const { report, official, agreement, isolation } = figures;
  return {
    text: executedPassKLines(run, figures, ks),
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

function importSet(values: Flags, positionals: string[]): CommandResult {
  const [sub, input, ...extra] = positionals;
  if (sub !== 'import') throw new UsageError('usage: opencoder samples import FILE|DIR --out SET.jsonl');
  if (!input) throw new UsageError('samples import needs the published file or folder');
  if (extra.length) throw new UsageError(`unexpected arguments: ${extra.join(' ')}`);
  const out = values.out as string | undefined;
  if (!out) throw new UsageError('samples import needs --out SET.jsonl (the set is written there, one task per line)');
  const set = readSet(input, values);
  fs.mkdirSync(path.dirname(path.resolve(out)), { recursive: true });
  fs.writeFileSync(out, sampleSetLines(set));
  const { samples, labelled, samplesPerTask } = setCounts(set);
  return {
    text: sampleImportLines(set, out),
    json: {
      ok: true,
      command: 'samples import',
      format: set.format,
      source: set.source,
      out: path.resolve(out),
      tasks: set.tasks.length,
      samples,
      labelled,
      samplesPerTask,
    },
  };
}

async function passk(values: Flags, positionals: string[], io: Io): Promise<CommandResult> {
  const [input, ...extra] = positionals;
  if (!input) throw new UsageError('passk needs a sample set (from samples import) or a published file or folder');
  if (extra.length) throw new UsageError(`unexpected arguments: ${extra.join(' ')}`);
  const labels = values.labels as string;
  if (labels !== 'official' && labels !== 'executed') throw new UsageError(`--labels must be official or executed (got ${labels})`);
  const kOverN = values['k-over-n'] as string;
  if (kOverN !== 'refuse' && kOverN !== 'humaneval') throw new UsageError(`--k-over-n must be refuse or humaneval (got ${kOverN})`);
  const ks = parseKs(values.k as string);
  const set = readSet(input, values);
  const format = set.format === 'set' ? 'sample set' : set.format;
  if (labels === 'executed') return executedPassK(input, format, set.tasks, ks, kOverN, values, io);
  if (values.manifest || values.extract) throw new UsageError('--manifest and --extract go with --labels executed');
  const report = passAtK(() => passAtKOf(officialCounts(set.tasks), ks, kOverN));
  return { text: officialPassKLines(input, format, report, ks), json: { ok: true, command: 'passk', input: path.resolve(input), format, labels, ...report } };
}

export const SAMPLES_COMMANDS: Record<string, Command> = {
  samples: { ...SAMPLES_SPECS.samples, run: async ({ values, positionals }) => importSet(values, positionals) },
  passk: { ...SAMPLES_SPECS.passk, run: ({ values, positionals }, io) => passk(values, positionals, io) },
};
