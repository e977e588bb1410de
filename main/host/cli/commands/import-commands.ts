// Commands that turn a benchmark's files into a task manifest plus repositories: import <kind>.

import { UsageError, fmtCounts, type Command, type CommandResult, type Io } from '../kit.ts';
import { importRepoExec, type RepoExecImportResult } from '../../../benchmarks/repoexec/import.ts';
import { importCoderEval, type CoderEvalImportResult, type ImportWarning } from '../../../benchmarks/codereval.ts';
import { importExecRepoBench, type ExecRepoBenchImportResult } from '../../../benchmarks/execrepobench.ts';
import path from 'node:path';
import { userDataDir } from '../../paths.ts';
import { IMPORT_SPECS } from './specs.ts';

/** Importers by benchmark name; each reads its own bench folder layout. */
const IMPORTERS: Record<string, (bench: string, values: Record<string, unknown>, io: Io) => Promise<CommandResult>> = {
  repoexec: runRepoExec,
  codereval: runCoderEval,
  execrepobench: runExecRepoBench,
};

/** Where each importer reads from (the positional argument after the benchmark name). */
const INPUT_OF: Record<string, string> = {
  repoexec: '<bench folder>',
  codereval: '<bench/codereval folder>',
  execrepobench: '<records.jsonl>',
};

/**
 * Where an import writes: --out when given, else a folder of its own in the user data folder (paths.ts), so an
 * import run from a checkout leaves nothing in it.
 */
export function importOutDir(kind: string, values: Record<string, unknown>): string {
  const out = values.out as string | undefined;
  if (out !== undefined) {
    if (!out.trim()) throw new UsageError(`import ${kind}: --out needs a folder (or leave it out to write under ${path.join(userDataDir(), 'benchmarks')})`);
    return path.resolve(out);
  }
  const subset = values.subset as string | undefined;
  return path.join(userDataDir(), 'benchmarks', subset ? `${kind}-${subset}` : kind);
}

/** Prints each bad input line as it is found (unless --quiet); the summary counts them anyway. */
function warningPrinter(values: Record<string, unknown>, io: Io): (w: ImportWarning) => void {
  const quiet = values.quiet === true;
  return (w) => {
    if (!quiet) io.err(`warning: ${w.file}${w.line ? `:${w.line}` : ''}: ${w.message}`);
  };
}

function onlyFor(kind: string, values: Record<string, unknown>, allowed: string[]): void {
  const given = ['subset', 'records', 'templates', 'docstrings'].filter((k) => values[k] !== undefined && !allowed.includes(k));
  if (given.length) throw new UsageError(`import ${kind} does not take ${given.map((k) => `--${k}`).join(', ')}`);
}

async function runCoderEval(bench: string, values: Record<string, unknown>, io: Io): Promise<CommandResult> {
  const out = importOutDir('codereval', values);
  onlyFor('codereval', values, ['records', 'templates', 'docstrings']);
  const docstrings = (values.docstrings as string | undefined) ?? 'raw';
  if (docstrings !== 'raw' && docstrings !== 'human') throw new UsageError(`--docstrings must be raw or human, not ${docstrings}`);
  const r = await importCoderEval({
    benchDir: bench,
    outDir: out,
    records: values.records as string | undefined,
    templates: values.templates as string | undefined,
    docstrings,
    onWarning: warningPrinter(values, io),
  });
  return { text: coderEvalSummary(r), json: { ok: true, command: 'import', importer: 'codereval', ...coderEvalJson(r) } };
}

function coderEvalSummary(r: CoderEvalImportResult): string[] {
  const c = r.counts;
  return [
    `Imported CoderEval (Python) from ${r.benchDir} (${r.docstrings} docstrings)`,
    `Output: ${r.outDir}`,
    `Records: ${c.records} → ${r.metadataFile}`,
    `Levels: ${
      Object.entries(r.levels)
        .map(([k, v]) => `${k} ${v.tasks}/${v.records}`)
        .join(', ') || 'none'
    } (tasks/records)`,
    `Tasks: ${c.tasks} (${c.templateTasks} check-template, ${c.repositoryTasks} repository) → ${r.manifestFile}`,
    `Not runnable: ${fmtCounts(r.dropped)}`,
    `Warnings: ${r.warnings.length ? fmtCounts(r.warningCounts) : 'none'}`,
    `Report: ${r.reportFile}`,
  ];
}

function coderEvalJson(r: CoderEvalImportResult) {
  return {
    bench: r.benchDir,
    out: r.outDir,
    manifest: r.manifestFile,
    metadata: r.metadataFile,
    report: r.reportFile,
    docstrings: r.docstrings,
    inputs: r.inputs,
    counts: r.counts,
    levels: r.levels,
    tasks: r.tasks,
    dropped: r.dropped,
    warnings: { count: r.warnings.length, byReason: r.warningCounts, items: r.warnings },
  };
}

