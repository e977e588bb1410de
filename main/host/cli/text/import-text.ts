// How a benchmark import reads in a terminal, and its --json document: per importer what it read, wrote, made into
// tasks, dropped and warned about.

import type { CoderEvalImportResult } from '../../../benchmarks/codereval.ts';
import type { ExecRepoBenchImportResult } from '../../../benchmarks/execrepobench.ts';
import type { RepoExecImportResult } from '../../../benchmarks/repoexec/import.ts';
import { counts as countsText } from '../../../model/format.ts';
import type { BenchmarkImport } from '../../ops/imports.ts';

/** What every importer's summary ends with: what was not runnable or dropped, the warnings, the report. */
function tailLines(dropped: string, r: { dropped: Record<string, number>; warnings: unknown[]; warningCounts: Record<string, number>; reportFile: string }) {
  return [`${dropped}: ${countsText(r.dropped)}`, `Warnings: ${r.warnings.length ? countsText(r.warningCounts) : 'none'}`, `Report: ${r.reportFile}`];
}

function repoExecLines(r: RepoExecImportResult): string[] {
  const c = r.counts;
  return [
    `Imported RepoExec from ${r.benchDir}${r.subset ? ` (subset ${r.subset})` : ''}`,
    `Output: ${r.outDir}`,
    `Projects: ${c.projects}; modules: ${c.modules}; .py files: ${c.files}`,
    `Definitions: ${c.functions} functions, ${c.methods} methods, ${c.classes} classes (${c.focalFunctions} focal functions from ${c.rows} rows)`,
    `Tasks: ${c.tasks} → ${r.manifestFile}`,
    `Repaired: ${c.stubsFilled} body-less stubs given \`...\``,
    ...tailLines('Dropped', r),
  ];
}

function coderEvalLines(r: CoderEvalImportResult): string[] {
  const c = r.counts;
  const levels = Object.entries(r.levels).map(([k, v]) => `${k} ${v.tasks}/${v.records}`);
  return [
    `Imported CoderEval (Python) from ${r.benchDir} (${r.docstrings} docstrings)`,
    `Output: ${r.outDir}`,
    `Records: ${c.records} → ${r.metadataFile}`,
    `Levels: ${levels.join(', ') || 'none'} (tasks/records)`,
    `Tasks: ${c.tasks} (${c.templateTasks} check-template, ${c.repositoryTasks} repository) → ${r.manifestFile}`,
    ...tailLines('Not runnable', r),
  ];
}

function execRepoBenchLines(r: ExecRepoBenchImportResult): string[] {
  const c = r.counts;
  return [
    `Imported ExecRepoBench from ${r.recordsFile}`,
    `Output: ${r.outDir}`,
    `Records: ${c.records} (${c.malformed} lines not JSON objects)`,
    `Tasks: ${c.tasks} (${c.files} files under repos/) → ${r.manifestFile}`,
    ...(r.unsupportedCommands.length ? [`Note: ${r.unsupportedCommands.length} tasks use a test command the validator cannot run yet (see the report)`] : []),
    ...tailLines('Not runnable', r),
  ];
}

/** The summary `opencoder import <kind>` prints. */
export function importLines(done: BenchmarkImport): string[] {
  if (done.kind === 'repoexec') return repoExecLines(done.result);
  if (done.kind === 'codereval') return coderEvalLines(done.result);
  return execRepoBenchLines(done.result);
}

/** The --json document: the folders and files, the counts, the tasks (or projects), what was dropped, every warning. */
export function importJson(done: BenchmarkImport): Record<string, unknown> {
  const r = done.result;
  const warnings = { count: r.warnings.length, byReason: r.warningCounts, items: r.warnings };
  const head = { ok: true, command: 'import', importer: done.kind };
  if (done.kind === 'repoexec') {
    const x = done.result;
    const { counts, projects, dropped } = x;
    return { ...head, bench: x.benchDir, out: x.outDir, manifest: x.manifestFile, report: x.reportFile, subset: x.subset, counts, projects, dropped, warnings };
  }
  if (done.kind === 'codereval') {
    const x = done.result;
    const { docstrings, inputs, counts, levels, tasks, dropped } = x;
    const files = { bench: x.benchDir, out: x.outDir, manifest: x.manifestFile, metadata: x.metadataFile, report: x.reportFile };
    return { ...head, ...files, docstrings, inputs, counts, levels, tasks, dropped, warnings };
  }
  const x = done.result;
  const { counts, byFillType, tasks, unsupportedCommands, dropped } = x;
  return {
    ...head,
    records: x.recordsFile,
    out: x.outDir,
    manifest: x.manifestFile,
    report: x.reportFile,
    counts,
    byFillType,
    tasks,
    unsupportedCommands,
    dropped,
    warnings,
  };
}
