// The validator: runs candidates against their task's tests in the sandbox, a pool of them in
// parallel, and turns what the harness reports into verdicts. Identical candidates of a task are
// validated once; a task's plan (repository listing, facts about the code around the target) is
// computed once and reused for every candidate.

import { createHash, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Task } from '../model/task.ts';
import { DEFAULT_CONFIG, type PipelineConfig } from '../model/config.ts';
import { abortError, Pool } from './pool.ts';
import {
  DEFAULT_LIMITS,
  detectSandbox,
  HARNESS_DIR,
  newNonce,
  runSandboxed,
  runSandboxedPair,
  SandboxUnavailableError,
  type SandboxOptions,
  type SandboxRunResult,
  type SandboxRunSpec,
  CANDIDATE_GID,
  SANDBOX_GID,
  splitsUids,
} from './sandbox.ts';
import type { Limits, SandboxInfo, StaticFinding, Verdict, VerdictIsolation, VerdictUse } from '../model/verdict.ts';
import { emptyVerdictUse } from '../model/verdict.ts';
import { processTempDir, removeTree } from './cleanup.ts';
import { WarmServers } from './warm.ts';
import { BLOCKING, buildVerdict, readChannel } from './verdict-report.ts';
import {
  listRepository,
  planTask,
  snapshotRepository,
  TaskError,
  testPaths,
  warmImports,
  withoutPaths,
  type IsolationPlan,
  type RepoListing,
  type TaskPlan,
} from './task-plan.ts';

export interface ValidatorOptions {
  /** Time limits (floor, ceiling, factor); the rest of PipelineConfig.validation is the pipeline's. */
  validation?: Partial<PipelineConfig['validation']>;
  sandbox?: SandboxOptions;
  /** Parallel sandboxed runs (default: the number of CPU cores). */
  concurrency?: number;
  limits?: Partial<Limits>;
  /** Where weak-mode work folders go (default: the OS temp folder). */
  workRoot?: string;
  /** Verdicts kept for identical candidates (default 4096). */
  cacheSize?: number;
  /** Scope and import analysis (syntax and target checks always run). Default true. */
  staticChecks?: boolean;
  /**
   * Where reference checks are kept between validators (keyed by task; the experiment store keys
   * them by manifest hash too). Without one they are kept for this validator's life only.
   */
  expectations?: ReferenceCheckStore;
  /** A run that ends this close to its time limit (a share of it) counts as timing-dependent and is rerun. Default 0.2. */
  flakyMargin?: number;
  /**
   * Verdicts shared beyond this process (queue workers share them through Redis): a candidate already judged
   * elsewhere for the same files, task, limit and expectations is not run again, as a local run reuses its own.
   */
  sharedVerdicts?: SharedVerdictStore;
  /**
   * Where verdicts are decided. 'auto' (default): isolated (tests and candidate in two processes, only data
   * between them) wherever the task's reference passes the same tests that way as in-process, else in-process;
   * isolated for a task without a reference. 'isolated' or 'in-process' decides it for every task.
   */
  isolation?: 'auto' | VerdictIsolation;
  /**
   * Strong sandbox: fork each run from a warm server per task (true, the default; OPENCODER_WARM=0 turns it off) or
   * start every run cold. Isolation is the same either way; verdicts made warm say so in their sandbox label.
   */
  warm?: boolean;
}

/** Appended to the sandbox label of a verdict whose run was forked from a warm server. */
export const WARM_LABEL = '; forked per run from a warm server (own user, mount, PID, IPC, UTS and network namespaces, fresh tmpfs work folders)';

export interface SharedVerdictStore {
  /** What names the task's files wherever they lie (a repository bundle's hash); null: do not share this task's. */
  scope(task: Task): string | null;
  /** The verdict kept under key; `refused` when one is there that cannot be trusted (its seal does not open). */
  get(key: string): Promise<{ verdict: Verdict } | { refused: string } | null>;
  put(key: string, verdict: Verdict): Promise<void>;
}

// Within 20 % of the limit a slower machine (or a busier one) could have turned the verdict.
const FLAKY_MARGIN = 0.2;

/** What the reference's own run established: whether it passes, and the tests it passed (which every candidate must pass). */
export interface ReferenceCheck {
  passes: boolean;
  /** The tests the reference passed, in run order. */
  tests: string[];
  reason: string;
  /** Hash of what the check depends on (plan and reference): a stored check with another is stale. */
  key: string;
  /** Where this task's candidates are validated: isolated where the reference passes the same tests that way as in-process. */
  isolation: VerdictIsolation;
  /** Why (the two runs' outcomes when they differ). */
  isolationReason: string;
  /** Per test, the control-flow exception classes the reference raised into it (absent in checks stored before). */
  controlFlow?: Record<string, string[]>;
}

