// Reading one repaired view: its top-level statements as items (imports, defs, classes member by member,
// assignments, other statements) keyed so that copies from different views merge, each ranked by how
// complete its body is; and what the view's imports bind, so a definition can be traced to its module.

import type { Node } from 'web-tree-sitter';
import { isHollow, normaliseStatement, shiftBlock } from './python-text.ts';

export type ItemKind = 'future' | 'import' | 'def' | 'class' | 'assign' | 'stmt';

export interface Member {
  key: string;
  /** Source at 4-space indentation. */
  text: string;
  rank: number;
}

export interface Item {
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

export interface ImportBinding {
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

/** A definition together with its decorators (the decorated_definition around it), or the node itself. */
export function outerNode(node: Node): Node {
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

/** The more complete of two versions of one item: the higher rank, then the longer text (`a` wins a tie). */
export function better<T extends { rank: number; text: string }>(a: T, b: T): T {
  if (b.rank !== a.rank) return b.rank > a.rank ? b : a;
  return b.text.length > a.text.length ? b : a;
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

export interface ImportFacts {
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
export function importFacts(root: Node, module: string, moduleIsPackage: boolean, inProject: (dotted: string) => boolean): ImportFacts {
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

/** The source with every string literal and comment replaced by one space. */
export function withoutStringsAndComments(root: Node, src: string): string {
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
export function viewItems(root: Node, src: string, garbage: string[]): Item[] {
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
    items.push({
      kind: 'stmt',
      key: `stmt:${normaliseStatement(text)}`,
      name: null,
      text,
      rank: 2,
      head: normaliseStatement(text.split('\n')[0]!),
      hollow: isHollow(text),
    });
  }
  return items;
}
