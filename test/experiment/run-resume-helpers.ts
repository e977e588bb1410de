// What the two kill-and-resume tests share (run-resume.test.ts: offline backend; run-resume-mock.test.ts: a scripted
// OpenAI-compatible mock): CLI processes, reading stored results, and the run → kill halfway → resume → compare
// sequence. Two files so the two comparisons, the suite's longest tests, run beside each other.

import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { expect } from 'vitest';
import { importRepoExec } from '../../main/benchmarks/repoexec/import.ts';
import { readManifest } from '../../main/benchmarks/manifest-file.ts';
import type { Task } from '../../main/model/task.ts';
import type { TaskResult } from '../../main/model/results.ts';
import { benchDir, REPO_ROOT } from '../validate/helpers.ts';

export const bench = path.join(benchDir(), 'repoexec');
export const present = fs.existsSync(path.join(bench, 'repoexec_inline.jsonl'));
if (!present) console.warn(`[experiment] RepoExec data not found at ${bench} (set OPENCODER_BENCH_DIR): skipping the end-to-end kill/resume comparisons`);

const BIN = path.join(REPO_ROOT, 'bin', 'opencoder.js');
export const CONDITIONS = 3;

interface Done {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export function start(args: string[], env: NodeJS.ProcessEnv = {}): { child: ChildProcess; done: Promise<Done> } {
  const child = spawn(process.execPath, [BIN, ...args], { cwd: REPO_ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  const done = new Promise<Done>((resolve) => child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr })));
  return { child, done };
}

/** Waits until `log()` matches `what`; rejects when `done` settles first (with the end of the output). */
export function waitForLog(log: () => string, what: RegExp, done: Promise<Done>, who: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const t = setInterval(() => {
      if (what.test(log())) {
        clearInterval(t);
        resolve();
      }
    }, 50);
    void done.then((d) => (clearInterval(t), reject(new Error(`${who} exited: ${d.stderr.slice(-2000)}`))));
  });
}

/** Starts `opencoder worker` with these arguments; resolves once it listens on its queues. */
export async function startWorker(args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ child: ChildProcess; done: Promise<Done>; log: () => string }> {
  const w = start(['worker', ...args], env);
  let log = '';
  w.child.stderr!.on('data', (d) => (log += d));
  await waitForLog(() => log, /\[worker\] worker \S+ on redis:\/\//, w.done, 'the worker');
  return { ...w, log: () => log };
}

function countResults(db: string, runId: string): number {
  if (!fs.existsSync(db)) return 0;
  const conn = new Database(db, { readonly: true, fileMustExist: true });
  try {
    return (conn.prepare('SELECT COUNT(*) AS n FROM experiment_results WHERE run_id = ?').get(runId) as { n: number }).n;
  } catch {
    return 0; // the schema is not there yet
  } finally {
    conn.close();
  }
}

export function storedResults(db: string, runId: string): Map<string, unknown> {
  const conn = new Database(db, { readonly: true, fileMustExist: true });
  try {
    const rows = conn.prepare('SELECT task_id, condition, status, result FROM experiment_results WHERE run_id = ?').all(runId) as {
      task_id: string;
      condition: string;
      status: string;
      result: string;
    }[];
    // Timings differ run to run; everything else must not.
    return new Map(
      rows.map((r) => {
        const res = JSON.parse(r.result) as TaskResult;
        if (r.status === 'ok') {
          const { timingsMs: _t, ...rest } = res;
          return [
            `${r.task_id} ${r.condition}`,
            { status: r.status, ...rest, candidates: rest.candidates.map((c) => ({ ...c, verdict: { ...c.verdict, durationMs: 0 } })) },
          ];
        }
        return [`${r.task_id} ${r.condition}`, { status: r.status, ...res }];
      }),
    );
  } finally {
    conn.close();
  }
}

/** Runs the comparison once straight through, once killed halfway and resumed; returns both result sets. */
export async function killAndResume(manifest: string, db: string, backendArgs: string[], env: NodeJS.ProcessEnv, total: number) {
  const common = ['run', '--manifest', manifest, '--method', 'compare', '--db', db, '--parallel', '2', ...backendArgs];
  const straight = start([...common, '--json', '--quiet'], env);
  const s = await straight.done;
  expect(s.code, s.stderr).toBe(0);
  const straightId = (JSON.parse(s.stdout) as { runId: string }).runId;

  const killed = start(common, env);
  const idMatch = await new Promise<string>((resolve, reject) => {
    let buf = '';
    killed.child.stderr!.on('data', (d) => {
      buf += d;
      const m = /^Run (\S+): \d+ tasks/m.exec(buf);
      if (m) resolve(m[1]!);
    });
    void killed.done.then((d) => reject(new Error(`the run ended before it printed its id: ${d.stderr.slice(-2000)}`)));
  });
  // Kill once about half the (task, condition) pairs are stored.
  for (;;) {
    const n = countResults(db, idMatch);
    if (n >= total / 2) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  killed.child.kill('SIGKILL');
  const k = await killed.done;
  expect(k.signal).toBe('SIGKILL');
  const atKill = countResults(db, idMatch);
  expect(atKill).toBeGreaterThanOrEqual(total / 2);
  expect(atKill).toBeLessThan(total);

  const runs = start(['runs', '--db', db, '--json']);
  const listed = JSON.parse((await runs.done).stdout) as { runs: { id: string; state: string }[] };
  expect(listed.runs.find((r) => r.id === idMatch)?.state).toBe('interrupted');

  const resumed = start(['run', '--resume', idMatch, '--db', db, '--json', '--quiet'], env);
  const r = await resumed.done;
  expect(r.code, r.stderr).toBe(0);
  const out = JSON.parse(r.stdout) as { runId: string; outcome: { resumed: number; ran: number; total: number; status: string } };
  expect(out.runId).toBe(idMatch);
  expect(out.outcome.status).toBe('done');
  expect(out.outcome.resumed).toBe(atKill);
  expect(out.outcome.ran).toBe(total - atKill);

  const a = storedResults(db, straightId);
  const b = storedResults(db, idMatch);
  expect(a.size).toBe(total);
  expect(b.size).toBe(total);
  for (const [key, value] of a) expect(b.get(key), key).toEqual(value);
  return { straightId, resumedId: idMatch, results: a };
}

/** The python_string_utils RepoExec-inline tasks, imported into `dir`. */
export async function importStringUtils(dir: string): Promise<{ manifest: string; tasks: Task[] }> {
  const imported = await importRepoExec({ benchDir: bench, outDir: path.join(dir, 'bench'), subset: 'python_string_utils_inline' });
  return { manifest: imported.manifestFile, tasks: readManifest(imported.manifestFile).tasks };
}

/** The task a generation prompt is for: its "## Target" section names the file and qualified name (evidence may quote other signatures). */
export function promptTask(tasks: Task[]): (prompt: string) => Task | undefined {
  return (text) => {
    const m = /## Target\nFile: (\S+)\nQualified name: (\S+)/.exec(text);
    return m ? tasks.find((t) => t.file === m[1] && t.qualname === m[2]) : undefined;
  };
}