export interface ReferenceCheckStore {
  get(taskId: string, key: string): ReferenceCheck | null;
  put(taskId: string, check: ReferenceCheck): void;
}

export interface ValidateOptions {
  signal?: AbortSignal;
  /** Overrides the task's calibrated time limit. */
  timeoutMs?: number;
  /** Overrides where the verdict is decided (the validator's `isolation`, or the task's reference check). */
  isolation?: VerdictIsolation;
  /** Judge it again: no verdict kept for the same code is reused (mining's second reference run). */
  fresh?: boolean;
  /** One run, even when the outcome may be the clock's (mining's mutants, where a timeout is a kill either way). */
  once?: boolean;
}

export interface StaticReport {
  findings: StaticFinding[];
  blocking: boolean;
}

/** How one candidate is run: its time limit (when overridden) and where its verdict is decided. */
interface RunHow {
  timeoutMs: number | undefined;
  isolation: VerdictIsolation;
  once?: boolean;
  fresh?: boolean;
}

interface Shared {
  promise: Promise<Verdict>;
  controller: AbortController;
  waiters: number;
}

/**
 * What the validator's own code is: the harness files the sandbox runs, with a version of the engine's side of the
 * protocol. Part of every verdict key, so a verdict shared through Redis by another version of the validator (or
 * kept from before a harness change) is never taken for this one's.
 */
const ENGINE_PROTOCOL = 'validator-2';
let validatorVersionMemo: string | null = null;
export function validatorVersion(): string {
  if (validatorVersionMemo === null) {
    const h = createHash('sha256').update(ENGINE_PROTOCOL);
    for (const f of fs
      .readdirSync(HARNESS_DIR)
      .filter((n) => n.endsWith('.py'))
      .sort()) {
      h.update(`\0${f}\0`).update(fs.readFileSync(path.join(HARNESS_DIR, f)));
    }
    validatorVersionMemo = h.digest('hex').slice(0, 32);
  }
  return validatorVersionMemo;
}

/**
 * The key of one candidate's verdict. The code goes in as its exact bytes: no normalisation is proven to keep a
 * program's behaviour (whitespace inside a string literal is data, and comments, docstrings and line numbers are
 * visible to code that reads its own source), so two candidates share a verdict only when they are the same text.
 */
function verdictKey(
  parts: { scope: string; plan: string; staticOnly: boolean; timeoutMs: number | undefined; expected: string; isolation: string; sandbox: string },
  code: string,
): string {
  return createHash('sha256')
    .update(
      JSON.stringify([
        validatorVersion(),
        parts.scope,
        parts.plan,
        parts.staticOnly ? 's' : 'r',
        parts.timeoutMs ?? null,
        parts.expected,
        parts.isolation,
        parts.sandbox,
      ]),
    )
    .update('\0')
    .update(code, 'utf8')
    .digest('hex');
}

export class Validator {
  readonly pool: Pool;
  readonly validation: PipelineConfig['validation'];
  readonly limits: Limits;
  private readonly plans = new Map<string, Promise<TaskPlan>>();
  private readonly repos = new Map<string, RepoListing>();
  private readonly verdicts = new Map<string, Shared>();
  private readonly snapshots = new Map<string, RepoListing>();
  private readonly referenceChecks = new Map<string, Promise<ReferenceCheck>>();
  private maskDir: string | null = null;
  private readonly warm: WarmServers | null;
  /** This validator's verdicts so far: run, reused for identical candidates, shared, refused (model/verdict.ts). */
  readonly use: VerdictUse = emptyVerdictUse();
  /** Names this validator among others (a queue worker's per run) in the counts a run adds up. */
  readonly id = randomUUID();
  /** What a verdict depends on of the sandbox: its mode and what it gives (the label says both) and the default interpreter. */
  private readonly sandboxKey: string;

  private constructor(
    readonly sandbox: SandboxInfo,
    private readonly opts: ValidatorOptions,
  ) {
    this.validation = { ...DEFAULT_CONFIG.validation, ...opts.validation };
    this.sandboxKey = JSON.stringify([sandbox.strength, sandbox.label, sandbox.tools.python]);
    this.limits = { ...DEFAULT_LIMITS, ...opts.limits };
    this.pool = new Pool(Math.max(1, Math.floor(opts.concurrency ?? os.availableParallelism())));
    const warm = opts.warm ?? process.env.OPENCODER_WARM !== '0';
    this.warm = warm && sandbox.strength === 'strong' ? new WarmServers(sandbox) : null;
  }

