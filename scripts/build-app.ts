// Builds the Electron shell into dist/app (Electron cannot load .ts):
//
//   main.cjs            app/main.ts — the main process (CommonJS; `electron` external)
//   preload.cjs         app/preload.ts — the sandboxed preload (CommonJS, self-contained: its only require is
//                       `electron`, as a sandboxed preload allows)
//   engine-process.js   app/engine-process.ts — the engine's utility process
//   worker.js           main/embed/worker.ts — encoder worker thread   } started by the engine as siblings of
//   parse-worker.js     main/index/parse-worker.ts — parser threads    } their caller (main/util/worker.ts)
//   tree-sitter.wasm    web-tree-sitter's runtime, located beside the bundle that loads it
//   py/                 main/validate/py and main/benchmarks/mining/py — the validation harness and mining's analysis (found beside their code)
//   package.json        {"type":"commonjs"}: the .js bundles are CommonJS even where the root package.json
//                       (type: module) is not above them (app.asar.unpacked)
//
// The bundles sit two folders below the package root, as the engine's own sources do (main/<area>/x.ts), so
// the engine's `../../resources` lookups work the same from a checkout. Native modules (better-sqlite3,
// sqlite-vec, onnxruntime-node) stay external and load from node_modules — rebuilt for Electron's ABI by
// electron-builder (npmRebuild) and unpacked from the asar (electron-builder.yml). The tree-sitter grammars'
// .wasm files are found through their packages (createRequire), also from node_modules.
//
// Usage: node bin/run-ts.js scripts/build-app.ts [--out DIR]

import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build, type BuildOptions, type Metafile, type Plugin } from 'esbuild';
import { CALLS } from '../contract/index.ts';
import { copyEngineAssets, ENGINE_EXTERNALS, externalsOf, WORKER_ENTRIES } from './engine-bundle.ts';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export { ENGINE_EXTERNALS };
/**
 * Optional packages required inside try/catch (ws's native speed-ups, debug's colours), or only on a path the
 * engine never takes (BullMQ's Valkey client: our queues use ioredis): absent is fine.
 */
const OPTIONAL_EXTERNALS = ['bufferutil', 'utf-8-validate', 'supports-color', '@valkey/valkey-glide'];

// import.meta.url in CommonJS output: the bundle's own file URL (esbuild would otherwise leave it empty).
const META_URL = '__opencoder_import_meta_url';
const META_URL_BANNER = `var ${META_URL} = require("node:url").pathToFileURL(__filename).href;`;

/**
 * The preload needs only the contract's call names (to refuse other names before sending), not its zod schemas:
 * this plugin hands it a module with `isCallName` over the names read from CALLS at build time, which keeps
 * the sandboxed preload small (no zod) while CALLS stays the one list. Type-only imports are erased anyway.
 */
function callNamesOnly(names: string[]): Plugin {
  return {
    name: 'contract-call-names',
    setup(b) {
      b.onResolve({ filter: /[\\/]contract[\\/]index\.ts$/ }, (args) => ({ path: path.resolve(args.resolveDir, args.path), namespace: 'call-names' }));
      b.onLoad({ filter: /.*/, namespace: 'call-names' }, () => ({
        loader: 'js',
        contents: `const NAMES = new Set(${JSON.stringify(names)});\nexport function isCallName(name) { return typeof name === 'string' && NAMES.has(name); }\n`,
      }));
    },
  };
}

export interface BuildResult {
  outDir: string;
  files: string[];
  warnings: string[];
}

