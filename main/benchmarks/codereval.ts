// Imports CoderEval (Python; staged under shared/bench/codereval, see its SOURCE.md) into
//   <out>/repos/<_id>/...        one folder per runnable task (the record's file when it is known)
//   <out>/tasks.jsonl             one manifest line per runnable task (writeManifest), possibly none
//   <out>/metadata.jsonl          every CoderEval record: id, project, level, signature, requirement…
//   <out>/IMPORT.md               what became a task, and every record that did not, by reason
//
// The staged data has prompts (CEPythonRaw / CEPythonHumanLabel) and per-task metadata (project,
// file, level, ChatGPT samples with pass labels) but no tests: CoderEval's harness lives only in
// its Docker image. A record becomes a task only when its tests are supplied:
//   - a check template (`<name>_<_id>.py` in the templates folder, with a `<insert generated code
//     here>` marker and a printed `test_cases` dict of booleans) → a check_template task; or
//   - a record of the records file (CoderEval4Python.json shape) that carries `test_command` and
//     `file_content` (optionally `test_files`) → a repository task over a one-file repository.
// Every other record is listed in IMPORT.md with its reason, and all of them are in metadata.jsonl.

import fs from 'node:fs';
import path from 'node:path';
import { cleandoc, createExtractor, type Extractor } from '../index/extract.ts';
import type { ExtractedUnit } from '../model/code.ts';
import { DEFAULT_PLACEHOLDER, writeManifest, type TaskRecord } from './manifest.ts';
import { checkOutDir, checkRelPath, countBy, prepareOutDir, requirementFromSignature, writeRepoFiles, type Fail } from './import-out.ts';

// ---------------------------------------------------------------------------------------------
// Public API

/** File that marks an output folder as made by an opencoder importer (re-imports may replace it). */
export const CODEREVAL_BENCHMARK = 'codereval-python';
/** The marker CoderEval's test templates carry where the generated code goes. */
export const CODEREVAL_TEMPLATE_MARKER = '<insert generated code here>';
/** The test the importer appends to a template: every printed case must be True. */
export const CODEREVAL_TEMPLATE_TEST = 'test_codereval_cases';
export const CODEREVAL_TASK_PREFIX = 'codereval/';

export const PROMPT_FILES = {
  raw: 'CoderEval-Input4Models/CEPythonRaw.jsonl',
  human: 'CoderEval-Input4Models/CEPythonHumanLabel.jsonl',
} as const;
export const METADATA_FILE = 'experimental-results/GenerateResultPython/ChatGPT/Raw_Input.jsonl_out.jsonl';

export type DocstringVariant = 'raw' | 'human';

export class CoderEvalImportError extends Error {
  constructor(
    message: string,
    readonly file?: string,
  ) {
    super(message);
    this.name = 'CoderEvalImportError';
  }
}

export interface ImportWarning {
  /** Short machine-readable reason (`malformed-json`, `invalid-record`, `unsafe-path`, …). */
  reason: string;
  /** Input or output file the warning is about (absolute), with a 1-based line when known. */
  file: string;
  line?: number;
  message: string;
}

export interface CoderEvalDropped {
  reason: string;
  /** CoderEval `_id` (JSON-quoted when it is not a safe name). */
  id: string;
  name: string | null;
  project: string | null;
  level: string | null;
  message: string;
}

export interface CoderEvalImportOptions {
  /** The staged folder (CoderEval-Input4Models/, experimental-results/). */
  benchDir: string;
  outDir: string;
  /** A CoderEval4Python.json records file (JSON array, {"RECORDS": [...]}, or JSONL). */
  records?: string;
  /** Folder of test templates named `<name>_<_id>.py`. */
  templates?: string;
  /** Which docstrings become requirements: the original ones (default) or the human-written ones. */
  docstrings?: DocstringVariant;
  onWarning?: (w: ImportWarning) => void;
}

