// Indexing one repository into the store: scan → catalog → parse → embed.
//
// The catalog compares (path, size, mtime) first and sha256 only when those moved, so a no-change
// re-index reads no file. Parsed files are written in small batches, one transaction each, and
// embeddings are written per batch, with `embedded_with` marking what is done, so a killed run leaves a
// consistent store and the next run resumes where it stopped. This file runs the phases in order and
// records how the run ended; the catalog's plan is in catalog-plan.ts, parsing and writing in
// parse-stage.ts, embedding in embed-pump.ts.

import type { SkipRecord } from '../store/store.ts';
import { applyCatalog, planCatalog, type CatalogPlan } from './catalog-plan.ts';
import { EmbedPump } from './embed-pump.ts';
import { IndexCancelledError } from './errors.ts';
import type { IndexEvent, IndexOptions, IndexPhase, IndexRun, IndexStats } from './index-types.ts';
import { parseAndWrite } from './parse-stage.ts';
import { checkRepositoryRoot, rememberIncludes, walkCheckedRoot, type SkippedPath, type WalkResult } from './walk.ts';

export { IndexCancelledError };
export type { IndexEvent, IndexOptions, IndexPhase, IndexStats };

/** Indexes (or incrementally refreshes) `root`. Yields progress; the last event is `done`. */
export async function* indexRepository(opts: IndexOptions): AsyncGenerator<IndexEvent, IndexStats> {
  const run = await openRun(opts);
  const { stats } = run;
  let finished = false;
  try {
    const walk = yield* phase(stats, 'scan', () => scan(run));
    const plan = yield* phase(stats, 'catalog', () => catalog(run, walk));
    // Embedding of what is already written overlaps with parsing.
    yield* phase(stats, 'parse', () => parse(run, walk, plan));
    // What the background pass has not embedded yet.
    yield* phase(stats, 'embed', () => embed(run));
    completeRun(run);
    finished = true;
    yield { type: 'done', stats };
    return stats;
  } catch (err) {
    if (!(await recordFailure(run, err))) throw err;
    finished = true;
    yield { type: 'done', stats };
    return stats;
  } finally {
    await run.pump?.stop();
    // The consumer stopped iterating early (break / return): record the run as cancelled.
    if (!finished && stats.status === 'completed') finishQuietly(run, 'cancelled', stats);
  }
}

/** Runs an index to completion, passing events to `onEvent`; returns the final stats. */
export async function runIndex(opts: IndexOptions, onEvent?: (e: IndexEvent) => void): Promise<IndexStats> {
  const it = indexRepository(opts);
  for (;;) {
    const r = await it.next();
    if (r.done) return r.value;
    onEvent?.(r.value);
  }
}

/** Checks the root, registers the repository and encoder, and opens the run's record. */
async function openRun(opts: IndexOptions): Promise<IndexRun> {
  const { store, encoder } = opts;
  const t0 = performance.now();
  const root = await checkRepositoryRoot(opts.root);
  const repo = store.upsertRepository(root);
  // A bad pattern is refused here, before the run is recorded; good ones are remembered for later runs.
  const include = rememberIncludes(store, repo.id, root, opts.include, opts.dropInclude);
  const enc = store.registerEncoder(encoder);
  const runId = store.startRun(repo.id, enc.id);
  const stats: IndexStats = {
    repoId: repo.id,
    root,
    status: 'completed',
    files: { seen: 0, added: 0, changed: 0, removed: 0, touched: 0, unchanged: 0, other: 0 },
    parsedFiles: 0,
    filesWithSyntaxErrors: 0,
    parseFailures: 0,
    skipped: {},
    forced: [],
    include: { patterns: include, unmatched: [], refused: [] },
    embeddedTexts: 0,
    encoder: { id: encoder.id, name: encoder.name, dim: encoder.dim },
    timings: { scan: 0, catalog: 0, parse: 0, embed: 0, total: 0 },
  };
  return { opts, store, root, repoId: repo.id, encoderId: enc.id, runId, t0, stats, pump: null };
}

