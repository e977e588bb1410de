// Browser mode: the contract over HTTP + WebSocket on 127.0.0.1, plus the built renderer as static files.
//
//   POST /api/call/<name>           JSON body = the call's input; `Authorization: Bearer <token>`
//                                   → { ok: true, value } | { ok: false, error: CallError }
//   GET  /api/events?token=<token>  WebSocket upgrade; every EngineEvent as one JSON text message
//   GET  /…                         static files of the renderer build (SPA fallback to index.html), no token
//
// Defences: a random token per launch (compared in constant time) on every API call and the event socket; the
// Host header must name this server (DNS rebinding); a foreign Origin is refused; bodies over 1 MiB are refused;
// static files cannot escape the renderer folder; a strict Content-Security-Policy on every page.

import { randomBytes, createHash, timingSafeEqual } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { Duplex } from 'node:stream';
import { WebSocketServer, WebSocket } from 'ws';
import type { CallError, EngineEvent } from '../../contract/index.ts';
import { contentTypeOf } from './mime.ts';
import type { EngineService } from './service.ts';
import { packageRoot } from './paths.ts';

export const MAX_BODY_BYTES = 1024 * 1024;

export interface ServerOptions {
  service: EngineService;
  /** 0 or absent: a free port. */
  port?: number;
  host?: string;
  /** The Vite build of renderer/ (default <packageRoot>/dist/renderer). */
  rendererDir?: string;
  /** A fixed token (tests); default: 24 random bytes, base64url. */
  token?: string;
}

export interface RunningServer {
  /** `http://127.0.0.1:PORT` — the API base (no trailing slash). */
  url: string;
  /** What a person opens: `http://127.0.0.1:PORT/#token=TOKEN` (the fragment never reaches the server). */
  openUrl: string;
  token: string;
  port: number;
  close(): Promise<void>;
}

export function defaultRendererDir(): string {
  return path.join(packageRoot(), 'dist', 'renderer');
}

const STATUS: Record<CallError['code'], number> = {
  'invalid-input': 400,
  unsupported: 400,
  unauthorized: 401,
  'forbidden-path': 403,
  'not-found': 404,
  // The request was fine; the user stopped the work it started.
  cancelled: 409,
  engine: 500,
};

const UNAUTHORIZED =
  'Missing or wrong token. Send the header "Authorization: Bearer <token>" (the event socket takes ?token=<token>). ' +
  'The token is printed by `opencoder serve` when it starts, and is part of the URL it prints (after #token=).';

function digest(s: string): Buffer {
  return createHash('sha256').update(s, 'utf8').digest();
}

/** Constant-time comparison (both sides hashed first, so their lengths leak nothing either). */
export function tokenMatches(given: string | null | undefined, token: string): boolean {
  if (typeof given !== 'string' || !given) return false;
  return timingSafeEqual(digest(given), digest(token));
}

