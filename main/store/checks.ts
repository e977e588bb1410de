// Integrity checks of a workspace database. A full check (quick_check: every page, every b-tree) runs on open for
// a file up to 64 MiB and always with --rebuild-db; a larger file gets the cheap probe on open (the schema and the
// first and last leaf of every table, a few dozen pages), and damage deeper inside is reported when a query meets it.

import type { Database } from 'better-sqlite3';

/** Up to this size a database gets the full check on every open: it takes well under a second. */
export const FULL_CHECK_MAX_BYTES = 64 * 1024 * 1024;

const quote = (name: string): string => `"${name.replace(/"/g, '""')}"`;

/** What the full check found (its first few problems), or null when the database is intact. */
export function fullCheck(db: Database, table?: string): string | null {
  const rows = db.pragma(`quick_check(${table ? quote(table) : 10})`) as { quick_check: string }[];
  const found = rows.flatMap((r) => r.quick_check.split('\n')).filter((line) => line !== 'ok' && !line.startsWith('***'));
  if (!found.length) return null;
  return found.length > 3 ? `${found.slice(0, 3).join('; ')}; and more` : found.join('; ');
}

/**
 * Reads the schema and walks down to the first and the last leaf of every table (its root and interior pages on
 * the way): damage there, where a file's structure lives, throws SQLITE_CORRUPT now instead of in the middle of a write.
 */
export function probeTables(db: Database): void {
  const tables = db.prepare("SELECT name, sql FROM sqlite_schema WHERE type = 'table' AND rootpage > 0").all() as { name: string; sql: string | null }[];
  for (const t of tables) {
    if (/\bWITHOUT\s+ROWID\b/i.test(t.sql ?? '')) {
      db.prepare(`SELECT 1 FROM ${quote(t.name)} LIMIT 1`).get();
      continue;
    }
    for (const order of ['ASC', 'DESC']) db.prepare(`SELECT rowid FROM ${quote(t.name)} NOT INDEXED ORDER BY rowid ${order} LIMIT 1`).get();
  }
}

/**
 * Virtual tables (sqlite-vec, FTS5) report a damaged page of their own tables as a plain SQLITE_ERROR ("reading from blob
 * failed"): for such an error, this checks the tables behind each virtual table `sql` names and says what it found, or null.
 */
export function damageBehindVirtualTables(db: Database, sql: string): string | null {
  const virtual = db.prepare("SELECT name FROM sqlite_schema WHERE type = 'table' AND rootpage = 0 AND sql LIKE 'CREATE VIRTUAL TABLE%'").all() as {
    name: string;
  }[];
  const shadows = db.prepare("SELECT name FROM sqlite_schema WHERE type = 'table' AND rootpage > 0 AND substr(name, 1, ?) = ?");
  for (const { name } of virtual) {
    if (!new RegExp(`\\b${name.replace(/\W/g, '\\$&')}\\b`).test(sql)) continue;
    for (const shadow of shadows.all(name.length + 1, `${name}_`) as { name: string }[]) {
      const found = fullCheck(db, shadow.name);
      if (found) return `${shadow.name}: ${found}`;
    }
  }
  return null;
}
