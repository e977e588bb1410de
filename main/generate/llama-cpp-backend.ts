// Open models on this machine, in process: a GGUF file run by llama.cpp through node-llama-cpp (CPU, prebuilt
// binaries from npm, nothing downloaded). The prompt goes through the model's own chat template; n candidates
// are sampled one after another at the request's temperature, candidate i with seed (request seed, else 0) + i,
// so a request always gives the same candidates on the same machine and thread count. Every token comes with
// its log-probability and top alternatives (main/generate/llama/sample.ts), so token entropy is measured from
// log-probabilities, not stood in for. Cancelling stops between two tokens.
//
// Calls are serialised: one context with one sequence per backend, the prompt evaluated once per call and shared
// by its candidates. Parallel sequences would be batched together, and the batch shapes (hence the numbers)
// would depend on timing; on a CPU the threads already keep the cores busy. llama.cpp computes on its own
// threads, so the event loop keeps running while a candidate is generated.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ChatHistoryItem, ChatWrapper, LlamaContext, LlamaContextSequence, LlamaModel, Token } from 'node-llama-cpp';
import { bytes as fmtBytes } from '../model/format.ts';
import { LlmError } from './errors.ts';
import { acquireModel, nodeLlamaCpp, resolveModelFile } from './llama/runtime.ts';
import { sampleCandidate, type Sample } from './llama/sample.ts';
import { PROMPT_OVER_OUTPUT, SpeedModel } from './llama/speed.ts';
import { messageChars } from './cost.ts';
import { Limiter } from './reliability.ts';
import type { BackendCapabilities, ChatChoice, ChatContext, ChatMessage, ChatRequest, ChatResponse, LlmBackend, LocalSpeed } from './types.ts';

/** The seed of candidate 0 when a request names none. */
export const DEFAULT_LLAMA_SEED = 0;
/** The context (prompt and reply, in tokens) when none is asked for, at most the model's training context. */
export const DEFAULT_CONTEXT_SIZE = 8192;

/**
 * Before a candidate was measured: output tokens per second ≈ memory bandwidth / model size (a CPU reads every weight
 * once per token), with a modest laptop's ~10 GB/s, and no more than 100; a prompt goes PROMPT_OVER_OUTPUT times faster.
 */
const ROUGH_BANDWIDTH = 10e9;
const ROUGH_MAX_TOKENS_PER_SECOND = 100;

export interface LlamaCppBackendOptions {
  /** A GGUF file: a path, or a file name in `modelsDir`. */
  model: string;
  modelsDir?: string;
  /** CPU threads (default: defaultLlamaThreads, one core left to the engine and its sandboxes). */
  threads?: number;
  contextSize?: number;
  /** Hears each token of each candidate (progress lines; tests). */
  onToken?: (candidate: number, tokens: number) => void;
}

interface Loaded {
  model: LlamaModel;
  context: LlamaContext;
  sequence: LlamaContextSequence;
  wrapper: ChatWrapper;
  release: () => Promise<void>;
}

export class LlamaCppBackend implements LlmBackend {
  readonly provider = 'llama-cpp' as const;
  readonly billing = 'local' as const;
  readonly id: string;
  readonly model: string;
  readonly label: string;
  readonly capabilities: BackendCapabilities = { nativeN: true, logprobs: true, jsonSchema: false, network: false };
  /** The GGUF file, resolved and checked. */
  readonly file: string;
  private readonly bytes: number;
  private loading: Promise<Loaded> | null = null;
  private readonly limiter = new Limiter(1);
  private readonly measured = new SpeedModel();

  constructor(private readonly opts: LlamaCppBackendOptions) {
    this.file = resolveModelFile(opts.model, opts.modelsDir);
    this.bytes = fs.statSync(this.file).size;
    this.model = path.basename(this.file).replace(/\.gguf$/i, '');
    this.id = `llama-cpp:${this.model}`;
    const threads = opts.threads ? `, ${opts.threads} thread${opts.threads === 1 ? '' : 's'}` : '';
    this.label = `${path.basename(this.file)} in llama.cpp on this machine (CPU${threads})`;
    if (opts.threads !== undefined && !(Number.isInteger(opts.threads) && opts.threads >= 1))
      throw new LlmError('config', this.id, `--threads must be a whole number ≥ 1, got ${opts.threads}`);
    if (opts.contextSize !== undefined && !(Number.isInteger(opts.contextSize) && opts.contextSize >= 16))
      throw new LlmError('config', this.id, `--context-size must be a whole number ≥ 16, got ${opts.contextSize}`);
  }

