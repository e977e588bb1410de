// Finding the task's target in the indexed repository, and the items that would leak its answer.
//
// When the target exists in the index (every benchmark task), its own unit and every unit whose body
// contains the reference body are masked from every source, together with the API entries of those
// units and the chunks that contain the reference body. Containment is checked with all white space
// removed, so a method inside its class body (indented differently) is still caught.

import type { Store } from '../store/store.ts';

export interface RetrievalTask {
  id: string;
  requirement: string;
  signature: string;
  /** Target file relative to the repository root, and qualified name, when known. */
  file?: string;
  qualname?: string;
  /** The reference solution; when absent the target unit's own body stands for it. */
  reference?: string;
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
  /** Human-readable list of what was masked. */
  maskedTitles: string[];
}

const squash = (s: string) => s.replace(/\s+/g, '');

/** Removes a leading docstring-free signature difference: only the body after the first line is compared when long enough. */
function referenceCore(reference: string): string {
  return squash(reference);
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
    maskedTitles: [],
  };
  let fileId: number | null = null;
  let span: { start: number; end: number } | null = null;
  if (task.file) {
    const f = store.db.prepare('SELECT id, module FROM files WHERE repo_id = ? AND path = ?').get(repoId, task.file) as
      | { id: number; module: string }
      | undefined;
    if (f) {
      fileId = f.id;
      info.module = f.module;
      const mod = store.db.prepare("SELECT imports FROM units WHERE file_id = ? AND kind = 'module'").get(f.id) as { imports: string } | undefined;
      if (mod) info.imports = JSON.parse(mod.imports) as string[];
    }
  }
  if (fileId != null && task.qualname) {
    const u = store.db
      .prepare("SELECT id, body, parent_qualname, start_line, end_line FROM units WHERE file_id = ? AND qualname = ? AND kind != 'module' ORDER BY start_line LIMIT 1")
      .get(fileId, task.qualname) as { id: number; body: string; parent_qualname: string | null; start_line: number; end_line: number } | undefined;
    if (u) {
      info.unitId = u.id;
      info.className = u.parent_qualname;
      span = { start: u.start_line, end: u.end_line };
    }
  }
  const refText = task.reference ?? (info.unitId != null ? ((store.db.prepare('SELECT body FROM units WHERE id = ?').get(info.unitId) as { body: string }).body) : null);
  if (info.unitId != null) info.masked.units.add(info.unitId);
  if (refText) {
    const core = referenceCore(refText);
    // Only units that could contain it: the same file, or definitions with the target's name anywhere.
    const rows = [
      // In the target's file only the units enclosing it can contain it (when it was located).
      ...(fileId != null
        ? (span
            ? store.db
                .prepare("SELECT id, body FROM units WHERE file_id = ? AND kind != 'module' AND start_line <= ? AND end_line >= ?")
                .all(fileId, span.start, span.end)
            : store.db.prepare("SELECT id, body FROM units WHERE file_id = ? AND kind != 'module'").all(fileId)) as { id: number; body: string }[]
        : []),
      ...(store.db.prepare("SELECT id, body FROM units WHERE repo_id = ? AND name = ? AND kind != 'module'").all(repoId, info.name) as {
        id: number;
        body: string;
      }[]),
    ];
    for (const r of rows) {
      if (core.length >= 20 && squash(r.body).includes(core)) info.masked.units.add(r.id);
    }
    const chunks = store.db
      .prepare(fileId != null ? 'SELECT id, text FROM chunks WHERE file_id = ?' : 'SELECT id, text FROM chunks WHERE repo_id = ?')
      .all(fileId ?? repoId) as { id: number; text: string }[];
    for (const c of chunks) if (core.length >= 20 && squash(c.text).includes(core)) info.masked.chunks.add(c.id);
  }
  if (info.masked.units.size) {
    const ids = JSON.stringify([...info.masked.units]);
    for (const r of store.db.prepare('SELECT id FROM api_entries WHERE unit_id IN (SELECT value FROM json_each(?))').all(ids) as { id: number }[]) {
      info.masked.api.add(r.id);
    }
    // Constants and class attributes have no unit: those inside a masked unit's lines are part of the answer too.
    for (const r of store.db
      .prepare(
        `SELECT a.id FROM api_entries a JOIN units u ON u.file_id = a.file_id AND a.start_line >= u.start_line AND a.end_line <= u.end_line
         WHERE a.unit_id IS NULL AND a.start_line > 0 AND u.id IN (SELECT value FROM json_each(?))`,
      )
      .all(ids) as { id: number }[]) {
      info.masked.api.add(r.id);
    }
    for (const r of store.db
      .prepare("SELECT u.qualname, f.path FROM units u JOIN files f ON f.id = u.file_id WHERE u.id IN (SELECT value FROM json_each(?))")
      .all(ids) as { qualname: string; path: string }[]) {
      info.maskedTitles.push(`unit ${r.path}:${r.qualname}`);
    }
  }
  for (const id of info.masked.chunks) info.maskedTitles.push(`chunk ${id}`);
  return info;
}
