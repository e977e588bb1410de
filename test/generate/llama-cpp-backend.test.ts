// The llama-cpp backend on a real GGUF file: a tiny random-weight llama model written by scripts/tiny-gguf.ts,
// loaded through node-llama-cpp's prebuilt llama.cpp (no download). Same request, same candidates (greedy and
// seeded sampling); log-probabilities of the model's raw distribution with top alternatives, so token entropy is
// measured from them; cancelling between tokens; time and speed per candidate; the model file looked up and
// checked with errors that name it; the time estimate that stands in for a local model's cost.

import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBackend } from '../../main/generate/backends.ts';
import { storedBackendSpec } from '../../main/model/backend-spec.ts';
import { DEFAULT_PRICES, estimateGeneration, sumEstimates } from '../../main/generate/cost.ts';
import { LlmError } from '../../main/generate/errors.ts';
import { defaultLlamaThreads, LlamaCppBackend } from '../../main/generate/llama-cpp-backend.ts';
import { acquireModel } from '../../main/generate/llama/runtime.ts';
import { stopSuffix } from '../../main/generate/llama/sample.ts';
import type { ChatRequest, ChatResponse, LocalSpeed } from '../../main/generate/types.ts';
import { measureGenerationUncertainty } from '../../main/generate/uncertainty.ts';
import { writeTinyGguf, type TinyGgufInfo } from '../../scripts/tiny-gguf.ts';
import { tmpDir } from '../helpers/tmp-repo.ts';

let dir: string;
let file: string;
let info: TinyGgufInfo;
let backend: LlamaCppBackend;

const REQUEST: ChatRequest = {
  messages: [
    { role: 'system', content: 'You write Python functions.' },
    { role: 'user', content: 'Write def add(a, b) that returns the sum.' },
  ],
  n: 3,
  temperature: 0,
  maxTokens: 16,
  topLogprobs: 5,
};

/** The parts of a response that must repeat exactly (times differ from run to run). */
const outcome = (r: ChatResponse) => r.choices.map(({ timing: _t, ...c }) => c);

