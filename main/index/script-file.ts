// TypeScript / JavaScript units from a tree-sitter-typescript, -tsx or -javascript tree: functions, arrow
// functions bound to names, classes, methods, class fields holding functions, interfaces, overload and
// ambient signatures, CommonJS exports; ES imports, re-exports, require() and calls for attribution; and the
// TS/JS rendering of stubs and class skeletons.
import type { Node } from 'web-tree-sitter';
import { CLASS_DOC_MAX_LINES } from './chunks.ts';
import { cleanJsDoc, firstDocLine } from './docstrings.ts';
import type { Frame, Rec } from './records.ts';
import {
  afterDecorators,
  declarationOuter,
  decoratorsOf,
  importedNames,
  jsDocBefore,
  nameOf,
  outerOf,
  reexportedNames,
  scriptParams,
} from './script-syntax.ts';
import { endLineOf, headerBroken, SourceFile } from './source-file.ts';
import { capLines, flat } from './source-text.ts';

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

export class ScriptFile extends SourceFile {
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
      case 'interface_declaration':
        this.interfaceUnit(this.cursor.currentNode);
        return false;
      case 'function_signature':
      case 'method_signature':
      case 'abstract_method_signature':
        this.pendingSignature(this.cursor.currentNode, type);
        return false;
      case 'call_expression':
        this.callExpression(this.cursor.currentNode);
        return true;
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
        return this.visitDefinition(type, depth);
    }
  }

  /** Nodes that may open a unit's scope: classes, functions, methods, class fields, bindings, exports, CommonJS assignments. */
  private visitDefinition(type: string, depth: number): boolean {
    let rec: Rec | null = null;
    switch (type) {
      case 'class_declaration':
      case 'abstract_class_declaration':
      case 'class':
        if (type === 'class' && !this.cursor.nodeIsNamed) return false;
        rec = this.classUnit(this.cursor.currentNode);
        break;
      case 'function_declaration':
      case 'generator_function_declaration': {
        const node = this.cursor.currentNode;
        rec = this.functionUnit(node, node, outerOf(node), null);
        break;
      }
      case 'method_definition': {
        const node = this.cursor.currentNode;
        if (this.top.rec.scope === 'class' && node.parent?.type === 'class_body') rec = this.functionUnit(node, node, node, null);
        break;
      }
      case 'public_field_definition':
      case 'field_definition':
        if (this.top.rec.scope === 'class') rec = this.classField(this.cursor.currentNode);
        break;
      case 'variable_declarator': {
        const node = this.cursor.currentNode;
        const value = node.childForFieldName('value');
        const nameNode = node.childForFieldName('name');
        if (value && nameNode && nameNode.type === 'identifier' && FN_VALUES.has(value.type)) {
          rec = this.functionUnit(value, node, declarationOuter(node), this.text(nameNode));
        }
        break;
      }
      case 'export_statement': {
        const node = this.cursor.currentNode;
        const source = node.childForFieldName('source');
        if (source) this.reexports(node, source);
        const value = node.childForFieldName('value');
        if (value && FN_VALUES.has(value.type)) rec = this.functionUnit(value, node, node, value.childForFieldName('name') ? null : 'default');
        break;
      }
      case 'assignment_expression':
        if (this.top.rec === this.moduleRec) rec = this.commonJsUnit(this.cursor.currentNode);
        break;
      default:
        return true;
    }
    if (rec) this.stack.push({ rec, depth });
    return true;
  }

  /** An overload, ambient or abstract signature: kept on the scope until its implementation (or the scope's end). */
  private pendingSignature(node: Node, type: string): void {
    if (type !== 'function_signature' && node.parent?.type !== 'class_body') return;
    const name = nameOf(this.src, node);
    if (!name) return;
    const frame = this.top;
    frame.pending ??= new Map();
    const list = frame.pending.get(name);
    if (list) list.push(node);
    else frame.pending.set(name, [node]);
  }

  /** A class field: a method when it holds a function, else an attribute line of the class skeleton. */
  private classField(node: Node): Rec | null {
    const value = node.childForFieldName('value');
    if (value && FN_VALUES.has(value.type)) return this.functionUnit(value, node, node, null);
    const text = this.dedentedSlice(afterDecorators(this.src, node), node.endIndex).replace(/;?\s*$/, ';');
    this.top.rec.attrs.push({ start: node.startIndex, text: capLines(text, 3, '/* … */') });
    return null;
  }

  /** A call: `import(…)` and `require(…)` record an import, anything else with a plain callee a call. */
  private callExpression(node: Node): void {
    const fn = node.childForFieldName('function');
    if (!fn) return;
    const ft = fn.type;
    if (ft === 'import' || (ft === 'identifier' && this.text(fn) === 'require')) {
      const arg = node.childForFieldName('arguments')?.firstNamedChild;
      if (arg && arg.type === 'string') this.pushImport(node.startIndex, this.text(arg).slice(1, -1));
      if (ft === 'import') return;
    }
    if (!FN_VALUES.has(ft) && ft !== 'call_expression' && ft !== 'parenthesized_expression') this.pushCall(node.startIndex, fn);
  }

  protected onPop(frame: Frame): void {
    if (!frame.pending) return;
    // Signatures never followed by an implementation: ambient declarations, abstract methods, .d.ts files.
    const saved = this.stack.length;
    this.stack.push(frame);
    for (const nodes of frame.pending.values()) {
      const first = nodes[0]!;
      this.functionUnit(first, first, outerOf(first), null, nodes.length > 1 ? nodes : undefined);
    }
    this.stack.length = saved;
    frame.pending = undefined;
  }

  // ---- units

  /**
   * A function-like unit. `fn` holds parameters/body; `holder` is the node that names it (the function
   * itself, a method, a variable declarator, a class field, an assignment); `outer` gives the span.
   */
  private functionUnit(fn: Node, holder: Node, outer: Node, bindName: string | null, overloadNodes?: Node[]): Rec | null {
    if (holder !== fn && holder.hasError && headerBroken(holder, TS_BODY, fn.startIndex)) return null;
    if (fn.hasError && headerBroken(fn, TS_BODY)) return null;
    const name = bindName ?? nameOf(this.src, holder === fn ? fn : holder) ?? nameOf(this.src, fn);
    if (!name) return null;
    const place = this.placement(name, false);
    const isMember =
      holder.type === 'method_definition' ||
      holder.type === 'public_field_definition' ||
      holder.type === 'field_definition' ||
      holder.type.endsWith('method_signature');
    const { decorators, start } = isMember ? decoratorsOf(this.src, this.language, holder, outer) : { decorators: [] as string[], start: outer };
    const paramsNode = fn.childForFieldName('parameters') ?? fn.childForFieldName('parameter');
    const { params, texts } = scriptParams(this.src, this.language, paramsNode);
    const ret = fn.childForFieldName('return_type');
    const returns = ret ? flat(this.text(ret), this.language).replace(/^:\s*/, '') : null;
    const isArrow = fn.type === 'arrow_function';
    const sigStart = fn === holder ? afterDecorators(this.src, fn) : fn.startIndex;
    const headEnd = paramsNode ? paramsNode.startIndex : (fn.childForFieldName('body')?.startIndex ?? fn.endIndex);
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
      const from = holder.type === 'assignment_expression' ? holder.startIndex : afterDecorators(this.src, holder);
      binding = flat(this.src.slice(from, valueStart), this.language) + ' ';
    }
    const head = binding + fnHead;
    const signature = `${head}(${texts.join(', ')})${returns ? `: ${returns}` : ''}${isArrow ? ' =>' : ''}`;
    const asyncHead = fn === holder ? this.src.slice(sigStart, (fn.childForFieldName('name') ?? paramsNode ?? fn).startIndex) : fnHead;
    let docstring = jsDocBefore(this.src, start);
    let overloads: string[] | undefined;
    const pending = this.top.pending?.get(name);
    if (
      !overloadNodes &&
      pending &&
      (holder.type === 'function_declaration' || holder.type === 'generator_function_declaration' || holder.type === 'method_definition')
    ) {
      overloadNodes = pending;
      this.top.pending!.delete(name);
      docstring ??= jsDocBefore(this.src, decoratorsOf(this.src, this.language, pending[0]!, outerOf(pending[0]!)).start);
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
    const { texts } = scriptParams(this.src, this.language, paramsNode);
    const ret = node.childForFieldName('return_type');
    const head = flat(this.src.slice(afterDecorators(this.src, node), paramsNode?.startIndex ?? node.endIndex), this.language);
    return `${head}(${texts.join(', ')})${ret ? `: ${flat(this.text(ret), this.language).replace(/^:\s*/, '')}` : ''}`;
  }

  private classUnit(node: Node): Rec | null {
    if (node.hasError && headerBroken(node, TS_BODY)) return null;
    const body = node.childForFieldName('body');
    const nameNode = node.childForFieldName('name');
    let name = nameNode ? this.text(nameNode) : null;
    let outer = outerOf(node);
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
          outer = declarationOuter(parent);
        }
      }
    } else if (nameNode && parent?.type === 'variable_declarator') {
      outer = declarationOuter(parent);
    }
    if (!name) return null;
    const signature = binding + flat(this.src.slice(afterDecorators(this.src, node), body ? body.startIndex : node.endIndex), this.language);
    const { decorators } = decoratorsOf(this.src, this.language, node, outer);
    return this.classRec(name, outer, signature, decorators, jsDocBefore(this.src, outer));
  }

  /** Interfaces are recorded as class units; their skeleton is their own source. */
  private interfaceUnit(node: Node): void {
    if (node.hasError && headerBroken(node, TS_BODY)) return;
    const nameNode = node.childForFieldName('name');
    const body = node.childForFieldName('body');
    if (!nameNode) return;
    const name = this.text(nameNode);
    const outer = outerOf(node);
    const docstring = jsDocBefore(this.src, outer);
    const signature = flat(this.src.slice(node.startIndex, body ? body.startIndex : node.endIndex), this.language);
    const rec = this.classRec(name, outer, signature, [], docstring);
    rec.isInterface = true;
    const own = capLines(this.dedentedSlice(node.startIndex, node.endIndex), 80, '/* … */');
    rec.skeleton = docstring ? `${this.docComment(docstring, '', false)}\n${own}` : own;
  }

  /** A class-kind unit (class or interface) named `name` in the current scope, spanning `outer`. */
  private classRec(name: string, outer: Node, signature: string, decorators: string[], docstring: string | null): Rec {
    const place = this.placement(name, true);
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
    for (const name of importedNames(this.src, node)) this.pushImport(node.startIndex, name);
  }

  private reexports(node: Node, source: Node): void {
    for (const name of reexportedNames(this.src, node, source)) this.pushImport(node.startIndex, name);
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
