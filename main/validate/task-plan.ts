// What a task needs before any candidate runs, computed once per task: its shape (a check
// template or a repository with a test command), the test harness mode and arguments, the tests
// it expects, the repository's file list (copied into each candidate's throw-away work folder),
// and its time limit.

import fs from 'node:fs';
import path from 'node:path';
import { DEFAULT_PLACEHOLDER, type Task } from '../model/task.ts';
import type { PipelineConfig } from '../model/config.ts';
import { parseTestCommand as parseCommand, TestCommandError, type TestCommand } from './command.ts';
import { OpenCoderError } from '../model/errors.ts';

export class TaskError extends OpenCoderError {
  constructor(
    message: string,
    readonly taskId: string,
  ) {
    super('invalid-input', `task ${taskId}: ${message}`);
  }
}

export type HarnessMode = 'program' | 'unittest' | 'pytest';

export interface RepoListing {
  root: string;
  dirs: string[];
  files: string[];
  links: [string, string][];
  bytes: number;
  /** Credentials and keys left out of every work folder (isWithheld), relative paths. */
  withheld: string[];
  /** A snapshot's files' original permission bits (the snapshot's own are its group's): what work folder copies get. */
  modes?: Record<string, number>;
}

export type HarnessTarget =
  | { kind: 'template'; template: string; placeholder: string; qualname: string; signature: string | null }
  | { kind: 'file'; file: string; qualname: string; signature: string | null };

export interface TaskPlan {
  task: Task;
  kind: 'template' | 'repository';
  mode: HarnessMode;
  testArgs: string[];
  expectedTests: string[] | null;
  target: HarnessTarget;
  perTestTimeoutS: number;
  repo: RepoListing | null;
  timeoutMs: number;
  /** Names the module around the target binds (from the harness's facts mode); null until known. */
  facts: unknown;
  /** Assignments given in front of the test command, and PYTHONPATH's entries (relative to the repository). */
  env: Record<string, string>;
  pythonPath: string[];
  /** The task's own interpreter (absolute), or null for the validator's. */
  python: string | null;
  /** What an isolated run needs beyond the rest (from the facts run); null until known. */
  isolation: IsolationPlan | null;
}

/** The pieces of an isolated run: the tests' forwarding stub, the masked target file, what the candidate's sandbox leaves out. */
export interface IsolationPlan {
  /** The forwarding stub the tests get in place of the target (the harness makes it itself for a check program). */
  stub: string | null;
  /** Host path of the target's file with the target masked, laid over the original in every sandbox; null for a check program. */
  masked: string | null;
  /** Repository paths (test folders and files) the candidate's sandbox cannot read. */
  hidden: { rel: string; dir: boolean }[];
  /** The repository files copied into the candidate's work folder: the listing without the hidden paths. */
  copy: { dirs: string[]; files: string[]; links: [string, string][]; modes?: Record<string, number> } | null;
  /** Weak mode as root: a copy of `copy` with the target masked, for the candidate's uid alone (see Validator.candidateView). */
  candidateRepo?: string;
}

const TEST_DIR = /^(?:tests?|testing)$/i;
// `test*.py` is unittest discovery's default pattern; `*_test.py` and conftest.py are pytest's.
const TEST_FILE = /^(?:test.*\.py|.*_tests?\.py|conftest\.py)$/i;

/**
 * What of a repository the candidate's sandbox leaves out: test folders (test, tests, testing, except one that
 * holds the target's own file), test files by their names, and the files and folders the test command names.
 */
