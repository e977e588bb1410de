// OpenAI chat completions through the official SDK. With a base URL the same backend serves any
// OpenAI-compatible local server (Ollama, llama.cpp server, vLLM, LM Studio).

import OpenAI from 'openai';
import type { ChatCompletion, ChatCompletionCreateParamsNonStreaming } from 'openai/resources/chat/completions';
import { LlmError, redact, registerSecret } from './errors.ts';
import { bodyCapOf, oversizedBody, ReplyGuard } from './reply-cap.ts';
import { parseRetryAfter, type ReliabilityOptions } from './reliability.ts';
import { NetworkBackend } from './network-backend.ts';
import type { BackendCapabilities, Billing, ChatChoice, ChatRequest, ChatResponse, LlmBackend, TokenLogprob } from './types.ts';

export const OPENAI_DEFAULT_BASE_URL = 'https://api.openai.com/v1';

export interface OpenAiBackendOptions {
  model: string;
  /** Required for api.openai.com; local servers usually accept anything. Never logged or stored. */
  apiKey?: string;
  /** Base URL of an OpenAI-compatible server, e.g. `http://127.0.0.1:11434/v1` (Ollama). */
  baseURL?: string;
  reliability?: ReliabilityOptions;
  /**
   * Which field carries the token limit. OpenAI's own API wants `max_completion_tokens` (reasoning models refuse
   * `max_tokens`); many compatible servers only know `max_tokens`. Default: by base URL.
   */
  maxTokensField?: 'max_tokens' | 'max_completion_tokens';
  /** Hears about every retry wait (for progress lines). */
  onRetry?: (message: string) => void;
}

export function isOfficialOpenAi(baseURL: string | undefined): boolean {
  if (!baseURL) return true;
  try {
    return new URL(baseURL).hostname === 'api.openai.com';
  } catch {
    return false;
  }
}

/** Whether a base URL points at this machine or a private network (a local model: not billed by default). */
export function isLocalUrl(baseURL: string | undefined): boolean {
  if (!baseURL) return false;
  let host: string;
  try {
    host = new URL(baseURL).hostname.replace(/^\[|\]$/g, '');
  } catch {
    return false;
  }
  return (
    host === 'localhost' ||
    host.endsWith('.local') ||
    host === '::1' ||
    /^127\./.test(host) ||
    /^10\./.test(host) ||
    /^192\.168\./.test(host) ||
    /^172\.(1[6-9]|2\d|3[01])\./.test(host) ||
    host === '0.0.0.0'
  );
}

export class OpenAiBackend extends NetworkBackend<ChatCompletion> implements LlmBackend {
  readonly provider = 'openai' as const;
  readonly id: string;
  readonly model: string;
  readonly label: string;
  readonly capabilities: BackendCapabilities = { nativeN: true, logprobs: true, jsonSchema: true, network: true };
  readonly baseURL: string;
  readonly billing: Billing;
  // ES private: the client holds the key, and util.inspect / JSON never show #fields
  readonly #client: OpenAI;
  private readonly maxTokensField: 'max_tokens' | 'max_completion_tokens';
  private readonly official: boolean;

