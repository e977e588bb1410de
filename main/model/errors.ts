// What every failure the engine raises on purpose shares: a `code` from one small vocabulary, which the contract
// carries to the UI (CallError.code) and the CLI prints with --json. The subclasses say what failed and keep
// their own fields (the file, line, task or stage); the code says what the caller can do about it.

export const ERROR_CODES = ['unauthorized', 'invalid-input', 'forbidden-path', 'not-found', 'unsupported', 'cancelled', 'engine'] as const;

/**
 * - `invalid-input`: the request, a file or a setting is wrong; fixing it is up to the user.
 * - `not-found`: a named thing (run, task, repository, call) does not exist.
 * - `forbidden-path`: a path lies outside the folders the engine may open.
 * - `unsupported`: this machine or backend cannot do it (no sandbox, no repair).
 * - `cancelled`: the user stopped it; what was finished is kept.
 * - `unauthorized`: the browser-mode token is missing or wrong.
 * - `engine`: anything else: a fault of ours or of a service we called.
 */
export type ErrorCode = (typeof ERROR_CODES)[number];

export class OpenCoderError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
  }
}

/** The code of any failure: its own when it is one of ours, `engine` otherwise. */
export function errorCodeOf(err: unknown): ErrorCode {
  return err instanceof OpenCoderError ? err.code : 'engine';
}
