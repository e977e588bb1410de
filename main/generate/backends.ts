// The typed choice of a generation backend (BackendSpec: offline, OpenAI or an OpenAI-compatible local server,
// Gemini, a replay of recorded exchanges, an imported sample set, a GGUF model run in process by llama.cpp) and
// the one function that builds a backend from it. The CLI turns its flags into a spec
// (main/host/commands/generate-commands.ts), the desktop engine its settings (main/host/calls/runs.ts); a stored
// run's backend record is read back into a spec here.

import type { ExchangeStore } from '../store/exchanges.ts';
import { LlmError } from './errors.ts';
import { GeminiBackend } from './gemini-backend.ts';
import { ImportedBackend } from './imported-backend.ts';
import { LlamaCppBackend } from './llama-cpp-backend.ts';
import { OfflineBackend } from './offline-backend.ts';
import { OpenAiBackend } from './openai-backend.ts';
import { ReplayBackend } from './record.ts';
import type { ReliabilityOptions } from './reliability.ts';
import type { LlmBackend, Provider } from './types.ts';

/** The paper's models: the default when a spec names no model. */
export const DEFAULT_MODELS = { openai: 'gpt-4o-mini', gemini: 'gemini-2.5-flash' } as const;

/** A model behind an HTTP API: which one, where, with which key, and how patiently. */
interface ApiSpec {
  model?: string;
  /** OpenAI-compatible server (Ollama, llama.cpp, vLLM, LM Studio) or another Gemini endpoint. */
  baseURL?: string;
  /** A key handed over by the desktop app; otherwise the environment is read. Never logged or stored. */
  apiKey?: string;
  reliability?: ReliabilityOptions;
  onRetry?: (message: string) => void;
}

/** No language model: retrieval and adaptation of similar code (main/generate/offline-backend.ts). */
export interface OfflineSpec {
  kind: 'offline';
}

/** OpenAI's API, or any OpenAI-compatible server (a local one) when `baseURL` names it. */
export interface OpenAiSpec extends ApiSpec {
  kind: 'openai';
}

export interface GeminiSpec extends ApiSpec {
  kind: 'gemini';
  /** Gemini 2.5 thinking budget. */
  thinkingBudget?: number;
}

/** Answers from recorded exchanges: the store to answer from, the run to replay, and the provider recorded (found from the store when unique). */
export interface ReplaySpec {
  kind: 'replay';
  model?: string;
  replayRun?: string;
  replayProvider?: Provider;
  store?: ExchangeStore;
}

/** Candidates generated elsewhere: a JSONL file of sample sets (CoderEval's Raw_Input.jsonl_out.jsonl, a set from samples import, …). */
export interface ImportedSpec {
  kind: 'imported';
  samplesFile?: string;
  /** Extract code from each sample as from a model reply; default false (every sample runs byte for byte). */
  extract?: boolean;
}

/** A GGUF model on this machine, run in process by llama.cpp (main/generate/llama-cpp-backend.ts). */
export interface LlamaCppSpec {
  kind: 'llama-cpp';
  /** A path to a .gguf file, or a file name in the models folder. */
  model?: string;
  /** Where a file name is looked up (the CLI's --models, default the workspace's models folder). */
  modelsDir?: string;
  threads?: number;
  contextSize?: number;
}

export type BackendSpec = OfflineSpec | OpenAiSpec | GeminiSpec | ReplaySpec | ImportedSpec | LlamaCppSpec;
export type BackendKind = BackendSpec['kind'];
export const BACKEND_KINDS: readonly BackendKind[] = ['offline', 'openai', 'gemini', 'replay', 'imported', 'llama-cpp'];

/** What the process supplies around a spec (the spec's own fields win): the exchange store a replay reads, keys, retry messages. */
export interface BackendRuntime {
  exchanges?: ExchangeStore;
  /** Keys handed over by the desktop app (never logged or stored). */
  apiKeys?: { openai?: string; gemini?: string };
  onRetry?: (message: string) => void;
  /** The models folder a llama-cpp spec without one looks its model up in. */
  modelsDir?: string;
}

/** The key for a provider: the one passed in, else OPENAI_API_KEY / GEMINI_API_KEY (then GOOGLE_API_KEY). */
export function resolveApiKey(provider: 'openai' | 'gemini', explicit: string | undefined, env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (explicit?.trim()) return explicit.trim();
  const v = provider === 'openai' ? env.OPENAI_API_KEY : (env.GEMINI_API_KEY ?? env.GOOGLE_API_KEY);
  return v?.trim() || undefined;
}

