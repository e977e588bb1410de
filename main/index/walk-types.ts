// The shapes the repository walk hands back and takes: walked and skipped paths with their reasons, the
// options and the replaceable file-system calls, and the errors an aborted walk or a bad include pattern rejects with.
import type { Dirent } from 'node:fs';
import type { Language } from '../model/code.ts';
import { OpenCoderError } from '../model/errors.ts';
import type { SkipReason } from '../model/skip-reasons.ts';

/**
 * Why the walk left a path out (main/model/skip-reasons.ts lists them with the phrase each prints as). Folder
 * reasons: `ignored` (a .gitignore, .git/info/exclude or `extraIgnore` rule), `vcs` (.git / .hg / .svn / .bzr),
 * `dependencies` (node_modules, site-packages, dist-packages, bower_components), `virtualenv` (a folder holding
 * pyvenv.cfg or conda-meta, a .venv/venv/env with bin/activate, .tox, .nox), `cache` (__pycache__, .mypy_cache,
 * .pytest_cache, .ruff_cache), `build_output` (dist, build, out, target, coverage unless they are a Python package,
 * .next, .nuxt, *.egg-info, .eggs); `special_file` is a FIFO, socket or device (never opened); `duplicate_symlink`
 * a link to a file or folder that the walk already covers under its real path.
 */
export type { SkipReason };

export type ContentSkipReason = 'binary' | 'minified' | 'generated';

/** The skips an include pattern overrides. */
export type ForcedReason = 'generated' | 'minified' | 'too_large';

export interface WalkedFile {
  /** Relative to the repository root, '/' separators. For a symlinked file, the link's own path. */
  relPath: string;
  /** Absolute path to read the file from: the real root joined with relPath. */
  absPath: string;
  size: number;
  mtimeMs: number;
  language: Language;
  /** Set when relPath is a symlink (or lies under a followed folder symlink): the real file, relative to the root. */
  realRelPath?: string;
  /** Set when an include pattern forced in a file the walk would have skipped: why it would have, and which pattern. */
  forced?: ForcedFile;
}

/** A file an include pattern forced in: the skip it overrode, the pattern, and the skip's detail. */
export interface ForcedFile {
  reason: ForcedReason;
  pattern: string;
  detail: string;
}

export interface SkippedPath {
  relPath: string;
  reason: SkipReason;
  detail?: string;
  isDir: boolean;
  /** Set when an include pattern matches the file but cannot force it in (binary data, a special file, …). */
  includePattern?: string;
}

/** The file-system calls the walk makes to list folders and open candidate files; replaceable for tests. */
export interface WalkIo {
  /** Opens a file and returns its descriptor (the walk closes it). */
  open(absPath: string, flags: number): Promise<number>;
  /** Lists a folder with entry types. */
  readdir(absPath: string): Promise<Dirent[]>;
}

export interface WalkOptions {
  /** Files larger than this are skipped as 'too_large'. Default DEFAULT_MAX_FILE_BYTES (1 MiB). */
  maxFileBytes?: number;
  /** Aborting stops the walk promptly; walkRepository then rejects with a WalkAbortedError (name 'AbortError'). */
  signal?: AbortSignal;
  /** Extra gitignore-syntax patterns, relative to the root. They only add exclusions (they cannot re-include). */
  extraIgnore?: string[];
  /**
   * Include patterns (include-rules.ts): files they match are indexed although they look generated or minified,
   * or are over `maxFileBytes` (up to FORCED_MAX_FILE_BYTES). Binary files and skipped folders stay out.
   */
  include?: readonly string[];
  /** Test seam: replaces the open/readdir calls (e.g. to simulate EACCES when running as root). */
  io?: Partial<WalkIo>;
}

export interface WalkResult {
  /** Files to index, sorted by relPath. */
  files: WalkedFile[];
  /** Everything left out that is worth telling the user, sorted by relPath. Skipped folders appear once. */
  skipped: SkippedPath[];
  /** Regular files outside any skipped folder, not ignored, whose extension is not a supported language. */
  otherFiles: number;
  /** The include patterns that matched no file the walk reached (a typo, or a file under a skipped folder). */
  unmatchedIncludes: string[];
}

/** What the walk rejects with when its signal aborts (name 'AbortError', as for other aborted work). */
export class WalkAbortedError extends OpenCoderError {
  constructor(reason?: unknown) {
    super('cancelled', 'The repository walk was aborted', reason === undefined ? undefined : { cause: reason });
    this.name = 'AbortError';
  }
}

/** An include pattern that cannot be used (empty, outside the repository, a negation, …); the message says why. */
export class IncludePatternError extends OpenCoderError {
  constructor(
    readonly pattern: string,
    message: string,
  ) {
    super('invalid-input', message);
  }
}