export async function buildApp(opts: { outDir?: string; sourcemap?: boolean } = {}): Promise<BuildResult> {
  const outDir = path.resolve(opts.outDir ?? path.join(ROOT, 'dist', 'app'));
  const service = path.join(ROOT, 'main', 'host', 'service.ts');
  if (!fs.existsSync(service)) throw new Error(`${service} is missing: the engine process bundles the engine service (createEngineService).`);
  fs.rmSync(outDir, { recursive: true, force: true });
  fs.mkdirSync(outDir, { recursive: true });

  const common: BuildOptions = {
    absWorkingDir: ROOT,
    bundle: true,
    format: 'cjs',
    outdir: outDir,
    sourcemap: opts.sourcemap === false ? false : 'linked',
    legalComments: 'none',
    logLevel: 'silent',
    metafile: true,
  };
  const node: BuildOptions = {
    ...common,
    platform: 'node',
    target: 'node22', // Electron 45's Node
    define: { 'import.meta.url': META_URL },
    banner: { js: META_URL_BANNER },
  };

  const results = await Promise.all([
    build({ ...node, entryPoints: { main: 'app/main.ts' }, outExtension: { '.js': '.cjs' }, external: ['electron'] }),
    build({
      ...common,
      // A sandboxed preload is a browser context with a tiny require (electron, events, timers, url): no Node builtins.
      platform: 'browser',
      target: 'chrome140',
      entryPoints: { preload: 'app/preload.ts' },
      outExtension: { '.js': '.cjs' },
      external: ['electron'],
      plugins: [callNamesOnly(Object.keys(CALLS))],
    }),
    build({
      ...node,
      entryPoints: { 'engine-process': 'app/engine-process.ts', ...WORKER_ENTRIES },
      outExtension: { '.js': '.js' },
      external: [...ENGINE_EXTERNALS, ...OPTIONAL_EXTERNALS],
    }),
  ]);
  const warnings = results.flatMap((r) => r.warnings.map((w) => `${w.location?.file ?? ''}:${w.location?.line ?? ''} ${w.text}`));

  fs.writeFileSync(path.join(outDir, 'package.json'), JSON.stringify({ type: 'commonjs', private: true }, null, 2) + '\n');
  copyEngineAssets(ROOT, outDir);

  // Checks: every entry exists, and nothing outside the allowed externals is required at run time.
  const expect = ['main.cjs', 'preload.cjs', 'engine-process.js', 'worker.js', 'parse-worker.js', 'tree-sitter.wasm', 'package.json'];
  for (const f of expect) if (!fs.existsSync(path.join(outDir, f))) throw new Error(`build-app: ${f} was not produced`);
  const allowed: Record<string, string[]> = {
    'main.cjs': ['electron'],
    'preload.cjs': ['electron'],
    'engine-process.js': [...ENGINE_EXTERNALS, ...OPTIONAL_EXTERNALS],
    'worker.js': ENGINE_EXTERNALS,
    'parse-worker.js': ENGINE_EXTERNALS,
  };
  const metaOf: Record<string, Metafile | undefined> = {
    'main.cjs': results[0].metafile,
    'preload.cjs': results[1].metafile,
    'engine-process.js': results[2].metafile,
    'worker.js': results[2].metafile,
    'parse-worker.js': results[2].metafile,
  };
  for (const [file, ok] of Object.entries(allowed)) {
    const extra = externalsOf(metaOf[file], ROOT, path.join(outDir, file)).filter((m) => !ok.includes(m));
    if (extra.length) throw new Error(`build-app: ${file} requires ${extra.join(', ')} at run time, which the package does not provide there`);
  }
  const preloadRequires = [...fs.readFileSync(path.join(outDir, 'preload.cjs'), 'utf8').matchAll(/\brequire\(\s*["']([^"']+)["']\s*\)/g)].map((m) => m[1]);
  const notElectron = preloadRequires.filter((m) => m !== 'electron');
  if (notElectron.length) throw new Error(`build-app: the sandboxed preload requires ${notElectron.join(', ')}; only electron is available there`);

  const files = fs.readdirSync(outDir, { recursive: true }).map(String).sort();
  return { outDir, files, warnings };
}

const isMain = process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href;
if (isMain) {
  const i = process.argv.indexOf('--out');
  const outDir = i > 0 ? process.argv[i + 1] : undefined;
  try {
    const r = await buildApp({ outDir });
    for (const w of r.warnings) console.warn(`warning: ${w}`);
    const size = (f: string) => `${(fs.statSync(path.join(r.outDir, f)).size / 1024).toFixed(0)} KiB`;
    console.log(`built ${path.relative(process.cwd(), r.outDir) || r.outDir}:`);
    for (const f of ['main.cjs', 'preload.cjs', 'engine-process.js', 'worker.js', 'parse-worker.js']) console.log(`  ${f.padEnd(18)} ${size(f)}`);
  } catch (err) {
    console.error(err instanceof Error ? err.message : err);
    process.exitCode = 1;
  }
}
