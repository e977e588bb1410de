// Experiment runs and their per-(task, condition) results. A result is written the moment it is computed, in
// its own transaction, so a crash or cancel loses at most the tasks in flight and a resume runs only the rest.

import { randomBytes } from 'node:crypto';
import os from 'node:os';
import type { Database } from 'better-sqlite3';
import { inTransaction } from './errors.ts';
import { processAlive } from './process.ts';
import type { VerdictIsolation } from '../model/verdict.ts';

export type RunStatus = 'running' | 'done' | 'cancelled';
/** `interrupted`: stored as running, but the process that ran it is gone (a crash or a kill). */
export type RunState = RunStatus | 'interrupted';

export interface ExperimentRunRecord<C = unknown, B = unknown, P = unknown, O = unknown> {
  id: string;
  kind: 'run' | 'ablate' | 'ladder';
  createdAt: string;
  updatedAt: string;
  finishedAt: string | null;
  status: RunStatus;
  state: RunState;
  manifestFile: string;
  manifestHash: string;
  taskIds: string[];
  conditions: C[];
  backend: B;
  provenance: P;
  options: O;
  pid: number | null;
  host: string | null;
  /** What the run is called (automatic when frozen, editable); null for runs stored before labels existed. */
  label: string | null;
}

export interface ResultRecord<R = unknown> {
  taskId: string;
  condition: string;
  status: 'ok' | 'error';
  createdAt: string;
  costUsd: number | null;
  result: R;
}

interface RunRow {
  id: string;
  kind: string;
  created_at: string;
  updated_at: string;
  finished_at: string | null;
  status: RunStatus;
  manifest_file: string;
  manifest_hash: string;
  task_ids: string;
  conditions: string;
  backend: string;
  provenance: string;
  options: string;
  pid: number | null;
  host: string | null;
  label: string | null;
}

export function newExperimentId(kind: string): string {
  return `${kind}-${new Date().toISOString().replace(/[-:]/g, '').replace(/\..*$/, '')}-${randomBytes(3).toString('hex')}`;
}

/** What a reference run established for a task (the validator's ReferenceCheck, stored). */
export interface StoredReferenceCheck {
  key: string;
  passes: boolean;
  tests: string[];
  reason: string;
  /** Where the task's candidates are validated, as the reference's two runs decided it, and why. */
  isolation: VerdictIsolation;
  isolationReason: string;
}

export class ExperimentStore {
  constructor(
    readonly db: Database,
    readonly dbPath = db.name,
  ) {}

  private write<T>(what: string, fn: () => T): T {
    return inTransaction(this.db, this.dbPath, what, fn);
  }

  /**
   * A task's reference check under a manifest (which tests its reference passes), or null when
   * none is stored or the stored one was made for other inputs (`key` differs).
   */
  referenceCheck(manifestHash: string, taskId: string, key: string): StoredReferenceCheck | null {
    const r = this.db
      .prepare('SELECT key, passes, tests, reason, isolation, isolation_reason FROM reference_checks WHERE manifest_hash = ? AND task_id = ?')
      .get(manifestHash, taskId) as
      { key: string; passes: number; tests: string; reason: string; isolation: string | null; isolation_reason: string | null } | undefined;
    // A check stored before isolation existed cannot say where its task is validated: it is made again.
    if (!r || r.key !== key || (r.isolation !== 'isolated' && r.isolation !== 'in-process')) return null;
    return {
      key: r.key,
      passes: r.passes === 1,
      tests: JSON.parse(r.tests) as string[],
      reason: r.reason,
      isolation: r.isolation,
      isolationReason: r.isolation_reason ?? '',
    };
  }

  saveReferenceCheck(manifestHash: string, taskId: string, check: StoredReferenceCheck): void {
    this.write('save a reference check', () =>
      this.db
        .prepare(
          'INSERT OR REPLACE INTO reference_checks (manifest_hash, task_id, key, passes, tests, reason, isolation, isolation_reason, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
        )
        .run(
          manifestHash,
          taskId,
          check.key,
          check.passes ? 1 : 0,
          JSON.stringify(check.tests),
          check.reason,
          check.isolation,
          check.isolationReason,
          new Date().toISOString(),
        ),
    );
  }

  private toRecord(r: RunRow): ExperimentRunRecord {
    const state: RunState = r.status === 'running' && !processAlive(r.pid, r.host) ? 'interrupted' : r.status;
    return {
      id: r.id,
      kind: r.kind as ExperimentRunRecord['kind'],
      createdAt: r.created_at,
      updatedAt: r.updated_at,
      finishedAt: r.finished_at,
      status: r.status,
      state,
      manifestFile: r.manifest_file,
      manifestHash: r.manifest_hash,
      taskIds: JSON.parse(r.task_ids),
      conditions: JSON.parse(r.conditions),
      backend: JSON.parse(r.backend),
      provenance: JSON.parse(r.provenance),
      options: JSON.parse(r.options),
      pid: r.pid,
      host: r.host,
      label: r.label ?? null,
    };
  }

