// The shapes of one indexing run: the options it takes, the events it yields, the stats it ends with, and
// the record its stages (indexer.ts, catalog-plan.ts, parse-stage.ts) hand each other. indexer.ts
// re-exports the public ones; the stages import them from here so no stage imports the indexer.

import type { Encoder } from '../model/encoder.ts';
import type { Store } from '../store/store.ts';
import type { EmbedPump } from './embed-pump.ts';
import type { SkipReason } from './walk-types.ts';

export type IndexPhase = 'scan' | 'catalog' | 'parse' | 'embed';

export interface IndexStats {
  repoId: number;
  root: string;
  status: 'completed' | 'cancelled';
  /** seen: code files walked; other: files in no supported language (counted, not indexed). */
  files: { seen: number; added: number; changed: number; removed: number; touched: number; unchanged: number; other: number };
  parsedFiles: number;
  filesWithSyntaxErrors: number;
  parseFailures: number;
  skipped: Record<string, number>;
  /** Files indexed although the walk would have skipped them: a remembered include pattern matches them. */
  forced: { path: string; reason: string; pattern: string }[];
  /**
   * The include patterns the repository remembers (this run's additions in), those that matched no file, and
   * the files they match but could not force in (binary data, a file too large even for a pattern, …).
   */
  include: { patterns: string[]; unmatched: string[]; refused: { path: string; reason: SkipReason; pattern: string }[] };
  embeddedTexts: number;
  encoder: { id: string; name: string; dim: number };
  timings: Record<IndexPhase, number> & { total: number };
}

export type IndexEvent =
  | { type: 'phase'; phase: IndexPhase }
  | { type: 'progress'; phase: IndexPhase; done: number; total: number; current?: string }
  | { type: 'warning'; path: string; message: string }
  | { type: 'done'; stats: IndexStats };

export interface IndexOptions {
  store: Store;
  root: string;
  encoder: Encoder;
  signal?: AbortSignal;
  /** Parser worker threads (default: one per core). */
  parseThreads?: number;
  /** Parsed files written per transaction (default 32). */
  writeBatch?: number;
  /** Texts sent to the encoder per call. */
  embedBatch?: number;
  maxFileBytes?: number;
  /** Include patterns to add to those the repository remembers (include-rules.ts); `dropInclude` forgets some. */
  include?: readonly string[];
  dropInclude?: readonly string[];
  /** Test hook: called after each file is written (crash-resume tests kill the run from here). */
  onFileWritten?: (relPath: string) => void;
}

/** One run in progress: what it was started with, where it is recorded, and its running tallies. */
export interface IndexRun {
  opts: IndexOptions;
  store: Store;
  /** The checked root (real path) that is walked and recorded. */
  root: string;
  repoId: number;
  encoderId: number;
  /** The index_runs row that records how this run ended. */
  runId: number;
  /** performance.now() when the run started (for timings.total). */
  t0: number;
  stats: IndexStats;
  /** Created when parsing starts; stopped on every way out of the run. */
  pump: EmbedPump | null;
}