/** The backend a spec describes. */
export function createBackend(spec: BackendSpec, env: NodeJS.ProcessEnv = process.env, runtime: BackendRuntime = {}): LlmBackend {
  switch (spec.kind) {
    case 'offline':
      return new OfflineBackend();
    case 'openai': {
      const baseURL = spec.baseURL ?? (env.OPENAI_BASE_URL?.trim() || undefined);
      return new OpenAiBackend({
        model: spec.model ?? DEFAULT_MODELS.openai,
        ...(baseURL ? { baseURL } : {}),
        ...optional('apiKey', resolveApiKey('openai', spec.apiKey ?? runtime.apiKeys?.openai, env)),
        ...optional('reliability', spec.reliability),
        ...optional('onRetry', spec.onRetry ?? runtime.onRetry),
      });
    }
    case 'gemini':
      return new GeminiBackend({
        model: spec.model ?? DEFAULT_MODELS.gemini,
        ...optional('baseURL', spec.baseURL),
        ...optional('apiKey', resolveApiKey('gemini', spec.apiKey ?? runtime.apiKeys?.gemini, env)),
        ...optional('reliability', spec.reliability),
        ...optional('thinkingBudget', spec.thinkingBudget),
        ...optional('onRetry', spec.onRetry ?? runtime.onRetry),
      });
    case 'imported':
      if (!spec.samplesFile) throw new LlmError('config', 'imported', 'The imported backend needs a sample file (--samples FILE).');
      return ImportedBackend.fromFile(spec.samplesFile, undefined, { extract: spec.extract === true });
    case 'replay':
      return replayBackendFor(spec, spec.store ?? runtime.exchanges);
    case 'llama-cpp': {
      const modelsDir = spec.modelsDir ?? runtime.modelsDir;
      return new LlamaCppBackend({
        model: spec.model ?? '',
        ...optional('modelsDir', modelsDir),
        ...optional('threads', spec.threads),
        ...optional('contextSize', spec.contextSize),
      });
    }
    default:
      throw unknownKind((spec as { kind: unknown }).kind);
  }
}

function unknownKind(kind: unknown): LlmError {
  return new LlmError('config', String(kind), `Unknown backend "${String(kind)}"; choose one of ${BACKEND_KINDS.join(', ')}.`);
}

function optional<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
}

function replayBackendFor(spec: ReplaySpec, store: ExchangeStore | undefined): ReplayBackend {
  if (!store) throw new LlmError('config', 'replay', 'Replay needs the workspace database that holds the recorded run (--db FILE).');
  let provider = spec.replayProvider;
  let model = spec.model;
  if (spec.replayRun) {
    const run = store.getRun(spec.replayRun);
    if (!run) throw new LlmError('config', 'replay', `No generation run ${spec.replayRun} in ${store.dbPath}.`);
    provider ??= run.provider as Provider;
    model ??= run.model;
  }
  if (!model) throw new LlmError('config', 'replay', 'Replay needs the model that was recorded (--model M) or the run to replay (--replay-run RUN).');
  if (!provider) {
    const found = store.providersFor(model);
    if (found.length === 0) throw new LlmError('config', 'replay', `${store.dbPath} holds no recorded exchanges for model ${model}; record a run first.`);
    if (found.length > 1)
      throw new LlmError('config', 'replay', `${model} was recorded with several backends (${found.join(', ')}); say which with --replay-provider.`);
    provider = found[0] as Provider;
  }
  return new ReplayBackend(store, { provider, model, ...(spec.replayRun ? { runId: spec.replayRun } : {}) });
}

// ---- a stored run's backend ---------------------------------------------------------------------------------

/** The non-secret backend choice an experiment run keeps (main/experiment/orchestrate.ts StoredBackend, less `decompose`). */
export interface BackendRecord {
  kind: string;
  model: string | null;
  baseURL: string | null;
  /** The other options, under the names runs have always stored them with (those of the `opencoder run` flags that wrote them). */
  extra: Record<string, unknown>;
}

/** The spec a stored run's backend record describes (a resume rebuilds what the run froze). */
export function backendSpecOfRecord(record: BackendRecord): BackendSpec {
  const x = record.extra;
  const text = (key: string) => (typeof x[key] === 'string' && x[key] !== '' ? (x[key] as string) : undefined);
  const model = record.model || undefined;
  const baseURL = record.baseURL || undefined;
  switch (record.kind) {
    case 'offline':
      return { kind: 'offline' };
    case 'openai':
      return { kind: 'openai', ...optional('model', model), ...optional('baseURL', baseURL), ...reliabilityOfRecord(record) };
    case 'gemini': {
      const thinkingBudget = numberOfRecord(record, 'thinking-budget');
      return {
        kind: 'gemini',
        ...optional('model', model),
        ...optional('baseURL', baseURL),
        ...optional('thinkingBudget', thinkingBudget),
        ...reliabilityOfRecord(record),
      };
    }
    case 'replay':
      return {
        kind: 'replay',
        ...optional('model', model),
        ...optional('replayRun', text('replay-run')),
        ...optional('replayProvider', text('replay-provider') as Provider | undefined),
      };
    case 'imported':
      return { kind: 'imported', ...optional('samplesFile', text('samples')), ...(x.extract === true ? { extract: true } : {}) };
    case 'llama-cpp':
      return {
        kind: 'llama-cpp',
        ...optional('model', model),
        ...optional('modelsDir', text('models')),
        ...optional('threads', numberOfRecord(record, 'threads')),
        ...optional('contextSize', numberOfRecord(record, 'context-size')),
      };
    default:
      throw unknownKind(record.kind);
  }
}

function numberOfRecord(record: BackendRecord, key: string): number | undefined {
  const raw = record.extra[key];
  if (raw === undefined || raw === null || raw === '') return undefined;
  const v = Number(raw);
  if (!Number.isFinite(v)) throw new LlmError('config', record.kind, `The stored backend option ${key} is not a number (${JSON.stringify(raw)}).`);
  return v;
}

function reliabilityOfRecord(record: BackendRecord): { reliability?: ReliabilityOptions } {
  const timeout = numberOfRecord(record, 'timeout');
  const retries = numberOfRecord(record, 'retries');
  const concurrency = numberOfRecord(record, 'concurrency');
  const reliability: ReliabilityOptions = {
    ...(timeout !== undefined ? { timeoutMs: timeout * 1000 } : {}),
    ...optional('maxRetries', retries),
    ...optional('concurrency', concurrency),
  };
  return Object.keys(reliability).length ? { reliability } : {};
}
