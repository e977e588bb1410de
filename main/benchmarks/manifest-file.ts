// Reading and writing a task manifest file (the format itself is model/manifest.ts). Every importer writes one and
// every command (retrieve, validate, run, …) reads one through here, so each task's paths are resolved and
// confined, and its test command checked, before the first model call.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createHash } from 'node:crypto';
import { ManifestError, parseManifest, type Manifest, type ManifestDefaults, type ReadManifestOptions } from '../model/manifest.ts';
import type { Task, TaskRecord } from '../model/task.ts';
import { parseTestCommand, TestCommandError } from '../validate/command.ts';
import { canonicalPath, isInside } from '../util/paths.ts';

/** Folders a repository may never be, whatever is allowed: reading them into a workspace would expose the machine. */
function forbiddenRoots(): string[] {
  return ['/etc', '/root', '/proc', '/sys', '/dev', '/boot', path.join(os.homedir(), '.ssh'), path.join(os.homedir(), '.gnupg')];
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
  const { tasks, lines } = parseManifest(raw.toString('utf8'), abs, (record, n, defaults) => resolveTask(record, n, defaults, { abs, dir, allow: opts.allow }));
  return { file: abs, hash: createHash('sha256').update(raw).digest('hex'), tasks, lines };
}

/** A record's test command checked and its paths resolved against the manifest's folder and confined. */
function resolveTask(record: TaskRecord, n: number, defaults: ManifestDefaults, ctx: { abs: string; dir: string; allow: readonly string[] | undefined }): Task {
  const { abs, dir } = ctx;
  if (record.test_command !== undefined && record.check_template === undefined) {
    // Refused here, before any retrieval or generation: a command the validator cannot run.
    try {
      parseTestCommand(record.test_command);
    } catch (err) {
      if (err instanceof TestCommandError) throw new ManifestError(`${abs}:${n} (task ${record.id}): ${err.message}`, abs, n);
      throw err;
    }
  }
  for (const [field, rel] of [
    ['repo', record.repo],
    ['task_view', record.task_view],
  ] as const) {
    if (rel === undefined) continue;
    const problem = repoPlaceProblem(path.resolve(dir, rel), dir, ctx.allow);
    if (problem) throw new ManifestError(`${abs}:${n} (task ${record.id}): ${field} ${rel} ${problem}`, abs, n, 'forbidden-path', path.resolve(dir, rel));
  }
  const python = record.python ?? defaults.python;
  return {
    ...record,
    ...(python ? { python: path.resolve(dir, python) } : {}),
    repoPath: path.resolve(dir, record.repo),
    ...(record.task_view !== undefined ? { taskViewPath: path.resolve(dir, record.task_view) } : {}),
  };
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
