// Typed access to one workspace database. Every multi-row change runs in one transaction, so a killed
// process leaves either the old or the new state of a file, never a mix.

import os from 'node:os';
import path from 'node:path';
import BetterSqlite3, { type Database, type Statement } from 'better-sqlite3';
import type { ApiEntry, ExtractedChunk, ExtractedUnit, ParseResult, SyntaxProblem } from '../model/code.ts';
import type { EncoderInfo } from '../model/encoder.ts';
import type { StoredIndexStats } from '../model/index-counts.ts';
import { openWorkspaceDatabase, type OpenOptions } from './db.ts';
import { ExchangeStore } from './exchanges.ts';
import { ExperimentStore } from './experiments.ts';
import { inTransaction, StoreError } from './errors.ts';
import { apiLexicalText, chunkLexicalText, unitLexicalText, type LexicalTexts } from './lexical.ts';
import { processAlive } from './process.ts';

export type ItemKind = 'unit' | 'chunk' | 'api';
export const ITEM_KINDS: readonly ItemKind[] = ['unit', 'chunk', 'api'];

const ITEM_TABLE: Record<ItemKind, string> = { unit: 'units', chunk: 'chunks', api: 'api_entries' };
/** The (repo_id) index, which ends in rowid: a cursor over one repository's items in id order. */
const REPO_INDEX: Record<ItemKind, string> = { unit: 'units_repo', chunk: 'chunks_repo', api: 'api_repo' };
const FTS_TABLE: Record<ItemKind, string> = { unit: 'fts_units', chunk: 'fts_chunks', api: 'fts_api' };
/** What gets embedded per item kind. Module units are whole files: retrieval reads chunks instead. */
const EMBED_TEXT_SQL: Record<ItemKind, string> = {
  unit: `substr(body, 1, 8000)`,
  chunk: `substr(text, 1, 8000)`,
  api: `substr(text, 1, 4000)`,
};
// Similar-code retrieval searches function and method bodies. Modules and classes are reached through
// context chunks (headers, class skeletons) and API entries, so embedding their whole bodies again is waste.
const EMBED_FILTER_SQL: Record<ItemKind, string> = { unit: `AND kind IN ('function', 'method')`, chunk: '', api: '' };

export interface RepositoryRow {
  id: number;
  root: string;
  name: string;
  created_at: string;
  last_indexed_at: string | null;
  encoder_id: number | null;
}

export interface EncoderRow {
  id: number;
  key: string;
  name: string;
  dim: number;
  description: string;
}

export interface CatalogEntry {
  id: number;
  path: string;
  size: number;
  mtime_ms: number;
  sha256: string;
  status: 'indexed' | 'partial';
}

export interface FileFacts {
  relPath: string;
  size: number;
  mtimeMs: number;
  sha256: string;
}

export interface SkipRecord {
  path: string;
  reason: string;
  detail?: string | null;
  isDir: boolean;
}

export interface PendingText {
  id: number;
  text: string;
}

/** What index-counts.ts counts from (StoredIndexStats), per item kind, with the repository's encoder. */
export interface RepositoryStats extends StoredIndexStats {
  embedded: Record<ItemKind, number>;
  encoder: EncoderRow | null;
}

function now(): string {
  return new Date().toISOString();
}

export function vecTableName(encoderId: number, kind: ItemKind): string {
  return `vec_e${encoderId}_${kind}`;
}

export class Store {
  readonly db: Database;
  readonly path: string;
  /** What opening did that the user should hear of (a damaged file moved aside by --rebuild-db), or null. */
  readonly notice: string | null;
  /** Opened read-only (`readonly` option): every write fails, naming the file. */
  readonly readonly: boolean;
  /** Opened read-only before the file exists: an empty database in memory; nothing is created on disk. */
  readonly missing: boolean;
  private readonly stmts = new Map<string, Statement>();
  /** Encoders whose vector tables this connection has made sure of. */
  private readonly registered = new Set<number>();

  private constructor(dbPath: string, opened: { db: Database; notice: string | null; missing: boolean }) {
    this.db = opened.db;
    this.path = dbPath;
    this.notice = opened.notice;
    this.readonly = opened.db.readonly;
    this.missing = opened.missing;
  }

  private experimentStore: ExperimentStore | undefined;
  private exchangeStore: ExchangeStore | undefined;

