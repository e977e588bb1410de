// The command line's flags mapped onto the engine's typed requests, numbers coerced and checked here and nowhere
// else: the backend record (model/backend-spec.ts), a run's request (host/ops/run.ts RunInput), and the few values
// commands share (prices, a rate limit). A command reads its flags through these and passes typed values on.

import path from 'node:path';
import { BACKEND_KINDS, defined, type BackendKind, type BackendSpec, type Decompose } from '../../model/backend-spec.ts';
import { AFTER_FAILED_REPAIRS, UNVERIFIED_OUTPUTS, type RunKind } from '../../model/run-request.ts';
import { createBackend } from '../../generate/backends.ts';
import { loadPriceTable } from '../../generate/cost.ts';
import type { LlmBackend } from '../../generate/types.ts';
import type { ExchangeStore } from '../../store/exchanges.ts';
import type { RunInput } from '../ops/run.ts';
import { defaultModelsDir, userDataDir } from '../paths.ts';
import { pricesFileIn, ServiceError } from '../workspace.ts';
import { sandboxModeOf, UsageError, type Io } from './kit.ts';

export type Flags = Record<string, unknown>;

/** A number flag, checked: `--key must be an integer ≥ min, got "x"`. */
export function num(values: Flags, key: string, opts: { int?: boolean; min?: number } = {}): number | undefined {
  const raw = values[key];
  if (raw === undefined) return undefined;
  const v = Number(raw);
  if (!Number.isFinite(v) || (opts.int && !Number.isInteger(v)) || (opts.min !== undefined && v < opts.min)) {
    throw new UsageError(
      `--${key} must be ${opts.int ? 'an integer' : 'a number'}${opts.min !== undefined ? ` ≥ ${opts.min}` : ''}, got ${JSON.stringify(raw)}`,
    );
  }
  return v;
}

/** A string flag, absent when empty. */
const text = (values: Flags, key: string): string | undefined => (values[key] ? (values[key] as string) : undefined);

/** One of a list of words: `--key must be a, b or c (got x)`. */
function oneOf<T extends string>(values: Flags, key: string, allowed: readonly T[]): T | undefined {
  const v = text(values, key);
  if (v !== undefined && !allowed.includes(v as T)) throw new UsageError(`--${key} must be ${allowed.join(' or ')} (got ${v})`);
  return v as T | undefined;
}

/** The price table the user edits (created by `opencoder prices --init`; the desktop app's too). */
export function defaultPricesPath(): string {
  return pricesFileIn(userDataDir());
}

/** `--prices FILE` or the user's table (the built-in one when there is none). */
export function pricesOf(values: Flags, stored?: string) {
  return loadPriceTable(text(values, 'prices') ?? stored ?? defaultPricesPath());
}

/** `--backend`, checked. */
export function backendKindOf(values: Flags): BackendKind {
  const kind = values.backend as BackendKind;
  if (!BACKEND_KINDS.includes(kind)) throw new UsageError(`--backend must be one of ${BACKEND_KINDS.join(', ')}, got ${JSON.stringify(values.backend)}`);
  return kind;
}

/** `--decompose llm|fallback`, when given. */
export function decomposeOf(values: Flags): Decompose | undefined {
  const v = text(values, 'decompose');
  if (v !== undefined && v !== 'llm' && v !== 'fallback') throw new UsageError('--decompose must be llm or fallback');
  return v;
}

/** The backend record the flags describe (a kind's record keeps only the options it uses). */
export function backendOfFlags(values: Flags): BackendSpec {
  const kind = backendKindOf(values);
  const model = text(values, 'model');
  const mib = num(values, 'max-reply-mib', { min: 0.001 });
  const timeout = num(values, 'timeout', { min: 1 });
  const reliability = defined({
    timeoutMs: timeout === undefined ? undefined : timeout * 1000,
    maxRetries: num(values, 'retries', { int: true, min: 0 }),
    concurrency: num(values, 'concurrency', { int: true, min: 1 }),
    maxReplyBytes: mib === undefined ? undefined : Math.round(mib * 1024 * 1024),
  });
  const api = { ...defined({ model, baseURL: text(values, 'base-url') }), ...(Object.keys(reliability).length ? { reliability } : {}) };
  switch (kind) {
    case 'offline':
      return { kind };
    case 'openai':
      return { kind, ...api };
    case 'gemini':
      return { kind, ...api, ...defined({ thinkingBudget: num(values, 'thinking-budget', { int: true, min: -1 }) }) };
    case 'replay':
      return {
        kind,
        ...defined({ model, replayRun: text(values, 'replay-run') }),
        ...defined({ replayProvider: oneOf(values, 'replay-provider', ['openai', 'gemini', 'offline', 'imported', 'llama-cpp'] as const) }),
      };
    case 'imported':
      return { kind, ...defined({ samplesFile: text(values, 'samples') }), ...(values.extract === true ? { extract: true } : {}) };
    case 'llama-cpp': {
      const modelsDir = text(values, 'models');
      if (!model)
        throw new UsageError(`--backend llama-cpp needs --model FILE.gguf (a path, or a file name in the models folder ${modelsDir ?? defaultModelsDir()})`);
      return {
        kind,
        model,
        ...defined({ modelsDir, threads: num(values, 'threads', { int: true, min: 1 }), contextSize: num(values, 'context-size', { int: true, min: 16 }) }),
      };
    }
  }
}

