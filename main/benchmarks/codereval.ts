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
import { writeManifest } from './manifest-file.ts';
import type { TaskRecord } from '../model/task.ts';
import {
  checkOutDir,
  checkRelPath,
  collectWarnings,
  countBy,
  prepareOutDir,
  requirementFromSignature,
  writeRepoFiles,
  type ImportWarning,
  type Warn,
} from './import-out.ts';
import { CODEREVAL_TEMPLATE_TEST, checkProgramFromTemplate } from './codereval-template.ts';
import { renderReport } from './codereval-report.ts';
import {
  CoderEvalImportError,
  type DocstringVariant,
  failCoderEval,
  findMetadataFile,
  findTarget,
  int,
  type Merged,
  mergeInto,
  METADATA_FILE,
  nonEmpty,
  readJsonl,
  readRecordsFile,
  readTemplates,
  readText,
  SAFE_NAME,
  str,
  type TemplateFile,
  testFilesOf,
} from './codereval-inputs.ts';

export { CODEREVAL_TEMPLATE_MARKER, CODEREVAL_TEMPLATE_TEST, checkProgramFromTemplate, type CheckProgram } from './codereval-template.ts';

// ---------------------------------------------------------------------------------------------
// Public API

/** File that marks an output folder as made by an opencoder importer (re-imports may replace it). */
export const CODEREVAL_BENCHMARK = 'codereval-python';
export const CODEREVAL_TASK_PREFIX = 'codereval/';

export const PROMPT_FILES = {
  raw: 'CoderEval-Input4Models/CEPythonRaw.jsonl',
  human: 'CoderEval-Input4Models/CEPythonHumanLabel.jsonl',
} as const;

export { CoderEvalImportError, METADATA_FILE, type DocstringVariant } from './codereval-inputs.ts';
export type { ImportWarning } from './import-out.ts';

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
// The importer

interface Planned {
  task: TaskRecord & { repoPath: string };
  files: [string, string][];
  shape: 'template' | 'repository';
}

/** The checked options and the input files found for them, with the warnings collected so far. */
interface Inputs {
  benchDir: string;
  outDir: string;
  docstrings: DocstringVariant;
  promptsFile: string;
  havePrompts: boolean;
  metadataFile: string | null;
  recordsFile: string | null;
  templatesDir: string | null;
  warnings: ImportWarning[];
  warn: Warn;
}

/** What the planning pass collects over every record. */
interface Planning {
  planned: Planned[];
  droppedEntries: CoderEvalDropped[];
  metadata: Record<string, unknown>[];
  levels: Record<string, { records: number; tasks: number }>;
  withReference: number;
}

export async function importCoderEval(opts: CoderEvalImportOptions): Promise<CoderEvalImportResult> {
  const inp = resolveInputs(opts);
  const { all, templates } = mergeInputs(inp);
  const ex = await createExtractor();
  try {
    const planning = planAll(ex, inp, all);
    const result = buildResult(inp, all.size, templates.length, planning);
    writeImport(result, planning);
    return result;
  } finally {
    ex.dispose();
  }
}

