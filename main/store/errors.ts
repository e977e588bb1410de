// Typed errors of the store. Each names the database file and says what the user can do.

import type { Database } from 'better-sqlite3';
import { OpenCoderError } from '../model/errors.ts';

export class StoreError extends OpenCoderError {
  constructor(
    message: string,
    readonly dbPath: string,
    options?: { cause?: unknown },
  ) {
    super('engine', message, options);
  }
}

/** The file exists but is not a readable SQLite database (or is damaged). Never deleted silently. */
export class StoreCorruptError extends StoreError {
  constructor(dbPath: string, detail: string, options?: { cause?: unknown }) {
    super(
      `The database ${dbPath} is damaged or is not an OpenCoder database (${detail}). ` +
        `Nothing was changed. To start over, run the command again with --rebuild-db: the file is moved aside ` +
        `(renamed to ${dbPath}.corrupt-<time>) and a new database is built.`,
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

/** A write failed (disk full, read-only medium, I/O error); the transaction was rolled back. */
export class StoreWriteError extends StoreError {
  constructor(dbPath: string, what: string, cause: unknown) {
    const code = (cause as { code?: string } | undefined)?.code ?? '';
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

/**
 * Runs `fn` in one transaction. SQLite failures come out as a StoreCorruptError or a StoreWriteError naming the
 * file and what was being written (the transaction rolled back, earlier data intact); other errors pass through.
 */
export function inTransaction<T>(db: Database, dbPath: string, what: string, fn: () => T): T {
  try {
    return db.transaction(fn)();
  } catch (err) {
    if (err instanceof StoreError) throw err;
    const code = (err as { code?: string }).code;
    if (code === 'SQLITE_CORRUPT' || code === 'SQLITE_NOTADB') throw new StoreCorruptError(dbPath, (err as Error).message, { cause: err });
    if (typeof code === 'string' && code.startsWith('SQLITE_')) throw new StoreWriteError(dbPath, what, err);
    throw err;
  }
}
