// The precompiled CLI (bin/cli-build.ts, bin/cli-bundle.js): rebuilt when an input's content changes and
// only then, built atomically, run from a cache folder that stands in for the package root, and falling back to
// the TypeScript sources with one line on stderr when it cannot be built. And the lazy registry: `--help` loads
// no command implementation and no heavy package.
// Builds here run against a temporary copy of the sources (or a temporary cache folder), never the real dist/.

import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { cacheBase, checkBundle, manifestPath } from '../../bin/cli-layout.js';
import { buildCli, ensureCliBundle } from '../../bin/cli-build.ts';
import { GROUPS } from '../../main/host/cli/commands/registry.ts';
import { SAMPLE_FORMAT_NAMES } from '../../main/host/cli/specs.ts';
import { SAMPLE_FORMATS } from '../../main/benchmarks/samples.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const BIN = path.join(ROOT, 'bin', 'opencoder.js');
const TRACE = path.join(ROOT, 'test', 'host', 'module-trace.mjs');
const HEAVY = ['onnxruntime-node', 'web-tree-sitter', 'node-llama-cpp', 'openai', '@google/genai', 'better-sqlite3', 'zod', '@huggingface/tokenizers'];

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});
function tmp(prefix: string): string {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  dirs.push(d);
  return d;
}

/** A copy of what the CLI bundle is built from (node_modules linked), mtimes kept. */
function sourceCopy(): string {
  const root = tmp('oc-cli-src-');
  for (const d of ['main', 'contract']) fs.cpSync(path.join(ROOT, d), path.join(root, d), { recursive: true, preserveTimestamps: true });
  fs.mkdirSync(path.join(root, 'resources'));
  fs.cpSync(path.join(ROOT, 'resources', 'api-selector.json'), path.join(root, 'resources', 'api-selector.json'), { preserveTimestamps: true });
  fs.cpSync(path.join(ROOT, 'package.json'), path.join(root, 'package.json'), { preserveTimestamps: true });
  fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(root, 'node_modules'), 'junction');
  return root;
}

/** `node [--import module-trace.mjs] bin/opencoder.js ARGS`: its output and the module URLs it resolved. */
function traced(args: string[], env: NodeJS.ProcessEnv = {}) {
  const file = path.join(tmp('oc-trace-'), 'modules.txt');
  const r = spawnSync(process.execPath, ['--import', TRACE, BIN, ...args], { encoding: 'utf8', env: { ...process.env, ...env, MODULE_TRACE_FILE: file } });
  const modules = fs.existsSync(file) ? fs.readFileSync(file, 'utf8').split('\n').filter(Boolean) : [];
  return { status: r.status, stdout: r.stdout, stderr: r.stderr, modules };
}

const packagesIn = (modules: string[]) => HEAVY.filter((p) => modules.some((m) => m.includes(`/node_modules/${p}/`)));

