// Queued runs (BENCH_ONLY=queue): validation throughput through the BullMQ queue with one and two local workers,
// beside the same run without a queue, all on the same 60 jobs (20 RepoExec-inline tasks of python-string-utils ×
// the 3 conditions of `--method compare`, on the imported backend: RepoExec's published phi-2 samples replayed, so
// a job is retrieval plus sandboxed validation of 10 samples and no model is called). A private redis-server on a
// free loopback port carries the queue; the workers are `opencoder worker` processes with their own bundle cache.
//
// Order: a local warm-up run indexes the tasks and stores their reference checks (no measured run indexes); then
// the local run (--parallel 1); then one worker, a queued warm-up (the worker's start and bundle cache) and the
// one-worker run; then a second worker, a queued warm-up and the two-worker run. Every run is its own run id in
// the same store. Every run validates one candidate at a time per process (--validator-workers 1; the local run
// also --parallel 1), so one worker is one core's worth; on a machine with two cores or more each worker, and the
// local run, is pinned to a core of its own (taskset). Workers reuse verdicts within a run only (as a local run
// does), so no measured run profits from the warm-up's. Figures: each run's own duration (outcome.durationMs)
// beside its process's wall clock, the pairs' own time (outcome.pairMs), CPU per job, and this machine's scaling of
// bare python3 runs over two cores.

import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Queue } from 'bullmq';
import { redisServerPath, startRedisServer, type RedisServer } from '../scripts/redis-server.ts';

type Record = (what: string, value: string, baseline: string, ratio: string, target?: string) => void;
type Put = (name: string, value: number) => void;

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const BIN = path.join(ROOT, 'bin', 'opencoder.js');
const SUBSET = 'python_string_utils_inline';
const LIMIT = 20;
const QUEUE_NAME = 'opencoder-imported';

/** One finished `node bin/opencoder.js …` process. */
interface Finished {
  stdout: string;
  stderr: string;
  wallMs: number;
  /** CPU time of the process and its sandboxes, sampled every 50 ms (Linux; null elsewhere). */
  cpuMs: number | null;
}

/** Runs `opencoder ARGS` to its end; rejects with the last lines of its output when it exits non-zero. */
function opencoder(args: string[], env: NodeJS.ProcessEnv, cpu?: number): Promise<Finished> {
  return new Promise((resolve, reject) => {
    const t = performance.now();
    // taskset execs node: the pid (and the CPU sampled) is the run's own.
    const [cmd, argv] = cpu === undefined ? [process.execPath, [BIN, ...args]] : ['/usr/bin/taskset', ['-c', String(cpu), process.execPath, BIN, ...args]];
    const child = spawn(cmd, argv, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let cpuMs: number | null = null;
    const sampler = setInterval(() => (cpuMs = processCpuMs(child.pid) ?? cpuMs), 50);
    child.stdout.setEncoding('utf8').on('data', (s: string) => (stdout += s));
    child.stderr.setEncoding('utf8').on('data', (s: string) => (stderr += s));
    child.on('error', (err) => (clearInterval(sampler), reject(err)));
    child.on('close', (code, signal) => {
      clearInterval(sampler);
      const wallMs = performance.now() - t;
      if (code === 0) return resolve({ stdout, stderr, wallMs, cpuMs });
      const tail = (stderr || stdout).trim().split('\n').slice(-4).join(' | ');
      reject(new Error(`opencoder ${args[0]} exited ${code ?? signal}: ${tail}`));
    });
  });
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Waits for a child to exit, up to `ms`; true when it did. */
function exited(child: ChildProcess, ms: number): Promise<boolean> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(true);
  return new Promise((resolve) => {
    const t = setTimeout(() => resolve(false), ms);
    child.once('exit', () => (clearTimeout(t), resolve(true)));
  });
}

/** Stops a child: `signal` first, SIGKILL when it has not exited after `graceMs`. */
async function stop(child: ChildProcess, signal: NodeJS.Signals, graceMs: number): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill(signal);
  if (!(await exited(child, graceMs))) {
    child.kill('SIGKILL');
    await exited(child, 5000);
  }
}

