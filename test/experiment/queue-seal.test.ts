// What goes through Redis is sealed with the queue's key (main/experiment/queue/seal.ts), and a candidate never
// reaches the queue: jobs rewritten in Redis are refused by the worker, results rewritten there are refused by the
// coordinator, shared verdicts that do not open are run again, and each is counted apart in the run's outcome.

import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadQueueSecret, seal, sealText, unseal, unsealText } from '../../main/experiment/queue/seal.ts';
import { parseQueueUrl, queueExposure } from '../../main/experiment/queue/url.ts';
import { queueNameOf } from '../../main/experiment/queue/jobs.ts';
import { sealedVerdicts } from '../../main/experiment/queue/worker.ts';
import { publishBundle, publishIndex } from '../../main/experiment/queue/bundles.ts';
import { Store } from '../../main/store/store.ts';
import type { Verdict } from '../../main/model/verdict.ts';
import { tmpDir } from '../helpers/tmp-repo.ts';
import { startRedis, type TestRedis } from '../helpers/redis.ts';
import { needs } from '../helpers/system.ts';
import { SAMPLE_REPO } from '../validate/helpers.ts';
import { start, startWorker, storedResults } from './run-resume-helpers.ts';

const REDIS = needs('redis-server');
const KEY = Buffer.alloc(32, 7);

