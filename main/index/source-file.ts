// The per-file machinery both extractors share: the walk over the syntax tree with its scope stack, unit
// records and their placement (qualname, parent), attributing calls and imports to the innermost unit,
// gathering the module header, and reporting syntax problems. PythonFile and ScriptFile supply what differs.
import type { Node, TreeCursor } from 'web-tree-sitter';
import type { ExtractedChunk, ExtractedUnit, ExtractedValue, Language, ParseResult, SyntaxProblem, UnitKind } from '../model/code.ts';
import { classChunk, headerChunk, siblingChunks } from './chunks.ts';
import type { Attr, Event, Frame, HeaderPiece, Rec, ScopeKind } from './records.ts';
import { capLines, countLines, flat, indentLines, sha256 } from './source-text.ts';

const MAX_PROBLEMS = 200;
const HEADER_STMT_LINES = 8;
const MAX_CALLEE_CHARS = 120;

export abstract class SourceFile {
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

  protected newRec(fields: Omit<ExtractedUnit, 'calls' | 'imports' | 'contentHash'>, start: number, end: number, scope: ScopeKind, parent: Rec | null): Rec {
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
    const header = headerChunk(this.header, this.language, this.moduleName);
    if (header) out.push(header);
    const render = {
      attrLines: (a: Attr, indent: string) => this.attrLines(a, indent),
      memberLines: (cls: Rec, m: Rec, indent: string) => this.memberLines(cls, m, indent),
      classSkeleton: (cls: Rec, body: string[]) => this.classSkeleton(cls, body),
    };
    for (const r of this.recs) if (r.unit.kind === 'class') out.push(classChunk(r, this.language, render));
    const fns = this.recs.filter((r) => r.unit.kind === 'function' && r.parent === this.moduleRec);
    out.push(...siblingChunks(fns, this.moduleName, (fn) => this.siblingEntry(fn)));
    return out;
  }
}

/** 1-based last line of a node; a node ending at the start of a line ends on the line before. */
export function endLineOf(node: Node): number {
  const end = node.endPosition;
  return end.column === 0 && end.row > node.startPosition.row ? end.row : end.row + 1;
}

/** Syntax problems under `root` (missing tokens, innermost ERROR nodes), at most MAX_PROBLEMS. */
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
export function headerBroken(def: Node, bodyTypes: ReadonlySet<string>, stopAt = Infinity): boolean {
  for (const child of def.children) {
    if (!child) continue;
    if (child.startIndex >= stopAt || bodyTypes.has(child.type)) return false;
    if (child.isError || child.isMissing || child.hasError) return true;
  }
  return false;
}
