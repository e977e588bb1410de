// Indexing, one way in for the CLI (`index`, and every command that indexes its tasks' repositories first) and the
// app (repo.index, runs, the demo): one repository indexed or refreshed to completion, each distinct repository of
// a set of tasks once, and the words a progress event is shown with.

import { runIndex } from '../../index/indexer.ts';
import type { IndexEvent, IndexOptions, IndexStats } from '../../index/index-types.ts';
import { runEmbeddedText } from '../../model/index-counts.ts';

/** The store and the encoder an index writes with (the app's workspace and the CLI's engine both have them). */
export type IndexEngine = Pick<IndexOptions, 'store' | 'encoder'>;

/** Indexes (or refreshes) one folder; its stats, completed or stopped (by the signal) with what it finished kept. */
export function indexRepo(
  engine: IndexEngine,
  root: string,
  opts: Omit<IndexOptions, 'store' | 'encoder' | 'root'> = {},
  onEvent?: (e: IndexEvent) => void,
): Promise<IndexStats> {
  return runIndex({ ...opts, store: engine.store, encoder: engine.encoder, root }, onEvent);
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
