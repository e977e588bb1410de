// Import cycles between source files: none allowed. A cycle means one of its modules runs while another is half
// loaded (its exports still undefined), and it hides which of the two is the lower layer. Every import, export-from
// and import() of a relative path counts; `import type`, `export type` and imports that name only types do not,
// because TypeScript drops them from the emitted code. An edge made by import() is marked "(dynamic)" in the output.
// Files are parsed, not type-checked, so this runs in a few seconds. Exits 1 and prints each cycle as a path.

import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
/** The source trees checked (tests are left out: each test file is a leaf that nothing imports). */
const TREES = ['main', 'contract', 'renderer/src', 'app', 'bin', 'bench', 'scripts'];
const SOURCE = /\.(ts|tsx|mts|js|mjs)$/;

function filesUnder(dir) {
  const out = [];
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...filesUnder(p));
    else if (SOURCE.test(e.name) && !e.name.endsWith('.d.ts')) out.push(p);
  }
  return out;
}

/** True when an import or export declaration leaves nothing behind at run time. */
function typeOnly(n) {
  if (ts.isImportDeclaration(n)) {
    const c = n.importClause;
    if (!c) return false; // `import './x.ts'` runs the module
    if (c.isTypeOnly) return true;
    const named = c.namedBindings;
    return !c.name && !!named && ts.isNamedImports(named) && named.elements.length > 0 && named.elements.every((s) => s.isTypeOnly);
  }
  if (n.isTypeOnly) return true;
  const named = n.exportClause;
  return !!named && ts.isNamedExports(named) && named.elements.length > 0 && named.elements.every((s) => s.isTypeOnly);
}

/** The run-time imports of one file: [{ spec, dynamic }]. */
function importsOf(file) {
  const src = ts.createSourceFile(file, fs.readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, false);
  const out = [];
  const visit = (n) => {
    if ((ts.isImportDeclaration(n) || ts.isExportDeclaration(n)) && n.moduleSpecifier && ts.isStringLiteral(n.moduleSpecifier)) {
      if (!typeOnly(n)) out.push({ spec: n.moduleSpecifier.text, dynamic: false });
    } else if (ts.isCallExpression(n) && n.expression.kind === ts.SyntaxKind.ImportKeyword && n.arguments[0] && ts.isStringLiteral(n.arguments[0])) {
      out.push({ spec: n.arguments[0].text, dynamic: true });
    }
    ts.forEachChild(n, visit);
  };
  visit(src);
  return out;
}

const rel = (f) => path.relative(ROOT, f).split(path.sep).join('/');
const files = TREES.flatMap((t) => filesUnder(path.join(ROOT, t)));
const known = new Set(files);
/** The file an import names: as written, or the TypeScript source behind a `.js` name, or an index file. */
function resolve(from, spec) {
  const p = path.resolve(path.dirname(from), spec);
  const tries = [p, p.replace(/\.js$/, '.ts'), p.replace(/\.jsx$/, '.tsx'), p.replace(/\.mjs$/, '.mts'), `${p}.ts`, `${p}.tsx`, path.join(p, 'index.ts')];
  return tries.find((t) => known.has(t)) ?? null;
}
/** file → [{ to, dynamic }] */
const graph = new Map();
for (const f of files) {
  const edges = [];
  for (const { spec, dynamic } of importsOf(f)) {
    if (!spec.startsWith('.')) continue;
    const to = resolve(f, spec);
    if (to !== null && to !== f) edges.push({ to, dynamic });
  }
  graph.set(f, edges);
}

// Tarjan's strongly connected components: every file on a cycle is in a component of two or more files.
const index = new Map();
const low = new Map();
const stack = [];
const onStack = new Set();
const components = [];
let next = 0;
function connect(v) {
  index.set(v, next);
  low.set(v, next);
  next++;
  stack.push(v);
  onStack.add(v);
  for (const { to } of graph.get(v)) {
    if (!index.has(to)) {
      connect(to);
      low.set(v, Math.min(low.get(v), low.get(to)));
    } else if (onStack.has(to)) low.set(v, Math.min(low.get(v), index.get(to)));
  }
  if (low.get(v) === index.get(v)) {
    const part = [];
    let w;
    do {
      w = stack.pop();
      onStack.delete(w);
      part.push(w);
    } while (w !== v);
    if (part.length > 1) components.push(part);
  }
}
for (const f of files) if (!index.has(f)) connect(f);

/** The shortest cycle through `start` inside one component, as a list of [file, dynamic edge into it]. */
function shortestCycle(start, members) {
  const prev = new Map([[start, null]]);
  const queue = [start];
  while (queue.length) {
    const v = queue.shift();
    for (const { to, dynamic } of graph.get(v)) {
      if (!members.has(to)) continue;
      if (to === start) {
        const pathBack = [[start, dynamic]];
        for (let w = v; w !== start; w = prev.get(w).from) pathBack.push([w, prev.get(w).dynamic]);
        return [[start, false], ...pathBack.reverse()];
      }
      if (!prev.has(to)) {
        prev.set(to, { from: v, dynamic });
        queue.push(to);
      }
    }
  }
  return [];
}

if (components.length === 0) {
  console.log(`check-cycles: no import cycles among ${files.length} files (${TREES.join(', ')}).`);
  process.exit(0);
}
// One cycle per file on a cycle (the shortest through it), each printed once: enough to see every edge to cut.
const printed = new Set();
let count = 0;
for (const part of components.sort((a, b) => rel(a[0]).localeCompare(rel(b[0])))) {
  const members = new Set(part);
  console.log(`Import cycle among ${part.length} files: ${part.map(rel).sort().join(', ')}`);
  for (const start of [...part].sort((a, b) => rel(a).localeCompare(rel(b)))) {
    const cycle = shortestCycle(start, members);
    const key = cycle
      .slice(1)
      .map(([f]) => f)
      .sort()
      .join('\n');
    if (printed.has(key)) continue;
    printed.add(key);
    count++;
    console.log('  ' + cycle.map(([f, dynamic], i) => (i === 0 ? rel(f) : `${dynamic ? '⇢ (dynamic) ' : '→ '}${rel(f)}`)).join(' '));
  }
}
console.error(`check-cycles: ${count} import cycle(s) in ${components.length} group(s) of files; break each by moving the shared part down a layer.`);
process.exit(1);
