// The contract between the UI and the engine: every call the renderer may make, with a schema that validates
// its input at the boundary, and every event the engine pushes. Electron IPC (app/) and browser mode's
// HTTP + WebSocket (main/host/server.ts) both carry exactly this; the renderer imports nothing else.
//
// Engine data types (ReportModel, TaskResult, …) are named with `import type` only: no engine code can reach
// the renderer bundle through here. Paths arrive as strings and are checked by the host against the allowed
// roots after the schema (a schema cannot know which folders the user opened).

import { z } from 'zod';
import { DEFAULT_CONFIG, DEFAULT_MODELS } from '../main/model/config.ts';
import type { ReportModel } from '../main/model/report.ts';
import type { TaskResult } from '../main/model/results.ts';

export type { ReportModel, TaskResult };
export type { EvidenceRow, TaskDetail, CandidateOutcome, TaskFailure } from '../main/model/results.ts';
export type { ConditionSummary, FactorialAnalysis, PairedComparison, RunProvenance, TaskRow } from '../main/model/report.ts';

export const CONTRACT_VERSION = 1;

// ---- shared schemas -----------------------------------------------------------------------------------------

/** An absolute path with no NUL bytes; the host resolves it and checks it lies inside an allowed root. */
export const PathSchema = z
  .string()
  .min(1, 'a path is required')
  .max(4096)
  .refine((p) => !p.includes('\0'), 'a path cannot contain NUL bytes')
  .refine((p) => p.startsWith('/') || /^[A-Za-z]:[\\/]/.test(p), 'the path must be absolute');

const Id = z.string().min(1).max(200);
const TaskId = z.string().min(1).max(500);

export const SourcesSchema = z.object({ api: z.boolean(), context: z.boolean(), similar: z.boolean() });
export type Sources = z.infer<typeof SourcesSchema>;

export const BACKEND_KINDS = ['offline', 'openai', 'gemini'] as const;
export const BackendSchema = z.object({
  kind: z.enum(BACKEND_KINDS),
  model: z.string().max(200).optional(),
  /** OpenAI-compatible local servers (llama.cpp, vLLM, Ollama): http(s) URL. */
  baseURL: z.string().url().max(500).optional(),
});
export type BackendChoice = z.infer<typeof BackendSchema>;

/** Method / condition ids as main/pipeline/methods.ts names them (checked again by the engine). */
export const MethodIdSchema = z.string().regex(/^[a-z0-9][a-z0-9-]*$|^A[01]X[01]S[01]$/, 'not a method id');

/** Pipeline constants the Settings view may change (everything else stays at the defaults). */
export const PipelineOverridesSchema = z
  .object({
    alpha: z.number().min(0).max(2),
    keepFraction: z.number().gt(0).max(1),
    topK: z.number().int().min(1).max(50),
    candidates: z.number().int().min(1).max(20),
    temperature: z.number().min(0).max(2),
    repairRounds: z.number().int().min(0).max(5),
  })
  .partial();
export type PipelineOverrides = z.infer<typeof PipelineOverridesSchema>;

/** What each of those constants is when Settings leaves it empty: the engine's DEFAULT_CONFIG. */
export const PIPELINE_DEFAULTS: Required<PipelineOverrides> = {
  alpha: DEFAULT_CONFIG.fusion.alpha,
  keepFraction: DEFAULT_CONFIG.fusion.keepFraction,
  topK: DEFAULT_CONFIG.fusion.topK,
  candidates: DEFAULT_CONFIG.generation.candidates,
  temperature: DEFAULT_CONFIG.generation.temperature,
  repairRounds: DEFAULT_CONFIG.validation.repairRounds,
};

/** The model a hosted backend uses when Settings names none. */
export { DEFAULT_MODELS };

export const CustomTaskSchema = z.object({
  repo: PathSchema,
  file: z.string().min(1).max(1000).refine((f) => !f.startsWith('/') && !f.split(/[\\/]/).includes('..'), 'file must be relative to the repository, without ..'),
  qualname: z.string().min(1).max(300),
  requirement: z.string().min(1).max(20_000),
  signature: z.string().min(1).max(2000),
  test_command: z.string().min(1).max(2000),
});
export type CustomTask = z.infer<typeof CustomTaskSchema>;

export const SettingsSchema = z.object({
  backend: BackendSchema,
  sandbox: z.enum(['auto', 'strong', 'weak']),
  encoder: z.enum(['auto', 'default', 'unixcoder']),
  parallel: z.number().int().min(1).max(16),
  pipeline: PipelineOverridesSchema,
});
export type Settings = z.infer<typeof SettingsSchema>;

/** One model's price per million tokens (USD), as the engine's price table keeps it. */
export const ModelPriceSchema = z
  .object({
    inputPerMTok: z.number().min(0).max(10_000),
    outputPerMTok: z.number().min(0).max(10_000),
    cachedInputPerMTok: z.number().min(0).max(10_000).optional(),
    asOf: z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'a date, YYYY-MM-DD'),
    source: z.string().max(500).optional(),
    note: z.string().max(500).optional(),
  })
  .strict();
