// Runs the harness (and through it, untrusted candidate code) in a sandbox.
//
// Strong mode (Linux with bubblewrap): privileges are dropped to uid 65534 with setpriv *before*
// bwrap starts (bwrap started by root with --uid only renames root), bwrap is started with an
// empty environment (its first process's environment stays readable at /proc/1/environ), and
// creates new user, PID, network, IPC, UTS and cgroup namespaces: no network, a read-only root
// holding only /usr and a few /etc files, private size-limited tmpfs /tmp and /ws (the only
// writable places; the repository is copied into /ws from a read-only bind at /base), no
// capabilities, no further user namespaces, --die-with-parent and a new session. prlimit inside
// the sandbox sets CPU, address-space, file-size, process-count and core limits (inside, so the
// process count is per sandbox: RLIMIT_NPROC is counted per user namespace). The engine kills the
// whole process group at the wall-clock limit and when captured output passes its cap; tearing
// down the PID namespace reaps every background process.
// An isolated run's two sandboxes bind one host folder of the run's own at /tmp and /dev/shm instead (bwrap.ts
// sharedArea), so the target sees what the tests make there; it is removed when both are over.
//
// Weak mode (no bubblewrap, macOS, Windows, or a failed probe): the same limits (prlimit, or the
// harness's own setrlimit), a clean environment, privilege drop to 65534 when running as root,
// a host folder as work folder, and the wall-clock kill of the process group — but no filesystem,
// network or PID isolation. Every verdict carries the mode's label.

import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes, randomInt } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Duplex, Readable, Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { bwrapArgs, interpreterDirs, sharedArea, type BwrapSpec } from './bwrap.ts';
import { processTempDir, removeLeftovers, removeTree } from './cleanup.ts';
import type { Limits, SandboxEvent, SandboxInfo } from '../model/verdict.ts';
import { OpenCoderError } from '../model/errors.ts';

export { interpreterDirs } from './bwrap.ts';

export const HARNESS_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'py');
export const SANDBOX_UID = 65534;
/** The sandbox's group (nogroup): the repository snapshot is readable through it, writable by none of its users. */
export const SANDBOX_GID = 65534;
/**
 * Weak mode as root: an isolated run's candidate process runs as another uid than its tests (SandboxInfo.candidateUid;
 * each run then draws both from RUN_UID_BASE). Without a file-system namespace, a shared uid let the candidate rewrite the
 * files the tests were about to read (their work folder, the repository snapshot) and signal the tests' processes; two
 * uids let it do neither.
 */
export const CANDIDATE_UID = 65533;
/** ... and its group, through which alone it reads its own view of the repository (not the tests' snapshot). */
export const CANDIDATE_GID = 65533;
/**
 * Weak mode as root: each run's processes take a uid of their own, drawn from [RUN_UID_BASE, RUN_UID_BASE + RUN_UID_SPAN)
 * (no account has one), keeping the group above (SANDBOX_GID for the tests, CANDIDATE_GID for an isolated run's
 * candidate). The process limit (RLIMIT_NPROC) counts every process of a uid: while all runs shared 65534, a fork
 * bomb in one parallel slot filled that count and the runs beside it could not start (their references were judged
 * not to pass their own tests). Without a PID or user namespace, a uid per run is what keeps the counts apart; it also
 * keeps one run's candidate from signalling another run's processes.
 */
export const RUN_UID_BASE = 2_000_000_000;
export const RUN_UID_SPAN = 100_000_000;
/** A warm server's process limit: its children's processes all count here too, each run's own up to Limits.processes. */
export const WARM_SERVER_PROCESSES = 4096;

export const DEFAULT_LIMITS: Limits = {
  cpuSeconds: 60, // for direct runSandboxed calls; the validator derives it from each time limit
  addressSpaceBytes: 2 * 2 ** 30,
  fileSizeBytes: 64 * 2 ** 20,
  processes: 64,
  workspaceBytes: 256 * 2 ** 20,
  tmpBytes: 128 * 2 ** 20,
  outputKeepBytes: 64 * 2 ** 10,
  outputKillBytes: 16 * 2 ** 20,
};

export class SandboxUnavailableError extends OpenCoderError {
  constructor(message: string) {
    super('unsupported', message);
  }
}

export interface SandboxOptions {
  /** 'strong' refuses to run without bubblewrap; 'weak' never uses it; 'auto' (default) prefers it. */
  mode?: 'auto' | 'strong' | 'weak';
  python?: string;
  bwrap?: string | null;
  setpriv?: string | null;
  prlimit?: string | null;
  unshare?: string | null;
}

