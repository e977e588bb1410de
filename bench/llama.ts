// Local-model benchmark (BENCH_ONLY=llama): output tokens per second of a GGUF model through our llama-cpp backend
// beside a bare node-llama-cpp loop on the same model, prompt and thread count, doing the same work: the prompt
// evaluated once, then tokens with their probabilities. The sides take turns, so machine noise hits them alike;
// medians over the rounds.
//  - the tiny model of the tests (scripts/tiny-gguf.ts, 716-token vocabulary), greedy: a token takes about a
//    millisecond, so any overhead of ours per token shows (target ≥ 0.9);
//  - the same at temperature 0.8, where our backend also scores the chosen tokens under the raw distribution
//    (main/generate/llama/sample.ts): the price of honest log-probabilities when the sampler cuts the distribution;
//  - a tiny model with a coder model's vocabulary size (150 000 pieces), greedy: there the bare loop's
//    whole-vocabulary probabilities cost far more than our scoring pass; the bare loop without probabilities is
//    shown as the floor;
//  - both models again after a prompt of about 5,000 tokens (the sample task's real prompt is 5,130), where each token
//    reads a long key/value cache (target ≥ 0.9);
//  - the time estimate of 5 candidates at that prompt (main/generate/cost.ts, from the speed the backend measured on a
//    short call and one long candidate: llama/speed.ts) against the measured time (target within 2×).

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { LlamaContextSequence, LlamaModel, Token } from 'node-llama-cpp';
import { LlamaCppBackend } from '../main/generate/llama-cpp-backend.ts';
import { llamaRuntime } from '../main/generate/llama/runtime.ts';
import { SAMPLER } from '../main/generate/llama/sample.ts';
import type { ChatRequest } from '../main/generate/types.ts';
import { DEFAULT_PRICES, estimateGeneration } from '../main/generate/cost.ts';
import { writeTinyGguf, type TinyGgufOptions } from '../scripts/tiny-gguf.ts';

type Record = (what: string, value: string, baseline: string, ratio: string, target?: string) => void;
type Put = (name: string, value: number) => void;

const THREADS = 1;

const REQUEST: ChatRequest = {
  messages: [
    { role: 'system', content: 'You write Python functions.' },
    { role: 'user', content: 'Write def add_tax(amount, tax_class) returning the amount with tax.' },
  ],
  n: 1,
  temperature: 0,
  maxTokens: 200,
  topLogprobs: 5,
  seed: 1,
};

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

/** The backend's prompt tokens: the model's chat template over the same messages. */
async function promptOf(model: LlamaModel, req: ChatRequest): Promise<Token[]> {
  const { resolveChatWrapper } = await import('node-llama-cpp');
  const chatHistory = [
    { type: 'system' as const, text: req.messages[0]!.content },
    { type: 'user' as const, text: req.messages[1]!.content },
    { type: 'model' as const, response: [] },
  ];
  return resolveChatWrapper(model).generateContextState({ chatHistory }).contextText.tokenize(model.tokenizer);
}

/** Prompt length of the long rows, in tokens (about the sample task's real prompt). */
const LONG_PROMPT = 5000;
const CONTEXT = 8192;
const SNIPPET = 'def apply_discount(price, code):\n    rate = DISCOUNTS.get(code, 0)\n    return round(price * (1 - rate), 2)\n\n';

/** The request with a user message that makes about LONG_PROMPT tokens under this model's template. */
async function longRequest(model: LlamaModel): Promise<ChatRequest> {
  const per = model.tokenize(SNIPPET).length;
  let reps = Math.ceil(LONG_PROMPT / per);
  const at = async (k: number) => (await promptOf(model, withUser(k))).length;
  while (reps > 1 && (await at(reps)) > LONG_PROMPT) reps--;
  return withUser(reps);
}

function withUser(reps: number): ChatRequest {
  return { ...REQUEST, messages: [REQUEST.messages[0]!, { role: 'user', content: `${SNIPPET.repeat(reps)}${REQUEST.messages[1]!.content}` }] };
}

