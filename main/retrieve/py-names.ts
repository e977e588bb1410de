// The names a Python reference solution uses: what API-retrieval truth is derived from. Unlike the
// indexer's call list, this sees every use — calls, attribute reads, constants, exception classes,
// decorators, base classes of nested classes — and leaves out what the function binds itself
// (parameters, local assignments, loop and `with … as` targets, comprehension variables, nested
// definitions) and what its own signature and docstring mention.

import path from 'node:path';
import { createRequire } from 'node:module';
import { Language as Grammar, Parser, type Node } from 'web-tree-sitter';
import { createExtractor } from '../index/extract.ts';

const requireHere = createRequire(import.meta.url);
let parserOnce: Promise<Parser> | null = null;

function pythonParser(): Promise<Parser> {
  parserOnce ??= (async () => {
    // The extractor initialises web-tree-sitter for this thread; a second Parser.init would swap the runtime.
    await createExtractor();
    const grammar = await Grammar.load(path.join(path.dirname(requireHere.resolve('tree-sitter-python/package.json')), 'tree-sitter-python.wasm'));
    const parser = new Parser();
    parser.setLanguage(grammar);
    return parser;
  })();
  return parserOnce;
}

export interface NameUse {
  /** Dotted chain as written (`is_string`, `self.x`, `Money.from_cents`, `re.compile`). */
  chain: string[];
  /** Whether the chain is called (`f()`), read otherwise. */
  called: boolean;
}

const BINDING_PARENTS = new Set(['for_statement', 'for_in_clause', 'with_item', 'as_pattern', 'except_clause', 'global_statement', 'nonlocal_statement']);

/** Identifiers a pattern node binds (`a`, `a, b`, `(a, [b, *c])`); attribute and subscript targets bind nothing. */
function boundNames(node: Node | null, out: Set<string>): void {
  if (!node) return;
  switch (node.type) {
    case 'identifier':
      out.add(node.text);
      return;
    case 'attribute':
    case 'subscript':
      return;
    default:
      for (const c of node.namedChildren) if (c) boundNames(c, out);
  }
}

function chainOf(node: Node): string[] | null {
  if (node.type === 'identifier') return [node.text];
  if (node.type === 'attribute') {
    const obj = node.childForFieldName('object');
    const attr = node.childForFieldName('attribute');
    if (!obj || !attr) return null;
    const head = chainOf(obj);
    return head ? [...head, attr.text] : null;
  }
  return null;
}

/** Where a reference's names are looked for, and what it binds itself. */
interface NameScope {
  /** The first top-level function or class (its decorated_definition when decorated); null when there is none. */
  def: Node | null;
  /** `def` unwrapped from its decorators. */
  inner: Node | null;
  /** Nodes not searched: the signature and the docstring. */
  skip: Set<number>;
  /** Names the function binds: its own name, parameters, locals, nested definitions. */
  bound: Set<string>;
}

/**
 * Every use of a name in the body of the reference's first function (or class): dotted chains read or called,
 * in order of first appearance, without the names the function binds itself.
 */
export async function referencedNames(reference: string): Promise<NameUse[]> {
  const parser = await pythonParser();
  const tree = parser.parse(reference);
  if (!tree) return [];
  try {
    const s = nameScope(tree.rootNode);
    const root = s.def ?? tree.rootNode;
    // First pass: what the body binds.
    collectBindings(root, s);
    if (s.inner && s.inner !== root) for (const c of s.inner.namedChildren) if (c) collectBindings(c, s);
    return collectUses(root, s);
  } finally {
    tree.delete();
  }
}

/** The reference's first definition, with its name and parameters bound and its signature and docstring skipped. */
function nameScope(root: Node): NameScope {
  let def: Node | null = null;
  for (const n of root.namedChildren) {
    if (!n) continue;
    const d = n.type === 'decorated_definition' ? n.childForFieldName('definition') : n;
    if (d && (d.type === 'function_definition' || d.type === 'class_definition')) {
      def = n;
      break;
    }
  }
  const inner = def?.type === 'decorated_definition' ? def.childForFieldName('definition')! : def;
  const skip = new Set<number>();
  const bound = new Set<string>();
  if (inner) {
    const name = inner.childForFieldName('name');
    if (name) bound.add(name.text);
    // The signature (parameters, annotations, return type) is given to the generator: not a use.
    for (const f of ['parameters', 'return_type', 'type_parameters']) {
      const c = inner.childForFieldName(f);
      if (c) skip.add(c.id);
    }
    const params = inner.childForFieldName('parameters');
    if (params) collectParams(params, bound);
    const body = inner.childForFieldName('body');
    const first = body?.firstNamedChild;
    if (first?.type === 'expression_statement' && first.firstNamedChild?.type === 'string') skip.add(first.id);
  }
  return { def, inner, skip, bound };
}

/** Adds what `n` and everything under it binds (assignments, loop, `with` and `except` targets, nested definitions, lambda parameters). */
function collectBindings(n: Node, s: NameScope): void {
  if (s.skip.has(n.id)) return;
  const { bound } = s;
  switch (n.type) {
    case 'assignment':
    case 'augmented_assignment':
    case 'named_expression':
      boundNames(n.childForFieldName(n.type === 'named_expression' ? 'name' : 'left'), bound);
      break;
    case 'function_definition':
    case 'class_definition':
      if (n !== s.inner) {
        const nm = n.childForFieldName('name');
        if (nm) bound.add(nm.text);
      }
      break;
    case 'lambda': {
      const p = n.childForFieldName('parameters');
      if (p) collectParams(p, bound);
      break;
    }
    default:
      if (BINDING_PARENTS.has(n.type)) {
        if (n.type === 'for_statement' || n.type === 'for_in_clause') boundNames(n.childForFieldName('left'), bound);
        else if (n.type === 'as_pattern') boundNames(n.childForFieldName('alias'), bound);
        else if (n.type === 'except_clause') {
          for (const c of n.namedChildren) if (c?.type === 'as_pattern') boundNames(c.childForFieldName('alias'), bound);
        }
      }
  }
  for (const c of n.namedChildren) if (c) collectBindings(c, s);
}

