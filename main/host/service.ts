// The contract's implementation (contract): one engine per process, shared by every window (Electron IPC)
// or browser tab (main/host/server.ts). Each call is validated by its schema, then every path it names is
// checked against the allowed roots, then handled; failures come back as typed CallErrors, never as throws.
// Long work (indexing, task runs, experiments) runs as jobs (jobs.ts) whose progress is pushed as events.

import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  CONTRACT_VERSION,
  isCallName,
  parseCall,
  SettingsSchema,
  type AppInfo,
  type CallError,
  type CallName,
  type CallOutputs,
  type CostEstimateInfo,
  type EngineEvent,
  type JobInfo,
  type MethodInfo,
  type ParsedInput,
  type ReportFile,
  type RepoSummary,
  type RunListItem,
  type Settings,
  type PricesInfo,
  type Sources,
  type TaskSummary,
} from '../../contract/index.ts';
import type { Encoder } from '../model/encoder.ts';
import { openConfiguredEncoder } from '../embed/select.ts';
import { AnalysisError, buildReportModel, loadRun, reportComparisons, type LoadedRun } from '../experiment/analysis.ts';
import { readManifest, type Manifest, type Task } from '../benchmarks/manifest.ts';
import { estimateRun, resumableRun, resumeExperiment, selectTasks, startExperiment, type ExperimentContext, type StoredBackend } from '../experiment/orchestrate.ts';
import type { ReportModel } from '../model/report.ts';
import { renderCsv, renderHtml, renderJson, renderMarkdown, type CsvTable } from '../experiment/report.ts';
import type { TaskFailure, TaskResult } from '../model/results.ts';
import { appInfo, ExperimentError, type Progress } from '../experiment/runner.ts';
import { redact, registerSecret } from '../generate/errors.ts';
import { PriceTableSchema, type PriceTable } from '../generate/cost.ts';
import type { LlmBackend } from '../generate/types.ts';
import { officialCounts, passAtKOf, readSamples, SampleFormatError } from '../benchmarks/samples.ts';
import { runIndex } from '../index/indexer.ts';
import { checkRepositoryRoot } from '../index/walk.ts';
import type { PipelineConfig } from '../model/config.ts';
import { factorialConditions, LADDER, METHOD_SETS, METHODS, resolveConditions, type Condition } from '../pipeline/methods.ts';
import { makeConfig } from '../model/config.ts';
import { ExperimentStore } from '../store/experiments.ts';
import { Store } from '../store/store.ts';
import { detectSandbox } from '../validate/sandbox.ts';
import { valuesOfBackend } from './commands/experiment-commands.ts';
import { backendFromOptions, pricesOf } from './commands/generate-commands.ts';
import { JobError, JobManager, messageOf, type JobContext } from './jobs.ts';
import { defaultModelsDir, packageRoot, resourcesDir, sampleRepoPath, userDataDir } from './paths.ts';

export type Provider = 'openai' | 'gemini';

export interface KeyStore {
  kind: 'keychain' | 'session';
  get(p: Provider): string | undefined;
  set(p: Provider, key: string | null): void;
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
}

export type CallResult = { ok: true; value: unknown } | { ok: false; error: CallError };

export interface EngineService {
  call(name: string, input: unknown): Promise<CallResult>;
  subscribe(listener: (e: EngineEvent) => void): () => void;
  allowRoot(dir: string): void;
  readonly allowedRoots: readonly string[];
  close(): Promise<void>;
}

export const DEFAULT_SETTINGS: Settings = {
  backend: { kind: 'offline' },
  sandbox: 'auto',
  encoder: 'auto',
  parallel: 2,
  pipeline: {},
};

