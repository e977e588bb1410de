// The RepoExec-inline tasks → manifest records and task views. Each task is matched to the row whose
// focal function it asks for (its place in the rebuilt repository), its requirement is the prompt's
// docstring (or one made from the signature), and its own view is the row's repaired view, which must
// show the target (the reference is appended when it does not).

import path from 'node:path';
import type { Node } from 'web-tree-sitter';
import type { TaskRecord } from '../../model/task.ts';
import { requirementFromSignature } from '../import-out.ts';
import { INLINE_FILE, SUBSETS_FILE, normaliseNewlines, type InlineTask } from './inputs.ts';
import { packageInits, type BuiltProject, type FocalPlace } from './project.ts';
import { firstProblemRow, parseClean, type PythonTools } from './python-parser.ts';
import { dedent } from './python-text.ts';
import { REPOEXEC_BENCHMARK, type Warn } from './types.ts';
import { outerNode } from './view-items.ts';

/** A manifest record with the absolute paths writeManifest makes relative. */
export type ImportedTask = TaskRecord & { repoPath: string; taskViewPath: string };

export interface BuiltTasks {
  tasks: ImportedTask[];
  /** Tasks written, by project. */
  taskCount: Map<string, number>;
  /** Each task's own view: views/<folder>/<file> (+ package __init__ files), path under outDir → content. */
  viewFiles: Map<string, string>;
  /** Views that hold only the reference solution (the row's view did not repair). */
  viewsFromReference: number;
}

export interface TaskContext {
  benchDir: string;
  outDir: string;
  /** Name of the subset to import; all inline tasks when absent. */
  subset: string | undefined;
  subsets: Map<string, string[]>;
  tools: PythonTools;
  warn: Warn;
}

type TaskFocal = FocalPlace & { built: BuiltProject };

/** The records and views of the inline tasks (of the subset, when one is named), in input order. */
export function buildTasks(inline: InlineTask[], built: BuiltProject[], ctx: TaskContext): BuiltTasks {
  const { subsets, tools, warn } = ctx;
  const wanted = ctx.subset !== undefined ? new Set(subsets.get(ctx.subset)) : null;
  const membership = (id: string) =>
    [...subsets.entries()]
      .filter(([, ids]) => ids.includes(id))
      .map(([n]) => n)
      .sort();
  const focalOf = new Map<number, TaskFocal>();
  for (const b of built) for (const [pid, f] of b.focal) focalOf.set(pid, { built: b, ...f });
  const out: BuiltTasks = { tasks: [], taskCount: new Map(), viewFiles: new Map(), viewsFromReference: 0 };
  const viewNames = new Set<string>();
  for (const t of inline) {
    if (wanted && !wanted.has(t.taskId)) continue;
    const f = matchTask(t, focalOf, warn);
    if (!f) continue;
    const parts = promptParts(t.prompt, t.entryPoint, tools) ?? promptParts(t.solution, t.entryPoint, tools);
    if (!parts) {
      warn('task-unparseable', t.file, t.line, `task ${t.taskId}: neither target_function_prompt nor solution parses; task skipped`);
      continue;
    }
    const repo = `repos/${f.built.repoFolder}`;
    const view = `views/${viewFolderFor(t.taskId, viewNames)}`;
    const viewSource = taskView(t, f, `${view}/${f.file}`, ctx);
    if (viewSource.fromReference) out.viewsFromReference++; // unrepairable-view: already warned about in buildProject
    out.viewFiles.set(`${view}/${f.file}`, viewSource.source);
    for (const init of packageInits(f.file)) out.viewFiles.set(`${view}/${init}`, '');
    out.tasks.push({
      id: t.taskId,
      repo,
      repoPath: path.join(ctx.outDir, ...repo.split('/')),
      taskViewPath: path.join(ctx.outDir, ...view.split('/')),
      file: f.file,
      qualname: f.qualname,
      requirement: parts.docstring ?? requirementFromSignature(parts.signature),
      signature: parts.signature,
      reference: t.solution,
      check_template: t.checkTemplate,
      placeholder: t.placeholder,
      tests: t.testNames,
      source: {
        benchmark: REPOEXEC_BENCHMARK,
        hf_index: t.hfIndex,
        problem_id: t.problemId,
        project: t.project,
        module: t.module,
        entry_point: t.entryPoint,
        subsets: membership(t.taskId),
        requirement_source: parts.docstring ? 'docstring' : 'signature',
        ...t.extra,
      },
    });
    out.taskCount.set(t.project, (out.taskCount.get(t.project) ?? 0) + 1);
  }
  if (wanted) {
    const have = new Set(inline.map((t) => t.taskId));
    for (const id of wanted) {
      if (!have.has(id)) warn('subset-id-missing', path.join(ctx.benchDir, SUBSETS_FILE), undefined, `subset ${ctx.subset}: ${id} is not in ${INLINE_FILE}`);
    }
  }
  return out;
}

