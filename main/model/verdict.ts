// The data the validator produces: static findings, per-test results, sandbox events, verdicts.

/**
 * `flaky`: the outcome depended on timing (a timeout, or a run within 20 % of the limit), so the run was
 * repeated once, and the two runs disagreed. Never a pass; reports count these apart.
 */
export type VerdictStatus = 'passed' | 'failed' | 'error' | 'timeout' | 'flaky';

export type FindingKind =
  'syntax' | 'target-missing' | 'target-not-def' | 'splice' | 'signature' | 'undefined-name' | 'unresolved-import' | 'future-import' | 'internal';

export interface StaticFinding {
  kind: FindingKind;
  severity: 'error' | 'warning';
  message: string;
  /** 1-based line in the candidate's own code, when known. */
  line?: number;
  col?: number;
  name?: string;
}

export type TestOutcome =
  | 'passed'
  | 'failed'
  | 'error'
  | 'skipped'
  | 'timeout'
  | 'missing'
  | 'expected-failure'
  | 'unexpected-success'
  /** Expected by the task but never reported by the harness. */
  | 'not-run';

export interface TestResult {
  id: string;
  outcome: TestOutcome;
  message?: string;
  /** Whether the task names this test as one of its own (false: another test the command ran). */
  expected: boolean;
}

export type SandboxEventKind =
  | 'wall-timeout'
  | 'cpu-limit'
  | 'memory-limit'
  | 'output-limit'
  | 'file-size-limit'
  | 'process-limit'
  | 'killed-by-signal'
  | 'aborted'
  | 'no-report'
  | 'forged-output-ignored'
  /** The candidate tried something the runner refuses (frame or object enumeration, tracing, ctypes, …). */
  | 'refused'
  /** The candidate altered a module, class or name it did not define (the test framework, builtins, …). */
  | 'tampering'
  /** The tests never loaded the candidate from the workspace, or never called it. */
  | 'not-exercised'
  /** Isolated: a call of the target could not cross between the test process and the candidate's (a value that is not data, a dead candidate process). */
  | 'crossing'
  /**
   * The target raised control flow (StopIteration, SystemExit, unittest's SkipTest …) into a test where the reference
   * raised no such exception: it would steer the tests' own loops or outcomes, so the verdict is failed.
   */
  | 'control-flow'
  | 'rerun'
  | 'sandbox-failure';

export interface SandboxEvent {
  kind: SandboxEventKind;
  detail: string;
}

/**
 * A verdict the infrastructure decided, not the candidate: the sandbox could not start (`sandbox`), our harness
 * crashed outside the candidate's process (`harness`), or the task itself is broken (`workspace`). A pair with
 * such a verdict is unscored (main/experiment/runner.ts), never a failed sample.
 */
export interface InfrastructureFault {
  cause: 'sandbox' | 'harness' | 'workspace';
  detail: string;
}

export type SandboxStrength = 'strong' | 'weak';

export interface SandboxInfo {
  strength: SandboxStrength;
  /** One line naming the mode and what it does (or does not) isolate; every verdict carries it. */
  label: string;
  /** Why the strong mode is not in use (weak only). */
  fallbackReason?: string;
  /**
   * uid the candidate runs as, when privileges are dropped (strong mode). Weak mode as root draws a uid of its own for
   * each run instead (see RUN_UID_BASE); this one then only says that privileges are dropped.
   */
  uid: number | null;
  /**
   * uid an isolated run's candidate process runs as, when it differs from the tests' (weak mode as root: no file
   * system namespace keeps it from what the tests read, another uid does). Absent in infos made before it existed.
   */
  candidateUid?: number | null;
  /**
   * `unshare`: weak mode as root starts each run in a PID namespace of its own (util-linux unshare), so that nothing
   * it starts outlives it (absent in infos made before it existed).
   */
  tools: {
    bwrap: string | null;
    setpriv: string | null;
    prlimit: string | null;
    python: string;
    unshare?: string | null;
    /** Weak mode with a network namespace (`network: 'none'`): `ip`, which brings each run's loopback up. */
    ip?: string | null;
  };
  /**
   * What a candidate can reach of the network: 'none' (strong mode, or weak mode with a network namespace of its own),
   * or 'host', every service of this machine and beyond (weak mode without one). Absent in infos made before it existed.
   */
  network?: 'none' | 'host';
}

export interface Limits {
  /** CPU seconds per process (soft; the hard limit is one second more). */
  cpuSeconds: number;
  addressSpaceBytes: number;
  fileSizeBytes: number;
  processes: number;
  /** Size of the workspace tmpfs beyond the copied repository, and of the private /tmp. */
  workspaceBytes: number;
  tmpBytes: number;
  /** Captured stdout/stderr kept per stream, and the total after which the run is killed. */
  outputKeepBytes: number;
  outputKillBytes: number;
}

/**
 * How a run's verdicts were come by: candidates run in the sandbox, verdicts reused for a byte-identical candidate
 * (same task, tests, limit, isolation, sandbox and validator version), verdicts taken from another worker through
 * the queue, and shared verdicts refused because their seal did not open (those candidates were run again).
 */
