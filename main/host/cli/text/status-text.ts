// How `status` reads in a terminal: the database and each repository's index state. The status command loads
// only the store, so this file imports no indexer code, only counts and their words.

import { counts } from '../../../model/format.ts';
import { otherFilesOfRun, repositoryCounts, repositoryEmbeddedText, repositoryFilesText, TEXT_MEANING } from '../../../model/index-counts.ts';
import { skipCountsText } from '../../../model/skip-reasons.ts';
import type { Store } from '../../../store/store.ts';

/** A repository as `status` lists it: the store's row, its index counts, its last run and its include patterns. */
export interface RepositoryState {
  name: string;
  root: string;
  last_indexed_at: string | null;
  stats: ReturnType<Store['stats']>;
  lastRun: ReturnType<Store['lastRun']> | null;
  include: string[];
}

/** The database and, per repository, its index state. */
export function statusLines(dbPath: string, missing: boolean, repos: RepositoryState[]): string[] {
  const text = [`Database: ${dbPath}${missing ? ' (not created yet)' : ''}`];
  if (!repos.length) text.push('No repositories indexed yet. Run: opencoder index <folder>');
  for (const r of repos) {
    const s = r.stats;
    text.push(
      '',
      `${r.name}  (${r.root})`,
      `  last indexed: ${r.last_indexed_at ?? 'never completed'}; last run: ${r.lastRun?.status ?? 'none'}${r.lastRun?.status === 'interrupted' ? ' (its process is gone; indexing again resumes it)' : ''}`,
      `  files: ${s.files.indexed + s.files.partial} indexed (${s.files.partial} partial); skipped: ${skipCountsText(s.skipped)}`,
      `  units: ${counts(s.units)}; chunks ${s.chunks}; API entries ${s.apiEntries}`,
      `  encoder: ${s.encoder ? `${s.encoder.name} (${s.encoder.dim}-d)` : 'none yet'}; embedded: unit ${s.embedded.unit}, chunk ${s.embedded.chunk}, api ${s.embedded.api}`,
      `  ${repositoryFilesText(repositoryCounts(s, otherFilesOfRun(r.lastRun?.stats)))}; ${repositoryEmbeddedText(repositoryCounts(s, null))} (${TEXT_MEANING})`,
    );
    if (r.include.length > 0) text.push(`  include patterns (files forced in): ${r.include.join(', ')}`);
  }
  return text;
}