  toJSON(): Record<string, unknown> {
    return { id: this.id, provider: this.provider, model: this.model, file: this.file };
  }

  /**
   * Speed for time estimates: measured once a candidate was generated (as it grows with the context: llama/speed.ts),
   * a rough guess from the file size before.
   */
  localSpeed(): LocalSpeed {
    const measured = this.measured.speed();
    if (measured) return measured;
    const out = Math.min(ROUGH_MAX_TOKENS_PER_SECOND, ROUGH_BANDWIDTH / Math.max(1, this.bytes));
    return {
      outputTokensPerSecond: out,
      promptTokensPerSecond: out * PROMPT_OVER_OUTPUT,
      source: 'rough',
      note: `speed not measured yet: a rough guess from the model's size (${fmtBytes(this.bytes)} at ~10 GB/s: ${out.toFixed(1)} tokens/s)`,
    };
  }

  chat(req: ChatRequest, ctx: ChatContext = {}): Promise<ChatResponse> {
    if (ctx.signal?.aborted) return Promise.reject(new LlmError('cancelled', this.id, `${this.id}: cancelled`));
    return this.limiter.run(async () => {
      const started = performance.now();
      const loaded = await this.load();
      const warnings: string[] = [];
      if (req.jsonSchema) warnings.push(`${this.label} does not hold the reply to the JSON schema ${req.jsonSchema.name}; the reply is parsed as it comes`);
      const prompt = this.render(loaded, req.messages);
      const maxTokens = this.tokenBudget(loaded, prompt.tokens.length, req.maxTokens, warnings);
      const t0 = performance.now();
      await loaded.sequence.clearHistory();
      if (ctx.signal?.aborted) throw new LlmError('cancelled', this.id, `${this.id}: cancelled`);
      if (prompt.tokens.length > 1) await loaded.sequence.evaluateWithoutGeneratingNewTokens(prompt.tokens.slice(0, -1));
      const chars = messageChars(req.messages) * ((prompt.tokens.length - 1) / prompt.tokens.length);
      this.measured.addPrompt(prompt.tokens.length - 1, chars, performance.now() - t0);
      const choices: ChatChoice[] = [];
      for (let i = 0; i < req.n; i++) {
        const s = await sampleCandidate(loaded.sequence, prompt.tokens, {
          temperature: req.temperature,
          seed: seedOf(req, i),
          maxTokens,
          topLogprobs: req.topLogprobs,
          stopTexts: prompt.stopTexts,
          signal: ctx.signal,
          backendId: this.id,
          index: i,
          ...(this.opts.onToken ? { onToken: (count: number) => this.opts.onToken!(i, count) } : {}),
        });
        choices.push(this.choiceOf(i, s));
      }
      return {
        provider: this.provider,
        billing: this.billing,
        model: this.model,
        choices,
        usage: { inputTokens: prompt.tokens.length, outputTokens: choices.reduce((sum, c) => sum + (c.outputTokens ?? 0), 0), source: 'reported' },
        calls: 1,
        retries: 0,
        latencyMs: performance.now() - started,
        warnings,
      };
    });
  }

  async dispose(): Promise<void> {
    const loading = this.loading;
    this.loading = null;
    if (!loading) return;
    const loaded = await loading.catch(() => null);
    if (!loaded) return;
    await loaded.context.dispose();
    await loaded.release();
  }

  private choiceOf(index: number, s: Sample): ChatChoice {
    this.measured.addCandidate(s);
    return {
      index,
      text: s.text,
      finishReason: s.finishReason,
      logprobs: s.logprobs,
      outputTokens: s.tokens.length,
      timing: { wallMs: s.wallMs, tokensPerSecond: s.wallMs > 0 ? (s.tokens.length * 1000) / s.wallMs : null },
    };
  }

