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
  ) {
    super(code, message);
  }
}

export interface Manifest {
  file: string;
  /** sha256 of the manifest's bytes: what a run records to freeze its inputs. */
  hash: string;
  tasks: Task[];
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
  const seen = new Set<string>();
  let defaults: { python?: string } = {};
  raw
    .toString('utf8')
    .split('\n')
    .forEach((line, i) => {
      if (!line.trim()) return;
      let json: unknown;
      try {
        json = JSON.parse(line);
      } catch (err) {
        throw new ManifestError(`${abs}:${i + 1}: not valid JSON (${(err as Error).message})`, abs, i + 1);
      }
      if (json && typeof json === 'object' && 'defaults' in json && !('id' in json)) {
        // A defaults line applies to the tasks after it: {"defaults": {"python": ".venv"}}
        const d = DefaultsSchema.safeParse((json as { defaults: unknown }).defaults);
        if (!d.success)
          throw new ManifestError(
            `${abs}:${i + 1}: defaults: ${d.error.issues.map((x) => `${x.path.join('.') || 'defaults'}: ${x.message}`).join('; ')}`,
            abs,
            i + 1,
          );
        defaults = d.data;
        return;
      }
      const parsed = TaskRecordSchema.safeParse(json);
      if (!parsed.success) {
        const issues = parsed.error.issues.map((x) => `${x.path.join('.') || 'task'}: ${x.message}`).join('; ');
        const id = (json as { id?: unknown })?.id;
        throw new ManifestError(`${abs}:${i + 1}${typeof id === 'string' ? ` (task ${id})` : ''}: ${issues}`, abs, i + 1);
      }
      if (seen.has(parsed.data.id)) throw new ManifestError(`${abs}:${i + 1}: duplicate task id ${parsed.data.id}`, abs, i + 1);
      seen.add(parsed.data.id);
      if (parsed.data.test_command !== undefined && parsed.data.check_template === undefined) {
        // Refused here, before any retrieval or generation: a command the validator cannot run.
        try {
          parseTestCommand(parsed.data.test_command);
        } catch (err) {
          if (err instanceof TestCommandError) throw new ManifestError(`${abs}:${i + 1} (task ${parsed.data.id}): ${err.message}`, abs, i + 1);
          throw err;
        }
      }
      for (const [field, rel] of [
        ['repo', parsed.data.repo],
        ['task_view', parsed.data.task_view],
      ] as const) {
        if (rel === undefined) continue;
        const problem = repoPlaceProblem(path.resolve(dir, rel), dir, opts.allow);
        if (problem) throw new ManifestError(`${abs}:${i + 1} (task ${parsed.data.id}): ${field} ${rel} ${problem}`, abs, i + 1, 'forbidden-path');
      }
      const python = parsed.data.python ?? defaults.python;
      tasks.push({
        ...parsed.data,
        ...(python ? { python: path.resolve(dir, python) } : {}),
        repoPath: path.resolve(dir, parsed.data.repo),
        ...(parsed.data.task_view !== undefined ? { taskViewPath: path.resolve(dir, parsed.data.task_view) } : {}),
      });
    });
  return { file: abs, hash: createHash('sha256').update(raw).digest('hex'), tasks };
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
