// Indexing, one way in for the CLI (`index`, and every command that indexes its tasks' repositories first) and the
// app (repo.index, runs, the demo): one repository indexed or refreshed to completion, each distinct repository of
// a set of tasks once, and the words a progress event is shown with.

import fs from 'node:fs';
import { runIndex } from '../../index/indexer.ts';
import { packVersion, refreshVectorPacks } from '../../retrieve/vector-index.ts';
import { warmTestItems } from '../../retrieve/index-lookups.ts';
import type { IndexEvent, IndexOptions, IndexStats } from '../../index/index-types.ts';
import { runEmbeddedText } from '../../model/index-counts.ts';

/** The store and the encoder an index writes with (the app's workspace and the CLI's engine both have them). */
export type IndexEngine = Pick<IndexOptions, 'store' | 'encoder'>;

/**
 * Indexes (or refreshes) one folder; its stats, completed or stopped (by the signal) with what it finished kept. A
 * completed run leaves the repository's vector packs and test-file items current, so that the next process's first
 * retrieval does not read every vector row by row nor scan the repository's files.
 */
export async function indexRepo(
  engine: IndexEngine,
  root: string,
  opts: Omit<IndexOptions, 'store' | 'encoder' | 'root'> = {},
  onEvent?: (e: IndexEvent) => void,
): Promise<IndexStats> {
  const { store, encoder } = engine;
  const real = realFolder(root);
  const known = real ? store.getRepository(real) : undefined;
  const before = known ? packVersion(store, known.id) : null;
  const stats = await runIndex({ ...opts, store, encoder, root }, onEvent);
  if (stats.status === 'completed') {
    const f = stats.files;
    const touched = f.added + f.changed + f.removed;
    const unchanged = touched === 0 && stats.embeddedTexts === 0;
    // Packs are remade here after a first or a large index run. After a small change (a file edited) remaking them
    // would cost more than the run itself (~3.7 s at 120k units against well under a second): the next process's
    // first retrieval remakes them instead, once.
    const remake = before === null || touched >= 0.1 * Math.max(1, f.seen);
    refreshVectorPacks(store, stats.repoId, store.registerEncoder(encoder).id, encoder.dim, unchanged ? before : null, remake);
    if (unchanged || remake) warmTestItems(store, stats.repoId);
  }
  return stats;
}

/** The folder as the index names it (its real path), or null when it cannot be resolved (runIndex then says why). */
function realFolder(root: string): string | null {
  try {
    return fs.realpathSync(root);
  } catch {
    return null;
  }
}

/** The repository id of a completed index run, or a throw naming the folder of one that stopped first. */
export function completedRepoId(stats: IndexStats): number {
  if (stats.status !== 'completed') throw new Error(`indexing ${stats.root} was stopped before it completed (${stats.status}); what was indexed is kept`);
  return stats.repoId;
}

/** Indexes (or refreshes) each distinct folder once, in order; the repository ids by folder. */
export async function ensureIndexed(roots: Iterable<string>, indexOne: (root: string) => Promise<number>): Promise<Map<string, number>> {
  const ids = new Map<string, number>();
  for (const root of new Set(roots)) ids.set(root, await indexOne(root));
  return ids;
}

/** What a progress event adds to its counts: the texts embedded so far, or the file at hand. */
export function indexProgressText(e: Extract<IndexEvent, { type: 'progress' }>): string | undefined {
  return e.phase === 'embed' ? runEmbeddedText(e.done, e.total) : e.current || undefined;
}
