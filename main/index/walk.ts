// Walking a repository folder safely: which files the indexer should read, and why the others were left out.
//
// Hazards handled here so that nothing downstream meets them: .gitignore rules (nested, negated, anchored),
// vendored and build folders, virtualenvs, binary / minified / generated / oversized files, unreadable
// entries, FIFOs and other special files (never opened), symlinks leaving the repository, symlink loops,
// dangling symlinks, and the same file reached twice through a symlink. One bad entry is recorded as a skip
// and the walk goes on; only an unusable root or an aborted signal makes the walk throw.

import fs, { constants as fsConstants, promises as fsp, type Dirent, type Stats } from 'node:fs';
import { isUtf8 } from 'node:buffer';
import path from 'node:path';
import { TextDecoder } from 'node:util';
import ignore from 'ignore';
import type { Language } from '../model/code.ts';

// ───────────────────────────────────────────────────────────── public shapes

export type SkipReason =
  /** Matched a .gitignore, .git/info/exclude or `extraIgnore` rule. */
  | 'ignored'
  /** .git / .hg / .svn / .bzr */
  | 'vcs'
  /** node_modules, site-packages, dist-packages, bower_components */
  | 'dependencies'
  /** A folder holding pyvenv.cfg or conda-meta, a .venv/venv/env with bin/activate, .tox, .nox */
  | 'virtualenv'
  /** __pycache__, .mypy_cache, .pytest_cache, .ruff_cache */
  | 'cache'
  /** dist, build, out, target, coverage (unless they are a Python package), .next, .nuxt, *.egg-info, .eggs */
  | 'build_output'
  | 'binary'
  | 'minified'
  | 'generated'
  | 'too_large'
  | 'unreadable'
  /** FIFO, socket, character or block device: never opened. */
  | 'special_file'
  | 'symlink_outside'
  | 'symlink_loop'
  | 'symlink_dangling'
  /** A symlink to a file or folder that the walk already covers under its real path. */
  | 'duplicate_symlink';

export type ContentSkipReason = 'binary' | 'minified' | 'generated';

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
}

export interface SkippedPath {
  relPath: string;
  reason: SkipReason;
  detail?: string;
  isDir: boolean;
}

/** The file-system calls the walk makes to list folders and open candidate files; replaceable for tests. */
export interface WalkIo {
  /** Opens a file and returns its descriptor (the walk closes it). */
  open(absPath: string, flags: number): Promise<number>;
  /** Lists a folder with entry types. */
  readdir(absPath: string): Promise<Dirent[]>;
}

export interface WalkOptions {
  /** Files larger than this are skipped as 'too_large'. Default 1 MiB. */
  maxFileBytes?: number;
  /** Aborting stops the walk promptly; walkRepository then rejects with a WalkAbortedError (name 'AbortError'). */
  signal?: AbortSignal;
  /** Extra gitignore-syntax patterns, relative to the root. They only add exclusions (they cannot re-include). */
  extraIgnore?: string[];
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
}

export type RepositoryRootErrorCode = 'not_found' | 'not_a_directory' | 'permission_denied' | 'unreadable';

export class RepositoryRootError extends Error {
  readonly code: RepositoryRootErrorCode;
  readonly path: string;
  constructor(code: RepositoryRootErrorCode, rootPath: string, message: string, cause?: unknown) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = 'RepositoryRootError';
    this.code = code;
    this.path = rootPath;
  }
}

export class WalkAbortedError extends Error {
  constructor(reason?: unknown) {
    super('The repository walk was aborted', reason === undefined ? undefined : { cause: reason });
    this.name = 'AbortError';
  }
}

// ───────────────────────────────────────────────────────────── constants

const DEFAULT_MAX_FILE_BYTES = 1024 * 1024;
/** How much of each candidate file classification reads. */
export const HEAD_BYTES = 8192;
const MAX_IGNORE_FILE_BYTES = 1024 * 1024;
const CONCURRENCY = 32;

const O_NONBLOCK = fsConstants.O_NONBLOCK ?? 0;
const O_NOFOLLOW = fsConstants.O_NOFOLLOW ?? 0;

const LANGUAGE_BY_EXT: ReadonlyMap<string, Language> = new Map([
  ['.py', 'python'],
  ['.pyi', 'python'],
  ['.ts', 'typescript'],
  ['.mts', 'typescript'],
  ['.cts', 'typescript'],
  ['.tsx', 'tsx'],
  ['.js', 'javascript'],
  ['.mjs', 'javascript'],
  ['.cjs', 'javascript'],
  ['.jsx', 'javascript'],
]);

/** Language for a path by its extension, or null when the walk does not index it. */
export function languageOf(relPath: string): Language | null {
  return LANGUAGE_BY_EXT.get(path.posix.extname(relPath).toLowerCase()) ?? null;
}

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

