// The engine process's side of the connection (app/engine-process.ts runs it inside Electron's utility
// process): waits for `init` and its MessagePort, creates the engine service, answers each call with the
// request id it came with, forwards the service's events, and asks the main process for the folder picker.
//
// No electron import: the ports are structural, so tests run it with fakes and a fake service.

import type { EngineService, KeyStore, ServiceOptions } from '../main/host/service.ts';
import {
  engineError,
  isInitMessage,
  isMainToEngine,
  messageOf,
  type CallResult,
  type EngineInit,
  type EngineToMain,
  type MainToEngine,
  type Provider,
} from './engine-protocol.ts';

export interface EnginePortLike {
  postMessage(message: EngineToMain): void;
  on(event: 'message', listener: (e: { data: unknown }) => void): unknown;
  on(event: 'close', listener: () => void): unknown;
  start(): void;
}

export interface ParentPortLike {
  on(event: 'message', listener: (e: { data: unknown; ports: EnginePortLike[] }) => void): unknown;
}

export interface EngineHostDeps {
  parentPort: ParentPortLike;
  createEngineService(opts: ServiceOptions): Promise<EngineService>;
  exit(code: number): void;
  env: NodeJS.ProcessEnv;
  log?(line: string): void;
}

/** The keys the main process decrypted, held in this process's memory; `kind` says where the main process keeps them. */
export function memoryKeyStore(kind: KeyStore['kind'], initial: Partial<Record<Provider, string>>): KeyStore {
  const keys = new Map<Provider, string>();
  for (const p of ['openai', 'gemini'] as const) {
    const k = initial[p];
    if (typeof k === 'string' && k) keys.set(p, k);
  }
  return {
    kind,
    get: (p) => keys.get(p),
    set: (p, key) => {
      if (key === null) keys.delete(p);
      else keys.set(p, key);
    },
  };
}

export function serviceOptions(init: EngineInit, env: NodeJS.ProcessEnv, pickFolder: (() => Promise<string | null>) | undefined): ServiceOptions {
  return {
    dbPath: init.dbPath,
    mode: 'electron',
    allowedRoots: [...init.allowedRoots],
    keys: memoryKeyStore(init.keyStorage, init.keys),
    settingsFile: init.settingsFile,
    dataDir: init.dataDir,
    modelsDir: init.modelsDir,
    demo: init.demo,
    env,
    ...(pickFolder ? { pickFolder } : {}),
  };
}

export function runEngineHost(deps: EngineHostDeps): void {
  let started = false;
  deps.parentPort.on('message', (e) => {
    if (started || !isInitMessage(e.data)) return;
    const port = e.ports[0];
    if (!port) return;
    started = true;
    void serve(deps, e.data.init, port);
  });
}

/** What one connection's handlers share: the service once created, and the shutdown once begun. */
interface HostState {
  service: EngineService | null;
  closing: Promise<void> | null;
}

type Post = (m: EngineToMain) => void;

async function serve(deps: EngineHostDeps, init: EngineInit, port: EnginePortLike): Promise<void> {
  const post = poster(deps, port);
  const state: HostState = { service: null, closing: null };
  const picker = init.folderPicker ? folderPicker(post) : undefined;
  const close = (code: number) => (state.closing ??= closeEngine(deps, state, post, code));

  port.on('message', (e) => {
    const msg = e.data;
    if (!isMainToEngine(msg)) return;
    switch (msg.type) {
      case 'call':
        answerCall(state, post, msg);
        return;
      case 'pick-folder-result':
        picker?.answer(msg.id, msg.path);
        return;
      case 'shutdown':
        void close(0);
        return;
    }
  });
  // The main process is gone (it crashed, or the app quit without a shutdown message): close the store cleanly.
  port.on('close', () => void close(0));
  port.start();

  let service: EngineService;
  try {
    service = await deps.createEngineService(serviceOptions(init, deps.env, picker?.pick));
  } catch (err) {
    post({ type: 'fatal', message: messageOf(err) });
    return;
  }
  state.service = service;
  if (state.closing) {
    await service.close().catch(() => {});
    return;
  }
  service.subscribe((event) => post({ type: 'event', event }));
  post({ type: 'ready' });
}

/** Posts to the main process; a result that cannot be sent (not cloneable) is answered with an error instead. */
function poster(deps: EngineHostDeps, port: EnginePortLike): Post {
  return (m) => {
    try {
      port.postMessage(m);
    } catch (err) {
      if (m.type === 'result')
        port.postMessage({ type: 'result', id: m.id, result: engineError(`The answer could not be sent to the window: ${messageOf(err)}`) });
      else deps.log?.(`could not post ${m.type}: ${messageOf(err)}`);
    }
  };
}

/** The folder picker lent to the service: each pick asks the main process and waits for its answer by id. */
function folderPicker(post: Post): { pick: () => Promise<string | null>; answer: (id: number, path: string | null) => void } {
  let nextPick = 1;
  const picks = new Map<number, (path: string | null) => void>();
  return {
    pick: () =>
      new Promise<string | null>((resolve) => {
        const id = nextPick++;
        picks.set(id, resolve);
        post({ type: 'pick-folder', id });
      }),
    answer: (id, path) => {
      const resolve = picks.get(id);
      picks.delete(id);
      resolve?.(path);
    },
  };
}

/** Runs one call on the service and posts its result under the request's id. */
function answerCall(state: HostState, post: Post, msg: Extract<MainToEngine, { type: 'call' }>): void {
  const { id, name, input } = msg;
  if (!state.service || state.closing) {
    post({ type: 'result', id, result: engineError(state.closing ? 'The engine is shutting down.' : 'The engine is still starting.') });
    return;
  }
  state.service.call(name, input).then(
    (result: CallResult) => post({ type: 'result', id, result }),
    (err: unknown) => post({ type: 'result', id, result: engineError(messageOf(err)) }),
  );
}

async function closeEngine(deps: EngineHostDeps, state: HostState, post: Post, code: number): Promise<void> {
  try {
    await state.service?.close();
  } catch (err) {
    deps.log?.(`closing the engine failed: ${messageOf(err)}`);
  }
  post({ type: 'closed' });
  deps.exit(code);
}
