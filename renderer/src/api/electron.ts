// Electron: the preload exposes `window.opencoder = { call(name, input), subscribe(listener) }` over IPC. Inputs
// are validated here too (the main process validates again), and failures become EngineCallError whatever
// shape they crossed the bridge in.

import { EngineCallError, parseCall, type CallError, type CallInput, type CallName, type CallOutput, type EngineEvent } from './contract.ts';
import type { ConnectionInfo, Transport } from './transport.ts';

export interface PreloadBridge {
  call(name: string, input: unknown): Promise<unknown>;
  subscribe(listener: (e: EngineEvent) => void): (() => void) | void;
}

declare global {
  interface Window {
    opencoder?: PreloadBridge;
  }
}

const CODES = ['unauthorized', 'invalid-input', 'forbidden-path', 'not-found', 'unsupported', 'engine'];

function isCallError(x: unknown): x is CallError {
  return !!x && typeof x === 'object' && typeof (x as CallError).code === 'string' && typeof (x as CallError).message === 'string';
}

/** An error thrown across ipcRenderer.invoke arrives as "Error invoking remote method '…': Error: {json or text}". */
export function errorFromIpc(err: unknown): CallError {
  if (err instanceof EngineCallError) return err.error;
  if (isCallError(err) && CODES.includes(err.code)) return err;
  const inner = err && typeof err === 'object' && 'error' in err ? err.error : null;
  if (isCallError(inner)) return inner;
  const msg = err instanceof Error ? err.message : String(err);
  const json = /\{.*"code".*\}/s.exec(msg)?.[0];
  if (json) {
    try {
      const p = JSON.parse(json) as unknown;
      if (isCallError(p)) return p;
    } catch {
      // not JSON after all
    }
  }
  const clean = msg.replace(/^Error invoking remote method '[^']*':\s*(Error:\s*)?/, '');
  return { code: 'engine', message: clean || 'the engine failed' };
}

export function createElectronTransport(bridge: PreloadBridge): Transport {
  const info: ConnectionInfo = { state: 'open', attempt: 0, retryAt: null };
  return {
    mode: 'electron',
    async call<K extends CallName>(name: K, input: CallInput<K>): Promise<CallOutput<K>> {
      const parsed = parseCall(name, input);
      if (!parsed.ok) throw new EngineCallError(parsed.error);
      let answer: unknown;
      try {
        answer = await bridge.call(name, parsed.value);
      } catch (err) {
        throw new EngineCallError(errorFromIpc(err));
      }
      // The bridge may pass the `{ok, value | error}` envelope through as is.
      if (answer && typeof answer === 'object' && 'ok' in answer && typeof answer.ok === 'boolean') {
        const env = answer as { ok: boolean; value?: unknown; error?: unknown };
        if (env.ok && 'value' in env) return env.value as CallOutput<K>;
        if (!env.ok) throw new EngineCallError(isCallError(env.error) ? env.error : { code: 'engine', message: 'the engine failed' });
      }
      return answer as CallOutput<K>;
    },
    subscribe(listener) {
      const off = bridge.subscribe(listener);
      return typeof off === 'function' ? off : () => {};
    },
    connection: () => info,
    onConnection: () => () => {},
    close: () => {},
  };
}
