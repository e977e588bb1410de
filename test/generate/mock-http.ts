// A scriptable HTTP server on 127.0.0.1 for driving the real vendor SDKs in tests.

import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Recorded {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  raw: string;
  body: any;
}

export interface Reply {
  status?: number;
  headers?: Record<string, string>;
  json?: unknown;
  /** A body sent as is (with content-type application/json unless headers say otherwise). */
  text?: string;
  delayMs?: number;
  /** Drop the connection without answering (a network error). */
  destroy?: boolean;
  /** A large body written in chunks (no Content-Length) as fast as the client reads it: `head`, `chunk` repeated to about `bytes`, `tail`. */
  stream?: { head: string; chunk: string; bytes: number; tail: string };
}

/** What happened to a streamed reply: how much of it went out, and whether the client hung up first. */
export interface StreamedReply {
  request: number;
  total: number;
  written: number;
  /** The connection closed before the whole body was written (the client stopped reading). */
  cutShort: boolean;
  /** Settles when the connection has closed (then `written` and `cutShort` are final). */
  closed: Promise<void>;
}

export type Handler = (req: Recorded, index: number) => Reply | Promise<Reply>;

export interface MockServer {
  /** http://127.0.0.1:PORT */
  origin: string;
  requests: Recorded[];
  /** One entry per `stream` reply; `written` and `cutShort` settle when its connection closes. */
  streams: StreamedReply[];
  handler: Handler;
  close(): Promise<void>;
}

/** Writes a `stream` reply with backpressure, stopping when the client closes the connection. */
function writeStream(res: http.ServerResponse, spec: NonNullable<Reply['stream']>, log: StreamedReply, onClose: () => void): void {
  const chunk = Buffer.from(spec.chunk);
  const tail = Buffer.from(spec.tail);
  const repeats = Math.max(0, Math.ceil((spec.bytes - spec.head.length - tail.length) / chunk.length));
  log.total = Buffer.byteLength(spec.head) + repeats * chunk.length + tail.length;
  let sent = 0;
  let closed = false;
  res.on('close', () => {
    closed = true;
    log.cutShort = !res.writableFinished;
    onClose();
  });
  const send = (b: Buffer): boolean => {
    log.written += b.length;
    return res.write(b);
  };
  const pump = (): void => {
    while (!closed && sent < repeats) {
      sent++;
      if (!send(chunk)) return void res.once('drain', pump);
    }
    if (!closed) {
      send(tail);
      res.end();
    }
  };
  if (send(Buffer.from(spec.head))) pump();
  else res.once('drain', pump);
}

export async function startMock(handler: Handler): Promise<MockServer> {
  const requests: Recorded[] = [];
  const streams: StreamedReply[] = [];
  const state = { handler };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => void answer());
    async function answer() {
      const raw = Buffer.concat(chunks).toString('utf8');
      let body: unknown;
      try {
        body = raw ? JSON.parse(raw) : null;
      } catch {
        body = null;
      }
      const rec: Recorded = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, raw, body };
      const index = requests.push(rec) - 1;
      let reply: Reply;
      try {
        reply = await state.handler(rec, index);
      } catch (e) {
        reply = { status: 599, json: { error: { message: `mock handler failed: ${(e as Error).message}` } } };
      }
      if (reply.delayMs) await new Promise((r) => setTimeout(r, reply.delayMs));
      if (reply.destroy) {
        req.socket.destroy();
        return;
      }
      if (res.destroyed) return;
      if (reply.stream) {
        let onClose = () => {};
        const closed = new Promise<void>((resolve) => (onClose = resolve));
        const log: StreamedReply = { request: index, total: 0, written: 0, cutShort: false, closed };
        streams.push(log);
        res.writeHead(reply.status ?? 200, { 'content-type': 'application/json', ...reply.headers });
        return writeStream(res, reply.stream, log, onClose);
      }
      const text = reply.text ?? JSON.stringify(reply.json ?? {});
      res.writeHead(reply.status ?? 200, { 'content-type': 'application/json', ...reply.headers });
      res.end(text);
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const mock: MockServer = {
    origin: `http://127.0.0.1:${port}`,
    requests,
    streams,
    get handler() {
      return state.handler;
    },
    set handler(h: Handler) {
      state.handler = h;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return mock;
}
