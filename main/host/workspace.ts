// The engine's composition root: what one process opens once — the Store, the encoder, the settings file, the
// key store, the job manager, the allowed roots and the data paths — and hands to every call handler
// (main/host/calls). service.ts wraps a Workspace in the contract's validation; the CLI takes the price
// table's path from here too.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { writeAtomic as writeAtomicFile } from '../util/write-atomic.js';
import { SettingsSchema, type CallError, type EngineEvent, type KeyProvider, type PricesInfo, type Settings } from '../../contract/index.ts';
import { openConfiguredEncoder, type EncoderPreference } from '../embed/select.ts';
import { createBackend, type BackendSpec } from '../generate/backends.ts';
import { loadPriceTable, type PriceTable } from '../generate/cost.ts';
import { redact, registerSecret } from '../generate/errors.ts';
import type { LlmBackend } from '../generate/types.ts';
import type { Encoder } from '../model/encoder.ts';
import type { ExperimentStore } from '../store/experiments.ts';
import { Store } from '../store/store.ts';
import { canonicalPath, isInside } from '../util/paths.ts';
import { JobManager, messageOf } from './jobs.ts';
import { defaultModelsDir, resourcesDir, userDataDir } from './paths.ts';
import { OpenCoderError } from '../model/errors.ts';
import { allowedFoldersFileIn, allowProblem, loadAllowedFolders, rememberAllowedFolder } from './allowed-folders.ts';

export interface KeyStore {
  kind: 'keychain' | 'session';
  get(p: KeyProvider): string | undefined;
  set(p: KeyProvider, key: string | null): void;
}

export interface ServiceOptions {
  dbPath: string;
  mode: 'electron' | 'browser';
  allowedRoots?: string[];
  keys?: KeyStore;
  settingsFile?: string;
  /** Seed a newcomer's workspace: index the sample repository and run a small offline demo (default true). */
  demo?: boolean;
  pickFolder?: () => Promise<string | null>;
  env?: NodeJS.ProcessEnv;
  modelsDir?: string;
  /** The user data folder (settings, custom tasks); default paths.ts userDataDir(). */
  dataDir?: string;
  /**
   * Check every answer against its output schema (contract parseOutput) and answer a mismatch as an `engine`
   * error naming the call and the field. Off by default (the schemas are the contract; the check costs a walk of
   * each answer); the test suite turns it on with OPENCODER_CHECK_OUTPUTS=1 so every call a test makes is checked.
   */
  checkOutputs?: boolean;
}

export const DEFAULT_SETTINGS: Settings = {
  backend: { kind: 'offline' },
  sandbox: 'auto',
  encoder: 'auto',
  parallel: 2,
  pipeline: {},
};

/** The settings file in a user data folder. */
export function settingsFileIn(dataDir: string): string {
  return path.join(dataDir, 'settings.json');
}

/** The user's price table in a user data folder (the desktop engine's and the CLI's `prices.json`). */
export function pricesFileIn(dataDir: string): string {
  return path.join(dataDir, 'prices.json');
}

/** Keys kept in this process's memory only (browser mode; Electron passes a keychain-backed store). */
export function sessionKeyStore(): KeyStore {
  const keys = new Map<KeyProvider, string>();
  return {
    kind: 'session',
    get: (p) => keys.get(p),
    set: (p, key) => {
      if (key === null) keys.delete(p);
      else keys.set(p, key);
    },
  };
}

/** A failure that already is a CallError (anything else becomes `engine`). */
export class ServiceError extends OpenCoderError {
  constructor(readonly error: CallError) {
    super(error.code, error.message);
  }
}

export const fail = (code: CallError['code'], message: string, issues?: CallError['issues'], allow?: string): never => {
  throw new ServiceError({ code, message, ...(issues ? { issues } : {}), ...(allow ? { allow } : {}) });
};

/**
 * The folder to offer for allowing when `p` was refused: the folder itself, a file's folder, or for a path that does
 * not exist yet (an output folder) its nearest existing ancestor; or why that folder may not be allowed (the root, a system or secrets
 * folder, nothing there).
 */
export function folderToAllow(p: string): { folder: string } | { problem: string } {
  let dir = p;
  // A path not made yet (an output folder, a manifest to write): its nearest folder that exists.
  while (!fs.existsSync(dir) && path.dirname(dir) !== dir) dir = path.dirname(dir);
  if (fs.existsSync(dir) && !fs.statSync(dir).isDirectory()) dir = path.dirname(dir);
  const problem = allowProblem(dir);
  return problem === null ? { folder: canonicalPath(dir) } : { problem };
}

