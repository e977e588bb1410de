// Timeouts, retries (exponential backoff with full jitter, honouring the server's Retry-After) and a
// concurrency limit: the same policy for every network backend, whatever its SDK would do on its own.

import { LlmError } from './errors.ts';
import { enforceTextCap, REPLY_CAP, type ByteCap } from './reply-cap.ts';
import type { ChatResponse } from './types.ts';

export interface ReliabilityOptions {
  /** Per attempt, in ms (default 120 000). */
  timeoutMs?: number;
  /** Retries after the first attempt (default 4). */
  maxRetries?: number;
  /** First backoff step in ms (default 1000); doubles per retry. */
  baseDelayMs?: number;
  /** Cap of one backoff wait in ms (default 60 000). */
  maxDelayMs?: number;
  /** A Retry-After longer than this fails at once, saying so (default 120 000): a quota, not a hiccup. */
  maxRetryAfterMs?: number;
  /** Calls in flight at once per backend (default 4). */
  concurrency?: number;
  /** Absolute cap of one reply's body and of one candidate's text, in bytes (default 16 MiB; reply-cap.ts derives the caps below it). */
  maxReplyBytes?: number;
  /** Source of jitter (tests pass a fixed one). */
  random?: () => number;
}

export const RELIABILITY_DEFAULTS = {
  timeoutMs: 120_000,
  maxRetries: 4,
  baseDelayMs: 1000,
  maxDelayMs: 60_000,
  maxRetryAfterMs: 120_000,
  concurrency: 4,
  maxReplyBytes: REPLY_CAP.absoluteBytes,
} as const;

export type ResolvedReliability = Required<Omit<ReliabilityOptions, 'random'>> & { random: () => number };

export function resolveReliability(o: ReliabilityOptions = {}): ResolvedReliability {
  return {
    timeoutMs: o.timeoutMs ?? RELIABILITY_DEFAULTS.timeoutMs,
    maxRetries: o.maxRetries ?? RELIABILITY_DEFAULTS.maxRetries,
    baseDelayMs: o.baseDelayMs ?? RELIABILITY_DEFAULTS.baseDelayMs,
    maxDelayMs: o.maxDelayMs ?? RELIABILITY_DEFAULTS.maxDelayMs,
    maxRetryAfterMs: o.maxRetryAfterMs ?? RELIABILITY_DEFAULTS.maxRetryAfterMs,
    concurrency: Math.max(1, o.concurrency ?? RELIABILITY_DEFAULTS.concurrency),
    maxReplyBytes: Math.max(1, o.maxReplyBytes ?? RELIABILITY_DEFAULTS.maxReplyBytes),
    random: o.random ?? Math.random,
  };
}

/** A counting semaphore: at most `limit` functions run at once, the rest wait in order. */
export class Limiter {
  private active = 0;
  private readonly queue: (() => void)[] = [];

  constructor(readonly limit: number) {}

  async run<T>(fn: () => Promise<T>): Promise<T> {
    if (this.active >= this.limit) await new Promise<void>((resolve) => this.queue.push(resolve));
    this.active++;
    try {
      return await fn();
    } finally {
      this.active--;
      this.queue.shift()?.();
    }
  }

  get inFlight(): number {
    return this.active;
  }
}

