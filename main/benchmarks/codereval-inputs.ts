// Reading CoderEval's staged files for the importer (codereval.ts): the records file, the check templates, the
// prompt and metadata files, merged into one record per CoderEval id.

import fs from 'node:fs';
import path from 'node:path';
import type { Extractor } from '../index/extract.ts';
import type { ExtractedUnit } from '../model/code.ts';
import { jsonlObjects, type Fail, type Warn } from './import-out.ts';
import { OpenCoderError } from '../model/errors.ts';

// ---------------------------------------------------------------------------------------------
// Small shared helpers

/** Where the staged data keeps per-task metadata (project, file, level, ChatGPT samples with pass labels). */
export const METADATA_FILE = 'experimental-results/GenerateResultPython/ChatGPT/Raw_Input.jsonl_out.jsonl';

export type DocstringVariant = 'raw' | 'human';

export class CoderEvalImportError extends OpenCoderError {
  constructor(
    message: string,
    readonly file?: string,
  ) {
    super('invalid-input', message);
  }
}

export interface Located {
  value: Record<string, unknown>;
  file: string;
  line: number;
}

/** Lines of a JSONL file; a line that is not a JSON object is a warning and is skipped. */
export function readJsonl(file: string, text: string, warn: Warn): Located[] {
  return jsonlObjects(file, text, warn, 'invalid-record').map((r) => ({ ...r, file }));
}

export function readText(file: string): string {
  try {
    return fs.readFileSync(file, 'utf8').replace(/\r\n?/g, '\n');
  } catch (err) {
    throw new CoderEvalImportError(`Cannot read ${file}: ${(err as Error).message}`, file);
  }
}

/** A records file: one JSON document (array, or an object holding one array), else JSONL. */
export function readRecordsFile(file: string, warn: Warn): Located[] {
  const text = readText(file);
  const trimmed = text.trim();
  if (trimmed.startsWith('[') || trimmed.startsWith('{')) {
    let doc: unknown;
    try {
      doc = JSON.parse(trimmed);
    } catch {
      doc = undefined; // not one document: JSONL below
    }
    if (doc !== undefined) {
      let arr: unknown[] | null = Array.isArray(doc) ? doc : null;
      if (!arr && doc && typeof doc === 'object') {
        const lists = Object.values(doc as Record<string, unknown>).filter(Array.isArray);
        if (lists.length === 1) arr = lists[0] as unknown[];
        else if (typeof (doc as Record<string, unknown>)._id === 'string') arr = [doc]; // a one-record JSONL file
      }
      if (!arr) throw new CoderEvalImportError(`${file}: expected a JSON array of records, an object holding one (e.g. {"RECORDS": [...]}), or JSONL`, file);
      const out: Located[] = [];
      arr.forEach((v, i) => {
        if (!v || typeof v !== 'object' || Array.isArray(v)) warn('invalid-record', file, undefined, `record #${i + 1} is not a JSON object, skipped`);
        else out.push({ value: v as Record<string, unknown>, file, line: 0 });
      });
      return out;
    }
  }
  return readJsonl(file, text, warn);
}

export function str(o: Record<string, unknown>, k: string): string | null {
  return typeof o[k] === 'string' ? o[k] : null;
}
export function nonEmpty(o: Record<string, unknown>, k: string): string | null {
  const s = str(o, k);
  return s && s.trim() ? s : null;
}
export function int(o: Record<string, unknown>, k: string): number | null {
  return typeof o[k] === 'number' && Number.isInteger(o[k]) ? o[k] : null;
}

export const SAFE_NAME = /^[A-Za-z0-9_][A-Za-z0-9_.-]*$/;

export const failCoderEval: Fail = (message, file) => new CoderEvalImportError(message, file);

// ---------------------------------------------------------------------------------------------
// Check templates (the program made of one: codereval-template.ts)

export interface TemplateFile {
  id: string;
  name: string;
  file: string;
  text: string;
}

