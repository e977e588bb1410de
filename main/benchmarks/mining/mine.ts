// Mining a benchmark from a repository folder: freeze a copy, find the candidate functions, trace the suite once to
// learn which tests call each, check every candidate with the validator (reference twice, stub, mutants), audit the
// survivors' retrieved evidence for leaks, and write the manifest. Each decision is stored as it is made, so a
// stopped run resumes where it was; the same repository and options give the same manifest, byte for byte.

import fs from 'node:fs';
import path from 'node:path';
import { createHash } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import type { Task } from '../../model/task.ts';
import { abortError } from '../../validate/pool.ts';
import { canonicalPath, isInside } from '../../util/paths.ts';
import { validatorVersion, type Validator } from '../../validate/validator.ts';
import { checkTask } from './check.ts';
import {
  countDecisions,
  freezeRepository,
  FROZEN_REPO,
  inOrder,
  isMiningOutput,
  MINE_REPORT,
  MineState,
  mineReport,
  STATE_DIR,
  writeMinedManifest,
} from './freeze.ts';
import { makeMutants, repositoryFiles, scanCandidates } from './scan.ts';
import {
  discoveryPattern,
  discoveryTop,
  findTestCommand,
  interpreterOf,
  MineError,
  parseSuiteCommand,
  testsByFunction,
  traceSuite,
  type SuiteTrace,
} from './trace.ts';
import { taskRecordOf, taskTestCommand } from './task-record.ts';
import type { Decision, MineCandidate, MineEvent, MineOptions, MineSummary, TaskChecks, TestLink } from './types.ts';

/** Bumped when what mining decides changes: a state kept by another version is not resumed. */
export const MINER_VERSION = 'mine-1';

export interface MineServices {
  validator: Validator;
  /**
   * The leak audit over each kept task's retrieved evidence (the frozen copy indexed): suspects per task id. Absent:
   * no audit, and the summary says so.
   */
  auditLeaks?: (tasks: Task[], signal?: AbortSignal) => Promise<Map<string, { suspects: number; detail: string }>>;
}

export const MINE_DEFAULTS = { minDocWords: 3, seed: 0, mutants: 8, maxTests: 100, perTestTimeoutS: 60, suiteTimeoutS: 600 };

/** Runs `fn` over the items with at most `n` at once, in order of start. */
async function eachLimited<T>(items: T[], n: number, fn: (item: T, i: number) => Promise<void>, signal?: AbortSignal): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      if (signal?.aborted) throw abortError();
      const i = next++;
      await fn(items[i]!, i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(n, items.length) }, worker));
}

