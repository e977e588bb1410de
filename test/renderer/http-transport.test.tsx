// @vitest-environment happy-dom
import { afterEach, describe, expect, it, vi } from 'vitest';
import { EngineCallError, type EngineEvent } from '../../contract/index.ts';
import { createElectronTransport } from '../../renderer/src/api/electron.ts';
import { createHttpTransport, eventsUrl, type SocketLike } from '../../renderer/src/api/http.ts';
import { takeToken, TOKEN_KEY, tokenFromHash } from '../../renderer/src/api/token.ts';

function memoryStorage() {
  const m = new Map<string, string>();
  return { getItem: (k: string) => m.get(k) ?? null, setItem: (k: string, v: string) => void m.set(k, v), removeItem: (k: string) => void m.delete(k), m };
}

function jsonResponse(status: number, body: unknown): Response {
  return new Response(typeof body === 'string' ? body : JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });
}

describe('session token', () => {
  it('reads #token=… , stores it for the tab and removes it from the address bar', () => {
    const storage = memoryStorage();
    const replaceState = vi.fn();
    const token = takeToken({ location: { hash: '#token=abc_DEF-123', pathname: '/', search: '?x=1' }, history: { replaceState, state: null }, storage });
    expect(token).toBe('abc_DEF-123');
    expect(storage.m.get(TOKEN_KEY)).toBe('abc_DEF-123');
    expect(replaceState).toHaveBeenCalledWith(null, '', '/?x=1');
  });

  it('falls back to the stored token after a reload, and to null without one', () => {
    const storage = memoryStorage();
    const replaceState = vi.fn();
    expect(takeToken({ location: { hash: '', pathname: '/', search: '' }, history: { replaceState }, storage })).toBeNull();
    storage.setItem(TOKEN_KEY, 'kept');
    expect(takeToken({ location: { hash: '', pathname: '/', search: '' }, history: { replaceState }, storage })).toBe('kept');
    expect(replaceState).not.toHaveBeenCalled();
  });

  it('parses the token among other hash parameters', () => {
    expect(tokenFromHash('#view=task&token=t0k')).toBe('t0k');
    expect(tokenFromHash('#token=')).toBeNull();
    expect(tokenFromHash('')).toBeNull();
  });
});

