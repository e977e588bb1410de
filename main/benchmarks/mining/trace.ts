// Mining's first look at the tests: the suite's command (given, or found in the repository), and one run of the whole
// suite in the sandbox with a call tracer (validate/py/_opencoder_trace.py) that records, per test, which repository
// functions it called and how deep below test code. That run decides which tests each task gets.

import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { OpenCoderError } from '../../model/errors.ts';
import { parseTestCommand, type TestCommand } from '../../validate/command.ts';
import { runSandboxed, type SandboxRunResult } from '../../validate/sandbox.ts';
import { taskInterpreter } from '../../validate/task-plan.ts';
import type { Validator } from '../../validate/validator.ts';
import type { Task } from '../../model/task.ts';

export class MineError extends OpenCoderError {
  constructor(message: string) {
    super('invalid-input', message);
  }
}

/** One test of the traced run: its outcome, time and the calls it made ([file, qualname, depth]). */
export interface TracedTest {
  id: string;
  outcome: string;
  ms: number;
  calls: [string, string, number][];
  /** Why it did not pass (its end, at most 500 characters). */
  message?: string;
}

export interface SuiteTrace {
  tests: TracedTest[];
  /** Functions called while the tests were imported (a module calling its own function), as `file:qualname`. */
  importCalls: string[];
  /** Functions called by fixtures outside any test. */
  fixtureCalls: string[];
  /** Why the tests could not be loaded at all, or null. */
  loadError: string | null;
  /** Modules that failed to import while the tests were collected (unittest's or pytest's own messages). */
  loadErrors: string[];
  durationMs: number;
  /** Set when the run was ended from outside: its time ran out (the test running then named) or it was cancelled. */
  stopped: { why: 'timeout' | 'aborted' | 'output-limit'; lastTest: string | null } | null;
  stderr: string;
}

/** Whether the repository's interpreter can import a module (pytest), asked outside the sandbox with no repository code. */
function canImport(python: string, module: string): boolean {
  const r = spawnSync(python, ['-I', '-c', `import ${module}`], { stdio: 'ignore', timeout: 20_000 });
  return r.status === 0;
}

