// Reading the staged RepoExec folder: the raw rows (data_with_test_case/<project>/*.jsonl, one per focal
// function with its module view), the RepoExec-inline tasks and their named subsets. Every row and task
// is validated here; a bad line becomes a warning and is skipped, a missing file is an error.

import fs from 'node:fs';
import path from 'node:path';
import { DEFAULT_PLACEHOLDER } from '../../model/task.ts';
import { RepoExecImportError, type Warn } from './types.ts';
import { jsonlValues } from '../import-out.ts';

export const INLINE_FILE = 'repoexec_inline.jsonl';
export const SUBSETS_FILE = 'repoexec_inline_subsets.json';
export const ROWS_DIR = 'data_with_test_case';
const ROW_FILES = ['pass_data.jsonl', 'failed_data.jsonl'] as const;

export interface RawRow {
  problemId: number;
  project: string;
  module: string;
  entryPoint: string;
  focal: string;
  code: string;
  file: string;
  line: number;
}

export interface InlineTask {
  taskId: string;
  hfIndex: number;
  problemId: number;
  project: string;
  module: string;
  entryPoint: string;
  prompt: string;
  solution: string;
  checkTemplate: string;
  placeholder: string;
  testNames: string[];
  extra: Record<string, unknown>;
  file: string;
  line: number;
}

/** Reads a JSONL file; a line that is not JSON becomes a warning and is skipped. */
function readJsonl(file: string, warn: Warn): { value: unknown; line: number }[] {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    throw new RepoExecImportError(`Cannot read ${file}: ${(err as Error).message}`, file);
  }
  return jsonlValues(file, text, warn);
}

const DOTTED = /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$/;
const IDENT = /^[A-Za-z_][A-Za-z0-9_]*$/;

function str(o: Record<string, unknown>, k: string): string | null {
  return typeof o[k] === 'string' ? o[k] : null;
}
function int(o: Record<string, unknown>, k: string): number | null {
  return typeof o[k] === 'number' && Number.isInteger(o[k]) ? o[k] : null;
}

/** A JSON value as a record to read fields from (`{}` for anything but an object). */
function asObject(value: unknown): Record<string, unknown> {
  return (value && typeof value === 'object' ? value : {}) as Record<string, unknown>;
}

/** The keys whose value is null: the fields str/int found missing or mistyped. */
function nullKeys(fields: Record<string, unknown>): string[] {
  return Object.entries(fields)
    .filter(([, v]) => v === null)
    .map(([k]) => k);
}

function readRows(benchDir: string, warn: Warn): RawRow[] {
  const dir = path.join(benchDir, ROWS_DIR);
  if (!fs.existsSync(dir) || !fs.statSync(dir).isDirectory()) {
    throw new RepoExecImportError(`Missing folder ${dir} (the raw RepoExec rows, data_with_test_case/<project>/*.jsonl)`, dir);
  }
  const rows: RawRow[] = [];
  const seen = new Map<number, string>();
  for (const project of fs.readdirSync(dir).sort()) {
    const pdir = path.join(dir, project);
    if (!fs.statSync(pdir).isDirectory()) continue;
    for (const name of ROW_FILES) {
      const file = path.join(pdir, name);
      if (!fs.existsSync(file)) throw new RepoExecImportError(`Missing file ${file}`, file);
      for (const { value, line } of readJsonl(file, warn)) {
        const o = asObject(value);
        const row = {
          problemId: int(o, 'problem_ids'),
          project: str(o, 'project'),
          module: str(o, 'module'),
          entryPoint: str(o, 'entry_point'),
          focal: str(o, 'focal_function'),
          code: str(o, 'code'),
        };
        const missing = nullKeys(row);
        if (missing.length) {
          warn('invalid-row', file, line, `row skipped: missing or mistyped ${missing.join(', ')}`);
          continue;
        }
        if (!DOTTED.test(row.module!) || !IDENT.test(row.entryPoint!) || repoFolderForProject(row.project!) === null) {
          warn('invalid-row', file, line, `row skipped: unusable project/module/entry_point (${row.project} ${row.module} ${row.entryPoint})`);
          continue;
        }
        const prev = seen.get(row.problemId!);
        if (prev) {
          warn('duplicate-row', file, line, `problem id ${row.problemId} already read at ${prev}; row skipped`);
          continue;
        }
        seen.set(row.problemId!, `${file}:${line}`);
        rows.push({
          ...(row as Omit<RawRow, 'file' | 'line'>),
          focal: normaliseNewlines(row.focal!),
          code: normaliseNewlines(row.code!),
          file,
          line,
        });
      }
    }
  }
  return rows;
}