describe('HTTP transport', () => {
  const origin = 'http://127.0.0.1:4321';

  it('POSTs /api/call/<name> with the bearer token and the validated input, and answers the value', async () => {
    const fetch = vi.fn(async () => jsonResponse(200, { ok: true, value: { jobId: 'job-1' } }));
    const t = createHttpTransport({ token: 'secret', origin, fetch: fetch, socket: null });
    const r = await t.call('repo.index', { path: '/home/analyst/repo' });
    expect(r).toEqual({ jobId: 'job-1' });
    expect(fetch).toHaveBeenCalledTimes(1);
    const [url, init] = fetch.mock.calls[0] as unknown as [string, RequestInit];
    expect(url).toBe(`${origin}/api/call/repo.index`);
    expect(init.method).toBe('POST');
    expect((init.headers as Record<string, string>).Authorization).toBe('Bearer secret');
    expect((init.headers as Record<string, string>)['Content-Type']).toBe('application/json');
    expect(JSON.parse(init.body as string)).toEqual({ path: '/home/analyst/repo' });
  });

  it('sends the parsed input (schema defaults applied)', async () => {
    const fetch = vi.fn(async () => jsonResponse(200, { ok: true, value: [] }));
    const t = createHttpTransport({ token: 's', origin, fetch: fetch, socket: null });
    await t.call('repo.skipped', { repoId: 3 });
    expect(JSON.parse((fetch.mock.calls[0] as unknown as [string, RequestInit])[1].body as string)).toEqual({ repoId: 3, limit: 500 });
  });

  it('refuses invalid input before sending, naming the field', async () => {
    const fetch = vi.fn();
    const t = createHttpTransport({ token: 's', origin, fetch: fetch, socket: null });
    const err = await t.call('repo.index', { path: 'relative/path' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(EngineCallError);
    expect((err as EngineCallError).error.code).toBe('invalid-input');
    expect((err as EngineCallError).error.issues?.[0]?.path).toBe('path');
    expect(fetch).not.toHaveBeenCalled();
  });

  it('maps an engine error answer to EngineCallError with code, message and issues', async () => {
    const fetch = vi.fn(async () =>
      jsonResponse(403, {
        ok: false,
        error: { code: 'forbidden-path', message: '/etc is outside the allowed roots', issues: [{ path: 'path', message: 'outside' }] },
      }),
    );
    const t = createHttpTransport({ token: 's', origin, fetch: fetch, socket: null });
    const err = (await t.call('repo.index', { path: '/etc' }).catch((e: unknown) => e)) as EngineCallError;
    expect(err).toBeInstanceOf(EngineCallError);
    expect(err.error).toEqual({ code: 'forbidden-path', message: '/etc is outside the allowed roots', issues: [{ path: 'path', message: 'outside' }] });
    expect(err.message).toBe('/etc is outside the allowed roots');
  });

  it('reports a rejected token as unauthorized and tells the app', async () => {
    const onUnauthorized = vi.fn();
    const fetch = vi.fn(async () => jsonResponse(401, { ok: false, error: { code: 'unauthorized', message: 'Missing or wrong token.' } }));
    const t = createHttpTransport({ token: 'old', origin, fetch: fetch, socket: null, onUnauthorized });
    const err = (await t.call('app.info', {}).catch((e: unknown) => e)) as EngineCallError;
    expect(err.error.code).toBe('unauthorized');
    expect(onUnauthorized).toHaveBeenCalledWith(expect.objectContaining({ code: 'unauthorized' }));
  });

  it('maps a non-JSON failure and a network failure to readable engine errors', async () => {
    const bad = vi.fn(async () => new Response('<html>Bad gateway</html>', { status: 502, statusText: 'Bad Gateway' }));
    const t1 = createHttpTransport({ token: 's', origin, fetch: bad, socket: null });
    const e1 = (await t1.call('app.info', {}).catch((e: unknown) => e)) as EngineCallError;
    expect(e1.error.code).toBe('engine');
    expect(e1.error.message).toContain('502');

    const down = vi.fn(async () => {
      throw new TypeError('Failed to fetch');
    });
    const t2 = createHttpTransport({ token: 's', origin, fetch: down, socket: null });
    const e2 = (await t2.call('app.info', {}).catch((e: unknown) => e)) as EngineCallError;
    expect(e2.error.code).toBe('engine');
    expect(e2.error.message).toMatch(/cannot reach the engine.*Failed to fetch/);

    const unknownCode = vi.fn(async () => jsonResponse(500, { ok: false, error: { code: 'weird', message: 'boom' } }));
    const t3 = createHttpTransport({ token: 's', origin, fetch: unknownCode, socket: null });
    const e3 = (await t3.call('app.info', {}).catch((e: unknown) => e)) as EngineCallError;
    expect(e3.error).toEqual({ code: 'engine', message: 'boom' });
  });
});

class FakeSocket implements SocketLike {
  static all: FakeSocket[] = [];
  onopen: ((ev: unknown) => void) | null = null;
  onclose: ((ev: unknown) => void) | null = null;
  onerror: ((ev: unknown) => void) | null = null;
  onmessage: ((ev: { data: unknown }) => void) | null = null;
  closed = false;
  constructor(readonly url: string) {
    FakeSocket.all.push(this);
  }
  close() {
    this.closed = true;
  }
  open() {
    this.onopen?.({});
  }
  drop() {
    this.onclose?.({});
  }
  send(e: unknown) {
    this.onmessage?.({ data: typeof e === 'string' ? e : JSON.stringify(e) });
  }
}

describe('event stream', () => {
  afterEach(() => {
    FakeSocket.all = [];
    vi.useRealTimers();
  });

  it('builds the socket URL with the token on the same host', () => {
    expect(eventsUrl('http://127.0.0.1:4321', 'a b')).toBe('ws://127.0.0.1:4321/api/events?token=a+b');
    expect(eventsUrl('https://example.test', 't')).toBe('wss://example.test/api/events?token=t');
  });

  it('delivers JSON events, ignores garbage, and reconnects with growing backoff', async () => {
    vi.useFakeTimers();
    const t = createHttpTransport({
      token: 'tok',
      origin: 'http://127.0.0.1:9',
      fetch: vi.fn(),
      socket: (u) => new FakeSocket(u),
      backoff: { initialMs: 100, maxMs: 1000 },
      random: () => 0.5,
    });
    const states: string[] = [];
    const reopened: boolean[] = [];
    t.onConnection((info, re) => {
      states.push(info.state);
      reopened.push(re);
    });
    const events: EngineEvent[] = [];
    t.subscribe((e) => events.push(e));
    expect(FakeSocket.all).toHaveLength(1);
    expect(FakeSocket.all[0]!.url).toBe('ws://127.0.0.1:9/api/events?token=tok');
    FakeSocket.all[0]!.open();
    FakeSocket.all[0]!.send({ type: 'repos-changed' });
    FakeSocket.all[0]!.send('not json');
    FakeSocket.all[0]!.send({ nope: 1 });
    expect(events).toEqual([{ type: 'repos-changed' }]);

    FakeSocket.all[0]!.drop();
    expect(t.connection().state).toBe('reconnecting');
    expect(t.connection().attempt).toBe(1);
    await vi.advanceTimersByTimeAsync(99);
    expect(FakeSocket.all).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(FakeSocket.all).toHaveLength(2);
    FakeSocket.all[1]!.drop(); // the server is still down
    expect(t.connection().attempt).toBe(2);
    await vi.advanceTimersByTimeAsync(199);
    expect(FakeSocket.all).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(1);
    expect(FakeSocket.all).toHaveLength(3);
    FakeSocket.all[2]!.open();
    expect(t.connection()).toEqual({ state: 'open', attempt: 0, retryAt: null });
    expect(states).toEqual(['open', 'reconnecting', 'reconnecting', 'open']);
    expect(reopened).toEqual([false, false, false, true]);
    FakeSocket.all[2]!.send({ type: 'runs-changed' });
    expect(events.map((e) => e.type)).toEqual(['repos-changed', 'runs-changed']);

    t.close();
    expect(FakeSocket.all[2]!.closed).toBe(true);
    FakeSocket.all[2]!.drop();
    await vi.advanceTimersByTimeAsync(5000);
    expect(FakeSocket.all).toHaveLength(3);
  });
});

describe('Electron transport', () => {
  it('unwraps the preload envelope and throws its CallError', async () => {
    const bridge = {
      call: vi.fn(async (name: string) =>
        name === 'app.info' ? { ok: true, value: { version: '1' } } : { ok: false, error: { code: 'not-found', message: 'no run x', issues: [] } },
      ),
      subscribe: vi.fn(() => () => {}),
    };
    const t = createElectronTransport(bridge);
    expect(await t.call('app.info', {})).toEqual({ version: '1' });
    const err = (await t.call('experiment.model', { runIds: ['x'] }).catch((e: unknown) => e)) as EngineCallError;
    expect(err).toBeInstanceOf(EngineCallError);
    expect(err.error.code).toBe('not-found');
    const bad = (await t.call('experiment.model', { runIds: [] }).catch((e: unknown) => e)) as EngineCallError;
    expect(bad.error.code).toBe('invalid-input');
    expect(bridge.call).toHaveBeenCalledTimes(2);
    expect(t.connection().state).toBe('open');
  });
});
