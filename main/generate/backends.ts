// The one function that builds a generation backend from its record (model/backend-spec.ts BackendSpec: offline,
// OpenAI or an OpenAI-compatible local server, Gemini, a replay of recorded exchanges, an imported sample set, a
// GGUF model run in process by llama.cpp) and what this process supplies around it (keys, the exchange store).

import type { ExchangeStore } from '../store/exchanges.ts';
import { LlmError } from './errors.ts';
import { GeminiBackend } from './gemini-backend.ts';
import { ImportedBackend } from './imported-backend.ts';
import { LlamaCppBackend } from './llama-cpp-backend.ts';
import { OfflineBackend } from './offline-backend.ts';
import { OpenAiBackend } from './openai-backend.ts';
import { ReplayBackend } from './record.ts';
import type { LlmBackend, Provider } from './types.ts';
import { BACKEND_KINDS, type BackendSpec, type BackendSpecOf } from '../model/backend-spec.ts';
import { DEFAULT_MODELS } from '../model/config.ts';

export { BACKEND_KINDS, type BackendKind, type BackendSpec } from '../model/backend-spec.ts';
export { DEFAULT_MODELS };

/** What the process supplies around a spec (the spec's own fields win): the exchange store a replay reads, keys, retry messages. */
export interface BackendRuntime {
  exchanges?: ExchangeStore;
  /** Keys handed over by the desktop app or a test (never logged or stored); else the environment's. */
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
        ...optional('apiKey', resolveApiKey('openai', runtime.apiKeys?.openai, env)),
        ...optional('reliability', spec.reliability),
        ...optional('onRetry', runtime.onRetry),
      });
    }
    case 'gemini':
      return new GeminiBackend({
        model: spec.model ?? DEFAULT_MODELS.gemini,
        ...optional('baseURL', spec.baseURL),
        ...optional('apiKey', resolveApiKey('gemini', runtime.apiKeys?.gemini, env)),
        ...optional('reliability', spec.reliability),
        ...optional('thinkingBudget', spec.thinkingBudget),
        ...optional('onRetry', runtime.onRetry),
      });
    case 'imported':
      if (!spec.samplesFile) throw new LlmError('config', 'imported', 'The imported backend needs a sample file (--samples FILE).');
      return ImportedBackend.fromFile(spec.samplesFile, undefined, { extract: spec.extract === true });
    case 'replay':
      return replayBackendFor(spec, runtime.exchanges);
    case 'llama-cpp': {
      const modelsDir = spec.modelsDir ?? runtime.modelsDir;
      return new LlamaCppBackend({
        model: spec.model,
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

function replayBackendFor(spec: BackendSpecOf<'replay'>, store: ExchangeStore | undefined): ReplayBackend {
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
