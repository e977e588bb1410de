// What every importer shares: its output folder, safe relative paths from records, writing a task's
// repository, counting, and how it words a requirement it has to make up. An import writes only into an empty
// folder or into one a previous import of the same kind made (marked by IMPORT_MARKER), and clears only what
// that importer writes.

import fs from 'node:fs';
import path from 'node:path';

export const IMPORT_MARKER = '.opencoder-import.json';

interface Marker {
  tool: 'opencoder';
  importer: string;
  format: 1;
}

export interface ImportWarning {
  /** Short machine-readable reason (`malformed-json`, `invalid-record`, `unsafe-path`, `task-without-row`, …). */
  reason: string;
  /** Input or output file the warning is about (absolute), with a 1-based line when known. */
  file: string;
  line?: number;
  message: string;
}

/** How an importer reports something it skipped or repaired: recorded in its result and passed to onWarning. */
export type Warn = (reason: string, file: string, line: number | undefined, message: string) => void;

/** A Warn that keeps every warning (for the import's result) and hands each to `onWarning` as it happens. */
export function collectWarnings(onWarning?: (w: ImportWarning) => void): { warnings: ImportWarning[]; warn: Warn } {
  const warnings: ImportWarning[] = [];
  const warn: Warn = (reason, file, line, message) => {
    const w: ImportWarning = line === undefined ? { reason, file, message } : { reason, file, line, message };
    warnings.push(w);
    onWarning?.(w);
  };
  return { warnings, warn };
}

/** The values of a JSONL text with their 1-based lines; a line that is not JSON is a warning and is skipped. */
export function jsonlValues(file: string, text: string, warn: Warn): { value: unknown; line: number }[] {
  const out: { value: unknown; line: number }[] = [];
  text.split('\n').forEach((raw, i) => {
    if (!raw.trim()) return;
    try {
      out.push({ value: JSON.parse(raw), line: i + 1 });
    } catch (err) {
      warn('malformed-json', file, i + 1, `not valid JSON, line skipped (${(err as Error).message})`);
    }
  });
  return out;
}

/** Like jsonlValues, keeping only JSON objects; any other value is a warning (`notObject`) and is skipped. */
export function jsonlObjects(file: string, text: string, warn: Warn, notObject: string): { value: Record<string, unknown>; line: number }[] {
  return jsonlValues(file, text, warn).filter((r): r is { value: Record<string, unknown>; line: number } => {
    if (r.value && typeof r.value === 'object' && !Array.isArray(r.value)) return true;
    warn(notObject, file, r.line, 'not a JSON object, line skipped');
    return false;
  });
}

/** Builds the importer's own error type (it names the file). */
export type Fail = (message: string, file: string) => Error;

/** Throws unless `outDir` is absent, empty, or a previous import by `importer`. True when it is one. */
export function checkOutDir(outDir: string, importer: string, fail: Fail): boolean {
  if (!fs.existsSync(outDir)) return false;
  if (!fs.statSync(outDir).isDirectory()) throw fail(`--out ${outDir} exists and is not a folder`, outDir);
  if (!fs.readdirSync(outDir).length) return false;
  let marker: Partial<Marker> | null;
  try {
    marker = JSON.parse(fs.readFileSync(path.join(outDir, IMPORT_MARKER), 'utf8')) as Partial<Marker>;
  } catch {
    marker = null;
  }
  if (!marker || marker.tool !== 'opencoder' || marker.importer !== importer) {
    throw fail(
      `Refusing to write into ${outDir}: it is not empty and was not made by \`opencoder import ${importer}\` (no ${IMPORT_MARKER} of it). Choose an empty or new folder.`,
      outDir,
    );
  }
  return true;
}

/** Makes `outDir` ready (clearing only what a previous import of the same kind wrote: `written`) and marks it. */
export function prepareOutDir(outDir: string, importer: string, written: string[], fail: Fail): void {
  if (checkOutDir(outDir, importer, fail)) {
    for (const name of written) fs.rmSync(path.join(outDir, name), { recursive: true, force: true });
  }
  fs.mkdirSync(outDir, { recursive: true });
  const marker: Marker = { tool: 'opencoder', importer, format: 1 };
  fs.writeFileSync(path.join(outDir, IMPORT_MARKER), JSON.stringify(marker, null, 1) + '\n');
}

