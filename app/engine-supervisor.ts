// Starts the engine's utility process, connects it to the bridge, and restarts it when it dies. The renderer
// hears about every crash through a `notice` event; after a restart it also gets `repos-changed` and
// `runs-changed`, so views reload what the new engine knows. A process that cannot start at all (it says
// `fatal`) or keeps dying is not restarted: calls then fail with that reason instead of waiting.
//
// No electron import: main.ts passes utilityProcess.fork and MessageChannelMain in; tests pass fakes.

import type { EngineEvent } from '../contract/index.ts';
import { isEngineToMain, type EngineInit, type InitMessage, type MainToEngine } from './engine-protocol.ts';
import { CrashBudget, realTimers, type EngineBridge, type Timers } from './ipc-bridge.ts';

export interface ChildLike<P> {
  postMessage(message: InitMessage, transfer: P[]): void;
  on(event: 'exit', listener: (code: number) => void): unknown;
  kill(): boolean;
}

export interface MainPortLike {
  postMessage(message: MainToEngine): void;
  on(event: 'message', listener: (e: { data: unknown }) => void): unknown;
  on(event: 'close', listener: () => void): unknown;
  start(): void;
  close(): void;
}

export interface SupervisorDeps<P> {
  fork(): ChildLike<P>;
  /** A fresh channel: `mine` stays in the main process, `theirs` is transferred to the engine with `init`. */
  channel(): { mine: MainPortLike; theirs: P };
  /** Read at every (re)start, so keys set and folders picked meanwhile are passed on. */
  init(): EngineInit;
  bridge: EngineBridge;
  /** Delivers an event to the renderer. */
  notify(e: EngineEvent): void;
  log?(line: string): void;
  timers?: Timers;
  now?(): number;
  restartDelayMs?: number;
  budget?: CrashBudget;
  shutdownGraceMs?: number;
}

export class EngineSupervisor<P> {
  private child: ChildLike<P> | null = null;
  private port: MainPortLike | null = null;
  private starts = 0;
  private fatal = false;
  private stopping = false;
  private exitWaiters: (() => void)[] = [];
  private restartTimer: unknown = null;
  private readonly timers: Timers;
  private readonly budget: CrashBudget;

  constructor(private readonly deps: SupervisorDeps<P>) {
    this.timers = deps.timers ?? realTimers;
    this.budget = deps.budget ?? new CrashBudget();
  }

  get running(): boolean {
    return this.child !== null;
  }

  start(): void {
    if (this.stopping || this.fatal || this.child) return;
    this.starts++;
    const restarted = this.starts > 1;
    const { bridge } = this.deps;
    let child: ChildLike<P>;
    let mine: MainPortLike;
    try {
      child = this.deps.fork();
      const ch = this.deps.channel();
      mine = ch.mine;
      child.postMessage({ type: 'init', init: this.deps.init() }, [ch.theirs]);
    } catch (err) {
      this.giveUp(`The engine process could not be started: ${err instanceof Error ? err.message : String(err)}`);
      return;
    }
    this.child = child;
    this.port = mine;
    bridge.attach(mine);
    mine.on('message', (e) => {
      if (this.child !== child) return;
      const msg = e.data;
      if (!isEngineToMain(msg)) return;
      if (msg.type === 'fatal') {
        this.fatal = true;
        this.giveUp(`The engine could not start: ${msg.message}`);
        child.kill();
        return;
      }
      if (msg.type === 'ready' && restarted) {
        this.deps.notify({ type: 'notice', level: 'info', message: 'The engine is running again.' });
        this.deps.notify({ type: 'repos-changed' });
        this.deps.notify({ type: 'runs-changed' });
      }
      bridge.receive(msg);
    });
    mine.start();
    child.on('exit', (code) => this.onExit(child, code));
  }

  private onExit(child: ChildLike<P>, code: number): void {
    if (child !== this.child) return;
    this.child = null;
    try {
      this.port?.close();
    } catch {
      // already closed
    }
    this.port = null;
    if (this.stopping) {
      for (const w of this.exitWaiters.splice(0)) w();
      return;
    }
    if (this.fatal) return;
    this.deps.log?.(`engine process exited with code ${code}`);
    this.deps.bridge.engineGone(`The engine process stopped unexpectedly (exit code ${code})`);
    const now = this.deps.now?.() ?? Date.now();
    if (!this.budget.allowRestart(now)) {
      this.giveUp(
        `The engine process stopped ${this.budget.max + 1} times within ${Math.round(this.budget.windowMs / 1000)} s, so OpenCoder stopped restarting it. Quit and reopen OpenCoder; if it happens again, start it from a terminal to see the engine's log.`,
      );
      return;
    }
    this.deps.notify({
      type: 'notice',
      level: 'error',
      message: `The engine process stopped unexpectedly (exit code ${code}) and is being restarted. Jobs that were running stopped; what they had finished is kept, and an interrupted experiment can be resumed.`,
    });
    this.restartTimer = this.timers.set(() => {
      this.restartTimer = null;
      this.start();
    }, this.deps.restartDelayMs ?? 500);
  }

  private giveUp(reason: string): void {
    this.deps.bridge.stop(reason);
    this.deps.notify({ type: 'notice', level: 'error', message: reason });
    this.deps.log?.(reason);
  }

  /** Asks the engine to close (finish writes, stop jobs), then kills it if it has not exited after the grace time. */
  stop(): Promise<void> {
    this.stopping = true;
    if (this.restartTimer !== null) this.timers.clear(this.restartTimer);
    this.deps.bridge.stop('OpenCoder is shutting down.');
    const child = this.child;
    if (!child) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const killTimer = this.timers.set(() => {
        this.deps.log?.('the engine did not close in time; killing it');
        child.kill();
      }, this.deps.shutdownGraceMs ?? 5000);
      this.exitWaiters.push(() => {
        this.timers.clear(killTimer);
        resolve();
      });
      try {
        this.port?.postMessage({ type: 'shutdown' });
      } catch {
        child.kill();
      }
    });
  }
}
