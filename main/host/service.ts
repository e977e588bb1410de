// The contract's implementation (contract): one engine per process, shared by every window (Electron IPC)
// or browser tab (main/host/server.ts). Each call is validated by its schema, then every path it names is
// checked against the allowed roots, then handled by its handler (main/host/calls) over the process's
// Workspace (workspace.ts); failures come back as typed CallErrors, never as throws. Long work (indexing,
// task runs, experiments) runs as jobs (jobs.ts) whose progress is pushed as events.

import { isCallName, parseCall, parseOutput, type CallError, type EngineEvent } from '../../contract/index.ts';
import { redact } from '../generate/errors.ts';
import { errorCodeOf } from '../model/errors.ts';
import { makeHandlers, type Handlers } from './calls/index.ts';
import { startDemo } from './calls/demo.ts';
import { startFirstRunDetection, stopDetection } from './calls/models.ts';
import { ManifestError } from '../model/manifest.ts';
import { fail, folderToAllow, openWorkspace, ServiceError, type ServiceOptions, type Workspace } from './workspace.ts';

export { DEFAULT_SETTINGS, sessionKeyStore, ServiceError, canonicalPath, isInside, type KeyStore, type ServiceOptions } from './workspace.ts';

export type CallResult = { ok: true; value: unknown } | { ok: false; error: CallError };

export interface EngineService {
  call(name: string, input: unknown): Promise<CallResult>;
  subscribe(listener: (e: EngineEvent) => void): () => void;
  allowRoot(dir: string): void;
  readonly allowedRoots: readonly string[];
  close(): Promise<void>;
}

class Engine implements EngineService {
  private readonly handlers: Handlers;

  constructor(
    private readonly ws: Workspace,
    private readonly checkOutputs: boolean,
  ) {
    this.handlers = makeHandlers(ws);
  }

  get allowedRoots(): readonly string[] {
    return this.ws.allowedRoots;
  }

  allowRoot(dir: string): void {
    this.ws.allowRoot(dir);
  }

  subscribe(listener: (e: EngineEvent) => void): () => void {
    return this.ws.subscribe(listener);
  }

  async call(name: string, input: unknown): Promise<CallResult> {
    if (!isCallName(name)) return { ok: false, error: { code: 'not-found', message: `unknown call ${JSON.stringify(String(name)).slice(0, 200)}` } };
    const parsed = parseCall(name, input);
    if (!parsed.ok) return parsed;
    try {
      if (this.ws.closed) fail('engine', 'the engine is closed (the app is shutting down)');
      this.checkPaths(parsed.value);
      const handler = this.handlers[name] as (x: unknown) => unknown;
      const value = await handler(parsed.value);
      if (this.checkOutputs) {
        const checked = parseOutput(name, value);
        if (!checked.ok) return checked;
      }
      return { ok: true, value };
    } catch (err) {
      return { ok: false, error: errorOf(name, err) };
    }
  }

  /** Every path a call's input names must lie inside the allowed roots. */
  private checkPaths(input: Record<string, unknown>): void {
    if (typeof input.manifest === 'string') this.ws.checkPath('manifest', input.manifest);
    if (typeof input.path === 'string') this.ws.checkPath('path', input.path);
    if (typeof input.samples === 'string') this.ws.checkPath('samples', input.samples);
    const custom = input.custom as { repo?: unknown } | undefined;
    if (custom && typeof custom.repo === 'string') this.ws.checkPath('custom.repo', custom.repo);
  }

  close(): Promise<void> {
    stopDetection(this.ws);
    return this.ws.close();
  }
}

/** A failure as the CallError the caller gets: the engine's own failures keep their code; secrets are redacted. */
function errorOf(name: string, err: unknown): CallError {
  if (err instanceof ServiceError) return { ...err.error, message: redact(err.error.message) };
  const message = err instanceof Error ? err.message || `${err.name} in ${name}` : `${name} failed: ${String(err)}`;
  const code = errorCodeOf(err);
  // A manifest whose task repository lies outside the allowed folders: offer that folder, as checkPath does.
  const offer = code === 'forbidden-path' && err instanceof ManifestError && err.refusedPath ? folderToAllow(err.refusedPath) : null;
  return { code, message: redact(message), ...(offer && 'folder' in offer ? { allow: offer.folder } : {}) };
}

export async function createEngineService(opts: ServiceOptions): Promise<EngineService> {
  const ws = await openWorkspace(opts);
  const engine = new Engine(ws, opts.checkOutputs ?? process.env.OPENCODER_CHECK_OUTPUTS === '1');
  startFirstRunDetection(ws);
  if (opts.demo !== false) setImmediate(() => startDemo(ws));
  return engine;
}
