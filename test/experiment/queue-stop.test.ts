// A queue worker stops when told (issue 33): on SIGTERM it takes no more jobs, gives the running ones back to the
// queue, and exits within seconds, also when its Redis has gone away (before, such workers ignored SIGTERM and
// SIGINT for the better part of an hour); while Redis is unreachable it says so once, not once per queue and retry.

import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedisServer, type RedisServer } from '../../scripts/redis-server.ts';
import { tmpDir } from '../helpers/tmp-repo.ts';
import { needs, unless } from '../helpers/system.ts';
import { bench, importStringUtils, present, start, startWorker, waitForLog } from './run-resume-helpers.ts';

const REDIS = needs('redis-server');
const PHI2 = path.join(bench, 'phi-2-results');
const BENCH = unless(present && fs.existsSync(PHI2), `no RepoExec data or phi-2 generations under ${bench}`);

/** Resolves with the child's exit once it has exited, or with null once `ms` have passed. */
function exitWithin<T>(done: Promise<T>, ms: number): Promise<T | null> {
  return Promise.race([done, new Promise<null>((r) => setTimeout(() => r(null), ms))]);
}

describe.skipIf(REDIS.skip)(`a worker stops when told${REDIS.note}`, () => {
  const dir = tmpDir('opencoder-queue-stop-');
  const children: ChildProcess[] = [];
  afterAll(() => {
    for (const c of children) c.kill('SIGKILL');
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('whose Redis is gone: says so once, and exits within 10 s of SIGTERM', async () => {
    const redis: RedisServer = await startRedisServer();
    const w = await startWorker(['--queue', redis.url], { XDG_CACHE_HOME: path.join(dir, 'cache') });
    children.push(w.child);
    await redis.stop();
    await waitForLog(w.log, /is unreachable/, w.done, 'the worker');
    // Some reconnect attempts later, still one line.
    await new Promise((r) => setTimeout(r, 2500));
    w.child.kill('SIGTERM');
    const exit = await exitWithin(w.done, 10_000);
    expect(exit, `still running 10 s after SIGTERM; its output:\n${w.log().slice(-2000)}`).not.toBeNull();
    expect(exit!.code).toBe(0);
    expect(w.log().match(/is unreachable/g)).toHaveLength(1);
    expect(w.log()).not.toMatch(/ECONNREFUSED[^\n]*\n[^\n]*ECONNREFUSED/);
    expect(w.log()).toMatch(/SIGTERM: stopping/);
    expect(w.log()).toMatch(/the queue did not answer; jobs this worker held go back to it once their locks lapse/);
  }, 60_000);

  it('whose Redis answers: stops at once on Ctrl-C, saying nothing of an absent queue', async () => {
    const redis: RedisServer = await startRedisServer();
    const w = await startWorker(['--queue', redis.url], { XDG_CACHE_HOME: path.join(dir, 'cache') });
    children.push(w.child);
    w.child.kill('SIGINT');
    const exit = await exitWithin(w.done, 10_000);
    await redis.stop();
    expect(exit, w.log()).not.toBeNull();
    expect(exit!.code).toBe(0);
    expect(exit!.stdout).toMatch(/Worker \S+ stopped after 0 job\(s\)\n/);
    expect(w.log()).not.toMatch(/did not answer/);
  }, 60_000);
});

describe.skipIf(REDIS.skip || BENCH.skip)(`a worker stopped mid-run gives its jobs back${REDIS.note}${BENCH.note}`, () => {
  let redis: RedisServer;
  let dir: string;
  let manifest: string;
  let samples: string;
  const children: ChildProcess[] = [];

  beforeAll(async () => {
    redis = await startRedisServer();
    dir = tmpDir('opencoder-queue-stop-run-');
    ({ manifest } = await importStringUtils(dir));
    samples = path.join(dir, 'phi2.jsonl');
    const imp = await start(['samples', 'import', PHI2, '--out', samples]).done;
    expect(imp.code, imp.stderr).toBe(0);
  }, 120_000);

  afterAll(async () => {
    for (const c of children) c.kill('SIGKILL');
    await redis?.stop();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('SIGTERM while it holds jobs: they go back to the queue unspent, another worker runs them, the run completes', async () => {
    const db = path.join(dir, 'q.db');
    const args = (n: number): [string[], NodeJS.ProcessEnv] => [
      ['--queue', redis.url, '--concurrency', '2', '--lock-ms', '30000'],
      { XDG_CACHE_HOME: path.join(dir, `cache-${n}`) },
    ];
    const w1 = await startWorker(...args(1));
    children.push(w1.child);
    const queued = start([
      'run',
      '--manifest',
      manifest,
      '--method',
      'compare',
      '--backend',
      'imported',
      '--samples',
      samples,
      '--db',
      db,
      '--limit',
      '6',
      '--queue',
      redis.url,
      '--json',
      '--quiet',
    ]);
    children.push(queued.child);
    // Signal as soon as worker 1 has started a job (its lock is long: only a given-back job returns at once).
    await waitForLog(w1.log, /\[worker\] \S+ \/ \S+: started \(run/, w1.done, 'worker 1');
    w1.child.kill('SIGTERM');
    const exit = await exitWithin(w1.done, 10_000);
    expect(exit, w1.log().slice(-2000)).not.toBeNull();
    expect(exit!.code).toBe(0);
    const back = [...w1.log().matchAll(/\[worker\] (\S+ \/ \S+): given back to the queue/g)].map((m) => m[1]!);
    expect(back.length, w1.log()).toBeGreaterThan(0);
    expect(exit!.stdout).toMatch(new RegExp(`stopped after \\d+ job\\(s\\); ${back.length} given back to the queue`));

    // A second worker takes the jobs given back at once (not after their 30 s locks lapse) and the run completes.
    const w2 = await startWorker(...args(2));
    children.push(w2.child);
    const q = await queued.done;
    expect(q.code, q.stderr).toBe(0);
    const out = JSON.parse(q.stdout) as { outcome: { ran: number; total: number; failed: number; status: string } };
    expect(out.outcome).toMatchObject({ total: 18, failed: 0, status: 'done' });
    for (const pair of back) {
      const first = new RegExp(`\\[worker\\] ${pair.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}: started \\(run \\S+, attempt 1\\)`);
      expect(w2.log(), `${pair} on worker 2`).toMatch(first);
    }
    expect(w2.log()).not.toMatch(/stalled\)/);
    w2.child.kill('SIGTERM');
    expect((await exitWithin(w2.done, 10_000))?.code).toBe(0);
  }, 300_000);
});