describe('seals', () => {
  it('open for the key, purpose and name they were made for, and for nothing altered', () => {
    const s = seal(KEY, 'job', 'job-1', { task: { check_template: 'assert f(1) == 2' } });
    expect(unseal(KEY, 'job', 'job-1', s)).toEqual({ task: { check_template: 'assert f(1) == 2' } });
    expect(unseal(KEY, 'job', 'job-2', s)).toBeNull(); // moved to another job
    expect(unseal(KEY, 'result', 'job-1', s)).toBeNull(); // taken for another purpose
    expect(unseal(Buffer.alloc(32, 8), 'job', 'job-1', s)).toBeNull(); // another key
    expect(unseal(KEY, 'job', 'job-1', { ...s, body: s.body.replace('assert f(1) == 2', '(f(1) == 2); assert True') })).toBeNull();
    expect(unseal(KEY, 'job', 'job-1', { body: s.body })).toBeNull();
    const text = sealText(KEY, 'verdict', 'v', { status: 'failed' });
    expect(unsealText(KEY, 'verdict', 'v', text)).toEqual({ status: 'failed' });
    expect(unsealText(KEY, 'verdict', 'v', text.replace('failed', 'passed'))).toBeNull();
    expect(unsealText(KEY, 'verdict', 'v', JSON.stringify({ status: 'passed' }))).toBeNull();
  });

  it('the secret: from the environment, else a 0600 file made once; a file others can read is refused', () => {
    const dir = tmpDir('oc-secret-');
    try {
      const file = path.join(dir, 'opencoder', 'queue-secret');
      const a = loadQueueSecret({}, file);
      expect(fs.statSync(file).mode & 0o777).toBe(0o600);
      expect(loadQueueSecret({}, file).key.equals(a.key)).toBe(true);
      fs.chmodSync(file, 0o644);
      expect(() => loadQueueSecret({}, file)).toThrow(/can be read or written by others/);
      expect(() => loadQueueSecret({ OPENCODER_QUEUE_SECRET: 'short' }, file)).toThrow(/too short/);
      expect(loadQueueSecret({ OPENCODER_QUEUE_SECRET: 'x'.repeat(40) }, file).from).toBe('OPENCODER_QUEUE_SECRET');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a sandbox that leaves candidates the network: no queue without a password, and unsafe with one', () => {
    const open = parseQueueUrl('redis://127.0.0.1:6379', {});
    const locked = parseQueueUrl('redis://:pw@127.0.0.1:6379', {});
    expect(queueExposure({ strength: 'strong', network: 'none' }, open)).toBeNull();
    expect(queueExposure({ strength: 'weak', network: 'none' }, open)).toBeNull();
    expect(queueExposure({ strength: 'weak', network: 'host' }, open)).toMatchObject({ refuse: expect.stringMatching(/without a password/) });
    expect(queueExposure({ strength: 'weak', network: 'host' }, locked)).toMatchObject({ warn: expect.stringMatching(/^UNSAFE/) });
  });
});

describe.skipIf(REDIS.skip)(`sealed jobs and results on a real queue${REDIS.note}`, () => {
  let redis: TestRedis;
  let dir: string;
  const manifest = path.join(SAMPLE_REPO, 'tasks.jsonl');
  const kids: { child: ChildProcess }[] = [];
  beforeAll(async () => {
    redis = await startRedis();
    dir = tmpDir('oc-queue-seal-');
  });
  afterAll(async () => {
    for (const k of kids) k.child.kill('SIGKILL');
    await redis?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  // Each test has a Redis database of its own (its jobs only).
  /** A CLI process this file started: killed after the tests, should one fail while waiting on it. */
  const track = <T extends { child: ChildProcess }>(p: T): T => {
    kids.push(p);
    return p;
  };
  const jobKeys = async (list: 'wait' | 'completed', db = 0) => {
    const c = redis.client();
    await c.select(db);
    const q = `bull:${queueNameOf('offline')}`;
    const ids = list === 'wait' ? await c.lrange(`${q}:wait`, 0, -1) : await c.zrange(`${q}:completed`, 0, -1);
    return ids.map((id) => `${q}:${id}`);
  };
  const until = async (what: () => Promise<boolean>, ms = 120_000) => {
    const end = Date.now() + ms;
    while (!(await what())) {
      if (Date.now() > end) throw new Error('timed out waiting');
      await new Promise((r) => setTimeout(r, 100));
    }
  };
  const runIdOf = (db: string) => {
    const conn = new Database(db, { readonly: true });
    try {
      return (conn.prepare('SELECT id FROM experiment_runs ORDER BY rowid DESC LIMIT 1').get() as { id: string }).id;
    } finally {
      conn.close();
    }
  };

  it('shared verdicts: taken when sealed for their key and run; refused when altered, unsealed, moved or of another key', async () => {
    const c = redis.client();
    await c.select(2);
    const lines: string[] = [];
    const store = sealedVerdicts(
      c,
      KEY,
      'run-a',
      () => 'bundle',
      (l) => lines.push(l),
    );
    const failed = { taskId: 't', status: 'failed', reason: 'test_0 failed' } as unknown as Verdict;
    await store.put('k1', failed);
    expect(await store.get('k1')).toEqual({ verdict: failed });
    expect(await store.get('k2')).toBeNull();
    const name = (k: string, run = 'run-a') => `opencoder:verdict:${run}:${k}`;
    // Flipped in place, seal kept.
    await c.set(name('k1'), (await c.get(name('k1')))!.replace('"failed"', '"passed"'));
    expect(await store.get('k1')).toEqual({ refused: expect.any(String) });
    // Written as plain JSON (what workers stored before seals).
    await c.set(name('k3'), JSON.stringify({ ...failed, status: 'passed' }));
    expect(await store.get('k3')).toEqual({ refused: expect.any(String) });
    // A genuine seal copied to another key, or to another run, or made with another key.
    await store.put('k4', { ...failed, status: 'passed' });
    await c.set(name('k5'), (await c.get(name('k4')))!);
    expect(await store.get('k5')).toEqual({ refused: expect.any(String) });
    const other = sealedVerdicts(
      c,
      KEY,
      'run-b',
      () => 'bundle',
      () => {},
    );
    await c.set(name('k4', 'run-b'), (await c.get(name('k4')))!);
    expect(await other.get('k4')).toEqual({ refused: expect.any(String) });
    const foreign = sealedVerdicts(
      c,
      Buffer.alloc(32, 9),
      'run-a',
      () => 'bundle',
      () => {},
    );
    expect(await foreign.get('k4')).toEqual({ refused: expect.any(String) });
    expect(lines.length).toBe(3);
    expect(lines[0]).toMatch(/does not verify/);
  });

  it('the index memo: a memo rewritten to name another bundle is not taken; a fresh snapshot is published', async () => {
    const c = redis.client();
    await c.select(5);
    const store = Store.open(path.join(dir, 'memo.db'));
    try {
      const first = await publishIndex(c, store, KEY);
      expect((await publishIndex(c, store, KEY)).sha256).toBe(first.sha256); // unchanged index: the memo is reused
      const [memo] = await c.keys('opencoder:index-memo:*');
      const planted = await publishBundle(c, 'index', Buffer.from('an index of the forger'));
      await c.set(memo!, JSON.stringify(planted)); // plain, as memos were before seals
      expect((await publishIndex(c, store, KEY)).sha256).toBe(first.sha256);
      await c.set(memo!, sealText(Buffer.alloc(32, 1), 'index-memo', memo!, planted)); // sealed with another key
      expect((await publishIndex(c, store, KEY)).sha256).toBe(first.sha256);
    } finally {
      store.close();
    }
  });

  it('jobs rewritten while they wait are refused by the worker, counted apart, and run by a resume', async () => {
    const db = path.join(dir, 'jobs.db');
    const args = ['run', '--manifest', manifest, '--method', 'baseline-rag', '--backend', 'offline', '--db', db, '--limit', '3', '--queue', redis.url];
    const coordinator = start([...args, '--json', '--quiet']);
    kids.push(coordinator);
    await until(async () => (await jobKeys('wait')).length === 3);
    // What a candidate that reached Redis did: every waiting job's tests weakened, its seal kept.
    const c = redis.client();
    for (const key of await jobKeys('wait')) {
      const data = JSON.parse((await c.hget(key, 'data'))!) as { body: string };
      const body = JSON.parse(data.body) as { task: { check_template?: string; test_command?: string } };
      body.task.test_command = 'true';
      data.body = JSON.stringify(body);
      await c.hset(key, 'data', JSON.stringify(data));
    }
    const w = await startWorker(['--queue', redis.url], { XDG_CACHE_HOME: path.join(dir, 'cache') });
    kids.push(w);
    const done = await coordinator.done;
    expect(done.code, done.stderr).toBe(3); // finished, with failed pairs
    const out = JSON.parse(done.stdout) as { runId: string; outcome: { failed: number; refused: { jobs: number; results: number } } };
    expect(out.outcome.failed).toBe(3);
    expect(out.outcome.refused).toEqual({ jobs: 3, results: 0 });
    expect(w.log()).toMatch(/refused: job \S+ of run \S+ does not verify/);
    expect([...storedResults(db, out.runId).values()].every((r) => (r as { status: string }).status === 'error')).toBe(true);
    // A resume queues them afresh, sealed again: now they run.
    const resumed = await track(start(['run', '--resume', out.runId, '--db', db, '--queue', redis.url, '--json', '--quiet'])).done;
    expect(resumed.code, resumed.stderr).toBe(0);
    const again = JSON.parse(resumed.stdout) as { outcome: { failed: number; refused: { jobs: number } } };
    expect(again.outcome).toMatchObject({ failed: 0, refused: { jobs: 0 } });
    w.child.kill('SIGINT');
    await w.done;
  }, 300_000);

  it('results rewritten before the coordinator collects them are refused and counted; the others are stored', async () => {
    const db = path.join(dir, 'results.db');
    const args = ['run', '--manifest', manifest, '--method', 'baseline-rag', '--backend', 'offline', '--db', db, '--limit', '4', '--queue', `${redis.url}/1`];
    const coordinator = start(args);
    kids.push(coordinator);
    await until(async () => (await jobKeys('wait', 1)).length === 4);
    coordinator.child.kill('SIGKILL'); // nobody collects: the results wait in Redis
    await coordinator.done;
    const w = await startWorker(['--queue', `${redis.url}/1`], { XDG_CACHE_HOME: path.join(dir, 'cache') });
    kids.push(w);
    await until(async () => (await jobKeys('completed', 1)).length === 4);
    w.child.kill('SIGINT');
    await w.done;
    // Two results flipped the way a forger would: the selected output now correct, the seal kept.
    const c = redis.client();
    await c.select(1);
    const keys = await jobKeys('completed', 1);
    for (const key of keys.slice(0, 2)) {
      const rv = JSON.parse((await c.hget(key, 'returnvalue'))!) as { body: string };
      const body = JSON.parse(rv.body) as { outcome: { result: { selected?: { correct: boolean } } } };
      if (body.outcome.result.selected) body.outcome.result.selected.correct = !body.outcome.result.selected.correct;
      rv.body = JSON.stringify(body);
      await c.hset(key, 'returnvalue', JSON.stringify(rv));
    }
    const resumed = await track(start(['run', '--resume', runIdOf(db), '--db', db, '--queue', `${redis.url}/1`, '--json', '--quiet'])).done;
    expect(resumed.code, resumed.stderr).toBe(3);
    const out = JSON.parse(resumed.stdout) as { runId: string; outcome: { failed: number; refused: { jobs: number; results: number } } };
    expect(out.outcome.refused).toEqual({ jobs: 0, results: 2 });
    expect(out.outcome.failed).toBe(2);
    const stored = [...storedResults(db, out.runId).values()] as { status: string }[];
    expect(stored.filter((r) => r.status === 'ok')).toHaveLength(2);
  }, 300_000);

  // A hostile sample for the first task: it connects to the queue's Redis on loopback, marks it, and rewrites every
  // job it finds to run `true` as its tests; the other tasks' samples are wrong (they raise), and pass only if it got
  // through. Run through the queue in weak and in strong mode.
  const hostile = (port: number, db: number) => `def apply_discount(amount, percent):
    import socket
    def cmd(s, *a):
        s.sendall(("*%d\\r\\n" % len(a) + "".join("$%d\\r\\n%s\\r\\n" % (len(x.encode()), x) for x in a)).encode())
        return s.recv(1 << 20).decode("latin1")
    try:
        s = socket.create_connection(("127.0.0.1", ${port}), timeout=2)
        cmd(s, "SELECT", "${db}")
        cmd(s, "SET", "pwned", "1")
        for key in cmd(s, "KEYS", "bull:opencoder-imported:*").split("\\r\\n"):
            if key.startswith("bull:") and key.split(":")[-1].isalnum() and len(key.split(":")[-1]) == 40:
                cmd(s, "HSET", key, "data", '{"v": 3, "runId": "x", "body": "{}", "mac": "0"}')
    except OSError:
        pass
    raise NotImplementedError
`;
  for (const [mode, db] of [
    ['weak', 3],
    ['strong', 4],
  ] as const) {
    it(`${mode} mode through the queue: a candidate that goes for Redis reaches nothing, and no other verdict changes`, async () => {
      if (mode === 'strong' && (await import('../../main/validate/sandbox.ts').then((m) => m.detectSandbox())).strength !== 'strong') return;
      const tasks = fs
        .readFileSync(manifest, 'utf8')
        .split('\n')
        .filter(Boolean)
        .slice(0, 3)
        .map((l) => JSON.parse(l) as { id: string; signature: string });
      const samples = path.join(dir, `hostile-${mode}.jsonl`);
      const wrong = (sig: string) => `${sig}\n    raise NotImplementedError\n`;
      fs.writeFileSync(
        samples,
        // Each task's two samples are byte-identical: the second is reused, not run again.
        tasks
          .map((t, i) => {
            const code = i === 0 ? hostile(redis.port, db) : wrong(t.signature);
            return JSON.stringify({ task_id: t.id, samples: [{ code }, { code }] });
          })
          .join('\n') + '\n',
      );
      const db_ = path.join(dir, `hostile-${mode}.db`);
      const url = `${redis.url}/${db}`;
      const w = await startWorker(['--queue', url], { XDG_CACHE_HOME: path.join(dir, 'cache') });
      kids.push(w);
      // The run's arguments, through the queue or (below) in this process, into a store of its own.
      const runArgs = (store: string) => [
        'run',
        '--manifest',
        manifest,
        '--method',
        'baseline-rag',
        '--backend',
        'imported',
        '--samples',
        samples,
        '--candidates',
        '2',
        '--sandbox',
        mode,
        '--db',
        store,
        '--limit',
        '3',
        '--json',
        '--quiet',
      ];
      const run = await track(start([...runArgs(db_), '--queue', url])).done;
      w.child.kill('SIGINT');
      await w.done;
      expect(run.code, run.stderr + run.stdout.slice(0, 3000)).toBe(0);
      const out = JSON.parse(run.stdout) as {
        runId: string;
        outcome: { failed: number; refused: { jobs: number; results: number }; verdicts: { judged: number; reused: number; sharedRefused: number } };
      };
      expect(out.outcome).toMatchObject({ failed: 0, refused: { jobs: 0, results: 0 } });
      // Three programs run once each on the worker; every other verdict of the run was reused for a byte-identical one.
      expect(out.outcome.verdicts).toMatchObject({ judged: 3, sharedRefused: 0 });
      expect(out.outcome.verdicts.reused).toBeGreaterThanOrEqual(3);
      if (mode === 'weak') {
        // The same run without the queue counts the same way (the reference checks before it are not its verdicts).
        const local = await track(start(runArgs(path.join(dir, 'local.db')))).done;
        expect(local.code, local.stderr).toBe(0);
        const counted = (JSON.parse(local.stdout) as { outcome: { verdicts: { judged: number; reused: number } } }).outcome.verdicts;
        expect(counted).toEqual(out.outcome.verdicts);
      }
      const c = redis.client();
      await c.select(db);
      expect(await c.get('pwned')).toBeNull();
      const stored = [...storedResults(db_, out.runId).values()] as {
        status: string;
        selected: { correct: boolean };
        candidates: { verdict: { reason: string } }[];
      }[];
      expect(stored).toHaveLength(3);
      expect(stored.map((r) => r.status)).toEqual(['ok', 'ok', 'ok']);
      expect(stored.map((r) => r.selected.correct)).toEqual([false, false, false]);
    }, 300_000);
  }
});
