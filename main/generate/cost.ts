// What generation costs: a user-editable price table (JSON), cost per call / task / run, and an estimate
// before a run starts (for a model on this machine, which nobody bills, the time it will take).

import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import type { Billing, ChatMessage, CostFigure, LocalSpeed } from './types.ts';
import { OpenCoderError } from '../model/errors.ts';

export type { Billing };

const ModelPriceSchema = z.object({
  /** USD per million input (prompt) tokens. */
  inputPerMTok: z.number().nonnegative(),
  /** USD per million output tokens (for Gemini 2.5 this includes thinking tokens). */
  outputPerMTok: z.number().nonnegative(),
  cachedInputPerMTok: z.number().nonnegative().optional(),
  /** When the price was taken (YYYY-MM-DD). */
  asOf: z.string(),
  source: z.string().optional(),
  note: z.string().optional(),
});

export const PriceTableSchema = z.object({
  version: z.literal(1),
  currency: z.literal('USD'),
  /** Keyed by model name; a key also prices dated variants (`gpt-4o-mini` prices `gpt-4o-mini-2024-07-18`). */
  models: z.record(z.string(), ModelPriceSchema),
});

export type ModelPrice = z.infer<typeof ModelPriceSchema>;
export type PriceTable = z.infer<typeof PriceTableSchema>;

/**
 * Defaults for the paper's two models, standard (non-batch) tier. Taken on 2026-11-29 from the providers' published
 * price lists as reproduced by public pricing summaries (no network was available to re-read the official pages):
 * check them at the source URLs and edit prices.json when they change.
 */
export const DEFAULT_PRICES: PriceTable = {
  version: 1,
  currency: 'USD',
  models: {
    'gpt-4o-mini': {
      inputPerMTok: 0.15,
      outputPerMTok: 0.6,
      cachedInputPerMTok: 0.075,
      asOf: '2026-11-29',
      source: 'https://openai.com/api/pricing/',
    },
    'gemini-2.5-flash': {
      inputPerMTok: 0.3,
      outputPerMTok: 2.5,
      cachedInputPerMTok: 0.075,
      asOf: '2026-11-29',
      source: 'https://ai.google.dev/gemini-api/docs/pricing',
      note: 'text input; thinking tokens are billed as output',
    },
  },
};

export class PriceTableError extends OpenCoderError {
  constructor(
    message: string,
    readonly file: string,
  ) {
    super('invalid-input', message);
  }
}

/** The price table in `file` when it exists, else the defaults. A broken file is an error naming it, never ignored. */
export function loadPriceTable(file: string | null): { table: PriceTable; source: string } {
  if (!file || !fs.existsSync(file)) return { table: DEFAULT_PRICES, source: 'built-in defaults' };
  let json: unknown;
  try {
    json = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (e) {
    throw new PriceTableError(`The price table ${file} is not valid JSON (${(e as Error).message}). Fix it or delete it to use the defaults.`, file);
  }
  const parsed = PriceTableSchema.safeParse(json);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `${i.path.join('.') || 'table'}: ${i.message}`).join('; ');
    throw new PriceTableError(`The price table ${file} is not valid: ${issues}`, file);
  }
  return { table: parsed.data, source: path.resolve(file) };
}

/** Writes the default table for the user to edit (refuses to overwrite an existing file). */
export function writeDefaultPriceTable(file: string): void {
  if (fs.existsSync(file)) throw new PriceTableError(`${file} exists already; edit it instead.`, file);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, `${JSON.stringify(DEFAULT_PRICES, null, 2)}\n`);
}

/** The price of a model: exact name, else the longest key that is a dash-separated prefix of it. */
export function priceFor(table: PriceTable, model: string): { key: string; price: ModelPrice } | null {
  const exact = table.models[model];
  if (exact) return { key: model, price: exact };
  let best: string | null = null;
  for (const key of Object.keys(table.models)) {
    if (model.startsWith(`${key}-`) && (!best || key.length > best.length)) best = key;
  }
  return best ? { key: best, price: table.models[best]! } : null;
}

