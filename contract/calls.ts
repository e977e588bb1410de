// Every call the renderer may make, with a request and a response schema each: `input` validates what the UI
// sends (parseCall, at the boundary), `output` describes what the engine answers (parseOutput), and the
// call's TypeScript types are derived from both. Also the one interface the transports implement.

import { z } from 'zod';
import {
  AllowedFolderSchema,
  AppInfoSchema,
  CostEstimateInfoSchema,
  ImportDefaultsSchema,
  ImportKindSchema,
  ImportStartedSchema,
  ImportSummarySchema,
  JobInfoSchema,
  JobStartedSchema,
  KeyFlagsSchema,
  MethodListSchema,
  MinedSetSchema,
  MineStartedSchema,
  ModelSourcesSchema,
  PickedFolderSchema,
  PricesInfoSchema,
  ReportFileSchema,
  ReportModelSchema,
  RepoSummarySchema,
  RunListItemSchema,
  SamplePassKSchema,
  SkippedFileSchema,
  TaskListSchema,
  TaskResultSchema,
} from './dto.ts';
import type { CallError, EngineEvent, ErrorCode } from './events.ts';
import {
  CustomTaskSchema,
  ExperimentRequestSchema,
  IdSchema,
  KEY_PROVIDERS,
  MethodIdSchema,
  PathSchema,
  PricesSchema,
  SettingsSchema,
  SourcesSchema,
  TaskIdSchema,
} from './shared.ts';

const none = z.object({}).strict();
const jobId = z.object({ jobId: IdSchema }).strict();
const runIds = z.array(IdSchema).min(1).max(8);

