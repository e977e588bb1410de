// A private redis-server on a free loopback port for queue tests (Debian's redis-server; .ci/run installs it).

import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';

export function redisServerPath(): string | null {
  const r = spawnSync('sh', ['-c', 'command -v redis-server'], { encoding: 'utf8' });
  const p = r.stdout.trim();
  return r.status === 0 && p ? p : null;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

export interface TestRedis {
  port: number;
  url: string;
  client(): Redis;
  stop(): Promise<void>;
}

export async function startRedis(): Promise<TestRedis> {
  const bin = redisServerPath();
  if (!bin) throw new Error('redis-server not found');
  const port = await freePort();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'opencoder-redis-'));
  const child: ChildProcess = spawn(bin, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir], {
    stdio: 'ignore',
  });
  const clients: Redis[] = [];
  const client = () => {
    const c = new Redis({ host: '127.0.0.1', port, maxRetriesPerRequest: null });
    c.on('error', () => {});
    clients.push(c);
    return c;
  };
  const probe = client();
  for (let i = 0; ; i++) {
    try {
      if ((await probe.ping()) === 'PONG') break;
    } catch {
      if (i > 100) throw new Error(`redis-server on port ${port} did not start`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    client,
    async stop() {
      for (const c of clients) c.disconnect();
      child.kill('SIGKILL');
      await new Promise((r) => (child.exitCode !== null ? r(null) : child.once('exit', r)));
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
