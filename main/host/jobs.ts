// Long-running work of the desktop app (indexing, single-task runs, experiments) as jobs: each has a state, a
// progress, an AbortSignal and an error message when it fails. Every state change is pushed as a `job` event
// right away; progress is throttled per job so a fast indexer cannot flood the UI. A job's function stores what
// it computes as it goes (index catalog, per-task results), so cancelling or pausing loses nothing finished.
// A pause or cancel is acknowledged at once: the job's `stopping` is set and its event sent when the request
// arrives, while the job finishes its current step.

import { setMaxListeners } from 'node:events';
import { randomBytes } from 'node:crypto';
import type { EngineEvent, JobInfo, JobKind, JobProgress } from '../../contract/index.ts';
import { OpenCoderError } from '../model/errors.ts';

export interface JobContext {
  signal: AbortSignal;
  /** Reports progress; events are throttled to about ten a second per job (a change of phase is sent at once). */
  progress(p: JobProgress): void;
  /** Records a partial result before the job ends (a run id as soon as the run exists). */
  setResult(r: NonNullable<JobInfo['result']>): void;
}

export type JobFn = (ctx: JobContext) => Promise<JobInfo['result'] | void>;

export interface StartOptions {
  /** Pause (stop after the current batch) is allowed: index jobs. */
  pausable?: boolean;
  /** `resume` runs the function again (it must continue, not restart): index jobs, experiment jobs. */
  resumable?: boolean;
  /**
   * The function, run again on resume, counts only the work left (an index run plans only the files not yet
   * written): the job keeps each phase's total from before and counts what was done then as done, so a paused
   * `parse 1 / 25` resumes as `parse 1 / 25`, not `parse 0 / 24`. For a function whose counts already span its
   * launches (an experiment counts the pairs stored before), leave it off.
   */
  steadyTotals?: boolean;
}

export class JobError extends OpenCoderError {
  constructor(message: string, code: 'not-found' | 'unsupported') {
    super(code, message);
  }
}

interface Entry {
  info: JobInfo;
  fn: JobFn;
  opts: StartOptions;
  controller: AbortController | null;
  /** Why the job was asked to stop: decides the state it ends in. */
  stopAs: 'paused' | 'cancelled' | null;
  running: Promise<void> | null;
  lastEmit: number;
  timer: NodeJS.Timeout | null;
  /** steadyTotals: per phase, the largest total shown by the launches before this one, and by this one. */
  carried: Map<string, number>;
  seen: Map<string, number>;
}

const clone = (info: JobInfo): JobInfo => ({ ...info, progress: info.progress ? { ...info.progress } : null, result: info.result ? { ...info.result } : null });

export class JobManager {
  private readonly jobs = new Map<string, Entry>();
  private seq = 0;
  private closed = false;
  private readonly throttleMs: number;

  constructor(
    private readonly emit: (e: EngineEvent) => void,
    opts: { throttleMs?: number } = {},
  ) {
    this.throttleMs = opts.throttleMs ?? 100;
  }

  start(kind: JobKind, title: string, fn: JobFn, opts: StartOptions = {}): JobInfo {
    if (this.closed) throw new Error(`cannot start "${title}": the engine is shutting down`);
    const id = `${kind}-${++this.seq}-${randomBytes(3).toString('hex')}`;
    const entry: Entry = {
      info: {
        id,
        kind,
        state: 'running',
        title,
        startedAt: new Date().toISOString(),
        finishedAt: null,
        progress: null,
        error: null,
        result: null,
        stopping: null,
      },
      fn,
      opts,
      controller: null,
      stopAs: null,
      running: null,
      lastEmit: 0,
      timer: null,
      carried: new Map(),
      seen: new Map(),
    };
    this.jobs.set(id, entry);
    this.launch(entry);
    return clone(entry.info);
  }

  get(id: string): JobInfo | undefined {
    const e = this.jobs.get(id);
    return e ? clone(e.info) : undefined;
  }

  /** Newest first. */
  list(): JobInfo[] {
    return [...this.jobs.values()].map((e) => clone(e.info)).reverse();
  }

  cancel(id: string): JobInfo {
    const e = this.entry(id);
    if (e.info.state === 'running') {
      this.askToStop(e, 'cancelled');
    } else if (e.info.state === 'paused') {
      e.info.state = 'cancelled';
      this.changed(e);
    }
    return clone(e.info);
  }

  pause(id: string): JobInfo {
    const e = this.entry(id);
    if (!e.opts.pausable)
      throw new JobError(`job ${id} (${e.info.kind}: ${e.info.title}) cannot be paused; only index jobs pause (cancel it instead)`, 'unsupported');
    if (e.info.state === 'running' && e.stopAs !== 'cancelled') this.askToStop(e, 'paused');
    return clone(e.info);
  }