  /** Experiment runs and their results in this database (one instance per connection). */
  get experiments(): ExperimentStore {
    return (this.experimentStore ??= new ExperimentStore(this.db, this.path));
  }

  /** Recorded LLM exchanges in this database (one instance per connection). */
  get exchanges(): ExchangeStore {
    return (this.exchangeStore ??= new ExchangeStore(this.db, this.path));
  }

  /** Opens (creating and migrating it if needed; `readonly`: neither) the database at `dbPath`. */
  static open(dbPath: string, opts: OpenOptions = {}): Store {
    const resolved = dbPath === ':memory:' ? dbPath : path.resolve(dbPath);
    return new Store(resolved, openWorkspaceDatabase(resolved, opts));
  }

  close(): void {
    if (this.db.open) this.db.close();
  }

  /** The statement for `sql`, prepared once per store (retrieval runs the same few queries for every step and task). */
  prepared(sql: string): Statement {
    return this.stmt(sql);
  }

  private stmt(sql: string): Statement {
    let s = this.stmts.get(sql);
    if (!s) {
      s = this.db.prepare(sql);
      this.stmts.set(sql, s);
    }
    return s;
  }

  /** Runs `fn` in a transaction; a failed write is rolled back and reported as a StoreWriteError. */
  write<T>(what: string, fn: () => T): T {
    return inTransaction(this.db, this.path, what, fn);
  }

  // ── repositories ──────────────────────────────────────────────────────────

  upsertRepository(root: string, name = path.basename(root)): RepositoryRow {
    return this.write(`repository ${root}`, () => {
      this.stmt('INSERT INTO repositories(root, name, created_at) VALUES (?, ?, ?) ON CONFLICT(root) DO NOTHING').run(root, name, now());
      return this.stmt('SELECT * FROM repositories WHERE root = ?').get(root) as RepositoryRow;
    });
  }

  getRepository(idOrRoot: number | string): RepositoryRow | undefined {
    if (typeof idOrRoot === 'number') return this.stmt('SELECT * FROM repositories WHERE id = ?').get(idOrRoot) as RepositoryRow | undefined;
    return this.stmt('SELECT * FROM repositories WHERE root = ?').get(idOrRoot) as RepositoryRow | undefined;
  }

  /** Points a repository at another folder holding the same files (a queue worker's unpacked copy). */
  relocateRepository(repoId: number, root: string): void {
    this.write(`repository ${repoId}`, () => {
      this.stmt('UPDATE repositories SET root = ? WHERE id = ?').run(root, repoId);
    });
  }

  /**
   * A compacted copy of this database in `file` (VACUUM INTO) with the rows of `omit` tables removed: what a queue
   * worker gets as its index, without the results and exchange logs the coordinator keeps to itself.
   */
  snapshotTo(file: string, omit: readonly string[]): void {
    this.db.prepare('VACUUM INTO ?').run(file);
    const copy = new BetterSqlite3(file);
    try {
      const have = new Set((copy.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[]).map((r) => r.name));
      for (const t of omit) if (have.has(t)) copy.prepare(`DELETE FROM "${t.replace(/"/g, '""')}"`).run();
      // When each repository was last indexed is the coordinator's business, and would change the bytes on every run.
      copy.prepare('UPDATE repositories SET last_indexed_at = NULL').run();
      copy.exec('VACUUM');
    } finally {
      copy.close();
    }
  }

  /**
   * A cheap fingerprint of what the index holds (repositories, encoders and the size and newest row of each
   * indexed table): equal fingerprints mean no file was indexed since, so a snapshot taken then still holds.
   */
  indexFingerprint(): string {
    const parts: unknown[] = [this.stmt('SELECT id, root, encoder_id FROM repositories ORDER BY id').all()];
    parts.push(this.stmt('SELECT id, key FROM encoders ORDER BY id').all());
    for (const t of ['files', 'units', 'chunks', 'api_entries', 'repository_includes', 'skipped_paths']) {
      parts.push(this.stmt(`SELECT count(*) AS n, max(rowid) AS last FROM ${t}`).get());
    }
    const vec = (this.stmt("SELECT name FROM sqlite_master WHERE type = 'table' AND name GLOB 'vec_e*_rowids' ORDER BY name").all() as { name: string }[]).map(
      (r) => [r.name, this.stmt(`SELECT count(*) AS n, max(rowid) AS last FROM "${r.name}"`).get()],
    );
    parts.push(vec);
    return JSON.stringify(parts);
  }

