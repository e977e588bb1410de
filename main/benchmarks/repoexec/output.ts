// The last steps of an import: checking what will be written (every file is clean Python and every target
// is where the manifest says, counted per project), and writing it: the repositories, the task views, the
// manifest and IMPORT.md, into a folder prepared (marked) first.

import fs from 'node:fs';
import path from 'node:path';
import { writeManifest } from '../manifest-file.ts';
import { prepareOutDir } from '../import-out.ts';
import { ROWS_DIR } from './inputs.ts';
import type { BuiltProject } from './project.ts';
import { parseClean, type PythonTools } from './python-parser.ts';
import { renderReport } from './report.ts';
import type { BuiltTasks } from './tasks.ts';
import { failRepoExec, type ProjectSummary, type RepoExecImportResult, type Warn } from './types.ts';

/** One project's counts, after checking that its files parse and hold its focal functions (warnings if not). */
export function summariseProject(b: BuiltProject, taskCount: Map<string, number>, outDir: string, tools: PythonTools, warn: Warn): ProjectSummary {
  const s: ProjectSummary = {
    project: b.project,
    repo: `repos/${b.repoFolder}`,
    rows: b.rows.length,
    rowModules: b.modules.filter((m) => m.fromRows).length,
    attributedModules: b.modules.filter((m) => !m.fromRows).length,
    files: b.files.size,
    functions: 0,
    methods: 0,
    classes: 0,
    focalFunctions: b.focal.size,
    tasks: taskCount.get(b.project) ?? 0,
  };
  const qualnamesByFile = new Map<string, Set<string>>();
  for (const [file, source] of sortedEntries(b.files)) {
    const parsed = tools.extractor.parse(file, 'python', source);
    if (parsed.errors.length || !parseClean(tools.parser, source)) {
      warn(
        'invalid-output',
        path.join(outDir, s.repo, file),
        parsed.errors[0]?.line,
        `written file does not parse: ${parsed.errors[0]?.message ?? 'syntax error'}`,
      );
    }
    qualnamesByFile.set(file, new Set(parsed.units.map((u) => u.qualname)));
    for (const u of parsed.units) {
      if (u.kind === 'function') s.functions++;
      else if (u.kind === 'method') s.methods++;
      else if (u.kind === 'class') s.classes++;
    }
  }
  for (const [pid, f] of b.focal) {
    if (!qualnamesByFile.get(f.file)?.has(f.qualname)) {
      const row = b.rows.find((r) => r.problemId === pid)!;
      warn('target-missing', row.file, row.line, `${f.qualname} is not found in ${s.repo}/${f.file}`);
    }
  }
  return s;
}

/** Projects with no usable rows (isort's files are empty) get no folder; say so. */
export function warnProjectsWithoutRows(benchDir: string, projects: { has(project: string): boolean }, warn: Warn): void {
  for (const d of fs.readdirSync(path.join(benchDir, ROWS_DIR)).sort()) {
    const p = d.replace(/\+/g, '/');
    if (fs.statSync(path.join(benchDir, ROWS_DIR, d)).isDirectory() && !projects.has(p)) {
      warn('project-without-rows', path.join(benchDir, ROWS_DIR, d), undefined, `${p} has no usable rows; no repository written`);
    }
  }
}

/** Writes the import into `result.outDir`: marker first, so a crash half-way leaves a folder the next run may clean. */
export function writeOutput(result: RepoExecImportResult, built: BuiltProject[], tasks: BuiltTasks): void {
  const { outDir } = result;
  prepareOutDir(outDir, 'repoexec', ['repos', 'views', 'tasks.jsonl', 'IMPORT.md'], failRepoExec);
  for (const b of built) {
    const root = path.join(outDir, 'repos', ...b.repoFolder.split('/'));
    for (const [file, source] of sortedEntries(b.files)) writeFile(path.join(root, ...file.split('/')), source);
  }
  for (const [file, source] of sortedEntries(tasks.viewFiles)) writeFile(path.join(outDir, ...file.split('/')), source);
  writeManifest(result.manifestFile, tasks.tasks);
  fs.writeFileSync(result.reportFile, renderReport(result, built));
}

function sortedEntries(files: Map<string, string>): [string, string][] {
  return [...files.entries()].sort(([x], [y]) => x.localeCompare(y));
}

function writeFile(abs: string, source: string): void {
  fs.mkdirSync(path.dirname(abs), { recursive: true });
  fs.writeFileSync(abs, source);
}