  /** Probes the sandbox (throws SandboxUnavailableError when `sandbox.mode` is 'strong' and it is missing). */
  static async create(opts: ValidatorOptions = {}): Promise<Validator> {
    const info = await detectSandbox(opts.sandbox);
    if (info.uid !== null) {
      // Snapshots, the harness copy and weak-mode work folders live there; the dropped uid must reach them.
      assertTraversable(os.tmpdir(), info.uid);
      if (opts.workRoot) assertTraversable(opts.workRoot, info.uid);
    }
    return new Validator(info, opts);
  }

  /** Removes the repository snapshots this validator made (a later call makes them again). */
  close(): void {
    this.warm?.close();
    for (const s of this.snapshots.values()) {
      removeTree(s.root);
      liveSnapshots.delete(s.root);
    }
    if (this.maskDir) {
      removeTree(this.maskDir);
      liveSnapshots.delete(this.maskDir);
      this.maskDir = null;
    }
    this.snapshots.clear();
    this.plans.clear();
  }

  /** The task's plan and facts, computed on first use. Throws TaskError for an unusable task. */
  prepare(task: Task): Promise<TaskPlan> {
    const key = planKey(task);
    let p = this.plans.get(key);
    if (!p) {
      p = this.makePlan(task);
      this.plans.set(key, p);
      p.catch(() => this.plans.delete(key));
    }
    return p;
  }

  private async makePlan(task: Task): Promise<TaskPlan> {
    const plan = planTask(task, this.validation, (root) => {
      let l = this.repos.get(root);
      if (!l) {
        l = listRepository(root, task.id);
        this.repos.set(root, l);
      }
      return l;
    });
    // Always a snapshot: it leaves out credentials and task manifests (which hold the references), which the original
    // bound at /base would show a candidate; as root it is also what the dropped uid can read.
    if (plan.repo && process.platform !== 'win32') plan.repo = this.snapshot(plan.repo);
    if (plan.python && this.sandbox.uid !== null) assertTraversable(plan.python, this.sandbox.uid, task.id);
    const run = await this.pool.run(() => this.runHarness(plan, { mode: 'facts', candidate: '' }, 30_000));
    const { records } = readChannel(run.result.channel, run.nonce);
    const taskError = records.find((r) => r.t === 'task-error');
    if (taskError) throw new TaskError(String(taskError.message), task.id);
    // Without facts each candidate run works them out itself: slower, same findings.
    const facts = records.find((r) => r.t === 'facts')?.facts ?? null;
    const parts = facts?.isolation;
    if (facts) delete facts.isolation;
    plan.facts = facts;
    plan.isolation = this.isolationPlan(plan, parts);
    return plan;
  }

  /** An isolated run's pieces, from the facts run's stub and masked file; null when the task cannot run isolated. */
  private isolationPlan(plan: TaskPlan, parts: { stub?: unknown; masked?: unknown; maskedHex?: unknown; error?: unknown } | undefined): TaskPlan['isolation'] {
    if (!parts || typeof parts.error === 'string' || typeof parts.stub !== 'string') return null;
    if (plan.target.kind !== 'file' || !plan.repo) return { stub: parts.stub, masked: null, hidden: [], copy: null };
    if (typeof parts.masked !== 'string') return null;
    if (!this.maskDir) {
      this.maskDir = this.opts.workRoot ? fs.mkdtempSync(path.join(this.opts.workRoot, 'oc-mask-')) : processTempDir('oc-mask-');
      fs.chmodSync(this.maskDir, 0o711);
      liveSnapshots.add(this.maskDir);
    }
    // Not secret (the answer is what it leaves out): readable by the sandbox user, who binds it over the original.
    // One per task: tasks in the same file each mask their own target.
    const masked = path.join(this.maskDir, `${planKey(plan.task).slice(0, 32)}.py`);
    // In the encoding the file declares (a latin-1 module stays latin-1 under its coding line).
    const maskedBytes = typeof parts.maskedHex === 'string' ? Buffer.from(parts.maskedHex, 'hex') : Buffer.from(parts.masked, 'utf8');
    fs.writeFileSync(masked, maskedBytes, { mode: 0o644 });
    fs.chmodSync(masked, 0o644);
    const hidden = testPaths(plan.repo, plan.target.file, plan.testArgs);
    const copy = withoutPaths(plan.repo, hidden);
    return { stub: parts.stub, masked, hidden, copy, candidateRepo: this.candidateView(plan.repo, copy, plan.target.file, maskedBytes, masked) };
  }