/** Checks the options and finds the input files; throws before any work on what cannot be imported. */
function resolveInputs(opts: CoderEvalImportOptions): Inputs {
  const benchDir = path.resolve(opts.benchDir);
  const outDir = path.resolve(opts.outDir);
  const docstrings: DocstringVariant = opts.docstrings ?? 'raw';
  if (docstrings !== 'raw' && docstrings !== 'human') throw new CoderEvalImportError(`docstrings must be raw or human, not ${String(docstrings)}`);
  if (!fs.existsSync(benchDir) || !fs.statSync(benchDir).isDirectory()) {
    throw new CoderEvalImportError(`The bench folder ${benchDir} does not exist (expected the staged CoderEval folder with ${PROMPT_FILES.raw})`, benchDir);
  }
  const { warnings, warn } = collectWarnings(opts.onWarning);
  checkOutDir(outDir, 'codereval', failCoderEval); // fail fast on a foreign folder, before any work

  const promptsFile = path.join(benchDir, ...PROMPT_FILES[docstrings].split('/'));
  const recordsFile = opts.records ? path.resolve(opts.records) : null;
  const templatesDir = opts.templates ? path.resolve(opts.templates) : null;
  const havePrompts = fs.existsSync(promptsFile);
  if (!havePrompts && !recordsFile) {
    throw new CoderEvalImportError(`Missing ${promptsFile} (the ${docstrings} CoderEval prompts) and no --records file was given`, promptsFile);
  }
  if (!havePrompts) warn('missing-input', promptsFile, undefined, `no ${docstrings} prompts file; signatures and requirements come from the records file`);
  const metadataFile = findMetadataFile(benchDir);
  if (!metadataFile)
    warn(
      'missing-input',
      path.join(benchDir, ...METADATA_FILE.split('/')),
      undefined,
      'no Raw_Input.jsonl_out.jsonl; project, file and level come from the records file only',
    );
  if (recordsFile && !fs.existsSync(recordsFile)) throw new CoderEvalImportError(`The records file ${recordsFile} does not exist`, recordsFile);
  return { benchDir, outDir, docstrings, promptsFile, havePrompts, metadataFile, recordsFile, templatesDir, warnings, warn };
}

