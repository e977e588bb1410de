// Generation: prompt from the task and its retrieval trace → n samples from a backend (several calls when it
// ignores `n`, and a check that n came back) → code extracted from each reply → generation uncertainty and cost.
// Also the repair round's generation and the LLM decomposer that retrieval calls.

import type { Encoder } from '../model/encoder.ts';
import { DEFAULT_CONFIG, type PipelineConfig } from '../model/config.ts';
import type { DecomposedStep, Decomposer, DecompositionInput } from '../retrieve/decompose.ts';
import { costOf, DEFAULT_PRICES, sumCosts, type PriceTable } from './cost.ts';
import { LlmError } from './errors.ts';
import { extractCode, type Extraction } from './extract.ts';
import type { PythonOptions } from './normalise.ts';
import {
  buildDecompositionPrompt,
  buildGenerationPrompt,
  buildRepairPrompt,
  parseDecomposition,
  signatureName,
  type BuiltPrompt,
  type PromptOptions,
  type RepairPromptInput,
} from './prompts.ts';
import type { Candidate, CandidateSet, ChatChoice, ChatContext, ChatRequest, ChatResponse, LlmBackend, PromptTask, RetrievalTrace } from './types.ts';
import { measureGenerationUncertainty, type UncertaintyResult } from './uncertainty.ts';

export interface GenerateOptions {
  backend: LlmBackend;
  /** Candidates, temperature, max tokens, uncertainty-guided prompt and uncertainty weights (default DEFAULT_CONFIG). */
  config?: PipelineConfig;
  /** For semantic variance; without one its weight is spread over the other signals. */
  encoder?: Encoder | null;
  prices?: PriceTable;
  signal?: AbortSignal;
  runId?: string;
  /** Alternatives per token to ask for (default 5; 0: the chosen token's only). Backends without log-probabilities ignore it. */
  topLogprobs?: number;
  seed?: number;
  /** Most calls made to collect n samples (default n + 2). */
  maxCalls?: number;
  /** Accept fewer samples than asked (with a warning) instead of failing. */
  allowFewer?: boolean;
  python?: PythonOptions;
  prompt?: PromptOptions;
  entropyFallback?: 'group-entropy' | 'none';
}

export interface Sampled {
  choices: ChatChoice[];
  responses: ChatResponse[];
  warnings: string[];
}

/**
 * Collects `req.n` samples. One call asks for all of them; a backend that returns a single sample (it ignores `n`)
 * gets the rest as parallel one-sample calls, one that returns some gets a call for the remainder. Each call carries
 * its ordinal, so replay can tell identical requests apart. Fails with a `short` error when n never arrive.
 */
export async function sampleChoices(
  backend: LlmBackend,
  req: ChatRequest,
  ctx: ChatContext,
  opts: { maxCalls?: number; allowFewer?: boolean } = {},
): Promise<Sampled> {
  const want = req.n;
  const maxCalls = opts.maxCalls ?? want + 2;
  const responses: ChatResponse[] = [];
  const choices: ChatChoice[] = [];
  const warnings: string[] = [];
  let call = 0;
  const first = await backend.chat({ ...req, call: call++ }, ctx);
  responses.push(first);
  choices.push(...first.choices);
  let ignoresN = want > 1 && first.choices.length === 1;
  if (ignoresN) warnings.push(`${backend.label} returned 1 sample when ${want} were asked for (it ignores n): made one call per remaining sample`);
  while (choices.length < want && call < maxCalls) {
    const missing = want - choices.length;
    if (ignoresN) {
      const k = Math.min(missing, maxCalls - call);
      const batch = await Promise.all(Array.from({ length: k }, () => backend.chat({ ...req, n: 1, call: call++ }, ctx)));
      for (const r of batch) {
        responses.push(r);
        choices.push(...r.choices);
      }
    } else {
      const r = await backend.chat({ ...req, n: missing, call: call++ }, ctx);
      responses.push(r);
      choices.push(...r.choices);
      if (missing > 1 && r.choices.length === 1) ignoresN = true;
    }
  }
  if (choices.length > want) {
    warnings.push(`${backend.label} returned ${choices.length} samples when ${want} were asked for; kept the first ${want}`);
    choices.length = want;
  }
  if (choices.length < want) {
    const msg = `${backend.label} returned ${choices.length} of the ${want} samples asked for, after ${call} calls`;
    if (!opts.allowFewer || choices.length === 0)
      throw new LlmError('short', backend.id, `${msg}. The server may cap or ignore n; lower the candidate count or allow fewer.`);
    warnings.push(msg);
  }
  for (const r of responses) warnings.push(...r.warnings);
  return { choices: choices.map((c, index) => ({ ...c, index })), responses, warnings };
}