beforeAll(() => {
  dir = tmpDir('oc-llama-');
  file = path.join(dir, 'tiny.gguf');
  info = writeTinyGguf(file);
  backend = new LlamaCppBackend({ model: file, threads: 1 });
});
afterAll(async () => {
  await backend?.dispose();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('the llama-cpp backend on a tiny GGUF model', () => {
  it('writes the same model file for the same options', () => {
    const again = path.join(dir, 'again.gguf');
    writeTinyGguf(again);
    expect(fs.readFileSync(again).equals(fs.readFileSync(file))).toBe(true);
    expect(info.hparams).toMatchObject({ layers: 2, embd: 64 });
    expect(fs.readFileSync(file).subarray(0, 4).toString('latin1')).toBe('GGUF');
  });

  it('generates the same candidates twice at temperature 0, with log-probabilities, and token entropy comes from them', async () => {
    const a = await backend.chat(REQUEST);
    const b = await backend.chat(REQUEST);
    expect(a).toMatchObject({ provider: 'llama-cpp', billing: 'local', model: 'tiny', calls: 1 });
    expect(a.choices).toHaveLength(3);
    expect(outcome(b)).toEqual(outcome(a));
    // greedy: every candidate is the same, each token is its position's most likely one, and stops at the limit
    for (const c of a.choices) {
      expect(c.text).toBe(a.choices[0]!.text);
      expect(c.finishReason).toBe('length');
      expect(c.outputTokens).toBe(16);
      expect(c.logprobs).toHaveLength(16);
      for (const t of c.logprobs!) {
        expect(t.top).toHaveLength(5);
        expect(t.top[0]).toEqual({ token: t.token, logprob: t.logprob });
        expect(t.logprob).toBeLessThan(0);
        expect(t.top.reduce((s, x) => s + Math.exp(x.logprob), 0)).toBeLessThanOrEqual(1 + 1e-6);
      }
    }
    expect(a.choices[0]!.text.length).toBeGreaterThan(0);
    expect(a.usage).toMatchObject({ outputTokens: 48, source: 'reported' });
    expect(a.usage.inputTokens).toBeGreaterThan(10);

    const u = await measureGenerationUncertainty(
      a.choices.map((c) => c.text),
      a.choices.map((c) => c.logprobs),
      { weights: { entropy: 0.4, consistency: 0.4, variance: 0.2 } },
    );
    expect(u.entropy.method).toBe('token-logprobs (top-k entropy, normalised; 3/3 candidates)');
    expect(u.entropy.value).toBeGreaterThan(0);
    expect(u.entropy.value).toBeLessThan(1);
  });

  it('samples the same candidates twice for a seed at temperature 0.8, different ones for another seed', async () => {
    const req = { ...REQUEST, temperature: 0.8, seed: 42 };
    const a = await backend.chat(req);
    const b = await backend.chat(req);
    expect(outcome(b)).toEqual(outcome(a));
    expect(new Set(a.choices.map((c) => c.text)).size).toBeGreaterThan(1); // candidate i is sampled with seed + i
    const other = await backend.chat({ ...req, seed: 43 });
    expect(other.choices.map((c) => c.text)).not.toEqual(a.choices.map((c) => c.text));
    // the second candidate of seed 42 is the first of seed 43
    expect(outcome(other)[0]!.text).toBe(outcome(a)[1]!.text);
  });

  it("reports sampled tokens' log-probabilities under the raw distribution, not the sampler's cut-down one", async () => {
    const greedy = await backend.chat({ ...REQUEST, n: 1 });
    const sampled = await backend.chat({ ...REQUEST, n: 1, temperature: 0.8, seed: 7 });
    // the first token of any candidate is drawn from the same distribution (the prompt's): its alternatives agree
    const g = greedy.choices[0]!.logprobs![0]!;
    const s = sampled.choices[0]!.logprobs![0]!;
    expect(s.top.map((t) => t.token)).toEqual(g.top.map((t) => t.token));
    s.top.forEach((t, i) => expect(t.logprob).toBeCloseTo(g.top[i]!.logprob, 3));
    for (const t of sampled.choices[0]!.logprobs!) expect(t.logprob).toBeLessThan(0);
  });

  it('records the wall time and tokens per second of every candidate', async () => {
    const r = await backend.chat({ ...REQUEST, n: 2 });
    for (const c of r.choices) {
      expect(c.timing!.wallMs).toBeGreaterThan(0);
      expect(c.timing!.tokensPerSecond).toBeCloseTo((c.outputTokens! * 1000) / c.timing!.wallMs, 6);
    }
    const speed = backend.localSpeed();
    expect(speed.source).toBe('measured');
    expect(speed.outputTokensPerSecond).toBeGreaterThan(0);
    expect(speed.note).toMatch(/measured on this machine/);
    // Measured as a function of the context: a line per output token, one per prompt token, and the model's own count of characters per token.
    expect(speed.outputMs!.base).toBeGreaterThan(0);
    expect(speed.outputMs!.slope).toBeGreaterThanOrEqual(0);
    expect(speed.promptMs!.base).toBeGreaterThan(0);
    const chars = REQUEST.messages.reduce((sum, m) => sum + m.content.length, 0);
    expect(speed.charsPerToken!).toBeGreaterThan(0);
    expect(speed.charsPerToken!).toBeLessThan(chars / r.usage.inputTokens + 1e-9);
  });

  it('stops at the token where it was cancelled, rejects as cancelled, and answers the next request as before', async () => {
    const controller = new AbortController();
    let seen = 0;
    let afterAbort = 0;
    const b = new LlamaCppBackend({
      model: file,
      threads: 1,
      onToken: (_candidate, count) => {
        if (controller.signal.aborted) afterAbort++;
        seen = count;
        if (count === 5) controller.abort();
      },
    });
    try {
      const err = await b.chat({ ...REQUEST, maxTokens: 400 }, { signal: controller.signal }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(LlmError);
      expect(err).toMatchObject({ kind: 'cancelled', code: 'cancelled' });
      expect((err as Error).message).toMatch(/cancelled during candidate 1, after 5 tokens/);
      expect(seen).toBe(5);
      expect(afterAbort).toBe(0);
      // nothing of the cancelled candidate stays in the context: the next answer is the usual one
      expect(outcome(await b.chat(REQUEST))).toEqual(outcome(await backend.chat(REQUEST)));
      const already = AbortSignal.abort();
      await expect(b.chat(REQUEST, { signal: already })).rejects.toMatchObject({ kind: 'cancelled' });
    } finally {
      await b.dispose();
    }
  });

  it("ends a reply at the model's end-of-turn token, and cuts a chat template's stop text off", async () => {
    const ending = path.join(dir, 'ending.gguf');
    writeTinyGguf(ending, { endTokenBias: 2 }); // </s> and <|im_end|> likely enough to end replies early
    const b = new LlamaCppBackend({ model: ending, threads: 1 });
    try {
      const r = await b.chat({ ...REQUEST, n: 1, maxTokens: 64, temperature: 0.8, seed: 1 });
      const c = r.choices[0]!;
      expect(c.finishReason).toBe('stop');
      expect(c.outputTokens).toBeGreaterThan(0);
      expect(c.outputTokens).toBeLessThan(64);
      expect(c.logprobs).toHaveLength(c.outputTokens!);
    } finally {
      await b.dispose();
    }
    // A stop text made of several tokens (the special token written out, as a template may give it) is found at the end
    const { model: m, release } = await acquireModel(file);
    const tokens = [...m.tokenize('return a'), ...m.tokenize('<|im_end|>', false)];
    const special = m.tokenize('<|im_end|>', true);
    expect(special).toEqual([info.special.imEnd]);
    expect(stopSuffix(m, tokens, ['<|im_end|>'], 16)).toBe(tokens.length - m.tokenize('return a').length);
    expect(stopSuffix(m, [...m.tokenize('return a'), ...special], ['<|im_end|>'], 16)).toBe(1);
    expect(stopSuffix(m, m.tokenize('return a'), ['<|im_end|>'], 16)).toBe(0);
    await release();
  });
});

describe('finding the model file', () => {
  it('looks a file name up in the models folder, with or without .gguf', () => {
    const models = path.join(dir, 'models');
    fs.mkdirSync(models, { recursive: true });
    fs.copyFileSync(file, path.join(models, 'coder.gguf'));
    expect(new LlamaCppBackend({ model: 'coder.gguf', modelsDir: models }).file).toBe(path.join(models, 'coder.gguf'));
    expect(new LlamaCppBackend({ model: 'coder', modelsDir: models }).file).toBe(path.join(models, 'coder.gguf'));
  });

  it('names a missing file and lists the .gguf files of the folder', () => {
    const models = path.join(dir, 'listed');
    fs.mkdirSync(models, { recursive: true });
    fs.writeFileSync(path.join(models, 'a.gguf'), 'GGUF');
    fs.writeFileSync(path.join(models, 'b.GGUF'), 'GGUF');
    fs.writeFileSync(path.join(models, 'notes.txt'), 'x');
    const err = (() => {
      try {
        new LlamaCppBackend({ model: 'qwen.gguf', modelsDir: models });
      } catch (e) {
        return e as LlmError;
      }
    })();
    expect(err).toBeInstanceOf(LlmError);
    expect(err!.code).toBe('invalid-input');
    expect(err!.message).toContain(`No GGUF model at ${path.join(models, 'qwen.gguf')}`);
    expect(err!.message).toContain(`The models folder ${models} holds: a.gguf, b.GGUF.`);
    expect(() => new LlamaCppBackend({ model: 'x.gguf', modelsDir: path.join(dir, 'nowhere') })).toThrow(/does not exist yet/);
  });

  it('refuses a file that is not GGUF, naming it', () => {
    const bad = path.join(dir, 'model.bin');
    fs.writeFileSync(bad, 'PK\u0003\u0004 not a model');
    expect(() => new LlamaCppBackend({ model: bad })).toThrow(new RegExp(`${bad.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} is not a GGUF model`));
    expect(() => new LlamaCppBackend({ model: dir })).toThrow(/is a folder, not a GGUF model file/);
  });

  it('names a GGUF file llama.cpp cannot load when it is first used', async () => {
    const truncated = path.join(dir, 'truncated.gguf');
    fs.writeFileSync(truncated, fs.readFileSync(file).subarray(0, 4096));
    const b = new LlamaCppBackend({ model: truncated, threads: 1 });
    await expect(b.chat(REQUEST)).rejects.toThrow(new RegExp(`llama.cpp could not load ${truncated.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
  });

  it('is built from a spec, and a stored run record gives the spec back', () => {
    const models = path.join(dir, 'models');
    const b = createBackend({ kind: 'llama-cpp', model: 'coder', modelsDir: models, threads: 1 });
    expect(b.id).toBe('llama-cpp:coder');
    expect(b.billing).toBe('local');
    expect(storedBackendSpec({ kind: 'llama-cpp', model: 'coder', baseURL: null, extra: { models, threads: '2', 'context-size': 4096 } }).spec).toEqual({
      kind: 'llama-cpp',
      model: 'coder',
      modelsDir: models,
      threads: 2,
      contextSize: 4096,
    });
  });
});

describe('the estimate of a local model', () => {
  const speed: LocalSpeed = {
    outputTokensPerSecond: 20,
    promptTokensPerSecond: 200,
    source: 'measured',
    note: 'speed measured on this machine (20.0 tokens/s)',
  };
  const p = { messages: [{ role: 'user' as const, content: 'x'.repeat(3996) }], n: 5, maxTokens: 1024, nativeN: true };

  it('gives the time instead of money: prompt tokens at the prompt speed, output tokens at the output speed', () => {
    const est = estimateGeneration({ ...p, speed }, 'tiny', 'local', DEFAULT_PRICES);
    expect(est.inputTokens).toBe(1003);
    expect(est.usdExpected).toBe(0);
    expect(est.secondsExpected).toBeCloseTo(1003 / 200 + (5 * 300) / 20, 9);
    expect(est.secondsMax).toBeCloseTo(1003 / 200 + (5 * 1024) / 20, 9);
    expect(est.note).toContain('speed measured on this machine');
    expect(sumEstimates([est, est]).secondsMax).toBeCloseTo(2 * est.secondsMax!, 9);
  });

  it('counts each output token at its context position and each prompt at its length, when the speed was measured so', () => {
    // 0.5 ms per token plus 0.001 ms per token of context before it; prompts 0.05 ms per token plus 0.00001 per token of length.
    const grown: LocalSpeed = { ...speed, outputMs: { base: 0.5, slope: 0.001 }, promptMs: { base: 0.05, slope: 0.00001 }, charsPerToken: 2 };
    const est = estimateGeneration({ ...p, speed: grown }, 'tiny', 'local', DEFAULT_PRICES);
    const prompt = 3996 / 2; // counted at the model's 2 characters per token, not ~4
    const output = (m: number) => m * 0.5 + 0.001 * (m * prompt + (m * (m - 1)) / 2);
    expect(est.secondsMax).toBeCloseTo((prompt * (0.05 + 0.00001 * prompt) + 5 * output(1024)) / 1000, 9);
    expect(est.secondsExpected).toBeCloseTo((prompt * (0.05 + 0.00001 * prompt) + 5 * output(300)) / 1000, 9);
    expect(est.note).toContain("this model's 2.00 characters each");
    // A longer prompt costs more per output token, not only more prompt time.
    const longer = estimateGeneration({ ...p, messages: [{ role: 'user', content: 'x'.repeat(4 * 3996) }], speed: grown }, 'tiny', 'local', DEFAULT_PRICES);
    const flat = { ...grown, outputMs: { base: 0.5, slope: 0 } };
    const longerFlat = estimateGeneration({ ...p, messages: [{ role: 'user', content: 'x'.repeat(4 * 3996) }], speed: flat }, 'tiny', 'local', DEFAULT_PRICES);
    expect(longer.secondsMax! - longerFlat.secondsMax!).toBeCloseTo((5 * 0.001 * (1024 * 4 * prompt + (1024 * 1023) / 2)) / 1000, 9);
  });

  it('leaves one core to the engine when it picks the threads', () => {
    expect(defaultLlamaThreads(2, 2)).toBe(1);
    expect(defaultLlamaThreads(8, 8)).toBe(7);
    expect(defaultLlamaThreads(4, 16)).toBe(4);
    expect(defaultLlamaThreads(1, 1)).toBe(1);
  });

  it('leaves a billed model in dollars', () => {
    const est = estimateGeneration({ ...p, speed }, 'gpt-4o-mini', 'metered', DEFAULT_PRICES);
    expect(est.secondsExpected).toBeUndefined();
    expect(est.usdExpected).toBeGreaterThan(0);
    expect(sumEstimates([est, estimateGeneration({ ...p, speed }, 'tiny', 'local', DEFAULT_PRICES)]).secondsExpected).toBeUndefined();
  });
});
