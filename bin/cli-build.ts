// Builds the `opencoder` command line into one ESM bundle with code splitting, so the command starts without
// compiling TypeScript. The launcher (cli-bundle.js) decides when to build and which bundle to run, and calls this
// module when the bundle is missing or stale; scripts/build-cli.ts runs it from the command line.
//
//   <base>/dist/cli-<id>/cli.js          main/host/cli/main.ts (exports main); every dynamic import() is a chunk
//   <base>/dist/cli-<id>/*.js            beside it, loaded when a command needs it
//   <base>/dist/cli-<id>/worker.js       } the worker threads, siblings of the code that starts them
//   <base>/dist/cli-<id>/parse-worker.js }
//   <base>/dist/cli-<id>/tree-sitter.wasm, py/, package.json ({"type":"module"})
//   <base>/dist/cli.json                 the current build and every input with its size, mtime and hash
//
// <base> is the package root, or a folder standing in for it (cli-layout.js). npm packages stay external: they
// load from node_modules at run time, as they do from source. <id> is a hash of the inputs' contents, so builds
// of the same sources (two first runs in parallel) produce the same folder and either may win the rename.

import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, version as esbuildVersion, type BuildFailure, type Metafile } from 'esbuild';
import {
  buildBase,
  checkBundle,
  findBundle,
  hashFile,
  manifestPath,
  MANIFEST_FORMAT,
  PACKAGE_ROOT,
  type CliManifest,
  type ManifestInput,
} from './cli-layout.js';
import { writeAtomic } from '../main/util/write-atomic.js';
import { copyEngineAssets, WORKER_ENTRIES } from '../scripts/engine-bundle.ts';

/** The builder's own files: a change to how the bundle is built is a change of the bundle. */
const BUILDER_FILES = [
  fileURLToPath(import.meta.url),
  path.join(PACKAGE_ROOT, 'scripts', 'engine-bundle.ts'),
  path.join(PACKAGE_ROOT, 'bin', 'cli-layout.js'),
  path.join(PACKAGE_ROOT, 'main', 'util', 'write-atomic.js'),
];
/** Old bundles are removed this long after they stopped being current (a process may still be running one). */
const KEEP_OLD_MS = 60 * 60 * 1000;
const BUNDLE_DIR = /^cli-[0-9a-f]{16}$/;
const TMP_PREFIX = '.cli-tmp-';

export interface CliBuild {
  /** The bundle's main file. */
  entry: string;
  /** Whether this call built it (false: it was current). */
  built: boolean;
  /** Input files recorded for the freshness check. */
  inputs: number;
}

/** One line naming the first error of a failed esbuild run (file:line: text), or the error's own message. */
function buildError(err: unknown): Error {
  const first = (err as BuildFailure)?.errors?.[0];
  if (!first) return err instanceof Error ? err : new Error(String(err));
  const at = first.location ? `${first.location.file}:${first.location.line}: ` : '';
  return new Error(`esbuild: ${at}${first.text}`);
}

/**
 * Makes `base` stand in for the package `root`: links to each of root's entries (node_modules, resources, …) and
 * to each of root/dist's, so that the bundle's lookups relative to the package root and node_modules resolve.
 */
function mirrorRoot(base: string, root: string): void {
  fs.mkdirSync(path.join(base, 'dist'), { recursive: true });
  const link = (from: string, at: string) => {
    if (fs.lstatSync(at, { throwIfNoEntry: false })) return;
    fs.symlinkSync(from, at, fs.statSync(from).isDirectory() ? 'junction' : 'file');
  };
  for (const name of fs.readdirSync(root)) if (name !== 'dist') link(path.join(root, name), path.join(base, name));
  const dist = path.join(root, 'dist');
  if (!fs.existsSync(dist)) return;
  for (const name of fs.readdirSync(dist))
    if (!BUNDLE_DIR.test(name) && name !== 'cli.json' && !name.startsWith(TMP_PREFIX)) link(path.join(dist, name), path.join(base, 'dist', name));
}

