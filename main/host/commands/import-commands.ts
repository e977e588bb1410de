// Commands that turn a benchmark's files into a task manifest plus repositories: import <kind>.

import { UsageError, fmtCounts, type Command, type CommandResult, type Io } from '../cli-kit.ts';
import { importRepoExec, type RepoExecImportResult } from '../../experiment/import-repoexec.ts';

/** Importers by benchmark name; each reads its own bench folder layout. */
const IMPORTERS: Record<string, (bench: string, values: Record<string, unknown>, io: Io) => Promise<CommandResult>> = {
  repoexec: runRepoExec,
};

async function runRepoExec(bench: string, values: Record<string, unknown>, io: Io): Promise<CommandResult> {
  const out = values.out as string | undefined;
  if (!out) throw new UsageError('import repoexec needs --out <dir> (the folder that receives repos/, tasks.jsonl and IMPORT.md)');
  const quiet = values.quiet === true;
  const r = await importRepoExec({
    benchDir: bench,
    outDir: out,
    subset: values.subset as string | undefined,
    // Bad input lines are worth seeing as they happen; the summary counts them anyway.
    onWarning: (w) => {
      if (!quiet) io.err(`warning: ${w.file}${w.line ? `:${w.line}` : ''}: ${w.message}`);
    },
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
    summary: 'import a benchmark: materialise its repositories and write a task manifest',
    usage: 'opencoder import repoexec <bench folder> --out <dir> [--subset NAME] [--quiet]',
    options: {
      out: { type: 'string' },
      subset: { type: 'string' },
      quiet: { type: 'boolean', short: 'q', default: false },
    },
    async run({ values, positionals }, io) {
      const [kind, bench, ...extra] = positionals;
      if (!kind || !IMPORTERS[kind]) {
        throw new UsageError(`import needs a benchmark name (${Object.keys(IMPORTERS).join(', ')}): opencoder import repoexec <bench folder> --out <dir>`);
      }
      if (!bench) throw new UsageError(`import ${kind} needs the bench folder: opencoder import ${kind} <bench folder> --out <dir>`);
      if (extra.length) throw new UsageError(`unexpected arguments: ${extra.join(' ')}`);
      return IMPORTERS[kind]!(bench, values, io);
    },
  },
};
