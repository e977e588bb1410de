// Data shapes produced by parsing one source file. The indexer stores these; retrieval reads them.

export type Language = 'python' | 'typescript' | 'tsx' | 'javascript';

export type UnitKind = 'module' | 'class' | 'function' | 'method';

/** Kinds of API entries: the units' kinds, plus Python module constants and class attributes. */
export type ApiKind = UnitKind | 'constant' | 'attribute';

/** How a parameter binds, in Python's terms; TS/JS use positional_or_keyword, rest (as var_positional) and the object-pattern name. */
export type ParamKind = 'positional_only' | 'positional_or_keyword' | 'var_positional' | 'keyword_only' | 'var_keyword';

export interface Param {
  name: string;
  kind: ParamKind;
  annotation: string | null;
  default: string | null;
  optional?: boolean;
}

export interface ExtractedUnit {
  kind: UnitKind;
  /** Simple name (`format`); for a module unit, the module's dotted name. */
  name: string;
  /** Dotted path inside the module: `Outer.Inner.method`, `helper`, `<lambda>` never appears. Module units use ''. */
  qualname: string;
  /** qualname of the enclosing class or function, null at module level. */
  parentQualname: string | null;
  /** Full one-line signature as written, decorators excluded: `async def f(a, /, b: int = 1, *args, c, **kw) -> str`. */
  signature: string;
  params: Param[];
  returns: string | null;
  decorators: string[];
  isAsync: boolean;
  docstring: string | null;
  /** Full source of the definition including decorators. */
  body: string;
  /** 1-based, inclusive. */
  startLine: number;
  endLine: number;
  /** Callee names as written (`foo`, `self.bar`, `os.path.join`), unique, in order of first appearance. */
  calls: string[];
  /** For module units: every import statement's imported names (`os.path`, `typing.List`, `.utils.slugify`). For others: imports made inside the unit. */
  imports: string[];
  /** sha256 hex of `body`. */
  contentHash: string;
  /** TS/JS only: overload signatures (`function f(a: string): string`) declared before the implementation, in order. */
  overloads?: string[];
}

export type ChunkKind = 'module_header' | 'class_skeleton' | 'siblings';

export interface ExtractedChunk {
  kind: ChunkKind;
  /** Human label: `module header of pkg.mod`, `class Foo`, `functions in pkg.mod (3)`. */
  title: string;
  text: string;
  startLine: number;
  endLine: number;
  /** qualname of the class for class skeletons, '' otherwise. */
  owner: string;
  contentHash: string;
}

/** Position is 1-based (line and column, in UTF-16 code units). */
export interface SyntaxProblem {
  line: number;
  column: number;
  message: string;
}

/**
 * A named value a caller can use: a Python module-level assignment (`NAME = ...`, `NAME: T = ...`,
 * each name of `A = B = ...`) or a class-body attribute (`attr = ...`, `attr: T = ...`, `attr: T`).
 */
export interface ExtractedValue {
  kind: 'constant' | 'attribute';
  name: string;
  /** `NAME` for constants, `Class.attr` (`Outer.Inner.attr`) for attributes. */
  qualname: string;
  /** qualname of the owning class for attributes, null for constants. */
  owner: string | null;
  /** Source of the assignment statement, dedented, capped to 5 lines. */
  text: string;
  /** 1-based, inclusive: the lines of the whole assignment statement. */
  startLine: number;
  endLine: number;
}

export interface ParseResult {
  language: Language;
  /** Dotted module name derived from the relative path (`pkg/sub/mod.py` → `pkg.sub.mod`, `__init__.py` → package). */
  module: string;
  units: ExtractedUnit[];
  chunks: ExtractedChunk[];
  /** Python module constants and class attributes, in source order; always [] for TS/JS. */
  values: ExtractedValue[];
  errors: SyntaxProblem[];
}

/** An API-knowledge entry: what retrieval's API source searches. */
export interface ApiEntry {
  /** The unit's or value's qualname (`Class.method`, `func`, `Class`, `LIMIT`, `Class.attr`). */
  qualname: string;
  name: string;
  module: string;
  /** Owning class qualname, or null. */
  owner: string | null;
  kind: ApiKind;
  /** Units: the signature; values: the assignment's first line, flattened. */
  signature: string;
  /** Docstring, or a description derived from the signature when there is none. */
  description: string;
  /** Where the description came from: `docstring`, `signature` (derived, weak), later `llm`. */
  descriptionSource: 'docstring' | 'signature' | 'llm';
  /** Text that gets embedded and lexically indexed. */
  text: string;
  /** 1-based, inclusive lines of the definition (the unit's span, or the assignment's). */
  startLine: number;
  endLine: number;
}