// ---- paths ------------------------------------------------------------------------------------------------

export { canonicalPath, isInside };

export function writeAtomic(file: string, content: string): void {
  writeAtomicFile(file, content, 0o600);
}

// ---- settings ---------------------------------------------------------------------------------------------

interface LoadedSettings {
  settings: Settings;
  notice: string | null;
  broken: boolean;
}

function loadSettings(file: string): LoadedSettings {
  const defaults = (notice: string | null, broken: boolean) => ({ settings: structuredClone(DEFAULT_SETTINGS), notice, broken });
  let raw: string;
  try {
    raw = fs.readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return defaults(null, false);
    return defaults(`Cannot read the settings file ${file} (${messageOf(err)}); using the defaults.`, false);
  }
  const keptAs = `Saving settings keeps a copy of it as ${path.basename(file)}.broken.`;
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch (err) {
    return defaults(`The settings file ${file} is not valid JSON (${messageOf(err)}); using the defaults. ${keptAs}`, true);
  }
  const parsed = SettingsSchema.safeParse(json);
  if (!parsed.success) {
    const why = parsed.error.issues.map((i) => `${i.path.join('.') || '(settings)'}: ${i.message}`).join('; ');
    return defaults(`The settings file ${file} is invalid (${why}); using the defaults. ${keptAs}`, true);
  }
  return { settings: parsed.data, notice: null, broken: false };
}

/** The engine's two heavy services, opened together and closed together (encoder first, then the store). */
export interface EngineCore {
  store: Store;
  encoder: Encoder;
  /** Why the encoder is not the preferred one, if it is not. */
  notice: string | null;
  /** What opening the database did that the user should hear of (--rebuild-db moved a damaged file aside), or null. */
  storeNotice: string | null;
  close(): Promise<void>;
}

export interface EngineCoreOptions {
  dbPath: string;
  /** Check the whole database; when it is damaged, move it aside and start a new one (the CLI's --rebuild-db). */
  rebuild?: boolean;
  /** Open the database read-only (a caller that only reads): never written, never migrated. */
  readonly?: boolean;
  encoder: EncoderPreference;
  modelsDir?: string;
  /**
   * When the preferred encoder cannot be opened, fall back to `auto` with a notice (the app: a settings choice
   * must not stop it starting) instead of failing (the CLI: the user asked for that encoder on this command).
   */
  fallback?: boolean;
}

/** Where every process composes the Store and the encoder: the app's workspace below and the CLI's commands. */
export async function openEngine(o: EngineCoreOptions): Promise<EngineCore> {
  const store = Store.open(o.dbPath, { rebuild: o.rebuild === true, readonly: o.readonly === true });
  try {
    const { encoder, notice } = await openEncoderFor(o.encoder, o.modelsDir ?? defaultModelsDir(), o.fallback === true);
    return {
      store,
      encoder,
      notice,
      storeNotice: store.notice,
      async close() {
        try {
          await encoder.dispose();
        } finally {
          store.close();
        }
      },
    };
  } catch (err) {
    store.close();
    throw err;
  }
}

/** The configured encoder; with `fallback`, the automatic choice (and a notice) when the preferred one fails. */
export async function openEncoderFor(
  prefer: EncoderPreference,
  modelsDir: string = defaultModelsDir(),
  fallback = false,
): Promise<{ encoder: Encoder; notice: string | null }> {
  try {
    const r = await openConfiguredEncoder({ prefer, modelsDir });
    return { encoder: r.encoder, notice: r.notice };
  } catch (err) {
    if (prefer === 'auto' || !fallback) throw err;
    const r = await openConfiguredEncoder({ prefer: 'auto', modelsDir });
    return { encoder: r.encoder, notice: `The encoder preference "${prefer}" could not be met (${messageOf(err)}); ${r.notice ?? `using ${r.encoder.name}`}` };
  }
}

// ---- the workspace ----------------------------------------------------------------------------------------

/** How a folder outside the allowed roots is allowed: the UI's action (Electron's picker does it too) or the CLI flag. */
export const ALLOW_HOW =
  'Allow its folder with "Allow this folder" here (the desktop app\'s folder picker allows the folder it opens), or start opencoder serve --allow DIR.';