export function costOf(usage: { inputTokens: number; outputTokens: number }, model: string, billing: Billing, table: PriceTable): CostFigure {
  const base = { inputTokens: usage.inputTokens, outputTokens: usage.outputTokens };
  if (billing === 'none') return { ...base, usd: 0, note: 'no model called: 0' };
  const p = priceFor(table, model);
  if (!p) {
    return billing === 'local'
      ? { ...base, usd: 0, note: `local model ${model}: 0 (add it to the price table to count it)` }
      : { ...base, usd: null, note: `no price for ${model} in the price table: add it to prices.json` };
  }
  const usd = (usage.inputTokens * p.price.inputPerMTok + usage.outputTokens * p.price.outputPerMTok) / 1e6;
  return { ...base, usd, note: `${p.key} at $${p.price.inputPerMTok}/M in, $${p.price.outputPerMTok}/M out (as of ${p.price.asOf})` };
}

/** Sums cost figures (null when any is unpriced). */
export function sumCosts(figs: CostFigure[]): CostFigure {
  const unpriced = figs.filter((f) => f.usd === null);
  return {
    usd: unpriced.length ? null : figs.reduce((s, f) => s + (f.usd ?? 0), 0),
    inputTokens: figs.reduce((s, f) => s + f.inputTokens, 0),
    outputTokens: figs.reduce((s, f) => s + f.outputTokens, 0),
    note: unpriced.length ? `${unpriced.length} of ${figs.length} unpriced: ${unpriced[0]!.note}` : (figs[0]?.note ?? 'nothing'),
  };
}

/** Rough token count for estimates: ~4 characters per token (English and code with BPE tokenizers). */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

/** The characters of a prompt's messages (a local model's measured characters per token turn them into tokens). */
export function messageChars(messages: ChatMessage[]): number {
  return messages.reduce((sum, m) => sum + m.content.length, 0);
}

/** Output tokens expected per candidate when nothing better is known: a function in one fenced block. */
export const EXPECTED_OUTPUT_TOKENS = 300;

export interface CostEstimate {
  calls: number;
  inputTokens: number;
  outputTokensExpected: number;
  outputTokensMax: number;
  usdExpected: number | null;
  usdMax: number | null;
  /** A model on this machine: the time expected and at most, from its speed (what it spends instead of money). */
  secondsExpected?: number;
  secondsMax?: number;
  note: string;
}

/**
 * Estimate for one generation before it runs: input billed once per call (one call when the backend honours `n`,
 * else n), output between the expected size per candidate and maxTokens per candidate. A local model with a known
 * speed gets the time too: prompt tokens at its prompt speed plus output tokens at its output speed.
 */
export function estimateGeneration(
  p: { messages: ChatMessage[]; n: number; maxTokens: number; nativeN: boolean; expectedOutputTokens?: number; speed?: LocalSpeed },
  model: string,
  billing: Billing,
  table: PriceTable,
): CostEstimate {
  const calls = p.nativeN ? 1 : p.n;
  const input = estimateTokens(p.messages.map((m) => m.content).join('\n')) + 4 * p.messages.length;
  const perCandidate = Math.min(p.maxTokens, p.expectedOutputTokens ?? EXPECTED_OUTPUT_TOKENS);
  const est = { calls, inputTokens: input * calls, outputTokensExpected: perCandidate * p.n, outputTokensMax: p.maxTokens * p.n };
  const expected = costOf({ inputTokens: est.inputTokens, outputTokens: est.outputTokensExpected }, model, billing, table);
  const max = costOf({ inputTokens: est.inputTokens, outputTokens: est.outputTokensMax }, model, billing, table);
  const tokensNote = `tokens estimated at ~4 characters each, ${perCandidate} output tokens expected per candidate (at most ${p.maxTokens})`;
  if (billing === 'local' && p.speed && p.speed.outputTokensPerSecond > 0 && p.speed.promptTokensPerSecond > 0) {
    const speed = p.speed;
    // Prompt tokens as this model counts them when it was measured; else ~4 characters each.
    const chars = messageChars(p.messages);
    const prompt = speed.charsPerToken ? Math.ceil(chars / speed.charsPerToken) : input;
    const seconds = (perCandidate: number) => calls * (localPromptSeconds(speed, prompt) + (p.n / calls) * localOutputSeconds(speed, prompt, perCandidate));
    return {
      ...est,
      usdExpected: expected.usd,
      usdMax: max.usd,
      secondsExpected: seconds(est.outputTokensExpected / p.n),
      secondsMax: seconds(p.maxTokens),
      note: `${expected.note}; ${speed.note}; ${speed.charsPerToken ? `prompt tokens counted at this model's ${speed.charsPerToken.toFixed(2)} characters each, ` : ''}${tokensNote}`,
    };
  }
  return { ...est, usdExpected: expected.usd, usdMax: max.usd, note: `${expected.note}; ${tokensNote}` };
}

