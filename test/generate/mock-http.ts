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
}

export type Handler = (req: Recorded, index: number) => Reply | Promise<Reply>;

export interface MockServer {
  /** http://127.0.0.1:PORT */
  origin: string;
  requests: Recorded[];
  handler: Handler;
  close(): Promise<void>;
}

export async function startMock(handler: Handler): Promise<MockServer> {
  const requests: Recorded[] = [];
  const state = { handler };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
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
      const text = reply.text ?? JSON.stringify(reply.json ?? {});
      res.writeHead(reply.status ?? 200, { 'content-type': 'application/json', ...reply.headers });
      res.end(text);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const mock: MockServer = {
    origin: `http://127.0.0.1:${port}`,
    requests,
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
