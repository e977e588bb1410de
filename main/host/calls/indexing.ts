// Indexing as jobs: one index run at a time per repository root (a second request for a root joins the
// running job), with its progress reported on the job. Used by repo.index, by runs that index their tasks'
// repositories first, and by the demo.

import path from 'node:path';
import type { JobInfo } from '../../../contract/index.ts';
import { runIndex } from '../../index/indexer.ts';
import type { JobContext } from '../jobs.ts';
import type { Workspace } from '../workspace.ts';

async function withRootLock<T>(ws: Workspace, root: string, fn: () => Promise<T>): Promise<T> {
  const prev = ws.indexLocks.get(root) ?? Promise.resolve();
  const mine = prev.catch(() => {}).then(fn);
  const tail = mine.catch(() => {});
  ws.indexLocks.set(root, tail);
  try {
    return await mine;
  } finally {
    if (ws.indexLocks.get(root) === tail) ws.indexLocks.delete(root);
  }
}

/** Indexes (or refreshes) one repository within a job; its id, or a throw when the run did not complete. */
export async function indexRoot(ws: Workspace, root: string, job: JobContext, phasePrefix = ''): Promise<number> {
  try {
    const stats = await withRootLock(ws, root, () =>
      runIndex({ store: ws.store, root, encoder: ws.encoder, signal: job.signal }, (e) => {
        if (e.type === 'phase') job.progress({ phase: `${phasePrefix}${e.phase}`, done: 0, total: 0 });
        else if (e.type === 'progress')
          job.progress({ phase: `${phasePrefix}${e.phase}`, done: e.done, total: e.total, ...(e.current ? { message: e.current } : {}) });
      }),
    );
    if (stats.status !== 'completed') throw new Error(`indexing ${root} was stopped before it completed; what was indexed is kept`);
    return stats.repoId;
  } finally {
    ws.emit({ type: 'repos-changed' });
  }
}

/** The index job of a root: the running one, or a new (pausable, resumable) one. */
export function startIndexJob(ws: Workspace, root: string): JobInfo {
  const running = ws.indexJobs.get(root);
  if (running) {
    const info = ws.jobs.get(running);
    if (info && info.state === 'running') return info;
  }
  const job = ws.jobs.start('index', `Index ${path.basename(root)} (${root})`, async (ctx) => ({ repoId: await indexRoot(ws, root, ctx) }), {
    pausable: true,
    resumable: true,
  });
  ws.indexJobs.set(root, job.id);
  return job;
}
