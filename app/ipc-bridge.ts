// The main process's side of the engine connection: each call gets a request id, waits (queued while the engine
// process starts or restarts) and is answered by the result with the same id, by its timeout, or — when the
// engine process dies — by a clear `engine` error instead of hanging forever. Never rejects: every outcome is
// the contract's `{ ok, value | error }` envelope, which ipcMain.handle returns to the preload as is.
//
// No electron import: the port is anything with postMessage, so tests drive it with plain objects.

import type { EngineEvent } from '../contract/index.ts';
import { engineError, isEngineToMain, messageOf, type CallResult, type MainToEngine } from './engine-protocol.ts';

export interface PortLike {
  postMessage(message: MainToEngine): void;
}

export interface Timers {
  set(fn: () => void, ms: number): unknown;
  clear(handle: unknown): void;
}

export const realTimers: Timers = {
  set: (fn, ms) => {
    const t = setTimeout(fn, ms);
    t.unref?.();
    return t;
  },
  clear: (h) => clearTimeout(h as ReturnType<typeof setTimeout>),
};

/** Most calls answer in milliseconds (long work runs as jobs); reports of big runs may take a while. */
export const DEFAULT_CALL_TIMEOUT_MS = 5 * 60_000;

/** 0 = no timeout: `repo.pick` waits for the user in the native dialog. */
export function defaultCallTimeout(name: string): number {
  return name === 'repo.pick' ? 0 : DEFAULT_CALL_TIMEOUT_MS;
}

export interface BridgeOptions {
  onEvent(e: EngineEvent): void;
  /** The engine asks for the native folder picker (its `pickFolder` option). */
  onPickFolder(): Promise<string | null>;
  timeoutMs?: (name: string) => number;
  timers?: Timers;
}

interface Pending {
  id: number;
  name: string;
  input: unknown;
  sent: boolean;
  timer: unknown;
  resolve(r: CallResult): void;
}

export type BridgeState = 'starting' | 'ready' | 'stopped';

export class EngineBridge {
  private port: PortLike | null = null;
  private _state: BridgeState = 'starting';
  private stoppedReason = '';
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private readonly timers: Timers;
  private readonly timeoutOf: (name: string) => number;

  constructor(private readonly opts: BridgeOptions) {
    this.timers = opts.timers ?? realTimers;
    this.timeoutOf = opts.timeoutMs ?? defaultCallTimeout;
  }

  get state(): BridgeState {
    return this._state;
  }

  /** Calls waiting for an answer (sent, or queued until the engine is ready). */
  get pendingCount(): number {
    return this.pending.size;
  }

  call(name: string, input: unknown): Promise<CallResult> {
    if (this._state === 'stopped') return Promise.resolve(engineError(this.stoppedReason));
    return new Promise<CallResult>((resolve) => {
      const id = this.nextId++;
      const p: Pending = { id, name, input, sent: false, timer: null, resolve };
      const ms = this.timeoutOf(name);
      if (ms > 0) {
        p.timer = this.timers.set(() => {
          if (!this.pending.has(id)) return;
          this.pending.delete(id);
          resolve(
            engineError(
              `The engine did not answer ${name} within ${Math.round(ms / 1000)} s; it may still be busy. Try again, or restart OpenCoder if it keeps happening.`,
            ),
          );
        }, ms);
      }
      this.pending.set(id, p);
      if (this._state === 'ready') this.send(p);
    });
  }

  /** A new engine process is starting on this port; calls queue until it says `ready`. */
  attach(port: PortLike): void {
    if (this._state === 'stopped') return;
    this.port = port;
    this._state = 'starting';
  }

  /** A message from the engine's port. Anything that is not a protocol message is ignored. */
  receive(data: unknown): void {
    if (!isEngineToMain(data)) return;
    switch (data.type) {
      case 'ready':
        if (this._state === 'stopped' || !this.port) return;
        this._state = 'ready';
        for (const p of [...this.pending.values()].filter((x) => !x.sent)) this.send(p);
        return;
      case 'result': {
        const p = this.pending.get(data.id);
        if (!p) return; // timed out or failed already: the late answer is dropped
        this.settle(p, data.result);
        return;
      }
      case 'event':
        this.opts.onEvent(data.event);
        return;
      case 'pick-folder': {
        const port = this.port;
        void this.opts
          .onPickFolder()
          .catch(() => null)
          .then((path) => {
            // Only the engine that asked gets the answer (it may have been restarted meanwhile).
            if (port && port === this.port) port.postMessage({ type: 'pick-folder-result', id: data.id, path });
          });
        return;
      }
      default:
        return; // fatal / closed are the supervisor's business
    }
  }

  /**
   * The engine process went away (crashed or was killed). Calls it had received fail now with a clear error;
   * calls it had not received stay queued for the restarted engine (their timeouts still run).
   */
  engineGone(reason: string): void {
    this.port = null;
    if (this._state !== 'stopped') this._state = 'starting';
    for (const p of [...this.pending.values()]) {
      if (p.sent) this.settle(p, engineError(`${reason} before answering ${p.name}. Try again.`));
    }
  }

  /** No engine will come back (shutdown, or restarts given up): everything pending and every later call fails. */
  stop(reason: string): void {
    this._state = 'stopped';
    this.stoppedReason = reason;
    this.port = null;
    for (const p of [...this.pending.values()]) this.settle(p, engineError(reason));
  }

  private send(p: Pending): void {
    const port = this.port;
    if (!port) return;
    try {
      port.postMessage({ type: 'call', id: p.id, name: p.name, input: p.input });
      p.sent = true;
    } catch (err) {
      // A DataCloneError: the input holds something that cannot cross to the engine (a function, a DOM object…).
      this.settle(p, { ok: false, error: { code: 'invalid-input', message: `The input of ${p.name} cannot be sent to the engine: ${messageOf(err)}` } });
    }
  }

  private settle(p: Pending, r: CallResult): void {
    this.pending.delete(p.id);
    if (p.timer !== null) this.timers.clear(p.timer);
    p.resolve(r);
  }
}

/** Restarts allowed within a window: a process that dies on every start is not restarted forever. */
export class CrashBudget {
  private readonly crashes: number[] = [];

  constructor(
    readonly max = 3,
    readonly windowMs = 60_000,
  ) {}

  /** Records a crash at `now`; false when this crash exceeds the budget. */
  allowRestart(now: number): boolean {
    this.crashes.push(now);
    while (this.crashes.length && this.crashes[0]! <= now - this.windowMs) this.crashes.shift();
    return this.crashes.length <= this.max;
  }
}
