// What every bundle of the engine needs, whoever builds it (build-app.ts for Electron, build-cli.ts for the
// `opencoder` command): the packages left to node_modules, the files the engine finds beside its own code, and
// the check of what a bundle loads at run time.
//
// Layout rules the engine's sources assume, kept by both builds: the bundle sits two folders below the package
// root (as main/<area>/x.ts does), so `../../resources` lookups work; the worker entries worker.js and
// parse-worker.js sit beside the code that starts them (main/util/worker.ts siblingModule); web-tree-sitter finds
// tree-sitter.wasm beside the bundle; main/validate/sandbox.ts finds its harness in py/ beside its code.

import fs from 'node:fs';
import { builtinModules, createRequire } from 'node:module';
import path from 'node:path';
import type { Metafile } from 'esbuild';

/** Loaded from node_modules at run time: native code, or files found relative to the package. */
export const ENGINE_EXTERNALS = ['better-sqlite3', 'sqlite-vec', 'onnxruntime-node', 'node-llama-cpp'];

/** The worker threads' entries, by the name the engine starts them under (main/util/worker.ts siblingModule). */
export const WORKER_ENTRIES = { worker: 'main/embed/worker.ts', 'parse-worker': 'main/index/parse-worker.ts' };

/**
 * Copies what the engine finds beside its bundle into `outDir`: web-tree-sitter's runtime (tree-sitter.wasm) and
 * the validation harness (py/*.py, from `root`'s main/validate/py) and mining's source analysis (from
 * main/benchmarks/mining/py), both found in py/ beside the code that runs them. Returns the files copied from (absolute).
 */
export function copyEngineAssets(root: string, outDir: string): string[] {
  // web-tree-sitter's entry (ESM or CommonJS) sits beside its tree-sitter.wasm. (createRequire, not
  // import.meta.resolve, which vitest's module runner lacks: the test suite's global setup builds the CLI.)
  const wasm = path.join(path.dirname(createRequire(import.meta.url).resolve('web-tree-sitter')), 'tree-sitter.wasm');
  fs.copyFileSync(wasm, path.join(outDir, 'tree-sitter.wasm'));
  const pyTo = path.join(outDir, 'py');
  fs.mkdirSync(pyTo, { recursive: true });
  const py = [path.join(root, 'main', 'validate', 'py'), path.join(root, 'main', 'benchmarks', 'mining', 'py')].flatMap((pyFrom) =>
    fs
      .readdirSync(pyFrom)
      .filter((n) => n.endsWith('.py'))
      .map((f) => {
        fs.copyFileSync(path.join(pyFrom, f), path.join(pyTo, f));
        return path.join(pyFrom, f);
      }),
  );
  return [wasm, ...py];
}

/** The package an import specifier names (`@scope/name` or `name`), or null for a Node builtin. */
function packageOf(spec: string): string | null {
  const bare = spec.startsWith('node:') ? spec.slice(5) : spec;
  if (builtinModules.includes(bare) || builtinModules.includes(bare.split('/')[0]!)) return null;
  return spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]!;
}

/**
 * Packages the output `file` of a build loads at run time (the metafile's imports marked external), builtins left
 * out. `workDir` is the build's absWorkingDir, which the metafile's paths are relative to.
 */
export function externalsOf(meta: Metafile | undefined, workDir: string, file: string): string[] {
  const out = meta?.outputs[path.relative(workDir, file).split(path.sep).join('/')];
  if (!out) throw new Error(`no metafile entry for ${file}`);
  const found = new Set<string>();
  for (const imp of out.imports) {
    const pkg = imp.external ? packageOf(imp.path) : null;
    if (pkg) found.add(pkg);
  }
  return [...found].sort();
}