/** Each input esbuild read (and the builder's own files, the copied assets, package.json) with size, mtime and hash. */
function recordInputs(root: string, meta: Metafile, extra: string[], startedAt: number): ManifestInput[] {
  const files = new Set([...Object.keys(meta.inputs).map((f) => path.resolve(root, f)), ...extra, path.join(root, 'package.json')]);
  const endedAt = Date.now();
  return [...files].sort().map((file) => {
    const st = fs.statSync(file);
    const rel = path.relative(root, file);
    const key = rel.startsWith('..') || path.isAbsolute(rel) ? file : rel;
    // Changed while the build ran: the bundle may hold the older content, so record nothing that could match. A
    // modification time after the build ended is not that but a clock ahead of ours (a checkout or an archive with
    // future times): recorded as it is, or every start would rebuild.
    const mtime = Math.floor(st.mtimeMs);
    if (mtime > startedAt && mtime <= endedAt) return [key, -1, 0, ''];
    return [key, st.size, st.mtimeMs, hashFile(file)];
  });
}

/** Removes bundles that stopped being current over KEEP_OLD_MS ago, and temporary folders of builds that died. */
function removeOld(dist: string, current: string): void {
  for (const name of fs.readdirSync(dist)) {
    if (name === current || !(BUNDLE_DIR.test(name) || name.startsWith(TMP_PREFIX))) continue;
    const p = path.join(dist, name);
    const st = fs.statSync(p, { throwIfNoEntry: false });
    if (st && Date.now() - st.mtimeMs > KEEP_OLD_MS) fs.rmSync(p, { recursive: true, force: true });
  }
}

/** Builds the bundle of `root`'s CLI into `base`/dist and makes it current (atomically). */
export async function buildCli(opts: { root?: string; base?: string } = {}): Promise<CliBuild> {
  const root = path.resolve(opts.root ?? PACKAGE_ROOT);
  const base = path.resolve(opts.base ?? buildBase(root));
  if (base !== root) mirrorRoot(base, root);
  const dist = path.join(base, 'dist');
  fs.mkdirSync(dist, { recursive: true });
  const tmp = fs.mkdtempSync(path.join(dist, TMP_PREFIX));
  try {
    const startedAt = Date.now();
    let meta: Metafile;
    try {
      const r = await build({
        absWorkingDir: root,
        entryPoints: { cli: 'main/host/cli/main.ts', ...WORKER_ENTRIES },
        bundle: true,
        format: 'esm',
        splitting: true,
        platform: 'node',
        target: 'node20',
        outdir: tmp,
        packages: 'external',
        sourcemap: 'linked',
        legalComments: 'none',
        logLevel: 'silent',
        metafile: true,
      });
      meta = r.metafile;
    } catch (err) {
      throw buildError(err);
    }
    fs.writeFileSync(path.join(tmp, 'package.json'), JSON.stringify({ type: 'module', private: true }, null, 2) + '\n');
    const assets = copyEngineAssets(root, tmp);
    const inputs = recordInputs(root, meta, [...BUILDER_FILES, ...assets], startedAt);
    const id = crypto
      .createHash('sha256')
      .update(JSON.stringify([esbuildVersion, inputs.map(([f, , , h]) => [f, h])]))
      .digest('hex')
      .slice(0, 16);
    const dir = `cli-${id}`;
    const final = path.join(dist, dir);
    if (!fs.existsSync(final)) {
      try {
        fs.renameSync(tmp, final);
      } catch (err) {
        // Another process built the same sources into the same folder first: theirs is as good as ours.
        if (!fs.existsSync(path.join(final, 'cli.js'))) throw err;
      }
    }
    const manifest: CliManifest = { format: MANIFEST_FORMAT, root, dir, entry: 'cli.js', builtAt: new Date().toISOString(), inputs };
    writeAtomic(manifestPath(base), JSON.stringify(manifest));
    removeOld(dist, dir);
    return { entry: path.join(final, 'cli.js'), built: true, inputs: inputs.length };
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

/** The current bundle of `root`'s CLI, built first when it is missing or stale. */
export async function ensureCliBundle(opts: { root?: string; base?: string } = {}): Promise<CliBuild> {
  const root = path.resolve(opts.root ?? PACKAGE_ROOT);
  const entry = opts.base ? (checkBundle(path.resolve(opts.base), root).entry ?? null) : findBundle(root).entry;
  if (entry) return { entry, built: false, inputs: 0 };
  return buildCli({ root, base: opts.base });
}