function describeFailure(c: ChatChoice, note: string): string {
  return `${note}${c.finishReason === 'length' ? ' (the reply hit the token limit)' : c.finishReason && c.finishReason !== 'stop' ? ` (finish: ${c.finishReason})` : ''}`;
}

async function buildSet(
  purpose: CandidateSet['purpose'],
  task: PromptTask,
  prompt: BuiltPrompt,
  req: ChatRequest,
  opts: GenerateOptions,
  config: PipelineConfig,
): Promise<CandidateSet> {
  const ctx: ChatContext = { taskId: task.id, purpose, ...(opts.signal ? { signal: opts.signal } : {}), ...(opts.runId ? { runId: opts.runId } : {}) };
  const started = performance.now();
  const sampled = await sampleChoices(opts.backend, req, ctx, { maxCalls: opts.maxCalls, allowFewer: opts.allowFewer });
  const latencyMs = performance.now() - started;
  const warnings = [...sampled.warnings];
  // A refusal is the model's answer, not a fault: every refused sample stays a candidate without code (a failed
  // sample named `refused`), so a model that refuses is scored for it instead of leaving its task unscored.
  if (sampled.choices.every((c) => c.refused)) {
    warnings.push(`${opts.backend.label} refused every sample for task ${task.id}: ${sampled.choices[0]?.text.slice(0, 200) ?? ''}`);
  }
  const extracted = extractAll(task, sampled.choices, opts.backend);
  extracted.forEach((x, i) => {
    if (!x.ok) warnings.push(`candidate ${i + 1}: ${describeFailure(sampled.choices[i]!, x.note)}`);
  });
  const u = await measureGenerationUncertainty(
    extracted.map((x) => x.code),
    sampled.choices.map((c) => c.logprobs),
    {
      weights: config.generation.uncertaintyWeights,
      encoder: opts.encoder ?? null,
      ...(opts.python ? { python: opts.python } : {}),
      ...(opts.entropyFallback ? { entropyFallback: opts.entropyFallback } : {}),
    },
  );
  warnings.push(...u.notes);
  const candidates = candidatesOf(sampled.choices, extracted, u);
  const prices = opts.prices ?? DEFAULT_PRICES;
  const cost = sumCosts(sampled.responses.map((r) => costOf(r.usage, r.model, r.billing, prices)));
  const { items: _items, perCandidateEntropy: _pce, notes: _notes, ...uncertainty } = u;
  return {
    taskId: task.id,
    purpose,
    backend: {
      id: opts.backend.id,
      provider: opts.backend.provider,
      model: opts.backend.model,
      label: opts.backend.label,
      replayed: sampled.responses.some((r) => r.replayed),
    },
    prompt: { version: prompt.version, kind: prompt.kind as CandidateSet['prompt']['kind'], messages: prompt.messages },
    candidates,
    uncertainty,
    usage: usageOf(sampled.responses, cost),
    cost,
    latencyMs,
    warnings,
  };
}

