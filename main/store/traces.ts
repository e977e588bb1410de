// Stored retrieval traces: one JSON document per retrieval, newest last. The trace's shape belongs to
// retrieval (model/trace.ts RetrievalTrace); the store keeps it as given.

import type { Store } from './store.ts';

export function insertTrace(store: Store, row: { repoId: number; taskId: string; configHash: string; encoderId: number; trace: unknown }): number {
  return store.write('a retrieval trace', () =>
    Number(
      store.db
        .prepare('INSERT INTO retrieval_traces(repo_id, task_id, config_hash, encoder_id, created_at, trace) VALUES (?, ?, ?, ?, ?, ?)')
        .run(row.repoId, row.taskId, row.configHash, row.encoderId, new Date().toISOString(), JSON.stringify(row.trace)).lastInsertRowid,
    ),
  );
}

/** The latest stored trace of a task, parsed; undefined when there is none. */
export function latestTrace(store: Store, taskId: string): unknown {
  const row = store.db.prepare('SELECT trace FROM retrieval_traces WHERE task_id = ? ORDER BY id DESC LIMIT 1').get(taskId) as { trace: string } | undefined;
  return row ? JSON.parse(row.trace) : undefined;
}
