// Gemini `models/{model}:generateContent` through @google/genai: candidateCount, response log-probabilities,
// JSON output via responseMimeType + responseSchema, usageMetadata.

import { ApiError, FinishReason, GoogleGenAI, type GenerateContentConfig, type GenerateContentResponse, type Schema } from '@google/genai';
import { LlmError, redact, registerSecret } from './errors.ts';
import { bodyCapOf, oversizedBody, ReplyGuard } from './reply-cap.ts';
import { parseRetryAfter, type ReliabilityOptions } from './reliability.ts';
import { NetworkBackend } from './network-backend.ts';
import type { BackendCapabilities, ChatChoice, ChatRequest, ChatResponse, LlmBackend, TokenLogprob } from './types.ts';

export const GEMINI_DEFAULT_BASE_URL = 'https://generativelanguage.googleapis.com';

export interface GeminiBackendOptions {
  model: string;
  apiKey?: string;
  /** Another endpoint speaking the Gemini API (a proxy, or a mock in tests). */
  baseURL?: string;
  reliability?: ReliabilityOptions;
  /**
   * Thinking budget for 2.5 models (0 turns thinking off on Flash). Unset: the model's default. Thinking tokens
   * count against maxOutputTokens and are billed as output.
   */
  thinkingBudget?: number;
  onRetry?: (message: string) => void;
}

/** Finish reasons that mean the model would not answer, rather than it answered badly. */
const REFUSAL_REASONS = new Set(['SAFETY', 'RECITATION', 'BLOCKLIST', 'PROHIBITED_CONTENT', 'SPII', 'IMAGE_SAFETY', 'IMAGE_PROHIBITED_CONTENT']);

const SCHEMA_KEYS = new Set(['description', 'enum', 'format', 'nullable', 'maximum', 'minimum', 'required', 'propertyOrdering', 'title', 'pattern']);
const COUNT_KEYS = new Set(['minItems', 'maxItems', 'minLength', 'maxLength', 'minProperties', 'maxProperties']);

/** JSON Schema (the subset structured output uses) → Gemini's OpenAPI-style Schema. Unsupported keywords are dropped. */
export function toGeminiSchema(js: Record<string, unknown>): Schema {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(js)) {
    if (k === 'type') {
      if (Array.isArray(v)) {
        const types = v.filter((t) => t !== 'null');
        out.type = String(types[0] ?? 'string').toUpperCase();
        if (v.includes('null')) out.nullable = true;
      } else out.type = String(v).toUpperCase();
    } else if (k === 'properties' && v && typeof v === 'object') {
      const props: Record<string, Schema> = {};
      for (const [name, sub] of Object.entries(v as Record<string, Record<string, unknown>>)) props[name] = toGeminiSchema(sub);
      out.properties = props;
      // keep the author's field order in the reply
      out.propertyOrdering = Object.keys(props);
    } else if (k === 'items' && v && typeof v === 'object') {
      out.items = toGeminiSchema(v as Record<string, unknown>);
    } else if (k === 'anyOf' && Array.isArray(v)) {
      out.anyOf = v.map((s) => toGeminiSchema(s as Record<string, unknown>));
    } else if (COUNT_KEYS.has(k)) {
      out[k] = String(v);
    } else if (SCHEMA_KEYS.has(k)) {
      out[k] = v;
    }
  }
  return out;
}

interface GoogleErrorBody {
  error?: { code?: number; message?: string; status?: string; details?: { '@type'?: string; reason?: string; retryDelay?: string }[] };
}

function parseGoogleError(message: string): GoogleErrorBody['error'] | undefined {
  const start = message.indexOf('{');
  if (start < 0) return undefined;
  try {
    return (JSON.parse(message.slice(start)) as GoogleErrorBody).error;
  } catch {
    return undefined;
  }
}

export class GeminiBackend extends NetworkBackend<GenerateContentResponse> implements LlmBackend {
  readonly provider = 'gemini' as const;
  readonly id: string;
  readonly model: string;
  readonly label: string;
  readonly capabilities: BackendCapabilities = { nativeN: true, logprobs: true, jsonSchema: true, network: true };
  readonly baseURL: string;
  readonly billing = 'metered' as const;
  // ES private: the client holds the key, and util.inspect / JSON never show #fields
  readonly #client: GoogleGenAI;
  readonly #thinkingBudget: number | undefined;

