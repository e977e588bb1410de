import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase, schemaVersion } from '../../main/store/db.ts';
import { SchemaTooNewError, StoreCorruptError, StoreWriteError } from '../../main/store/errors.ts';
import { SCHEMA_VERSION } from '../../main/store/migrations.ts';
import { Store, vecTableName } from '../../main/store/store.ts';
import type { ParseResult } from '../../main/index/types.ts';

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'oc-store-'));
});
afterEach(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

function parsed(names: string[]): ParseResult {
  return {
    language: 'python',
    module: 'pkg.mod',
    errors: [],
    chunks: [{ kind: 'module_header', title: 'module header of pkg.mod', text: 'import os\nLIMIT = 3', startLine: 1, endLine: 2, owner: '', contentHash: 'c1' }],
    units: names.map((n, i) => ({
      kind: 'function' as const,
      name: n,
      qualname: n,
      parentQualname: null,
      signature: `def ${n}(x)`,
      params: [{ name: 'x', kind: 'positional_or_keyword' as const, annotation: null, default: null }],
      returns: null,
      decorators: [],
      isAsync: false,
      docstring: `Does ${n}.`,
      body: `def ${n}(x):\n    return parseHttpResponse(x)`,
      startLine: 3 + i * 2,
      endLine: 4 + i * 2,
      calls: ['parseHttpResponse'],
      imports: [],
      contentHash: `h${i}`,
    })),
  };
}

const encoderInfo = { id: 'test-encoder@1', name: 'test encoder', dim: 4, description: 'fixed vectors for tests' };

describe('schema migrations', () => {
  it('creates a new database at the current version with WAL', () => {
    const db = openDatabase(path.join(dir, 'a.db'));
    expect(schemaVersion(db)).toBe(SCHEMA_VERSION);
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    const tables = (db.prepare("SELECT name FROM sqlite_master WHERE type IN ('table')").all() as { name: string }[]).map((r) => r.name);
    for (const t of ['repositories', 'files', 'units', 'chunks', 'api_entries', 'encoders', 'skipped_paths', 'index_runs', 'fts_units']) {
      expect(tables).toContain(t);
    }
    db.close();
  });

  it('upgrades a version-1 database in place and keeps its rows', () => {
    const file = path.join(dir, 'old.db');
    const v1 = openDatabase(file, { targetVersion: 1 });
    expect(schemaVersion(v1)).toBe(1);
    v1.prepare("INSERT INTO repositories(root, name, created_at) VALUES ('/r', 'r', 'then')").run();
    v1.prepare(
      "INSERT INTO files(repo_id, path, size, mtime_ms, sha256, language, module, status, indexed_at) VALUES (1, 'a.py', 1, 1, 'x', 'python', 'a', 'indexed', 'then')",
    ).run();
    v1.prepare(
      `INSERT INTO units(repo_id, file_id, kind, name, qualname, signature, params, decorators, is_async, body, start_line, end_line, calls, imports, content_hash)
       VALUES (1, 1, 'function', 'parseHttpResponse', 'parseHttpResponse', 'def parseHttpResponse(r)', '[]', '[]', 0, 'def parseHttpResponse(r): pass', 1, 1, '[]', '[]', 'h')`,
    ).run();
    v1.close();

    const store = Store.open(file);
    expect(schemaVersion(store.db)).toBe(SCHEMA_VERSION);
    expect(store.listRepositories().map((r) => r.root)).toEqual(['/r']);
    // The backfill put the old unit into the lexical index, camelCase parts included.
    const hit = store.db.prepare("SELECT rowid FROM fts_units WHERE fts_units MATCH 'response'").all();
    expect(hit).toEqual([{ rowid: 1 }]);
    store.close();
  });

  it('refuses a database written by a newer version and leaves it unchanged', () => {
    const file = path.join(dir, 'new.db');
    const raw = new BetterSqlite3(file);
    raw.pragma(`user_version = ${SCHEMA_VERSION + 5}`);
    raw.close();
    const before = fs.readFileSync(file);
    expect(() => Store.open(file)).toThrow(SchemaTooNewError);
    expect(() => Store.open(file)).toThrow(/schema version \d+.*up to/);
    expect(fs.readFileSync(file).equals(before)).toBe(true);
  });
});

describe('damaged databases', () => {
  it('reports a file that is not a database, names it, and does not touch it', () => {
    const file = path.join(dir, 'junk.db');
    fs.writeFileSync(file, 'this is not sqlite'.repeat(400));
    const before = fs.readFileSync(file);
    let error: unknown;
    try {
      Store.open(file);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(StoreCorruptError);
    expect((error as Error).message).toContain(file);
    expect((error as Error).message).toContain('--rebuild-db');
    expect(fs.readFileSync(file).equals(before)).toBe(true);
  });

  it('with rebuild, moves the damaged file aside (never deletes it) and starts fresh', () => {
    const file = path.join(dir, 'junk.db');
    fs.writeFileSync(file, 'garbage'.repeat(1000));
    const store = Store.open(file, { rebuild: true });
    expect(schemaVersion(store.db)).toBe(SCHEMA_VERSION);
    store.close();
    const aside = fs.readdirSync(dir).filter((n) => n.startsWith('junk.db.corrupt-'));
    expect(aside).toHaveLength(1);
    expect(fs.readFileSync(path.join(dir, aside[0]!), 'utf8')).toBe('garbage'.repeat(1000));
  });

  it('detects a database whose pages were overwritten', () => {
    const file = path.join(dir, 'hurt.db');
    const store = Store.open(file);
    const repo = store.upsertRepository('/r');
    for (let i = 0; i < 40; i++) store.replaceFile(repo.id, { relPath: `f${i}.py`, size: 1, mtimeMs: 1, sha256: 's' }, parsed([`fn${i}`]), []);
    store.db.pragma('wal_checkpoint(TRUNCATE)');
    store.close();
    const buf = fs.readFileSync(file);
    // Scribble over the middle pages (keep the header so SQLite still opens it).
    buf.fill(0x5a, 8192, Math.min(buf.length, 8192 + 4096 * 6));
    fs.writeFileSync(file, buf);
    expect(() => Store.open(file)).toThrow(StoreCorruptError);
  });
});

describe('writes', () => {
  it('replaces a file atomically and removes its lexical and vector rows', () => {
    const store = Store.open(path.join(dir, 'w.db'));
    const repo = store.upsertRepository('/r');
    const enc = store.registerEncoder(encoderInfo);
    const fileId = store.replaceFile(repo.id, { relPath: 'a.py', size: 10, mtimeMs: 5, sha256: 's1' }, parsed(['alpha', 'beta']), []);
    const pending = store.pendingEmbeddings(repo.id, enc.id, 'unit', 10);
    expect(pending.map((p) => p.text)).toEqual([expect.stringContaining('def alpha'), expect.stringContaining('def beta')]);
    store.storeEmbeddings(repo.id, enc.id, 'unit', pending.map((p) => ({ id: p.id, vector: new Float32Array([1, 0, 0, 0]) })));
    expect(store.countPendingEmbeddings(repo.id, enc.id)).toBe(1); // the chunk is still pending
    const vecCount = () => (store.db.prepare(`SELECT count(*) AS n FROM ${vecTableName(enc.id, 'unit')}`).get() as { n: number }).n;
    expect(vecCount()).toBe(2);

    store.replaceFile(repo.id, { relPath: 'a.py', size: 11, mtimeMs: 6, sha256: 's2' }, parsed(['gamma']), []);
    expect(vecCount()).toBe(0);
    const names = (store.db.prepare('SELECT name FROM units WHERE file_id = ?').all(fileId) as { name: string }[]).map((r) => r.name);
    expect(names).toEqual(['gamma']);
    expect(store.db.prepare("SELECT count(*) AS n FROM fts_units WHERE fts_units MATCH 'alpha'").get()).toEqual({ n: 0 });
    expect(store.db.prepare("SELECT count(*) AS n FROM fts_units WHERE fts_units MATCH 'gamma'").get()).toEqual({ n: 1 });
    store.close();
  });

  it('rolls back and reports a full disk without losing earlier data', () => {
    const file = path.join(dir, 'full.db');
    const store = Store.open(file);
    const repo = store.upsertRepository('/r');
    store.replaceFile(repo.id, { relPath: 'keep.py', size: 1, mtimeMs: 1, sha256: 'k' }, parsed(['kept']), []);
    // Simulate a full disk: the database may not grow past its current size.
    const pages = store.db.pragma('page_count', { simple: true }) as number;
    store.db.pragma(`max_page_count = ${pages}`);
    const big = parsed(Array.from({ length: 300 }, (_, i) => `big${i}`));
    let error: unknown;
    try {
      store.replaceFile(repo.id, { relPath: 'big.py', size: 1, mtimeMs: 1, sha256: 'b' }, big, []);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(StoreWriteError);
    expect((error as Error).message).toMatch(/disk is full.*rolled back/);
    expect((error as Error).message).toContain('big.py');
    expect([...store.catalog(repo.id).keys()]).toEqual(['keep.py']);
    expect((store.db.prepare("SELECT count(*) AS n FROM units WHERE name LIKE 'big%'").get() as { n: number }).n).toBe(0);
    store.close();
  });

  it('refuses an encoder whose dimension changed under the same id', () => {
    const store = Store.open(path.join(dir, 'e.db'));
    store.registerEncoder(encoderInfo);
    expect(() => store.registerEncoder({ ...encoderInfo, dim: 8 })).toThrow(/dimension 4 but reports 8/);
    store.close();
  });
});
