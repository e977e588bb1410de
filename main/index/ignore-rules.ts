// Gitignore handling for the walk: each folder's .gitignore (and .git/info/exclude at the root) rebased onto
// root-relative patterns in one matcher, so that git's precedence falls out of "last matching rule wins".
import { promises as fsp } from 'node:fs';
import path from 'node:path';
import ignore from 'ignore';

const MAX_IGNORE_FILE_BYTES = 1024 * 1024;

export type Ignore = ReturnType<typeof ignore>;

const IGNORE_CASE = process.platform === 'darwin' || process.platform === 'win32';

/** An empty matcher, case-insensitive where the file system usually is (macOS, Windows). */
export function newIgnore(): Ignore {
  return ignore({ ignorecase: IGNORE_CASE });
}

/** Escapes a folder path so that it matches literally at the start of a gitignore pattern. */
function escapeGlobPath(dirRel: string): string {
  let out = dirRel.replace(/[\\*?[\]]/g, (c) => `\\${c}`);
  if (out.startsWith('#') || out.startsWith('!')) out = `\\${out}`;
  return out;
}

/**
 * Rewrites one line of `<dirRel>/.gitignore` as an equivalent root-relative pattern, so that all rules live in
 * one matcher where "last matching rule wins" gives git's precedence (deeper files override shallower ones,
 * and a directory excluded by any level cannot have its contents re-included). Returns null for blank lines
 * and comments.
 */
export function rebaseIgnorePattern(line: string, dirRel: string): string | null {
  let l = line.endsWith('\r') ? line.slice(0, -1) : line;
  if (l.trim() === '' || l.startsWith('#')) return null;
  if (dirRel === '') return l;
  let negated = false;
  if (l.startsWith('!')) {
    negated = true;
    l = l.slice(1);
  }
  // Trailing unescaped spaces are not part of the pattern.
  l = l.replace(/(?<!\\)\s+$/, '');
  let dirOnly = false;
  if (l.endsWith('/')) {
    dirOnly = true;
    l = l.replace(/\/+$/, '');
  }
  if (l === '') return null;
  const anchored = l.includes('/');
  if (l.startsWith('/')) l = l.replace(/^\/+/, '');
  if (l === '') return null;
  const body = anchored ? l : `**/${l}`;
  return `${negated ? '!' : ''}${escapeGlobPath(dirRel)}/${body}${dirOnly ? '/' : ''}`;
}

/** Adds gitignore lines to a matcher; a malformed one is dropped without losing the rest. */
export function addRules(into: Ignore, lines: string[]): void {
  try {
    into.add(lines);
  } catch {
    // One malformed pattern must not throw the others away: add them one by one.
    for (const line of lines) {
      try {
        into.add(line);
      } catch {
        /* ignore the bad pattern, as git does */
      }
    }
  }
}

/** The rules of one ignore file's text, rebased onto root-relative patterns (see rebaseIgnorePattern). */
export function ignoreRulesFrom(text: string, dirRel: string): string[] {
  const out: string[] = [];
  const lines = text.replace(/^\uFEFF/, '').split('\n');
  for (const line of lines) {
    const rule = rebaseIgnorePattern(line, dirRel);
    if (rule !== null) out.push(rule);
  }
  return out;
}

/** A regular file's text if it is at most MAX_IGNORE_FILE_BYTES, else (or when unreadable) null. */
export async function readSmallText(absPath: string): Promise<string | null> {
  try {
    const st = await fsp.stat(absPath);
    if (!st.isFile() || st.size > MAX_IGNORE_FILE_BYTES) return null;
    return await fsp.readFile(absPath, 'utf8');
  } catch {
    return null;
  }
}

/**
 * The text of the repository's info/exclude file, or null. The git directory is `<root>/.git` itself, or the
 * `gitdir:` that a worktree/submodule `.git` file names (and its `commondir`, for a worktree).
 */
export async function gitExcludeText(rootReal: string): Promise<string | null> {
  const dotGit = path.join(rootReal, '.git');
  const st = await fsp.stat(dotGit).catch(() => null);
  let gitDir: string;
  if (st === null) {
    return null;
  } else if (st.isDirectory()) {
    gitDir = dotGit;
  } else if (st.isFile()) {
    const text = await readSmallText(dotGit);
    const m = text === null ? null : /^gitdir:\s*(.+?)\s*$/m.exec(text);
    if (!m) return null;
    gitDir = path.resolve(rootReal, m[1]!);
    const common = await readSmallText(path.join(gitDir, 'commondir'));
    if (common !== null && common.trim() !== '') gitDir = path.resolve(gitDir, common.trim());
  } else {
    return null;
  }
  return readSmallText(path.join(gitDir, 'info', 'exclude'));
}