/** The code of each sample: none for a refusal, the reply itself from a verbatim backend, else what extractCode finds. */
function extractAll(task: PromptTask, choices: ChatChoice[], backend: LlmBackend): Extraction[] {
  const name = signatureName(task.signature);
  return choices.map((c) =>
    c.refused
      ? { code: '', ok: false, blocks: 0, note: `refused: ${c.text.slice(0, 160)}` }
      : backend.verbatim
        ? { code: c.text, ok: c.text.trim() !== '', blocks: 0, note: c.text.trim() ? 'kept byte for byte as published (no extraction)' : 'empty sample' }
        : extractCode(c.text, { name, ...(task.qualname ? { qualname: task.qualname } : {}) }),
  );
}

/** A candidate per sample, with its entropy and the self-consistency group it falls in. */
function candidatesOf(choices: ChatChoice[], extracted: Extraction[], u: UncertaintyResult): Candidate[] {
  const groupOf = new Map<number, number>();
  u.groups.forEach((g, gi) => g.forEach((i) => groupOf.set(i, gi)));
  return choices.map((c, i) => {
    const cand: Candidate = {
      index: i,
      code: extracted[i]!.code,
      reply: c.text,
      extraction: extracted[i]!,
      finishReason: c.finishReason,
      refused: Boolean(c.refused),
      tokens: c.outputTokens ?? null,
      logprobs: u.perCandidateEntropy[i] ?? null,
      group: groupOf.get(i) ?? i,
    };
    if (c.origin) cand.origin = c.origin;
    if (c.timing) cand.timing = c.timing;
    return cand;
  });
}

/** Tokens, calls and retries over every response, and where the token counts came from. */
function usageOf(responses: ChatResponse[], cost: CandidateSet['cost']): CandidateSet['usage'] {
  const sources = new Set(responses.map((r) => r.usage.source));
  return {
    inputTokens: cost.inputTokens,
    outputTokens: cost.outputTokens,
    calls: responses.reduce((s, r) => s + r.calls, 0),
    retries: responses.reduce((s, r) => s + r.retries, 0),
    source: sources.has('none') ? 'none' : sources.has('reported') ? 'reported' : 'zero',
  };
}

/** The generation request for a task (exposed so a run can estimate its cost before sending anything). */
export function generationRequest(
  task: PromptTask,
  trace: RetrievalTrace | null,
  opts: Pick<GenerateOptions, 'config' | 'topLogprobs' | 'seed' | 'prompt'> = {},
): { prompt: BuiltPrompt; request: ChatRequest } {
  const config = opts.config ?? DEFAULT_CONFIG;
  const guided = config.generation.uncertaintyGuided;
  const prompt = buildGenerationPrompt(task, trace, { guided, ...opts.prompt });
  const request: ChatRequest = {
    messages: prompt.messages,
    n: config.generation.candidates,
    temperature: config.generation.temperature,
    maxTokens: config.generation.maxTokens,
    topLogprobs: opts.topLogprobs ?? 5,
    grounding: { purpose: 'generate', task, evidence: prompt.evidence, guided },
  };
  if (opts.seed !== undefined) request.seed = opts.seed;
  return { prompt, request };
}

/** Candidates for a task conditioned on its fused evidence and uncertainty trace, with their generation uncertainty, tokens and cost. */
export async function generateCandidates(task: PromptTask, trace: RetrievalTrace | null, opts: GenerateOptions): Promise<CandidateSet> {
  const config = opts.config ?? DEFAULT_CONFIG;
  const { prompt, request } = generationRequest(task, trace, opts);
  return buildSet('generate', task, prompt, request, opts, config);
}

/** One repair round: `n` (default 1) new candidates from the failing one, its findings and the failing tests' output. */
export async function repairCandidates(input: RepairPromptInput, opts: GenerateOptions & { n?: number }): Promise<CandidateSet> {
  const config = opts.config ?? DEFAULT_CONFIG;
  const prompt = buildRepairPrompt(input, opts.prompt);
  const request: ChatRequest = {
    messages: prompt.messages,
    n: opts.n ?? 1,
    temperature: config.generation.temperature,
    maxTokens: config.generation.maxTokens,
    topLogprobs: opts.topLogprobs ?? 5,
    grounding: { purpose: 'repair', task: input.task, evidence: prompt.evidence, guided: input.guided, failing: input.candidate },
  };
  if (opts.seed !== undefined) request.seed = opts.seed;
  return buildSet('repair', input.task, prompt, request, opts, config);
}