/** A seeded shuffle (mulberry32), the same on every machine. */
function seededOrder<T>(items: T[], seed: number): T[] {
  let a = seed >>> 0;
  const rand = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const out = items.slice();
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/** A candidate's drop before anything runs (docstring, body, name, header), or null. */
export function staticDrop(
  c: MineCandidate,
  minDocWords: number,
  firstOfCode: Map<string, string>,
): Omit<Extract<Decision, { kept: false }>, 'id' | 'file' | 'qualname' | 'line' | 'kept'> | null {
  if (!c.doc) return { reason: 'no-docstring', detail: 'it has no docstring' };
  const words = c.doc.split(/\s+/).filter(Boolean).length;
  if (words < minDocWords) return { reason: 'short-docstring', detail: `its docstring has ${words} words (fewer than ${minDocWords})` };
  if (c.trivial) return { reason: 'trivial', detail: c.trivial };
  if (c.sameName > 1) return { reason: 'duplicate', detail: `${c.qualname} is defined ${c.sameName} times in ${c.file}, so it cannot be named as one target` };
  const body = c.reference.replace(/^[ \t]*@.*\n/gm, '');
  const first = firstOfCode.get(body);
  if (first && first !== c.id) return { reason: 'duplicate', detail: `its code is the same as ${first}'s` };
  if (!c.signature) return { reason: 'unparsable', detail: 'its header could not be cut out up to its colon' };
  return null;
}

function decided(c: MineCandidate, d: { reason: Extract<Decision, { kept: false }>['reason']; detail: string }): Decision {
  return { id: c.id, file: c.file, qualname: c.qualname, line: c.line, kept: false, ...d };
}

/** What keys the resume state: the repository's bytes, the options that change decisions, the validator and this miner. */
function stateKey(repoHash: string, opts: MineOptions, testCommand: string, leakAudit: boolean): string {
  const o = { ...MINE_DEFAULTS, ...opts };
  const decisive = [
    repoHash,
    testCommand,
    leakAudit,
    o.python ?? null,
    o.include ?? [],
    o.limit ?? null,
    o.minDocWords,
    o.seed,
    o.mutants,
    o.maxTests,
    o.perTestTimeoutS,
  ];
  return createHash('sha256')
    .update(JSON.stringify([MINER_VERSION, validatorVersion(), decisive]))
    .digest('hex');
}

/** The frozen copy's folder name: the repository's own, made safe as one path segment. */
function frozenName(folder: string): string {
  const base = path
    .basename(folder)
    .replace(/[^\w.-]+/g, '_')
    .replace(/^\.+/, '');
  return base || 'repository';
}

/** Checks the folder and the output place; the two as absolute paths. */
function placesOf(opts: MineOptions): { folder: string; out: string } {
  // Real paths: a link must not lead the output into the repository (or the repository into the output).
  const folder = canonicalPath(opts.folder);
  let st: fs.Stats;
  try {
    st = fs.statSync(folder);
  } catch (err) {
    throw new MineError(`cannot read the repository folder ${folder}: ${(err as Error).message}`);
  }
  if (!st.isDirectory()) throw new MineError(`${folder} is not a folder`);
  const out = canonicalPath(opts.out);
  if (out === folder) throw new MineError(`--out ${out} is the repository itself: mining never writes into the repository's own files; pick another folder`);
  if (fs.existsSync(out) && !fs.statSync(out).isDirectory()) throw new MineError(`--out ${out} is a file, not a folder`);
  // Mining remakes its repos/ folder there: a folder that holds anything else is not one to write into.
  if (fs.existsSync(out) && fs.readdirSync(out).length && !isMiningOutput(out))
    throw new MineError(`--out ${out} is not empty and holds no earlier mining (no ${STATE_DIR}/ or ${MINE_REPORT}); choose a new folder`);
  // Inside the repository, the frozen copy (every target unmasked) would become part of it: indexed with it, and
  // readable by any candidate a later task on the repository runs.
  if (isInside(folder, out))
    throw new MineError(
      `--out ${out} lies inside the repository ${folder}; its frozen copy would become part of the repository, answers included. Choose a folder outside it`,
    );
  // The frozen copy is remade on every run: a repository inside it would be deleted with it.
  if (isInside(path.join(out, FROZEN_REPO), folder))
    throw new MineError(
      `${folder} lies inside ${path.join(out, FROZEN_REPO)}, the frozen copy mining remakes; mine the original folder, or pick another --out`,
    );
  return { folder, out };
}

type Options = MineOptions & { [K in keyof typeof MINE_DEFAULTS]: number };
type Emit = (e: MineEvent) => void;

/** What the first phase establishes: the places, the frozen copy, the suite's command and interpreter, the files. */
interface Setup {
  folder: string;
  out: string;
  frozen: string;
  repoHash: string;
  testCommand: string;
  cmd: ReturnType<typeof parseSuiteCommand>;
  python: string | null;
  hostPython: string;
  files: ReturnType<typeof repositoryFiles>;
}

/** Freezes the repository and finds its suite and files; a clear error for a folder that cannot be mined. */
function setUp(opts: MineOptions, validator: Validator, onEvent: Emit): Setup {
  const { folder, out } = placesOf(opts);
  fs.mkdirSync(out, { recursive: true });
  // Named after the repository (under repos/, as the importers lay theirs out), so its index reads as the project's name wherever repositories are listed.
  const frozen = path.join(out, FROZEN_REPO, frozenName(folder));
  onEvent({ type: 'phase', phase: 'scan', text: `copying ${folder} to ${frozen} and reading its sources` });
  // A copy an earlier run made under another name (the repository renamed) is not the one this run freezes.
  fs.rmSync(path.join(out, FROZEN_REPO), { recursive: true, force: true });
  const repoHash = freezeRepository(folder, frozen);
  // The interpreter given decides whether pytest is there to be found; the command's own is taken once it is parsed.
  const given = opts.python ? interpreterOf(frozen, opts.python, null) : null;
  const testCommand = opts.testCommand ?? findTestCommand(frozen, given ?? validator.sandbox.tools.python);
  const cmd = parseSuiteCommand(testCommand);
  const python = interpreterOf(frozen, opts.python, cmd.interpreter);
  const files = repositoryFiles(frozen, testStartDir(cmd.args), opts.include, discoveryPattern(cmd));
  if (!files.tests.length && !opts.testCommand)
    throw new MineError(
      `${folder} has no test files (test_*.py, *_test.py, or a tests/ folder), so no task can be checked; pass --test-command if its tests live elsewhere`,
    );
  if (!files.sources.length)
    throw new MineError(`${folder} has no Python source files of its own${opts.include?.length ? ` matching ${opts.include.join(', ')}` : ''}`);
  return { folder, out, frozen, repoHash, testCommand, cmd, python, hostPython: python ?? validator.sandbox.tools.python, files };
}

/** Drops what needs nothing run (docstring, body, name, header); the candidates left, undecided. */
function staticPhase(candidates: MineCandidate[], state: MineState, minDocWords: number): MineCandidate[] {
  const body = (c: MineCandidate) => c.reference.replace(/^[ \t]*@.*\n/gm, '');
  const firstOfCode = new Map<string, string>();
  for (const c of candidates) if (c.doc && !c.trivial && !firstOfCode.has(body(c))) firstOfCode.set(body(c), c.id);
  const live: MineCandidate[] = [];
  for (const c of candidates) {
    if (state.decisions.has(c.id)) continue;
    const drop = staticDrop(c, minDocWords, firstOfCode);
    if (drop) state.put(decided(c, drop));
    else live.push(c);
  }
  return live;
}

/** The traced suite run: kept beside the decisions, so a resumed run reads it instead of running the suite again. */
async function tracePhase(
  s: Setup,
  o: Options,
  state: MineState,
  needed: boolean,
  validator: Validator,
  onEvent: Emit,
  signal?: AbortSignal,
): Promise<SuiteTrace | null> {
  const kept = state.getCached<SuiteTrace>('trace');
  if (kept || !needed) return kept;
  onEvent({ type: 'phase', phase: 'trace', text: `running the suite once with a call tracer: ${s.testCommand}` });
  const trace = await traceSuite(validator, s.frozen, s.cmd, {
    python: s.python,
    sources: s.files.sources,
    testFiles: s.files.tests,
    perTestTimeoutS: o.perTestTimeoutS,
    suiteTimeoutS: o.suiteTimeoutS,
    ...(signal ? { signal } : {}),
    onTest: (t, n, total) => (n % 25 === 0 || n === total) && onEvent({ type: 'progress', phase: 'trace', done: n, total, current: t.id }),
  });
  suiteProblem(trace, s.testCommand, o.suiteTimeoutS);
  state.putCached('trace', trace);
  return trace;
}

interface ToCheck {
  c: MineCandidate;
  task: Task;
}

/** Each undecided candidate with the tests that call it (`untested` without any); those over --limit left out. */
function tasksPhase(s: Setup, o: Options, undecided: MineCandidate[], trace: SuiteTrace | null, state: MineState): { checking: ToCheck[]; notChecked: number } {
  const links = trace ? testsByFunction(trace) : new Map<string, TestLink[]>();
  const importCalls = new Set(trace?.importCalls ?? []);
  const toCheck: ToCheck[] = [];
  for (const c of undecided) {
    const calling = links.get(`${c.file}\0${c.qualname}`) ?? [];
    const found = calling.filter((l) => loadableTestId(l.id, s.cmd.mode));
    if (!found.length) {
      const detail = calling.length
        ? `only tests that cannot be run by name call it (${calling
            .slice(0, 2)
            .map((l) => l.id)
            .join(', ')}: doctests or generated tests)`
        : 'no passing test of the suite called it';
      state.put(decided(c, { reason: 'untested', detail }));
      continue;
    }
    const chosen = found.slice(0, o.maxTests);
    const record = taskRecordOf(c, {
      tests: chosen,
      calling: found.length,
      test_command: taskTestCommand(
        s.cmd,
        chosen.map((l) => l.id),
        discoveryTop(s.cmd),
      ),
      project: path.basename(s.folder),
      importTime: importCalls.has(`${c.file}:${c.qualname}`),
      python: o.python ? path.resolve(o.python) : undefined,
      seed: o.seed,
    });
    toCheck.push({ c, task: { ...record, repoPath: s.frozen } });
  }
  const picked =
    o.limit !== undefined && toCheck.length > o.limit
      ? new Set(
          seededOrder(toCheck, o.seed)
            .slice(0, o.limit)
            .map((t) => t.c.id),
        )
      : null;
  const checking = picked ? toCheck.filter((t) => picked.has(t.c.id)) : toCheck;
  return { checking, notChecked: toCheck.length - checking.length };
}

/** Reference twice, stub, mutants: each task decided and stored the moment its checks end. */
async function checkPhase(
  s: Setup,
  o: Options,
  checking: ToCheck[],
  state: MineState,
  validator: Validator,
  onEvent: Emit,
  signal?: AbortSignal,
): Promise<void> {
  onEvent({ type: 'phase', phase: 'checks', text: `checking ${checking.length} tasks: reference twice, stub, up to ${o.mutants} mutants each` });
  if (!checking.length) return;
  const mutants = await makeMutants(
    s.hostPython,
    checking.map((t) => ({ key: t.c.id, code: t.c.reference, max: o.mutants, seed: o.seed })),
    signal,
  );
  let done = 0;
  await eachLimited(
    checking,
    Math.max(2, validator.pool.size * 2),
    async ({ c, task }) => {
      const outcome = await checkTask(validator, task, mutants.get(c.id)?.mutants ?? [], signal);
      if (signal?.aborted) throw abortError();
      const d: Decision = outcome.kept
        ? { id: c.id, file: c.file, qualname: c.qualname, line: c.line, kept: true, record: withChecks(task, outcome.checks) }
        : decided(c, { reason: outcome.reason, detail: outcome.detail });
      state.put(d);
      onEvent({ type: 'decision', decision: d, done: ++done, total: checking.length });
    },
    signal,
  );
}

/** The leak audit over the kept tasks not audited yet (a task audited in an earlier run says so in its record). */
async function leakPhase(s: Setup, state: MineState, audit: MineServices['auditLeaks'], onEvent: Emit, signal?: AbortSignal): Promise<void> {
  const pending = [...state.decisions.values()].filter(
    (d): d is Extract<Decision, { kept: true }> => d.kept && (d.record.source as { checks?: { leak?: { audited?: boolean } } }).checks?.leak?.audited !== true,
  );
  if (!audit || !pending.length) return;
  onEvent({ type: 'phase', phase: 'leaks', text: `auditing the retrieved evidence of ${pending.length} tasks for leaks` });
  const found = await audit(
    pending.map((d) => ({ ...(d.record as unknown as Task), repoPath: s.frozen })),
    signal,
  );
  if (signal?.aborted) throw abortError();
  for (const d of pending) {
    const got = found.get(d.id);
    if (got && got.suspects > 0) state.put({ id: d.id, file: d.file, qualname: d.qualname, line: d.line, kept: false, reason: 'leaks', detail: got.detail });
    else state.put({ ...d, record: withLeak(d.record, got?.suspects ?? 0) });
  }
}

/** Mines the folder into opts.out; the summary. Cancelling (the signal) keeps every decision made so far for a resume. */
export async function mineRepository(opts: MineOptions, services: MineServices, onEvent: Emit = () => {}, signal?: AbortSignal): Promise<MineSummary> {
  const t0 = performance.now();
  const o: Options = { ...MINE_DEFAULTS, ...opts };
  const { validator } = services;
  // Every check in flight listens to the one signal: many listeners is expected, not a leak.
  if (signal) setMaxListeners(0, signal);
  const s = setUp(opts, validator, onEvent);
  // The folders the suite puts on the path (PYTHONPATH=src) are where module names start.
  const importRoots = s.cmd.pythonPath.map((p) => path.posix.normalize(p).replace(/\/$/, '')).filter((p) => p !== '.' && !p.startsWith('..'));
  const { candidates, unparsed } = await scanCandidates(s.hostPython, s.frozen, s.files.sources, signal, importRoots);
  const state = new MineState(path.join(s.out, STATE_DIR), stateKey(s.repoHash, opts, s.testCommand, services.auditLeaks !== undefined), s.folder);
  const resumed = state.decisions.size;
  const undecided = staticPhase(candidates, state, o.minDocWords);
  const trace = await tracePhase(s, o, state, undecided.length > 0, validator, onEvent, signal);
  const { checking, notChecked } = tasksPhase(s, o, undecided, trace, state);
  await checkPhase(s, o, checking, state, validator, onEvent, signal);
  await leakPhase(s, state, services.auditLeaks, onEvent, signal);

  onEvent({ type: 'phase', phase: 'freeze', text: 'writing tasks.jsonl and MINE.md' });
  const ids = new Set(candidates.map((c) => c.id));
  const candidateKeys = new Set(candidates.map((c) => `${c.file}:${c.qualname}`));
  const decisions = inOrder(state.decisions.values()).filter((d) => ids.has(d.id));
  const summary: MineSummary = {
    candidates: candidates.length,
    ...countDecisions(decisions),
    out: writeMinedManifest(s.out, decisions, s.frozen),
    folder: s.folder,
    frozen: s.frozen,
    testCommand: s.testCommand,
    resumed,
    unparsed,
    suite: {
      tests: trace?.tests.length ?? 0,
      passed: trace?.tests.filter((t) => t.outcome === 'passed').length ?? 0,
      ms: Math.round(trace?.durationMs ?? 0),
      // Import-time calls of candidates only (class bodies and module code run at import too, and are not targets).
      importCalls: (trace?.importCalls ?? []).filter((k) => candidateKeys.has(k)),
      loadErrors: trace?.loadErrors ?? [],
    },
    unchecked: notChecked,
    leakAudit: services.auditLeaks !== undefined,
    status: 'completed',
    ms: Math.round(performance.now() - t0),
  };
  fs.writeFileSync(path.join(s.out, MINE_REPORT), mineReport(summary, decisions));
  return summary;
}

/** The start folder of a discovery command (its files are tests even when their names do not say so), or null. */
function testStartDir(args: string[]): string | null {
  if (args[0] !== 'discover') return null;
  const i = args.findIndex((a) => a === '-s' || a === '--start-directory');
  const start = i >= 0 ? args[i + 1] : args.slice(1).find((a) => !a.startsWith('-'));
  const s = start ? path.posix.normalize(start).replace(/\/$/, '') : '.';
  return s === '.' ? null : s;
}

/** Throws a clear error when the traced run cannot be mined from (nothing loaded, nothing passed, it hung). */
function suiteProblem(trace: SuiteTrace, testCommand: string, suiteTimeoutS: number): void {
  if (trace.stopped?.why === 'aborted') throw abortError();
  if (trace.stopped?.why === 'timeout')
    throw new MineError(
      `the test suite did not finish within ${suiteTimeoutS} s${trace.stopped.lastTest ? ` (it was running ${trace.stopped.lastTest})` : ''}; ` +
        `${trace.tests.length} tests had finished. Pass a narrower --test-command or a longer --suite-timeout`,
    );
  if (trace.stopped?.why === 'output-limit') throw new MineError(`the test suite printed more than the sandbox's output limit (${testCommand})`);
  if (trace.loadError) throw new MineError(`the test suite could not be run (${testCommand}): ${trace.loadError}`);
  const passed = trace.tests.filter((t) => t.outcome === 'passed').length;
  if (!passed) {
    const first = trace.tests.find((t) => t.message);
    const why = trace.loadErrors[0] ?? (first ? `${first.id}: ${first.message}` : trace.stderr.slice(-800));
    throw new MineError(`the test suite ran ${trace.tests.length} tests and none passed (${testCommand}), so no task can be checked${why ? `: ${why}` : ''}`);
  }
}

/** Test ids the validator can run by name: unittest's `module.Class.test…`, any pytest node id. */
function loadableTestId(id: string, mode: 'unittest' | 'pytest'): boolean {
  if (mode === 'pytest') return true;
  const last = id.split('.').pop() ?? '';
  return id.split('.').length >= 3 && (last.startsWith('test') || last === 'runTest');
}

function withChecks(task: Task, checks: TaskChecks): Record<string, unknown> {
  const { repoPath: _r, ...record } = task as Task & { repoPath: string };
  void _r;
  const { ms: _ms, ...reference } = checks.reference;
  void _ms;
  return { ...record, source: { ...(record.source ?? {}), checks: { ...checks, reference } } };
}

function withLeak(record: Record<string, unknown>, suspects: number): Record<string, unknown> {
  const source = (record.source ?? {}) as Record<string, unknown>;
  const checks = (source.checks ?? {}) as Record<string, unknown>;
  return { ...record, source: { ...source, checks: { ...checks, leak: { suspects, audited: true } } } };
}
