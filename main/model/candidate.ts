// What generation produces for one task: its candidates (code, reply, tokens, log-probabilities, group), their
// generation uncertainty, and the set's usage and cost. Plain data: the stages of main/generate make it, the
// pipeline stores it, reports and the UI read it.

/** Who produced a response. `offline` and `imported` never call a model; `llama-cpp` runs one on this machine. */
export type Provider = 'openai' | 'gemini' | 'offline' | 'imported' | 'llama-cpp';

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

export interface Usage {
  inputTokens: number;
  outputTokens: number;
  /** `reported` by the vendor, `none` when unknown (imported samples), `zero` for offline. */
  source: 'reported' | 'none' | 'zero';
}

export interface LogprobSummary {
  tokens: number;
  meanLogprob: number;
  /** Mean per-token entropy (nats) from the top alternatives; null when only chosen tokens were given. */
  meanEntropy: number | null;
  /** Entropy normalised to [0, 1]; with chosen tokens only, 1 − exp(mean logprob) stands in (see uncertainty.ts). */
  normalised: number;
}

/** How long a model on this machine took for one candidate (llama-cpp): wall time, and output tokens per second over it. */
export interface CandidateTiming {
  wallMs: number;
  tokensPerSecond: number | null;
}

export interface Candidate {
  index: number;
  /** The code extracted from the reply ('' only when extraction failed; then `extraction.ok` is false). */
  code: string;
  reply: string;
  extraction: { ok: boolean; blocks: number; note: string };
  finishReason: string | null;
  refused: boolean;
  /** Output tokens of this candidate when known. */
  tokens: number | null;
  logprobs: LogprobSummary | null;
  /** Index (into the set's `groups`) of its self-consistency group. */
  group: number;
  origin?: string;
  /** A local model's time for this candidate (absent for services, which report no per-candidate time). */
  timing?: CandidateTiming;
}

export interface UncertaintyPart {
  value: number | null;
  /** How it was measured, e.g. `token-logprobs(top 5)`, `group-entropy (no log-probs)`, `ast`. */
  method: string;
}

export interface GenerationUncertainty {
  entropy: UncertaintyPart;
  consistency: UncertaintyPart;
  variance: UncertaintyPart;
  /** Weighted aggregate over the parts that have a value; weights renormalised over those. */
  aggregate: number;
  weights: { entropy: number; consistency: number; variance: number };
  /** Groups of candidate indexes, in order of first appearance. */
  groups: number[][];
}

export interface CostFigure {
  usd: number | null;
  inputTokens: number;
  outputTokens: number;
  /** Why the figure is what it is (price source, `local model: 0`, `no price for X`). */
  note: string;
}

export interface CandidateSet {
  taskId: string;
  purpose: 'generate' | 'repair';
  backend: { id: string; provider: Provider; model: string; label: string; replayed: boolean };
  prompt: { version: string; kind: 'uncertainty-guided' | 'baseline' | 'repair'; messages: ChatMessage[] };
  candidates: Candidate[];
  uncertainty: GenerationUncertainty;
  usage: { inputTokens: number; outputTokens: number; calls: number; retries: number; source: Usage['source'] };
  cost: CostFigure;
  latencyMs: number;
  warnings: string[];
}
