// The speed model behind a local model's time estimate (main/generate/llama/speed.ts): least-squares lines of a
// token's time in its context position, flat until the positions spread, and what a candidate's timings add.

import { describe, expect, it } from 'vitest';
import { LineFit, SpeedModel } from '../../main/generate/llama/speed.ts';

describe('the speed model of a local model', () => {
  it('fits a line through points on one, and the mean when x has not spread', () => {
    const fit = new LineFit();
    for (let x = 0; x < 1000; x += 10) fit.add(x, 2 + 0.01 * x);
    const line = fit.line()!;
    expect(line.base).toBeCloseTo(2, 9);
    expect(line.slope).toBeCloseTo(0.01, 12);
    const narrow = new LineFit();
    for (let x = 100; x < 110; x++) narrow.add(x, x === 105 ? 10 : 1);
    expect(narrow.line()).toEqual({ base: 1.9, slope: 0 });
    const falling = new LineFit();
    for (let x = 0; x < 1000; x += 10) falling.add(x, 5 - 0.001 * x);
    expect(falling.line()!.slope).toBe(0);
    expect(falling.line()!.base).toBeCloseTo(5 - 0.001 * 495, 9);
    expect(new LineFit().line()).toBeNull();
  });

  it('reads each token at its position from a candidate, and the prompt per token against its length', () => {
    const model = new SpeedModel();
    expect(model.speed()).toBeNull();
    // Two candidates, after prompts of 100 and 3000 tokens: token i at position start + i takes 1 + 0.002·position ms.
    for (const start of [100, 3000]) {
      const tokenMs: number[] = [];
      let t = 0;
      for (let i = 0; i < 200; i++) tokenMs.push((t += 1 + 0.002 * (start + i)));
      model.addCandidate({ start, tokenMs, wallMs: t });
      model.addPrompt(start, start * 3, start * (0.1 + 0.00001 * start));
    }
    const speed = model.speed()!;
    expect(speed.source).toBe('measured');
    expect(speed.outputMs!.base).toBeCloseTo(1, 6);
    expect(speed.outputMs!.slope).toBeCloseTo(0.002, 9);
    expect(speed.promptMs!.base).toBeCloseTo(0.1, 9);
    expect(speed.promptMs!.slope).toBeCloseTo(0.00001, 12);
    expect(speed.charsPerToken).toBe(3);
    expect(speed.note).toMatch(/2\.00 ms slower per 1,000 tokens of context/);
  });

  it("spreads a scoring pass's time after the last token over the candidate's tokens", () => {
    const model = new SpeedModel();
    model.addCandidate({ start: 10, tokenMs: [1, 2, 3, 4], wallMs: 8 });
    expect(model.speed()!.outputMs).toEqual({ base: 2, slope: 0 });
    expect(model.speed()!.outputTokensPerSecond).toBe(500);
  });
});
