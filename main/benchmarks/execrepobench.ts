// Imports ExecRepoBench records (format in shared/bench/execrepobench/SOURCE.md) into
//   <out>/repos/<safe name>/...  one folder per task: the sample's context files plus its masked
//                                file put back together (prefix + middle + suffix)
//   <out>/tasks.jsonl            one manifest line per record that carries a way to run its tests
//   <out>/IMPORT.md              what became a task, and every record that did not, by reason
//
// A record is { repo_name, file_name, prefix_code, middle_code, suffix_code, context_code:
// [[path, content], …], fill_type, task_id? }. Its target is the innermost def around the middle
// span that the validator can address (a function, or a method of classes nested only in classes;
// a def nested in a function gives way to the function around it). A record is a task only when it
// carries a way to run tests: a `test_command` field, or an `evaluate_repo.py` among its context
// files (ExecRepoBench's own runner, run as `python3 evaluate_repo.py`). Every path from a record
// is checked before anything is written: an absolute path, `..` or anything that could escape the
// output folder refuses the whole record.

import fs from 'node:fs';
import path from 'node:path';
import { createExtractor, type Extractor } from '../index/extract.ts';
import { parseTestCommand } from '../validate/task-plan.ts';
import {
  checkOutDir,
  checkRelPath,
  collectWarnings,
  countBy,
  droppedSection,
  mdEscape,
  warningsSection,
  jsonlObjects,
  prepareOutDir,
  requirementFromSignature,
  writeRepoFiles,
  type ImportWarning,
  type Warn,
} from './import-out.ts';
import { writeManifest } from './manifest-file.ts';
import type { TaskRecord } from '../model/task.ts';
import { OpenCoderError } from '../model/errors.ts';
import { counts } from '../model/format.ts';

export type { ImportWarning } from './import-out.ts';

export const EXECREPOBENCH_BENCHMARK = 'execrepobench';
/** The runner ExecRepoBench puts at each repository's root. */
export const EVALUATE_REPO = 'evaluate_repo.py';
export const EVALUATE_REPO_COMMAND = 'python3 evaluate_repo.py';

export class ExecRepoBenchImportError extends OpenCoderError {
  constructor(
    message: string,
    readonly file?: string,
  ) {
    super('invalid-input', message);
  }
}

const fail = (message: string, file: string) => new ExecRepoBenchImportError(message, file);

export interface ExecRepoBenchDropped {
  reason: string;
  /** The task id the record would have had (JSON-quoted when it is odd). */
  id: string;
  /** 1-based line of the record in the input file (0 for a record of a JSON array). */
  line: number;
  repo: string | null;
  file: string | null;
  message: string;
}

export interface ExecRepoBenchImportOptions {
  /** The records: JSONL (one record a line) or a JSON array. */
  recordsFile: string;
  outDir: string;
  onWarning?: (w: ImportWarning) => void;
}

export interface ExecRepoBenchImportResult {
  recordsFile: string;
  outDir: string;
  manifestFile: string;
  reportFile: string;
  counts: {
    /** Records read (JSON objects; lines that are not JSON are warnings only). */
    records: number;
    tasks: number;
    dropped: number;
    /** Files written under repos/. */
    files: number;
    /** Lines that are not JSON objects. */
    malformed: number;
  };
  byFillType: Record<string, { records: number; tasks: number }>;
  tasks: { id: string; repo: string; file: string; qualname: string; testCommand: string; testSource: 'test_command' | 'evaluate_repo.py' }[];
  /** Task ids whose test command the validator cannot run yet (it runs unittest and pytest only). */
  unsupportedCommands: { id: string; command: string; why: string }[];
  dropped: Record<string, number>;
  droppedEntries: ExecRepoBenchDropped[];
  warnings: ImportWarning[];
  warningCounts: Record<string, number>;
}

