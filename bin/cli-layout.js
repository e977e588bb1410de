// Where the `opencoder` command's precompiled bundle lives and whether it is current: what the launcher
// (cli-bundle.js) and the builder (cli-build.ts) both need. Plain JavaScript, so the launcher loads it at once.
//
// Where: <package>/dist/cli-<id>/ (the files) and <package>/dist/cli.json (which build is current, and every input
// file esbuild read, with its size, mtime and content hash). When the package folder is not writable, the same
// layout lives in a folder of its own under the user's cache folder (OPENCODER_CLI_CACHE overrides that place):
// it mirrors the package root with links (node_modules, resources, …) so the bundle's lookups relative to the
// package root work from there too.
//
// Fresh: every recorded input exists with the recorded size, and either the recorded mtime or (only when that
// changed) the recorded content hash; a file whose mtime alone changed has its new mtime recorded, so the next
// start is cheap again.

import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeAtomic } from '../main/util/write-atomic.js';

/** The package root: this file is <root>/bin/cli-layout.js. */
export const PACKAGE_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** Version of cli.json's layout; a different one is stale. */
export const MANIFEST_FORMAT = 1;

/** The user's cache folder (XDG_CACHE_HOME, ~/Library/Caches, %LOCALAPPDATA%). */
export function userCacheDir(env = process.env) {
  if (process.platform === 'win32') return env.LOCALAPPDATA ?? path.join(os.homedir(), 'AppData', 'Local');
  if (process.platform === 'darwin') return path.join(os.homedir(), 'Library', 'Caches');
  return env.XDG_CACHE_HOME ?? path.join(os.homedir(), '.cache');
}

/** The folder that stands in for `root` when the bundle cannot live inside it: one per checkout. */
export function cacheBase(root, env = process.env) {
  const tag = crypto.createHash('sha256').update(path.resolve(root)).digest('hex').slice(0, 16);
  const dir = env.OPENCODER_CLI_CACHE ? path.resolve(env.OPENCODER_CLI_CACHE) : path.join(userCacheDir(env), 'opencoder', 'cli');
  return path.join(dir, tag);
}

/** The folders, in order, where `root`'s bundle may be: the package itself, then its cache folder. */
export function candidateBases(root, env = process.env) {
  return env.OPENCODER_CLI_CACHE ? [cacheBase(root, env)] : [root, cacheBase(root, env)];
}

export const manifestPath = (base) => path.join(base, 'dist', 'cli.json');

export function hashFile(file) {
  return crypto.createHash('sha256').update(fs.readFileSync(file)).digest('hex');
}

/** A recorded input's file: relative to root when it lies inside it, else as recorded (absolute). */
export const inputFile = (root, rel) => (path.isAbsolute(rel) ? rel : path.join(root, rel));

/**
 * Whether the bundle recorded in `base` is current for `root`: `{ entry, manifest, rehashed }` when it is (entry: the
 * bundle's main file; rehashed: inputs whose stat changed but whose content did not), else `{ stale }` saying why.
 */
export function checkBundle(base, root = PACKAGE_ROOT) {
  let manifest;
  try {
    manifest = JSON.parse(fs.readFileSync(manifestPath(base), 'utf8'));
  } catch (err) {
    return { stale: err.code === 'ENOENT' ? 'not built yet' : `cannot read ${manifestPath(base)}: ${err.message}` };
  }
  if (manifest.format !== MANIFEST_FORMAT || manifest.root !== path.resolve(root))
    return { stale: `${manifestPath(base)} is for another build layout or checkout` };
  const entry = path.join(base, 'dist', manifest.dir, manifest.entry);
  if (!fs.existsSync(entry)) return { stale: `${entry} is missing` };
  let rehashed = 0;
  for (const input of manifest.inputs) {
    const [rel, size, mtimeMs, hash] = input;
    const file = inputFile(root, rel);
    let st;
    try {
      st = fs.statSync(file);
    } catch {
      return { stale: `${rel} is gone` };
    }
    if (st.size !== size) return { stale: `${rel} changed` };
    if (st.mtimeMs === mtimeMs) continue;
    if (hashFile(file) !== hash) return { stale: `${rel} changed` };
    input[2] = st.mtimeMs;
    rehashed++;
  }
  if (rehashed) {
    // Only the mtimes moved: remember them, so the next start need not hash again (best effort: a read-only
    // folder just hashes those files again next time).
    try {
      writeAtomic(manifestPath(base), JSON.stringify(manifest));
    } catch {
      /* read-only: fine */
    }
  }
  return { entry, manifest, rehashed };
}

function writable(dir) {
  try {
    fs.accessSync(dir, fs.constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

/** Where a new build of `root` goes: the package's own dist/ when it can be written, else the cache folder. */
export function buildBase(root = PACKAGE_ROOT, env = process.env) {
  const bases = candidateBases(root, env);
  if (bases[0] !== root) return bases[0];
  const dist = path.join(root, 'dist');
  return (fs.existsSync(dist) ? writable(dist) : writable(root)) ? root : bases[1];
}

/** The current bundle's main file, or null with the reasons it is not usable in any candidate place. */
export function findBundle(root = PACKAGE_ROOT, env = process.env) {
  const reasons = [];
  for (const base of candidateBases(root, env)) {
    const r = checkBundle(base, root);
    if (r.entry) return { entry: r.entry, reasons };
    reasons.push(r.stale);
  }
  return { entry: null, reasons };
}
