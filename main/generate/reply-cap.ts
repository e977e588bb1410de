// Bounded model replies. A server that ignores the token limit can answer a 1,024-token request with 60 MB; read
// whole, stored and printed, one such reply costs gigabytes of memory and fills the exchange table. Two caps stop it:
// the raw HTTP body the SDK reads (a wrapped fetch stops reading at the cap and cancels the stream) and each choice's
// text after parsing (many choices, or an imported / recorded text, can each pass the body cap). Both derive from the
// request's max_tokens with a generous margin, under an absolute ceiling. A reply over either is refused whole
// (kind `oversized`), never retried: the same server would send it again.

import { OversizedReplyError } from './errors.ts';
import type { BackendCapabilities, ChatChoice, ChatContext, ChatRequest, ChatResponse, LlmBackend } from './types.ts';

const KiB = 1024;
const MiB = 1024 * KiB;

/** The rule's numbers; each refusal quotes the formula it applied. */
export const REPLY_CAP = {
  /**
   * UTF-8 bytes of reply text per asked token: a token of code averages ~4 characters, so 16 is a 4× margin, and
   * covers JSON escaping (`\n`, `\"`) of ordinary code.
   */
  textBytesPerToken: 16,
  /** Per token and per log-probability entry (the chosen token and each alternative): its JSON `{token, logprob, bytes}`. */
  logprobBytesPerEntry: 128,
  /** Per choice: its envelope (index, role, finish reason, refusal). */
  choiceAllowance: 1 * KiB,
  /** Per reply: the envelope, usage, ids, and error bodies, whatever the request. */
  bodyAllowance: 64 * KiB,
  /** Per candidate text, on top of its tokens. */
  textAllowance: 1 * KiB,
  /** The ceiling of either cap, whatever max_tokens says (override: ReliabilityOptions.maxReplyBytes, `--max-reply-mib`). */
  absoluteBytes: 16 * MiB,
} as const;

/** A byte cap and how it was derived (for the refusal's message). */
export interface ByteCap {
  bytes: number;
  rule: string;
}

type CapRequest = Pick<ChatRequest, 'n' | 'maxTokens' | 'topLogprobs'>;

export function formatBytes(bytes: number): string {
  if (bytes >= MiB) return `${(bytes / MiB).toFixed(1)} MiB`;
  if (bytes >= KiB) return `${(bytes / KiB).toFixed(1)} KiB`;
  return `${bytes} B`;
}

function exactBytes(bytes: number): string {
  return `${bytes.toLocaleString('en-US')} bytes`;
}

function ceilingOf(absoluteBytes: number | undefined): number {
  return Math.max(1, Math.floor(absoluteBytes ?? REPLY_CAP.absoluteBytes));
}

function bounded(derived: number, formula: string, absoluteBytes: number | undefined): ByteCap {
  const ceiling = ceilingOf(absoluteBytes);
  const bytes = Math.min(derived, ceiling);
  const why =
    derived > ceiling ? `the absolute cap ${formatBytes(ceiling)}, below ${formula} = ${formatBytes(derived)}` : `${formula} = ${formatBytes(derived)}`;
  return { bytes, rule: why };
}

/** The cap of one candidate's text: max_tokens × 16 B + 1 KiB, under the absolute cap. */
export function textCapOf(req: Pick<ChatRequest, 'maxTokens'>, opts: { absoluteBytes?: number } = {}): ByteCap {
  const tokens = Math.max(1, Math.floor(req.maxTokens));
  const derived = REPLY_CAP.textAllowance + tokens * REPLY_CAP.textBytesPerToken;
  return bounded(derived, `max_tokens ${tokens} × ${REPLY_CAP.textBytesPerToken} B + ${formatBytes(REPLY_CAP.textAllowance)}`, opts.absoluteBytes);
}

/**
 * The cap of one HTTP reply body: 64 KiB + n × (1 KiB + max_tokens × (16 B + log-probability entries × 128 B)),
 * under the absolute cap. Log-probability entries per token: the chosen one plus each alternative asked for (0 when
 * log-probabilities are not asked for).
 */
export function bodyCapOf(req: CapRequest, opts: { logprobs: boolean; absoluteBytes?: number }): ByteCap {
  const tokens = Math.max(1, Math.floor(req.maxTokens));
  const n = Math.max(1, Math.floor(req.n));
  const entries = opts.logprobs ? 1 + Math.min(20, Math.max(0, req.topLogprobs ?? 0)) : 0;
  const perToken = REPLY_CAP.textBytesPerToken + entries * REPLY_CAP.logprobBytesPerEntry;
  const derived = REPLY_CAP.bodyAllowance + n * (REPLY_CAP.choiceAllowance + tokens * perToken);
  const tokenPart = entries
    ? `(${REPLY_CAP.textBytesPerToken} B + ${entries} log-prob entries × ${REPLY_CAP.logprobBytesPerEntry} B)`
    : `${REPLY_CAP.textBytesPerToken} B`;
  const formula = `${formatBytes(REPLY_CAP.bodyAllowance)} + ${n} sample(s) × (${formatBytes(REPLY_CAP.choiceAllowance)} + max_tokens ${tokens} × ${tokenPart})`;
  return bounded(derived, formula, opts.absoluteBytes);
}

