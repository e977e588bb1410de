// Parses one source file with tree-sitter into code units, context chunks and syntax problems.
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import path from 'node:path';
import { Parser, Language as Grammar, type Node, type TreeCursor } from 'web-tree-sitter';
import type {
  ExtractedChunk,
  ExtractedUnit,
  ExtractedValue,
  Language,
  Param,
  ParamKind,
  ParseResult,
  SyntaxProblem,
  UnitKind,
} from '../model/code.ts';

// ---------------------------------------------------------------------------------------------
// Paths and module names

const EXT_LANG: Record<string, Language> = {
  '.py': 'python',
  '.pyi': 'python',
  '.ts': 'typescript',
  '.mts': 'typescript',
  '.cts': 'typescript',
  '.tsx': 'tsx',
  '.js': 'javascript',
  '.mjs': 'javascript',
  '.cjs': 'javascript',
  '.jsx': 'javascript',
};

export function languageForPath(relPath: string): Language | null {
  const ext = path.posix.extname(relPath.replace(/\\/g, '/')).toLowerCase();
  return EXT_LANG[ext] ?? null;
}

/**
 * Dotted module name: `pkg/sub/mod.py` → `pkg.sub.mod`, `pkg/__init__.py` → `pkg`,
 * `src/util/index.ts` → `src.util`, `types/x.d.ts` → `types.x`. A package or index file at the
 * repository root keeps its own name (`__init__`, `index`) so the name is never empty.
 */
export function moduleNameForPath(relPath: string, language: Language): string {
  let p = relPath.replace(/\\/g, '/').replace(/^(\.\/)+/, '').replace(/^\/+/, '');
  if (language === 'python') {
    p = p.replace(/\.pyi?$/i, '');
  } else {
    p = p.replace(/\.d\.(ts|mts|cts)$/i, '').replace(/\.(ts|mts|cts|tsx|js|mjs|cjs|jsx)$/i, '');
  }
  const parts = p.split('/').filter((s) => s.length > 0);
  const last = parts[parts.length - 1];
  const pkgFile = language === 'python' ? '__init__' : 'index';
  if (parts.length > 1 && last === pkgFile) parts.pop();
  return parts.join('.');
}

// ---------------------------------------------------------------------------------------------
// Parser setup

export interface Extractor {
  /** Synchronous; never throws on bad syntax (problems are reported in `errors`). */
  parse(relPath: string, language: Language, source: string): ParseResult;
  /** Frees the wasm parser. The extractor must not be used afterwards. */
  dispose(): void;
}

const requireHere = createRequire(import.meta.url);

function grammarFile(pkg: string, file: string): string {
  return path.join(path.dirname(requireHere.resolve(`${pkg}/package.json`)), file);
}

// Per-thread caches: each worker thread gets its own module instance, hence its own wasm runtime.
let initOnce: Promise<void> | null = null;
let grammarsOnce: Promise<Record<Language, Grammar>> | null = null;

function loadGrammars(): Promise<Record<Language, Grammar>> {
  initOnce ??= Parser.init();
  grammarsOnce ??= initOnce.then(async () => {
    const [python, typescript, tsx, javascript] = await Promise.all([
      Grammar.load(grammarFile('tree-sitter-python', 'tree-sitter-python.wasm')),
      Grammar.load(grammarFile('tree-sitter-typescript', 'tree-sitter-typescript.wasm')),
      Grammar.load(grammarFile('tree-sitter-typescript', 'tree-sitter-tsx.wasm')),
      Grammar.load(grammarFile('tree-sitter-javascript', 'tree-sitter-javascript.wasm')),
    ]);
    return { python, typescript, tsx, javascript };
  });
  return grammarsOnce;
}

