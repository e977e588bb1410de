// Commands that turn a benchmark's files into a task manifest plus repositories: import <kind>.

import path from 'node:path';
import type { ImportWarning } from '../../../benchmarks/import-out.ts';
import { BENCHMARK_KINDS, importBenchmark, optionsNotFor, type BenchmarkKind } from '../../ops/imports.ts';
import { userDataDir } from '../../paths.ts';
import type { Flags } from '../flags.ts';
import { UsageError, type Command, type Io } from '../kit.ts';
import { IMPORT_SPECS } from '../specs.ts';
import { importJson, importLines } from '../text/import-text.ts';

/** Where each importer reads from (the positional argument after the benchmark name). */
const INPUT_OF: Record<BenchmarkKind, string> = {
  repoexec: '<bench folder>',
  codereval: '<bench/codereval folder>',
  execrepobench: '<records.jsonl>',
};

/**
 * Where an import writes: --out when given, else a folder of its own in the user data folder (paths.ts), so an
 * import run from a checkout leaves nothing in it.
 */
function importOutDir(kind: string, values: Flags): string {
  const out = values.out as string | undefined;
  if (out !== undefined) {
    if (!out.trim()) throw new UsageError(`import ${kind}: --out needs a folder (or leave it out to write under ${path.join(userDataDir(), 'benchmarks')})`);
    return path.resolve(out);
  }
  const subset = values.subset as string | undefined;
  return path.join(userDataDir(), 'benchmarks', subset ? `${kind}-${subset}` : kind);
}

/** Prints each bad input line as it is found (unless --quiet); the summary counts them anyway. */
function warningPrinter(values: Flags, io: Io): (w: ImportWarning) => void {
  const quiet = values.quiet === true;
  return (w) => {
    if (!quiet) io.err(`warning: ${w.file}${w.line ? `:${w.line}` : ''}: ${w.message}`);
  };
}

function docstringsOf(values: Flags): 'raw' | 'human' {
  const docstrings = (values.docstrings as string | undefined) ?? 'raw';
  if (docstrings !== 'raw' && docstrings !== 'human') throw new UsageError(`--docstrings must be raw or human, not ${docstrings}`);
  return docstrings;
}

export const IMPORT_COMMANDS: Record<string, Command> = {
  import: {
    ...IMPORT_SPECS.import,
    async run({ values, positionals }, io) {
      const [name, input, ...extra] = positionals;
      if (!name || !BENCHMARK_KINDS.includes(name as BenchmarkKind)) {
        throw new UsageError(`import needs a benchmark name (${BENCHMARK_KINDS.join(', ')}): opencoder import <name> <input> [--out <dir>]`);
      }
      const kind = name as BenchmarkKind;
      if (!input) throw new UsageError(`import ${kind} needs its input: opencoder import ${kind} ${INPUT_OF[kind]} [--out <dir>]`);
      if (extra.length) throw new UsageError(`unexpected arguments: ${extra.join(' ')}`);
      const out = importOutDir(kind, values);
      const foreign = optionsNotFor(kind, values);
      if (foreign.length) throw new UsageError(`import ${kind} does not take ${foreign.map((k) => `--${k}`).join(', ')}`);
      const done = await importBenchmark({
        kind,
        input,
        out,
        subset: values.subset as string | undefined,
        records: values.records as string | undefined,
        templates: values.templates as string | undefined,
        docstrings: kind === 'codereval' ? docstringsOf(values) : undefined,
        onWarning: warningPrinter(values, io),
      });
      return { text: importLines(done), json: importJson(done) };
    },
  },
};
