// The Gemini backend driven through the real `@google/genai` SDK against a mock generateContent server on 127.0.0.1.

import { afterEach, describe, expect, it } from 'vitest';
import { GeminiBackend, toGeminiSchema } from '../../main/generate/gemini-backend.ts';
import { LlmError } from '../../main/generate/errors.ts';
import { generateCandidates, llmDecomposer } from '../../main/generate/generate.ts';
import { createBackend } from '../../main/generate/backends.ts';
import { makeConfig } from '../../main/model/config.ts';
import { startMock, type MockServer } from './mock-http.ts';
import { GOOD_GEMINI_KEY, geminiError, geminiHandler, geminiResponse } from './wire.ts';

const FAST = { baseDelayMs: 5, maxDelayMs: 20, timeoutMs: 2000, maxRetries: 3, random: () => 0.5 };
const TASK = { id: 't1', requirement: 'Add one to x.', signature: 'def f(x):' };
const MSG = [
  { role: 'system' as const, content: 'be brief' },
  { role: 'user' as const, content: 'write f' },
];

let server: MockServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

async function backend(handler = geminiHandler(), extra: Partial<ConstructorParameters<typeof GeminiBackend>[0]> = {}) {
  server = await startMock(handler);
  return new GeminiBackend({ model: 'gemini-2.5-flash', apiKey: GOOD_GEMINI_KEY, baseURL: server.origin, reliability: FAST, ...extra });
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

describe('Gemini backend over the wire', () => {
  it('asks for candidateCount samples with response log-probabilities and reads them', async () => {
    const b = await backend();
    const res = await b.chat({ messages: MSG, n: 3, temperature: 0.8, maxTokens: 300, topLogprobs: 3, seed: 3 });
    const req = server!.requests[0]!;
    expect(req.url).toBe('/v1beta/models/gemini-2.5-flash:generateContent');
    expect(req.headers['x-goog-api-key']).toBe(GOOD_GEMINI_KEY);
    expect(req.body.systemInstruction.parts[0].text).toBe('be brief');
    expect(req.body.contents).toEqual([{ role: 'user', parts: [{ text: 'write f' }] }]);
    expect(req.body.generationConfig).toMatchObject({
      candidateCount: 3,
      temperature: 0.8,
      maxOutputTokens: 300,
      responseLogprobs: true,
      logprobs: 3,
      seed: 3,
    });
    expect(res.choices).toHaveLength(3);
    expect(res.choices[1]!.text).toContain('return x + 1');
    expect(res.choices[0]!.finishReason).toBe('stop');
    expect(res.choices[0]!.logprobs![0]!.top.map((t) => Math.exp(t.logprob))).toEqual([0.5, 0.25, 0.25].map((p) => expect.closeTo(p, 12)));
    expect(res.usage.inputTokens).toBe(120);
    expect(res.billing).toBe('metered');
  });

  it('generates candidates with token entropy and Gemini pricing', async () => {
    const b = await backend();
    const set = await generateCandidates(TASK, null, { backend: b, config: makeConfig({ generation: { candidates: 2 } }), topLogprobs: 3 });
    expect(set.candidates.map((c) => c.code)).toEqual(['def f(x):\n    return x + 0\n', 'def f(x):\n    return x + 1\n']);
    expect(set.uncertainty.entropy.value).toBeCloseTo(0.75, 10);
    expect(set.cost.note).toMatch(/gemini-2.5-flash at \$0.3\/M in, \$2.5\/M out/);
  });

  it('counts thinking tokens as output', async () => {
    const b = await backend(() => ({ json: geminiResponse('gemini-2.5-flash', ['```python\ndef f(x):\n    return x\n```'], { thoughts: 500 }) }));
    const res = await b.chat({ messages: MSG, n: 1, temperature: 0, maxTokens: 1000 });
    expect(res.usage.outputTokens).toBe(500 + Math.ceil('```python\ndef f(x):\n    return x\n```'.length / 4));
    expect(res.warnings.join()).toMatch(/500 thinking tokens/);
  });

  it('fills up when candidateCount is ignored', async () => {
    const b = await backend(geminiHandler({ maxSamples: 1, text: (_i, _r, r) => `\`\`\`python\ndef f(x):\n    return x - ${r}\n\`\`\`` }));
    const set = await generateCandidates(TASK, null, { backend: b, config: makeConfig({ generation: { candidates: 3 } }) });
    expect(set.candidates).toHaveLength(3);
    expect(server!.requests.map((r) => r.body.generationConfig.candidateCount)).toEqual([3, 1, 1]);
  });

  it('sends JSON mode with the schema in Gemini form and reads the decomposition', async () => {
    const steps = {
      steps: [
        {
          text: 'Parse the text',
          weights: { api: 0.2, context: 0.4, similar: 0.4 },
          queries: { api: 'split', context: 'parse_money', similar: 'parse amount' },
        },
        { text: 'Build Money', weights: { api: 1, context: 0, similar: 0 }, queries: { api: 'Money.from_decimal', context: 'Money', similar: 'from decimal' } },
        { text: 'Reject garbage', weights: { api: 0, context: 0, similar: 0 }, queries: { api: 'InvalidAmountError', context: 'errors', similar: 'raise' } },
      ],
    };
    const b = await backend(() => ({ json: geminiResponse('gemini-2.5-flash', [JSON.stringify(steps)]) }));
    const out = await llmDecomposer(b).decompose({ requirement: 'Parse money.', signature: 'def parse_money(text):' }, { minSteps: 2, maxSteps: 6 });
    const cfg = server!.requests[0]!.body.generationConfig;
    expect(cfg.responseMimeType).toBe('application/json');
    expect(cfg.responseSchema.type).toBe('OBJECT');
    expect(cfg.responseSchema.properties.steps).toMatchObject({ type: 'ARRAY', minItems: '2', maxItems: '6' });
    expect(cfg.responseSchema.properties.steps.items.properties.weights.properties.api.type).toBe('NUMBER');
    expect(JSON.stringify(cfg.responseSchema)).not.toContain('additionalProperties');
    expect(out).toHaveLength(3);
    expect(out[2]!.weights).toEqual({ api: 1 / 3, context: 1 / 3, similar: 1 / 3 });
  });

  it('retries a 429 honouring the RetryInfo delay, and a Retry-After header', async () => {
    const b = await backend();
    const ok = server!.handler;
    server!.handler = (req, i) =>
      i === 0
        ? geminiError(429, 'RESOURCE_EXHAUSTED', 'You exceeded your current quota.', [
            { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '0.3s' },
          ])
        : i === 1
          ? geminiError(429, 'RESOURCE_EXHAUSTED', 'Too many requests.', undefined, { 'retry-after': '1' })
          : ok(req, i);
    const t0 = Date.now();
    const res = await b.chat({ messages: MSG, n: 1, temperature: 0, maxTokens: 10 });
    expect(Date.now() - t0).toBeGreaterThanOrEqual(1250);
    expect(res.retries).toBe(2);
  });

  it('retries 500 / 503 and gives up with the status', async () => {
    const b = await backend();
    const ok = server!.handler;
    server!.handler = (req, i) => (i === 0 ? geminiError(500, 'INTERNAL', 'An internal error has occurred.') : ok(req, i));
    expect((await b.chat({ messages: MSG, n: 1, temperature: 0, maxTokens: 10 })).retries).toBe(1);
    server!.handler = () => geminiError(503, 'UNAVAILABLE', 'The model is overloaded. Please try again later.');
    const before = server!.requests.length;
    const err = await failure(b.chat({ messages: MSG, n: 1, temperature: 0, maxTokens: 10 }));
    expect(err.kind).toBe('server');
    expect(err.message).toMatch(/HTTP 503: The model is overloaded.*gave up after 4 attempts/);
    expect(server!.requests.length - before).toBe(4);
  });

  it('times out', async () => {
    const b = await backend(geminiHandler(), { reliability: { ...FAST, timeoutMs: 150, maxRetries: 0 } });
    server!.handler = () => ({ delayMs: 1000, json: {} });
    const err = await failure(b.chat({ messages: MSG, n: 1, temperature: 0, maxTokens: 10 }));
    expect(err.kind).toBe('timeout');
  });

  it("recognises Google's 400 API_KEY_INVALID as a bad key and does not retry it", async () => {
    server = await startMock(geminiHandler());
    const b = new GeminiBackend({ model: 'gemini-2.5-flash', apiKey: 'AIzaWRONG-key-0000000000', baseURL: server.origin, reliability: FAST });
    const err = await failure(b.chat({ messages: MSG, n: 1, temperature: 0, maxTokens: 10 }));
    expect(err.kind).toBe('auth');
    expect(err.message).toMatch(/rejected the API key.*GEMINI_API_KEY/);
    expect(err.message).not.toContain('AIzaWRONG');
    expect(server.requests).toHaveLength(1);
  });

  it('needs a key, from GEMINI_API_KEY or GOOGLE_API_KEY', () => {
    expect(() => createBackend({ kind: 'gemini' }, {})).toThrow(/GEMINI_API_KEY \(or GOOGLE_API_KEY\)/);
    expect(createBackend({ kind: 'gemini' }, { GOOGLE_API_KEY: 'AIza-from-google-var-123' }).id).toBe('gemini:gemini-2.5-flash');
  });

  it('names an unknown model', async () => {
    const b = await backend(geminiHandler({ models: ['gemini-2.0-flash'] }));
    const err = await failure(b.chat({ messages: MSG, n: 1, temperature: 0, maxTokens: 10 }));
    expect(err.kind).toBe('unknown_model');
    expect(err.message).toMatch(/does not know the model "gemini-2.5-flash"/);
  });

  it('reports a malformed body', async () => {
    const b = await backend(() => ({ text: '{"candidates": [{"content": ' }));
    const err = await failure(b.chat({ messages: MSG, n: 1, temperature: 0, maxTokens: 10 }));
    expect(err.kind).toBe('malformed');
    server!.handler = () => ({ json: { candidates: 'oops' } });
    expect((await failure(b.chat({ messages: MSG, n: 1, temperature: 0, maxTokens: 10 }))).kind).toBe('malformed');
  });

  it('reports a blocked prompt as refused, and flags a safety-stopped candidate', async () => {
    const b = await backend(() => ({ json: { promptFeedback: { blockReason: 'SAFETY' }, usageMetadata: { promptTokenCount: 5, totalTokenCount: 5 } } }));
    expect((await failure(b.chat({ messages: MSG, n: 1, temperature: 0, maxTokens: 10 }))).kind).toBe('refused');
    server!.handler = () => ({ json: geminiResponse('gemini-2.5-flash', ['```python\ndef f(x):\n    return 1\n```', ''], {}) });
    const ok = server!.handler;
    server!.handler = (req, i) => {
      const r = ok(req, i) as { json: ReturnType<typeof geminiResponse> };
      r.json.candidates[1]!.finishReason = 'SAFETY';
      return r;
    };
    const set = await generateCandidates(TASK, null, { backend: b, config: makeConfig({ generation: { candidates: 2 } }) });
    expect(set.candidates[1]!.refused).toBe(true);
    expect(set.candidates[1]!.extraction.ok).toBe(false);
    expect(set.warnings.join('\n')).toMatch(/candidate 2: refused/);
  });

  it('flags a reply cut off by the token limit instead of passing an empty candidate silently', async () => {
    const b = await backend(() => ({
      json: geminiResponse('gemini-2.5-flash', ['', '```python\ndef f(x):\n    return 2\n```'], { finish: 'MAX_TOKENS', thoughts: 1000 }),
    }));
    const set = await generateCandidates(TASK, null, { backend: b, config: makeConfig({ generation: { candidates: 2 } }) });
    expect(set.candidates[0]!.extraction).toMatchObject({ ok: false, note: 'empty reply' });
    expect(set.candidates[0]!.finishReason).toBe('length');
    expect(set.warnings.join('\n')).toMatch(/candidate 1: empty reply \(the reply hit the token limit\)/);
  });

  it('converts JSON schema to Gemini schema', () => {
    expect(toGeminiSchema({ type: ['string', 'null'], description: 'd', additionalProperties: false, maxLength: 5 })).toEqual({
      type: 'STRING',
      nullable: true,
      description: 'd',
      maxLength: '5',
    });
  });
});
