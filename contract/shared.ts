// The contract's shared input schemas: paths, evidence sources, backends, method ids, the pipeline constants and
// settings the Settings view may change, the price table it may write, a custom task and an experiment request.
// calls.ts builds each call's input from these; the renderer validates its forms with the same schemas.

import { z } from 'zod';
import { DEFAULT_CONFIG, DEFAULT_MODELS } from '../main/model/config.ts';
import { AFTER_FAILED_REPAIRS, RUN_KINDS, SANDBOX_MODES, UNVERIFIED_OUTPUTS } from '../main/model/run-request.ts';

/** An absolute path with no NUL bytes; the host resolves it and checks it lies inside an allowed root. */
export const PathSchema = z
  .string()
  .min(1, 'a path is required')
  .max(4096)
  .refine((p) => !p.includes('\0'), 'a path cannot contain NUL bytes')
  .refine((p) => p.startsWith('/') || /^[A-Za-z]:[\\/]/.test(p), 'the path must be absolute');

/** The hosted providers whose API keys the app keeps (the OS keychain, or session memory in browser mode). */
export const KEY_PROVIDERS = ['openai', 'gemini'] as const;
export type KeyProvider = (typeof KEY_PROVIDERS)[number];

/** A job or run id; a task id (manifest ids can be long paths). */
export const IdSchema = z.string().min(1).max(200);
export const TaskIdSchema = z
  .string()
  .min(1, 'a task id is required')
  .max(500)
  .refine((s) => s === '' || s.trim() !== '', 'a task id cannot be only spaces');

/**
 * Text a person writes (a requirement, a signature, a command): required, and more than white space, which would
 * otherwise pass as "written" and run a task with nothing in it. The text itself is kept as written (indentation
 * matters in a signature).
 */
const writtenText = (what: string, max: number) =>
  z
    .string()
    .min(1, `${what} is required`)
    .max(max, `${what} is longer than ${max.toLocaleString('en-US')} characters`)
    .refine((s) => s === '' || s.trim() !== '', `${what} is only spaces or blank lines`);

export const SourcesSchema = z.object({ api: z.boolean(), context: z.boolean(), similar: z.boolean() });
export type Sources = z.infer<typeof SourcesSchema>;

/**
 * What Settings may choose: no model (the offline retrieval-only baseline), OpenAI or an OpenAI-compatible server
 * (`baseURL`: a local one, such as Ollama, llama.cpp, LM Studio or vLLM), Gemini, or a GGUF file run in process by
 * llama.cpp (`model`: the file's path, or a file name in the models folder). Settings saved before `llama-cpp`
 * existed parse unchanged.
 */
export const BACKEND_KINDS = ['offline', 'openai', 'gemini', 'llama-cpp'] as const;
export const BackendSchema = z
  .object({
    kind: z.enum(BACKEND_KINDS),
    /** A model name, or for llama-cpp a .gguf path (hence the path-sized limit). */
    model: z.string().max(4096).optional(),
    /** OpenAI-compatible local servers (llama.cpp, vLLM, Ollama, LM Studio): http(s) URL. */
    baseURL: z.string().url().max(500).optional(),
  })
  .superRefine((b, ctx) => {
    if (b.kind !== 'llama-cpp') {
      if ((b.model?.length ?? 0) > 200) ctx.addIssue({ code: 'custom', path: ['model'], message: 'a model name has at most 200 characters' });
      return;
    }
    if (!b.model?.trim()) ctx.addIssue({ code: 'custom', path: ['model'], message: 'choose a .gguf file (a path, or a file name in the models folder)' });
    if (b.baseURL) ctx.addIssue({ code: 'custom', path: ['baseURL'], message: 'a GGUF model runs in process: it takes no base URL' });
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

/** A task written in the app; every text field must hold more than white space. */
export const CustomTaskSchema = z.object({
  repo: PathSchema,
  file: writtenText('the file', 1000).refine(
    (f) => !f.startsWith('/') && !f.split(/[\\/]/).includes('..'),
    'file must be relative to the repository, without ..',
  ),
  qualname: writtenText('the qualified name', 300),
  requirement: writtenText('the requirement', 20_000),
  signature: writtenText('the signature', 2000),
  test_command: writtenText('the test command', 2000),
});
export type CustomTask = z.infer<typeof CustomTaskSchema>;

export const SettingsSchema = z.object({
  backend: BackendSchema,
  sandbox: z.enum(['auto', 'strong', 'weak']),
  encoder: z.enum(['auto', 'default', 'unixcoder']),
  parallel: z.number().int().min(1).max(16),
  pipeline: PipelineOverridesSchema,
  /**
   * Run experiments through a BullMQ queue on this Redis (redis:// or rediss://, no password: that comes from
   * OPENCODER_REDIS_PASSWORD in the app's environment); null or absent: run them in this process. Saving checks it.
   */
  queue: z.string().max(500).nullable().optional(),
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
export const PricesSchema = z.record(
  z
    .string()
    .min(1)
    .max(200)
    .regex(/^[\w.:/@-]+$/, 'a model name'),
  ModelPriceSchema,
);

/**
 * An experiment to estimate or start: the whole operation, as the CLI's `run` / `ablate` flags ask for it too (both
 * become one stored record, main/model/run-request.ts, through main/host/ops/run.ts). What it leaves out comes from
 * Settings: the backend, the sandbox, the pairs at once, the queue, and the pipeline constants.
 */
export const ExperimentRequestSchema = z
  .object({
    manifest: PathSchema,
    taskIds: z.array(TaskIdSchema).max(100_000).optional(),
    limit: z.number().int().min(1).optional(),
    kind: z.enum(RUN_KINDS),
    /** `run`: the methods compared; `ablate`: methods[0] is the factorial's base method. */
    methods: z.array(MethodIdSchema).min(1).max(16).optional(),
    /** A generation preset (main/pipeline/methods.ts GENERATION_PRESETS); `candidates` and `temperature` win over it. */
    preset: z.string().min(1).max(50).optional(),
    candidates: z.number().int().min(1).max(50).optional(),
    temperature: z.number().min(0).max(2).optional(),
    unverifiedOutput: z.enum(UNVERIFIED_OUTPUTS).optional(),
    afterFailedRepairs: z.enum(AFTER_FAILED_REPAIRS).optional(),
    /** Instead of the Settings backend. */
    backend: BackendSchema.optional(),
    /** A published sample set: the run uses its samples (byte for byte, no model called) instead of a model. */
    samples: PathSchema.optional(),
    /** Decompose requirements with the model, or with the offline splitter (default: the model when it is hosted). */
    decompose: z.enum(['llm', 'fallback']).optional(),
    sandbox: z.enum(SANDBOX_MODES).optional(),
    parallel: z.number().int().min(1).max(16).optional(),
    /** Refuse to start when the estimate is over this many US dollars. */
    maxUsd: z.number().min(0).optional(),
  })
  .strict();