const strongLabel = (uid: number) =>
  `strong: bubblewrap — no network, read-only root, private /tmp and workspace, unprivileged uid ${uid} (uid 0 only inside its own user namespace), own PID namespace, no capabilities, rlimits`;
const weakLabel = (reason: string, dropped: boolean, pidns: boolean, netns: boolean) =>
  `weak: ${reason} — rlimits, clean environment, wall-clock kill, temporary folders not shared between an isolated run's tests and candidate${dropped ? `, each run as a uid of its own (${RUN_UID_BASE}+), an isolated run's tests and candidate as two` : ''}${pidns ? ', own PID namespace' : ''}${netns ? ', own network namespace (no network, loopback its own)' : ''}; NO filesystem${netns ? '' : ' or network'} isolation${pidns ? '' : ', NO process isolation'}${dropped ? '' : ', and the candidate runs as this user, so it can change what the tests read (its process limit counts above this user’s own processes)'}`;

/** Whether an isolated run's candidate process runs as another uid than its tests (weak mode as root). */
export function splitsUids(info: SandboxInfo): boolean {
  return info.candidateUid != null && info.candidateUid !== info.uid;
}

/** Whether `unshare --pid [--net] --fork` runs here (a container may refuse new namespaces). */
function unshareWorks(unshare: string, net = false): boolean {
  const r = spawnSync(unshare, ['--pid', ...(net ? ['--net'] : []), '--fork', '--kill-child', '--', 'true'], { stdio: 'ignore', timeout: 10_000 });
  return r.status === 0;
}

function findTool(name: string, override: string | null | undefined): string | null {
  if (override === null) return null;
  if (override !== undefined) return isExecutable(override) ? override : null;
  for (const dir of ['/usr/bin', '/bin', '/usr/local/bin', ...(process.env.PATH ?? '').split(path.delimiter)]) {
    if (!dir) continue;
    const p = path.join(dir, name);
    if (isExecutable(p)) return p;
  }
  return null;
}

function isExecutable(p: string): boolean {
  try {
    fs.accessSync(p, fs.constants.X_OK);
    return fs.statSync(p).isFile();
  } catch {
    return false;
  }
}

export function defaultPython(): string {
  // Debian's interpreter: pyenv shims under /root are unreachable once privileges are dropped.
  if (process.platform !== 'win32' && isExecutable('/usr/bin/python3')) return '/usr/bin/python3';
  return findTool(process.platform === 'win32' ? 'python.exe' : 'python3', undefined) ?? 'python3';
}

const isRoot = () => typeof process.getuid === 'function' && process.getuid() === 0;

const detected = new Map<string, Promise<SandboxInfo>>();

/** Which sandbox this machine gives, probed once per option set. */
export function detectSandbox(opts: SandboxOptions = {}): Promise<SandboxInfo> {
  const key = JSON.stringify([opts, process.env.OPENCODER_SANDBOX ?? '']);
  let p = detected.get(key);
  if (!p) {
    p = probe(opts);
    detected.set(key, p);
    p.catch(() => detected.delete(key));
  }
  return p;
}

