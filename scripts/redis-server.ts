// A private redis-server on a free loopback port, without persistence: what the queue tests and the queue bench
// run their queues on (Debian's redis-server; .ci/run installs it).

import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

/** The redis-server on PATH, or null when there is none. */
export function redisServerPath(): string | null {
  const r = spawnSync('sh', ['-c', 'command -v redis-server'], { encoding: 'utf8' });
  const p = r.stdout.trim();
  return r.status === 0 && p ? p : null;
}

/** A loopback port nobody listens on (the OS picks it). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

/** True once something on the port answers PING with PONG. */
function pong(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const sock = net.connect(port, '127.0.0.1');
    let got = '';
    const done = (ok: boolean) => (sock.destroy(), resolve(ok));
    sock.setTimeout(500, () => done(false));
    sock.once('error', () => done(false));
    sock.once('connect', () => sock.write('PING\r\n'));
    sock.on('data', (b) => {
      got += b.toString();
      if (got.includes('\r\n')) done(got.startsWith('+PONG'));
    });
  });
}

export interface RedisServer {
  port: number;
  url: string;
  child: ChildProcess;
  /** Kills it and removes its folder. */
  stop(): Promise<void>;
}

/** Starts redis-server on a free loopback port and waits until it answers; throws with its output when it does not. */
export async function startRedisServer(): Promise<RedisServer> {
  const bin = redisServerPath();
  if (!bin) throw new Error('redis-server not found (apt-get install redis-server)');
  const port = await freePort();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'opencoder-redis-'));
  const child = spawn(bin, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let log = '';
  const keep = (b: Buffer) => (log = (log + b.toString()).slice(-2000));
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL');
      await new Promise((r) => child.once('exit', r));
    }
    fs.rmSync(dir, { recursive: true, force: true });
  };
  const deadline = performance.now() + 10_000;
  while (!(await pong(port))) {
    if (child.exitCode !== null || performance.now() > deadline) {
      await stop();
      throw new Error(`redis-server did not start on port ${port}: ${log.trim()}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return { port, url: `redis://127.0.0.1:${port}`, child, stop };
}
