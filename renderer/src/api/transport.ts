// What the UI programs against: the contract's EngineApi plus the state of the event stream (browser mode can
// lose its WebSocket; Electron's IPC cannot).

import type { EngineApi } from './contract.ts';

export type ConnectionState = 'connecting' | 'open' | 'reconnecting';

export interface ConnectionInfo {
  state: ConnectionState;
  /** Reconnect attempts since the stream was last open. */
  attempt: number;
  /** When the next attempt starts (ms since epoch), while reconnecting. */
  retryAt: number | null;
}

export interface Transport extends EngineApi {
  readonly mode: 'electron' | 'browser';
  connection(): ConnectionInfo;
  /** Called on every change; `reopened` is true when the stream came back after a drop (events may have been missed). */
  onConnection(listener: (info: ConnectionInfo, reopened: boolean) => void): () => void;
  close(): void;
}