export type ModelPrice = z.infer<typeof ModelPriceSchema>;
export const PricesSchema = z.record(z.string().min(1).max(200).regex(/^[\w.:/@-]+$/, 'a model name'), ModelPriceSchema);

// ---- results of calls ---------------------------------------------------------------------------------------

export interface AppInfo {
  contract: number;
  version: string;
  mode: 'electron' | 'browser';
  dbPath: string;
  encoder: { name: string; notice: string | null };
  sandbox: string;
  sampleRepo: string;
  sampleManifest: string;
  allowedRoots: string[];
  /** Whether a key is available for each metered backend (never the key itself). */
  keys: { openai: boolean; gemini: boolean };
  /** Where keys are kept: the OS keychain (Electron safeStorage) or this session's memory only (browser mode). */
  keyStorage: 'keychain' | 'session';
  /** Whether a native folder picker exists (Electron). */
  folderPicker: boolean;
}

export interface PricesInfo {
  /** `built-in defaults`, or the file the table was read from. */
  source: string;
  /** Where an edited table is saved. */
  file: string;
  models: Record<string, ModelPrice>;
}

export interface RepoSummary {
  id: number;
  root: string;
  name: string;
  lastIndexedAt: string | null;
  files: number;
  units: Record<string, number>;
  chunks: number;
  apiEntries: number;
  embedded: number;
  encoder: string | null;
  skipped: Record<string, number>;
}

export interface SkippedFile {
  path: string;
  reason: string;
  detail: string | null;
}

export interface TaskSummary {
  id: string;
  file: string;
  qualname: string;
  requirement: string;
  signature: string;
  shape: 'repository' | 'check-template';
  hasReference: boolean;
}

export interface MethodInfo {
  id: string;
  label: string;
  family: 'method' | 'ladder' | 'factorial';
  description: string;
}

export interface RunListItem {
  id: string;
  kind: 'run' | 'ablate' | 'ladder';
  state: 'running' | 'done' | 'cancelled' | 'interrupted';
  createdAt: string;
  manifestFile: string;
  tasks: number;
  conditions: string[];
  results: number;
  errors: number;
  backend: string;
}

/** Pass@k of a published sample set, from its official labels (experiment/samples.ts). */
export interface SamplePassK {
  path: string;
  format: string;
  tasks: number;
  samples: number;
  n: { min: number; max: number };
  ks: number[];
  kOverN: 'refuse' | 'humaneval';
  passAtK: Record<string, number>;
  perTask: { taskId: string; n: number; c: number; passAtK: Record<string, number> }[];
  shortTasks: { taskId: string; n: number }[];
  computedOver: string;
}

export interface CostEstimateInfo {
  calls: number;
  inputTokens: number;
  outputTokensExpected: number;
  usdExpected: number | null;
  usdMax: number | null;
  note: string;
  assumptions: string;
}

export type JobKind = 'index' | 'task' | 'experiment';
export type JobState = 'running' | 'paused' | 'done' | 'cancelled' | 'failed';

export interface JobProgress {
  phase: string;
  done: number;
  total: number;
  message?: string;
  etaMs?: number | null;
  spentUsd?: number | null;
}

export interface JobInfo {
  id: string;
  kind: JobKind;
  state: JobState;
  title: string;
  startedAt: string;
  finishedAt: string | null;
  progress: JobProgress | null;
  error: string | null;
  /** Set when done: what the job produced (index: repo id; task / experiment: run id). */
  result: { repoId?: number; runId?: string } | null;
}

export interface ReportFile {
  name: string;
  mime: string;
  content: string;
}

/** An experiment to estimate or start: a manifest, which tasks, and what to run on them. */
export const ExperimentRequestSchema = z
  .object({
    manifest: PathSchema,
    taskIds: z.array(TaskId).max(100_000).optional(),
    limit: z.number().int().min(1).optional(),
    kind: z.enum(['run', 'ablate', 'ladder']),
    /** `run`: the methods compared; `ablate`: methods[0] is the factorial's base method. */
    methods: z.array(MethodIdSchema).min(1).max(16).optional(),
    /** A published sample set: the run uses its samples (byte for byte, no model called) instead of the Settings backend. */
    samples: PathSchema.optional(),
  })
  .strict();

// ---- the calls ----------------------------------------------------------------------------------------------

const none = z.object({}).strict();