/** Announces phase `name`, runs its body, and records the body's time (not set when the body throws). */
async function* phase<T>(stats: IndexStats, name: IndexPhase, body: () => AsyncGenerator<IndexEvent, T> | Promise<T>): AsyncGenerator<IndexEvent, T> {
  yield { type: 'phase', phase: name };
  const t = performance.now();
  const out = body();
  const result = out instanceof Promise ? await out : yield* out;
  stats.timings[name] = performance.now() - t;
  return result;
}

async function scan(run: IndexRun): Promise<WalkResult> {
  const { stats } = run;
  // The root was checked and the patterns normalised when the run opened (openRun): not again here.
  const walk = await walkCheckedRoot(run.root, { signal: run.opts.signal, maxFileBytes: run.opts.maxFileBytes, include: stats.include.patterns });
  stats.files.seen = walk.files.length;
  stats.files.other = walk.otherFiles;
  for (const f of walk.files) if (f.forced) stats.forced.push({ path: f.relPath, reason: f.forced.reason, pattern: f.forced.pattern });
  stats.include.unmatched = walk.unmatchedIncludes;
  for (const s of walk.skipped) if (s.includePattern) stats.include.refused.push({ path: s.relPath, reason: s.reason, pattern: s.includePattern });
  return walk;
}

async function* catalog(run: IndexRun, walk: WalkResult): AsyncGenerator<IndexEvent, CatalogPlan> {
  const plan = yield* planCatalog(run.store, run.repoId, walk.files, run.stats.files);
  applyCatalog(run.store, plan, run.stats.files);
  return plan;
}

/** Parses and writes the planned files, then records every skip: the walk's, the unreadable, the unparsable. */
async function* parse(run: IndexRun, walk: WalkResult, plan: CatalogPlan): AsyncGenerator<IndexEvent, void> {
  const { store, opts } = run;
  run.pump = new EmbedPump(store, opts.encoder, run.repoId, run.encoderId, opts.embedBatch ?? 256);
  const failed = yield* parseAndWrite(run, run.pump, plan.parse);
  const skips = [...walk.skipped.map(walkSkip), ...plan.unreadable, ...failed];
  store.replaceSkips(run.repoId, skips);
  for (const s of skips) run.stats.skipped[s.reason] = (run.stats.skipped[s.reason] ?? 0) + 1;
}

function walkSkip(s: SkippedPath): SkipRecord {
  return { path: s.relPath, reason: s.reason, detail: s.detail ?? null, isDir: s.isDir };
}

async function* embed(run: IndexRun): AsyncGenerator<IndexEvent, void> {
  const pump = run.pump!;
  for await (const p of pump.finish(run.opts.signal)) yield { type: 'progress', phase: 'embed', done: p.done, total: p.total };
  run.stats.embeddedTexts = pump.embedded;
}

function completeRun(run: IndexRun): void {
  run.store.markIndexed(run.repoId, run.encoderId);
  run.stats.timings.total = performance.now() - run.t0;
  run.store.finishRun(run.runId, 'completed', run.stats);
}

/** Stops the pump and records the run as cancelled or failed; true when `err` is a cancel (the run then ends normally). */
async function recordFailure(run: IndexRun, err: unknown): Promise<boolean> {
  const { stats } = run;
  await run.pump?.stop();
  if (run.pump) stats.embeddedTexts = run.pump.embedded;
  stats.timings.total = performance.now() - run.t0;
  const isCancel = err instanceof IndexCancelledError || (err as Error)?.name === 'AbortError';
  stats.status = 'cancelled';
  finishQuietly(run, isCancel ? 'cancelled' : 'failed', { ...stats, error: String((err as Error)?.message ?? err) });
  return isCancel;
}

/** Records how the run ended, ignoring a store error: the store itself may be what failed (disk full), and the original error is the one to report. */
function finishQuietly(run: IndexRun, status: 'cancelled' | 'failed', summary: unknown): void {
  try {
    run.store.finishRun(run.runId, status, summary);
  } catch {
    // See above.
  }
}