async function probe(opts: SandboxOptions): Promise<SandboxInfo> {
  // 'auto' (the settings' and the CLI's default) leaves the choice to OPENCODER_SANDBOX; 'strong' or 'weak' decide.
  const mode = opts.mode && opts.mode !== 'auto' ? opts.mode : (process.env.OPENCODER_SANDBOX as SandboxOptions['mode']) || 'auto';
  if (!['auto', 'strong', 'weak'].includes(mode)) throw new SandboxUnavailableError(`OPENCODER_SANDBOX must be auto, strong or weak, not "${mode}"`);
  const python = opts.python ?? defaultPython();
  const linux = process.platform === 'linux';
  const bwrap = linux ? findTool('bwrap', opts.bwrap) : null;
  const setpriv = linux ? findTool('setpriv', opts.setpriv) : null;
  const prlimit = linux ? findTool('prlimit', opts.prlimit) : null;
  const root = isRoot();
  const unshare = linux && root ? findTool('unshare', opts.unshare) : null;
  const tools = { bwrap, setpriv, prlimit, python };
  const weak = (reason: string): SandboxInfo => {
    if (mode === 'strong') throw new SandboxUnavailableError(`the strong sandbox is required but unavailable: ${reason}`);
    const dropped = root && !!setpriv;
    // As root, each run gets a PID namespace: when its first process ends the kernel ends the rest and reaps them. Without
    // it, orphans a candidate leaves (a fork bomb's children) are reparented to PID 1, which on some machines never
    // reaps them: the zombies kept uid 65534's process limit full, and every later run of that uid failed.
    const pidns = !!unshare && unshareWorks(unshare);
    // And a network namespace: without it a candidate reaches every service of the machine on loopback (a queue's
    // Redis, the app's own server) and beyond. Loopback inside is its own, brought up as bwrap's is.
    const netns = pidns && unshareWorks(unshare, true);
    return {
      strength: 'weak',
      label: weakLabel(reason, dropped, pidns, netns),
      fallbackReason: reason,
      uid: dropped ? SANDBOX_UID : null,
      candidateUid: dropped ? CANDIDATE_UID : null,
      network: netns ? 'none' : 'host',
      tools: { ...tools, unshare: pidns ? unshare : null, ...(netns ? { ip: findTool('ip', undefined) } : {}) },
    };
  };
  if (mode === 'weak') return weak(opts.mode === 'weak' ? 'weak mode chosen in the settings' : 'weak mode chosen by OPENCODER_SANDBOX');
  if (!linux) return weak(`bubblewrap sandboxing needs Linux (this is ${process.platform})`);
  if (!bwrap) return weak('bubblewrap (bwrap) is not installed');
  if (root && !setpriv) return weak('running as root without setpriv to drop privileges before bwrap');
  const uid = root ? SANDBOX_UID : null;
  // Strong mode keeps one uid: each process has its own namespaces and a read-only view of everything it shares.
  const info: SandboxInfo = { strength: 'strong', label: strongLabel(uid ?? process.getuid?.() ?? -1), uid, candidateUid: uid, network: 'none', tools };
  const res = await runSandboxed(info, {
    stdin: '',
    timeoutMs: 15_000,
    limits: DEFAULT_LIMITS,
    repo: null,
    argv: [python, '-I', '-c', 'import sys; sys.stdout.write("ok")'],
  });
  if (res.exit.code !== 0 || res.stdout !== 'ok') {
    const why = (res.stderr || res.stdout || `exit ${res.exit.code ?? res.exit.signal}`).trim().split('\n')[0]!.slice(0, 300);
    return weak(`the bubblewrap probe failed (${why})`);
  }
  return info;
}

export interface SandboxRunSpec extends BwrapSpec {
  /** What is written to the program's stdin (then closed). */
  stdin: string | ((paths: { ws: string; base: string | null; harness: string }) => string);
  timeoutMs: number;
  limits: Limits;
  /** Host folder bound read-only at /base (strong) or read in place (weak). */
  repo: string | null;
  /** Extra bytes for the work folder tmpfs (the copied repository's size). */
  repoBytes?: number;
  /** Command to run instead of the harness (probes, benchmarks). */
  argv?: string[];
  /** Which of the harness's programs runs: the test supervisor (default) or an isolated run's candidate process. */
  entry?: 'harness' | 'serve' | 'warm' | 'trace';
  /** The task's own interpreter (bound read-only with its prefix or virtualenv), instead of the sandbox's. */
  python?: string;
  signal?: AbortSignal;
  /** Where weak-mode work folders are made (default: the OS temp folder). */
  workRoot?: string;
  /** Strong mode: files laid read-only over paths of the repository (relative to it), e.g. the target's file with the target masked. */
  overlays?: { rel: string; host: string }[];
  /** Strong mode: repository paths (relative) no process of this run may read: folders become empty, files empty files. */
  hidden?: { rel: string; dir: boolean }[];
  /** Each chunk of fd 3 as it arrives (mining's traced suite reports its progress through it); the whole is in `channel` too. */
  onChannel?: (chunk: Buffer) => void;
}

export interface SandboxRunResult {
  exit: { code: number | null; signal: string | null };
  stdout: string;
  stderr: string;
  /** Bytes the program wrote to fd 3 (the harness's report channel). */
  channel: Buffer;
  durationMs: number;
  events: SandboxEvent[];
  killedBy: 'wall-timeout' | 'output-limit' | 'aborted' | null;
  outputBytes: number;
  /** A pair's candidate side: the engine ended it because the tests were done (its exit says nothing then). */
  endedWithPartner?: boolean;
}