const DROP_REASONS: Record<string, string> = {
  'invalid-record':
    'The record lacks a required field or has one of the wrong type (repo_name, file_name, prefix_code, middle_code, suffix_code, context_code).',
  'duplicate-id': 'Another record already has this task id; the first one is kept.',
  'unsafe-path':
    'A path of the record (file_name or a context_code path) is absolute, contains `..` or could escape the output folder; nothing of the record was written.',
  'path-conflict': 'Two paths of the record cannot both exist (a file where another path needs a folder).',
  'not-python': 'The masked file is not a Python file.',
  'no-tests':
    'The record carries no `test_command` and its context has no `evaluate_repo.py`: ExecRepoBench runs its tests in per-repository environments that are not distributed.',
  'unparseable-file': 'The masked file, put back together, does not parse as Python.',
  'no-enclosing-function': 'The middle span is not inside a function or method (module- or class-level code), so there is no target function to generate.',
};

interface Located {
  value: Record<string, unknown>;
  line: number;
}

function readRecords(file: string, warn: Warn): Located[] {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    throw new ExecRepoBenchImportError(`Cannot read ${file}: ${(err as Error).message}`, file);
  }
  const out: Located[] = [];
  const trimmed = text.trimStart();
  if (trimmed.startsWith('[')) {
    let arr: unknown;
    try {
      arr = JSON.parse(text);
    } catch (err) {
      throw new ExecRepoBenchImportError(`${file}: starts like a JSON array but does not parse (${(err as Error).message})`, file);
    }
    (arr as unknown[]).forEach((v, i) => {
      if (!v || typeof v !== 'object' || Array.isArray(v)) warn('malformed-record', file, undefined, `element #${i + 1} is not a JSON object, skipped`);
      else out.push({ value: v as Record<string, unknown>, line: 0 });
    });
    return out;
  }
  out.push(...jsonlObjects(file, text, warn, 'malformed-record'));
  return out;
}

/** [[path, content], …] (or [{path, content}, …]); null when it has another shape. */
function contextOf(v: unknown): [unknown, string][] | null {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) return null;
  const out: [unknown, string][] = [];
  for (const e of v) {
    if (Array.isArray(e) && e.length >= 2 && typeof e[1] === 'string') out.push([e[0], e[1]]);
    else if (e && typeof e === 'object' && !Array.isArray(e) && typeof (e as Record<string, unknown>).content === 'string') {
      const o = e as Record<string, unknown>;
      out.push([o.path ?? o.file_path ?? o.name, o.content as string]);
    } else return null;
  }
  return out;
}

/** A folder name from a task id: safe characters only, never `.`/`..`, unique (case-insensitively). */
function folderFor(id: string, taken: Set<string>): string {
  let base =
    id
      .replace(/[^A-Za-z0-9._-]+/g, '_')
      .replace(/^[._-]+/, '')
      .slice(0, 120) || 'task';
  if (base === '.' || base === '..') base = 'task';
  let name = base;
  for (let k = 2; taken.has(name.toLowerCase()); k++) name = `${base}-${k}`;
  taken.add(name.toLowerCase());
  return name;
}

function lineCount(s: string): number {
  let n = 0;
  for (let i = s.indexOf('\n'); i >= 0; i = s.indexOf('\n', i + 1)) n++;
  return n;
}

/** Removes the first line's indentation from every line that starts with it. */
function dedentBlock(lines: string[]): string {
  const lead = /^[ \t]*/.exec(lines[0] ?? '')![0];
  return lines.map((l) => (lead && l.startsWith(lead) ? l.slice(lead.length) : l)).join('\n');
}

interface Target {
  qualname: string;
  signature: string;
  requirement: string;
  requirementSource: 'docstring' | 'signature';
  reference: string;
  startLine: number;
  endLine: number;
}

