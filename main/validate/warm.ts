// Warm validation (strong sandbox only): one long-lived server per sandbox shape (interpreter, repository snapshot,
// masked target, the candidate's hidden paths, tmpfs sizes) forks each run's two sides from interpreters that have
// already loaded the harness and the test framework, instead of starting two bubblewraps and two interpreters per
// candidate. Each forked run still gets user, mount, PID, IPC, UTS and network namespaces of its own, fresh tmpfs
// work folders, its own /proc, its limits, no capabilities and no further user namespaces (_opencoder_warm.py). The
// servers never run candidate code and never hold a run's input: that goes to a feeder process of theirs on a pipe of
// its own. This file starts servers, retires them (least recently used, idle, or on any fault), and turns a run into
// what runSandboxed / runSandboxedPair return.

import { spawn, type ChildProcess } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import type { Limits, SandboxEvent, SandboxInfo } from '../model/verdict.ts';
import { interpreterDirs, sigOf, warmServerLaunch, type SandboxRunResult, type SandboxRunSpec } from './sandbox.ts';

/** How many servers stay alive at once (each is three processes sharing most of their pages). */
export const WARM_SERVERS_MAX = 16;
/** A server nobody used for this long is stopped. */
export const WARM_IDLE_MS = 60_000;
/** How long a server may take to load before warm validation is given up for this process. */
const START_TIMEOUT_MS = 20_000;
/** Past a run's own limit, how long the engine waits for the server's end of it before it kills the whole server. */
const BACKSTOP_MS = 10_000;

const PATHS = { ws: '/ws', base: '/base', harness: '/opencoder' };

interface Capture {
  stdout: Buffer[];
  stderr: Buffer[];
  kept: { stdout: number; stderr: number };
  channel: Buffer[];
  channelBytes: number;
  total: number;
  events: SandboxEvent[];
  killedBy: SandboxRunResult['killedBy'];
}

interface Pending {
  id: number;
  started: number;
  limits: Limits;
  timeoutMs: number;
  t: Capture;
  c: Capture | null;
  resolve: (r: { tests: SandboxRunResult; candidate: SandboxRunResult | null }) => void;
  backstop: NodeJS.Timeout;
  onAbort?: () => void;
  signal?: AbortSignal;
}

const capture = (): Capture => ({
  stdout: [],
  stderr: [],
  kept: { stdout: 0, stderr: 0 },
  channel: [],
  channelBytes: 0,
  total: 0,
  events: [],
  killedBy: null,
});

/** What one side of a run left, as runSandboxed returns it. */
function captured(side: Capture, exit: SandboxRunResult['exit'], durationMs: number, events: SandboxEvent[]): SandboxRunResult {
  return {
    exit,
    stdout: Buffer.concat(side.stdout).toString('utf8'),
    stderr: Buffer.concat(side.stderr).toString('utf8'),
    channel: Buffer.concat(side.channel),
    durationMs,
    events,
    killedBy: side.killedBy,
    outputBytes: side.total,
  };
}

/** One server: a bubblewrap sandbox whose program is _opencoder_warm.py. */
class WarmServer {
  readonly child: ChildProcess;
  readonly ready: Promise<void>;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private buf: Buffer = Buffer.alloc(0);
  private stderrTail = '';
  private dead: string | null = null;
  lastUsed = Date.now();