export const CALLS = {
  'app.info': { input: none, output: AppInfoSchema },
  'settings.get': { input: none, output: SettingsSchema },
  'settings.set': { input: SettingsSchema.partial().strict(), output: SettingsSchema },
  /** Keys go to the OS keychain (Electron) or session memory (browser mode); `null` removes one. */
  'keys.set': { input: z.object({ provider: z.enum(KEY_PROVIDERS), key: z.string().min(8).max(500).nullable() }).strict(), output: KeyFlagsSchema },
  /**
   * Every source of a model: the GGUF files in the models folder, the local servers found when last detected (at
   * first start or on request), and the hosted providers with their key status. Probes nothing.
   */
  'models.list': { input: none, output: ModelSourcesSchema },
  /** Looks for local OpenAI-compatible servers now, on 127.0.0.1 and ::1 only (`ports`: instead of the tools' defaults). */
  'models.detect': {
    input: z.object({ ports: z.array(z.number().int().min(1).max(65535)).min(1).max(32).optional() }).strict(),
    output: ModelSourcesSchema,
  },
  'prices.get': { input: none, output: PricesInfoSchema },
  /** Replaces the price table (saved to the user's prices.json); cost figures and estimates use it from then on. */
  'prices.set': { input: z.object({ models: PricesSchema }).strict(), output: PricesInfoSchema },
  /** Electron only: the native folder picker; browser mode answers `{ path: null }` with a reason. */
  'repo.pick': { input: none, output: PickedFolderSchema },
  'repo.list': { input: none, output: z.array(RepoSummarySchema) },
  /**
   * Allows a folder outside the allowed roots from now on (the UI's "Allow this folder", after the user confirmed it)
   * and remembers it across restarts; the root and system or secrets folders are refused. `folder`, not `path`: the
   * service checks every `path` against the allowed roots, which this call extends.
   */
  'repo.allow': { input: z.object({ folder: PathSchema }).strict(), output: AllowedFolderSchema },
  /**
   * `include`: paths or globs relative to the repository root that force in files skipped as generated, minified or
   * too large (as `opencoder index --include`); the repository remembers them for later runs.
   */
  'repo.index': {
    input: z.object({ path: PathSchema, include: z.array(z.string().min(1).max(1000)).max(100).optional() }).strict(),
    output: JobStartedSchema,
  },
  'repo.skipped': {
    input: z.object({ repoId: z.number().int().positive(), limit: z.number().int().min(1).max(10_000).default(500) }).strict(),
    output: z.array(SkippedFileSchema),
  },
  /**
   * Finds tasks in a repository folder (a job, as `opencoder mine`): traces its own tests, checks each documented
   * function (reference twice, stub, mutants) and freezes a manifest. `out` defaults to benchmarks/mined-<name> in the
   * app's data folder; it must be empty or an earlier mining's folder, where a stopped run resumes. The sandbox is
   * Settings'. Progress comes by phase (scan, trace, checks i/N, leaks, freeze); cancel or pause keeps every decision.
   */
  'repo.mine': {
    input: z
      .object({
        path: PathSchema,
        out: PathSchema.optional(),
        /** The suite's command (unittest or pytest); found from the repository when absent. */
        testCommand: z.string().trim().min(1).max(2000).optional(),
        /** Check at most this many candidates, picked with the seed. */
        limit: z.number().int().min(1).max(1_000_000).optional(),
        /** A docstring needs at least this many words (default 3). */
        minDocWords: z.number().int().min(0).max(1000).optional(),
        seed: z
          .number()
          .int()
          .min(0)
          .max(2 ** 31 - 1)
          .optional(),
      })
      .strict(),
    output: MineStartedSchema,
  },
  /** A mined set read back from its folder: the kept tasks with their checks, the dropped ones with their reasons. */
  'repo.mined': { input: z.object({ out: PathSchema }).strict(), output: MinedSetSchema },
  'job.list': { input: none, output: z.array(JobInfoSchema) },
  'job.cancel': { input: jobId, output: JobInfoSchema },
  /**
   * Index and mining jobs only: stop after the current batch (or check); `job.resume` continues (the catalog, or the
   * mining's stored decisions, make it incremental).
   */
  'job.pause': { input: jobId, output: JobInfoSchema },
  'job.resume': { input: jobId, output: JobInfoSchema },
  'methods.list': { input: none, output: MethodListSchema },
  'tasks.list': { input: z.object({ manifest: PathSchema }).strict(), output: TaskListSchema },
  /** One task (from a manifest, or written in the UI) under one or more conditions; a job whose result is a run id. */
  'task.run': {
    input: z
      .object({
        manifest: PathSchema.optional(),
        taskId: TaskIdSchema.optional(),
        custom: CustomTaskSchema.optional(),
        methods: z.array(MethodIdSchema).min(1).max(16),
        /** Evidence sources switched on (the interactive ablation); default all three. */
        sources: SourcesSchema.optional(),
      })
      .strict()
      .refine((x) => (x.manifest && x.taskId && !x.custom) || (x.custom && !x.manifest && !x.taskId), 'give either manifest + taskId, or custom'),
    output: JobStartedSchema,
  },
  'experiment.estimate': { input: ExperimentRequestSchema, output: CostEstimateInfoSchema },
  'experiment.start': { input: ExperimentRequestSchema, output: JobStartedSchema },
  'experiment.resume': { input: z.object({ runId: IdSchema }).strict(), output: JobStartedSchema },
  'experiment.list': { input: none, output: z.array(RunListItemSchema) },
  /** Names a run (what the Runs list, the Reports menu and `opencoder runs` show); `null` goes back to the automatic label. */
  'run.rename': { input: z.object({ runId: IdSchema, label: z.string().trim().min(1).max(200).nullable() }).strict(), output: RunListItemSchema },
  /** The report model of one run, or several compared. */
  'experiment.model': { input: z.object({ runIds }).strict(), output: ReportModelSchema },
  'experiment.result': { input: z.object({ runId: IdSchema, taskId: TaskIdSchema, condition: MethodIdSchema }).strict(), output: TaskResultSchema },
  'report.render': {
    input: z.object({ runIds, format: z.enum(['html', 'md', 'json', 'csv']) }).strict(),
    output: z.object({ files: z.array(ReportFileSchema) }),
  },
  /** A published sample set (RepoExec results folder, CoderEval *_out.jsonl, bigcode, EvalPlus, or a set from `samples import`) and its Pass@k from the official labels. */
  'samples.passk': {
    input: z
      .object({
        path: PathSchema,
        format: z.enum(['auto', 'repoexec', 'codereval', 'bigcode', 'evalplus']).default('auto'),
        ks: z.array(z.number().int().min(1).max(100)).min(1).max(10).default([1, 5, 10]),
        kOverN: z.enum(['refuse', 'humaneval']).default('refuse'),
      })
      .strict(),
    output: SamplePassKSchema,
  },
  // ---- imports (the Import view): what `opencoder import <kind>` and `opencoder samples import` do, as jobs ----
  /**
   * Where an import of `kind` writes when no output is named; a sample set's file is named after its `input` (only its
   * name is read: nothing is opened, so it is not checked against the allowed folders).
   */
  'import.defaults': {
    input: z.object({ kind: ImportKindSchema, input: z.string().max(4096).optional(), subset: z.string().trim().min(1).max(200).optional() }).strict(),
    output: ImportDefaultsSchema,
  },
  /**
   * Imports a benchmark's files into tasks and a manifest (a job): RepoExec's staged folder, CoderEval's folder (with
   * optional records file and templates folder) or ExecRepoBench's records file. `out` defaults to a folder of its own
   * in the app's data folder; it must be empty or an earlier import of the same kind.
   */
  'import.benchmark': {
    input: z
      .object({
        kind: z.enum(['repoexec', 'codereval', 'execrepobench']),
        path: PathSchema,
        out: PathSchema.optional(),
        /** RepoExec: a subset named in repoexec_inline_subsets.json. */
        subset: z.string().trim().min(1).max(200).optional(),
        /** CoderEval: the full records file and the test templates folder, both optional. */
        records: PathSchema.optional(),
        templates: PathSchema.optional(),
        docstrings: z.enum(['raw', 'human']).optional(),
      })
      .strict(),
    output: ImportStartedSchema,
  },
  /** Imports a published sample set (a file or a folder, any format samples.passk reads) into a set file (a job). */
  'import.samples': {
    input: z
      .object({ path: PathSchema, out: PathSchema.optional(), format: z.enum(['auto', 'repoexec', 'codereval', 'bigcode', 'evalplus']).default('auto') })
      .strict(),
    output: ImportStartedSchema,
  },
  /** What a finished import job made (not-found while it runs, or for a job that is not an import). */
  'import.result': { input: z.object({ jobId: IdSchema }).strict(), output: ImportSummarySchema },
} as const;

