import { EventEmitter } from 'node:events';
import { describe, expect, it, vi } from 'vitest';
import type { EngineEvent } from '../../contract/index.ts';
import type { EngineInit, MainToEngine } from '../../app/engine-protocol.ts';
import { EngineSupervisor, type ChildLike, type MainPortLike } from '../../app/engine-supervisor.ts';
import { CrashBudget, defaultCallTimeout, EngineBridge, type Timers } from '../../app/ipc-bridge.ts';

/** Timers driven by hand: `advance(ms)` fires what is due. */
function manualTimers() {
  let now = 0;
  let seq = 0;
  const due = new Map<number, { at: number; fn: () => void }>();
  const timers: Timers = {
    set: (fn, ms) => {
      const id = ++seq;
      due.set(id, { at: now + ms, fn });
      return id;
    },
    clear: (h) => void due.delete(h as number),
  };
  return {
    timers,
    now: () => now,
    pending: () => due.size,
    advance(ms: number) {
      now += ms;
      for (const [id, t] of [...due].sort((a, b) => a[1].at - b[1].at)) {
        if (t.at <= now && due.has(id)) {
          due.delete(id);
          t.fn();
        }
      }
    },
  };
}

function port() {
  const sent: MainToEngine[] = [];
  return { sent, postMessage: (m: MainToEngine) => void sent.push(structuredClone(m)) };
}

const flush = () => new Promise((r) => setImmediate(r));

function bridgeWith(over: Partial<ConstructorParameters<typeof EngineBridge>[0]> = {}) {
  const events: EngineEvent[] = [];
  const t = manualTimers();
  const bridge = new EngineBridge({ onEvent: (e) => events.push(e), onPickFolder: async () => '/picked', timers: t.timers, ...over });
  return { bridge, events, t };
}

describe('EngineBridge: request ids', () => {
  it('queues calls until the engine is ready, then sends each with its own id', async () => {
    const { bridge } = bridgeWith();
    const p = port();
    bridge.attach(p);
    const a = bridge.call('repo.list', {});
    const b = bridge.call('app.info', {});
    expect(p.sent).toEqual([]);
    bridge.receive({ type: 'ready' });
    expect(p.sent.map((m) => m.type === 'call' && [m.id, m.name])).toEqual([
      [1, 'repo.list'],
      [2, 'app.info'],
    ]);
    // answers arrive out of order and find their own call
    bridge.receive({ type: 'result', id: 2, result: { ok: true, value: 'info' } });
    bridge.receive({ type: 'result', id: 1, result: { ok: true, value: ['repo'] } });
    expect(await a).toEqual({ ok: true, value: ['repo'] });
    expect(await b).toEqual({ ok: true, value: 'info' });
    expect(bridge.pendingCount).toBe(0);
  });

  it('ignores unknown ids, duplicates and messages that are not protocol messages', async () => {
    const { bridge, events } = bridgeWith();
    const p = port();
    bridge.attach(p);
    bridge.receive({ type: 'ready' });
    const a = bridge.call('repo.list', {});
    for (const junk of [
      null,
      'ready',
      { type: 'result', id: 99, result: { ok: true, value: 1 } },
      { type: 'result', id: 1, result: { nope: 1 } },
      { type: 'event' },
      { type: 'weird' },
    ])
      bridge.receive(junk);
    expect(bridge.pendingCount).toBe(1);
    bridge.receive({ type: 'result', id: 1, result: { ok: false, error: { code: 'not-found', message: 'x' } } });
    bridge.receive({ type: 'result', id: 1, result: { ok: true, value: 'late duplicate' } });
    expect(await a).toEqual({ ok: false, error: { code: 'not-found', message: 'x' } });
    expect(events).toEqual([]);
  });

  it('relays engine events', () => {
    const { bridge, events } = bridgeWith();
    bridge.attach(port());
    bridge.receive({ type: 'event', event: { type: 'repos-changed' } });
    expect(events).toEqual([{ type: 'repos-changed' }]);
  });

  it('answers a call whose input cannot be cloned with invalid-input', async () => {
    const { bridge } = bridgeWith();
    bridge.attach({
      postMessage: (m) => {
        structuredClone(m);
      },
    });
    bridge.receive({ type: 'ready' });
    const r = await bridge.call('repo.index', { path: '/x', fn: () => 1 });
    expect(r).toMatchObject({ ok: false, error: { code: 'invalid-input' } });
    expect(bridge.pendingCount).toBe(0);
  });

  it('runs the folder picker for the engine that asked, and only answers that engine', async () => {
    const pick = vi.fn(async () => '/home/me/repo');
    const { bridge } = bridgeWith({ onPickFolder: pick });
    const p1 = port();
    bridge.attach(p1);
    bridge.receive({ type: 'ready' });
    bridge.receive({ type: 'pick-folder', id: 7 });
    await flush();
    expect(p1.sent).toEqual([{ type: 'pick-folder-result', id: 7, path: '/home/me/repo' }]);

    // a picker that fails answers null; an engine replaced meanwhile gets nothing
    const { bridge: b2 } = bridgeWith({ onPickFolder: async () => Promise.reject(new Error('no display')) });
    const q = port();
    b2.attach(q);
    b2.receive({ type: 'pick-folder', id: 1 });
    await flush();
    expect(q.sent).toEqual([{ type: 'pick-folder-result', id: 1, path: null }]);
    let release!: (v: string) => void;
    const { bridge: b3 } = bridgeWith({ onPickFolder: () => new Promise<string>((r) => (release = r)) });
    const old = port();
    b3.attach(old);
    b3.receive({ type: 'pick-folder', id: 1 });
    b3.engineGone('gone');
    b3.attach(port());
    release('/late');
    await flush();
    expect(old.sent).toEqual([]);
  });
});