/** When a task has no docstring: a plain sentence from the signature. */
export function requirementFromSignature(signature: string): string {
  const one = signature
    .split('\n')
    .filter((l) => !l.trim().startsWith('@'))
    .join(' ')
    .replace(/\s+/g, ' ')
    .replace(/^\s*(async\s+)?def\s+/, '')
    .replace(/:\s*$/, '')
    .trim();
  return `Implement \`${one}\`.`;
}

/** A relative path from a record, checked: no absolute paths, no `..`, no backslashes or NULs. */
export function checkRelPath(p: unknown): { ok: true; path: string } | { ok: false; why: string } {
  if (typeof p !== 'string' || !p) return { ok: false, why: 'not a non-empty string' };
  if (p.includes('\0')) return { ok: false, why: 'contains a NUL character' };
  if (p.includes('\\')) return { ok: false, why: 'contains a backslash' };
  if (p.startsWith('/') || /^[A-Za-z]:/.test(p) || p.startsWith('~')) return { ok: false, why: 'is absolute' };
  const parts = p.split('/').filter((s) => s !== '' && s !== '.');
  if (!parts.length) return { ok: false, why: 'names no file' };
  if (parts.includes('..')) return { ok: false, why: 'contains ..' };
  if (parts.some((s) => s.length > 255)) return { ok: false, why: 'has a path segment longer than 255 characters' };
  return { ok: true, path: parts.join('/') };
}

/** Joins a checked relative path under root; throws if it would land outside (belt and braces). */
export function underRoot(root: string, rel: string): string {
  const abs = path.resolve(root, ...rel.split('/'));
  if (!abs.startsWith(root + path.sep)) throw new Error(`internal: ${rel} escapes ${root}`);
  return abs;
}

/** Writes a task's repository: each (checked relative path, content) under `repoPath`, in path order. */
export function writeRepoFiles(repoPath: string, files: Iterable<[string, string]>): void {
  fs.mkdirSync(repoPath, { recursive: true });
  for (const [rel, content] of [...files].sort(([a], [b]) => a.localeCompare(b))) {
    const abs = underRoot(repoPath, rel);
    fs.mkdirSync(path.dirname(abs), { recursive: true });
    fs.writeFileSync(abs, content);
  }
}

/** Counts by key, keys sorted. */
export function countBy<T>(xs: T[], key: (x: T) => string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const x of xs) out[key(x)] = (out[key(x)] ?? 0) + 1;
  return Object.fromEntries(Object.entries(out).sort(([a], [b]) => a.localeCompare(b)));
}

/**
 * The IMPORT.md section "Not runnable, by reason": a heading per reason with its count and explanation, then one
 * line per dropped record (`entry` writes it), or "None." when nothing was dropped.
 */
export function droppedSection<E extends { reason: string }>(
  dropped: Record<string, number>,
  entries: E[],
  reasons: Record<string, string>,
  entry: (e: E) => string,
): string[] {
  const L = ['## Not runnable, by reason', ''];
  if (!entries.length) L.push('None.', '');
  for (const [reason, n] of Object.entries(dropped)) {
    L.push(`### ${reason} (${n})`, '', reasons[reason] ?? '', '');
    for (const d of entries.filter((x) => x.reason === reason)) L.push(entry(d));
    L.push('');
  }
  return L;
}

/** Text for a Markdown table cell or inline code: no pipes, backticks or line breaks. */
export function mdEscape(s: string): string {
  return s.replace(/\|/g, '\\|').replace(/`/g, "'").replace(/\n/g, ' ⏎ ');
}

/**
 * The import report's warnings section. Paths inside `outDir` are shown as `<out>/…`, so two imports of the same
 * data read the same.
 */
export function warningsSection(warnings: ImportWarning[], outDir?: string): string[] {
  const shown = (f: string) => (outDir && f.startsWith(outDir + path.sep) ? `<out>/${path.relative(outDir, f).split(path.sep).join('/')}` : f);
  const L = ['## Warnings', ''];
  if (!warnings.length) L.push('None.');
  for (const w of warnings) L.push(`- ${w.reason}: ${shown(w.file)}${w.line ? `:${w.line}` : ''}: ${mdEscape(w.message)}`);
  L.push('');
  return L;
}
