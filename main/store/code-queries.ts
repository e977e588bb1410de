// Read queries over the code index (files, units, chunks, API entries) that retrieval and API evaluation need.
// SQL lives in main/store only: callers get typed rows and never see a statement.

import { vecTableName, type ItemKind, type Store } from './store.ts';

const ids = (xs: Iterable<number>) => JSON.stringify([...xs]);

/** A repository file by its path: id and dotted module name. */
export function fileByPath(store: Store, repoId: number, filePath: string): { id: number; module: string } | undefined {
  return store.prepared('SELECT id, module FROM files WHERE repo_id = ? AND path = ?').get(repoId, filePath) as { id: number; module: string } | undefined;
}

/** The imports a file's module unit records (`.validation.is_string`, `os.path`), or null without a module unit. */
export function moduleImports(store: Store, fileId: number): string[] | null {
  const row = store.prepared("SELECT imports FROM units WHERE file_id = ? AND kind = 'module'").get(fileId) as { imports: string } | undefined;
  return row ? (JSON.parse(row.imports) as string[]) : null;
}

/** The first non-module unit of a file with this qualified name. */
export function unitByQualname(
  store: Store,
  fileId: number,
  qualname: string,
): { id: number; body: string; parentQualname: string | null; startLine: number; endLine: number } | undefined {
  const u = store
    .prepared(
      "SELECT id, body, parent_qualname, start_line, end_line FROM units WHERE file_id = ? AND qualname = ? AND kind != 'module' ORDER BY start_line LIMIT 1",
    )
    .get(fileId, qualname) as { id: number; body: string; parent_qualname: string | null; start_line: number; end_line: number } | undefined;
  return u && { id: u.id, body: u.body, parentQualname: u.parent_qualname, startLine: u.start_line, endLine: u.end_line };
}

export function unitBody(store: Store, unitId: number): string | undefined {
  return (store.prepared('SELECT body FROM units WHERE id = ?').get(unitId) as { body: string } | undefined)?.body;
}

/** Non-module units of a file; with a span, only those enclosing it. */
export function fileUnits(store: Store, fileId: number, span?: { start: number; end: number }): { id: number; body: string }[] {
  return (
    span
      ? store
          .prepared("SELECT id, body FROM units WHERE file_id = ? AND kind != 'module' AND start_line <= ? AND end_line >= ?")
          .all(fileId, span.start, span.end)
      : store.prepared("SELECT id, body FROM units WHERE file_id = ? AND kind != 'module'").all(fileId)
  ) as { id: number; body: string }[];
}

/** Units and chunks of a file that lie within lines [start, end]: what a target's body defines (nested functions, classes). */
export function itemsInside(store: Store, fileId: number, span: { start: number; end: number }): { units: number[]; chunks: number[] } {
  const ids = (sql: string) => (store.prepared(sql).all(fileId, span.start, span.end) as { id: number }[]).map((r) => r.id);
  return {
    units: ids("SELECT id FROM units WHERE file_id = ? AND kind != 'module' AND start_line >= ? AND end_line <= ?"),
    chunks: ids('SELECT id FROM chunks WHERE file_id = ? AND start_line >= ? AND end_line <= ?'),
  };
}

/** Non-module units named `name` anywhere in the repository. */
export function unitsNamed(store: Store, repoId: number, name: string): { id: number; body: string; file_id: number }[] {
  return store.prepared("SELECT id, body, file_id FROM units WHERE repo_id = ? AND name = ? AND kind != 'module'").all(repoId, name) as {
    id: number;
    body: string;
    file_id: number;
  }[];
}

/** Chunk texts of one file, or of the whole repository. */
export function chunkTexts(store: Store, where: { fileId: number } | { repoId: number }): { id: number; text: string }[] {
  return (
    'fileId' in where
      ? store.prepared('SELECT id, text FROM chunks WHERE file_id = ?').all(where.fileId)
      : store.prepared('SELECT id, text FROM chunks WHERE repo_id = ?').all(where.repoId)
  ) as { id: number; text: string }[];
}

/**
 * API entries that belong to these units: the units' own entries, and the constants and class attributes (which
 * have no unit) that lie inside their lines.
 */