describe('EngineBridge: timeouts', () => {
  it('answers a call the engine never answers with a clear engine error, and drops the late answer', async () => {
    const { bridge, t } = bridgeWith({ timeoutMs: () => 1000 });
    bridge.attach(port());
    bridge.receive({ type: 'ready' });
    const r = bridge.call('report.render', { runIds: ['r'], format: 'html' });
    t.advance(999);
    expect(bridge.pendingCount).toBe(1);
    t.advance(1);
    expect(await r).toEqual({ ok: false, error: { code: 'engine', message: expect.stringContaining('did not answer report.render within 1 s') } });
    bridge.receive({ type: 'result', id: 1, result: { ok: true, value: 'late' } });
    expect(bridge.pendingCount).toBe(0);
  });

  it('times out calls that wait for an engine that never starts, too', async () => {
    const { bridge, t } = bridgeWith({ timeoutMs: () => 500 });
    const r = bridge.call('app.info', {});
    t.advance(500);
    expect(await r).toMatchObject({ ok: false, error: { code: 'engine' } });
  });

  it('clears the timer of an answered call; repo.pick waits for the user without a timeout', async () => {
    const { bridge, t } = bridgeWith();
    bridge.attach(port());
    bridge.receive({ type: 'ready' });
    const r = bridge.call('repo.list', {});
    expect(t.pending()).toBe(1);
    bridge.receive({ type: 'result', id: 1, result: { ok: true, value: [] } });
    await r;
    expect(t.pending()).toBe(0);
    expect(defaultCallTimeout('repo.pick')).toBe(0);
    expect(defaultCallTimeout('report.render')).toBeGreaterThan(0);
    void bridge.call('repo.pick', {});
    expect(t.pending()).toBe(0);
  });
});