// ───────────────────────────────────────────────────────────── content classification

const utf8 = new TextDecoder('utf-8', { fatal: false, ignoreBOM: true });
const JS_LIKE: ReadonlySet<Language> = new Set<Language>(['typescript', 'tsx', 'javascript']);

const GENERATED_NAME = /(?:_pb2(?:_grpc)?\.pyi?|_pb\.(?:js|d\.ts)|_grpc_pb\.(?:js|d\.ts)|_grpc_web_pb\.(?:js|d\.ts))$/;
const MINIFIED_NAME = /[.-]min\.[cm]?js$/i;

// What may follow "generated" in a header: "by X", "from Y", end of sentence, or a do-not-edit warning.
const GENERATED_TAIL = String.raw`(?:\s+(?:by|from|with|using|on|for)\b|[\s.:;,!)-]*$|.*\b(?:do\s+not|don't)\s+edit\b)`;
/** `Auto-generated by X`, `This file was automatically generated.`, `Code generated by X. DO NOT EDIT.` */
const GENERATED_QUALIFIED = new RegExp(
  String.raw`^(?:(?:this|the)\s+)?(?:(?:file|code|module|source(?:\s+file)?)\s+)?(?:(?:is|was|has\s+been)\s+)?(?:auto(?:matically)?[- ]?|machine[- ])generated\b` +
    GENERATED_TAIL,
  'i',
);
const GENERATED_SUBJECT = new RegExp(
  String.raw`^(?:(?:this|the)\s+)?(?:file|code|module|source(?:\s+file)?)\s+(?:(?:is|was|has\s+been)\s+)?generated\b` + GENERATED_TAIL,
  'i',
);
/** `Generated by Django 4.2` — capitalised, i.e. a sentence start, not a wrapped line that begins with the word. */
const GENERATED_BARE = new RegExp(String.raw`^Generated\b` + GENERATED_TAIL);
/** `// generated by protoc` — lower case only on the first line of a comment block. */
const GENERATED_BARE_FIRST = /^generated\s+(?:by|from)\b/i;
/** PEP 263 encoding declaration (first two lines of a Python file). */
const PY_CODING = /^[ \t\f]*#.*?coding[:=][ \t]*([-\w.]+)/;
const GENERATED_TAG = /(?:^|\s)@generated\b/;
const DO_NOT_EDIT = /\b(?:do\s+not|don't)\s+(?:edit|modify)\b/i;
const GENERATED_WORD = /\b(?:auto-?)?generated\b/i;

const HEADER_LINES = 30;
const MINIFIED_LINE_CHARS = 1000;
const MINIFIED_AVG_LINE_CHARS = 300;

/**
 * Classifies a file from its first bytes (`head`, at most HEAD_BYTES) and its full `size`:
 * 'binary' (NUL byte, or mostly invalid UTF-8 / control bytes), 'generated' (protobuf output names,
 * `Generated by` / `@generated` / `DO NOT EDIT` headers), 'minified' (`*.min.js`, or for JS/TS a line over
 * ~1,000 characters with few newlines). Returns null for ordinary source.
 */
export function classifyContent(relPath: string, head: Buffer, size: number): ContentSkipReason | null {
  if (head.length === 0) return null;
  if (head.includes(0)) return 'binary';

  const truncated = head.length < size;
  // A multi-byte character cut by the end of the head must not count as invalid: streaming mode holds it back.
  const text = truncated ? utf8.decode(head, { stream: true }) : utf8.decode(head);
  if (truncated) utf8.decode(); // reset the decoder's pending bytes
  const base = relPath.slice(relPath.lastIndexOf('/') + 1);
  if (looksBinary(head, text, declaresLegacyEncoding(base, text))) return 'binary';

  if (GENERATED_NAME.test(base)) return 'generated';
  if (MINIFIED_NAME.test(base)) return 'minified';
  if (hasGeneratedHeader(text)) return 'generated';

  const lang = languageOf(base);
  if (lang !== null && JS_LIKE.has(lang) && looksMinified(text)) return 'minified';
  return null;
}

/** A Python file that declares a non-UTF-8 source encoding (koi8-r, latin-1): its bytes are not UTF-8 by design. */
function declaresLegacyEncoding(base: string, text: string): boolean {
  if (!base.endsWith('.py') && !base.endsWith('.pyi')) return false;
  const nl = text.indexOf('\n');
  const nl2 = nl === -1 ? -1 : text.indexOf('\n', nl + 1);
  const firstTwo = (nl2 === -1 ? text : text.slice(0, nl2)).split('\n');
  for (const line of firstTwo) {
    const m = PY_CODING.exec(line);
    if (m) return !/^utf[-_]?8/i.test(m[1]!);
  }
  return false;
}

/** Control characters other than \t \n \v \f \r and ESC (ANSI colour codes appear in test fixtures). */
const CONTROL_CHARS = /[\x01-\x08\x0e-\x1a\x1c-\x1f]/g;

function looksBinary(head: Buffer, text: string, legacyEncoding: boolean): boolean {
  // Regular expressions and isUtf8 run natively: a per-byte JS loop was a visible share of a stdlib walk.
  CONTROL_CHARS.lastIndex = 0;
  if (CONTROL_CHARS.test(text)) {
    CONTROL_CHARS.lastIndex = 0;
    const control = text.match(CONTROL_CHARS)?.length ?? 0;
    if (control > text.length * 0.1) return true;
  }
  if (legacyEncoding || isUtf8(head)) return false;
  let invalid = 0;
  for (let i = text.indexOf('\ufffd'); i !== -1; i = text.indexOf('\ufffd', i + 1)) invalid++;
  // Legacy-encoded source (latin-1 comments) has a few invalid sequences; binary data has many.
  return invalid > 8 && invalid > text.length * 0.1;
}

function hasGeneratedHeader(text: string): boolean {
  let inBlock: '*/' | '"""' | "'''" | null = null;
  let prevWasComment = false;
  let lineNo = 0;
  let start = 0;
  while (start <= text.length && lineNo < HEADER_LINES) {
    let end = text.indexOf('\n', start);
    if (end === -1) end = text.length;
    const raw = text.slice(start, end).trim();
    start = end + 1;
    lineNo++;
    if (raw === '') {
      if (inBlock === null) prevWasComment = false;
      continue;
    }
    const blockStart = !prevWasComment;

    let body: string | null = null;
    if (inBlock !== null) {
      body = raw;
      if (raw.includes(inBlock)) inBlock = null;
    } else if (raw.startsWith('#!')) {
      continue;
    } else if (raw.startsWith('#') || raw.startsWith('//')) {
      body = raw;
    } else if (raw.startsWith('/*')) {
      body = raw;
      if (!raw.includes('*/', 2)) inBlock = '*/';
    } else {
      const m = /^[rRuUbB]{0,2}("""|''')/.exec(raw);
      if (m) {
        const quote = m[1] as '"""' | "'''";
        body = raw;
        if (!raw.includes(quote, m[0].length)) inBlock = quote;
      }
    }
    prevWasComment = body !== null;
    if (body === null) {
      // Code has started: a marker further down is not a header (e.g. a string that mentions @generated).
      // Directives ('use strict', 'use client') and Python __future__ imports may precede a header comment.
      if (/^['"]use [\w -]+['"];?$/.test(raw) || /^from __future__ import\b/.test(raw)) continue;
      return false;
    }
    const comment = body
      .replace(/^(?:[rRuUbB]{0,2}(?:"""|''')|\/\*+|\/\/+|#+|\*+|<!--)\s*/, '')
      .replace(/\s*(?:\*\/|"""|'''|-->)\s*$/, '')
      .trim();
    if (GENERATED_TAG.test(comment)) return true;
    if (GENERATED_QUALIFIED.test(comment) || GENERATED_SUBJECT.test(comment) || GENERATED_BARE.test(comment)) return true;
    if (blockStart && GENERATED_BARE_FIRST.test(comment)) return true;
    if (DO_NOT_EDIT.test(comment) && GENERATED_WORD.test(comment)) return true;
  }
  return false;
}

function looksMinified(text: string): boolean {
  let longest = 0;
  let newlines = 0;
  let lineStart = 0;
  for (let i = 0; i < text.length; i++) {
    if (text.charCodeAt(i) === 10) {
      newlines++;
      if (i - lineStart > longest) longest = i - lineStart;
      lineStart = i + 1;
    }
  }
  if (text.length - lineStart > longest) longest = text.length - lineStart;
  return longest > MINIFIED_LINE_CHARS && text.length / (newlines + 1) > MINIFIED_AVG_LINE_CHARS;
}

// ───────────────────────────────────────────────────────────── root check

function errCode(err: unknown): string | undefined {
  return typeof err === 'object' && err !== null && 'code' in err ? String((err as { code: unknown }).code) : undefined;
}

function errDetail(err: unknown): string {
  const code = errCode(err);
  const msg = err instanceof Error ? err.message : String(err);
  return code !== undefined && !msg.startsWith(code) ? `${code}: ${msg}` : msg;
}

/**
 * Checks that `root` is a folder the walk can read and returns its real path (symlinks resolved).
 * Throws RepositoryRootError with a message fit for the user otherwise.
 */
export async function checkRepositoryRoot(root: string): Promise<string> {
  if (typeof root !== 'string' || root.trim() === '') {
    throw new RepositoryRootError('not_found', String(root), 'No repository folder was given (the path is empty).');
  }
  const abs = path.resolve(root);
  let st: Stats;
  try {
    st = await fsp.stat(abs);
  } catch (err) {
    const code = errCode(err);
    if (code === 'ENOENT' || code === 'ENOTDIR') {
      throw new RepositoryRootError('not_found', abs, `The repository folder does not exist: ${abs}`, err);
    }
    if (code === 'EACCES' || code === 'EPERM') {
      throw new RepositoryRootError('permission_denied', abs, `Cannot read the repository folder ${abs}: permission denied.`, err);
    }
    if (code === 'ELOOP') {
      throw new RepositoryRootError('unreadable', abs, `The repository path ${abs} is a symlink loop.`, err);
    }
    throw new RepositoryRootError('unreadable', abs, `Cannot read the repository folder ${abs}: ${errDetail(err)}`, err);
  }
  if (!st.isDirectory()) {
    const what = st.isFile() ? 'a file' : 'a special file (not a regular file or folder)';
    throw new RepositoryRootError('not_a_directory', abs, `The repository path ${abs} is ${what}, not a folder.`);
  }
  let real: string;
  try {
    real = await fsp.realpath(abs);
    await fsp.access(real, fsConstants.R_OK | fsConstants.X_OK);
    const dir = await fsp.opendir(real);
    await dir.close();
  } catch (err) {
    const code = errCode(err);
    if (code === 'EACCES' || code === 'EPERM') {
      throw new RepositoryRootError('permission_denied', abs, `Cannot read the repository folder ${abs}: permission denied.`, err);
    }
    throw new RepositoryRootError('unreadable', abs, `Cannot read the repository folder ${abs}: ${errDetail(err)}`, err);
  }
  return real;
}

// ───────────────────────────────────────────────────────────── gitignore handling

type Ignore = ReturnType<typeof ignore>;

const IGNORE_CASE = process.platform === 'darwin' || process.platform === 'win32';

function newIgnore(): Ignore {
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

function addRules(into: Ignore, lines: string[]): void {
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

function ignoreRulesFrom(text: string, dirRel: string): string[] {
  const out: string[] = [];
  const lines = text.replace(/^\uFEFF/, '').split('\n');
  for (const line of lines) {
    const rule = rebaseIgnorePattern(line, dirRel);
    if (rule !== null) out.push(rule);
  }
  return out;
}

async function readSmallText(absPath: string): Promise<string | null> {
  try {
    const st = await fsp.stat(absPath);
    if (!st.isFile() || st.size > MAX_IGNORE_FILE_BYTES) return null;
    return await fsp.readFile(absPath, 'utf8');
  } catch {
    return null;
  }
}

/** The git directory for `<root>/.git`: the folder itself, or the `gitdir:` a worktree/submodule file names. */
async function gitExcludeText(rootReal: string): Promise<string | null> {
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

// ───────────────────────────────────────────────────────────── the walk

// The callback API: per file it is several times faster than FileHandle, which matters on every re-index.
function fdOpen(absPath: string, flags: number): Promise<number> {
  return new Promise((resolve, reject) => fs.open(absPath, flags, (err, fd) => (err ? reject(err) : resolve(fd))));
}

function fdStat(fd: number): Promise<Stats> {
  return new Promise((resolve, reject) => fs.fstat(fd, (err, st) => (err ? reject(err) : resolve(st))));
}

function fdRead(fd: number, buf: Buffer): Promise<number> {
  return new Promise((resolve, reject) =>
    fs.read(fd, buf, 0, buf.length, 0, (err, n) => (err ? reject(err) : resolve(n))),
  );
}

function fdClose(fd: number): Promise<void> {
  return new Promise((resolve) => fs.close(fd, () => resolve()));
}

/** Bounded concurrency: at most `max` file-system operations in flight. */
class Limiter {
  private active = 0;
  private readonly waiting: (() => void)[] = [];
  constructor(private readonly max: number) {}

  async run<T>(fn: () => Promise<T>): Promise<T> {
    if (this.active >= this.max) {
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    } else {
      this.active++;
    }
    try {
      return await fn();
    } finally {
      const next = this.waiting.shift();
      if (next) next(); // hand the slot over directly
      else this.active--;
    }
  }
}

/** The real folders on the logical path from the root to a folder (used to detect symlink loops). */
interface Chain {
  real: string;
  parent: Chain | null;
}

function chainHas(chain: Chain | null, real: string): boolean {
  for (let c = chain; c !== null; c = c.parent) if (c.real === real) return true;
  return false;
}

interface PendingLink {
  relPath: string;
  realTarget: string;
  kind: 'file' | 'dir';
  language: Language | null;
  ig: Ignore;
  chain: Chain;
}

function joinRel(dirRel: string, name: string): string {
  return dirRel === '' ? name : `${dirRel}/${name}`;
}

function compareRel(a: { relPath: string }, b: { relPath: string }): number {
  return a.relPath < b.relPath ? -1 : a.relPath > b.relPath ? 1 : 0;
}

class Walker {
  readonly files: WalkedFile[] = [];
  readonly skipped: SkippedPath[] = [];
  otherFiles = 0;

  /** Real paths of folders walked so far. */
  private readonly walkedDirs = new Set<string>();
  /** Real paths of folders skipped by name or as virtualenvs (not by .gitignore): links into them are not followed. */
  private readonly skippedDirs = new Map<string, SkipReason>();
  /** Real path → relPath of candidate files reached so far (for symlink de-duplication). */
  private readonly walkedFiles = new Map<string, string>();
  private pending: PendingLink[] = [];
  private readonly limiter = new Limiter(CONCURRENCY);
  private readonly maxFileBytes: number;
  private readonly extra: Ignore | null;
  private readonly io: WalkIo;

  constructor(
    private readonly rootReal: string,
    private readonly opts: WalkOptions,
  ) {
    this.maxFileBytes = opts.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES;
    if (opts.extraIgnore && opts.extraIgnore.length > 0) {
      this.extra = newIgnore();
      addRules(this.extra, opts.extraIgnore.filter((p) => p.trim() !== ''));
    } else {
      this.extra = null;
    }
    this.io = {
      open: opts.io?.open ?? fdOpen,
      readdir: opts.io?.readdir ?? ((p) => fsp.readdir(p, { withFileTypes: true })),
    };
  }

  checkAbort(): void {
    const signal = this.opts.signal;
    if (signal?.aborted) throw new WalkAbortedError(signal.reason);
  }

  async run(): Promise<WalkResult> {
    await this.walkDir('', this.rootReal, newIgnore(), null);
    // Symlinks are settled after the real tree, so "already walked" does not depend on traversal order.
    while (this.pending.length > 0) {
      const batch = this.pending.sort(compareRel);
      this.pending = [];
      for (const link of batch) {
        this.checkAbort();
        await this.settleLink(link);
      }
    }
    this.files.sort(compareRel);
    this.skipped.sort(compareRel);
    return { files: this.files, skipped: this.skipped, otherFiles: this.otherFiles };
  }

  private skip(relPath: string, reason: SkipReason, isDir: boolean, detail?: string): void {
    this.skipped.push(detail === undefined ? { relPath, reason, isDir } : { relPath, reason, isDir, detail });
  }

  private isIgnored(ig: Ignore, relPath: string, isDir: boolean): boolean {
    const p = isDir ? `${relPath}/` : relPath;
    if (ig.ignores(p)) return true;
    return this.extra !== null && this.extra.ignores(p);
  }

  private async listDir(dirReal: string): Promise<Dirent[]> {
    return this.limiter.run(async () => {
      this.checkAbort();
      return this.io.readdir(dirReal);
    });
  }

  /** Walks one folder that has already passed the name and ignore checks. */
  private async walkDir(dirRel: string, dirReal: string, parentIg: Ignore, parentChain: Chain | null): Promise<void> {
    this.checkAbort();
    this.walkedDirs.add(dirReal);
    const chain: Chain = { real: dirReal, parent: parentChain };
    let entries: Dirent[];
    try {
      entries = await this.listDir(dirReal);
    } catch (err) {
      if (err instanceof WalkAbortedError) throw err;
      if (dirRel === '') {
        throw new RepositoryRootError('unreadable', dirReal, `Cannot read the repository folder ${dirReal}: ${errDetail(err)}`, err);
      }
      this.skip(dirRel, 'unreadable', true, errDetail(err));
      return;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));

    if (dirRel !== '') {
      const venv = await this.virtualenvReason(dirRel, dirReal, entries);
      if (venv !== null) {
        this.skip(dirRel, 'virtualenv', true, venv);
        this.skippedDirs.set(dirReal, 'virtualenv');
        return;
      }
    }

    let ig = parentIg;
    const rules: string[] = [];
    if (dirRel === '') {
      const exclude = entries.some((e) => e.name === '.git') ? await gitExcludeText(dirReal) : null;
      if (exclude !== null) rules.push(...ignoreRulesFrom(exclude, ''));
    }
    const gi = entries.find((e) => e.name === '.gitignore');
    if (gi && gi.isFile()) {
      const text = await this.limiter.run(() => readSmallText(path.join(dirReal, '.gitignore')));
      if (text === null) this.skip(joinRel(dirRel, '.gitignore'), 'unreadable', false, 'could not read .gitignore; its rules are not applied');
      else rules.push(...ignoreRulesFrom(text, dirRel));
    }
    if (rules.length > 0) {
      ig = newIgnore().add(parentIg);
      addRules(ig, rules);
    }

    const tasks: Promise<void>[] = [];
    for (const entry of entries) {
      const relPath = joinRel(dirRel, entry.name);
      const task = this.visitEntry(entry, relPath, dirReal, ig, chain);
      if (task !== null) tasks.push(task);
    }
    await settleAll(tasks);
  }

  /** Decides one directory entry; returns a promise when there is asynchronous work. */
  private visitEntry(entry: Dirent, relPath: string, dirReal: string, ig: Ignore, chain: Chain): Promise<void> | null {
    const absReal = path.join(dirReal, entry.name);
    if (entry.isDirectory()) return this.guard(relPath, true, () => this.visitDir(entry.name, relPath, absReal, ig, chain));
    if (entry.isFile()) return this.visitFile(relPath, absReal, ig);
    if (entry.isSymbolicLink()) return this.guard(relPath, false, () => this.visitLink(entry.name, relPath, absReal, ig, chain));
    if (entry.isFIFO() || entry.isSocket() || entry.isCharacterDevice() || entry.isBlockDevice()) {
      this.visitSpecial(relPath, ig, entry.name === '.git');
      return null;
    }
    // Type unknown from the listing: ask lstat.
    return this.guard(relPath, false, async () => {
      const st = await this.limiter.run(() => fsp.lstat(absReal));
      if (st.isDirectory()) return this.visitDir(entry.name, relPath, absReal, ig, chain);
      if (st.isFile()) return void (await this.visitFile(relPath, absReal, ig));
      if (st.isSymbolicLink()) return this.visitLink(entry.name, relPath, absReal, ig, chain);
      this.visitSpecial(relPath, ig, entry.name === '.git');
    });
  }

  /** Runs `fn`, turning any error but an abort into an 'unreadable' skip for `relPath`. */
  private async guard(relPath: string, isDir: boolean, fn: () => Promise<void>): Promise<void> {
    try {
      await fn();
    } catch (err) {
      if (err instanceof WalkAbortedError || err instanceof RepositoryRootError) throw err;
      this.skip(relPath, 'unreadable', isDir, errDetail(err));
    }
  }

  private visitSpecial(relPath: string, ig: Ignore, isGit: boolean): void {
    if (isGit) return this.skip(relPath, 'vcs', false);
    if (this.isIgnored(ig, relPath, false)) {
      if (languageOf(relPath) !== null) this.skip(relPath, 'ignored', false);
      return;
    }
    this.skip(relPath, 'special_file', false, 'FIFO, socket or device; not opened');
  }

  /** Name-based skip for a folder (always-skipped names), or null. May look for an __init__.py. */
  private async folderNameReason(name: string, absReal: string): Promise<{ reason: SkipReason; detail: string } | null> {
    const fixed = ALWAYS_SKIP_DIRS.get(name);
    if (fixed !== undefined) return { reason: fixed, detail: `always skipped: ${name}` };
    if (name.endsWith('.egg-info')) return { reason: 'build_output', detail: 'always skipped: *.egg-info' };
    if (BUILD_DIR_NAMES.has(name)) {
      // `build/` or `coverage/` holding an __init__.py is a Python package (PyPA build, coverage.py), not output.
      const isPackage = await this.limiter.run(() =>
        fsp.lstat(path.join(absReal, '__init__.py')).then(
          (s) => s.isFile(),
          () => false,
        ),
      );
      if (!isPackage) return { reason: 'build_output', detail: `always skipped: ${name}` };
    }
    return null;
  }

  private async visitDir(name: string, relPath: string, absReal: string, ig: Ignore, chain: Chain): Promise<void> {
    const named = await this.folderNameReason(name, absReal);
    if (named !== null) {
      this.skippedDirs.set(absReal, named.reason);
      return this.skip(relPath, named.reason, true, named.detail);
    }
    if (this.isIgnored(ig, relPath, true)) return this.skip(relPath, 'ignored', true);
    if (this.walkedDirs.has(absReal)) return this.skip(relPath, 'duplicate_symlink', true, 'folder already walked through a symlink');
    return this.walkDir(relPath, absReal, ig, chain);
  }

  private async virtualenvReason(dirRel: string, dirReal: string, entries: Dirent[]): Promise<string | null> {
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
        const found = await this.limiter.run(() =>
          fsp.lstat(path.join(dirReal, bin, script)).then(
            () => true,
            () => false,
          ),
        );
        if (found) return `contains ${bin}/${script}`;
      }
    }
    return null;
  }

  private visitFile(relPath: string, absReal: string, ig: Ignore): Promise<void> | null {
    const language = languageOf(relPath);
    if (relPath === '.git' || relPath.endsWith('/.git')) {
      this.skip(relPath, 'vcs', false);
      return null;
    }
    if (this.isIgnored(ig, relPath, false)) {
      if (language !== null) this.skip(relPath, 'ignored', false);
      return null;
    }
    if (language === null) {
      this.otherFiles++;
      return null;
    }
    const seen = this.walkedFiles.get(absReal);
    if (seen !== undefined) {
      // Only possible under a followed folder symlink whose file was already reached through a file symlink.
      this.skip(relPath, 'duplicate_symlink', false, `same file as ${seen}`);
      return null;
    }
    this.walkedFiles.set(absReal, relPath);
    return this.readCandidate(relPath, absReal, language, true);
  }

  /** Opens a regular-file candidate without following links or blocking, checks size, classifies its head. */
  private async readCandidate(
    relPath: string,
    openPath: string,
    language: Language,
    noFollow: boolean,
  ): Promise<void> {
    await this.limiter.run(async () => {
      this.checkAbort();
      let fd: number;
      try {
        fd = await this.io.open(openPath, fsConstants.O_RDONLY | O_NONBLOCK | (noFollow ? O_NOFOLLOW : 0));
      } catch (err) {
        const code = errCode(err);
        if (code === 'ENXIO' || code === 'ENODEV') return this.skip(relPath, 'special_file', false, errDetail(err));
        return this.skip(relPath, 'unreadable', false, errDetail(err));
      }
      try {
        const st = await fdStat(fd);
        if (!st.isFile()) return this.skip(relPath, 'special_file', false, 'not a regular file; not read');
        if (st.size > this.maxFileBytes) {
          return this.skip(relPath, 'too_large', false, `${st.size} bytes > limit ${this.maxFileBytes}`);
        }
        let reason: ContentSkipReason | null = null;
        if (st.size > 0) {
          const buf = Buffer.allocUnsafe(Math.min(HEAD_BYTES, st.size));
          const bytesRead = await fdRead(fd, buf);
          reason = classifyContent(relPath, buf.subarray(0, bytesRead), st.size);
        }
        if (reason !== null) return this.skip(relPath, reason, false);
        const absPath = path.join(this.rootReal, relPath);
        const file: WalkedFile = { relPath, absPath, size: st.size, mtimeMs: st.mtimeMs, language };
        // Reached through a symlink: say which real file this is.
        if (openPath !== absPath) file.realRelPath = this.relOf(openPath);
        this.files.push(file);
      } catch (err) {
        if (err instanceof WalkAbortedError) throw err;
        this.skip(relPath, 'unreadable', false, errDetail(err));
      } finally {
        await fdClose(fd);
      }
    });
  }

  private isInsideRoot(real: string): boolean {
    return real === this.rootReal || real.startsWith(this.rootReal.endsWith(path.sep) ? this.rootReal : this.rootReal + path.sep);
  }

  private relOf(real: string): string {
    return path.relative(this.rootReal, real).split(path.sep).join('/');
  }

  /** First pass over a symlink: resolve it and settle what does not depend on the rest of the walk. */
  private async visitLink(name: string, relPath: string, absLink: string, ig: Ignore, chain: Chain): Promise<void> {
    if (name === '.git') return this.skip(relPath, 'vcs', false);
    let real: string;
    try {
      real = await this.limiter.run(() => fsp.realpath(absLink));
    } catch (err) {
      const code = errCode(err);
      if (this.isIgnored(ig, relPath, false)) return this.ignoredLink(relPath);
      if (code === 'ELOOP') return this.skip(relPath, 'symlink_loop', false, 'the link resolves to itself');
      if (code === 'ENOENT' || code === 'ENOTDIR') {
        const target = await fsp.readlink(absLink).catch(() => '?');
        return this.skip(relPath, 'symlink_dangling', false, `target does not exist: ${target}`);
      }
      return this.skip(relPath, 'unreadable', false, errDetail(err));
    }
    let st: Stats;
    try {
      st = await this.limiter.run(() => fsp.stat(real));
    } catch (err) {
      if (this.isIgnored(ig, relPath, false)) return this.ignoredLink(relPath);
      return this.skip(relPath, 'unreadable', false, errDetail(err));
    }
    const isDir = st.isDirectory();
    if (isDir) {
      const named = await this.folderNameReason(name, real);
      if (named !== null) return this.skip(relPath, named.reason, true, named.detail);
    }
    if (this.isIgnored(ig, relPath, isDir)) return isDir ? this.skip(relPath, 'ignored', true) : this.ignoredLink(relPath);
    if (!this.isInsideRoot(real)) {
      return this.skip(relPath, 'symlink_outside', isDir, `points outside the repository: ${real}`);
    }
    const into = this.alwaysSkippedAncestor(real);
    if (into !== null) {
      if (!isDir && languageOf(relPath) === null) return; // not a source file: not worth a report
      return this.skip(relPath, into.reason, isDir, `points into ${into.folder}`);
    }
    if (isDir) {
      if (chainHas(chain, real)) {
        return this.skip(relPath, 'symlink_loop', true, `points to its own ancestor: ${this.relOf(real) || '.'}`);
      }
      this.pending.push({ relPath, realTarget: real, kind: 'dir', language: null, ig, chain });
      return;
    }
    if (!st.isFile()) return this.skip(relPath, 'special_file', false, 'link to a FIFO, socket or device; not opened');
    const language = languageOf(relPath);
    if (language === null) {
      this.otherFiles++;
      return;
    }
    this.pending.push({ relPath, realTarget: real, kind: 'file', language, ig, chain });
  }

  /** For a real path inside the root: the first folder on the way that is always skipped by name (node_modules, .venv/...). */
  private alwaysSkippedAncestor(real: string): { reason: SkipReason; folder: string } | null {
    const parts = this.relOf(real).split('/');
    for (let i = 0; i < parts.length; i++) {
      const name = parts[i]!;
      const reason = ALWAYS_SKIP_DIRS.get(name) ?? (name.endsWith('.egg-info') ? 'build_output' : undefined);
      if (reason !== undefined) return { reason, folder: parts.slice(0, i + 1).join('/') };
    }
    return null;
  }

  private ignoredLink(relPath: string): void {
    if (languageOf(relPath) !== null) this.skip(relPath, 'ignored', false);
  }

  /** Second pass: a link inside the repository is used only if its target is not walked under its real path. */
  private async settleLink(link: PendingLink): Promise<void> {
    const isDir = link.kind === 'dir';
    // Into a folder the walk skipped as a virtualenv / dependency / build folder: not followed either.
    for (let p = isDir ? link.realTarget : path.dirname(link.realTarget); this.isInsideRoot(p); p = path.dirname(p)) {
      const reason = this.skippedDirs.get(p);
      if (reason !== undefined) return this.skip(link.relPath, reason, isDir, `points into ${this.relOf(p)}`);
      if (p === this.rootReal) break;
    }
    if (isDir) {
      if (this.walkedDirs.has(link.realTarget)) {
        return this.skip(link.relPath, 'duplicate_symlink', true, `same folder as ${this.relOf(link.realTarget) || '.'}`);
      }
      return this.guard(link.relPath, true, () => this.walkDir(link.relPath, link.realTarget, link.ig, link.chain));
    }
    const seen = this.walkedFiles.get(link.realTarget);
    if (seen !== undefined) return this.skip(link.relPath, 'duplicate_symlink', false, `same file as ${seen}`);
    this.walkedFiles.set(link.realTarget, link.relPath);
    await this.readCandidate(link.relPath, link.realTarget, link.language!, false);
  }
}

/** Awaits every task; the first abort (or root) error wins, after the others have settled. */
async function settleAll(tasks: Promise<void>[]): Promise<void> {
  if (tasks.length === 0) return;
  const results = await Promise.allSettled(tasks);
  for (const r of results) if (r.status === 'rejected') throw r.reason;
}

/**
 * Walks `root` and returns the files to index (sorted by relPath), the paths left out with a reason, and a
 * count of other files. Rejects with RepositoryRootError when the root is unusable and with WalkAbortedError
 * (name 'AbortError') when `opts.signal` is aborted; any other problem is recorded as a skip.
 */
export async function walkRepository(root: string, opts: WalkOptions = {}): Promise<WalkResult> {
  const signal = opts.signal;
  if (signal?.aborted) throw new WalkAbortedError(signal.reason);
  const rootReal = await checkRepositoryRoot(root);
  const walker = new Walker(rootReal, opts);
  walker.checkAbort();
  if (!signal) return walker.run();

  // Reject as soon as the signal fires; in-flight operations notice the abort at their next check.
  let onAbort: (() => void) | undefined;
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(new WalkAbortedError(signal.reason));
    signal.addEventListener('abort', onAbort, { once: true });
  });
  const work = walker.run();
  work.catch(() => undefined); // its failure after an abort is not interesting
  try {
    return await Promise.race([work, aborted]);
  } finally {
    signal.removeEventListener('abort', onAbort!);
  }
}
