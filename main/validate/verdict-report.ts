// Reading what a validation's harness reported: the authenticated records of its channel, the verdict they make
// (status, reason, per-test results, events), and the words a failure is told in. main/validate/validator.ts runs
// the harness; this turns its report into a Verdict.

import { createHmac, timingSafeEqual } from 'node:crypto';
import type { SandboxRunResult } from './sandbox.ts';
import type { SandboxEvent, SandboxInfo, StaticFinding, TargetUse, TestEnvironment, TestResult, TestOutcome, Verdict } from '../model/verdict.ts';
import type { TaskPlan } from './task-plan.ts';

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

/** The harness's records on the report channel, picked apart. */
interface Report {
  records: RecordDoc[];
  /** Channel lines whose MAC did not check out. */
  forged: number;
  staticRec: RecordDoc | undefined;
  findings: StaticFinding[];
  done: RecordDoc | undefined;
  ended: RecordDoc | undefined;
  harnessError: RecordDoc | undefined;
}

/** What the status of a verdict is decided on. */
interface Decision {
  run: SandboxRunResult;
  /** An isolated run's candidate process. */
  candidate: SandboxRunResult | null;
  /** Calls that could not cross between the two processes of an isolated run. */
  crossing: string[];
  controlFlow: string[];
  report: Report;
  tests: TestResult[];
  expected: string[] | null;
  /** What the runner refused, and what it took for tampering. */
  refused: string[];
  tampering: string[];
  notExercised: string | null;
  timeoutMs: number;
}

export function buildVerdict(
  plan: TaskPlan,
  run: SandboxRunResult,
  nonce: string,
  timeoutMs: number,
  sandbox: SandboxInfo,
  candidate: SandboxRunResult | null = null,
): Verdict {
  const report = readReport(run.channel, nonce);
  const { done, harnessError, findings } = report;
  const events: SandboxEvent[] = [...run.events];
  const expected = plan.expectedTests;
  const tests = testResults(report, expected);
  limitEvents(plan, run, report, tests, events);
  if (candidate) candidateEvents(candidate, events);
  const { refused, tampering, crossing, controlFlow } = runnerNotices(report, events);
  if (!done && !run.killedBy && !harnessError) {
    const setup = /^(bwrap|setpriv|prlimit): .*/m.exec(run.stderr);
    events.push(
      setup ? { kind: 'sandbox-failure', detail: setup[0].slice(0, 300) } : { kind: 'no-report', detail: 'the harness ended without its final report' },
    );
  }

  const targetFile = plan.target.kind === 'file' ? plan.target.file : 'program.py';
  const target: TargetUse | null = done?.target
    ? {
        expectedFile: targetFile,
        loadedFrom: typeof done.target.loadedFrom === 'string' ? done.target.loadedFrom : null,
        calls: typeof done.target.calls === 'number' ? done.target.calls : null,
      }
    : null;
  const environment: TestEnvironment | null = done?.environment
    ? {
        python: String(done.environment.python ?? ''),
        version: String(done.environment.version ?? ''),
        env: { ...plan.env },
        withheld: plan.repo?.withheld ?? [],
      }
    : null;
  const notExercised = target && done?.ran && !done.loadError ? exerciseProblem(target) : null;
  if (notExercised) events.push({ kind: 'not-exercised', detail: notExercised });

  const { status, reason } = statusOf({ run, candidate, report, tests, expected, refused, tampering, crossing, controlFlow, notExercised, timeoutMs });
  const flow = flowOf(done?.flow);
  if (report.staticRec === undefined && done && !harnessError) {
    events.push({ kind: 'no-report', detail: 'the static-check record is missing' });
  }
  const infrastructure = status === 'passed' ? null : infrastructureFault(run, report, events);
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
    stdout: (candidate?.stdout.trim() ? `${run.stdout}\n--- the candidate process's own output ---\n${candidate.stdout}` : run.stdout).slice(0, 8192),
    stderr: (candidate?.stderr.trim() ? `${run.stderr}\n--- the candidate process's stderr ---\n${candidate.stderr}` : run.stderr).slice(-8192),
    cached: false,
    expectedFrom: expected ? 'task' : null,
    target,
    environment,
    flaky: null,
    ...(infrastructure ? { infrastructure } : {}),
    isolation: candidate ? 'isolated' : 'in-process',
    ...(flow ? { controlFlow: flow } : {}),
  };
}

