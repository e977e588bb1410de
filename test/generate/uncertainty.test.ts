// Self-consistency grouping (Python AST, tokenizer fallback), semantic variance, token entropy and the aggregate.

import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openConfiguredEncoder } from '../../main/embed/select.ts';
import type { Encoder } from '../../main/model/encoder.ts';
import { groupCandidates, normaliseCandidates } from '../../main/generate/normalise.ts';
import {
  aggregate,
  groupEntropy,
  measureGenerationUncertainty,
  selfConsistency,
  semanticVariance,
  summariseLogprobs,
} from '../../main/generate/uncertainty.ts';
import { DEFAULT_CONFIG } from '../../main/model/config.ts';
import { tmpDir } from '../helpers/tmp-repo.ts';

const W = DEFAULT_CONFIG.generation.uncertaintyWeights;

// One program in five costumes: comments, a docstring, quote style, spacing, parentheses, blank lines.
const SAME = [
  'def mean(xs):\n    total = 0\n    for x in xs:\n        total += x\n    return total / len(xs)\n',
  'def mean(xs):\n    """Arithmetic mean."""\n    total = 0  # running sum\n    for x in xs:\n        total += x\n\n    return (total / len(xs))\n',
  '# helper\ndef mean( xs ):\n    total=0\n    for x in xs: total += x\n    return total/len(xs)\n',
  '    def mean(xs):\n        total = 0\n        for x in xs:\n            total += x\n        return total / len(xs)\n',
  "def mean(xs):\n    '''Docstring in single quotes.'''\n    total = 0\n    for x in xs:\n        total += x  # '#' in a comment\n    return total / len(xs)\n",
];
// Different behaviour: another operator, a different constant, a string whose contents differ.
const DIFFERENT = [
  'def mean(xs):\n    total = 0\n    for x in xs:\n        total += x\n    return total // len(xs)\n',
  'def mean(xs):\n    total = 1\n    for x in xs:\n        total += x\n    return total / len(xs)\n',
];

// Different algorithms altogether (the shipped encoder hashes sub-tokens, so it sees words, not operators).
const OTHER_ALGORITHMS = [
  'def mean(xs):\n    ordered = sorted(xs)\n    return ordered[len(ordered) // 2]\n',
  'def mean(xs):\n    import statistics\n    return statistics.fmean(value for value in xs if value is not None)\n',
];

let encoder: Encoder;
beforeAll(async () => {
  encoder = (await openConfiguredEncoder({ prefer: 'default', modelsDir: path.join(tmpDir('oc-u-'), 'none') })).encoder;
});
afterAll(async () => {
  await encoder.dispose();
});

describe('self-consistency grouping', () => {
  it('puts candidates that differ only in comments, docstrings and formatting in one group', async () => {
    expect(await groupCandidates(SAME)).toEqual([[0, 1, 2, 3, 4]]);
  });

  it('separates candidates that behave differently', async () => {
    expect(await groupCandidates([...SAME.slice(0, 2), ...DIFFERENT, SAME[2]!])).toEqual([[0, 1, 4], [2], [3]]);
  });

  it('treats string contents as behaviour and quote style as formatting', async () => {
    const codes = [
      "def tag(x):\n    return f'<{x}>' + 'a # b'\n",
      'def tag(x):\n    return f"<{x}>" + "a # b"  # same\n',
      "def tag(x):\n    return f'<{x}>' + 'a  # b'\n",
      "def tag(x):\n    return f'<{x}>' + 'a # b'.strip()\n",
    ];
    expect(await groupCandidates(codes)).toEqual([[0, 1], [2], [3]]);
  });

  it('falls back to the tokenizer for code that does not parse, and isolates what does not even tokenize', async () => {
    const broken = 'def f(x) return x + 1  # no colon\n';
    const brokenToo = 'def f(x)   return x+1\n';
    const hopeless = 'def f(x:\n    return """never closed\n';
    const { items } = await normaliseCandidates([broken, brokenToo, hopeless, hopeless, '']);
    expect(items.map((x) => x.method)).toEqual(['tokens', 'tokens', 'none', 'none', 'none']);
    expect(await groupCandidates([broken, brokenToo, hopeless, hopeless, ''])).toEqual([[0, 1], [2], [3], [4]]);
  });

  it('keeps the child process free of secrets and survives a missing interpreter', async () => {
    const res = await normaliseCandidates(SAME.slice(0, 2), { python: '/nonexistent/python3' });
    expect(res.degraded).toMatch(/Python normalisation unavailable.*exact text/);
    expect(res.items.map((x) => x.method)).toEqual(['text', 'text']);
  });
});

