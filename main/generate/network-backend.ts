// What the two network backends (OpenAI-compatible and Gemini) share: each chat runs through one retry,
// concurrency and reply-size policy (reliability.ts), and a backend serialises to its identity only, never to
// its client (which holds the key). Each backend keeps its own request (`once`) and reply reading (`normalise`).

import { textCapOf } from './reply-cap.ts';
import { chatWithPolicy, Limiter, resolveReliability, type ReliabilityOptions, type ResolvedReliability } from './reliability.ts';
import type { BackendCapabilities, ChatContext, ChatRequest, ChatResponse } from './types.ts';
import type { Provider } from '../model/candidate.ts';

export abstract class NetworkBackend<Reply> {
  abstract readonly provider: Provider;
  abstract readonly id: string;
  abstract readonly model: string;
  abstract readonly label: string;
  abstract readonly baseURL: string;
  abstract readonly capabilities: BackendCapabilities;
  protected policy!: ResolvedReliability;
  protected limiter!: Limiter;
  #onRetry: ((message: string) => void) | undefined;

  /** Sets the policy; a backend calls it after checking its own options, so a missing model or key is named first. */
  protected usePolicy(reliability: ReliabilityOptions | undefined, onRetry: ((message: string) => void) | undefined): void {
    this.policy = resolveReliability(reliability);
    this.limiter = new Limiter(this.policy.concurrency);
    this.#onRetry = onRetry;
  }

  /** One attempt at the provider (no retries: the policy retries). */
  protected abstract once(req: ChatRequest, logprobs: boolean, signal: AbortSignal): Promise<Reply>;
  /** The provider's reply as a ChatResponse; problems that do not fail the call go into `warnings`. */
  protected abstract normalise(reply: Reply, req: ChatRequest, warnings: string[]): ChatResponse;

  // Keep the client (which holds the key) out of any serialisation.
  toJSON(): Record<string, unknown> {
    return { id: this.id, provider: this.provider, model: this.model, baseURL: this.baseURL };
  }

  chat(req: ChatRequest, ctx: ChatContext = {}): Promise<ChatResponse> {
    return chatWithPolicy({
      id: this.id,
      label: this.label,
      policy: this.policy,
      limiter: this.limiter,
      capabilities: this.capabilities,
      wantLogprobs: req.topLogprobs !== undefined,
      signal: ctx.signal,
      onRetry: this.#onRetry,
      once: (logprobs, signal) => this.once(req, logprobs, signal),
      normalise: (response, warnings) => this.normalise(response, req, warnings),
      textCap: textCapOf(req, { absoluteBytes: this.policy.maxReplyBytes }),
    });
  }
}