// The harness as the sandbox user sees it: a world-readable copy made once per process, since
// the checkout may sit where uid 65534 cannot read (a private home, a umask-077 clone), with the
// bytecode compiled beside it once (the sandbox runs Python with -B, which still reads it): the
// runner is compiled at every run otherwise, which is most of the harness's own start-up.
let harnessCopy: string | null = null;
function harnessDirFor(info: SandboxInfo): string {
  if (!harnessCopy || !fs.existsSync(harnessCopy)) {
    const dir = processTempDir('oc-harness-');
    fs.chmodSync(dir, 0o755);
    for (const f of fs.readdirSync(HARNESS_DIR).filter((n) => n.endsWith('.py'))) {
      fs.copyFileSync(path.join(HARNESS_DIR, f), path.join(dir, f));
      fs.chmodSync(path.join(dir, f), 0o644);
    }
    // Best effort: without it (another interpreter version, no write access) sources are compiled as before.
    spawnSync(info.tools.python, ['-I', '-m', 'compileall', '-q', '-l', dir], { stdio: 'ignore', timeout: 30_000 });
    const cache = path.join(dir, '__pycache__');
    if (fs.existsSync(cache)) {
      fs.chmodSync(cache, 0o755);
      for (const f of fs.readdirSync(cache)) fs.chmodSync(path.join(cache, f), 0o644);
    }
    harnessCopy = dir;
    process.once('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
  }
  return harnessCopy;
}

function harnessEntry(harnessDir: string, entry: SandboxRunSpec['entry'] = 'harness'): string {
  const dir = JSON.stringify(harnessDir);
  return `import sys; sys.path.insert(0, ${dir}); import _opencoder_${entry} as h; sys.path.remove(${dir}); h.main(${dir})`;
}

const sigOf = (code: number | null): string | null => {
  if (code === null || code <= 128 || code > 128 + 64) return null;
  const name = Object.entries(os.constants.signals).find(([, n]) => n === code - 128)?.[0];
  return name ?? `SIG${code - 128}`;
};

function limitArgs(prlimit: string, l: Limits, server = false): string[] {
  return [
    prlimit,
    // A warm server lives across runs: its children set each run's CPU and process limits themselves.
    ...(server ? [`--nproc=${WARM_SERVER_PROCESSES}`] : [`--cpu=${l.cpuSeconds}:${l.cpuSeconds + 1}`, `--nproc=${l.processes}`]),
    `--as=${l.addressSpaceBytes}`,
    `--fsize=${l.fileSizeBytes}`,
    '--core=0',
    '--',
  ];
}

const env = (ws: string) => ({
  PATH: '/usr/local/bin:/usr/bin:/bin',
  HOME: ws,
  TMPDIR: '/tmp',
  LANG: 'C.UTF-8',
  LC_ALL: 'C.UTF-8',
  USER: 'sandbox',
  LOGNAME: 'sandbox',
});

/** How to start one sandboxed run: the program and its arguments, where and with what, and its work folder. */
interface Launch {
  file: string;
  args: string[];
  cwd: string;
  env: Record<string, string>;
  stdinText: string;
  /** The work folder as the program sees it (/ws in strong mode; a host folder in weak mode). */
  ws: string;
  /** Weak mode: the host folder holding the work folder, removed after the run. */
  cleanupDir: string | null;
  /** Weak mode: a value in every process's environment (OPENCODER_SANDBOX_RUN), to find the run's processes by. */
  marker?: string;
  /** Weak mode: the uid the run's processes have (null: this process's own). */
  uid?: number | null;
}

/** A started program: what has been captured of it so far and how it is stopped. */
interface Running {
  child: ChildProcess;
  /** fd 3, the harness's report channel. */
  ch: Duplex;
  closed: Promise<void>;
  events: SandboxEvent[];
  out: { stdout: Buffer[]; stderr: Buffer[]; kept: { stdout: number; stderr: number }; total: number };
  channel: Buffer[];
  channelBytes: number;
  killedBy: SandboxRunResult['killedBy'];
  spawnError: Error | null;
  /** Kills the whole process group. */
  killGroup: () => void;
  /** Kills the group and records why (the first reason only). */
  kill: (why: NonNullable<SandboxRunResult['killedBy']>, detail: string) => void;
  /** Set when the engine ended the program because its partner finished (a pair's candidate side). */
  ended?: boolean;
}

/** Runs the harness (or spec.argv) in the sandbox `info` describes. Never throws for what the program does. */
export async function runSandboxed(info: SandboxInfo, spec: SandboxRunSpec): Promise<SandboxRunResult> {
  const launch = launchFor(info, spec);
  const started = performance.now();
  const run = startChild(launch, spec.limits, [], undefined, spec.onChannel);
  const exit = await waitForExit(run, launch.stdinText, spec);
  return finish(info, launch, run, exit, started);
}

/**
 * Runs two programs in two sandboxes of their own (two PID namespaces: neither can see, signal or trace the
 * other), connected by one socket and nothing else: fd 3 of `candidate`, fd 4 of `tests`. The tests' run decides
 * how long both take: once it ends, the candidate's is killed.
 */
export async function runSandboxedPair(
  info: SandboxInfo,
  tests: SandboxRunSpec,
  candidate: SandboxRunSpec,
): Promise<{ tests: SandboxRunResult; candidate: SandboxRunResult }> {
  // Strong mode: both sandboxes bind one host folder of the run's own at /tmp and /dev/shm, so the target sees
  // what the tests make there (weak mode shares nothing: its two uids cannot share tempfile's 0700 folders).
  // Not where the task's interpreter lives below /tmp or /dev/shm: the candidate could move the folder above it and put
  // modules of its own where the tests import the interpreter's from.
  const inTemp = interpreterDirs(tests.python ?? info.tools.python).some((d) => /^\/(tmp|dev\/shm)\//.test(d));
  const shared = info.strength === 'strong' && !inTemp ? sharedArea(info.uid, info.uid === null ? null : SANDBOX_GID) : null;
  const cLaunch = launchFor(info, shared ? { ...candidate, shared: shared.dir, sharedReadOnly: true } : candidate);
  const tLaunch = launchFor(info, shared ? { ...tests, shared: shared.dir } : tests);
  const started = performance.now();
  const cRun = startChild(cLaunch, candidate.limits, [], null);
  // Node's end of the candidate's socket goes to the test process as its fd 4, and Node lets go of it.
  const socket = cRun.child.stdio[3] as Duplex;
  const tRun = startChild(tLaunch, tests.limits, [], socket);
  socket.destroy();
  const cExit = waitForExit(cRun, cLaunch.stdinText, candidate);
  const tExit = await waitForExit(tRun, tLaunch.stdinText, tests);
  cRun.ended = true;
  cRun.killGroup();
  const [t, c] = await Promise.all([finish(info, tLaunch, tRun, tExit, started), cExit.then((exit) => finish(info, cLaunch, cRun, exit, started))]);
  const problem = shared?.remove();
  if (problem) t.events.push({ kind: 'sandbox-failure', detail: problem });
  return { tests: t, candidate: c };
}

/** Strong mode: how a warm validation server starts (warm.ts): the program, its arguments and its stdin. */
export function warmServerLaunch(info: SandboxInfo, spec: SandboxRunSpec): { file: string; args: string[] } {
  if (info.strength !== 'strong') throw new SandboxUnavailableError('warm validation needs the strong sandbox');
  const { file, args } = strongLaunch(info, { ...spec, entry: 'warm' }, spec.python ?? info.tools.python);
  return { file, args };
}

export { sigOf };

function launchFor(info: SandboxInfo, spec: SandboxRunSpec): Launch {
  const python = spec.python ?? info.tools.python;
  return info.strength === 'strong' ? strongLaunch(info, spec, python) : weakLaunch(info, spec, python);
}

async function finish(
  info: SandboxInfo,
  launch: Launch,
  run: Running,
  exit: { code: number | null; signal: string | null },
  started: number,
): Promise<SandboxRunResult> {
  const strong = info.strength === 'strong';
  const { events } = run;
  // Whatever is left of the group (weak mode has no PID namespace to take it down).
  run.killGroup();
  if (!strong && launch.cleanupDir) killStragglers(launch.uid ?? process.getuid?.() ?? null, launch.ws, launch.marker);
  await drain(run);
  const durationMs = performance.now() - started;
  if (launch.cleanupDir) {
    const problem = removeTree(launch.cleanupDir);
    if (problem) events.push({ kind: 'sandbox-failure', detail: problem });
  }
  if (!strong && launch.uid != null) {
    // Its processes are gone: what its uid left in the machine's shared temp folders goes too, and the uid is free again.
    for (const problem of removeLeftovers(launch.uid, [launch.cleanupDir ? path.dirname(launch.cleanupDir) : null]))
      events.push({ kind: 'sandbox-failure', detail: problem });
    liveRunUids.delete(launch.uid);
  }
  if (run.spawnError) events.push({ kind: 'sandbox-failure', detail: `could not start ${launch.file}: ${run.spawnError.message}` });

  const { code } = exit;
  let { signal } = exit;
  if ((strong || info.tools.unshare) && signal === null) {
    // bwrap (and weak mode's namespace init) reports a child killed by signal N as exit code 128 + N.
    const s = sigOf(code);
    if (s) signal = s;
  }
  return {
    exit: { code, signal },
    stdout: Buffer.concat(run.out.stdout).toString('utf8'),
    stderr: Buffer.concat(run.out.stderr).toString('utf8'),
    channel: Buffer.concat(run.channel),
    durationMs,
    events,
    killedBy: run.killedBy,
    outputBytes: run.out.total,
    ...(run.ended ? { endedWithPartner: true } : {}),
  };
}

/** The program inside the sandbox: prlimit's limits (when there is prlimit) around the harness or spec.argv. */
function innerCommand(info: SandboxInfo, spec: SandboxRunSpec, python: string, harness: string): string[] {
  return [
    ...(info.tools.prlimit ? limitArgs(info.tools.prlimit, spec.limits, spec.entry === 'warm') : []),
    ...(spec.argv ?? [python, '-I', '-B', '-c', harnessEntry(harness, spec.entry)]),
  ];
}

/** Strong mode: bwrap (started through setpriv when privileges must be dropped first) with an empty environment. */
function strongLaunch(info: SandboxInfo, spec: SandboxRunSpec, python: string): Launch {
  const ws = '/ws';
  const base = spec.repo ? '/base' : null;
  const harness = '/opencoder';
  const stdinText = typeof spec.stdin === 'function' ? spec.stdin({ ws, base, harness }) : spec.stdin;
  // A warm server (warm.ts) runs as the sandbox uid inside its namespace, not as 0: each of its children maps its own
  // uid 0 onto the server's, and a user namespace may map its parent's uid 0 only with CAP_SETFCAP there. Each child
  // makes its own user namespace (and then forbids any further one), so bwrap's ban on them is left to the children.
  const server = spec.entry === 'warm';
  // Inside its user namespace the candidate is uid 0, as benchmark harnesses usually run tests
  // (RepoExec's reference runs were made as root); outside it stays the unprivileged uid, and
  // bwrap leaves it no capabilities (empty bounding set, no_new_privs).
  const bw = bwrapArgs(spec, {
    server,
    uid: server ? SANDBOX_UID : 0,
    gid: server ? SANDBOX_GID : 0,
    python,
    harnessHost: harnessDirFor(info),
    harness,
    env: { ...env('/ws'), USER: 'root', LOGNAME: 'root' },
  });
  const inner = innerCommand(info, spec, python, harness);
  const launch = { cwd: '/', env: {}, stdinText, ws, cleanupDir: null };
  if (info.uid !== null && info.tools.setpriv) {
    const args = [
      `--reuid=${info.uid}`,
      `--regid=${info.uid}`,
      '--clear-groups',
      '--inh-caps=-all',
      '--bounding-set=-all',
      '--no-new-privs',
      info.tools.bwrap!,
      ...bw,
      ...inner,
    ];
    return { ...launch, file: info.tools.setpriv, args };
  }
  return { ...launch, file: info.tools.bwrap!, args: [...bw, ...inner] };
}

/** Weak mode: a fresh host folder as work folder, a clean environment, setpriv's privilege drop when running as root. */
function weakLaunch(info: SandboxInfo, spec: SandboxRunSpec, python: string): Launch {
  const parent = spec.workRoot ?? os.tmpdir();
  const cleanupDir = fs.mkdtempSync(path.join(parent, 'oc-ws-'));
  const ws = path.join(cleanupDir, 'ws');
  fs.mkdirSync(ws);
  // An isolated run's candidate process gets a uid of its own: it cannot write the tests' work folder or signal them.
  const candidate = spec.entry === 'serve' && splitsUids(info);
  // Even for the tests, odd for a candidate: an isolated run's two processes never draw the same uid.
  const uid = info.uid === null ? null : drawRunUid(candidate);
  const gid = candidate ? CANDIDATE_GID : SANDBOX_GID;
  if (uid !== null) fs.chownSync(ws, uid, gid);
  fs.chmodSync(ws, 0o700);
  fs.chmodSync(cleanupDir, 0o711);
  const harness = harnessDirFor(info);
  const stdinText = typeof spec.stdin === 'function' ? spec.stdin({ ws, base: spec.repo, harness }) : spec.stdin;
  // RLIMIT_NPROC counts every process and thread of the uid. Without a uid of its own the run shares this user's
  // count (the engine, its workers, a browser): the limit must sit that far above it, or the harness cannot start.
  const own = uid === null ? tasksOfUser(process.getuid?.() ?? null) : 0;
  const inner = innerCommand(info, own ? { ...spec, limits: { ...spec.limits, processes: spec.limits.processes + own } } : spec, python, harness);
  let file: string;
  let args: string[];
  if (uid !== null && info.tools.setpriv) {
    file = info.tools.setpriv;
    args = [`--reuid=${uid}`, `--regid=${gid}`, '--clear-groups', '--inh-caps=-all', '--no-new-privs', ...inner];
  } else {
    [file, ...args] = inner as [string, ...string[]];
  }
  if (info.tools.unshare) {
    // A PID namespace of the run's own (as root): everything it starts ends, and is reaped, with its first process.
    // That first process is a shell that waits for the run (as bwrap's init does), not the run itself: a namespace's
    // init ignores the signals its own processes send it, so a candidate that kills its own group must still die.
    // The shell exits with the run's status (128 + N when a signal N ended it).
    // With a network namespace of its own (as root), its loopback is brought up first, still as root, so tests that
    // serve on 127.0.0.1 work as in strong mode; nothing of the machine's network is in it.
    const netns = info.network === 'none';
    const net = netns ? ['--net'] : [];
    const lo = netns && info.tools.ip ? `'${info.tools.ip}' link set lo up 2>/dev/null; ` : '';
    args = ['--pid', ...net, '--fork', '--kill-child', '--', '/bin/sh', '-c', `${lo}"$@"; exit $?`, 'sh', file, ...args];
    file = info.tools.unshare;
  }
  // Not a secret: it only names this run's processes, so that the cleanup finds those that left the work folder.
  const marker = randomBytes(12).toString('hex');
  const childEnv: Record<string, string> = { ...env(ws), TMPDIR: ws, OPENCODER_SANDBOX_RUN: marker };
  if (process.platform === 'win32') Object.assign(childEnv, { SYSTEMROOT: process.env.SYSTEMROOT ?? 'C:\\Windows' });
  return { file, args, cwd: ws, env: childEnv, stdinText, ws, cleanupDir, marker, uid };
}

/** Weak-mode uids of this process's runs in progress: a uid is drawn again rather than shared. */
const liveRunUids = new Set<number>();

/** A weak run's own uid (as root): even for the tests, odd for an isolated run's candidate; none of another run in progress. */
function drawRunUid(candidate: boolean): number {
  for (;;) {
    const uid = RUN_UID_BASE + 2 * randomInt(RUN_UID_SPAN / 2) + (candidate ? 1 : 0);
    if (liveRunUids.has(uid)) continue;
    liveRunUids.add(uid);
    return uid;
  }
}

/** The ids of the processes /proc lists now, or null where it cannot be read. */
function procPids(): string[] | null {
  try {
    return fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d));
  } catch {
    return null;
  }
}

