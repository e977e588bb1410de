// Imports the RepoExec benchmark (staged under shared/bench/repoexec, see its SOURCE.md) into
//   <out>/repos/<project>/...   one folder per project, its modules rebuilt from the raw rows
//   <out>/views/<task>/...       one folder per task: its own module view (the task's `task_view`)
//   <out>/tasks.jsonl            one manifest line per RepoExec-inline task (writeManifest)
//   <out>/IMPORT.md              what was imported, merged and dropped, with counts by reason
//
// RepoExec does not ship the 23 project repositories, only per-task "medium-context" module views
// (imports, dependencies as stubs or full bodies, constants, then the focal function). The index
// needs files, so each module is rebuilt as the union of everything the views show of it. The
// views are messy (body-less stubs, stray garbage lines), so every view is repaired first, and a
// definition is only moved to another module when the views say unambiguously where it lives.

import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { Parser, Language as Grammar, type Node } from 'web-tree-sitter';
import { createExtractor, type Extractor } from '../../index/extract.ts';
import { DEFAULT_PLACEHOLDER, writeManifest, type TaskRecord } from '../manifest.ts';
import { checkOutDir, countBy, IMPORT_MARKER, prepareOutDir, requirementFromSignature, type Fail } from '../import-out.ts';

// ---------------------------------------------------------------------------------------------
// Public API

/** File that marks an output folder as made by this importer (re-imports may replace it). */
export { IMPORT_MARKER };
export const REPOEXEC_BENCHMARK = 'repoexec-inline';

export class RepoExecImportError extends Error {
  constructor(
    message: string,
    readonly file?: string,
    readonly line?: number,
  ) {
    super(message);
    this.name = 'RepoExecImportError';
  }
}

export interface ImportWarning {
  /** Short machine-readable reason (`malformed-json`, `invalid-row`, `task-without-row`, …). */
  reason: string;
  /** Input or output file the warning is about (absolute), with a 1-based line when known. */
  file: string;
  line?: number;
  message: string;
}

export interface DroppedEntry {
  reason: string;
  project: string;
  /** Module whose view showed it. */
  module: string;
  problemId: number;
  /** The dropped line, or the definition's name. */
  what: string;
}

export interface ProjectSummary {
  project: string;
  /** Repository folder, relative to the output folder (`repos/python-string-utils`). */
  repo: string;
  rows: number;
  /** Modules that have rows of their own. */
  rowModules: number;
  /** Modules written only because other modules' views import definitions from them. */
  attributedModules: number;
  /** .py files written, `__init__.py` files included. */
  files: number;
  functions: number;
  methods: number;
  classes: number;
  focalFunctions: number;
  tasks: number;
}

export interface RepoExecImportOptions {
  /** The staged folder (holds repoexec_inline.jsonl and data_with_test_case/). */
  benchDir: string;
  outDir: string;
  /** Name of a subset in repoexec_inline_subsets.json; all inline tasks when absent. */
  subset?: string;
  /** Called for every warning as it happens (the result lists them too). */
  onWarning?: (w: ImportWarning) => void;
}

export interface RepoExecImportResult {
  benchDir: string;
  outDir: string;
  manifestFile: string;
  reportFile: string;
  subset: string | null;
  counts: {
    projects: number;
    modules: number;
    files: number;
    functions: number;
    methods: number;
    classes: number;
    focalFunctions: number;
    rows: number;
    tasks: number;
    /** Task views written under views/ (one per task). */
    views: number;
    /** Of those, views that hold only the reference solution (the row's view did not repair). */
    viewsFromReference: number;
    stubsFilled: number;
  };
  projects: ProjectSummary[];
  /** Dropped garbage lines and definitions that could not be attributed, by reason. */
  dropped: Record<string, number>;
  droppedEntries: DroppedEntry[];
  warnings: ImportWarning[];
  warningCounts: Record<string, number>;
}

// ---------------------------------------------------------------------------------------------
// Inputs

const INLINE_FILE = 'repoexec_inline.jsonl';
const SUBSETS_FILE = 'repoexec_inline_subsets.json';
const ROWS_DIR = 'data_with_test_case';
const ROW_FILES = ['pass_data.jsonl', 'failed_data.jsonl'] as const;

interface RawRow {
  problemId: number;
  project: string;
  module: string;
  entryPoint: string;
  focal: string;
  code: string;
  file: string;
  line: number;
}

interface InlineTask {
  taskId: string;
  hfIndex: number;
  problemId: number;
  project: string;
  module: string;
  entryPoint: string;
  prompt: string;
  solution: string;
  checkTemplate: string;
  placeholder: string;
  testNames: string[];
  extra: Record<string, unknown>;
  file: string;
  line: number;
}

type Warn = (reason: string, file: string, line: number | undefined, message: string) => void;

/** Reads a JSONL file; a line that is not JSON becomes a warning and is skipped. */
function readJsonl(file: string, warn: Warn): { value: unknown; line: number }[] {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    throw new RepoExecImportError(`Cannot read ${file}: ${(err as Error).message}`, file);
  }
  const out: { value: unknown; line: number }[] = [];
  text.split('\n').forEach((raw, i) => {
    if (!raw.trim()) return;
    try {
      out.push({ value: JSON.parse(raw), line: i + 1 });
    } catch (err) {
      warn('malformed-json', file, i + 1, `not valid JSON, line skipped (${(err as Error).message})`);
    }
  });
  return out;
}

const DOTTED = /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$/;
const IDENT = /^[A-Za-z_][A-Za-z0-9_]*$/;

function str(o: Record<string, unknown>, k: string): string | null {
  return typeof o[k] === 'string' ? (o[k] as string) : null;
}
function int(o: Record<string, unknown>, k: string): number | null {
  return typeof o[k] === 'number' && Number.isInteger(o[k]) ? (o[k] as number) : null;
}

function readRows(benchDir: string, warn: Warn): RawRow[] {
  const dir = path.join(benchDir, ROWS_DIR);
  if (!fs.existsSync(dir) || !fs.statSync(dir).isDirectory()) {
    throw new RepoExecImportError(`Missing folder ${dir} (the raw RepoExec rows, data_with_test_case/<project>/*.jsonl)`, dir);
  }
  const rows: RawRow[] = [];
  const seen = new Map<number, string>();
  for (const project of fs.readdirSync(dir).sort()) {
    const pdir = path.join(dir, project);
    if (!fs.statSync(pdir).isDirectory()) continue;
    for (const name of ROW_FILES) {
      const file = path.join(pdir, name);
      if (!fs.existsSync(file)) throw new RepoExecImportError(`Missing file ${file}`, file);
      for (const { value, line } of readJsonl(file, warn)) {
        const o = (value && typeof value === 'object' ? value : {}) as Record<string, unknown>;
        const row = {
          problemId: int(o, 'problem_ids'),
          project: str(o, 'project'),
          module: str(o, 'module'),
          entryPoint: str(o, 'entry_point'),
          focal: str(o, 'focal_function'),
          code: str(o, 'code'),
        };
        const missing = Object.entries(row)
          .filter(([, v]) => v === null)
          .map(([k]) => k);
        if (missing.length) {
          warn('invalid-row', file, line, `row skipped: missing or mistyped ${missing.join(', ')}`);
          continue;
        }
        if (!DOTTED.test(row.module!) || !IDENT.test(row.entryPoint!) || repoFolderForProject(row.project!) === null) {
          warn('invalid-row', file, line, `row skipped: unusable project/module/entry_point (${row.project} ${row.module} ${row.entryPoint})`);
          continue;
        }
        const prev = seen.get(row.problemId!);
        if (prev) {
          warn('duplicate-row', file, line, `problem id ${row.problemId} already read at ${prev}; row skipped`);
          continue;
        }
        seen.set(row.problemId!, `${file}:${line}`);
        rows.push({
          ...(row as Omit<RawRow, 'file' | 'line'>),
          focal: normaliseNewlines(row.focal!),
          code: normaliseNewlines(row.code!),
          file,
          line,
        });
      }
    }
  }
  return rows;
}

