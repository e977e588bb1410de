// What the calls answer: every data shape the engine sends back, as a zod schema with its type inferred from
// it, so calls.ts can give each call an output schema beside its input schema and parseOutput can check an
// answer at the boundary the way parseCall checks a request.
//
// The engine's big result types (TaskResult, ReportModel) stay TypeScript interfaces in main/model, the source
// of their types; here they get an opaque schema that checks only a few identifying top-level fields.

import { z } from 'zod';
import type { ReportModel } from '../main/model/report.ts';
import type { TaskResult } from '../main/model/results.ts';

/** A count (files, tasks, samples): a whole number, never negative. */
const count = z.number().int().min(0);
const usd = z.number().min(0);

// ---- app, keys, prices --------------------------------------------------------------------------------------

/** Whether a key is available for each metered backend (never the key itself). */
export const KeyFlagsSchema = z.object({ openai: z.boolean(), gemini: z.boolean() });
export type KeyFlags = z.infer<typeof KeyFlagsSchema>;

export const AppInfoSchema = z.object({
  contract: z.number().int(),
  version: z.string(),
  mode: z.enum(['electron', 'browser']),
  dbPath: z.string(),
  encoder: z.object({ name: z.string(), notice: z.string().nullable() }),
  sandbox: z.string(),
  sampleRepo: z.string(),
  sampleManifest: z.string(),
  allowedRoots: z.array(z.string()),
  /** Whether a key is available for each metered backend (never the key itself). */
  keys: KeyFlagsSchema,
  /** Where keys are kept: the OS keychain (Electron safeStorage) or this session's memory only (browser mode). */
  keyStorage: z.enum(['keychain', 'session']),
  /** Whether a native folder picker exists (Electron). */
  folderPicker: z.boolean(),
});
export type AppInfo = z.infer<typeof AppInfoSchema>;

/**
 * One model's price as the engine's loaded table holds it: the same fields and type as ModelPriceSchema (what
 * Settings may write), under the engine's own looser check, which a hand-edited prices.json may pass.
 */
export const PriceEntrySchema = z.object({
  inputPerMTok: usd,
  outputPerMTok: usd,
  cachedInputPerMTok: usd.optional(),
  asOf: z.string(),
  source: z.string().optional(),
  note: z.string().optional(),
});

export const PricesInfoSchema = z.object({
  /** `built-in defaults`, or the file the table was read from. */
  source: z.string(),
  /** Where an edited table is saved. */
  file: z.string(),
  models: z.record(z.string(), PriceEntrySchema),
});
export type PricesInfo = z.infer<typeof PricesInfoSchema>;

// ---- models: what can generate (the model picker) --------------------------------------------------------

/** The offline generator's one name, and the labels that keep runs of different backends apart (main/model). */
export { OFFLINE_LABEL, backendDisplayLabel, isOfflineBackend, mixedBackendLabels } from '../main/model/backend-label.ts';

/** The tools whose servers detection recognises (main/generate/local-servers.ts LocalTool). */
export const LOCAL_TOOL_IDS = ['ollama', 'llama.cpp', 'lm-studio', 'vllm', 'openai-compatible'] as const;
const port = z.number().int().min(1).max(65535);

/** An OpenAI-compatible server found on a loopback port: where to point the OpenAI SDK, and the models it names. */
export const LocalServerSchema = z.object({
  tool: z.enum(LOCAL_TOOL_IDS),
  /** `Ollama 0.12.6`. */
  label: z.string(),
  host: z.enum(['127.0.0.1', '::1']),
  port,
  /** `http://127.0.0.1:11434/v1`. */
  baseURL: z.string(),
  version: z.string().nullable(),
  models: z.array(z.string()),
});
export type LocalServerInfo = z.infer<typeof LocalServerSchema>;

/** A .gguf file in the models folder (choosing it picks the llama-cpp backend with its path). */
export const GgufFileSchema = z.object({ name: z.string(), path: z.string(), bytes: count });
export type GgufFileInfo = z.infer<typeof GgufFileSchema>;

/** A hosted provider and whether a key is available for it (never the key itself). */
export const ProviderStatusSchema = z.object({
  id: z.enum(['openai', 'gemini']),
  label: z.string(),
  keyPresent: z.boolean(),
  /** The model used when Settings names none. */
  defaultModel: z.string(),
});
export type ProviderStatus = z.infer<typeof ProviderStatusSchema>;