/** `<name>_<_id>.py` files of a folder (not recursive). */
export function readTemplates(dir: string, warn: Warn): TemplateFile[] {
  let names: string[];
  try {
    if (!fs.statSync(dir).isDirectory()) throw new Error('not a folder');
    names = fs.readdirSync(dir).sort();
  } catch (err) {
    throw new CoderEvalImportError(`Cannot read the templates folder ${dir}: ${(err as Error).message}`, dir);
  }
  const out: TemplateFile[] = [];
  const seen = new Map<string, string>();
  for (const n of names) {
    const file = path.join(dir, n);
    if (!n.endsWith('.py') || !fs.statSync(file).isFile()) continue;
    const m = /^(.+)_([A-Za-z0-9]+)\.py$/.exec(n);
    if (!m) {
      warn('template-unrecognised', file, undefined, `template file name is not <name>_<_id>.py; ignored`);
      continue;
    }
    const id = m[2]!;
    if (seen.has(id)) {
      warn('duplicate-template', file, undefined, `a second template for ${id} (first: ${seen.get(id)}); ignored`);
      continue;
    }
    seen.set(id, n);
    out.push({ id, name: m[1]!, file, text: readText(file) });
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Records

export interface Merged {
  id: string;
  /** Where the id was first seen (for warnings). */
  file: string;
  line: number;
  prompt?: { signature: string | null; docstring: string | null; input: string | null };
  meta?: {
    project: string | null;
    filePath: string | null;
    name: string | null;
    docstring: string | null;
    level: string | null;
    samples: number;
    passed: number;
  };
  record?: Record<string, unknown>;
  recordLine?: number;
  template?: TemplateFile;
}

export function mergeInto(
  all: Map<string, Merged>,
  rows: Located[],
  idKey: string,
  warn: Warn,
  apply: (m: Merged, row: Located) => void,
  has: (m: Merged) => boolean,
): void {
  for (const row of rows) {
    const raw = row.value[idKey];
    const id = typeof raw === 'string' ? raw.trim() : typeof raw === 'number' ? String(raw) : '';
    if (!id) {
      warn('invalid-record', row.file, row.line || undefined, `no ${idKey}; record skipped`);
      continue;
    }
    let m = all.get(id);
    if (!m) {
      m = { id, file: row.file, line: row.line };
      all.set(id, m);
    } else if (has(m)) {
      warn('duplicate-id', row.file, row.line || undefined, `${idKey} ${JSON.stringify(id)} appears again; the first one is kept`);
      continue;
    }
    apply(m, row);
  }
}

export function findMetadataFile(benchDir: string): string | null {
  const preferred = path.join(benchDir, ...METADATA_FILE.split('/'));
  if (fs.existsSync(preferred)) return preferred;
  const base = path.join(benchDir, 'experimental-results');
  const found: string[] = [];
  const walk = (dir: string, depth: number) => {
    if (depth > 3 || !fs.existsSync(dir)) return;
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const abs = path.join(dir, e.name);
      if (e.isDirectory()) walk(abs, depth + 1);
      else if (e.name === 'Raw_Input.jsonl_out.jsonl' && /Python/.test(abs)) found.push(abs);
    }
  };
  walk(base, 0);
  return found.sort()[0] ?? null;
}

/** The def of `name` around `lineno` in `source` (methods as `Class.method`); null if absent. */
export function findTarget(ex: Extractor, file: string, source: string, name: string, lineno: number | null): ExtractedUnit | null {
  const units = ex
    .parse(file, 'python', source)
    .units.filter((u) => (u.kind === 'function' || u.kind === 'method') && u.name === name && !u.qualname.includes('<locals>'));
  if (lineno !== null) {
    const around = units.filter((u) => u.startLine <= lineno && lineno <= u.endLine).sort((a, b) => b.startLine - a.startLine);
    if (around[0]) return around[0];
  }
  return units[0] ?? null;
}

export function testFilesOf(v: unknown): [string, string][] | null {
  if (v === undefined || v === null) return [];
  if (Array.isArray(v)) {
    const out: [string, string][] = [];
    for (const e of v) {
      if (!Array.isArray(e) || typeof e[0] !== 'string' || typeof e[1] !== 'string') return null;
      out.push([e[0], e[1]]);
    }
    return out;
  }
  if (typeof v === 'object') {
    const out: [string, string][] = [];
    for (const [k, c] of Object.entries(v as Record<string, unknown>)) {
      if (typeof c !== 'string') return null;
      out.push([k, c]);
    }
    return out;
  }
  return null;
}
