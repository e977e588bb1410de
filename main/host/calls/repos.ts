// Calls over the indexed repositories: repo.pick (the native folder picker, which also allows the folder),
// repo.list, repo.index (an index job) and repo.skipped (the files the index left out, and why).

import type { RepoSummary } from '../../../contract/index.ts';
import { checkRepositoryRoot } from '../../index/walk.ts';
import { canonicalPath, fail, type Workspace } from '../workspace.ts';
import type { CallTable } from './index.ts';
import { startIndexJob } from './indexing.ts';

function summaries(ws: Workspace): RepoSummary[] {
  return ws.store.listRepositories().map((r) => {
    const s = ws.store.stats(r.id);
    return {
      id: r.id,
      root: r.root,
      name: r.name,
      lastIndexedAt: r.last_indexed_at,
      files: s.files.indexed + s.files.partial,
      units: s.units,
      chunks: s.chunks,
      apiEntries: s.apiEntries,
      embedded: s.embedded.unit + s.embedded.chunk + s.embedded.api,
      encoder: s.encoder?.name ?? null,
      skipped: s.skipped,
    };
  });
}

export function repoCalls(ws: Workspace): CallTable<'repo.pick' | 'repo.list' | 'repo.index' | 'repo.skipped'> {
  return {
    'repo.pick': async () => {
      if (!ws.pickFolder)
        return { path: null, reason: 'Browser mode has no native folder picker: type or paste the folder path (it must lie inside the allowed folders).' };
      const picked = await ws.pickFolder();
      if (!picked) return { path: null, reason: 'No folder was chosen.' };
      ws.allowRoot(picked);
      return { path: canonicalPath(picked) };
    },
    'repo.list': () => summaries(ws),
    'repo.index': async ({ path: p, include }) => {
      const root = await checkRepositoryRoot(p);
      ws.checkPath('path', root);
      return { jobId: startIndexJob(ws, root, include).id };
    },
    'repo.skipped': ({ repoId, limit }) => {
      if (!ws.store.getRepository(repoId)) fail('not-found', `no repository ${repoId} in ${ws.store.path}`);
      return ws.store
        .listSkips(repoId)
        .slice(0, limit)
        .map((s) => ({ path: s.path, reason: s.reason, detail: s.detail ?? null }));
    },
  };
}
