// Which model a run uses: one record, BackendSpec, from the CLI's flags, the app's Settings and a stored run alike.
// It holds no secret (keys come from the environment or the key store when the backend is built,
// generate/backends.ts createBackend) and nothing of this process (the exchange store, retry callbacks): a run
// stores it as it is, and a resume, a queue worker and the app read it back as it is.
//
// Runs stored before this record existed kept `{kind, model, baseURL, decompose, extra}` with the options under
// their CLI flag names as strings; legacyBackendRecord reads that shape, one way, into this one.

import { z } from 'zod';

export const BACKEND_KINDS = ['offline', 'openai', 'gemini', 'replay', 'imported', 'llama-cpp'] as const;
export type BackendKind = (typeof BACKEND_KINDS)[number];

/** How patiently a hosted model is called (generate/reliability.ts has the defaults). */
export const ReliabilitySchema = z
  .object({
    /** Per attempt, in ms. */
    timeoutMs: z.number().int().min(1).optional(),
    /** Retries after the first attempt. */
    maxRetries: z.number().int().min(0).optional(),
    /** Calls in flight at once. */
    concurrency: z.number().int().min(1).optional(),
    /** Absolute cap of one reply and of one candidate's text, in bytes. */
    maxReplyBytes: z.number().int().min(1).optional(),
  })
  .strict();

const api = {
  model: z.string().min(1).optional(),
  /** An OpenAI-compatible server (a local one) or another Gemini endpoint. */
  baseURL: z.string().min(1).optional(),
  reliability: ReliabilitySchema.optional(),
};

export const BackendSpecSchema = z.discriminatedUnion('kind', [
  /** No language model: retrieval and adaptation of similar code. */
  z.object({ kind: z.literal('offline') }).strict(),
  z.object({ kind: z.literal('openai'), ...api }).strict(),
  z.object({ kind: z.literal('gemini'), ...api, thinkingBudget: z.number().int().min(-1).optional() }).strict(),
  /** Answers from recorded exchanges: the run to replay and the provider recorded (found from the store when unique). */
  z
    .object({
      kind: z.literal('replay'),
      model: z.string().min(1).optional(),
      replayRun: z.string().min(1).optional(),
      replayProvider: z.enum(['openai', 'gemini', 'offline', 'imported', 'llama-cpp']).optional(),
    })
    .strict(),
  /** Candidates generated elsewhere: a JSONL sample set; `extract` reads each sample as a model reply. */
  z.object({ kind: z.literal('imported'), samplesFile: z.string().min(1).optional(), extract: z.literal(true).optional() }).strict(),
  /** A GGUF file run in process: a path, or a file name looked up in `modelsDir`. */
  z
    .object({
      kind: z.literal('llama-cpp'),
      model: z.string().min(1),
      modelsDir: z.string().min(1).optional(),
      threads: z.number().int().min(1).optional(),
      contextSize: z.number().int().min(16).optional(),
    })
    .strict(),
]);
export type BackendSpec = z.infer<typeof BackendSpecSchema>;
export type BackendSpecOf<K extends BackendKind> = Extract<BackendSpec, { kind: K }>;

/** How a run decomposes requirements: with its language model, or with the offline sentence splitter. */
export type Decompose = 'llm' | 'fallback';

/** A model that can decompose by default: the hosted ones and their replay. */
export function defaultDecompose(kind: BackendKind): Decompose {
  return kind === 'openai' || kind === 'gemini' || kind === 'replay' ? 'llm' : 'fallback';
}

/** A spec checked against the schema, its keys in one order (what makes two equal records byte-identical). */
export function parseBackendSpec(value: unknown): BackendSpec {
  return BackendSpecSchema.parse(value);
}

/** A run's stored backend, new shape or old: the spec, and the decomposition an old record carried with it. */
export function storedBackendSpec(value: unknown): { spec: BackendSpec; decompose?: Decompose } {
  if (value && typeof value === 'object' && 'extra' in value) return legacyBackendRecord(value as LegacyRecord);
  return { spec: parseBackendSpec(value) };
}

interface LegacyRecord {
  kind: string;
  model?: string | null;
  baseURL?: string | null;
  decompose?: Decompose;
  extra?: Record<string, unknown>;
}

/** Reads the record runs kept before BackendSpec (options under flag names, numbers as flag strings); one way. */
function legacyBackendRecord(r: LegacyRecord): { spec: BackendSpec; decompose?: Decompose } {
  const x = r.extra ?? {};
  const text = (key: string) => {
    const v = x[key];
    return typeof v === 'string' && v !== '' ? v : undefined;
  };
  const num = (key: string) => {
    const raw = x[key];
    if (raw === undefined || raw === null || raw === '') return undefined;
    const v = Number(raw);
    if (!Number.isFinite(v)) throw new RangeError(`The stored backend option ${key} is not a number (${JSON.stringify(raw)}).`);
    return v;
  };
  const timeout = num('timeout');
  const reliability = {
    ...(timeout !== undefined ? { timeoutMs: timeout * 1000 } : {}),
    ...defined({ maxRetries: num('retries'), concurrency: num('concurrency') }),
  };
  const apiPart = { ...defined({ model: r.model || undefined, baseURL: r.baseURL || undefined }), ...(Object.keys(reliability).length ? { reliability } : {}) };
  const byKind: Record<string, () => unknown> = {
    offline: () => ({ kind: 'offline' }),
    openai: () => ({ kind: 'openai', ...apiPart }),
    gemini: () => ({ kind: 'gemini', ...apiPart, ...defined({ thinkingBudget: num('thinking-budget') }) }),
    replay: () => ({ kind: 'replay', ...defined({ model: r.model || undefined, replayRun: text('replay-run'), replayProvider: text('replay-provider') }) }),
    imported: () => ({ kind: 'imported', ...defined({ samplesFile: text('samples') }), ...(x.extract === true ? { extract: true } : {}) }),
    'llama-cpp': () => ({
      kind: 'llama-cpp',
      model: r.model ?? '',
      ...defined({ modelsDir: text('models'), threads: num('threads'), contextSize: num('context-size') }),
    }),
  };
  const make = byKind[r.kind];
  if (!make) throw new RangeError(`Unknown backend "${r.kind}" in a stored run; one of ${BACKEND_KINDS.join(', ')}.`);
  return { spec: parseBackendSpec(make()), ...(r.decompose ? { decompose: r.decompose } : {}) };
}

/** The entries whose value is defined. */
export function defined<T extends Record<string, unknown>>(o: T): { [K in keyof T]?: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as { [K in keyof T]?: Exclude<T[K], undefined> };
}