function csp(port: number): string {
  return [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self' data:",
    `connect-src 'self' ws://127.0.0.1:${port} ws://localhost:${port}`,
    "frame-src 'self' blob:",
    "worker-src 'self' blob:",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

const NOT_BUILT = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>OpenCoder — UI not built</title>
<style>body{font:15px/1.5 system-ui,sans-serif;max-width:42rem;margin:4rem auto;padding:0 1rem;color:#222}code{background:#f3f3f3;padding:.1rem .3rem;border-radius:3px}</style></head>
<body><h1>The OpenCoder UI is not built yet</h1>
<p>The engine is running and its API answers at <code>/api/call/&lt;name&gt;</code>, but there is no renderer build to show.</p>
<p>Build it with <code>npm run build:renderer</code> (the Vite build of <code>renderer/</code> into <code>dist/renderer</code>), then reload this page.
<code>opencoder serve</code> builds it by itself when Vite is installed.</p></body></html>
`;

/** What every handler needs: the engine, the token, where the renderer build lives, and the bound port. */
interface ServerContext {
  service: EngineService;
  host: string;
  token: string;
  rendererDir: string;
  /** 0 until the server listens, then the port it got. */
  port: number;
}

export async function startServer(opts: ServerOptions): Promise<RunningServer> {
  const host = opts.host ?? '127.0.0.1';
  const ctx: ServerContext = {
    service: opts.service,
    host,
    token: opts.token ?? randomBytes(24).toString('base64url'),
    rendererDir: path.resolve(opts.rendererDir ?? defaultRendererDir()),
    port: 0,
  };

  const server = http.createServer((req, res) => {
    handle(ctx, req, res).catch((err) => {
      if (!res.headersSent)
        sendJson(res, 500, { ok: false, error: { code: 'engine', message: `internal server error: ${(err as Error)?.message ?? String(err)}` } });
      else res.destroy();
    });
  });
  const events = attachEventSocket(server, ctx);
  server.on('clientError', (_err, socket) => {
    if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n');
    else socket.destroy();
  });

  await listen(server, opts.port ?? 0, host);
  ctx.port = (server.address() as { port: number }).port;
  const shown = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
  const base = `http://${shown}:${ctx.port}`;
  let closing: Promise<void> | null = null;
  return {
    url: base,
    openUrl: `${base}/#token=${ctx.token}`,
    token: ctx.token,
    port: ctx.port,
    close() {
      closing ??= shutDown(server, events);
      return closing;
    },
  };
}

// ---- request authentication

function allowedHosts(ctx: ServerContext): Set<string> {
  const names = new Set(['127.0.0.1', 'localhost', ctx.host.includes(':') ? `[${ctx.host}]` : ctx.host]);
  return new Set([...names].map((n) => `${n}:${ctx.port}`));
}

function allowedOrigins(ctx: ServerContext): Set<string> {
  return new Set([...allowedHosts(ctx)].map((h) => `http://${h}`));
}

/** The Host header names this server (the DNS-rebinding defence). */
function hostOk(ctx: ServerContext, req: http.IncomingMessage): boolean {
  return typeof req.headers.host === 'string' && allowedHosts(ctx).has(req.headers.host.toLowerCase());
}

/** No Origin (not a browser's cross-site request), or this server's own. */
function originOk(ctx: ServerContext, req: http.IncomingMessage): boolean {
  return req.headers.origin === undefined || allowedOrigins(ctx).has(req.headers.origin.toLowerCase());
}

/** The `Authorization: Bearer <token>` header carries this launch's token. */
function bearerOk(ctx: ServerContext, req: http.IncomingMessage): boolean {
  const auth = req.headers.authorization;
  const given = typeof auth === 'string' && /^Bearer\s+/i.test(auth) ? auth.replace(/^Bearer\s+/i, '').trim() : null;
  return tokenMatches(given, ctx.token);
}

// ---- HTTP requests

async function handle(ctx: ServerContext, req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Referrer-Policy', 'no-referrer');
  if (!hostOk(ctx, req)) {
    sendJson(res, 403, {
      ok: false,
      error: {
        code: 'unauthorized',
        message: `Host header ${JSON.stringify(req.headers.host ?? '')} is not this server (expected 127.0.0.1:${ctx.port} or localhost:${ctx.port}); refused as a DNS-rebinding defence`,
      },
    });
    return;
  }
  let url: URL;
  try {
    url = new URL(req.url ?? '/', `http://${req.headers.host}`);
  } catch {
    sendJson(res, 400, { ok: false, error: { code: 'invalid-input', message: 'malformed request URL' } });
    return;
  }
  if (url.pathname === '/api' || url.pathname.startsWith('/api/')) return api(ctx, req, res, url);
  return staticFile(ctx, req, res, url);
}

/** POST /api/call/<name>: the Origin and token checks, then the call itself. */
async function api(ctx: ServerContext, req: http.IncomingMessage, res: http.ServerResponse, url: URL): Promise<void> {
  res.setHeader('Cache-Control', 'no-store');
  if (!originOk(ctx, req)) {
    sendJson(res, 403, {
      ok: false,
      error: { code: 'unauthorized', message: `requests from origin ${req.headers.origin} are refused; open the UI at http://127.0.0.1:${ctx.port}/` },
    });
    return;
  }
  const m = /^\/api\/call\/([^/]+)$/.exec(url.pathname);
  if (!m) {
    sendJson(res, 404, {
      ok: false,
      error: { code: 'not-found', message: `no API endpoint ${url.pathname}; calls are POST /api/call/<name>, events are the WebSocket /api/events` },
    });
    return;
  }
  if (req.method !== 'POST') {
    res.setHeader('Allow', 'POST');
    sendJson(res, 405, { ok: false, error: { code: 'invalid-input', message: `calls are POST /api/call/<name> (got ${req.method})` } });
    return;
  }
  if (!bearerOk(ctx, req)) {
    res.setHeader('WWW-Authenticate', 'Bearer realm="opencoder"');
    sendJson(res, 401, { ok: false, error: { code: 'unauthorized', message: UNAUTHORIZED } });
    return;
  }
  const input = await readCallInput(req, res);
  if (input === REFUSED) return;
  let name: string;
  try {
    name = decodeURIComponent(m[1]!);
  } catch {
    name = m[1]!;
  }
  const result = await ctx.service.call(name, input);
  sendJson(res, result.ok ? 200 : (STATUS[result.error.code] ?? 500), result);
}

/** readCallInput's answer when it has already refused the request. */
const REFUSED = Symbol('refused');

/** The call's input parsed from the JSON body (undefined when empty); REFUSED once it has answered 413 or 400. */
async function readCallInput(req: http.IncomingMessage, res: http.ServerResponse): Promise<unknown> {
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > MAX_BODY_BYTES) {
    tooLarge(req, res);
    return REFUSED;
  }
  const body = await readBody(req);
  if (body === null) {
    tooLarge(req, res);
    return REFUSED;
  }
  if (!body.length) return undefined;
  try {
    return JSON.parse(body.toString('utf8'));
  } catch (err) {
    sendJson(res, 400, {
      ok: false,
      error: {
        code: 'invalid-input',
        message: `the request body is not valid JSON: ${(err as Error).message}`,
        issues: [{ path: '(input)', message: 'not JSON' }],
      },
    });
    return REFUSED;
  }
}

function tooLarge(req: http.IncomingMessage, res: http.ServerResponse): void {
  res.setHeader('Connection', 'close');
  sendJson(res, 413, { ok: false, error: { code: 'invalid-input', message: `the request body is over ${MAX_BODY_BYTES} bytes (1 MiB)` } });
  req.resume();
}

// ---- static files

/** GET/HEAD of the renderer build: a file inside it, else index.html for a page (the SPA fallback), else 404. */
async function staticFile(ctx: ServerContext, req: http.IncomingMessage, res: http.ServerResponse, url: URL): Promise<void> {
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    res.setHeader('Allow', 'GET, HEAD');
    sendText(res, 405, 'Method not allowed\n');
    return;
  }
  res.setHeader('Content-Security-Policy', csp(ctx.port));
  res.setHeader('X-Frame-Options', 'DENY');
  res.setHeader('Cross-Origin-Opener-Policy', 'same-origin');
  let rel: string;
  try {
    rel = decodeURIComponent(url.pathname);
  } catch {
    sendText(res, 400, 'Bad request: malformed path\n');
    return;
  }
  const segments = rel.split('/').filter(Boolean);
  if (rel.includes('\0') || rel.includes('\\') || segments.some((s) => s === '..' || s === '.')) {
    sendText(res, 400, 'Bad request: the path may not contain "..", "." segments, backslashes or NUL\n');
    return;
  }
  const index = path.join(ctx.rendererDir, 'index.html');
  const file = path.join(ctx.rendererDir, ...segments);
  const found = segments.length ? regularFileInside(ctx.rendererDir, file) : null;
  if (found) return sendFile(req, res, found, segments[0] === 'assets');
  const last = segments.at(-1) ?? '';
  const wantsPage = !segments.length || !path.extname(last) || (req.headers.accept ?? '').includes('text/html');
  if (!wantsPage) {
    sendText(res, 404, `Not found: ${url.pathname}\n`);
    return;
  }
  if (fs.existsSync(index)) return sendFile(req, res, index, false);
  res.setHeader('Cache-Control', 'no-store');
  res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
  res.end(req.method === 'HEAD' ? undefined : NOT_BUILT);
}

