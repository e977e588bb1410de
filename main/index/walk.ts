// Walking a repository folder safely: which files the indexer should read, and why the others were left out.
//
// Hazards the walk handles so that nothing downstream meets them: .gitignore rules (nested, negated, anchored),
// vendored and build folders, virtualenvs, binary / minified / generated / oversized files, unreadable
// entries, FIFOs and other special files (never opened), symlinks leaving the repository, symlink loops,
// dangling symlinks, and the same file reached twice through a symlink. One bad entry is recorded as a skip
// and the walk goes on; only an unusable root, a bad include pattern or an aborted signal makes the walk throw.
// Include patterns force in files that would be skipped as generated, minified or too large.
//
// This module is the walk itself; the rules it applies live beside it: ignore-rules.ts (.gitignore),
// skip-folders.ts (folders left out by name or marker file), classify-content.ts (binary / generated / minified files,
// with generated-code.ts), include-rules.ts (include patterns), repo-root.ts (the root check); walk-types.ts holds
// the shapes it takes and returns. Everything other folders import from the walk is re-exported here.

import fs, { constants as fsConstants, promises as fsp, type Dirent, type Stats } from 'node:fs';
import path from 'node:path';
import type { Language } from '../model/code.ts';
import { DEFAULT_MAX_FILE_BYTES } from '../model/skip-reasons.ts';
import { explainContent, HEAD_BYTES } from './classify-content.ts';
import { addRules, gitExcludeText, ignoreRulesFrom, newIgnore, readSmallText, type Ignore } from './ignore-rules.ts';
import { FORCED_MAX_FILE_BYTES, includeRefusal, IncludeMatcher, normalizeIncludePattern } from './include-rules.ts';
import { languageOf } from './languages.ts';
import { checkRepositoryRoot, errCode, errDetail, RepositoryRootError } from './repo-root.ts';
import { alwaysSkippedAncestor, folderNameReason, virtualenvReason, type Lstat } from './skip-folders.ts';
import {
  WalkAbortedError,
  type ForcedFile,
  type SkippedPath,
  type SkipReason,
  type WalkedFile,
  type WalkIo,
  type WalkOptions,
  type WalkResult,
} from './walk-types.ts';

export { classifyContent, explainContent, HEAD_BYTES } from './classify-content.ts';
export { FORCED_MAX_FILE_BYTES, includeRefusal, normalizeIncludePattern, rememberIncludes } from './include-rules.ts';
export { rebaseIgnorePattern } from './ignore-rules.ts';
export { languageOf } from './languages.ts';
export { checkRepositoryRoot, RepositoryRootError, type RepositoryRootErrorCode } from './repo-root.ts';
export * from './walk-types.ts';

const CONCURRENCY = 32;

const O_NONBLOCK = fsConstants.O_NONBLOCK ?? 0;
const O_NOFOLLOW = fsConstants.O_NOFOLLOW ?? 0;

// The callback API: per file it is several times faster than FileHandle, which matters on every re-index.
function fdOpen(absPath: string, flags: number): Promise<number> {
  return new Promise((resolve, reject) => fs.open(absPath, flags, (err, fd) => (err ? reject(err) : resolve(fd))));
}

function fdStat(fd: number): Promise<Stats> {
  return new Promise((resolve, reject) => fs.fstat(fd, (err, st) => (err ? reject(err) : resolve(st))));
}

