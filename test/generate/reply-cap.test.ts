// Bounded model replies (main/generate/reply-cap.ts): how the caps derive from max_tokens, the fetch that stops
// reading at the cap, both network backends refusing an oversized reply once (no retry), and the record / replay /
// unrecorded wrappers keeping any candidate text over its cap out of the store and the output.

import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { failureKind } from '../../main/experiment/runner.ts';
import { OversizedReplyError } from '../../main/generate/errors.ts';
import { backendOfFlags } from '../../main/host/cli/flags.ts';
import { GeminiBackend } from '../../main/generate/gemini-backend.ts';
import { OpenAiBackend } from '../../main/generate/openai-backend.ts';
import { recordExchanges, ReplayBackend, requestHash } from '../../main/generate/record.ts';
import { bodyCapOf, capReplies, REPLY_CAP, ReplyGuard, textCapOf } from '../../main/generate/reply-cap.ts';
import type { ChatRequest, ChatResponse, LlmBackend } from '../../main/generate/types.ts';
import { ExchangeStore, MAX_STORED_ERROR_CHARS } from '../../main/store/exchanges.ts';
import { Store } from '../../main/store/store.ts';
import { tmpDir } from '../helpers/tmp-repo.ts';
import { startMock, type MockServer, type Reply } from './mock-http.ts';
import { geminiHandler, geminiResponse, GOOD_GEMINI_KEY, GOOD_OPENAI_KEY, openAiCompletion, oversizedGeminiReply, oversizedOpenAiReply } from './wire.ts';

const FAST = { baseDelayMs: 5, maxDelayMs: 20, timeoutMs: 5000, maxRetries: 3, random: () => 0.5 };
const MSG = [{ role: 'user' as const, content: 'write f' }];
const HUGE = 50_000_000;

let server: MockServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

/** A JSON reply with its Content-Length header. */
function declared(body: unknown): Reply {
  const text = JSON.stringify(body);
  return { text, headers: { 'content-length': String(Buffer.byteLength(text)) } };
}

