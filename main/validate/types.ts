// The data the validator produces: static findings, per-test results, sandbox events, verdicts.

export type VerdictStatus = 'passed' | 'failed' | 'error' | 'timeout';

export type FindingKind =
  | 'syntax'
  | 'target-missing'
  | 'target-not-def'
  | 'splice'
  | 'signature'
  | 'undefined-name'
  | 'unresolved-import'
  | 'future-import'
  | 'internal';

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
  | 'sandbox-failure';

export interface SandboxEvent {
  kind: SandboxEventKind;
  detail: string;
}

export type SandboxStrength = 'strong' | 'weak';

export interface SandboxInfo {
  strength: SandboxStrength;
  /** One line naming the mode and what it does (or does not) isolate; every verdict carries it. */
  label: string;
  /** Why the strong mode is not in use (weak only). */
  fallbackReason?: string;
  /** uid the candidate runs as, when privileges are dropped. */
  uid: number | null;
  tools: { bwrap: string | null; setpriv: string | null; prlimit: string | null; python: string };
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
}

export function passedCount(v: Verdict): number {
  return v.tests.filter((t) => t.outcome === 'passed' && (t.expected || !v.expectedTests)).length;
}