/** How many processes and threads `uid` has now (what RLIMIT_NPROC counts), or 0 where /proc cannot tell. */
function tasksOfUser(uid: number | null): number {
  if (uid === null || process.platform !== 'linux') return 0;
  let n = 0;
  for (const pid of procPids() ?? []) {
    try {
      if (fs.statSync(`/proc/${pid}`).uid !== uid) continue;
      n += Number(/^Threads:\s+(\d+)/m.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 1);
    } catch {
      /* gone */
    }
  }
  return n;
}

/**
 * Spawns the program in its own process group and captures its output, killing it when the output passes its cap.
 * fd 3 is the report channel (read), or with `peer === null` a socket the caller hands on; `peer` becomes fd 4.
 */
function startChild(l: Launch, limits: Limits, events: SandboxEvent[], peer?: Duplex | null, onChannel?: (chunk: Buffer) => void): Running {
  const stdio = ['pipe', 'pipe', 'pipe', 'pipe', ...(peer ? [peer] : [])] as ('pipe' | Duplex)[];
  const child = spawn(l.file, l.args, { cwd: l.cwd, env: l.env, stdio, detached: true, windowsHide: true });
  const run: Running = {
    child,
    ch: child.stdio[3] as Duplex,
    closed: new Promise<void>((r) => child.once('close', () => r())),
    events,
    out: { stdout: [], stderr: [], kept: { stdout: 0, stderr: 0 }, total: 0 },
    channel: [],
    channelBytes: 0,
    killedBy: null,
    spawnError: null,
    killGroup: () => {
      if (child.pid === undefined) return;
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        try {
          child.kill('SIGKILL');
        } catch {
          /* gone */
        }
      }
    },
    kill: (why, detail) => {
      if (!run.killedBy) {
        run.killedBy = why;
        events.push({ kind: why, detail });
      }
      run.killGroup();
    },
  };
  const keep = limits.outputKeepBytes;
  const { out, ch } = run;
  const onOutput = (stream: 'stdout' | 'stderr') => (b: Buffer) => {
    out.total += b.length;
    if (out.kept[stream] < keep) {
      const slice = b.subarray(0, keep - out.kept[stream]);
      out[stream].push(slice);
      out.kept[stream] += slice.length;
    }
    if (out.total > limits.outputKillBytes) run.kill('output-limit', `more than ${limits.outputKillBytes} bytes of output`);
  };
  child.stdout!.on('data', onOutput('stdout'));
  child.stderr!.on('data', onOutput('stderr'));
  if (peer !== null) {
    ch.on('data', (b: Buffer) => {
      run.channelBytes += b.length;
      if (run.channelBytes > limits.outputKillBytes) run.kill('output-limit', 'report channel flooded');
      else {
        run.channel.push(b);
        onChannel?.(b);
      }
    });
  }
  for (const s of [child.stdin!, ch, child.stdout!, child.stderr!] as (Readable | Writable)[]) s.on('error', () => {});
  return run;
}