describe('the CLI bundle', () => {
  it('is rebuilt when an input file changes content, not when only its mtime changes', async () => {
    const root = sourceCopy();
    const first = await buildCli({ root, base: root });
    expect(first.built).toBe(true);
    expect(first.entry).toMatch(/dist[\\/]cli-[0-9a-f]{16}[\\/]cli\.js$/);
    expect(fs.existsSync(path.join(path.dirname(first.entry), 'worker.js'))).toBe(true);
    expect(fs.existsSync(path.join(path.dirname(first.entry), 'parse-worker.js'))).toBe(true);
    expect(fs.existsSync(path.join(path.dirname(first.entry), 'tree-sitter.wasm'))).toBe(true);
    expect(fs.existsSync(path.join(path.dirname(first.entry), 'py'))).toBe(true);
    const fresh = checkBundle(root, root);
    expect(fresh.entry).toBe(first.entry);
    expect(fresh.manifest!.inputs.map(([f]) => f)).toContain(path.join('main', 'host', 'paths.ts'));

    // Touched: same content, later mtime. Still current; the new mtime is recorded, so the next check hashes nothing.
    const paths = path.join(root, 'main', 'host', 'paths.ts');
    const later = new Date(fs.statSync(paths).mtimeMs + 60_000);
    fs.utimesSync(paths, later, later);
    const touched = checkBundle(root, root);
    expect(touched).toMatchObject({ entry: first.entry, rehashed: 1 });
    expect(checkBundle(root, root)).toMatchObject({ entry: first.entry, rehashed: 0 });
    expect(await ensureCliBundle({ root, base: root })).toMatchObject({ entry: first.entry, built: false });

    // Changed content (same mtime as before, even): stale, and the rebuild is a different bundle.
    fs.appendFileSync(paths, '// changed\n');
    fs.utimesSync(paths, later, later);
    expect(checkBundle(root, root).stale).toBe(`${path.join('main', 'host', 'paths.ts')} changed`);
    const second = await ensureCliBundle({ root, base: root });
    expect(second.built).toBe(true);
    expect(second.entry).not.toBe(first.entry);
    expect(checkBundle(root, root).entry).toBe(second.entry);
  });

  it('survives builds running at once: both finish and the manifest names a complete bundle', async () => {
    const root = sourceCopy();
    const [a, b] = await Promise.all([buildCli({ root, base: root }), buildCli({ root, base: root })]);
    expect(a.entry).toBe(b.entry);
    const now = checkBundle(root, root);
    expect(now.entry).toBe(a.entry);
    expect(fs.readdirSync(path.join(root, 'dist')).filter((n) => n.startsWith('.cli-tmp-'))).toEqual([]);
  });

  it('builds into the cache folder (OPENCODER_CLI_CACHE) standing in for the package root, and runs from there', () => {
    const cache = tmp('oc-cli-cache-');
    const db = path.join(tmp('oc-cli-db-'), 'w.db');
    const run = (args: string[]) => spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', env: { ...process.env, OPENCODER_CLI_CACHE: cache } });
    const first = run(['status', '--db', db]);
    expect(first.stderr).toBe('');
    expect(first.status).toBe(0);
    expect(first.stdout).toContain('No repositories indexed yet');
    const base = cacheBase(ROOT, { OPENCODER_CLI_CACHE: cache });
    const built = fs.readFileSync(manifestPath(base), 'utf8');
    expect(fs.lstatSync(path.join(base, 'node_modules')).isSymbolicLink()).toBe(true);
    // The second run finds it current and does not build again.
    expect(run(['--help']).status).toBe(0);
    expect(JSON.parse(fs.readFileSync(manifestPath(base), 'utf8')).builtAt).toBe(JSON.parse(built).builtAt);
  });

  it('falls back to the TypeScript sources, saying why on one stderr line, when it cannot be built', () => {
    const notADir = path.join(tmp('oc-cli-bad-'), 'file');
    fs.writeFileSync(notADir, '');
    const r = spawnSync(process.execPath, [BIN, '--help'], { encoding: 'utf8', env: { ...process.env, OPENCODER_CLI_CACHE: path.join(notADir, 'cache') } });
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('Usage: opencoder <command>');
    const lines = r.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^opencoder: could not build the CLI bundle in .*\(.+\); running from the TypeScript sources through tsx instead/);
  });
});

describe('the lazy command registry', () => {
  it('--help and <command> --help run from the bundle without loading any command file or heavy package', () => {
    for (const args of [['--help'], ['status', '--help'], ['generate', '--help']]) {
      const r = traced(args);
      expect(r.status, r.stderr).toBe(0);
      expect(r.stdout).toMatch(/usage/i);
      expect(r.modules.some((m) => /\/dist\/cli-[0-9a-f]{16}\/cli\.js$/.test(m))).toBe(true);
      expect(r.modules.filter((m) => m.endsWith('.ts'))).toEqual([]);
      expect(r.modules.filter((m) => /-commands?-[A-Z0-9]+\.js$/.test(m))).toEqual([]);
      expect(packagesIn(r.modules)).toEqual([]);
    }
  });

  it('status loads the store and its command file, but no encoder, parser or LLM SDK', () => {
    const db = path.join(tmp('oc-cli-db-'), 'w.db');
    const r = traced(['status', '--db', db]);
    expect(r.status, r.stderr).toBe(0);
    // The trace does see packages: the database driver is there.
    expect(packagesIn(r.modules)).toEqual(['better-sqlite3']);
    expect(r.modules.some((m) => /\/status-command-[A-Z0-9]+\.js$/.test(m))).toBe(true);
  });

  it('every command file implements exactly the commands specs.ts lists for it, with the same help and flags', async () => {
    for (const g of GROUPS) {
      const impl = await g.load();
      expect(Object.keys(impl), g.file).toEqual(Object.keys(g.specs));
      for (const [name, spec] of Object.entries(g.specs)) {
        expect({ summary: impl[name]!.summary, usage: impl[name]!.usage, options: impl[name]!.options }, name).toEqual(spec);
      }
    }
    expect(SAMPLE_FORMAT_NAMES).toEqual([...SAMPLE_FORMATS]);
  });
});
