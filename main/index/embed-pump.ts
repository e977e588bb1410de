// Embedding what the store holds but the current encoder has not embedded yet. While files are still
// being parsed, the pump embeds full batches in the background (the encoder runs in its own worker
// thread), so parsing and embedding overlap; `finish` then sweeps up everything left. A few batches
// are kept in flight so the encoder never waits for the writer between batches. A batch's vectors are stored in
// small slices (one transaction each) with a turn of the event loop between them, so calls and event sockets are
// answered while a large repository is embedded.

import type { Encoder } from '../model/encoder.ts';
import { ITEM_KINDS, type ItemKind, type PendingText, type Store } from '../store/store.ts';
import { IndexCancelledError } from './errors.ts';

/** Vectors stored per transaction: a slice takes a few milliseconds, a whole batch of 256 can block for a second. */
const STORE_SLICE = 32;

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

interface InFlight {
  kind: ItemKind;
  pending: PendingText[];
  vectors: Promise<Float32Array[]>;
}

export class EmbedPump {
  /** Texts embedded (and stored) so far by this pump. */
  embedded = 0;
  /** Next id to read per kind: batches up to here have been sent to the encoder. */
  private readonly cursor: Record<ItemKind, number> = { unit: 0, chunk: 0, api: 0 };
  private running: Promise<void> | null = null;
  private failure: unknown = null;
  private stopped = false;

  constructor(
    private readonly store: Store,
    private readonly encoder: Encoder,
    private readonly repoId: number,
    private readonly encoderId: number,
    private readonly batch: number,
    private readonly depth = 3,
  ) {}

  /** Starts a background pass over full batches, unless one is running. Never throws; errors surface in finish(). */
  kick(): void {
    if (this.running || this.failure || this.stopped) return;
    this.running = this.run(this.batch)
      .catch((err) => {
        this.failure = err;
      })
      .finally(() => {
        this.running = null;
      });
  }

  /** Reads the next batch of `kind` (at least `min` texts) and sends it to the encoder; null when too few wait. */
  private dispatch(kind: ItemKind, min: number): InFlight | null {
    if (min > 1 && this.store.countPendingAfter(this.repoId, this.encoderId, kind, this.cursor[kind], min) < min) return null;
    const pending = this.store.pendingEmbeddings(this.repoId, this.encoderId, kind, this.batch, this.cursor[kind]);
    if (!pending.length) return null;
    this.cursor[kind] = pending.at(-1)!.id;
    return { kind, pending, vectors: this.encoder.embed(pending.map((p) => p.text)) };
  }

  private async settle(job: InFlight): Promise<void> {
    const vectors = await job.vectors;
    if (vectors.length !== job.pending.length) {
      throw new Error(`encoder ${this.encoder.name} returned ${vectors.length} vectors for ${job.pending.length} texts`);
    }
    const rows = job.pending.map((p, i) => ({ id: p.id, vector: vectors[i]! }));
    for (let start = 0; start < rows.length; start += STORE_SLICE) {
      if (start > 0) await nextTurn();
      this.store.storeEmbeddings(this.repoId, this.encoderId, job.kind, rows.slice(start, start + STORE_SLICE));
    }
    this.embedded += job.pending.length;
  }

  /** Embeds batches of at least `min` texts over every kind, `depth` batches in flight; yields after each is stored. */
  private async *batches(min: number, signal?: AbortSignal): AsyncGenerator<void> {
    const queue: InFlight[] = [];
    try {
      for (const kind of ITEM_KINDS) {
        for (;;) {
          if (this.stopped) return;
          if (signal?.aborted) throw new IndexCancelledError();
          const job = this.dispatch(kind, min);
          if (!job) break;
          queue.push(job);
          if (queue.length >= this.depth) {
            await this.settle(queue.shift()!);
            yield;
          }
        }
      }
      while (queue.length) {
        await this.settle(queue.shift()!);
        yield;
      }
    } finally {
      // On error or stop, let batches already sent finish so no promise is left unobserved.
      await Promise.allSettled(queue.map((j) => j.vectors));
    }
  }

  private async run(min: number): Promise<void> {
    for await (const _ of this.batches(min)) void _;
  }

  /** Waits for the background pass, then embeds everything still pending. Yields (done, total) as batches land. */
  async *finish(signal?: AbortSignal): AsyncGenerator<{ done: number; total: number }> {
    await this.running;
    // eslint-disable-next-line @typescript-eslint/only-throw-error -- what the background pass threw, as it came
    if (this.failure) throw this.failure;
    const start = this.embedded;
    const pending = this.store.countPendingEmbeddings(this.repoId, this.encoderId);
    const total = start + pending;
    if (pending === 0) {
      yield { done: start, total };
      return;
    }
    // A full sweep from the start: ids freed by deletions can be reused below a cursor.
    for (const kind of ITEM_KINDS) this.cursor[kind] = 0;
    // Counted over the whole run (what the background pass embedded during the parse, then the rest), so that the
    // progress ends at the run's `embeddedTexts` (main/model/index-counts.ts: texts embedded in this run).
    for await (const _ of this.batches(1, signal)) yield { done: this.embedded, total };
  }

  /** Stops background work (on cancel or error) and waits for the batches in flight to be written. */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.running;
  }
}