export async function createExtractor(): Promise<Extractor> {
  const grammars = await loadGrammars();
  const parser = new Parser();
  let current: Language | null = null;
  return {
    parse(relPath, language, source) {
      if (current !== language) {
        parser.setLanguage(grammars[language]);
        current = language;
      }
      const tree = parser.parse(source);
      if (!tree) throw new Error(`tree-sitter returned no tree for ${relPath}`);
      try {
        const moduleName = moduleNameForPath(relPath, language);
        const file =
          language === 'python'
            ? new PythonFile(source, language, moduleName, tree.rootNode)
            : new ScriptFile(source, language, moduleName, tree.rootNode);
        return file.run();
      } finally {
        tree.delete();
      }
    },
    dispose() {
      parser.delete();
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Text helpers

export function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** Collapses a possibly multi-line fragment onto one line. */
function flat(s: string, lang: Language = 'python'): string {
  if (!s.includes('\n')) return s.trim();
  const comment = lang === 'python' ? /[ \t]+#[^'"\n]*(?=\r?\n)/g : /[ \t]+\/\/[^'"`\n]*(?=\r?\n)/g;
  return s
    .replace(comment, '')
    .replace(/\\\r?\n/g, ' ')
    .replace(/\s*\r?\n\s*/g, ' ')
    .replace(/([([{]) /g, '$1')
    .replace(/ ([)\]}])/g, '$1')
    .trim();
}

function expandTabs(line: string): string {
  if (!line.includes('\t')) return line;
  let out = '';
  for (const ch of line) {
    if (ch === '\t') out += ' '.repeat(8 - (out.length % 8));
    else out += ch;
  }
  return out;
}

/** Same rules as Python's inspect.cleandoc. */
export function cleandoc(doc: string): string {
  const lines = doc.split(/\r?\n/).map(expandTabs);
  let margin = Infinity;
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i]!;
    const content = line.trimStart().length;
    if (content > 0) margin = Math.min(margin, line.length - content);
  }
  lines[0] = lines[0]!.trimStart();
  if (margin !== Infinity) for (let i = 1; i < lines.length; i++) lines[i] = lines[i]!.slice(margin);
  while (lines.length > 0 && lines[lines.length - 1]!.trim() === '') lines.pop();
  while (lines.length > 0 && lines[0]!.trim() === '') lines.shift();
  return lines.join('\n');
}

function firstDocLine(doc: string | null): string | null {
  if (!doc) return null;
  for (const line of doc.split('\n')) if (line.trim()) return line.trim();
  return null;
}

const PY_ESCAPES: Record<string, string> = { n: '\n', t: '\t', r: '\r', '\\': '\\', "'": "'", '"': '"', a: '\x07', b: '\b', f: '\f', v: '\v', '0': '\0' };

function pyUnescape(s: string): string {
  if (!s.includes('\\')) return s;
  return s.replace(/\\(\r?\n|x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|.)/g, (m, e: string) => {
    if (e === '\n' || e === '\r\n') return '';
    if (e.length > 1) {
      const cp = parseInt(e.slice(1), 16);
      return cp <= 0x10ffff ? String.fromCodePoint(cp) : m;
    }
    return PY_ESCAPES[e] ?? m;
  });
}

function cleanJsDoc(comment: string): string | null {
  if (!comment.startsWith('/**') || comment === '/**/') return null;
  const inner = comment.slice(3, comment.endsWith('*/') ? -2 : undefined);
  const lines = inner.split(/\r?\n/).map((l, i) => (i === 0 ? l : l.replace(/^\s*\*(?!\/) ?/, '')));
  const doc = cleandoc(lines.map((l) => l.trimEnd()).join('\n'));
  return doc || null;
}

/** Keeps at most `max` lines of a statement, marking the cut. */
function capLines(text: string, max: number, marker: string): string {
  let idx = -1;
  for (let i = 0; i < max; i++) {
    idx = text.indexOf('\n', idx + 1);
    if (idx === -1) return text;
  }
  return text.slice(0, idx).replace(/\s+$/, '') + ' ' + marker;
}

function indentLines(text: string, indent: string): string {
  return text
    .split('\n')
    .map((l) => (l ? indent + l : l))
    .join('\n');
}

const MAX_PROBLEMS = 200;
const HEADER_MAX_CHARS = 6000;
const HEADER_STMT_LINES = 8;
const SIBLINGS_MAX_ENTRIES = 40;
const SIBLINGS_MAX_CHARS = 4000;
const CLASS_DOC_MAX_LINES = 40;
const MAX_CALLEE_CHARS = 120;
const VALUE_MAX_LINES = 5;
const DUNDER = /^__\w+__$/;

// ---------------------------------------------------------------------------------------------
// Shared per-file machinery

type ScopeKind = 'module' | 'class' | 'function';

interface Attr {
  start: number;
  text: string;
}

interface Rec {
  unit: ExtractedUnit;
  /** Outer span (decorators, export keyword, declaration statement), UTF-16 offsets. */
  start: number;
  end: number;
  scope: ScopeKind;
  parent: Rec | null;
  calls: Set<string>;
  imports: Set<string>;
  /** Class members (units whose direct parent is this class) and class-level attributes. */
  members: Rec[];
  attrs: Attr[];
  /** Skeleton text given verbatim (interfaces). */
  skeleton?: string;
  isInterface?: boolean;
  isArrow?: boolean;
}

interface Frame {
  rec: Rec;
  depth: number;
  pending?: Map<string, Node[]>;
}

interface Event {
  at: number;
  name: string;
  isImport: boolean;
}

interface HeaderPiece {
  start: number;
  startLine: number;
  endLine: number;
  text: string;
}

abstract class SourceFile {
  protected readonly recs: Rec[] = [];
  protected readonly events: Event[] = [];
  protected readonly header: HeaderPiece[] = [];
  protected readonly stack: Frame[] = [];
  /** Named values (Python module constants and class attributes); TS/JS leave it empty. */
  protected readonly values: ExtractedValue[] = [];
  protected readonly moduleRec: Rec;
  protected cursor!: TreeCursor;

  constructor(
    protected readonly src: string,
    protected readonly language: Language,
    protected readonly moduleName: string,
    protected readonly root: Node,
  ) {
    const lines = countLines(src);
    this.moduleRec = this.newRec(
      {
        kind: 'module',
        name: moduleName,
        qualname: '',
        parentQualname: null,
        signature: `module ${moduleName}`,
        params: [],
        returns: null,
        decorators: [],
        isAsync: false,
        docstring: null,
        body: src,
        startLine: 1,
        endLine: lines,
      },
      0,
      src.length + 1,
      'module',
      null,
    );
    this.stack.push({ rec: this.moduleRec, depth: -1 });
  }

  protected abstract prepare(): void;
  /** Called on entering each node during the walk; returns whether to descend into it. */
  protected abstract visit(type: string, depth: number): boolean;
  protected abstract onPop(frame: Frame): void;
  /** A member's lines in a class skeleton: its stub (signature and first doc line, no body). */
  protected memberLines(_cls: Rec, member: Rec, indent: string): string[] {
    return this.stub(member, indent);
  }

  protected attrLines(attr: Attr, indent: string): string[] {
    return indentLines(attr.text, indent).split('\n');
  }

  protected abstract stub(u: Rec, indent: string): string[];
  protected abstract classSkeleton(cls: Rec, body: string[]): string;
  protected abstract siblingEntry(fn: Rec): string;

  run(): ParseResult {
    this.prepare();
    this.walk();
    while (this.stack.length > 0) this.onPop(this.stack.pop()!);
    this.recs.sort((a, b) => a.start - b.start);
    this.attribute();
    for (const r of this.recs) {
      r.unit.calls = [...r.calls];
      r.unit.imports = [...r.imports];
    }
    const errors = this.root.hasError ? collectProblems(this.root, this.src) : [];
    return {
      language: this.language,
      module: this.moduleName,
      units: this.recs.map((r) => r.unit),
      chunks: this.chunks(),
      values: this.sortedValues(),
      errors,
    };
  }

  /** Source order; the first definition of a qualname wins (later rebinds are not new APIs). */
  private sortedValues(): ExtractedValue[] {
    const seen = new Set<string>();
    const out: ExtractedValue[] = [];
    for (const v of [...this.values].sort((a, b) => a.startLine - b.startLine)) {
      if (seen.has(v.qualname)) continue;
      seen.add(v.qualname);
      out.push(v);
    }
    return out;
  }

  private walk(): void {
    const cursor = this.root.walk();
    this.cursor = cursor;
    try {
      let depth = 0;
      for (;;) {
        if (this.visit(cursor.nodeType, depth) && cursor.gotoFirstChild()) {
          depth++;
          continue;
        }
        for (;;) {
          // Leaving the node at `depth`: close scopes opened on it.
          while (this.stack.length > 1 && this.stack[this.stack.length - 1]!.depth >= depth) {
            this.onPop(this.stack.pop()!);
          }
          if (cursor.gotoNextSibling()) break;
          if (!cursor.gotoParent()) return;
          depth--;
        }
      }
    } finally {
      cursor.delete();
    }
  }

  /** Assigns calls/imports to the innermost unit whose outer span holds them. */
  private attribute(): void {
    const recs = this.recs;
    const stack: Rec[] = [this.moduleRec];
    let ri = 0;
    for (const ev of this.events) {
      while (ri < recs.length && recs[ri]!.start <= ev.at) {
        const r = recs[ri++]!;
        if (r === this.moduleRec) continue;
        while (stack.length > 1 && stack[stack.length - 1]!.end <= r.start) stack.pop();
        stack.push(r);
      }
      while (stack.length > 1 && stack[stack.length - 1]!.end <= ev.at) stack.pop();
      const top = stack[stack.length - 1]!;
      (ev.isImport ? top.imports : top.calls).add(ev.name);
    }
  }

  protected get top(): Frame {
    return this.stack[this.stack.length - 1]!;
  }

  protected text(node: Node): string {
    return this.src.slice(node.startIndex, node.endIndex);
  }

  protected newRec(
    fields: Omit<ExtractedUnit, 'calls' | 'imports' | 'contentHash'>,
    start: number,
    end: number,
    scope: ScopeKind,
    parent: Rec | null,
  ): Rec {
    const unit: ExtractedUnit = { ...fields, calls: [], imports: [], contentHash: sha256(fields.body) };
    const rec: Rec = { unit, start, end, scope, parent, calls: new Set(), imports: new Set(), members: [], attrs: [] };
    this.recs.push(rec);
    if (parent && parent.scope === 'class') parent.members.push(rec);
    return rec;
  }

  /** Qualname, parent qualname and kind of a definition named `name` inside the current scope. */
  protected placement(name: string, isClass: boolean): { qualname: string; parentQualname: string | null; kind: UnitKind; parent: Rec } {
    const parent = this.top.rec;
    const pq = parent.unit.qualname;
    if (parent.scope === 'module') return { qualname: name, parentQualname: null, kind: isClass ? 'class' : 'function', parent };
    if (parent.scope === 'class') return { qualname: `${pq}.${name}`, parentQualname: pq, kind: isClass ? 'class' : 'method', parent };
    return { qualname: `${pq}.<locals>.${name}`, parentQualname: pq, kind: isClass ? 'class' : 'function', parent };
  }

  /** Source of [start, end), with the indentation of its first line removed from the following lines. */
  protected dedentedSlice(start: number, end: number): string {
    const text = this.src.slice(start, end);
    const lineStart = this.src.lastIndexOf('\n', start - 1) + 1;
    const prefix = this.src.slice(lineStart, start);
    if (!prefix || /\S/.test(prefix) || !text.includes('\n')) return text;
    return text
      .split('\n')
      .map((l, i) => (i > 0 && l.startsWith(prefix) ? l.slice(prefix.length) : l))
      .join('\n');
  }

  protected pushCall(at: number, calleeNode: Node | null): void {
    if (!calleeNode) return;
    let name = this.text(calleeNode);
    if (name.includes('\n')) name = flat(name, this.language);
    if (!name || name.length > MAX_CALLEE_CHARS) return;
    this.events.push({ at, name, isImport: false });
  }

  protected pushImport(at: number, name: string): void {
    if (name) this.events.push({ at, name, isImport: true });
  }

  protected addHeader(node: Node, text?: string): void {
    this.header.push({
      start: node.startIndex,
      startLine: node.startPosition.row + 1,
      endLine: endLineOf(node),
      text: capLines(text ?? this.dedentedSlice(node.startIndex, node.endIndex), HEADER_STMT_LINES, this.language === 'python' ? '...' : '/* … */'),
    });
  }

  // ---- chunks

  private chunks(): ExtractedChunk[] {
    const out: ExtractedChunk[] = [];
    const header = this.headerChunk();
    if (header) out.push(header);
    for (const r of this.recs) if (r.unit.kind === 'class') out.push(this.classChunk(r));
    out.push(...this.siblingChunks());
    return out;
  }

  private headerChunk(): ExtractedChunk | null {
    const pieces = this.header.sort((a, b) => a.start - b.start);
    if (pieces.length === 0) return null;
    const parts: string[] = [];
    let size = 0;
    let startLine = Infinity;
    let endLine = 0;
    for (const p of pieces) {
      if (size + p.text.length > HEADER_MAX_CHARS && parts.length > 0) {
        parts.push(this.language === 'python' ? '# ...' : '// …');
        break;
      }
      parts.push(p.text);
      size += p.text.length + 1;
      startLine = Math.min(startLine, p.startLine);
      endLine = Math.max(endLine, p.endLine);
    }
    const text = parts.join('\n');
    return { kind: 'module_header', title: `module header of ${this.moduleName}`, text, startLine, endLine, owner: '', contentHash: sha256(text) };
  }

  private classChunk(cls: Rec): ExtractedChunk {
    let text: string;
    if (cls.skeleton !== undefined) {
      text = cls.skeleton;
    } else {
      const indent = this.language === 'python' ? '    ' : '  ';
      type Item = { start: number; lines: string[] };
      const items: Item[] = [];
      for (const a of cls.attrs) items.push({ start: a.start, lines: this.attrLines(a, indent) });
      for (const m of cls.members) items.push({ start: m.start, lines: this.memberLines(cls, m, indent) });
      items.sort((a, b) => a.start - b.start);
      text = this.classSkeleton(cls, items.flatMap((i) => i.lines));
    }
    const u = cls.unit;
    return {
      kind: 'class_skeleton',
      title: `${cls.isInterface ? 'interface' : 'class'} ${u.qualname}`,
      text,
      startLine: u.startLine,
      endLine: u.endLine,
      owner: u.qualname,
      contentHash: sha256(text),
    };
  }

  private siblingChunks(): ExtractedChunk[] {
    const fns = this.recs.filter((r) => r.unit.kind === 'function' && r.parent === this.moduleRec);
    const groups: Rec[][] = [];
    let cur: Rec[] = [];
    let size = 0;
    const entries = new Map<Rec, string>();
    for (const fn of fns) {
      const entry = this.siblingEntry(fn);
      entries.set(fn, entry);
      if (cur.length > 0 && (cur.length >= SIBLINGS_MAX_ENTRIES || size + entry.length + 1 > SIBLINGS_MAX_CHARS)) {
        groups.push(cur);
        cur = [];
        size = 0;
      }
      cur.push(fn);
      size += entry.length + 1;
    }
    if (cur.length > 0) groups.push(cur);
    return groups.map((g, i) => {
      const text = g.map((r) => entries.get(r)!).join('\n');
      const part = groups.length > 1 ? `, part ${i + 1} of ${groups.length}` : '';
      return {
        kind: 'siblings' as const,
        title: `functions in ${this.moduleName} (${g.length}${part})`,
        text,
        startLine: g[0]!.unit.startLine,
        endLine: g[g.length - 1]!.unit.endLine,
        owner: '',
        contentHash: sha256(text),
      };
    });
  }
}

function countLines(src: string): number {
  let n = 1;
  for (let i = src.indexOf('\n'); i !== -1; i = src.indexOf('\n', i + 1)) n++;
  if (src.endsWith('\n') && n > 1) n--;
  return n;
}

function endLineOf(node: Node): number {
  const end = node.endPosition;
  return end.column === 0 && end.row > node.startPosition.row ? end.row : end.row + 1;
}

function collectProblems(root: Node, src: string): SyntaxProblem[] {
  const out: SyntaxProblem[] = [];
  const visit = (node: Node): void => {
    if (out.length >= MAX_PROBLEMS) return;
    if (node.isMissing) {
      out.push({ line: node.startPosition.row + 1, column: node.startPosition.column + 1, message: `missing ${node.type}` });
      return;
    }
    if (node.type === 'ERROR') {
      // Prefer nested problems: a recovered ERROR often spans far more than the bad tokens.
      const before = out.length;
      for (const child of node.children) if (child && child.hasError) visit(child);
      if (out.length > before) return;
      const snippet = flat(src.slice(node.startIndex, Math.min(node.endIndex, node.startIndex + 40)));
      out.push({ line: node.startPosition.row + 1, column: node.startPosition.column + 1, message: snippet ? `syntax error at "${snippet}"` : 'syntax error' });
      return;
    }
    for (const child of node.children) if (child && child.hasError) visit(child);
  };
  visit(root);
  return out;
}

/** True when something before the body (name, parameters, annotations) failed to parse. */
function headerBroken(def: Node, bodyTypes: ReadonlySet<string>, stopAt = Infinity): boolean {
  for (const child of def.children) {
    if (!child) continue;
    if (child.startIndex >= stopAt || bodyTypes.has(child.type)) return false;
    if (child.isError || child.isMissing || child.hasError) return true;
  }
  return false;
}

// ---------------------------------------------------------------------------------------------
// Python

// The header ends at the colon; an ERROR after it is a bad body statement, not a bad signature.
const PY_BODY = new Set(['block', ':']);

class PythonFile extends SourceFile {
  private decoratedDefId = -1;
  private readonly lambdaRecs = new Map<number, Rec>();

  protected prepare(): void {
    const stmts = this.root.namedChildren;
    let first = true;
    for (const stmt of stmts) {
      if (!stmt || stmt.type === 'comment') continue;
      if (first) {
        first = false;
        const doc = this.docstringOf(stmt);
        if (doc !== undefined) {
          this.moduleRec.unit.docstring = doc;
          this.addHeader(stmt);
          continue;
        }
      }
      if (stmt.type === 'expression_statement') {
        const inner = stmt.firstNamedChild;
        if (inner && (inner.type === 'assignment' || inner.type === 'augmented_assignment')) {
          this.addHeader(stmt);
          if (inner.type === 'assignment' && !this.lambdaUnit(stmt, inner)) this.addValues(stmt, inner, null);
        }
      } else if (stmt.type === 'type_alias_statement') {
        this.addHeader(stmt);
      }
    }
  }

  /** `name = lambda ...:` at module level becomes a function unit named `name`; true when it did. */
  private lambdaUnit(stmt: Node, assign: Node): boolean {
    const left = assign.childForFieldName('left');
    const right = assign.childForFieldName('right');
    if (!left || !right || left.type !== 'identifier' || right.type !== 'lambda' || right.hasError) return false;
    const name = this.text(left);
    const { params, texts } = this.params(right.childForFieldName('parameters'));
    const rec = this.newRec(
      {
        kind: 'function',
        name,
        qualname: name,
        parentQualname: null,
        signature: texts.length > 0 ? `${name} = lambda ${texts.join(', ')}` : `${name} = lambda`,
        params,
        returns: null,
        decorators: [],
        isAsync: false,
        docstring: null,
        body: this.dedentedSlice(stmt.startIndex, stmt.endIndex),
        startLine: stmt.startPosition.row + 1,
        endLine: endLineOf(stmt),
      },
      stmt.startIndex,
      stmt.endIndex,
      'function',
      this.moduleRec,
    );
    rec.isArrow = true;
    this.lambdaRecs.set(right.id, rec);
    return true;
  }

  /**
   * Records the plain names an assignment binds: `NAME = v`, `NAME: T = v`, each of `A = B = v`; in a
   * class body (`owner` set) also the annotation-only `attr: T` (dataclass and TypedDict fields).
   * Tuple, attribute and subscript targets and dunder names (`__all__`, `__slots__`) are left out.
   */
  private addValues(stmt: Node, assign: Node, owner: Rec | null): void {
    const names: string[] = [];
    for (let node: Node | null = assign; node && node.type === 'assignment'; node = node.childForFieldName('right')) {
      const left = node.childForFieldName('left');
      if (!left || left.type !== 'identifier' || left.isMissing) continue;
      if (!node.childForFieldName('right') && (owner === null || !node.childForFieldName('type'))) continue;
      const name = this.text(left);
      if (!DUNDER.test(name)) names.push(name);
    }
    if (names.length === 0) return;
    const text = capLines(this.dedentedSlice(stmt.startIndex, stmt.endIndex), VALUE_MAX_LINES, '...');
    const startLine = stmt.startPosition.row + 1;
    const endLine = endLineOf(stmt);
    const prefix = owner ? `${owner.unit.qualname}.` : '';
    for (const name of names) {
      this.values.push({
        kind: owner ? 'attribute' : 'constant',
        name,
        qualname: prefix + name,
        owner: owner ? owner.unit.qualname : null,
        text,
        startLine,
        endLine,
      });
    }
  }

  protected visit(type: string, depth: number): boolean {
    switch (type) {
      case 'decorated_definition': {
        const node = this.cursor.currentNode;
        const def = node.childForFieldName('definition');
        if (!def) return true;
        const rec = this.definition(def, node);
        if (!rec) return false;
        this.decoratedDefId = def.id;
        this.stack.push({ rec, depth });
        return true;
      }
      case 'function_definition':
      case 'class_definition': {
        const node = this.cursor.currentNode;
        if (node.id === this.decoratedDefId) return true;
        const rec = this.definition(node, null);
        if (!rec) return false;
        this.stack.push({ rec, depth });
        return true;
      }
      case 'call': {
        const node = this.cursor.currentNode;
        const fn = node.childForFieldName('function');
        if (fn && fn.type !== 'call' && fn.type !== 'lambda' && fn.type !== 'parenthesized_expression') this.pushCall(node.startIndex, fn);
        return true;
      }
      case 'import_statement':
      case 'import_from_statement':
      case 'future_import_statement':
        this.imports(this.cursor.currentNode);
        return false;
      case 'lambda': {
        if (this.lambdaRecs.size === 0) return true;
        const rec = this.lambdaRecs.get(this.cursor.nodeId);
        if (rec) this.stack.push({ rec, depth });
        return true;
      }
      case 'string': {
        // Only f-strings (and 3.14 t-strings) can hold calls.
        const start = this.cursor.startIndex;
        for (let i = start; i < start + 3; i++) {
          const c = this.src.charCodeAt(i);
          if (c === 34 || c === 39) return false;
          if (c === 102 || c === 70 || c === 116 || c === 84) return true;
        }
        return false;
      }
      case 'comment':
      case 'identifier':
      case 'integer':
      case 'float':
        return false;
      default:
        return true;
    }
  }

  protected onPop(): void {}

  private imports(node: Node): void {
    const at = node.startIndex;
    const names: string[] = [];
    if (node.type === 'import_statement') {
      for (const n of node.childrenForFieldName('name')) if (n) names.push(this.importedName(n));
    } else {
      const modNode = node.type === 'future_import_statement' ? null : node.childForFieldName('module_name');
      const mod = modNode ? this.text(modNode).replace(/\s+/g, '') : '__future__';
      const join = (n: string) => (mod.endsWith('.') ? mod + n : `${mod}.${n}`);
      const list = node.childrenForFieldName('name');
      if (list.length === 0) names.push(join('*'));
      for (const n of list) if (n) names.push(join(this.importedName(n)));
    }
    for (const n of names) this.pushImport(at, n);
    if (this.top.rec === this.moduleRec) this.addHeader(node);
  }

  private importedName(n: Node): string {
    const target = n.type === 'aliased_import' ? n.childForFieldName('name') : n;
    return target ? this.text(target).replace(/\s+/g, '') : '';
  }

  /** Docstring of a statement if it is a plain string expression; undefined when it is not one. */
  private docstringOf(stmt: Node): string | null | undefined {
    if (stmt.type !== 'expression_statement' || stmt.namedChildCount !== 1) return undefined;
    const expr = stmt.firstNamedChild;
    if (!expr) return undefined;
    const parts = expr.type === 'string' ? [expr] : expr.type === 'concatenated_string' ? expr.namedChildren : null;
    if (!parts) return undefined;
    let raw = '';
    for (const part of parts) {
      if (!part || part.type !== 'string') continue;
      const open = part.firstChild;
      const close = part.lastChild;
      if (!open || !close || open.type !== 'string_start') return undefined;
      const prefix = this.text(open).replace(/['"]/g, '').toLowerCase();
      if (prefix.includes('b') || prefix.includes('f') || prefix.includes('t')) return undefined;
      const content = this.src.slice(open.endIndex, close.type === 'string_end' ? close.startIndex : part.endIndex);
      raw += prefix.includes('r') ? content : pyUnescape(content);
    }
    const doc = cleandoc(raw);
    return doc || null;
  }

  private blockDocstring(block: Node | null): string | null {
    let stmt = block?.firstNamedChild ?? null;
    while (stmt && stmt.type === 'comment') stmt = stmt.nextNamedSibling;
    return stmt ? (this.docstringOf(stmt) ?? null) : null;
  }

  private definition(def: Node, decorated: Node | null): Rec | null {
    if (def.hasError && headerBroken(def, PY_BODY)) return null;
    const nameNode = def.childForFieldName('name');
    if (!nameNode || nameNode.isMissing) return null;
    const name = this.text(nameNode);
    const isClass = def.type === 'class_definition';
    const place = this.placement(name, isClass);
    const outer = decorated ?? def;
    const decorators: string[] = [];
    if (decorated) {
      for (const d of decorated.namedChildren) {
        if (d && d.type === 'decorator') decorators.push(flat(this.text(d)).replace(/^@\s*/, ''));
      }
    }
    const tp = def.childForFieldName('type_parameters');
    const typeParams = tp ? flat(this.text(tp)) : '';
    const body = def.childForFieldName('body');
    let signature: string;
    let params: Param[] = [];
    let returns: string | null = null;
    let isAsync = false;
    if (isClass) {
      const bases = def.childForFieldName('superclasses');
      signature = `class ${name}${typeParams}${bases ? flat(this.text(bases)) : ''}`;
    } else {
      isAsync = this.src.startsWith('async', def.startIndex);
      const p = this.params(def.childForFieldName('parameters'));
      params = p.params;
      const ret = def.childForFieldName('return_type');
      returns = ret ? flat(this.text(ret)) : null;
      signature = `${isAsync ? 'async ' : ''}def ${name}${typeParams}(${p.texts.join(', ')})${returns ? ` -> ${returns}` : ''}`;
    }
    const rec = this.newRec(
      {
        kind: place.kind,
        name,
        qualname: place.qualname,
        parentQualname: place.parentQualname,
        signature,
        params,
        returns,
        decorators,
        isAsync,
        docstring: this.blockDocstring(body),
        body: this.dedentedSlice(outer.startIndex, def.endIndex),
        startLine: outer.startPosition.row + 1,
        endLine: endLineOf(def),
      },
      outer.startIndex,
      def.endIndex,
      isClass ? 'class' : 'function',
      place.parent,
    );
    if (isClass && body) this.classAttrs(rec, body);
    return rec;
  }

  private classAttrs(rec: Rec, block: Node): void {
    for (const stmt of block.namedChildren) {
      if (!stmt) continue;
      let ok = stmt.type === 'type_alias_statement';
      if (stmt.type === 'expression_statement') {
        const inner = stmt.firstNamedChild;
        const t = inner?.type;
        ok = t === 'assignment' || t === 'augmented_assignment';
        if (inner && t === 'assignment') this.addValues(stmt, inner, rec);
      }
      if (ok) rec.attrs.push({ start: stmt.startIndex, text: capLines(this.dedentedSlice(stmt.startIndex, stmt.endIndex), 5, '...') });
    }
  }

  private params(node: Node | null): { params: Param[]; texts: string[] } {
    const params: Param[] = [];
    const texts: string[] = [];
    if (!node) return { params, texts };
    let keywordOnly = false;
    let positionalOnlyEnd = -1;
    for (const child of node.namedChildren) {
      if (!child || child.type === 'comment') continue;
      texts.push(flat(this.text(child)));
      const t = child.type;
      if (t === 'positional_separator') {
        positionalOnlyEnd = params.length;
        continue;
      }
      if (t === 'keyword_separator') {
        keywordOnly = true;
        continue;
      }
      let nameNode: Node | null = null;
      let annotation: string | null = null;
      let dflt: string | null = null;
      if (t === 'identifier' || t === 'list_splat_pattern' || t === 'dictionary_splat_pattern' || t === 'tuple_pattern') {
        nameNode = child;
      } else if (t === 'typed_parameter') {
        nameNode = child.firstNamedChild;
        const ty = child.childForFieldName('type');
        annotation = ty ? flat(this.text(ty)) : null;
      } else if (t === 'default_parameter' || t === 'typed_default_parameter') {
        nameNode = child.childForFieldName('name');
        const ty = child.childForFieldName('type');
        annotation = ty ? flat(this.text(ty)) : null;
        const v = child.childForFieldName('value');
        dflt = v ? flat(this.text(v)) : null;
      } else {
        continue;
      }
      if (!nameNode) continue;
      let kind: ParamKind = keywordOnly ? 'keyword_only' : 'positional_or_keyword';
      let name = this.text(nameNode);
      if (nameNode.type === 'list_splat_pattern') {
        kind = 'var_positional';
        keywordOnly = true;
        name = name.replace(/^\*\s*/, '');
      } else if (nameNode.type === 'dictionary_splat_pattern') {
        kind = 'var_keyword';
        name = name.replace(/^\*\*\s*/, '');
      }
      params.push({ name: flat(name), kind, annotation, default: dflt });
    }
    for (let i = 0; i < positionalOnlyEnd; i++) params[i]!.kind = 'positional_only';
    return { params, texts };
  }

  // ---- chunk rendering

  private docLines(doc: string, indent: string): string[] {
    const lines = doc.replace(/"""/g, '\\"\\"\\"').split('\n');
    if (lines.length > CLASS_DOC_MAX_LINES) lines.splice(CLASS_DOC_MAX_LINES, lines.length, '...');
    if (lines.length === 1) return [`${indent}"""${lines[0]}"""`];
    return [`${indent}"""${lines[0]}`, ...lines.slice(1).map((l) => (l ? indent + l : l)), `${indent}"""`];
  }

  protected stub(r: Rec, indent: string): string[] {
    const u = r.unit;
    const out = u.decorators.map((d) => `${indent}@${d}`);
    const first = firstDocLine(u.docstring);
    if (first) {
      out.push(`${indent}${u.signature}:`, `${indent}    """${first.replace(/"""/g, '\\"\\"\\"')}"""`);
    } else {
      out.push(`${indent}${u.signature}: ...`);
    }
    return out;
  }

  protected classSkeleton(cls: Rec, body: string[]): string {
    const u = cls.unit;
    const lines = u.decorators.map((d) => `@${d}`);
    lines.push(`${u.signature}:`);
    if (u.docstring) lines.push(...this.docLines(u.docstring, '    '));
    lines.push(...body);
    if (lines.length === u.decorators.length + 1) lines.push('    ...');
    return lines.join('\n');
  }

  protected siblingEntry(fn: Rec): string {
    return this.stub(fn, '').join('\n');
  }
}

// ---------------------------------------------------------------------------------------------
// TypeScript / JavaScript

const FN_VALUES = new Set(['arrow_function', 'function_expression', 'function', 'generator_function']);
const CLASS_DECLS = new Set(['class_declaration', 'abstract_class_declaration', 'class']);
const TS_BODY = new Set(['statement_block', 'class_body', 'interface_body', 'object_type', '=>']);
const TS_SKIP = new Set([
  'comment',
  'string',
  'number',
  'regex',
  'identifier',
  'property_identifier',
  'type_identifier',
  'type_annotation',
  'type_arguments',
  'type_parameters',
  'type_alias_declaration',
  'predefined_type',
  'enum_declaration',
]);
const HEADER_DECLS = new Set(['lexical_declaration', 'variable_declaration', 'type_alias_declaration', 'enum_declaration']);

class ScriptFile extends SourceFile {
  protected prepare(): void {
    const children = this.root.namedChildren;
    // A leading `/** … */` not glued to a declaration documents the file.
    const first = children[0];
    if (first && first.type === 'comment') {
      const next = first.nextNamedSibling;
      const doc = cleanJsDoc(this.text(first));
      if (doc && (!next || next.type === 'import_statement' || next.startPosition.row > first.endPosition.row + 1)) {
        this.moduleRec.unit.docstring = doc;
        this.addHeader(first, this.text(first));
      }
    }
    for (const stmt of children) {
      if (!stmt) continue;
      let t = stmt.type;
      let inner: Node | null = stmt;
      if (t === 'export_statement') {
        const decl = stmt.childForFieldName('declaration');
        const value = stmt.childForFieldName('value');
        if (decl) {
          inner = decl;
          t = decl.type;
        } else {
          if (!value || !(FN_VALUES.has(value.type) || CLASS_DECLS.has(value.type))) this.addHeader(stmt);
          continue;
        }
      } else if (t === 'ambient_declaration') {
        inner = stmt.firstNamedChild;
        t = inner?.type ?? '';
      }
      if (!inner) continue;
      if (t === 'import_statement') {
        this.addHeader(stmt);
      } else if (HEADER_DECLS.has(t)) {
        if (!this.declaresFunction(inner)) this.addHeader(stmt);
      } else if (t === 'expression_statement') {
        const e = inner.firstNamedChild;
        if (e && e.type === 'assignment_expression') {
          const left = e.childForFieldName('left');
          const right = e.childForFieldName('right');
          const lt = left ? this.text(left) : '';
          if ((lt.startsWith('module.exports') || lt.startsWith('exports.')) && right && !FN_VALUES.has(right.type) && !CLASS_DECLS.has(right.type)) {
            this.addHeader(stmt);
          }
        }
      }
    }
  }

  private declaresFunction(decl: Node): boolean {
    if (decl.type !== 'lexical_declaration' && decl.type !== 'variable_declaration') return false;
    for (const d of decl.namedChildren) {
      const v = d && d.type === 'variable_declarator' ? d.childForFieldName('value') : null;
      if (v && (FN_VALUES.has(v.type) || CLASS_DECLS.has(v.type))) return true;
    }
    return false;
  }

  protected visit(type: string, depth: number): boolean {
    if (TS_SKIP.has(type)) return false;
    switch (type) {
      case 'class_declaration':
      case 'abstract_class_declaration':
      case 'class': {
        if (type === 'class' && !this.cursor.nodeIsNamed) return false;
        const rec = this.classUnit(this.cursor.currentNode);
        if (rec) this.stack.push({ rec, depth });
        return true;
      }
      case 'interface_declaration':
        this.interfaceUnit(this.cursor.currentNode);
        return false;
      case 'function_declaration':
      case 'generator_function_declaration': {
        const node = this.cursor.currentNode;
        const rec = this.functionUnit(node, node, this.outerOf(node), null);
        if (rec) this.stack.push({ rec, depth });
        return true;
      }
      case 'function_signature':
      case 'method_signature':
      case 'abstract_method_signature': {
        const node = this.cursor.currentNode;
        if (type !== 'function_signature' && node.parent?.type !== 'class_body') return false;
        const name = this.nameOf(node);
        if (name) {
          const frame = this.top;
          frame.pending ??= new Map();
          const list = frame.pending.get(name);
          if (list) list.push(node);
          else frame.pending.set(name, [node]);
        }
        return false;
      }
      case 'method_definition': {
        const node = this.cursor.currentNode;
        if (this.top.rec.scope !== 'class' || node.parent?.type !== 'class_body') return true;
        const rec = this.functionUnit(node, node, node, null);
        if (rec) this.stack.push({ rec, depth });
        return true;
      }
      case 'public_field_definition':
      case 'field_definition': {
        const node = this.cursor.currentNode;
        if (this.top.rec.scope !== 'class') return true;
        const value = node.childForFieldName('value');
        if (value && FN_VALUES.has(value.type)) {
          const rec = this.functionUnit(value, node, node, null);
          if (rec) this.stack.push({ rec, depth });
        } else {
          const text = this.dedentedSlice(this.afterDecorators(node), node.endIndex).replace(/;?\s*$/, ';');
          this.top.rec.attrs.push({ start: node.startIndex, text: capLines(text, 3, '/* … */') });
        }
        return true;
      }
      case 'variable_declarator': {
        const node = this.cursor.currentNode;
        const value = node.childForFieldName('value');
        const nameNode = node.childForFieldName('name');
        if (value && nameNode && nameNode.type === 'identifier' && FN_VALUES.has(value.type)) {
          const rec = this.functionUnit(value, node, this.declarationOuter(node), this.text(nameNode));
          if (rec) this.stack.push({ rec, depth });
        }
        return true;
      }
      case 'export_statement': {
        const node = this.cursor.currentNode;
        const source = node.childForFieldName('source');
        if (source) this.reexports(node, source);
        const value = node.childForFieldName('value');
        if (value && FN_VALUES.has(value.type)) {
          const rec = this.functionUnit(value, node, node, value.childForFieldName('name') ? null : 'default');
          if (rec) this.stack.push({ rec, depth });
        }
        return true;
      }
      case 'assignment_expression': {
        if (this.top.rec !== this.moduleRec) return true;
        const node = this.cursor.currentNode;
        const rec = this.commonJsUnit(node);
        if (rec) this.stack.push({ rec, depth });
        return true;
      }
      case 'call_expression': {
        const node = this.cursor.currentNode;
        const fn = node.childForFieldName('function');
        if (!fn) return true;
        const ft = fn.type;
        if (ft === 'import' || (ft === 'identifier' && this.text(fn) === 'require')) {
          const arg = node.childForFieldName('arguments')?.firstNamedChild;
          if (arg && arg.type === 'string') this.pushImport(node.startIndex, this.text(arg).slice(1, -1));
          if (ft === 'import') return true;
        }
        if (!FN_VALUES.has(ft) && ft !== 'call_expression' && ft !== 'parenthesized_expression') this.pushCall(node.startIndex, fn);
        return true;
      }
      case 'new_expression': {
        const node = this.cursor.currentNode;
        const ctor = node.childForFieldName('constructor');
        if (ctor && !CLASS_DECLS.has(ctor.type) && ctor.type !== 'parenthesized_expression') this.pushCall(node.startIndex, ctor);
        return true;
      }
      case 'import_statement':
        this.importStatement(this.cursor.currentNode);
        return false;
      default:
        return true;
    }
  }

  protected onPop(frame: Frame): void {
    if (!frame.pending) return;
    // Signatures never followed by an implementation: ambient declarations, abstract methods, .d.ts files.
    const saved = this.stack.length;
    this.stack.push(frame);
    for (const nodes of frame.pending.values()) {
      const first = nodes[0]!;
      this.functionUnit(first, first, this.outerOf(first), null, nodes.length > 1 ? nodes : undefined);
    }
    this.stack.length = saved;
    frame.pending = undefined;
  }

  // ---- names, spans, docs

  private nameOf(node: Node): string | null {
    const n = node.childForFieldName('name') ?? node.childForFieldName('property');
    return n ? this.text(n) : null;
  }

  /** The statement that carries `export`/`declare` for a declaration, or the node itself. */
  private outerOf(node: Node): Node {
    const p = node.parent;
    return p && (p.type === 'export_statement' || p.type === 'ambient_declaration') ? this.outerOf(p) : node;
  }

  /** For `const f = () => …` with a single declarator, the whole (exported) statement. */
  private declarationOuter(declarator: Node): Node {
    const decl = declarator.parent;
    if (!decl || (decl.type !== 'lexical_declaration' && decl.type !== 'variable_declaration')) return declarator;
    let count = 0;
    for (const c of decl.namedChildren) if (c && c.type === 'variable_declarator') count++;
    return count === 1 ? this.outerOf(decl) : declarator;
  }

  private afterDecorators(node: Node): number {
    let start = node.startIndex;
    for (const c of node.children) {
      if (!c) continue;
      if (c.type === 'decorator') start = c.endIndex;
      else if (c.type !== 'comment') break;
    }
    while (start < node.endIndex && /\s/.test(this.src[start]!)) start++;
    return start;
  }

  /** Decorators written before `node` (as siblings in a class body) and inside it. */
  private decoratorsOf(node: Node, outer: Node): { decorators: string[]; start: Node } {
    const before: string[] = [];
    let start = outer;
    if (outer.parent?.type === 'class_body') {
      for (let prev = outer.previousNamedSibling; prev && prev.type === 'decorator'; prev = prev.previousNamedSibling) {
        before.unshift(flat(this.text(prev), this.language).replace(/^@\s*/, ''));
        start = prev;
      }
    }
    const inside: string[] = [];
    const holders = outer === node ? [node] : [outer, node];
    for (const h of holders) {
      for (const c of h.children) if (c && c.type === 'decorator') inside.push(flat(this.text(c), this.language).replace(/^@\s*/, ''));
    }
    return { decorators: [...before, ...inside], start };
  }

  private jsDocBefore(node: Node): string | null {
    const prev = node.previousNamedSibling;
    if (!prev || prev.type !== 'comment' || prev.endPosition.row < node.startPosition.row - 1) return null;
    return cleanJsDoc(this.text(prev));
  }

  // ---- units

  private params(node: Node | null): { params: Param[]; texts: string[] } {
    const params: Param[] = [];
    const texts: string[] = [];
    if (!node) return { params, texts };
    if (node.type === 'identifier') {
      // `x => …`
      const name = this.text(node);
      return { params: [{ name, kind: 'positional_or_keyword', annotation: null, default: null }], texts: [name] };
    }
    for (const child of node.namedChildren) {
      if (!child || child.type === 'comment') continue;
      texts.push(flat(this.text(child), this.language));
      let pattern: Node | null = child;
      let annotation: string | null = null;
      let dflt: string | null = null;
      let optional = false;
      const t = child.type;
      if (t === 'required_parameter' || t === 'optional_parameter') {
        pattern = child.childForFieldName('pattern');
        const ty = child.childForFieldName('type');
        annotation = ty ? flat(this.text(ty), this.language).replace(/^:\s*/, '') : null;
        const v = child.childForFieldName('value');
        dflt = v ? flat(this.text(v), this.language) : null;
        optional = t === 'optional_parameter';
      } else if (t === 'assignment_pattern') {
        pattern = child.childForFieldName('left');
        const v = child.childForFieldName('right');
        dflt = v ? flat(this.text(v), this.language) : null;
      }
      if (!pattern || pattern.type === 'this') continue;
      let kind: ParamKind = 'positional_or_keyword';
      let name = flat(this.text(pattern), this.language);
      if (pattern.type === 'rest_pattern') {
        kind = 'var_positional';
        name = name.replace(/^\.\.\.\s*/, '');
      }
      const p: Param = { name, kind, annotation, default: dflt };
      if (optional) p.optional = true;
      params.push(p);
    }
    return { params, texts };
  }

  /**
   * A function-like unit. `fn` holds parameters/body; `holder` is the node that names it (the function
   * itself, a method, a variable declarator, a class field, an assignment); `outer` gives the span.
   */
  private functionUnit(fn: Node, holder: Node, outer: Node, bindName: string | null, overloadNodes?: Node[]): Rec | null {
    if (holder !== fn && holder.hasError && headerBroken(holder, TS_BODY, fn.startIndex)) return null;
    if (fn.hasError && headerBroken(fn, TS_BODY)) return null;
    const name = bindName ?? this.nameOf(holder === fn ? fn : holder) ?? this.nameOf(fn);
    if (!name) return null;
    const place = this.placement(name, false);
    const isMember = holder.type === 'method_definition' || holder.type === 'public_field_definition' || holder.type === 'field_definition' || holder.type.endsWith('method_signature');
    const { decorators, start } = isMember ? this.decoratorsOf(holder, outer) : { decorators: [] as string[], start: outer };
    const paramsNode = fn.childForFieldName('parameters') ?? fn.childForFieldName('parameter');
    const { params, texts } = this.params(paramsNode);
    const ret = fn.childForFieldName('return_type');
    const returns = ret ? flat(this.text(ret), this.language).replace(/^:\s*/, '') : null;
    const isArrow = fn.type === 'arrow_function';
    const sigStart = fn === holder ? this.afterDecorators(fn) : fn.startIndex;
    const headEnd = paramsNode ? paramsNode.startIndex : fn.childForFieldName('body')?.startIndex ?? fn.endIndex;
    const rawHead = this.src.slice(sigStart, headEnd);
    let fnHead = flat(rawHead, this.language);
    if (fnHead && /\s$/.test(rawHead)) fnHead += ' '; // `async (x)` keeps its space
    let binding = '';
    if (holder.type === 'variable_declarator') {
      const kw = holder.parent ? this.src.slice(holder.parent.startIndex, holder.parent.startIndex + 5).split(/\s/)[0] : 'const';
      const ty = holder.childForFieldName('type');
      binding = `${kw} ${name}${ty ? flat(this.text(ty), this.language) : ''} = `;
    } else if (holder.type === 'export_statement') {
      binding = 'export default ';
    } else if (holder !== fn) {
      // class field or CommonJS assignment: keep what is written before the value
      const valueStart = fn.startIndex;
      const from = holder.type === 'assignment_expression' ? holder.startIndex : this.afterDecorators(holder);
      binding = flat(this.src.slice(from, valueStart), this.language) + ' ';
    }
    const head = binding + fnHead;
    const signature = `${head}(${texts.join(', ')})${returns ? `: ${returns}` : ''}${isArrow ? ' =>' : ''}`;
    const asyncHead = fn === holder ? this.src.slice(sigStart, (fn.childForFieldName('name') ?? paramsNode ?? fn).startIndex) : fnHead;
    let docstring = this.jsDocBefore(start);
    let overloads: string[] | undefined;
    const pending = this.top.pending?.get(name);
    if (!overloadNodes && pending && (holder.type === 'function_declaration' || holder.type === 'generator_function_declaration' || holder.type === 'method_definition')) {
      overloadNodes = pending;
      this.top.pending!.delete(name);
      docstring ??= this.jsDocBefore(this.decoratorsOf(pending[0]!, this.outerOf(pending[0]!)).start);
    }
    if (overloadNodes) overloads = overloadNodes.map((n) => this.signatureOnly(n));
    const endNode = outer.endIndex >= holder.endIndex ? outer : holder;
    const rec = this.newRec(
      {
        kind: place.kind,
        name,
        qualname: place.qualname,
        parentQualname: place.parentQualname,
        signature: overloadNodes && !fn.childForFieldName('body') ? overloads![0]! : signature,
        params,
        returns,
        decorators,
        isAsync: /(^|\s)async(\s|$|\*)/.test(asyncHead),
        docstring,
        body: this.dedentedSlice(start.startIndex, endNode.endIndex),
        startLine: start.startPosition.row + 1,
        endLine: endLineOf(endNode),
      },
      start.startIndex,
      endNode.endIndex,
      'function',
      place.parent,
    );
    if (overloads) rec.unit.overloads = overloads;
    rec.isArrow = isArrow;
    return rec;
  }

  private signatureOnly(node: Node): string {
    const paramsNode = node.childForFieldName('parameters');
    const { texts } = this.params(paramsNode);
    const ret = node.childForFieldName('return_type');
    const head = flat(this.src.slice(this.afterDecorators(node), paramsNode?.startIndex ?? node.endIndex), this.language);
    return `${head}(${texts.join(', ')})${ret ? `: ${flat(this.text(ret), this.language).replace(/^:\s*/, '')}` : ''}`;
  }

  private classUnit(node: Node): Rec | null {
    if (node.hasError && headerBroken(node, TS_BODY)) return null;
    const body = node.childForFieldName('body');
    const nameNode = node.childForFieldName('name');
    let name = nameNode ? this.text(nameNode) : null;
    let outer = this.outerOf(node);
    let binding = '';
    const parent = node.parent;
    if (!name && parent) {
      if (parent.type === 'export_statement') {
        name = 'default';
        binding = 'export default ';
      } else if (parent.type === 'variable_declarator') {
        const n = parent.childForFieldName('name');
        if (n && n.type === 'identifier') {
          name = this.text(n);
          const kw = parent.parent ? this.src.slice(parent.parent.startIndex, parent.parent.startIndex + 5).split(/\s/)[0] : 'const';
          binding = `${kw} ${name} = `;
          outer = this.declarationOuter(parent);
        }
      }
    } else if (nameNode && parent?.type === 'variable_declarator') {
      outer = this.declarationOuter(parent);
    }
    if (!name) return null;
    const place = this.placement(name, true);
    const signature = binding + flat(this.src.slice(this.afterDecorators(node), body ? body.startIndex : node.endIndex), this.language);
    const { decorators } = this.decoratorsOf(node, outer);
    return this.newRec(
      {
        kind: 'class',
        name,
        qualname: place.qualname,
        parentQualname: place.parentQualname,
        signature,
        params: [],
        returns: null,
        decorators,
        isAsync: false,
        docstring: this.jsDocBefore(outer),
        body: this.dedentedSlice(outer.startIndex, outer.endIndex),
        startLine: outer.startPosition.row + 1,
        endLine: endLineOf(outer),
      },
      outer.startIndex,
      outer.endIndex,
      'class',
      place.parent,
    );
  }

  /** Interfaces are recorded as class units; their skeleton is their own source. */
  private interfaceUnit(node: Node): void {
    if (node.hasError && headerBroken(node, TS_BODY)) return;
    const nameNode = node.childForFieldName('name');
    const body = node.childForFieldName('body');
    if (!nameNode) return;
    const name = this.text(nameNode);
    const outer = this.outerOf(node);
    const place = this.placement(name, true);
    const docstring = this.jsDocBefore(outer);
    const rec = this.newRec(
      {
        kind: 'class',
        name,
        qualname: place.qualname,
        parentQualname: place.parentQualname,
        signature: flat(this.src.slice(node.startIndex, body ? body.startIndex : node.endIndex), this.language),
        params: [],
        returns: null,
        decorators: [],
        isAsync: false,
        docstring,
        body: this.dedentedSlice(outer.startIndex, outer.endIndex),
        startLine: outer.startPosition.row + 1,
        endLine: endLineOf(outer),
      },
      outer.startIndex,
      outer.endIndex,
      'class',
      place.parent,
    );
    rec.isInterface = true;
    const own = capLines(this.dedentedSlice(node.startIndex, node.endIndex), 80, '/* … */');
    rec.skeleton = docstring ? `${this.docComment(docstring, '', false)}\n${own}` : own;
  }

  /** `exports.f = function …`, `module.exports.f = …`, `module.exports = function f …`, `C.prototype.m = function …`. */
  private commonJsUnit(node: Node): Rec | null {
    const left = node.childForFieldName('left');
    const right = node.childForFieldName('right');
    if (!left || !right || !FN_VALUES.has(right.type) || left.type !== 'member_expression') return null;
    if (node.parent?.type !== 'expression_statement') return null;
    const target = this.text(left).replace(/\s+/g, '');
    let m: RegExpMatchArray | null;
    const outer = node.parent;
    if ((m = target.match(/^(?:module\.)?exports\.([\w$]+)$/))) {
      return this.functionUnit(right, node, outer, m[1]!);
    }
    if (target === 'module.exports') {
      const own = right.childForFieldName('name');
      return own ? this.functionUnit(right, node, outer, this.text(own)) : null;
    }
    if ((m = target.match(/^([\w$]+)\.prototype\.([\w$]+)$/))) {
      const rec = this.functionUnit(right, node, outer, m[2]!);
      if (rec) {
        rec.unit.kind = 'method';
        rec.unit.qualname = `${m[1]}.${m[2]}`;
        rec.unit.parentQualname = m[1]!;
      }
      return rec;
    }
    return null;
  }

  private importStatement(node: Node): void {
    const source = node.childForFieldName('source');
    if (!source) return;
    const spec = this.text(source).slice(1, -1);
    const at = node.startIndex;
    let any = false;
    for (const c of node.namedChildren) {
      if (!c || c.type !== 'import_clause') continue;
      for (const part of c.namedChildren) {
        if (!part) continue;
        if (part.type === 'identifier') {
          this.pushImport(at, `${spec}#default`);
          any = true;
        } else if (part.type === 'namespace_import') {
          this.pushImport(at, spec);
          any = true;
        } else if (part.type === 'named_imports') {
          for (const s of part.namedChildren) {
            const n = s && s.type === 'import_specifier' ? s.childForFieldName('name') : null;
            if (n) {
              this.pushImport(at, `${spec}#${this.text(n)}`);
              any = true;
            }
          }
        }
      }
    }
    if (!any) this.pushImport(at, spec);
  }

  private reexports(node: Node, source: Node): void {
    const spec = this.text(source).slice(1, -1);
    const at = node.startIndex;
    let any = false;
    for (const c of node.namedChildren) {
      if (!c) continue;
      if (c.type === 'export_clause') {
        for (const s of c.namedChildren) {
          const n = s && s.type === 'export_specifier' ? s.childForFieldName('name') : null;
          if (n) {
            this.pushImport(at, `${spec}#${this.text(n)}`);
            any = true;
          }
        }
      } else if (c.type === 'namespace_export') {
        this.pushImport(at, spec);
        any = true;
      }
    }
    if (!any) this.pushImport(at, `${spec}#*`);
  }

  // ---- chunk rendering

  private docComment(doc: string, indent: string, firstOnly: boolean): string {
    const lines = firstOnly ? [firstDocLine(doc) ?? ''] : doc.replace(/\*\//g, '*\\/').split('\n');
    if (lines.length > CLASS_DOC_MAX_LINES) lines.splice(CLASS_DOC_MAX_LINES, lines.length, '…');
    if (lines.length === 1) return `${indent}/** ${lines[0]!.replace(/\*\//g, '*\\/')} */`;
    return [`${indent}/**`, ...lines.map((l) => `${indent} *${l ? ' ' + l : ''}`), `${indent} */`].join('\n');
  }

  protected stub(r: Rec, indent: string): string[] {
    const u = r.unit;
    const out: string[] = [];
    if (u.docstring) out.push(this.docComment(u.docstring, indent, true));
    for (const d of u.decorators) out.push(`${indent}@${d}`);
    if (u.kind === 'class') {
      out.push(`${indent}${u.signature} { … }`);
    } else {
      for (const s of u.overloads ?? [u.signature]) out.push(`${indent}${s}${s.endsWith('=>') ? ' …;' : ';'}`);
    }
    return out;
  }

  protected classSkeleton(cls: Rec, body: string[]): string {
    const u = cls.unit;
    const lines: string[] = [];
    if (u.docstring) lines.push(this.docComment(u.docstring, '', false));
    for (const d of u.decorators) lines.push(`@${d}`);
    lines.push(`${u.signature} {`, ...body, '}');
    return lines.join('\n');
  }

  protected siblingEntry(fn: Rec): string {
    return this.stub(fn, '').join('\n');
  }
}
