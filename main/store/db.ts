// Opening a workspace database: SQLite (better-sqlite3) + sqlite-vec, WAL, numbered migrations, integrity checks, and the
// guard (guard.ts) that maps every later SQLite failure to a store error. A read-only open (the commands that only read)
// never writes: no journal-mode switch, no migration. A writable one leaves the file in rollback-journal mode when its
// last connection closes, so that a read-only open needs no -wal or -shm file (which a read-only folder could not hold).

import fs from 'node:fs';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import type { Database } from 'better-sqlite3';
import * as sqliteVec from 'sqlite-vec';
import { MIGRATIONS, SCHEMA_VERSION, type Migration } from './migrations.ts';
import { damageBehindVirtualTables, FULL_CHECK_MAX_BYTES, fullCheck, probeTables } from './checks.ts';
import { guardDatabase } from './guard.ts';
import {
  isCorruption,
  isWriteRefusal,
  mapStoreError,
  SchemaNeedsUpgradeError,
  SchemaTooNewError,
  StoreCorruptError,
  StoreError,
  StoreReadOnlyError,
  StoreWriteError,
  writeBlocker,
  writeRefusal,
  type StoreContext,
} from './errors.ts';

export interface OpenOptions {
  /** Check the whole file (at any size); when it is damaged, move it aside (never delete it) and create a new one. */
  rebuild?: boolean;
  /** Apply migrations only up to this version (tests of in-place upgrades). */
  targetVersion?: number;
  /** Open for reading only: no write, no migration; works on a read-only file and in a read-only folder. */
  readonly?: boolean;
}

export interface OpenedDatabase {
  db: Database;
  /** What opening did that the user should hear of (a damaged file moved aside), or null. */
  notice: string | null;
  /** A read-only open of a file that does not exist yet: `db` is an empty database of the current schema, in memory. */
  missing: boolean;
}

/** Opens (creating if needed) and migrates the database at `dbPath`. */
export function openDatabase(dbPath: string, opts: OpenOptions = {}): Database {
  return openWorkspaceDatabase(dbPath, opts).db;
}

/** Opens the database at `dbPath` as `opts` ask, and says what opening did. */
export function openWorkspaceDatabase(dbPath: string, opts: OpenOptions = {}): OpenedDatabase {
  const resolved = dbPath === ':memory:' ? dbPath : path.resolve(dbPath);
  if (resolved !== ':memory:' && fs.existsSync(resolved) && fs.statSync(resolved).isDirectory()) {
    throw new StoreError(`The database path ${resolved} is a folder; give a file name with --db.`, resolved);
  }
  if (opts.readonly && resolved !== ':memory:') return openReadOnly(resolved);
  if (resolved !== ':memory:') prepareFolder(resolved);
  const existed = resolved !== ':memory:' && fs.existsSync(resolved) && fs.statSync(resolved).size > 0;
  try {
    const db = openWritable(resolved, opts);
    const kept = opts.rebuild && existed ? `--rebuild-db: the full integrity check found ${resolved} intact; it was kept as it is.` : null;
    return { db, notice: kept, missing: false };
  } catch (err) {
    if (!isCorruption(err)) throw err;
    const damage = err instanceof StoreCorruptError ? err : new StoreCorruptError(resolved, (err as Error).message, { cause: err, onOpen: true });
    if (!opts.rebuild || resolved === ':memory:') throw damage;
    const aside = moveAside(resolved);
    const db = openWritable(resolved, { ...opts, rebuild: false });
    return {
      db,
      notice: `The database ${resolved} was damaged (${damage.detail}); it was moved to ${aside} (with its -wal and -shm files, if any) and a new database was created in its place.`,
      missing: false,
    };
  }
}

/** The database's folder exists and this process may create and write the database there. */
function prepareFolder(dbPath: string): void {
  const dir = path.dirname(dbPath);
  try {
    fs.mkdirSync(dir, { recursive: true });
  } catch (err) {
    throw new StoreError(`Cannot create the folder ${dir} for the database: ${(err as Error).message}`, dbPath, { cause: err });
  }
  const blocker = writeBlocker(dbPath);
  if (blocker) throw new StoreReadOnlyError(dbPath, blocker);
}