/** Tokens per second of a bare loop: the prompt but its last token evaluated, then `tokens` tokens from the last one. */
async function bareLoop(sequence: LlamaContextSequence, prompt: Token[], temperature: number, tokens: number, probabilities: boolean): Promise<number> {
  await sequence.clearHistory();
  await sequence.evaluateWithoutGeneratingNewTokens(prompt.slice(0, -1));
  let n = 0;
  const t0 = performance.now();
  for await (const out of sequence.evaluateWithMetadata(prompt.slice(-1), { probabilities }, { temperature, seed: 1, ...SAMPLER })) {
    if (probabilities && !(out as { probabilities?: Map<Token, number> }).probabilities?.size) throw new Error('no probabilities');
    if (++n >= tokens) break;
  }
  return (n * 1000) / (performance.now() - t0);
}

interface Row {
  model: TinyGgufOptions;
  temperature: number;
  tokens: number;
  rounds: number;
  /** Also time the bare loop without probabilities. */
  floor: boolean;
  /** After a prompt of about LONG_PROMPT tokens. */
  long?: boolean;
}

interface Measured {
  ours: number;
  bare: number;
  plain: number | null;
  bytes: number;
  vocab: number;
  promptTokens: number;
  /** The long rows: the estimate of 5 candidates at this prompt and the time they took. */
  estimate?: { seconds: number; flatSeconds: number; actual: number; candidates: number; tokens: number };
}

async function measure(dir: string, row: Row): Promise<Measured> {
  const file = path.join(dir, `m${row.model.vocabExtra?.length ?? 0}.gguf`);
  const info = writeTinyGguf(file, { ...row.model, contextLength: CONTEXT });
  const backend = new LlamaCppBackend({ model: file, threads: THREADS, contextSize: CONTEXT });
  const llama = await llamaRuntime();
  const model = await llama.loadModel({ modelPath: file, gpuLayers: 0 });
  const context = await model.createContext({ contextSize: CONTEXT, sequences: 1, threads: { ideal: THREADS, min: THREADS } });
  try {
    const base = row.long ? await longRequest(model) : REQUEST;
    const prompt = await promptOf(model, base);
    const sequence = context.getSequence();
    const req = { ...base, temperature: row.temperature, maxTokens: row.tokens };
    await backend.chat({ ...req, maxTokens: 8 }); // warm both sides up
    await bareLoop(sequence, prompt, row.temperature, 8, true);
    const ours: number[] = [];
    const bare: number[] = [];
    const plain: number[] = [];
    for (let r = 0; r < row.rounds; r++) {
      const c = (await backend.chat(req)).choices[0]!;
      if (c.outputTokens !== row.tokens) throw new Error(`the backend generated ${c.outputTokens} tokens, not ${row.tokens}`);
      ours.push(c.timing!.tokensPerSecond!);
      bare.push(await bareLoop(sequence, prompt, row.temperature, row.tokens, true));
      if (row.floor) plain.push(await bareLoop(sequence, prompt, row.temperature, row.tokens, false));
    }
    const out: Measured = {
      ours: median(ours),
      bare: median(bare),
      plain: row.floor ? median(plain) : null,
      bytes: info.bytes,
      vocab: info.nVocab,
      promptTokens: prompt.length,
    };
    if (row.long) out.estimate = await estimateAgainstActual(file, base);
    return out;
  } finally {
    await context.dispose();
    await model.dispose();
    await backend.dispose();
  }
}

/**
 * A fresh backend measures what a run's first call shows it (a short prompt, then one candidate at the long one); its
 * estimate of 5 candidates at the long prompt is then set against the time those 5 take.
 */
