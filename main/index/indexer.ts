// Indexing one repository into the store: scan → catalog → parse → embed.
//
// The catalog compares (path, size, mtime) first and sha256 only when those moved, so a no-change
// re-index reads no file. Each parsed file is written in its own transaction and embeddings are
// written per batch, with `embedded_with` marking what is done, so a killed run leaves a
// consistent store and the next run resumes where it stopped.

import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import type { Encoder } from '../model/encoder.ts';
import type { Store } from '../store/store.ts';
import { EmbedPump } from './embed-pump.ts';
import { IndexCancelledError } from './errors.ts';
import { ParsePool, type ParseReply } from './parse-pool.ts';

export { IndexCancelledError };
import { checkRepositoryRoot, walkRepository, type WalkedFile } from './walk.ts';

export type IndexPhase = 'scan' | 'catalog' | 'parse' | 'embed';

/** Re-indexes and repositories of at most this many changed files parse in the calling thread. */
const IN_THREAD_FILES = 8;

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
  /** Test hook: called after each file is written (crash-resume tests kill the run from here). */
  onFileWritten?: (relPath: string) => void;
}

function sha256(buf: Buffer): string {
  return createHash('sha256').update(buf).digest('hex');
}

/** Indexes (or incrementally refreshes) `root`. Yields progress; the last event is `done`. */
export async function* indexRepository(opts: IndexOptions): AsyncGenerator<IndexEvent, IndexStats> {
  const { store, encoder, signal } = opts;
  const t0 = performance.now();
  const timings = { scan: 0, catalog: 0, parse: 0, embed: 0, total: 0 };
  const root = await checkRepositoryRoot(opts.root);
  const repo = store.upsertRepository(root);
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
    embeddedTexts: 0,
    encoder: { id: encoder.id, name: encoder.name, dim: encoder.dim },
    timings,
  };
  const cancelled = () => signal?.aborted === true;
  let finished = false;
  let pump: EmbedPump | null = null;
  try {
    // ── scan
    yield { type: 'phase', phase: 'scan' };
    let t = performance.now();
    const walk = await walkRepository(root, { signal, maxFileBytes: opts.maxFileBytes });
    const parseFailures: { path: string; reason: string; detail: string; isDir: boolean }[] = [];
    timings.scan = performance.now() - t;
    stats.files.seen = walk.files.length;
    stats.files.other = walk.otherFiles;

    // ── catalog
    yield { type: 'phase', phase: 'catalog' };
    t = performance.now();
    const known = store.catalog(repo.id);
    const toParse: { file: WalkedFile; content?: Buffer; sha?: string; isNew: boolean }[] = [];
    const touched: { id: number; size: number; mtimeMs: number }[] = [];
    const seen = new Set<string>();
    for (const f of walk.files) {
      seen.add(f.relPath);
      const prev = known.get(f.relPath);
      if (!prev) {
        toParse.push({ file: f, isNew: true });
        continue;
      }
      if (prev.size === f.size && prev.mtime_ms === f.mtimeMs) {
        stats.files.unchanged++;
        continue;
      }
      let content: Buffer;
      try {
        content = await fs.readFile(f.absPath);
      } catch (err) {
        yield { type: 'warning', path: f.relPath, message: `could not read: ${(err as Error).message}` };
        parseFailures.push({ path: f.relPath, reason: 'unreadable', detail: (err as Error).message, isDir: false });
        continue;
      }
      const sha = sha256(content);
      if (sha === prev.sha256) {
        touched.push({ id: prev.id, size: f.size, mtimeMs: f.mtimeMs });
      } else {
        toParse.push({ file: f, content, sha, isNew: false });
      }
    }
    store.touchFiles(touched);
    stats.files.touched = touched.length;
    const removed = [...known.values()].filter((k) => !seen.has(k.path)).map((k) => k.id);
    store.removeFiles(removed);
    stats.files.removed = removed.length;
    timings.catalog = performance.now() - t;

    // ── parse (embedding of what is already written overlaps with it)
    yield { type: 'phase', phase: 'parse' };
    t = performance.now();
    pump = new EmbedPump(store, encoder, repo.id, enc.id, opts.embedBatch ?? 256);
    if (toParse.length) {
      // No more workers than files: a one-file re-index should not pay for starting idle parsers.
      // A handful of files is parsed in this thread: starting a worker costs more than parsing them.
      const pool = new ParsePool(toParse.length <= IN_THREAD_FILES && opts.parseThreads === undefined ? 0 : Math.min(opts.parseThreads ?? os.availableParallelism(), toParse.length));
      try {
        const total = toParse.length;
        let done = 0;
        // Parsed files are written in small batches (one transaction each): per-file commits cost more
        // than the parse on large repositories, and a batch is still all-or-nothing after a crash.
        const writeBatch = Math.max(1, opts.writeBatch ?? 32);
        const ready: { job: (typeof toParse)[number]; size: number; sha: string; reply: Extract<ParseReply, { ok: true }> }[] = [];
        let lastFlush = performance.now();
        const flush = (): IndexEvent[] => {
          lastFlush = performance.now();
          if (!ready.length) return [];
          const batch = ready.splice(0);
          store.write(`the index of ${batch.length} files`, () => {
            for (const r of batch) {
              store.replaceFile(repo.id, { relPath: r.job.file.relPath, size: r.size, mtimeMs: r.job.file.mtimeMs, sha256: r.sha }, r.reply.result, r.reply.api, r.reply.lexical);
            }
          });
          const events: IndexEvent[] = [];
          for (const r of batch) {
            stats.parsedFiles++;
            if (r.job.isNew) stats.files.added++;
            else stats.files.changed++;
            if (r.reply.result.errors.length) {
              stats.filesWithSyntaxErrors++;
              const e = r.reply.result.errors[0]!;
              events.push({ type: 'warning', path: r.job.file.relPath, message: `syntax error at line ${e.line}: ${e.message}; indexed what parsed` });
            }
            opts.onFileWritten?.(r.job.file.relPath);
          }
          pump!.kick();
          return events;
        };
        // Many requests per worker in flight, so workers keep parsing while the writer commits a batch.
        const window = Math.max(1, pool.size) * 32;
        const inFlight = new Map<number, Promise<{ idx: number; events: IndexEvent[] }>>();
        let next = 0;
        const launch = (idx: number) => {
          const job = toParse[idx]!;
          const p = (async () => {
            const events: IndexEvent[] = [];
            let content = job.content;
            if (!content) {
              try {
                content = await fs.readFile(job.file.absPath);
              } catch (err) {
                events.push({ type: 'warning', path: job.file.relPath, message: `could not read: ${(err as Error).message}` });
                parseFailures.push({ path: job.file.relPath, reason: 'unreadable', detail: (err as Error).message, isDir: false });
                return { idx, events };
              }
            }
            const sha = job.sha ?? sha256(content);
            const reply = await pool.parse(job.file.relPath, job.file.language, content.toString('utf8'));
            if (!reply.ok) {
              stats.parseFailures++;
              events.push({ type: 'warning', path: job.file.relPath, message: `parser failed: ${reply.error.split('\n')[0]}` });
              parseFailures.push({ path: job.file.relPath, reason: 'parse_failed', detail: reply.error.split('\n')[0] ?? '', isDir: false });
              return { idx, events };
            }
            ready.push({ job, size: content.length, sha, reply });
            return { idx, events };
          })();
          inFlight.set(idx, p);
        };
        while (next < total && inFlight.size < window) launch(next++);
        while (inFlight.size) {
          const { idx, events } = await Promise.race(inFlight.values());
          inFlight.delete(idx);
          done++;
          if (ready.length >= writeBatch || performance.now() - lastFlush > 250 || (!inFlight.size && next >= total)) events.push(...flush());
          for (const e of events) yield e;
          yield { type: 'progress', phase: 'parse', done, total, current: toParse[idx]!.file.relPath };
          if (cancelled()) {
            await Promise.allSettled(inFlight.values());
            // Parsed but unwritten files are dropped: the next run parses them again.
            throw new IndexCancelledError();
          }
          if (next < total) launch(next++);
        }
        for (const e of flush()) yield e;
      } finally {
        await pool.close();
      }
    }
    const skips = [
      ...walk.skipped.map((s) => ({ path: s.relPath, reason: s.reason, detail: s.detail ?? null, isDir: s.isDir })),
      ...parseFailures,
    ];
    store.replaceSkips(repo.id, skips);
    for (const s of skips) stats.skipped[s.reason] = (stats.skipped[s.reason] ?? 0) + 1;
    timings.parse = performance.now() - t;

    // ── embed: what the background pass has not done yet
    yield { type: 'phase', phase: 'embed' };
    t = performance.now();
    for await (const p of pump.finish(signal)) yield { type: 'progress', phase: 'embed', done: p.done, total: p.total };
    stats.embeddedTexts = pump.embedded;
    timings.embed = performance.now() - t;
    store.markIndexed(repo.id, enc.id);
    timings.total = performance.now() - t0;
    store.finishRun(runId, 'completed', stats);
    finished = true;
    yield { type: 'done', stats };
    return stats;
  } catch (err) {
    await pump?.stop();
    if (pump) stats.embeddedTexts = pump.embedded;
    timings.total = performance.now() - t0;
    const isCancel = err instanceof IndexCancelledError || (err as Error)?.name === 'AbortError';
    stats.status = 'cancelled';
    try {
      store.finishRun(runId, isCancel ? 'cancelled' : 'failed', { ...stats, error: String((err as Error)?.message ?? err) });
    } catch {
      // The store itself may be what failed (disk full); the original error is the one to report.
    }
    if (isCancel) {
      finished = true;
      yield { type: 'done', stats };
      return stats;
    }
    throw err;
  } finally {
    await pump?.stop();
    if (!finished && stats.status === 'completed') {
      // The consumer stopped iterating early (break / return): record the run as cancelled.
      try {
        store.finishRun(runId, 'cancelled', stats);
      } catch {
        /* see above */
      }
    }
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
