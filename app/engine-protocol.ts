// The messages between the Electron main process and the engine's utility process. The main process sends
// `init` once through the utility process's parent port, carrying the MessagePort that every later message
// uses (both directions), so the window's IPC never waits on the engine's event loop and vice versa.
//
// Plain data only: everything here crosses a structured clone.

import type { CallError, EngineEvent, KeyProvider } from '../contract/index.ts';

/** Renderer ⇄ main channels (ipcMain.handle / webContents.send). */
export const CALL_CHANNEL = 'opencoder:call';
export const EVENT_CHANNEL = 'opencoder:event';

/** The key providers (contract/shared.ts KEY_PROVIDERS), as the keychain names them. Listed again, typed by the
 * contract, because the app's bundle takes only the contract's call names, not its values. */
export type Provider = KeyProvider;
export const PROVIDERS: readonly Provider[] = ['openai', 'gemini'];

/** What every call answers, across every hop (engine → main → preload → renderer). */
export type CallResult = { ok: true; value: unknown } | { ok: false; error: CallError };

/** What the engine process needs to start; the main process decides every path. */
export interface EngineInit {
  dbPath: string;
  dataDir: string;
  settingsFile: string;
  modelsDir: string;
  allowedRoots: string[];
  /** Where keys persist: the OS keychain (encrypted by the main process) or nowhere (this session only). */
  keyStorage: 'keychain' | 'session';
  /** Decrypted keys, held in the engine's memory only. */
  keys: Partial<Record<Provider, string>>;
  /** Whether the engine may ask the main process for the native folder picker. */
  folderPicker: boolean;
  demo: boolean;
}

export type InitMessage = { type: 'init'; init: EngineInit };

export type MainToEngine =
  { type: 'call'; id: number; name: string; input: unknown } | { type: 'pick-folder-result'; id: number; path: string | null } | { type: 'shutdown' };

export type EngineToMain =
  | { type: 'ready' }
  /** The engine could not start (a broken database, a native module built for another ABI…): restarting will not help. */
  | { type: 'fatal'; message: string }
  | { type: 'result'; id: number; result: CallResult }
  | { type: 'event'; event: EngineEvent }
  | { type: 'pick-folder'; id: number }
  | { type: 'closed' };

const isObj = (x: unknown): x is Record<string, unknown> => !!x && typeof x === 'object';
const isId = (x: unknown): x is number => typeof x === 'number' && Number.isSafeInteger(x) && x > 0;

export function isCallResult(x: unknown): x is CallResult {
  if (!isObj(x) || typeof x.ok !== 'boolean') return false;
  if (x.ok) return 'value' in x;
  return isObj(x.error) && typeof x.error.code === 'string' && typeof x.error.message === 'string';
}

export function isEngineToMain(x: unknown): x is EngineToMain {
  if (!isObj(x)) return false;
  switch (x.type) {
    case 'ready':
    case 'closed':
      return true;
    case 'fatal':
      return typeof x.message === 'string';
    case 'result':
      return isId(x.id) && isCallResult(x.result);
    case 'event':
      return isObj(x.event) && typeof x.event.type === 'string';
    case 'pick-folder':
      return isId(x.id);
    default:
      return false;
  }
}

export function isMainToEngine(x: unknown): x is MainToEngine {
  if (!isObj(x)) return false;
  switch (x.type) {
    case 'call':
      return isId(x.id) && typeof x.name === 'string';
    case 'pick-folder-result':
      return isId(x.id) && (x.path === null || typeof x.path === 'string');
    case 'shutdown':
      return true;
    default:
      return false;
  }
}

export function isInitMessage(x: unknown): x is InitMessage {
  if (!isObj(x) || x.type !== 'init' || !isObj(x.init)) return false;
  const i = x.init;
  return (
    typeof i.dbPath === 'string' &&
    typeof i.dataDir === 'string' &&
    typeof i.settingsFile === 'string' &&
    typeof i.modelsDir === 'string' &&
    Array.isArray(i.allowedRoots) &&
    i.allowedRoots.every((r) => typeof r === 'string') &&
    (i.keyStorage === 'keychain' || i.keyStorage === 'session') &&
    isObj(i.keys) &&
    typeof i.folderPicker === 'boolean' &&
    typeof i.demo === 'boolean'
  );
}

export const engineError = (message: string): CallResult => ({ ok: false, error: { code: 'engine', message } });

export function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