describe('EngineBridge: a crashed engine', () => {
  it('fails the calls it had received with a clear error and keeps the unsent ones for the restarted engine', async () => {
    const { bridge } = bridgeWith();
    const first = port();
    bridge.attach(first);
    bridge.receive({ type: 'ready' });
    const sent = bridge.call('task.run', { manifest: '/m', taskId: 't', methods: ['opencoder'] });
    bridge.engineGone('The engine process stopped unexpectedly (exit code 9)');
    expect(bridge.state).toBe('starting');
    expect(await sent).toEqual({
      ok: false,
      error: { code: 'engine', message: expect.stringMatching(/stopped unexpectedly \(exit code 9\) before answering task\.run.*Try again/) },
    });
    const queued = bridge.call('repo.list', {});
    const second = port();
    bridge.attach(second);
    bridge.receive({ type: 'ready' });
    expect(second.sent).toEqual([{ type: 'call', id: 2, name: 'repo.list', input: {} }]);
    bridge.receive({ type: 'result', id: 2, result: { ok: true, value: [] } });
    expect(await queued).toEqual({ ok: true, value: [] });
    expect(first.sent).toHaveLength(1);
  });

  it('once stopped, fails everything pending and every later call at once', async () => {
    const { bridge } = bridgeWith();
    bridge.attach(port());
    const waiting = bridge.call('app.info', {});
    bridge.stop('The engine could not start: database is locked');
    expect(await waiting).toEqual({ ok: false, error: { code: 'engine', message: 'The engine could not start: database is locked' } });
    expect(await bridge.call('repo.list', {})).toEqual({ ok: false, error: { code: 'engine', message: 'The engine could not start: database is locked' } });
    bridge.attach(port());
    expect(bridge.state).toBe('stopped');
  });
});

describe('CrashBudget', () => {
  it('allows max restarts within the window and forgets old crashes', () => {
    const b = new CrashBudget(2, 1000);
    expect(b.allowRestart(0)).toBe(true);
    expect(b.allowRestart(10)).toBe(true);
    expect(b.allowRestart(20)).toBe(false);
    const c = new CrashBudget(2, 1000);
    expect([c.allowRestart(0), c.allowRestart(600), c.allowRestart(1200), c.allowRestart(1700)]).toEqual([true, true, true, true]);
  });
});

// ---- the supervisor: fork, init, crash → notice + restart ----------------------------------------------------

class FakeChild extends EventEmitter implements ChildLike<FakePort> {
  inits: { msg: unknown; transfer: FakePort[] }[] = [];
  killed = false;
  postMessage(message: unknown, transfer: FakePort[]) {
    this.inits.push({ msg: structuredClone(message), transfer });
  }
  kill() {
    this.killed = true;
    setImmediate(() => this.emit('exit', 0));
    return true;
  }
}

class FakePort extends EventEmitter implements MainPortLike {
  sent: MainToEngine[] = [];
  closed = false;
  started = false;
  peer: FakePort | null = null;
  postMessage(m: MainToEngine) {
    this.sent.push(m);
  }
  start() {
    this.started = true;
  }
  close() {
    this.closed = true;
  }
  /** The engine side says something. */
  say(data: unknown) {
    this.emit('message', { data });
  }
}

function supervised() {
  const t = manualTimers();
  const children: FakeChild[] = [];
  const ports: FakePort[] = [];
  const notices: EngineEvent[] = [];
  const roots: string[] = [];
  const init = (): EngineInit => ({
    dbPath: '/d/w.db',
    dataDir: '/d',
    settingsFile: '/d/s.json',
    modelsDir: '/d/models',
    allowedRoots: [...roots],
    keyStorage: 'session',
    keys: {},
    folderPicker: true,
    demo: true,
  });
  const bridge = new EngineBridge({ onEvent: (e) => notices.push(e), onPickFolder: async () => null, timers: t.timers });
  const sup = new EngineSupervisor<FakePort>({
    fork: () => {
      const c = new FakeChild();
      children.push(c);
      return c;
    },
    channel: () => {
      const mine = new FakePort();
      const theirs = new FakePort();
      ports.push(mine);
      return { mine, theirs };
    },
    init,
    bridge,
    notify: (e) => notices.push(e),
    timers: t.timers,
    now: t.now,
    restartDelayMs: 100,
    budget: new CrashBudget(2, 60_000),
    shutdownGraceMs: 1000,
  });
  return { sup, bridge, children, ports, notices, roots, t };
}