  /**
   * Weak mode as root: the repository as the candidate process may read it, a copy without the hidden tests and
   * with the target masked, readable only through the candidate's group (the tests' snapshot is closed to it).
   * Strong mode lays the same view over the one snapshot with binds; weak mode has no binds, hence the copy.
   */
  private candidateView(
    repo: RepoListing,
    copy: NonNullable<IsolationPlan['copy']>,
    target: string,
    maskedText: Buffer,
    maskedFile: string,
  ): string | undefined {
    if (this.sandbox.strength !== 'weak' || !splitsUids(this.sandbox)) return undefined;
    const dest = `${maskedFile.slice(0, -3)}-repo`;
    if (fs.existsSync(dest)) return dest;
    snapshotRepository({ ...repo, ...copy }, dest, { uid: process.getuid?.() ?? 0, gid: CANDIDATE_GID });
    // As root (the only case here) the copy's read-only bits do not stop this write.
    const file = path.join(dest, target);
    fs.writeFileSync(file, maskedText);
    fs.chmodSync(file, 0o640);
    return dest;
  }

  /** The folder as this validator's runs read it: a snapshot the sandbox user can read, removed by close(). */
  snapshotOf(root: string): RepoListing {
    return this.snapshot(listRepository(root, root));
  }

  private snapshot(listing: RepoListing): RepoListing {
    let snap = this.snapshots.get(listing.root);
    if (!snap) {
      const dest = this.opts.workRoot ? fs.mkdtempSync(path.join(this.opts.workRoot, 'oc-snap-')) : processTempDir('oc-snap-');
      liveSnapshots.add(dest);
      const root = process.getuid?.() === 0;
      snap = snapshotRepository(listing, dest, { uid: process.getuid?.() ?? 0, gid: root ? SANDBOX_GID : (process.getgid?.() ?? 0) });
      this.snapshots.set(listing.root, snap);
    }
    return snap;
  }

  /**
   * Validates one candidate (the target's full source, plus any helpers and imports it adds).
   * When the task has a reference, the candidate must pass every test the reference passed (frozen
   * from the reference's own run, once per task); a task whose reference fails is a TaskError.
   */
  async validate(task: Task, code: string, opts: ValidateOptions = {}): Promise<Verdict> {
    const expected = task.reference !== undefined ? await this.referenceCheck(task, opts) : null;
    if (expected && !expected.passes)
      throw new TaskError(`its reference does not pass its own tests (${expected.reason}), so no candidate can be judged`, task.id);
    const place = this.placementFor(opts, expected, 'the task has no reference: isolated by default');
    return withPlacement(await this.shared(task, code, false, { ...opts, isolation: place.isolation }, expected), place);
  }

  /**
   * Where a candidate's verdict is decided, and why: the caller's or the validator's choice, else what the reference
   * check found, else `otherwise` (isolated).
   */
  private placementFor(opts: ValidateOptions, expected: ReferenceCheck | null, otherwise: string): Placement {
    if (opts.isolation) return { isolation: opts.isolation, reason: `${opts.isolation}, as the caller asked for this run` };
    const forced = this.opts.isolation ?? 'auto';
    if (forced !== 'auto') return { isolation: forced, reason: `${forced} by the validator's setting (isolation: '${forced}')` };
    if (expected) return { isolation: expected.isolation, reason: expected.isolationReason || `${expected.isolation} by the task's reference check` };
    return { isolation: 'isolated', reason: otherwise };
  }

  /** Validates the manifest's reference solution (against the task's own test list, nothing frozen); isolated unless told otherwise. */
  async validateReference(task: Task, opts: ValidateOptions = {}): Promise<Verdict> {
    if (!task.reference) throw new TaskError('it has no reference solution', task.id);
    const place = this.placementFor(opts, null, 'a reference run on its own is isolated unless told otherwise');
    return withPlacement(await this.shared(task, task.reference, false, { ...opts, isolation: place.isolation }, null), place);
  }

