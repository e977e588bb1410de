// The shapes every generation backend speaks: one chat request with n samples in, normalised choices out.

import type { Evidence, RetrievalTrace, Source } from '../model/trace.ts';

export type { Evidence, RetrievalTrace, Source };
export type {
  Candidate,
  CandidateSet,
  CandidateTiming,
  ChatMessage,
  CostFigure,
  GenerationUncertainty,
  LogprobSummary,
  Provider,
  UncertaintyPart,
  Usage,
} from '../model/candidate.ts';
import type { CandidateTiming, ChatMessage, Provider, Usage } from '../model/candidate.ts';

/** A JSON schema the reply must follow (structured output). */
export interface JsonSchemaSpec {
  name: string;
  schema: Record<string, unknown>;
}

/** What a prompt was built from, in structured form. Network backends ignore it; the offline backend reads it. */
export interface GroundingContext {
  purpose: 'generate' | 'repair' | 'decompose';
  task: PromptTask;
  /** The fused evidence the prompt shows (empty when there is none). */
  evidence: Evidence[];
  /** Uncertainty-guided prompt (true) or plain concatenation (Baseline RAG). */
  guided: boolean;
  /** Repair only: the candidate that failed. */
  failing?: string;
  /** Decomposition only: how many steps are allowed. */
  steps?: { min: number; max: number };
}

export interface ChatRequest {
  messages: ChatMessage[];
  /** Samples wanted from this call. */
  n: number;
  temperature: number;
  maxTokens: number;
  jsonSchema?: JsonSchemaSpec;
  /** Ask for log-probabilities with this many alternatives per token (0: only the chosen token's). Ignored when the backend has none. */
  topLogprobs?: number;
  seed?: number;
  /**
   * Ordinal of this call among identical requests of one generation (fill-up calls when a backend
   * ignores `n`). Part of the request hash, so replay tells the calls apart.
   */
  call?: number;
  /** Not sent to network backends and not part of the request hash (it mirrors what the messages say). */
  grounding?: GroundingContext;
}

/** Metadata about a call: not part of the request, not sent, not hashed. */
export interface ChatContext {
  signal?: AbortSignal;
  taskId?: string;
  runId?: string;
  purpose?: string;
}

export interface TopLogprob {
  token: string;
  logprob: number;
}

export interface TokenLogprob {
  token: string;
  logprob: number;
  /** Alternatives at this position (may include the chosen token), best first. Empty when not asked for. */
  top: TopLogprob[];
}

export interface ChatChoice {
  index: number;
  text: string;
  /** Normalised: `stop`, `length`, `refused`, or the vendor's own value. */
  finishReason: string | null;
  /** Set when the model refused (OpenAI `refusal`, Gemini safety blocks): the text then holds the refusal. */
  refused?: boolean;
  logprobs: TokenLogprob[] | null;
  /** Output tokens of this choice when the backend says (Gemini per candidate; OpenAI: logprob count). */
  outputTokens?: number;
  /** Offline / imported: where the candidate came from. */
  origin?: string;
  /** A model on this machine: its time and speed for this choice. */
  timing?: CandidateTiming;
}

/** How a call is billed: metered by a vendor, a model on the analyst's machine, or no model at all. */
export type Billing = 'metered' | 'local' | 'none';

export interface ChatResponse {
  provider: Provider;
  billing: Billing;
  /** The model asked for. */
  model: string;
  /** The model the vendor says answered, when it says. */
  servedModel?: string;
  choices: ChatChoice[];
  usage: Usage;
  /** HTTP calls made (more than one when a backend ignores `n`, or after retries). */
  calls: number;
  /** Retries after 429 / 5xx / network errors, over all calls. */
  retries: number;
  latencyMs: number;
  warnings: string[];
  /** Set by the replay backend: answered from the exchange store, no network. */
  replayed?: boolean;
}

export interface BackendCapabilities {
  /** Returns several samples from one call when asked (`n` / `candidateCount`). May turn false at run time. */
  nativeN: boolean;
  logprobs: boolean;
  jsonSchema: boolean;
  network: boolean;
  /** Can answer a repair request (feedback → new code). Imported samples cannot: false. Absent: true. */
  repair?: boolean;
}

/** How fast a model on this machine goes, for time estimates (cost.ts): measured, or a rough guess before it ran. */
export interface LocalSpeed {
  outputTokensPerSecond: number;
  promptTokensPerSecond: number;
  /**
   * Measured: an output token at context position p takes `base + slope·p` ms (attention reads the whole context),
   * and a prompt of P tokens takes `P·(base + slope·P)` ms (`promptMs`). Absent: the flat speeds above.
   */
  outputMs?: { base: number; slope: number };
  promptMs?: { base: number; slope: number };
  /** Measured: characters of messages per prompt token as this model tokenizes (counts a prompt's tokens). */
  charsPerToken?: number;
  source: 'measured' | 'rough';
  note: string;
}

export interface LlmBackend {
  /** `openai:gpt-4o-mini`, `gemini:gemini-2.5-flash`, `offline:retrieve-and-adapt@1`, `replay:openai:gpt-4o-mini` */
  readonly id: string;
  readonly provider: Provider;
  readonly model: string;
  /** Replies are code exactly as it is to run (imported samples): no extraction. Absent: false. */
  readonly verbatim?: boolean;
  /** One line for people: what produced the candidates. */
  readonly label: string;
  readonly capabilities: BackendCapabilities;
  /** How its calls are billed (replay: `none`, nothing is spent now). */
  readonly billing: Billing;
  chat(req: ChatRequest, ctx?: ChatContext): Promise<ChatResponse>;
  /** A model on this machine: its speed, so an estimate can give time instead of money. */
  localSpeed?(): LocalSpeed;
  dispose?(): Promise<void>;
}

/** The task as prompts see it (a manifest Task fits). */
export interface PromptTask {
  id: string;
  requirement: string;
  signature: string;
  file?: string;
  qualname?: string;
}