/** The runner's record of control flow per test, as plain string lists (anything else in it is dropped). */
function flowOf(raw: unknown): Record<string, string[]> | null {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return null;
  const out: Record<string, string[]> = {};
  for (const [id, names] of Object.entries(raw as Record<string, unknown>)) {
    if (Array.isArray(names)) out[id] = names.filter((n): n is string => typeof n === 'string').map((n) => n.slice(0, 200));
  }
  return Object.keys(out).length ? out : null;
}

/** What the limits did to an isolated run's candidate process (its end after the tests' is the engine's doing). */
function candidateEvents(c: SandboxRunResult, events: SandboxEvent[]): void {
  if (c.exit.signal === 'SIGXCPU') events.push({ kind: 'cpu-limit', detail: 'the candidate process reached its CPU-time limit (SIGXCPU)' });
  else if (c.exit.signal && !c.killedBy && !c.endedWithPartner) events.push({ kind: 'killed-by-signal', detail: `the candidate process: ${c.exit.signal}` });
  if (c.killedBy === 'output-limit') events.push({ kind: 'output-limit', detail: 'the candidate process printed more than the output limit' });
  for (const e of c.events) if (e.kind === 'sandbox-failure') events.push({ kind: e.kind, detail: `the candidate process: ${e.detail}` });
}

/**
 * Whether the infrastructure decided the verdict: the harness reported a broken task or crashed outside the
 * candidate's process (the runner's own errors, where candidate code runs, stay the candidate's), or nothing
 * authenticated came back at all, so the candidate never ran (the harness sends its static record before the
 * candidate is handed over; bwrap's setup messages on stderr are trusted only then, since the candidate's stderr
 * is the same stream). A run killed at a limit stays the candidate's.
 */
function infrastructureFault(run: SandboxRunResult, report: Report, events: SandboxEvent[]): Verdict['infrastructure'] {
  const e = report.harnessError;
  const message = e ? (String(e.message).split('\n').filter(Boolean).slice(-1)[0]?.slice(0, 300) ?? '') : '';
  if (e?.t === 'task-error') return { cause: 'workspace', detail: `task problem: ${message}` };
  if (e?.t === 'harness-error' && e.origin !== 'runner') return { cause: 'harness', detail: `harness error: ${message}` };
  if (report.records.length || run.killedBy) return null;
  const failure = events.find((x) => x.kind === 'sandbox-failure');
  return failure
    ? { cause: 'sandbox', detail: `the sandbox failed: ${failure.detail}` }
    : { cause: 'harness', detail: `the harness sent no authenticated record (exit ${run.exit.signal ?? run.exit.code}): it never started` };
}

function readReport(channel: Buffer, nonce: string): Report {
  const { records, forged } = readChannel(channel, nonce);
  const staticRec = records.find((r) => r.t === 'static');
  return {
    records,
    forged,
    staticRec,
    findings: Array.isArray(staticRec?.findings) ? staticRec.findings : [],
    done: records.find((r) => r.t === 'done'),
    ended: records.find((r) => r.t === 'runner-ended'),
    harnessError: records.find((r) => r.t === 'harness-error' || r.t === 'task-error'),
  };
}

/** The reported test results (the final report's, else the runner's last, else the streamed ones), plus expected tests that never ran. */
function testResults({ records, done, ended }: Report, expected: string[] | null): TestResult[] {
  const expectedSet = new Set(expected ?? []);
  const raw: RecordDoc[] = Array.isArray(done?.results) ? done.results : Array.isArray(ended?.results) ? ended.results : records.filter((r) => r.t === 'test');
  const seen = new Map<string, TestResult>();
  for (const r of raw) {
    const id = String(r.id);
    const t: TestResult = { id, outcome: String(r.outcome) as TestOutcome, expected: expected ? expectedSet.has(id) : true };
    if (typeof r.message === 'string' && r.message) t.message = r.message;
    seen.set(id, t);
  }
  const tests = [...seen.values()];
  if (expected && (done?.ran || !done)) {
    for (const id of expected) if (!seen.has(id)) tests.push({ id, outcome: 'not-run', expected: true, message: 'an expected test that did not run' });
  }
  return tests;
}

