import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase, schemaVersion } from '../../main/store/db.ts';
import { SchemaTooNewError, StoreCorruptError, StoreWriteError } from '../../main/store/errors.ts';
import { SCHEMA_VERSION } from '../../main/store/migrations.ts';
import { Store, vecTableName } from '../../main/store/store.ts';
import type { ParseResult } from '../../main/model/code.ts';
import { buildApiEntries } from '../../main/index/api.ts';
import { fetchItems } from '../../main/store/items.ts';

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
    values: [],
    chunks: [
      { kind: 'module_header', title: 'module header of pkg.mod', text: 'import os\nLIMIT = 3', startLine: 1, endLine: 2, owner: '', contentHash: 'c1' },
    ],
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

  it('upgrades a version-6 database: API entries get line columns and Python files are marked for re-parsing', () => {
    const file = path.join(dir, 'v6.db');
    const v6 = openDatabase(file, { targetVersion: 6 });
    expect(schemaVersion(v6)).toBe(6);
    v6.prepare("INSERT INTO repositories(root, name, created_at) VALUES ('/r', 'r', 'then')").run();
    const addFile = v6.prepare(
      "INSERT INTO files(repo_id, path, size, mtime_ms, sha256, language, module, status, indexed_at) VALUES (1, ?, 10, 1, 'abc', ?, ?, 'indexed', 'then')",
    );
    addFile.run('a.py', 'python', 'a');
    addFile.run('b.ts', 'typescript', 'b');
    v6.prepare(
      `INSERT INTO units(repo_id, file_id, kind, name, qualname, signature, params, decorators, is_async, body, start_line, end_line, calls, imports, content_hash)
       VALUES (1, 1, 'function', 'f', 'f', 'def f()', '[]', '[]', 0, 'def f(): pass', 4, 6, '[]', '[]', 'h')`,
    ).run();
    v6.prepare(
      `INSERT INTO api_entries(repo_id, file_id, unit_id, kind, name, qualname, module, owner, signature, description, description_source, text)
       VALUES (1, 1, 1, 'function', 'f', 'f', 'a', NULL, 'def f()', 'F.', 'docstring', 'a.f')`,
    ).run();
    v6.close();

    const store = Store.open(file);
    expect(schemaVersion(store.db)).toBe(SCHEMA_VERSION);
    const cols = (store.db.prepare('PRAGMA table_info(api_entries)').all() as { name: string; dflt_value: string | null; notnull: number }[]).filter(
      (c) => c.name === 'start_line' || c.name === 'end_line',
    );
    expect(cols).toEqual([
      expect.objectContaining({ name: 'start_line', notnull: 1, dflt_value: '0' }),
      expect.objectContaining({ name: 'end_line', notnull: 1, dflt_value: '0' }),
    ]);
    // The old unit entry keeps its row and takes its unit's lines.
    expect(store.db.prepare('SELECT unit_id, start_line, end_line FROM api_entries').all()).toEqual([{ unit_id: 1, start_line: 4, end_line: 6 }]);
    // A catalog entry that matches no file on disk: the next index run re-reads and re-parses it. Others stay.
    const cat = store.catalog(1);
    expect(cat.get('a.py')).toMatchObject({ size: -1, sha256: '' });
    expect(cat.get('b.ts')).toMatchObject({ size: 10, sha256: 'abc' });
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
    store.storeEmbeddings(
      repo.id,
      enc.id,
      'unit',
      pending.map((p) => ({ id: p.id, vector: new Float32Array([1, 0, 0, 0]) })),
    );
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

  it('stores constant and attribute entries without a unit, with their own lines, and retrieval reads those lines', () => {
    const store = Store.open(path.join(dir, 'v.db'));
    const repo = store.upsertRepository('/r');
    const p = parsed(['alpha']);
    p.values = [
      { kind: 'constant', name: 'alpha', qualname: 'alpha', owner: null, text: 'alpha = wrap(alpha)', startLine: 9, endLine: 9 },
      { kind: 'constant', name: 'LIMIT', qualname: 'LIMIT', owner: null, text: 'LIMIT = 3', startLine: 2, endLine: 2 },
    ];
    const entries = buildApiEntries(p);
    expect(entries.map((e) => e.kind)).toEqual(['function', 'constant', 'constant']);
    store.replaceFile(repo.id, { relPath: 'a.py', size: 1, mtimeMs: 1, sha256: 's' }, p, entries);
    const rows = store.db.prepare('SELECT id, kind, qualname, unit_id, start_line, end_line FROM api_entries ORDER BY id').all() as {
      id: number;
      kind: string;
      qualname: string;
      unit_id: number | null;
      start_line: number;
      end_line: number;
    }[];
    // A constant sharing a function's qualname (`alpha = wrap(alpha)`) is not tied to that function's unit.
    expect(rows.map((r) => [r.kind, r.qualname, r.unit_id === null, r.start_line, r.end_line])).toEqual([
      ['function', 'alpha', false, 3, 4],
      ['constant', 'alpha', true, 9, 9],
      ['constant', 'LIMIT', true, 2, 2],
    ]);
    const items = fetchItems(
      store,
      'api',
      rows.map((r) => r.id),
    );
    const limit = items.get(rows[2]!.id)!;
    expect(limit).toMatchObject({ key: `api:${rows[2]!.id}`, startLine: 2, endLine: 2, subkind: 'constant', unitId: null, file: 'a.py' });
    const fn = items.get(rows[0]!.id)!;
    expect(fn).toMatchObject({ key: `unit:${rows[0]!.unit_id}`, startLine: 3, endLine: 4, subkind: 'function' });
    expect(store.db.prepare("SELECT count(*) AS n FROM fts_api WHERE fts_api MATCH 'limit'").get()).toEqual({ n: 1 });
    store.close();
  });

  it('refuses an encoder whose dimension changed under the same id', () => {
    const store = Store.open(path.join(dir, 'e.db'));
    store.registerEncoder(encoderInfo);
    expect(() => store.registerEncoder({ ...encoderInfo, dim: 8 })).toThrow(/dimension 4 but reports 8/);
    store.close();
  });
});