  listRepositories(): RepositoryRow[] {
    return this.stmt('SELECT * FROM repositories ORDER BY id').all() as RepositoryRow[];
  }

  markIndexed(repoId: number, encoderId: number): void {
    this.write('repository state', () => {
      this.stmt('UPDATE repositories SET last_indexed_at = ?, encoder_id = ? WHERE id = ?').run(now(), encoderId, repoId);
    });
  }

  /** The include patterns (index --include) the repository remembers, in the order they were added. */
  includePatterns(repoId: number): string[] {
    // A database opened read-only is not migrated: one older than schema 10 has no such table, hence no patterns.
    if (!this.stmt("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'repository_includes'").get()) return [];
    return (this.stmt('SELECT pattern FROM repository_includes WHERE repo_id = ? ORDER BY rowid').all(repoId) as { pattern: string }[]).map((r) => r.pattern);
  }

  /** Replaces the repository's include patterns. */
  setIncludePatterns(repoId: number, patterns: readonly string[]): void {
    this.write('include patterns', () => {
      this.stmt('DELETE FROM repository_includes WHERE repo_id = ?').run(repoId);
      for (const p of patterns) this.stmt('INSERT OR IGNORE INTO repository_includes(repo_id, pattern) VALUES (?, ?)').run(repoId, p);
    });
  }

  // ── encoders ──────────────────────────────────────────────────────────────

  /** Registers an encoder (once per distinct id) and makes sure its vector tables exist. */
  registerEncoder(info: EncoderInfo): EncoderRow {
    // Retrieval calls this for every task: a known encoder must not cost a write transaction.
    const known = this.stmt('SELECT id, key, name, dim, description FROM encoders WHERE key = ?').get(info.id) as EncoderRow | undefined;
    if (known && known.dim === info.dim && this.registered.has(known.id)) return known;
    return this.write(`encoder ${info.name}`, () => {
      this.stmt('INSERT INTO encoders(key, name, dim, description, created_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT(key) DO NOTHING').run(
        info.id,
        info.name,
        info.dim,
        info.description,
        now(),
      );
      const row = this.stmt('SELECT id, key, name, dim, description FROM encoders WHERE key = ?').get(info.id) as EncoderRow;
      if (row.dim !== info.dim) {
        throw new StoreError(`Encoder ${info.id} is recorded with dimension ${row.dim} but reports ${info.dim}.`, this.path);
      }
      for (const kind of ITEM_KINDS) {
        this.db.exec(
          `CREATE VIRTUAL TABLE IF NOT EXISTS ${vecTableName(row.id, kind)} USING vec0(` +
            `repo_id INTEGER PARTITION KEY, embedding FLOAT[${row.dim}] distance_metric=cosine)`,
        );
      }
      this.registered.add(row.id);
      return row;
    });
  }

  listEncoders(): EncoderRow[] {
    return this.stmt('SELECT id, key, name, dim, description FROM encoders ORDER BY id').all() as EncoderRow[];
  }

  getEncoder(id: number): EncoderRow | undefined {
    return this.stmt('SELECT id, key, name, dim, description FROM encoders WHERE id = ?').get(id) as EncoderRow | undefined;
  }

  // ── files and their content ───────────────────────────────────────────────

  catalog(repoId: number): Map<string, CatalogEntry> {
    const rows = this.stmt('SELECT id, path, size, mtime_ms, sha256, status FROM files WHERE repo_id = ?').all(repoId) as CatalogEntry[];
    return new Map(rows.map((r) => [r.path, r]));
  }

  /** The file's content is unchanged (same sha256) but its mtime moved: remember the new mtime only. */
  touchFile(fileId: number, size: number, mtimeMs: number): void {
    this.stmt('UPDATE files SET size = ?, mtime_ms = ? WHERE id = ?').run(size, mtimeMs, fileId);
  }

  touchFiles(rows: { id: number; size: number; mtimeMs: number }[]): void {
    if (!rows.length) return;
    this.write('file times', () => {
      for (const r of rows) this.touchFile(r.id, r.size, r.mtimeMs);
    });
  }

