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
//    shown as the floor.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { LlamaContextSequence, LlamaModel, Token } from 'node-llama-cpp';
import { LlamaCppBackend } from '../main/generate/llama-cpp-backend.ts';
import { llamaRuntime } from '../main/generate/llama/runtime.ts';
import { SAMPLER } from '../main/generate/llama/sample.ts';
import type { ChatRequest } from '../main/generate/types.ts';
import { writeTinyGguf, type TinyGgufOptions } from '../scripts/tiny-gguf.ts';

type Record = (what: string, value: string, baseline: string, ratio: string, target?: string) => void;

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
async function promptOf(model: LlamaModel): Promise<Token[]> {
  const { resolveChatWrapper } = await import('node-llama-cpp');
  const chatHistory = [
    { type: 'system' as const, text: REQUEST.messages[0]!.content },
    { type: 'user' as const, text: REQUEST.messages[1]!.content },
    { type: 'model' as const, response: [] },
  ];
  return resolveChatWrapper(model).generateContextState({ chatHistory }).contextText.tokenize(model.tokenizer);
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
}

async function measure(dir: string, row: Row): Promise<{ ours: number; bare: number; plain: number | null; bytes: number; vocab: number }> {
  const file = path.join(dir, `m${row.model.vocabExtra?.length ?? 0}.gguf`);
  const info = writeTinyGguf(file, row.model);
  const backend = new LlamaCppBackend({ model: file, threads: THREADS });
  const llama = await llamaRuntime();
  const model = await llama.loadModel({ modelPath: file, gpuLayers: 0 });
  const context = await model.createContext({ contextSize: 2048, sequences: 1, threads: { ideal: THREADS, min: THREADS } });
  try {
    const prompt = await promptOf(model);
    const sequence = context.getSequence();
    const req = { ...REQUEST, temperature: row.temperature, maxTokens: row.tokens };
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
    return { ours: median(ours), bare: median(bare), plain: row.floor ? median(plain) : null, bytes: info.bytes, vocab: info.nVocab };
  } finally {
    await context.dispose();
    await model.dispose();
    await backend.dispose();
  }
}

export async function benchLlama(record: Record): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'oc-bench-llama-'));
  const coderVocabulary = Array.from({ length: 150_000 }, (_, i) => `▁x${i}`);
  const rows: (Row & { what: string; target: string })[] = [
    { what: 'tiny model, greedy', model: {}, temperature: 0, tokens: 200, rounds: 7, floor: false, target: '≥ 0.90' },
    { what: 'tiny model, temperature 0.8 (+ scoring pass)', model: {}, temperature: 0.8, tokens: 200, rounds: 7, floor: false, target: '' },
    { what: '150k-token vocabulary, greedy', model: { vocabExtra: coderVocabulary }, temperature: 0, tokens: 40, rounds: 3, floor: true, target: '' },
  ];
  try {
    for (const row of rows) {
      const m = await measure(dir, row);
      console.log(`model: ${m.bytes} bytes, vocabulary ${m.vocab}; ${row.tokens} tokens per candidate, ${THREADS} thread, ${row.rounds} rounds`);
      record(
        `llama-cpp backend, ${row.what}`,
        `${m.ours.toFixed(0)} tokens/s with top-5 log-probabilities`,
        `bare node-llama-cpp loop ${m.bare.toFixed(0)} tokens/s with probabilities${m.plain !== null ? ` (${m.plain.toFixed(0)} tokens/s without)` : ''}`,
        (m.ours / m.bare).toFixed(2),
        row.target,
      );
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
