// Folders the walk does not enter, decided from names and a few marker files: version control, installed
// dependencies, caches, virtualenvs and build output. (.gitignore rules are separate: see ignore-rules.ts.)
import type { Dirent, Stats } from 'node:fs';
import path from 'node:path';
import type { SkipReason } from './walk-types.ts';

/** lstat as the walk runs it (bounded concurrency); the folder checks below look for marker files with it. */
export type Lstat = (absPath: string) => Promise<Stats>;

const ALWAYS_SKIP_DIRS: ReadonlyMap<string, SkipReason> = new Map<string, SkipReason>([
  ['.git', 'vcs'],
  ['.hg', 'vcs'],
  ['.svn', 'vcs'],
  ['.bzr', 'vcs'],
  ['node_modules', 'dependencies'],
  ['bower_components', 'dependencies'],
  ['site-packages', 'dependencies'],
  ['dist-packages', 'dependencies'],
  ['__pycache__', 'cache'],
  ['.mypy_cache', 'cache'],
  ['.pytest_cache', 'cache'],
  ['.ruff_cache', 'cache'],
  ['.tox', 'virtualenv'],
  ['.nox', 'virtualenv'],
  ['.next', 'build_output'],
  ['.nuxt', 'build_output'],
  ['.eggs', 'build_output'],
]);

/** Build-output names that are also plausible package names: kept when the folder holds an __init__.py. */
const BUILD_DIR_NAMES: ReadonlySet<string> = new Set(['dist', 'build', 'out', 'target', 'coverage']);
const VENV_DIR_NAMES: ReadonlySet<string> = new Set(['.venv', 'venv', 'env']);

/** Name-based skip for a folder (always-skipped names), or null. May look for an __init__.py. */
export async function folderNameReason(name: string, absReal: string, lstat: Lstat): Promise<{ reason: SkipReason; detail: string } | null> {
  const fixed = ALWAYS_SKIP_DIRS.get(name);
  if (fixed !== undefined) return { reason: fixed, detail: `always skipped: ${name}` };
  if (name.endsWith('.egg-info')) return { reason: 'build_output', detail: 'always skipped: *.egg-info' };
  if (BUILD_DIR_NAMES.has(name)) {
    // `build/` or `coverage/` holding an __init__.py is a Python package (PyPA build, coverage.py), not output.
    const isPackage = await lstat(path.join(absReal, '__init__.py')).then(
      (s) => s.isFile(),
      () => false,
    );
    if (!isPackage) return { reason: 'build_output', detail: `always skipped: ${name}` };
  }
  return null;
}

/** Why the folder at `dirRel` (listed as `entries`) is a virtualenv or conda environment, or null when it is not one. */
export async function virtualenvReason(dirRel: string, dirReal: string, entries: Dirent[], lstat: Lstat): Promise<string | null> {
  const names = new Set(entries.map((e) => e.name));
  if (names.has('pyvenv.cfg')) return 'contains pyvenv.cfg';
  if (names.has('conda-meta')) return 'conda environment (contains conda-meta)';
  const base = dirRel.slice(dirRel.lastIndexOf('/') + 1);
  if (VENV_DIR_NAMES.has(base)) {
    for (const [bin, script] of [
      ['bin', 'activate'],
      ['Scripts', 'activate'],
    ] as const) {
      if (!names.has(bin)) continue;
      const found = await lstat(path.join(dirReal, bin, script)).then(
        () => true,
        () => false,
      );
      if (found) return `contains ${bin}/${script}`;
    }
  }
  return null;
}

/** For a path relative to the root: the first folder on the way that is always skipped by name (node_modules, .git, …), or null. */
export function alwaysSkippedAncestor(relPath: string): { reason: SkipReason; folder: string } | null {
  const parts = relPath.split('/');
  for (let i = 0; i < parts.length; i++) {
    const name = parts[i]!;
    const reason = ALWAYS_SKIP_DIRS.get(name) ?? (name.endsWith('.egg-info') ? 'build_output' : undefined);
    if (reason !== undefined) return { reason, folder: parts.slice(0, i + 1).join('/') };
  }
  return null;
}