/** The focal function a task asks for, or null (with a warning) when no row has it or the row disagrees. */
function matchTask(t: InlineTask, focalOf: Map<number, TaskFocal>, warn: Warn): TaskFocal | null {
  const f = focalOf.get(t.problemId);
  if (!f) {
    warn('task-without-row', t.file, t.line, `task ${t.taskId}: no raw row with problem id ${t.problemId}; task skipped`);
    return null;
  }
  if (f.built.project !== t.project || f.module !== t.module || !(f.qualname === t.entryPoint || f.qualname.endsWith(`.${t.entryPoint}`))) {
    warn(
      'task-row-mismatch',
      t.file,
      t.line,
      `task ${t.taskId} names ${t.project} ${t.module}.${t.entryPoint} but problem id ${t.problemId} is ${f.built.project} ${f.module}.${f.qualname}; task skipped`,
    );
    return null;
  }
  return f;
}

/**
 * A task's own view (`viewFile`, relative to the output folder): the row's repaired view, or the
 * reference alone when that did not repair; the reference is appended when the view does not show the target.
 */
function taskView(t: InlineTask, f: TaskFocal, viewFile: string, ctx: TaskContext): { source: string; fromReference: boolean } {
  const { tools, warn } = ctx;
  const repaired = f.built.views.get(t.problemId);
  const referenceAlone = `${dedent(normaliseNewlines(t.solution)).replace(/\s+$/, '')}\n`;
  let viewSource = repaired !== undefined ? `${repaired.replace(/\s+$/, '')}\n` : referenceAlone;
  // The view must show the target: as Class.method, or (a method the view shows at top level) by its name.
  const shown = new Set(tools.extractor.parse(f.file, 'python', viewSource).units.map((u) => u.qualname));
  if (!shown.has(f.qualname) && !(f.qualname.includes('.') && shown.has(t.entryPoint))) {
    warn(
      'view-without-target',
      path.join(ctx.outDir, ...viewFile.split('/')),
      undefined,
      `task ${t.taskId}: the repaired view does not show ${f.qualname}; its reference was appended at top level`,
    );
    viewSource = viewSource.trim() ? `${viewSource.replace(/\s+$/, '')}\n\n\n${referenceAlone}` : referenceAlone;
  }
  if (!parseClean(tools.parser, viewSource)) {
    warn('invalid-output', path.join(ctx.outDir, ...viewFile.split('/')), undefined, `written view of ${t.taskId} does not parse`);
  }
  return { source: viewSource, fromReference: repaired === undefined };
}

interface PromptParts {
  signature: string;
  docstring: string | null;
}

/** Splits a `target_function_prompt` (def line(s) + docstring) into signature and cleaned docstring. */
function promptParts(prompt: string, entryPoint: string, tools: PythonTools): PromptParts | null {
  const src = dedent(normaliseNewlines(prompt).replace(/\s+$/, ''));
  const tree = tools.parser.parse(src);
  if (!tree) return null;
  try {
    if (firstProblemRow(tree.rootNode) !== null) return null;
    const defs = tree.rootNode.descendantsOfType('function_definition').filter((d): d is Node => !!d);
    const def = defs.find((d) => d.childForFieldName('name')?.text === entryPoint) ?? defs[0];
    const body = def?.childForFieldName('body');
    if (!def || !body) return null;
    const signature = src.slice(outerNode(def).startIndex, body.startIndex).trimEnd();
    const unit = tools.extractor
      .parse('prompt.py', 'python', src)
      .units.find((u) => u.kind !== 'module' && u.kind !== 'class' && u.startLine === outerNode(def).startPosition.row + 1);
    return { signature, docstring: unit?.docstring?.trim() || null };
  } finally {
    tree.delete();
  }
}

/**
 * A folder name for a task's view: `RepoExec/12` → `RepoExec_12` (anything but letters, digits,
 * `.`, `_` and `-` becomes `_`). Unique among `taken` (compared case-insensitively, for file systems
 * that fold case): a name already taken gets `_2`, `_3`, … appended. Adds the name to `taken`.
 */
export function viewFolderFor(id: string, taken: Set<string>): string {
  let base = id.replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 200);
  if (!base || base.startsWith('.')) base = `_${base}`;
  let name = base;
  for (let n = 2; taken.has(name.toLowerCase()); n++) name = `${base}_${n}`;
  taken.add(name.toLowerCase());
  return name;
}