/** Second pass: the uses, deduplicated by chain (a chain called anywhere counts as called). */
function collectUses(root: Node, s: NameScope): NameUse[] {
  const out: NameUse[] = [];
  const seen = new Map<string, NameUse>();
  const push = (chain: string[], called: boolean) => {
    const key = chain.join('.');
    const prev = seen.get(key);
    if (prev) {
      prev.called ||= called;
      return;
    }
    const use = { chain, called };
    seen.set(key, use);
    out.push(use);
  };
  const { def, inner } = s;
  if (inner) {
    // Decorators and base classes are uses; so is the body.
    if (def?.type === 'decorated_definition') for (const c of def.namedChildren) if (c?.type === 'decorator') visitUses(c, s, push);
    const supers = inner.childForFieldName('superclasses');
    if (supers) visitUses(supers, s, push);
    const body = inner.childForFieldName('body');
    if (body) visitUses(body, s, push);
  } else visitUses(root, s, push);
  return out;
}

/** An identifier that names rather than uses: a keyword argument's name, an attribute's name, a definition's name, part of an import. */
function isNaming(n: Node, parent: Node | null): boolean {
  if (parent?.type === 'keyword_argument' && parent.childForFieldName('name')?.id === n.id) return true;
  if (parent?.type === 'attribute' && parent.childForFieldName('attribute')?.id === n.id) return true;
  if (parent && (parent.type === 'function_definition' || parent.type === 'class_definition') && parent.childForFieldName('name')?.id === n.id) return true;
  return !!parent && ['dotted_name', 'aliased_import', 'import_statement', 'import_from_statement'].includes(parent.type);
}

function visitUses(n: Node, s: NameScope, push: (chain: string[], called: boolean) => void): void {
  if (s.skip.has(n.id)) return;
  if (n.type === 'attribute' || n.type === 'identifier') {
    const parent = n.parent;
    // A name chain is pushed whole (`a.b.c` once, never `a.b` again) and not descended into, so the object of
    // an attribute is visited only when the outer chain is not a name chain (`f(x).y.z`): then it is searched
    // like any expression, and `f` is found as a call.
    if (n.type === 'identifier' && isNaming(n, parent)) return;
    const chain = chainOf(n);
    if (chain && !s.bound.has(chain[0]!)) {
      const called = parent?.type === 'call' && parent.childForFieldName('function')?.id === n.id;
      push(chain, called);
      return;
    }
    if (chain) return;
  }
  if (n.type === 'import_from_statement' || n.type === 'import_statement') {
    // Imports inside the function name what it uses: `from .validation import is_string` uses is_string.
    for (const nm of n.childrenForFieldName('name')) {
      const target = nm?.type === 'aliased_import' ? nm.childForFieldName('name') : nm;
      if (target) push(target.text.split('.').slice(-1), false);
    }
    return;
  }
  for (const c of n.namedChildren) if (c) visitUses(c, s, push);
}

function collectParams(params: Node, bound: Set<string>): void {
  for (const p of params.namedChildren) {
    if (!p) continue;
    if (p.type === 'identifier') bound.add(p.text);
    else {
      const nm = p.childForFieldName('name') ?? p.namedChildren.find((c) => c?.type === 'identifier') ?? null;
      if (nm?.type === 'identifier') bound.add(nm.text);
      else if (nm) boundNames(nm, bound);
    }
  }
}

/** Python 3.11 builtins: never resolved to a repository definition unless the target's module defines or imports the name. */
export const PY_BUILTINS = new Set(
  `abs aiter all anext any ascii bin bool breakpoint bytearray bytes callable chr classmethod compile complex copyright credits delattr dict dir divmod enumerate eval exec exit filter float format frozenset getattr globals hasattr hash help hex id input int isinstance issubclass iter len license list locals map max memoryview min next object oct open ord pow print property quit range repr reversed round set setattr slice sorted staticmethod str sum super tuple type vars zip __import__ __build_class__ __debug__ __doc__ __name__ __file__ __spec__ __loader__ __package__ None True False Ellipsis NotImplemented
  ArithmeticError AssertionError AttributeError BaseException BaseExceptionGroup BlockingIOError BrokenPipeError BufferError BytesWarning ChildProcessError ConnectionAbortedError ConnectionError ConnectionRefusedError ConnectionResetError DeprecationWarning EOFError EncodingWarning EnvironmentError Exception ExceptionGroup FileExistsError FileNotFoundError FloatingPointError FutureWarning GeneratorExit IOError ImportError ImportWarning IndentationError IndexError InterruptedError IsADirectoryError KeyError KeyboardInterrupt LookupError MemoryError ModuleNotFoundError NameError NotADirectoryError NotImplementedError OSError OverflowError PendingDeprecationWarning PermissionError ProcessLookupError RecursionError ReferenceError ResourceWarning RuntimeError RuntimeWarning StopAsyncIteration StopIteration SyntaxError SyntaxWarning SystemError SystemExit TabError TimeoutError TypeError UnboundLocalError UnicodeDecodeError UnicodeEncodeError UnicodeError UnicodeTranslateError UnicodeWarning UserWarning ValueError Warning ZeroDivisionError`.split(
    /\s+/,
  ),
);