  /**
   * Replaces everything stored for one file by a fresh parse, atomically. Returns the file id.
   * `lexical` holds the FTS texts when the parser already computed them (see lexical.ts).
   */
  replaceFile(repoId: number, facts: FileFacts, parsed: ParseResult, api: ApiEntry[], lexical?: LexicalTexts): number {
    return this.write(`the index of ${facts.relPath}`, () => {
      const existing = this.stmt('SELECT id FROM files WHERE repo_id = ? AND path = ?').get(repoId, facts.relPath) as { id: number } | undefined;
      if (existing) this.deleteFileContent(existing.id);
      const status = parsed.errors.length ? 'partial' : 'indexed';
      const errors = JSON.stringify(parsed.errors.slice(0, 50) satisfies SyntaxProblem[]);
      let fileId: number;
      if (existing) {
        fileId = existing.id;
        this.stmt(
          'UPDATE files SET size = ?, mtime_ms = ?, sha256 = ?, language = ?, module = ?, status = ?, syntax_errors = ?, indexed_at = ? WHERE id = ?',
        ).run(facts.size, facts.mtimeMs, facts.sha256, parsed.language, parsed.module, status, errors, now(), fileId);
      } else {
        fileId = Number(
          this.stmt(
            'INSERT INTO files(repo_id, path, size, mtime_ms, sha256, language, module, status, syntax_errors, indexed_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
          ).run(repoId, facts.relPath, facts.size, facts.mtimeMs, facts.sha256, parsed.language, parsed.module, status, errors, now()).lastInsertRowid,
        );
      }
      const unitIds = new Map<string, number>();
      parsed.units.forEach((u, i) => {
        const id = this.insertUnit(repoId, fileId, u, lexical?.units[i]);
        if (u.kind !== 'module') unitIds.set(u.qualname, id);
      });
      parsed.chunks.forEach((c, i) => this.insertChunk(repoId, fileId, c, lexical?.chunks[i]));
      // Constants and attributes have no unit, even where a unit shares their qualname (`f = wrap(f)`).
      api.forEach((a, i) => {
        const unitId = a.kind === 'constant' || a.kind === 'attribute' ? null : (unitIds.get(a.qualname) ?? null);
        this.insertApi(repoId, fileId, unitId, a, lexical?.api[i]);
      });
      return fileId;
    });
  }

