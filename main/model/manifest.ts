// The task manifest's format: one JSON object per line, each a task record (model/task.ts) or a defaults line
// (`{"defaults": {"python": ".venv"}}`) that applies to the tasks after it. A task is a target function in a
// repository with a requirement and executable tests, in one of two shapes:
//   - repository + test_command (run from the repository root, e.g. `python3 -m unittest tests.test_x`)
//   - a standalone `check_template` program (RepoExec-inline): the candidate replaces `placeholder`.
// This file reads the text: lines, JSON, schema, duplicates, one error for every problem. What needs the file
// system (reading the bytes, resolving and confining paths, checking the test command) is
// benchmarks/manifest-file.ts, which every command that reads a manifest calls.

import { z } from 'zod';
import { OpenCoderError, type ErrorCode } from './errors.ts';
import { TaskRecordSchema, type Task, type TaskRecord } from './task.ts';

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

export interface ReadManifestOptions {
  /** Folders (besides the manifest's own) a task's `repo` and `task_view` may lie in: the CLI's --allow, the app's allowed roots. */
  allow?: readonly string[];
}

/** What a defaults line may set. */
export interface ManifestDefaults {
  python?: string;
}

const DefaultsSchema = z.object({ python: z.string().min(1).optional() }).strict();

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

/**
 * Turns one schema-valid record into the task as read (paths resolved, the record's command checked). It throws
 * a ManifestError naming the file and line when the record cannot be used.
 */
export type ResolveTask = (record: TaskRecord, line: number, defaults: ManifestDefaults) => Task;

/**
 * Reads a manifest's text. Every line is read, so one error lists every problem of the file, not just the first.
 * `abs` is the file's path, for the messages.
 */
export function parseManifest(text: string, abs: string, resolve: ResolveTask): { tasks: Task[]; lines: Record<string, number> } {
  const tasks: Task[] = [];
  const lines: Record<string, number> = {};
  const seen = new Set<string>();
  const problems: ManifestError[] = [];
  let defaults: ManifestDefaults = {};
  text.split('\n').forEach((line, i) => {
    if (!line.trim()) return;
    try {
      const read = readLine(line, i + 1, abs, seen);
      if ('defaults' in read) defaults = read.defaults;
      else {
        const task = resolve(read.record, i + 1, defaults);
        tasks.push(task);
        lines[task.id] = i + 1;
      }
    } catch (err) {
      if (!(err instanceof ManifestError)) throw err;
      problems.push(err);
    }
  });
  if (problems.length) throw manifestProblems(abs, problems);
  return { tasks, lines };
}

/**
 * One line of a manifest: a defaults line or a task record; a ManifestError naming file and line if it is neither.
 * `seen` holds the task ids of the lines before (a duplicate is refused; the first of them is kept).
 */
function readLine(line: string, n: number, abs: string, seen: Set<string>): { defaults: ManifestDefaults } | { record: TaskRecord } {
  let json: unknown;
  try {
    json = JSON.parse(line);
  } catch (err) {
    throw new ManifestError(`${abs}:${n}: not valid JSON (${(err as Error).message})`, abs, n);
  }
  if (json && typeof json === 'object' && 'defaults' in json && !('id' in json)) {
    const d = DefaultsSchema.safeParse(json.defaults);
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
  if (seen.has(parsed.data.id)) throw new ManifestError(`${abs}:${n}: duplicate task id ${parsed.data.id}`, abs, n);
  seen.add(parsed.data.id);
  return { record: parsed.data };
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