export function apiEntriesInUnits(store: Store, unitIds: Iterable<number>): number[] {
  const list = ids(unitIds);
  // Through the units' files (api_file index): api_entries has no index on unit_id, and a scan of it costs more
  // than the rest of a task's target resolution.
  const own = store
    .prepared(
      `SELECT a.id FROM api_entries a
       WHERE a.file_id IN (SELECT file_id FROM units WHERE id IN (SELECT value FROM json_each(?))) AND a.unit_id IN (SELECT value FROM json_each(?))`,
    )
    .all(list, list) as { id: number }[];
  const inside = store
    .prepared(
      `SELECT a.id FROM api_entries a JOIN units u ON u.file_id = a.file_id AND a.start_line >= u.start_line AND a.end_line <= u.end_line
       WHERE a.unit_id IS NULL AND a.start_line > 0 AND u.id IN (SELECT value FROM json_each(?))`,
    )
    .all(list) as { id: number }[];
  return [...own, ...inside].map((r) => r.id);
}

/** `path:qualname` of units, for traces. */
export function unitTitles(store: Store, unitIds: Iterable<number>): { qualname: string; path: string }[] {
  return store
    .prepared('SELECT u.qualname, f.path FROM units u JOIN files f ON f.id = u.file_id WHERE u.id IN (SELECT value FROM json_each(?))')
    .all(ids(unitIds)) as { qualname: string; path: string }[];
}

/** The distinct module names of a repository's files. */
export function repositoryModules(store: Store, repoId: number): Set<string> {
  return new Set((store.prepared('SELECT DISTINCT module FROM files WHERE repo_id = ?').all(repoId) as { module: string }[]).map((r) => r.module));
}

/** Every API entry of a repository with its file, in index order. */
export function apiEntryRows(store: Store, repoId: number): { name: string; qualname: string; module: string; kind: string; path: string }[] {
  return store
    .prepared('SELECT a.name, a.qualname, a.module, a.kind, f.path FROM api_entries a JOIN files f ON f.id = a.file_id WHERE a.repo_id = ? ORDER BY a.id')
    .all(repoId) as { name: string; qualname: string; module: string; kind: string; path: string }[];
}

/** Every stored embedding of `kind` an encoder made for a repository (row id and raw float32 bytes). */
export function storedVectors(store: Store, repoId: number, encoderId: number, kind: ItemKind): { id: number; embedding: Buffer }[] {
  return store.prepared(`SELECT rowid AS id, embedding FROM ${vecTableName(encoderId, kind)} WHERE repo_id = ?`).all(repoId) as {
    id: number;
    embedding: Buffer;
  }[];
}

/** One item's stored vector (its raw float32 bytes), or null when it has none. */
export function storedVector(store: Store, encoderId: number, kind: ItemKind, id: number): Buffer | null {
  const r = store.prepared(`SELECT embedding FROM ${vecTableName(encoderId, kind)} WHERE rowid = ?`).get(id) as { embedding: Buffer } | undefined;
  return r?.embedding ?? null;
}

const TABLE: Record<ItemKind, string> = { api: 'api_entries', chunk: 'chunks', unit: 'units' };
const FTS: Record<ItemKind, string> = { api: 'fts_api', chunk: 'fts_chunks', unit: 'fts_units' };

/** Every item of a kind in a repository with its file's path. */
export function itemPaths(store: Store, repoId: number, kind: ItemKind): { id: number; path: string }[] {
  return store.prepared(`SELECT t.id, f.path FROM ${TABLE[kind]} t JOIN files f ON f.id = t.file_id WHERE t.repo_id = ?`).all(repoId) as {
    id: number;
    path: string;
  }[];
}

/**
 * The units of a repository's Python files that tell test code by what it is (index/test-files.ts): module units
 * (their imports), classes that may derive from a TestCase, and what may be a test function or method; per path.
 */
export function testShapedUnits(
  store: Store,
  repoId: number,
): Map<string, { kind: string; name: string; parent_qualname: string | null; signature: string; imports: string }[]> {
  const rows = store
    .prepared(
      `SELECT f.path, u.kind, u.name, u.parent_qualname, u.signature, u.imports FROM units u JOIN files f ON f.id = u.file_id
       WHERE u.repo_id = ? AND f.language = 'python'
         AND (u.kind = 'module' OR (u.kind = 'class' AND u.signature LIKE '%TestCase%') OR u.name LIKE 'test%')`,
    )
    .all(repoId) as { path: string; kind: string; name: string; parent_qualname: string | null; signature: string; imports: string }[];
  const out = new Map<string, typeof rows>();
  for (const r of rows) {
    let list = out.get(r.path);
    if (!list) out.set(r.path, (list = []));
    list.push(r);
  }
  return out;
}

/** The paths of a repository's indexed files. */
export function filePaths(store: Store, repoId: number): string[] {
  return (store.prepared('SELECT path FROM files WHERE repo_id = ?').all(repoId) as { path: string }[]).map((r) => r.path);
}

/** Items of a kind in the whole database (BM25's document count). */
export function itemCount(store: Store, kind: ItemKind): number {
  return (store.prepared(`SELECT count(*) AS n FROM ${TABLE[kind]}`).get() as { n: number }).n;
}