export interface CoderEvalImportResult {
  benchDir: string;
  outDir: string;
  manifestFile: string;
  metadataFile: string;
  reportFile: string;
  docstrings: DocstringVariant;
  inputs: { prompts: string | null; metadata: string | null; records: string | null; templates: string | null };
  counts: {
    records: number;
    tasks: number;
    templateTasks: number;
    repositoryTasks: number;
    dropped: number;
    templatesRead: number;
    withReference: number;
  };
  /** Records and tasks per CoderEval runnable level (`unknown` when no input names it). */
  levels: Record<string, { records: number; tasks: number }>;
  tasks: { id: string; level: string | null; shape: 'template' | 'repository' }[];
  dropped: Record<string, number>;
  droppedEntries: CoderEvalDropped[];
  warnings: ImportWarning[];
  warningCounts: Record<string, number>;
}

// ---------------------------------------------------------------------------------------------
// Small shared helpers

type Warn = (reason: string, file: string, line: number | undefined, message: string) => void;

interface Located {
  value: Record<string, unknown>;
  file: string;
  line: number;
}

/** Lines of a JSONL file; a line that is not a JSON object is a warning and is skipped. */
function readJsonl(file: string, text: string, warn: Warn): Located[] {
  const out: Located[] = [];
  text.split('\n').forEach((raw, i) => {
    if (!raw.trim()) return;
    let v: unknown;
    try {
      v = JSON.parse(raw);
    } catch (err) {
      warn('malformed-json', file, i + 1, `not valid JSON, line skipped (${(err as Error).message})`);
      return;
    }
    if (!v || typeof v !== 'object' || Array.isArray(v)) {
      warn('invalid-record', file, i + 1, 'not a JSON object, line skipped');
      return;
    }
    out.push({ value: v as Record<string, unknown>, file, line: i + 1 });
  });
  return out;
}

function readText(file: string): string {
  try {
    return fs.readFileSync(file, 'utf8').replace(/\r\n?/g, '\n');
  } catch (err) {
    throw new CoderEvalImportError(`Cannot read ${file}: ${(err as Error).message}`, file);
  }
}