/** What models.list and models.detect answer: every source of a model, for the picker and the no-model notice. */
export const ModelSourcesSchema = z.object({
  modelsDir: z.object({ path: z.string(), exists: z.boolean() }),
  ggufFiles: z.array(GgufFileSchema),
  servers: z.array(LocalServerSchema),
  /** When local servers were last looked for (at first start, or Detect); null: not in this session. */
  detectedAt: z.string().nullable(),
  /** The loopback ports detection probes (on 127.0.0.1 and ::1 only). */
  ports: z.array(port),
  providers: z.array(ProviderStatusSchema),
});
export type ModelSources = z.infer<typeof ModelSourcesSchema>;

// ---- repositories -------------------------------------------------------------------------------------------

export const RepoSummarySchema = z.object({
  id: z.number().int().positive(),
  root: z.string(),
  name: z.string(),
  lastIndexedAt: z.string().nullable(),
  files: count,
  /** Files the last index run walked in no supported language (main/model/index-counts.ts); null before any run recorded it. */
  otherFiles: count.nullable(),
  units: z.record(z.string(), count),
  chunks: count,
  apiEntries: count,
  embedded: count,
  encoder: z.string().nullable(),
  skipped: z.record(z.string(), count),
  /** Indexed files that are test code, by reason (main/index/test-files.ts): retrieval leaves them out of every source. */
  testFiles: z.record(z.string(), count),
});
export type RepoSummary = z.infer<typeof RepoSummarySchema>;

export const SkippedFileSchema = z.object({
  path: z.string(),
  reason: z.string(),
  detail: z.string().nullable(),
});
export type SkippedFile = z.infer<typeof SkippedFileSchema>;

/** What repo.allow answers: the folder allowed (canonical), the allowed roots now, and the file that remembers it. */
export const AllowedFolderSchema = z.object({ folder: z.string(), allowedRoots: z.array(z.string()), rememberedIn: z.string() });
export type AllowedFolder = z.infer<typeof AllowedFolderSchema>;

/** What repo.pick answers: the folder chosen, or null and why not. */
export const PickedFolderSchema = z.object({ path: z.string().nullable(), reason: z.string().optional() });

// ---- tasks, methods, runs -----------------------------------------------------------------------------------

export const TaskSummarySchema = z.object({
  id: z.string(),
  file: z.string(),
  qualname: z.string(),
  requirement: z.string(),
  signature: z.string(),
  shape: z.enum(['repository', 'check-template']),
  hasReference: z.boolean(),
});
export type TaskSummary = z.infer<typeof TaskSummarySchema>;

/** What tasks.list answers: the manifest as read (its file and hash) and its tasks. */
export const TaskListSchema = z.object({ manifest: z.string(), hash: z.string(), tasks: z.array(TaskSummarySchema) });

export const MethodInfoSchema = z.object({
  id: z.string(),
  label: z.string(),
  family: z.enum(['method', 'ladder', 'factorial']),
  description: z.string(),
});
export type MethodInfo = z.infer<typeof MethodInfoSchema>;

/** What methods.list answers: the methods, the component ladder and the 2³ factorial's cells. */
export const MethodListSchema = z.object({ methods: z.array(MethodInfoSchema), ladder: z.array(MethodInfoSchema), factorial: z.array(MethodInfoSchema) });

export const RunListItemSchema = z.object({
  id: z.string(),
  kind: z.enum(['run', 'ablate', 'ladder']),
  state: z.enum(['running', 'done', 'cancelled', 'interrupted']),
  createdAt: z.string(),
  manifestFile: z.string(),
  tasks: count,
  conditions: z.array(z.string()),
  results: count,
  /** Pairs stored unscored (an infrastructure failure: left out of every figure, run again on resume). */
  errors: count,
  backend: z.string(),
  /** What the run is called: the label the user gave it, else the automatic one (main/model/run-label.ts). */
  label: z.string(),
  /** The automatic label (task or manifest, methods, backend): what run.rename with `label: null` goes back to. */
  autoLabel: z.string(),
  /** The task (one-task runs) or the manifest and its task count. */
  subject: z.string(),
});
export type RunListItem = z.infer<typeof RunListItemSchema>;

/** Pass@k of a published sample set, from its official labels (main/benchmarks/samples.ts). */
export const SamplePassKSchema = z.object({
  path: z.string(),
  format: z.string(),
  tasks: count,
  samples: count,
  n: z.object({ min: count, max: count }),
  ks: z.array(z.number().int().min(1)),
  kOverN: z.enum(['refuse', 'humaneval']),
  passAtK: z.record(z.string(), z.number()),
  perTask: z.array(z.object({ taskId: z.string(), n: count, c: count, passAtK: z.record(z.string(), z.number()) })),
  shortTasks: z.array(z.object({ taskId: z.string(), n: count })),
  computedOver: z.string(),
});
export type SamplePassK = z.infer<typeof SamplePassKSchema>;

