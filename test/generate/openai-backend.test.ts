// The OpenAI backend driven through the real `openai` SDK against a mock chat-completions server on 127.0.0.1.

import { afterEach, describe, expect, it } from 'vitest';
import { OpenAiBackend } from '../../main/generate/openai-backend.ts';
import { LlmError } from '../../main/generate/errors.ts';
import { generateCandidates, llmDecomposer } from '../../main/generate/generate.ts';
import { createBackend } from '../../main/generate/backends.ts';
import { makeConfig } from '../../main/model/config.ts';
import { startMock, type MockServer } from './mock-http.ts';
import { GOOD_OPENAI_KEY, openAiCompletion, openAiError, openAiHandler } from './wire.ts';

const FAST = { baseDelayMs: 5, maxDelayMs: 20, timeoutMs: 2000, maxRetries: 3, random: () => 0.5 };
const TASK = { id: 't1', requirement: 'Add one to x.', signature: 'def f(x):' };
const MSG = [{ role: 'user' as const, content: 'write f' }];

let server: MockServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

async function backend(handler = openAiHandler(), extra: Partial<ConstructorParameters<typeof OpenAiBackend>[0]> = {}) {
  server = await startMock(handler);
  return new OpenAiBackend({ model: 'gpt-4o-mini', apiKey: GOOD_OPENAI_KEY, baseURL: `${server.origin}/v1`, reliability: FAST, ...extra });
}

async function failure(p: Promise<unknown>): Promise<LlmError> {
  try {
    await p;
  } catch (e) {
    expect(e).toBeInstanceOf(LlmError);
    return e as LlmError;
  }
  throw new Error('expected a failure');
}

