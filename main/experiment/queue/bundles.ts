// Bundles: what a worker needs of the coordinator's disk, moved through Redis and named by the sha256 of their
// bytes. A repository bundle is a gzipped tar of the repository's files (sorted, without times or owners, so the
// same files give the same hash and a worker's cache hits across runs); an index bundle is a gzipped snapshot
// of the coordinator's index store; a file bundle is one file (an imported sample set) gzipped. A worker checks
// every bundle's hash before it uses it, keeps the verified bytes in its cache and unpacks private copies.

import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import * as tar from 'tar';
import type { Redis } from 'ioredis';
import { OpenCoderError } from '../../model/errors.ts';
import type { Store } from '../../store/store.ts';
import { listRepository } from '../../validate/task-plan.ts';
import { sealText, unsealText } from './seal.ts';

export const BUNDLE_KEY_PREFIX = 'opencoder:bundle:';
/** Bundles stay in Redis this long after their last publication. */
export const BUNDLE_TTL_S = 7 * 24 * 3600;

export type BundleKind = 'repo' | 'index' | 'file';

export interface BundleRef {
  kind: BundleKind;
  sha256: string;
  bytes: number;
}

export class BundleError extends OpenCoderError {
  constructor(message: string) {
    super('engine', message);
  }
}

const sha256 = (b: Uint8Array) => crypto.createHash('sha256').update(b).digest('hex');

/**
 * The gzipped tar of what a workspace gets of a repository (validate/task-plan.ts listRepository: no version
 * control, caches or virtualenvs, and no credentials or keys, which never leave the coordinator either).
 */
