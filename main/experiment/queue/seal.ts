// What the coordinator and its workers write into Redis is sealed with a key Redis never sees: jobs (the task, its
// reference check, the candidates' sample file and the bundles they name), results, shared verdicts and the index
// memo. Whoever can write to Redis (a candidate that reached it, another user of the server) can then delete or
// break entries, which fails the pairs concerned, but can no longer make a worker judge another task than the
// run's, nor hand the coordinator or a worker a verdict or a result nobody computed.
//
// The key is shared out of band, like an SSH key: OPENCODER_QUEUE_SECRET where it is set (several machines), else a
// file the first process on the machine makes (one machine: the coordinator and its workers find the same file).
// The file is the user's own (0600): a sandboxed candidate (strong mode, or weak mode as root, with a uid of its
// own) cannot read it.

import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { OpenCoderError } from '../../model/errors.ts';

export const QUEUE_SECRET_ENV = 'OPENCODER_QUEUE_SECRET';
/** A secret shorter than this (in characters) is refused: it could be guessed. */
const MIN_SECRET_CHARS = 32;

export class QueueSecretError extends OpenCoderError {
  constructor(message: string) {
    super('invalid-input', message);
  }
}

/** $XDG_CONFIG_HOME/opencoder/queue-secret, else ~/.config/opencoder/queue-secret. */
export function defaultSecretFile(env: NodeJS.ProcessEnv = process.env): string {
  const base = env.XDG_CONFIG_HOME || path.join(os.homedir(), '.config');
  return path.join(base, 'opencoder', 'queue-secret');
}

/** The queue's sealing key and where it came from (said in logs; never the key itself). */
export interface QueueSecret {
  key: Buffer;
  from: string;
}

/**
 * The key from OPENCODER_QUEUE_SECRET, else from the secret file, which is made (0600, 32 random bytes) when it is
 * not there. A file that others may read or write is refused, naming it.
 */
export function loadQueueSecret(env: NodeJS.ProcessEnv = process.env, file = defaultSecretFile(env)): QueueSecret {
  const given = env[QUEUE_SECRET_ENV];
  if (given !== undefined && given !== '') {
    if (given.trim().length < MIN_SECRET_CHARS) {
      throw new QueueSecretError(`${QUEUE_SECRET_ENV} is too short: give at least ${MIN_SECRET_CHARS} random characters (openssl rand -hex 32)`);
    }
    return { key: crypto.createHash('sha256').update(given.trim()).digest(), from: QUEUE_SECRET_ENV };
  }
  if (!fs.existsSync(file)) {
    fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    try {
      // 'wx': two processes starting at once make one file; the loser reads the winner's.
      fs.writeFileSync(file, `${crypto.randomBytes(32).toString('hex')}\n`, { mode: 0o600, flag: 'wx' });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
  }
  const st = fs.statSync(file);
  if (process.platform !== 'win32' && (st.mode & 0o077) !== 0) {
    throw new QueueSecretError(`the queue secret ${file} can be read or written by others (mode ${(st.mode & 0o777).toString(8)}): chmod 600 it`);
  }
  const text = fs.readFileSync(file, 'utf8').trim();
  if (text.length < MIN_SECRET_CHARS) throw new QueueSecretError(`the queue secret ${file} is too short: remove it to have a new one made`);
  return { key: crypto.createHash('sha256').update(text).digest(), from: file };
}

/** What a sealed value is for: a seal made for one purpose and name never opens another. */
export type SealPurpose = 'job' | 'result' | 'verdict' | 'index-memo';

function mac(key: Buffer, purpose: SealPurpose, name: string, body: string): string {
  return crypto.createHmac('sha256', key).update(`${purpose}\u0000${name}\u0000`).update(body, 'utf8').digest('hex');
}

/** A value sealed for (purpose, name): its JSON text and the MAC over both. */
export interface Sealed {
  body: string;
  mac: string;
}

export function seal(key: Buffer, purpose: SealPurpose, name: string, value: unknown): Sealed {
  const body = JSON.stringify(value);
  return { body, mac: mac(key, purpose, name, body) };
}

/** The value, when `sealed` is a seal of this key for (purpose, name); null otherwise (a forgery, damage or another key). */
export function unseal<T>(key: Buffer, purpose: SealPurpose, name: string, sealed: unknown): T | null {
  if (!sealed || typeof sealed !== 'object') return null;
  const { body, mac: got } = sealed as Partial<Sealed>;
  if (typeof body !== 'string' || typeof got !== 'string' || got.length !== 64) return null;
  const want = Buffer.from(mac(key, purpose, name, body), 'ascii');
  if (!crypto.timingSafeEqual(want, Buffer.from(got, 'ascii'))) return null;
  try {
    return JSON.parse(body) as T;
  } catch {
    return null;
  }
}

/** A seal as one string (for plain Redis keys): the MAC, a space, the JSON text. */
export function sealText(key: Buffer, purpose: SealPurpose, name: string, value: unknown): string {
  const s = seal(key, purpose, name, value);
  return `${s.mac} ${s.body}`;
}

export function unsealText<T>(key: Buffer, purpose: SealPurpose, name: string, text: string | null): T | null {
  if (!text || text[64] !== ' ') return null;
  return unseal<T>(key, purpose, name, { mac: text.slice(0, 64), body: text.slice(65) });
}
