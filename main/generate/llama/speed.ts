// How fast a model runs on this machine, for time estimates: measured from the model's own calls, as a function of
// the context. A token's cost grows with the context before it (attention reads the whole key/value cache; for a small
// model at a few thousand tokens of prompt that is most of the work), so one tokens-per-second figure measured on a
// short prompt says little about a long one. Each output token's time is fitted as a straight line in its context
// position, and each prompt's time per token as a straight line in the prompt's length (least squares over what was
// measured). Until the measurements span enough different positions, the line is flat: the mean.

import type { LocalSpeed } from '../types.ts';

/** Before a prompt was measured, prompts are taken to go this many times faster than output (their tokens are batched). */
export const PROMPT_OVER_OUTPUT = 8;

/** Positions must spread at least this much (standard deviation, in tokens) before a slope is fitted. */
const MIN_SPREAD = 64;

/** Running least-squares fit of y = base + slope·x. */
export class LineFit {
  private n = 0;
  private sx = 0;
  private sy = 0;
  private sxx = 0;
  private sxy = 0;

  add(x: number, y: number): void {
    if (!Number.isFinite(x) || !Number.isFinite(y)) return;
    this.n++;
    this.sx += x;
    this.sy += y;
    this.sxx += x * x;
    this.sxy += x * y;
  }

  get count(): number {
    return this.n;
  }

  /** The fitted line; flat (slope 0, the mean) while x has spread less than `minSpread`, or when the slope comes out negative. */
  line(minSpread = MIN_SPREAD): { base: number; slope: number } | null {
    if (this.n === 0) return null;
    const mx = this.sx / this.n;
    const my = this.sy / this.n;
    const varX = this.sxx / this.n - mx * mx;
    if (varX < minSpread * minSpread) return { base: my, slope: 0 };
    const slope = (this.sxy / this.n - mx * my) / varX;
    if (!(slope > 0)) return { base: my, slope: 0 };
    return { base: my - slope * mx, slope };
  }
}

/** One candidate as measured: the context position of its first token, each token's arrival (ms from the start), its whole time. */
export interface CandidateTiming {
  start: number;
  tokenMs: number[];
  wallMs: number;
}

export class SpeedModel {
  private readonly output = new LineFit();
  private readonly prompt = new LineFit();
  private promptChars = 0;
  private promptTokens = 0;
  private promptMs = 0;
  private outputTokens = 0;
  private outputMs = 0;

  /** A prompt of `tokens` tokens (from `chars` characters of messages) evaluated in `ms`. */
  addPrompt(tokens: number, chars: number, ms: number): void {
    if (tokens <= 0 || !(ms > 0)) return;
    this.prompt.add(tokens, ms / tokens);
    this.promptChars += chars;
    this.promptTokens += tokens;
    this.promptMs += ms;
  }

  /** A candidate's tokens, each at its context position; the time after the last token (a scoring pass) is spread over them. */
  addCandidate(t: CandidateTiming): void {
    const m = t.tokenMs.length;
    if (!m) return;
    const tail = Math.max(0, t.wallMs - t.tokenMs[m - 1]!) / m;
    for (let i = 0; i < m; i++) this.output.add(t.start + i, t.tokenMs[i]! - (i ? t.tokenMs[i - 1]! : 0) + tail);
    this.outputTokens += m;
    this.outputMs += t.wallMs;
  }

  /** The measured speed, or null before a candidate was measured. */
  speed(): LocalSpeed | null {
    const out = this.output.line();
    if (!out || this.outputMs <= 0) return null;
    const tps = (this.outputTokens * 1000) / this.outputMs;
    const prompt = this.prompt.line();
    const promptTps = this.promptMs > 0 ? (1000 * this.promptTokens) / this.promptMs : tps * PROMPT_OVER_OUTPUT;
    const growth = out.slope > 0 ? `, each output token ${(out.slope * 1000).toFixed(2)} ms slower per 1,000 tokens of context` : '';
    return {
      outputTokensPerSecond: tps,
      promptTokensPerSecond: promptTps,
      source: 'measured',
      outputMs: out,
      ...(prompt ? { promptMs: prompt } : {}),
      ...(this.promptTokens ? { charsPerToken: this.promptChars / this.promptTokens } : {}),
      note: `speed measured on this machine (${tps.toFixed(1)} tokens/s over ${this.outputTokens} tokens${growth})`,
    };
  }
}
