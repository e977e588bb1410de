// Published sample sets: `samples import` (another system's generations, kept as published) and `passk`
// (their Pass@k from the official labels). Formats and the estimator: experiment/samples.ts.

import fs from 'node:fs';
import path from 'node:path';
import { UsageError, type Command } from '../cli-kit.ts';
import {
  SAMPLE_FORMATS,
  SampleFormatError,
  officialCounts,
  passAtKOf,
  readSamples,
  sampleSetLines,
  type KOverN,
  type SampleFormat,
  type SampleTask,
} from '../../experiment/samples.ts';

function formatOf(values: Record<string, unknown>): SampleFormat | 'auto' {
  const f = (values.format as string | undefined) ?? 'auto';
  if (f !== 'auto' && !(SAMPLE_FORMATS as readonly string[]).includes(f)) throw new UsageError(`--format must be auto or one of ${SAMPLE_FORMATS.join(', ')} (got ${f})`);
  return f as SampleFormat | 'auto';
}

/** A set written by `samples import`, or any input a reader understands. */
function loadTasks(input: string, values: Record<string, unknown>): { tasks: SampleTask[]; format: string } {
  try {
    const set = readSamples(input, { format: formatOf(values), indexMap: values['index-map'] as string | undefined });
    return { tasks: set.tasks, format: set.format === 'set' ? 'sample set' : set.format };
  } catch (err) {
    if (err instanceof SampleFormatError) throw new UsageError(err.message);
    throw err;
  }
}

function parseKs(raw: string): number[] {
  const ks = raw.split(',').map((s) => s.trim()).filter(Boolean).map(Number);
  if (!ks.length || ks.some((k) => !Number.isInteger(k) || k < 1)) throw new UsageError(`--k takes positive integers separated by commas (got ${raw})`);
  return [...new Set(ks)].sort((a, b) => a - b);
}

export const SAMPLES_COMMANDS: Record<string, Command> = {
  samples: {
    summary: 'import a published sample set (RepoExec, CoderEval, bigcode-evaluation-harness, EvalPlus) as data',
    usage: `opencoder samples import FILE|DIR [--format auto|${SAMPLE_FORMATS.join('|')}] [--index-map FILE] --out SET.jsonl`,
    options: { format: { type: 'string' }, out: { type: 'string' }, 'index-map': { type: 'string' } },
    async run({ values, positionals }) {
      const [sub, input, ...extra] = positionals;
      if (sub !== 'import') throw new UsageError('usage: opencoder samples import FILE|DIR --out SET.jsonl');
      if (!input) throw new UsageError('samples import needs the published file or folder');
      if (extra.length) throw new UsageError(`unexpected arguments: ${extra.join(' ')}`);
      const out = values.out as string | undefined;
      if (!out) throw new UsageError('samples import needs --out SET.jsonl (the set is written there, one task per line)');
      let set;
      try {
        set = readSamples(input, { format: formatOf(values), indexMap: values['index-map'] as string | undefined });
      } catch (err) {
        if (err instanceof SampleFormatError) throw new UsageError(err.message);
        throw err;
      }
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
          labelled === samples && samples ? `Pass@k: opencoder passk ${out}` : 'Without official labels for every sample there is no official Pass@k; validate the samples against a manifest instead.',
        ],
        json: { ok: true, command: 'samples import', format: set.format, source: set.source, out: path.resolve(out), tasks: set.tasks.length, samples, labelled, samplesPerTask: ns },
      };
    },
  },
  passk: {
    summary: 'Pass@k of a sample set from its official labels (per task and overall)',
    usage: 'opencoder passk SET|FILE|DIR [--k 1,5,10] [--labels official] [--k-over-n refuse|humaneval] [--format …] [--json]',
    options: { k: { type: 'string', default: '1,5,10' }, labels: { type: 'string', default: 'official' }, 'k-over-n': { type: 'string', default: 'refuse' }, format: { type: 'string' }, 'index-map': { type: 'string' } },
    async run({ values, positionals }) {
      const [input, ...extra] = positionals;
      if (!input) throw new UsageError('passk needs a sample set (from samples import) or a published file or folder');
      if (extra.length) throw new UsageError(`unexpected arguments: ${extra.join(' ')}`);
      const labels = values.labels as string;
      if (labels === 'executed') {
        throw new UsageError('--labels executed (re-running every sample in the sandbox) is not available yet; use official labels, or run the samples with opencoder run --backend imported --samples SET');
      }
      if (labels !== 'official') throw new UsageError(`--labels must be official (got ${labels})`);
      const kOverN = values['k-over-n'] as string;
      if (kOverN !== 'refuse' && kOverN !== 'humaneval') throw new UsageError(`--k-over-n must be refuse or humaneval (got ${kOverN})`);
      const ks = parseKs(values.k as string);
      const { tasks, format } = loadTasks(input, values);
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