function sendFile(req: http.IncomingMessage, res: http.ServerResponse, file: string, immutable: boolean): void {
  let st: fs.Stats;
  try {
    st = fs.statSync(file);
  } catch {
    sendText(res, 404, 'Not found\n');
    return;
  }
  res.setHeader('Cache-Control', immutable ? 'public, max-age=31536000, immutable' : 'no-cache');
  res.writeHead(200, { 'Content-Type': contentTypeOf(file), 'Content-Length': st.size });
  if (req.method === 'HEAD') {
    res.end();
    return;
  }
  fs.createReadStream(file)
    .on('error', () => res.destroy())
    .pipe(res);
}

// ---- events

/** The event WebSocket and the heartbeat that cuts clients which stopped answering pings. */
interface EventSocket {
  wss: WebSocketServer;
  heartbeat: NodeJS.Timeout;
}

function attachEventSocket(server: http.Server, ctx: ServerContext): EventSocket {
  const wss = new WebSocketServer({ noServer: true, maxPayload: 64 * 1024 });
  const alive = new WeakMap<WebSocket, boolean>();
  server.on('upgrade', (req: http.IncomingMessage, socket: Duplex, head: Buffer) => {
    if (upgradeAllowed(ctx, req, socket)) wss.handleUpgrade(req, socket, head, (ws) => wss.emit('connection', ws, req));
  });
  wss.on('connection', (ws: WebSocket) => streamEvents(ctx.service, ws, alive));
  const heartbeat = setInterval(() => {
    for (const ws of wss.clients) {
      if (alive.get(ws) === false) {
        ws.terminate();
        continue;
      }
      alive.set(ws, false);
      ws.ping();
    }
  }, 30_000);
  heartbeat.unref();
  return { wss, heartbeat };
}