/** Feeds stdin and waits for the exit, killing the program at the wall-clock limit or when the caller aborts. */
async function waitForExit(run: Running, stdinText: string, spec: SandboxRunSpec): Promise<{ code: number | null; signal: string | null }> {
  const timer = setTimeout(() => run.kill('wall-timeout', `wall-clock limit of ${spec.timeoutMs} ms`), spec.timeoutMs);
  const onAbort = () => run.kill('aborted', 'cancelled by the caller');
  if (spec.signal?.aborted) onAbort();
  spec.signal?.addEventListener('abort', onAbort, { once: true });

  const { child } = run;
  child.stdin!.end(stdinText);
  const exit = await new Promise<{ code: number | null; signal: string | null }>((resolve) => {
    child.once('error', (err) => {
      run.spawnError = err;
      resolve({ code: null, signal: null });
    });
    child.once('exit', (code, signal) => resolve({ code, signal }));
  });
  clearTimeout(timer);
  spec.signal?.removeEventListener('abort', onAbort);
  return exit;
}

/** Lets the pipes drain; orphans that escaped the group could hold them open, so it does not wait long. */
async function drain(run: Running): Promise<void> {
  let drainTimer: NodeJS.Timeout | undefined;
  await Promise.race([run.closed, new Promise<void>((r) => (drainTimer = setTimeout(r, 2000)))]);
  clearTimeout(drainTimer);
  for (const s of [run.child.stdout!, run.child.stderr!]) s.destroy();
  run.ch.destroy();
}