function readInline(benchDir: string, warn: Warn): InlineTask[] {
  const file = path.join(benchDir, INLINE_FILE);
  if (!fs.existsSync(file)) throw new RepoExecImportError(`Missing file ${file} (the RepoExec-inline tasks)`, file);
  const tasks: InlineTask[] = [];
  const seen = new Set<string>();
  const KNOWN = new Set([
    'task_id', 'hf_index', 'problem_id', 'project', 'module', 'entry_point', 'target_function_prompt', 'solution',
    'check_template', 'placeholder', 'test_names', 'context', 'prompt', 'test',
  ]);
  for (const { value, line } of readJsonl(file, warn)) {
    const o = (value && typeof value === 'object' ? value : {}) as Record<string, unknown>;
    const t = {
      taskId: str(o, 'task_id'),
      hfIndex: int(o, 'hf_index'),
      problemId: int(o, 'problem_id'),
      project: str(o, 'project'),
      module: str(o, 'module'),
      entryPoint: str(o, 'entry_point'),
      prompt: str(o, 'target_function_prompt'),
      solution: str(o, 'solution'),
      checkTemplate: str(o, 'check_template'),
    };
    const missing = Object.entries(t)
      .filter(([, v]) => v === null)
      .map(([k]) => k);
    const testNames = o.test_names;
    if (!Array.isArray(testNames) || !testNames.every((x) => typeof x === 'string')) missing.push('test_names');
    if (missing.length) {
      warn('invalid-task', file, line, `task skipped: missing or mistyped ${missing.join(', ')}`);
      continue;
    }
    if (seen.has(t.taskId!)) {
      warn('duplicate-task', file, line, `task ${t.taskId} already read; line skipped`);
      continue;
    }
    seen.add(t.taskId!);
    const extra: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(o)) if (!KNOWN.has(k)) extra[k] = v;
    tasks.push({
      ...(t as Omit<InlineTask, 'placeholder' | 'testNames' | 'extra' | 'file' | 'line'>),
      placeholder: str(o, 'placeholder') ?? DEFAULT_PLACEHOLDER,
      testNames: testNames as string[],
      extra,
      file,
      line,
    });
  }
  return tasks;
}