  resume(id: string): JobInfo {
    const e = this.entry(id);
    if (e.info.state === 'running') return clone(e.info);
    if (this.closed) throw new Error(`cannot resume job ${id}: the engine is shutting down`);
    if (!e.opts.resumable) throw new JobError(`job ${id} (${e.info.kind}: ${e.info.title}) cannot be resumed`, 'unsupported');
    if (e.info.state === 'done') throw new JobError(`job ${id} (${e.info.title}) is done; there is nothing to resume`, 'unsupported');
    e.info.state = 'running';
    e.info.error = null;
    e.info.finishedAt = null;
    this.launch(e);
    return clone(e.info);
  }

  /** Settles when the job is no longer running (whatever state it ends in). */
  async wait(id: string): Promise<JobInfo> {
    const e = this.entry(id);
    while (e.running) await e.running;
    return clone(e.info);
  }

  /** Cancels every running job and waits (up to `timeoutMs`) for them to stop. */
  async close(timeoutMs = 30_000): Promise<void> {
    this.closed = true;
    const running = [...this.jobs.values()].filter((e) => e.running !== null);
    for (const e of running) {
      e.stopAs = 'cancelled';
      e.controller?.abort();
    }
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.all(running.map((e) => e.running!)),
      new Promise((r) => {
        timer = setTimeout(r, timeoutMs);
      }),
    ]);
    clearTimeout(timer);
    for (const e of this.jobs.values()) if (e.timer) clearTimeout(e.timer);
  }

  /** Aborts a running job and tells every client at once that it is stopping (its final state comes when it stops). */
  private askToStop(e: Entry, as: 'paused' | 'cancelled'): void {
    if (e.stopAs === as) return;
    e.stopAs = as;
    e.info.stopping = as;
    e.controller?.abort();
    this.changed(e);
  }

  private entry(id: string): Entry {
    const e = this.jobs.get(id);
    if (!e) throw new JobError(`no job ${id}${this.jobs.size ? ` (jobs: ${[...this.jobs.keys()].slice(-5).join(', ')})` : ' (no jobs yet)'}`, 'not-found');
    return e;
  }

  private launch(e: Entry): void {
    const controller = new AbortController();
    // One run's signal is awaited by every reference check and candidate in flight at once (a manifest's worth):
    // many listeners is expected, not a leak, so Node's warning at 10 would only alarm.
    setMaxListeners(0, controller.signal);
    e.controller = controller;
    e.stopAs = null;
    e.info.stopping = null;
    for (const [phase, total] of e.seen) e.carried.set(phase, Math.max(total, e.carried.get(phase) ?? 0));
    e.seen.clear();
    const ctx: JobContext = {
      signal: controller.signal,
      progress: (p) => {
        if (e.controller !== controller || e.info.state !== 'running') return;
        const newPhase = e.info.progress?.phase !== p.phase;
        e.info.progress = e.opts.steadyTotals ? steady(e, p) : { ...p };
        // A new phase is news (few per job): sent at once; counts within a phase are throttled.
        if (newPhase) this.changed(e);
        else this.progressed(e);
      },
      setResult: (r) => {
        e.info.result = { ...(e.info.result ?? {}), ...r };
      },
    };
    this.changed(e);
    const run = (async () => {
      try {
        const result = await e.fn(ctx);
        if (result) e.info.result = { ...(e.info.result ?? {}), ...result };
        e.info.state = e.stopAs ?? (controller.signal.aborted ? 'cancelled' : 'done');
      } catch (err) {
        if (e.stopAs) e.info.state = e.stopAs;
        else {
          e.info.state = 'failed';
          e.info.error = messageOf(err);
        }
      }
      e.info.finishedAt = new Date().toISOString();
      e.info.stopping = null;
      e.controller = null;
      e.running = null;
      this.changed(e);
    })();
    e.running = run;
  }

  private progressed(e: Entry): void {
    if (e.timer) return; // the pending send will carry the latest progress
    const wait = e.lastEmit + this.throttleMs - Date.now();
    if (wait <= 0) {
      this.send(e);
      return;
    }
    e.timer = setTimeout(() => {
      e.timer = null;
      this.send(e);
    }, wait);
    e.timer.unref?.();
  }

  /** A state change: sent at once, superseding any progress event waiting in the throttle. */
  private changed(e: Entry): void {
    if (e.timer) {
      clearTimeout(e.timer);
      e.timer = null;
    }
    this.send(e);
  }

  private send(e: Entry): void {
    e.lastEmit = Date.now();
    this.emit({ type: 'job', job: clone(e.info) });
  }
}

/**
 * A launch's progress with the phase's total kept from the launches before: what this launch has left to do is
 * what is left of that total (the rest was done before), so the total does not shrink and the count goes on.
 */
function steady(e: Entry, p: JobProgress): JobProgress {
  const before = e.carried.get(p.phase);
  let out: JobProgress = { ...p };
  if (before !== undefined && p.total > 0) {
    const total = Math.max(before, p.total);
    out = { ...p, total, done: total - Math.max(0, p.total - p.done) };
  }
  if (out.total > 0) e.seen.set(p.phase, Math.max(out.total, e.seen.get(p.phase) ?? 0));
  return out;
}

export function messageOf(err: unknown): string {
  if (err instanceof Error) return err.message || err.name;
  return String(err);
}