export function testPaths(listing: RepoListing, targetFile: string, testArgs: string[]): { rel: string; dir: boolean }[] {
  const named = new Set<string>();
  const patterns: RegExp[] = [];
  for (let i = 0; i < testArgs.length; i++) {
    const a = testArgs[i]!;
    // unittest discovery's own pattern (-p/--pattern, or the second word after `discover`): its files are tests.
    if ((a === '-p' || a === '--pattern') && testArgs[i + 1]) patterns.push(globRegExp(testArgs[++i]!));
    else if (testArgs[0] === 'discover' && i === 2 && !a.startsWith('-') && !testArgs[1]!.startsWith('-')) patterns.push(globRegExp(a));
    if (a.startsWith('-')) continue;
    const p = a.split('::')[0]!.replace(/\\/g, '/').replace(/^\.\//, '').replace(/\/$/, '');
    named.add(p);
    if (!p.endsWith('.py') && /^[\w.]+$/.test(p)) {
      named.add(`${p.replace(/\./g, '/')}.py`);
      named.add(p.replace(/\./g, '/'));
    }
  }
  const hiddenDirs: string[] = [];
  const under = (rel: string) => hiddenDirs.some((d) => rel.startsWith(`${d}/`));
  for (const d of listing.dirs) {
    if (under(d) || targetFile.startsWith(`${d}/`)) continue;
    const base = d.slice(d.lastIndexOf('/') + 1);
    if (TEST_DIR.test(base) || named.has(d)) hiddenDirs.push(d);
  }
  const out = hiddenDirs.map((rel) => ({ rel, dir: true }));
  for (const f of listing.files) {
    if (f === targetFile || under(f)) continue;
    const base = f.slice(f.lastIndexOf('/') + 1);
    if (TEST_FILE.test(base) || named.has(f) || patterns.some((p) => p.test(base))) out.push({ rel: f, dir: false });
  }
  return out;
}

/** A shell glob (unittest's -p pattern: *, ?, [...]) as an anchored regular expression. */
function globRegExp(glob: string): RegExp {
  const body = glob
    .replace(/[.+^${}()|\\]/g, '\\$&')
    .replace(/\*/g, '.*')
    .replace(/\?/g, '.');
  return new RegExp(`^${body}$`);
}

/** The listing as the candidate's work folder gets it: without the hidden paths. */
export function withoutPaths(listing: RepoListing, hidden: { rel: string; dir: boolean }[]): NonNullable<IsolationPlan['copy']> {
  const dirs = hidden.filter((h) => h.dir).map((h) => h.rel);
  const files = new Set(hidden.filter((h) => !h.dir).map((h) => h.rel));
  const out = (rel: string) => files.has(rel) || dirs.some((d) => rel === d || rel.startsWith(`${d}/`));
  const kept = listing.files.filter((f) => !out(f));
  return {
    dirs: listing.dirs.filter((d) => !out(d)),
    files: kept,
    links: listing.links.filter(([rel]) => !out(rel)),
    ...(listing.modes ? { modes: Object.fromEntries(kept.filter((f) => f in listing.modes!).map((f) => [f, listing.modes![f]!])) } : {}),
  };
}

/** Time limit for one candidate run: the reference's run time × factor, within floor and ceiling. */
export function timeoutFor(task: Pick<Task, 'reference_runtime_ms'>, v: PipelineConfig['validation']): number {
  const floor = Math.max(1, v.timeoutFloorMs);
  const ceiling = Math.max(floor, v.timeoutCeilingMs);
  if (!task.reference_runtime_ms) return floor;
  return Math.round(Math.min(ceiling, Math.max(floor, task.reference_runtime_ms * v.timeoutFactor)));
}

export { shellWords } from './command.ts';

/** The task's test command → harness mode, arguments and environment; a TaskError naming the task when unsupported. */
export function parseTestCommand(cmd: string, taskId: string): TestCommand {
  try {
    return parseCommand(cmd);
  } catch (err) {
    if (err instanceof TestCommandError) throw new TaskError(err.message, taskId);
    throw err;
  }
}

/**
 * The interpreter a task's tests run under: the task's `python` (an interpreter or a virtualenv
 * folder), else the one its test command names by path, else the validator's. Returns an
 * absolute path, or throws a TaskError naming what is missing.
 */
export function taskInterpreter(task: Task, named: string | null): string | null {
  const given = task.python ?? named;
  if (!given) return null;
  let exe = path.resolve(task.repoPath, given);
  try {
    if (fs.statSync(exe).isDirectory()) {
      const venv = exe;
      exe = [path.join(venv, 'bin', 'python3'), path.join(venv, 'bin', 'python'), path.join(venv, 'Scripts', 'python.exe')].find((p) => fs.existsSync(p)) ?? '';
      if (!exe) throw new TaskError(`its python folder ${venv} holds no bin/python3 or bin/python (is it a virtualenv?)`, task.id);
    }
    fs.accessSync(exe, fs.constants.X_OK);
  } catch (err) {
    if (err instanceof TaskError) throw err;
    throw new TaskError(`its interpreter ${exe} is not an executable file (${(err as Error).message})`, task.id);
  }
  return exe;
}

const SKIP_DIRS = new Set([
  '.git',
  '.hg',
  '.svn',
  '__pycache__',
  'node_modules',
  '.tox',
  '.nox',
  '.mypy_cache',
  '.pytest_cache',
  '.ruff_cache',
  '.venv',
  '.eggs',
  '.idea',
  '.vscode',
]);

/** The listing of a repository before its walk: a TaskError unless `root` is a readable folder. */
export function emptyListing(root: string, taskId: string): RepoListing {
  let st: fs.Stats;
  try {
    st = fs.statSync(root);
  } catch (err) {
    throw new TaskError(`cannot read the repository ${root}: ${(err as Error).message}`, taskId);
  }
  if (!st.isDirectory()) throw new TaskError(`the repository ${root} is not a folder`, taskId);
  return { root, dirs: [], files: [], links: [], bytes: 0, withheld: [] };
}

/** The files of a repository that go into each work folder (VCS folders, caches, virtualenvs, credentials and keys left out). */
export function listRepository(root: string, taskId: string): RepoListing {
  const listing = emptyListing(root, taskId);
  const stack = [''];
  while (stack.length) {
    const rel = stack.pop()!;
    const abs = rel ? path.join(root, rel) : root;
    let names: string[];
    try {
      names = fs.readdirSync(abs);
    } catch {
      continue;
    }
    if (rel && names.includes('pyvenv.cfg')) continue; // a virtualenv
    if (rel) listing.dirs.push(rel);
    for (const name of names.sort()) {
      const r = rel ? `${rel}/${name}` : name;
      let s: fs.Stats;
      try {
        s = fs.lstatSync(path.join(abs, name));
      } catch {
        continue;
      }
      if (s.isDirectory()) {
        if (!SKIP_DIRS.has(name) && !name.endsWith('.egg-info')) stack.push(r);
      } else if (isWithheld(r) || (name.endsWith('.jsonl') && s.isFile() && isTaskManifest(path.join(abs, name)))) {
        listing.withheld.push(r);
      } else if (s.isSymbolicLink()) {
        try {
          listing.links.push([r, fs.readlinkSync(path.join(abs, name))]);
        } catch {
          /* unreadable link */
        }
      } else if (s.isFile()) {
        listing.files.push(r);
        listing.bytes += s.size;
      }
    }
  }
  listing.dirs.sort((a, b) => a.length - b.length || a.localeCompare(b));
  return listing;
}

const TRAILER = /\n[ \t]*if __name__ == ['"]__main__['"]:[ \t]*\n[ \t]+__repoexec_run_all\(\)[ \t]*\n?\s*$/;

/** Builds the plan of a task (without its facts, which need a sandbox run). */
export function planTask(
  task: Task,
  validation: PipelineConfig['validation'],
  listRepo: (root: string) => RepoListing = (root) => listRepository(root, task.id),
): TaskPlan {
  const timeoutMs = timeoutFor(task, validation);
  if (task.check_template !== undefined) {
    const placeholder = task.placeholder ?? DEFAULT_PLACEHOLDER;
    const at = task.check_template.indexOf(placeholder);
    if (at < 0) throw new TaskError(`its check_template does not contain the placeholder ${placeholder}`, task.id);
    // Our harness runs the tests itself; the template's own runner would run them a second time.
    const template = task.check_template.replace(TRAILER, '\n');
    const perTest = /def __repoexec_run_all\(\s*per_test_timeout\s*=\s*(\d+)/.exec(template);
    let tests = task.tests ?? null;
    if (!tests) {
      tests = [...template.slice(at).matchAll(/^def (test_\w+)\s*\(/gm)].map((m) => m[1]!);
    }
    if (!tests.length) throw new TaskError('its check_template defines no test_ functions and the task names no tests', task.id);
    return {
      task,
      kind: 'template',
      mode: 'program',
      testArgs: [],
      expectedTests: tests,
      target: { kind: 'template', template, placeholder, qualname: task.qualname, signature: task.signature ?? null },
      perTestTimeoutS: perTest ? Number(perTest[1]) : 5,
      repo: null,
      timeoutMs,
      facts: null,
      env: {},
      pythonPath: [],
      python: taskInterpreter(task, null),
      isolation: null,
    };
  }
  if (!task.test_command) throw new TaskError('it has neither check_template nor test_command', task.id);
  const { mode, args, env, pythonPath, interpreter } = parseTestCommand(task.test_command, task.id);
  const file = task.file.replace(/\\/g, '/');
  const abs = path.join(task.repoPath, file);
  if (!fs.existsSync(abs)) throw new TaskError(`its target file ${file} is not in ${task.repoPath}`, task.id);
  return {
    task,
    kind: 'repository',
    mode,
    testArgs: args,
    expectedTests: task.tests?.length ? task.tests : null,
    target: { kind: 'file', file, qualname: task.qualname, signature: task.signature ?? null },
    perTestTimeoutS: 0,
    repo: listRepo(task.repoPath),
    timeoutMs,
    facts: null,
    env,
    pythonPath,
    python: taskInterpreter(task, interpreter),
    isolation: null,
  };
}

/**
 * Files no test needs and no candidate may read: credentials and private keys. They stay out of every
 * work folder copy (the listing counts them in `withheld`), whatever folder of the repository they are in.
 */
const WITHHELD_NAME =
  /^(?:\.env(?:\..+)?|\.netrc|_netrc|\.pypirc|\.npmrc|\.git-credentials|\.pgpass|id_(?:rsa|dsa|ecdsa|ed25519)(?:\.pub)?|.+\.(?:pem|key|p12|pfx|keystore|jks))$/i;

/**
 * Whether a file is a task manifest (JSON lines naming a qualname and a reference): it holds the answers, so no
 * work folder gets it, whichever folder of the repository it lies in (the sample repository keeps its own there).
 */
function isTaskManifest(file: string): boolean {
  let fd: number | null = null;
  try {
    fd = fs.openSync(file, 'r');
    const buf = Buffer.alloc(65536);
    const text = buf.subarray(0, fs.readSync(fd, buf, 0, buf.length, 0)).toString('utf8');
    return /"qualname"\s*:/.test(text) && /"reference"\s*:/.test(text);
  } catch {
    return false;
  } finally {
    if (fd !== null) fs.closeSync(fd);
  }
}

/** Whether a repository file is left out of work folders as a credential or key (by its name). */
export function isWithheld(rel: string): boolean {
  return WITHHELD_NAME.test(rel.slice(rel.lastIndexOf('/') + 1));
}

/**
 * A copy of the repository's listed files for the sandbox, made once per repository: the sandbox users
 * (uid 65534, or a uid per run in weak mode; group 65534) usually cannot read the original (a private home or temp folder), and
 * the copy also keeps candidates' runs independent of edits to the original while the validator lives. The
 * copy belongs to `owner.uid` (root) and its group is the sandbox's: each file's owner read and execute bits
 * become the group's (set-id bits dropped, write bits never given), others get nothing. So nothing is made
 * readable to anyone outside the sandbox, and no sandbox process (a candidate least of all) can change what
 * the tests of a later run, or of the same run, read.
 */
export function snapshotRepository(listing: RepoListing, dest: string, owner: { uid: number; gid: number }): RepoListing {
  const own = (p: string, mode: number) => {
    fs.chownSync(p, owner.uid, owner.gid);
    fs.chmodSync(p, mode);
  };
  const groupRead = (mode: number) => (mode & 0o700) | ((mode & 0o500) >> 3);
  fs.mkdirSync(dest, { recursive: true });
  own(dest, 0o750);
  for (const d of listing.dirs) {
    const abs = path.join(dest, d);
    fs.mkdirSync(abs, { recursive: true });
    // Read and search for the sandbox whatever the original said: the copy lists only what the walk could read.
    own(abs, groupRead((fs.statSync(path.join(listing.root, d)).mode & 0o777) | 0o500));
  }
  const files: string[] = [];
  const modes: Record<string, number> = {};
  let bytes = 0;
  for (const f of listing.files) {
    const src = path.join(listing.root, f);
    const dst = path.join(dest, f);
    try {
      const mode = listing.modes?.[f] ?? fs.statSync(src).mode & 0o777;
      fs.copyFileSync(src, dst, fs.constants.COPYFILE_FICLONE);
      own(dst, groupRead(mode));
      modes[f] = mode;
      files.push(f);
      bytes += fs.statSync(dst).size;
    } catch {
      /* unreadable: the tests could not have read it either */
    }
  }
  const links: [string, string][] = [];
  for (const [rel, target] of listing.links) {
    try {
      fs.symlinkSync(target, path.join(dest, rel));
      fs.lchownSync(path.join(dest, rel), owner.uid, owner.gid);
      links.push([rel, target]);
    } catch {
      /* skip */
    }
  }
  return { root: dest, dirs: listing.dirs, files, links, bytes, withheld: listing.withheld, modes };
}

/**
 * What a warm server may load before a run (warm.ts): the modules a check program's code before the candidate
 * imports at its top level (both sides run that code first, so they are loaded in every run anyway), and the names
 * the work folder itself provides, which a run must import from there and a server therefore never loads. File
 * targets preload nothing of their own (their imports are the repository's business).
 */
export function warmImports(plan: Pick<TaskPlan, 'target' | 'repo' | 'pythonPath'>): { preload: string[]; shadows: string[] } {
  const preload = new Set<string>();
  if (plan.target.kind === 'template') {
    const before = plan.target.template.split(plan.target.placeholder)[0] ?? '';
    for (const line of before.split('\n')) {
      const imp = /^import\s+([\w.]+(?:\s+as\s+\w+)?(?:\s*,\s*[\w.]+(?:\s+as\s+\w+)?)*)\s*(?:#.*)?$/.exec(line);
      const from = /^from\s+([\w.]+)\s+import\b/.exec(line);
      if (imp) for (const part of imp[1]!.split(',')) preload.add(part.trim().split(/\s+/)[0]!);
      else if (from) preload.add(from[1]!);
    }
  }
  const shadows = new Set<string>(['program']);
  const roots = ['', ...plan.pythonPath.map((p) => p.replace(/^\.\/?/, '').replace(/\/$/, ''))];
  for (const rel of [...(plan.repo?.files ?? []), ...(plan.repo?.dirs ?? []), ...(plan.repo?.links ?? []).map((l) => l[0])]) {
    for (const root of roots) {
      if (root && !rel.startsWith(root + '/')) continue;
      const top = (root ? rel.slice(root.length + 1) : rel).split('/')[0]!;
      shadows.add(top.replace(/\.(py|pyc|pyw|so|pyd)$|\..*\.(so|pyd)$/, ''));
    }
  }
  return { preload: [...preload].sort(), shadows: [...shadows].sort() };
}