/** Parses Retry-After (seconds or an HTTP date) or retry-after-ms; undefined when absent or unreadable. */
export function parseRetryAfter(headers: { get(name: string): string | null } | Record<string, string> | undefined): number | undefined {
  if (!headers) return undefined;
  const get = (name: string): string | null =>
    typeof (headers as { get?: unknown }).get === 'function'
      ? (headers as { get(n: string): string | null }).get(name)
      : ((headers as Record<string, string>)[name] ?? null);
  const ms = get('retry-after-ms');
  if (ms && Number.isFinite(Number(ms))) return Math.max(0, Number(ms));
  const ra = get('retry-after');
  if (!ra) return undefined;
  if (/^\s*\d+(\.\d+)?\s*$/.test(ra)) return Math.max(0, Number(ra) * 1000);
  const date = Date.parse(ra);
  return Number.isFinite(date) ? Math.max(0, date - Date.now()) : undefined;
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const t = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(t);
      reject(signal!.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

export interface AttemptInfo {
  /** Aborts when the caller cancels or this attempt's timeout expires. */
  signal: AbortSignal;
  attempt: number;
  /** True once this attempt's timeout expired (to tell a timeout from a cancel). */
  timedOut: () => boolean;
}

/**
 * Runs `attempt` until it succeeds, fails with a non-retryable LlmError, or retries run out.
 * Each attempt gets its own timeout; `onRetry` hears about every wait (for progress lines).
 */
export async function withRetries<T>(
  backend: string,
  policy: ResolvedReliability,
  attempt: (info: AttemptInfo) => Promise<T>,
  opts: { signal?: AbortSignal; onRetry?: (err: LlmError, waitMs: number, attempt: number) => void } = {},
): Promise<{ value: T; retries: number }> {
  for (let n = 0; ; n++) {
    if (opts.signal?.aborted) throw new LlmError('cancelled', backend, `${backend}: cancelled`);
    const timer = new AbortController();
    let expired = false;
    const t = setTimeout(() => {
      expired = true;
      timer.abort(new Error('timeout'));
    }, policy.timeoutMs);
    const signal = opts.signal ? AbortSignal.any([opts.signal, timer.signal]) : timer.signal;
    let err: LlmError;
    try {
      const value = await attempt({ signal, attempt: n, timedOut: () => expired });
      return { value, retries: n };
    } catch (e) {
      if (opts.signal?.aborted) throw new LlmError('cancelled', backend, `${backend}: cancelled`, { cause: e });
      err =
        e instanceof LlmError
          ? e
          : expired
            ? new LlmError('timeout', backend, `${backend}: no answer within ${policy.timeoutMs} ms`, { cause: e })
            : new LlmError('network', backend, `${backend}: ${(e as Error)?.message ?? String(e)}`, { cause: e });
    } finally {
      clearTimeout(t);
    }
    if (!err.retryable) throw err;
    if (n >= policy.maxRetries) {
      throw new LlmError(err.kind, backend, `${err.message} (gave up after ${n + 1} attempts)`, {
        status: err.status,
        cause: err,
      });
    }
    let wait: number;
    if (err.retryAfterMs !== undefined) {
      if (err.retryAfterMs > policy.maxRetryAfterMs) {
        throw new LlmError(
          err.kind,
          backend,
          `${err.message}; the server asks to wait ${(err.retryAfterMs / 1000).toFixed(0)} s before retrying, longer than the ` +
            `${(policy.maxRetryAfterMs / 1000).toFixed(0)} s this run allows: the quota may be exhausted. Try later or lower the concurrency.`,
          { status: err.status, retryAfterMs: err.retryAfterMs, cause: err },
        );
      }
      // the server's wait, plus a little jitter so that parallel callers do not return in lockstep
      wait = err.retryAfterMs + policy.random() * Math.min(policy.baseDelayMs, err.retryAfterMs * 0.1 + 1);
    } else {
      // full jitter: uniform in [0, min(cap, base · 2^n)]
      wait = policy.random() * Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** n);
    }
    opts.onRetry?.(err, wait, n);
    try {
      await sleep(wait, opts.signal);
    } catch (e) {
      throw new LlmError('cancelled', backend, `${backend}: cancelled`, { cause: e });
    }
  }
}

export interface PolicyCall<T> {
  /** Backend id and label, for retry messages and warnings. */
  id: string;
  label: string;
  policy: ResolvedReliability;
  limiter: Limiter;
  /** Switched off (and kept off) when the server refuses log-probabilities. */
  capabilities: { logprobs: boolean };
  wantLogprobs: boolean;
  signal?: AbortSignal;
  onRetry?: (message: string) => void;
  /** One attempt. */
  once: (logprobs: boolean, signal: AbortSignal) => Promise<T>;
  /** Turns the vendor's response into ours. */
  normalise: (response: T, warnings: string[]) => ChatResponse;
  /** Cap of each choice's text (the body's own cap is the SDK fetch's business): over it, the reply is refused, not retried. */
  textCap: ByteCap;
}

/**
 * One backend chat call under the concurrency limit and the retry policy, normalised, with its retries,
 * calls and latency. A server that rejects log-probabilities (some models and compatible servers do) is
 * asked again without them, with a warning. A choice whose text is over the cap fails the call (`oversized`).
 */
export async function chatWithPolicy<T>(c: PolicyCall<T>): Promise<ChatResponse> {
  const started = performance.now();
  const warnings: string[] = [];
  let retries = 0;
  const value = await c.limiter.run(async () => {
    let wantLogprobs = c.wantLogprobs && c.capabilities.logprobs;
    for (;;) {
      try {
        const { value: v, retries: r } = await withRetries(c.id, c.policy, ({ signal }) => c.once(wantLogprobs, signal), {
          signal: c.signal,
          onRetry: (e, wait) => c.onRetry?.(`${e.message}; retrying in ${(wait / 1000).toFixed(1)} s`),
        });
        retries += r;
        return v;
      } catch (e) {
        if (wantLogprobs && e instanceof LlmError && e.kind === 'bad_request' && /logprob/i.test(e.message)) {
          wantLogprobs = false;
          c.capabilities.logprobs = false;
          warnings.push(`${c.label} does not offer log-probabilities (${e.message}); continuing without them`);
          continue;
        }
        throw e;
      }
    }
  });
  const out = c.normalise(value, warnings);
  enforceTextCap(out.choices, c.textCap, c.id, c.label);
  out.retries = retries;
  out.calls = retries + 1;
  out.latencyMs = performance.now() - started;
  return out;
}
