// One candidate from a loaded llama.cpp model: the token loop (the sampler at the request's temperature with a
// seed, the model's end-of-generation tokens and the chat template's stop texts, the token limit, cancellation
// between tokens) and each token's log-probability with its top alternatives.
//
// Log-probabilities are those of the model's own distribution (softmax of the raw logits, temperature 1), whatever
// the sampling settings, as an OpenAI-compatible server reports them; normalised over the SCORE_TOP_K most likely
// tokens, which leaves out the far tail (small for a trained model: each log-probability is then too high by
// −ln of the mass those tokens hold). The sampler's own distribution is temperature-scaled and cut to its top-k /
// top-p, and node-llama-cpp hands over a whole-vocabulary distribution only as a map with an entry per token (some
// 0.1 s per token for a coder model's 150 000), so after generation the chosen tokens are scored again in one
// batched pass (teacher forcing), llama.cpp's top-k keeping the SCORE_TOP_K best. A greedy candidate of a model
// whose vocabulary is no larger than that gets them from the generation pass itself, where the greedy sampler sees
// the whole distribution.

import type { LlamaContextSequence, LlamaModel, Token } from 'node-llama-cpp';
import { LlmError } from '../errors.ts';
import type { TokenLogprob } from '../types.ts';

/** The sampler's cut-offs, written out so a change of node-llama-cpp's defaults cannot change results (llama.cpp's usual values). */
export const SAMPLER = { topK: 40, topP: 0.95, minP: 0 } as const;

/** Log-probabilities are normalised over this many of the most likely tokens (more than any sampler keeps). */
export const SCORE_TOP_K = 1000;
/** The scoring pass's sampler: the raw distribution (temperature 1, no top-p), cut to SCORE_TOP_K; the token it draws is not used. */
const SCORING = { temperature: 1, topK: SCORE_TOP_K, topP: 1, minP: 0, seed: 0 } as const;

export interface SampleOptions {
  temperature: number;
  seed: number;
  maxTokens: number;
  /** undefined: no log-probabilities; 0: the chosen token's only; k: with the k most likely alternatives. */
  topLogprobs: number | undefined;
  /** The chat template's stop texts (special tokens written out), besides the model's end-of-generation tokens. */
  stopTexts: string[];
  signal: AbortSignal | undefined;
  /** Hears each generated token (progress, tests). */
  onToken?: (count: number) => void;
  /** For messages. */
  backendId: string;
  index: number;
}

export interface Sample {
  text: string;
  tokens: Token[];
  finishReason: 'stop' | 'length';
  logprobs: TokenLogprob[] | null;
  wallMs: number;
  /** The context position of the first token's evaluation (the prompt's last token), and when each token came (ms from the start). */
  start: number;
  tokenMs: number[];
}

type Distribution = Map<Token, number>;

function cancelled(opts: SampleOptions, tokens: number): LlmError {
  return new LlmError('cancelled', opts.backendId, `${opts.backendId}: cancelled during candidate ${opts.index + 1}, after ${tokens} tokens`);
}

/** How many trailing tokens hold one of the stop texts (0: none does): those tokens are dropped. */
export function stopSuffix(model: LlamaModel, tokens: Token[], stopTexts: string[], window: number): number {
  if (!stopTexts.length) return 0;
  const tail = model.detokenize(tokens.slice(-window), true);
  if (!stopTexts.some((s) => tail.includes(s))) return 0;
  for (let k = 1; k <= Math.min(window, tokens.length); k++) {
    const t = model.detokenize(tokens.slice(-k), true);
    if (stopTexts.some((s) => t.includes(s))) return k;
  }
  return 0;
}

/**
 * Generates one candidate. The sequence must hold the prompt but its last token, which is evaluated here (so every
 * candidate starts from the same state); what the candidate adds is erased again before this returns or throws.
 */