  constructor(
    info: SandboxInfo,
    spec: SandboxRunSpec,
    shape: WarmShape,
    private readonly onDeath: (s: WarmServer) => void,
  ) {
    const { file, args } = warmServerLaunch(info, { ...spec, hidden: [] });
    this.child = spawn(file, args, { stdio: ['pipe', 'pipe', 'pipe', 'pipe'], detached: true, windowsHide: true, env: {} });
    for (const s of this.child.stdio) (s as Readable | Writable | null)?.on('error', () => {});
    const wsBytes = spec.limits.workspaceBytes + (spec.repoBytes ?? 0);
    // An interpreter bound below /tmp, /dev/shm or /ws: each run's fresh tmpfs would cover it, so the run binds it again.
    const rebind = interpreterDirs(spec.python ?? info.tools.python).filter((d) => ['/tmp', '/dev/shm', '/ws'].some((p) => d.startsWith(p + '/')));
    this.control({ wsBytes, tmpBytes: spec.limits.tmpBytes, covers: shape.covers, preload: shape.preload, shadows: shape.shadows, rebind });
    let started: () => void;
    let failed: (e: Error) => void;
    this.ready = new Promise<void>((res, rej) => {
      started = res;
      failed = rej;
    });
    const timer = setTimeout(() => this.die(`it did not start within ${START_TIMEOUT_MS} ms`), START_TIMEOUT_MS);
    this.readyHooks = {
      ok: () => {
        clearTimeout(timer);
        started();
      },
      fail: (why: string) => {
        clearTimeout(timer);
        failed(new Error(why));
      },
    };
    this.child.stdout!.on('data', (b: Buffer) => this.onData(b));
    this.child.stderr!.on('data', (b: Buffer) => {
      this.stderrTail = (this.stderrTail + b.toString('utf8')).slice(-2000);
    });
    this.child.once('error', (e) => this.die(`it could not start: ${e.message}`));
    this.setRef(false);
    this.child.once('exit', (code, signal) => this.die(`it ended (${signal ?? `exit ${code}`})`));
  }

  private readyHooks: { ok: () => void; fail: (why: string) => void };

  /** An idle server does not keep the process alive; one with runs in progress does. */
  private setRef(on: boolean): void {
    for (const s of [this.child, ...this.child.stdio] as ({ ref?: () => void; unref?: () => void } | null)[]) {
      if (on) s?.ref?.();
      else s?.unref?.();
    }
  }

  get alive(): boolean {
    return this.dead === null;
  }

  get busy(): number {
    return this.pending.size;
  }

  private control(doc: unknown): void {
    const body = Buffer.from(JSON.stringify(doc), 'utf8');
    const head = Buffer.alloc(4);
    head.writeUInt32BE(body.length);
    (this.child.stdin as Writable).write(Buffer.concat([head, body]));
  }

  private feed(id: number, side: 0 | 1, text: string): void {
    const body = Buffer.from(text, 'utf8');
    const head = Buffer.alloc(9);
    head.writeUInt32BE(body.length, 0);
    head.writeUInt32BE(id, 4);
    head.writeUInt8(side, 8);
    (this.child.stdio[3] as Writable).write(Buffer.concat([head, body]));
  }

  /** One run: the tests' side and, for an isolated run, the candidate's, connected by one socket. */
  run(tests: SandboxRunSpec, candidate: SandboxRunSpec | null): Promise<{ tests: SandboxRunResult; candidate: SandboxRunResult | null }> {
    this.lastUsed = Date.now();
    const id = this.nextId++;
    const limitsOf = (l: Limits) => ({ cpu: l.cpuSeconds, as: l.addressSpaceBytes, fsize: l.fileSizeBytes, nproc: l.processes });
    return new Promise((resolve) => {
      const p: Pending = {
        id,
        started: performance.now(),
        limits: tests.limits,
        timeoutMs: tests.timeoutMs,
        t: capture(),
        c: candidate ? capture() : null,
        resolve,
        backstop: setTimeout(() => this.die(`a run was not over ${BACKSTOP_MS} ms after its limit of ${tests.timeoutMs} ms`), tests.timeoutMs + BACKSTOP_MS),
        signal: tests.signal,
      };
      this.pending.set(id, p);
      if (this.pending.size === 1) this.setRef(true);
      if (this.dead) return this.fail(p, this.dead);
      this.control({
        op: 'run',
        id,
        t: { ms: tests.timeoutMs, limits: limitsOf(tests.limits) },
        ...(candidate ? { c: { limits: limitsOf(candidate.limits) } } : {}),
      });
      this.feed(id, 0, typeof tests.stdin === 'function' ? tests.stdin(PATHS) : tests.stdin);
      if (candidate) this.feed(id, 1, typeof candidate.stdin === 'function' ? candidate.stdin(PATHS) : candidate.stdin);
      if (tests.signal) {
        p.onAbort = () => this.kill(p, 'aborted', 'cancelled by the caller');
        if (tests.signal.aborted) p.onAbort();
        else tests.signal.addEventListener('abort', p.onAbort, { once: true });
      }
    });
  }

