// The parse step of indexing: read and parse the planned files on the parse pool, many requests in
// flight, and write what parsed in small batches (one transaction each), kicking the embed pump after
// each batch so embedding overlaps with parsing. A killed run loses at most the unwritten batch. A batch is
// written in time slices (a few files per transaction, the event loop served between them), so the server stays
// responsive while a large repository is indexed.

import os from 'node:os';
import type { SkipRecord } from '../store/store.ts';
import { readWalked, sha256, type ParseJob } from './catalog-plan.ts';
import type { EmbedPump } from './embed-pump.ts';
import { IndexCancelledError } from './errors.ts';
import type { IndexEvent, IndexRun } from './index-types.ts';
import { ParsePool, type ParseReply } from './parse-pool.ts';

/** Re-indexes and repositories of at most this many changed files parse in the calling thread. */
const IN_THREAD_FILES = 8;

/** One transaction of a batch writes files for at most about this long before the event loop gets a turn. */
const WRITE_SLICE_MS = 20;

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** A file that parsed, waiting for its batch to be written. */
interface ParsedFile {
  job: ParseJob;
  size: number;
  sha: string;
  reply: Extract<ParseReply, { ok: true }>;
}

/** Where each parse lands the moment it completes: parsed files to write, or failures to record as skips. */
interface ParseSink {
  ready: ParsedFile[];
  failed: SkipRecord[];
  run: IndexRun;
}

/** One finished request: its index in the job list and the warnings it raised. */
interface Finished {
  idx: number;
  events: IndexEvent[];
}

/**
 * Parses and writes `jobs`, yielding warnings and per-file progress. Returns the files that could not be
 * read or parsed, as skip records. On cancel it waits for the requests in flight, then throws
 * IndexCancelledError; parsed but unwritten files are dropped and the next run parses them again.
 */
export async function* parseAndWrite(run: IndexRun, pump: EmbedPump, jobs: ParseJob[]): AsyncGenerator<IndexEvent, SkipRecord[]> {
  const failed: SkipRecord[] = [];
  if (!jobs.length) return failed;
  const pool = new ParsePool(poolSize(jobs.length, run.opts.parseThreads));
  try {
    yield* parseAll(run, pump, pool, jobs, failed);
  } finally {
    await pool.close();
  }
  return failed;
}

/**
 * Parser workers for `files` files: none for a handful, else one per core but one (the event loop's: calls and event
 * sockets are answered there while indexing runs), at least one, and no more than files.
 */
function poolSize(files: number, threads: number | undefined): number {
  // No more workers than files: a one-file re-index should not pay for starting idle parsers.
  // A handful of files is parsed in this thread: starting a worker costs more than parsing them.
  return files <= IN_THREAD_FILES && threads === undefined ? 0 : Math.min(threads ?? Math.max(1, os.availableParallelism() - 1), files);
}

async function* parseAll(run: IndexRun, pump: EmbedPump, pool: ParsePool, jobs: ParseJob[], failed: SkipRecord[]): AsyncGenerator<IndexEvent, void> {
  const total = jobs.length;
  let done = 0;
  const writer = new BatchWriter(run, pump);
  const sink: ParseSink = { ready: writer.ready, failed, run };
  // Many requests per worker in flight, so workers keep parsing while the writer commits a batch.
  const window = Math.max(1, pool.size) * 32;
  const inFlight = new Map<number, Promise<Finished>>();
  let next = 0;
  const launch = (idx: number) => {
    inFlight.set(idx, parseOne(idx, jobs[idx]!, pool, sink));
  };
  while (next < total && inFlight.size < window) launch(next++);
  while (inFlight.size) {
    const { idx, events } = await Promise.race(inFlight.values());
    inFlight.delete(idx);
    done++;
    if (writer.due(!inFlight.size && next >= total)) events.push(...(await writer.flush()));
    for (const e of events) yield e;
    yield { type: 'progress', phase: 'parse', done, total, current: jobs[idx]!.file.relPath };
    if (run.opts.signal?.aborted === true) {
      await Promise.allSettled(inFlight.values());
      // Parsed but unwritten files are dropped: the next run parses them again.
      throw new IndexCancelledError();
    }
    if (next < total) launch(next++);
  }
  for (const e of await writer.flush()) yield e;
}

