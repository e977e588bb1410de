// The queue's address: a redis:// or rediss:// (TLS) URL, checked before anything connects. The queue is for
// trusted machines (a job names code that a worker runs in its sandbox), so a URL without a password is refused
// unless Redis listens on loopback. The password may come from OPENCODER_REDIS_PASSWORD instead of the URL, which
// keeps it out of `ps`.

import net from 'node:net';
import { OpenCoderError } from '../../model/errors.ts';
import type { SandboxInfo } from '../../model/verdict.ts';

export const QUEUE_PASSWORD_ENV = 'OPENCODER_REDIS_PASSWORD';

export interface QueueAddress {
  host: string;
  port: number;
  db: number;
  tls: boolean;
  username?: string;
  password?: string;
  /** The URL with any password masked: what logs and progress lines show. */
  display: string;
}

export class QueueUrlError extends OpenCoderError {
  constructor(message: string) {
    super('invalid-input', message);
  }
}

/** True for 127.0.0.0/8, ::1 and localhost. */
export function isLoopback(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  if (h === 'localhost' || h === '::1') return true;
  return net.isIPv4(h) && h.startsWith('127.');
}

/** Parses and checks a queue URL; `env` supplies OPENCODER_REDIS_PASSWORD when the URL has no password. */
export function parseQueueUrl(text: string, env: NodeJS.ProcessEnv = process.env): QueueAddress {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    // The text is not repeated: it may hold a password.
    throw new QueueUrlError('--queue is not a URL; give redis://[:PASSWORD@]HOST:PORT[/DB] or rediss://… for TLS');
  }
  if (url.protocol !== 'redis:' && url.protocol !== 'rediss:') {
    throw new QueueUrlError(`--queue must be a redis:// or rediss:// URL (got ${url.protocol}//…)`);
  }
  if (!url.hostname) throw new QueueUrlError('--queue names no host');
  const port = url.port ? Number(url.port) : 6379;
  const dbText = url.pathname.replace(/^\//, '');
  const db = dbText === '' ? 0 : Number(dbText);
  if (!Number.isInteger(db) || db < 0) throw new QueueUrlError(`--queue: the database number must be a whole number (got ${JSON.stringify(dbText)})`);
  const password = url.password ? decodeURIComponent(url.password) : env[QUEUE_PASSWORD_ENV] || undefined;
  const username = url.username ? decodeURIComponent(url.username) : undefined;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (!password && !isLoopback(host)) {
    throw new QueueUrlError(
      `refusing the queue at ${host}:${port} without a password: the queue is for trusted machines, and a Redis reachable from other hosts without auth lets anyone queue code for the workers. ` +
        `Set requirepass (or an ACL user) in redis.conf and give the password in ${QUEUE_PASSWORD_ENV} or the URL (redis://:PASSWORD@${host}:${port}); see docs/queue.md.`,
    );
  }
  const display = `${url.protocol}//${username ? `${username}:***@` : password ? ':***@' : ''}${url.host}${db ? `/${db}` : ''}`;
  return { host, port, db, tls: url.protocol === 'rediss:', ...(username ? { username } : {}), ...(password ? { password } : {}), display };
}

/** ioredis connection options for an address (BullMQ needs maxRetriesPerRequest null on blocking connections). */
export function connectionOptions(a: QueueAddress) {
  return {
    host: a.host,
    port: a.port,
    db: a.db,
    ...(a.username ? { username: a.username } : {}),
    ...(a.password ? { password: a.password } : {}),
    ...(a.tls ? { tls: { servername: a.host } } : {}),
    maxRetriesPerRequest: null,
  };
}

/**
 * What the sandbox means for the queue. Where a candidate shares this machine's network (weak mode without a network
 * namespace of its own: not root, or a machine that refuses one), it can reach the queue's Redis like any local
 * program: without a password that is refused; with one it is said to be unsafe, since a candidate running as this
 * user can read the password from this process's environment, and the queue's secret file (seal.ts). Null where no candidate reaches
 * the network (strong mode, or weak mode as root).
 */
/** queueExposure, acted on: a refusal thrown (QueueUrlError), the warning returned (null when there is none). */
export function checkQueueExposure(info: Pick<SandboxInfo, 'strength' | 'network'>, queue: QueueAddress): string | null {
  const exposure = queueExposure(info, queue);
  if (exposure && 'refuse' in exposure) throw new QueueUrlError(exposure.refuse);
  return exposure?.warn ?? null;
}

export function queueExposure(info: Pick<SandboxInfo, 'strength' | 'network'>, queue: QueueAddress): { refuse: string } | { warn: string } | null {
  if (info.strength === 'strong' || info.network === 'none') return null;
  const why = `the ${info.strength} sandbox here gives candidates this machine's network (no network namespace of their own: run as root, or install bubblewrap for the strong sandbox)`;
  if (!queue.password) {
    return {
      refuse:
        `refusing the queue at ${queue.display} without a password: ${why}, so any candidate could connect to Redis on loopback and rewrite the jobs and verdicts of every run. ` +
        `Give Redis a password (requirepass; see docs/queue.md) and set ${QUEUE_PASSWORD_ENV}, or use the strong sandbox.`,
    };
  }
  return {
    warn:
      `UNSAFE: ${why}. Redis's password keeps candidates out only while they cannot read it, and a candidate running as this user can read this process's environment and the queue's secret file, ` +
      'so it could reach Redis and seal jobs and verdicts of its own. Use the strong sandbox (or run as root) for models you do not trust.',
  };
}