/** Keys kept in this process's memory only (browser mode; Electron passes a keychain-backed store). */
export function sessionKeyStore(): KeyStore {
  const keys = new Map<Provider, string>();
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
export class ServiceError extends Error {
  constructor(readonly error: CallError) {
    super(error.message);
    this.name = 'ServiceError';
  }
}

const fail = (code: CallError['code'], message: string, issues?: CallError['issues']): never => {
  throw new ServiceError({ code, message, ...(issues ? { issues } : {}) });
};

// ---- paths ------------------------------------------------------------------------------------------------

/** The absolute path with every symlink on its existing part resolved (a missing tail is kept as written). */
export function canonicalPath(p: string): string {
  const abs = path.resolve(p);
  let head = abs;
  const tail: string[] = [];
  for (;;) {
    try {
      return path.join(fs.realpathSync.native(head), ...tail.reverse());
    } catch {
      const parent = path.dirname(head);
      if (parent === head) return abs;
      tail.push(path.basename(head));
      head = parent;
    }
  }
}

export function isInside(root: string, p: string): boolean {
  const rel = path.relative(root, p);
  return rel === '' || (!rel.startsWith(`..${path.sep}`) && rel !== '..' && !path.isAbsolute(rel));
}

// ---- settings ---------------------------------------------------------------------------------------------

function loadSettings(file: string): { settings: Settings; notice: string | null; broken: boolean } {
  let raw: string;
  try {
    raw = fs.readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { settings: structuredClone(DEFAULT_SETTINGS), notice: null, broken: false };
    return { settings: structuredClone(DEFAULT_SETTINGS), notice: `Cannot read the settings file ${file} (${messageOf(err)}); using the defaults.`, broken: false };
  }
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch (err) {
    return { settings: structuredClone(DEFAULT_SETTINGS), notice: `The settings file ${file} is not valid JSON (${messageOf(err)}); using the defaults. Saving settings keeps a copy of it as ${path.basename(file)}.broken.`, broken: true };
  }
  const parsed = SettingsSchema.safeParse(json);
  if (!parsed.success) {
    const why = parsed.error.issues.map((i) => `${i.path.join('.') || '(settings)'}: ${i.message}`).join('; ');
    return { settings: structuredClone(DEFAULT_SETTINGS), notice: `The settings file ${file} is invalid (${why}); using the defaults. Saving settings keeps a copy of it as ${path.basename(file)}.broken.`, broken: true };
  }
  return { settings: parsed.data, notice: null, broken: false };
}

function writeAtomic(file: string, content: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, content, { mode: 0o600 });
  fs.renameSync(tmp, file);
}

// ---- the engine -------------------------------------------------------------------------------------------

type Handlers = { [K in CallName]: (input: ParsedInput<K>) => Promise<CallOutputs[K]> | CallOutputs[K] };

const REPORT_MIME = { html: 'text/html', md: 'text/markdown', json: 'application/json', csv: 'text/csv' } as const;
const CSV_ORDER: CsvTable[] = ['tasks', 'candidates', 'conditions', 'effects', 'comparisons', 'runs'];

class Engine implements EngineService {
  private readonly listeners = new Set<(e: EngineEvent) => void>();
  private readonly roots: string[] = [];
  private readonly jobs: JobManager;
  private readonly experiments: ExperimentStore;
  private readonly env: NodeJS.ProcessEnv;
  private readonly keys: KeyStore;
  private readonly settingsFile: string;
  private readonly dataDir: string;
  /** Notices worth repeating to every new subscriber until resolved (a broken settings file). */
  private standingNotice: string | null = null;
  private settingsBroken = false;
  private readonly indexLocks = new Map<string, Promise<unknown>>();
  /** Index jobs by repository root, so a second request joins the running one. */
  private readonly indexJobs = new Map<string, string>();
  private closed = false;
  private demo: Promise<void> = Promise.resolve();
  private readonly handlers: Handlers;
  settings: Settings;

  constructor(
    private readonly opts: ServiceOptions,
    readonly store: Store,
    readonly encoder: Encoder,
    private readonly encoderNotice: string | null,
    loaded: ReturnType<typeof loadSettings>,
    settingsFile: string,
    dataDir: string,
  ) {
    this.jobs = new JobManager((e) => this.emit(e));
    this.experiments = store.experiments;
    this.env = opts.env ?? process.env;
    this.keys = opts.keys ?? sessionKeyStore();
    this.settingsFile = settingsFile;
    this.dataDir = dataDir;
    this.settings = loaded.settings;
    this.standingNotice = loaded.notice;
    this.settingsBroken = loaded.broken;
    for (const r of [os.homedir(), resourcesDir(), dataDir, ...(opts.allowedRoots ?? [])]) this.allowRoot(r);
    this.handlers = this.makeHandlers();
  }

  get allowedRoots(): readonly string[] {
    return [...this.roots];
  }

  allowRoot(dir: string): void {
    const c = canonicalPath(dir);
    if (!this.roots.includes(c)) this.roots.push(c);
  }

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

  async call(name: string, input: unknown): Promise<CallResult> {
    if (!isCallName(name)) return { ok: false, error: { code: 'not-found', message: `unknown call ${JSON.stringify(String(name)).slice(0, 200)}` } };
    const parsed = parseCall(name, input);
    if (!parsed.ok) return parsed;
    try {
      if (this.closed) fail('engine', 'the engine is closed (the app is shutting down)');
      this.checkPaths(parsed.value as Record<string, unknown>);
      const handler = this.handlers[name] as (x: unknown) => unknown;
      const value = await handler(parsed.value);
      return { ok: true, value };
    } catch (err) {
      return { ok: false, error: this.errorOf(name, err) };
    }
  }