interface Opened {
  store: Store;
  encoder: Encoder;
  encoderNotice: string | null;
  loaded: LoadedSettings;
  settingsFile: string;
  dataDir: string;
}

/** One process's engine: everything a call handler reads or changes, and the events it pushes. */
export class Workspace {
  readonly store: Store;
  readonly experiments: ExperimentStore;
  readonly encoder: Encoder;
  /** Why the encoder is not the preferred one, if it is not. */
  readonly encoderNotice: string | null;
  readonly jobs: JobManager;
  readonly mode: ServiceOptions['mode'];
  readonly pickFolder: ServiceOptions['pickFolder'];
  readonly env: NodeJS.ProcessEnv;
  readonly keys: KeyStore;
  readonly settingsFile: string;
  readonly dataDir: string;
  /** Where GGUF models (and UniXcoder) are looked for: the option, else paths.ts defaultModelsDir(). */
  readonly modelsDir: string;
  settings: Settings;
  /** Index runs in flight by repository root, one at a time per root (main/host/calls/indexing.ts). */
  readonly indexLocks = new Map<string, Promise<unknown>>();
  /** Index jobs by repository root, so a second request joins the running one. */
  readonly indexJobs = new Map<string, string>();
  /** The demo's preparation (main/host/calls/demo.ts), awaited on close. */
  demo: Promise<void> = Promise.resolve();
  closed = false;
  private readonly listeners = new Set<(e: EngineEvent) => void>();
  private readonly roots: string[] = [];
  /** Notices worth repeating to every new subscriber until resolved (a broken settings file). */
  private standingNotice: string | null;
  private settingsBroken: boolean;

  constructor(opts: ServiceOptions, opened: Opened) {
    this.store = opened.store;
    this.experiments = opened.store.experiments;
    this.encoder = opened.encoder;
    this.encoderNotice = opened.encoderNotice;
    this.jobs = new JobManager((e) => this.emit(e));
    this.mode = opts.mode;
    this.pickFolder = opts.pickFolder;
    this.env = opts.env ?? process.env;
    this.keys = opts.keys ?? sessionKeyStore();
    this.settingsFile = opened.settingsFile;
    this.dataDir = opened.dataDir;
    this.modelsDir = path.resolve(opts.modelsDir ?? defaultModelsDir());
    this.settings = opened.loaded.settings;
    this.standingNotice = opened.loaded.notice;
    this.settingsBroken = opened.loaded.broken;
    for (const r of [os.homedir(), resourcesDir(), opened.dataDir, ...(opts.allowedRoots ?? [])]) this.allowRoot(r);
    const remembered = loadAllowedFolders(this.allowedFoldersFile);
    for (const r of remembered.folders) this.allowRoot(r);
    this.standingNotice ??= remembered.notice;
  }

  /** Where the folders allowed from the UI are remembered (allowed-folders.ts). */
  get allowedFoldersFile(): string {
    return allowedFoldersFileIn(this.dataDir);
  }

  /**
   * Allows a folder from now on and remembers it (the UI's "Allow this folder", Electron's folder picker); refuses
   * the file system's root and the system and secrets folders, naming the folder and why.
   */
  allowFolder(field: string, dir: string): string {
    const problem = allowProblem(dir);
    if (problem) fail('forbidden-path', `Cannot allow ${problem}; choose the repository's own folder.`, [{ path: field, message: problem }]);
    const c = canonicalPath(dir);
    try {
      rememberAllowedFolder(this.allowedFoldersFile, c, writeAtomic);
    } catch (err) {
      fail('engine', `Cannot remember the allowed folder in ${this.allowedFoldersFile}: ${messageOf(err)}`);
    }
    this.allowRoot(c);
    return c;
  }

  // ---- events

  subscribe(listener: (e: EngineEvent) => void): () => void {
    this.listeners.add(listener);
    if (this.standingNotice) {
      try {
        listener({ type: 'notice', level: 'warning', message: this.standingNotice });
      } catch {
        /* a listener's failure is its own */
      }
    }
    return () => {
      this.listeners.delete(listener);
    };
  }

  emit(e: EngineEvent): void {
    for (const l of [...this.listeners]) {
      try {
        l(e);
      } catch {
        /* one broken listener must not stop the others */
      }
    }
  }

  // ---- allowed roots

  get allowedRoots(): readonly string[] {
    return [...this.roots];
  }

  allowRoot(dir: string): void {
    const c = canonicalPath(dir);
    if (!this.roots.includes(c)) this.roots.push(c);
  }