/** Labels for what the limits did, read from the exit and the messages, and for output that was not trusted. */
function limitEvents(plan: TaskPlan, run: SandboxRunResult, { records, forged, done }: Report, tests: TestResult[], events: SandboxEvent[]): void {
  const texts = [run.stderr, String(done?.loadError ?? ''), ...tests.map((t) => t.message ?? '')].join('\n');
  if (run.exit.signal === 'SIGXCPU') events.push({ kind: 'cpu-limit', detail: 'CPU-time limit reached (SIGXCPU)' });
  else if (run.exit.signal && !run.killedBy) events.push({ kind: 'killed-by-signal', detail: run.exit.signal });
  if (/\bMemoryError\b/.test(texts)) events.push({ kind: 'memory-limit', detail: 'MemoryError under the address-space limit' });
  if (/File too large|\[Errno 27\]/.test(texts)) events.push({ kind: 'file-size-limit', detail: 'a write hit the file-size limit' });
  if (/Resource temporarily unavailable|\[Errno 11\]/.test(texts) && /fork|Popen|spawn|Thread|BlockingIOError/.test(texts))
    events.push({ kind: 'process-limit', detail: 'process creation refused by the process-count limit' });
  const runnerForged = Number(done?.forged ?? records.find((r) => r.t === 'forged')?.count ?? 0);
  if (forged) events.push({ kind: 'forged-output-ignored', detail: `${forged} unauthenticated line(s) on the report channel` });
  if (runnerForged) events.push({ kind: 'forged-output-ignored', detail: `${runnerForged} unauthenticated line(s) on the runner's report pipe` });
  if (done && Number(done.otherPid ?? 0))
    events.push({ kind: 'forged-output-ignored', detail: `${done.otherPid} record(s) from another process (a fork of the candidate's) ignored` });
  if (plan.kind === 'template' && run.stdout.includes('__REPOEXEC_RESULTS__'))
    events.push({ kind: 'forged-output-ignored', detail: 'a results line printed on stdout (not the harness channel)' });
}

/** What the runner refused, took for tampering, or could not carry across (isolated), each also recorded as an event. */
function runnerNotices(
  { records, done }: Report,
  events: SandboxEvent[],
): { refused: string[]; tampering: string[]; crossing: string[]; controlFlow: string[] } {
  const crossing: string[] = [];
  const controlFlow: string[] = [];
  // Refusals the runner's audit hook noted the moment they happened (also when no final report came).
  const notices = done?.refused ?? records.find((r) => r.t === 'notices')?.refused;
  const refused: string[] = (Array.isArray(notices) ? notices : []).map((x: unknown) => String(x).slice(0, 300));
  for (const r of refused) events.push({ kind: 'refused', detail: `the runner refused to ${r}` });
  const tampering: string[] = [];
  for (const e of Array.isArray(done?.events) ? (done.events as RecordDoc[]) : []) {
    const detail = String(e.detail ?? '').slice(0, 500);
    if (e.kind === 'tampering') {
      tampering.push(detail);
      events.push({ kind: 'tampering', detail });
    } else if (e.kind === 'crossing') {
      crossing.push(detail);
      events.push({ kind: 'crossing', detail });
    } else if (e.kind === 'control-flow') {
      controlFlow.push(detail);
      events.push({ kind: 'control-flow', detail });
    } else if (e.kind === 'refused') {
      if (!refused.includes(detail)) {
        refused.push(detail);
        events.push({ kind: 'refused', detail: `the runner refused to ${detail}` });
      }
    } else {
      // Frame look-ups refused quietly (logging, warnings and the like expect them to fail).
      events.push({ kind: 'refused', detail: `frame access refused (not counted against the candidate): ${detail}` });
    }
  }
  return { refused, tampering, crossing, controlFlow };
}

