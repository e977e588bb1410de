// The bookkeeping shapes a per-file extractor keeps while it walks a syntax tree: one record per unit with
// its outer span and scope, the open scopes, call/import events waiting to be attributed, and the statements
// that make up the module header.
import type { Node } from 'web-tree-sitter';
import type { ExtractedUnit } from '../model/code.ts';

export type ScopeKind = 'module' | 'class' | 'function';

/** A class-level attribute statement, as the class skeleton shows it. */
export interface Attr {
  start: number;
  text: string;
}

/** One unit being extracted, with what the walk gathers for it. */
export interface Rec {
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

/** An open scope: its unit, the tree depth it was entered at, and (TS/JS) signatures still waiting for an implementation. */
export interface Frame {
  rec: Rec;
  depth: number;
  pending?: Map<string, Node[]>;
}

/** A call or import seen at offset `at`; after the walk it goes to the innermost unit whose span holds it. */
export interface Event {
  at: number;
  name: string;
  isImport: boolean;
}

/** A module-level statement kept for the module-header chunk. */
export interface HeaderPiece {
  start: number;
  startLine: number;
  endLine: number;
  text: string;
}