export const CostEstimateInfoSchema = z.object({
  calls: z.number(),
  inputTokens: z.number(),
  outputTokensExpected: z.number(),
  usdExpected: z.number().nullable(),
  usdMax: z.number().nullable(),
  note: z.string(),
  assumptions: z.string(),
});
export type CostEstimateInfo = z.infer<typeof CostEstimateInfoSchema>;

// ---- jobs ---------------------------------------------------------------------------------------------------

export const JobKindSchema = z.enum(['index', 'task', 'experiment', 'import', 'mine']);
export type JobKind = z.infer<typeof JobKindSchema>;
export const JobStateSchema = z.enum(['running', 'paused', 'done', 'cancelled', 'failed']);
export type JobState = z.infer<typeof JobStateSchema>;

export const JobProgressSchema = z.object({
  phase: z.string(),
  done: z.number(),
  total: z.number(),
  message: z.string().optional(),
  etaMs: z.number().nullable().optional(),
  spentUsd: z.number().nullable().optional(),
  /** A queued run: the workers seen on its queue, each with the jobs it runs now and has finished for this run. */
  workers: z.array(z.object({ name: z.string(), active: z.number().int().min(0), done: z.number().int().min(0) })).optional(),
  /** A queued run: its jobs waiting in the queue. */
  queued: z.number().int().min(0).optional(),
});
export type JobProgress = z.infer<typeof JobProgressSchema>;

export const JobInfoSchema = z.object({
  id: z.string(),
  kind: JobKindSchema,
  state: JobStateSchema,
  title: z.string(),
  startedAt: z.string(),
  finishedAt: z.string().nullable(),
  progress: JobProgressSchema.nullable(),
  error: z.string().nullable(),
  /**
   * What the job produced (index: repo id; task / experiment: run id, once the run exists). A mining job has `mined`
   * from its start: the folder it mines and the folder it writes (which repo.mined reads, finished or not).
   */
  result: z
    .object({
      repoId: z.number().int().optional(),
      runId: z.string().optional(),
      mined: z.object({ folder: z.string(), out: z.string() }).optional(),
    })
    .nullable(),
  /** Set the moment a pause or cancel is asked for, while the job finishes its current step (then its state says it). */
  stopping: z.enum(['paused', 'cancelled']).nullable().optional(),
});
export type JobInfo = z.infer<typeof JobInfoSchema>;

/** What a call that starts a job answers: the job's id (its progress and result come as `job` events). */
export const JobStartedSchema = z.object({ jobId: z.string() });

// ---- reports ------------------------------------------------------------------------------------------------

export const ReportFileSchema = z.object({
  name: z.string(),
  mime: z.string(),
  content: z.string(),
});
export type ReportFile = z.infer<typeof ReportFileSchema>;

// ---- engine result types (interfaces in main/model) ---------------------------------------------------------

/**
 * A placeholder schema for a type the engine defines as a TypeScript interface: it checks that the value is an
 * object with the given top-level fields (so a malformed answer names the field) and passes the whole value on,
 * typed as T. It is not a schema of T; the interface in main/model stays the one source of the type.
 */
function opaque<T>(fields: z.ZodRawShape) {
  return z.looseObject(fields).transform((v) => v as unknown as T);
}

/** One (task, condition) result (main/model/results.ts); checked here only for its identity and Pass@k counts. */
export const TaskResultSchema = opaque<TaskResult>({ taskId: z.string(), condition: z.string(), n: count, c: count, candidates: z.array(z.unknown()) });

/** The report model of one or more runs (main/model/report.ts); checked here only for its title and tables. */
export const ReportModelSchema = opaque<ReportModel>({
  title: z.string(),
  generatedAt: z.string(),
  runs: z.array(z.unknown()),
  conditions: z.array(z.unknown()),
  tasks: z.array(z.unknown()),
});

// ---- imports (the Import view: main/host/calls/imports.ts) --------------------------------------------------

/** What an import brings in: a benchmark (raw files → tasks + manifest) or a published sample set. */
export const ImportKindSchema = z.enum(['repoexec', 'codereval', 'execrepobench', 'samples']);
export type ImportKind = z.infer<typeof ImportKindSchema>;