/** The verdict's status and reason: the first of these that applies, from the run's fate to the tests' results. */
function statusOf(d: Decision): { status: Verdict['status']; reason: string } {
  const { run, tests, expected, refused, tampering, notExercised } = d;
  const { done, ended, harnessError } = d.report;
  const blocking = d.report.findings.find((f) => BLOCKING.has(f.kind));
  if (run.killedBy === 'wall-timeout') return { status: 'timeout', reason: `killed at the ${d.timeoutMs} ms time limit` };
  if (run.exit.signal === 'SIGXCPU') return { status: 'timeout', reason: 'killed at the CPU-time limit' };
  if (d.candidate?.exit.signal === 'SIGXCPU') return { status: 'timeout', reason: 'the candidate process was killed at the CPU-time limit' };
  if (run.killedBy) return { status: 'error', reason: run.killedBy === 'output-limit' ? 'killed for producing too much output' : 'cancelled' };
  if (d.candidate?.killedBy === 'output-limit') return { status: 'error', reason: 'the candidate process was killed for producing too much output' };
  if (harnessError) {
    return {
      status: 'error',
      reason: `${harnessError.t === 'task-error' ? 'task problem' : 'harness error'}: ${String(harnessError.message).split('\n').filter(Boolean).slice(-1)[0] ?? ''}`,
    };
  }
  if (blocking && done) return { status: 'failed', reason: `static check: ${blocking.message}` };
  if (!done && refused.length) {
    return {
      status: 'error',
      reason: `forgery attempt: the candidate tried to ${refused[0]}, which the test runner refuses; then the run ended without a final report`,
    };
  }
  if (!done) {
    const how = run.exit.signal
      ? `killed by ${run.exit.signal}`
      : ended
        ? `the test runner exited with code ${ended.code} before its final report (an early exit such as os._exit, or a crash)`
        : `exited with code ${run.exit.code}`;
    return {
      status: 'error',
      reason: `no trustworthy test report: ${ended ? how : `the run ${how} before the harness finished (early exit, crash or sandbox failure)`}`,
    };
  }
  if (tampering.length) return { status: 'error', reason: `forgery: ${tampering[0]}${tampering.length > 1 ? ` (and ${tampering.length - 1} more)` : ''}` };
  if (refused.length) return { status: 'error', reason: `forgery attempt: the candidate tried to ${refused[0]}, which the test runner refuses` };
  if (done.loadError) return { status: 'failed', reason: loadReason(String(done.loadError)) };
  if (d.crossing.length)
    return { status: 'failed', reason: `a call of the target could not cross between the test process and the candidate's: ${d.crossing[0]}` };
  if (d.controlFlow.length) return { status: 'failed', reason: d.controlFlow[0]! };
  if (!tests.length || (done.pytestExit === 5 && !tests.some((t) => t.outcome === 'passed'))) return { status: 'error', reason: 'no tests ran' };
  if (notExercised) return { status: 'error', reason: `the tests did not exercise the candidate: ${notExercised}` };
  const passedExpected = tests.filter((t) => t.expected && t.outcome === 'passed').length;
  const failing = tests.filter((t) => FAILING.has(t.outcome) && (t.expected || !expected));
  if (failing.length) {
    const first = failing[0]!;
    return {
      status: 'failed',
      reason: `${failing.length} test(s) did not pass (first: ${first.id}: ${first.outcome}${first.message ? ` — ${lastLine(first.message)}` : ''})`,
    };
  }
  if (expected ? passedExpected === expected.length : tests.some((t) => t.outcome === 'passed')) {
    return {
      status: 'passed',
      reason: expected ? `all ${expected.length} expected tests passed` : `${tests.filter((t) => t.outcome === 'passed').length} tests passed`,
    };
  }
  return { status: 'failed', reason: expected ? `${expected.length - passedExpected} expected test(s) did not pass (skipped)` : 'no test passed' };
}

/** Why the tests did not reach the candidate, or null when they did. */
/**
 * A run that stopped before its tests were done, in words: what the runner names (the test run stopped, the tests failed
 * to load, the candidate failed to load in its own process …) with the error's last line; else the code failed to load.
 * (A KeyboardInterrupt raised by the target during the tests read "the code failed to load" before.)
 */
export function loadReason(loadError: string): string {
  const lines = loadError.split('\n').filter(Boolean);
  const last = lines[lines.length - 1] ?? '';
  const named = /^(the [^:]{3,80}):/.exec(lines[0] ?? '');
  if (!named) return `the code failed to load: ${last}`;
  return last.startsWith(`${named[1]}:`) ? last : `${named[1]}: ${last}`;
}

function exerciseProblem(t: TargetUse): string | null {
  if (t.loadedFrom === null) return `the tests never imported the target's module (${t.expectedFile})`;
  if (t.loadedFrom !== t.expectedFile) return `they imported the target's module from ${t.loadedFrom}, not from the workspace copy ${t.expectedFile}`;
  if (t.calls === 0) return 'the target was never called while the tests ran';
  return null;
}

function lastLine(s: string): string {
  return (
    s
      .split('\n')
      .filter((l) => l.trim())
      .slice(-1)[0] ?? ''
  )
    .trim()
    .slice(0, 300);
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
