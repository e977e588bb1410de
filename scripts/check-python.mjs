// Ruff over the engine's Python (the validator's main/validate/py/*.py and mining's main/benchmarks/mining/py/*.py), with the settings in ruff.toml, through Ruff's
// WebAssembly build (@astral-sh/ruff-wasm-nodejs): `npm run check` needs no Python tools. Prints each finding as
// `file:line:col code message` and exits 1 on any.
//
// Three files are not modules: the runner executes _opencoder_guard.py, _opencoder_stubs.py and
// _opencoder_integrity.py one after the other into one namespace (_load_guard in _opencoder_runner.py), so each
// uses names another defines. An undefined name (F821) in them counts only when it is undefined in the three
// read as one text, in that order.

import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { PositionEncoding, Workspace } from '@astral-sh/ruff-wasm-nodejs';
import { parse } from 'smol-toml';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const DIR = 'main/validate/py';
const DIRS = [DIR, 'main/benchmarks/mining/py'];
const SHARED_NAMESPACE = ['_opencoder_guard.py', '_opencoder_stubs.py', '_opencoder_integrity.py'];

// The wasm build takes ruff.toml's settings as an object; it never reads a file itself.
const settings = parse(fs.readFileSync(path.join(ROOT, 'ruff.toml'), 'utf8'));
const ruff = new Workspace(settings, PositionEncoding.Utf16);
const undefinedOnly = new Workspace({ ...settings, lint: { select: ['F821'] } }, PositionEncoding.Utf16);

// Files by their name in their folder (the shared-namespace rule is the validator's folder's only).
const files = DIRS.flatMap((dir) =>
  fs
    .readdirSync(path.join(ROOT, dir))
    .filter((f) => f.endsWith('.py'))
    .sort()
    .map((f) => (dir === DIR ? f : `${path.relative(DIR, dir)}/${f}`)),
);
const text = new Map(files.map((f) => [f, fs.readFileSync(path.join(ROOT, DIR, f), 'utf8')]));

// The names still undefined when the shared-namespace files are read together, as `file:line:col`.
const stillUndefined = new Set();
{
  const starts = [];
  let joined = '';
  for (const f of SHARED_NAMESPACE) {
    starts.push({ f, line: joined.split('\n').length - 1 });
    joined += text.get(f).replace(/\n?$/, '\n');
  }
  for (const d of undefinedOnly.check(joined)) {
    const row = d.start_location.row;
    const part = starts.findLast((s) => s.line < row);
    stillUndefined.add(`${part.f}:${row - part.line}:${d.start_location.column}`);
  }
}

let count = 0;
for (const f of files) {
  const found = ruff
    .check(text.get(f))
    .filter((d) => !(SHARED_NAMESPACE.includes(f) && d.code === 'F821' && !stillUndefined.has(`${f}:${d.start_location.row}:${d.start_location.column}`)))
    .sort((a, b) => a.start_location.row - b.start_location.row || a.start_location.column - b.start_location.column);
  for (const d of found)
    console.log(`${path.posix.normalize(`${DIR}/${f}`)}:${d.start_location.row}:${d.start_location.column} ${d.code ?? 'syntax'} ${d.message}`);
  count += found.length;
}
if (count > 0) {
  console.error(`check-python: ${count} finding(s) from Ruff ${Workspace.version()} in ${DIRS.join(', ')}`);
  process.exit(1);
}
console.log(`check-python: Ruff ${Workspace.version()} finds nothing in ${files.length} files of ${DIRS.join(', ')}.`);