/** Where an import writes when the analyst names no output: a folder (benchmarks) or a set file (samples). */
export const ImportDefaultsSchema = z.object({ out: z.string(), dataDir: z.string() });
export type ImportDefaults = z.infer<typeof ImportDefaultsSchema>;

/** An import started as a job, and where it writes. */
export const ImportStartedSchema = z.object({ jobId: z.string(), out: z.string() });

const ImportWarningSchema = z.object({ reason: z.string(), file: z.string(), line: z.number().int().optional(), message: z.string() });

/** What a finished import made: its output, the counts, and its report (IMPORT.md, or a summary for a sample set). */
export const ImportSummarySchema = z.object({
  jobId: z.string(),
  kind: ImportKindSchema,
  input: z.string(),
  /** The output folder (benchmarks) or the written set file (samples). */
  out: z.string(),
  /** The manifest written (benchmarks), else null. */
  manifest: z.string().nullable(),
  /** The sample set written (samples), else null. */
  sampleSet: z.string().nullable(),
  /** The report file (IMPORT.md) when the importer writes one. */
  reportFile: z.string().nullable(),
  /** The report as Markdown text. */
  report: z.string(),
  /** Tasks imported (benchmarks: manifest lines; samples: tasks in the set). */
  tasks: count,
  /** Records, lines or definitions left out, by reason. */
  dropped: z.record(z.string(), count),
  warnings: z.object({ count, byReason: z.record(z.string(), count), first: z.array(ImportWarningSchema) }),
  /** Further figures, labelled, in reading order (projects, modules, samples per task, …). */
  facts: z.array(z.object({ label: z.string(), value: z.string() })),
  /** A sample set's samples and official labels (null for a benchmark). */
  samples: z.object({ format: z.string(), samples: count, labelled: count, perTask: z.array(count), source: z.string() }).nullable(),
});
export type ImportSummary = z.infer<typeof ImportSummarySchema>;

// ---- mining (the Repository view's "Find tasks": main/host/calls/mining.ts) ---------------------------------

/** A mining job started, and the folder it writes (tasks.jsonl, MINE.md, the frozen copy, the resume state). */
export const MineStartedSchema = z.object({ jobId: z.string(), out: z.string() });

/** One kept task of a mined set, as the manifest holds it: its target, its tests and what its checks found. */
export const MinedTaskSchema = z.object({
  /** `<module>.<qualname>`. */
  id: z.string(),
  file: z.string(),
  qualname: z.string(),
  line: z.number().int().nullable(),
  /** Tests frozen for it (those its test command runs). */
  tests: count,
  /** Mutants of its reference its tests killed, of those made; null when none could be made. */
  mutants: z.object({ killed: count, made: count, score: z.number().min(0).max(1) }).nullable(),
  /** Where its verdicts are decided: tests and candidate in two processes, or in one (with hardening). */
  isolation: z.enum(['isolated', 'in-process']).nullable(),
  /** CoderEval's context level (self_contained … project_runnable). */
  context: z.string().nullable(),
});
export type MinedTask = z.infer<typeof MinedTaskSchema>;

/** A candidate function mining dropped, and why (`label`: the reason in words, as MINE.md names it). */
export const MinedDropSchema = z.object({
  id: z.string(),
  file: z.string(),
  qualname: z.string(),
  line: z.number().int().nullable(),
  reason: z.string(),
  label: z.string(),
  detail: z.string(),
});
export type MinedDrop = z.infer<typeof MinedDropSchema>;

/** What repo.mined answers: a mined set read back from its folder (the manifest and the decisions beside it). */
export const MinedSetSchema = z.object({
  out: z.string(),
  /** tasks.jsonl, or null before a run has written it. */
  manifest: z.string().nullable(),
  /** MINE.md, or null before a run has written it. */
  report: z.string().nullable(),
  /** The manifest is the last run's (false: a run stopped, or is running, and the tables show its decisions so far). */
  complete: z.boolean(),
  /** Candidate functions decided: kept plus dropped. */
  candidates: count,
  /** In the manifest's order (file, then line). */
  kept: z.array(MinedTaskSchema),
  /** By reason (as `droppedBy`), then file and line. */
  dropped: z.array(MinedDropSchema),
  /** Drops by reason, the later checks' first (those that ran something say most about the suite), as `dropped` is ordered. */
  droppedBy: z.array(z.object({ reason: z.string(), label: z.string(), count })),
  isolated: count,
  mutationScore: z.object({ median: z.number().nullable(), mean: z.number().nullable() }),
});
export type MinedSet = z.infer<typeof MinedSetSchema>;
