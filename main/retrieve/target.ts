// Finding the task's target in the indexed repository, and the items that would leak its answer.
//
// When the target exists in the index (every benchmark task), its own unit and every unit whose body
// contains the reference body are masked from every source, together with the API entries of those
// units and the chunks that contain the reference body. Containment is checked with all white space
// removed, so a method inside its class body (indented differently) is still caught.

import type { Store } from '../store/store.ts';
import {
  apiEntriesInUnits,
  chunkTexts,
  fileByPath,
  fileUnits,
  itemsInside,
  moduleImports,
  unitBody,
  unitByQualname,
  unitsNamed,
  unitTitles,
} from '../store/code-queries.ts';

export interface RetrievalTask {
  id: string;
  requirement: string;
  signature: string;
  /** Target file relative to the repository root, and qualified name, when known. */
  file?: string;
  qualname?: string;
  /** The reference solution; when absent the target unit's own body stands for it. */
  reference?: string;
  /** The task's test command: the modules it names are masked like test files (they are the task's tests). */
  test_command?: string;
  /** A check program's template and placeholder: the tests the leakage audit compares evidence with. */
  check_template?: string;
  placeholder?: string;
}

export interface TargetInfo {
  unitId: number | null;
  module: string | null;
  className: string | null;
  name: string;
  file: string | null;
  /** Modules the target's module imports (dotted, as written). */
  imports: string[];
  masked: { units: Set<number>; chunks: Set<number>; api: Set<number> };
  /** The reference (or, without one, the target unit's body): what the leakage audit compares evidence with. */
  referenceText: string | null;
  /** Human-readable list of what was masked. */
  maskedTitles: string[];
}

const squash = (s: string) => s.replace(/\s+/g, '');

/** Removes a leading docstring-free signature difference: only the body after the first line is compared when long enough. */
function referenceCore(reference: string): string {
  return squash(reference);
}

/** Code without its docstrings, comments and layout: what two copies of one function share. */
export function codeSkeleton(code: string): string {
  return squash(code.replace(/("{3}|'{3})[\s\S]*?\1/g, '').replace(/#[^\n]*/g, ''));
}

const codeTokens = (code: string): Set<string> =>
  new Set(
    code
      .replace(/("{3}|'{3})[\s\S]*?\1/g, '')
      .replace(/#[^\n]*/g, '')
      .match(/[A-Za-z_]\w*|\d+|\S/g) ?? [],
  );

/**
 * Whether a unit's body is a twin of the reference: the same skeleton (docstring, comments and layout aside), or
 * token sets with a Jaccard similarity of at least 0.9. Only bodies of some substance count (≥ 20 tokens).
 */
export function twinTest(reference: string): (body: string) => boolean {
  const skeleton = codeSkeleton(reference);
  const tokens = codeTokens(reference);
  return (body) => {
    if (skeleton.length >= 20 && codeSkeleton(body) === skeleton) return true;
    const other = codeTokens(body);
    if (tokens.size < 20 || other.size < 20) return false;
    let both = 0;
    for (const t of other) if (tokens.has(t)) both++;
    return both / (tokens.size + other.size - both) >= 0.9;
  };
}

export function resolveTarget(store: Store, repoId: number, task: RetrievalTask): TargetInfo {
  const nameFromSig = /(?:def|function)\s+([A-Za-z_$][\w$]*)/.exec(task.signature)?.[1] ?? '';
  const info: TargetInfo = {
    unitId: null,
    module: null,
    className: null,
    name: task.qualname?.split('.').pop() ?? nameFromSig,
    file: task.file ?? null,
    imports: [],
    masked: { units: new Set(), chunks: new Set(), api: new Set() },
    referenceText: null,
    maskedTitles: [],
  };
  let fileId: number | null = null;
  let span: { start: number; end: number } | null = null;
  if (task.file) {
    const f = fileByPath(store, repoId, task.file);
    if (f) {
      fileId = f.id;
      info.module = f.module;
      info.imports = moduleImports(store, f.id) ?? [];
    }
  }
  if (fileId != null && task.qualname) {
    const u = unitByQualname(store, fileId, task.qualname);
    if (u) {
      info.unitId = u.id;
      info.className = u.parentQualname;
      span = { start: u.startLine, end: u.endLine };
    }
  }
  const refText = task.reference ?? (info.unitId != null ? (unitBody(store, info.unitId) ?? null) : null);
  info.referenceText = refText;
  if (info.unitId != null) info.masked.units.add(info.unitId);
  if (fileId != null && span) {
    // What the target's body defines (nested functions and classes, their chunks) is part of the answer too.
    const inside = itemsInside(store, fileId, span);
    for (const id of inside.units) info.masked.units.add(id);
    for (const id of inside.chunks) info.masked.chunks.add(id);
  }
  if (refText) {
    const core = referenceCore(refText);
    // Only units that could contain it: the same file, or definitions with the target's name anywhere.
    const rows: { id: number; body: string; file_id?: number }[] = [
      // In the target's file only the units enclosing it can contain it (when it was located).
      ...(fileId != null ? fileUnits(store, fileId, span ?? undefined) : []),
      ...unitsNamed(store, repoId, info.name),
    ];
    const twin = twinTest(refText);
    const twins: { body: string; file_id: number }[] = [];
    for (const r of rows) {
      // The reference itself, or a twin of it: the same code with another docstring, comments or layout (a vendored
      // copy, a build/lib copy, a docs example), or nearly the same tokens.
      if (core.length >= 20 && squash(r.body).includes(core)) info.masked.units.add(r.id);
      else if (twin(r.body)) {
        info.masked.units.add(r.id);
        if (r.file_id !== undefined && r.file_id !== fileId) twins.push({ body: r.body, file_id: r.file_id });
      }
    }
    const chunks = chunkTexts(store, fileId != null ? { fileId } : { repoId });
    for (const c of chunks) if (core.length >= 20 && squash(c.text).includes(core)) info.masked.chunks.add(c.id);
    // A twin's chunks in its own file: the chunks that hold its code (as written, or once docstrings, comments and
    // layout are set aside).
    for (const t of twins) {
      const body = squash(t.body);
      const skeleton = codeSkeleton(t.body);
      for (const c of chunkTexts(store, { fileId: t.file_id }))
        if ((body.length >= 20 && squash(c.text).includes(body)) || (skeleton.length >= 20 && codeSkeleton(c.text).includes(skeleton)))
          info.masked.chunks.add(c.id);
    }
  }
  if (info.masked.units.size) {
    // The units' API entries, and the constants and class attributes inside their lines: part of the answer too.
    for (const id of apiEntriesInUnits(store, info.masked.units)) info.masked.api.add(id);
    for (const r of unitTitles(store, info.masked.units)) info.maskedTitles.push(`unit ${r.path}:${r.qualname}`);
  }
  for (const id of info.masked.chunks) info.maskedTitles.push(`chunk ${id}`);
  return info;
}