describe('EngineSupervisor', () => {
  it('forks the engine, hands it init with the port, and connects the bridge', async () => {
    const { sup, bridge, children, ports } = supervised();
    sup.start();
    expect(children).toHaveLength(1);
    const init = children[0]!.inits[0]!;
    expect(init.msg).toMatchObject({ type: 'init', init: { dbPath: '/d/w.db', folderPicker: true } });
    expect(init.transfer).toHaveLength(1);
    expect(ports[0]!.started).toBe(true);
    const r = bridge.call('app.info', {});
    ports[0]!.say({ type: 'ready' });
    expect(ports[0]!.sent).toEqual([{ type: 'call', id: 1, name: 'app.info', input: {} }]);
    ports[0]!.say({ type: 'result', id: 1, result: { ok: true, value: { mode: 'electron' } } });
    expect(await r).toEqual({ ok: true, value: { mode: 'electron' } });
  });

  it('reports a crash to the renderer, fails the calls in flight, and restarts with the current init', async () => {
    const { sup, bridge, children, ports, notices, roots, t } = supervised();
    sup.start();
    ports[0]!.say({ type: 'ready' });
    const inFlight = bridge.call('experiment.model', { runIds: ['r1'] });
    children[0]!.emit('exit', 139);
    expect(await inFlight).toMatchObject({ ok: false, error: { code: 'engine', message: expect.stringContaining('exit code 139') } });
    expect(notices.at(-1)).toMatchObject({ type: 'notice', level: 'error', message: expect.stringContaining('is being restarted') });
    expect(ports[0]!.closed).toBe(true);
    roots.push('/home/me/picked');
    const queued = bridge.call('repo.list', {});
    t.advance(100);
    expect(children).toHaveLength(2);
    expect(children[1]!.inits[0]!.msg).toMatchObject({ init: { allowedRoots: ['/home/me/picked'] } });
    ports[1]!.say({ type: 'ready' });
    expect(notices.slice(-3)).toEqual([
      { type: 'notice', level: 'info', message: 'The engine is running again.' },
      { type: 'repos-changed' },
      { type: 'runs-changed' },
    ]);
    ports[1]!.say({ type: 'result', id: 2, result: { ok: true, value: [] } });
    expect(await queued).toEqual({ ok: true, value: [] });
    // messages from the dead engine's port are ignored
    ports[0]!.say({ type: 'event', event: { type: 'runs-changed' } });
    expect(notices.filter((n) => n.type === 'runs-changed')).toHaveLength(1);
  });

  it('stops restarting an engine that keeps crashing, and says so', async () => {
    const { sup, bridge, children, notices, t } = supervised();
    sup.start();
    for (let i = 0; i < 3; i++) {
      children.at(-1)!.emit('exit', 1);
      t.advance(100);
    }
    expect(children).toHaveLength(3);
    expect(bridge.state).toBe('stopped');
    expect(notices.at(-1)).toMatchObject({ level: 'error', message: expect.stringContaining('stopped restarting it') });
    expect(await bridge.call('repo.list', {})).toMatchObject({ ok: false, error: { code: 'engine', message: expect.stringContaining('stopped restarting') } });
  });

  it('does not restart an engine that cannot start (fatal), and calls get the reason', async () => {
    const { sup, bridge, children, ports, notices, t } = supervised();
    sup.start();
    const waiting = bridge.call('app.info', {});
    ports[0]!.say({ type: 'fatal', message: 'NODE_MODULE_VERSION 127 vs 139: better-sqlite3 was built for another runtime' });
    expect(children[0]!.killed).toBe(true);
    expect(await waiting).toEqual({
      ok: false,
      error: { code: 'engine', message: expect.stringContaining('The engine could not start: NODE_MODULE_VERSION') },
    });
    await flush();
    t.advance(10_000);
    expect(children).toHaveLength(1);
    expect(notices.at(-1)).toMatchObject({ type: 'notice', level: 'error' });
  });

  it('shuts down gracefully: asks the engine to close, waits for its exit, kills it after the grace time', async () => {
    const { sup, children, ports } = supervised();
    sup.start();
    ports[0]!.say({ type: 'ready' });
    const done = sup.stop();
    expect(ports[0]!.sent.at(-1)).toEqual({ type: 'shutdown' });
    children[0]!.emit('exit', 0);
    await done;
    expect(children[0]!.killed).toBe(false);
    expect(children).toHaveLength(1);

    const s2 = supervised();
    s2.sup.start();
    const stopped = s2.sup.stop();
    s2.t.advance(1000);
    expect(s2.children[0]!.killed).toBe(true);
    await stopped;
    expect(s2.sup.running).toBe(false);
  });
});