  constructor(opts: OpenAiBackendOptions) {
    super();
    if (!opts.model) throw new LlmError('config', 'openai', 'No model given for the OpenAI backend: pass --model (e.g. gpt-4o-mini).');
    this.official = isOfficialOpenAi(opts.baseURL);
    this.baseURL = opts.baseURL ?? OPENAI_DEFAULT_BASE_URL;
    if (!opts.apiKey && this.official) {
      throw new LlmError(
        'missing_key',
        'openai',
        "No OpenAI API key: set OPENAI_API_KEY in the environment or enter the key in the app's settings. " +
          'For a local OpenAI-compatible server pass --base-url; to run without any model use --backend offline.',
      );
    }
    registerSecret(opts.apiKey);
    this.model = opts.model;
    this.billing = isLocalUrl(opts.baseURL) ? 'local' : 'metered';
    this.id = `openai:${opts.model}`;
    this.label = this.official ? `OpenAI ${opts.model}` : `${opts.model} at ${this.baseURL} (OpenAI-compatible)`;
    this.usePolicy(opts.reliability, opts.onRetry);
    this.maxTokensField = opts.maxTokensField ?? (this.official ? 'max_completion_tokens' : 'max_tokens');
    // The SDK's own retries are off: one policy (ours) for every backend. Its timeout is a backstop behind ours.
    this.#client = new OpenAI({
      // local servers ignore the key, but the SDK insists on one
      apiKey: opts.apiKey || 'no-key',
      baseURL: this.baseURL,
      maxRetries: 0,
      timeout: this.policy.timeoutMs + 5000,
    });
  }

  protected async once(req: ChatRequest, logprobs: boolean, signal: AbortSignal): Promise<ChatCompletion> {
    const body: ChatCompletionCreateParamsNonStreaming = {
      model: this.model,
      messages: req.messages.map((m) => ({ role: m.role, content: m.content })),
      n: req.n,
      temperature: req.temperature,
      [this.maxTokensField]: req.maxTokens,
    };
    if (logprobs) {
      body.logprobs = true;
      if ((req.topLogprobs ?? 0) > 0) body.top_logprobs = Math.min(20, req.topLogprobs!);
    }
    if (req.seed !== undefined) body.seed = req.seed;
    if (req.jsonSchema) {
      body.response_format = {
        type: 'json_schema',
        json_schema: { name: req.jsonSchema.name, schema: req.jsonSchema.schema, strict: true },
      };
    }
    // The body is read through a fetch that stops at the reply's cap; whatever the SDK makes of that, the refusal stands.
    const cap = bodyCapOf(req, { logprobs, absoluteBytes: this.policy.maxReplyBytes });
    const guard = new ReplyGuard(cap, (seen, declared) => oversizedBody(this.id, this.where(), this.model, cap, seen, declared));
    try {
      return await this.#client.withOptions({ fetch: guard.fetch }).chat.completions.create(body, { signal, maxRetries: 0 });
    } catch (e) {
      throw guard.overflow ?? this.classify(e);
    }
  }

  private where(): string {
    return this.official ? 'OpenAI' : `the server at ${this.baseURL}`;
  }

  /** Maps an SDK error to an LlmError that says what to do. */
  private classify(e: unknown): Error {
    if (e instanceof OpenAI.APIUserAbortError) return e; // timeout or cancel: withRetries decides which
    if (e instanceof OpenAI.APIConnectionTimeoutError) {
      return new LlmError('timeout', this.id, `${this.where()} did not answer in time`, { cause: e });
    }
    if (e instanceof OpenAI.APIConnectionError) {
      const cause = (e.cause as { cause?: { code?: string }; message?: string } | undefined) ?? undefined;
      const detail = cause?.cause?.code ?? cause?.message ?? e.message;
      return new LlmError(
        'network',
        this.id,
        `Cannot reach ${this.where()} (${detail}). ${this.official ? 'Check the network connection.' : 'Is the server running, and does the base URL end in /v1?'}`,
        { cause: e },
      );
    }
    if (e instanceof OpenAI.APIError && typeof e.status === 'number') {
      const status = e.status;
      const body = (e.error ?? {}) as { message?: string; code?: string | null; type?: string };
      const msg = redact(body.message ?? e.message);
      const code = body.code ?? body.type ?? '';
      const retryAfterMs = parseRetryAfter(e.headers as Headers | undefined);
      if (status === 401) {
        return new LlmError(
          'auth',
          this.id,
          `${this.where()} rejected the API key (HTTP 401: ${msg}). ${this.official ? "Set a valid OPENAI_API_KEY or enter the key again in the app's settings." : 'Check the key the server expects.'}`,
          { status },
        );
      }
      if (status === 403) {
        return new LlmError('auth', this.id, `${this.where()} refused access (HTTP 403: ${msg}). The key may not be allowed to use ${this.model}.`, { status });
      }
      if (status === 404 || code === 'model_not_found') {
        if (code === 'model_not_found' || /model/i.test(msg)) {
          return new LlmError(
            'unknown_model',
            this.id,
            `${this.where()} does not know the model "${this.model}" (HTTP ${status}: ${msg}). Check --model${this.official ? '' : '; a local server must have the model pulled or loaded (e.g. `ollama pull <model>`)'}.`,
            { status },
          );
        }
        return new LlmError(
          'config',
          this.id,
          `${this.where()} has no chat completions endpoint (HTTP 404: ${msg}). Check --base-url (it usually ends in /v1).`,
          { status },
        );
      }
      if (status === 429 && code === 'insufficient_quota') {
        return new LlmError('quota', this.id, `${this.where()} says the account's quota is exhausted (${msg}). Check billing; retrying will not help.`, {
          status,
        });
      }
      if (status === 429) return new LlmError('rate_limit', this.id, `${this.where()} is rate limiting (HTTP 429: ${msg})`, { status, retryAfterMs });
      if (status === 408) return new LlmError('timeout', this.id, `${this.where()} timed out the request (HTTP 408)`, { status, retryAfterMs });
      if (status === 409 || status >= 500) {
        return new LlmError('server', this.id, `${this.where()} failed (HTTP ${status}: ${msg})`, { status, retryAfterMs });
      }
      if (code === 'content_policy_violation' || code === 'content_filter') {
        return new LlmError('refused', this.id, `${this.where()} refused the request (${msg})`, { status });
      }
      return new LlmError('bad_request', this.id, `${this.where()} rejected the request (HTTP ${status}: ${msg})`, { status });
    }
    const err = e as Error;
    return new LlmError('malformed', this.id, `${this.where()} sent a reply that is not a valid chat completion (${err?.message ?? String(e)})`, { cause: e });
  }

  protected normalise(c: ChatCompletion, req: ChatRequest, warnings: string[]): ChatResponse {
    if (!c || typeof c !== 'object' || !Array.isArray((c as { choices?: unknown }).choices)) {
      throw new LlmError('malformed', this.id, `${this.where()} sent a reply without a choices list: ${JSON.stringify(c)?.slice(0, 200)}`);
    }
    const choices: ChatChoice[] = c.choices.map((ch, i) => {
      const message = ch?.message as { content?: string | null; refusal?: string | null } | undefined;
      if (!message || (typeof message.content !== 'string' && message.content !== null && message.content !== undefined)) {
        throw new LlmError('malformed', this.id, `${this.where()} sent choice ${i} without a message`);
      }
      const refused = Boolean(message.refusal) || ch.finish_reason === 'content_filter';
      const logprobs: TokenLogprob[] | null = ch.logprobs?.content
        ? ch.logprobs.content.map((t) => ({
            token: t.token,
            logprob: t.logprob,
            top: (t.top_logprobs ?? []).map((a) => ({ token: a.token, logprob: a.logprob })),
          }))
        : null;
      const choice: ChatChoice = {
        index: typeof ch.index === 'number' ? ch.index : i,
        text: refused ? (message.refusal ?? message.content ?? '') : (message.content ?? ''),
        finishReason: refused ? 'refused' : (ch.finish_reason ?? null),
        logprobs,
      };
      if (refused) choice.refused = true;
      if (logprobs) choice.outputTokens = logprobs.length;
      return choice;
    });
    if (req.topLogprobs !== undefined && this.capabilities.logprobs && choices.length && choices.every((ch) => ch.logprobs === null)) {
      warnings.push(`${this.label} returned no log-probabilities although asked for them`);
    }
    const u = c.usage;
    if (!u) warnings.push(`${this.label} reported no token usage`);
    return {
      provider: 'openai',
      billing: this.billing,
      model: this.model,
      ...(c.model ? { servedModel: c.model } : {}),
      choices,
      usage: u
        ? { inputTokens: u.prompt_tokens ?? 0, outputTokens: u.completion_tokens ?? 0, source: 'reported' }
        : { inputTokens: 0, outputTokens: 0, source: 'none' },
      calls: 1,
      retries: 0,
      latencyMs: 0,
      warnings,
    };
  }
}
