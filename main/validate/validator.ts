// The validator: runs candidates against their task's tests in the sandbox, a pool of them in
// parallel, and turns what the harness reports into verdicts. Identical candidates of a task are
// validated once; a task's plan (repository listing, facts about the code around the target) is
// computed once and reused for every candidate.

import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Task } from '../experiment/manifest.ts';
import { DEFAULT_CONFIG, type PipelineConfig } from '../pipeline/config.ts';
import { abortError, Pool } from './pool.ts';
import {
  DEFAULT_LIMITS,
  detectSandbox,
  newNonce,
  runSandboxed,
  SandboxUnavailableError,
  type SandboxOptions,
  type SandboxRunResult,
} from './sandbox.ts';
import type { Limits, SandboxEvent, SandboxInfo, StaticFinding, TestResult, TestOutcome, Verdict } from './types.ts';
import { processTempDir, removeTree } from './cleanup.ts';
import { listRepository, planTask, snapshotRepository, TaskError, type RepoListing, type TaskPlan } from './workspace.ts';

export interface ValidatorOptions {
  /** Time limits (floor, ceiling, factor); the rest of PipelineConfig.validation is the pipeline's. */
  validation?: Partial<PipelineConfig['validation']>;
  sandbox?: SandboxOptions;
  /** Parallel sandboxed runs (default: the number of CPU cores). */
  concurrency?: number;
  limits?: Partial<Limits>;
  /** Where weak-mode workspaces go (default: the OS temp folder). */
  workRoot?: string;
  /** Verdicts kept for identical candidates (default 4096). */
  cacheSize?: number;
  /** Scope and import analysis (syntax and target checks always run). Default true. */
  staticChecks?: boolean;
}

export interface ValidateOptions {
  signal?: AbortSignal;
  /** Overrides the task's calibrated time limit. */
  timeoutMs?: number;
}

export interface StaticReport {
  findings: StaticFinding[];
  blocking: boolean;
}

interface Shared {
  promise: Promise<Verdict>;
  controller: AbortController;
  waiters: number;
}

const normalise = (code: string) =>
  code
    .replace(/\r\n?/g, '\n')
    .split('\n')
    .map((l) => l.trimEnd())
    .join('\n')
    .trim();

export class Validator {
  readonly pool: Pool;
  readonly validation: PipelineConfig['validation'];
  readonly limits: Limits;
  private readonly plans = new Map<string, Promise<TaskPlan>>();
  private readonly repos = new Map<string, RepoListing>();
  private readonly verdicts = new Map<string, Shared>();
  private readonly snapshots = new Map<string, RepoListing>();

  private constructor(
    readonly sandbox: SandboxInfo,
    private readonly opts: ValidatorOptions,
  ) {
    this.validation = { ...DEFAULT_CONFIG.validation, ...opts.validation };
    this.limits = { ...DEFAULT_LIMITS, ...opts.limits };
    this.pool = new Pool(Math.max(1, Math.floor(opts.concurrency ?? os.availableParallelism())));
  }

  /** Probes the sandbox (throws SandboxUnavailableError when `sandbox.mode` is 'strong' and it is missing). */
  static async create(opts: ValidatorOptions = {}): Promise<Validator> {
    const info = await detectSandbox(opts.sandbox);
    if (info.uid !== null) {
      // Snapshots, the harness copy and weak-mode workspaces live there; the dropped uid must reach them.
      assertTraversable(os.tmpdir(), info.uid);
      if (opts.workRoot) assertTraversable(opts.workRoot, info.uid);
    }
    return new Validator(info, opts);
  }