/** The innermost def around lines [s, e] that the validator can address; null when none is. */
function targetAround(ex: Extractor, file: string, source: string, s: number, e: number): Target | null {
  const units = ex
    .parse(file, 'python', source)
    .units.filter((u) => (u.kind === 'function' || u.kind === 'method') && !u.qualname.includes('<locals>') && u.startLine <= s && u.endLine >= e)
    .sort((a, b) => b.startLine - a.startLine || a.endLine - b.endLine);
  const u = units[0];
  if (!u) return null;
  const lines = source.split('\n').slice(u.startLine - 1, u.endLine);
  const decorators = u.decorators.map((d) => (d.startsWith('@') ? d : `@${d}`));
  const signature = [...decorators, `${u.signature}:`].join('\n');
  const doc = u.docstring?.trim() || null;
  return {
    qualname: u.qualname,
    signature,
    requirement: doc ?? requirementFromSignature(signature),
    requirementSource: doc ? 'docstring' : 'signature',
    reference: dedentBlock(lines).replace(/\s+$/, '') + '\n',
    startLine: u.startLine,
    endLine: u.endLine,
  };
}

interface Planned {
  task: TaskRecord & { repoPath: string };
  files: Map<string, string>;
}

/** What planning every record collects, and the ids and folders already taken. */
interface Planning {
  planned: Planned[];
  droppedEntries: ExecRepoBenchDropped[];
  byFill: Record<string, { records: number; tasks: number }>;
  ids: Set<string>;
  folders: Set<string>;
  unsupportedCommands: ExecRepoBenchImportResult['unsupportedCommands'];
}

export async function importExecRepoBench(opts: ExecRepoBenchImportOptions): Promise<ExecRepoBenchImportResult> {
  const recordsFile = path.resolve(opts.recordsFile);
  const outDir = path.resolve(opts.outDir);
  if (!fs.existsSync(recordsFile) || !fs.statSync(recordsFile).isFile()) {
    throw new ExecRepoBenchImportError(
      `The records file ${recordsFile} does not exist (expected ExecRepoBench JSONL: repo_name, file_name, prefix_code, middle_code, suffix_code, context_code, …)`,
      recordsFile,
    );
  }
  const { warnings, warn } = collectWarnings(opts.onWarning);
  checkOutDir(outDir, 'execrepobench', fail);
  const records = readRecords(recordsFile, warn);
  const malformed = warnings.length;

  const ex = await createExtractor();
  try {
    const st: Planning = { planned: [], droppedEntries: [], byFill: {}, ids: new Set(), folders: new Set(), unsupportedCommands: [] };
    const env: PlanEnv = { ex, recordsFile, outDir, warn };
    records.forEach((r, index) => planRecord(env, st, r, index));
    const { planned, droppedEntries } = st;
    const result: ExecRepoBenchImportResult = {
      recordsFile,
      outDir,
      manifestFile: path.join(outDir, 'tasks.jsonl'),
      reportFile: path.join(outDir, 'IMPORT.md'),
      counts: {
        records: records.length,
        tasks: planned.length,
        dropped: droppedEntries.length,
        files: planned.reduce((a, p) => a + p.files.size, 0),
        malformed,
      },
      byFillType: Object.fromEntries(Object.entries(st.byFill).sort(([a], [b]) => a.localeCompare(b))),
      tasks: planned.map(({ task: t }) => ({
        id: t.id,
        repo: t.repo,
        file: t.file,
        qualname: t.qualname,
        testCommand: t.test_command!,
        testSource: t.source!.test_source as 'test_command' | 'evaluate_repo.py',
      })),
      unsupportedCommands: st.unsupportedCommands,
      dropped: countBy(droppedEntries, (d) => d.reason),
      droppedEntries,
      warnings,
      warningCounts: countBy(warnings, (w) => w.reason),
    };

    prepareOutDir(outDir, 'execrepobench', ['repos', 'tasks.jsonl', 'IMPORT.md'], fail);
    for (const p of planned) writeRepoFiles(p.task.repoPath, p.files);
    writeManifest(
      result.manifestFile,
      planned.map((p) => p.task),
    );
    fs.writeFileSync(result.reportFile, renderReport(result));
    return result;
  } finally {
    ex.dispose();
  }
}

