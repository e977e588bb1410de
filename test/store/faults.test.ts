// Store faults in-process: every SQLite failure passes the guard (statements, iterators, transactions, sqlite-vec),
// read-only opens never write, --rebuild-db moves the -wal and -shm files too, and a closed database needs no -wal.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fetchItems } from '../../main/store/items.ts';
import { openDatabase, schemaVersion } from '../../main/store/db.ts';
import { SchemaNeedsUpgradeError, StoreCorruptError, StoreError } from '../../main/store/errors.ts';
import { SCHEMA_VERSION } from '../../main/store/migrations.ts';
import { Store, vecTableName } from '../../main/store/store.ts';
import { scribble } from '../helpers/damage.ts';

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'oc-faults-'));
});
afterEach(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

function errorOf(fn: () => unknown): unknown {
  try {
    fn();
  } catch (err) {
    return err;
  }
  throw new Error('expected a failure');
}

/** A store of `rows` rows in a table of its own whose pages a test then damages (the probe on open reads only its ends). */
function storeWithTable(file: string, rows: number): { pages: number[] } {
  const store = Store.open(file);
  store.db.exec('CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL)');
  const ins = store.db.prepare('INSERT INTO notes (body) VALUES (?)');
  store.write('notes', () => {
    for (let i = 0; i < rows; i++) ins.run(`note ${i} `.repeat(40));
  });
  const pages = (store.db.prepare("SELECT pageno FROM dbstat WHERE name = 'notes' AND pagetype = 'leaf' ORDER BY path").all() as { pageno: number }[]).map(
    (r) => r.pageno,
  );
  store.close();
  return { pages };
}

describe('the guard maps every later failure', () => {
  it('a statement, an iterator and a transaction that meet damage throw StoreCorruptError naming the file', () => {
    const file = path.join(dir, 'w.db');
    const { pages } = storeWithTable(file, 2000);
    // Open first (the full check on open would find it), then damage a leaf in the middle of the table.
    const store = Store.open(file);
    try {
      scribble(file, [pages[pages.length >> 1]!]);
      store.db.pragma('shrink_memory'); // drop the pages the check read, so the queries read the file
      for (const op of [
        () => store.db.prepare('SELECT count(*) FROM notes WHERE body LIKE ?').get('%x%'),
        () => [...store.db.prepare('SELECT body FROM notes').iterate()],
        () => store.write('notes', () => store.db.prepare('UPDATE notes SET body = body || ?').run('!')),
        () => store.db.transaction(() => store.db.prepare('DELETE FROM notes').run())(),
      ]) {
        const err = errorOf(op);
        expect(err).toBeInstanceOf(StoreCorruptError);
        expect((err as Error).message).toContain(file);
        expect((err as Error).message).toContain('--rebuild-db');
        expect((err as Error).message).toContain('A query met the damage');
      }
    } finally {
      store.close();
    }
  });

  it('damage under a sqlite-vec table (which sqlite-vec reports as a plain error) is checked and reported as damage', () => {
    const file = path.join(dir, 'v.db');
    const store = Store.open(file);
    const repo = store.upsertRepository('/r');
    const enc = store.registerEncoder({ id: 'e@1', name: 'e', dim: 64, description: 'test' });
    const table = vecTableName(enc.id, 'unit');
    const ins = store.db.prepare(`INSERT INTO ${table}(rowid, repo_id, embedding) VALUES (?, ?, ?)`);
    store.write('vectors', () => {
      for (let i = 1; i <= 3000; i++) ins.run(BigInt(i), BigInt(repo.id), new Float32Array(64).fill(i % 5));
    });
    const chunks = (
      store.db.prepare(`SELECT pageno FROM dbstat WHERE name = '${table}_vector_chunks00' AND pagetype = 'overflow' ORDER BY pageno`).all() as {
        pageno: number;
      }[]
    ).map((r) => r.pageno);
    store.close();
    expect(chunks.length).toBeGreaterThan(10);
    // Open again (its full check passes), then damage the middle of the vector chunks.
    const reopened = Store.open(file);
    // A plain error of the intact table (a vector of the wrong dimension) stays what it is.
    const plain = errorOf(() => reopened.db.prepare(`INSERT INTO ${table}(rowid, repo_id, embedding) VALUES (?, ?, ?)`).run(9999n, 1n, new Float32Array(3)));
    expect(plain).not.toBeInstanceOf(StoreError);
    expect((plain as Error).message).toMatch(/dimension/i);
    scribble(file, chunks.slice(chunks.length >> 1, (chunks.length >> 1) + 3));
    reopened.db.pragma('shrink_memory'); // drop the pages the check read, so the query reads the file
    try {
      const err = errorOf(() => reopened.db.prepare(`SELECT rowid, embedding FROM ${table} WHERE repo_id = ?`).all(repo.id));
      expect(err).toBeInstanceOf(StoreCorruptError);
      expect((err as StoreCorruptError).detail).toMatch(new RegExp(`integrity check: ${table}_vector_chunks00`));
    } finally {
      reopened.close();
    }
  });

  it('passes the store functions that take the handle the guarded statements too', () => {
    const file = path.join(dir, 'i.db');
    const store = Store.open(file);
    try {
      expect(fetchItems(store, 'unit', []).size).toBe(0);
      expect(store.db.prepare('SELECT 1 AS one').pluck().get()).toBe(1);
      expect(store.db.prepare('SELECT 1 AS one').raw().all()).toEqual([[1]]);
    } finally {
      store.close();
    }
  });
});

describe('opening read-only', () => {
  it('reads the database without writing it, and a write through it is refused naming the file', () => {
    const file = path.join(dir, 'r.db');
    Store.open(file).close();
    const before = fs.readFileSync(file);
    const store = Store.open(file, { readonly: true });
    try {
      expect(store.readonly).toBe(true);
      expect(store.listRepositories()).toEqual([]);
      const err = errorOf(() => store.upsertRepository('/r'));
      expect(err).toBeInstanceOf(StoreError);
      expect((err as Error).message).toContain(`cannot write ${file}: this command only reads`);
    } finally {
      store.close();
    }
    expect(fs.readFileSync(file).equals(before)).toBe(true);
    expect(fs.readdirSync(dir)).toEqual(['r.db']);
  });

  it('never migrates an older schema', () => {
    const file = path.join(dir, 'old.db');
    openDatabase(file, { targetVersion: SCHEMA_VERSION - 1 }).close();
    const before = fs.readFileSync(file);
    expect(() => Store.open(file, { readonly: true })).toThrow(SchemaNeedsUpgradeError);
    expect(fs.readFileSync(file).equals(before)).toBe(true);
    const store = Store.open(file);
    expect(schemaVersion(store.db)).toBe(SCHEMA_VERSION);
    store.close();
  });

  it('of a file that does not exist yet: an empty database, nothing created', () => {
    const file = path.join(dir, 'sub', 'none.db');
    const store = Store.open(file, { readonly: true });
    try {
      expect(store.missing).toBe(true);
      expect(store.listRepositories()).toEqual([]);
      expect(store.experiments.list()).toEqual([]);
    } finally {
      store.close();
    }
    expect(fs.readdirSync(dir)).toEqual([]);
  });

  it('reports a damaged file without --rebuild-db advice it cannot follow changing anything', () => {
    const file = path.join(dir, 'junk.db');
    fs.writeFileSync(file, 'not sqlite '.repeat(500));
    const err = errorOf(() => Store.open(file, { readonly: true }));
    expect(err).toBeInstanceOf(StoreCorruptError);
    expect((err as Error).message).toContain('Nothing was changed.');
    expect(fs.readFileSync(file, 'utf8')).toBe('not sqlite '.repeat(500));
  });
});

describe('--rebuild-db and the journal files', () => {
  it('moves the damaged file with its -wal and -shm aside, says where, and creates a new database', () => {
    const file = path.join(dir, 'w.db');
    const { pages } = storeWithTable(file, 500);
    scribble(file, [pages[pages.length >> 1]!]);
    // A writer that never closed leaves the -wal and -shm files beside it.
    const writer = new BetterSqlite3(file);
    writer.pragma('journal_mode = WAL');
    writer.prepare('CREATE TABLE IF NOT EXISTS pending (x)').run();
    expect(fs.existsSync(`${file}-wal`)).toBe(true);
    const store = Store.open(file, { rebuild: true });
    try {
      const aside = fs.readdirSync(dir).filter((n) => n.startsWith('w.db.corrupt-') && !n.endsWith('-wal') && !n.endsWith('-shm'));
      expect(aside).toHaveLength(1);
      const moved = path.join(dir, aside[0]!);
      expect(fs.existsSync(`${moved}-wal`)).toBe(true);
      expect(fs.existsSync(`${moved}-shm`)).toBe(true);
      expect(store.notice).toContain(`it was moved to ${moved}`);
      expect(store.listRepositories()).toEqual([]);
      expect(schemaVersion(store.db)).toBe(SCHEMA_VERSION);
    } finally {
      store.close();
      writer.close();
    }
  });

  it('keeps an intact file and says the full check found it intact', () => {
    const file = path.join(dir, 'ok.db');
    const first = Store.open(file);
    first.upsertRepository('/r');
    first.close();
    const store = Store.open(file, { rebuild: true });
    try {
      expect(store.notice).toContain(`the full integrity check found ${file} intact`);
      expect(store.listRepositories()).toHaveLength(1);
    } finally {
      store.close();
    }
  });

  it('the last connection to close leaves the file in rollback-journal mode; one still open elsewhere keeps WAL', () => {
    const file = path.join(dir, 'j.db');
    const a = Store.open(file);
    const b = Store.open(file);
    a.close();
    expect(b.db.pragma('journal_mode', { simple: true })).toBe('wal');
    b.close();
    expect(fs.readdirSync(dir)).toEqual(['j.db']);
    const raw = new BetterSqlite3(file, { readonly: true });
    expect(raw.pragma('journal_mode', { simple: true })).toBe('delete');
    raw.close();
  });
});