  private errorOf(name: string, err: unknown): CallError {
    if (err instanceof ServiceError) return { ...err.error, message: redact(err.error.message) };
    if (err instanceof JobError) return { code: err.code, message: err.message };
    if (err instanceof AnalysisError && /^No experiment run /.test(err.message)) return { code: 'not-found', message: redact(err.message) };
    const message = err instanceof Error ? err.message || `${err.name} in ${name}` : `${name} failed: ${String(err)}`;
    return { code: 'engine', message: redact(message) };
  }

  // ---- paths

  private checkPath(field: string, p: string): string {
    const c = canonicalPath(p);
    if (!this.roots.some((r) => isInside(r, c))) {
      const via = c !== path.resolve(p) ? ` (it resolves to ${c})` : '';
      fail(
        'forbidden-path',
        `${field} ${p}${via} is outside the folders OpenCoder may open: ${this.roots.join(', ')}. ` +
          (this.opts.mode === 'electron' ? 'Choose the folder with the folder picker.' : 'Start opencoder serve with --allow DIR to add one.'),
        [{ path: field, message: 'outside the allowed roots' }],
      );
    }
    return c;
  }

  private checkPaths(input: Record<string, unknown>): void {
    if (typeof input.manifest === 'string') this.checkPath('manifest', input.manifest);
    if (typeof input.path === 'string') this.checkPath('path', input.path);
    if (typeof input.samples === 'string') this.checkPath('samples', input.samples);
    const custom = input.custom as { repo?: unknown } | undefined;
    if (custom && typeof custom.repo === 'string') this.checkPath('custom.repo', custom.repo);
  }

  /** A manifest may name repositories anywhere: they must lie inside the roots too. */
  private checkTaskRepos(manifest: Manifest, tasks: Task[]): void {
    for (const repo of new Set(tasks.map((t) => t.repoPath))) this.checkPath(`repository of a task in ${manifest.file}:`, repo);
  }

  // ---- settings, keys, encoder