  /** The canonical path, or a forbidden-path failure naming the field when it lies outside every allowed root. */
  checkPath(field: string, p: string): string {
    const c = canonicalPath(p);
    if (!this.roots.some((r) => isInside(r, c))) {
      const via = c !== path.resolve(p) ? ` (it resolves to ${c})` : '';
      const offer = folderToAllow(c);
      const how = 'folder' in offer ? ALLOW_HOW : `Its folder cannot be allowed: ${offer.problem}.`;
      fail(
        'forbidden-path',
        `${field} ${p}${via} is outside the folders OpenCoder may open: ${this.roots.join(', ')}. ` + how,
        [{ path: field, message: `outside the allowed roots. ${how}` }],
        'folder' in offer ? offer.folder : undefined,
      );
    }
    return c;
  }

  // ---- settings, keys, prices

  saveSettings(next: Settings): void {
    if (this.settingsBroken && fs.existsSync(this.settingsFile)) {
      try {
        fs.copyFileSync(this.settingsFile, `${this.settingsFile}.broken`);
      } catch {
        /* best effort: the notice said where the copy would be */
      }
    }
    try {
      writeAtomic(this.settingsFile, JSON.stringify(next, null, 2) + '\n');
    } catch (err) {
      fail('engine', `Cannot save the settings to ${this.settingsFile}: ${messageOf(err)}`);
    }
    this.settings = next;
    this.settingsBroken = false;
    this.standingNotice = null;
  }

  /** A provider's key: the key store's, else the environment's. */
  key(p: KeyProvider): string | undefined {
    const stored = this.keys.get(p)?.trim();
    if (stored) return stored;
    const v = p === 'openai' ? this.env.OPENAI_API_KEY : (this.env.GEMINI_API_KEY ?? this.env.GOOGLE_API_KEY);
    return v?.trim() || undefined;
  }

  keyFlags(): { openai: boolean; gemini: boolean } {
    return { openai: !!this.key('openai'), gemini: !!this.key('gemini') };
  }

  /** The user's price table lives beside the settings (by default the CLI's prices.json). */
  get pricesFile(): string {
    return pricesFileIn(this.dataDir);
  }

  prices(): PriceTable {
    return loadPriceTable(this.pricesFile).table;
  }

  pricesInfo(): PricesInfo {
    const { table, source } = loadPriceTable(this.pricesFile);
    return { source, file: this.pricesFile, models: structuredClone(table.models) };
  }

  // ---- backends

  /** The backend a spec describes; keys from the key store or the environment, never logged. */
  backend(spec: BackendSpec, opts: { estimateOnly?: boolean } = {}): LlmBackend {
    const apiKeys: { openai?: string; gemini?: string } = {};
    for (const p of ['openai', 'gemini'] as const) {
      const k = this.key(p);
      if (k) {
        registerSecret(k);
        apiKeys[p] = k;
      }
    }
    // An estimate sends nothing: a missing key must not stop the user from seeing what a run would cost.
    if (opts.estimateOnly && (spec.kind === 'openai' || spec.kind === 'gemini') && !apiKeys[spec.kind]) apiKeys[spec.kind] = 'estimate-only-no-key';
    return createBackend(spec, this.env, {
      exchanges: this.store.exchanges,
      apiKeys,
      onRetry: (m) => this.emit({ type: 'notice', level: 'warning', message: redact(`retry: ${m}`) }),
      modelsDir: this.modelsDir,
    });
  }

  // ---- shutdown

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.jobs.close();
    await this.demo;
    for (const l of [...this.indexLocks.values()]) await l.catch(() => {});
    try {
      await this.encoder.dispose();
    } finally {
      this.store.close();
      this.listeners.clear();
    }
  }
}

/** Opens a process's workspace: the settings (defaults when missing or broken), the Store, then the encoder they prefer. */
export async function openWorkspace(opts: ServiceOptions): Promise<Workspace> {
  const dataDir = path.resolve(opts.dataDir ?? userDataDir());
  const settingsFile = path.resolve(opts.settingsFile ?? settingsFileIn(dataDir));
  const loaded = loadSettings(settingsFile);
  const core = await openEngine({ dbPath: opts.dbPath, encoder: loaded.settings.encoder, modelsDir: opts.modelsDir ?? defaultModelsDir(), fallback: true });
  return new Workspace(opts, { store: core.store, encoder: core.encoder, encoderNotice: core.notice, loaded, settingsFile, dataDir });
}
