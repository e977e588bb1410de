// Indexing as jobs: one index run at a time per repository root (a second request for a root joins the
// running job, unless it brings new include patterns), with its progress reported on the job. Used by
// repo.index, by runs that index their tasks' repositories first, and by the demo.

import path from 'node:path';
import type { JobInfo } from '../../../contract/index.ts';
import { normalizeIncludePattern } from '../../index/walk.ts';
import type { JobContext } from '../jobs.ts';
import { completedRepoId, indexProgressText, indexRepo } from '../ops/indexing.ts';
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

/**
 * Indexes (or refreshes) one repository within a job; its id, or a throw when the run did not complete.
 * `include` adds patterns to those the repository remembers (include-rules.ts); every run applies them all.
 */
export async function indexRoot(ws: Workspace, root: string, job: JobContext, phasePrefix = '', include?: readonly string[]): Promise<number> {
  try {
    const stats = await withRootLock(ws, root, () =>
      indexRepo(ws, root, { signal: job.signal, ...(include ? { include } : {}) }, (e) => {
        if (e.type === 'phase') job.progress({ phase: `${phasePrefix}${e.phase}`, done: 0, total: 0 });
        else if (e.type === 'progress') {
          const message = indexProgressText(e);
          job.progress({ phase: `${phasePrefix}${e.phase}`, done: e.done, total: e.total, ...(message ? { message } : {}) });
        }
      }),
    );
    return completedRepoId(stats);
  } finally {
    ws.emit({ type: 'repos-changed' });
  }
}

/**
 * The index job of a root: the running one, or a new (pausable, resumable) one. A request that adds include
 * patterns (checked here: a bad one is refused before any job starts) gets a new job, queued behind a running one,
 * since the running one walked the repository without them.
 */
export function startIndexJob(ws: Workspace, root: string, include: readonly string[] = []): JobInfo {
  const known = ws.store.includePatterns(ws.store.getRepository(root)?.id ?? 0);
  const adding = include.map((p) => normalizeIncludePattern(root, p)).filter((p) => !known.includes(p));
  const running = ws.indexJobs.get(root);
  if (running && adding.length === 0) {
    const info = ws.jobs.get(running);
    if (info && info.state === 'running') return info;
  }
  const run = async (ctx: JobContext) => ({ repoId: await indexRoot(ws, root, ctx, '', adding) });
  const job = ws.jobs.start('index', `Index ${path.basename(root)} (${root})`, run, {
    pausable: true,
    resumable: true,
    // A resumed index plans only the files not yet written: the job keeps the totals it showed before the pause.
    steadyTotals: true,
  });
  ws.indexJobs.set(root, job.id);
  return job;
}
