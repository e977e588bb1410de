// What an Ollama server puts on the wire, for a loopback mock (test/generate/mock-http.ts): its own API
// (GET /api/tags, GET /api/version), its OpenAI-compatible one (GET /v1/models, POST /v1/chat/completions), and
// its plain-text 404 for anything else. Shapes follow Ollama's API reference and its OpenAI-compatibility page:
// the key is ignored, `n` is not supported (one choice per request), an unknown model is a 404 naming it, and
// log-probabilities come back only when asked for. Also small stand-ins for the other tools' model lists, so
// detection can be shown to tell them apart.

import type { Handler, Recorded, Reply } from './mock-http.ts';
import { pseudoTokens } from './wire.ts';

export const OLLAMA_VERSION = '0.12.6';

export interface OllamaMockOptions {
  /** Pulled models, as `ollama list` names them. */
  models?: string[];
  /** The reply text of request r. */
  text?: (req: Recorded, r: number) => string;
}

const DEFAULT_MODELS = ['qwen2.5-coder:7b', 'llama3.2:latest'];

function tag(name: string, i: number) {
  return {
    name,
    model: name,
    modified_at: '2026-11-20T10:00:00.000000000Z',
    size: 4_683_087_332 + i,
    digest: `${'a'.repeat(63)}${i}`,
    details: { parent_model: '', format: 'gguf', family: 'qwen2', families: ['qwen2'], parameter_size: '7.6B', quantization_level: 'Q4_K_M' },
  };
}

function chatCompletion(model: string, text: string, promptTokens: number, logprobs: number | null) {
  const tokens = pseudoTokens(text);
  return {
    id: 'chatcmpl-417',
    object: 'chat.completion',
    created: 1_764_000_000,
    model,
    system_fingerprint: 'fp_ollama',
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content: text },
        finish_reason: 'stop',
        ...(logprobs === null
          ? {}
          : {
              logprobs: {
                content: tokens.map((token) => ({
                  token,
                  logprob: Math.log(0.6),
                  bytes: [...Buffer.from(token)],
                  top_logprobs: [
                    { token, logprob: Math.log(0.6), bytes: [...Buffer.from(token)] },
                    { token: '⟨alt⟩', logprob: Math.log(0.4), bytes: null },
                  ].slice(0, logprobs),
                })),
              },
            }),
      },
    ],
    usage: { prompt_tokens: promptTokens, completion_tokens: tokens.length, total_tokens: promptTokens + tokens.length },
  };
}

/** What detection is to report for this mock on a loopback port: an Ollama server, its /v1 base URL, its models sorted. */
export function ollamaServerAt(port: number, models: string[] = DEFAULT_MODELS) {
  return {
    tool: 'ollama',
    label: `Ollama ${OLLAMA_VERSION}`,
    host: '127.0.0.1',
    port,
    baseURL: `http://127.0.0.1:${port}/v1`,
    version: OLLAMA_VERSION,
    models: [...models].sort(),
  };
}

const notFound: Reply = { status: 404, headers: { 'content-type': 'text/plain' }, text: '404 page not found' };

/** An Ollama server: its model list and version, and OpenAI-compatible chat completions over the pulled models. */
export function ollamaHandler(opts: OllamaMockOptions = {}): Handler {
  const models = opts.models ?? DEFAULT_MODELS;
  return (req, r) => {
    const url = req.url.split('?')[0];
    if (req.method === 'GET' && url === '/') return { headers: { 'content-type': 'text/plain' }, text: 'Ollama is running' };
    if (req.method === 'GET' && url === '/api/tags') return { json: { models: models.map(tag) } };
    if (req.method === 'GET' && url === '/api/version') return { json: { version: OLLAMA_VERSION } };
    if (req.method === 'GET' && url === '/v1/models')
      return { json: { object: 'list', data: models.map((id) => ({ id, object: 'model', created: 1_763_600_000, owned_by: 'library' })) } };
    if (req.method !== 'POST' || url !== '/v1/chat/completions') return notFound;
    const body = req.body as { model?: string; messages?: { content: string }[]; logprobs?: boolean; top_logprobs?: number } | null;
    if (!body?.model || !models.includes(body.model))
      return {
        status: 404,
        json: { error: { message: `model "${body?.model ?? ''}" not found, try pulling it first`, type: 'api_error', param: null, code: null } },
      };
    const prompt = (body.messages ?? []).reduce((n, m) => n + Math.ceil(String(m.content).length / 4), 0);
    const text = (opts.text ?? (() => '```python\ndef f(x):\n    return x\n```'))(req, r);
    return { json: chatCompletion(body.model, text, prompt, body.logprobs ? (body.top_logprobs ?? 0) : null) };
  };
}

/** llama.cpp's llama-server: models owned by "llamacpp", generation defaults at /props, /health. */
export function llamaServerHandler(model = 'qwen2.5-coder-1.5b-instruct-q4_k_m.gguf'): Handler {
  return (req) => {
    if (req.url === '/v1/models')
      return { json: { object: 'list', data: [{ id: model, object: 'model', created: 1_764_000_000, owned_by: 'llamacpp', meta: null }] } };
    if (req.url === '/props')
      return { json: { default_generation_settings: { n_ctx: 4096 }, total_slots: 1, model_path: `/models/${model}`, build_info: 'b6500-abc1234' } };
    if (req.url === '/health') return { json: { status: 'ok' } };
    return { status: 404, json: { error: { code: 404, message: 'File Not Found', type: 'not_found_error' } } };
  };
}

/** LM Studio: an OpenAI model list, and its own REST API (/api/v0/models) with each model's type and state. */
export function lmStudioHandler(model = 'qwen2.5-coder-7b-instruct'): Handler {
  return (req) => {
    if (req.url === '/v1/models') return { json: { object: 'list', data: [{ id: model, object: 'model', owned_by: 'organization_owner' }] } };
    if (req.url === '/api/v0/models')
      return {
        json: {
          object: 'list',
          data: [
            {
              id: model,
              object: 'model',
              type: 'llm',
              publisher: 'lmstudio-community',
              compatibility_type: 'gguf',
              state: 'loaded',
              max_context_length: 32768,
            },
          ],
        },
      };
    return { status: 200, json: { error: `Unexpected endpoint or method. (${req.method} ${req.url})` } };
  };
}

/** vLLM: models owned by "vllm", its version at /version. */
export function vllmHandler(model = 'Qwen/Qwen2.5-Coder-7B-Instruct'): Handler {
  return (req) => {
    if (req.url === '/v1/models')
      return {
        json: {
          object: 'list',
          data: [{ id: model, object: 'model', created: 1_764_000_000, owned_by: 'vllm', root: model, parent: null, max_model_len: 32768 }],
        },
      };
    if (req.url === '/version') return { json: { version: '0.11.0' } };
    return { status: 404, json: { detail: 'Not Found' } };
  };
}
