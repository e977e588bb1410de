// A private redis-server for queue tests (scripts/redis-server.ts), with ioredis clients that stop with it.

import { Redis } from 'ioredis';
import { startRedisServer } from '../../scripts/redis-server.ts';

export { redisServerPath } from '../../scripts/redis-server.ts';

export interface TestRedis {
  port: number;
  url: string;
  client(): Redis;
  stop(): Promise<void>;
}

export async function startRedis(): Promise<TestRedis> {
  const server = await startRedisServer();
  const clients: Redis[] = [];
  return {
    port: server.port,
    url: server.url,
    client() {
      const c = new Redis({ host: '127.0.0.1', port: server.port, maxRetriesPerRequest: null });
      c.on('error', () => {});
      clients.push(c);
      return c;
    },
    async stop() {
      for (const c of clients) c.disconnect();
      await server.stop();
    },
  };
}