export type CallName = keyof typeof CALLS;
export type CallInput<K extends CallName> = z.input<(typeof CALLS)[K]['input']>;
export type ParsedInput<K extends CallName> = z.output<(typeof CALLS)[K]['input']>;

/** What each call answers, as its output schema describes it. */
export type CallOutputs = { [K in CallName]: z.output<(typeof CALLS)[K]['output']> };
export type CallOutput<K extends CallName> = CallOutputs[K];

type Checked<T> = { ok: true; value: T } | { ok: false; error: CallError };

/** A failed parse as a CallError: the issues name each offending field (`root` when it is the whole value). */
function invalid(code: ErrorCode, what: string, error: z.ZodError, root: string): { ok: false; error: CallError } {
  const issues = error.issues.map((i) => ({ path: i.path.join('.') || root, message: i.message }));
  return { ok: false, error: { code, message: `${what}: ${issues.map((i) => `${i.path}: ${i.message}`).join('; ')}`, issues } };
}

const unknownCall = (name: unknown): { ok: false; error: CallError } => ({ ok: false, error: { code: 'not-found', message: `unknown call ${String(name)}` } });

/** Validates a call's input; the issues name each offending field. */
export function parseCall<K extends CallName>(name: K, input: unknown): Checked<ParsedInput<K>> {
  const spec = CALLS[name];
  if (!spec) return unknownCall(name);
  const r = spec.input.safeParse(input ?? {});
  if (r.success) return { ok: true, value: r.data as ParsedInput<K> };
  return invalid('invalid-input', `invalid input for ${name}`, r.error, '(input)');
}

/** Validates what a call answered against its output schema; a mismatch is the engine's fault (code `engine`). */
export function parseOutput<K extends CallName>(name: K, value: unknown): Checked<CallOutput<K>> {
  const spec = CALLS[name];
  if (!spec) return unknownCall(name);
  const r = spec.output.safeParse(value);
  if (r.success) return { ok: true, value: r.data as CallOutput<K> };
  return invalid('engine', `invalid output of ${name}`, r.error, '(output)');
}

export function isCallName(name: unknown): name is CallName {
  return typeof name === 'string' && Object.prototype.hasOwnProperty.call(CALLS, name);
}

/** The one interface the renderer programs against; IPC and HTTP/WS transports implement it. */
export interface EngineApi {
  call<K extends CallName>(name: K, input: CallInput<K>): Promise<CallOutput<K>>;
  /** Subscribes to engine events; returns the unsubscribe function. */
  subscribe(listener: (e: EngineEvent) => void): () => void;
}