async function runExecRepoBench(records: string, values: Record<string, unknown>, io: Io): Promise<CommandResult> {
  const out = importOutDir('execrepobench', values);
  onlyFor('execrepobench', values, []);
  const r = await importExecRepoBench({ recordsFile: records, outDir: out, onWarning: warningPrinter(values, io) });
  const c = r.counts;
  const text = [
    `Imported ExecRepoBench from ${r.recordsFile}`,
    `Output: ${r.outDir}`,
    `Records: ${c.records} (${c.malformed} lines not JSON objects)`,
    `Tasks: ${c.tasks} (${c.files} files under repos/) → ${r.manifestFile}`,
    ...(r.unsupportedCommands.length ? [`Note: ${r.unsupportedCommands.length} tasks use a test command the validator cannot run yet (see the report)`] : []),
    `Not runnable: ${fmtCounts(r.dropped)}`,
    `Warnings: ${r.warnings.length ? fmtCounts(r.warningCounts) : 'none'}`,
    `Report: ${r.reportFile}`,
  ];
  return { text, json: { ok: true, command: 'import', importer: 'execrepobench', ...execRepoBenchJson(r) } };
}

function execRepoBenchJson(r: ExecRepoBenchImportResult) {
  return {
    records: r.recordsFile,
    out: r.outDir,
    manifest: r.manifestFile,
    report: r.reportFile,
    counts: r.counts,
    byFillType: r.byFillType,
    tasks: r.tasks,
    unsupportedCommands: r.unsupportedCommands,
    dropped: r.dropped,
    warnings: { count: r.warnings.length, byReason: r.warningCounts, items: r.warnings },
  };
}

async function runRepoExec(bench: string, values: Record<string, unknown>, io: Io): Promise<CommandResult> {
  const out = importOutDir('repoexec', values);
  onlyFor('repoexec', values, ['subset']);
  const r = await importRepoExec({
    benchDir: bench,
    outDir: out,
    subset: values.subset as string | undefined,
    // Bad input lines are worth seeing as they happen; the summary counts them anyway.
    onWarning: warningPrinter(values, io),
  });
  return { text: repoExecSummary(r), json: { ok: true, command: 'import', importer: 'repoexec', ...jsonOf(r) } };
}

function repoExecSummary(r: RepoExecImportResult): string[] {
  const c = r.counts;
  return [
    `Imported RepoExec from ${r.benchDir}${r.subset ? ` (subset ${r.subset})` : ''}`,
    `Output: ${r.outDir}`,
    `Projects: ${c.projects}; modules: ${c.modules}; .py files: ${c.files}`,
    `Definitions: ${c.functions} functions, ${c.methods} methods, ${c.classes} classes (${c.focalFunctions} focal functions from ${c.rows} rows)`,
    `Tasks: ${c.tasks} → ${r.manifestFile}`,
    `Repaired: ${c.stubsFilled} body-less stubs given \`...\``,
    `Dropped: ${fmtCounts(r.dropped)}`,
    `Warnings: ${r.warnings.length ? fmtCounts(r.warningCounts) : 'none'}`,
    `Report: ${r.reportFile}`,
  ];
}

/** The JSON document: counts and per-project rows; dropped entries stay in IMPORT.md. */
function jsonOf(r: RepoExecImportResult) {
  return {
    bench: r.benchDir,
    out: r.outDir,
    manifest: r.manifestFile,
    report: r.reportFile,
    subset: r.subset,
    counts: r.counts,
    projects: r.projects,
    dropped: r.dropped,
    warnings: { count: r.warnings.length, byReason: r.warningCounts, items: r.warnings },
  };
}

export const IMPORT_COMMANDS: Record<string, Command> = {
  import: {
    ...IMPORT_SPECS.import,
    async run({ values, positionals }, io) {
      const [kind, bench, ...extra] = positionals;
      if (!kind || !IMPORTERS[kind]) {
        throw new UsageError(`import needs a benchmark name (${Object.keys(IMPORTERS).join(', ')}): opencoder import <name> <input> [--out <dir>]`);
      }
      if (!bench) throw new UsageError(`import ${kind} needs its input: opencoder import ${kind} ${INPUT_OF[kind]} [--out <dir>]`);
      if (extra.length) throw new UsageError(`unexpected arguments: ${extra.join(' ')}`);
      return IMPORTERS[kind]!(bench, values, io);
    },
  },
};
