// Reading TS/JS syntax nodes for ScriptFile: a declaration's name, the statement that carries its
// `export`/`declare`, its decorators and JSDoc comment, its parameters, and the names an import or
// re-export statement brings in. Each function reads the node and the file's source text only.
import type { Node } from 'web-tree-sitter';
import type { Language, Param, ParamKind } from '../model/code.ts';
import { cleanJsDoc } from './docstrings.ts';
import { flat } from './source-text.ts';

function textOf(src: string, node: Node): string {
  return src.slice(node.startIndex, node.endIndex);
}

export function nameOf(src: string, node: Node): string | null {
  const n = node.childForFieldName('name') ?? node.childForFieldName('property');
  return n ? textOf(src, n) : null;
}

/** The statement that carries `export`/`declare` for a declaration, or the node itself. */
export function outerOf(node: Node): Node {
  const p = node.parent;
  return p && (p.type === 'export_statement' || p.type === 'ambient_declaration') ? outerOf(p) : node;
}

/** For `const f = () => …` with a single declarator, the whole (exported) statement. */
export function declarationOuter(declarator: Node): Node {
  const decl = declarator.parent;
  if (!decl || (decl.type !== 'lexical_declaration' && decl.type !== 'variable_declaration')) return declarator;
  let count = 0;
  for (const c of decl.namedChildren) if (c && c.type === 'variable_declarator') count++;
  return count === 1 ? outerOf(decl) : declarator;
}

/** Offset of the first non-blank character after the decorators written inside `node`. */
export function afterDecorators(src: string, node: Node): number {
  let start = node.startIndex;
  for (const c of node.children) {
    if (!c) continue;
    if (c.type === 'decorator') start = c.endIndex;
    else if (c.type !== 'comment') break;
  }
  while (start < node.endIndex && /\s/.test(src[start]!)) start++;
  return start;
}

/** Decorators written before `node` (as siblings in a class body) and inside it. */
export function decoratorsOf(src: string, language: Language, node: Node, outer: Node): { decorators: string[]; start: Node } {
  const before: string[] = [];
  let start = outer;
  if (outer.parent?.type === 'class_body') {
    for (let prev = outer.previousNamedSibling; prev && prev.type === 'decorator'; prev = prev.previousNamedSibling) {
      before.unshift(flat(textOf(src, prev), language).replace(/^@\s*/, ''));
      start = prev;
    }
  }
  const inside: string[] = [];
  const holders = outer === node ? [node] : [outer, node];
  for (const h of holders) {
    for (const c of h.children) if (c && c.type === 'decorator') inside.push(flat(textOf(src, c), language).replace(/^@\s*/, ''));
  }
  return { decorators: [...before, ...inside], start };
}

/** The JSDoc comment right before `node` (on the line above at most), cleaned; null when there is none. */
export function jsDocBefore(src: string, node: Node): string | null {
  const prev = node.previousNamedSibling;
  if (!prev || prev.type !== 'comment' || prev.endPosition.row < node.startPosition.row - 1) return null;
  return cleanJsDoc(textOf(src, prev));
}

/** The parameters of a `formal_parameters` node (or the lone identifier of `x => …`), and each one's text. */
export function scriptParams(src: string, language: Language, node: Node | null): { params: Param[]; texts: string[] } {
  const params: Param[] = [];
  const texts: string[] = [];
  if (!node) return { params, texts };
  if (node.type === 'identifier') {
    // `x => …`
    const name = textOf(src, node);
    return { params: [{ name, kind: 'positional_or_keyword', annotation: null, default: null }], texts: [name] };
  }
  for (const child of node.namedChildren) {
    if (!child || child.type === 'comment') continue;
    texts.push(flat(textOf(src, child), language));
    let pattern: Node | null = child;
    let annotation: string | null = null;
    let dflt: string | null = null;
    let optional = false;
    const t = child.type;
    if (t === 'required_parameter' || t === 'optional_parameter') {
      pattern = child.childForFieldName('pattern');
      const ty = child.childForFieldName('type');
      annotation = ty ? flat(textOf(src, ty), language).replace(/^:\s*/, '') : null;
      const v = child.childForFieldName('value');
      dflt = v ? flat(textOf(src, v), language) : null;
      optional = t === 'optional_parameter';
    } else if (t === 'assignment_pattern') {
      pattern = child.childForFieldName('left');
      const v = child.childForFieldName('right');
      dflt = v ? flat(textOf(src, v), language) : null;
    }
    if (!pattern || pattern.type === 'this') continue;
    let kind: ParamKind = 'positional_or_keyword';
    let name = flat(textOf(src, pattern), language);
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
 * What an `import … from 'spec'` brings in: `spec#default`, `spec#name` per named import, `spec` for a
 * namespace import or a bare `import 'spec'`. Empty for an import without a source.
 */
export function importedNames(src: string, node: Node): string[] {
  const source = node.childForFieldName('source');
  if (!source) return [];
  const spec = textOf(src, source).slice(1, -1);
  const names: string[] = [];
  for (const c of node.namedChildren) {
    if (!c || c.type !== 'import_clause') continue;
    for (const part of c.namedChildren) {
      if (!part) continue;
      if (part.type === 'identifier') {
        names.push(`${spec}#default`);
      } else if (part.type === 'namespace_import') {
        names.push(spec);
      } else if (part.type === 'named_imports') {
        for (const s of part.namedChildren) {
          const n = s && s.type === 'import_specifier' ? s.childForFieldName('name') : null;
          if (n) names.push(`${spec}#${textOf(src, n)}`);
        }
      }
    }
  }
  if (names.length === 0) names.push(spec);
  return names;
}

/** What an `export … from 'spec'` re-exports: `spec#name` per name, `spec` for `* as ns`, `spec#*` for `export *`. */
export function reexportedNames(src: string, node: Node, source: Node): string[] {
  const spec = textOf(src, source).slice(1, -1);
  const names: string[] = [];
  for (const c of node.namedChildren) {
    if (!c) continue;
    if (c.type === 'export_clause') {
      for (const s of c.namedChildren) {
        const n = s && s.type === 'export_specifier' ? s.childForFieldName('name') : null;
        if (n) names.push(`${spec}#${textOf(src, n)}`);
      }
    } else if (c.type === 'namespace_export') {
      names.push(spec);
    }
  }
  if (names.length === 0) names.push(`${spec}#*`);
  return names;
}
