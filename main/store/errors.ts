// Typed errors of the store. Each names the database file and says what the user can do. mapStoreError turns
// SQLite's own failures (damage, a read-only file or folder) into them; db.ts applies it to every statement.

import fs from 'node:fs';
import path from 'node:path';
import type { Database } from 'better-sqlite3';
import { OpenCoderError, type ErrorCode } from '../model/errors.ts';

/** The commands that only read the database: they open it read-only, so a read-only file or folder is no obstacle. */
export const READ_ONLY_COMMANDS = 'status, runs, report, compare';

export class StoreError extends OpenCoderError {
  constructor(
    message: string,
    readonly dbPath: string,
    options?: { cause?: unknown; code?: ErrorCode },
  ) {
    super(options?.code ?? 'engine', message, options);
  }
}

/** The file exists but is not a readable SQLite database (or is damaged). Never deleted silently. */
export class StoreCorruptError extends StoreError {
  constructor(
    dbPath: string,
    /** What SQLite or the integrity check reported. */
    readonly detail: string,
    options?: { cause?: unknown; /** Found while opening (nothing written yet) rather than by a later query. */ onOpen?: boolean },
  ) {
    const what = options?.onOpen ? 'Nothing was changed.' : 'A query met the damage: it failed, and the write it was part of (if any) was rolled back.';
    super(
      `The database ${dbPath} is damaged or is not an OpenCoder database (${detail}). ${what} ` +
        `To start over, run a command that writes with --rebuild-db (e.g. opencoder index <folder> --rebuild-db): ` +
        `the file is moved aside (renamed to ${dbPath}.corrupt-<time>, never deleted) and a new database is built.`,
      dbPath,
      options,
    );
    this.name = 'StoreCorruptError';
  }
}

/** The database was written by a newer OpenCoder: opening it could lose data. */
export class SchemaTooNewError extends StoreError {
  constructor(
    dbPath: string,
    readonly found: number,
    readonly supported: number,
  ) {
    super(
      `The database ${dbPath} has schema version ${found}, but this OpenCoder understands versions up to ${supported}. ` +
        `It was written by a newer release; update OpenCoder or use another --db file. The file was not changed.`,
      dbPath,
    );
    this.name = 'SchemaTooNewError';
  }
}

/** A command that only reads met a database of an older schema: upgrading it is a write, which it never does. */
export class SchemaNeedsUpgradeError extends StoreError {
  constructor(
    dbPath: string,
    readonly found: number,
    readonly current: number,
  ) {
    super(
      `The database ${dbPath} has schema version ${found}; this release uses version ${current}. This command only reads, so it opens the ` +
        `database read-only and does not upgrade it: it needs a writable database to upgrade it. Run a command that writes once ` +
        `(e.g. opencoder index <folder> --db ${dbPath}) to upgrade it in place, then run this command again. The file was not changed.`,
      dbPath,
      { code: 'invalid-input' },
    );
    this.name = 'SchemaNeedsUpgradeError';
  }
}

/** What stops this process writing the database: the file (or its -wal / -shm file), its folder or a read-only mount. */
export interface WriteBlocker {
  kind: 'file' | 'folder' | 'mount';
  path: string;
}

/** The database (or what SQLite must create beside it) cannot be written: opening, migrating or writing failed. */
export class StoreReadOnlyError extends StoreError {
  constructor(
    dbPath: string,
    readonly blocker: WriteBlocker,
    options?: { cause?: unknown },
  ) {
    const why =
      blocker.kind === 'mount'
        ? `the file system holding ${blocker.path} is mounted read-only`
        : blocker.kind === 'folder'
          ? `the folder ${blocker.path} is read-only (SQLite creates the database and its -wal and -shm files there)`
          : blocker.path === dbPath
            ? 'the file is read-only'
            : `the file ${blocker.path} is read-only`;
    const fix =
      blocker.kind === 'folder'
        ? `Make the folder writable (chmod u+w ${blocker.path}) or give a --db file in a writable folder`
        : blocker.kind === 'mount'
          ? 'Give a --db file on a writable disk'
          : `Make it writable (chmod u+w ${blocker.path}) or give another file with --db`;
    super(`cannot write ${dbPath}: ${why}. ${fix}; the commands that only read (${READ_ONLY_COMMANDS}) work on it as it is.`, dbPath, {
      ...options,
      code: 'invalid-input',
    });
    this.name = 'StoreReadOnlyError';
  }
}

/** A write failed (disk full, read-only medium, I/O error); the transaction was rolled back. */
export class StoreWriteError extends StoreError {
  constructor(dbPath: string, what: string, cause: unknown) {
    const code = sqliteCode(cause);
    const reason =
      code === 'SQLITE_FULL'
        ? 'the disk is full'
        : code === 'SQLITE_READONLY'
          ? 'the database is read-only'
          : code.startsWith('SQLITE_IOERR')
            ? 'an I/O error occurred'
            : String((cause as Error | undefined)?.message ?? cause);
    super(`Could not write ${what} to ${dbPath}: ${reason}. The change was rolled back; everything stored before is intact.`, dbPath, { cause });
    this.name = 'StoreWriteError';
  }
}

