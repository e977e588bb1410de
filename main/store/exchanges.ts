// Typed queries over the generation tables (migration 4): every LLM exchange keyed by its request hash
// (record / replay), generation runs with the prompt templates they used, and the candidate sets they produced.
// Nothing here ever sees an API key: requests are stored as the engine built them, without headers.

import { randomBytes } from 'node:crypto';
import type { Database } from 'better-sqlite3';
import { inTransaction } from './errors.ts';

export interface RunInfo {
  id?: string;
  backend: string;
  provider: string;
  model: string;
  prompts: { version: string; hash: string; templates: Record<string, string> };
  config: unknown;
  manifestHash?: string | null;
}

export interface RunRow {
  id: string;
  created_at: string;
  finished_at: string | null;
  backend: string;
  provider: string;
  model: string;
  prompt_version: string;
  prompt_hash: string;
  prompts: string;
  config: string;
  manifest_hash: string | null;
  summary: string | null;
}

export interface ExchangeRecord {
  requestHash: string;
  runId?: string | null;
  taskId?: string | null;
  purpose?: string | null;
  provider: string;
  model: string;
  /** The request as the engine built it (JSON-serialisable, no secrets). */
  request: unknown;
  /** The normalised response; absent for a failed exchange. */
  response?: unknown;
  error?: string | null;
  inputTokens: number;
  outputTokens: number;
  costUsd: number | null;
  latencyMs: number;
}

export interface ExchangeRow {
  id: number;
  request_hash: string;
  run_id: string | null;
  task_id: string | null;
  purpose: string | null;
  provider: string;
  model: string;
  request: string;
  response: string | null;
  status: 'ok' | 'error';
  error: string | null;
  input_tokens: number;
  output_tokens: number;
  cost_usd: number | null;
  latency_ms: number;
  created_at: string;
}

export interface UsageTotals {
  calls: number;
  errors: number;
  inputTokens: number;
  outputTokens: number;
  /** null when some call had no price. */
  costUsd: number | null;
  latencyMs: number;
}

interface TotalsRow {
  calls: number;
  errors: number | null;
  input_tokens: number | null;
  output_tokens: number | null;
  cost: number | null;
  unpriced: number | null;
  latency: number | null;
}

function totals(r: TotalsRow | undefined): UsageTotals {
  return {
    calls: r?.calls ?? 0,
    errors: r?.errors ?? 0,
    inputTokens: r?.input_tokens ?? 0,
    outputTokens: r?.output_tokens ?? 0,
    costUsd: r && (r.unpriced ?? 0) > 0 ? null : (r?.cost ?? 0),
    latencyMs: r?.latency ?? 0,
  };
}

const TOTALS_SQL = `COUNT(*) AS calls, SUM(status = 'error') AS errors, SUM(input_tokens) AS input_tokens, SUM(output_tokens) AS output_tokens,
  SUM(cost_usd) AS cost, SUM(cost_usd IS NULL AND status = 'ok') AS unpriced, SUM(latency_ms) AS latency`;

/** Longest error message stored with a failed exchange: a server can echo a whole oversized body into one. */
export const MAX_STORED_ERROR_CHARS = 8 * 1024;

function clipError(error: string | null | undefined): string | null {
  if (!error) return null;
  if (error.length <= MAX_STORED_ERROR_CHARS) return error;
  return `${error.slice(0, MAX_STORED_ERROR_CHARS)}… [${error.length - MAX_STORED_ERROR_CHARS} more characters not stored]`;
}

function now(): string {
  return new Date().toISOString();
}

export function newRunId(): string {
  return `gen-${new Date().toISOString().replace(/[-:]/g, '').replace(/\..*$/, '')}-${randomBytes(3).toString('hex')}`;
}

/** Record / replay store over a workspace database (pass `store.db`). */
export class ExchangeStore {
  constructor(
    readonly db: Database,
    /** The database file, for error messages. */
    readonly dbPath = db.name,
  ) {}

  private write<T>(what: string, fn: () => T): T {
    return inTransaction(this.db, this.dbPath, what, fn);
  }