async function refusal(p: Promise<unknown>): Promise<OversizedReplyError> {
  const e = await p.then(
    () => null,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(OversizedReplyError);
  expect((e as OversizedReplyError).kind).toBe('oversized');
  expect((e as OversizedReplyError).code).toBe('engine');
  return e as OversizedReplyError;
}

describe('the caps', () => {
  it('derive the candidate text cap from max_tokens: 16 B a token plus 1 KiB, under the absolute cap', () => {
    expect(textCapOf({ maxTokens: 1024 })).toEqual({ bytes: 1024 * 16 + 1024, rule: 'max_tokens 1024 × 16 B + 1.0 KiB = 17.0 KiB' });
    expect(textCapOf({ maxTokens: 10_000_000 }).bytes).toBe(REPLY_CAP.absoluteBytes);
    expect(textCapOf({ maxTokens: 10_000_000 }).rule).toMatch(/^the absolute cap 16\.0 MiB, below max_tokens 10000000 × 16 B/);
    expect(textCapOf({ maxTokens: 1024 }, { absoluteBytes: 4096 })).toMatchObject({ bytes: 4096 });
  });

  it('derive the body cap from n, max_tokens and the log-probability entries asked for', () => {
    const plain = bodyCapOf({ n: 5, maxTokens: 1024 }, { logprobs: false });
    expect(plain.bytes).toBe(64 * 1024 + 5 * (1024 + 1024 * 16));
    expect(plain.rule).toBe('64.0 KiB + 5 sample(s) × (1.0 KiB + max_tokens 1024 × 16 B) = 149.0 KiB');
    // chosen token + 5 alternatives, 128 B each, per token
    const withLogprobs = bodyCapOf({ n: 5, maxTokens: 1024, topLogprobs: 5 }, { logprobs: true });
    expect(withLogprobs.bytes).toBe(64 * 1024 + 5 * (1024 + 1024 * (16 + 6 * 128)));
    // asked for but not sent (the server refused them): no allowance
    expect(bodyCapOf({ n: 5, maxTokens: 1024, topLogprobs: 5 }, { logprobs: false }).bytes).toBe(plain.bytes);
    // the vendors allow at most 20 alternatives
    expect(bodyCapOf({ n: 1, maxTokens: 100, topLogprobs: 50 }, { logprobs: true }).bytes).toBe(64 * 1024 + 1024 + 100 * (16 + 21 * 128));
    expect(bodyCapOf({ n: 128, maxTokens: 32_000, topLogprobs: 20 }, { logprobs: true }).bytes).toBe(REPLY_CAP.absoluteBytes);
    expect(bodyCapOf({ n: 1, maxTokens: 1024 }, { logprobs: false, absoluteBytes: 50_000 })).toMatchObject({ bytes: 50_000 });
  });

  it('take the absolute cap from --max-reply-mib into the network backends options', () => {
    const spec = backendOfFlags({ backend: 'openai', 'max-reply-mib': '2.5' });
    expect(spec).toMatchObject({ kind: 'openai', reliability: { maxReplyBytes: 2.5 * 1024 * 1024 } });
    expect(backendOfFlags({ backend: 'gemini' })).toEqual({ kind: 'gemini' });
    expect(() => backendOfFlags({ backend: 'openai', 'max-reply-mib': 'lots' })).toThrow(/--max-reply-mib must be a number ≥ 0\.001, got "lots"/);
  });

  it('leave room for a real reply at the largest sizes the default configuration asks for', () => {
    // five candidates of 1,024 tokens each, every token with its top 5 alternatives, as the mock vendors write them
    const texts = Array.from({ length: 5 }, () => 'x = 1'.repeat(1024 * 4).slice(0, 1024 * 4));
    const real = Buffer.byteLength(JSON.stringify(openAiCompletion('gpt-4o-mini', texts, { topLogprobs: 5 })));
    expect(real).toBeLessThan(bodyCapOf({ n: 5, maxTokens: 1024, topLogprobs: 5 }, { logprobs: true }).bytes);
    for (const t of texts) expect(Buffer.byteLength(t)).toBeLessThan(textCapOf({ maxTokens: 1024 }).bytes);
    const gemini = Buffer.byteLength(JSON.stringify(geminiResponse('gemini-2.5-flash', texts, { logprobs: 5 })));
    expect(gemini).toBeLessThan(bodyCapOf({ n: 5, maxTokens: 1024, topLogprobs: 5 }, { logprobs: true }).bytes);
  });
});

describe('the capped fetch', () => {
  const cap = { bytes: 100_000, rule: 'test rule' };
  const refuse = (seen: number, declared: boolean) => new OversizedReplyError('test', `over: ${seen} ${declared}`, { bytes: seen, cap: cap.bytes });

  it('passes a body under the cap through unchanged', async () => {
    server = await startMock(() => ({ json: { hello: 'x'.repeat(50_000) } }));
    const guard = new ReplyGuard(cap, refuse);
    const res = await guard.fetch(`${server.origin}/`);
    expect(((await res.json()) as { hello: string }).hello).toHaveLength(50_000);
    expect(guard.overflow).toBeUndefined();
  });

  it('stops reading a streamed body at the cap and cancels it', async () => {
    server = await startMock(() => oversizedOpenAiReply('m', HUGE));
    const guard = new ReplyGuard(cap, refuse);
    const res = await guard.fetch(`${server.origin}/`);
    const err = await res.json().then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBe(guard.overflow);
    expect(guard.overflow!.bytes).toBeGreaterThan(cap.bytes);
    expect(guard.overflow!.bytes).toBeLessThan(cap.bytes + 1024 * 1024);
    expect(guard.overflow!.message).toMatch(/ false$/); // counted, not declared
    await server.streams[0]!.closed;
    expect(server.streams[0]).toMatchObject({ cutShort: true });
    expect(server.streams[0]!.written).toBeLessThan(HUGE / 2);
  });

  it('refuses a body whose Content-Length is over the cap without reading it', async () => {
    server = await startMock(() => declared({ big: 'y'.repeat(300_000) }));
    const guard = new ReplyGuard(cap, refuse);
    const res = await guard.fetch(`${server.origin}/`);
    await expect(res.text()).rejects.toBe(guard.overflow);
    expect(guard.overflow).toMatchObject({ bytes: 300_010 });
    expect(guard.overflow!.message).toMatch(/ true$/);
  });
});

describe('the network backends', () => {
  const req: ChatRequest = { messages: MSG, n: 2, temperature: 0.7, maxTokens: 256, topLogprobs: 5 };

  it('OpenAI: refuses a 50 MB reply once, names backend, model and cap, and does not retry it', async () => {
    server = await startMock(() => oversizedOpenAiReply('gpt-4o-mini', HUGE));
    const b = new OpenAiBackend({ model: 'gpt-4o-mini', apiKey: GOOD_OPENAI_KEY, baseURL: `${server.origin}/v1`, reliability: FAST });
    const e = await refusal(b.chat(req));
    expect(e.backend).toBe('openai:gpt-4o-mini');
    const cap = bodyCapOf(req, { logprobs: true });
    expect(e.cap).toBe(cap.bytes);
    expect(e.message).toContain(`the server at ${server.origin}/v1 sent a reply for gpt-4o-mini over the size cap`);
    expect(e.message).toContain(cap.rule);
    expect(server.requests).toHaveLength(1);
    // a run counts it under its own kind in the failure summary (`generate/oversized N`)
    expect(failureKind(e)).toBe('oversized');
  });

  it('OpenAI: refuses a choice whose text passes the per-candidate cap inside a body under the body cap', async () => {
    const long = 'y = 2\n'.repeat(2000); // 12,000 bytes; max_tokens 256 allows 5,120
    server = await startMock(() => ({ json: openAiCompletion('gpt-4o-mini', ['short', long]) }));
    const b = new OpenAiBackend({ model: 'gpt-4o-mini', apiKey: GOOD_OPENAI_KEY, baseURL: `${server.origin}/v1`, reliability: FAST });
    const e = await refusal(b.chat({ ...req, topLogprobs: undefined }));
    expect(e.message).toMatch(/candidate 2 of 2 holds 12,000 bytes of text; the cap is 5,120 bytes per candidate \(max_tokens 256 × 16 B \+ 1\.0 KiB/);
    expect(server.requests).toHaveLength(1);
  });

  it('OpenAI: the absolute cap is a backend option', async () => {
    server = await startMock(() => declared(openAiCompletion('gpt-4o-mini', ['a'.repeat(40_000)])));
    const b = new OpenAiBackend({
      model: 'gpt-4o-mini',
      apiKey: GOOD_OPENAI_KEY,
      baseURL: `${server.origin}/v1`,
      reliability: { ...FAST, maxReplyBytes: 20_000 },
    });
    const e = await refusal(b.chat({ ...req, n: 1, maxTokens: 4096, topLogprobs: undefined }));
    expect(e.message).toMatch(/Content-Length declares [\d,]+ bytes, so none of it was read; the cap is 20,000 bytes \(the absolute cap 19\.5 KiB, below/);
  });

  it('Gemini: refuses a 50 MB reply once, stops reading it, and does not retry it', async () => {
    server = await startMock(() => oversizedGeminiReply('gemini-2.5-flash', HUGE));
    const b = new GeminiBackend({ model: 'gemini-2.5-flash', apiKey: GOOD_GEMINI_KEY, baseURL: server.origin, reliability: FAST });
    const e = await refusal(b.chat(req));
    expect(e.backend).toBe('gemini:gemini-2.5-flash');
    expect(e.message).toMatch(
      /^Gemini sent a reply for gemini-2\.5-flash over the size cap: the client stopped reading at [\d,]+ bytes; the cap is [\d,]+ bytes/,
    );
    expect(e.bytes).toBeLessThan(bodyCapOf(req, { logprobs: true }).bytes + 1024 * 1024);
    expect(server.requests).toHaveLength(1);
    await server.streams[0]!.closed;
    expect(server.streams[0]!.cutShort).toBe(true);
    expect(server.streams[0]!.written).toBeLessThan(HUGE / 2);
  });

  it('Gemini: refuses an oversized candidate text, and answers normally under the caps', async () => {
    server = await startMock(geminiHandler({ text: (i) => (i === 0 ? 'z'.repeat(9_000) : 'ok') }));
    const b = new GeminiBackend({ model: 'gemini-2.5-flash', apiKey: GOOD_GEMINI_KEY, baseURL: server.origin, reliability: FAST });
    const e = await refusal(b.chat({ ...req, topLogprobs: undefined }));
    expect(e.message).toMatch(/^Gemini gemini-2\.5-flash at .* sent a reply over the size cap: candidate 1 of 2 holds 9,000 bytes/);
    expect(server.requests).toHaveLength(1);
    const ok = await b.chat({ ...req, maxTokens: 1024 });
    expect(ok.choices.map((c) => c.text.length)).toEqual([9_000, 2]);
  });
});

describe('record, replay and unrecorded generation', () => {
  let dir: string;
  let store: Store;
  let ex: ExchangeStore;
  beforeAll(() => {
    dir = tmpDir('oc-reply-cap-');
    store = Store.open(path.join(dir, 'w.db'));
    ex = new ExchangeStore(store.db, store.path);
  });
  afterAll(() => {
    store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  // A backend holding a huge text (an imported sample file, a recording): no HTTP body to cap, only the text.
  const holding = (text: string): LlmBackend => ({
    id: 'imported:huge',
    provider: 'imported',
    model: 'huge',
    label: 'imported samples from huge.jsonl',
    billing: 'none',
    capabilities: { nativeN: true, logprobs: false, jsonSchema: false, network: false },
    chat: async (): Promise<ChatResponse> => ({
      provider: 'imported',
      billing: 'none',
      model: 'huge',
      choices: [{ index: 0, text, finishReason: 'stop', logprobs: null }],
      usage: { inputTokens: 0, outputTokens: 0, source: 'none' },
      calls: 1,
      retries: 0,
      latencyMs: 0,
      warnings: [],
    }),
  });
  const req: ChatRequest = { messages: MSG, n: 1, temperature: 0, maxTokens: 1024 };

  it('records a reply with an oversized text as a failed exchange without the text', async () => {
    const run = (id: string) =>
      ex.beginRun({ id, backend: 'imported:huge', provider: 'imported', model: 'huge', prompts: { version: 'v', hash: 'h', templates: {} }, config: {} });
    run('r-huge');
    run('r-ok');
    const rec = recordExchanges(holding('w'.repeat(2_000_000)), ex, { runId: 'r-huge' });
    const e = await refusal(rec.chat(req));
    expect(e.message).toMatch(/^imported samples from huge\.jsonl sent a reply over the size cap: candidate 1 of 1 holds 2,000,000 bytes/);
    const rows = ex.exchanges({ runId: 'r-huge' });
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ status: 'error', response: null });
    expect(rows[0]!.error!.length).toBeLessThan(2000);
    // under the cap, recorded as before
    await expect(recordExchanges(holding('fine'), ex, { runId: 'r-ok' }).chat(req)).resolves.toMatchObject({ choices: [{ text: 'fine' }] });
    expect(ex.exchanges({ runId: 'r-ok' })[0]).toMatchObject({ status: 'ok' });
  });

  it('holds unrecorded replies to the same cap', async () => {
    await refusal(capReplies(holding('w'.repeat(20_000))).chat(req));
    await expect(capReplies(holding('w'.repeat(20_000))).chat({ ...req, maxTokens: 2048 })).resolves.toBeDefined();
  });

  it('refuses to replay a recording with an oversized text (recorded before the cap)', async () => {
    ex.beginRun({
      id: 'r-old',
      backend: 'imported:huge',
      provider: 'imported',
      model: 'huge',
      prompts: { version: 'v', hash: 'h', templates: {} },
      config: {},
    });
    const hash = requestHash('imported', 'huge', req);
    const response = { ...(await holding('v'.repeat(100_000)).chat(req)) };
    const id = ex.record({
      requestHash: hash,
      runId: 'r-old',
      provider: 'imported',
      model: 'huge',
      request: {},
      response,
      inputTokens: 0,
      outputTokens: 0,
      costUsd: 0,
      latencyMs: 0,
    });
    const replay = new ReplayBackend(ex, { provider: 'imported', model: 'huge', runId: 'r-old' });
    const e = await refusal(replay.chat(req));
    expect(e.message).toContain(`the recorded exchange ${id} in ${store.path} sent a reply over the size cap: candidate 1 of 1 holds 100,000 bytes`);
  });

  it('clips a long error message before storing it', () => {
    const id = ex.record({
      requestHash: 'h',
      provider: 'p',
      model: 'm',
      request: {},
      error: 'E'.repeat(100_000),
      inputTokens: 0,
      outputTokens: 0,
      costUsd: null,
      latencyMs: 0,
    });
    const row = ex.exchanges().find((r) => r.id === id)!;
    expect(row.error!.length).toBeLessThan(MAX_STORED_ERROR_CHARS + 100);
    expect(row.error!.endsWith('… [91808 more characters not stored]')).toBe(true);
  });
});