/** Renames the damaged file (and its -wal and -shm) to `<file>.corrupt-<time>`; returns the new name. */
function moveAside(dbPath: string): string {
  const aside = `${dbPath}.corrupt-${new Date().toISOString().replace(/[:.]/g, '-')}`;
  try {
    fs.renameSync(dbPath, aside);
    for (const suffix of ['-wal', '-shm']) {
      if (fs.existsSync(dbPath + suffix)) fs.renameSync(dbPath + suffix, aside + suffix);
    }
  } catch (err) {
    throw new StoreError(`Cannot move the damaged database ${dbPath} aside to ${aside}: ${(err as Error).message}. Nothing was deleted.`, dbPath, {
      cause: err,
    });
  }
  return aside;
}

/** Connection settings every open shares (none of them writes the file). */
function configure(db: Database): void {
  db.pragma('busy_timeout = 5000');
  db.pragma('foreign_keys = ON');
  // Indexing writes hundreds of MB of rows and index pages: a larger page cache avoids re-reading them.
  db.pragma('cache_size = -65536');
  db.pragma('temp_store = MEMORY');
  sqliteVec.load(db);
}

/** The full check for a small file (or when asked), the cheap probe for a large one; throws what it finds. */
function checkOnOpen(db: Database, dbPath: string, full: boolean): void {
  if (full || dbPath === ':memory:' || fs.statSync(dbPath).size <= FULL_CHECK_MAX_BYTES) {
    const found = fullCheck(db);
    if (found) throw new StoreCorruptError(dbPath, `integrity check: ${found}`, { onOpen: true });
  } else {
    probeTables(db);
  }
}

function openWritable(dbPath: string, opts: OpenOptions): Database {
  const raw = new BetterSqlite3(dbPath);
  try {
    // Reading the header is what detects a file that is not a database; the version is checked
    // before anything (even the journal mode) is written, so a newer database stays untouched.
    raw.pragma('busy_timeout = 5000');
    const current = raw.pragma('user_version', { simple: true }) as number;
    if (current > SCHEMA_VERSION) throw new SchemaTooNewError(dbPath, current, SCHEMA_VERSION);
    configure(raw);
    // The check comes before the journal-mode switch too: a damaged file is reported exactly as it was found.
    if (current > 0) checkOnOpen(raw, dbPath, opts.rebuild === true);
    raw.pragma('journal_mode = WAL');
    raw.pragma('synchronous = NORMAL');
    const db = guarded(raw, { dbPath, readonly: false });
    const target = opts.targetVersion ?? SCHEMA_VERSION;
    for (const m of MIGRATIONS) {
      if (m.version <= current || m.version > target) continue;
      applyMigration(db, dbPath, m);
    }
    return db;
  } catch (err) {
    raw.close();
    throw mapStoreError(err, { dbPath, readonly: false, opening: true });
  }
}

function openReadOnly(dbPath: string): OpenedDatabase {
  if (!fs.existsSync(dbPath)) return { db: emptyReadOnly(dbPath), notice: null, missing: true };
  const ctx = { dbPath, readonly: true };
  let raw: Database;
  try {
    raw = new BetterSqlite3(dbPath, { readonly: true, fileMustExist: true });
  } catch (err) {
    throw new StoreError(`cannot read ${dbPath}: ${unreadable(dbPath) ?? (err as Error).message}`, dbPath, { cause: err, code: 'invalid-input' });
  }
  try {
    let current: number;
    try {
      current = raw.pragma('user_version', { simple: true }) as number;
    } catch (err) {
      throw isWriteRefusal(err) ? unreadableLog(dbPath, err) : err;
    }
    if (current > SCHEMA_VERSION) throw new SchemaTooNewError(dbPath, current, SCHEMA_VERSION);
    if (current < SCHEMA_VERSION) throw new SchemaNeedsUpgradeError(dbPath, current, SCHEMA_VERSION);
    configure(raw);
    checkOnOpen(raw, dbPath, false);
    return { db: guarded(raw, ctx), notice: null, missing: false };
  } catch (err) {
    raw.close();
    throw mapStoreError(err, { ...ctx, opening: true });
  }
}

