// The plain task manifest: one JSON object per line. Every importer writes it and every command
// (retrieve, validate, run, …) reads it. A task is a target function in a repository with a
// requirement and executable tests, in one of two shapes:
//   - repository + test_command (run from the repository root, e.g. `python3 -m unittest tests.test_x`)
//   - a standalone `check_template` program (RepoExec-inline): the candidate replaces `placeholder`.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { TaskRecordSchema, type Task, type TaskRecord } from '../model/task.ts';
import { parseTestCommand, TestCommandError } from '../validate/command.ts';
import { OpenCoderError, type ErrorCode } from '../model/errors.ts';
import { canonicalPath, isInside } from '../util/paths.ts';

const DefaultsSchema = z.object({ python: z.string().min(1).optional() }).strict();

export { DEFAULT_PLACEHOLDER, TaskRecordSchema, type Task, type TaskRecord } from '../model/task.ts';

export class ManifestError extends OpenCoderError {
  constructor(
    message: string,
    readonly file: string,
    readonly line?: number,
    code: ErrorCode = 'invalid-input',
    /** For a `forbidden-path` problem: the path that was refused (the app offers to allow its folder). */
    readonly refusedPath?: string,
  ) {
    super(code, message);
  }
}

export interface Manifest {
  file: string;
  /** sha256 of the manifest's bytes: what a run records to freeze its inputs. */
  hash: string;
  tasks: Task[];
  /** Each task's 1-based line in the file (absent for a manifest built in memory). */
  lines?: Record<string, number>;
}

/** At most this many problems of one manifest are listed in its error (the count says how many there were). */
const SHOWN_PROBLEMS = 10;

/** One error for every problem of a manifest: the one problem's own message, or a count and a list. */
function manifestProblems(abs: string, problems: ManifestError[]): ManifestError {
  if (problems.length === 1) return problems[0]!;
  const shown = problems.slice(0, SHOWN_PROBLEMS).map((p) => `  ${p.message}`);
  if (problems.length > SHOWN_PROBLEMS) shown.push(`  … and ${problems.length - SHOWN_PROBLEMS} more`);
  const first = problems[0]!;
  const refused = problems.find((p) => p.code === 'forbidden-path');
  return new ManifestError(
    `${abs} has ${problems.length} problems:\n${shown.join('\n')}`,
    abs,
    first.line,
    refused ? 'forbidden-path' : first.code,
    refused?.refusedPath,
  );
}

/** Folders a repository may never be, whatever is allowed: reading them into a workspace would expose the machine. */
function forbiddenRoots(): string[] {
  return ['/etc', '/root', '/proc', '/sys', '/dev', '/boot', path.join(os.homedir(), '.ssh'), path.join(os.homedir(), '.gnupg')];
}

export interface ReadManifestOptions {
  /** Folders (besides the manifest's own) a task's `repo` and `task_view` may lie in: the CLI's --allow, the app's allowed roots. */
  allow?: readonly string[];
}

/**
 * Where a task's repository may be: inside the manifest's folder or an allowed folder (symlinks resolved), and
 * never `/` or a system or secrets folder. Null when it may; else why not.
 */
export function repoPlaceProblem(repoPath: string, manifestDir: string, allow: readonly string[] = []): string | null {
  const r = canonicalPath(repoPath);
  if (r === path.parse(r).root) return `resolves to ${r}, the file system's root`;
  const bad = forbiddenRoots().find((f) => isInside(canonicalPath(f), r));
  if (bad) return `resolves to ${r}, inside ${bad}, which no task may read`;
  const roots = [manifestDir, ...allow].map(canonicalPath);
  if (roots.some((root) => isInside(root, r))) return null;
  return `resolves to ${r}, outside the manifest's folder ${canonicalPath(manifestDir)}${allow.length ? ` and the allowed folders (${allow.join(', ')})` : ''}; pass --allow DIR to use a repository elsewhere`;
}

export function readManifest(file: string, opts: ReadManifestOptions = {}): Manifest {
  const abs = path.resolve(file);
  let raw: Buffer;
  try {
    raw = fs.readFileSync(abs);
  } catch (err) {
    throw new ManifestError(`Cannot read the manifest ${abs}: ${(err as Error).message}`, abs);
  }
  const dir = path.dirname(abs);
  const tasks: Task[] = [];
  const lines: Record<string, number> = {};
  const seen = new Set<string>();
  const problems: ManifestError[] = [];
  let defaults: { python?: string } = {};
  // Every line is read, so one error lists every problem of the file, not just the first.
  raw
    .toString('utf8')
    .split('\n')
    .forEach((line, i) => {
      if (!line.trim()) return;
      try {
        const read = readLine(line, i + 1, { abs, dir, defaults, seen, allow: opts.allow });
        if ('defaults' in read) defaults = read.defaults;
        else {
          tasks.push(read.task);
          lines[read.task.id] = i + 1;
        }
      } catch (err) {
        if (!(err instanceof ManifestError)) throw err;
        problems.push(err);
      }
    });
  if (problems.length) throw manifestProblems(abs, problems);
  return { file: abs, hash: createHash('sha256').update(raw).digest('hex'), tasks, lines };
}

interface LineContext {
  abs: string;
  dir: string;
  defaults: { python?: string };
  /** Task ids of the lines before (a duplicate is refused; the first of them is kept). */
  seen: Set<string>;
  allow: readonly string[] | undefined;
}

