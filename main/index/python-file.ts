// Python units from a tree-sitter-python tree: functions, classes, methods and module-level lambdas, with
// docstrings, decorators and parameters; module constants and class attributes as named values; imports and
// calls for attribution; and the Python rendering of stubs and class skeletons.
import type { Node } from 'web-tree-sitter';
import type { Param, ParamKind } from '../model/code.ts';
import { CLASS_DOC_MAX_LINES } from './chunks.ts';
import { cleandoc, firstDocLine, pyUnescape } from './docstrings.ts';
import type { Rec } from './records.ts';
import { endLineOf, headerBroken, SourceFile } from './source-file.ts';
import { capLines, flat } from './source-text.ts';

const VALUE_MAX_LINES = 5;
const DUNDER = /^__\w+__$/;

// The header ends at the colon; an ERROR after it is a bad body statement, not a bad signature.
const PY_BODY = new Set(['block', ':']);

export class PythonFile extends SourceFile {
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
      let nameNode: Node | null;
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