/** The last `max` characters a child wrote to stderr (kept so a failure can be explained). */
function tailOf(child: ChildProcess, max = 4000): () => string {
  let tail = '';
  child.stderr?.setEncoding('utf8').on('data', (s: string) => {
    tail = (tail + s).slice(-max);
  });
  child.stdout?.resume();
  return () => tail.trim();
}

/** Busy and total CPU ticks of the whole machine so far (Linux; null elsewhere). */
function machineTicks(): { busy: number; total: number } | null {
  try {
    const f = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
    const idle = (f[3] ?? 0) + (f[4] ?? 0);
    const total = f.slice(0, 8).reduce((a, b) => a + b, 0);
    return { busy: total - idle, total };
  } catch {
    return null;
  }
}

/** CPU milliseconds a process and its reaped children (its sandboxes) have used (Linux; null elsewhere). */
function processCpuMs(pid: number | undefined): number | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat
      .slice(stat.lastIndexOf(')') + 2)
      .split(' ')
      .map(Number);
    // fields 14-17 of proc(5) (utime, stime, cutime, cstime), in clock ticks of 10 ms
    return (f[11]! + f[12]! + f[13]! + f[14]!) * 10;
  } catch {
    return null;
  }
}

/**
 * How this machine scales the work a job is made of, with no queue, sandbox or OpenCoder: a loop of bare `python3 -I`
 * runs of one RepoExec-inline program pinned to one core, against two such loops pinned to a core each, at once.
 * Process start-up (page faults, page tables) does not scale across the cores of some virtual machines; this is the
 * ceiling against which the two-worker ratio can be read.
 */
function machineScaling(jsonl: string, dir: string): { one: number; two: number; ratio: number } {
  const row = JSON.parse(fs.readFileSync(jsonl, 'utf8').split('\n')[0]!) as { check_template: string; placeholder: string; solution: string };
  const program = path.join(dir, 'machine-program.py');
  fs.writeFileSync(program, row.check_template.replace(row.placeholder, row.solution));
  const runs = 30;
  const loop = (cpu: number) => `taskset -c ${cpu} sh -c 'i=0; while [ $i -lt ${runs} ]; do /usr/bin/python3 -I ${program} >/dev/null 2>&1; i=$((i+1)); done'`;
  const timed = (cmd: string) => {
    const t = performance.now();
    execFileSync('/bin/sh', ['-c', cmd], { stdio: 'ignore' });
    return (performance.now() - t) / 1000;
  };
  timed(loop(0)); // warm the page cache
  const one = runs / timed(loop(0));
  const two = (2 * runs) / timed(`${loop(0)} & ${loop(1)} & wait`);
  return { one, two, ratio: two / one };
}

interface Measured {
  runId: string;
  durationMs: number;
  /** The pairs' own times summed (on the worker for a queued run); the rest of durationMs is dispatch and waiting. */
  pairMs: number;
  wallMs: number;
  jobs: number;
  /** Share of the machine's CPU time busy during the run (everything on it, not only this bench). */
  busyPct: number | null;
  /** CPU time of the run's own process (the coordinator of a queued run) with its sandboxes. */
  cpuMs: number | null;
  /** CPU time of the workers (with their sandboxes) and of redis-server during the run. */
  workerCpuMs: number | null;
  redisCpuMs: number | null;
}

