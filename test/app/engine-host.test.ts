import { EventEmitter } from 'node:events';
import { describe, expect, it, vi } from 'vitest';
import type { EngineEvent } from '../../contract/index.ts';
import { memoryKeyStore, runEngineHost, serviceOptions, type EnginePortLike } from '../../app/engine-host.ts';
import type { EngineInit, EngineToMain } from '../../app/engine-protocol.ts';
import type { EngineService, ServiceOptions } from '../../main/host/service.ts';

const flush = async (n = 3) => {
  for (let i = 0; i < n; i++) await new Promise((r) => setImmediate(r));
};

class Port extends EventEmitter implements EnginePortLike {
  out: EngineToMain[] = [];
  postMessage(m: EngineToMain) {
    this.out.push(structuredClone(m));
  }
  start() {}
  send(data: unknown) {
    this.emit('message', { data });
  }
}

const INIT: EngineInit = {
  dbPath: '/data/workspace.db',
  dataDir: '/data',
  settingsFile: '/data/settings.json',
  modelsDir: '/data/models',
  allowedRoots: ['/opt/OpenCoder/resources'],
  keyStorage: 'keychain',
  keys: { openai: 'sk-test-12345678' },
  folderPicker: true,
  demo: false,
};

function fakeService() {
  const listeners = new Set<(e: EngineEvent) => void>();
  let opts: ServiceOptions | null = null;
  const service: EngineService & { emit(e: EngineEvent): void } = {
    call: vi.fn(async (name: string, input: unknown) => {
      if (name === 'repo.pick') {
        const path = await opts!.pickFolder!();
        return { ok: true as const, value: { path } };
      }
      if (name === 'keys.set') {
        const { provider, key } = input as { provider: 'openai' | 'gemini'; key: string | null };
        opts!.keys!.set(provider, key);
        return { ok: true as const, value: { openai: !!opts!.keys!.get('openai'), gemini: !!opts!.keys!.get('gemini') } };
      }
      if (name === 'boom') throw new Error('handler bug');
      return { ok: true as const, value: { name, input } };
    }),
    subscribe: (l) => {
      listeners.add(l);
      return () => listeners.delete(l);
    },
    allowRoot: vi.fn(),
    allowedRoots: [],
    close: vi.fn(async () => {}),
    emit: (e) => listeners.forEach((l) => l(e)),
  };
  const create = vi.fn(async (o: ServiceOptions) => {
    opts = o;
    return service;
  });
  return { service, create, options: () => opts! };
}

function host(create: (o: ServiceOptions) => Promise<EngineService>) {
  const parent = new EventEmitter();
  const port = new Port();
  const exit = vi.fn();
  runEngineHost({ parentPort: parent, createEngineService: create, exit, env: { PATH: '/usr/bin' } });
  return { parent, port, exit, init: (init: unknown = INIT) => parent.emit('message', { data: { type: 'init', init }, ports: [port] }) };
}

