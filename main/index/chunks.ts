// The context chunks of one source file: the module header (imports, constants, type aliases), one skeleton
// per class (members as stubs, attributes verbatim), and the module's top-level functions as stubs in groups.
// The language-specific rendering of a stub or skeleton comes from the extractor that gathered the units.
import type { ExtractedChunk, Language } from '../model/code.ts';
import type { Attr, HeaderPiece, Rec } from './records.ts';
import { sha256 } from './source-text.ts';

const HEADER_MAX_CHARS = 6000;
const SIBLINGS_MAX_ENTRIES = 40;
const SIBLINGS_MAX_CHARS = 4000;
/** Lines of a class docstring a class skeleton keeps. */
export const CLASS_DOC_MAX_LINES = 40;

/** How one language renders the lines of a class skeleton. */
export interface SkeletonRenderer {
  attrLines(attr: Attr, indent: string): string[];
  memberLines(cls: Rec, member: Rec, indent: string): string[];
  classSkeleton(cls: Rec, body: string[]): string;
}

/** The module-header chunk from the header statements (in source order, cut at HEADER_MAX_CHARS), or null when there are none. */
export function headerChunk(pieces: HeaderPiece[], language: Language, moduleName: string): ExtractedChunk | null {
  pieces.sort((a, b) => a.start - b.start);
  if (pieces.length === 0) return null;
  const parts: string[] = [];
  let size = 0;
  let startLine = Infinity;
  let endLine = 0;
  for (const p of pieces) {
    if (size + p.text.length > HEADER_MAX_CHARS && parts.length > 0) {
      parts.push(language === 'python' ? '# ...' : '// …');
      break;
    }
    parts.push(p.text);
    size += p.text.length + 1;
    startLine = Math.min(startLine, p.startLine);
    endLine = Math.max(endLine, p.endLine);
  }
  const text = parts.join('\n');
  return { kind: 'module_header', title: `module header of ${moduleName}`, text, startLine, endLine, owner: '', contentHash: sha256(text) };
}

/** A class's skeleton chunk: its verbatim skeleton (interfaces), or its attributes and member stubs in source order. */
export function classChunk(cls: Rec, language: Language, render: SkeletonRenderer): ExtractedChunk {
  let text: string;
  if (cls.skeleton !== undefined) {
    text = cls.skeleton;
  } else {
    const indent = language === 'python' ? '    ' : '  ';
    type Item = { start: number; lines: string[] };
    const items: Item[] = [];
    for (const a of cls.attrs) items.push({ start: a.start, lines: render.attrLines(a, indent) });
    for (const m of cls.members) items.push({ start: m.start, lines: render.memberLines(cls, m, indent) });
    items.sort((a, b) => a.start - b.start);
    text = render.classSkeleton(
      cls,
      items.flatMap((i) => i.lines),
    );
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

/** The top-level functions `fns` (in source order) as stub entries, grouped into chunks of bounded count and size. */
export function siblingChunks(fns: Rec[], moduleName: string, entryOf: (fn: Rec) => string): ExtractedChunk[] {
  const groups: Rec[][] = [];
  let cur: Rec[] = [];
  let size = 0;
  const entries = new Map<Rec, string>();
  for (const fn of fns) {
    const entry = entryOf(fn);
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
      title: `functions in ${moduleName} (${g.length}${part})`,
      text,
      startLine: g[0]!.unit.startLine,
      endLine: g[g.length - 1]!.unit.endLine,
      owner: '',
      contentHash: sha256(text),
    };
  });
}