// ---------------------------------------------------------------------------------------------
// Planning one record

interface PlanEnv {
  ex: Extractor;
  recordsFile: string;
  outDir: string;
  warn: Warn;
}

/** One record as the planning steps see it: its fields, how it is named in messages, how to drop it. */
interface RecordAt {
  o: Record<string, unknown>;
  line: number;
  /** The line for a warning (undefined for a record of a JSON array). */
  at: number | undefined;
  id: string;
  shownId: string;
  repoName: string | null;
  fileName: string | null;
  /** Records why the record is not a task; returns null so a step can `return drop(…)`. */
  drop: (reason: string, message: string) => null;
}

/** The record's files, every path checked: the masked file put back together, then its context. */
interface RecordFiles {
  targetPath: string;
  files: Map<string, string>;
  /** Context entries that were the masked file itself (its put-together text wins). */
  skippedContext: number;
}

function planRecord(env: PlanEnv, st: Planning, { value: o, line }: Located, index: number): void {
  const rawId = o.task_id;
  const id = typeof rawId === 'string' && rawId.trim() ? rawId.trim() : typeof rawId === 'number' ? String(rawId) : `execrepobench-${line || index + 1}`;
  const fill = typeof o.fill_type === 'string' && o.fill_type ? o.fill_type : 'unknown';
  st.byFill[fill] ??= { records: 0, tasks: 0 };
  st.byFill[fill].records++;
  const repoName = typeof o.repo_name === 'string' ? o.repo_name : null;
  const fileName = typeof o.file_name === 'string' ? o.file_name : null;
  const shownId = /^[\x21-\x7e]+$/.test(id) && !id.includes('`') ? id : JSON.stringify(id);
  const r: RecordAt = {
    o,
    line,
    at: line || undefined,
    id,
    shownId,
    repoName,
    fileName,
    drop: (reason, message) => {
      st.droppedEntries.push({ reason, id: shownId, line, repo: repoName, file: fileName, message });
      return null;
    },
  };
  const p = planTask(env, st, r);
  if (!p) return;
  st.planned.push(p);
  st.byFill[fill].tasks++;
}

/** The task a record becomes, or null once it has been dropped (and warned about) for a reason. */
function planTask(env: PlanEnv, st: Planning, r: RecordAt): Planned | null {
  const { ex, recordsFile, warn } = env;
  const { o, id, shownId, drop } = r;
  const context = checkShape(env, r);
  if (!context) return null;
  if (st.ids.has(id)) {
    warn('duplicate-id', recordsFile, r.at, `task id ${shownId} appears again; this record is skipped`);
    return drop('duplicate-id', `task id ${shownId} already used by an earlier record`);
  }
  st.ids.add(id);
  const rf = recordFiles(env, r, context);
  if (!rf) return null;
  const { targetPath, files } = rf;
  if (!/\.pyi?$/.test(targetPath)) return drop('not-python', `${targetPath} is not a .py file`);

  const testCommand = typeof o.test_command === 'string' && o.test_command.trim() ? o.test_command.trim() : null;
  const testSource = testCommand ? 'test_command' : files.has(EVALUATE_REPO) ? 'evaluate_repo.py' : null;
  if (!testSource) return drop('no-tests', `no test_command and no ${EVALUATE_REPO} among ${context.length} context files`);

  const source = files.get(targetPath)!;
  const parsed = ex.parse(targetPath, 'python', source);
  if (parsed.errors.length) {
    const e = parsed.errors[0]!;
    return drop('unparseable-file', `${targetPath}:${e.line}: ${e.message}`);
  }
  const prefix = o.prefix_code as string;
  const middle = o.middle_code as string;
  const s = lineCount(prefix) + 1;
  const e = middle ? lineCount(prefix + middle.replace(/\n$/, '')) + 1 : s;
  const t = targetAround(ex, targetPath, source, s, e);
  if (!t) return drop('no-enclosing-function', `lines ${s}-${e} of ${targetPath} are not inside a function or method`);
  const command = testCommand ?? EVALUATE_REPO_COMMAND;
  try {
    parseTestCommand(command, id);
  } catch (err) {
    // A manifest with such a task would be refused when loaded: list it instead of writing it.
    st.unsupportedCommands.push({ id, command, why: (err as Error).message });
    return drop('unsupported-test-command', `its test command \`${command}\` cannot be validated: the validator runs unittest and pytest commands only`);
  }
  const folder = folderFor(id, st.folders);
  return { files, task: taskRecord(r, rf, t, { command, testSource, lines: [s, e], repoPath: path.join(env.outDir, 'repos', folder), folder }) };
}