/** The path, Host, Origin and ?token= checks of a WebSocket upgrade; a refused one is answered and destroyed. */
function upgradeAllowed(ctx: ServerContext, req: http.IncomingMessage, socket: Duplex): boolean {
  const refuse = (status: number, reason: string, message: string) => {
    socket.write(
      `HTTP/1.1 ${status} ${reason}\r\nConnection: close\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(message)}\r\n\r\n${message}`,
    );
    socket.destroy();
    return false;
  };
  let url: URL;
  try {
    url = new URL(req.url ?? '/', 'http://127.0.0.1');
  } catch {
    return refuse(400, 'Bad Request', 'malformed request URL');
  }
  if (url.pathname !== '/api/events') return refuse(404, 'Not Found', `no WebSocket endpoint ${url.pathname}; events are at /api/events?token=<token>`);
  if (!hostOk(ctx, req))
    return refuse(403, 'Forbidden', `Host header ${JSON.stringify(req.headers.host ?? '')} is not this server; refused as a DNS-rebinding defence`);
  if (!originOk(ctx, req)) return refuse(403, 'Forbidden', `WebSocket connections from origin ${req.headers.origin} are refused`);
  if (!tokenMatches(url.searchParams.get('token'), ctx.token)) return refuse(401, 'Unauthorized', UNAUTHORIZED);
  return true;
}

/** Sends every engine event to one connected socket until it closes. */
function streamEvents(service: EngineService, ws: WebSocket, alive: WeakMap<WebSocket, boolean>): void {
  alive.set(ws, true);
  ws.on('pong', () => alive.set(ws, true));
  const unsubscribe = service.subscribe((e: EngineEvent) => {
    if (ws.readyState !== WebSocket.OPEN) return;
    // A client that stopped reading must not grow this process's memory without bound: progress can wait.
    if (ws.bufferedAmount > 16 * 2 ** 20 && e.type === 'job' && e.job.state === 'running') return;
    ws.send(JSON.stringify(e));
  });
  ws.on('close', unsubscribe);
  ws.on('error', unsubscribe);
  // The socket is one-way: whatever a client sends is ignored.
  ws.on('message', () => {});
}

// ---- startup and shutdown

function listen(server: http.Server, port: number, host: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

function shutDown(server: http.Server, { wss, heartbeat }: EventSocket): Promise<void> {
  return new Promise<void>((resolve) => {
    clearInterval(heartbeat);
    for (const ws of wss.clients) ws.close(1001, 'server shutting down');
    wss.close();
    server.close(() => resolve());
    server.closeAllConnections();
    // Sockets that ignore the close frame are cut after a moment.
    setTimeout(() => {
      for (const ws of wss.clients) ws.terminate();
    }, 1000).unref();
  });
}

function sendJson(res: http.ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body, (_k, v: unknown) => (typeof v === 'number' && !Number.isFinite(v) ? null : v));
  res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(text), 'Cache-Control': 'no-store' });
  res.end(text);
}

function sendText(res: http.ServerResponse, status: number, text: string): void {
  res.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8', 'Content-Length': Buffer.byteLength(text) });
  res.end(text);
}

/** The file's real path when it is a regular file inside `root` (after symlinks), else null. */
function regularFileInside(root: string, file: string): string | null {
  try {
    const realRoot = fs.realpathSync(root);
    const real = fs.realpathSync(file);
    const rel = path.relative(realRoot, real);
    if (rel.startsWith('..') || path.isAbsolute(rel)) return null;
    return fs.statSync(real).isFile() ? real : null;
  } catch {
    return null;
  }
}

/** The body, or null when it grows past MAX_BODY_BYTES. */
function readBody(req: http.IncomingMessage): Promise<Buffer | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let over = false;
    req.on('data', (c: Buffer) => {
      if (over) return;
      size += c.length;
      if (size > MAX_BODY_BYTES) {
        over = true;
        chunks.length = 0;
        resolve(null);
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => {
      if (!over) resolve(Buffer.concat(chunks));
    });
    req.on('error', reject);
  });
}
