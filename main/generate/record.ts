// Record / replay. Every exchange with a backend is stored with its request, normalised response, usage, cost
// and latency, keyed by a hash of the request; the replay backend answers from those records alone, bit for bit,
// with no network (the paper's frozen protocol). A request the store lacks is an error naming its hash.

import { createHash } from 'node:crypto';
import type { ExchangeStore } from '../store/exchanges.ts';
import { costOf, DEFAULT_PRICES, type PriceTable } from './cost.ts';
import { LlmError, redact, ReplayMissError } from './errors.ts';
import { enforceTextCap, textCapOf, wrapBackend } from './reply-cap.ts';
import type { BackendCapabilities, ChatContext, ChatRequest, ChatResponse, LlmBackend, Provider } from './types.ts';

/** JSON with object keys sorted at every level, so equal values always give equal text. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) => {
    if (v && typeof v === 'object' && !Array.isArray(v)) {
      return Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
    }
    return v;
  });
}

/** What identifies a request: everything sent to the model, plus the call ordinal; never the grounding or any key. */
export function requestIdentity(provider: Provider, model: string, req: ChatRequest): Record<string, unknown> {
  return {
    v: 1,
    provider,
    model,
    messages: req.messages.map((m) => ({ role: m.role, content: m.content })),
    n: req.n,
    temperature: req.temperature,
    maxTokens: req.maxTokens,
    jsonSchema: req.jsonSchema ?? null,
    topLogprobs: req.topLogprobs ?? null,
    seed: req.seed ?? null,
    call: req.call ?? 0,
  };
}

export function requestHash(provider: Provider, model: string, req: ChatRequest): string {
  return createHash('sha256')
    .update(canonicalJson(requestIdentity(provider, model, req)))
    .digest('hex');
}

export interface RecordOptions {
  runId?: string | null;
  prices?: PriceTable;
  /** Absolute cap of a candidate's text (default: reply-cap.ts REPLY_CAP.absoluteBytes). */
  maxReplyBytes?: number;
}

/**
 * Wraps a backend so that every exchange (successful or not) is written to the store. A reply with a candidate text
 * over the per-candidate cap (reply-cap.ts) is stored as a failed exchange, without the text, and refused.
 */
export function recordExchanges(inner: LlmBackend, store: ExchangeStore, opts: RecordOptions = {}): LlmBackend {
  const prices = opts.prices ?? DEFAULT_PRICES;
  return wrapBackend(inner, async (req: ChatRequest, ctx: ChatContext): Promise<ChatResponse> => {
    const hash = requestHash(inner.provider, inner.model, req);
    const request = requestIdentity(inner.provider, inner.model, req);
    const base = {
      requestHash: hash,
      runId: ctx.runId ?? opts.runId ?? null,
      taskId: ctx.taskId ?? req.grounding?.task.id ?? null,
      purpose: ctx.purpose ?? req.grounding?.purpose ?? null,
      provider: inner.provider,
      model: inner.model,
      request,
    };
    const t0 = performance.now();
    let res: ChatResponse;
    try {
      res = await inner.chat(req, ctx);
      enforceTextCap(res.choices, textCapOf(req, { absoluteBytes: opts.maxReplyBytes }), inner.id, inner.label);
    } catch (e) {
      store.record({
        ...base,
        error: redact(`${(e as Error)?.name ?? 'Error'}: ${(e as Error)?.message ?? String(e)}`),
        inputTokens: 0,
        outputTokens: 0,
        costUsd: null,
        latencyMs: performance.now() - t0,
      });
      throw e;
    }
    const cost = costOf(res.usage, res.model, res.billing, prices);
    store.record({
      ...base,
      response: res,
      inputTokens: res.usage.inputTokens,
      outputTokens: res.usage.outputTokens,
      costUsd: cost.usd,
      latencyMs: res.latencyMs,
    });
    return res;
  });
}

export interface ReplayOptions {
  provider: Provider;
  model: string;
  /** Replay this run's exchanges (default: the latest recording of each request). */
  runId?: string;
}

/** A backend that answers only from recorded exchanges. */
export class ReplayBackend implements LlmBackend {
  readonly id: string;
  readonly provider: Provider;
  readonly model: string;
  readonly label: string;
  readonly capabilities: BackendCapabilities = { nativeN: true, logprobs: true, jsonSchema: true, network: false };
  readonly billing = 'none' as const;

  constructor(
    private readonly store: ExchangeStore,
    private readonly opts: ReplayOptions,
  ) {
    this.provider = opts.provider;
    this.model = opts.model;
    this.id = `replay:${opts.provider}:${opts.model}`;
    this.label = `replay of ${opts.provider} ${opts.model}${opts.runId ? ` (run ${opts.runId})` : ''} from ${store.dbPath} — no network`;
  }

  async chat(req: ChatRequest, ctx: ChatContext = {}): Promise<ChatResponse> {
    const hash = requestHash(this.provider, this.model, req);
    const row = this.store.findForReplay(hash, this.opts.runId);
    if (!row?.response) {
      const task = ctx.taskId ?? req.grounding?.task.id;
      const what = [
        task ? `task ${task}` : null,
        ctx.purpose ?? req.grounding?.purpose ?? null,
        `${this.provider} ${this.model}`,
        `call ${req.call ?? 0}`,
        `n ${req.n}`,
        `temperature ${req.temperature}`,
        this.opts.runId ? `run ${this.opts.runId}` : null,
      ]
        .filter(Boolean)
        .join(', ');
      throw new ReplayMissError(this.id, hash, what);
    }
    let res: ChatResponse;
    try {
      res = JSON.parse(row.response) as ChatResponse;
    } catch (e) {
      throw new LlmError('malformed', this.id, `The recorded response ${row.id} for request ${hash} is unreadable (${(e as Error).message}).`);
    }
    // recorded before replies were capped, or by another build: held to the same cap as a live reply
    enforceTextCap(res.choices ?? [], textCapOf(req), this.id, `the recorded exchange ${row.id} in ${this.store.dbPath}`);
    res.replayed = true;
    return res;
  }
}
