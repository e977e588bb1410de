// Picks the transport: the Electron preload bridge when it exists, else browser mode with the token from the
// URL hash (or this tab's sessionStorage). No token → the app explains how to open it.

import { createElectronTransport } from './electron.ts';
import { createHttpTransport } from './http.ts';
import { forgetToken, takeToken } from './token.ts';
import type { Transport } from './transport.ts';
import type { CallError } from './contract.ts';

export type Boot = { kind: 'ready'; transport: Transport } | { kind: 'no-token' };

export function boot(onUnauthorized: (e: CallError) => void): Boot {
  if (typeof window !== 'undefined' && window.opencoder) return { kind: 'ready', transport: createElectronTransport(window.opencoder) };
  const token = takeToken({ location: window.location, history: window.history, storage: window.sessionStorage });
  if (!token) return { kind: 'no-token' };
  return {
    kind: 'ready',
    transport: createHttpTransport({
      token,
      onUnauthorized: (e) => {
        forgetToken({ storage: window.sessionStorage });
        onUnauthorized(e);
      },
    }),
  };
}

export type { Transport, ConnectionInfo, ConnectionState } from './transport.ts';