/** What the validator's repair loop hands over (main/validate/select.ts's RepairRequest, structurally). */
export interface RepairRequestLike {
  task: PromptTask;
  round: number;
  code: string;
  staticFindings: { kind?: string; message: string; line?: number }[];
  failingOutput: string;
}

/**
 * The validator's RepairFn: one repaired candidate per round, from the task's trace, the failing code, its findings
 * and the failing tests' output. Fails (rather than returning empty code) when the reply holds no code.
 */
export function makeRepairer(
  opts: GenerateOptions & { trace: RetrievalTrace | null; onSet?: (set: CandidateSet) => void },
): (req: RepairRequestLike) => Promise<string> {
  const guided = (opts.config ?? DEFAULT_CONFIG).generation.uncertaintyGuided;
  return async (req) => {
    const set = await repairCandidates(
      {
        task: req.task,
        trace: opts.trace,
        guided,
        candidate: req.code,
        findings: req.staticFindings.map((f) => ({
          ...(f.kind ? { tool: f.kind } : {}),
          message: f.message,
          ...(f.line !== undefined ? { line: f.line } : {}),
        })),
        testOutput: req.failingOutput,
        round: req.round,
      },
      { ...opts, n: 1 },
    );
    opts.onSet?.(set);
    const c = set.candidates[0]!;
    if (!c.extraction.ok) throw new LlmError('malformed', opts.backend.id, `repair round ${req.round} of ${req.task.id}: ${c.extraction.note}`);
    return c.code;
  };
}

/**
 * The LLM decomposer retrieval calls (main/retrieve/decompose.ts's Decomposer): one JSON-schema-constrained call at
 * temperature 0. Errors propagate; retrieval then falls back to its deterministic decomposition and says why.
 */
export function llmDecomposer(backend: LlmBackend, opts: { signal?: AbortSignal; runId?: string; maxTokens?: number; taskId?: string } = {}): Decomposer {
  return {
    label: `llm:${backend.model}`,
    async decompose(input: DecompositionInput, limits: { minSteps: number; maxSteps: number }): Promise<DecomposedStep[]> {
      const name = signatureName(input.signature);
      const task: PromptTask = {
        id: opts.taskId ?? 'decomposition',
        requirement: input.requirement,
        signature: input.signature,
        ...(input.className ? { qualname: `${input.className}.${name}` } : {}),
        ...(input.module ? { file: `${input.module.split('.').join('/')}.py` } : {}),
      };
      const steps = { min: limits.minSteps, max: limits.maxSteps };
      const prompt = buildDecompositionPrompt(task, steps);
      const res = await backend.chat(
        {
          messages: prompt.messages,
          n: 1,
          temperature: 0,
          maxTokens: opts.maxTokens ?? 1024,
          jsonSchema: prompt.schema,
          grounding: { purpose: 'decompose', task, evidence: [], guided: true, steps },
        },
        {
          purpose: 'decompose',
          ...(opts.taskId ? { taskId: opts.taskId } : {}),
          ...(opts.signal ? { signal: opts.signal } : {}),
          ...(opts.runId ? { runId: opts.runId } : {}),
        },
      );
      const choice = res.choices[0];
      if (!choice) throw new LlmError('short', backend.id, `${backend.label} returned no decomposition`);
      if (choice.refused) throw new LlmError('refused', backend.id, `${backend.label} refused to decompose the task: ${choice.text.slice(0, 160)}`);
      return parseDecomposition(choice.text, steps).steps.map((s) => ({ text: s.text, weights: s.weights, queries: s.queries }));
    },
  };
}