async function estimateAgainstActual(file: string, long: ChatRequest): Promise<Measured['estimate']> {
  const backend = new LlamaCppBackend({ model: file, threads: THREADS, contextSize: CONTEXT });
  const candidates = 5;
  const tokens = 256;
  try {
    await backend.chat({ ...REQUEST, maxTokens: 128 });
    await backend.chat({ ...long, maxTokens: 64 });
    const speed = backend.localSpeed();
    const estimate = (s: typeof speed) =>
      estimateGeneration(
        { messages: long.messages, n: candidates, maxTokens: tokens, nativeN: true, expectedOutputTokens: tokens, speed: s },
        backend.model,
        'local',
        DEFAULT_PRICES,
      );
    const est = estimate(speed);
    // As the estimate was before it knew prompt lengths: flat speeds over everything measured, prompt tokens at ~4 characters.
    const { outputMs: _o, promptMs: _p, charsPerToken: _c, ...flat } = speed;
    const before = estimate(flat);
    const t0 = performance.now();
    const r = await backend.chat({ ...long, n: candidates, maxTokens: tokens });
    const actual = (performance.now() - t0) / 1000;
    if (r.choices.some((c) => c.outputTokens !== tokens))
      throw new Error(`the backend generated ${r.choices.map((c) => c.outputTokens).join(', ')} tokens, not ${tokens} each`);
    return { seconds: est.secondsExpected!, flatSeconds: before.secondsExpected!, actual, candidates, tokens };
  } finally {
    await backend.dispose();
  }
}

export async function benchLlama(record: Record, put: Put): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'oc-bench-llama-'));
  const coderVocabulary = Array.from({ length: 150_000 }, (_, i) => `▁x${i}`);
  const rows: (Row & { what: string; target: string })[] = [
    { what: 'tiny model, greedy', model: {}, temperature: 0, tokens: 200, rounds: 7, floor: false, target: '≥ 0.90' },
    { what: 'tiny model, temperature 0.8 (+ scoring pass)', model: {}, temperature: 0.8, tokens: 200, rounds: 7, floor: false, target: '' },
    { what: '150k-token vocabulary, greedy', model: { vocabExtra: coderVocabulary }, temperature: 0, tokens: 40, rounds: 3, floor: true, target: '' },
    { what: 'tiny model, greedy, ~5k-token prompt', model: {}, temperature: 0, tokens: 128, rounds: 3, floor: false, long: true, target: '≥ 0.90' },
    {
      what: '150k-token vocabulary, greedy, ~5k-token prompt',
      model: { vocabExtra: coderVocabulary },
      temperature: 0,
      tokens: 40,
      rounds: 3,
      floor: true,
      long: true,
      target: '≥ 0.90',
    },
  ];
  try {
    for (const row of rows) {
      const m = await measure(dir, row);
      console.log(
        `model: ${m.bytes} bytes, vocabulary ${m.vocab}; prompt ${m.promptTokens} tokens; ${row.tokens} tokens per candidate, ${THREADS} thread, ${row.rounds} rounds`,
      );
      record(
        `llama-cpp backend, ${row.what}`,
        `${m.ours.toFixed(0)} tokens/s with top-5 log-probabilities`,
        `bare node-llama-cpp loop ${m.bare.toFixed(0)} tokens/s with probabilities${m.plain !== null ? ` (${m.plain.toFixed(0)} tokens/s without)` : ''}`,
        (m.ours / m.bare).toFixed(2),
        row.target,
      );
      const tag = row.model.vocabExtra ? 'llama.vocab150k' : 'llama.tiny';
      if (row.long) put(`${tag}.longPromptOverBare`, m.ours / m.bare);
      if (row.long && !row.model.vocabExtra) put('llama.longPromptOverBare', m.ours / m.bare);
      if (m.estimate) {
        const e = m.estimate;
        put(`${tag}.estimateOverActual`, e.seconds / e.actual);
        put(`${tag}.flatEstimateOverActual`, e.flatSeconds / e.actual);
        if (!row.model.vocabExtra) put('llama.estimateOverActual', e.seconds / e.actual);
        record(
          `llama-cpp time estimate, ${row.what.replace(', greedy', '')}`,
          `${e.seconds.toFixed(1)} s estimated for ${e.candidates} × ${e.tokens} tokens (speed measured on a short call and one 64-token candidate at this prompt)`,
          `measured ${e.actual.toFixed(1)} s; flat speeds, as before, estimated ${e.flatSeconds.toFixed(1)} s (${(e.flatSeconds / e.actual).toFixed(2)}×)`,
          `${(e.seconds / e.actual).toFixed(2)}× the measured time`,
          'within 2× (0.5–2.0)',
        );
      }
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