  /**
   * Runs the reference once and records which tests it passes: those are what a candidate must
   * pass. Kept per task (and in `expectations` when given), so it is computed once per manifest.
   */
  referenceCheck(task: Task, opts: Pick<ValidateOptions, 'signal'> = {}): Promise<ReferenceCheck> {
    if (!task.reference) return Promise.reject(new TaskError('it has no reference solution', task.id));
    const key = referenceCheckKey(task);
    let p = this.referenceChecks.get(key);
    if (!p) {
      const stored = this.opts.expectations?.get(task.id, key);
      p = stored ? Promise.resolve(stored) : this.checkReference(task, key, opts.signal);
      this.referenceChecks.set(key, p);
      p.catch(() => this.referenceChecks.delete(key));
    }
    return p;
  }

  /**
   * The reference run both ways: the task is validated isolated when the reference passes the same tests isolated
   * as in-process (or passes isolated where the in-process defences refused it), else in-process. When the task
   * names its tests, a pass isolated settles it alone (both passes would be the same named tests), and the
   * in-process run is made only when the isolated one does not pass.
   */
  private async checkReference(task: Task, key: string, signal: AbortSignal | undefined): Promise<ReferenceCheck> {
    const forced = this.opts.isolation ?? 'auto';
    const run = (isolation: VerdictIsolation) => this.validateReference(task, { isolation, ...(signal ? { signal } : {}) });
    let check: ReferenceCheck;
    if (forced === 'auto' && task.tests?.length) {
      const isolated = await run('isolated');
      check =
        isolated.status === 'passed'
          ? { ...decideIsolation(null, isolated, key), isolationReason: 'the reference passes every test the task names isolated' }
          : decideIsolation(await run('in-process'), isolated, key);
    } else {
      const [inProcess, isolated] = await Promise.all([forced === 'isolated' ? null : run('in-process'), forced === 'in-process' ? null : run('isolated')]);
      check = decideIsolation(inProcess, isolated, key);
    }
    this.opts.expectations?.put(task.id, check);
    return check;
  }

  /** Static checks only (parsing, target, signature, names, imports); nothing of the candidate runs. */
  async check(task: Task, code: string, opts: ValidateOptions = {}): Promise<StaticReport> {
    const v = await this.shared(task, code, true, opts);
    return { findings: v.findings, blocking: v.findings.some((f) => BLOCKING.has(f.kind)) };
  }

  private shared(task: Task, code: string, staticOnly: boolean, opts: ValidateOptions, expected: ReferenceCheck | null = null): Promise<Verdict> {
    if (opts.signal?.aborted) return Promise.reject(abortError());
    const key = verdictKey(
      {
        scope: '',
        plan: planKey(task),
        staticOnly,
        timeoutMs: opts.timeoutMs,
        expected: expected?.key ?? '',
        isolation: opts.isolation ?? '',
        sandbox: this.sandboxKey,
      },
      code,
    );
    let entry = opts.fresh ? undefined : this.verdicts.get(key);
    let cached = true;
    if (entry) {
      this.verdicts.delete(key); // refresh its place in the LRU order
      this.verdicts.set(key, entry);
    } else {
      cached = false;
      const controller = new AbortController();
      const e: Shared = { controller, waiters: 0, promise: Promise.resolve(null as unknown as Verdict) };
      e.promise = this.runShared(
        task,
        code,
        staticOnly,
        { timeoutMs: opts.timeoutMs, isolation: opts.isolation ?? 'isolated', once: opts.once === true, fresh: opts.fresh === true },
        controller.signal,
        expected,
      );
      e.promise.catch(() => {
        if (this.verdicts.get(key) === e) this.verdicts.delete(key);
      });
      entry = e;
      this.verdicts.set(key, e);
      const cap = this.opts.cacheSize ?? 4096;
      while (this.verdicts.size > cap) this.verdicts.delete(this.verdicts.keys().next().value!);
    }
    const e = entry;
    e.waiters++;
    return new Promise<Verdict>((resolve, reject) => {
      let settled = false;
      const onAbort = () => {
        if (settled) return;
        settled = true;
        // The run is killed only when nobody else waits for the same candidate.
        if (--e.waiters === 0) {
          e.controller.abort();
          if (this.verdicts.get(key) === e) this.verdicts.delete(key);
        }
        reject(abortError());
      };
      opts.signal?.addEventListener('abort', onAbort, { once: true });
      e.promise.then(
        (v) => {
          if (settled) return;
          settled = true;
          e.waiters--;
          opts.signal?.removeEventListener('abort', onAbort);
          if (cached && !staticOnly) this.use.reused++;
          resolve(cached ? { ...v, cached: true } : v);
        },
        (err) => {
          if (settled) return;
          settled = true;
          e.waiters--;
          opts.signal?.removeEventListener('abort', onAbort);
          reject(err);
        },
      );
    });
  }