/** Seconds to evaluate a prompt of `tokens` tokens: measured as a function of its length when known, else at the flat prompt speed. */
export function localPromptSeconds(speed: LocalSpeed, tokens: number): number {
  return speed.promptMs ? (tokens * (speed.promptMs.base + speed.promptMs.slope * tokens)) / 1000 : tokens / speed.promptTokensPerSecond;
}

/** Seconds for one candidate of `tokens` tokens after a prompt of `prompt` tokens: each token at its own context position when measured. */
export function localOutputSeconds(speed: LocalSpeed, prompt: number, tokens: number): number {
  if (!speed.outputMs) return tokens / speed.outputTokensPerSecond;
  const { base, slope } = speed.outputMs;
  // Σ over positions prompt … prompt + tokens − 1 of (base + slope·position)
  return (tokens * base + slope * (tokens * prompt + (tokens * (tokens - 1)) / 2)) / 1000;
}

/** Adds up estimates (of several tasks). */
export function sumEstimates(list: CostEstimate[]): CostEstimate {
  const add = (k: 'usdExpected' | 'usdMax') => (list.some((e) => e[k] === null) ? null : list.reduce((s, e) => s + (e[k] ?? 0), 0));
  const timed = list.length > 0 && list.every((e) => e.secondsExpected !== undefined && e.secondsMax !== undefined);
  return {
    ...(timed ? { secondsExpected: list.reduce((s, e) => s + e.secondsExpected!, 0), secondsMax: list.reduce((s, e) => s + e.secondsMax!, 0) } : {}),
    calls: list.reduce((s, e) => s + e.calls, 0),
    inputTokens: list.reduce((s, e) => s + e.inputTokens, 0),
    outputTokensExpected: list.reduce((s, e) => s + e.outputTokensExpected, 0),
    outputTokensMax: list.reduce((s, e) => s + e.outputTokensMax, 0),
    usdExpected: add('usdExpected'),
    usdMax: add('usdMax'),
    note: list[0]?.note ?? 'nothing to estimate',
  };
}

/** What a run's estimate counted, in one sentence for people (estimateRun's `assumptions`). */
export function runEstimateAssumptions(p: {
  tasks: number;
  conditions: number;
  /** Characters allowed per fused evidence item. */
  evidenceChars: number;
  /** Candidates come from a published sample set: no model is called, nothing is billed, nothing can be repaired. */
  imported: boolean;
  /** Repair rounds over all (task, condition) pairs that were counted, and whether the backend can repair at all. */
  repairRounds: number;
  canRepair: boolean;
  /** Conditions whose methods repair (rounds > 0). */
  repairingConditions: number;
}): string {
  const plural = (n: number, one: string) => `${n.toLocaleString('en-US')} ${one}${n === 1 ? '' : 's'}`;
  const size = `${plural(p.tasks, 'task')} × ${plural(p.conditions, 'condition')}`;
  if (p.imported) {
    const repairs = p.repairingConditions ? '; imported samples cannot be repaired, so no repair round is counted' : '';
    return `${size} from imported samples: no model is called and nothing is billed${repairs}`;
  }
  const repairs = !p.repairingConditions
    ? 'no repair rounds (none of these methods repairs)'
    : !p.canRepair
      ? 'no repair rounds (this backend cannot repair)'
      : `every repair round counted, ${plural(p.repairRounds, 'round')} in all (an upper bound: most tasks need none)`;
  return `${size}; ~${p.evidenceChars.toLocaleString('en-US')} characters per evidence item; ${repairs}`;
}

/** Cost per task and per run as a run goes. */
export class CostLedger {
  private readonly byTask = new Map<string, CostFigure[]>();

  add(taskId: string, fig: CostFigure): void {
    const list = this.byTask.get(taskId) ?? [];
    list.push(fig);
    this.byTask.set(taskId, list);
  }

  task(taskId: string): CostFigure {
    return sumCosts(this.byTask.get(taskId) ?? []);
  }

  perTask(): Record<string, CostFigure> {
    return Object.fromEntries([...this.byTask.keys()].map((k) => [k, this.task(k)]));
  }

  total(): CostFigure {
    return sumCosts([...this.byTask.values()].flat());
  }
}