function readInline(benchDir: string, warn: Warn): InlineTask[] {
  const file = path.join(benchDir, INLINE_FILE);
  if (!fs.existsSync(file)) throw new RepoExecImportError(`Missing file ${file} (the RepoExec-inline tasks)`, file);
  const tasks: InlineTask[] = [];
  const seen = new Set<string>();
  const KNOWN = new Set([
    'task_id',
    'hf_index',
    'problem_id',
    'project',
    'module',
    'entry_point',
    'target_function_prompt',
    'solution',
    'check_template',
    'placeholder',
    'test_names',
    'context',
    'prompt',
    'test',
  ]);
  for (const { value, line } of readJsonl(file, warn)) {
    const o = asObject(value);
    const t = {
      taskId: str(o, 'task_id'),
      hfIndex: int(o, 'hf_index'),
      problemId: int(o, 'problem_id'),
      project: str(o, 'project'),
      module: str(o, 'module'),
      entryPoint: str(o, 'entry_point'),
      prompt: str(o, 'target_function_prompt'),
      solution: str(o, 'solution'),
      checkTemplate: str(o, 'check_template'),
    };
    const missing = nullKeys(t);
    const testNames = o.test_names;
    if (!Array.isArray(testNames) || !testNames.every((x) => typeof x === 'string')) missing.push('test_names');
    if (missing.length) {
      warn('invalid-task', file, line, `task skipped: missing or mistyped ${missing.join(', ')}`);
      continue;
    }
    if (seen.has(t.taskId!)) {
      warn('duplicate-task', file, line, `task ${t.taskId} already read; line skipped`);
      continue;
    }
    seen.add(t.taskId!);
    const extra: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(o)) if (!KNOWN.has(k)) extra[k] = v;
    tasks.push({
      ...(t as Omit<InlineTask, 'placeholder' | 'testNames' | 'extra' | 'file' | 'line'>),
      placeholder: str(o, 'placeholder') ?? DEFAULT_PLACEHOLDER,
      testNames: testNames as string[],
      extra,
      file,
      line,
    });
  }
  return tasks;
}

function readSubsets(benchDir: string): Map<string, string[]> {
  const file = path.join(benchDir, SUBSETS_FILE);
  if (!fs.existsSync(file)) throw new RepoExecImportError(`Missing file ${file} (the named task subsets)`, file);
  let json: unknown;
  try {
    json = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (err) {
    throw new RepoExecImportError(`${file}: not valid JSON (${(err as Error).message})`, file);
  }
  const out = new Map<string, string[]>();
  if (!json || typeof json !== 'object' || Array.isArray(json)) throw new RepoExecImportError(`${file}: expected an object of subsets`, file);
  for (const [name, v] of Object.entries(json as Record<string, unknown>)) {
    const ids = (v as { task_ids?: unknown })?.task_ids;
    if (!Array.isArray(ids) || !ids.every((x) => typeof x === 'string')) {
      throw new RepoExecImportError(`${file}: subset ${name} has no task_ids list of strings`, file);
    }
    out.set(name, ids);
  }
  return out;
}

/** `test-apps/python-string-utils` → `python-string-utils`; `test-apps/black/src` → `black/src`. Null if unusable as a path. */
export function repoFolderForProject(project: string): string | null {
  const rel = project.replace(/^test-apps\//, '');
  const parts = rel.split('/');
  if (!rel || parts.some((p) => !/^[A-Za-z0-9._-]+$/.test(p) || p === '.' || p === '..')) return null;
  return parts.join('/');
}

/** CRLF and lone CR line endings → LF. */
export function normaliseNewlines(s: string): string {
  return s.replace(/\r\n?/g, '\n');
}

/**
 * Reads everything the import needs, so that bad input fails (or warns) before the output folder is
 * touched: the subsets (an unknown `subset` is an error), the rows by problem id, the inline tasks.
 */
export function readBench(benchDir: string, subset: string | undefined, warn: Warn): { subsets: Map<string, string[]>; rows: RawRow[]; inline: InlineTask[] } {
  const subsets = readSubsets(benchDir);
  if (subset !== undefined && !subsets.has(subset)) {
    throw new RepoExecImportError(`Unknown subset "${subset}"; ${SUBSETS_FILE} has: ${[...subsets.keys()].join(', ')}`, path.join(benchDir, SUBSETS_FILE));
  }
  const rows = readRows(benchDir, warn).sort((a, b) => a.problemId - b.problemId);
  const inline = readInline(benchDir, warn);
  return { subsets, rows, inline };
}
