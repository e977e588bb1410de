// Parses every .py file of the local Python standard library on one thread and prints throughput.
// Usage: node bin/run-ts.js scripts/parse-stdlib.ts [STDLIB_DIR]
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { createExtractor } from '../main/index/extract.ts';
import { buildApiEntries } from '../main/index/api.ts';
import { stdlibPath } from '../bench/stdlib.ts';

function stdlibDir(): string {
  return process.argv[2] ?? stdlibPath();
}

function listPy(dir: string, out: string[]): void {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (e.isDirectory()) {
      if (e.name === 'site-packages' || e.name === '__pycache__' || e.name === 'dist-packages') continue;
      listPy(path.join(dir, e.name), out);
    } else if (e.isFile() && e.name.endsWith('.py')) {
      out.push(path.join(dir, e.name));
    }
  }
}

const root = stdlibDir();
const files: string[] = [];
listPy(root, files);
files.sort();

const extractor = await createExtractor();
let lines = 0;
let units = 0;
let chunks = 0;
let errors = 0;
let filesWithErrors = 0;
let apiEntries = 0;
let bytes = 0;
let slowest = { file: '', ms: 0 };
const t0 = performance.now();
for (const file of files) {
  const source = readFileSync(file, 'utf8');
  bytes += source.length;
  const t = performance.now();
  const rel = path.relative(root, file).split(path.sep).join('/');
  const r = extractor.parse(rel, 'python', source);
  apiEntries += buildApiEntries(r).length;
  const ms = performance.now() - t;
  if (ms > slowest.ms) slowest = { file: rel, ms };
  lines += r.units[0]?.endLine ?? 0;
  units += r.units.length;
  chunks += r.chunks.length;
  errors += r.errors.length;
  if (r.errors.length > 0) filesWithErrors++;
}
const seconds = (performance.now() - t0) / 1000;
extractor.dispose();
console.log(
  JSON.stringify(
    {
      stdlib: root,
      files: files.length,
      lines,
      mchars: +(bytes / 1e6).toFixed(1),
      units,
      chunks,
      apiEntries,
      errors,
      filesWithErrors,
      seconds: +seconds.toFixed(2),
      linesPerSecond: Math.round(lines / seconds),
      slowest: { file: slowest.file, ms: Math.round(slowest.ms) },
    },
    null,
    2,
  ),
);