describe('generation uncertainty', () => {
  it('semantic variance is 0 for costume changes and grows with behaviour changes', async () => {
    const same = await measureGenerationUncertainty(
      SAME,
      SAME.map(() => null),
      { weights: W, encoder },
    );
    expect(same.variance.value).toBeCloseTo(0, 6);
    expect(same.consistency.value).toBe(0);
    expect(same.entropy).toMatchObject({ value: 0, method: expect.stringMatching(/group-entropy/) });
    expect(same.aggregate).toBeCloseTo(0, 6);
    const mixed = [...SAME.slice(0, 3), ...OTHER_ALGORITHMS];
    const diff = await measureGenerationUncertainty(
      mixed,
      mixed.map(() => null),
      { weights: W, encoder },
    );
    expect(diff.variance.value).toBeGreaterThan(0.05);
    const subtle = await measureGenerationUncertainty([SAME[0]!, ...DIFFERENT], [null, null, null], { weights: W, encoder });
    expect(subtle.groups).toHaveLength(3); // grouping sees what a bag-of-sub-tokens encoder cannot
    expect(diff.consistency.value).toBeCloseTo(1 - 3 / 5, 12);
    expect(diff.groups).toEqual([[0, 1, 2], [3], [4]]);
    expect(diff.aggregate).toBeCloseTo(0.4 * diff.entropy.value! + 0.4 * 0.4 + 0.2 * diff.variance.value!, 12);
  });

  it('renormalises the weights over the signals measured', async () => {
    const r = await measureGenerationUncertainty(DIFFERENT, [null, null], { weights: W, encoder: null, entropyFallback: 'none' });
    expect(r.entropy.value).toBeNull();
    expect(r.variance.value).toBeNull();
    expect(r.aggregate).toBe(r.consistency.value);
    expect(aggregate({ entropy: 0.5, consistency: null, variance: 1 }, W)).toBeCloseTo((0.4 * 0.5 + 0.2) / 0.6, 12);
  });

  it('computes a real entropy from top log-probabilities and a stand-in from chosen tokens only', () => {
    const ln = Math.log;
    const top = summariseLogprobs([
      {
        token: 'a',
        logprob: ln(0.5),
        top: [
          { token: 'a', logprob: ln(0.5) },
          { token: 'b', logprob: ln(0.3) },
        ],
      },
    ])!;
    // 0.5, 0.3 and the remaining 0.2 as one outcome
    const h = -(0.5 * ln(0.5) + 0.3 * ln(0.3) + 0.2 * ln(0.2));
    expect(top.meanEntropy).toBeCloseTo(h, 12);
    expect(top.normalised).toBeCloseTo(h / ln(3), 12);
    const chosen = summariseLogprobs([
      { token: 'a', logprob: ln(0.9), top: [] },
      { token: 'b', logprob: ln(0.4), top: [] },
    ])!;
    expect(chosen.meanEntropy).toBeNull();
    expect(chosen.normalised).toBeCloseTo(1 - Math.sqrt(0.9 * 0.4), 12);
    expect(summariseLogprobs(null)).toBeNull();
  });

  it('has the textbook values at the edges', () => {
    expect(selfConsistency([[0], [1], [2], [3]], 4)).toBe(0.75);
    expect(selfConsistency([[0]], 1)).toBe(0);
    expect(groupEntropy([[0], [1], [2], [3]], 4)).toBeCloseTo(1, 12);
    expect(groupEntropy([[0, 1, 2, 3]], 4)).toBe(0);
    const v = new Float32Array([1, 0]);
    expect(semanticVariance([v, v])).toBe(0);
    expect(semanticVariance([v, new Float32Array([0, 1])])).toBe(1);
    expect(semanticVariance([v])).toBe(0);
  });
});
