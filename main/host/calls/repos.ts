// Calls over the indexed repositories: repo.pick (the native folder picker, which also allows the folder),
// repo.allow (allow and remember a folder outside the allowed roots), repo.list, repo.index (an index job),
// repo.skipped (the files the index left out, and why), and repo.mine / repo.mined (find tasks in a repository as a
// job, and read the mined set back: mining.ts).

import path from 'node:path';
import type { RepoSummary } from '../../../contract/index.ts';
import { checkRepositoryRoot } from '../../index/walk.ts';
import { testFilesOf } from '../../index/test-files.ts';
import { filePaths, testShapedUnits } from '../../store/code-queries.ts';
import { otherFilesOfRun } from '../../model/index-counts.ts';
import { fail, type Workspace } from '../workspace.ts';
import type { CallTable } from './index.ts';
import { startIndexJob } from './indexing.ts';
import { miningCalls } from './mining.ts';

function summaries(ws: Workspace): RepoSummary[] {
  return ws.store.listRepositories().map((r) => {
    const s = ws.store.stats(r.id);
    return {
      id: r.id,
      root: r.root,
      name: r.name,
      lastIndexedAt: r.last_indexed_at,
      files: s.files.indexed + s.files.partial,
      otherFiles: otherFilesOfRun(ws.store.lastRun(r.id)?.stats),
      units: s.units,
      chunks: s.chunks,
      apiEntries: s.apiEntries,
      embedded: s.embedded.unit + s.embedded.chunk + s.embedded.api,
      encoder: s.encoder?.name ?? null,
      skipped: s.skipped,
      testFiles: testFileCounts(ws, r.id),
    };
  });
}

/** The repository's test files by reason: what retrieval leaves out of every source. */
function testFileCounts(ws: Workspace, repoId: number): Record<string, number> {
  const out: Record<string, number> = {};
  for (const reason of testFilesOf(filePaths(ws.store, repoId), testShapedUnits(ws.store, repoId)).values()) out[reason] = (out[reason] ?? 0) + 1;
  return out;
}

export function repoCalls(ws: Workspace): CallTable<'repo.pick' | 'repo.list' | 'repo.allow' | 'repo.index' | 'repo.skipped' | 'repo.mine' | 'repo.mined'> {
  const mining = miningCalls(ws);
  return {
    'repo.pick': async () => {
      if (!ws.pickFolder)
        return { path: null, reason: 'Browser mode has no native folder picker: type or paste the folder path (it must lie inside the allowed folders).' };
      const picked = await ws.pickFolder();
      if (!picked) return { path: null, reason: 'No folder was chosen.' };
      // The folder the user chose in the native dialog is allowed, and remembered, like "Allow this folder".
      return { path: ws.allowFolder('path', picked) };
    },
    'repo.list': () => summaries(ws),
    'repo.allow': ({ folder }) => {
      const allowed = ws.allowFolder('folder', path.resolve(folder));
      ws.emit({ type: 'notice', level: 'info', message: `OpenCoder may now open ${allowed} (remembered in ${ws.allowedFoldersFile}).` });
      return { folder: allowed, allowedRoots: [...ws.allowedRoots], rememberedIn: ws.allowedFoldersFile };
    },
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
    'repo.mine': (input) => mining.mine(input),
    'repo.mined': (input) => mining.mined(input),
  };
}
