// Validator benchmarks (BENCH_ONLY=validate): the sandbox's overhead per candidate over bare python3
// on the same program, and the pool's throughput against one worker. Both sides of each figure
// are measured in the same run, interleaved, so machine noise hits them alike.

import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Task } from '../main/model/task.ts';
import { DEFAULT_LIMITS, defaultPython, detectSandbox, runSandboxed } from '../main/validate/sandbox.ts';
import { createValidator } from '../main/validate/validator.ts';

type Record = (what: string, value: string, baseline: string, ratio: string, target?: string) => void;
type Put = (name: string, value: number) => void;

interface Row {
  task_id: string;
  entry_point: string;
  solution: string;
  check_template: string;
  placeholder: string;
  test_names: string[];
}

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

function loadTasks(): { tasks: Task[]; rows: Row[]; source: string } {
  const dir = process.env.OPENCODER_BENCH_DIR ? path.resolve(process.env.OPENCODER_BENCH_DIR) : path.resolve(ROOT, '..', 'shared', 'bench');
  const file = path.join(dir, 'repoexec', 'repoexec_inline.jsonl');
  if (!fs.existsSync(file)) throw new Error(`RepoExec-inline data not found at ${file} (set OPENCODER_BENCH_DIR)`);
  const rows = fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as Row);
  const tasks = rows.map((r): Task => ({
    id: r.task_id,
    repo: '.',
    repoPath: ROOT,
    file: 'x.py',
    qualname: r.entry_point,
    requirement: '',
    signature: r.solution.split('\n')[0]!,
    reference: r.solution,
    check_template: r.check_template,
    placeholder: r.placeholder,
    tests: r.test_names,
  }));
  return { tasks, rows, source: file };
}

