// A small pool of parse workers. Requests go to the least busy worker; a worker that dies is replaced
// and its in-flight requests fail with a clear error (the indexer records them and goes on). A pool of
// size 0 parses in the calling thread: starting a worker costs more than parsing a few small files.

import os from 'node:os';
import type { Worker } from 'node:worker_threads';
import { siblingModule, startWorker } from '../util/worker.ts';
import { handleParse } from './parse-job.ts';
import type { ApiEntry, Language, ParseResult } from '../model/code.ts';
import type { LexicalTexts } from '../store/lexical.ts';

export interface ParseRequest {
  id: number;
  relPath: string;
  language: Language;
  source: string;
  /** Also prepare the FTS texts (the indexer does; the parse-only benchmark baseline does not). */
  lexical: boolean;
}

export type ParseReply =
  { id: number; ok: true; result: ParseResult; api: ApiEntry[]; lexical: LexicalTexts | undefined } | { id: number; ok: false; error: string };

interface Slot {
  worker: Worker;
  inFlight: Map<number, { resolve: (r: ParseReply) => void; relPath: string }>;
}

export class ParsePool {
  private readonly slots: Slot[] = [];
  private nextId = 1;
  private closed = false;

  constructor(readonly size: number = Math.max(1, os.availableParallelism())) {
    for (let i = 0; i < size; i++) this.slots.push(this.spawn());
  }

  private spawn(): Slot {
    const slot: Slot = { worker: startWorker(siblingModule(import.meta.url, 'parse-worker')), inFlight: new Map() };
    slot.worker.on('message', (reply: ParseReply) => {
      const waiter = slot.inFlight.get(reply.id);
      if (!waiter) return;
      slot.inFlight.delete(reply.id);
      waiter.resolve(reply);
    });
    const fail = (why: string) => {
      for (const [id, w] of slot.inFlight) w.resolve({ id, ok: false, error: `parser worker stopped while parsing ${w.relPath}: ${why}` });
      slot.inFlight.clear();
      const i = this.slots.indexOf(slot);
      if (i >= 0 && !this.closed) this.slots[i] = this.spawn();
    };
    slot.worker.on('error', (err) => fail(err.message));
    slot.worker.on('exit', (code) => {
      if (!this.closed) fail(`exit code ${code}`);
    });
    return slot;
  }

  /** Number of requests currently queued or running. */
  get pending(): number {
    return this.slots.reduce((n, s) => n + s.inFlight.size, 0);
  }

  parse(relPath: string, language: Language, source: string, opts: { lexical?: boolean } = {}): Promise<ParseReply> {
    if (this.closed) return Promise.reject(new Error('parse pool is closed'));
    if (!this.slots.length) return handleParse({ id: this.nextId++, relPath, language, source, lexical: opts.lexical ?? true });
    const slot = this.slots.reduce((a, b) => (b.inFlight.size < a.inFlight.size ? b : a));
    const id = this.nextId++;
    return new Promise((resolve) => {
      slot.inFlight.set(id, { resolve, relPath });
      slot.worker.postMessage({ id, relPath, language, source, lexical: opts.lexical ?? true } satisfies ParseRequest);
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(this.slots.map((s) => s.worker.terminate()));
  }
}