/** The record's context when its fields have the right types; else null (warned and dropped). */
function checkShape(env: PlanEnv, r: RecordAt): [unknown, string][] | null {
  const { o } = r;
  const missing = ['repo_name', 'file_name', 'prefix_code', 'middle_code', 'suffix_code'].filter((k) => typeof o[k] !== 'string');
  const context = contextOf(o.context_code);
  if (!missing.length && context && (o.test_command === undefined || typeof o.test_command === 'string')) return context;
  const why = missing.length
    ? `missing or not a string: ${missing.join(', ')}`
    : !context
      ? 'context_code is not a list of [path, content]'
      : 'test_command is not a string';
  env.warn('invalid-record', env.recordsFile, r.at, `record ${r.shownId}: ${why}; skipped`);
  return r.drop('invalid-record', why);
}

/** Every path of the record checked before any is used; null when one is refused or two clash. */
function recordFiles(env: PlanEnv, r: RecordAt, context: [unknown, string][]): RecordFiles | null {
  const { recordsFile, warn } = env;
  const refuse = (what: string, p: unknown, why: string): null => {
    const shownPath = typeof p === 'string' ? JSON.stringify(p) : String(p);
    warn('unsafe-path', recordsFile, r.at, `record ${r.shownId} (${r.repoName}) refused: ${what} ${shownPath} ${why}`);
    return r.drop('unsafe-path', `${what} ${shownPath} ${why}`);
  };
  const target = checkRelPath(r.fileName);
  if (!target.ok) return refuse('file_name', r.fileName, target.why);
  const { o } = r;
  const files = new Map<string, string>([[target.path, (o.prefix_code as string) + (o.middle_code as string) + (o.suffix_code as string)]]);
  let skippedContext = 0;
  for (const [p, content] of context) {
    const c = checkRelPath(p);
    if (!c.ok) return refuse('context_code path', p, c.why);
    if (c.path === target.path) {
      skippedContext++; // the masked file itself: its put-together text wins
      continue;
    }
    if (files.has(c.path)) {
      if (files.get(c.path) !== content)
        warn(
          'duplicate-context-path',
          recordsFile,
          r.at,
          `record ${r.shownId}: ${c.path} appears twice in context_code with different contents; the first is kept`,
        );
      continue;
    }
    files.set(c.path, content);
  }
  const all = [...files.keys()];
  const clash = all.find((a) => all.some((b) => b !== a && b.startsWith(`${a}/`)));
  if (clash) return r.drop('path-conflict', `${clash} is a file but another path of the record puts files inside it`);
  return { targetPath: target.path, files, skippedContext };
}

/** The manifest line of a planned record. */
function taskRecord(
  r: RecordAt,
  rf: RecordFiles,
  t: Target,
  run: { command: string; testSource: string; lines: [number, number]; repoPath: string; folder: string },
): Planned['task'] {
  const { o } = r;
  const rawId = o.task_id;
  const tests = Array.isArray(o.tests) && o.tests.every((x) => typeof x === 'string') ? o.tests : undefined;
  return {
    id: r.id,
    repo: `repos/${run.folder}`,
    repoPath: run.repoPath,
    file: rf.targetPath,
    qualname: t.qualname,
    requirement: t.requirement,
    signature: t.signature,
    reference: t.reference,
    test_command: run.command,
    ...(tests ? { tests } : {}),
    source: {
      benchmark: EXECREPOBENCH_BENCHMARK,
      ...(rawId !== undefined ? { task_id: rawId } : {}),
      repo_name: r.repoName,
      file_name: r.fileName,
      fill_type: typeof o.fill_type === 'string' ? o.fill_type : null,
      record_line: r.line || null,
      middle_lines: run.lines,
      target_lines: [t.startLine, t.endLine],
      middle_code: o.middle_code as string,
      test_source: run.testSource,
      context_files: rf.files.size - 1,
      ...(rf.skippedContext ? { context_masked_file_skipped: rf.skippedContext } : {}),
      requirement_source: t.requirementSource,
    },
  };
}