/** A read-only command on a file not created yet: an empty database of the current schema, read-only, in memory. */
function emptyReadOnly(dbPath: string): Database {
  const scratch = openWritable(':memory:', {});
  const image = scratch.serialize();
  scratch.close();
  const raw = new BetterSqlite3(image, { readonly: true });
  configure(raw);
  return guarded(raw, { dbPath, readonly: true });
}

/** Why this process cannot read `file`, or null. */
function unreadable(file: string): string | null {
  try {
    fs.accessSync(file, fs.constants.R_OK);
    return null;
  } catch (err) {
    return `${(err as NodeJS.ErrnoException).code === 'EACCES' ? 'permission denied' : (err as Error).message}; make it readable (chmod u+r ${file})`;
  }
}

/**
 * A database left in WAL mode needs its -wal and -shm files to be read, and SQLite could not open or create them:
 * the folder (or one of those files) does not let this process write.
 */
function unreadableLog(dbPath: string, cause: unknown): StoreError {
  const dir = path.dirname(dbPath);
  const shm = `${dbPath}-shm`;
  const why = fs.existsSync(shm)
    ? writeRefusal(shm)
      ? `SQLite cannot open the ${shm} file it then needs for writing`
      : `SQLite cannot use the ${shm} file it then needs (${(cause as Error).message})`
    : writeRefusal(dir)
      ? `SQLite cannot create the ${shm} file it then needs because the folder ${dir} is read-only`
      : `SQLite cannot create the ${shm} file it then needs (${(cause as Error).message})`;
  return new StoreError(
    `cannot read ${dbPath}: it was left in write-ahead-log mode (by a process that is still running or did not close it, or by an older ` +
      `OpenCoder), and ${why}. Make the folder writable and run any command (one that writes leaves the file readable on its own), ` +
      `or copy the database with its -wal file to a writable folder.`,
    dbPath,
    { cause, code: 'invalid-input' },
  );
}

/** `raw` behind the guard: every failure mapped (a plain error from a virtual table checked for damage first). */
function guarded(raw: Database, ctx: StoreContext): Database {
  return guardDatabase(raw, {
    mapError(err, sql) {
      if (sql && !(err instanceof StoreError) && (err as { code?: string }).code === 'SQLITE_ERROR') {
        const found = virtualTableDamage(raw, sql);
        if (found) return new StoreCorruptError(ctx.dbPath, `${(err as Error).message}; integrity check: ${found}`, { cause: err });
      }
      return mapStoreError(err, ctx);
    },
    beforeClose(db) {
      if (ctx.readonly || ctx.dbPath === ':memory:' || db.inTransaction) return;
      try {
        // The last connection turns WAL off, so the file alone holds the database (see the header). Another
        // connection still open (the app, a second command) makes this fail at once: WAL stays until that one closes.
        db.pragma('busy_timeout = 0');
        db.pragma('journal_mode = DELETE');
      } catch {
        // Still open elsewhere, or damaged: closing is what matters here.
      }
    },
  });
}

function virtualTableDamage(raw: Database, sql: string): string | null {
  try {
    return damageBehindVirtualTables(raw, sql);
  } catch (err) {
    return isCorruption(err) ? (err as Error).message : null;
  }
}

function applyMigration(db: Database, dbPath: string, m: Migration): void {
  try {
    db.transaction(() => {
      db.exec(m.sql);
      m.backfill?.(db);
      db.pragma(`user_version = ${m.version}`);
    })();
  } catch (err) {
    if (err instanceof StoreError) throw err;
    throw new StoreWriteError(dbPath, `schema migration ${m.version} (${m.description})`, err);
  }
}

export function schemaVersion(db: Database): number {
  return db.pragma('user_version', { simple: true }) as number;
}