/** One entry per CoderEval `_id`, merged from the prompts, the metadata, the records file and the templates. */
function mergeInputs(inp: Inputs): { all: Map<string, Merged>; templates: TemplateFile[] } {
  const { promptsFile, metadataFile, recordsFile, templatesDir, warn } = inp;
  const all = new Map<string, Merged>();
  if (inp.havePrompts) {
    mergeInto(
      all,
      readJsonl(promptsFile, readText(promptsFile), warn),
      'question_id',
      warn,
      (m, { value }) => {
        m.prompt = { signature: nonEmpty(value, 'signature'), docstring: str(value, 'docstring'), input: str(value, 'input') };
      },
      (m) => !!m.prompt,
    );
  }
  if (metadataFile) {
    mergeInto(
      all,
      readJsonl(metadataFile, readText(metadataFile), warn),
      '_id',
      warn,
      (m, { value }) => {
        m.meta = metaOf(value);
      },
      (m) => !!m.meta,
    );
  }
  if (recordsFile) {
    mergeInto(
      all,
      readRecordsFile(recordsFile, warn),
      '_id',
      warn,
      (m, { value, line }) => {
        m.record = value;
        m.recordLine = line;
      },
      (m) => !!m.record,
    );
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
  return { all, templates };
}

/** A metadata line (Raw_Input.jsonl_out.jsonl) as the merged record keeps it. */
function metaOf(value: Record<string, unknown>): NonNullable<Merged['meta']> {
  const results = Array.isArray(value.generate_results) ? (value.generate_results as unknown[]) : [];
  return {
    project: nonEmpty(value, 'project'),
    filePath: nonEmpty(value, 'file_path'),
    name: nonEmpty(value, 'name'),
    docstring: str(value, 'docstring'),
    level: nonEmpty(value, 'level'),
    samples: results.length,
    passed: results.filter((r) => !!r && typeof r === 'object' && (r as Record<string, unknown>).is_pass === true).length,
  };
}

/** Plans a task for every merged record (or records why not) and writes its metadata line. */
function planAll(ex: Extractor, inp: Inputs, all: Map<string, Merged>): Planning {
  const ctx: PlanContext = { ex, outDir: inp.outDir, docstrings: inp.docstrings, recordsFile: inp.recordsFile, warn: inp.warn };
  const acc: Planning = { planned: [], droppedEntries: [], metadata: [], levels: {}, withReference: 0 };
  for (const m of all.values()) {
    const f = recordFacts(m, inp.docstrings);
    if (f.reference) acc.withReference++;
    const lv = f.level ?? 'unknown';
    acc.levels[lv] ??= { records: 0, tasks: 0 };
    acc.levels[lv].records++;
    const drop: Drop = (reason, message) => {
      acc.droppedEntries.push({ reason, id: SAFE_NAME.test(m.id) ? m.id : JSON.stringify(m.id), name: f.name, project: f.project, level: f.level, message });
      return null;
    };
    const p = planTask(ctx, m, f, drop);
    if (p) {
      acc.planned.push(p);
      acc.levels[lv].tasks++;
    }
    const dropped = p ? null : acc.droppedEntries[acc.droppedEntries.length - 1]!;
    acc.metadata.push(metadataLine(m, f, inp.docstrings, p ? f.taskId : null, dropped));
  }
  return acc;
}

/** What the inputs say about one record, each field from the first input that has it. */
interface RecordFacts {
  rec: Record<string, unknown>;
  name: string | null;
  project: string | null;
  filePath: string | null;
  level: string | null;
  signature: string | null;
  /** The cleaned docstring, when there is one; else the requirement comes from the signature. */
  doc: string | null;
  requirement: string;
  reference: string | null;
  taskId: string;
}

function recordFacts(m: Merged, docstrings: DocstringVariant): RecordFacts {
  const rec = m.record ?? {};
  const signature = (m.prompt?.signature ?? nonEmpty(rec, 'signature'))?.trim() ?? null;
  const docRaw = m.prompt?.docstring ?? (docstrings === 'human' ? str(rec, 'human_label') : (str(rec, 'docstring') ?? m.meta?.docstring ?? null));
  const doc = docRaw && docRaw.trim() ? cleandoc(docRaw) : null;
  return {
    rec,
    name: m.meta?.name ?? nonEmpty(rec, 'name') ?? m.template?.name ?? null,
    project: m.meta?.project ?? nonEmpty(rec, 'project'),
    filePath: nonEmpty(rec, 'file_path') ?? m.meta?.filePath ?? null,
    level: m.meta?.level ?? nonEmpty(rec, 'level'),
    signature,
    doc,
    requirement: doc ?? (signature ? requirementFromSignature(signature) : ''),
    reference: nonEmpty(rec, 'code'),
    taskId: `${CODEREVAL_TASK_PREFIX}${m.id}`,
  };
}

/** The metadata.jsonl line of a record: what it is, and the task it became or why it did not. */
function metadataLine(m: Merged, f: RecordFacts, docstrings: DocstringVariant, task: string | null, dropped: CoderEvalDropped | null): Record<string, unknown> {
  return {
    id: f.taskId,
    _id: m.id,
    name: f.name,
    project: f.project,
    file_path: f.filePath,
    level: f.level,
    signature: f.signature,
    requirement: f.requirement,
    requirement_source: f.doc ? 'docstring' : 'signature',
    docstrings,
    has_reference: !!f.reference,
    has_template: !!m.template,
    ...(m.meta ? { chatgpt_samples: { n: m.meta.samples, passed: m.meta.passed } } : {}),
    task,
    dropped: dropped ? { reason: dropped.reason, message: dropped.message } : null,
  };
}

// ---------------------------------------------------------------------------------------------
// Planning one task

interface PlanContext {
  ex: Extractor;
  outDir: string;
  docstrings: DocstringVariant;
  recordsFile: string | null;
  warn: Warn;
}

/** Records why a record is not runnable; returns null so a planner can `return drop(…)`. */
type Drop = (reason: string, message: string) => null;

/** What both task shapes share once a record has passed the basic checks. */
interface TaskBase {
  name: string;
  signature: string;
  /** The record's module (checked path) and its content, when known. */
  file: string | null;
  fileContent: string | null;
  files: [string, string][];
  source: Record<string, unknown>;
  repo: string;
  repoPath: string;
  target: ExtractedUnit | null;
}

function planTask(ctx: PlanContext, m: Merged, f: RecordFacts, drop: Drop): Planned | null {
  const { name, signature, rec } = f;
  if (!SAFE_NAME.test(m.id) || m.id.length > 200) {
    ctx.warn('unsafe-path', m.file, m.line || undefined, `record ${JSON.stringify(m.id)} refused: its _id cannot name a folder under repos/`);
    return drop('unsafe-path', `_id ${JSON.stringify(m.id)} is not a safe folder name`);
  }
  const testCommand = nonEmpty(rec, 'test_command');
  if (!testCommand && !m.template) {
    return drop(
      'no-tests',
      ctx.recordsFile && m.record
        ? 'the record carries no test_command and no test template was given: CoderEval’s harness lives only in its Docker image'
        : 'no tests in the staged CoderEval data: the harness lives only in the Docker image',
    );
  }
  if (!name || !signature) return drop('incomplete-record', `no ${!name ? 'name' : 'signature'} in any input`);
  const file = moduleFile(ctx, m, f, testCommand, drop);
  if (file === undefined) return null;
  const fileContent = str(rec, 'file_content');
  const files: [string, string][] = [];
  if (fileContent !== null && file !== null) files.push([file, fileContent]);
  const source: Record<string, unknown> = {
    benchmark: CODEREVAL_BENCHMARK,
    _id: m.id,
    name,
    project: f.project,
    file_path: f.filePath,
    level: f.level,
    docstrings: ctx.docstrings,
    requirement_source: f.doc ? 'docstring' : 'signature',
  };
  if (m.meta) source.chatgpt_samples = { n: m.meta.samples, passed: m.meta.passed };
  const target = fileContent !== null && file !== null ? findTarget(ctx.ex, file, fileContent, name, int(rec, 'lineno')) : null;
  const base: TaskBase = { name, signature, file, fileContent, files, source, repo: `repos/${m.id}`, repoPath: path.join(ctx.outDir, 'repos', m.id), target };
  return testCommand ? planRepositoryTask(ctx, m, f, base, testCommand, drop) : planTemplateTask(ctx, m, f, base, drop);
}

/**
 * The record's module path, checked: null when the record names none (or names an unsafe one but
 * has neither file_content nor test_command, so nothing would be written there); undefined when
 * the record is refused for it.
 */
function moduleFile(ctx: PlanContext, m: Merged, f: RecordFacts, testCommand: string | null, drop: Drop): string | null | undefined {
  if (f.filePath === null) return null;
  const c = checkRelPath(f.filePath);
  if (c.ok) return c.path;
  if (str(f.rec, 'file_content') === null && !testCommand) return null;
  const { recordsFile } = ctx;
  ctx.warn(
    'unsafe-path',
    recordsFile ?? m.file,
    recordsFile ? m.recordLine || undefined : m.line || undefined,
    `record ${m.id} refused: file_path ${JSON.stringify(f.filePath)} ${c.why}`,
  );
  drop('unsafe-path', `file_path ${JSON.stringify(f.filePath)} ${c.why}`);
  return undefined;
}

/** A record with test_command and file_content: a repository task over its one-file repository. */
function planRepositoryTask(ctx: PlanContext, m: Merged, f: RecordFacts, b: TaskBase, testCommand: string, drop: Drop): Planned | null {
  const { rec } = f;
  const { file, files, source, target } = b;
  if (b.fileContent === null || file === null) {
    return drop('incomplete-record', `test_command given but no ${b.fileContent === null ? 'file_content' : 'file_path'} to build its repository from`);
  }
  const tf = testFilesOf(rec.test_files);
  if (tf === null) return drop('incomplete-record', 'test_files is neither {path: content} nor [[path, content], …]');
  for (const [p, content] of tf) {
    const c = checkRelPath(p);
    if (!c.ok) {
      ctx.warn('unsafe-path', ctx.recordsFile!, m.recordLine || undefined, `record ${m.id} refused: test file ${JSON.stringify(p)} ${c.why}`);
      return drop('unsafe-path', `test file ${JSON.stringify(p)} ${c.why}`);
    }
    if (files.some(([q]) => q === c.path || q.startsWith(`${c.path}/`) || c.path.startsWith(`${q}/`))) {
      return drop('incomplete-record', `test file ${c.path} collides with another file of the repository`);
    }
    files.push([c.path, content]);
  }
  if (!target) return drop('target-not-found', `${b.name} is not defined in the record's file_content (${file})`);
  const tests = Array.isArray(rec.tests) && rec.tests.every((t) => typeof t === 'string') ? rec.tests : undefined;
  source.tests_from = 'test_command';
  if (m.template) source.template_file = path.basename(m.template.file);
  return {
    shape: 'repository',
    files,
    task: {
      id: f.taskId,
      repo: b.repo,
      repoPath: b.repoPath,
      file,
      qualname: target.qualname,
      requirement: f.requirement,
      signature: b.signature,
      ...(f.reference ? { reference: f.reference } : {}),
      test_command: testCommand,
      ...(tests ? { tests } : {}),
      source,
    },
  };
}

/** A record with a test template (and no test_command): a check_template task. */
function planTemplateTask(ctx: PlanContext, m: Merged, f: RecordFacts, b: TaskBase, drop: Drop): Planned | null {
  const t = m.template!;
  if (t.name !== b.name) ctx.warn('template-name-mismatch', t.file, undefined, `template is named ${t.name} but record ${m.id} is ${b.name}; used anyway`);
  const prog = checkProgramFromTemplate(t.text);
  if ('error' in prog) return drop('bad-template', `${path.basename(t.file)}: ${prog.error}`);
  const parsed = ctx.ex.parse('template.py', 'python', prog.template);
  if (parsed.errors.length) {
    const e = parsed.errors[0]!;
    return drop('bad-template', `${path.basename(t.file)} does not parse (line ${e.line}: ${e.message})`);
  }
  b.source.tests_from = 'template';
  b.source.template_file = path.basename(t.file);
  return {
    shape: 'template',
    files: b.files,
    task: {
      id: f.taskId,
      repo: b.repo,
      repoPath: b.repoPath,
      file: b.file ?? `${b.name}.py`,
      qualname: b.target?.qualname ?? b.name,
      requirement: f.requirement,
      signature: b.signature,
      ...(f.reference ? { reference: f.reference } : {}),
      check_template: prog.template,
      placeholder: prog.placeholder,
      tests: [CODEREVAL_TEMPLATE_TEST],
      source: b.source,
    },
  };
}

// ---------------------------------------------------------------------------------------------
// The result and the files

function buildResult(inp: Inputs, records: number, templatesRead: number, p: Planning): CoderEvalImportResult {
  const { outDir, planned, droppedEntries } = { ...inp, ...p };
  return {
    benchDir: inp.benchDir,
    outDir,
    manifestFile: path.join(outDir, 'tasks.jsonl'),
    metadataFile: path.join(outDir, 'metadata.jsonl'),
    reportFile: path.join(outDir, 'IMPORT.md'),
    docstrings: inp.docstrings,
    inputs: { prompts: inp.havePrompts ? inp.promptsFile : null, metadata: inp.metadataFile, records: inp.recordsFile, templates: inp.templatesDir },
    counts: {
      records,
      tasks: planned.length,
      templateTasks: planned.filter((x) => x.shape === 'template').length,
      repositoryTasks: planned.filter((x) => x.shape === 'repository').length,
      dropped: droppedEntries.length,
      templatesRead,
      withReference: p.withReference,
    },
    levels: Object.fromEntries(Object.entries(p.levels).sort(([a], [b]) => a.localeCompare(b))),
    tasks: planned.map((x) => ({ id: x.task.id, level: (x.task.source?.level as string | null) ?? null, shape: x.shape })),
    dropped: countBy(droppedEntries, (d) => d.reason),
    droppedEntries,
    warnings: inp.warnings,
    warningCounts: countBy(inp.warnings, (w) => w.reason),
  };
}

function writeImport(result: CoderEvalImportResult, { planned, metadata }: Planning): void {
  prepareOutDir(result.outDir, 'codereval', ['repos', 'tasks.jsonl', 'metadata.jsonl', 'IMPORT.md'], failCoderEval);
  for (const p of planned) writeRepoFiles(p.task.repoPath, p.files);
  writeManifest(
    result.manifestFile,
    planned.map((p) => p.task),
  );
  fs.writeFileSync(result.metadataFile, metadata.map((x) => JSON.stringify(x)).join('\n') + (metadata.length ? '\n' : ''));
  fs.writeFileSync(result.reportFile, renderReport(result));
}