describe('engine host (the utility process side)', () => {
  it('creates the service in electron mode from init, then says ready', async () => {
    const f = fakeService();
    const h = host(f.create);
    h.parent.emit('message', { data: { type: 'something else' }, ports: [h.port] });
    h.init({ ...INIT, dbPath: 42 }); // malformed init is ignored
    expect(f.create).not.toHaveBeenCalled();
    h.init();
    await flush();
    expect(f.create).toHaveBeenCalledTimes(1);
    const o = f.options();
    expect(o).toMatchObject({
      dbPath: '/data/workspace.db',
      mode: 'electron',
      allowedRoots: ['/opt/OpenCoder/resources'],
      settingsFile: '/data/settings.json',
      dataDir: '/data',
      modelsDir: '/data/models',
      demo: false,
      env: { PATH: '/usr/bin' },
    });
    expect(o.keys!.kind).toBe('keychain');
    expect(o.keys!.get('openai')).toBe('sk-test-12345678');
    expect(typeof o.pickFolder).toBe('function');
    expect(h.port.out).toEqual([{ type: 'ready' }]);
    h.init(); // a second init is ignored
    await flush();
    expect(f.create).toHaveBeenCalledTimes(1);
  });

  it('answers each call with its request id, including a handler that throws', async () => {
    const f = fakeService();
    const h = host(f.create);
    h.init();
    await flush();
    h.port.send({ type: 'call', id: 5, name: 'repo.list', input: {} });
    h.port.send({ type: 'call', id: 6, name: 'boom', input: {} });
    await flush();
    expect(h.port.out.slice(1)).toEqual([
      { type: 'result', id: 5, result: { ok: true, value: { name: 'repo.list', input: {} } } },
      { type: 'result', id: 6, result: { ok: false, error: { code: 'engine', message: 'handler bug' } } },
    ]);
  });

  it('forwards the service events', async () => {
    const f = fakeService();
    const h = host(f.create);
    h.init();
    await flush();
    f.service.emit({ type: 'notice', level: 'info', message: 'hello' });
    expect(h.port.out.at(-1)).toEqual({ type: 'event', event: { type: 'notice', level: 'info', message: 'hello' } });
  });

  it('asks the main process for the folder picker and resumes with its answer', async () => {
    const f = fakeService();
    const h = host(f.create);
    h.init();
    await flush();
    h.port.send({ type: 'call', id: 1, name: 'repo.pick', input: {} });
    await flush();
    expect(h.port.out.at(-1)).toEqual({ type: 'pick-folder', id: 1 });
    h.port.send({ type: 'pick-folder-result', id: 1, path: '/home/me/project' });
    await flush();
    expect(h.port.out.at(-1)).toEqual({ type: 'result', id: 1, result: { ok: true, value: { path: '/home/me/project' } } });
  });

  it('offers no picker when init says there is none', async () => {
    const f = fakeService();
    const h = host(f.create);
    h.init({ ...INIT, folderPicker: false });
    await flush();
    expect(f.options().pickFolder).toBeUndefined();
  });

  it('reports a service that cannot start as fatal', async () => {
    const h = host(async () => {
      throw new Error('The module better_sqlite3.node was compiled against a different Node.js version');
    });
    h.init();
    await flush();
    expect(h.port.out).toEqual([{ type: 'fatal', message: 'The module better_sqlite3.node was compiled against a different Node.js version' }]);
  });

  it('closes the service on shutdown (or when the main process goes away), then exits', async () => {
    const f = fakeService();
    const h = host(f.create);
    h.init();
    await flush();
    h.port.send({ type: 'shutdown' });
    await flush();
    expect(f.service.close).toHaveBeenCalledTimes(1);
    expect(h.port.out.at(-1)).toEqual({ type: 'closed' });
    expect(h.exit).toHaveBeenCalledWith(0);
    h.port.send({ type: 'call', id: 9, name: 'repo.list', input: {} });
    expect(h.port.out.at(-1)).toEqual({ type: 'result', id: 9, result: { ok: false, error: { code: 'engine', message: 'The engine is shutting down.' } } });

    const g = fakeService();
    const h2 = host(g.create);
    h2.init();
    await flush();
    h2.port.emit('close');
    await flush();
    expect(g.service.close).toHaveBeenCalledTimes(1);
    expect(h2.exit).toHaveBeenCalledWith(0);
  });
});

describe('engine key store', () => {
  it('holds the keys the main process decrypted, in memory, and reports where they persist', () => {
    const ks = memoryKeyStore('keychain', { openai: 'sk-a-12345678', gemini: '' });
    expect(ks.kind).toBe('keychain');
    expect(ks.get('openai')).toBe('sk-a-12345678');
    expect(ks.get('gemini')).toBeUndefined();
    ks.set('gemini', 'g-12345678');
    expect(ks.get('gemini')).toBe('g-12345678');
    ks.set('openai', null);
    expect(ks.get('openai')).toBeUndefined();
    expect(memoryKeyStore('session', {}).kind).toBe('session');
  });

  it('maps init onto the service options without sharing arrays', () => {
    const o = serviceOptions(INIT, {}, undefined);
    expect(o.allowedRoots).toEqual(INIT.allowedRoots);
    expect(o.allowedRoots).not.toBe(INIT.allowedRoots);
    expect('pickFolder' in o).toBe(false);
  });
});