  /** Removes the repository snapshots this validator made (a later call makes them again). */
  close(): void {
    for (const s of this.snapshots.values()) {
      removeTree(s.root);
      liveSnapshots.delete(s.root);
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
    if (plan.repo && this.sandbox.uid !== null) plan.repo = this.snapshot(plan.repo);
    const run = await this.pool.run(() => this.runHarness(plan, { mode: 'facts', candidate: '' }, 30_000));
    const { records } = readChannel(run.result.channel, run.nonce);
    const taskError = records.find((r) => r.t === 'task-error');
    if (taskError) throw new TaskError(String(taskError.message), task.id);
    // Without facts each candidate run works them out itself: slower, same findings.
    plan.facts = records.find((r) => r.t === 'facts')?.facts ?? null;
    return plan;
  }

  private snapshot(listing: RepoListing): RepoListing {
    let snap = this.snapshots.get(listing.root);
    if (!snap) {
      const dest = this.opts.workRoot ? fs.mkdtempSync(path.join(this.opts.workRoot, 'oc-snap-')) : processTempDir('oc-snap-');
      liveSnapshots.add(dest);
      snap = snapshotRepository(listing, dest);
      this.snapshots.set(listing.root, snap);
    }
    return snap;
  }

  /** Validates one candidate (the target's full source, plus any helpers and imports it adds). */
  validate(task: Task, code: string, opts: ValidateOptions = {}): Promise<Verdict> {
    return this.shared(task, code, false, opts);
  }

  /** Validates the manifest's reference solution. */
  validateReference(task: Task, opts: ValidateOptions = {}): Promise<Verdict> {
    if (!task.reference) return Promise.reject(new TaskError('it has no reference solution', task.id));
    return this.validate(task, task.reference, opts);
  }

  /** Static checks only (parsing, target, signature, names, imports); nothing of the candidate runs. */
  async check(task: Task, code: string, opts: ValidateOptions = {}): Promise<StaticReport> {
    const v = await this.shared(task, code, true, opts);
    return { findings: v.findings, blocking: v.findings.some((f) => BLOCKING.has(f.kind)) };
  }

  private shared(task: Task, code: string, staticOnly: boolean, opts: ValidateOptions): Promise<Verdict> {
    if (opts.signal?.aborted) return Promise.reject(abortError());
    const key = createHash('sha256')
      .update(`${planKey(task)}\0${staticOnly ? 's' : 'r'}\0${opts.timeoutMs ?? ''}\0${normalise(code)}`)
      .digest('hex');
    let entry = this.verdicts.get(key);
    let cached = true;
    if (entry) {
      this.verdicts.delete(key); // refresh its place in the LRU order
      this.verdicts.set(key, entry);
    } else {
      cached = false;
      const controller = new AbortController();
      const e: Shared = { controller, waiters: 0, promise: Promise.resolve(null as unknown as Verdict) };
      e.promise = this.runCandidate(task, code, staticOnly, opts.timeoutMs, controller.signal);
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

  private async runCandidate(task: Task, code: string, staticOnly: boolean, timeoutOverride: number | undefined, signal: AbortSignal): Promise<Verdict> {
    const plan = await this.prepare(task);
    if (signal.aborted) throw abortError();
    const timeoutMs = timeoutOverride ?? plan.timeoutMs;
    const run = await this.pool.run(
      () => this.runHarness(plan, { mode: plan.mode, candidate: code, staticOnly }, timeoutMs, signal),
      signal,
    );
    if (run.result.killedBy === 'aborted') throw abortError();
    return buildVerdict(plan, run.result, run.nonce, timeoutMs, this.sandbox);
  }

  private async runHarness(
    plan: TaskPlan,
    what: { mode: string; candidate: string; staticOnly?: boolean },
    timeoutMs: number,
    signal?: AbortSignal,
  ): Promise<{ result: SandboxRunResult; nonce: string }> {
    const nonce = newNonce();
    // CPU time follows the wall-clock limit unless the caller set a tighter one.
    const cpu = Math.ceil(timeoutMs / 1000) + 1;
    const limits: Limits = { ...this.limits, cpuSeconds: this.opts.limits?.cpuSeconds ? Math.min(this.opts.limits.cpuSeconds, cpu) : cpu };
    const repo = plan.repo;
    const result = await runSandboxed(this.sandbox, {
      stdin: ({ ws, base }) =>
        JSON.stringify({
          nonce,
          mode: what.mode,
          staticOnly: what.staticOnly ?? false,
          static: this.opts.staticChecks ?? true,
          ws,
          base: repo ? base : null,
          copy: repo ? { dirs: repo.dirs, files: repo.files, links: repo.links } : null,
          program: 'program.py',
          target: plan.target,
          candidate: what.candidate,
          tests: plan.expectedTests,
          testArgs: plan.testArgs,
          perTestTimeout: plan.perTestTimeoutS,
          facts: plan.facts,
          // The harness sets these itself only when prlimit is missing.
          limits: this.sandbox.tools.prlimit
            ? null
            : { cpu: limits.cpuSeconds, as: limits.addressSpaceBytes, fsize: limits.fileSizeBytes, nproc: limits.processes, core: 0 },
        }),
      timeoutMs,
      limits,
      repo: repo ? repo.root : null,
      repoBytes: repo ? repo.bytes : 0,
      signal,
      workRoot: this.opts.workRoot,
    });
    return { result, nonce };
  }
}

const liveSnapshots = new Set<string>();
process.once('exit', () => {
  for (const dir of liveSnapshots) removeTree(dir);
});

/** The dropped uid must be able to reach what the validator puts under `dir`. */
function assertTraversable(dir: string, uid: number): void {
  let cur = path.resolve(dir);
  for (;;) {
    const st = fs.statSync(cur);
    if (st.uid !== uid && !(st.mode & 0o001)) {
      throw new SandboxUnavailableError(`${dir} is unreachable for the sandbox's uid ${uid}: ${cur} is not searchable by others (chmod o+x it, or choose another TMPDIR / workRoot)`);
    }
    const up = path.dirname(cur);
    if (up === cur) return;
    cur = up;
  }
}

export function createValidator(opts: ValidatorOptions = {}): Promise<Validator> {
  return Validator.create(opts);
}

function planKey(task: Task): string {
  return createHash('sha256')
    .update(JSON.stringify([task.id, task.repoPath, task.file, task.qualname, task.check_template ?? null, task.placeholder ?? null, task.test_command ?? null, task.tests ?? null, task.reference_runtime_ms ?? null]))
    .digest('hex');
}

// ---------------------------------------------------------------------------------------------
// Reading the harness's report

export const BLOCKING = new Set(['syntax', 'target-missing', 'splice']);

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type RecordDoc = Record<string, any>;

/** Records on the report channel whose MAC checks out under this run's key; the rest are counted. */
export function readChannel(buf: Buffer, nonceHex: string): { records: RecordDoc[]; forged: number } {
  const key = Buffer.from(nonceHex, 'hex');
  const records: RecordDoc[] = [];
  let forged = 0;
  let start = 0;
  while (start <= buf.length) {
    let end = buf.indexOf(0x0a, start);
    if (end < 0) end = buf.length;
    const line = buf.subarray(start, end);
    start = end + 1;
    if (!line.length) continue;
    const space = line.indexOf(0x20);
    if (space !== 64) {
      forged++;
      continue;
    }
    const mac = line.subarray(0, 64);
    const payload = line.subarray(65);
    const want = Buffer.from(createHmac('sha256', key).update(payload).digest('hex'), 'ascii');
    if (!timingSafeEqual(mac, want)) {
      forged++;
      continue;
    }
    try {
      records.push(JSON.parse(payload.toString('utf8')));
    } catch {
      forged++;
    }
  }
  return { records, forged };
}

const FAILING: ReadonlySet<TestOutcome> = new Set(['failed', 'error', 'timeout', 'missing', 'unexpected-success', 'not-run']);

export function buildVerdict(plan: TaskPlan, run: SandboxRunResult, nonce: string, timeoutMs: number, sandbox: SandboxInfo): Verdict {
  const { records, forged } = readChannel(run.channel, nonce);
  const events: SandboxEvent[] = [...run.events];
  const staticRec = records.find((r) => r.t === 'static');
  const findings: StaticFinding[] = Array.isArray(staticRec?.findings) ? staticRec.findings : [];
  const done = records.find((r) => r.t === 'done');
  const harnessError = records.find((r) => r.t === 'harness-error' || r.t === 'task-error');
  const expected = plan.expectedTests;
  const expectedSet = new Set(expected ?? []);

  const raw: RecordDoc[] = Array.isArray(done?.results) ? done.results : records.filter((r) => r.t === 'test');
  const seen = new Map<string, TestResult>();
  for (const r of raw) {
    const id = String(r.id);
    const t: TestResult = { id, outcome: String(r.outcome) as TestOutcome, expected: expected ? expectedSet.has(id) : true };
    if (typeof r.message === 'string' && r.message) t.message = r.message;
    seen.set(id, t);
  }
  const tests = [...seen.values()];
  if (expected && (done?.ran || !done)) {
    for (const id of expected) if (!seen.has(id)) tests.push({ id, outcome: 'not-run', expected: true });
  }

  // Labels for what the limits did, read from the exit and the messages.
  const texts = [run.stderr, String(done?.loadError ?? ''), ...tests.map((t) => t.message ?? '')].join('\n');
  if (run.exit.signal === 'SIGXCPU') events.push({ kind: 'cpu-limit', detail: 'CPU-time limit reached (SIGXCPU)' });
  else if (run.exit.signal && !run.killedBy) events.push({ kind: 'killed-by-signal', detail: run.exit.signal });
  if (/\bMemoryError\b/.test(texts)) events.push({ kind: 'memory-limit', detail: 'MemoryError under the address-space limit' });
  if (/File too large|\[Errno 27\]/.test(texts)) events.push({ kind: 'file-size-limit', detail: 'a write hit the file-size limit' });
  if (/Resource temporarily unavailable|\[Errno 11\]/.test(texts) && /fork|Popen|spawn|Thread|BlockingIOError/.test(texts))
    events.push({ kind: 'process-limit', detail: 'process creation refused by the process-count limit' });
  if (forged) events.push({ kind: 'forged-output-ignored', detail: `${forged} unauthenticated line(s) on the report channel` });
  if (plan.kind === 'template' && run.stdout.includes('__REPOEXEC_RESULTS__'))
    events.push({ kind: 'forged-output-ignored', detail: 'a results line printed on stdout (not the harness channel)' });
  if (!done && !run.killedBy && !harnessError) {
    const setup = /^(bwrap|setpriv|prlimit): .*/m.exec(run.stderr);
    events.push(setup ? { kind: 'sandbox-failure', detail: setup[0].slice(0, 300) } : { kind: 'no-report', detail: 'the harness ended without its final report' });
  }

  const passedExpected = tests.filter((t) => t.expected && t.outcome === 'passed').length;
  const failing = tests.filter((t) => FAILING.has(t.outcome) && (t.expected || !expected));
  let status: Verdict['status'];
  let reason: string;
  const blocking = findings.find((f) => BLOCKING.has(f.kind));
  if (run.killedBy === 'wall-timeout') {
    status = 'timeout';
    reason = `killed at the ${timeoutMs} ms time limit`;
  } else if (run.exit.signal === 'SIGXCPU') {
    status = 'timeout';
    reason = 'killed at the CPU-time limit';
  } else if (run.killedBy) {
    status = 'error';
    reason = run.killedBy === 'output-limit' ? 'killed for producing too much output' : 'cancelled';
  } else if (harnessError) {
    status = 'error';
    reason = `${harnessError.t === 'task-error' ? 'task problem' : 'harness error'}: ${String(harnessError.message).split('\n').filter(Boolean).slice(-1)[0] ?? ''}`;
  } else if (blocking && done) {
    status = 'failed';
    reason = `static check: ${blocking.message}`;
  } else if (!done) {
    status = 'error';
    const how = run.exit.signal ? `killed by ${run.exit.signal}` : `exited with code ${run.exit.code}`;
    reason = `no trustworthy test report: the run ${how} before the harness finished (early exit, crash or sandbox failure)`;
  } else if (done.loadError) {
    status = 'failed';
    reason = `the code failed to load: ${String(done.loadError).split('\n').filter(Boolean).slice(-1)[0] ?? ''}`;
  } else if (!tests.length || (done.pytestExit === 5 && !tests.some((t) => t.outcome === 'passed'))) {
    status = 'error';
    reason = 'no tests ran';
  } else if (failing.length) {
    status = 'failed';
    const first = failing[0]!;
    reason = `${failing.length} test(s) did not pass (first: ${first.id}: ${first.outcome}${first.message ? ` — ${lastLine(first.message)}` : ''})`;
  } else if (expected ? passedExpected === expected.length : tests.some((t) => t.outcome === 'passed')) {
    status = 'passed';
    reason = expected ? `all ${expected.length} expected tests passed` : `${tests.filter((t) => t.outcome === 'passed').length} tests passed`;
  } else {
    status = 'failed';
    reason = 'no test passed';
  }
  if (staticRec === undefined && done && !harnessError) {
    events.push({ kind: 'no-report', detail: 'the static-check record is missing' });
  }
  return {
    taskId: plan.task.id,
    status,
    reason,
    findings,
    tests,
    expectedTests: expected,
    durationMs: Math.round(run.durationMs),
    timeoutMs,
    peakMemoryBytes: typeof done?.maxrss === 'number' ? done.maxrss : null,
    sandbox: { strength: sandbox.strength, label: sandbox.label, events },
    exit: run.exit,
    stdout: run.stdout.slice(0, 8192),
    stderr: run.stderr.slice(-8192),
    cached: false,
  };
}

function lastLine(s: string): string {
  return (s.split('\n').filter((l) => l.trim()).slice(-1)[0] ?? '').trim().slice(0, 300);
}

/** The failing tests' output, for a repair prompt: each failing test's message, then stderr's tail. */
export function failureText(v: Verdict, maxChars = 6000): string {
  const parts: string[] = [`Verdict: ${v.status} — ${v.reason}`];
  for (const t of v.tests) {
    if (!FAILING.has(t.outcome) || (!t.expected && v.expectedTests)) continue;
    parts.push(`--- ${t.id}: ${t.outcome}${t.message ? `\n${t.message.trim()}` : ''}`);
  }
  if (v.stderr.trim()) parts.push(`--- stderr (end)\n${v.stderr.trim().slice(-1500)}`);
  const text = parts.join('\n');
  return text.length > maxChars ? `${text.slice(0, maxChars)}\n… (truncated)` : text;
}
