// Include patterns (`opencoder index <folder> --include PATH_OR_GLOB`, repo.index's `include`): paths or
// gitignore-style globs, relative to the repository root, naming files that the walk would leave out as
// generated, minified or too large and that the user wants indexed all the same. Each repository remembers its
// patterns in the store, so a later index run keeps what the user forced in. Binary data is never forced in, and
// nothing re-includes a file under a skipped or ignored folder: the walk does not enter those.
import path from 'node:path';
import type { Store } from '../store/store.ts';
import { addRules, newIgnore, type Ignore } from './ignore-rules.ts';
import { IncludePatternError, type SkipReason } from './walk-types.ts';

/** The size up to which an include pattern forces in a file over the walk's limit; a bigger one stays out. */
export const FORCED_MAX_FILE_BYTES = 16 * 1024 * 1024;

/**
 * The pattern as it is stored and matched: relative to `root` with '/' separators and no leading './'. An
 * absolute path inside the root is made relative. Throws IncludePatternError (invalid-input) for an empty
 * pattern, a negation, a comment, a path outside the root or one that climbs out with '..'.
 */
export function normalizeIncludePattern(root: string, raw: string): string {
  let p = raw.trim();
  const refuse = (why: string): never => {
    throw new IncludePatternError(
      raw,
      `Include pattern "${raw}" ${why}. Give a file, folder or glob relative to the repository root ${root}, e.g. Lib/token.py or **/*_pb2.py.`,
    );
  };
  if (p === '') refuse('is empty');
  if (path.isAbsolute(p)) {
    const rel = path.relative(root, p);
    if (rel === '' || rel === '..' || rel.startsWith(`..${path.sep}`) || path.isAbsolute(rel))
      refuse('lies outside the repository (or is the repository itself)');
    p = rel.split(path.sep).join('/');
  }
  p = p.replace(/^(?:\.\/)+/, '');
  if (p === '' || p === '.') refuse('names the whole repository (write ** to force in every generated, minified or oversized file)');
  if (p.startsWith('!')) refuse('is a negation; to stop forcing files in, drop the pattern instead (opencoder index --drop-include)');
  if (p.startsWith('#')) refuse('starts with #, which gitignore syntax reads as a comment');
  if (p.split('/').includes('..')) refuse("climbs out of the repository with '..'");
  try {
    newIgnore().add(p);
  } catch (err) {
    refuse(`is not a valid glob (${(err as Error).message})`);
  }
  return p;
}

/** Matches walked paths against include patterns and remembers which patterns matched something. */
export class IncludeMatcher {
  private readonly rules: { pattern: string; ig: Ignore }[];
  private readonly matched = new Set<string>();

  /** `patterns` as normalizeIncludePattern returns them. */
  constructor(patterns: readonly string[]) {
    this.rules = patterns.map((pattern) => {
      const ig = newIgnore();
      // Anchored at the root: `token.py` names the root's token.py, as a path relative to the root would.
      addRules(ig, [`/${pattern}`]);
      return { pattern, ig };
    });
  }

  /** The first pattern that matches the file `relPath`, or null. */
  match(relPath: string): string | null {
    for (const r of this.rules) {
      if (r.ig.ignores(relPath)) {
        this.matched.add(r.pattern);
        return r.pattern;
      }
    }
    return null;
  }

  /** The patterns that matched no file so far. */
  unmatched(): string[] {
    return this.rules.map((r) => r.pattern).filter((p) => !this.matched.has(p));
  }
}

/** Why an include pattern did not bring in a file that it matches, for that file's skip detail. */
export function includeRefusal(reason: SkipReason, pattern: string): string {
  if (reason === 'binary') return `include pattern ${pattern} matches it, but binary data is never indexed`;
  if (reason === 'too_large') return `include pattern ${pattern} matches it, but forces in files up to ${FORCED_MAX_FILE_BYTES / (1024 * 1024)} MiB only`;
  return `include pattern ${pattern} matches it, but forces in only files skipped as generated, minified or too large`;
}

/**
 * Updates the include patterns the store remembers for a repository (drops first, then additions; an
 * addition already remembered is kept once) and returns the patterns now in force. Every pattern is checked
 * before anything is written; dropping a pattern that is not remembered is refused, naming those that are.
 */
export function rememberIncludes(store: Store, repoId: number, root: string, add: readonly string[] = [], drop: readonly string[] = []): string[] {
  const current = store.includePatterns(repoId);
  if (add.length === 0 && drop.length === 0) return current;
  const adding = add.map((p) => normalizeIncludePattern(root, p));
  const dropping = drop.map((p) => normalizeIncludePattern(root, p));
  for (const [i, p] of dropping.entries()) {
    if (!current.includes(p)) {
      const known = current.length === 0 ? 'it has none' : `it has ${current.join(', ')}`;
      throw new IncludePatternError(drop[i]!, `Include pattern "${drop[i]}" is not one that ${root} remembers (${known}); nothing was changed.`);
    }
  }
  const next = current.filter((p) => !dropping.includes(p));
  for (const p of adding) if (!next.includes(p)) next.push(p);
  store.setIncludePatterns(repoId, next);
  return next;
}