function fdRead(fd: number, buf: Buffer): Promise<number> {
  return new Promise((resolve, reject) => fs.read(fd, buf, 0, buf.length, 0, (err, n) => (err ? reject(err) : resolve(n))));
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
      if (next)
        next(); // hand the slot over directly
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
  private readonly lstat: Lstat = (absPath) => this.limiter.run(() => fsp.lstat(absPath));
  private readonly maxFileBytes: number;
  private readonly extra: Ignore | null;
  private readonly include: IncludeMatcher | null;
  private readonly io: WalkIo;

  constructor(
    private readonly rootReal: string,
    private readonly opts: WalkOptions,
  ) {
    this.maxFileBytes = opts.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES;
    if (opts.extraIgnore && opts.extraIgnore.length > 0) {
      this.extra = newIgnore();
      addRules(
        this.extra,
        opts.extraIgnore.filter((p) => p.trim() !== ''),
      );
    } else {
      this.extra = null;
    }
    // Normalised by walkRepository, or by rememberIncludes for the indexer.
    const include = opts.include ?? [];
    this.include = include.length > 0 ? new IncludeMatcher(include) : null;
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
    return { files: this.files, skipped: this.skipped, otherFiles: this.otherFiles, unmatchedIncludes: this.include?.unmatched() ?? [] };
  }

  private skip(relPath: string, reason: SkipReason, isDir: boolean, detail?: string): void {
    // A file an include pattern names but cannot bring in: say so beside the reason.
    const pattern = isDir ? null : (this.include?.match(relPath) ?? null);
    if (pattern !== null) detail = detail === undefined ? includeRefusal(reason, pattern) : `${detail}; ${includeRefusal(reason, pattern)}`;
    const skip: SkippedPath = detail === undefined ? { relPath, reason, isDir } : { relPath, reason, isDir, detail };
    if (pattern !== null) skip.includePattern = pattern;
    this.skipped.push(skip);
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
      const venv = await virtualenvReason(dirRel, dirReal, entries, this.lstat);
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
      const st = await this.lstat(absReal);
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

  private async visitDir(name: string, relPath: string, absReal: string, ig: Ignore, chain: Chain): Promise<void> {
    const named = await folderNameReason(name, absReal, this.lstat);
    if (named !== null) {
      this.skippedDirs.set(absReal, named.reason);
      return this.skip(relPath, named.reason, true, named.detail);
    }
    if (this.isIgnored(ig, relPath, true)) return this.skip(relPath, 'ignored', true);
    if (this.walkedDirs.has(absReal)) return this.skip(relPath, 'duplicate_symlink', true, 'folder already walked through a symlink');
    return this.walkDir(relPath, absReal, ig, chain);
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
  private async readCandidate(relPath: string, openPath: string, language: Language, noFollow: boolean): Promise<void> {
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
        const forced = await this.keepOrSkip(relPath, fd, st);
        if (forced === false) return;
        const absPath = path.join(this.rootReal, relPath);
        const file: WalkedFile = { relPath, absPath, size: st.size, mtimeMs: st.mtimeMs, language };
        if (forced !== null) file.forced = forced;
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

  /**
   * Checks an open candidate's size and content: false when it is skipped (the skip is recorded), null when it
   * is ordinary source, or what an include pattern overrode to keep it.
   */
  private async keepOrSkip(relPath: string, fd: number, st: Stats): Promise<ForcedFile | null | false> {
    const pattern = this.include?.match(relPath) ?? null;
    let forced: ForcedFile | null = null;
    if (st.size > this.maxFileBytes) {
      const detail = `${st.size} bytes > limit ${this.maxFileBytes}`;
      if (pattern === null || st.size > FORCED_MAX_FILE_BYTES) {
        this.skip(relPath, 'too_large', false, detail);
        return false;
      }
      forced = { reason: 'too_large', pattern, detail };
    }
    if (st.size === 0) return forced;
    const buf = Buffer.allocUnsafe(Math.min(HEAD_BYTES, st.size));
    const bytesRead = await fdRead(fd, buf);
    const verdict = explainContent(relPath, buf.subarray(0, bytesRead), st.size);
    if (verdict === null) return forced;
    if (pattern === null || verdict.reason === 'binary') {
      this.skip(relPath, verdict.reason, false, verdict.evidence);
      return false;
    }
    return forced ?? { reason: verdict.reason, pattern, detail: verdict.evidence };
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
      const named = await folderNameReason(name, real, this.lstat);
      if (named !== null) return this.skip(relPath, named.reason, true, named.detail);
    }
    if (this.isIgnored(ig, relPath, isDir)) return isDir ? this.skip(relPath, 'ignored', true) : this.ignoredLink(relPath);
    if (!this.isInsideRoot(real)) {
      return this.skip(relPath, 'symlink_outside', isDir, `points outside the repository: ${real}`);
    }
    const into = alwaysSkippedAncestor(this.relOf(real));
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
  if (opts.signal?.aborted) throw new WalkAbortedError(opts.signal.reason);
  const rootReal = await checkRepositoryRoot(root);
  const include = (opts.include ?? []).map((p) => normalizeIncludePattern(rootReal, p));
  return walkCheckedRoot(rootReal, { ...opts, include });
}

/**
 * walkRepository for a root that checkRepositoryRoot already accepted (`rootReal`, its real path), with include
 * patterns already normalised against it: the indexer checks both once, before its run is recorded.
 */
export async function walkCheckedRoot(rootReal: string, opts: WalkOptions = {}): Promise<WalkResult> {
  const signal = opts.signal;
  if (signal?.aborted) throw new WalkAbortedError(signal.reason);
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
