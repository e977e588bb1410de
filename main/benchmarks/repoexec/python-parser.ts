// The Python tooling of the importer: a tree-sitter Python parser next to the index's extractor
// (opened once per import, with a cache of line verdicts, as views repeat the same lines a lot), the
// syntax check that also rejects Python-2-only statements, and the repair that turns a RepoExec view
// into valid Python.

import path from 'node:path';
import { createRequire } from 'node:module';
import { Parser, Language as Grammar, type Node } from 'web-tree-sitter';
import { createExtractor, type Extractor } from '../../index/extract.ts';
import { fillEmptyBlocks, logicalLines, stripLineComment } from './python-text.ts';

export interface PythonTools {
  parser: Parser;
  extractor: Extractor;
  /** Verdicts of lineParsesAlone: views repeat the same lines a lot. */
  lineCache: Map<string, boolean>;
  dispose(): void;
}

const requireHere = createRequire(import.meta.url);
let pythonGrammar: Promise<Grammar> | null = null;

/** Opens the parser and the extractor for one import; `dispose()` frees both. */
export async function openPython(): Promise<PythonTools> {
  // createExtractor initialises web-tree-sitter once per thread; initialising it again would swap
  // the wasm runtime under the extractor, so this module only loads its own grammar afterwards.
  const extractor = await createExtractor();
  pythonGrammar ??= Grammar.load(path.join(path.dirname(requireHere.resolve('tree-sitter-python/package.json')), 'tree-sitter-python.wasm'));
  const parser = new Parser();
  parser.setLanguage(await pythonGrammar);
  return {
    parser,
    extractor,
    lineCache: new Map(),
    dispose() {
      parser.delete();
      extractor.dispose();
    },
  };
}

/** Node types tree-sitter accepts that Python 3 rejects. */
const PY2_ONLY = new Set(['print_statement', 'exec_statement']);

/** 0-based row of the first syntax problem, or null when the tree is clean. */
export function firstProblemRow(root: Node): number | null {
  let found: number | null = null;
  const visit = (node: Node): void => {
    if (found !== null) return;
    if (node.isMissing) {
      found = node.startPosition.row;
      return;
    }
    if (node.type === 'ERROR') {
      // Prefer a nested problem: a recovered ERROR often starts well before the bad token.
      for (const c of node.children) if (c && (c.hasError || c.isMissing)) visit(c);
      if (found === null) found = node.startPosition.row;
      return;
    }
    for (const c of node.children) if (c && (c.hasError || c.isMissing)) visit(c);
  };
  if (root.hasError) visit(root);
  const py2 = root.descendantsOfType([...PY2_ONLY])[0];
  if (py2 && (found === null || py2.startPosition.row < found)) found = py2.startPosition.row;
  return found;
}

export interface Repaired {
  source: string;
  filled: number;
  droppedLines: string[];
  ok: boolean;
}

/**
 * Whether one logical line could be valid Python where it stands. Tree-sitter's error recovery
 * often blames an earlier, innocent line for a stray token (a `.styles` line inside a `try:`
 * body gets reported at the imports above it), so each line is first checked on its own, with
 * just enough scaffolding around it (a body for a header, an `if` before an `else`, …).
 */
function lineParsesAlone(parser: Parser, text: string, cache: Map<string, boolean>): boolean {
  const known = cache.get(text);
  if (known !== undefined) return known;
  const code = text.trimStart();
  let probe = `${code}\n`;
  if (code.startsWith('@')) probe = `${code}\ndef _f():\n    ...\n`;
  else if (/^(elif|else)\b/.test(code)) probe = `if _x:\n    ...\n${code}\n    ...\n`;
  else if (/^(except|finally)\b/.test(code)) probe = `try:\n    ...\n${code}\n    ...\n`;
  else if (/^case\b/.test(code)) probe = `match _x:\n    ${code}\n        ...\n`;
  else if (stripLineComment(code).endsWith(':')) probe = `${code}\n    ...\n`;
  const ok = parseClean(parser, probe);
  cache.set(text, ok);
  return ok;
}

/** RepoExec view → valid Python: stubs get `...`, lines that do not parse are dropped. */
export function repairSource(parser: Parser, code: string, cache: Map<string, boolean> = new Map()): Repaired {
  let lines = code.split('\n');
  const dropped: string[] = [];
  let filled = 0;
  // Stray lines first, each judged on its own; then whatever the whole-file parse still blames.
  const logical = logicalLines(lines);
  const bad = logical.filter((L) => L.code && !lineParsesAlone(parser, lines.slice(L.first, L.last + 1).join('\n'), cache));
  if (bad.length) {
    const drop = new Set<number>();
    for (const L of bad) {
      for (let i = L.first; i <= L.last; i++) drop.add(i);
      dropped.push(lines.slice(L.first, L.last + 1).join('\n'));
    }
    lines = lines.filter((_, i) => !drop.has(i));
  }
  for (let attempt = 0; attempt < 60; attempt++) {
    const f = fillEmptyBlocks(lines);
    const source = f.lines.join('\n');
    const tree = parser.parse(source);
    if (!tree) throw new Error('tree-sitter returned no tree');
    let row: number | null;
    try {
      row = firstProblemRow(tree.rootNode);
    } finally {
      tree.delete();
    }
    if (row === null) return { source, filled: filled + f.filled, droppedLines: dropped, ok: true };
    // Drop the whole logical line holding the problem (from the filled text, so rows line up).
    const L = logicalLines(f.lines).find((x) => x.first <= row && row <= x.last);
    if (!L) break;
    const removed = f.lines.slice(L.first, L.last + 1);
    // A problem on a `...` we inserted means the repair cannot converge.
    if (removed.length === 1 && removed[0]!.trim() === '...' && !lines.includes(removed[0]!)) break;
    dropped.push(removed.join('\n'));
    lines = [...f.lines.slice(0, L.first), ...f.lines.slice(L.last + 1)];
    // The filled `...` lines are kept: they are valid and re-filling would add them again.
    filled += f.filled;
  }
  return { source: code, filled, droppedLines: dropped, ok: false };
}

/** Whether `source` parses with no syntax problem (Python-2-only statements count as one). */
export function parseClean(parser: Parser, source: string): boolean {
  const tree = parser.parse(source);
  if (!tree) return false;
  try {
    return firstProblemRow(tree.rootNode) === null;
  } finally {
    tree.delete();
  }
}