/** Document frequency of one term in the kind's full-text index (0 when it has none): one lookup in its vocabulary. */
export function termDocFrequency(store: Store, kind: ItemKind, term: string): number {
  return (store.prepared(`SELECT doc FROM ${FTS[kind]}_vocab WHERE term = ?`).get(term) as { doc: number } | undefined)?.doc ?? 0;
}

/** A page of the kind's full-text vocabulary: up to `limit` terms after `after` (in term order), with their document frequencies. */
export function termDocFrequencyPage(store: Store, kind: ItemKind, after: string, limit: number): { term: string; doc: number }[] {
  return store.prepared(`SELECT term, doc FROM ${FTS[kind]}_vocab WHERE term > ? ORDER BY term LIMIT ?`).all(after, limit) as { term: string; doc: number }[];
}

/** Ids of a repository's items matching an FTS5 query, best BM25 first (units: functions and methods only). */
export function bm25Match(store: Store, kind: ItemKind, repoId: number, query: string, limit: number): number[] {
  const rows = store
    .prepared(
      `SELECT f.rowid AS id FROM ${FTS[kind]} f JOIN ${TABLE[kind]} t ON t.id = f.rowid
       WHERE ${FTS[kind]} MATCH ? AND t.repo_id = ? ${kind === 'unit' ? "AND t.kind IN ('function', 'method')" : ''}
       ORDER BY f.rank LIMIT ?`,
    )
    .all(query, repoId, limit) as { id: number }[];
  return rows.map((r) => r.id);
}

/** A file's module-header and class-skeleton chunks. */
export function structureChunks(store: Store, repoId: number, filePath: string): { id: number; kind: string; owner: string }[] {
  return store
    .prepared(
      `SELECT c.id, c.kind, c.owner FROM chunks c JOIN files f ON f.id = c.file_id WHERE f.repo_id = ? AND f.path = ? AND (c.kind = 'module_header' OR c.kind = 'class_skeleton')`,
    )
    .all(repoId, filePath) as { id: number; kind: string; owner: string }[];
}

/** Module-header chunks of these modules. */
export function moduleHeaderChunks(store: Store, repoId: number, modules: string[]): number[] {
  if (!modules.length) return [];
  return (
    store
      .prepared(
        `SELECT c.id FROM chunks c JOIN files f ON f.id = c.file_id WHERE f.repo_id = ? AND c.kind = 'module_header' AND f.module IN (SELECT value FROM json_each(?))`,
      )
      .all(repoId, JSON.stringify(modules)) as { id: number }[]
  ).map((r) => r.id);
}

/** API entries named `module:qualname`, one indexed look-up per name (api_module_name), in id order. */
export function apiEntriesNamed(store: Store, repoId: number, names: { module: string; name: string }[]): number[] {
  const one = store.prepared('SELECT id FROM api_entries WHERE repo_id = ? AND module = ? AND qualname = ? ORDER BY id');
  return [...new Set(names.flatMap((w) => (one.all(repoId, w.module, w.name) as { id: number }[]).map((r) => r.id)))].sort((a, b) => a - b);
}

/** Every API entry's id and module in a repository. */
export function apiEntryModules(store: Store, repoId: number): { id: number; module: string }[] {
  return store.prepared('SELECT id, module FROM api_entries WHERE repo_id = ?').all(repoId) as { id: number; module: string }[];
}

/** The calls of every non-module unit of a file. */
export function fileUnitCalls(store: Store, repoId: number, filePath: string): { id: number; calls: string[] }[] {
  return (
    store
      .prepared("SELECT u.id, u.calls FROM units u JOIN files f ON f.id = u.file_id WHERE f.repo_id = ? AND f.path = ? AND u.kind != 'module'")
      .all(repoId, filePath) as { id: number; calls: string }[]
  ).map((r) => ({ id: r.id, calls: JSON.parse(r.calls) as string[] }));
}

/** The calls of these units. */
export function unitCalls(store: Store, unitIds: number[]): string[][] {
  if (!unitIds.length) return [];
  return (store.prepared('SELECT calls FROM units WHERE id IN (SELECT value FROM json_each(?))').all(JSON.stringify(unitIds)) as { calls: string }[]).map(
    (r) => JSON.parse(r.calls) as string[],
  );
}

/** A token that changes whenever any repository of the database is indexed (database-wide caches key on it). */
export function indexState(store: Store): string {
  const r = store.prepared(`SELECT count(*) AS n, coalesce(max(last_indexed_at), '') AS at FROM repositories`).get() as { n: number; at: string };
  return `${r.n}|${r.at}`;
}