/** Reads `job` (unless the catalog already did) and parses it; the outcome goes to `sink` on completion. */
async function parseOne(idx: number, job: ParseJob, pool: ParsePool, sink: ParseSink): Promise<Finished> {
  const events: IndexEvent[] = [];
  let content = job.content;
  if (!content) {
    const read = await readWalked(job.file);
    if ('warning' in read) {
      events.push(read.warning);
      sink.failed.push(read.skip);
      return { idx, events };
    }
    content = read.content;
  }
  const sha = job.sha ?? sha256(content);
  const reply = await pool.parse(job.file.relPath, job.file.language, content.toString('utf8'));
  if (!reply.ok) {
    sink.run.stats.parseFailures++;
    events.push({ type: 'warning', path: job.file.relPath, message: `parser failed: ${reply.error.split('\n')[0]}` });
    sink.failed.push({ path: job.file.relPath, reason: 'parse_failed', detail: reply.error.split('\n')[0] ?? '', isDir: false });
    return { idx, events };
  }
  sink.ready.push({ job, size: content.length, sha, reply });
  return { idx, events };
}

/**
 * Parsed files waiting to be written. They go to the store in small batches, each written in time-bounded slices
 * of one transaction: per-file commits cost more than the parse on large repositories, one long transaction blocks
 * the event loop, and each slice is still all-or-nothing after a crash.
 */
class BatchWriter {
  readonly ready: ParsedFile[] = [];
  private readonly batch: number;
  private lastFlush = performance.now();

  constructor(
    private readonly run: IndexRun,
    private readonly pump: EmbedPump,
  ) {
    this.batch = Math.max(1, run.opts.writeBatch ?? 32);
  }

  /** A batch is due when it is full, the last one is over 250 ms old, or nothing more is coming (`last`). */
  due(last: boolean): boolean {
    return this.ready.length >= this.batch || performance.now() - this.lastFlush > 250 || last;
  }

  /**
   * Writes every ready file and counts it; returns the syntax-error warnings. Files go in slices of one transaction
   * each (at least one file, then until WRITE_SLICE_MS is spent), with a turn of the event loop between slices, so
   * calls and event sockets are served while a batch of large files is written.
   */
  async flush(): Promise<IndexEvent[]> {
    this.lastFlush = performance.now();
    if (!this.ready.length) return [];
    const batch = this.ready.splice(0);
    const events: IndexEvent[] = [];
    let start = 0;
    while (start < batch.length) {
      const end = this.writeSlice(batch, start);
      for (const r of batch.slice(start, end)) this.count(r, events);
      start = end;
      if (start < batch.length) await nextTurn();
    }
    this.pump.kick();
    return events;
  }

  /** Writes batch[start…] in one transaction until the slice's time is spent; the index after the last written. */
  private writeSlice(batch: ParsedFile[], start: number): number {
    const { store, repoId } = this.run;
    const began = performance.now();
    let end = start;
    store.write(`the index of ${batch.length - start} files`, () => {
      do {
        const r = batch[end++]!;
        store.replaceFile(
          repoId,
          { relPath: r.job.file.relPath, size: r.size, mtimeMs: r.job.file.mtimeMs, sha256: r.sha },
          r.reply.result,
          r.reply.api,
          r.reply.lexical,
        );
      } while (end < batch.length && performance.now() - began < WRITE_SLICE_MS);
    });
    return end;
  }

  private count(r: ParsedFile, events: IndexEvent[]): void {
    const { stats, opts } = this.run;
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
}