export async function benchQueue(record: Record, put: Put): Promise<void> {
  const benchDir = process.env.OPENCODER_BENCH_DIR ? path.resolve(process.env.OPENCODER_BENCH_DIR) : path.resolve(ROOT, '..', 'shared', 'bench');
  const repoexec = path.join(benchDir, 'repoexec');
  const phi2 = path.join(repoexec, 'phi-2-results');
  if (!fs.existsSync(path.join(repoexec, 'repoexec_inline.jsonl')) || !fs.existsSync(phi2)) {
    console.log(`queue: skipped: RepoExec data not found at ${repoexec} (with phi-2-results; set OPENCODER_BENCH_DIR)`);
    return;
  }
  if (!redisServerPath()) {
    console.log('queue: skipped: redis-server not found (install redis to measure queued runs)');
    return;
  }

  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'oc-bench-queue-'));
  const env: NodeJS.ProcessEnv = { ...process.env, XDG_CACHE_HOME: path.join(dir, 'cache') };
  const children: ChildProcess[] = [];
  let server: RedisServer | null = null;
  let queue: Queue | null = null;
  try {
    server = await startRedisServer();
    const { port, url } = server;
    const redis = server.child;
    queue = new Queue(QUEUE_NAME, { connection: { host: '127.0.0.1', port, maxRetriesPerRequest: null } });
    queue.on('error', () => {});

    await opencoder(['import', 'repoexec', repoexec, '--subset', SUBSET, '--out', path.join(dir, 'bench')], env);
    await opencoder(['samples', 'import', phi2, '--out', path.join(dir, 'phi2.jsonl')], env);
    const runArgs = [
      'run',
      '--manifest',
      path.join(dir, 'bench', 'tasks.jsonl'),
      '--method',
      'compare',
      '--backend',
      'imported',
      '--samples',
      path.join(dir, 'phi2.jsonl'),
      '--db',
      path.join(dir, 'runs.db'),
      '--limit',
      String(LIMIT),
      '--json',
      '--quiet',
    ];
    const workerCpu = () => {
      const ms = children.map((c) => processCpuMs(c.pid));
      return ms.length && ms.every((x) => x !== null) ? ms.reduce((a, b) => a + b, 0) : null;
    };
    // One worker is one core's worth: each worker, and the local run it is set against, pinned to a core of its own.
    const pin = os.availableParallelism() >= 2 && fs.existsSync('/usr/bin/taskset');
    const run = async (extra: string[], cpu?: number): Promise<Measured> => {
      const ticks0 = machineTicks();
      const cpu0 = workerCpu();
      const redis0 = processCpuMs(redis.pid);
      const r = await opencoder([...runArgs, ...extra], env, cpu);
      const ticks1 = machineTicks();
      const cpu1 = workerCpu();
      const redis1 = processCpuMs(redis.pid);
      const busyPct = ticks0 && ticks1 ? (100 * (ticks1.busy - ticks0.busy)) / Math.max(1, ticks1.total - ticks0.total) : null;
      const doc = JSON.parse(r.stdout.trim().split('\n').pop()!) as {
        runId: string;
        outcome: { status: string; total: number; ran: number; failed: number; durationMs: number; pairMs: number };
      };
      const o = doc.outcome;
      if (o.status !== 'done' || o.ran !== o.total || o.failed)
        throw new Error(`run ${doc.runId}: ${o.status}, ${o.ran} of ${o.total} ran, ${o.failed} unscored`);
      return {
        runId: doc.runId,
        durationMs: o.durationMs,
        pairMs: o.pairMs,
        wallMs: r.wallMs,
        jobs: o.total,
        busyPct,
        cpuMs: r.cpuMs,
        workerCpuMs: cpu0 !== null && cpu1 !== null ? cpu1 - cpu0 : null,
        redisCpuMs: redis0 !== null && redis1 !== null ? redis1 - redis0 : null,
      };
    };
    /**
     * A queued run; one that fails is tried once more (the failure is printed: it is a finding, not noise).
     * Workers reuse verdicts within a run only, so every measured run validates its candidates afresh.
     */
    const queued = async (what: string): Promise<Measured> => {
      try {
        return await run(['--queue', url]);
      } catch (err) {
        console.log(`  note: the queued run (${what}) failed, trying once more: ${(err as Error).message}`);
        return run(['--queue', url]);
      }
    };
    const byWorker = async (runId: string): Promise<string> => {
      const jobs = await queue!.getJobs(['completed'], 0, -1);
      const counts = new Map<string, number>();
      for (const j of jobs) {
        if ((j.data as { runId?: string }).runId !== runId) continue;
        const w = j.processedBy ?? '?';
        counts.set(w, (counts.get(w) ?? 0) + 1);
      }
      return [...counts].map(([w, n]) => `${w} ${n}`).join(', ');
    };
    // Each worker pinned to a core of its own (taskset execs node, so the pid is the worker's): one worker is one core.
    const startWorker = async (): Promise<void> => {
      const argv = [BIN, 'worker', '--queue', url, '--concurrency', '1', '--validator-workers', '1', '--quiet'];
      const [cmd, args] = pin ? ['/usr/bin/taskset', ['-c', String(children.length), process.execPath, ...argv]] : [process.execPath, argv];
      const child = spawn(cmd, args, {
        cwd: ROOT,
        env,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      children.push(child);
      const log = tailOf(child);
      const want = children.length;
      const until = performance.now() + 60_000;
      while ((await queue!.getWorkersCount()) < want) {
        if (child.exitCode !== null || performance.now() > until) throw new Error(`worker ${want} did not start: ${log()}`);
        await sleep(100);
      }
    };

    const load = () => os.loadavg()[0]!.toFixed(2);
    console.log(
      `queue: machine load (1-min average) ${load()} before the runs on ${os.availableParallelism()} cpus (other work on the machine slows every figure)`,
    );
    const t0 = performance.now();
    await run(['--parallel', '1', '--validator-workers', '1']); // indexes the tasks and stores their reference checks
    console.log(
      `queue: ${LIMIT} tasks of ${SUBSET} × 3 conditions, imported phi-2 samples; index and reference checks ready in ${((performance.now() - t0) / 1000).toFixed(1)} s`,
    );
    // Pinned like the one worker: unpinned, the run's sandboxes and the kernel's work for them spread over both cores.
    const local = await run(['--parallel', '1', '--validator-workers', '1'], pin ? 0 : undefined);

    await startWorker();
    await queued('warm-up, 1 worker');
    const one = await queued('1 worker');
    const oneBy = await byWorker(one.runId);

    await startWorker();
    await queued('warm-up, 2 workers');
    const two = await queued('2 workers');
    const twoBy = await byWorker(two.runId);

    console.log(`queue: machine load ${load()} after the runs`);
    const machine = pin ? machineScaling(path.join(repoexec, 'repoexec_inline.jsonl'), dir) : null;
    const jobs = local.jobs;
    const cpus = os.availableParallelism();
    const perSec = (m: Measured) => jobs / (m.durationMs / 1000);
    const perCore = (m: Measured, workers: number) => perSec(m) / Math.min(workers, cpus);
    const overhead = (one.durationMs - local.durationMs) / jobs;
    const ratio = one.durationMs / two.durationMs;
    put('queue.localMs', local.durationMs);
    put('queue.oneWorkerMs', one.durationMs);
    put('queue.twoWorkersMs', two.durationMs);
    put('queue.overheadPerJobMs', overhead);
    // The overhead split: the time outside the pairs (start-up, dispatch, collection) against the local run's, and the
    // pairs' own time (the same work on the worker's copies) against theirs.
    const outside = (m: Measured) => (m.durationMs - m.pairMs) / jobs;
    const dispatch = outside(one) - outside(local);
    const inPairs = (one.pairMs - local.pairMs) / jobs;
    put('queue.dispatchPerJobMs', dispatch);
    put('queue.pairDiffPerJobMs', inPairs);
    put('queue.twoOverOne', ratio);
    if (pin) put('queue.pinnedTwoOverOne', ratio);
    // CPU per job of everything a queued run uses (coordinator, workers, redis, their sandboxes) over the local run's.
    const cpuOf = (m: Measured) => (m.cpuMs !== null && m.workerCpuMs !== null && m.redisCpuMs !== null ? m.cpuMs + m.workerCpuMs + m.redisCpuMs : null);
    const queuedCpu = cpuOf(one);
    if (queuedCpu !== null && local.cpuMs) put('queue.cpuPerJobQueuedOverLocal', queuedCpu / local.cpuMs);

    const secs = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
    for (const [what, m] of [
      ['local run', local],
      ['1 worker', one],
      ['2 workers', two],
    ] as const) {
      const busy = m.busyPct === null ? '' : `; machine CPU ${m.busyPct.toFixed(0)}% busy (all processes)`;
      const perJob = (ms: number) => `${(ms / jobs).toFixed(0)} ms`;
      const parts =
        what === 'local run'
          ? [m.cpuMs !== null ? `run ${perJob(m.cpuMs)}` : null]
          : [
              m.cpuMs !== null ? `coordinator ${perJob(m.cpuMs)}` : null,
              m.workerCpuMs !== null ? `workers ${perJob(m.workerCpuMs)}` : null,
              m.redisCpuMs !== null ? `redis ${perJob(m.redisCpuMs)}` : null,
            ];
      const known = parts.filter((x) => x !== null);
      const total = [m.cpuMs, what === 'local run' ? 0 : m.workerCpuMs, what === 'local run' ? 0 : m.redisCpuMs];
      const sum = total.every((x) => x !== null) ? ` = ${perJob(total.reduce((a, b) => a + b, 0))}` : '';
      const cpu = known.length ? `; CPU per job (with sandboxes): ${known.join(' + ')}${known.length > 1 ? sum : ''}` : '';
      console.log(`  ${what}: ${secs(m.durationMs)} (process ${secs(m.wallMs)})${busy}${cpu}`);
    }
    const rate = (m: Measured, workers: number) => `${perSec(m).toFixed(2)} jobs/s, ${perCore(m, workers).toFixed(2)} jobs/s per core`;
    record(
      `queued run, 1 worker (${jobs} jobs)`,
      `${secs(one.durationMs)} (process ${secs(one.wallMs)}); ${rate(one, 1)}; jobs by worker: ${oneBy}`,
      `same run without a queue (--parallel 1 --validator-workers 1${pin ? ', pinned to the worker’s core' : ''}) ${secs(local.durationMs)} (process ${secs(local.wallMs)}); ${rate(local, 1)}`,
      `${(one.durationMs / local.durationMs).toFixed(2)}× the local run; queue overhead ${overhead.toFixed(1)} ms per job: ${dispatch.toFixed(1)} ms outside the pairs (local ${outside(local).toFixed(1)}, queued ${outside(one).toFixed(1)}), ${inPairs.toFixed(1)} ms in them`,
      '≤ 15 ms per job',
    );
    record(
      `queued run, 2 workers (${jobs} jobs)`,
      `${secs(two.durationMs)} (process ${secs(two.wallMs)}); ${rate(two, 2)}; jobs by worker: ${twoBy}`,
      `1 worker ${secs(one.durationMs)}; ${rate(one, 1)}`,
      `${ratio.toFixed(2)}× one worker (${cpus} cpus${pin ? ', each worker pinned to a core of its own' : ', not pinned'})`,
      '≥ 1.7× one (pinned)',
    );
    if (machine) {
      put('queue.machineTwoOverOne', machine.ratio);
      record(
        'this machine: bare python3 -I runs, two cores vs one',
        `two loops pinned to a core each: ${machine.two.toFixed(1)} runs/s`,
        `one loop pinned to one core: ${machine.one.toFixed(1)} runs/s (a RepoExec-inline program with its reference, no sandbox)`,
        `${machine.ratio.toFixed(2)}×`,
        'the ceiling for the pinned two-worker figure on this machine',
      );
    }
    if (queuedCpu !== null && local.cpuMs)
      record(
        'CPU per job, queued (1 worker) over local',
        `${(queuedCpu / jobs).toFixed(0)} ms (coordinator, worker, redis and their sandboxes)`,
        `local run ${(local.cpuMs / jobs).toFixed(0)} ms (with its sandboxes)`,
        `${(queuedCpu / local.cpuMs).toFixed(2)}×`,
        '≤ 1.1×',
      );
  } finally {
    await Promise.all(children.map((c) => stop(c, 'SIGINT', 10_000)));
    await queue?.close().catch(() => {});
    await server?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