// ---------------------------------------------------------------------------------------------
// IMPORT.md

function renderReport(r: ExecRepoBenchImportResult): string {
  const c = r.counts;
  const L: string[] = [];
  L.push('# ExecRepoBench import', '');
  L.push(`Made by \`opencoder import execrepobench\` from \`${r.recordsFile}\`.`);
  L.push('Re-running the importer into this folder replaces `repos/`, `tasks.jsonl` and this file.', '');
  L.push('## Totals', '');
  L.push(`- records read: ${c.records}; lines that are not JSON objects: ${c.malformed}`);
  L.push(`- tasks in tasks.jsonl: ${c.tasks} (${c.files} files written under repos/)`);
  L.push(`- not runnable: ${c.dropped}${c.dropped ? ` (${counts(r.dropped)})` : ''}`);
  L.push(`- accounted for: ${c.tasks} + ${c.dropped} = ${c.tasks + c.dropped} of ${c.records} records`);
  L.push(`- warnings: ${counts(r.warningCounts)}`, '');
  L.push('## Fill types', '');
  L.push('| fill_type | records | tasks |', '| --- | ---: | ---: |');
  for (const [k, n] of Object.entries(r.byFillType)) L.push(`| ${mdEscape(k)} | ${n.records} | ${n.tasks} |`);
  L.push('', '## Tasks', '');
  if (!r.tasks.length) L.push('None: no record carries a way to run its tests (see below).');
  for (const t of r.tasks) L.push(`- \`${mdEscape(t.id)}\`: ${t.repo}/${t.file} \`${t.qualname}\` — \`${mdEscape(t.testCommand)}\` (from ${t.testSource})`);
  if (r.unsupportedCommands.length) {
    L.push('', '### Test commands the validator cannot run yet', '');
    L.push('The validator needs per-test evidence and runs `python3 -m unittest …` or `pytest …` only, so a manifest naming another');
    L.push('command is refused when it is loaded; these records were left out of tasks.jsonl (see `unsupported-test-command` below).', '');
    for (const u of r.unsupportedCommands) L.push(`- \`${mdEscape(u.id)}\`: \`${mdEscape(u.command)}\``);
  }
  L.push('', '## How tasks are made', '');
  L.push(
    '- The repository is the record’s `context_code` files plus its masked file put back together (prefix + middle + suffix).',
    '- The target is the innermost def around the middle span that the validator can address: a function, or a method of',
    '  classes nested only in classes (a def nested in a function gives way to the function around it). Its full source is',
    '  the reference; its docstring (else a sentence from its signature) is the requirement.',
    `- Tests: the record's \`test_command\`, else \`${EVALUATE_REPO_COMMAND}\` when \`${EVALUATE_REPO}\` is among its context files.`,
    '',
  );
  L.push(
    ...droppedSection(
      r.dropped,
      r.droppedEntries,
      DROP_REASONS,
      (d) =>
        `- \`${mdEscape(d.id)}\`${d.line ? ` (line ${d.line})` : ''} ${d.repo ? mdEscape(d.repo) : 'repo unknown'}${d.file ? ` \`${mdEscape(d.file)}\`` : ''}: ${mdEscape(d.message)}`,
    ),
  );
  L.push(...warningsSection(r.warnings));
  return L.join('\n');
}
