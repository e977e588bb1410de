// Queued runs (main/experiment/queue/): the queue URL rules, bundles checked by hash, and the end-to-end claim —
// 20 RepoExec-inline tasks × 3 methods with RepoExec's published phi-2 samples, run through two workers of which
// one is killed with SIGKILL mid-run, store exactly what a local run stores, each pair once.

import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseQueueUrl, QUEUE_PASSWORD_ENV } from '../../main/experiment/queue/url.ts';
import { BUNDLE_KEY_PREFIX, fetchBundle, packRepository, publishBundle, unpackRepository } from '../../main/experiment/queue/bundles.ts';
import { jobIdOf, queueNameOf, queueOrder } from '../../main/experiment/queue/jobs.ts';
import { startQueueWorker } from '../../main/experiment/queue/worker.ts';
import { connectionOptions } from '../../main/experiment/queue/url.ts';
import { Queue } from 'bullmq';
import { rateLimitOf } from '../../main/host/cli/flags.ts';
import Database from 'better-sqlite3';
import { tmpDir } from '../helpers/tmp-repo.ts';
import { startMock } from '../generate/mock-http.ts';
import { GOOD_OPENAI_KEY, openAiHandler } from '../generate/wire.ts';
import { startRedis, type TestRedis } from '../helpers/redis.ts';
import { bench, importStringUtils, present, promptTask, start, startWorker, storedResults } from './run-resume-helpers.ts';
import { needs, unless } from '../helpers/system.ts';

const REDIS = needs('redis-server');
const PHI2 = path.join(bench, 'phi-2-results');
const BENCH = unless(present && fs.existsSync(PHI2), `no RepoExec data or phi-2 generations under ${bench}`);

