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
  const e = (body && typeof body === 'object' && 'error' in body ? body.error : null) as Partial<CallError> | string | null;
  if (e && typeof e === 'object') {
    const code = typeof e.code === 'string' && CODES.has(e.code) ? e.code : status === 401 ? 'unauthorized' : 'engine';
    const message = typeof e.message === 'string' && e.message ? e.message : `the engine answered HTTP ${status} ${statusText}`.trim();
    const issues = Array.isArray(e.issues) ? e.issues.filter((i) => i && typeof i.path === 'string' && typeof i.message === 'string') : undefined;
    const allow = code === 'forbidden-path' && typeof e.allow === 'string' && e.allow ? e.allow : undefined;
    return { code: code, message, ...(issues && issues.length ? { issues } : {}), ...(allow ? { allow } : {}) };
  }
  if (typeof e === 'string') return { code: status === 401 ? 'unauthorized' : 'engine', message: e };
  if (status === 401 || status === 403)
    return { code: 'unauthorized', message: 'the engine rejected this session’s token — open the URL that `opencoder serve` printed again' };
  if (status === 404) return { code: 'not-found', message: `the engine does not know this call (HTTP 404)` };
  return { code: 'engine', message: `the engine answered HTTP ${status}${statusText ? ` ${statusText}` : ''} without a readable error` };
}

export function eventsUrl(origin: string, token: string): string {
  const u = new URL('/api/events', origin);
  u.protocol = u.protocol === 'https:' ? 'wss:' : 'ws:';
  u.searchParams.set('token', token);
  return u.toString();
}

type Timers = NonNullable<HttpTransportOptions['timers']>;

export function createHttpTransport(opts: HttpTransportOptions): Transport {
  const origin = opts.origin ?? globalThis.location?.origin ?? 'http://127.0.0.1';
  const doFetch = opts.fetch ?? globalThis.fetch.bind(globalThis);
  const events = new EventStream(opts, origin);
  return {
    mode: 'browser',
    call: (name, input) => postCall(opts, origin, doFetch, name, input),
    subscribe: (listener) => events.subscribe(listener),
    connection: () => events.connection(),
    onConnection: (listener) => events.onConnection(listener),
    close: () => events.close(),
  };
}

/** One call: validated here, POSTed with the bearer token, its answer unwrapped or thrown as an EngineCallError. */
async function postCall<K extends CallName>(
  opts: HttpTransportOptions,
  origin: string,
  doFetch: typeof fetch,
  name: K,
  input: CallInput<K>,
): Promise<CallOutput<K>> {
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
  const body = await jsonOrNull(res);
  if (body && typeof body === 'object' && (body as { ok?: unknown }).ok === true && res.ok) return (body as { value: CallOutput<K> }).value;
  const error = toCallError(body, res.status, res.statusText);
  if (error.code === 'unauthorized') opts.onUnauthorized?.(error);
  throw new EngineCallError(error);
}

/** The response body as JSON, or null when it is not JSON. */
async function jsonOrNull(res: Response): Promise<unknown> {
  try {
    return await res.json();
  } catch {
    return null;
  }
}

/** The event WebSocket: opened by the first subscriber, reopened with jittered exponential backoff when it drops. */
class EventStream {
  private readonly listeners = new Set<(e: EngineEvent) => void>();
  private readonly connListeners = new Set<(info: ConnectionInfo, reopened: boolean) => void>();
  private info: ConnectionInfo = { state: 'connecting', attempt: 0, retryAt: null };
  private socket: SocketLike | null = null;
  private retryTimer: unknown = null;
  private closed = false;
  private everOpen = false;
  private readonly token: string;
  private readonly origin: string;
  private readonly makeSocket: ((url: string) => SocketLike) | null;
  private readonly timers: Timers;
  private readonly backoff: { initialMs: number; maxMs: number };
  private readonly random: () => number;

  constructor(opts: HttpTransportOptions, origin: string) {
    this.token = opts.token;
    this.origin = origin;
    this.timers = opts.timers ?? { setTimeout: (fn, ms) => globalThis.setTimeout(fn, ms), clearTimeout: (id) => globalThis.clearTimeout(id as number) };
    this.backoff = opts.backoff ?? { initialMs: 500, maxMs: 15_000 };
    this.random = opts.random ?? Math.random;
    this.makeSocket = opts.socket === undefined ? (url: string) => new WebSocket(url) as unknown as SocketLike : opts.socket;
  }

  subscribe(listener: (e: EngineEvent) => void): () => void {
    this.listeners.add(listener);
    if (!this.socket && this.retryTimer === null && !this.closed && this.makeSocket) this.connect();
    return () => this.listeners.delete(listener);
  }

  connection(): ConnectionInfo {
    return this.info;
  }

  onConnection(listener: (info: ConnectionInfo, reopened: boolean) => void): () => void {
    this.connListeners.add(listener);
    return () => this.connListeners.delete(listener);
  }

  close(): void {
    this.closed = true;
    if (this.retryTimer !== null) this.timers.clearTimeout(this.retryTimer);
    this.retryTimer = null;
    this.socket?.close(1000, 'closed by the page');
    this.socket = null;
  }

  private setInfo(next: ConnectionInfo, reopened = false): void {
    this.info = next;
    for (const l of this.connListeners) l(this.info, reopened);
  }

  private connect(): void {
    if (this.closed || !this.makeSocket) return;
    let s: SocketLike;
    try {
      s = this.makeSocket(eventsUrl(this.origin, this.token));
    } catch {
      this.scheduleRetry();
      return;
    }
    this.socket = s;
    s.onopen = () => {
      const reopened = this.everOpen || this.info.attempt > 0;
      this.everOpen = true;
      this.setInfo({ state: 'open', attempt: 0, retryAt: null }, reopened);
    };
    s.onmessage = (ev) => this.deliver(ev.data);
    s.onerror = () => {
      // onclose follows and schedules the retry
    };
    s.onclose = () => {
      if (this.socket === s) this.socket = null;
      if (!this.closed) this.scheduleRetry();
    };
  }

  /** One message: a JSON object with a string `type` goes to every listener; anything else is dropped. */
  private deliver(data: unknown): void {
    let parsed: unknown;
    try {
      parsed = typeof data === 'string' ? JSON.parse(data) : null;
    } catch {
      return;
    }
    if (!parsed || typeof parsed !== 'object' || typeof (parsed as { type?: unknown }).type !== 'string') return;
    for (const l of [...this.listeners]) {
      try {
        l(parsed as EngineEvent);
      } catch (err) {
        console.error('event listener failed', err);
      }
    }
  }

  private scheduleRetry(): void {
    if (this.closed || this.retryTimer !== null) return;
    const attempt = this.info.attempt + 1;
    const base = Math.min(this.backoff.maxMs, this.backoff.initialMs * 2 ** (attempt - 1));
    const delay = Math.round(base * (0.75 + 0.5 * this.random()));
    this.setInfo({ state: 'reconnecting', attempt, retryAt: Date.now() + delay });
    this.retryTimer = this.timers.setTimeout(() => {
      this.retryTimer = null;
      this.connect();
    }, delay);
  }
}
