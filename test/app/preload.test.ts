import { beforeAll, describe, expect, it, vi } from 'vitest';
import { CALLS } from '../../contract/index.ts';

// A fake `electron` for the preload: records what it exposes and every IPC it makes.
const fake = vi.hoisted(() => {
  const exposed = new Map<string, unknown>();
  const eventHandlers: ((event: unknown, payload: unknown) => void)[] = [];
  const invoke = vi.fn(async (channel: string, name: string, input: unknown) => ({ ok: true, value: { channel, name, input } }));
  const on = vi.fn((channel: string, handler: (event: unknown, payload: unknown) => void) => {
    if (channel === 'opencoder:event') eventHandlers.push(handler);
  });
  return {
    exposed,
    eventHandlers,
    invoke,
    on,
    emit: (payload: unknown) => eventHandlers.forEach((h) => h({ sender: 'ipc' }, payload)),
  };
});

vi.mock('electron', () => ({
  contextBridge: { exposeInMainWorld: (key: string, api: unknown) => fake.exposed.set(key, api) },
  ipcRenderer: { invoke: fake.invoke, on: fake.on, send: vi.fn(), sendSync: vi.fn(), removeListener: vi.fn() },
}));

interface Exposed {
  call(name: string, input?: unknown): Promise<unknown>;
  subscribe(listener: (e: unknown) => void): () => void;
}

let api: Exposed;

beforeAll(async () => {
  // Events sent before the UI subscribes are kept for the first subscriber.
  await import('../../app/preload.ts');
  fake.emit({ type: 'notice', level: 'warning', message: 'early notice' });
  api = fake.exposed.get('opencoder') as Exposed;
});

describe('preload', () => {
  it('exposes exactly window.opencoder = { call, subscribe }: plain functions, no ipcRenderer, no Node', () => {
    expect([...fake.exposed.keys()]).toEqual(['opencoder']);
    expect(Object.keys(api).sort()).toEqual(['call', 'subscribe']);
    expect(typeof api.call).toBe('function');
    expect(typeof api.subscribe).toBe('function');
    expect(Object.isFrozen(api)).toBe(true);
    const seen = new Set<unknown>();
    const walk = (v: unknown) => {
      if (!v || (typeof v !== 'object' && typeof v !== 'function') || seen.has(v)) return;
      seen.add(v);
      for (const k of Object.keys(v)) walk((v as Record<string, unknown>)[k]);
    };
    walk(api);
    for (const leaked of [fake.invoke, fake.on, process]) expect(seen.has(leaked)).toBe(false);
  });

  it('sends contract calls over opencoder:call and passes the envelope back', async () => {
    const r = await api.call('repo.list', {});
    expect(fake.invoke).toHaveBeenLastCalledWith('opencoder:call', 'repo.list', {});
    expect(r).toEqual({ ok: true, value: { channel: 'opencoder:call', name: 'repo.list', input: {} } });
    await api.call('app.info');
    expect(fake.invoke).toHaveBeenLastCalledWith('opencoder:call', 'app.info', {});
  });

  it('accepts every contract call name', async () => {
    for (const name of Object.keys(CALLS)) {
      const r = (await api.call(name, {})) as { ok: boolean };
      expect(r.ok, name).toBe(true);
    }
  });

  it('refuses names that are not contract calls without reaching ipcRenderer', async () => {
    fake.invoke.mockClear();
    for (const name of ['shell.openExternal', 'fs.readFile', '__proto__', 'constructor', 'toString', '', 42, null]) {
      const r = (await api.call(name as string, {})) as { ok: boolean; error: { code: string } };
      expect(r.ok).toBe(false);
      expect(r.error.code).toBe('not-found');
    }
    expect(fake.invoke).not.toHaveBeenCalled();
  });

  it('turns a failed or malformed IPC answer into an engine error envelope (never a rejection)', async () => {
    fake.invoke.mockRejectedValueOnce(new Error("Error invoking remote method 'opencoder:call': boom"));
    expect(await api.call('repo.list', {})).toEqual({ ok: false, error: { code: 'engine', message: "Error invoking remote method 'opencoder:call': boom" } });
    fake.invoke.mockResolvedValueOnce('nonsense' as never);
    expect(await api.call('repo.list', {})).toMatchObject({ ok: false, error: { code: 'engine' } });
    const structured = { ok: false, error: { code: 'invalid-input', message: 'bad', issues: [{ path: 'path', message: 'required' }] } };
    fake.invoke.mockResolvedValueOnce(structured as never);
    expect(await api.call('repo.index', {})).toEqual(structured);
  });

  it('subscribe replays early events to the first subscriber, delivers later ones, and unsubscribes', () => {
    const a: unknown[] = [];
    const b: unknown[] = [];
    const offA = api.subscribe((e) => a.push(e));
    expect(a).toEqual([{ type: 'notice', level: 'warning', message: 'early notice' }]);
    const offB = api.subscribe((e) => b.push(e));
    fake.emit({ type: 'repos-changed' });
    expect(a.at(-1)).toEqual({ type: 'repos-changed' });
    expect(b).toEqual([{ type: 'repos-changed' }]);
    expect(typeof offA).toBe('function');
    offA();
    fake.emit({ type: 'runs-changed' });
    expect(a.at(-1)).toEqual({ type: 'repos-changed' });
    expect(b.at(-1)).toEqual({ type: 'runs-changed' });
    offB();
    expect(() => api.subscribe('nope' as never)).toThrow(TypeError);
  });

  it('a listener that throws does not stop the others', () => {
    const got: unknown[] = [];
    const off1 = api.subscribe(() => {
      throw new Error('listener bug');
    });
    const off2 = api.subscribe((e) => got.push(e));
    const spy = vi.spyOn(console, 'error').mockImplementation(() => {});
    fake.emit({ type: 'runs-changed' });
    spy.mockRestore();
    expect(got).toEqual([{ type: 'runs-changed' }]);
    off1();
    off2();
  });
});