export async function sampleCandidate(sequence: LlamaContextSequence, prompt: Token[], opts: SampleOptions): Promise<Sample> {
  const model = sequence.model;
  const start = sequence.nextTokenIndex;
  const last = prompt[prompt.length - 1]!;
  const wantLogprobs = opts.topLogprobs !== undefined;
  const direct = wantLogprobs && opts.temperature <= 0 && (vocabularySize(model) ?? Infinity) <= SCORE_TOP_K;
  const window = Math.max(8, ...opts.stopTexts.map((s) => s.length + 2));
  const piece = pieceCache(model);
  // the last characters written (special tokens spelled out): a stop text is looked for in the tokens only once it shows here
  let tail = '';
  const tokens: Token[] = [];
  const dists: Distribution[] = [];
  const tokenMs: number[] = [];
  let finishReason: Sample['finishReason'] = 'stop';
  const t0 = performance.now();
  try {
    if (opts.signal?.aborted) throw cancelled(opts, 0);
    const stream = sequence.evaluateWithMetadata([last], { probabilities: direct }, { temperature: opts.temperature, seed: opts.seed, ...SAMPLER });
    for await (const out of stream) {
      if (opts.signal?.aborted) throw cancelled(opts, tokens.length);
      tokens.push(out.token);
      tokenMs.push(performance.now() - t0);
      if (direct) dists.push(distributionOf((out as { probabilities?: Distribution }).probabilities, tokens.length - 1, opts.backendId));
      opts.onToken?.(tokens.length);
      tail = opts.stopTexts.length ? (tail + piece(out.token)).slice(-4 * window) : '';
      const cut = opts.stopTexts.some((t) => tail.includes(t)) ? stopSuffix(model, tokens, opts.stopTexts, window) : 0;
      if (cut) {
        tokens.length -= cut;
        tokenMs.length = tokens.length;
        dists.length = Math.min(dists.length, tokens.length);
        break;
      }
      if (tokens.length >= opts.maxTokens) {
        finishReason = 'length';
        break;
      }
    }
    if (opts.signal?.aborted) throw cancelled(opts, tokens.length);
    if (wantLogprobs && !direct && tokens.length) dists.push(...(await rescore(sequence, start, last, tokens, opts.backendId)));
  } finally {
    await sequence.eraseContextTokenRanges([{ start, end: sequence.nextTokenIndex }]);
  }
  return {
    text: model.detokenize(tokens),
    tokens,
    finishReason,
    logprobs: wantLogprobs ? toLogprobs(piece, tokens, dists, opts.topLogprobs ?? 0) : null,
    wallMs: performance.now() - t0,
    start,
    tokenMs,
  };
}

/** The vocabulary's size from the GGUF metadata (null when the file does not say). */
function vocabularySize(model: LlamaModel): number | null {
  const tokens = (model.fileInfo.metadata as { tokenizer?: { ggml?: { tokens?: unknown } } }).tokenizer?.ggml?.tokens;
  return Array.isArray(tokens) ? tokens.length : null;
}

/** The raw next-token distribution (its SCORE_TOP_K best) before each chosen token: the last prompt token and the candidate again, in one batch. */
async function rescore(sequence: LlamaContextSequence, start: number, last: Token, tokens: Token[], backendId: string): Promise<Distribution[]> {
  await sequence.eraseContextTokenRanges([{ start, end: sequence.nextTokenIndex }]);
  const next = { generateNext: { probabilities: true, options: SCORING } };
  const res = await sequence.controlledEvaluate([last, ...tokens.slice(0, -1)].map((t) => [t, next] as [Token, typeof next]));
  return tokens.map((_, i) => distributionOf(res[i]?.next.probabilities, i, backendId));
}

function distributionOf(p: Distribution | undefined, position: number, backendId: string): Distribution {
  if (!p?.size) throw new LlmError('malformed', backendId, `llama.cpp gave no probabilities for token ${position + 1} of the candidate`);
  return p;
}

function logOf(p: number | undefined): number {
  return Math.log(Math.max(p ?? 0, Number.MIN_VALUE));
}

/** A token's text, special tokens spelled out, looked up once. */
function pieceCache(model: LlamaModel): (t: Token) => string {
  const pieces = new Map<Token, string>();
  return (t) => {
    let s = pieces.get(t);
    if (s === undefined) pieces.set(t, (s = model.detokenize([t], true)));
    return s;
  };
}

function toLogprobs(piece: (t: Token) => string, tokens: Token[], dists: Distribution[], k: number): TokenLogprob[] {
  return tokens.map((t, i) => {
    const dist = dists[i]!;
    const top: TokenLogprob['top'] = [];
    if (k > 0) {
      // the map is sorted, most likely first
      for (const [alt, p] of dist) {
        top.push({ token: piece(alt), logprob: logOf(p) });
        if (top.length >= k) break;
      }
    }
    return { token: piece(t), logprob: logOf(dist.get(t)), top };
  });
}
