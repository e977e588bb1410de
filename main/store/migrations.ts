// Numbered schema migrations. Each entry upgrades the schema from version (index) to (index + 1).
// Never edit a migration that has shipped; add a new one.

import type { Database } from 'better-sqlite3';
import { apiLexicalText, chunkLexicalText, unitLexicalText } from './lexical.ts';

export interface Migration {
  version: number;
  description: string;
  sql: string;
  /** Data changes that SQL alone cannot express; runs in the same transaction as `sql`. */
  backfill?: (db: Database) => void;
}

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    description: 'repositories, files, code units, context chunks, API entries, encoders',
    sql: `
      CREATE TABLE repositories (
        id INTEGER PRIMARY KEY,
        root TEXT NOT NULL UNIQUE,
        name TEXT NOT NULL,
        created_at TEXT NOT NULL,
        last_indexed_at TEXT,
        encoder_id INTEGER REFERENCES encoders(id)
      );
      CREATE TABLE encoders (
        id INTEGER PRIMARY KEY,
        key TEXT NOT NULL UNIQUE,
        name TEXT NOT NULL,
        dim INTEGER NOT NULL,
        description TEXT NOT NULL,
        created_at TEXT NOT NULL
      );
      CREATE TABLE files (
        id INTEGER PRIMARY KEY,
        repo_id INTEGER NOT NULL REFERENCES repositories(id) ON DELETE CASCADE,
        path TEXT NOT NULL,
        size INTEGER NOT NULL,
        mtime_ms REAL NOT NULL,
        sha256 TEXT NOT NULL,
        language TEXT NOT NULL,
        module TEXT NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('indexed', 'partial')),
        syntax_errors TEXT NOT NULL DEFAULT '[]',
        indexed_at TEXT NOT NULL,
        UNIQUE (repo_id, path)
      );
      CREATE TABLE units (
        id INTEGER PRIMARY KEY,
        repo_id INTEGER NOT NULL REFERENCES repositories(id) ON DELETE CASCADE,
        file_id INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
        kind TEXT NOT NULL CHECK (kind IN ('module', 'class', 'function', 'method')),
        name TEXT NOT NULL,
        qualname TEXT NOT NULL,
        parent_qualname TEXT,
        signature TEXT NOT NULL,
        params TEXT NOT NULL,
        returns TEXT,
        decorators TEXT NOT NULL,
        is_async INTEGER NOT NULL,
        docstring TEXT,
        body TEXT NOT NULL,
        start_line INTEGER NOT NULL,
        end_line INTEGER NOT NULL,
        calls TEXT NOT NULL,
        imports TEXT NOT NULL,
        content_hash TEXT NOT NULL,
        embedded_with INTEGER
      );
      CREATE INDEX units_file ON units(file_id);
      CREATE INDEX units_repo ON units(repo_id);
      CREATE TABLE chunks (
        id INTEGER PRIMARY KEY,
        repo_id INTEGER NOT NULL REFERENCES repositories(id) ON DELETE CASCADE,
        file_id INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
        kind TEXT NOT NULL CHECK (kind IN ('module_header', 'class_skeleton', 'siblings')),
        title TEXT NOT NULL,
        owner TEXT NOT NULL,
        text TEXT NOT NULL,
        start_line INTEGER NOT NULL,
        end_line INTEGER NOT NULL,
        content_hash TEXT NOT NULL,
        embedded_with INTEGER
      );
      CREATE INDEX chunks_file ON chunks(file_id);
      CREATE INDEX chunks_repo ON chunks(repo_id);
      CREATE TABLE api_entries (
        id INTEGER PRIMARY KEY,
        repo_id INTEGER NOT NULL REFERENCES repositories(id) ON DELETE CASCADE,
        file_id INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
        unit_id INTEGER REFERENCES units(id) ON DELETE CASCADE,
        kind TEXT NOT NULL,
        name TEXT NOT NULL,
        qualname TEXT NOT NULL,
        module TEXT NOT NULL,
        owner TEXT,
        signature TEXT NOT NULL,
        description TEXT NOT NULL,
        description_source TEXT NOT NULL,
        text TEXT NOT NULL,
        embedded_with INTEGER
      );
      CREATE INDEX api_file ON api_entries(file_id);
      CREATE INDEX api_repo ON api_entries(repo_id);
    `,
  },
  {
    version: 2,
    description: 'skip records, index runs, FTS5 lexical indexes',
    sql: `
      CREATE TABLE skipped_paths (
        repo_id INTEGER NOT NULL REFERENCES repositories(id) ON DELETE CASCADE,
        path TEXT NOT NULL,
        reason TEXT NOT NULL,
        detail TEXT,
        is_dir INTEGER NOT NULL,
        PRIMARY KEY (repo_id, path)
      );
      CREATE TABLE index_runs (
        id INTEGER PRIMARY KEY,
        repo_id INTEGER NOT NULL REFERENCES repositories(id) ON DELETE CASCADE,
        started_at TEXT NOT NULL,
        finished_at TEXT,
        status TEXT NOT NULL CHECK (status IN ('running', 'completed', 'cancelled', 'failed')),
        encoder_id INTEGER REFERENCES encoders(id),
        stats TEXT
      );
      CREATE VIRTUAL TABLE fts_units USING fts5(text, content='', contentless_delete=1, tokenize='unicode61 remove_diacritics 2');
      CREATE VIRTUAL TABLE fts_chunks USING fts5(text, content='', contentless_delete=1, tokenize='unicode61 remove_diacritics 2');
      CREATE VIRTUAL TABLE fts_api USING fts5(text, content='', contentless_delete=1, tokenize='unicode61 remove_diacritics 2');
    `,
    // A version-1 database already holds units: give them lexical entries so BM25 recall sees them.
    backfill(db) {
      const put = (table: string, rows: Iterable<{ id: number; text: string }>) => {
        const ins = db.prepare(`INSERT INTO ${table}(rowid, text) VALUES (?, ?)`);
        for (const r of rows) ins.run(r.id, r.text);
      };
      type UnitRow = { id: number; qualname: string; signature: string; docstring: string | null; body: string };
      const units = db.prepare("SELECT id, qualname, signature, docstring, body FROM units WHERE kind != 'module'").all() as UnitRow[];
      put(
        'fts_units',
        units.map((u) => ({ id: u.id, text: unitLexicalText(u) })),
      );
      const chunks = db.prepare('SELECT id, text FROM chunks').all() as { id: number; text: string }[];
      put(
        'fts_chunks',
        chunks.map((c) => ({ id: c.id, text: chunkLexicalText(c) })),
      );
      const api = db.prepare('SELECT id, text FROM api_entries').all() as { id: number; text: string }[];
      put(
        'fts_api',
        api.map((a) => ({ id: a.id, text: apiLexicalText(a) })),
      );
    },
  },
  {
    version: 3,
    description: 'retrieval traces, name index, FTS vocabularies',
    sql: `
      CREATE TABLE retrieval_traces (
        id INTEGER PRIMARY KEY,
        repo_id INTEGER NOT NULL REFERENCES repositories(id) ON DELETE CASCADE,
        task_id TEXT NOT NULL,
        config_hash TEXT NOT NULL,
        encoder_id INTEGER REFERENCES encoders(id),
        created_at TEXT NOT NULL,
        trace TEXT NOT NULL
      );
      CREATE INDEX retrieval_traces_task ON retrieval_traces(task_id, created_at);
      CREATE INDEX units_repo_name ON units(repo_id, name);
      CREATE VIRTUAL TABLE fts_units_vocab USING fts5vocab(fts_units, 'row');
      CREATE VIRTUAL TABLE fts_chunks_vocab USING fts5vocab(fts_chunks, 'row');
      CREATE VIRTUAL TABLE fts_api_vocab USING fts5vocab(fts_api, 'row');
    `,
  },
  {
    version: 4,
    description: 'LLM exchanges (record / replay), generation runs and their candidate sets',
    sql: `
      CREATE TABLE generation_runs (
        id TEXT PRIMARY KEY,
        created_at TEXT NOT NULL,
        finished_at TEXT,
        backend TEXT NOT NULL,
        provider TEXT NOT NULL,
        model TEXT NOT NULL,
        prompt_version TEXT NOT NULL,
        prompt_hash TEXT NOT NULL,
        prompts TEXT NOT NULL,
        config TEXT NOT NULL,
        manifest_hash TEXT,
        summary TEXT
      );
      CREATE TABLE llm_exchanges (
        id INTEGER PRIMARY KEY,
        request_hash TEXT NOT NULL,
        run_id TEXT REFERENCES generation_runs(id) ON DELETE SET NULL,
        task_id TEXT,
        purpose TEXT,
        provider TEXT NOT NULL,
        model TEXT NOT NULL,
        request TEXT NOT NULL,
        response TEXT,
        status TEXT NOT NULL CHECK (status IN ('ok', 'error')),
        error TEXT,
        input_tokens INTEGER NOT NULL DEFAULT 0,
        output_tokens INTEGER NOT NULL DEFAULT 0,
        cost_usd REAL,
        latency_ms REAL NOT NULL,
        created_at TEXT NOT NULL
      );
      CREATE INDEX llm_exchanges_hash ON llm_exchanges(request_hash, status);
      CREATE INDEX llm_exchanges_run ON llm_exchanges(run_id, task_id);
      CREATE TABLE generation_results (
        run_id TEXT NOT NULL REFERENCES generation_runs(id) ON DELETE CASCADE,
        task_id TEXT NOT NULL,
        purpose TEXT NOT NULL,
        created_at TEXT NOT NULL,
        result TEXT NOT NULL,
        PRIMARY KEY (run_id, task_id, purpose)
      );
    `,
  },
  {
    version: 5,
    description: 'experiment runs (conditions, provenance) and their per-task results',
    sql: `
      CREATE TABLE experiment_runs (
        id TEXT PRIMARY KEY,
        kind TEXT NOT NULL,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        finished_at TEXT,
        status TEXT NOT NULL CHECK (status IN ('running', 'done', 'cancelled')),
        manifest_file TEXT NOT NULL,
        manifest_hash TEXT NOT NULL,
        task_ids TEXT NOT NULL,
        conditions TEXT NOT NULL,
        backend TEXT NOT NULL,
        provenance TEXT NOT NULL,
        options TEXT NOT NULL,
        pid INTEGER,
        host TEXT
      );
      CREATE TABLE experiment_results (
        run_id TEXT NOT NULL REFERENCES experiment_runs(id) ON DELETE CASCADE,
        task_id TEXT NOT NULL,
        condition TEXT NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('ok', 'error')),
        created_at TEXT NOT NULL,
        cost_usd REAL,
        result TEXT NOT NULL,
        PRIMARY KEY (run_id, task_id, condition)
      );
    `,
  },
  {
    version: 6,
    description: "reference checks: the tests each task's reference passes, frozen per manifest",
    sql: `
      CREATE TABLE reference_checks (
        manifest_hash TEXT NOT NULL,
        task_id TEXT NOT NULL,
        key TEXT NOT NULL,
        passes INTEGER NOT NULL,
        tests TEXT NOT NULL,
        reason TEXT NOT NULL,
        created_at TEXT NOT NULL,
        PRIMARY KEY (manifest_hash, task_id)
      );
    `,
  },
  {
    version: 7,
    description: 'API entries carry their own lines (constants and class attributes have no unit); Python files re-parsed to get them',
    // An empty sha256 and a size of -1 match no file on disk, so the next index run re-reads and
    // re-parses every Python file, which writes the new constant and attribute entries.
    sql: `
      ALTER TABLE api_entries ADD COLUMN start_line INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE api_entries ADD COLUMN end_line INTEGER NOT NULL DEFAULT 0;
      UPDATE api_entries SET
        start_line = coalesce((SELECT u.start_line FROM units u WHERE u.id = api_entries.unit_id), 0),
        end_line = coalesce((SELECT u.end_line FROM units u WHERE u.id = api_entries.unit_id), 0)
        WHERE unit_id IS NOT NULL;
      UPDATE files SET sha256 = '', size = -1 WHERE language = 'python';
    `,
  },
  {
    version: 8,
    description: 'API entries looked up by module and name (the imported-API candidates of every retrieval scanned the table)',
    sql: `CREATE INDEX IF NOT EXISTS api_module_name ON api_entries(repo_id, module, qualname);`,
  },
  {
    version: 9,
    description: 'Index runs record the process that runs them, so a run whose process died (kill -9) reads as interrupted',
    sql: `
      ALTER TABLE index_runs ADD COLUMN pid INTEGER;
      ALTER TABLE index_runs ADD COLUMN host TEXT;
    `,
  },
  {
    version: 10,
    description: 'Include patterns a repository remembers (index --include): files they match are indexed although they look generated',
    sql: `
      CREATE TABLE IF NOT EXISTS repository_includes (
        repo_id INTEGER NOT NULL REFERENCES repositories(id) ON DELETE CASCADE,
        pattern TEXT NOT NULL,
        PRIMARY KEY (repo_id, pattern)
      );
    `,
  },
  {
    version: 11,
    description: 'Experiment runs carry a label (made from their task or manifest, methods and backend when frozen; editable) so runs can be told apart',
    sql: `ALTER TABLE experiment_runs ADD COLUMN label TEXT;`,
  },
  {
    version: 12,
    description: "Retrieval looks up the files of imported modules for every task: an index on (repo_id, module) instead of a scan of the repository's files",
    sql: `CREATE INDEX IF NOT EXISTS files_module ON files(repo_id, module);`,
  },
  {
    version: 13,
    description:
      'Reference checks record where their task is validated (isolated: tests and candidate in two processes; in-process) and why, as the reference decided it',
    sql: `
      ALTER TABLE reference_checks ADD COLUMN isolation TEXT;
      ALTER TABLE reference_checks ADD COLUMN isolation_reason TEXT;
    `,
  },
  {
    version: 14,
    description:
      "Vector packs: each repository's vectors of a kind as the search kernels hold them (ids and sign codes here, the padded rows in a file beside the database), so a process opens its vector indexes at once; and sets of item ids derived from an index state (the items of test files)",
    sql: `
      CREATE TABLE IF NOT EXISTS vector_packs (
        repo_id INTEGER NOT NULL REFERENCES repositories(id) ON DELETE CASCADE,
        encoder_id INTEGER NOT NULL,
        kind TEXT NOT NULL,
        version TEXT NOT NULL,
        n INTEGER NOT NULL,
        dim INTEGER NOT NULL,
        stride INTEGER NOT NULL,
        lanes INTEGER NOT NULL,
        ids BLOB NOT NULL,
        codes BLOB NOT NULL,
        file TEXT NOT NULL,
        PRIMARY KEY (repo_id, encoder_id, kind)
      );
      CREATE TABLE IF NOT EXISTS derived_ids (
        repo_id INTEGER NOT NULL REFERENCES repositories(id) ON DELETE CASCADE,
        part TEXT NOT NULL,
        version TEXT NOT NULL,
        ids BLOB NOT NULL,
        PRIMARY KEY (repo_id, part)
      );
    `,
  },
];

export const SCHEMA_VERSION = MIGRATIONS.length;