function sqliteCode(err: unknown): string {
  const code = (err as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' ? code : '';
}

/** SQLite says the file is damaged or not a database (every SQLITE_CORRUPT* extended code, SQLITE_NOTADB). */
export function isCorruption(err: unknown): boolean {
  if (err instanceof StoreCorruptError) return true;
  const code = sqliteCode(err);
  return code === 'SQLITE_NOTADB' || code.startsWith('SQLITE_CORRUPT');
}

/** SQLite could not write, or could not open a file it needs (its extended codes say which file, not why). */
export function isWriteRefusal(err: unknown): boolean {
  const code = sqliteCode(err);
  return code.startsWith('SQLITE_READONLY') || code.startsWith('SQLITE_CANTOPEN');
}

/** What the file system says when a file cannot be written (permissions, a read-only mount, a full disk, I/O). */
const UNWRITABLE_ERRNO = new Set(['EACCES', 'EPERM', 'EROFS', 'ENOSPC', 'EDQUOT', 'EIO']);

/**
 * Whether `err` says only that the store, or the folder beside it, cannot take a write: a failed write (full,
 * read-only, I/O), a read-only file, folder or mount, a database opened only to read, or a file the file system
 * refuses. Damage and every other failure are not this.
 */
export function isUnwritable(err: unknown): boolean {
  if (err instanceof StoreWriteError || err instanceof StoreReadOnlyError) return true;
  if (err instanceof StoreError) return !(err instanceof StoreCorruptError) && isWriteRefusal(err.cause);
  return err instanceof Error && UNWRITABLE_ERRNO.has(String((err as NodeJS.ErrnoException).code)) && 'syscall' in err;
}

/**
 * Writes derived data the store keeps only to save time later (vector packs, sets derived from an index state): where
 * the store cannot be written, `otherwise` is returned and the data is made again when next needed. Other failures
 * are thrown.
 */
export function unlessUnwritable<T>(write: () => T, otherwise: T): T {
  try {
    return write();
  } catch (err) {
    if (isUnwritable(err)) return otherwise;
    throw err;
  }
}

/** Whether this process may write `file` (a file or a folder): null, or why not. */
export function writeRefusal(file: string): WriteBlocker['kind'] | null {
  try {
    fs.accessSync(file, fs.constants.W_OK);
    return null;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EROFS') return 'mount';
    return code === 'EACCES' || code === 'EPERM' ? 'file' : null;
  }
}

/** Why this process cannot write `dbPath` (checked with access(2), so as this user, not by the permission bits alone), or null. */
export function writeBlocker(dbPath: string): WriteBlocker | null {
  for (const file of [dbPath, `${dbPath}-wal`, `${dbPath}-shm`]) {
    if (!fs.existsSync(file)) continue;
    const kind = writeRefusal(file);
    if (kind) return { kind, path: file };
  }
  const dir = path.dirname(dbPath);
  const kind = writeRefusal(dir);
  return kind ? { kind: kind === 'file' ? 'folder' : kind, path: dir } : null;
}

/** How a database was opened, for mapStoreError. */
export interface StoreContext {
  dbPath: string;
  readonly: boolean;
  /** The failure happened while opening the database (before anything was written). */
  opening?: boolean;
}

/**
 * The error to throw for a failure of the database at `ctx.dbPath`: damage becomes a StoreCorruptError, a write
 * refused because of a read-only file or folder a StoreReadOnlyError; anything else (and any StoreError) is returned as it is.
 */
export function mapStoreError(err: unknown, ctx: StoreContext): unknown {
  if (err instanceof StoreError) return err;
  if (isCorruption(err)) return new StoreCorruptError(ctx.dbPath, (err as Error).message, { cause: err, onOpen: ctx.opening === true });
  if (!isWriteRefusal(err) || ctx.dbPath === ':memory:') return err;
  if (ctx.readonly) {
    return new StoreError(`cannot write ${ctx.dbPath}: this command only reads, so it opened the database read-only (${(err as Error).message})`, ctx.dbPath, {
      cause: err,
    });
  }
  const blocker = writeBlocker(ctx.dbPath);
  return blocker ? new StoreReadOnlyError(ctx.dbPath, blocker, { cause: err }) : err;
}

/**
 * Runs `fn` in one transaction. SQLite failures come out as a StoreCorruptError, a StoreReadOnlyError or a StoreWriteError naming
 * the file and what was being written (the transaction rolled back, earlier data intact); other errors pass through.
 */
export function inTransaction<T>(db: Database, dbPath: string, what: string, fn: () => T): T {
  try {
    return db.transaction(fn)();
  } catch (err) {
    const mapped = mapStoreError(err, { dbPath, readonly: db.readonly });
    if (mapped !== err || !sqliteCode(err).startsWith('SQLITE_')) throw mapped;
    throw new StoreWriteError(dbPath, what, err);
  }
}
