// Sets of item ids that retrieval derives from an index state and that cost a scan of the repository to make (the
// items of test files: ~0.65 s at 120k units), kept with the state they were made from, so that the first task
// of a process reads them instead. Derived data: a set of another state is ignored and made again.

import type { Store } from './store.ts';

/** The stored set `part` of the repository if it was made from state `version`; else null. */
export function readDerivedIds(store: Store, repoId: number, part: string, version: string): Int32Array | null {
  const r = store.prepared('SELECT version, ids FROM derived_ids WHERE repo_id = ? AND part = ?').get(repoId, part) as
    { version: string; ids: Buffer } | undefined;
  if (!r || r.version !== version) return null;
  const copy = new Uint8Array(r.ids.byteLength);
  copy.set(r.ids);
  return new Int32Array(copy.buffer);
}

/** Stores the set `part` as made from state `version` (a StoreWriteError when the store cannot be written). */
export function writeDerivedIds(store: Store, repoId: number, part: string, version: string, ids: Int32Array): void {
  store.write(`derived ids ${part} of repository ${repoId}`, () => {
    store
      .prepared(
        'INSERT INTO derived_ids(repo_id, part, version, ids) VALUES (?, ?, ?, ?) ON CONFLICT(repo_id, part) DO UPDATE SET version = excluded.version, ids = excluded.ids',
      )
      .run(repoId, part, version, Buffer.from(ids.buffer, ids.byteOffset, ids.byteLength));
  });
}

/** Marks the repository's sets of state `from` as of state `to` (an index run that changed nothing). */
export function restampDerivedIds(store: Store, repoId: number, from: string, to: string): void {
  store.write(`derived ids of repository ${repoId}`, () => {
    store.prepared('UPDATE derived_ids SET version = ? WHERE repo_id = ? AND version = ?').run(to, repoId, from);
  });
}