export const CALLS = {
  'app.info': { input: none },
  'settings.get': { input: none },
  'settings.set': { input: SettingsSchema.partial().strict() },
  /** Keys go to the OS keychain (Electron) or session memory (browser mode); `null` removes one. */
  'keys.set': { input: z.object({ provider: z.enum(['openai', 'gemini']), key: z.string().min(8).max(500).nullable() }).strict() },
  'prices.get': { input: none },
  /** Replaces the price table (saved to the user's prices.json); cost figures and estimates use it from then on. */
  'prices.set': { input: z.object({ models: PricesSchema }).strict() },
  /** Electron only: the native folder picker; browser mode answers `{ path: null }` with a reason. */
  'repo.pick': { input: none },
  'repo.list': { input: none },
  'repo.index': { input: z.object({ path: PathSchema }).strict() },
  'repo.skipped': { input: z.object({ repoId: z.number().int().positive(), limit: z.number().int().min(1).max(10_000).default(500) }).strict() },
  'job.list': { input: none },
  'job.cancel': { input: z.object({ jobId: Id }).strict() },
  /** Index jobs only: stop after the current batch; `job.resume` continues (the catalog makes it incremental). */
  'job.pause': { input: z.object({ jobId: Id }).strict() },
  'job.resume': { input: z.object({ jobId: Id }).strict() },
  'methods.list': { input: none },
  'tasks.list': { input: z.object({ manifest: PathSchema }).strict() },
  /** One task (from a manifest, or written in the UI) under one or more conditions; a job whose result is a run id. */
  'task.run': {
    input: z
      .object({
        manifest: PathSchema.optional(),
        taskId: TaskId.optional(),
        custom: CustomTaskSchema.optional(),
        methods: z.array(MethodIdSchema).min(1).max(16),
        /** Evidence sources switched on (the interactive ablation); default all three. */
        sources: SourcesSchema.optional(),
      })
      .strict()
      .refine((x) => (x.manifest && x.taskId && !x.custom) || (x.custom && !x.manifest && !x.taskId), 'give either manifest + taskId, or custom'),
  },
  'experiment.estimate': { input: ExperimentRequestSchema },
  'experiment.start': { input: ExperimentRequestSchema },
  'experiment.resume': { input: z.object({ runId: Id }).strict() },
  'experiment.list': { input: none },
  /** The report model of one run, or several compared. */
  'experiment.model': { input: z.object({ runIds: z.array(Id).min(1).max(8) }).strict() },
  'experiment.result': { input: z.object({ runId: Id, taskId: TaskId, condition: MethodIdSchema }).strict() },
  'report.render': { input: z.object({ runIds: z.array(Id).min(1).max(8), format: z.enum(['html', 'md', 'json', 'csv']) }).strict() },
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
  },
} as const;

export type CallName = keyof typeof CALLS;
export type CallInput<K extends CallName> = z.input<(typeof CALLS)[K]['input']>;
export type ParsedInput<K extends CallName> = z.output<(typeof CALLS)[K]['input']>;

export interface CallOutputs {
  'app.info': AppInfo;
  'settings.get': Settings;
  'settings.set': Settings;
  'keys.set': { openai: boolean; gemini: boolean };
  'prices.get': PricesInfo;
  'prices.set': PricesInfo;
  'repo.pick': { path: string | null; reason?: string };
  'repo.list': RepoSummary[];
  'repo.index': { jobId: string };
  'repo.skipped': SkippedFile[];
  'job.list': JobInfo[];
  'job.cancel': JobInfo;
  'job.pause': JobInfo;
  'job.resume': JobInfo;
  'methods.list': { methods: MethodInfo[]; ladder: MethodInfo[]; factorial: MethodInfo[] };
  'tasks.list': { manifest: string; hash: string; tasks: TaskSummary[] };
  'task.run': { jobId: string };
  'experiment.estimate': CostEstimateInfo;
  'experiment.start': { jobId: string };
  'experiment.resume': { jobId: string };
  'experiment.list': RunListItem[];
  'experiment.model': ReportModel;
  'experiment.result': TaskResult;
  'report.render': { files: ReportFile[] };
  'samples.passk': SamplePassK;
}

export type CallOutput<K extends CallName> = CallOutputs[K];

// ---- events -------------------------------------------------------------------------------------------------

export type EngineEvent =
  | { type: 'job'; job: JobInfo }
  | { type: 'repos-changed' }
  | { type: 'runs-changed' }
  | { type: 'notice'; level: 'info' | 'warning' | 'error'; message: string };

// ---- errors -------------------------------------------------------------------------------------------------

export type ErrorCode = 'unauthorized' | 'invalid-input' | 'forbidden-path' | 'not-found' | 'unsupported' | 'engine';

/** What a failed call answers: a code, one line for people, and for invalid input the offending fields. */
export interface CallError {
  code: ErrorCode;
  message: string;
  issues?: { path: string; message: string }[];
}

/** Validates a call's input; the issues name each offending field. */
export function parseCall<K extends CallName>(name: K, input: unknown): { ok: true; value: ParsedInput<K> } | { ok: false; error: CallError } {
  const spec = CALLS[name];
  if (!spec) return { ok: false, error: { code: 'not-found', message: `unknown call ${String(name)}` } };
  const r = spec.input.safeParse(input ?? {});
  if (r.success) return { ok: true, value: r.data as ParsedInput<K> };
  const issues = r.error.issues.map((i) => ({ path: i.path.join('.') || '(input)', message: i.message }));
  return { ok: false, error: { code: 'invalid-input', message: `invalid input for ${name}: ${issues.map((i) => `${i.path}: ${i.message}`).join('; ')}`, issues } };
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

/** Thrown by transports when a call fails. */
export class EngineCallError extends Error {
  constructor(readonly error: CallError) {
    super(error.message);
    this.name = 'EngineCallError';
  }
}
