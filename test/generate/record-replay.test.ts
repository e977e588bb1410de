// Record / replay: a recorded run replays to identical candidates and metrics with the mock server stopped;
// a miss names the request; the usage is kept per call, task and run; no key ever reaches the database.

import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Store } from '../../main/store/store.ts';
import { ExchangeStore } from '../../main/store/exchanges.ts';
import { OpenAiBackend } from '../../main/generate/openai-backend.ts';
import { GeminiBackend } from '../../main/generate/gemini-backend.ts';
import { recordExchanges, ReplayBackend, requestHash } from '../../main/generate/record.ts';
import { generateCandidates, llmDecomposer } from '../../main/generate/generate.ts';
import { createBackend } from '../../main/generate/backends.ts';
import { LlmError, ReplayMissError } from '../../main/generate/errors.ts';
import { promptTemplatesRecord } from '../../main/generate/prompts.ts';
import { makeConfig } from '../../main/model/config.ts';
import { fakeEncoder } from '../helpers/fake-encoder.ts';
import { tmpDir } from '../helpers/tmp-repo.ts';
import { startMock, type MockServer } from './mock-http.ts';
import { geminiHandler, GOOD_GEMINI_KEY, GOOD_OPENAI_KEY, openAiCompletion, openAiHandler } from './wire.ts';
import { handMadeTrace, SAMPLE_TASK } from './trace-fixture.ts';

const FAST = { baseDelayMs: 5, maxDelayMs: 20, timeoutMs: 1000, maxRetries: 1, random: () => 0.5 };
const CONFIG = makeConfig({ generation: { candidates: 5 } });

// Equivalent programs in different dress (comments, quotes, layout) and one that differs in behaviour.
const REPLIES = [
  "Here you go:\n```python\ndef add_tax(amount, tax_class='standard'):\n    # gross = net + tax\n    tax = _round_half_up(Decimal(amount.cents) * tax_rate(tax_class))\n    return amount + Money.from_cents(tax, amount.currency)\n```",
  '```py\ndef add_tax(amount, tax_class="standard"):\n    """Gross amount."""\n    tax = _round_half_up(Decimal(amount.cents)*tax_rate(tax_class))\n    return amount + Money.from_cents(tax, amount.currency)\n```\nThis adds the tax.',
  "```python\ndef add_tax(amount, tax_class='standard'):\n    return amount\n```",
  "```python\ndef add_tax(amount, tax_class='standard'):\n    tax = _round_half_up( Decimal(amount.cents) * tax_rate(tax_class) )\n\n    return amount + Money.from_cents(tax, amount.currency)  # keep currency\n```",
  "```python\ndef add_tax(amount, tax_class='standard'):\n    return amount\n```",
];

let dir: string;
let store: Store;
let ex: ExchangeStore;
let openai: MockServer;
let gemini: MockServer;
const encoder = fakeEncoder('fake@gen', 16);

beforeAll(async () => {
  dir = tmpDir('oc-replay-');
  store = Store.open(path.join(dir, 'w.db'));
  ex = new ExchangeStore(store.db, store.path);
  // the server returns at most 2 samples per request, so a generation takes several calls
  openai = await startMock(openAiHandler({ maxSamples: 2, text: (i, _req, r) => REPLIES[(2 * r + i) % REPLIES.length]! }));
  gemini = await startMock(geminiHandler({ text: (i) => REPLIES[i % REPLIES.length]! }));
});

