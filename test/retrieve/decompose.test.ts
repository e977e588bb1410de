import { describe, expect, it } from 'vitest';
import {
  decompose,
  fallbackSteps,
  normaliseWeights,
  sentences,
  signatureWords,
  subTokens,
  textIdentifiers,
  type Decomposer,
} from '../../main/retrieve/decompose.ts';
import { makeConfig } from '../../main/model/config.ts';

const input = {
  requirement: 'Parse the amount. Round it half up to cents! Reject negative values; e.g. -1 raises ValueError.',
  signature: 'def parse_money(text: str, *, currency: str = "EUR") -> Money:',
  module: 'shop.money',
};

describe('fallback decomposition', () => {
  it('splits sentences, keeping abbreviations and dropping doctest lines', () => {
    expect(sentences('Do a. Then b, e.g. c. Finally d\n>>> f(1)\n1')).toEqual(['Do a.', 'Then b, e.g. c.', 'Finally d']);
  });

  it('reads names, parameters and the return annotation from a signature', () => {
    expect(signatureWords(input.signature)).toEqual({ name: 'parse_money', params: ['text', 'currency'], returns: 'Money' });
    expect(signatureWords('def m(self, x=(1, 2)):').params).toEqual(['x']);
  });

  it('makes a whole-task anchor step, then one step per sentence, with per-source queries', () => {
    const steps = fallbackSteps(input, { minSteps: 2, maxSteps: 6 });
    expect(steps.map((s) => s.text)).toEqual([
      'Implement parse_money(text, currency) returning Money. parse money Parse the amount.',
      'Parse the amount.',
      'Round it half up to cents!',
      'Reject negative values;',
      'e.g. -1 raises ValueError.',
    ]);
    for (const s of steps) {
      expect(s.weights.api + s.weights.context + s.weights.similar).toBeCloseTo(1, 12);
      expect(s.queries.similar).toContain('def parse_money');
      expect(s.queries.context).toContain('shop.money');
      // The API query carries the parameters and the annotation types the target works with.
      expect(s.queries.api).toContain('currency');
      expect(s.queries.api.toLowerCase()).toContain('money');
    }
  });

  it('predicts source-intent weights per step from what the step talks about', () => {
    const steps = fallbackSteps(
      {
        requirement: 'Use `is_full_string` to check the input. Store it on the instance attribute cache. Return the list sorted.',
        signature: 'def f(self, x):',
        className: 'Box',
      },
      { minSteps: 2, maxSteps: 6 },
    );
    const [anchor, api, ctx, sim] = steps;
    expect(anchor!.text).toMatch(/^Implement f\(x\)\. Use/);
    expect(api!.weights.api).toBeGreaterThan(api!.weights.similar);
    expect(api!.queries.api.split(' ').slice(0, 3)).toEqual(['is_full_string', 'is', 'full']);
    expect(ctx!.weights.context).toBeGreaterThan(ctx!.weights.api);
    expect(sim!.weights.similar).toBeGreaterThan(sim!.weights.api);
    expect(new Set(steps.map((s) => s.weights.api)).size).toBeGreaterThan(1);
  });

  it('reads code identifiers out of requirement text', () => {
    expect(textIdentifiers('Calls `to_cents` on a Money.from_cents value via parse_money() and camelCase.')).toEqual([
      'to_cents',
      'Money.from_cents',
      'parse_money',
      'from_cents',
      'camelCase',
    ]);
    expect(subTokens('parseHTTPDate_v2')).toEqual(['parse', 'http', 'date', 'v2']);
  });

  it('pads a one-sentence requirement with a signature step and merges a long one', () => {
    expect(fallbackSteps({ ...input, requirement: '' }, { minSteps: 2, maxSteps: 6 }).map((s) => s.text)).toEqual([
      'Implement parse_money(text, currency) returning Money. parse money',
      'Implement parse_money(text, currency) returning Money.',
    ]);
    const long = fallbackSteps({ ...input, requirement: 'A a. B b. C c. D d. E e. F f. G g. H h.' }, { minSteps: 2, maxSteps: 6 });
    expect(long).toHaveLength(6);
    expect(long[5]!.text).toBe('E e. F f. G g. H h.');
  });
});

describe('LLM decomposition', () => {
  const config = makeConfig();
  it('uses a valid answer with normalised weights', async () => {
    const d: Decomposer = {
      label: 'llm:test',
      async decompose() {
        return [
          { text: 'find the API', weights: { api: 2, context: 1, similar: 1 }, queries: { api: 'money parser' } },
          { text: 'write it', weights: { api: 0, context: 0, similar: 0 } },
        ];
      },
    };
    const out = await decompose(input, config, d);
    expect(out.label).toBe('llm:test');
    expect(out.steps[0]!.weights).toEqual({ api: 0.5, context: 0.25, similar: 0.25 });
    expect(out.steps[0]!.queries.api).toBe('money parser');
    expect(out.steps[1]!.weights.api).toBeCloseTo(1 / 3, 12);
  });

  it('falls back, and says so, when the answer has too few steps or the call fails', async () => {
    const few: Decomposer = { label: 'llm:few', decompose: async () => [{ text: 'only one' }] };
    const boom: Decomposer = {
      label: 'llm:boom',
      decompose: async () => {
        throw new Error('HTTP 500');
      },
    };
    const a = await decompose(input, config, few);
    expect(a.label).toBe('fallback');
    expect(a.warning).toMatch(/returned 1 steps/);
    const b = await decompose(input, config, boom);
    expect(b.warning).toMatch(/HTTP 500/);
    expect(b.steps.length).toBeGreaterThanOrEqual(2);
  });

  it('normalises weights and treats invalid ones as zero', () => {
    expect(normaliseWeights({ api: -1, context: Number.NaN, similar: 2 })).toEqual({ api: 0, context: 0, similar: 1 });
  });
});
