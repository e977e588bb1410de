// Making a backend from what the user chose (CLI flags or the app's settings), and finding its key.

import type { ExchangeStore } from '../store/exchanges.ts';
import { LlmError } from './errors.ts';
import { GeminiBackend } from './gemini-backend.ts';
import { ImportedBackend } from './imported-backend.ts';
import { OfflineBackend } from './offline-backend.ts';
import { OpenAiBackend } from './openai-backend.ts';
import { ReplayBackend } from './record.ts';
import type { ReliabilityOptions } from './reliability.ts';
import type { LlmBackend, Provider } from './types.ts';

export type BackendKind = 'offline' | 'openai' | 'gemini' | 'replay' | 'imported';
export const BACKEND_KINDS: readonly BackendKind[] = ['offline', 'openai', 'gemini', 'replay', 'imported'];

/** The paper's models: the default when no --model is given. */
export const DEFAULT_MODELS = { openai: 'gpt-4o-mini', gemini: 'gemini-2.5-flash' } as const;

export interface BackendSpec {
  kind: BackendKind;
  model?: string;
  /** OpenAI-compatible server (Ollama, llama.cpp, vLLM, LM Studio) or another Gemini endpoint. */
  baseURL?: string;
  /** A key handed over by the desktop app; otherwise the environment is read. Never logged or stored. */
  apiKey?: string;
  reliability?: ReliabilityOptions;
  /** Gemini 2.5 thinking budget. */
  thinkingBudget?: number;
  onRetry?: (message: string) => void;
  /** Replay: the store to answer from, the run to replay, and the provider recorded (found from the store when unique). */
  store?: ExchangeStore;
  replayRun?: string;
  replayProvider?: Provider;
  /** Imported: a JSONL file of sample sets (CoderEval's Raw_Input.jsonl_out.jsonl, a set from samples import, …). */
  samplesFile?: string;
  /** Imported: extract code from each sample as from a model reply; default false (every sample runs byte for byte). */
  extract?: boolean;
}

/** The key for a provider: the one passed in, else OPENAI_API_KEY / GEMINI_API_KEY (then GOOGLE_API_KEY). */
export function resolveApiKey(provider: 'openai' | 'gemini', explicit: string | undefined, env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (explicit?.trim()) return explicit.trim();
  const v = provider === 'openai' ? env.OPENAI_API_KEY : (env.GEMINI_API_KEY ?? env.GOOGLE_API_KEY);
  return v?.trim() || undefined;
}

export function createBackend(spec: BackendSpec, env: NodeJS.ProcessEnv = process.env): LlmBackend {
  switch (spec.kind) {
    case 'offline':
      return new OfflineBackend();
    case 'openai': {
      const baseURL = spec.baseURL ?? (env.OPENAI_BASE_URL?.trim() || undefined);
      return new OpenAiBackend({
        model: spec.model ?? DEFAULT_MODELS.openai,
        ...(baseURL ? { baseURL } : {}),
        ...optional('apiKey', resolveApiKey('openai', spec.apiKey, env)),
        ...optional('reliability', spec.reliability),
        ...optional('onRetry', spec.onRetry),
      });
    }
    case 'gemini':
      return new GeminiBackend({
        model: spec.model ?? DEFAULT_MODELS.gemini,
        ...optional('baseURL', spec.baseURL),
        ...optional('apiKey', resolveApiKey('gemini', spec.apiKey, env)),
        ...optional('reliability', spec.reliability),
        ...optional('thinkingBudget', spec.thinkingBudget),
        ...optional('onRetry', spec.onRetry),
      });
    case 'imported':
      if (!spec.samplesFile) throw new LlmError('config', 'imported', 'The imported backend needs a sample file (--samples FILE).');
      return ImportedBackend.fromFile(spec.samplesFile, undefined, { extract: spec.extract === true });
    case 'replay':
      return replayBackendFor(spec);
    default:
      throw new LlmError('config', String(spec.kind), `Unknown backend "${String(spec.kind)}"; choose one of ${BACKEND_KINDS.join(', ')}.`);
  }
}

function optional<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
}

function replayBackendFor(spec: BackendSpec): ReplayBackend {
  const store = spec.store;
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
    if (found.length > 1) throw new LlmError('config', 'replay', `${model} was recorded with several backends (${found.join(', ')}); say which with --replay-provider.`);
    provider = found[0] as Provider;
  }
  return new ReplayBackend(store, { provider, model, ...(spec.replayRun ? { runId: spec.replayRun } : {}) });
}