describe('OpenAI backend over the wire', () => {
  it('asks for n samples with log-probabilities and reads choices, logprobs and usage', async () => {
    const b = await backend();
    const res = await b.chat({ messages: MSG, n: 3, temperature: 0.7, maxTokens: 200, topLogprobs: 3, seed: 7 });
    const body = server!.requests[0]!.body;
    expect(body).toMatchObject({ model: 'gpt-4o-mini', n: 3, temperature: 0.7, max_tokens: 200, logprobs: true, top_logprobs: 3, seed: 7 });
    expect(server!.requests[0]!.headers.authorization).toBe(`Bearer ${GOOD_OPENAI_KEY}`);
    expect(res.choices).toHaveLength(3);
    expect(res.choices[2]!.text).toContain('return x + 2');
    expect(res.choices[0]!.logprobs![0]!.top).toHaveLength(3);
    expect(res.usage).toEqual({ inputTokens: 100, outputTokens: res.choices.reduce((s, c) => s + c.logprobs!.length, 0), source: 'reported' });
    expect(res.servedModel).toBe('gpt-4o-mini-2024-07-18');
    expect(res.billing).toBe('local'); // a server on 127.0.0.1
  });

  it('uses max_completion_tokens against api.openai.com and max_tokens against compatible servers', async () => {
    const b = await backend(openAiHandler(), { maxTokensField: 'max_completion_tokens' });
    await b.chat({ messages: MSG, n: 1, temperature: 0, maxTokens: 50 });
    expect(server!.requests[0]!.body).toMatchObject({ max_completion_tokens: 50 });
    expect(server!.requests[0]!.body.max_tokens).toBeUndefined();
  });

  it('generates candidates with a real token entropy from top log-probabilities', async () => {
    const b = await backend();
    const set = await generateCandidates(TASK, null, { backend: b, config: makeConfig({ generation: { candidates: 4 } }), topLogprobs: 3 });
    expect(set.candidates).toHaveLength(4);
    expect(set.candidates.map((c) => c.code)).toEqual([0, 1, 2, 3].map((k) => `def f(x):\n    return x + ${k}\n`));
    // each token: p = 0.5 chosen, 0.25 and 0.25 alternatives → H = 1.5·ln 2, normalised by ln 4 → 0.75
    expect(set.candidates[0]!.logprobs!.meanEntropy).toBeCloseTo(1.5 * Math.log(2), 10);
    expect(set.uncertainty.entropy.value).toBeCloseTo(0.75, 10);
    expect(set.uncertainty.entropy.method).toMatch(/token-logprobs/);
    expect(set.uncertainty.consistency.value).toBeCloseTo(0.75, 10); // four different programs
    expect(set.usage.calls).toBe(1);
    expect(set.cost.usd).toBeGreaterThan(0);
    expect(set.cost.note).toMatch(/gpt-4o-mini at \$0.15\/M in/);
  });

  it('fills up with one-sample calls when the server ignores n, and checks it got n', async () => {
    const b = await backend(openAiHandler({ maxSamples: 1, text: (_i, _req, r) => `\`\`\`py\ndef f(x):\n    return x * ${r}\n\`\`\`` }));
    const set = await generateCandidates(TASK, null, { backend: b, config: makeConfig({ generation: { candidates: 5 } }) });
    expect(set.candidates).toHaveLength(5);
    expect(server!.requests.map((r) => r.body.n)).toEqual([5, 1, 1, 1, 1]);
    expect(new Set(set.candidates.map((c) => c.code)).size).toBe(5);
    expect(set.warnings.join('\n')).toMatch(/ignores n/);
  });

  it('asks for the remainder when the server caps n', async () => {
    const b = await backend(openAiHandler({ maxSamples: 2 }));
    const set = await generateCandidates(TASK, null, { backend: b, config: makeConfig({ generation: { candidates: 5 } }) });
    expect(set.candidates).toHaveLength(5);
    expect(server!.requests.map((r) => r.body.n)).toEqual([5, 3, 1]);
  });

  it('fails clearly when samples never arrive instead of returning an empty candidate', async () => {
    const b = await backend(() => ({ json: openAiCompletion('gpt-4o-mini', []) }));
    const err = await failure(generateCandidates(TASK, null, { backend: b }));
    expect(err.kind).toBe('short');
    expect(err.message).toMatch(/returned 0 of the 5 samples asked for, after 7 calls/);
  });

  it('retries a 429, honouring Retry-After', async () => {
    const b = await backend();
    const ok = server!.handler;
    server!.handler = (req, i) =>
      i === 0 ? openAiError(429, 'Rate limit reached for gpt-4o-mini', 'requests', 'rate_limit_exceeded', { 'retry-after': '1' }) : ok(req, i);
    const t0 = Date.now();
    const res = await b.chat({ messages: MSG, n: 1, temperature: 0, maxTokens: 10 });
    expect(Date.now() - t0).toBeGreaterThanOrEqual(950);
    expect(res.retries).toBe(1);
    expect(server!.requests).toHaveLength(2);
  });

  it('honours retry-after-ms and gives up on a Retry-After longer than allowed', async () => {
    const b = await backend();
    const ok = server!.handler;
    server!.handler = (req, i) => (i === 0 ? openAiError(429, 'slow down', 'requests', 'rate_limit_exceeded', { 'retry-after-ms': '60' }) : ok(req, i));
    await b.chat({ messages: MSG, n: 1, temperature: 0, maxTokens: 10 });
    expect(server!.requests).toHaveLength(2);
    server!.handler = () => openAiError(429, 'daily limit', 'requests', 'rate_limit_exceeded', { 'retry-after': '86400' });
    const err = await failure(b.chat({ messages: MSG, n: 1, temperature: 0, maxTokens: 10 }));
    expect(err.kind).toBe('rate_limit');
    expect(err.message).toMatch(/asks to wait 86400 s/);
  });

  it('retries 500s with backoff and reports the last one when they persist', async () => {
    const b = await backend();
    const ok = server!.handler;
    server!.handler = (req, i) => (i < 2 ? openAiError(500, 'The server had an error while processing your request.', 'server_error', null) : ok(req, i));
    const res = await b.chat({ messages: MSG, n: 1, temperature: 0, maxTokens: 10 });
    expect(res.retries).toBe(2);
    server!.handler = () => openAiError(503, 'overloaded', 'server_error', null);
    const before = server!.requests.length;
    const err = await failure(b.chat({ messages: MSG, n: 1, temperature: 0, maxTokens: 10 }));
    expect(err.kind).toBe('server');
    expect(err.message).toMatch(/HTTP 503.*gave up after 4 attempts/);
    expect(server!.requests.length - before).toBe(4); // the SDK's own retries are off: only ours
  });

  it('times out a server that does not answer', async () => {
    const b = await backend(openAiHandler(), { reliability: { ...FAST, timeoutMs: 150, maxRetries: 1 } });
    server!.handler = () => ({ delayMs: 1000, json: {} });
    const err = await failure(b.chat({ messages: MSG, n: 1, temperature: 0, maxTokens: 10 }));
    expect(err.kind).toBe('timeout');
    expect(err.message).toMatch(/no answer within 150 ms.*2 attempts/);
  });

  it('retries a dropped connection as a network error', async () => {
    const b = await backend();
    const ok = server!.handler;
    server!.handler = (req, i) => (i === 0 ? { destroy: true } : ok(req, i));
    const res = await b.chat({ messages: MSG, n: 1, temperature: 0, maxTokens: 10 });
    expect(res.retries).toBe(1);
  });

  it('says what to do about a rejected key, and never repeats the key', async () => {
    server = await startMock(openAiHandler());
    const b = new OpenAiBackend({ model: 'gpt-4o-mini', apiKey: 'sk-wrong-KEY-9876543210', baseURL: `${server.origin}/v1`, reliability: FAST });
    const err = await failure(b.chat({ messages: MSG, n: 1, temperature: 0, maxTokens: 10 }));
    expect(err.kind).toBe('auth');
    expect(err.message).toMatch(/rejected the API key \(HTTP 401/);
    expect(err.message).not.toContain('9876543210');
    expect(err.message).not.toContain('sk-wro');
    expect(JSON.stringify(err)).not.toContain('sk-wrong');
    expect(server.requests).toHaveLength(1); // not retried
  });

  it('refuses to start without a key for api.openai.com, naming the variable', () => {
    expect(() => createBackend({ kind: 'openai' }, {})).toThrow(/OPENAI_API_KEY/);
    // a local server needs no key
    expect(createBackend({ kind: 'openai', baseURL: 'http://127.0.0.1:11434/v1', model: 'qwen2.5-coder' }, {}).label).toMatch(/OpenAI-compatible/);
  });

  it('names an unknown model', async () => {
    const b = await backend(openAiHandler({ models: ['other-model'] }));
    const err = await failure(b.chat({ messages: MSG, n: 1, temperature: 0, maxTokens: 10 }));
    expect(err.kind).toBe('unknown_model');
    expect(err.message).toMatch(/does not know the model "gpt-4o-mini".*pulled or loaded/);
  });

  it('reports a malformed body instead of crashing', async () => {
    const b = await backend(() => ({ text: '{"id": "chatcmpl-1", "choices": [' }));
    const err = await failure(b.chat({ messages: MSG, n: 1, temperature: 0, maxTokens: 10 }));
    expect(err.kind).toBe('malformed');
    server!.handler = () => ({ json: { id: 'x', object: 'chat.completion' } });
    const err2 = await failure(b.chat({ messages: MSG, n: 1, temperature: 0, maxTokens: 10 }));
    expect(err2.kind).toBe('malformed');
    expect(err2.message).toMatch(/without a choices list/);
  });

  it('flags refusals, and keeps every refused sample as a candidate without code (a failed sample, not an error)', async () => {
    const b = await backend(() => ({ json: openAiCompletion('gpt-4o-mini', ['', ''], { refusal: "I can't help with that." }) }));
    const res = await b.chat({ messages: MSG, n: 2, temperature: 0, maxTokens: 10 });
    expect(res.choices.every((c) => c.refused && c.text === "I can't help with that.")).toBe(true);
    const set = await generateCandidates(TASK, null, { backend: b, config: makeConfig({ generation: { candidates: 2 } }) });
    expect(set.candidates.map((c) => [c.refused, c.code, c.extraction.ok])).toEqual([
      [true, '', false],
      [true, '', false],
    ]);
    expect(set.warnings.join('\n')).toMatch(/refused every sample/);
  });

  it('goes on without log-probabilities when a compatible server rejects them', async () => {
    const b = await backend();
    const ok = server!.handler;
    server!.handler = (req, i) =>
      req.body.logprobs ? openAiError(400, 'logprobs is not supported by this server', 'invalid_request_error', null) : ok(req, i);
    const set = await generateCandidates(TASK, null, { backend: b, config: makeConfig({ generation: { candidates: 2 } }) });
    expect(set.candidates).toHaveLength(2);
    expect(set.uncertainty.entropy.method).toMatch(/group-entropy/);
    expect(set.warnings.join('\n')).toMatch(/does not offer log-probabilities/);
    expect(b.capabilities.logprobs).toBe(false);
  });

  it('sends the decomposition as a strict json_schema and reads the steps', async () => {
    const steps = {
      steps: [
        { text: 'Look up the rate', weights: { api: 2, context: 1, similar: 1 }, queries: { api: 'tax_rate', context: 'TAX_RATES', similar: 'rate lookup' } },
        { text: 'Round the tax', weights: { api: 1, context: 0, similar: 1 }, queries: { api: '_round_half_up', context: '', similar: 'half up rounding' } },
      ],
    };
    const b = await backend(() => ({ json: openAiCompletion('gpt-4o-mini', [JSON.stringify(steps)]) }));
    const out = await llmDecomposer(b).decompose({ requirement: 'Add tax.', signature: 'def add_tax(amount):' }, { minSteps: 2, maxSteps: 6 });
    const rf = server!.requests[0]!.body.response_format;
    expect(rf.type).toBe('json_schema');
    expect(rf.json_schema.strict).toBe(true);
    expect(rf.json_schema.schema.properties.steps).toMatchObject({ type: 'array', minItems: 2, maxItems: 6 });
    expect(server!.requests[0]!.body.temperature).toBe(0);
    expect(out).toHaveLength(2);
    expect(out[0]!.weights).toEqual({ api: 0.5, context: 0.25, similar: 0.25 });
    expect(out[1]!.queries!.context).toBe('Round the tax');
  });

  it('limits concurrent calls per backend', async () => {
    let inFlight = 0;
    let peak = 0;
    const ok = openAiHandler();
    const b = await backend(
      async (req, i) => {
        inFlight++;
        peak = Math.max(peak, inFlight);
        await new Promise((r) => setTimeout(r, 30));
        inFlight--;
        return ok(req, i);
      },
      { reliability: { ...FAST, concurrency: 2 } },
    );
    await Promise.all(Array.from({ length: 6 }, () => b.chat({ messages: MSG, n: 1, temperature: 0, maxTokens: 10 })));
    expect(peak).toBe(2);
  });
});