  private insertUnit(repoId: number, fileId: number, u: ExtractedUnit, lexical?: string): number {
    const id = Number(
      this.stmt(
        `INSERT INTO units(repo_id, file_id, kind, name, qualname, parent_qualname, signature, params, returns, decorators, is_async,
           docstring, body, start_line, end_line, calls, imports, content_hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ).run(
        repoId,
        fileId,
        u.kind,
        u.name,
        u.qualname,
        u.parentQualname,
        u.signature,
        JSON.stringify(u.params),
        u.returns,
        JSON.stringify(u.decorators),
        u.isAsync ? 1 : 0,
        u.docstring,
        // A module unit's body would be the whole file again; the file row and its chunks stand for it.
        u.kind === 'module' ? '' : u.body,
        u.startLine,
        u.endLine,
        JSON.stringify(u.calls),
        JSON.stringify(u.imports),
        u.contentHash,
      ).lastInsertRowid,
    );
    if (u.kind !== 'module') {
      this.stmt('INSERT INTO fts_units(rowid, text) VALUES (?, ?)').run(id, lexical ?? unitLexicalText(u));
    }
    return id;
  }

  private insertChunk(repoId: number, fileId: number, c: ExtractedChunk, lexical?: string): void {
    const id = this.stmt(
      'INSERT INTO chunks(repo_id, file_id, kind, title, owner, text, start_line, end_line, content_hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
    ).run(repoId, fileId, c.kind, c.title, c.owner, c.text, c.startLine, c.endLine, c.contentHash).lastInsertRowid;
    this.stmt('INSERT INTO fts_chunks(rowid, text) VALUES (?, ?)').run(id, lexical ?? chunkLexicalText(c));
  }

  private insertApi(repoId: number, fileId: number, unitId: number | null, a: ApiEntry, lexical?: string): void {
    const id = this.stmt(
      `INSERT INTO api_entries(repo_id, file_id, unit_id, kind, name, qualname, module, owner, signature, description, description_source, text,
         start_line, end_line) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(
      repoId,
      fileId,
      unitId,
      a.kind,
      a.name,
      a.qualname,
      a.module,
      a.owner,
      a.signature,
      a.description,
      a.descriptionSource,
      a.text,
      a.startLine,
      a.endLine,
    ).lastInsertRowid;
    this.stmt('INSERT INTO fts_api(rowid, text) VALUES (?, ?)').run(id, lexical ?? apiLexicalText(a));
  }

  /** Deletes a file's units, chunks, API entries and their lexical and vector rows (not the file row). */
  private deleteFileContent(fileId: number): void {
    const encoders = this.listEncoders();
    for (const kind of ITEM_KINDS) {
      const ids = (this.stmt(`SELECT id FROM ${ITEM_TABLE[kind]} WHERE file_id = ?`).all(fileId) as { id: number }[]).map((r) => r.id);
      if (!ids.length) continue;
      const delFts = this.stmt(`DELETE FROM ${FTS_TABLE[kind]} WHERE rowid = ?`);
      const delVec = encoders.map((e) => this.stmt(`DELETE FROM ${vecTableName(e.id, kind)} WHERE rowid = ?`));
      for (const id of ids) {
        delFts.run(id);
        for (const d of delVec) d.run(BigInt(id));
      }
    }
    this.stmt('DELETE FROM api_entries WHERE file_id = ?').run(fileId);
    this.stmt('DELETE FROM chunks WHERE file_id = ?').run(fileId);
    this.stmt('DELETE FROM units WHERE file_id = ?').run(fileId);
  }

  removeFiles(fileIds: number[]): void {
    if (!fileIds.length) return;
    this.write('removal of deleted files', () => {
      for (const id of fileIds) {
        this.deleteFileContent(id);
        this.stmt('DELETE FROM files WHERE id = ?').run(id);
      }
    });
  }

  replaceSkips(repoId: number, skips: SkipRecord[]): void {
    this.write('skip records', () => {
      this.stmt('DELETE FROM skipped_paths WHERE repo_id = ?').run(repoId);
      const ins = this.stmt('INSERT OR REPLACE INTO skipped_paths(repo_id, path, reason, detail, is_dir) VALUES (?, ?, ?, ?, ?)');
      for (const s of skips) ins.run(repoId, s.path, s.reason, s.detail ?? null, s.isDir ? 1 : 0);
    });
  }

  listSkips(repoId: number): SkipRecord[] {
    return (
      this.stmt('SELECT path, reason, detail, is_dir FROM skipped_paths WHERE repo_id = ? ORDER BY path').all(repoId) as {
        path: string;
        reason: string;
        detail: string | null;
        is_dir: number;
      }[]
    ).map((r) => ({ path: r.path, reason: r.reason, detail: r.detail, isDir: r.is_dir === 1 }));
  }

  // ── embeddings ────────────────────────────────────────────────────────────

  countPendingEmbeddings(repoId: number, encoderId: number): number {
    let n = 0;
    for (const kind of ITEM_KINDS) {
      n += (
        this.stmt(`SELECT count(*) AS n FROM ${ITEM_TABLE[kind]} WHERE repo_id = ? AND embedded_with IS NOT ? ${EMBED_FILTER_SQL[kind]}`).get(
          repoId,
          encoderId,
        ) as { n: number }
      ).n;
    }
    return n;
  }

  /** How many items after `afterId` wait for this encoder, counting no further than `limit` (reads no text). */
  countPendingAfter(repoId: number, encoderId: number, kind: ItemKind, afterId: number, limit: number): number {
    return (
      this.stmt(
        `SELECT count(*) AS n FROM (SELECT 1 FROM ${ITEM_TABLE[kind]} INDEXED BY ${REPO_INDEX[kind]}
         WHERE id > ? AND repo_id = ? AND embedded_with IS NOT ? ${EMBED_FILTER_SQL[kind]} LIMIT ?)`,
      ).get(afterId, repoId, encoderId, limit) as { n: number }
    ).n;
  }

  /**
   * Items not yet embedded by this encoder with id > afterId, lowest id first. Walking the primary key
   * with a cursor keeps each batch cheap; a full pass restarts from 0.
   */
  pendingEmbeddings(repoId: number, encoderId: number, kind: ItemKind, limit: number, afterId = 0): PendingText[] {
    return this.stmt(
      `SELECT id, ${EMBED_TEXT_SQL[kind]} AS text FROM ${ITEM_TABLE[kind]} INDEXED BY ${REPO_INDEX[kind]}
       WHERE id > ? AND repo_id = ? AND embedded_with IS NOT ? ${EMBED_FILTER_SQL[kind]} ORDER BY id LIMIT ?`,
    ).all(afterId, repoId, encoderId, limit) as PendingText[];
  }

  storeEmbeddings(repoId: number, encoderId: number, kind: ItemKind, rows: { id: number; vector: Float32Array }[]): void {
    const table = vecTableName(encoderId, kind);
    this.write('embeddings', () => {
      const del = this.stmt(`DELETE FROM ${table} WHERE rowid = ?`);
      const ins = this.stmt(`INSERT INTO ${table}(rowid, repo_id, embedding) VALUES (?, ?, ?)`);
      const mark = this.stmt(`UPDATE ${ITEM_TABLE[kind]} SET embedded_with = ? WHERE id = ?`);
      for (const r of rows) {
        // An item deleted since its text was read gets no vector (no orphan rows in the vector table).
        if (mark.run(encoderId, r.id).changes !== 1) continue;
        del.run(BigInt(r.id));
        ins.run(BigInt(r.id), BigInt(repoId), r.vector);
      }
    });
  }

  // ── index runs ────────────────────────────────────────────────────────────

  startRun(repoId: number, encoderId: number): number {
    return this.write('index run', () =>
      Number(
        this.stmt("INSERT INTO index_runs(repo_id, started_at, status, encoder_id, pid, host) VALUES (?, ?, 'running', ?, ?, ?)").run(
          repoId,
          now(),
          encoderId,
          process.pid,
          os.hostname(),
        ).lastInsertRowid,
      ),
    );
  }

  finishRun(runId: number, status: 'completed' | 'cancelled' | 'failed', stats: unknown): void {
    this.write('index run', () => {
      this.stmt('UPDATE index_runs SET finished_at = ?, status = ?, stats = ? WHERE id = ?').run(now(), status, JSON.stringify(stats), runId);
    });
  }

  /** The repository's latest index run; `running` whose process is gone reads as `interrupted` (the next run resumes it). */
  lastRun(repoId: number): { id: number; status: string; started_at: string; finished_at: string | null; stats: unknown } | undefined {
    const row = this.stmt('SELECT id, status, started_at, finished_at, stats, pid, host FROM index_runs WHERE repo_id = ? ORDER BY id DESC LIMIT 1').get(
      repoId,
    ) as
      { id: number; status: string; started_at: string; finished_at: string | null; stats: string | null; pid: number | null; host: string | null } | undefined;
    if (!row) return undefined;
    const { pid, host, ...rest } = row;
    const status = rest.status === 'running' && !processAlive(pid, host) ? 'interrupted' : rest.status;
    return { ...rest, status, stats: rest.stats ? JSON.parse(rest.stats) : null };
  }

  // ── summaries ─────────────────────────────────────────────────────────────

  stats(repoId: number): RepositoryStats {
    const repo = this.getRepository(repoId);
    const files = { indexed: 0, partial: 0 };
    for (const r of this.stmt('SELECT status, count(*) AS n FROM files WHERE repo_id = ? GROUP BY status').all(repoId) as {
      status: 'indexed' | 'partial';
      n: number;
    }[])
      files[r.status] = r.n;
    const skipped: Record<string, number> = {};
    for (const r of this.stmt('SELECT reason, count(*) AS n FROM skipped_paths WHERE repo_id = ? GROUP BY reason ORDER BY reason').all(repoId) as {
      reason: string;
      n: number;
    }[])
      skipped[r.reason] = r.n;
    const units: Record<string, number> = {};
    for (const r of this.stmt('SELECT kind, count(*) AS n FROM units WHERE repo_id = ? GROUP BY kind ORDER BY kind').all(repoId) as {
      kind: string;
      n: number;
    }[])
      units[r.kind] = r.n;
    const count = (sql: string, ...args: unknown[]) => (this.stmt(sql).get(...args) as { n: number }).n;
    const encoder = repo?.encoder_id != null ? (this.getEncoder(repo.encoder_id) ?? null) : null;
    const embedded = { unit: 0, chunk: 0, api: 0 } as Record<ItemKind, number>;
    if (encoder) {
      for (const kind of ITEM_KINDS) {
        embedded[kind] = count(`SELECT count(*) AS n FROM ${ITEM_TABLE[kind]} WHERE repo_id = ? AND embedded_with = ?`, repoId, encoder.id);
      }
    }
    return {
      files,
      skipped,
      units,
      chunks: count('SELECT count(*) AS n FROM chunks WHERE repo_id = ?', repoId),
      apiEntries: count('SELECT count(*) AS n FROM api_entries WHERE repo_id = ?', repoId),
      embedded,
      encoder,
    };
  }
}
