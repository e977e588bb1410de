// Shared pieces of the command line: the command shape, common options, errors and Ctrl-C. main.ts loads this
// file for `--help` before any command, so it imports nothing heavy (the store is opened from read-store.ts).

import { setMaxListeners } from 'node:events';
import path from 'node:path';
import type { ParseArgsConfig } from 'node:util';
import { defaultDbPath } from '../paths.ts';
import { OpenCoderError } from '../../model/errors.ts';

export interface Io {
  out: (line: string) => void;
  err: (line: string) => void;
}

/** Options every command takes. */
export const COMMON = {
  db: { type: 'string' },
  // A folder (besides a manifest's own) its tasks' repositories may lie in; repeatable.
  allow: { type: 'string', multiple: true },
  json: { type: 'boolean', default: false },
  help: { type: 'boolean', short: 'h', default: false },
} as const satisfies ParseArgsConfig['options'];

/** What `--allow DIR` (repeatable) lets a manifest's tasks read. */
export function allowOf(values: Record<string, unknown>): string[] {
  return ((values.allow as string[] | undefined) ?? []).map((d) => path.resolve(d));
}

export class UsageError extends OpenCoderError {
  constructor(message: string) {
    super('invalid-input', message);
  }
}

export interface CommandResult {
  /** Human-readable lines for stdout (without --json). */
  text: string[];
  /** The document printed as the last line of stdout with --json. */
  json: unknown;
  /** Exit code; 0 when absent. */
  exit?: number;
}

/** What the registry knows of a command without loading it: its help and its flags (specs.ts). */
export interface CommandSpec {
  summary: string;
  usage: string;
  options: ParseArgsConfig['options'];
}

export interface Command extends CommandSpec {
  run(args: { values: Record<string, unknown>; positionals: string[] }, io: Io): Promise<CommandResult>;
}

export type SandboxMode = 'auto' | 'strong' | 'weak';

/** `--sandbox`, checked: auto, strong or weak. */
export function sandboxModeOf(values: Record<string, unknown>): SandboxMode {
  const mode = values.sandbox as string;
  if (mode !== 'auto' && mode !== 'strong' && mode !== 'weak') throw new UsageError(`--sandbox must be auto, strong or weak (got ${mode})`);
  return mode;
}

/**
 * Runs `fn` with a signal that Ctrl-C (SIGINT) aborts, saying `message` on stderr first; the handler is removed
 * when `fn` settles, so a second Ctrl-C after that stops the process as usual.
 */
export async function untilInterrupted<T>(io: Io, message: string, fn: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  // One run's signal is awaited by every reference check and candidate in flight at once (a manifest's worth):
  // many listeners is expected, not a leak, so Node's warning at 10 would only alarm.
  setMaxListeners(0, controller.signal);
  const onSigint = () => {
    io.err(message);
    controller.abort();
  };
  process.once('SIGINT', onSigint);
  try {
    return await fn(controller.signal);
  } finally {
    process.off('SIGINT', onSigint);
  }
}

export function dbPathOf(values: Record<string, unknown>): string {
  return path.resolve((values.db as string | undefined) ?? defaultDbPath());
}