const PYTEST_CONFIG: [string, RegExp | null][] = [
  ['pytest.ini', null],
  ['conftest.py', null],
  ['pyproject.toml', /^\[tool\.pytest/m],
  ['setup.cfg', /^\[tool:pytest\]/m],
  ['tox.ini', /^\[pytest\]/m],
];

/**
 * The command that runs the repository's whole suite: pytest where the repository configures it and the interpreter
 * has it, else unittest discovery in its tests folder (`tests/` or `test/`, as a package when it is one), else
 * unittest discovery from the root.
 */
export function findTestCommand(root: string, python: string): string {
  const has = (rel: string) => fs.existsSync(path.join(root, rel));
  const configured = PYTEST_CONFIG.some(([file, re]) => {
    if (!has(file)) return false;
    if (!re) return true;
    try {
      return re.test(fs.readFileSync(path.join(root, file), 'utf8'));
    } catch {
      return false;
    }
  });
  if (configured && canImport(python, 'pytest')) return 'python3 -m pytest';
  for (const dir of ['tests', 'test']) {
    if (!fs.existsSync(path.join(root, dir)) || !fs.statSync(path.join(root, dir)).isDirectory()) continue;
    return has(`${dir}/__init__.py`) ? `python3 -m unittest discover -s ${dir} -t .` : `python3 -m unittest discover -s ${dir}`;
  }
  return 'python3 -m unittest discover';
}

/** The interpreter a command runs under: the one given (a path or a virtualenv folder), the one it names, or the sandbox's. */
export function interpreterOf(root: string, given: string | undefined, named: string | null): string | null {
  return taskInterpreter({ id: 'mine', repoPath: root, ...(given ? { python: given } : {}) } as Task, named);
}

/** The file pattern unittest discovery looks for (`-p`, or the second positional word), or null (the default, or pytest). */
export function discoveryPattern(cmd: TestCommand): string | null {
  if (cmd.mode !== 'unittest' || cmd.args[0] !== 'discover') return null;
  const positional: string[] = [];
  for (let i = 1; i < cmd.args.length; i++) {
    const a = cmd.args[i]!;
    if (a === '-p' || a === '--pattern') return cmd.args[i + 1] ?? null;
    if (['-s', '--start-directory', '-t', '--top-level-directory', '-k'].includes(a)) i++;
    else if (!a.startsWith('-')) positional.push(a);
  }
  return positional[1] ?? null;
}

export function parseSuiteCommand(command: string): TestCommand {
  try {
    return parseTestCommand(command);
  } catch (err) {
    throw new MineError(`the test command ${JSON.stringify(command)} cannot be run by the validator: ${(err as Error).message}`);
  }
}

/** The folder unittest discovery puts first on sys.path (test ids are dotted from there), or null for the root. */
export function discoveryTop(cmd: TestCommand): string | null {
  if (cmd.mode !== 'unittest' || cmd.args[0] !== 'discover') return null;
  let start = '.';
  let top: string | null = null;
  const pos: string[] = [];
  for (let i = 1; i < cmd.args.length; i++) {
    const a = cmd.args[i]!;
    if (a === '-s' || a === '--start-directory') start = cmd.args[++i] ?? start;
    else if (a === '-t' || a === '--top-level-directory') top = cmd.args[++i] ?? top;
    else if (a === '-p' || a === '--pattern' || a === '-k') i++;
    else if (!a.startsWith('-')) pos.push(a);
  }
  if (pos[0]) start = pos[0];
  if (pos[2]) top = pos[2];
  const t = path.posix.normalize(top ?? start).replace(/\/$/, '');
  return t === '.' ? null : t;
}

/** What the traced suite may print and report in all before it is stopped. */
const SUITE_OUTPUT_BYTES = 512 * 2 ** 20;

function parseRecord(line: string): Record<string, unknown> | null {
  if (!line.trim()) return null;
  try {
    const r = JSON.parse(line) as unknown;
    return r && typeof r === 'object' ? (r as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

function testOf(r: Record<string, unknown>): TracedTest {
  const t: TracedTest = {
    id: String(r.id),
    outcome: String(r.outcome),
    ms: Number(r.ms) || 0,
    calls: (r.calls as [string, string, number][] | undefined) ?? [],
  };
  if (typeof r.message === 'string') t.message = r.message;
  return t;
}

export interface TraceRunOptions {
  python: string | null;
  sources: string[];
  testFiles: string[];
  perTestTimeoutS: number;
  suiteTimeoutS: number;
  /** False: the same run with no tracer (the benchmark's plain run). */
  trace?: boolean;
  signal?: AbortSignal;
  /** Each test as it ends (progress), with the number of tests the suite loaded (0 until it says). */
  onTest?: (t: TracedTest, n: number, total: number) => void;
}

/** Runs the suite once in the validator's sandbox, on a snapshot of the frozen repository. */
export async function traceSuite(validator: Validator, root: string, cmd: TestCommand, opts: TraceRunOptions): Promise<SuiteTrace> {
  const repo = validator.snapshotOf(root);
  // Records are read as they arrive, for progress; the whole channel is read again once the run has ended.
  let seen = 0;
  let total = 0;
  let partial = '';
  const onChannel = (chunk: Buffer) => {
    const lines = (partial + chunk.toString('utf8')).split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) {
      const r = parseRecord(line);
      if (r?.t === 'loaded') total = Number(r.count) || 0;
      else if (r?.t === 'test') opts.onTest?.(testOf(r), ++seen, total);
    }
  };
  const result: SandboxRunResult = await runSandboxed(validator.sandbox, {
    entry: 'trace',
    ...(opts.python ? { python: opts.python } : {}),
    stdin: ({ ws, base }) =>
      JSON.stringify({
        ws,
        base,
        copy: { dirs: repo.dirs, files: repo.files, links: repo.links, ...(repo.modes ? { modes: repo.modes } : {}) },
        mode: cmd.mode,
        testArgs: cmd.args,
        env: cmd.env,
        pythonPath: cmd.pythonPath,
        sources: opts.sources,
        testFiles: opts.testFiles,
        perTestTimeout: opts.perTestTimeoutS,
        trace: opts.trace !== false,
      }),
    timeoutMs: opts.suiteTimeoutS * 1000,
    // The repository's own suite may print and report far more than one candidate's run: it is not judged by it.
    limits: { ...validator.limits, cpuSeconds: opts.suiteTimeoutS + 1, outputKillBytes: SUITE_OUTPUT_BYTES },
    repo: repo.root,
    repoBytes: repo.bytes,
    onChannel,
    ...(opts.signal ? { signal: opts.signal } : {}),
  });
  const recs = result.channel
    .toString('utf8')
    .split('\n')
    .map(parseRecord)
    .filter((r): r is Record<string, unknown> => r !== null);
  const tests: TracedTest[] = [];
  const importCalls = new Set<string>();
  const fixtureCalls = new Set<string>();
  const loadErrors: string[] = [];
  let loadError: string | null = null;
  let lastStarted: string | null = null;
  let done = false;
  for (const r of recs) {
    if (r.t === 'start') lastStarted = String(r.id);
    else if (r.t === 'test') {
      tests.push(testOf(r));
      lastStarted = null;
    } else if (r.t === 'outside') {
      const into = r.phase === 'import' ? importCalls : fixtureCalls;
      for (const [f, q] of (r.calls as [string, string, number][]) ?? []) into.add(`${f}:${q}`);
    } else if (r.t === 'load-errors') loadErrors.push(...((r.messages as string[]) ?? []));
    else if (r.t === 'load-error') loadError = String(r.message);
    else if (r.t === 'done') done = true;
  }
  let stopped: SuiteTrace['stopped'] = null;
  if (result.killedBy === 'aborted') stopped = { why: 'aborted', lastTest: lastStarted };
  else if (result.killedBy === 'wall-timeout' || (!done && result.exit.signal === 'SIGXCPU')) stopped = { why: 'timeout', lastTest: lastStarted };
  else if (result.killedBy === 'output-limit') stopped = { why: 'output-limit', lastTest: lastStarted };
  if (!done && !stopped && loadError === null)
    loadError = `the traced suite ended before it finished (exit ${result.exit.code ?? result.exit.signal}${lastStarted ? `, during ${lastStarted}` : ''}): ${result.stderr.slice(-1500)}`;
  return {
    tests,
    importCalls: [...importCalls].sort(),
    fixtureCalls: [...fixtureCalls].sort(),
    loadError,
    loadErrors,
    durationMs: result.durationMs,
    stopped,
    stderr: result.stderr.slice(-4000),
  };
}

/** For each function (`file\0qualname`), the passing tests that call it: directly first, then by depth, then by id. */
export function testsByFunction(trace: SuiteTrace): Map<string, { id: string; depth: number }[]> {
  const out = new Map<string, { id: string; depth: number }[]>();
  for (const t of trace.tests) {
    if (t.outcome !== 'passed') continue;
    for (const [file, qualname, depth] of t.calls) {
      const key = `${file}\0${qualname}`;
      let list = out.get(key);
      if (!list) out.set(key, (list = []));
      list.push({ id: t.id, depth });
    }
  }
  for (const list of out.values()) list.sort((a, b) => a.depth - b.depth || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return out;
}