  /** runCandidate, through the shared verdicts when there are some (a failure to reach them only loses the reuse). */
  private async runShared(task: Task, code: string, staticOnly: boolean, how: RunHow, signal: AbortSignal, expected: ReferenceCheck | null) {
    const store = this.opts.sharedVerdicts;
    const scope = store?.scope(task) ?? null;
    if (!store || scope === null || how.fresh) return this.runCandidate(task, code, staticOnly, how, signal, expected);
    const key = verdictKey(
      {
        scope,
        plan: planKey({ ...task, repoPath: '' }),
        staticOnly,
        timeoutMs: how.timeoutMs,
        expected: expected?.key ?? '',
        isolation: how.isolation,
        sandbox: this.sandboxKey,
      },
      code,
    );
    const hit = await store.get(key).catch(() => null);
    if (hit && 'verdict' in hit) {
      this.use.shared++;
      return hit.verdict;
    }
    // A verdict that cannot be trusted is not taken: the candidate runs here, and its verdict replaces that one.
    if (hit) this.use.sharedRefused++;
    const v = await this.runCandidate(task, code, staticOnly, how, signal, expected);
    await store.put(key, v).catch(() => {});
    return v;
  }

  private async runCandidate(
    task: Task,
    code: string,
    staticOnly: boolean,
    how: RunHow,
    signal: AbortSignal,
    expected: ReferenceCheck | null,
  ): Promise<Verdict> {
    const timeoutOverride = how.timeoutMs;
    const base = await this.prepare(task);
    if (signal.aborted) throw abortError();
    // The reference's passing tests stand in for the task's list only when the task names none.
    const frozen = expected !== null && !task.tests?.length;
    const plan: TaskPlan = frozen ? { ...base, expectedTests: expected.tests } : base;
    const from: Verdict['expectedFrom'] = frozen ? 'reference' : plan.expectedTests ? 'task' : null;
    const timeoutMs = timeoutOverride ?? plan.timeoutMs;
    // A task the facts run could not prepare for isolation (its target cannot be masked) runs in-process.
    const isolated = !staticOnly && how.isolation === 'isolated' && plan.isolation !== null;
    // Control flow the target may raise into each test: the reference's own run records it (null: allow and record);
    // a candidate may raise the same only where the reference did (none where the task has no reference).
    const controlFlow = expected ? (expected.controlFlow ?? {}) : task.reference !== undefined ? null : {};
    const once = async () => {
      const run = await this.pool.run(
        () => this.runHarness(plan, { mode: plan.mode, candidate: code, staticOnly, isolated, controlFlow }, timeoutMs, signal),
        signal,
      );
      if (run.result.killedBy === 'aborted') throw abortError();
      const sandbox = run.warm ? { ...this.sandbox, label: this.sandbox.label + WARM_LABEL } : this.sandbox;
      return { ...buildVerdict(plan, run.result, run.nonce, timeoutMs, sandbox, run.candidate), expectedFrom: from };
    };
    if (!staticOnly) this.use.judged++;
    const first = await once();
    if (staticOnly || how.once || !timingDependent(first, this.opts.flakyMargin ?? FLAKY_MARGIN)) return first;
    // The outcome may be the clock's, not the candidate's: run it once more and compare.
    const second = await once();
    const rerun = {
      kind: 'rerun' as const,
      detail: `rerun because ${first.status === 'timeout' ? 'it timed out' : `it took ${first.durationMs} ms of a ${timeoutMs} ms limit`}; second run: ${second.status}`,
    };
    if (second.status === first.status) return { ...first, sandbox: { ...first.sandbox, events: [...first.sandbox.events, rerun] } };
    return {
      ...second,
      status: 'flaky',
      reason: `flaky: ${first.status} (${first.reason}), then ${second.status} (${second.reason})`,
      flaky: { outcomes: [first.status, second.status], reasons: [first.reason, second.reason] },
      sandbox: { ...second.sandbox, events: [...second.sandbox.events, rerun] },
    };
  }