export function packRepository(root: string): Buffer {
  const listing = listRepository(root, root);
  const files = [...listing.files, ...listing.links.map(([rel]) => rel)].sort();
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'opencoder-pack-'));
  try {
    const file = path.join(tmp, 'repo.tar');
    tar.c({ cwd: root, file, sync: true, portable: true, noMtime: true }, files);
    return zlib.gzipSync(fs.readFileSync(file), { level: 6 });
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

/** The coordinator's packs, kept between runs: $XDG_CACHE_HOME/opencoder/packs, else ~/.cache/opencoder/packs. */
export function defaultPackCache(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(path.dirname(defaultBundleCache(env)), 'packs');
}

/**
 * packRepository, from the coordinator's cache when the same files were packed before (the same paths, sizes,
 * modification and change times and inodes): tarring and gzipping a RepoExec subset's 21 repositories and its
 * sample file cost ~120 ms of the coordinator's CPU at every run and resume. The bytes are still published at each
 * run (publishBundle), so a copy damaged in Redis is mended as before.
 */
export function packRepositoryCached(root: string, cacheDir = defaultPackCache()): Buffer {
  const listing = listRepository(root, root);
  const entries = [...listing.files, ...listing.links.map(([rel]) => rel)].sort().map((rel) => {
    try {
      const st = fs.lstatSync(path.join(root, rel));
      return [rel, st.size, st.mtimeMs, st.ctimeMs, st.ino];
    } catch {
      return [rel];
    }
  });
  return cachedPack(cacheDir, 'repo', JSON.stringify([path.resolve(root), entries, listing.links]), () => packRepository(root));
}

/** packFile, from the coordinator's cache when the same file (size, times, inode) was packed before. */
export function packFileCached(file: string, cacheDir = defaultPackCache()): Buffer {
  const st = fs.statSync(file);
  return cachedPack(cacheDir, 'file', JSON.stringify([path.resolve(file), st.size, st.mtimeMs, st.ctimeMs, st.ino]), () => packFile(file));
}

function cachedPack(cacheDir: string, kind: BundleKind, fingerprint: string, make: () => Buffer): Buffer {
  const file = path.join(cacheDir, `${kind}-${sha256(Buffer.from(fingerprint))}.gz`);
  try {
    const bytes = fs.readFileSync(file);
    const now = new Date();
    fs.utimesSync(file, now, now); // kept while it is used (prunePacks)
    return bytes;
  } catch {
    /* not packed yet */
  }
  const bytes = make();
  try {
    fs.mkdirSync(cacheDir, { recursive: true });
    prunePacks(cacheDir);
    const tmp = `${file}.${process.pid}.tmp`;
    fs.writeFileSync(tmp, bytes);
    fs.renameSync(tmp, file);
  } catch {
    /* a cache that cannot be written only costs the next run the packing */
  }
  return bytes;
}

/** Packs nobody read for as long as Redis keeps a bundle go (each read touches its file). */
function prunePacks(cacheDir: string): void {
  const cutoff = Date.now() - BUNDLE_TTL_S * 1000;
  for (const name of fs.readdirSync(cacheDir)) {
    const p = path.join(cacheDir, name);
    try {
      if (fs.statSync(p).mtimeMs < cutoff) fs.rmSync(p, { force: true });
    } catch {
      /* gone */
    }
  }
}

/**
 * Tables a worker does not get: runs, results and exchange logs stay with the coordinator, reference checks travel
 * in each job, and exchanges come back with it. The snapshot is then the index alone, and keeps its hash from run
 * to run while nothing is indexed again.
 */
const PRIVATE_TABLES = [
  'experiment_results',
  'experiment_runs',
  'reference_checks',
  'generation_results',
  'generation_runs',
  'llm_exchanges',
  'retrieval_traces',
  'index_runs',
  // Derived from the index and named after the coordinator's index state, which the snapshot clears: a worker makes
  // its own on first use (its packs' rows in a file beside its copy), and the bundle stays the index alone.
  'vector_packs',
  'derived_ids',
];

const MEMO_PREFIX = 'opencoder:index-memo:';

/**
 * The index bundle of a store, published: the one published before when the store's index fingerprint is the
 * same and that bundle is still in Redis (a run over an unchanged index then costs no snapshot), else a new one.
 */
export async function publishIndex(redis: Redis, store: Store, secret: Buffer): Promise<BundleRef> {
  const memo = MEMO_PREFIX + crypto.createHash('sha256').update(`${store.path}\u0000${store.indexFingerprint()}`).digest('hex');
  // Sealed: the coordinator seals every job with the index bundle this names, so a memo rewritten in Redis to name
  // another bundle (with its own reference checks, say) must not be taken for its own. One that does not open is
  // published afresh.
  const ref = unsealText<BundleRef>(secret, 'index-memo', memo, await redis.get(memo));
  if (ref && typeof ref.sha256 === 'string' && (await redis.expire(BUNDLE_KEY_PREFIX + ref.sha256, BUNDLE_TTL_S)) === 1) {
    await redis.expire(memo, BUNDLE_TTL_S);
    return ref;
  }
  const fresh = await publishBundle(redis, 'index', snapshotIndex(store));
  await redis.set(memo, sealText(secret, 'index-memo', memo, fresh), 'EX', BUNDLE_TTL_S);
  return fresh;
}

/** A gzipped snapshot of the store's index: no results, runs, reference checks or exchange logs. */
export function snapshotIndex(store: Store): Buffer {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'opencoder-snap-'));
  try {
    const file = path.join(tmp, 'index.db');
    store.snapshotTo(file, PRIVATE_TABLES);
    return zlib.gzipSync(fs.readFileSync(file), { level: 6 });
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

export function packFile(file: string): Buffer {
  return zlib.gzipSync(fs.readFileSync(file), { level: 6 });
}

/**
 * Puts a bundle into Redis under its hash, with a fresh expiry; returns its reference. It is written even when
 * the key exists, so that a copy damaged or replaced in Redis is mended by the next run or resume.
 */
export async function publishBundle(redis: Redis, kind: BundleKind, bytes: Buffer): Promise<BundleRef> {
  const hash = sha256(bytes);
  await redis.set(BUNDLE_KEY_PREFIX + hash, bytes, 'EX', BUNDLE_TTL_S);
  return { kind, sha256: hash, bytes: bytes.length };
}

/** Default cache: $XDG_CACHE_HOME/opencoder/bundles, else ~/.cache/opencoder/bundles. */
export function defaultBundleCache(env: NodeJS.ProcessEnv = process.env): string {
  const base = env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache');
  return path.join(base, 'opencoder', 'bundles');
}

/**
 * The verified bytes of a bundle: from the cache when a copy with the right hash is there, else from Redis. A
 * bundle whose bytes do not hash to its name is refused (and not cached), naming both hashes.
 */
export async function fetchBundle(redis: Redis, ref: BundleRef, cacheDir: string): Promise<Buffer> {
  const cached = path.join(cacheDir, `${ref.sha256}.gz`);
  if (fs.existsSync(cached)) {
    const bytes = fs.readFileSync(cached);
    if (sha256(bytes) === ref.sha256) return bytes;
    fs.rmSync(cached, { force: true }); // damaged on disk: fetch it again
  }
  const bytes = await redis.getBuffer(BUNDLE_KEY_PREFIX + ref.sha256);
  if (!bytes) {
    throw new BundleError(
      `the ${ref.kind} bundle ${ref.sha256.slice(0, 12)}… is not in Redis (expired or never published); resume the run on the coordinator to publish it again`,
    );
  }
  const got = sha256(bytes);
  if (got !== ref.sha256) {
    throw new BundleError(`the ${ref.kind} bundle named ${ref.sha256.slice(0, 12)}… hashes to ${got.slice(0, 12)}…: refused (altered in Redis or in transit)`);
  }
  fs.mkdirSync(cacheDir, { recursive: true });
  const tmp = `${cached}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, bytes);
  fs.renameSync(tmp, cached);
  return bytes;
}

/** Unpacks a repository bundle into `dir` (created; must not exist). */
export function unpackRepository(bytes: Buffer, dir: string): void {
  fs.mkdirSync(dir, { recursive: true });
  const tmp = path.join(dir, '..', `${path.basename(dir)}.tar`);
  fs.writeFileSync(tmp, zlib.gunzipSync(bytes));
  try {
    tar.x({ file: tmp, cwd: dir, sync: true, strict: true, preservePaths: false });
  } finally {
    fs.rmSync(tmp, { force: true });
  }
}

/** Writes the gunzipped bytes of an index or file bundle to `file`. */
export function unpackFile(bytes: Buffer, file: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, zlib.gunzipSync(bytes));
}