  beginRun(info: RunInfo): string {
    const id = info.id ?? newRunId();
    this.write(`generation run ${id}`, () =>
      this.db
        .prepare(
          `INSERT INTO generation_runs (id, created_at, backend, provider, model, prompt_version, prompt_hash, prompts, config, manifest_hash)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        )
        .run(
          id,
          now(),
          info.backend,
          info.provider,
          info.model,
          info.prompts.version,
          info.prompts.hash,
          JSON.stringify(info.prompts.templates),
          JSON.stringify(info.config),
          info.manifestHash ?? null,
        ),
    );
    return id;
  }

  finishRun(id: string, summary: unknown): void {
    this.write(`generation run ${id}`, () =>
      this.db.prepare('UPDATE generation_runs SET finished_at = ?, summary = ? WHERE id = ?').run(now(), JSON.stringify(summary), id),
    );
  }

  getRun(id: string): RunRow | undefined {
    return this.db.prepare('SELECT * FROM generation_runs WHERE id = ?').get(id) as RunRow | undefined;
  }

  listRuns(limit = 50): RunRow[] {
    return this.db.prepare('SELECT * FROM generation_runs ORDER BY created_at DESC, id DESC LIMIT ?').all(limit) as RunRow[];
  }

  record(ex: ExchangeRecord): number {
    return this.write('an LLM exchange', () => {
      const info = this.db
        .prepare(
          `INSERT INTO llm_exchanges (request_hash, run_id, task_id, purpose, provider, model, request, response, status, error,
             input_tokens, output_tokens, cost_usd, latency_ms, created_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        )
        .run(
          ex.requestHash,
          ex.runId ?? null,
          ex.taskId ?? null,
          ex.purpose ?? null,
          ex.provider,
          ex.model,
          JSON.stringify(ex.request),
          ex.response === undefined ? null : JSON.stringify(ex.response),
          ex.response === undefined ? 'error' : 'ok',
          clipError(ex.error),
          ex.inputTokens,
          ex.outputTokens,
          ex.costUsd,
          ex.latencyMs,
          now(),
        );
      return Number(info.lastInsertRowid);
    });
  }

  /** The recorded successful exchange for a request: from `runId` when given, else the latest. */
  findForReplay(requestHash: string, runId?: string): ExchangeRow | undefined {
    if (runId) {
      return this.db
        .prepare(`SELECT * FROM llm_exchanges WHERE request_hash = ? AND status = 'ok' AND run_id = ? ORDER BY id DESC LIMIT 1`)
        .get(requestHash, runId) as ExchangeRow | undefined;
    }
    return this.db.prepare(`SELECT * FROM llm_exchanges WHERE request_hash = ? AND status = 'ok' ORDER BY id DESC LIMIT 1`).get(requestHash) as
      ExchangeRow | undefined;
  }

  exchanges(filter: { runId?: string; taskId?: string } = {}): ExchangeRow[] {
    const where: string[] = [];
    const args: string[] = [];
    if (filter.runId) {
      where.push('run_id = ?');
      args.push(filter.runId);
    }
    if (filter.taskId) {
      where.push('task_id = ?');
      args.push(filter.taskId);
    }
    return this.db.prepare(`SELECT * FROM llm_exchanges ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY id`).all(...args) as ExchangeRow[];
  }

  /** Providers that recorded exchanges for a model (to pick the one to replay). */
  providersFor(model: string): string[] {
    return (
      this.db.prepare(`SELECT DISTINCT provider FROM llm_exchanges WHERE model = ? AND status = 'ok' ORDER BY provider`).all(model) as { provider: string }[]
    ).map((r) => r.provider);
  }

  usageOfRun(runId: string): UsageTotals {
    return totals(this.db.prepare(`SELECT ${TOTALS_SQL} FROM llm_exchanges WHERE run_id = ?`).get(runId) as TotalsRow | undefined);
  }

  usageByTask(runId: string): Map<string, UsageTotals> {
    const rows = this.db
      .prepare(`SELECT task_id, ${TOTALS_SQL} FROM llm_exchanges WHERE run_id = ? GROUP BY task_id ORDER BY task_id`)
      .all(runId) as (TotalsRow & {
      task_id: string | null;
    })[];
    return new Map(rows.map((r) => [r.task_id ?? '', totals(r)]));
  }

  saveResult(runId: string, taskId: string, purpose: string, result: unknown): void {
    this.write(`the ${purpose} result of task ${taskId}`, () =>
      this.db
        .prepare('INSERT OR REPLACE INTO generation_results (run_id, task_id, purpose, created_at, result) VALUES (?, ?, ?, ?, ?)')
        .run(runId, taskId, purpose, now(), JSON.stringify(result)),
    );
  }

  getResult<T = unknown>(runId: string, taskId: string, purpose = 'generate'): T | undefined {
    const row = this.db.prepare('SELECT result FROM generation_results WHERE run_id = ? AND task_id = ? AND purpose = ?').get(runId, taskId, purpose) as
      { result: string } | undefined;
    return row ? (JSON.parse(row.result) as T) : undefined;
  }
}
