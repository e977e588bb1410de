// The one definition of each index count, shared by the CLI (index progress and summary, status) and the UI
// (the index job and the repository card), so that the same number means the same thing everywhere:
//   - a *text* is what the encoder embeds: a function or method unit, a context chunk, or an API entry (modules
//     and classes are reached through chunks and API entries, so their bodies are not embedded again);
//   - *this run* counts the texts one index run embedded (new or changed since the last run), out of those it had
//     to embed; *the repository* counts every text the index holds, and how many of them are embedded;
//   - *code files* are the files in a supported language that were indexed; *other files* were walked but are in
//     no supported language; *skipped* files were left out for a reason (generated, too large, …).

import { int, plural } from './format.ts';

/** The unit kinds whose bodies are embedded (the store embeds exactly these: store.ts EMBED_FILTER_SQL). */
export const EMBEDDED_UNIT_KINDS: readonly string[] = ['function', 'method'];

/** What a text is, for a hint beside the counts. */
export const TEXT_MEANING = 'a text is a function or method unit, a context chunk or an API entry';

/** A repository's counts as the store holds them. */
export interface RepositoryCounts {
  /** Code files indexed (fully or partially). */
  files: number;
  /** Files the last index run walked that are in no supported language; null when no run recorded it. */
  otherFiles: number | null;
  skipped: Record<string, number>;
  units: Record<string, number>;
  chunks: number;
  apiEntries: number;
  /** Texts embedded with the repository's encoder. */
  embedded: number;
}

const sum = (rec: Record<string, number>): number => Object.values(rec).reduce((a, b) => a + b, 0);

/** Every unit, of every kind. */
export function unitCount(units: Record<string, number>): number {
  return sum(units);
}

/** The texts the repository has to embed: function and method units, context chunks, API entries. */
export function embeddableTexts(c: Pick<RepositoryCounts, 'units' | 'chunks' | 'apiEntries'>): number {
  return EMBEDDED_UNIT_KINDS.reduce((n, k) => n + (c.units[k] ?? 0), 0) + c.chunks + c.apiEntries;
}

/** The repository's embeddings: `1,858 of 1,858 texts embedded`. */
export function repositoryEmbeddedText(c: Pick<RepositoryCounts, 'units' | 'chunks' | 'apiEntries' | 'embedded'>): string {
  return `${int(c.embedded)} of ${plural(embeddableTexts(c), 'text')} embedded`;
}

/** One index run's embedding progress: `322 of 322 texts embedded in this run (new or changed)`. */
export function runEmbeddedText(done: number, total: number): string {
  return `${int(done)} of ${plural(total, 'text')} embedded in this run (new or changed)`;
}

/** Other files: `1 other file (no supported language)`. */
export function otherFilesText(n: number): string {
  return `${plural(n, 'other file')} (no supported language)`;
}

/** The repository's files: `28 code files indexed · 1 other file (no supported language) · 3 skipped`. */
export function repositoryFilesText(c: Pick<RepositoryCounts, 'files' | 'otherFiles' | 'skipped'>): string {
  const skipped = sum(c.skipped);
  return [
    `${plural(c.files, 'code file')} indexed`,
    ...(c.otherFiles === null ? [] : [otherFilesText(c.otherFiles)]),
    skipped ? `${int(skipped)} skipped` : 'nothing skipped',
  ].join(' · ');
}

/** A repository's stats as the store gives them (store.ts RepositoryStats extends it). */
export interface StoredIndexStats {
  files: { indexed: number; partial: number };
  skipped: Record<string, number>;
  units: Record<string, number>;
  chunks: number;
  apiEntries: number;
  embedded: Record<string, number>;
}

/** The other files an index run's stored stats counted (IndexStats.files.other), or null when it recorded none. */
export function otherFilesOfRun(runStats: unknown): number | null {
  const other = (runStats as { files?: { other?: unknown } } | null | undefined)?.files?.other;
  return typeof other === 'number' ? other : null;
}

/** The store's stats (and the last run's other files) in the one shape the count texts read. */
export function repositoryCounts(s: StoredIndexStats, otherFiles: number | null): RepositoryCounts {
  return {
    files: s.files.indexed + s.files.partial,
    otherFiles,
    skipped: s.skipped,
    units: s.units,
    chunks: s.chunks,
    apiEntries: s.apiEntries,
    embedded: sum(s.embedded),
  };
}
