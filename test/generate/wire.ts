// What OpenAI's chat completions and Gemini's generateContent put on the wire, for the mock servers.
// Shapes follow the vendors' API references (bodies, error envelopes, headers).

import type { Handler, Recorded, Reply } from './mock-http.ts';

export const GOOD_OPENAI_KEY = 'sk-test-OPENAI-SECRET-0123456789abcdef';
export const GOOD_GEMINI_KEY = 'AIzaTEST-GEMINI-SECRET-0123456789abcdef';

/** Splits text into pseudo-tokens of up to 4 characters. */
export function pseudoTokens(text: string): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += 4) out.push(text.slice(i, i + 4));
  return out;
}

const LN_HALF = Math.log(0.5);
const LN_QUARTER = Math.log(0.25);

// ---- OpenAI ----

export function openAiError(status: number, message: string, type: string, code: string | null, headers: Record<string, string> = {}): Reply {
  return { status, headers, json: { error: { message, type, param: null, code } } };
}

export function openAiCompletion(
  model: string,
  texts: string[],
  opts: { topLogprobs?: number | null; prompt?: number; finish?: string; refusal?: string | null } = {},
) {
  return {
    id: 'chatcmpl-mock123',
    object: 'chat.completion',
    created: 1_764_000_000,
    model: `${model}-2024-07-18`,
    system_fingerprint: 'fp_mock',
    choices: texts.map((text, index) => ({
      index,
      message: { role: 'assistant', content: opts.refusal ? null : text, refusal: opts.refusal ?? null, annotations: [] },
      // every token: chosen with p = 0.5, two alternatives with p = 0.25 each
      logprobs:
        opts.topLogprobs === undefined || opts.topLogprobs === null
          ? null
          : {
              content: pseudoTokens(text).map((token) => ({
                token,
                logprob: LN_HALF,
                bytes: [...Buffer.from(token)],
                top_logprobs: [
                  { token, logprob: LN_HALF, bytes: null },
                  { token: '⟨a⟩', logprob: LN_QUARTER, bytes: null },
                  { token: '⟨b⟩', logprob: LN_QUARTER, bytes: null },
                ].slice(0, opts.topLogprobs!),
              })),
              refusal: null,
            },
      finish_reason: opts.finish ?? 'stop',
    })),
    usage: {
      prompt_tokens: opts.prompt ?? 100,
      completion_tokens: texts.reduce((s, t) => s + pseudoTokens(t).length, 0),
      total_tokens: (opts.prompt ?? 100) + texts.reduce((s, t) => s + pseudoTokens(t).length, 0),
    },
  };
}

export interface VendorMockOptions {
  key?: string;
  models?: string[];
  /** The reply text of sample i of request r. */
  text?: (i: number, req: Recorded, r: number) => string;
  /** Most samples one request returns (1: the server ignores n / candidateCount). */
  maxSamples?: number;
}

/** A faithful OpenAI chat-completions endpoint: key check, model check, n, logprobs/top_logprobs, json_schema, usage. */
export function openAiHandler(opts: VendorMockOptions = {}): Handler {
  const key = opts.key ?? GOOD_OPENAI_KEY;
  const models = opts.models ?? ['gpt-4o-mini'];
  return (req, r) => {
    if (req.method !== 'POST' || req.url !== '/v1/chat/completions')
      return openAiError(404, `Invalid URL (${req.method} ${req.url})`, 'invalid_request_error', null);
    const auth = String(req.headers.authorization ?? '');
    if (auth !== `Bearer ${key}`) {
      const given = auth.replace(/^Bearer /, '');
      // OpenAI echoes a masked form of the key it got
      return openAiError(
        401,
        `Incorrect API key provided: ${given.slice(0, 6)}*****${given.slice(-4)}. You can find your API key at https://platform.openai.com/account/api-keys.`,
        'invalid_request_error',
        'invalid_api_key',
      );
    }
    const body = req.body as { model: string; n?: number; logprobs?: boolean; top_logprobs?: number; response_format?: { type: string } };
    if (!models.includes(body.model)) {
      return openAiError(404, `The model \`${body.model}\` does not exist or you do not have access to it.`, 'invalid_request_error', 'model_not_found');
    }
    const n = Math.min(body.n ?? 1, opts.maxSamples ?? 128);
    const texts = Array.from({ length: n }, (_, i) => (opts.text ?? ((k) => `\`\`\`python\ndef f(x):\n    return x + ${k}\n\`\`\``))(i, req, r));
    return { json: openAiCompletion(body.model, texts, { topLogprobs: body.logprobs ? (body.top_logprobs ?? 0) : null }) };
  };
}

// ---- replies far over any size cap (a server that ignores the token limit) ----