/** A records file: one JSON document (array, or an object holding one array), else JSONL. */
function readRecordsFile(file: string, warn: Warn): Located[] {
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

function str(o: Record<string, unknown>, k: string): string | null {
  return typeof o[k] === 'string' ? (o[k] as string) : null;
}
function nonEmpty(o: Record<string, unknown>, k: string): string | null {
  const s = str(o, k);
  return s && s.trim() ? s : null;
}
function int(o: Record<string, unknown>, k: string): number | null {
  return typeof o[k] === 'number' && Number.isInteger(o[k]) ? (o[k] as number) : null;
}

const SAFE_NAME = /^[A-Za-z0-9_][A-Za-z0-9_.-]*$/;

export function mdEscape(s: string): string {
  return s.replace(/\|/g, '\\|').replace(/`/g, "'").replace(/\n/g, ' ⏎ ');
}

const failCoderEval: Fail = (message, file) => new CoderEvalImportError(message, file);

// ---------------------------------------------------------------------------------------------
// Check templates

export interface CheckProgram {
  template: string;
  placeholder: string;
}

const PRELUDE = [
  '# --- added by `opencoder import codereval`: the template reports its cases by printing a dict;',
  `# ${CODEREVAL_TEMPLATE_TEST} below requires every case of the last printed dict to be True.`,
  'import builtins as _opencoder_builtins',
  '_opencoder_printed = []',
  '',
  '',
  'def print(*args, **kwargs):',
  '    for _a in args:',
  '        if isinstance(_a, dict):',
  '            _opencoder_printed.append(dict(_a))',
  '    return _opencoder_builtins.print(*args, **kwargs)',
  '# --- end of the added prelude',
  '',
].join('\n');

const EPILOGUE = [
  '',
  '',
  '# --- added by `opencoder import codereval`: CoderEval passes a candidate when every printed case is True.',
  `def ${CODEREVAL_TEMPLATE_TEST}():`,
  '    if not _opencoder_printed:',
  '        raise AssertionError("the template printed no test_cases dict")',
  '    cases = _opencoder_printed[-1]',
  '    if not cases:',
  '        raise AssertionError("the template printed an empty test_cases dict")',
  '    failed = {k: v for k, v in cases.items() if v is not True}',
  '    if failed:',
  '        raise AssertionError("cases not True: %r" % (failed,))',
  '',
].join('\n');

const leadOf = (line: string) => /^[ \t]*/.exec(line)![0];

/**
 * Turns a CoderEval test template into a check program the validator runs: the marker becomes
 * DEFAULT_PLACEHOLDER (a comment, so the template parses) at the indentation of the code around
 * it, a prelude records what the template prints, and a test function asserts every printed
 * case is True. The template's own `if __name__ == "__main__":` runner stays: the validator runs
 * the program as `__main__`, so the cases are computed when it loads.
 */
export function checkProgramFromTemplate(text: string): CheckProgram | { error: string } {
  const src = text.replace(/\r\n?/g, '\n');
  const n = src.split(CODEREVAL_TEMPLATE_MARKER).length - 1;
  if (n === 0) return { error: `no ${CODEREVAL_TEMPLATE_MARKER} marker` };
  if (n > 1) return { error: `the ${CODEREVAL_TEMPLATE_MARKER} marker appears ${n} times` };
  if (src.includes(DEFAULT_PLACEHOLDER)) return { error: `the template already contains ${DEFAULT_PLACEHOLDER}` };
  if (!/\bprint\s*\(/.test(src)) return { error: 'the template prints nothing (no test_cases dict to check)' };
  const lines = src.split('\n');
  const at = lines.findIndex((l) => l.includes(CODEREVAL_TEMPLATE_MARKER));
  const markerLine = lines[at]!;
  if (markerLine.trim() !== CODEREVAL_TEMPLATE_MARKER) return { error: 'the marker shares its line with other code' };
  // Indentation: the marker's own, else the code's around it (a marker between two methods of a
  // class sits at column 0 in CoderEval's templates but belongs inside the class).
  let indent = leadOf(markerLine);
  if (!indent) {
    const isCode = (l: string) => l.trim() !== '' && !l.trim().startsWith('#');
    const prev = lines.slice(0, at).reverse().find(isCode);
    const next = lines.slice(at + 1).find(isCode);
    if (prev !== undefined && next !== undefined && leadOf(prev) && leadOf(next)) indent = leadOf(next);
  }
  lines[at] = indent + DEFAULT_PLACEHOLDER;
  // The prelude goes after `from __future__` imports, which must stay first.
  let insertAt = 0;
  for (let i = 0; i < lines.length; i++) {
    if (/^from\s+__future__\s+import\b/.test(lines[i]!)) {
      let j = i;
      if (lines[i]!.includes('(')) while (j < lines.length - 1 && !lines[j]!.includes(')')) j++;
      insertAt = j + 1;
    }
  }
  if (insertAt > at) return { error: 'the marker comes before the template’s `from __future__` imports' };
  const body = [...lines.slice(0, insertAt), PRELUDE, ...lines.slice(insertAt)].join('\n').replace(/\s+$/, '');
  return { template: body + '\n' + EPILOGUE, placeholder: DEFAULT_PLACEHOLDER };
}

interface TemplateFile {
  id: string;
  name: string;
  file: string;
  text: string;
}

/** `<name>_<_id>.py` files of a folder (not recursive). */
function readTemplates(dir: string, warn: Warn): TemplateFile[] {
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

interface Merged {
  id: string;
  /** Where the id was first seen (for warnings). */
  file: string;
  line: number;
  prompt?: { signature: string | null; docstring: string | null; input: string | null };
  meta?: { project: string | null; filePath: string | null; name: string | null; docstring: string | null; level: string | null; samples: number; passed: number };
  record?: Record<string, unknown>;
  recordLine?: number;
  template?: TemplateFile;
}

function mergeInto(all: Map<string, Merged>, rows: Located[], idKey: string, warn: Warn, apply: (m: Merged, row: Located) => void, has: (m: Merged) => boolean): void {
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

function findMetadataFile(benchDir: string): string | null {
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
function findTarget(ex: Extractor, file: string, source: string, name: string, lineno: number | null): ExtractedUnit | null {
  const units = ex
    .parse(file, 'python', source)
    .units.filter((u) => (u.kind === 'function' || u.kind === 'method') && u.name === name && !u.qualname.includes('<locals>'));
  if (lineno !== null) {
    const around = units.filter((u) => u.startLine <= lineno && lineno <= u.endLine).sort((a, b) => b.startLine - a.startLine);
    if (around[0]) return around[0];
  }
  return units[0] ?? null;
}

function testFilesOf(v: unknown): [string, string][] | null {
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

const DROP_REASONS: Record<string, string> = {
  'no-tests': 'No tests in the staged CoderEval data: the harness (per-task `*_passk_validte.py` files in the project checkouts) lives only in the Docker image. Supply a test template (`--templates`) or a record with `test_command` + `file_content` (`--records`) to make such a record runnable.',
  'bad-template': 'A test template exists but cannot become a check program (see each message).',
  'unsafe-path': 'The record names an id or a path that is absolute, contains `..` or could escape the output folder; nothing of it was written.',
  'incomplete-record': 'The record lacks what a task needs (a signature, a name, a file path for its test command, …).',
  'target-not-found': 'The record’s `file_content` does not define the target function, so the validator could not splice a candidate into it.',
};

// ---------------------------------------------------------------------------------------------
// The importer

interface Planned {
  task: TaskRecord & { repoPath: string };
  files: [string, string][];
  shape: 'template' | 'repository';
}

export async function importCoderEval(opts: CoderEvalImportOptions): Promise<CoderEvalImportResult> {
  const benchDir = path.resolve(opts.benchDir);
  const outDir = path.resolve(opts.outDir);
  const docstrings: DocstringVariant = opts.docstrings ?? 'raw';
  if (docstrings !== 'raw' && docstrings !== 'human') throw new CoderEvalImportError(`docstrings must be raw or human, not ${String(docstrings)}`);
  if (!fs.existsSync(benchDir) || !fs.statSync(benchDir).isDirectory()) {
    throw new CoderEvalImportError(`The bench folder ${benchDir} does not exist (expected the staged CoderEval folder with ${PROMPT_FILES.raw})`, benchDir);
  }
  const warnings: ImportWarning[] = [];
  const warn: Warn = (reason, file, line, message) => {
    const w: ImportWarning = line === undefined ? { reason, file, message } : { reason, file, line, message };
    warnings.push(w);
    opts.onWarning?.(w);
  };
  checkOutDir(outDir, 'codereval', failCoderEval); // fail fast on a foreign folder, before any work

  // Inputs.
  const promptsFile = path.join(benchDir, ...PROMPT_FILES[docstrings].split('/'));
  const recordsFile = opts.records ? path.resolve(opts.records) : null;
  const templatesDir = opts.templates ? path.resolve(opts.templates) : null;
  const havePrompts = fs.existsSync(promptsFile);
  if (!havePrompts && !recordsFile) {
    throw new CoderEvalImportError(`Missing ${promptsFile} (the ${docstrings} CoderEval prompts) and no --records file was given`, promptsFile);
  }
  if (!havePrompts) warn('missing-input', promptsFile, undefined, `no ${docstrings} prompts file; signatures and requirements come from the records file`);
  const metadataFile = findMetadataFile(benchDir);
  if (!metadataFile) warn('missing-input', path.join(benchDir, ...METADATA_FILE.split('/')), undefined, 'no Raw_Input.jsonl_out.jsonl; project, file and level come from the records file only');
  if (recordsFile && !fs.existsSync(recordsFile)) throw new CoderEvalImportError(`The records file ${recordsFile} does not exist`, recordsFile);

  const all = new Map<string, Merged>();
  if (havePrompts) {
    mergeInto(all, readJsonl(promptsFile, readText(promptsFile), warn), 'question_id', warn, (m, { value }) => {
      m.prompt = { signature: nonEmpty(value, 'signature'), docstring: str(value, 'docstring'), input: str(value, 'input') };
    }, (m) => !!m.prompt);
  }
  if (metadataFile) {
    mergeInto(all, readJsonl(metadataFile, readText(metadataFile), warn), '_id', warn, (m, { value }) => {
      const results = Array.isArray(value.generate_results) ? (value.generate_results as unknown[]) : [];
      m.meta = {
        project: nonEmpty(value, 'project'),
        filePath: nonEmpty(value, 'file_path'),
        name: nonEmpty(value, 'name'),
        docstring: str(value, 'docstring'),
        level: nonEmpty(value, 'level'),
        samples: results.length,
        passed: results.filter((r) => !!r && typeof r === 'object' && (r as Record<string, unknown>).is_pass === true).length,
      };
    }, (m) => !!m.meta);
  }
  if (recordsFile) {
    mergeInto(all, readRecordsFile(recordsFile, warn), '_id', warn, (m, { value, line }) => {
      m.record = value;
      m.recordLine = line;
    }, (m) => !!m.record);
  }
  const templates = templatesDir ? readTemplates(templatesDir, warn) : [];
  for (const t of templates) {
    const m = all.get(t.id);
    if (!m) {
      warn('template-without-record', t.file, undefined, `no CoderEval record has _id ${t.id}; template ignored`);
      continue;
    }
    m.template = t;
  }

  const ex = await createExtractor();
  try {
    const planned: Planned[] = [];
    const droppedEntries: CoderEvalDropped[] = [];
    const metadata: Record<string, unknown>[] = [];
    const levels: Record<string, { records: number; tasks: number }> = {};
    let withReference = 0;

    for (const m of all.values()) {
      const rec = m.record ?? {};
      const name = m.meta?.name ?? nonEmpty(rec, 'name') ?? m.template?.name ?? null;
      const project = m.meta?.project ?? nonEmpty(rec, 'project');
      const filePath = nonEmpty(rec, 'file_path') ?? m.meta?.filePath ?? null;
      const level = m.meta?.level ?? nonEmpty(rec, 'level');
      const signature = (m.prompt?.signature ?? nonEmpty(rec, 'signature'))?.trim() ?? null;
      const docRaw =
        m.prompt?.docstring ?? (docstrings === 'human' ? str(rec, 'human_label') : (str(rec, 'docstring') ?? m.meta?.docstring ?? null));
      const doc = docRaw && docRaw.trim() ? cleandoc(docRaw) : null;
      const requirement = doc ?? (signature ? requirementFromSignature(signature) : '');
      const reference = nonEmpty(rec, 'code');
      if (reference) withReference++;
      const taskId = `${CODEREVAL_TASK_PREFIX}${m.id}`;
      const lv = level ?? 'unknown';
      levels[lv] ??= { records: 0, tasks: 0 };
      levels[lv].records++;

      const drop = (reason: string, message: string): void => {
        droppedEntries.push({ reason, id: SAFE_NAME.test(m.id) ? m.id : JSON.stringify(m.id), name, project, level, message });
      };
      const plan = (): Planned | null => {
        if (!SAFE_NAME.test(m.id) || m.id.length > 200) {
          warn('unsafe-path', m.file, m.line || undefined, `record ${JSON.stringify(m.id)} refused: its _id cannot name a folder under repos/`);
          drop('unsafe-path', `_id ${JSON.stringify(m.id)} is not a safe folder name`);
          return null;
        }
        const testCommand = nonEmpty(rec, 'test_command');
        if (!testCommand && !m.template) {
          drop(
            'no-tests',
            recordsFile && m.record
              ? 'the record carries no test_command and no test template was given: CoderEval’s harness lives only in its Docker image'
              : 'no tests in the staged CoderEval data: the harness lives only in the Docker image',
          );
          return null;
        }
        if (!name || !signature) {
          drop('incomplete-record', `no ${!name ? 'name' : 'signature'} in any input`);
          return null;
        }
        // Files of the one-file repository: the record's module (when known) and its test files.
        const fileContent = str(rec, 'file_content');
        const files: [string, string][] = [];
        let file: string | null = null;
        if (filePath !== null) {
          const c = checkRelPath(filePath);
          if (!c.ok) {
            if (fileContent !== null || testCommand) {
              warn('unsafe-path', recordsFile ?? m.file, recordsFile ? m.recordLine || undefined : m.line || undefined, `record ${m.id} refused: file_path ${JSON.stringify(filePath)} ${c.why}`);
              drop('unsafe-path', `file_path ${JSON.stringify(filePath)} ${c.why}`);
              return null;
            }
          } else {
            file = c.path;
          }
        }
        if (fileContent !== null && file !== null) files.push([file, fileContent]);
        const source: Record<string, unknown> = {
          benchmark: CODEREVAL_BENCHMARK,
          _id: m.id,
          name,
          project,
          file_path: filePath,
          level,
          docstrings,
          requirement_source: doc ? 'docstring' : 'signature',
        };
        if (m.meta) source.chatgpt_samples = { n: m.meta.samples, passed: m.meta.passed };
        const repo = `repos/${m.id}`;
        const repoPath = path.join(outDir, 'repos', m.id);
        const lineno = int(rec, 'lineno');
        const target = fileContent !== null && file !== null ? findTarget(ex, file, fileContent, name, lineno) : null;

        if (testCommand) {
          if (fileContent === null || file === null) {
            drop('incomplete-record', `test_command given but no ${fileContent === null ? 'file_content' : 'file_path'} to build its repository from`);
            return null;
          }
          const tf = testFilesOf(rec.test_files);
          if (tf === null) {
            drop('incomplete-record', 'test_files is neither {path: content} nor [[path, content], …]');
            return null;
          }
          for (const [p, content] of tf) {
            const c = checkRelPath(p);
            if (!c.ok) {
              warn('unsafe-path', recordsFile!, m.recordLine || undefined, `record ${m.id} refused: test file ${JSON.stringify(p)} ${c.why}`);
              drop('unsafe-path', `test file ${JSON.stringify(p)} ${c.why}`);
              return null;
            }
            if (files.some(([q]) => q === c.path || q.startsWith(`${c.path}/`) || c.path.startsWith(`${q}/`))) {
              drop('incomplete-record', `test file ${c.path} collides with another file of the repository`);
              return null;
            }
            files.push([c.path, content]);
          }
          if (!target) {
            drop('target-not-found', `${name} is not defined in the record's file_content (${file})`);
            return null;
          }
          const tests = Array.isArray(rec.tests) && rec.tests.every((t) => typeof t === 'string') ? (rec.tests as string[]) : undefined;
          source.tests_from = 'test_command';
          if (m.template) source.template_file = path.basename(m.template.file);
          return {
            shape: 'repository',
            files,
            task: {
              id: taskId,
              repo,
              repoPath,
              file,
              qualname: target.qualname,
              requirement,
              signature,
              ...(reference ? { reference } : {}),
              test_command: testCommand,
              ...(tests ? { tests } : {}),
              source,
            },
          };
        }

        const t = m.template!;
        if (t.name !== name) warn('template-name-mismatch', t.file, undefined, `template is named ${t.name} but record ${m.id} is ${name}; used anyway`);
        const prog = checkProgramFromTemplate(t.text);
        if ('error' in prog) {
          drop('bad-template', `${path.basename(t.file)}: ${prog.error}`);
          return null;
        }
        const parsed = ex.parse('template.py', 'python', prog.template);
        if (parsed.errors.length) {
          const e = parsed.errors[0]!;
          drop('bad-template', `${path.basename(t.file)} does not parse (line ${e.line}: ${e.message})`);
          return null;
        }
        source.tests_from = 'template';
        source.template_file = path.basename(t.file);
        return {
          shape: 'template',
          files,
          task: {
            id: taskId,
            repo,
            repoPath,
            file: file ?? `${name}.py`,
            qualname: target?.qualname ?? name,
            requirement,
            signature,
            ...(reference ? { reference } : {}),
            check_template: prog.template,
            placeholder: prog.placeholder,
            tests: [CODEREVAL_TEMPLATE_TEST],
            source,
          },
        };
      };
      const p = plan();
      if (p) {
        planned.push(p);
        levels[lv].tasks++;
      }
      const dropped = p ? null : droppedEntries[droppedEntries.length - 1]!;
      metadata.push({
        id: taskId,
        _id: m.id,
        name,
        project,
        file_path: filePath,
        level,
        signature,
        requirement,
        requirement_source: doc ? 'docstring' : 'signature',
        docstrings,
        has_reference: !!reference,
        has_template: !!m.template,
        ...(m.meta ? { chatgpt_samples: { n: m.meta.samples, passed: m.meta.passed } } : {}),
        task: p ? taskId : null,
        dropped: dropped ? { reason: dropped.reason, message: dropped.message } : null,
      });
    }

    const result: CoderEvalImportResult = {
      benchDir,
      outDir,
      manifestFile: path.join(outDir, 'tasks.jsonl'),
      metadataFile: path.join(outDir, 'metadata.jsonl'),
      reportFile: path.join(outDir, 'IMPORT.md'),
      docstrings,
      inputs: { prompts: havePrompts ? promptsFile : null, metadata: metadataFile, records: recordsFile, templates: templatesDir },
      counts: {
        records: all.size,
        tasks: planned.length,
        templateTasks: planned.filter((p) => p.shape === 'template').length,
        repositoryTasks: planned.filter((p) => p.shape === 'repository').length,
        dropped: droppedEntries.length,
        templatesRead: templates.length,
        withReference,
      },
      levels: Object.fromEntries(Object.entries(levels).sort(([a], [b]) => a.localeCompare(b))),
      tasks: planned.map((p) => ({ id: p.task.id, level: (p.task.source?.level as string | null) ?? null, shape: p.shape })),
      dropped: countBy(droppedEntries, (d) => d.reason),
      droppedEntries,
      warnings,
      warningCounts: countBy(warnings, (w) => w.reason),
    };

    // Write.
    prepareOutDir(outDir, 'codereval', ['repos', 'tasks.jsonl', 'metadata.jsonl', 'IMPORT.md'], failCoderEval);
    for (const p of planned) writeRepoFiles(p.task.repoPath, p.files);
    writeManifest(result.manifestFile, planned.map((p) => p.task));
    fs.writeFileSync(result.metadataFile, metadata.map((x) => JSON.stringify(x)).join('\n') + (metadata.length ? '\n' : ''));
    fs.writeFileSync(result.reportFile, renderReport(result));
    return result;
  } finally {
    ex.dispose();
  }
}

// ---------------------------------------------------------------------------------------------
// IMPORT.md

function renderReport(r: CoderEvalImportResult): string {
  const c = r.counts;
  const L: string[] = [];
  const shown = (f: string) => (f.startsWith(r.outDir + path.sep) ? `<out>/${path.relative(r.outDir, f).split(path.sep).join('/')}` : f);
  L.push('# CoderEval (Python) import', '');
  L.push(`Made by \`opencoder import codereval\` from \`${r.benchDir}\` (requirements from the ${r.docstrings === 'human' ? 'human-written' : 'original'} docstrings).`);
  L.push('Re-running the importer into this folder replaces `repos/`, `tasks.jsonl`, `metadata.jsonl` and this file.', '');
  L.push('## Inputs', '');
  L.push(`- prompts: ${r.inputs.prompts ? `\`${r.inputs.prompts}\`` : 'none'}`);
  L.push(`- metadata (project, file, level, ChatGPT samples): ${r.inputs.metadata ? `\`${r.inputs.metadata}\`` : 'none'}`);
  L.push(`- records file: ${r.inputs.records ? `\`${r.inputs.records}\`` : 'none (CoderEval4Python.json is not staged)'}`);
  L.push(`- test templates: ${r.inputs.templates ? `\`${r.inputs.templates}\` (${c.templatesRead} read)` : 'none'}`, '');
  L.push('## Totals', '');
  L.push(`- records: ${c.records} (all of them in metadata.jsonl); with a reference solution: ${c.withReference}`);
  L.push(`- tasks in tasks.jsonl: ${c.tasks} (${c.templateTasks} check-template, ${c.repositoryTasks} repository + test_command)`);
  L.push(`- not runnable: ${c.dropped}${c.dropped ? ` (${Object.entries(r.dropped).map(([k, v]) => `${k} ${v}`).join(', ')})` : ''}`);
  L.push(`- accounted for: ${c.tasks} + ${c.dropped} = ${c.tasks + c.dropped} of ${c.records}`);
  L.push(`- warnings: ${Object.entries(r.warningCounts).map(([k, v]) => `${k} ${v}`).join(', ') || 'none'}`, '');
  L.push('## Levels', '');
  L.push('| level | records | tasks |', '| --- | ---: | ---: |');
  for (const [lv, n] of Object.entries(r.levels)) L.push(`| ${lv} | ${n.records} | ${n.tasks} |`);
  L.push('', '## Tasks', '');
  if (!r.tasks.length) L.push('None: no record carries its tests (see below).');
  for (const t of r.tasks) L.push(`- \`${t.id}\` (${t.level ?? 'level unknown'}): ${t.shape === 'template' ? 'check template' : 'repository + test_command'}`);
  L.push('', '## How tasks are made', '');
  L.push(
    '- A test template `<name>_<_id>.py` becomes a `check_template`: its `<insert generated code here>` marker becomes',
    `  \`${DEFAULT_PLACEHOLDER}\` at the indentation of the code around it, a prelude records every dict the program prints,`,
    `  and an appended \`${CODEREVAL_TEMPLATE_TEST}\` requires every case of the last printed dict to be True (CoderEval's criterion).`,
    '  The template runs as `__main__`, so its own runner computes the cases when the program loads.',
    '- A record with `test_command` and `file_content` becomes a repository task over `repos/<_id>/<file_path>` (plus its',
    '  `test_files`); the target is the def named by the record at its `lineno`.',
    '- Template tasks get `repos/<_id>/` with the record’s `file_content` when the records file has it, else an empty folder:',
    '  the module around the target is then only in the check template.',
    '',
  );
  L.push('## Not runnable, by reason', '');
  if (!r.droppedEntries.length) L.push('None.', '');
  for (const [reason, n] of Object.entries(r.dropped)) {
    L.push(`### ${reason} (${n})`, '', DROP_REASONS[reason] ?? '', '');
    for (const d of r.droppedEntries.filter((x) => x.reason === reason)) {
      L.push(`- \`${mdEscape(d.id)}\` ${d.name ? `\`${mdEscape(d.name)}\`` : '(no name)'} — ${d.project ? mdEscape(d.project) : 'project unknown'}, ${d.level ?? 'level unknown'}: ${mdEscape(d.message)}`);
    }
    L.push('');
  }
  L.push('## Warnings', '');
  if (!r.warnings.length) L.push('None.');
  for (const w of r.warnings) L.push(`- ${w.reason}: ${shown(w.file)}${w.line ? `:${w.line}` : ''}: ${mdEscape(w.message)}`);
  L.push('');
  return L.join('\n');
}
