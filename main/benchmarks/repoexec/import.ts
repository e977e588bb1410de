// Imports the RepoExec benchmark (staged under shared/bench/repoexec, see its SOURCE.md) into
//   <out>/repos/<project>/...   one folder per project, its modules rebuilt from the raw rows
//   <out>/views/<task>/...       one folder per task: its own module view (the task's `task_view`)
//   <out>/tasks.jsonl            one manifest line per RepoExec-inline task (writeManifest)
//   <out>/IMPORT.md              what was imported, merged and dropped, with counts by reason
//
// RepoExec does not ship the 23 project repositories, only per-task "medium-context" module views
// (imports, dependencies as stubs or full bodies, constants, then the focal function). The index
// needs files, so each module is rebuilt as the union of everything the views show of it. The
// views are messy (body-less stubs, stray garbage lines), so every view is repaired first, and a
// definition is only moved to another module when the views say unambiguously where it lives.
//
// This is the entry module: importRepoExec runs the steps and counts the result; the steps live beside
// it (inputs.ts reads the staged folder, python-parser.ts and python-text.ts repair views, project.ts
// rebuilds a project's modules, tasks.ts makes the records and task views, output.ts checks and writes,
// report.ts renders IMPORT.md). The public types are in types.ts and re-exported here.

import fs from 'node:fs';
import path from 'node:path';
import { checkOutDir, collectWarnings, countBy, IMPORT_MARKER } from '../import-out.ts';
import { INLINE_FILE, ROWS_DIR, readBench, repoFolderForProject, type RawRow } from './inputs.ts';
import { summariseProject, warnProjectsWithoutRows, writeOutput } from './output.ts';
import { buildProject, type BuiltProject } from './project.ts';
import { openPython } from './python-parser.ts';
import { buildTasks, type BuiltTasks } from './tasks.ts';
import {
  failRepoExec,
  RepoExecImportError,
  type DroppedEntry,
  type ProjectSummary,
  type Recorder,
  type RepoExecImportOptions,
  type RepoExecImportResult,
} from './types.ts';

/** File that marks an output folder as made by this importer (re-imports may replace it). */
export { IMPORT_MARKER };
export {
  REPOEXEC_BENCHMARK,
  RepoExecImportError,
  type DroppedEntry,
  type ImportWarning,
  type ProjectSummary,
  type RepoExecImportOptions,
  type RepoExecImportResult,
} from './types.ts';
export { repoFolderForProject } from './inputs.ts';
export { viewFolderFor } from './tasks.ts';

export async function importRepoExec(opts: RepoExecImportOptions): Promise<RepoExecImportResult> {
  const benchDir = path.resolve(opts.benchDir);
  const outDir = path.resolve(opts.outDir);
  if (!fs.existsSync(benchDir) || !fs.statSync(benchDir).isDirectory()) {
    throw new RepoExecImportError(
      `The bench folder ${benchDir} does not exist (expected the staged RepoExec folder with ${INLINE_FILE} and ${ROWS_DIR}/)`,
      benchDir,
    );
  }
  const { warnings, warn } = collectWarnings(opts.onWarning);
  const droppedEntries: DroppedEntry[] = [];
  const rec: Recorder = {
    warn,
    drop: (reason, row, what) => droppedEntries.push({ reason, project: row.project, module: row.module, problemId: row.problemId, what }),
  };

  checkOutDir(outDir, 'repoexec', failRepoExec); // fail fast on a foreign folder, before any work
  // Read everything first: bad input fails (or warns) before the output folder is touched.
  const { subsets, rows, inline } = readBench(benchDir, opts.subset, warn);

  const tools = await openPython();
  try {
    const byProject = rowsByProject(rows, benchDir);
    const built = [...byProject].map(([p, projectRows]) => buildProject(p, projectRows, tools, rec));
    const tasks = buildTasks(inline, built, { benchDir, outDir, subset: opts.subset, subsets, tools, warn });
    // Check what will be written: every file is clean Python and every target is where the manifest says.
    const projects = built.map((b) => summariseProject(b, tasks.taskCount, outDir, tools, warn));
    warnProjectsWithoutRows(benchDir, byProject, warn);

    const result: RepoExecImportResult = {
      benchDir,
      outDir,
      manifestFile: path.join(outDir, 'tasks.jsonl'),
      reportFile: path.join(outDir, 'IMPORT.md'),
      subset: opts.subset ?? null,
      counts: countsOf(projects, built, rows.length, tasks),
      projects,
      dropped: countBy(droppedEntries, (d) => d.reason),
      droppedEntries,
      warnings,
      warningCounts: countBy(warnings, (w) => w.reason),
    };
    writeOutput(result, built, tasks);
    return result;
  } finally {
    tools.dispose();
  }
}

/** The rows of each project, by project name; throws when two projects would share a repository folder. */
function rowsByProject(rows: RawRow[], benchDir: string): Map<string, RawRow[]> {
  const grouped = new Map<string, RawRow[]>();
  for (const r of rows) {
    if (!grouped.has(r.project)) grouped.set(r.project, []);
    grouped.get(r.project)!.push(r);
  }
  const byProject = new Map<string, RawRow[]>();
  const folders = new Map<string, string>();
  for (const p of [...grouped.keys()].sort()) {
    const f = repoFolderForProject(p)!;
    const clash = [...folders.entries()].find(([, g]) => g === f || g.startsWith(`${f}/`) || f.startsWith(`${g}/`));
    if (clash) throw new RepoExecImportError(`Projects ${clash[0]} and ${p} would share the folder repos/${f}`, benchDir);
    folders.set(p, f);
    byProject.set(p, grouped.get(p)!);
  }
  return byProject;
}

function countsOf(projects: ProjectSummary[], built: BuiltProject[], rows: number, tasks: BuiltTasks): RepoExecImportResult['counts'] {
  const sum = (k: keyof ProjectSummary) => projects.reduce((a, p) => a + (p[k] as number), 0);
  return {
    projects: projects.length,
    modules: built.reduce((a, b) => a + b.modules.length, 0),
    files: sum('files'),
    functions: sum('functions'),
    methods: sum('methods'),
    classes: sum('classes'),
    focalFunctions: sum('focalFunctions'),
    rows,
    tasks: tasks.tasks.length,
    views: tasks.tasks.length,
    viewsFromReference: tasks.viewsFromReference,
    stubsFilled: built.reduce((a, b) => a + b.stubsFilled, 0),
  };
}