const MARK = '\u0000';
// 64 KiB of Python source as it appears inside a JSON string: 16 lines of about 4 KiB, newlines escaped
const CODE_CHUNK = `x = ${'1 + '.repeat(1022)}1\\n`.repeat(16);

/** A vendor body built around one reply text, streamed with about `bytes` of code where that text goes. */
function streamedAround(body: unknown, bytes: number): Reply {
  const [head, tail] = JSON.stringify(body).split(JSON.stringify(MARK).slice(1, -1));
  return { stream: { head: head!, chunk: CODE_CHUNK, bytes, tail: tail! } };
}

/** An OpenAI chat completion whose single choice holds about `bytes` of code. */
export function oversizedOpenAiReply(model: string, bytes: number): Reply {
  return streamedAround(openAiCompletion(model, [MARK]), bytes);
}

/** A Gemini generateContent reply whose single candidate holds about `bytes` of code. */
export function oversizedGeminiReply(model: string, bytes: number): Reply {
  return streamedAround(geminiResponse(model, [MARK]), bytes);
}

// ---- Gemini ----

export function geminiError(code: number, status: string, message: string, details?: unknown[], headers: Record<string, string> = {}): Reply {
  return { status: code, headers, json: { error: { code, message, status, ...(details ? { details } : {}) } } };
}

export function geminiResponse(model: string, texts: string[], opts: { logprobs?: number | null; finish?: string; thoughts?: number; prompt?: number } = {}) {
  return {
    candidates: texts.map((text, index) => ({
      content: { parts: [{ text }], role: 'model' },
      finishReason: opts.finish ?? 'STOP',
      index,
      ...(opts.logprobs === undefined || opts.logprobs === null
        ? {}
        : {
            avgLogprobs: LN_HALF,
            logprobsResult: {
              topCandidates: pseudoTokens(text).map((token) => ({
                candidates: [
                  { token, tokenId: 1, logProbability: LN_HALF },
                  { token: '⟨a⟩', tokenId: 2, logProbability: LN_QUARTER },
                  { token: '⟨b⟩', tokenId: 3, logProbability: LN_QUARTER },
                ].slice(0, opts.logprobs!),
              })),
              chosenCandidates: pseudoTokens(text).map((token) => ({ token, tokenId: 1, logProbability: LN_HALF })),
            },
          }),
    })),
    usageMetadata: {
      promptTokenCount: opts.prompt ?? 120,
      candidatesTokenCount: texts.reduce((s, t) => s + pseudoTokens(t).length, 0),
      ...(opts.thoughts ? { thoughtsTokenCount: opts.thoughts } : {}),
      totalTokenCount: (opts.prompt ?? 120) + texts.reduce((s, t) => s + pseudoTokens(t).length, 0) + (opts.thoughts ?? 0),
    },
    modelVersion: model,
    responseId: 'mock-response-1',
  };
}

/** A faithful Gemini generateContent endpoint: x-goog-api-key, model path, candidateCount, logprobs, JSON mode, usageMetadata. */
export function geminiHandler(opts: VendorMockOptions = {}): Handler {
  const key = opts.key ?? GOOD_GEMINI_KEY;
  const models = opts.models ?? ['gemini-2.5-flash'];
  return (req, r) => {
    const m = /^\/v1beta\/models\/([^:/]+):generateContent$/.exec(req.url.split('?')[0]!);
    if (req.method !== 'POST' || !m) return geminiError(404, 'NOT_FOUND', `Method not found: ${req.url}`);
    if (req.headers['x-goog-api-key'] !== key) {
      return geminiError(400, 'INVALID_ARGUMENT', 'API key not valid. Please pass a valid API key.', [
        {
          '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
          reason: 'API_KEY_INVALID',
          domain: 'googleapis.com',
          metadata: { service: 'generativelanguage.googleapis.com' },
        },
      ]);
    }
    const model = decodeURIComponent(m[1]!);
    if (!models.includes(model)) {
      return geminiError(
        404,
        'NOT_FOUND',
        `models/${model} is not found for API version v1beta, or is not supported for generateContent. Call ListModels to see the list of available models and their supported methods.`,
      );
    }
    const cfg = ((req.body as { generationConfig?: Record<string, unknown> }).generationConfig ?? {}) as {
      candidateCount?: number;
      responseLogprobs?: boolean;
      logprobs?: number;
    };
    const n = Math.min(cfg.candidateCount ?? 1, opts.maxSamples ?? 8);
    const texts = Array.from({ length: n }, (_, i) => (opts.text ?? ((k) => `\`\`\`python\ndef f(x):\n    return x + ${k}\n\`\`\``))(i, req, r));
    return { json: geminiResponse(model, texts, { logprobs: cfg.responseLogprobs ? (cfg.logprobs ?? 0) : null }) };
  };
}