/** What the CLI hands a backend besides its record: keys (from the environment, or a test's), retry messages. */
export interface BackendDeps {
  env?: NodeJS.ProcessEnv;
  /** Keys handed over by a caller (never logged or stored). */
  apiKeys?: { openai?: string; gemini?: string };
}

/** The backend a record describes, built for this process: keys from the environment, retries said on stderr. */
export function cliBackend(spec: BackendSpec, exchanges: ExchangeStore, deps: BackendDeps, io: Io): LlmBackend {
  return createBackend(spec, deps.env ?? process.env, {
    exchanges,
    modelsDir: defaultModelsDir(),
    ...(deps.apiKeys ? { apiKeys: deps.apiKeys } : {}),
    onRetry: (m) => io.err(`retry: ${m}`),
  });
}

/** The flags of `run` / `ablate` as a run request (the conditions: `--method`, or the factorial's `--base`, or the ladder). */
export function runInputOf(values: Flags, kind: RunKind): RunInput {
  if (!values.manifest) throw new UsageError('--manifest FILE is required (or --resume RUN)');
  const ids = text(values, 'ids')
    ?.split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const methods = kind === 'run' ? (values.method as string).split(',') : kind === 'ablate' ? [values.base as string] : undefined;
  return {
    kind,
    manifest: path.resolve(values.manifest as string),
    ...defined({
      taskIds: ids?.length ? ids : undefined,
      limit: num(values, 'limit', { int: true, min: 1 }),
      methods,
      preset: text(values, 'preset'),
      candidates: num(values, 'candidates', { int: true, min: 1 }),
      temperature: num(values, 'temperature', { min: 0 }),
      unverifiedOutput: oneOf(values, 'unverified-output', UNVERIFIED_OUTPUTS),
      afterFailedRepairs: oneOf(values, 'after-failed-repairs', AFTER_FAILED_REPAIRS),
      decompose: decomposeOf(values),
      sandbox: sandboxModeOf(values),
      parallel: num(values, 'parallel', { int: true, min: 1 }),
      maxUsd: num(values, 'max-usd', { min: 0 }),
    }),
    backend: backendOfFlags(values),
  };
}

/** The run flags a resume refuses: the run continues as it was frozen. */
export function refuseOnResume(values: Flags): void {
  const given = ['candidates', 'temperature', 'preset', 'unverified-output', 'after-failed-repairs'].filter((k) => values[k] !== undefined);
  if (given.length) throw new UsageError(`--resume continues the run as it was frozen; it does not take ${given.map((k) => `--${k}`).join(', ')}`);
}

/** `--rate-limit 60/min`: MAX jobs per PERIOD (s, min, h, or a number of milliseconds). */
export function rateLimitOf(textValue: string): { max: number; durationMs: number } {
  const m = /^(\d+)\s*\/\s*(s|sec|min|h|\d+)$/.exec(textValue.trim());
  const unit: Record<string, number> = { s: 1000, sec: 1000, min: 60_000, h: 3_600_000 };
  const max = m ? Number(m[1]) : NaN;
  const durationMs = m ? (unit[m[2]!] ?? Number(m[2])) : NaN;
  if (!m || !(max >= 1) || !(durationMs >= 1))
    throw new UsageError(`--rate-limit must be MAX/PERIOD, e.g. 60/min, 5/s or 100/60000 (got ${JSON.stringify(textValue)})`);
  return { max, durationMs };
}

/** A request an operation refused as invalid input is, on the command line, a usage error (exit code 2). */
export function asUsage<T>(fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    if (err instanceof ServiceError && err.code === 'invalid-input') throw new UsageError(err.message);
    throw err;
  }
}