  create(
    run: Pick<ExperimentRunRecord, 'id' | 'kind' | 'manifestFile' | 'manifestHash' | 'taskIds' | 'conditions' | 'backend' | 'provenance' | 'options'> & {
      label?: string | null;
    },
  ): void {
    const now = new Date().toISOString();
    this.write(`experiment run ${run.id}`, () =>
      this.db
        .prepare(
          `INSERT INTO experiment_runs (id, kind, created_at, updated_at, status, manifest_file, manifest_hash, task_ids, conditions, backend, provenance, options, pid, host, label)
           VALUES (?, ?, ?, ?, 'running', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        )
        .run(
          run.id,
          run.kind,
          now,
          now,
          run.manifestFile,
          run.manifestHash,
          JSON.stringify(run.taskIds),
          JSON.stringify(run.conditions),
          JSON.stringify(run.backend),
          JSON.stringify(run.provenance),
          JSON.stringify(run.options),
          process.pid,
          os.hostname(),
          run.label ?? null,
        ),
    );
  }

  /** Renames a run; null goes back to the automatic label. False when there is no such run. */
  rename(id: string, label: string | null): boolean {
    return this.write(
      `the label of experiment run ${id}`,
      () => this.db.prepare('UPDATE experiment_runs SET label = ? WHERE id = ?').run(label, id).changes > 0,
    );
  }

  /** Marks the run as taken over by this process (a resume). */
  claim(id: string): void {
    this.write(`experiment run ${id}`, () =>
      this.db
        .prepare(`UPDATE experiment_runs SET status = 'running', finished_at = NULL, pid = ?, host = ?, updated_at = ? WHERE id = ?`)
        .run(process.pid, os.hostname(), new Date().toISOString(), id),
    );
  }

  finish(id: string, status: 'done' | 'cancelled'): void {
    const now = new Date().toISOString();
    this.write(`experiment run ${id}`, () =>
      this.db
        .prepare('UPDATE experiment_runs SET status = ?, finished_at = ?, updated_at = ? WHERE id = ?')
        .run(status, status === 'done' ? now : null, now, id),
    );
  }

  get(id: string): ExperimentRunRecord | undefined {
    const row = this.db.prepare('SELECT * FROM experiment_runs WHERE id = ?').get(id) as RunRow | undefined;
    return row ? this.toRecord(row) : undefined;
  }

  list(limit = 100): (ExperimentRunRecord & { results: number; errors: number })[] {
    const rows = this.db.prepare('SELECT * FROM experiment_runs ORDER BY created_at DESC, id DESC LIMIT ?').all(limit) as RunRow[];
    return rows.map((r) => this.counted(r));
  }

  /** One run as list() gives it (with its result counts), or undefined. */
  listed(id: string): (ExperimentRunRecord & { results: number; errors: number }) | undefined {
    const row = this.db.prepare('SELECT * FROM experiment_runs WHERE id = ?').get(id) as RunRow | undefined;
    return row ? this.counted(row) : undefined;
  }

  private counted(r: RunRow): ExperimentRunRecord & { results: number; errors: number } {
    const c = this.db.prepare(`SELECT COUNT(*) AS n, COALESCE(SUM(status = 'error'), 0) AS e FROM experiment_results WHERE run_id = ?`).get(r.id) as {
      n: number;
      e: number;
    };
    return { ...this.toRecord(r), results: c.n, errors: c.e };
  }

  /** Stores one (task, condition) outcome; a retried task's error is replaced by its result. */
  saveResult(runId: string, rec: Omit<ResultRecord, 'createdAt'>): void {
    const now = new Date().toISOString();
    this.write(`the result of ${rec.taskId} / ${rec.condition} in run ${runId}`, () => {
      this.db
        .prepare(
          `INSERT INTO experiment_results (run_id, task_id, condition, status, created_at, cost_usd, result) VALUES (?, ?, ?, ?, ?, ?, ?)
           ON CONFLICT (run_id, task_id, condition) DO UPDATE SET status = excluded.status, created_at = excluded.created_at, cost_usd = excluded.cost_usd, result = excluded.result`,
        )
        .run(runId, rec.taskId, rec.condition, rec.status, now, rec.costUsd, JSON.stringify(rec.result));
      this.db.prepare('UPDATE experiment_runs SET updated_at = ? WHERE id = ?').run(now, runId);
    });
  }

  results<R = unknown>(runId: string): ResultRecord<R>[] {
    const rows = this.db
      .prepare('SELECT task_id, condition, status, created_at, cost_usd, result FROM experiment_results WHERE run_id = ? ORDER BY rowid')
      .all(runId) as { task_id: string; condition: string; status: 'ok' | 'error'; created_at: string; cost_usd: number | null; result: string }[];
    return rows.map((r) => ({
      taskId: r.task_id,
      condition: r.condition,
      status: r.status,
      createdAt: r.created_at,
      costUsd: r.cost_usd,
      result: JSON.parse(r.result) as R,
    }));
  }

  /** One (task, condition) outcome of a run, or undefined when it has none yet. */
  result<R = unknown>(runId: string, taskId: string, condition: string): ResultRecord<R> | undefined {
    const r = this.db
      .prepare('SELECT task_id, condition, status, created_at, cost_usd, result FROM experiment_results WHERE run_id = ? AND task_id = ? AND condition = ?')
      .get(runId, taskId, condition) as
      { task_id: string; condition: string; status: 'ok' | 'error'; created_at: string; cost_usd: number | null; result: string } | undefined;
    return (
      r && { taskId: r.task_id, condition: r.condition, status: r.status, createdAt: r.created_at, costUsd: r.cost_usd, result: JSON.parse(r.result) as R }
    );
  }

  /** Keys `task\u0000condition` of results already stored as ok (errors are retried on resume). */
  doneKeys(runId: string): Set<string> {
    const rows = this.db.prepare(`SELECT task_id, condition FROM experiment_results WHERE run_id = ? AND status = 'ok'`).all(runId) as {
      task_id: string;
      condition: string;
    }[];
    return new Set(rows.map((r) => `${r.task_id}\u0000${r.condition}`));
  }

  spent(runId: string): number {
    const row = this.db.prepare('SELECT COALESCE(SUM(cost_usd), 0) AS usd FROM experiment_results WHERE run_id = ?').get(runId) as { usd: number };
    return row.usd;
  }
}