  private async runHarness(
    plan: TaskPlan,
    what: { mode: string; candidate: string; staticOnly?: boolean; isolated?: boolean; controlFlow?: Record<string, string[]> | null },
    timeoutMs: number,
    signal?: AbortSignal,
  ): Promise<{ result: SandboxRunResult; nonce: string; candidate: SandboxRunResult | null; warm?: boolean }> {
    const nonce = newNonce();
    // CPU time follows the wall-clock limit unless the caller set a tighter one.
    const cpu = Math.ceil(timeoutMs / 1000) + 1;
    const limits: Limits = { ...this.limits, cpuSeconds: this.opts.limits?.cpuSeconds ? Math.min(this.opts.limits.cpuSeconds, cpu) : cpu };
    const repo = plan.repo;
    const iso = what.isolated ? plan.isolation : null;
    // No sandbox holds the original target: the masked file lies over it (strong mode).
    const overlays = plan.isolation?.masked && plan.target.kind === 'file' ? [{ rel: plan.target.file, host: plan.isolation.masked }] : [];
    const testSpec: SandboxRunSpec = {
      ...(plan.python ? { python: plan.python } : {}),
      stdin: ({ ws, base }) =>
        JSON.stringify({
          nonce,
          mode: what.mode,
          staticOnly: what.staticOnly ?? false,
          static: this.opts.staticChecks ?? true,
          ws,
          base: repo ? base : null,
          copy: repo ? { dirs: repo.dirs, files: repo.files, links: repo.links, ...(repo.modes ? { modes: repo.modes } : {}) } : null,
          program: 'program.py',
          target: plan.target,
          candidate: what.candidate,
          tests: plan.kind === 'template' ? plan.expectedTests : null,
          testArgs: plan.testArgs,
          env: plan.env,
          pythonPath: plan.pythonPath,
          perTestTimeout: plan.perTestTimeoutS,
          facts: plan.facts,
          // The harness sets these itself only when prlimit is missing.
          limits: this.harnessLimits(limits),
          isolated: iso !== null,
          controlFlow: what.controlFlow ?? null,
          stub: iso?.stub ?? null,
          hidden: iso ? iso.hidden.map((h) => h.rel) : [],
        }),
      timeoutMs,
      limits,
      repo: repo ? repo.root : null,
      repoBytes: repo ? repo.bytes : 0,
      signal,
      workRoot: this.opts.workRoot,
      overlays,
    };
    const candidateSpec: SandboxRunSpec | null = iso && {
      ...testSpec,
      entry: 'serve',
      // The tests' run decides when both end; this one only must not end first.
      timeoutMs: timeoutMs + 2000,
      // Weak mode as root: its own view of the repository (strong mode covers the shared one with binds).
      ...(iso.candidateRepo ? { repo: iso.candidateRepo } : {}),
      hidden: iso.hidden,
      stdin: ({ ws, base }) =>
        JSON.stringify({
          ws,
          base: repo ? base : null,
          copy: iso.copy,
          program: 'program.py',
          target: plan.target,
          candidate: what.candidate,
          env: plan.env,
          pythonPath: plan.pythonPath,
          limits: this.harnessLimits(limits),
        }),
    };
    // Warm: forked from the task's server (facts runs, one per task, start cold rather than a server of their own).
    const warm =
      this.warm && what.mode !== 'facts' ? await this.warm.run(testSpec, candidateSpec, { covers: plan.isolation?.hidden ?? [], ...warmImports(plan) }) : null;
    if (warm) return { result: warm.tests, nonce, candidate: warm.candidate, warm: true };
    if (!candidateSpec) return { result: await runSandboxed(this.sandbox, testSpec), nonce, candidate: null };
    const pair = await runSandboxedPair(this.sandbox, testSpec, candidateSpec);
    return { result: pair.tests, nonce, candidate: pair.candidate };
  }

  private harnessLimits(limits: Limits) {
    return this.sandbox.tools.prlimit
      ? null
      : { cpu: limits.cpuSeconds, as: limits.addressSpaceBytes, fsize: limits.fileSizeBytes, nproc: limits.processes, core: 0 };
  }
}

const liveSnapshots = new Set<string>();
process.once('exit', () => {
  for (const dir of liveSnapshots) removeTree(dir);
});

/** The dropped uid must be able to reach what the validator puts under `dir` (or a task's interpreter). */
function assertTraversable(dir: string, uid: number, taskId?: string): void {
  let cur = path.resolve(dir);
  for (;;) {
    const st = fs.statSync(cur);
    if (st.uid !== uid && !(st.mode & 0o001)) {
      if (taskId !== undefined) {
        throw new TaskError(
          `its interpreter ${dir} is unreachable for the sandbox's uid ${uid}: ${cur} is not searchable by others. ` +
            'Make the path readable (chmod o+rx on each folder down to the interpreter) or create the virtualenv outside a private home',
          taskId,
        );
      }
      throw new SandboxUnavailableError(
        `${dir} is unreachable for the sandbox's uid ${uid}: ${cur} is not searchable by others (chmod o+x it, or choose another TMPDIR / workRoot)`,
      );
    }
    const up = path.dirname(cur);
    if (up === cur) return;
    cur = up;
  }
}