  private kill(p: Pending, why: NonNullable<SandboxRunResult['killedBy']>, detail: string): void {
    for (const side of [p.t, p.c]) {
      if (side && !side.killedBy) {
        side.killedBy = why;
        side.events.push({ kind: why, detail });
      }
    }
    if (this.pending.has(p.id) && !this.dead) this.control({ op: 'kill', id: p.id, why });
  }

  private onData(b: Buffer): void {
    this.buf = this.buf.length ? Buffer.concat([this.buf, b]) : b;
    while (this.buf.length >= 9) {
      const n = this.buf.readUInt32BE(0);
      if (this.buf.length < 9 + n) break;
      const id = this.buf.readUInt32BE(4);
      const stream = this.buf.readUInt8(8);
      const body = this.buf.subarray(9, 9 + n);
      this.buf = this.buf.subarray(9 + n);
      if (id === 0) this.onServerEvent(JSON.parse(body.toString('utf8')) as { ready?: boolean });
      else this.onRunData(id, stream, body);
    }
  }

  private onServerEvent(doc: { ready?: boolean }): void {
    if (doc.ready) this.readyHooks.ok();
  }

  private onRunData(id: number, stream: number, body: Buffer): void {
    const p = this.pending.get(id);
    if (!p) return;
    if (stream === 0) return this.end(p, JSON.parse(body.toString('utf8')) as EndDoc);
    const side = stream <= 3 ? p.t : p.c;
    if (!side) return;
    if (stream === 3) {
      side.channelBytes += body.length;
      if (side.channelBytes > p.limits.outputKillBytes) this.kill(p, 'output-limit', 'report channel flooded');
      else side.channel.push(Buffer.from(body));
      return;
    }
    const which = stream === 1 || stream === 4 ? 'stdout' : 'stderr';
    side.total += body.length;
    const keep = p.limits.outputKeepBytes;
    if (side.kept[which] < keep) {
      const slice = Buffer.from(body.subarray(0, keep - side.kept[which]));
      side[which].push(slice);
      side.kept[which] += slice.length;
    }
    if (side.total > p.limits.outputKillBytes) this.kill(p, 'output-limit', `more than ${p.limits.outputKillBytes} bytes of output`);
  }

  private end(p: Pending, doc: EndDoc): void {
    this.settle(p);
    const ms = performance.now() - p.started;
    const tests = this.result(p.t, doc.t, ms, p.timeoutMs);
    const candidate = p.c && doc.c ? { ...this.result(p.c, doc.c, ms, p.timeoutMs), ...(doc.c.ended ? { endedWithPartner: true } : {}) } : null;
    p.resolve({ tests, candidate });
  }

  private result(side: Capture, end: SideEnd, durationMs: number, timeoutMs: number): SandboxRunResult {
    if (end.killed === 'wall-timeout' && !side.killedBy) {
      side.killedBy = 'wall-timeout';
      side.events.push({ kind: 'wall-timeout', detail: `wall-clock limit of ${timeoutMs} ms` });
    }
    return captured(side, { code: end.code, signal: sigOf(end.code) }, durationMs, side.events);
  }

  private settle(p: Pending): void {
    clearTimeout(p.backstop);
    if (p.onAbort) p.signal?.removeEventListener('abort', p.onAbort);
    this.pending.delete(p.id);
    if (!this.pending.size) this.setRef(false);
  }

  /** A run the server could not finish: no verdict can come of it, and the events say why. */
  private fail(p: Pending, why: string): void {
    this.settle(p);
    const detail = `the warm validation server failed: ${why}${this.stderrTail ? ` (${this.stderrTail.trim().split('\n').slice(-3).join(' | ')})` : ''}`;
    const broken = (side: Capture) =>
      captured(side, { code: null, signal: null }, performance.now() - p.started, [...side.events, { kind: 'sandbox-failure', detail }]);
    p.resolve({ tests: broken(p.t), candidate: p.c ? broken(p.c) : null });
  }