export async function benchValidate(record: Record, put: Put): Promise<void> {
  const { tasks, rows, source } = loadTasks();
  const info = await detectSandbox();
  console.log(`validate: ${tasks.length} RepoExec-inline tasks from ${source}; sandbox ${info.label}`);
  const python = defaultPython();

  // 1. Overhead on one program: a mid-sized template with its reference spliced in.
  const sizes = rows.map((r, i) => ({ i, n: r.check_template.length })).sort((a, b) => a.n - b.n);
  const pick = sizes[Math.floor(sizes.length / 2)]!.i;
  const row = rows[pick]!;
  const task = tasks[pick]!;
  const program = row.check_template.replace(row.placeholder, row.solution);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'oc-bench-validate-'));
  const programFile = path.join(dir, 'program.py');
  fs.writeFileSync(programFile, program);
  const validator = await createValidator({ concurrency: 1 });
  await validator.prepare(task);
  // The same isolated validation started cold (two sandboxes and interpreters per candidate, as before warm servers).
  const coldValidator = await createValidator({ concurrency: 1, warm: false });
  await coldValidator.prepare(task);
  const runs = Number(process.env.BENCH_VALIDATE_RUNS ?? 30);
  const bare: number[] = [];
  const sandboxOnly: number[] = [];
  const full: number[] = [];
  const isolated: number[] = [];
  const isolatedCold: number[] = [];
  const execFromStdin = 'import sys; src = sys.stdin.read(); exec(compile(src, "/ws/program.py", "exec"), {"__name__": "__main__"})';
  try {
    for (let k = 0; k < runs; k++) {
      let t = performance.now();
      const r = spawnSync(python, ['-I', programFile], { cwd: dir, stdio: 'ignore' });
      bare.push(performance.now() - t);
      if (r.status !== 0) throw new Error(`bare python3 failed on ${row.task_id}`);
      t = performance.now();
      const s = await runSandboxed(info, { stdin: program, timeoutMs: 60_000, limits: DEFAULT_LIMITS, repo: null, argv: [python, '-I', '-c', execFromStdin] });
      sandboxOnly.push(performance.now() - t);
      if (s.exit.code !== 0) throw new Error(`sandboxed program failed: ${s.stderr.slice(-500)}`);
      t = performance.now();
      const v = await validator.validate(task, `${row.solution}\n# run ${k}\n`, { isolation: 'in-process' }); // distinct text: no cache hit
      full.push(performance.now() - t);
      if (v.status !== 'passed') throw new Error(`validation failed: ${v.reason}`);
      t = performance.now();
      const iso = await validator.validate(task, `${row.solution}\n# isolated run ${k}\n`, { isolation: 'isolated' });
      isolated.push(performance.now() - t);
      if (iso.status !== 'passed' || iso.isolation !== 'isolated') throw new Error(`isolated validation failed: ${iso.reason}`);
      t = performance.now();
      const cold = await coldValidator.validate(task, `${row.solution}\n# cold run ${k}\n`, { isolation: 'isolated' });
      isolatedCold.push(performance.now() - t);
      if (cold.status !== 'passed' || cold.isolation !== 'isolated') throw new Error(`cold isolated validation failed: ${cold.reason}`);
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  const mb = median(bare);
  const ms = median(sandboxOnly);
  const mf = median(full);
  const mi = median(isolated);
  const mc = median(isolatedCold);
  put('validate.bareMs', mb);
  put('validate.isolatedColdMs', mc);
  put('validate.warmOverCold', mi / mc);
  put('validate.inProcessMs', mf);
  put('validate.isolatedMs', mi);
  put('validate.isolatedOverBare', mi / mb);
  put('validate.oneOverBare', mi / mb);
  record(
    'sandbox overhead per candidate',
    `${(ms - mb).toFixed(1)} ms (bwrap + setpriv + prlimit: ${ms.toFixed(1)} ms per run)`,
    `bare python3 -I on the same program ${mb.toFixed(1)} ms (${row.task_id}, ${row.test_names.length} tests, median of ${runs})`,
    `${(ms / mb).toFixed(2)}× bare`,
    '< 50 ms',
  );
  record(
    'full validation per candidate (in-process)',
    `${mf.toFixed(1)} ms (+${(mf - mb).toFixed(1)} ms: sandbox, static checks, splice, authenticated per-test report)`,
    `bare python3 -I ${mb.toFixed(1)} ms`,
    `${(mf / mb).toFixed(2)}× bare`,
  );
  record(
    'isolated validation per candidate',
    `${mi.toFixed(1)} ms (tests and candidate forked from warm servers, each in namespaces of its own, every call as data; in-process ${mf.toFixed(1)} ms; started cold ${mc.toFixed(1)} ms, ${(mi / mc).toFixed(2)}×)`,
    `bare python3 -I ${mb.toFixed(1)} ms`,
    `${(mi / mb).toFixed(2)}× bare`,
    '≤ 1.2× bare',
  );
  validator.close();
  coldValidator.close();

  // 2. Pool throughput: the same candidates through one worker and through one per core.
  const cores = os.availableParallelism();
  const n = Math.min(tasks.length, Number(process.env.BENCH_VALIDATE_TASKS ?? 40));
  const work = tasks.slice(0, n);
  let isolatedShare = 0;
  const throughput = async (workers: number, tag: string) => {
    const v = await createValidator({ concurrency: workers });
    // Plans and reference checks once per task, outside the clock: a run makes them once per manifest
    // (the reference checks are stored), before its first candidate.
    await Promise.all(work.map((t) => v.prepare(t).then(() => v.referenceCheck(t))));
    const t0 = performance.now();
    // Where the product decides them: isolated wherever the task's reference check found it faithful, else in-process.
    const verdicts = await Promise.all(work.flatMap((t) => [v.validate(t, `${t.reference}\n# ${tag} a\n`), v.validate(t, `${t.reference}\n# ${tag} b\n`)]));
    isolatedShare = verdicts.filter((x) => x.isolation === 'isolated').length / verdicts.length;
    const secs = (performance.now() - t0) / 1000;
    v.close();
    const bad = verdicts.filter((x) => x.status !== 'passed' && !x.reason.includes('botocore'));
    if (bad.length > 2) throw new Error(`pool benchmark: ${bad.length} references did not pass`);
    return verdicts.length / secs;
  };
  const one = await throughput(1, 'one');
  const pooled = await throughput(cores, 'pool');
  record(
    `pool throughput (${cores} workers)`,
    `${pooled.toFixed(1)} candidates/s`,
    `one worker ${one.toFixed(1)} candidates/s (${n * 2} candidates each, ${(100 * isolatedShare).toFixed(0)}% of them isolated: the rest are tasks whose reference check found isolation not faithful)`,
    `${(pooled / one).toFixed(2)}×`,
    `≥ 14.1 candidates/s (3× the 4.7 of issue 33)`,
  );
  put('validate.poolPerSec', pooled);
  put('validate.poolCandidatesPerSec', pooled);
  put('validate.oneWorkerPerSec', one);
  put('validate.poolIsolatedShare', isolatedShare);
}