afterAll(async () => {
  await openai.close();
  await gemini.close();
  store.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('record and replay', () => {
  it('replays a recorded OpenAI run bit for bit with the server stopped', async () => {
    const live = new OpenAiBackend({ model: 'gpt-4o-mini', apiKey: GOOD_OPENAI_KEY, baseURL: `${openai.origin}/v1`, reliability: FAST });
    const runId = ex.beginRun({ backend: live.id, provider: live.provider, model: live.model, prompts: promptTemplatesRecord(), config: CONFIG });
    const recorded = recordExchanges(live, ex, { runId });
    const trace = handMadeTrace();
    const first = await generateCandidates(SAMPLE_TASK, trace, { backend: recorded, config: CONFIG, encoder, runId, topLogprobs: 3 });
    expect(openai.requests.map((r) => r.body.n).slice(-3)).toEqual([5, 3, 1]);
    // comments, docstrings, quotes and layout do not split a group; behaviour does
    expect(first.uncertainty.groups).toEqual([
      [0, 1, 3],
      [2, 4],
    ]);
    expect(first.uncertainty.consistency.value).toBeCloseTo(0.4, 12);

    const steps = await llmDecomposer(recorded, { runId, taskId: SAMPLE_TASK.id })
      .decompose({ requirement: SAMPLE_TASK.requirement, signature: SAMPLE_TASK.signature }, { minSteps: 2, maxSteps: 6 })
      .catch((e: Error) => e);
    expect(steps).toBeInstanceOf(Error); // the mock answers code, not JSON: the decomposer says so (and retrieval falls back)

    await openai.close(); // network unplugged
    await expect(live.chat({ messages: [{ role: 'user', content: 'x' }], n: 1, temperature: 0, maxTokens: 5 })).rejects.toMatchObject({ kind: 'network' });

    const replay = new ReplayBackend(ex, { provider: 'openai', model: 'gpt-4o-mini', runId });
    const again = await generateCandidates(SAMPLE_TASK, trace, { backend: replay, config: CONFIG, encoder, topLogprobs: 3 });
    expect(again.candidates).toEqual(first.candidates);
    expect(again.uncertainty).toEqual(first.uncertainty);
    expect(again.usage).toEqual(first.usage);
    expect(again.cost).toEqual(first.cost);
    expect(again.prompt).toEqual(first.prompt);
    expect(again.backend.replayed).toBe(true);

    // the run's usage, per call and per task
    const rows = ex.exchanges({ runId });
    expect(rows.filter((r) => r.purpose === 'generate' && r.status === 'ok')).toHaveLength(3);
    expect(rows.find((r) => r.purpose === 'decompose')?.status).toBe('ok');
    const total = ex.usageOfRun(runId);
    expect(total.inputTokens).toBe(rows.reduce((s, r) => s + r.input_tokens, 0));
    expect(total.outputTokens).toBe(rows.reduce((s, r) => s + r.output_tokens, 0));
    expect(total.costUsd).toBeCloseTo((total.inputTokens * 0.15 + total.outputTokens * 0.6) / 1e6, 12);
    expect(ex.usageByTask(runId).get(SAMPLE_TASK.id)!.calls).toBe(4);

    // the command line's way to pick the replay: from the run
    const viaFactory = createBackend({ kind: 'replay', replayRun: runId }, process.env, { exchanges: ex });
    expect(viaFactory.id).toBe('replay:openai:gpt-4o-mini');
  });

  it('names the request a replay misses', async () => {
    const replay = new ReplayBackend(ex, { provider: 'openai', model: 'gpt-4o-mini' });
    const changed = { ...SAMPLE_TASK, requirement: `${SAMPLE_TASK.requirement} Also log it.` };
    const err = await generateCandidates(changed, handMadeTrace(), { backend: replay, config: CONFIG }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ReplayMissError);
    const miss = err as ReplayMissError;
    expect(miss.kind).toBe('replay_miss');
    expect(miss.message).toContain(miss.requestHash);
    expect(miss.message).toMatch(/task inventory\/add_tax, generate, openai gpt-4o-mini, call 0, n 5/);
  });

  it('keys requests by content and call ordinal, never by grounding', () => {
    const req = { messages: [{ role: 'user' as const, content: 'a' }], n: 2, temperature: 0.8, maxTokens: 10 };
    const h = requestHash('openai', 'm', req);
    expect(requestHash('openai', 'm', { ...req, grounding: { purpose: 'generate', task: SAMPLE_TASK, evidence: [], guided: true } })).toBe(h);
    expect(requestHash('openai', 'm', { ...req, call: 1 })).not.toBe(h);
    expect(requestHash('gemini', 'm', req)).not.toBe(h);
    expect(requestHash('openai', 'm', { ...req, temperature: 0.7 })).not.toBe(h);
  });

  it('replays Gemini too, and never writes either key to the database', async () => {
    const live = new GeminiBackend({ model: 'gemini-2.5-flash', apiKey: GOOD_GEMINI_KEY, baseURL: gemini.origin, reliability: FAST });
    const runId = ex.beginRun({ backend: live.id, provider: live.provider, model: live.model, prompts: promptTemplatesRecord(), config: CONFIG });
    const first = await generateCandidates(SAMPLE_TASK, handMadeTrace(), { backend: recordExchanges(live, ex, { runId }), config: CONFIG, encoder, runId });
    ex.saveResult(runId, SAMPLE_TASK.id, 'generate', first);
    ex.finishRun(runId, { tasks: 1 });
    await gemini.close();
    const again = await generateCandidates(SAMPLE_TASK, handMadeTrace(), {
      backend: new ReplayBackend(ex, { provider: 'gemini', model: 'gemini-2.5-flash', runId }),
      config: CONFIG,
      encoder,
    });
    expect(again.candidates).toEqual(first.candidates);
    expect(again.uncertainty).toEqual(first.uncertainty);

    // a failed exchange with a wrong key is recorded too (redacted)
    const bad = recordExchanges(
      new OpenAiBackend({
        model: 'gpt-4o-mini',
        apiKey: 'sk-wrong-SECRET-4242424242',
        baseURL: 'http://127.0.0.1:9/v1',
        reliability: { ...FAST, maxRetries: 0 },
      }),
      ex,
      { runId },
    );
    await expect(bad.chat({ messages: [{ role: 'user', content: 'x' }], n: 1, temperature: 0, maxTokens: 5 })).rejects.toBeInstanceOf(LlmError);
    expect(ex.exchanges({ runId }).some((r) => r.status === 'error')).toBe(true);

    store.db.pragma('wal_checkpoint(TRUNCATE)');
    // Every file in the folder, the vector packs' rows beside the database included.
    const bytes = fs
      .readdirSync(dir, { recursive: true, encoding: 'utf8' })
      .filter((f) => fs.statSync(path.join(dir, f)).isFile())
      .map((f) => fs.readFileSync(path.join(dir, f)))
      .reduce((a, b) => Buffer.concat([a, b]));
    expect(bytes.length).toBeGreaterThan(10_000);
    for (const secret of [GOOD_OPENAI_KEY, GOOD_GEMINI_KEY, 'sk-wrong-SECRET-4242424242', 'SECRET']) expect(bytes.includes(secret), secret).toBe(false);
    expect(bytes.includes('def add_tax')).toBe(true); // the search itself works
    expect(JSON.stringify(first)).not.toContain('SECRET');
  });

  it('stores what a run used: prompt templates, config, results', () => {
    const run = ex.listRuns()[0]!;
    expect(run.prompt_version).toBe('opencoder-prompts/1');
    expect(JSON.parse(run.prompts).generate_guided).toMatch(/prefer low-uncertainty evidence/i);
    expect(JSON.parse(run.config).generation.candidates).toBe(5);
    expect(ex.getResult<{ taskId: string }>(run.id, SAMPLE_TASK.id)?.taskId).toBe(SAMPLE_TASK.id);
  });

  it('records an OpenAI completion unchanged through JSON', () => {
    // numbers survive the round trip exactly: replay returns the same doubles
    const c = openAiCompletion('m', ['x'], { topLogprobs: 3 });
    expect(JSON.parse(JSON.stringify(c))).toEqual(c);
  });
});