const ADVICE =
  'Check that the server honours max_tokens; if replies this long are expected, raise --max-tokens (the caps grow with it) ' +
  'or the absolute cap (--max-reply-mib).';

/** The refusal of a body over its cap. `who` names the server (`the server at …`, `Gemini`). */
export function oversizedBody(backend: string, who: string, model: string, cap: ByteCap, seen: number, declared: boolean): OversizedReplyError {
  const amount = declared ? `its Content-Length declares ${exactBytes(seen)}, so none of it was read` : `the client stopped reading at ${exactBytes(seen)}`;
  return new OversizedReplyError(
    backend,
    `${who} sent a reply for ${model} over the size cap: ${amount}; the cap is ${exactBytes(cap.bytes)} (${cap.rule}). ` +
      `The reply was refused, its body not stored, and the request not retried. ${ADVICE}`,
    { bytes: seen, cap: cap.bytes },
  );
}

/**
 * Throws when a choice's text is over the per-candidate cap. `source` says where the text came from
 * (`Gemini gemini-2.5-flash`, `the recorded exchange 12`).
 */
export function enforceTextCap(choices: readonly Pick<ChatChoice, 'text'>[], cap: ByteCap, backend: string, source: string): void {
  choices.forEach((c, i) => {
    const size = typeof c.text === 'string' ? Buffer.byteLength(c.text) : 0;
    if (size <= cap.bytes) return;
    throw new OversizedReplyError(
      backend,
      `${source} sent a reply over the size cap: candidate ${i + 1} of ${choices.length} holds ${exactBytes(size)} of text; ` +
        `the cap is ${exactBytes(cap.bytes)} per candidate (${cap.rule}). The reply was refused, its text not stored, and the request not retried. ${ADVICE}`,
      { bytes: size, cap: cap.bytes },
    );
  });
}

/** What a fetch wrapper hands the SDK, and the refusal it made, if any (whatever the SDK made of the stream's error). */
export class ReplyGuard {
  overflow: OversizedReplyError | undefined;

  constructor(
    private readonly cap: ByteCap,
    private readonly refuse: (seen: number, declared: boolean) => OversizedReplyError,
    private readonly base: typeof fetch = globalThis.fetch,
  ) {}

  /** A fetch whose response body errors (and cancels the connection's stream) once more than the cap was read. */
  readonly fetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const res = await this.base(input, init);
    if (!res.body) return res;
    const declared = Number(res.headers.get('content-length') ?? NaN);
    const source = res.body.getReader();
    let seen = 0;
    const stop = async (controller: ReadableStreamDefaultController<Uint8Array>, bytes: number, fromHeader: boolean) => {
      this.overflow = this.refuse(bytes, fromHeader);
      await source.cancel(this.overflow).catch(() => undefined);
      controller.error(this.overflow);
    };
    const body = new ReadableStream<Uint8Array>({
      start: async (controller) => {
        if (Number.isFinite(declared) && declared > this.cap.bytes) await stop(controller, declared, true);
      },
      pull: async (controller) => {
        const { done, value } = await source.read();
        if (done) return controller.close();
        seen += value.byteLength;
        if (seen > this.cap.bytes) return stop(controller, seen, false);
        controller.enqueue(value);
      },
      cancel: (reason) => source.cancel(reason),
    });
    return new Response(body, { status: res.status, statusText: res.statusText, headers: res.headers });
  };
}

/** A backend seen through another `chat`: everything else is the inner backend's (record, cap). */
export function wrapBackend(inner: LlmBackend, chat: (req: ChatRequest, ctx: ChatContext) => Promise<ChatResponse>): LlmBackend {
  return {
    id: inner.id,
    provider: inner.provider,
    model: inner.model,
    label: inner.label,
    billing: inner.billing,
    ...(inner.verbatim ? { verbatim: true } : {}),
    get capabilities(): BackendCapabilities {
      return inner.capabilities;
    },
    chat: (req, ctx = {}) => chat(req, ctx),
    ...(inner.dispose ? { dispose: () => inner.dispose!() } : {}),
    ...(inner.localSpeed ? { localSpeed: () => inner.localSpeed!() } : {}),
  };
}

/** Any backend (imported samples, offline, replay) with its candidate texts held to the per-candidate cap. */
export function capReplies(inner: LlmBackend, opts: { absoluteBytes?: number } = {}): LlmBackend {
  return wrapBackend(inner, async (req, ctx) => {
    const res = await inner.chat(req, ctx);
    enforceTextCap(res.choices, textCapOf(req, opts), inner.id, inner.label);
    return res;
  });
}
