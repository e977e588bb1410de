import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { costOf, CostLedger, DEFAULT_PRICES, estimateGeneration, loadPriceTable, priceFor, sumEstimates } from '../../main/generate/cost.ts';
import { LlmError, redact, registerSecret } from '../../main/generate/errors.ts';
import { Limiter, parseRetryAfter, resolveReliability, withRetries } from '../../main/generate/reliability.ts';
import { inspect } from 'node:util';
import { isLocalUrl, OpenAiBackend } from '../../main/generate/openai-backend.ts';
import { GeminiBackend } from '../../main/generate/gemini-backend.ts';
import { resolveApiKey } from '../../main/generate/backends.ts';
import { tmpDir } from '../helpers/tmp-repo.ts';

describe('cost', () => {
  it("prices the paper's models, dated variants, local and offline runs", () => {
    expect(priceFor(DEFAULT_PRICES, 'gpt-4o-mini-2024-07-18')?.key).toBe('gpt-4o-mini');
    expect(priceFor(DEFAULT_PRICES, 'gpt-4o')).toBeNull();
    const c = costOf({ inputTokens: 1_000_000, outputTokens: 1_000_000 }, 'gemini-2.5-flash', 'metered', DEFAULT_PRICES);
    expect(c.usd).toBeCloseTo(2.8, 12);
    expect(DEFAULT_PRICES.models['gpt-4o-mini']!.asOf).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(costOf({ inputTokens: 10, outputTokens: 10 }, 'qwen2.5-coder:7b', 'local', DEFAULT_PRICES)).toMatchObject({
      usd: 0,
      note: expect.stringMatching(/local model/),
    });
    expect(costOf({ inputTokens: 10, outputTokens: 10 }, 'o9-ultra', 'metered', DEFAULT_PRICES)).toMatchObject({
      usd: null,
      note: expect.stringMatching(/add it to prices.json/),
    });
    expect(costOf({ inputTokens: 0, outputTokens: 0 }, 'x', 'none', DEFAULT_PRICES).usd).toBe(0);
  });

  it('adds up per task and per run, and says when a figure is unpriced', () => {
    const ledger = new CostLedger();
    ledger.add('a', costOf({ inputTokens: 1000, outputTokens: 500 }, 'gpt-4o-mini', 'metered', DEFAULT_PRICES));
    ledger.add('a', costOf({ inputTokens: 1000, outputTokens: 500 }, 'gpt-4o-mini', 'metered', DEFAULT_PRICES));
    ledger.add('b', costOf({ inputTokens: 10, outputTokens: 5 }, 'mystery', 'metered', DEFAULT_PRICES));
    expect(ledger.task('a')).toMatchObject({ inputTokens: 2000, outputTokens: 1000 });
    expect(ledger.task('a').usd).toBeCloseTo((2000 * 0.15 + 1000 * 0.6) / 1e6, 15);
    expect(ledger.total()).toMatchObject({ usd: null, inputTokens: 2010, note: expect.stringMatching(/1 of 3 unpriced/) });
  });

  it('estimates before a run: input once with native n, n times without', () => {
    const messages = [{ role: 'user' as const, content: 'x'.repeat(4000) }];
    const native = estimateGeneration({ messages, n: 5, maxTokens: 1024, nativeN: true }, 'gpt-4o-mini', 'metered', DEFAULT_PRICES);
    expect(native).toMatchObject({ calls: 1, inputTokens: 1004, outputTokensExpected: 1500, outputTokensMax: 5120 });
    const fill = estimateGeneration({ messages, n: 5, maxTokens: 1024, nativeN: false }, 'gpt-4o-mini', 'metered', DEFAULT_PRICES);
    expect(fill.inputTokens).toBe(5 * 1004);
    expect(fill.usdMax).toBeCloseTo((5 * 1004 * 0.15 + 5120 * 0.6) / 1e6, 15);
    expect(sumEstimates([native, fill]).calls).toBe(6);
  });

  it('reads a user-edited table and names a broken one', () => {
    const dir = tmpDir('oc-prices-');
    const file = path.join(dir, 'prices.json');
    expect(loadPriceTable(file).source).toBe('built-in defaults');
    fs.writeFileSync(file, JSON.stringify({ ...DEFAULT_PRICES, models: { 'gpt-4o-mini': { inputPerMTok: 1, outputPerMTok: 2, asOf: '2027-01-01' } } }));
    expect(loadPriceTable(file).table.models['gpt-4o-mini']!.inputPerMTok).toBe(1);
    fs.writeFileSync(file, '{ not json');
    expect(() => loadPriceTable(file)).toThrow(/prices\.json is not valid JSON/);
    fs.rmSync(dir, { recursive: true, force: true });
  });
});

