// Browser mode: calls are `POST /api/call/<name>` with a bearer token, answered `{ok:true,value}` or
// `{ok:false,error}`; events arrive on a WebSocket at `/api/events?token=…` and the socket is reopened with
// exponential backoff when it drops. Inputs are validated with the contract's schemas before anything is sent.

import { EngineCallError, parseCall, type CallError, type CallInput, type CallName, type CallOutput, type EngineEvent } from './contract.ts';
import type { ConnectionInfo, Transport } from './transport.ts';

export interface SocketLike {
  onopen: ((ev: unknown) => void) | null;
  onclose: ((ev: unknown) => void) | null;
  onerror: ((ev: unknown) => void) | null;
  onmessage: ((ev: { data: unknown }) => void) | null;
  close(code?: number, reason?: string): void;
}

export interface HttpTransportOptions {
  token: string;
  /** `http://127.0.0.1:1234`; default: this page's origin. */
  origin?: string;
  fetch?: typeof fetch;
  /** Builds the event socket; null disables events (tests of calls only). */
  socket?: ((url: string) => SocketLike) | null;
  backoff?: { initialMs: number; maxMs: number };
  /** Told when the server rejects the token (the UI then explains how to get a new one). */
  onUnauthorized?: (error: CallError) => void;
  timers?: { setTimeout: (fn: () => void, ms: number) => unknown; clearTimeout: (id: unknown) => void };
  random?: () => number;
}

const CODES = new Set(['unauthorized', 'invalid-input', 'forbidden-path', 'not-found', 'unsupported', 'engine']);

/** Any failure answer → a CallError with a known code and a readable message. */
export function toCallError(body: unknown, status: number, statusText: string): CallError {
  const e = (body && typeof body === 'object' && 'error' in body ? (body as { error: unknown }).error : null) as Partial<CallError> | string | null;
  if (e && typeof e === 'object') {
    const code = typeof e.code === 'string' && CODES.has(e.code) ? e.code : status === 401 ? 'unauthorized' : 'engine';
    const message = typeof e.message === 'string' && e.message ? e.message : `the engine answered HTTP ${status} ${statusText}`.trim();
    const issues = Array.isArray(e.issues) ? e.issues.filter((i) => i && typeof i.path === 'string' && typeof i.message === 'string') : undefined;
    return { code: code as CallError['code'], message, ...(issues && issues.length ? { issues } : {}) };
  }
  if (typeof e === 'string') return { code: status === 401 ? 'unauthorized' : 'engine', message: e };
  if (status === 401 || status === 403) return { code: 'unauthorized', message: 'the engine rejected this session’s token — open the URL that `opencoder serve` printed again' };
  if (status === 404) return { code: 'not-found', message: `the engine does not know this call (HTTP 404)` };
  return { code: 'engine', message: `the engine answered HTTP ${status}${statusText ? ` ${statusText}` : ''} without a readable error` };
}

export function eventsUrl(origin: string, token: string): string {
  const u = new URL('/api/events', origin);
  u.protocol = u.protocol === 'https:' ? 'wss:' : 'ws:';
  u.searchParams.set('token', token);
  return u.toString();
}

export function createHttpTransport(opts: HttpTransportOptions): Transport {
  const origin = opts.origin ?? globalThis.location?.origin ?? 'http://127.0.0.1';
  const doFetch = opts.fetch ?? globalThis.fetch.bind(globalThis);
  const timers = opts.timers ?? { setTimeout: (fn, ms) => globalThis.setTimeout(fn, ms), clearTimeout: (id) => globalThis.clearTimeout(id as number) };
  const backoff = opts.backoff ?? { initialMs: 500, maxMs: 15_000 };
  const random = opts.random ?? Math.random;
  const makeSocket =
    opts.socket === undefined ? (url: string) => new WebSocket(url) as unknown as SocketLike : opts.socket;

  const listeners = new Set<(e: EngineEvent) => void>();
  const connListeners = new Set<(info: ConnectionInfo, reopened: boolean) => void>();
  let info: ConnectionInfo = { state: 'connecting', attempt: 0, retryAt: null };
  let socket: SocketLike | null = null;
  let retryTimer: unknown = null;
  let closed = false;
  let everOpen = false;

  const setInfo = (next: ConnectionInfo, reopened = false) => {
    info = next;
    for (const l of connListeners) l(info, reopened);
  };

  const connect = () => {
    if (closed || !makeSocket) return;
    let s: SocketLike;
    try {
      s = makeSocket(eventsUrl(origin, opts.token));
    } catch {
      scheduleRetry();
      return;
    }
    socket = s;
    s.onopen = () => {
      const reopened = everOpen || info.attempt > 0;
      everOpen = true;
      setInfo({ state: 'open', attempt: 0, retryAt: null }, reopened);
    };
    s.onmessage = (ev) => {
      let parsed: unknown;
      try {
        parsed = typeof ev.data === 'string' ? JSON.parse(ev.data) : null;
      } catch {
        return;
      }
      if (!parsed || typeof parsed !== 'object' || typeof (parsed as { type?: unknown }).type !== 'string') return;
      for (const l of [...listeners]) {
        try {
          l(parsed as EngineEvent);
        } catch (err) {
          console.error('event listener failed', err);
        }
      }
    };
    s.onerror = () => {
      // onclose follows and schedules the retry
    };
    s.onclose = () => {
      if (socket === s) socket = null;
      if (!closed) scheduleRetry();
    };
  };

  const scheduleRetry = () => {
    if (closed || retryTimer !== null) return;
    const attempt = info.attempt + 1;
    const base = Math.min(backoff.maxMs, backoff.initialMs * 2 ** (attempt - 1));
    const delay = Math.round(base * (0.75 + 0.5 * random()));
    setInfo({ state: 'reconnecting', attempt, retryAt: Date.now() + delay });
    retryTimer = timers.setTimeout(() => {
      retryTimer = null;
      connect();
    }, delay);
  };

  const call = async <K extends CallName>(name: K, input: CallInput<K>): Promise<CallOutput<K>> => {
    const parsed = parseCall(name, input);
    if (!parsed.ok) throw new EngineCallError(parsed.error);
    let res: Response;
    try {
      res = await doFetch(new URL(`/api/call/${name}`, origin).toString(), {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${opts.token}` },
        body: JSON.stringify(parsed.value),
        cache: 'no-store',
      });
    } catch (err) {
      throw new EngineCallError({
        code: 'engine',
        message: `cannot reach the engine at ${origin} (${err instanceof Error ? err.message : String(err)}) — is \`opencoder serve\` still running?`,
      });
    }
    let body: unknown = null;
    try {
      body = await res.json();
    } catch {
      body = null;
    }
    if (body && typeof body === 'object' && (body as { ok?: unknown }).ok === true && res.ok) return (body as { value: CallOutput<K> }).value;
    const error = toCallError(body, res.status, res.statusText);
    if (error.code === 'unauthorized') opts.onUnauthorized?.(error);
    throw new EngineCallError(error);
  };

  return {
    mode: 'browser',
    call,
    subscribe(listener) {
      listeners.add(listener);
      if (!socket && retryTimer === null && !closed && makeSocket) connect();
      return () => listeners.delete(listener);
    },
    connection: () => info,
    onConnection(listener) {
      connListeners.add(listener);
      return () => connListeners.delete(listener);
    },
    close() {
      closed = true;
      if (retryTimer !== null) timers.clearTimeout(retryTimer);
      retryTimer = null;
      socket?.close(1000, 'closed by the page');
      socket = null;
    },
  };
}
