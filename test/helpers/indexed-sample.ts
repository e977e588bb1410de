// The bundled sample repository, indexed once per test run and handed to each test file as its own database copy.
// Indexing it costs seconds (parser workers, embedding); tests that only need it indexed, not the indexing itself,
// start from a copy instead. The first file that asks builds it in the run's fixture folder (global-setup.ts) under
// a lock, so parallel workers build it once; every caller gets a private file, so writes never cross files.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { inject } from 'vitest';
import { openConfiguredEncoder, resolveEncoderSpec, type EncoderPreference } from '../../main/embed/select.ts';
import { defaultModelsDir, sampleRepoPath } from '../../main/host/paths.ts';
import { runIndex } from '../../main/index/indexer.ts';
import { Store } from '../../main/store/store.ts';

export interface IndexedSampleOptions {
  /** The encoder the test will open (default 'auto', as the CLI and the service do); the fixture uses the same. */
  encoder?: EncoderPreference;
  /** Where 'auto' looks for UniXcoder (default: the CLI's models folder). */
  modelsDir?: string;
}

const LOCK_WAIT_MS = 180_000;
const built = new Map<string, Promise<string>>();
let processDir: string | undefined;

/** This run's fixture folder; outside vitest's global setup, a folder of this process. */
function fixtureDir(): string {
  const provided = inject('fixtureDir') as string | undefined;
  if (provided) return provided;
  if (!processDir) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'oc-fixtures-'));
    process.once('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
    processDir = dir;
  }
  return processDir;
}

/** Indexes the sample repository into `file` and leaves one self-contained database file (WAL checkpointed). */
async function build(file: string, opts: Required<IndexedSampleOptions>): Promise<void> {
  const tmp = `${file}.${process.pid}.tmp`;
  const store = Store.open(tmp);
  try {
    const { encoder } = await openConfiguredEncoder({ prefer: opts.encoder, modelsDir: opts.modelsDir });
    try {
      const stats = await runIndex({ store, root: sampleRepoPath(), encoder });
      if (stats.status !== 'completed') throw new Error(`indexing the sample repository ended ${stats.status}`);
    } finally {
      await encoder.dispose();
    }
    store.db.pragma('wal_checkpoint(TRUNCATE)');
  } finally {
    store.close();
  }
  for (const suffix of ['-wal', '-shm']) fs.rmSync(tmp + suffix, { force: true });
  fs.renameSync(tmp, file);
}

/** Creates the lock folder; false when another process holds it. */
function takeLock(lock: string): boolean {
  try {
    fs.mkdirSync(lock);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  }
}

function lockOwner(lock: string): number | null {
  try {
    return Number(fs.readFileSync(path.join(lock, 'pid'), 'utf8')) || null;
  } catch {
    return null; // not written yet, or the lock is already gone
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The shared fixture file for these options, built by whichever process takes the lock first. */
async function fixture(opts: Required<IndexedSampleOptions>): Promise<string> {
  const { spec } = await resolveEncoderSpec({ prefer: opts.encoder, modelsDir: opts.modelsDir });
  const file = path.join(fixtureDir(), `sample-${spec.id.replace(/[^\w.-]+/g, '_')}.db`);
  const lock = `${file}.lock`;
  const started = Date.now();
  for (;;) {
    if (fs.existsSync(file)) return file;
    if (!takeLock(lock)) {
      const owner = lockOwner(lock);
      // A builder that died leaves its lock behind: remove it and try again.
      if (owner !== null && !alive(owner)) fs.rmSync(lock, { recursive: true, force: true });
      else if (Date.now() - started > LOCK_WAIT_MS) throw new Error(`the sample index fixture ${file} was not built within ${LOCK_WAIT_MS} ms`);
      else await new Promise((r) => setTimeout(r, 100));
      continue;
    }
    try {
      fs.writeFileSync(path.join(lock, 'pid'), String(process.pid));
      if (!fs.existsSync(file)) await build(file, opts);
      return file;
    } finally {
      fs.rmSync(lock, { recursive: true, force: true });
    }
  }
}

/**
 * Writes a private copy of the indexed sample repository's database to `dbPath` (its folder is created) and returns
 * `dbPath`. The sample's files are unchanged, so the engine's own refresh of the index finds nothing to do.
 */
export async function copyIndexedSample(dbPath: string, options: IndexedSampleOptions = {}): Promise<string> {
  const opts = { encoder: options.encoder ?? 'auto', modelsDir: options.modelsDir ?? defaultModelsDir() };
  const key = JSON.stringify(opts);
  let source = built.get(key);
  if (!source) {
    source = fixture(opts);
    built.set(key, source);
    source.catch(() => built.delete(key));
  }
  const file = await source;
  fs.mkdirSync(path.dirname(dbPath), { recursive: true });
  for (const suffix of ['-wal', '-shm']) fs.rmSync(dbPath + suffix, { force: true });
  fs.copyFileSync(file, dbPath);
  return dbPath;
}