describe('queue URL', () => {
  it('takes loopback without a password, and redis:// or rediss:// only', () => {
    expect(parseQueueUrl('redis://127.0.0.1:6400', {})).toMatchObject({ host: '127.0.0.1', port: 6400, db: 0, tls: false });
    expect(parseQueueUrl('redis://localhost/3', {})).toMatchObject({ port: 6379, db: 3 });
    expect(parseQueueUrl('redis://[::1]:7000', {})).toMatchObject({ host: '::1', port: 7000 });
    expect(() => parseQueueUrl('http://127.0.0.1:6379', {})).toThrow(/redis:\/\/ or rediss:\/\//);
    expect(() => parseQueueUrl('not a url', {})).toThrow(/not a URL/);
    expect(() => parseQueueUrl('redis://127.0.0.1/x', {})).toThrow(/database number/);
  });

  it('refuses a non-loopback queue without a password, and masks the password it is given', () => {
    expect(() => parseQueueUrl('redis://queue.lab.example:6379', {})).toThrow(/refusing the queue at queue\.lab\.example:6379 without a password/);
    expect(() => parseQueueUrl('rediss://10.0.0.5:6380', {})).toThrow(/without a password/);
    const a = parseQueueUrl('rediss://:s3cret@queue.lab.example:6380', {});
    expect(a).toMatchObject({ tls: true, password: 's3cret' });
    expect(a.display).toBe('rediss://:***@queue.lab.example:6380');
    const b = parseQueueUrl('redis://queue.lab.example', { [QUEUE_PASSWORD_ENV]: 'from-env' });
    expect(b.password).toBe('from-env');
    expect(b.display).not.toContain('from-env');
    expect(parseQueueUrl('redis://worker:pw@10.0.0.5', {})).toMatchObject({ username: 'worker', password: 'pw', display: 'redis://worker:***@10.0.0.5' });
  });

  it('reads --rate-limit as jobs per period', () => {
    expect(rateLimitOf('60/min')).toEqual({ max: 60, durationMs: 60_000 });
    expect(rateLimitOf('5/s')).toEqual({ max: 5, durationMs: 1000 });
    expect(rateLimitOf('100/2500')).toEqual({ max: 100, durationMs: 2500 });
    expect(() => rateLimitOf('fast')).toThrow(/MAX\/PERIOD/);
    expect(() => rateLimitOf('0/s')).toThrow(/MAX\/PERIOD/);
  });

  it('names a (run, task, condition) by one job id', () => {
    expect(jobIdOf('r1', 'RepoExec/3', 'opencoder')).toBe(jobIdOf('r1', 'RepoExec/3', 'opencoder'));
    expect(jobIdOf('r1', 'RepoExec/3', 'opencoder')).not.toBe(jobIdOf('r1', 'RepoExec/3', 'baseline-rag'));
    expect(jobIdOf('r1', 'RepoExec/3', 'opencoder')).not.toMatch(/:/); // BullMQ refuses ':' in custom ids
  });

  it('queues tasks in blocks, condition by condition, so jobs running at once are different tasks', () => {
    const conds = ['baseline', 'verify', 'opencoder'];
    const pairs = Array.from({ length: 5 }, (_, t) => conds.map((c) => ({ task: { id: `t${t}` }, cond: { id: c } }))).flat();
    const order = queueOrder(pairs, 2).map((p) => `${p.task.id}/${p.cond.id}`);
    expect(order).toEqual([
      't0/baseline',
      't1/baseline',
      't0/verify',
      't1/verify',
      't0/opencoder',
      't1/opencoder',
      't2/baseline',
      't3/baseline',
      't2/verify',
      't3/verify',
      't2/opencoder',
      't3/opencoder',
      't4/baseline',
      't4/verify',
      't4/opencoder',
    ]);
    // Any two neighbours within a block are different tasks; every pair is queued once.
    const big = queueOrder(Array.from({ length: 40 }, (_, t) => conds.map((c) => ({ task: { id: `t${t}` }, cond: { id: c } }))).flat());
    expect(new Set(big.map((p) => `${p.task.id}/${p.cond.id}`)).size).toBe(120);
    for (let i = 1; i < big.length; i++) expect(big[i]!.task.id).not.toBe(big[i - 1]!.task.id);
  });
});

describe.skipIf(REDIS.skip)(`bundles and the rate limit${REDIS.note}`, () => {
  let redis: TestRedis;
  beforeAll(async () => {
    redis = await startRedis();
  }, 30_000);
  afterAll(async () => {
    await redis?.stop();
  });

  it('packs the same files to the same hash, refuses bytes that do not match their name, and caches only verified ones', async () => {
    const dir = tmpDir('opencoder-bundle-');
    const repo = path.join(dir, 'repo');
    fs.mkdirSync(path.join(repo, 'pkg', '__pycache__'), { recursive: true });
    fs.writeFileSync(path.join(repo, 'pkg', 'a.py'), 'def a():\n    return 1\n');
    fs.writeFileSync(path.join(repo, 'pkg', '__pycache__', 'a.pyc'), 'junk');
    fs.writeFileSync(path.join(repo, '.env'), 'OPENAI_API_KEY=sk-not-for-redis\n');
    const c = redis.client();
    const ref = await publishBundle(c, 'repo', packRepository(repo));
    fs.utimesSync(path.join(repo, 'pkg', 'a.py'), new Date(0), new Date(0));
    expect((await publishBundle(c, 'repo', packRepository(repo))).sha256).toBe(ref.sha256); // times are not packed

    const cache = path.join(dir, 'cache');
    const bytes = await fetchBundle(c, ref, cache);
    const out = path.join(dir, 'out');
    unpackRepository(bytes, out);
    expect(fs.readFileSync(path.join(out, 'pkg', 'a.py'), 'utf8')).toBe('def a():\n    return 1\n');
    expect(fs.existsSync(path.join(out, 'pkg', '__pycache__'))).toBe(false);
    expect(fs.existsSync(path.join(out, '.env'))).toBe(false); // credentials stay out, as from every workspace
    expect(fs.existsSync(path.join(cache, `${ref.sha256}.gz`))).toBe(true);

    // Altered in Redis: refused with both hashes, and not cached.
    const forged = { ...ref, sha256: 'f'.repeat(64) };
    await c.set(BUNDLE_KEY_PREFIX + forged.sha256, zlib.gzipSync(Buffer.from('evil')));
    await expect(fetchBundle(c, forged, cache)).rejects.toThrow(/named ffffffffffff… hashes to [0-9a-f]{12}…: refused/);
    expect(fs.existsSync(path.join(cache, `${forged.sha256}.gz`))).toBe(false);
    // Damaged in the cache: fetched again from Redis.
    fs.writeFileSync(path.join(cache, `${ref.sha256}.gz`), 'damaged');
    expect((await fetchBundle(c, ref, cache)).equals(bytes)).toBe(true);
    // Replaced in Redis under its real name: refused; publishing again (a resume) mends it.
    fs.rmSync(cache, { recursive: true, force: true });
    await c.set(BUNDLE_KEY_PREFIX + ref.sha256, zlib.gzipSync(Buffer.from('replaced')));
    await expect(fetchBundle(c, ref, cache)).rejects.toThrow(/refused/);
    await publishBundle(c, 'repo', packRepository(repo));
    expect((await fetchBundle(c, ref, cache)).equals(bytes)).toBe(true);
    // Gone from Redis (and not cached): a clear error.
    await expect(fetchBundle(c, { ...ref, sha256: '0'.repeat(64) }, cache)).rejects.toThrow(/not in Redis/);
  });

  it('rate limit holds across workers: two workers with --rate-limit 2/s start at most 2 jobs in any second, together', async () => {
    const address = parseQueueUrl(redis.url, {});
    const encoder = { id: 'stub-encoder', name: 'stub', dim: 1, description: '', embed: async () => [], dispose: async () => {} };
    const common = {
      queue: address,
      encoder,
      prices: {} as never,
      makeBackend: () => {
        throw new Error('not reached');
      },
      rateLimit: { max: 2, durationMs: 1000 },
      backends: ['offline'],
      cacheDir: tmpDir('opencoder-cache-'),
      concurrency: 4,
    };
    const [w1, w2] = [await startQueueWorker({ ...common, name: 'w1' }), await startQueueWorker({ ...common, name: 'w2' })];
    const queue = new Queue(queueNameOf('offline'), { connection: connectionOptions(address) });
    try {
      // Jobs of a payload version no worker reads fail at once: what is measured is when each one was started.
      await queue.addBulk(Array.from({ length: 8 }, (_, i) => ({ name: 'pair', data: { v: -1, i }, opts: { attempts: 1 } })));
      for (;;) {
        if ((await queue.getFailedCount()) === 8) break;
        await new Promise((r) => setTimeout(r, 50));
      }
      const jobs = await queue.getJobs(['failed']);
      expect(jobs.every((j) => /payload version -1/.test(j.failedReason))).toBe(true);
      // Both workers poll the queue; which one takes each job is BullMQ's choice, so only the limit is asserted.
      expect(jobs.every((j) => j.processedBy === 'w1' || j.processedBy === 'w2')).toBe(true);
      const starts = jobs.map((j) => j.processedOn!).sort((a, b) => a - b);
      // Any three starts span at least the limiter's window (a little slack for clock granularity).
      for (let i = 0; i + 2 < starts.length; i++) expect(starts[i + 2]! - starts[i]!).toBeGreaterThanOrEqual(950);
    } finally {
      await queue.close();
      await w1.close();
      await w2.close();
    }
  }, 60_000);
});

describe.skipIf(REDIS.skip || BENCH.skip)(`a run through two workers, one killed mid-run${REDIS.note}${BENCH.note}`, () => {
  let redis: TestRedis;
  let dir: string;
  let manifest: string;
  let samples: string;
  const workers: { child: ChildProcess }[] = [];

  beforeAll(async () => {
    redis = await startRedis();
    dir = tmpDir('opencoder-queue-');
    ({ manifest } = await importStringUtils(dir));
    samples = path.join(dir, 'phi2.jsonl');
    const imp = await start(['samples', 'import', PHI2, '--out', samples]).done;
    expect(imp.code, imp.stderr).toBe(0);
  }, 120_000);

  afterAll(async () => {
    for (const w of workers) w.child.kill('SIGKILL');
    await redis?.stop();
  });

  /** Starts a worker with its own bundle cache; resolves once it listens. */
  async function worker(n: number, env: NodeJS.ProcessEnv = {}) {
    const w = await startWorker(['--queue', redis.url, '--concurrency', '2', '--lock-ms', '2000'], { XDG_CACHE_HOME: path.join(dir, `cache-${n}`), ...env });
    workers.push(w);
    return w;
  }

  it('stores exactly what a local run stores, each pair once', async () => {
    const db = path.join(dir, 'q.db');
    const common = ['run', '--manifest', manifest, '--method', 'compare', '--backend', 'imported', '--samples', samples, '--db', db, '--limit', '10'];
    const local = await start([...common, '--json', '--quiet']).done;
    expect(local.code, local.stderr).toBe(0);
    const localId = (JSON.parse(local.stdout) as { runId: string }).runId;

    const [w1, w2] = [await worker(1), await worker(2)];
    const queued = start([...common, '--queue', redis.url, '--json', '--quiet']);
    // Kill worker 1 with SIGKILL while it holds a job, once some results are in.
    const pairs = (log: string, what: RegExp) => new Set([...log.matchAll(what)].map((m) => m[1]!));
    const STARTED = /\[worker\] (\S+ \/ \S+): started \(run/g;
    const ENDED = /\[worker\] (\S+ \/ \S+): (?:correct|wrong|unscored \S+) in /g;
    const held: string[] = [];
    for (;;) {
      const started = pairs(w1.log(), STARTED);
      const ended = pairs(w1.log(), ENDED);
      held.splice(0, held.length, ...[...started].filter((p) => !ended.has(p)));
      if (started.size >= 4 && held.length > 0) {
        w1.child.kill('SIGKILL');
        break;
      }
      if (queued.child.exitCode !== null) throw new Error('the queued run ended before a worker could be killed');
      await new Promise((r) => setTimeout(r, 20));
    }
    expect((await w1.done).signal).toBe('SIGKILL');
    const q = await queued.done;
    expect(q.code, q.stderr).toBe(0);
    const out = JSON.parse(q.stdout) as { runId: string; outcome: { ran: number; total: number; failed: number; status: string } };
    // 10 tasks × 3 methods.
    expect(out.outcome).toMatchObject({ ran: 30, total: 30, failed: 0, status: 'done' });
    // The jobs worker 1 held went back to the queue (stalled) and worker 2 ran them.
    const byTwo = pairs(w2.log(), STARTED);
    for (const p of held) expect(byTwo.has(p), `${p} was held by the killed worker`).toBe(true);
    expect(w2.log()).toMatch(/after 1 stalled\)/);

    const a = storedResults(db, localId);
    const b = storedResults(db, out.runId);
    expect(a.size).toBe(30);
    expect(b.size).toBe(30);
    for (const [key, value] of a) expect(b.get(key), key).toEqual(value);
    for (const w of [w2]) w.child.kill('SIGINT');
    expect((await w2.done).code).toBe(0); // Ctrl-C: stops (nothing is left running)
  }, 300_000);

  it('with a model behind an API: the worker uses its own key, and its exchanges come back to the coordinator', async () => {
    const { tasks } = await importStringUtils(path.join(dir, 'mock'));
    const taskOf = promptTask(tasks);
    // A wrong first candidate for every other task, the reference in every repair prompt.
    const mock = await startMock(
      openAiHandler({
        key: GOOD_OPENAI_KEY,
        models: ['gpt-4o-mini'],
        text: (i, req) => {
          const msgs = (req.body as { messages: { content: string }[] }).messages.map((m) => m.content).join('\n');
          const t = taskOf(msgs);
          if (!t) return 'I cannot tell which task this is.';
          const wrong = `${t.signature.trimEnd().replace(/:$/, '')}:\n    raise NotImplementedError\n`;
          const right = msgs.includes('repair round') || tasks.indexOf(t) % 2 === 0;
          return '```python\n' + (right ? t.reference! : wrong) + '\n```';
        },
      }),
    );
    try {
      const db = path.join(dir, 'mock.db');
      const args = ['run', '--manifest', manifest, '--method', 'compare', '--db', db, '--limit', '6', '--backend', 'openai', '--base-url', `${mock.origin}/v1`];
      const more = ['--model', 'gpt-4o-mini', '--decompose', 'fallback', '--json', '--quiet'];
      const key = { OPENAI_API_KEY: GOOD_OPENAI_KEY };
      const local = await start([...args, ...more], key).done;
      expect(local.code, local.stderr).toBe(0);
      const localId = (JSON.parse(local.stdout) as { runId: string }).runId;
      const w = await worker(3, key);
      const queued = await start([...args, ...more, '--queue', redis.url], key).done;
      expect(queued.code, queued.stderr).toBe(0);
      const queuedId = (JSON.parse(queued.stdout) as { runId: string }).runId;
      w.child.kill('SIGINT');
      await w.done;
      // The key never went through Redis: no job payload, result or bundle holds it.
      const c = redis.client();
      const keys = await c.keys('*');
      expect(keys.some((k) => k.startsWith('bull:opencoder-openai:'))).toBe(true);
      for (const k of keys) {
        const type = await c.type(k);
        // BullMQ's lock and marker keys expire on their own: a key can go between KEYS and the read (then it held nothing).
        let values: string[] = [];
        if (type === 'hash') values = Object.values(await c.hgetall(k));
        else if (type === 'string') values = [(await c.getBuffer(k))?.toString('latin1') ?? ''];
        else if (type === 'list') values = await c.lrange(k, 0, -1);
        else if (type === 'zset') values = await c.zrange(k, 0, -1);
        else if (type === 'stream') values = (await c.xrange(k, '-', '+')).flatMap(([, fields]) => fields);
        for (const v of values) expect(v.includes(GOOD_OPENAI_KEY), k).toBe(false);
      }

      const a = storedResults(db, localId);
      const b = storedResults(db, queuedId);
      expect(b.size).toBe(18);
      for (const [k, v] of a) expect(b.get(k), k).toEqual(v);
      const conn = new Database(db, { readonly: true });
      try {
        const hashes = (run: string) =>
          (conn.prepare('SELECT request_hash AS h FROM llm_exchanges WHERE run_id = ? ORDER BY h').all(run) as { h: string }[]).map((r) => r.h);
        expect(hashes(localId).length).toBeGreaterThan(18); // generations, and repairs of the wrong ones
        expect(hashes(queuedId)).toEqual(hashes(localId));
      } finally {
        conn.close();
      }
    } finally {
      await mock.close();
    }
  }, 300_000);
});
