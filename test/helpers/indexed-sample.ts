// The bundled sample repository, indexed once per test run and handed to each test file as its own database copy.
// Indexing it costs seconds (parser workers, embedding); tests that only need it indexed, not the indexing itself,
// start from a copy instead. The first file that asks builds it in the run's fixture folder (global-setup.ts) under
// a lock, so parallel workers build it once; every caller gets a private file, so writes never cross files.

import fs from 'node:fs';
import path from 'node:path';
import { openConfiguredEncoder, resolveEncoderSpec, type EncoderPreference } from '../../main/embed/select.ts';
import { defaultModelsDir, sampleRepoPath } from '../../main/host/paths.ts';
import { runIndex } from '../../main/index/indexer.ts';
import { Store } from '../../main/store/store.ts';
import { oncePerRun } from './run-once.ts';

export interface IndexedSampleOptions {
  /** The encoder the test will open (default 'auto', as the CLI and the service do); the fixture uses the same. */
  encoder?: EncoderPreference;
  /** Where 'auto' looks for UniXcoder (default: the CLI's models folder). */
  modelsDir?: string;
}

const built = new Map<string, Promise<string>>();

/** Indexes the sample repository into `tmp` and leaves one self-contained database file (WAL checkpointed). */
async function build(tmp: string, opts: Required<IndexedSampleOptions>): Promise<void> {
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
}

/** The shared fixture file for these options, built by whichever process asks first (run-once.ts). */
async function fixture(opts: Required<IndexedSampleOptions>): Promise<string> {
  const { spec } = await resolveEncoderSpec({ prefer: opts.encoder, modelsDir: opts.modelsDir });
  return oncePerRun(`sample-${spec.id.replace(/[^\w.-]+/g, '_')}.db`, (tmp) => build(tmp, opts));
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