  die(why: string): void {
    if (this.dead) return;
    this.dead = why;
    this.readyHooks.fail(why);
    try {
      if (this.child.pid !== undefined) process.kill(-this.child.pid, 'SIGKILL');
    } catch {
      /* gone */
    }
    for (const p of [...this.pending.values()]) this.fail(p, why);
    this.onDeath(this);
  }
}

/** What a server is made for besides its sandbox: the candidate's hidden paths, and what it loads (task-plan warmImports). */
export interface WarmShape {
  covers: { rel: string; dir: boolean }[];
  preload: string[];
  shadows: string[];
}

interface SideEnd {
  code: number | null;
  killed: string | null;
  ended?: boolean;
}
interface EndDoc {
  end: true;
  t: SideEnd;
  c?: SideEnd;
}

/** The servers of one validator: started on first use of a sandbox shape, retired least recently used or idle. */
export class WarmServers {
  private readonly servers = new Map<string, WarmServer>();
  private idleTimer: NodeJS.Timeout | null = null;
  /** Why warm validation is off in this process (a server could not start), or null. */
  unavailable: string | null = null;
  private started = false;

  constructor(
    private readonly info: SandboxInfo,
    private readonly max = WARM_SERVERS_MAX,
    private readonly idleMs = WARM_IDLE_MS,
  ) {}

  /**
   * Runs the tests' side (and the candidate's, for an isolated run) on the server for this shape. Null when warm
   * validation is not available here: the caller then runs cold.
   */
  async run(
    tests: SandboxRunSpec,
    candidate: SandboxRunSpec | null,
    shape: WarmShape,
  ): Promise<{ tests: SandboxRunResult; candidate: SandboxRunResult | null } | null> {
    if (this.unavailable || this.info.strength !== 'strong') return null;
    const key = JSON.stringify([
      tests.python ?? '',
      tests.repo,
      tests.repoBytes ?? 0,
      tests.overlays ?? [],
      shape,
      tests.limits.workspaceBytes,
      tests.limits.tmpBytes,
    ]);
    let server = this.servers.get(key);
    if (server && !server.alive) server = undefined;
    if (!server) {
      this.evict();
      server = new WarmServer(this.info, tests, shape, (s) => {
        if (this.servers.get(key) === s) this.servers.delete(key);
      });
      this.servers.set(key, server);
    }
    try {
      await server.ready;
    } catch (e) {
      // A server that could not start: this run goes cold. When none ever started in this process (a kernel without
      // nested user namespaces, say), warm validation is off for good, and `unavailable` says why.
      if (!this.started) this.unavailable = (e as Error).message;
      return null;
    }
    this.started = true;
    this.armIdle();
    return server.run(tests, candidate);
  }

  private evict(): void {
    while (this.servers.size >= this.max) {
      let oldest: [string, WarmServer] | null = null;
      for (const e of this.servers) if (!e[1].busy && (!oldest || e[1].lastUsed < oldest[1].lastUsed)) oldest = e;
      if (!oldest) return; // all busy: one more for now
      this.servers.delete(oldest[0]);
      oldest[1].die('retired (least recently used)');
    }
  }

  private armIdle(): void {
    if (this.idleTimer) return;
    this.idleTimer = setInterval(
      () => {
        const now = Date.now();
        for (const [key, s] of this.servers) {
          if (!s.busy && now - s.lastUsed > this.idleMs) {
            this.servers.delete(key);
            s.die('idle');
          }
        }
        if (!this.servers.size && this.idleTimer) {
          clearInterval(this.idleTimer);
          this.idleTimer = null;
        }
      },
      Math.min(this.idleMs, 10_000),
    );
    this.idleTimer.unref();
  }

  /** Stops every server (runs in progress end as sandbox failures). */
  close(): void {
    for (const s of this.servers.values()) s.die('closed');
    this.servers.clear();
    if (this.idleTimer) clearInterval(this.idleTimer);
    this.idleTimer = null;
  }

  /** The servers' own processes (their sandboxes' outermost), for tests and diagnostics. */
  serverPids(): number[] {
    return [...this.servers.values()].map((s) => s.child.pid).filter((p): p is number => p !== undefined);
  }
}