export function createValidator(opts: ValidatorOptions = {}): Promise<Validator> {
  return Validator.create(opts);
}

/** The key a task's reference check is kept under: its plan (paths, harness, tests) and its reference. */
export function referenceCheckKey(task: Task): string {
  // "isolation": a check made before the reference ran both ways is stale.
  return createHash('sha256')
    .update(`isolation\0${validatorVersion()}\0${planKey(task)}\0`)
    .update(task.reference ?? '', 'utf8')
    .digest('hex');
}

function planKey(task: Task): string {
  return createHash('sha256')
    .update(
      JSON.stringify([
        task.id,
        task.repoPath,
        task.file,
        task.qualname,
        task.signature,
        task.check_template ?? null,
        task.placeholder ?? null,
        task.test_command ?? null,
        task.tests ?? null,
        task.reference_runtime_ms ?? null,
        task.python ?? null,
      ]),
    )
    .digest('hex');
}

const passedTests = (v: Verdict) => v.tests.filter((t) => t.outcome === 'passed' && t.expected).map((t) => t.id);

/**
 * What the reference's runs establish: the tests a candidate must pass, and where candidates are validated.
 * Isolated when the isolated run passes the same tests as the in-process one, or passes where the in-process one
 * did not (its defences misjudged correct code); in-process when isolation changes what the tests see (they patch
 * what the target calls, or need a value that cannot cross). A missing run is one the validator was told to skip.
 */
export function decideIsolation(inProcess: Verdict | null, isolated: Verdict | null, key: string): ReferenceCheck {
  const ok = (v: Verdict | null) => v !== null && v.status === 'passed';
  const same = ok(inProcess) && ok(isolated) && passedTests(inProcess!).join('\n') === passedTests(isolated!).join('\n');
  let chosen: Verdict;
  let isolation: VerdictIsolation;
  let isolationReason: string;
  if (isolated && (same || (ok(isolated) && !ok(inProcess)))) {
    chosen = isolated;
    isolation = 'isolated';
    isolationReason = !inProcess
      ? "isolated by the validator's setting"
      : same
        ? 'the reference passes the same tests isolated as in-process'
        : `the reference passes isolated; in-process it was judged ${inProcess.status} (${inProcess.reason})`;
  } else {
    chosen = inProcess ?? isolated!;
    isolation = inProcess ? 'in-process' : 'isolated';
    isolationReason = !isolated
      ? "in-process by the validator's setting"
      : ok(isolated)
        ? 'isolated, the reference passes other tests than in-process (the tests see something the process boundary changes)'
        : `isolated, the reference was judged ${isolated.status} (${isolated.reason})`;
  }
  const passes = ok(chosen);
  return {
    passes,
    tests: passedTests(chosen),
    reason: passes ? chosen.reason : `${chosen.status}: ${chosen.reason}`,
    key,
    isolation,
    isolationReason,
    controlFlow: chosen.controlFlow ?? {},
  };
}

/** Where a verdict is to be decided, and the words that say why (Verdict.isolationReason). */
interface Placement {
  isolation: VerdictIsolation;
  reason: string;
}

/**
 * The verdict with why it was decided where it was (reused and shared verdicts too: the reason is the asker's, so it
 * is attached here, never kept with the run). A verdict decided in-process where isolated was asked for says so.
 */
function withPlacement(v: Verdict, place: Placement): Verdict {
  const decided = v.isolation ?? 'in-process';
  const reason =
    decided === place.isolation
      ? place.reason
      : `${place.reason}; but this run was decided ${decided} (the task could not be prepared for an isolated run, or no candidate process started)`;
  return { ...v, isolationReason: reason };
}

/** A verdict that a slower or faster machine could have turned: a timeout, or a run close to the limit. */
function timingDependent(v: Verdict, margin: number): boolean {
  if (v.status === 'timeout' || v.tests.some((t) => t.outcome === 'timeout')) return true;
  return v.timeoutMs > 0 && v.durationMs >= (1 - margin) * v.timeoutMs;
}
