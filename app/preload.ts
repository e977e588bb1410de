// The preload (sandboxed, context-isolated): exposes `window.opencoder` with exactly the contract — `call` and
// `subscribe` — and nothing of ipcRenderer or Node. Bundled to CommonJS (dist/app/preload.cjs), as a
// sandboxed preload must be; its only require is `electron`.
//
// `call(name, input)` resolves to the contract's envelope `{ ok: true, value } | { ok: false, error: CallError }`
// and never rejects: a CallError's code and issues survive the context bridge, which a thrown Error's would not.
// Names that are not contract calls are refused here, before anything is sent.
// Events that arrive before the UI subscribes (a keychain or crash notice at start-up) are kept — the last
// 100 — and handed to the first subscriber.

import { contextBridge, ipcRenderer, type IpcRendererEvent } from 'electron';
import { isCallName, type CallError, type EngineEvent } from '../contract/index.ts';
import { CALL_CHANNEL, EVENT_CHANNEL, isCallResult, type CallResult } from './engine-protocol.ts';

export interface OpenCoderBridge {
  call(name: string, input?: unknown): Promise<CallResult>;
  subscribe(listener: (e: EngineEvent) => void): () => void;
}

const EARLY_LIMIT = 100;

const failure = (code: CallError['code'], message: string): CallResult => ({ ok: false, error: { code, message } });

export function createBridge(ipc: Pick<typeof ipcRenderer, 'invoke' | 'on'>): OpenCoderBridge {
  const listeners = new Set<(e: EngineEvent) => void>();
  let early: EngineEvent[] | null = [];

  ipc.on(EVENT_CHANNEL, (_event: IpcRendererEvent, e: EngineEvent) => {
    if (early) {
      early.push(e);
      if (early.length > EARLY_LIMIT) early.shift();
      return;
    }
    for (const l of [...listeners]) {
      try {
        l(e);
      } catch (err) {
        console.error('opencoder: an event listener threw', err);
      }
    }
  });

  return {
    call(name: string, input?: unknown): Promise<CallResult> {
      if (!isCallName(name)) return Promise.resolve(failure('not-found', `unknown call ${String(name).slice(0, 100)}`));
      let sent: Promise<unknown>;
      try {
        sent = ipc.invoke(CALL_CHANNEL, name, input ?? {});
      } catch (err) {
        return Promise.resolve(failure('invalid-input', `The input of ${name} cannot be sent: ${err instanceof Error ? err.message : String(err)}`));
      }
      return sent.then(
        (r) => (isCallResult(r) ? r : failure('engine', `The main process gave no answer to ${name}.`)),
        (err: unknown) => failure('engine', err instanceof Error ? err.message : String(err)),
      );
    },
    subscribe(listener: (e: EngineEvent) => void): () => void {
      if (typeof listener !== 'function') throw new TypeError('subscribe needs a function');
      listeners.add(listener);
      if (early) {
        const replay = early;
        early = null;
        for (const e of replay) {
          try {
            listener(e);
          } catch (err) {
            console.error('opencoder: an event listener threw', err);
          }
        }
      }
      return () => {
        listeners.delete(listener);
      };
    },
  };
}

const bridge = createBridge(ipcRenderer);
// Plain functions only: contextBridge copies the object, so the page gets proxies of these two and nothing else.
contextBridge.exposeInMainWorld(
  'opencoder',
  Object.freeze({
    call: (name: string, input?: unknown) => bridge.call(name, input),
    subscribe: (listener: (e: EngineEvent) => void) => bridge.subscribe(listener),
  }),
);
