// Typed errors of generation. Each says what happened, to which backend and model, and what to do about it.
// Messages pass through redact() so that a key echoed by a server never reaches a log, trace or database.

import { OpenCoderError, type ErrorCode } from '../model/errors.ts';

export type LlmErrorKind =
  | 'missing_key'
  | 'auth'
  | 'unknown_model'
  | 'refused'
  | 'malformed'
  | 'bad_request'
  | 'rate_limit'
  | 'quota'
  | 'server'
  | 'network'
  | 'timeout'
  | 'cancelled'
  | 'short'
  | 'replay_miss'
  | 'oversized'
  | 'config';

/** What the caller can do about each kind (model/errors.ts). */
const CODE_OF_KIND: Record<LlmErrorKind, ErrorCode> = {
  missing_key: 'invalid-input',
  auth: 'invalid-input',
  unknown_model: 'invalid-input',
  bad_request: 'invalid-input',
  config: 'invalid-input',
  replay_miss: 'not-found',
  cancelled: 'cancelled',
  refused: 'engine',
  malformed: 'engine',
  rate_limit: 'engine',
  quota: 'engine',
  server: 'engine',
  network: 'engine',
  timeout: 'engine',
  short: 'engine',
  oversized: 'engine',
};

const RETRYABLE: ReadonlySet<LlmErrorKind> = new Set(['rate_limit', 'server', 'network', 'timeout']);

export class LlmError extends OpenCoderError {
  readonly kind: LlmErrorKind;
  readonly backend: string;
  readonly status?: number;
  /** Server-requested wait before retrying (Retry-After, retry-after-ms, Gemini RetryInfo), in ms. */
  readonly retryAfterMs?: number;

  constructor(kind: LlmErrorKind, backend: string, message: string, opts: { status?: number; retryAfterMs?: number; cause?: unknown } = {}) {
    super(CODE_OF_KIND[kind], redact(message), { cause: opts.cause });
    this.name = 'LlmError';
    this.kind = kind;
    this.backend = backend;
    if (opts.status !== undefined) this.status = opts.status;
    if (opts.retryAfterMs !== undefined) this.retryAfterMs = opts.retryAfterMs;
  }

  get retryable(): boolean {
    return RETRYABLE.has(this.kind);
  }

  // The cause may be a vendor error object holding request headers; keep it out of JSON.
  toJSON(): Record<string, unknown> {
    return { name: this.name, kind: this.kind, backend: this.backend, status: this.status, message: this.message };
  }
}

/** The replay store has no recorded answer for a request. */
export class ReplayMissError extends LlmError {
  constructor(
    backend: string,
    readonly requestHash: string,
    what: string,
  ) {
    super(
      'replay_miss',
      backend,
      `Replay has no recorded exchange for request ${requestHash} (${what}). ` +
        `The run was not recorded with these exact inputs (prompt, model, sampling settings); record it first with a live backend, ` +
        `or replay the run it came from (--replay-run).`,
    );
    this.name = 'ReplayMissError';
  }
}

/** A reply over its size cap (reply-cap.ts): refused whole, not retried, not stored. */
export class OversizedReplyError extends LlmError {
  /** Bytes seen (or declared) when it was refused, and the cap. */
  readonly bytes: number;
  readonly cap: number;

  constructor(backend: string, message: string, size: { bytes: number; cap: number }) {
    super('oversized', backend, message);
    this.name = 'OversizedReplyError';
    this.bytes = size.bytes;
    this.cap = size.cap;
  }
}

// Secrets registered by the backends that hold them (keys from the environment or from the app).
const secrets = new Set<string>();

/** Remembers a secret so that redact() removes it wherever it appears. */
export function registerSecret(secret: string | undefined): void {
  if (secret && secret.length >= 6) secrets.add(secret);
}

// Shapes of API keys (OpenAI sk-…, Google AIza…), also when a server echoes them partially masked.
const KEY_SHAPES = [/\bsk-[A-Za-z0-9_*-]{6,}/g, /\bAIza[0-9A-Za-z_\-*]{10,}/g];

/** Removes registered secrets and anything shaped like an API key. */
export function redact(text: string): string {
  let out = text;
  for (const s of secrets) out = out.split(s).join('[redacted]');
  for (const re of KEY_SHAPES) out = out.replace(re, '[redacted]');
  return out;
}
