// Opening a workspace database: SQLite (better-sqlite3) + sqlite-vec, WAL, numbered migrations.

import fs from 'node:fs';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import type { Database } from 'better-sqlite3';
import * as sqliteVec from 'sqlite-vec';
import { MIGRATIONS, SCHEMA_VERSION, type Migration } from './migrations.ts';
import { SchemaTooNewError, StoreCorruptError, StoreError, StoreWriteError } from './errors.ts';

export interface OpenOptions {
  /** Move a damaged database aside (never delete it) and create a new one. */
  rebuild?: boolean;
  /** Apply migrations only up to this version (tests of in-place upgrades). */
  targetVersion?: number;
}

const CORRUPT_CODES = new Set(['SQLITE_NOTADB', 'SQLITE_CORRUPT']);
const QUICK_CHECK_MAX_BYTES = 64 * 1024 * 1024;

function isCorruption(err: unknown): boolean {
  const code = (err as { code?: string } | undefined)?.code ?? '';
  return CORRUPT_CODES.has(code) || code.startsWith('SQLITE_CORRUPT');
}

/** Opens (creating if needed) and migrates the database at `dbPath`. */
export function openDatabase(dbPath: string, opts: OpenOptions = {}): Database {
  const resolved = dbPath === ':memory:' ? dbPath : path.resolve(dbPath);
  if (resolved !== ':memory:') {
    const dir = path.dirname(resolved);
    try {
      fs.mkdirSync(dir, { recursive: true });
    } catch (err) {
      throw new StoreError(`Cannot create the folder ${dir} for the database: ${(err as Error).message}`, resolved, { cause: err });
    }
    if (fs.existsSync(resolved) && fs.statSync(resolved).isDirectory()) {
      throw new StoreError(`The database path ${resolved} is a folder; give a file name with --db.`, resolved);
    }
  }
  try {
    return openAndMigrate(resolved, opts);
  } catch (err) {
    if (!isCorruption(err)) throw err;
    if (!opts.rebuild) throw new StoreCorruptError(resolved, (err as Error).message, { cause: err });
    const aside = `${resolved}.corrupt-${new Date().toISOString().replace(/[:.]/g, '-')}`;
    fs.renameSync(resolved, aside);
    for (const suffix of ['-wal', '-shm']) {
      if (fs.existsSync(resolved + suffix)) fs.renameSync(resolved + suffix, aside + suffix);
    }
    return openAndMigrate(resolved, opts);
  }
}

function openAndMigrate(dbPath: string, opts: OpenOptions): Database {
  const db = new BetterSqlite3(dbPath);
  try {
    // Reading the header is what detects a file that is not a database; the version is checked
    // before anything (even the journal mode) is written, so a newer database stays untouched.
    db.pragma('busy_timeout = 5000');
    const current = db.pragma('user_version', { simple: true }) as number;
    const target = opts.targetVersion ?? SCHEMA_VERSION;
    if (current > SCHEMA_VERSION) throw new SchemaTooNewError(dbPath, current, SCHEMA_VERSION);
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.pragma('foreign_keys = ON');
    // Indexing writes hundreds of MB of rows and index pages: a larger page cache avoids re-reading them.
    db.pragma('cache_size = -65536');
    db.pragma('temp_store = MEMORY');
    sqliteVec.load(db);
    // quick_check reads every page: worth it on open for a small database; a large one (whose check
    // would take seconds on every command) reports damage through SQLITE_CORRUPT when it is read.
    if (current > 0 && (dbPath === ':memory:' || fs.statSync(dbPath).size <= QUICK_CHECK_MAX_BYTES)) {
      const check = db.pragma('quick_check(1)', { simple: true }) as string;
      if (check !== 'ok') {
        const err = new Error(`integrity check failed: ${check}`) as Error & { code: string };
        err.code = 'SQLITE_CORRUPT';
        throw err;
      }
    }
    for (const m of MIGRATIONS) {
      if (m.version <= current || m.version > target) continue;
      applyMigration(db, dbPath, m);
    }
    return db;
  } catch (err) {
    db.close();
    throw err;
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
    if (isCorruption(err)) throw err;
    throw new StoreWriteError(dbPath, `schema migration ${m.version} (${m.description})`, err);
  }
}

export function schemaVersion(db: Database): number {
  return db.pragma('user_version', { simple: true }) as number;
}