  constructor(opts: GeminiBackendOptions) {
    super();
    this.#thinkingBudget = opts.thinkingBudget;
    if (!opts.model) throw new LlmError('config', 'gemini', 'No model given for the Gemini backend: pass --model (e.g. gemini-2.5-flash).');
    if (!opts.apiKey) {
      throw new LlmError(
        'missing_key',
        'gemini',
        "No Gemini API key: set GEMINI_API_KEY (or GOOGLE_API_KEY) in the environment or enter the key in the app's settings. " +
          'To run without any model use --backend offline.',
      );
    }
    registerSecret(opts.apiKey);
    this.model = opts.model.replace(/^models\//, '');
    this.id = `gemini:${this.model}`;
    this.baseURL = opts.baseURL ?? GEMINI_DEFAULT_BASE_URL;
    this.label = opts.baseURL ? `Gemini ${this.model} at ${opts.baseURL}` : `Gemini ${this.model}`;
    this.usePolicy(opts.reliability, opts.onRetry);
    // No retryOptions: the SDK then makes exactly one attempt and our policy does the retrying.
    this.#client = new GoogleGenAI({ apiKey: opts.apiKey, ...(opts.baseURL ? { httpOptions: { baseUrl: opts.baseURL } } : {}) });
  }

  protected async once(req: ChatRequest, logprobs: boolean, signal: AbortSignal): Promise<GenerateContentResponse> {
    const system = req.messages.filter((m) => m.role === 'system').map((m) => m.content);
    const contents = req.messages
      .filter((m) => m.role !== 'system')
      .map((m) => ({ role: m.role === 'assistant' ? 'model' : 'user', parts: [{ text: m.content }] }));
    // The body is read through a fetch that stops at the reply's cap; whatever the SDK makes of that, the refusal stands.
    const cap = bodyCapOf(req, { logprobs, absoluteBytes: this.policy.maxReplyBytes });
    const guard = new ReplyGuard(cap, (seen, declared) => oversizedBody(this.id, 'Gemini', this.model, cap, seen, declared));
    // Captures the raw response's headers: the SDK's ApiError keeps only status and body, and Retry-After lives in a header.
    let retryAfterMs: number | undefined;
    const capturingFetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
      const res = await guard.fetch(input, init);
      if (!res.ok) retryAfterMs = parseRetryAfter(res.headers);
      return res;
    };
    const config: GenerateContentConfig = {
      candidateCount: req.n,
      temperature: req.temperature,
      maxOutputTokens: req.maxTokens,
      abortSignal: signal,
      httpOptions: { fetch: capturingFetch },
    };
    if (system.length) config.systemInstruction = system.join('\n\n');
    if (logprobs) {
      config.responseLogprobs = true;
      if ((req.topLogprobs ?? 0) > 0) config.logprobs = Math.min(20, req.topLogprobs!);
    }
    if (req.seed !== undefined) config.seed = req.seed;
    if (req.jsonSchema) {
      config.responseMimeType = 'application/json';
      config.responseSchema = toGeminiSchema(req.jsonSchema.schema);
    }
    if (this.#thinkingBudget !== undefined) config.thinkingConfig = { thinkingBudget: this.#thinkingBudget };
    try {
      return await this.#client.models.generateContent({ model: this.model, contents, config });
    } catch (e) {
      throw guard.overflow ?? this.classify(e, retryAfterMs, signal);
    }
  }

  private classify(e: unknown, retryAfterHeader: number | undefined, signal: AbortSignal): Error {
    if (signal.aborted) return e as Error; // timeout or cancel: withRetries decides which
    if (e instanceof ApiError) {
      const status = e.status;
      const body = parseGoogleError(e.message);
      const msg = redact(body?.message ?? e.message);
      const reasons = (body?.details ?? []).map((d) => d.reason ?? '');
      const delay = (body?.details ?? []).find((d) => d['@type']?.endsWith('RetryInfo'))?.retryDelay;
      const retryAfterMs = retryAfterHeader ?? (delay && /^\d+(\.\d+)?s$/.test(delay) ? Number(delay.slice(0, -1)) * 1000 : undefined);
      // Google answers a bad key with 400 API_KEY_INVALID, not 401.
      if (status === 401 || reasons.includes('API_KEY_INVALID') || /API key not valid/i.test(msg)) {
        return new LlmError(
          'auth',
          this.id,
          `Gemini rejected the API key (HTTP ${status}: ${msg}). Set a valid GEMINI_API_KEY (or GOOGLE_API_KEY) or enter the key again in the app's settings.`,
          { status },
        );
      }
      if (status === 403)
        return new LlmError('auth', this.id, `Gemini refused access (HTTP 403: ${msg}). The key may not be allowed to use ${this.model}.`, { status });
      if (status === 404) {
        return new LlmError(
          'unknown_model',
          this.id,
          `Gemini does not know the model "${this.model}" (HTTP 404: ${msg}). Check --model (e.g. gemini-2.5-flash).`,
          { status },
        );
      }
      if (status === 429) return new LlmError('rate_limit', this.id, `Gemini is rate limiting (HTTP 429: ${msg})`, { status, retryAfterMs });
      if (status === 408) return new LlmError('timeout', this.id, `Gemini timed out the request (HTTP 408)`, { status, retryAfterMs });
      if (status >= 500) return new LlmError('server', this.id, `Gemini failed (HTTP ${status}: ${msg})`, { status, retryAfterMs });
      return new LlmError('bad_request', this.id, `Gemini rejected the request (HTTP ${status}: ${msg})`, { status });
    }
    const err = e as Error & { cause?: { code?: string } };
    if (err instanceof SyntaxError) {
      return new LlmError('malformed', this.id, `Gemini sent a reply that is not valid JSON (${err.message})`, { cause: e });
    }
    if (err instanceof TypeError && /fetch failed/i.test(err.message)) {
      return new LlmError('network', this.id, `Cannot reach Gemini at ${this.baseURL} (${err.cause?.code ?? err.message}). Check the network connection.`, {
        cause: e,
      });
    }
    return new LlmError('malformed', this.id, `Gemini sent a reply that could not be read (${err?.message ?? String(e)})`, { cause: e });
  }

  protected normalise(r: GenerateContentResponse, req: ChatRequest, warnings: string[]): ChatResponse {
    if (!r || typeof r !== 'object') throw new LlmError('malformed', this.id, 'Gemini sent an empty reply');
    const block = r.promptFeedback?.blockReason;
    if (block) {
      throw new LlmError(
        'refused',
        this.id,
        `Gemini refused the prompt (${block}${r.promptFeedback?.blockReasonMessage ? `: ${r.promptFeedback.blockReasonMessage}` : ''})`,
      );
    }
    if (r.candidates !== undefined && !Array.isArray(r.candidates)) {
      throw new LlmError('malformed', this.id, `Gemini sent a reply whose candidates is not a list: ${JSON.stringify(r.candidates).slice(0, 200)}`);
    }
    const candidates = r.candidates ?? [];
    const choices: ChatChoice[] = candidates.map((c, i) => {
      // thought parts (when thoughts are included) are not the answer
      const parts = (c.content?.parts ?? []).filter((p) => !p.thought && typeof p.text === 'string');
      const text = parts.map((p) => p.text).join('');
      const reason = c.finishReason ?? null;
      const refused = reason !== null && REFUSAL_REASONS.has(reason);
      const lp = c.logprobsResult;
      let logprobs: TokenLogprob[] | null = null;
      if (lp?.chosenCandidates) {
        logprobs = lp.chosenCandidates.map((ch, k) => ({
          token: ch.token ?? '',
          logprob: ch.logProbability ?? 0,
          top: (lp.topCandidates?.[k]?.candidates ?? []).map((a) => ({ token: a.token ?? '', logprob: a.logProbability ?? 0 })),
        }));
      }
      const choice: ChatChoice = {
        index: typeof c.index === 'number' ? c.index : i,
        text,
        finishReason: refused ? 'refused' : reason === FinishReason.STOP ? 'stop' : reason === FinishReason.MAX_TOKENS ? 'length' : reason,
        logprobs,
      };
      if (refused) {
        choice.refused = true;
        if (!text) choice.text = `[Gemini stopped this candidate: ${reason}]`;
      }
      if (logprobs) choice.outputTokens = logprobs.length;
      return choice;
    });
    if (req.topLogprobs !== undefined && this.capabilities.logprobs && choices.length && choices.every((c) => c.logprobs === null)) {
      warnings.push(`${this.label} returned no log-probabilities although asked for them`);
    }
    const u = r.usageMetadata;
    if (u?.thoughtsTokenCount) warnings.push(`${u.thoughtsTokenCount} thinking tokens were billed as output`);
    if (!u) warnings.push(`${this.label} reported no token usage`);
    return {
      provider: 'gemini',
      billing: 'metered',
      model: this.model,
      ...(r.modelVersion ? { servedModel: r.modelVersion } : {}),
      choices,
      usage: u
        ? {
            inputTokens: u.promptTokenCount ?? 0,
            // thinking tokens are billed at the output rate
            outputTokens: (u.candidatesTokenCount ?? 0) + (u.thoughtsTokenCount ?? 0),
            source: 'reported',
          }
        : { inputTokens: 0, outputTokens: 0, source: 'none' },
      calls: 1,
      retries: 0,
      latencyMs: 0,
      warnings,
    };
  }
}