  private load(): Promise<Loaded> {
    this.loading ??= this.open().catch((e: unknown) => {
      this.loading = null;
      throw e;
    });
    return this.loading;
  }

  private async open(): Promise<Loaded> {
    const m = await nodeLlamaCpp();
    const { model, release } = await acquireModel(this.file);
    try {
      const threads = this.opts.threads ?? defaultLlamaThreads(model.llama.cpuMathCores, os.availableParallelism());
      const want = this.opts.contextSize ?? Math.min(DEFAULT_CONTEXT_SIZE, model.trainContextSize || DEFAULT_CONTEXT_SIZE);
      const context = await model.createContext({ contextSize: want, sequences: 1, threads: { ideal: threads, min: threads } });
      // the model's own template (tokenizer.chat_template) or, without one, the wrapper its architecture and name suggest
      const wrapper = m.resolveChatWrapper(model);
      return { model, context, sequence: context.getSequence(), wrapper, release };
    } catch (e) {
      await release();
      if (e instanceof LlmError) throw e;
      throw new LlmError('config', this.id, `llama.cpp could not make a context for ${this.file}: ${(e as Error).message}. Try a smaller --context-size.`, {
        cause: e,
      });
    }
  }

  /** The messages through the model's chat template, ready for the reply: its tokens and the texts that end a reply. */
  private render(loaded: Loaded, messages: ChatMessage[]): { tokens: Token[]; stopTexts: string[] } {
    const history: ChatHistoryItem[] = messages.map((msg) =>
      msg.role === 'assistant' ? { type: 'model', response: [msg.content] } : { type: msg.role, text: msg.content },
    );
    history.push({ type: 'model', response: [] });
    const state = loaded.wrapper.generateContextState({ chatHistory: history });
    const tokens = state.contextText.tokenize(loaded.model.tokenizer);
    // A trigger that is one end-of-generation token needs no watching: llama.cpp ends the reply there itself.
    const model = loaded.model;
    const triggers = state.stopGenerationTriggers
      .map((t) => t.tokenize(model.tokenizer))
      .filter((t) => t.length > 1 || (t[0] !== undefined && !model.isEogToken(t[0])));
    const stopTexts = [...new Set(triggers.map((t) => model.detokenize(t, true)).filter(Boolean))];
    return { tokens, stopTexts };
  }

  /** The reply's token limit within the context: the request's, or what is left after the prompt (with a warning). */
  private tokenBudget(loaded: Loaded, promptTokens: number, maxTokens: number, warnings: string[]): number {
    const size = loaded.context.contextSize;
    const room = size - promptTokens;
    if (room < 1) {
      throw new LlmError(
        'bad_request',
        this.id,
        `The prompt is ${promptTokens} tokens, more than the ${size}-token context of ${path.basename(this.file)}: pass a larger --context-size ` +
          `(the model was trained for ${loaded.model.trainContextSize}) or shorten the prompt.`,
      );
    }
    if (room >= maxTokens) return maxTokens;
    warnings.push(
      `${this.label}: the prompt (${promptTokens} tokens) leaves ${room} of the ${size}-token context for the reply, fewer than the ${maxTokens} asked for`,
    );
    return room;
  }
}

/**
 * Threads when none are asked for: llama.cpp's performance cores, but one core left free when the machine has more
 * than one. llama.cpp's threads meet at a barrier after every operation, so one thread that loses its core to the
 * validator's sandboxes (which run while candidates are generated) stalls all the others. Measured on an idle 2-core
 * machine with the tiny test model: 1 thread 1,980 tokens/s, 2 threads 65 tokens/s.
 */
export function defaultLlamaThreads(performanceCores: number, cores: number): number {
  return Math.max(1, Math.min(performanceCores, cores - 1));
}

/** Candidate i's seed: the request's (else 0) plus i; a fill-up call (call > 0) moves on by 65 536 per call. */
function seedOf(req: ChatRequest, i: number): number {
  return ((req.seed ?? DEFAULT_LLAMA_SEED) + (req.call ?? 0) * 65536 + i) >>> 0;
}