export interface VerdictUse {
  judged: number;
  reused: number;
  shared: number;
  sharedRefused: number;
}

export function emptyVerdictUse(): VerdictUse {
  return { judged: 0, reused: 0, shared: 0, sharedRefused: 0 };
}

/** `into` plus `sign` × `u`, field by field (a sum over validators, or counts since a starting point). */
export function addVerdictUse(into: VerdictUse, u: VerdictUse, sign: 1 | -1 = 1): VerdictUse {
  for (const k of Object.keys(into) as (keyof VerdictUse)[]) into[k] += sign * u[k];
  return into;
}

/** Every verdict counted, however it was come by (cumulative counts only grow). */
export const verdictUseTotal = (u: VerdictUse): number => u.judged + u.reused + u.shared + u.sharedRefused;

export interface Verdict {
  taskId: string;
  status: VerdictStatus;
  /** One line saying why. */
  reason: string;
  /** Static findings of the candidate (line numbers in the candidate's code). */
  findings: StaticFinding[];
  /** Per-test results in run order (expected tests that never ran are listed as not-run). */
  tests: TestResult[];
  /** The task's test ids, when it names them. */
  expectedTests: string[] | null;
  durationMs: number;
  timeoutMs: number;
  peakMemoryBytes: number | null;
  sandbox: { strength: SandboxStrength; label: string; events: SandboxEvent[] };
  exit: { code: number | null; signal: string | null };
  stdout: string;
  stderr: string;
  /** True when this verdict was reused for an identical candidate of the same task. */
  cached: boolean;
  /** Where the expected tests came from: the task's own list, the reference's passing run, or neither. */
  expectedFrom: 'task' | 'reference' | null;
  /** Where the tests loaded the target's module from, and how often the tests called the target. */
  target: TargetUse | null;
  /** The interpreter the tests ran under and the environment assignments they got. */
  environment: TestEnvironment | null;
  /** Both outcomes when a timing-dependent verdict was rerun and the two runs disagreed (status 'flaky'). */
  flaky: { outcomes: [VerdictStatus, VerdictStatus]; reasons: [string, string] } | null;
  /** Set when the infrastructure, not the candidate, decided this verdict; absent or null otherwise. */
  infrastructure?: InfrastructureFault | null;
  /**
   * Where the verdict was decided. `isolated`: the tests ran in a process the candidate never ran in, and only
   * data crossed between the two (a wrong candidate can pass only by returning what the tests accept).
   * `in-process`: the candidate ran inside the test process under the runner's hardening (best effort). Absent in
   * verdicts stored before isolation existed: those were all decided in-process.
   */
  isolation?: VerdictIsolation;
  /**
   * Why the verdict was decided where it was: the task's reference check's reason (`the reference passes every test
   * the task names isolated`, `isolated, the reference was judged failed (…)`), the validator's or the caller's
   * setting, or `the task has no reference: isolated by default`. Absent in verdicts stored before it was recorded
   * (read with isolationReasonOf), and in static-only checks.
   */
  isolationReason?: string;
  /**
   * Per test, the control-flow exception classes (`builtins.StopIteration`, `unittest.case.SkipTest` …) the target
   * raised into it. A reference's run records them: a candidate may raise the same only in the same tests.
   */
  controlFlow?: Record<string, string[]>;
}

export type VerdictIsolation = 'isolated' | 'in-process';

/** A verdict's isolation, reading verdicts stored before the field existed as in-process (they all were). */
export function isolationOf(v: Pick<Verdict, 'isolation'>): VerdictIsolation {
  return v.isolation ?? 'in-process';
}

/** What a verdict says of why it was decided where it was, or what to show when it was stored before that was recorded. */
export const ISOLATION_REASON_NOT_RECORDED = 'not recorded (stored before the reason was kept)';

/** A verdict's isolation reason, or ISOLATION_REASON_NOT_RECORDED for one stored before the field existed. */
export function isolationReasonOf(v: Pick<Verdict, 'isolationReason'>): string {
  return v.isolationReason || ISOLATION_REASON_NOT_RECORDED;
}

export interface TargetUse {
  /** The workspace file the candidate went into (relative to the workspace). */
  expectedFile: string;
  /** The file the tests' copy of the target's module came from (relative when inside the workspace), or null if never imported. */
  loadedFrom: string | null;
  /** Calls of the target while tests ran; null when the runner could not observe calls. */
  calls: number | null;
}

export interface TestEnvironment {
  python: string;
  version: string;
  /** Assignments given in front of the test command (PYTHONPATH=. …), as written. */
  env: Record<string, string>;
  /** Repository files kept out of the workspace as credentials or keys (absent in verdicts stored before). */
  withheld?: string[];
}

export function passedCount(v: Verdict): number {
  return v.tests.filter((t) => t.outcome === 'passed' && (t.expected || !v.expectedTests)).length;
}