function readSubsets(benchDir: string): Map<string, string[]> {
  const file = path.join(benchDir, SUBSETS_FILE);
  if (!fs.existsSync(file)) throw new RepoExecImportError(`Missing file ${file} (the named task subsets)`, file);
  let json: unknown;
  try {
    json = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (err) {
    throw new RepoExecImportError(`${file}: not valid JSON (${(err as Error).message})`, file);
  }
  const out = new Map<string, string[]>();
  if (!json || typeof json !== 'object' || Array.isArray(json)) throw new RepoExecImportError(`${file}: expected an object of subsets`, file);
  for (const [name, v] of Object.entries(json as Record<string, unknown>)) {
    const ids = (v as { task_ids?: unknown })?.task_ids;
    if (!Array.isArray(ids) || !ids.every((x) => typeof x === 'string')) {
      throw new RepoExecImportError(`${file}: subset ${name} has no task_ids list of strings`, file);
    }
    out.set(name, ids as string[]);
  }
  return out;
}

/** `test-apps/python-string-utils` → `python-string-utils`; `test-apps/black/src` → `black/src`. Null if unusable as a path. */
export function repoFolderForProject(project: string): string | null {
  const rel = project.replace(/^test-apps\//, '');
  const parts = rel.split('/');
  if (!rel || parts.some((p) => !/^[A-Za-z0-9._-]+$/.test(p) || p === '.' || p === '..')) return null;
  return parts.join('/');
}

function normaliseNewlines(s: string): string {
  return s.replace(/\r\n?/g, '\n');
}

// ---------------------------------------------------------------------------------------------
// Python text helpers (no parser needed)

interface LogicalLine {
  /** 0-based physical line range, inclusive. */
  first: number;
  last: number;
  /** Code of the logical line without comments; '' for blank or comment-only lines. */
  code: string;
}

/** Splits Python source lines into logical lines (brackets, strings and backslashes join lines). */
function logicalLines(lines: string[]): LogicalLine[] {
  const out: LogicalLine[] = [];
  let inStr: { q: string; triple: boolean } | null = null;
  let depth = 0;
  let start = 0;
  let code = '';
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    let cont = false;
    for (let j = 0; j < line.length; j++) {
      const ch = line[j]!;
      if (inStr) {
        if (ch === '\\') {
          if (j === line.length - 1) cont = true;
          code += line.slice(j, j + 2);
          j++;
        } else if (inStr.triple && line.startsWith(inStr.q.repeat(3), j)) {
          code += inStr.q.repeat(3);
          j += 2;
          inStr = null;
        } else {
          if (!inStr.triple && ch === inStr.q) inStr = null;
          code += ch;
        }
        continue;
      }
      if (ch === '#') break;
      if (ch === '"' || ch === "'") {
        const triple = line.startsWith(ch.repeat(3), j);
        inStr = { q: ch, triple };
        code += triple ? ch.repeat(3) : ch;
        if (triple) j += 2;
        continue;
      }
      if (ch === '\\' && j === line.length - 1) {
        cont = true;
        continue;
      }
      if ('([{'.includes(ch)) depth++;
      else if (')]}'.includes(ch)) depth = Math.max(0, depth - 1);
      code += ch;
    }
    // An unterminated one-line string ends at the newline (garbage; the parser will say so).
    if (inStr && !inStr.triple && !cont) inStr = null;
    if (inStr || depth > 0 || cont) {
      code += '\n';
      continue;
    }
    out.push({ first: start, last: i, code: code.trim() ? code : '' });
    start = i + 1;
    code = '';
  }
  if (start < lines.length) out.push({ first: start, last: lines.length - 1, code: code.trim() ? code : '' });
  return out;
}

function indentWidth(line: string): number {
  let w = 0;
  for (const ch of line) {
    if (ch === ' ') w++;
    else if (ch === '\t') w += 8 - (w % 8);
    else break;
  }
  return w;
}

function leadingWs(line: string): string {
  return /^[ \t]*/.exec(line)![0];
}

const BLOCK_HEADER = /^\s*(?:async\s+)?(?:def|class|if|elif|else|try|except\*?|finally|for|while|with)\b/;

/**
 * Gives every block header with no body (`def f(x):` followed by a dedent, as RepoExec's views
 * print stubs) a `...` body. Returns the new lines and how many bodies were filled.
 */
function fillEmptyBlocks(lines: string[]): { lines: string[]; filled: number } {
  const logical = logicalLines(lines);
  const inserts: { after: number; text: string }[] = [];
  for (let k = 0; k < logical.length; k++) {
    const L = logical[k]!;
    if (!L.code || !BLOCK_HEADER.test(L.code) || !L.code.trimEnd().endsWith(':')) continue;
    let next: LogicalLine | undefined;
    for (let m = k + 1; m < logical.length; m++) {
      if (logical[m]!.code) {
        next = logical[m];
        break;
      }
    }
    const head = lines[L.first]!;
    if (!next || indentWidth(lines[next.first]!) <= indentWidth(head)) {
      inserts.push({ after: L.last, text: `${leadingWs(head)}    ...` });
    }
  }
  if (!inserts.length) return { lines, filled: 0 };
  const out = lines.slice();
  for (let i = inserts.length - 1; i >= 0; i--) out.splice(inserts[i]!.after + 1, 0, inserts[i]!.text);
  return { lines: out, filled: inserts.length };
}

/** Removes the common leading indentation of non-blank lines. */
function dedent(text: string): string {
  const lines = text.split('\n');
  let min = Infinity;
  for (const l of lines) if (l.trim()) min = Math.min(min, leadingWs(l).length);
  if (!min || min === Infinity) return text;
  return lines.map((l) => (l.trim() ? l.slice(min) : '')).join('\n');
}

/** Moves a block whose first line starts at column `from` to column `to` (other lines shift alike). */
function shiftBlock(text: string, from: number, to: number): string {
  const first = ' '.repeat(to);
  const lines = text.split('\n');
  if (from === to) return first + text;
  return lines
    .map((l, i) => {
      if (i === 0) return first + l;
      if (!l.trim()) return l;
      if (to > from) return ' '.repeat(to - from) + l;
      const ws = leadingWs(l);
      return l.slice(Math.min(ws.length, from - to));
    })
    .join('\n');
}

function normaliseStatement(text: string): string {
  return text
    .replace(/#[^\n'"]*$/gm, '')
    .replace(/\s+/g, ' ')
    .replace(/([([{]) /g, '$1')
    .replace(/ ([)\]}])/g, '$1')
    .replace(/,\s*\)/g, ')')
    .trim();
}

// ---------------------------------------------------------------------------------------------
// Parser

interface PythonTools {
  parser: Parser;
  extractor: Extractor;
  /** Verdicts of lineParsesAlone: views repeat the same lines a lot. */
  lineCache: Map<string, boolean>;
  dispose(): void;
}

const requireHere = createRequire(import.meta.url);
let pythonGrammar: Promise<Grammar> | null = null;

async function openPython(): Promise<PythonTools> {
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
function firstProblemRow(root: Node): number | null {
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

interface Repaired {
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

function stripLineComment(code: string): string {
  const L = logicalLines(code.split('\n'));
  return L.map((l) => l.code).join('\n').trimEnd();
}

/** RepoExec view → valid Python: stubs get `...`, lines that do not parse are dropped. */
function repairSource(parser: Parser, code: string, cache: Map<string, boolean> = new Map()): Repaired {
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

function parseClean(parser: Parser, source: string): boolean {
  const tree = parser.parse(source);
  if (!tree) return false;
  try {
    return firstProblemRow(tree.rootNode) === null;
  } finally {
    tree.delete();
  }
}

// ---------------------------------------------------------------------------------------------
// Statements of a view

type ItemKind = 'future' | 'import' | 'def' | 'class' | 'assign' | 'stmt';

interface Member {
  key: string;
  /** Source at 4-space indentation. */
  text: string;
  rank: number;
}

interface Item {
  kind: ItemKind;
  key: string;
  /** The name a def/class/assignment binds (null for other statements). */
  name: string | null;
  /** Source starting at column 0 (class: the whole class as written). */
  text: string;
  /** 3 focal, 2 full body, 1 docstring only, 0 body-less. Higher wins a merge. */
  rank: number;
  /** Classes only: header line(s), docstring (at 4 spaces) and members, merged member-wise. */
  header?: string;
  docstring?: string | null;
  members?: Member[];
  /** Whether this item is the row's focal function. */
  focal?: boolean;
  /** Statements only: normalised first line, and whether the body is only stubs. */
  head?: string;
  hollow?: boolean;
  /** For a focal method: its class name. */
  focalClass?: string;
}

interface ImportBinding {
  /** Resolved dotted module the name comes from (`string_utils.validation`). */
  from: string;
  /** Name in that module. */
  original: string;
  /** Name bound here (alias or original). */
  local: string;
}

function textOf(src: string, node: Node): string {
  return src.slice(node.startIndex, node.endIndex);
}

function outerNode(node: Node): Node {
  return node.parent?.type === 'decorated_definition' ? node.parent : node;
}

function isStubStatement(n: Node): boolean {
  if (n.type === 'pass_statement') return true;
  return n.type === 'expression_statement' && n.namedChildCount === 1 && n.namedChild(0)?.type === 'ellipsis';
}

function isDocString(n: Node | null | undefined): boolean {
  return !!n && n.type === 'expression_statement' && n.namedChildCount === 1 && ['string', 'concatenated_string'].includes(n.namedChild(0)!.type);
}

/** 2 real statements, 1 docstring only, 0 nothing but `...`/`pass`. */
function bodyRank(def: Node): number {
  const body = def.childForFieldName('body');
  if (!body) return 0;
  const stmts = body.namedChildren.filter((c): c is Node => !!c && c.type !== 'comment');
  const hasDoc = isDocString(stmts[0]);
  const rest = stmts.slice(hasDoc ? 1 : 0).filter((c) => !isStubStatement(c));
  return rest.length ? 2 : hasDoc ? 1 : 0;
}

/** The definition inside a decorated_definition, or the node itself. */
function definitionOf(node: Node): Node {
  return node.type === 'decorated_definition' ? (node.childForFieldName('definition') ?? node) : node;
}

/** Key of a function: its name, plus the decorator role when several defs legitimately share it. */
function defKey(def: Node, src: string): string {
  const name = def.childForFieldName('name')?.text ?? '?';
  const outer = outerNode(def);
  let role = '';
  if (outer.type === 'decorated_definition') {
    for (const d of outer.namedChildren) {
      if (!d || d.type !== 'decorator') continue;
      const t = d.text.replace(/^@\s*/, '').trim();
      const m = /^[A-Za-z_]\w*\.(setter|getter|deleter)$/.exec(t);
      if (m) role = `:${m[1]}`;
      else if (t === 'overload' || t === 'typing.overload') role = `:overload:${normaliseStatement(textOf(src, def.childForFieldName('parameters') ?? def))}`;
    }
  }
  return `def:${name}${role}`;
}

/** Name bound by an assignment statement (`x = …`, `x: T = …`, `x, y = …` → x), or null. */
function assignedName(stmt: Node): string | null {
  if (stmt.type !== 'expression_statement' || stmt.namedChildCount !== 1) return null;
  const a = stmt.namedChild(0)!;
  if (a.type !== 'assignment') return null;
  let left = a.childForFieldName('left');
  while (left && ['pattern_list', 'tuple_pattern', 'list_pattern'].includes(left.type)) left = left.namedChild(0);
  return left?.type === 'identifier' ? left.text : null;
}

function memberOf(src: string, node: Node, occurrence: Map<string, number>): Member | null {
  if (node.type === 'comment' || isStubStatement(node)) return null;
  const col = node.startPosition.column;
  const text = shiftBlock(textOf(src, node), col, 4);
  const def = definitionOf(node);
  if (def.type === 'function_definition') return { key: defKey(def, src), text, rank: bodyRank(def) };
  if (def.type === 'class_definition') return { key: `class:${def.childForFieldName('name')?.text}`, text, rank: bodyRank(def) };
  const name = assignedName(node);
  if (name) return { key: `assign:${name}`, text, rank: 2 };
  const head = normaliseStatement(textOf(src, node).split('\n')[0]!);
  const n = (occurrence.get(head) ?? 0) + 1;
  occurrence.set(head, n);
  return { key: `stmt:${head}#${n}`, text, rank: 2 };
}

function classItem(src: string, node: Node, cls: Node): Item {
  const body = cls.childForFieldName('body');
  const name = cls.childForFieldName('name')?.text ?? '?';
  const header = src.slice(node.startIndex, body ? body.startIndex : node.endIndex).trimEnd();
  let docstring: string | null = null;
  const members: Member[] = [];
  const occurrence = new Map<string, number>();
  const stmts = (body?.namedChildren ?? []).filter((c): c is Node => !!c);
  stmts.forEach((c, i) => {
    if (i === stmts.findIndex((x) => x.type !== 'comment') && isDocString(c)) {
      docstring = shiftBlock(textOf(src, c), c.startPosition.column, 4);
      return;
    }
    const m = memberOf(src, c, occurrence);
    if (!m) return;
    // Same-key members of one view (overloads whose decorators the view dropped) keep the best.
    const at = members.findIndex((x) => x.key === m.key);
    if (at === -1) members.push(m);
    else members[at] = better(members[at]!, m);
  });
  return { kind: 'class', key: `class:${name}`, name, text: textOf(src, node), rank: bodyRank(cls), header, docstring, members };
}

/** Resolves `from <spec> import …` seen in `module` to a dotted module name. */
function resolveFrom(module: string, spec: string, isPackage: boolean): string | null {
  const m = /^(\.*)(.*)$/.exec(spec.replace(/\s+/g, ''))!;
  const level = m[1]!.length;
  const rest = m[2]!;
  if (!level) return rest || null;
  const parts = module.split('.');
  const keep = parts.length - (isPackage ? level - 1 : level);
  if (keep < 0) return null;
  const base = parts.slice(0, keep);
  if (rest) base.push(...rest.split('.'));
  return base.length ? base.join('.') : null;
}


interface ImportFacts {
  /** Names bound by `from X import name`, by local name and by original name. */
  fromImports: Map<string, ImportBinding>;
  /** Resolved targets of `from X import *` inside the project. */
  projectStars: string[];
  /** Local names bound to project modules or their members (`import luigi` → luigi). */
  projectAliases: string[];
  /** Every project module named by an import (resolved), for package detection. */
  referencedModules: string[];
}

/** Collects what the import statements of a view bind (including imports nested in `try`/`if`). */
function importFacts(
  root: Node,
  module: string,
  moduleIsPackage: boolean,
  inProject: (dotted: string) => boolean,
): ImportFacts {
  const facts: ImportFacts = { fromImports: new Map(), projectStars: [], projectAliases: [], referencedModules: [] };
  for (const node of root.descendantsOfType(['import_statement', 'import_from_statement'])) {
    if (!node) continue;
    if (node.type === 'import_statement') {
      for (const n of node.childrenForFieldName('name')) {
        if (!n) continue;
        const dotted = (n.type === 'aliased_import' ? n.childForFieldName('name') : n)?.text.replace(/\s+/g, '') ?? '';
        const alias = n.type === 'aliased_import' ? n.childForFieldName('alias')?.text : dotted.split('.')[0];
        if (!dotted || !inProject(dotted)) continue;
        facts.referencedModules.push(dotted);
        if (alias) facts.projectAliases.push(alias);
      }
      continue;
    }
    const spec = node.childForFieldName('module_name')?.text ?? '';
    const from = resolveFrom(module, spec, moduleIsPackage);
    if (!from) continue;
    const project = spec.startsWith('.') || inProject(from);
    if (project) facts.referencedModules.push(from);
    if (node.namedChildren.some((c) => c?.type === 'wildcard_import')) {
      if (project) facts.projectStars.push(from);
      continue;
    }
    for (const n of node.childrenForFieldName('name')) {
      if (!n) continue;
      const original = (n.type === 'aliased_import' ? n.childForFieldName('name') : n)?.text.replace(/\s+/g, '') ?? '';
      const local = n.type === 'aliased_import' ? (n.childForFieldName('alias')?.text ?? original) : original;
      if (!original || original.includes('.')) continue;
      const b: ImportBinding = { from: project ? from : `<external>${from}`, original, local };
      facts.fromImports.set(local, b);
      if (!facts.fromImports.has(original)) facts.fromImports.set(original, b);
      if (project) facts.projectAliases.push(local);
    }
  }
  return facts;
}

function withoutStringsAndComments(root: Node, src: string): string {
  let out = '';
  let pos = 0;
  for (const n of root.descendantsOfType(['string', 'comment'])) {
    if (!n || n.startIndex < pos) continue;
    out += src.slice(pos, n.startIndex) + ' ';
    pos = n.endIndex;
  }
  return out + src.slice(pos);
}

/** Top-level statements of a (repaired, clean) view, in order. */
/** True when a compound statement has nothing but clause headers and `...`/`pass` bodies. */
function isHollow(text: string): boolean {
  return logicalLines(text.split('\n')).every((L) => {
    const code = L.code.trim();
    return !code || code === '...' || code === 'pass' || (BLOCK_HEADER.test(code) && code.endsWith(':'));
  });
}

function viewItems(root: Node, src: string, garbage: string[]): Item[] {
  const items: Item[] = [];
  for (const node of root.namedChildren) {
    if (!node || node.type === 'comment') continue;
    const text = textOf(src, node);
    if (node.type === 'future_import_statement') {
      items.push({ kind: 'future', key: `import:${normaliseStatement(text)}`, name: null, text, rank: 2 });
      continue;
    }
    if (node.type === 'import_statement' || node.type === 'import_from_statement') {
      items.push({ kind: 'import', key: `import:${normaliseStatement(text)}`, name: null, text, rank: 2 });
      continue;
    }
    const def = definitionOf(node);
    if (def.type === 'function_definition') {
      items.push({ kind: 'def', key: defKey(def, src), name: def.childForFieldName('name')?.text ?? null, text, rank: bodyRank(def) });
      continue;
    }
    if (def.type === 'class_definition') {
      items.push(classItem(src, node, def));
      continue;
    }
    const name = assignedName(node);
    if (name) {
      items.push({ kind: 'assign', key: `assign:${name}`, name, text, rank: 2 });
      continue;
    }
    // A lone name (`configuration`) is what is left of a broken `from . import configuration`.
    if (node.type === 'expression_statement' && node.namedChildCount === 1 && node.namedChild(0)!.type === 'identifier') {
      garbage.push(text);
      continue;
    }
    // Other statements (`if …:`, `try:`, calls) are kept verbatim, one copy of each text. Views
    // often show them hollowed out (`if TYPE_CHECKING: ...`); isHollow lets a fuller copy win.
    items.push({ kind: 'stmt', key: `stmt:${normaliseStatement(text)}`, name: null, text, rank: 2, head: normaliseStatement(text.split('\n')[0]!), hollow: isHollow(text) });
  }
  return items;
}

// ---------------------------------------------------------------------------------------------
// One project: views → modules

interface Occurrence {
  module: string;
  item: Item;
  strength: 'focal' | 'local' | 'import' | 'weak' | 'dropped';
  /** Why a weak occurrence is doubtful (the drop reason when nothing confirms it). */
  doubt?: string;
  row: RawRow;
  index: number;
}

interface BuiltModule {
  module: string;
  /** Path relative to the repository root. */
  file: string;
  source: string;
  fromRows: boolean;
}

interface BuiltProject {
  project: string;
  repoFolder: string;
  rows: RawRow[];
  modules: BuiltModule[];
  /** Every .py file to write (modules and empty package __init__ files), relative path → content. */
  files: Map<string, string>;
  /** problem id → where its focal function went. */
  focal: Map<number, { file: string; qualname: string; module: string }>;
  /** problem id → the row's own `code` view after repair (only rows whose view repaired). */
  views: Map<number, string>;
  stubsFilled: number;
}

interface Recorder {
  warn: Warn;
  drop(reason: string, row: RawRow, what: string): void;
}

const DROP_REASONS: Record<string, string> = {
  'garbage-line': 'a line of a view that does not parse (extractor residue such as `.` or `from x y`), removed',
  'stray-name': 'a module-level statement that is only a name (`configuration`): residue of a broken import, removed',
  'external-import': "a definition shown in a view but imported there from outside the project (no file to put it in)",
  'imported-from-package': 'a definition imported from a package (`from pkg import X`): likely a re-export, real module unknown',
  'defined-elsewhere': 'imported from module X, but the views show it defined in another module: X probably re-exports it',
  'conflicting-imports': 'views import the same name from different modules and none shows where it is defined',
  'star-import': 'a public name in a view that also star-imports a project module: it may come from there',
  'attribute-reference': 'the view uses the name through an imported project module (`pkg.mod.Name`): it may live there',
  'unrepairable-view': "a view that still did not parse after repair: only its focal function was used (and a task's view holds only its reference)",
  'invalid-after-merge': 'a merged definition that made its module unparseable, removed',
};

function firstLine(text: string): string {
  return text.split('\n').find((l) => l.trim())?.trim() ?? '';
}

function buildProject(project: string, rows: RawRow[], tools: PythonTools, rec: Recorder): BuiltProject {
  const repoFolder = repoFolderForProject(project)!;
  const rowModules = new Set(rows.map((r) => r.module));
  const tops = new Set([...rowModules].map((m) => m.split('.')[0]!));
  const inProject = (dotted: string) => tops.has(dotted.split('.')[0]!);
  const isPrefixOf = (set: Iterable<string>, m: string) => [...set].some((x) => x.startsWith(`${m}.`));
  let stubsFilled = 0;
  const views = new Map<number, string>();

  // Pass 1: repair and read every view.
  interface Analysed {
    row: RawRow;
    items: Item[];
    facts: ImportFacts;
    /** The view without string literals and comments (docstring examples say `pkg.Name` a lot). */
    text: string;
  }
  const analysed: Analysed[] = [];
  for (const row of rows) {
    const fixed = repairSource(tools.parser, row.code, tools.lineCache);
    stubsFilled += fixed.filled;
    for (const line of fixed.droppedLines) rec.drop('garbage-line', row, line.trim());
    let items: Item[] = [];
    let facts: ImportFacts = { fromImports: new Map(), projectStars: [], projectAliases: [], referencedModules: [] };
    let codeText = '';
    if (fixed.ok) {
      views.set(row.problemId, fixed.source);
      const tree = tools.parser.parse(fixed.source)!;
      try {
        const garbage: string[] = [];
        items = viewItems(tree.rootNode, fixed.source, garbage);
        for (const g of garbage) rec.drop('stray-name', row, g);
        facts = importFacts(tree.rootNode, row.module, isPrefixOf(rowModules, row.module), inProject);
        codeText = withoutStringsAndComments(tree.rootNode, fixed.source);
      } finally {
        tree.delete();
      }
    } else {
      rec.drop('unrepairable-view', row, `view of ${row.entryPoint}`);
      rec.warn('unrepairable-view', row.file, row.line, `the code view of ${row.module}.${row.entryPoint} does not parse after repair; only its focal function is used (a task's view holds only its reference)`);
    }
    items = placeFocal(row, items, tools, rec);
    analysed.push({ row, items, facts, text: codeText });
  }

  // Modules named anywhere; a name that prefixes another is a package (its __init__ re-exports).
  const referenced = new Set(rowModules);
  for (const a of analysed) for (const m of a.facts.referencedModules) referenced.add(m);
  const isPackage = (m: string) => isPrefixOf(referenced, m);

  // Pass 2: where does each item live?
  const occurrences: Occurrence[] = [];
  for (const { row, items, facts, text } of analysed) {
    items.forEach((item, index) => {
      const base = { item, row, index };
      if (item.focal) return occurrences.push({ ...base, module: row.module, strength: 'focal' });
      if (!item.name || item.kind === 'import' || item.kind === 'future' || item.kind === 'stmt') {
        return occurrences.push({ ...base, module: row.module, strength: 'local' });
      }
      const name = item.name;
      const b = facts.fromImports.get(name);
      if (b) {
        if (b.from.startsWith('<external>')) return rec.drop('external-import', row, `${name} (from ${b.from.slice(10)})`);
        if (isPackage(b.from)) return rec.drop('imported-from-package', row, `${name} (from ${b.from})`);
        if (b.from === row.module) return occurrences.push({ ...base, module: row.module, strength: 'local' });
        return occurrences.push({ ...base, module: b.from, strength: 'import' });
      }
      if (facts.projectStars.length && !name.startsWith('_')) {
        return occurrences.push({ ...base, module: row.module, strength: 'weak', doubt: 'star-import' });
      }
      const esc = name.replace(/[$]/g, '\\$');
      for (const alias of facts.projectAliases) {
        if (new RegExp(`(?<![\\w.])${alias}(?:\\.\\w+)*\\.${esc}\\b`).test(text)) {
          return occurrences.push({ ...base, module: row.module, strength: 'weak', doubt: 'attribute-reference' });
        }
      }
      return occurrences.push({ ...base, module: row.module, strength: 'local' });
    });
  }

  const at = (m: string, n: string) => `${m}\u0000${n}`;
  const strong = new Set<string>();
  const strongModulesOf = new Map<string, Set<string>>();
  for (const o of occurrences) {
    if ((o.strength === 'focal' || o.strength === 'local') && o.item.name && o.item.kind !== 'stmt') {
      strong.add(at(o.module, o.item.name));
      if (!strongModulesOf.has(o.item.name)) strongModulesOf.set(o.item.name, new Set());
      strongModulesOf.get(o.item.name)!.add(o.module);
    }
  }
  // A view of X that itself imports N from Y shows that X only re-exports N: follow X → Y.
  const reexports = new Map<string, string>();
  for (const a of analysed) {
    for (const b of a.facts.fromImports.values()) {
      if (!b.from.startsWith('<external>') && b.from !== a.row.module) reexports.set(at(a.row.module, b.original), b.from);
    }
  }
  const follow = (m: string, n: string): string | null => {
    const seen = new Set<string>();
    while (reexports.has(at(m, n)) && !strong.has(at(m, n))) {
      if (seen.has(m)) return null;
      seen.add(m);
      m = reexports.get(at(m, n))!;
    }
    return m;
  };
  for (let i = 0; i < occurrences.length; i++) {
    const o = occurrences[i]!;
    if (o.strength !== 'import') continue;
    const to = follow(o.module, o.item.name!);
    if (to === null) rec.drop('conflicting-imports', o.row, `${o.item.name} (import cycle from ${o.module})`);
    else if (to !== o.module && isPackage(to)) rec.drop('imported-from-package', o.row, `${o.item.name} (from ${o.module}, re-exported from ${to})`);
    else if (to !== o.module) occurrences[i] = { ...o, module: to };
    else continue;
    if (to === null || isPackage(to)) occurrences[i] = { ...o, strength: 'dropped' };
  }
  const importTargets = new Map<string, Set<string>>();
  for (const o of occurrences) {
    if (o.strength !== 'import') continue;
    if (!importTargets.has(o.item.name!)) importTargets.set(o.item.name!, new Set());
    importTargets.get(o.item.name!)!.add(o.module);
  }
  const accepted: Occurrence[] = [];
  const confirmed = new Set(strong);
  for (const o of occurrences) {
    if (o.strength !== 'import') continue;
    const name = o.item.name!;
    if (strong.has(at(o.module, name))) accepted.push(o);
    else if (strongModulesOf.get(name)?.size) rec.drop('defined-elsewhere', o.row, `${name} (imported from ${o.module}, defined in ${[...strongModulesOf.get(name)!].sort().join(', ')})`);
    else if (importTargets.get(name)!.size > 1) rec.drop('conflicting-imports', o.row, `${name} (from ${[...importTargets.get(name)!].sort().join(', ')})`);
    else {
      accepted.push(o);
      confirmed.add(at(o.module, name));
    }
  }
  for (const o of occurrences) {
    if (o.strength === 'focal' || o.strength === 'local') accepted.push(o);
    else if (o.strength === 'weak') {
      if (confirmed.has(at(o.module, o.item.name!))) accepted.push(o);
      else rec.drop(o.doubt!, o.row, `${o.item.name} (in the view of ${o.row.module})`);
    }
  }

  // Merge per module: own rows first (their order is the module's), then what others showed.
  const byModule = new Map<string, Occurrence[]>();
  for (const o of accepted) {
    if (!byModule.has(o.module)) byModule.set(o.module, []);
    byModule.get(o.module)!.push(o);
  }
  const allModules = [...byModule.keys()].sort();
  const fileOf = (m: string) => `${m.split('.').join('/')}${isPrefixOf(allModules, m) || isPackage(m) ? '/__init__.py' : '.py'}`;

  const modules: BuiltModule[] = [];
  const files = new Map<string, string>();
  const focal = new Map<number, { file: string; qualname: string; module: string }>();
  for (const m of allModules) {
    const occ = byModule.get(m)!.sort(
      (a, b) =>
        Number(a.row.module !== m) - Number(b.row.module !== m) || a.row.problemId - b.row.problemId || a.index - b.index,
    );
    const merged = mergeItems(occ.map((o) => o.item));
    const file = fileOf(m);
    const source = renderModule(m, merged, tools, (what) =>
      rec.warn('invalid-after-merge', file, undefined, `${project}: ${what} made ${m} unparseable and was removed`),
    );
    modules.push({ module: m, file, source, fromRows: rowModules.has(m) });
    files.set(file, source);
    for (const o of occ) {
      if (o.strength !== 'focal') continue;
      const qualname = o.item.focalClass ? `${o.item.focalClass}.${o.row.entryPoint}` : o.row.entryPoint;
      focal.set(o.row.problemId, { file, qualname, module: m });
    }
  }
  // Package folders need an __init__.py to be importable (and indexed as packages).
  for (const file of [...files.keys()]) {
    const parts = file.split('/');
    for (let i = 1; i < parts.length; i++) {
      const init = `${parts.slice(0, i).join('/')}/__init__.py`;
      if (!files.has(init)) files.set(init, '');
    }
  }
  return { project, repoFolder, rows, modules, files, focal, views, stubsFilled };
}

/** Puts the row's focal function (the reference, always full) in place of its view copy. */
function placeFocal(row: RawRow, items: Item[], tools: PythonTools, rec: Recorder): Item[] {
  const focalText = row.focal.replace(/\s+$/, '');
  const indented = /^[ \t]/.test(focalText.split('\n').find((l) => l.trim()) ?? '');
  if (indented) {
    // A method: the view shows it inside its class; the reference goes there.
    for (let i = items.length - 1; i >= 0; i--) {
      const it = items[i]!;
      if (it.kind !== 'class' || !it.members?.some((mm) => mm.key === `def:${row.entryPoint}`)) continue;
      const members = it.members.map((mm) =>
        mm.key === `def:${row.entryPoint}` ? { key: mm.key, text: shiftBlock(dedent(focalText), 0, 4), rank: 3 } : mm,
      );
      const out = items.slice();
      out[i] = { ...it, members, focal: true, focalClass: it.name! };
      return out;
    }
    rec.warn('focal-method-without-class', row.file, row.line, `${row.module}.${row.entryPoint} is indented but no class in its view has it; placed at module level`);
  }
  const text = indented ? dedent(focalText) : focalText;
  if (!parseClean(tools.parser, text)) {
    rec.warn('focal-unparseable', row.file, row.line, `the focal function ${row.module}.${row.entryPoint} does not parse; kept as written`);
  }
  const item: Item = { kind: 'def', key: `def:${row.entryPoint}`, name: row.entryPoint, text, rank: 3, focal: true };
  let at = -1;
  for (let i = items.length - 1; i >= 0; i--) {
    if (items[i]!.kind === 'def' && items[i]!.name === row.entryPoint) {
      at = i;
      break;
    }
  }
  const out = items.filter((it, i) => i !== at && !(it.kind === 'def' && it.key === item.key));
  // Other same-key defs of the view (stubs of overloads) are superseded by the reference.
  out.splice(at === -1 ? out.length : Math.min(at, out.length), 0, item);
  return out;
}

function better<T extends { rank: number; text: string }>(a: T, b: T): T {
  if (b.rank !== a.rank) return b.rank > a.rank ? b : a;
  return b.text.length > a.text.length ? b : a;
}

/** Union of items by key (first-seen order); the best version of each wins, classes merge members. */
function mergeItems(items: Item[]): Item[] {
  const order: string[] = [];
  const best = new Map<string, Item>();
  for (const it of items) {
    const prev = best.get(it.key);
    if (!prev) {
      order.push(it.key);
      best.set(it.key, it.kind === 'class' ? { ...it, members: [...(it.members ?? [])] } : it);
      continue;
    }
    if (it.kind === 'class' && prev.kind === 'class') {
      const members = prev.members!;
      for (const mm of it.members ?? []) {
        const i = members.findIndex((x) => x.key === mm.key);
        if (i === -1) members.push(mm);
        else members[i] = better(members[i]!, mm);
      }
      const docstring = (it.docstring?.length ?? 0) > (prev.docstring?.length ?? 0) ? it.docstring : prev.docstring;
      best.set(it.key, {
        ...prev,
        docstring,
        members,
        rank: Math.max(prev.rank, it.rank),
        focal: prev.focal || it.focal,
        focalClass: prev.focalClass ?? it.focalClass,
      });
    } else if (it.focal || (!prev.focal && better(prev, it) === it)) {
      best.set(it.key, it);
    }
  }
  const out = order.map((k) => best.get(k)!);
  // A hollow statement is dropped when a fuller one with the same first line exists.
  const fullHeads = new Set(out.filter((i) => i.kind === 'stmt' && !i.hollow).map((i) => i.head));
  return out.filter((i) => !(i.kind === 'stmt' && i.hollow && fullHeads.has(i.head)));
}

function renderItem(it: Item): string {
  if (it.kind !== 'class') return it.text;
  const body: string[] = [];
  if (it.docstring) body.push(it.docstring);
  for (const mm of it.members ?? []) body.push(mm.text);
  if (!body.length) body.push('    ...');
  return `${it.header}\n${body.join('\n\n')}`;
}

function renderModule(module: string, items: Item[], tools: PythonTools, onDrop: (what: string) => void): string {
  let keep = items.slice();
  for (;;) {
    const head = [`# ${module}: rebuilt by \`opencoder import repoexec\` from RepoExec's module views and focal functions.`];
    const futures = keep.filter((i) => i.kind === 'future').map((i) => i.text);
    const imports = keep.filter((i) => i.kind === 'import').map((i) => i.text);
    const rest = keep.filter((i) => i.kind !== 'future' && i.kind !== 'import');
    const chunks: { text: string; item: Item | null }[] = [];
    const pre = [...head, ...futures, ...imports].join('\n');
    chunks.push({ text: pre, item: null });
    for (const it of rest) chunks.push({ text: renderItem(it), item: it });
    const source = chunks.map((c) => c.text).join('\n\n\n') + '\n';
    const tree = tools.parser.parse(source)!;
    let row: number | null;
    try {
      row = firstProblemRow(tree.rootNode);
    } finally {
      tree.delete();
    }
    if (row === null) return source;
    // Find the chunk holding the problem and drop it (never the header or a focal function).
    let line = 0;
    let culprit: Item | null = null;
    for (const c of chunks) {
      const n = c.text.split('\n').length;
      if (row < line + n) {
        culprit = c.item;
        break;
      }
      line += n + 2;
    }
    if (!culprit) {
      // The imports block: drop the import line at fault.
      const lines = pre.split('\n');
      const bad = lines[row];
      const imp = keep.find((i) => (i.kind === 'import' || i.kind === 'future') && bad !== undefined && i.text.split('\n').includes(bad));
      if (!imp) return source;
      culprit = imp;
    }
    if (culprit.focal) return source;
    onDrop(firstLine(culprit.text));
    keep = keep.filter((i) => i !== culprit);
  }
}

// ---------------------------------------------------------------------------------------------
// Tasks

interface PromptParts {
  signature: string;
  docstring: string | null;
}

/** Splits a `target_function_prompt` (def line(s) + docstring) into signature and cleaned docstring. */
function promptParts(prompt: string, entryPoint: string, tools: PythonTools): PromptParts | null {
  const src = dedent(normaliseNewlines(prompt).replace(/\s+$/, ''));
  const tree = tools.parser.parse(src);
  if (!tree) return null;
  try {
    if (firstProblemRow(tree.rootNode) !== null) return null;
    const defs = tree.rootNode.descendantsOfType('function_definition').filter((d): d is Node => !!d);
    const def = defs.find((d) => d.childForFieldName('name')?.text === entryPoint) ?? defs[0];
    const body = def?.childForFieldName('body');
    if (!def || !body) return null;
    const signature = src.slice(outerNode(def).startIndex, body.startIndex).trimEnd();
    const unit = tools.extractor
      .parse('prompt.py', 'python', src)
      .units.find((u) => u.kind !== 'module' && u.kind !== 'class' && u.startLine === outerNode(def).startPosition.row + 1);
    return { signature, docstring: unit?.docstring?.trim() || null };
  } finally {
    tree.delete();
  }
}

const failRepoExec: Fail = (message, file) => new RepoExecImportError(message, file);

/**
 * A folder name for a task's view: `RepoExec/12` → `RepoExec_12` (anything but letters, digits,
 * `.`, `_` and `-` becomes `_`). Unique among `taken` (compared case-insensitively, for file systems
 * that fold case): a name already taken gets `_2`, `_3`, … appended. Adds the name to `taken`.
 */
export function viewFolderFor(id: string, taken: Set<string>): string {
  let base = id.replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 200);
  if (!base || base.startsWith('.')) base = `_${base}`;
  let name = base;
  for (let n = 2; taken.has(name.toLowerCase()); n++) name = `${base}_${n}`;
  taken.add(name.toLowerCase());
  return name;
}

/** The `__init__.py` files that make the folders above `file` packages (not `file` itself). */
function packageInits(file: string): string[] {
  const parts = file.split('/');
  const out: string[] = [];
  for (let i = 1; i < parts.length; i++) {
    const init = `${parts.slice(0, i).join('/')}/__init__.py`;
    if (init !== file) out.push(init);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// The importer


export async function importRepoExec(opts: RepoExecImportOptions): Promise<RepoExecImportResult> {
  const benchDir = path.resolve(opts.benchDir);
  const outDir = path.resolve(opts.outDir);
  if (!fs.existsSync(benchDir) || !fs.statSync(benchDir).isDirectory()) {
    throw new RepoExecImportError(`The bench folder ${benchDir} does not exist (expected the staged RepoExec folder with ${INLINE_FILE} and ${ROWS_DIR}/)`, benchDir);
  }
  const warnings: ImportWarning[] = [];
  const droppedEntries: DroppedEntry[] = [];
  const warn: Warn = (reason, file, line, message) => {
    const w: ImportWarning = line === undefined ? { reason, file, message } : { reason, file, line, message };
    warnings.push(w);
    opts.onWarning?.(w);
  };
  const rec: Recorder = {
    warn,
    drop: (reason, row, what) => droppedEntries.push({ reason, project: row.project, module: row.module, problemId: row.problemId, what }),
  };

  checkOutDir(outDir, 'repoexec', failRepoExec); // fail fast on a foreign folder, before any work
  // Read everything first: bad input fails (or warns) before the output folder is touched.
  const subsets = readSubsets(benchDir);
  if (opts.subset !== undefined && !subsets.has(opts.subset)) {
    throw new RepoExecImportError(`Unknown subset "${opts.subset}"; ${SUBSETS_FILE} has: ${[...subsets.keys()].join(', ')}`, path.join(benchDir, SUBSETS_FILE));
  }
  const rows = readRows(benchDir, warn).sort((a, b) => a.problemId - b.problemId);
  const inline = readInline(benchDir, warn);

  const tools = await openPython();
  try {
    const byProject = new Map<string, RawRow[]>();
    for (const r of rows) {
      if (!byProject.has(r.project)) byProject.set(r.project, []);
      byProject.get(r.project)!.push(r);
    }
    const projectNames = [...byProject.keys()].sort();
    const folders = new Map<string, string>();
    for (const p of projectNames) {
      const f = repoFolderForProject(p)!;
      const clash = [...folders.entries()].find(([, g]) => g === f || g.startsWith(`${f}/`) || f.startsWith(`${g}/`));
      if (clash) throw new RepoExecImportError(`Projects ${clash[0]} and ${p} would share the folder repos/${f}`, benchDir);
      folders.set(p, f);
    }
    const built = projectNames.map((p) => buildProject(p, byProject.get(p)!, tools, rec));

    // Tasks.
    const wanted = opts.subset !== undefined ? new Set(subsets.get(opts.subset)) : null;
    const membership = (id: string) => [...subsets.entries()].filter(([, ids]) => ids.includes(id)).map(([n]) => n).sort();
    const focalOf = new Map<number, { built: BuiltProject; file: string; qualname: string; module: string }>();
    for (const b of built) for (const [pid, f] of b.focal) focalOf.set(pid, { built: b, ...f });
    const tasks: (TaskRecord & { repoPath: string; taskViewPath: string })[] = [];
    const taskCount = new Map<string, number>();
    // Each task's own view: views/<folder>/<file> (+ package __init__ files), path under outDir → content.
    const viewFiles = new Map<string, string>();
    const viewNames = new Set<string>();
    let viewsFromReference = 0;
    for (const t of inline) {
      if (wanted && !wanted.has(t.taskId)) continue;
      const f = focalOf.get(t.problemId);
      if (!f) {
        warn('task-without-row', t.file, t.line, `task ${t.taskId}: no raw row with problem id ${t.problemId}; task skipped`);
        continue;
      }
      if (f.built.project !== t.project || f.module !== t.module || !(f.qualname === t.entryPoint || f.qualname.endsWith(`.${t.entryPoint}`))) {
        warn('task-row-mismatch', t.file, t.line, `task ${t.taskId} names ${t.project} ${t.module}.${t.entryPoint} but problem id ${t.problemId} is ${f.built.project} ${f.module}.${f.qualname}; task skipped`);
        continue;
      }
      const parts = promptParts(t.prompt, t.entryPoint, tools) ?? promptParts(t.solution, t.entryPoint, tools);
      if (!parts) {
        warn('task-unparseable', t.file, t.line, `task ${t.taskId}: neither target_function_prompt nor solution parses; task skipped`);
        continue;
      }
      const requirementSource = parts.docstring ? 'docstring' : 'signature';
      const repo = `repos/${f.built.repoFolder}`;
      const view = `views/${viewFolderFor(t.taskId, viewNames)}`;
      const viewFile = `${view}/${f.file}`;
      const repaired = f.built.views.get(t.problemId);
      const referenceAlone = `${dedent(normaliseNewlines(t.solution)).replace(/\s+$/, '')}\n`;
      let viewSource = repaired !== undefined ? `${repaired.replace(/\s+$/, '')}\n` : referenceAlone;
      if (repaired === undefined) viewsFromReference++; // unrepairable-view: already warned about in buildProject
      // The view must show the target: as Class.method, or (a method the view shows at top level) by its name.
      const viewNamesOf = (src: string) => new Set(tools.extractor.parse(f.file, 'python', src).units.map((u) => u.qualname));
      const shown = viewNamesOf(viewSource);
      if (!shown.has(f.qualname) && !(f.qualname.includes('.') && shown.has(t.entryPoint))) {
        warn('view-without-target', path.join(outDir, ...viewFile.split('/')), undefined, `task ${t.taskId}: the repaired view does not show ${f.qualname}; its reference was appended at top level`);
        viewSource = viewSource.trim() ? `${viewSource.replace(/\s+$/, '')}\n\n\n${referenceAlone}` : referenceAlone;
      }
      if (!parseClean(tools.parser, viewSource)) {
        warn('invalid-output', path.join(outDir, ...viewFile.split('/')), undefined, `written view of ${t.taskId} does not parse`);
      }
      viewFiles.set(viewFile, viewSource);
      for (const init of packageInits(f.file)) viewFiles.set(`${view}/${init}`, '');
      tasks.push({
        id: t.taskId,
        repo,
        repoPath: path.join(outDir, ...repo.split('/')),
        taskViewPath: path.join(outDir, ...view.split('/')),
        file: f.file,
        qualname: f.qualname,
        requirement: parts.docstring ?? requirementFromSignature(parts.signature),
        signature: parts.signature,
        reference: t.solution,
        check_template: t.checkTemplate,
        placeholder: t.placeholder,
        tests: t.testNames,
        source: {
          benchmark: REPOEXEC_BENCHMARK,
          hf_index: t.hfIndex,
          problem_id: t.problemId,
          project: t.project,
          module: t.module,
          entry_point: t.entryPoint,
          subsets: membership(t.taskId),
          requirement_source: requirementSource,
          ...t.extra,
        },
      });
      taskCount.set(t.project, (taskCount.get(t.project) ?? 0) + 1);
    }
    if (wanted) {
      const have = new Set(inline.map((t) => t.taskId));
      for (const id of wanted) {
        if (!have.has(id)) warn('subset-id-missing', path.join(benchDir, SUBSETS_FILE), undefined, `subset ${opts.subset}: ${id} is not in ${INLINE_FILE}`);
      }
    }

    // Check what will be written: every file is clean Python and every target is where the manifest says.
    const projects: ProjectSummary[] = [];
    for (const b of built) {
      const s: ProjectSummary = {
        project: b.project,
        repo: `repos/${b.repoFolder}`,
        rows: b.rows.length,
        rowModules: b.modules.filter((m) => m.fromRows).length,
        attributedModules: b.modules.filter((m) => !m.fromRows).length,
        files: b.files.size,
        functions: 0,
        methods: 0,
        classes: 0,
        focalFunctions: b.focal.size,
        tasks: taskCount.get(b.project) ?? 0,
      };
      const qualnamesByFile = new Map<string, Set<string>>();
      for (const [file, source] of [...b.files.entries()].sort(([x], [y]) => x.localeCompare(y))) {
        const parsed = tools.extractor.parse(file, 'python', source);
        if (parsed.errors.length || !parseClean(tools.parser, source)) {
          warn('invalid-output', path.join(outDir, s.repo, file), parsed.errors[0]?.line, `written file does not parse: ${parsed.errors[0]?.message ?? 'syntax error'}`);
        }
        qualnamesByFile.set(file, new Set(parsed.units.map((u) => u.qualname)));
        for (const u of parsed.units) {
          if (u.kind === 'function') s.functions++;
          else if (u.kind === 'method') s.methods++;
          else if (u.kind === 'class') s.classes++;
        }
      }
      for (const [pid, f] of b.focal) {
        if (!qualnamesByFile.get(f.file)?.has(f.qualname)) {
          const row = b.rows.find((r) => r.problemId === pid)!;
          warn('target-missing', row.file, row.line, `${f.qualname} is not found in ${s.repo}/${f.file}`);
        }
      }
      projects.push(s);
    }
    // Projects with no usable rows (isort's files are empty) get no folder; say so.
    for (const d of fs.readdirSync(path.join(benchDir, ROWS_DIR)).sort()) {
      const p = d.replace(/\+/g, '/');
      if (fs.statSync(path.join(benchDir, ROWS_DIR, d)).isDirectory() && !byProject.has(p)) {
        warn('project-without-rows', path.join(benchDir, ROWS_DIR, d), undefined, `${p} has no usable rows; no repository written`);
      }
    }

    const dropped = countBy(droppedEntries, (d) => d.reason);
    const sum = (k: keyof ProjectSummary) => projects.reduce((a, p) => a + (p[k] as number), 0);
    const result: RepoExecImportResult = {
      benchDir,
      outDir,
      manifestFile: path.join(outDir, 'tasks.jsonl'),
      reportFile: path.join(outDir, 'IMPORT.md'),
      subset: opts.subset ?? null,
      counts: {
        projects: projects.length,
        modules: built.reduce((a, b) => a + b.modules.length, 0),
        files: sum('files'),
        functions: sum('functions'),
        methods: sum('methods'),
        classes: sum('classes'),
        focalFunctions: sum('focalFunctions'),
        rows: rows.length,
        tasks: tasks.length,
        views: tasks.length,
        viewsFromReference,
        stubsFilled: built.reduce((a, b) => a + b.stubsFilled, 0),
      },
      projects,
      dropped,
      droppedEntries,
      warnings,
      warningCounts: {},
    };
    result.warningCounts = countBy(warnings, (w) => w.reason);

    // Write: marker first, so a crash half-way leaves a folder the next run may clean.
    prepareOutDir(outDir, 'repoexec', ['repos', 'views', 'tasks.jsonl', 'IMPORT.md'], failRepoExec);
    for (const b of built) {
      const root = path.join(outDir, 'repos', ...b.repoFolder.split('/'));
      for (const [file, source] of [...b.files.entries()].sort(([x], [y]) => x.localeCompare(y))) {
        const abs = path.join(root, ...file.split('/'));
        fs.mkdirSync(path.dirname(abs), { recursive: true });
        fs.writeFileSync(abs, source);
      }
    }
    for (const [file, source] of [...viewFiles.entries()].sort(([x], [y]) => x.localeCompare(y))) {
      const abs = path.join(outDir, ...file.split('/'));
      fs.mkdirSync(path.dirname(abs), { recursive: true });
      fs.writeFileSync(abs, source);
    }
    writeManifest(result.manifestFile, tasks);
    fs.writeFileSync(result.reportFile, renderReport(result, built));
    return result;
  } finally {
    tools.dispose();
  }
}

// ---------------------------------------------------------------------------------------------
// IMPORT.md

function mdEscape(s: string): string {
  return s.replace(/\|/g, '\\|').replace(/`/g, "'").replace(/\n/g, ' ⏎ ');
}

function renderReport(r: RepoExecImportResult, built: BuiltProject[]): string {
  const c = r.counts;
  const L: string[] = [];
  L.push('# RepoExec import', '');
  L.push(`Made by \`opencoder import repoexec\` from \`${r.benchDir}\`${r.subset ? ` (subset \`${r.subset}\`)` : ''}.`);
  L.push('Re-running the importer into this folder replaces `repos/`, `views/`, `tasks.jsonl` and this file.', '');
  L.push('## Totals', '');
  L.push(`- raw rows read: ${c.rows} (pass_data + failed_data)`);
  L.push(`- projects: ${c.projects}; modules: ${c.modules}; .py files: ${c.files} (package \`__init__.py\` files included)`);
  L.push(`- definitions written: ${c.functions} functions, ${c.methods} methods, ${c.classes} classes; focal functions placed: ${c.focalFunctions}`);
  L.push(`- body-less stubs given \`...\`: ${c.stubsFilled}`);
  L.push(`- tasks in tasks.jsonl: ${c.tasks}`);
  L.push(`- task views in views/: ${c.views}${c.viewsFromReference ? ` (${c.viewsFromReference} holding only the reference: unrepairable-view)` : ''}`);
  L.push(`- dropped: ${Object.entries(r.dropped).map(([k, v]) => `${k} ${v}`).join(', ') || 'nothing'}`);
  L.push(`- warnings: ${Object.entries(r.warningCounts).map(([k, v]) => `${k} ${v}`).join(', ') || 'none'}`, '');
  L.push('## Projects', '');
  L.push('| project | repository | rows | modules (own rows + attributed) | files | functions | methods | classes | tasks |');
  L.push('| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
  for (const p of r.projects) {
    L.push(`| ${p.project} | ${p.repo} | ${p.rows} | ${p.rowModules} + ${p.attributedModules} | ${p.files} | ${p.functions} | ${p.methods} | ${p.classes} | ${p.tasks} |`);
  }
  L.push('', '## Modules', '');
  for (const b of built) {
    L.push(`- ${b.project}: ${b.modules.map((m) => `\`${m.file}\`${m.fromRows ? '' : ' (attributed only)'}`).join(', ')}`);
  }
  L.push('', '## How modules are rebuilt', '');
  L.push(
    '- Every row (pass_data and failed_data) contributes its `code` view and its `focal_function`. Views are repaired first:',
    '  a block header with no body (a stub) gets `...`; a line the parser still rejects is dropped (`garbage-line`).',
    "- A module's file is the union of what its own views show (imports, constants, statements, functions, classes)",
    '  plus definitions that views of other modules import from it by name (`from .validation import is_string`).',
    '- The focal function is the reference implementation and always wins; otherwise a full body beats a docstring-only',
    '  stub, which beats a body-less one (longer text breaks ties). Classes are merged member by member.',
    '- A definition is only moved to another module when the import that brings it is explicit and that module is not a',
    '  package (a package usually re-exports). Names that a view could have received through a star import or through',
    '  an imported module (`pkg.mod.Name`) stay only if another view confirms where they live.',
    '- Order: `from __future__` imports, imports, then definitions in the order they first appear (own rows by problem id first).',
    '',
  );
  L.push('## Task views (views/)', '');
  L.push(
    "- `views/<task>/<file>` holds one task's own view, named by the task's `task_view` in tasks.jsonl (`<task>` is the task",
    '  id with `/` and other unsafe characters as `_`: `RepoExec/12` → `RepoExec_12`; `<file>` is the task\'s `file`).',
    "- It is the row's own `code` view after the repair above (stubs given `...`, garbage lines dropped): the target's module",
    '  with its imports and constants, its in-file and cross-file dependencies as signatures and docstrings (stubs), and the',
    '  target last. Empty `__init__.py` files make its folders packages, so its module name is the same as in `repos/`.',
    "- Why: the paper's RQ4 indexes each task's own module view, dependencies as stubs, as the task's API pool, instead of the",
    '  whole rebuilt repository (`eval-api --protocol task-view`). A view that does not parse even after repair is replaced by',
    '  the reference solution alone (`unrepairable-view`).',
    '',
  );
  L.push('## Dropped, by reason', '');
  for (const [reason, n] of Object.entries(r.dropped)) {
    L.push(`### ${reason} (${n})`, '', DROP_REASONS[reason] ?? '', '');
    for (const d of r.droppedEntries.filter((x) => x.reason === reason)) {
      L.push(`- ${d.project} \`${d.module}\` (problem ${d.problemId}): \`${mdEscape(d.what)}\``);
    }
    L.push('');
  }
  L.push('## Warnings', '');
  if (!r.warnings.length) L.push('None.');
  // Output paths are shown relative to this folder so two imports of the same data read the same.
  const shown = (f: string) => (f.startsWith(r.outDir + path.sep) ? `<out>/${path.relative(r.outDir, f).split(path.sep).join('/')}` : f);
  for (const w of r.warnings) L.push(`- ${w.reason}: ${shown(w.file)}${w.line ? `:${w.line}` : ''}: ${mdEscape(w.message)}`);
  L.push('');
  return L.join('\n');
}