describe('reliability', () => {
  it('parses Retry-After as seconds, an HTTP date or retry-after-ms', () => {
    expect(parseRetryAfter(new Headers({ 'retry-after': '3' }))).toBe(3000);
    expect(parseRetryAfter({ 'retry-after-ms': '250' })).toBe(250);
    const soon = new Date(Date.now() + 5000).toUTCString();
    expect(parseRetryAfter(new Headers({ 'retry-after': soon }))).toBeGreaterThan(3000);
    expect(parseRetryAfter(new Headers({}))).toBeUndefined();
  });

  it('backs off exponentially with full jitter, and does not retry what retrying cannot fix', async () => {
    const waits: number[] = [];
    const policy = resolveReliability({ baseDelayMs: 10, maxDelayMs: 35, maxRetries: 4, random: () => 1 });
    let n = 0;
    const res = await withRetries(
      'b',
      policy,
      async () => {
        if (n++ < 4) throw new LlmError('server', 'b', 'HTTP 502');
        return 'ok';
      },
      { onRetry: (_e, w) => waits.push(w) },
    );
    expect(res).toEqual({ value: 'ok', retries: 4 });
    expect(waits).toEqual([10, 20, 35, 35]);
    let calls = 0;
    await expect(
      withRetries('b', policy, async () => {
        calls++;
        throw new LlmError('auth', 'b', 'bad key');
      }),
    ).rejects.toMatchObject({ kind: 'auth' });
    expect(calls).toBe(1);
  });

  it('stops waiting when cancelled', async () => {
    vi.useFakeTimers();
    try {
      const controller = new AbortController();
      const policy = resolveReliability({ baseDelayMs: 10_000, random: () => 1 });
      setTimeout(() => controller.abort(), 30);
      let settled: unknown = null;
      const p = withRetries('b', policy, async () => Promise.reject(new LlmError('server', 'b', '500')), { signal: controller.signal }).catch((e: unknown) => {
        settled = e;
      });
      // 30 ms of the clock pass: the abort fires, well before the 10 s back-off would end.
      await vi.advanceTimersByTimeAsync(30);
      await p;
      expect(settled).toMatchObject({ kind: 'cancelled' });
    } finally {
      vi.useRealTimers();
    }
  });

  it('limits concurrency', async () => {
    const lim = new Limiter(2);
    let peak = 0;
    await Promise.all(
      Array.from({ length: 5 }, () =>
        lim.run(async () => {
          peak = Math.max(peak, lim.inFlight);
          await new Promise((r) => setTimeout(r, 5));
        }),
      ),
    );
    expect(peak).toBe(2);
  });
});

describe('keys', () => {
  it('come from the app first, then the environment', () => {
    expect(resolveApiKey('openai', 'sk-app', { OPENAI_API_KEY: 'sk-env' })).toBe('sk-app');
    expect(resolveApiKey('openai', undefined, { OPENAI_API_KEY: ' sk-env ' })).toBe('sk-env');
    expect(resolveApiKey('gemini', undefined, { GEMINI_API_KEY: 'g1', GOOGLE_API_KEY: 'g2' })).toBe('g1');
    expect(resolveApiKey('gemini', undefined, { GOOGLE_API_KEY: 'g2' })).toBe('g2');
    expect(resolveApiKey('gemini', undefined, {})).toBeUndefined();
  });

  it('are redacted from any message, also when shaped like a key but never registered', () => {
    registerSecret('my-very-secret-token');
    expect(redact('server said: my-very-secret-token is wrong')).toBe('server said: [redacted] is wrong');
    expect(redact('Incorrect API key provided: sk-proj-abc*****wxyz.')).toBe('Incorrect API key provided: [redacted].');
    expect(redact('key=AIzaSyA1234567890abcdefghij')).toBe('key=[redacted]');
    expect(new LlmError('auth', 'b', 'got my-very-secret-token').message).not.toContain('secret-token');
  });

  it('are not shown when a backend is inspected or serialised', () => {
    const o = new OpenAiBackend({ model: 'gpt-4o-mini', apiKey: 'sk-inspect-me-123456789' });
    const g = new GeminiBackend({ model: 'gemini-2.5-flash', apiKey: 'AIza-inspect-me-123456789' });
    for (const b of [o, g]) {
      expect(inspect(b, { depth: 10 })).not.toContain('inspect-me');
      expect(JSON.stringify(b)).not.toContain('inspect-me');
    }
  });

  it('tell local servers from metered ones', () => {
    expect(isLocalUrl('http://127.0.0.1:11434/v1')).toBe(true);
    expect(isLocalUrl('http://localhost:8080/v1')).toBe(true);
    expect(isLocalUrl('http://192.168.1.20:8000/v1')).toBe(true);
    expect(isLocalUrl('https://openrouter.ai/api/v1')).toBe(false);
    expect(isLocalUrl(undefined)).toBe(false);
  });
});