/**
 * Weak mode: every process of the run still alive after its group was killed (setsid escapees, a fork bomb's
 * children): those of the sandbox uid working in this work folder or carrying the run's marker in their environment.
 * Each pass stops the ones it finds (a stopped process forks no more), until a pass finds none new; then all are
 * killed. One pass alone lost the race with a fork bomb: 63 processes outlived the run and held the uid's process
 * limit, so every later run of that uid failed.
 */
function killStragglers(uid: number | null, ws: string, marker?: string): void {
  if (process.platform !== 'linux' || uid === null) return;
  const ours = (pid: string): boolean => {
    try {
      if (fs.statSync(`/proc/${pid}`).uid !== uid) return false;
      const cwd = fs.readlinkSync(`/proc/${pid}/cwd`);
      if (cwd === ws || cwd.startsWith(ws + path.sep)) return true;
      return marker !== undefined && fs.readFileSync(`/proc/${pid}/environ`).includes(`OPENCODER_SANDBOX_RUN=${marker}\0`);
    } catch {
      return false; // gone, or not readable: not ours to judge
    }
  };
  const stopped = new Set<number>();
  for (let pass = 0; pass < 100; pass++) {
    let found = 0;
    const pids = procPids();
    if (!pids) return;
    for (const pid of pids) {
      const n = Number(pid);
      if (n === process.pid || stopped.has(n) || !ours(pid)) continue;
      try {
        process.kill(n, 'SIGSTOP');
        stopped.add(n);
        found++;
      } catch {
        /* gone */
      }
    }
    if (!found) break;
  }
  for (const pid of stopped) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      /* gone */
    }
  }
}

export function newNonce(): string {
  return randomBytes(32).toString('hex');
}