/** One line of a manifest: a defaults line or a task with its paths resolved; a ManifestError naming file and line if it is neither. */
function readLine(line: string, n: number, ctx: LineContext): { defaults: { python?: string } } | { task: Task } {
  const { abs, dir } = ctx;
  let json: unknown;
  try {
    json = JSON.parse(line);
  } catch (err) {
    throw new ManifestError(`${abs}:${n}: not valid JSON (${(err as Error).message})`, abs, n);
  }
  if (json && typeof json === 'object' && 'defaults' in json && !('id' in json)) {
    // A defaults line applies to the tasks after it: {"defaults": {"python": ".venv"}}
    const d = DefaultsSchema.safeParse((json as { defaults: unknown }).defaults);
    if (!d.success)
      throw new ManifestError(`${abs}:${n}: defaults: ${d.error.issues.map((x) => `${x.path.join('.') || 'defaults'}: ${x.message}`).join('; ')}`, abs, n);
    return { defaults: d.data };
  }
  const parsed = TaskRecordSchema.safeParse(json);
  if (!parsed.success) {
    const issues = parsed.error.issues.map(issueText).join('; ');
    const id = (json as { id?: unknown })?.id;
    throw new ManifestError(`${abs}:${n}${typeof id === 'string' ? ` (task ${id})` : ''}: ${issues}`, abs, n);
  }
  if (ctx.seen.has(parsed.data.id)) throw new ManifestError(`${abs}:${n}: duplicate task id ${parsed.data.id}`, abs, n);
  ctx.seen.add(parsed.data.id);
  if (parsed.data.test_command !== undefined && parsed.data.check_template === undefined) {
    // Refused here, before any retrieval or generation: a command the validator cannot run.
    try {
      parseTestCommand(parsed.data.test_command);
    } catch (err) {
      if (err instanceof TestCommandError) throw new ManifestError(`${abs}:${n} (task ${parsed.data.id}): ${err.message}`, abs, n);
      throw err;
    }
  }
  for (const [field, rel] of [
    ['repo', parsed.data.repo],
    ['task_view', parsed.data.task_view],
  ] as const) {
    if (rel === undefined) continue;
    const problem = repoPlaceProblem(path.resolve(dir, rel), dir, ctx.allow);
    if (problem) throw new ManifestError(`${abs}:${n} (task ${parsed.data.id}): ${field} ${rel} ${problem}`, abs, n, 'forbidden-path', path.resolve(dir, rel));
  }
  const python = parsed.data.python ?? ctx.defaults.python;
  return {
    task: {
      ...parsed.data,
      ...(python ? { python: path.resolve(dir, python) } : {}),
      repoPath: path.resolve(dir, parsed.data.repo),
      ...(parsed.data.task_view !== undefined ? { taskViewPath: path.resolve(dir, parsed.data.task_view) } : {}),
    },
  };
}

/** What a field that must be a JSON object looks like, for the error when it is not one. */
const OBJECT_EXAMPLES: Record<string, string> = { source: '"source": {"benchmark": "my-bench", "id": "42"}' };

/** One schema problem of a task line: the field's path and what is wrong, with an example where the field must be an object. */
function issueText(issue: z.core.$ZodIssue): string {
  const field = issue.path.join('.') || 'task';
  if (issue.code === 'invalid_type' && (issue.expected === 'record' || issue.expected === 'object')) {
    const example = OBJECT_EXAMPLES[field];
    const received = /received (\w+)/.exec(issue.message)?.[1];
    const got = received ? `, not ${/^[aeiou]/.test(received) ? 'an' : 'a'} ${received}` : ` (${issue.message})`;
    return `${field}: must be a JSON object${example ? ` (${example})` : ''}${got}`;
  }
  return `${field}: ${issue.message}`;
}

export function findTask(manifest: Manifest, id: string): Task {
  const t = manifest.tasks.find((x) => x.id === id);
  if (!t) {
    const near = manifest.tasks
      .slice(0, 5)
      .map((x) => x.id)
      .join(', ');
    throw new ManifestError(`No task ${id} in ${manifest.file} (${manifest.tasks.length} tasks, e.g. ${near})`, manifest.file);
  }
  return t;
}

/**
 * Writes tasks as JSONL with `repo` relative to the manifest's folder; `repoPath` and `taskViewPath`
 * (absolute) win over `repo` and `task_view` and are written relative to it, never themselves.
 */
export function writeManifest(file: string, tasks: (TaskRecord & { repoPath?: string; taskViewPath?: string })[], opts: ReadManifestOptions = {}): Manifest {
  const abs = path.resolve(file);
  const dir = path.dirname(abs);
  fs.mkdirSync(dir, { recursive: true });
  const rel = (p: string) => (path.relative(dir, p) || '.').split(path.sep).join('/');
  const lines = tasks.map((t) => {
    const { repoPath, taskViewPath, ...rec } = t;
    const repo = repoPath ? rel(repoPath) : rec.repo.split(path.sep).join('/');
    const taskView = taskViewPath ? rel(taskViewPath) : rec.task_view?.split(path.sep).join('/');
    return JSON.stringify({ ...rec, repo, ...(taskView !== undefined ? { task_view: taskView } : {}) });
  });
  fs.writeFileSync(abs, lines.join('\n') + '\n');
  return readManifest(abs, opts);
}