  private saveSettings(next: Settings): void {
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

  private key(p: Provider): string | undefined {
    const stored = this.keys.get(p)?.trim();
    if (stored) return stored;
    const v = p === 'openai' ? this.env.OPENAI_API_KEY : (this.env.GEMINI_API_KEY ?? this.env.GOOGLE_API_KEY);
    return v?.trim() || undefined;
  }

  private keyFlags(): { openai: boolean; gemini: boolean } {
    return { openai: !!this.key('openai'), gemini: !!this.key('gemini') };
  }

  // ---- backends, conditions, contexts

  private storedBackendFromSettings(): StoredBackend {
    const b = this.settings.backend;
    return { kind: b.kind, model: b.model ?? null, baseURL: b.baseURL ?? null, decompose: b.kind === 'offline' ? 'fallback' : 'llm', extra: {} };
  }

  /** The Settings backend, or the imported backend over a sample set when an experiment names one. */
  private storedBackendFor(input: { samples?: string | undefined }): StoredBackend {
    return input.samples ? { kind: 'imported', model: null, baseURL: null, decompose: 'fallback', extra: { samples: input.samples } } : this.storedBackendFromSettings();
  }

  private static readonly OFFLINE: StoredBackend = { kind: 'offline', model: null, baseURL: null, decompose: 'fallback', extra: {} };

  /** The backend a stored choice describes; keys from the key store or the environment, never logged. */
  private backendFor(stored: StoredBackend, opts: { estimateOnly?: boolean } = {}): LlmBackend {
    const apiKeys: { openai?: string; gemini?: string } = {};
    for (const p of ['openai', 'gemini'] as const) {
      const k = this.key(p);
      if (k) {
        registerSecret(k);
        apiKeys[p] = k;
      }
    }
    // An estimate sends nothing: a missing key must not stop the user from seeing what a run would cost.
    if (opts.estimateOnly && (stored.kind === 'openai' || stored.kind === 'gemini') && !apiKeys[stored.kind]) apiKeys[stored.kind] = 'estimate-only-no-key';
    const exchanges = this.store.exchanges;
    return backendFromOptions(valuesOfBackend(stored), exchanges, { env: this.env, apiKeys }, {
      out: () => {},
      err: (line) => this.emit({ type: 'notice', level: 'warning', message: redact(line) }),
    });
  }

  /** The user's price table lives beside the settings (by default the CLI's prices.json). */
  private get pricesFile(): string {
    return path.join(this.dataDir, 'prices.json');
  }

  private prices(): PriceTable {
    return pricesOf({ prices: this.pricesFile }).table;
  }

  private pricesInfo(): PricesInfo {
    const { table, source } = pricesOf({ prices: this.pricesFile });
    return { source, file: this.pricesFile, models: structuredClone(table.models) };
  }

  private resolveMethods(methods: string[]): Condition[] {
    try {
      return resolveConditions(methods);
    } catch (err) {
      return fail('invalid-input', messageOf(err), [{ path: 'methods', message: messageOf(err) }]);
    }
  }

  /** The Settings view's pipeline overrides (and an interactive run's evidence sources) applied to a condition. */
  private applyOverrides(cond: Condition, sources?: Sources): Condition {
    const o = this.settings.pipeline;
    const pick = <T extends object>(x: T) => Object.fromEntries(Object.entries(x).filter(([, v]) => v !== undefined)) as Partial<T>;
    const layer = {
      fusion: pick({ alpha: o.alpha, keepFraction: o.keepFraction, topK: o.topK }),
      generation: pick({ candidates: o.candidates, temperature: o.temperature }),
      // Repair rounds change only methods that repair: Baseline RAG stays a baseline.
      validation: cond.config.validation.repairRounds > 0 && o.repairRounds !== undefined ? { repairRounds: o.repairRounds } : {},
      retrieval: sources ? { sources: { ...sources } } : {},
    };
    const config: PipelineConfig = makeConfig(layer as Parameters<typeof makeConfig>[0], cond.config);
    const off = sources ? (['api', 'context', 'similar'] as const).filter((s) => !sources[s]) : [];
    return { ...cond, config, ...(off.length ? { description: `${cond.description} (evidence off: ${off.join(', ')})` } : {}) };
  }

  private conditionsFor(kind: 'run' | 'ablate' | 'ladder', methods: string[] | undefined): Condition[] {
    let conds: Condition[];
    if (kind === 'run') conds = this.resolveMethods(methods ?? [...METHOD_SETS.compare]);
    else if (kind === 'ladder') conds = LADDER;
    else {
      const baseId = methods?.[0] ?? 'opencoder';
      const base = METHODS[baseId];
      if (!base) fail('invalid-input', `the factorial's base method must be one of ${Object.keys(METHODS).join(', ')} (got ${baseId})`, [{ path: 'methods', message: 'not a method' }]);
      conds = factorialConditions(base);
    }
    return conds.map((c) => this.applyOverrides(c));
  }

  private async withRootLock<T>(root: string, fn: () => Promise<T>): Promise<T> {
    const prev = this.indexLocks.get(root) ?? Promise.resolve();
    const mine = prev.catch(() => {}).then(fn);
    const tail = mine.catch(() => {});
    this.indexLocks.set(root, tail);
    try {
      return await mine;
    } finally {
      if (this.indexLocks.get(root) === tail) this.indexLocks.delete(root);
    }
  }

  private async indexRoot(root: string, job: JobContext, phasePrefix = ''): Promise<number> {
    try {
      const stats = await this.withRootLock(root, () =>
        runIndex({ store: this.store, root, encoder: this.encoder, signal: job.signal }, (e) => {
          if (e.type === 'phase') job.progress({ phase: `${phasePrefix}${e.phase}`, done: 0, total: 0 });
          else if (e.type === 'progress') job.progress({ phase: `${phasePrefix}${e.phase}`, done: e.done, total: e.total, ...(e.current ? { message: e.current } : {}) });
        }),
      );
      if (stats.status !== 'completed') throw new Error(`indexing ${root} was stopped before it completed; what was indexed is kept`);
      return stats.repoId;
    } finally {
      this.emit({ type: 'repos-changed' });
    }
  }

  private context(job: JobContext, backend: LlmBackend, detail: ExperimentContext['detail'], onRun: (id: string) => void): ExperimentContext {
    return {
      store: this.store,
      encoder: this.encoder,
      backend,
      prices: this.prices(),
      packageRoot: packageRoot(),
      ensureIndexed: async (tasks) => {
        const ids = new Map<string, number>();
        for (const repo of new Set(tasks.map((t) => t.repoPath))) ids.set(repo, await this.indexRoot(repo, job, 'index '));
        return ids;
      },
      sandbox: { mode: this.settings.sandbox },
      parallel: this.settings.parallel,
      ...(detail ? { detail } : {}),
      signal: job.signal,
      onStart: (run) => {
        onRun(run.id);
        job.setResult({ runId: run.id });
        this.emit({ type: 'runs-changed' });
      },
      onProgress: (p: Progress) => job.progress({ phase: 'run', done: p.done, total: p.total, etaMs: p.etaMs, spentUsd: p.spentUsd, ...(p.last ? { message: lastLine(p.last) } : {}) }),
    };
  }

  /** An experiment as a job: starts the run, or (job.resume, experiment.resume) continues the stored one. */
  private startExperimentJob(
    jobKind: 'task' | 'experiment',
    title: string,
    plan: { kind: 'run' | 'ablate' | 'ladder'; manifest: Manifest; tasks: Task[]; conditions: Condition[]; stored: StoredBackend; detail?: 'full' } | { resume: string },
  ): JobInfo {
    let runId: string | null = 'resume' in plan ? plan.resume : null;
    return this.jobs.start(
      jobKind,
      title,
      async (job) => {
        const stored = runId ? (resumableRun(this.store, runId).backend as StoredBackend) : (plan as { stored: StoredBackend }).stored;
        const backend = this.backendFor(stored);
        const detail = 'resume' in plan ? undefined : plan.detail;
        const ctx = this.context(job, backend, detail, (id) => {
          runId = id;
        });
        try {
          const outcome =
            runId !== null
              ? await resumeExperiment(ctx, runId)
              : await (() => {
                  const p = plan as Exclude<typeof plan, { resume: string }>;
                  return startExperiment(ctx, {
                    kind: p.kind,
                    manifest: p.manifest,
                    tasks: p.tasks,
                    conditions: p.conditions,
                    storedBackend: p.stored,
                    options: { parallel: this.settings.parallel, sandbox: this.settings.sandbox, source: jobKind === 'task' ? 'desktop task' : 'desktop experiment' },
                  });
                })();
          return { runId: outcome.runId };
        } finally {
          // A run stopped by an error before the runner finished it would read as running for as long as this
          // process lives: mark it cancelled so that it can be resumed.
          if (runId) {
            try {
              if (this.experiments.get(runId)?.status === 'running') this.experiments.finish(runId, 'cancelled');
            } catch {
              /* the store may be what failed */
            }
          }
          await backend.dispose?.().catch(() => {});
          this.emit({ type: 'runs-changed' });
        }
      },
      { resumable: true },
    );
  }

  private startIndexJob(root: string): JobInfo {
    const running = this.indexJobs.get(root);
    if (running) {
      const info = this.jobs.get(running);
      if (info && info.state === 'running') return info;
    }
    const job = this.jobs.start('index', `Index ${path.basename(root)} (${root})`, async (ctx) => ({ repoId: await this.indexRoot(root, ctx) }), { pausable: true, resumable: true });
    this.indexJobs.set(root, job.id);
    return job;
  }

  private loadRuns(ids: string[]): LoadedRun[] {
    return ids.map((id) => {
      try {
        return loadRun(this.experiments, id);
      } catch (err) {
        if (err instanceof AnalysisError) fail('not-found', err.message);
        throw err;
      }
    });
  }

  private model(ids: string[]): ReportModel {
    const loaded = this.loadRuns(ids);
    const info = appInfo(packageRoot());
    return buildReportModel(loaded, { tool: { name: info.name, version: info.version }, comparisons: reportComparisons(loaded) });
  }

  private customManifest(custom: NonNullable<ParsedInput<'task.run'>['custom']>): Manifest {
    const repo = canonicalPath(custom.repo);
    if (!fs.existsSync(path.join(repo, custom.file))) {
      fail('invalid-input', `custom.file ${custom.file} does not exist in ${repo}`, [{ path: 'custom.file', message: `not found in ${repo}` }]);
    }
    const record = {
      id: `custom/${custom.qualname}`,
      repo,
      file: custom.file.split(path.sep).join('/'),
      qualname: custom.qualname,
      requirement: custom.requirement,
      signature: custom.signature,
      test_command: custom.test_command,
      source: { benchmark: 'custom', createdIn: 'OpenCoder desktop' },
    };
    const line = JSON.stringify(record) + '\n';
    // Named by content: the same task written twice is the same manifest, so its runs pair and resume.
    const file = path.join(this.dataDir, 'custom-tasks', `${createHash('sha256').update(line).digest('hex').slice(0, 16)}.jsonl`);
    if (!fs.existsSync(file)) writeAtomic(file, line);
    return readManifest(file);
  }

  // ---- calls

  private makeHandlers(): Handlers {
    return {
      'app.info': async (): Promise<AppInfo> => {
        let sandbox: string;
        try {
          sandbox = (await detectSandbox({ mode: this.settings.sandbox })).label;
        } catch (err) {
          sandbox = `unavailable: ${messageOf(err)}`;
        }
        return {
          contract: CONTRACT_VERSION,
          version: appInfo(packageRoot()).version,
          mode: this.opts.mode,
          dbPath: this.store.path,
          encoder: { name: this.encoder.name, notice: this.encoderNotice },
          sandbox,
          sampleRepo: sampleRepoPath(),
          sampleManifest: path.join(sampleRepoPath(), 'tasks.jsonl'),
          allowedRoots: [...this.roots],
          keys: this.keyFlags(),
          keyStorage: this.keys.kind,
          folderPicker: !!this.opts.pickFolder,
        };
      },
      'settings.get': () => structuredClone(this.settings),
      'settings.set': (patch) => {
        const next = SettingsSchema.parse({ ...this.settings, ...patch });
        const encoderChanged = next.encoder !== this.settings.encoder;
        this.saveSettings(next);
        if (encoderChanged) this.emit({ type: 'notice', level: 'info', message: `The encoder preference (${next.encoder}) takes effect the next time OpenCoder starts; ${this.encoder.name} stays in use until then.` });
        return structuredClone(this.settings);
      },
      'prices.get': () => this.pricesInfo(),
      'prices.set': ({ models }) => {
        const table = PriceTableSchema.parse({ version: 1, currency: 'USD', models });
        const file = this.pricesFile;
        fs.mkdirSync(path.dirname(file), { recursive: true });
        fs.writeFileSync(file, JSON.stringify(table, null, 2) + '\n');
        return this.pricesInfo();
      },
      'keys.set': ({ provider, key }) => {
        const k = key?.trim() || null;
        if (k) registerSecret(k);
        this.keys.set(provider, k);
        return this.keyFlags();
      },
      'repo.pick': async () => {
        if (!this.opts.pickFolder) return { path: null, reason: 'Browser mode has no native folder picker: type or paste the folder path (it must lie inside the allowed folders).' };
        const picked = await this.opts.pickFolder();
        if (!picked) return { path: null, reason: 'No folder was chosen.' };
        this.allowRoot(picked);
        return { path: canonicalPath(picked) };
      },
      'repo.list': (): RepoSummary[] =>
        this.store.listRepositories().map((r) => {
          const s = this.store.stats(r.id);
          return {
            id: r.id,
            root: r.root,
            name: r.name,
            lastIndexedAt: r.last_indexed_at,
            files: s.files.indexed + s.files.partial,
            units: s.units,
            chunks: s.chunks,
            apiEntries: s.apiEntries,
            embedded: s.embedded.unit + s.embedded.chunk + s.embedded.api,
            encoder: s.encoder?.name ?? null,
            skipped: s.skipped,
          };
        }),
      'repo.index': async ({ path: p }) => {
        const root = await checkRepositoryRoot(p);
        this.checkPath('path', root);
        return { jobId: this.startIndexJob(root).id };
      },
      'repo.skipped': ({ repoId, limit }) => {
        if (!this.store.getRepository(repoId)) fail('not-found', `no repository ${repoId} in ${this.store.path}`);
        return this.store
          .listSkips(repoId)
          .slice(0, limit)
          .map((s) => ({ path: s.path, reason: s.reason, detail: s.detail ?? null }));
      },
      'job.list': () => this.jobs.list(),
      'job.cancel': ({ jobId }) => this.jobs.cancel(jobId),
      'job.pause': ({ jobId }) => this.jobs.pause(jobId),
      'job.resume': ({ jobId }) => this.jobs.resume(jobId),
      'methods.list': () => {
        const info = (c: Condition): MethodInfo => ({ id: c.id, label: c.label, family: c.family, description: c.description });
        return { methods: Object.values(METHODS).map(info), ladder: LADDER.map(info), factorial: factorialConditions().map(info) };
      },
      'tasks.list': ({ manifest }) => {
        const m = readManifest(manifest);
        const tasks: TaskSummary[] = m.tasks.map((t) => ({
          id: t.id,
          file: t.file,
          qualname: t.qualname,
          requirement: t.requirement,
          signature: t.signature,
          shape: t.check_template !== undefined ? 'check-template' : 'repository',
          hasReference: !!t.reference,
        }));
        return { manifest: m.file, hash: m.hash, tasks };
      },
      'task.run': (input) => {
        let manifest: Manifest;
        let task: Task;
        if (input.custom) {
          manifest = this.customManifest(input.custom);
          task = manifest.tasks[0]!;
        } else {
          manifest = readManifest(input.manifest!);
          const found = manifest.tasks.find((t) => t.id === input.taskId);
          if (!found) fail('not-found', `no task ${input.taskId} in ${manifest.file} (${manifest.tasks.length} tasks)`);
          task = found!;
        }
        this.checkTaskRepos(manifest, [task]);
        const conditions = this.resolveMethods(input.methods).map((c) => this.applyOverrides(c, input.sources));
        const stored = this.storedBackendFromSettings();
        void this.backendFor(stored).dispose?.(); // fails now, not in the job, when a key is missing
        const job = this.startExperimentJob('task', `${task.id} — ${conditions.map((c) => c.id).join(', ')}`, {
          kind: 'run',
          manifest,
          tasks: [task],
          conditions,
          stored,
          detail: 'full',
        });
        return { jobId: job.id };
      },
      'experiment.estimate': (input): CostEstimateInfo => {
        const { tasks } = this.plannedTasks(input);
        const conditions = this.conditionsFor(input.kind, input.methods);
        const stored = this.storedBackendFor(input);
        const backend = this.backendFor(stored, { estimateOnly: true });
        try {
          const est = estimateRun(tasks, conditions, backend, this.prices(), { llmDecomposition: stored.decompose === 'llm' });
          return {
            calls: est.calls,
            inputTokens: est.inputTokens,
            outputTokensExpected: est.outputTokensExpected,
            usdExpected: est.usdExpected,
            usdMax: est.usdMax,
            note: est.note,
            assumptions: est.assumptions,
          };
        } finally {
          void backend.dispose?.();
        }
      },
      'experiment.start': (input) => {
        const { manifest, tasks } = this.plannedTasks(input);
        const conditions = this.conditionsFor(input.kind, input.methods);
        const stored = this.storedBackendFor(input);
        void this.backendFor(stored).dispose?.();
        const title = `${input.kind === 'run' ? 'Run' : input.kind === 'ladder' ? 'Ladder' : 'Ablation'}: ${tasks.length} task${tasks.length === 1 ? '' : 's'} × ${conditions.length} conditions (${path.basename(manifest.file)})`;
        return { jobId: this.startExperimentJob('experiment', title, { kind: input.kind, manifest, tasks, conditions, stored }).id };
      },
      'experiment.resume': ({ runId }) => {
        const run = resumableRun(this.store, runId);
        if (run.state === 'done') fail('invalid-input', `run ${runId} is done; there is nothing to resume`, [{ path: 'runId', message: 'run is done' }]);
        void this.backendFor(run.backend).dispose?.();
        return { jobId: this.startExperimentJob('experiment', `Resume ${runId}`, { resume: runId }).id };
      },
      'experiment.list': (): RunListItem[] =>
        this.experiments.list(1000).map((r) => {
          const prov = r.provenance as { backend?: { label?: string } } | null;
          const backend = r.backend as Partial<StoredBackend> | null;
          return {
            id: r.id,
            kind: r.kind,
            state: r.state,
            createdAt: r.createdAt,
            manifestFile: r.manifestFile,
            tasks: r.taskIds.length,
            conditions: (r.conditions as { id: string }[]).map((c) => c.id),
            results: r.results,
            errors: r.errors,
            backend: prov?.backend?.label ?? ([backend?.kind, backend?.model].filter(Boolean).join(':') || 'unknown'),
          };
        }),
      'experiment.model': ({ runIds }) => this.model(runIds),
      'experiment.result': ({ runId, taskId, condition }): TaskResult => {
        if (!this.experiments.get(runId)) fail('not-found', `no experiment run ${runId} in ${this.store.path}`);
        const r = this.experiments.result<TaskResult | TaskFailure>(runId, taskId, condition);
        if (!r) fail('not-found', `run ${runId} has no result for task ${taskId} under ${condition} (yet)`);
        if (r!.status === 'error') {
          const f = r!.result as TaskFailure;
          fail('engine', `task ${taskId} under ${condition} failed in run ${runId} at ${f.stage}: ${f.error}`);
        }
        return r!.result as TaskResult;
      },
      'samples.passk': ({ path: input, format, ks, kOverN }) => {
        try {
          const set = readSamples(input, { format });
          const report = passAtKOf(officialCounts(set.tasks), [...new Set(ks)].sort((a, b) => a - b), kOverN);
          return { path: set.source, format: set.format, ...report };
        } catch (err) {
          if (err instanceof SampleFormatError || err instanceof RangeError) fail('invalid-input', messageOf(err), [{ path: 'path', message: messageOf(err) }]);
          throw err;
        }
      },
      'report.render': ({ runIds, format }) => {
        const model = this.model(runIds);
        const base = `opencoder-${runIds.join('_vs_')}`.replace(/[^A-Za-z0-9._-]/g, '_');
        const files: ReportFile[] = [];
        if (format === 'html') files.push({ name: `${base}.html`, mime: REPORT_MIME.html, content: renderHtml(model) });
        else if (format === 'md') files.push({ name: `${base}.md`, mime: REPORT_MIME.md, content: renderMarkdown(model) });
        else if (format === 'json') files.push({ name: `${base}.json`, mime: REPORT_MIME.json, content: renderJson(model) });
        else {
          const tables = renderCsv(model);
          for (const t of CSV_ORDER) files.push({ name: t === 'tasks' ? `${base}.csv` : `${base}.${t}.csv`, mime: REPORT_MIME.csv, content: tables[t] });
        }
        return { files };
      },
    };
  }

  private plannedTasks(input: { manifest: string; taskIds?: string[] | undefined; limit?: number | undefined }): { manifest: Manifest; tasks: Task[] } {
    const manifest = readManifest(input.manifest);
    let tasks: Task[];
    try {
      tasks = selectTasks(manifest, input.taskIds ?? null, input.limit ?? null);
    } catch (err) {
      if (err instanceof ExperimentError) fail('invalid-input', err.message, [{ path: input.taskIds ? 'taskIds' : 'manifest', message: err.message }]);
      throw err;
    }
    this.checkTaskRepos(manifest, tasks);
    return { manifest, tasks };
  }

  // ---- demo

  /** A newcomer's workspace: the sample repository indexed and, when the store has no runs, a small offline demo. */
  startDemo(): void {
    this.demo = (async () => {
      const root = await checkRepositoryRoot(sampleRepoPath());
      const repo = this.store.getRepository(root);
      if (!repo?.last_indexed_at) {
        const job = this.startIndexJob(root);
        const end = await this.jobs.wait(job.id);
        if (end.state !== 'done' || this.closed) return;
      }
      if (this.experiments.list(1).length || this.closed) return;
      const manifest = readManifest(path.join(sampleRepoPath(), 'tasks.jsonl'));
      const tasks = manifest.tasks.slice(0, 3);
      const run = this.startExperimentJob('experiment', `Demo: ${METHOD_SETS.compare.length} methods on ${tasks.length} sample tasks (offline)`, {
        kind: 'run',
        manifest,
        tasks,
        conditions: this.resolveMethods([...METHOD_SETS.compare]),
        stored: Engine.OFFLINE,
      });
      const ablate = this.startExperimentJob('experiment', `Demo: evidence-source factorial on ${tasks.length} sample tasks (offline)`, {
        kind: 'ablate',
        manifest,
        tasks,
        conditions: factorialConditions(),
        stored: Engine.OFFLINE,
      });
      await Promise.all([this.jobs.wait(run.id), this.jobs.wait(ablate.id)]);
    })().catch((err) => {
      if (!this.closed) this.emit({ type: 'notice', level: 'error', message: `The demo workspace could not be prepared: ${redact(messageOf(err))}` });
    });
  }

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

function lastLine(last: NonNullable<Progress['last']>): string {
  return `${last.taskId} / ${last.condition}: ${last.ok ? (last.correct ? 'correct' : 'wrong') : `error: ${(last.error ?? '').slice(0, 200)}`}`;
}

async function openEncoderFor(prefer: Settings['encoder'], modelsDir: string): Promise<{ encoder: Encoder; notice: string | null }> {
  try {
    const r = await openConfiguredEncoder({ prefer, modelsDir });
    return { encoder: r.encoder, notice: r.notice };
  } catch (err) {
    if (prefer === 'auto') throw err;
    const r = await openConfiguredEncoder({ prefer: 'auto', modelsDir });
    return { encoder: r.encoder, notice: `The encoder preference "${prefer}" could not be met (${messageOf(err)}); ${r.notice ?? `using ${r.encoder.name}`}` };
  }
}

export async function createEngineService(opts: ServiceOptions): Promise<EngineService> {
  const dataDir = path.resolve(opts.dataDir ?? userDataDir());
  const settingsFile = path.resolve(opts.settingsFile ?? path.join(dataDir, 'settings.json'));
  const loaded = loadSettings(settingsFile);
  const store = Store.open(opts.dbPath);
  let opened: { encoder: Encoder; notice: string | null };
  try {
    opened = await openEncoderFor(loaded.settings.encoder, opts.modelsDir ?? defaultModelsDir());
  } catch (err) {
    store.close();
    throw err;
  }
  const engine = new Engine(opts, store, opened.encoder, opened.notice, loaded, settingsFile, dataDir);
  if (opts.demo !== false) setImmediate(() => engine.startDemo());
  return engine;
}
