// The engine service behind the contract: validation, allowed roots, settings, keys, jobs (pause / resume),
// custom tasks, estimates and the newcomer's demo workspace, on the bundled sample repository.

import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EngineEvent, JobInfo, PricesInfo, RepoSummary, RunListItem, Settings, TaskResult } from '../../contract/index.ts';
import { sampleRepoPath } from '../../main/host/paths.ts';
import { JobManager } from '../../main/host/jobs.ts';
import { createEngineService, DEFAULT_SETTINGS, type EngineService } from '../../main/host/service.ts';
import { copyIndexedSample } from '../helpers/indexed-sample.ts';
import { ok, openService, settled } from '../helpers/service-calls.ts';
import { makeRepo, tmpDir } from '../helpers/tmp-repo.ts';

const SAMPLE = sampleRepoPath();
const MANIFEST = path.join(SAMPLE, 'tasks.jsonl');
const dir = tmpDir('oc-service-');
const cleanup: string[] = [dir];
afterAll(() => {
  for (const d of cleanup) fs.rmSync(d, { recursive: true, force: true });
});

function open(name: string, extra: Partial<Parameters<typeof createEngineService>[0]> = {}): Promise<EngineService> {
  return openService(dir, name, extra);
}

describe('engine service', () => {
  let s: EngineService;
  beforeAll(async () => {
    // The sample repository already indexed (the demo workspace below indexes it for real).
    await copyIndexedSample(path.join(dir, 'main', 'w.db'));
    s = await open('main');
  });
  afterAll(async () => {
    await s?.close();
  });

  it('samples.passk reads a sample set inside the allowed roots and computes its Pass@k; outside them it is refused', async () => {
    const file = path.join(dir, 'c_out.jsonl');
    fs.writeFileSync(
      file,
      [
        JSON.stringify({
          _id: 'a',
          generate_results: [
            { generate_code: 'x', is_pass: true },
            { generate_code: 'y', is_pass: false },
          ],
        }),
        JSON.stringify({
          _id: 'b',
          generate_results: [
            { generate_code: 'z', is_pass: false },
            { generate_code: 'w', is_pass: false },
          ],
        }),
      ].join('\n'),
    );
    const r = await ok<{ tasks: number; format: string; passAtK: Record<string, number> }>(s, 'samples.passk', { path: file, ks: [1, 2] });
    expect(r).toMatchObject({ tasks: 2, format: 'codereval', passAtK: { '1': 0.25, '2': 0.5 } });
    const tooBig = await s.call('samples.passk', { path: file, ks: [5] });
    expect(tooBig).toMatchObject({ ok: false, error: { code: 'invalid-input' } });
    if (!tooBig.ok) expect(tooBig.error.message).toMatch(/Pass@5 needs at least 5 samples per task/);
    const outside = await s.call('samples.passk', { path: '/etc/passwd' });
    expect(outside).toMatchObject({ ok: false, error: { code: 'forbidden-path' } });
  });

  it('an experiment can run a published sample set instead of the Settings backend; the set must lie inside the roots', async () => {
    const set = path.join(dir, 'set.jsonl');
    fs.writeFileSync(
      set,
      `${JSON.stringify({ task_id: 'inventory/apply_discount', samples: [{ code: 'def apply_discount(a, p):\n    return a\n', passed: false }] })}\n`,
    );
    const est = await s.call('experiment.estimate', {
      manifest: MANIFEST,
      kind: 'run',
      methods: ['baseline-rag'],
      taskIds: ['inventory/apply_discount'],
      samples: set,
    });
    expect(est.ok, JSON.stringify(est)).toBe(true);
    if (est.ok) expect(est.value).toMatchObject({ usdExpected: 0 });
    const outside = await s.call('experiment.estimate', { manifest: MANIFEST, kind: 'run', methods: ['baseline-rag'], samples: '/etc/passwd' });
    expect(outside).toMatchObject({ ok: false, error: { code: 'forbidden-path' } });
  });

  it('validates input with the contract: unknown calls are not-found, wrong types name the field', async () => {
    const unknown = await s.call('repo.frobnicate', {});
    expect(unknown).toMatchObject({ ok: false, error: { code: 'not-found' } });
    expect(await s.call('toString', {})).toMatchObject({ ok: false, error: { code: 'not-found' } });
    const bad = await s.call('repo.index', { path: 42 });
    expect(bad.ok).toBe(false);
    if (bad.ok) return;
    expect(bad.error.code).toBe('invalid-input');
    expect(bad.error.issues?.map((i) => i.path)).toContain('path');
    expect(bad.error.message).toMatch(/path/);
    const methods = await s.call('task.run', { manifest: MANIFEST, taskId: 'inventory/apply_discount', methods: ['no-such-method'] });
    expect(methods).toMatchObject({ ok: false, error: { code: 'invalid-input', issues: [{ path: 'methods' }] } });
    expect(JSON.stringify(methods)).toMatch(/no-such-method/);
  });

  it('refuses paths outside the allowed roots, also through a symlink, naming the path and the roots', async () => {
    const etc = await s.call('repo.index', { path: '/etc' });
    expect(etc).toMatchObject({ ok: false, error: { code: 'forbidden-path' } });
    if (!etc.ok) {
      expect(etc.error.message).toContain('/etc');
      expect(etc.error.message).toContain(fs.realpathSync(dir));
    }
    const link = path.join(dir, 'sneaky');
    fs.symlinkSync('/etc', link);
    const viaLink = await s.call('tasks.list', { manifest: path.join(link, 'passwd') });
    expect(viaLink).toMatchObject({ ok: false, error: { code: 'forbidden-path' } });
    if (!viaLink.ok) expect(viaLink.error.message).toContain(link);
    const custom = await s.call('task.run', {
      custom: { repo: '/usr', file: 'a.py', qualname: 'f', requirement: 'r', signature: 'def f():', test_command: 'true' },
      methods: ['opencoder'],
    });
    expect(custom).toMatchObject({ ok: false, error: { code: 'forbidden-path', issues: [{ path: 'custom.repo' }] } });
    // A manifest inside a root may still name a repository outside: running it is refused too.
    const outside = path.join(dir, 'outside.jsonl');
    fs.writeFileSync(
      outside,
      JSON.stringify({
        id: 't',
        repo: '/usr/lib',
        file: 'a.py',
        qualname: 'f',
        requirement: 'r',
        signature: 'def f():',
        test_command: 'python3 -m unittest tests',
      }) + '\n',
    );
    // Refused when the manifest is read, naming its line (before it is listed or run).
    const listed = await s.call('tasks.list', { manifest: outside });
    expect(listed).toMatchObject({ ok: false, error: { code: 'forbidden-path' } });
    if (!listed.ok) expect(listed.error.message).toMatch(/outside\.jsonl:1 \(task t\): repo \/usr\/lib resolves to \/usr\/lib, outside the manifest's folder/);
    const run = await s.call('task.run', { manifest: outside, taskId: 't', methods: ['opencoder'] });
    expect(run).toMatchObject({ ok: false, error: { code: 'forbidden-path' } });
    if (!run.ok) expect(run.error.message).toContain('/usr/lib');
    // The bundled resources are always allowed.
    expect((await s.call('tasks.list', { manifest: MANIFEST })).ok).toBe(true);
    expect(s.allowedRoots).toContain(fs.realpathSync(dir));
  });

  it('lists methods and the tasks of a manifest', async () => {
    const m = await ok<{ methods: { id: string }[]; ladder: unknown[]; factorial: { id: string }[] }>(s, 'methods.list');
    expect(m.methods.map((x) => x.id)).toEqual(expect.arrayContaining(['baseline-rag', 'rag-verify-repair', 'opencoder', 'opencoder-no-refine']));
    expect(m.ladder).toHaveLength(6);
    expect(m.factorial.map((x) => x.id)).toContain('A1X0S1');
    const t = await ok<{ hash: string; tasks: { id: string; shape: string; hasReference: boolean }[] }>(s, 'tasks.list', { manifest: MANIFEST });
    expect(t.hash).toMatch(/^[0-9a-f]{64}$/);
    expect(t.tasks[0]).toMatchObject({ id: 'inventory/apply_discount', shape: 'repository', hasReference: true });
  });

  it('settings round-trip, persist as JSON and are validated', async () => {
    expect(await ok<Settings>(s, 'settings.get')).toEqual(DEFAULT_SETTINGS);
    const next = await ok<Settings>(s, 'settings.set', { parallel: 3, pipeline: { alpha: 0.7, repairRounds: 1 } });
    expect(next).toMatchObject({ parallel: 3, pipeline: { alpha: 0.7, repairRounds: 1 }, backend: { kind: 'offline' } });
    const file = path.join(dir, 'main', 'settings.json');
    expect(JSON.parse(fs.readFileSync(file, 'utf8'))).toEqual(next);
    expect((await s.call('settings.set', { parallel: 99 })).ok).toBe(false);
    const again = await open('main', { dbPath: path.join(dir, 'main', 'other.db') });
    try {
      expect(await ok<Settings>(again, 'settings.get')).toEqual(next);
    } finally {
      await again.close();
    }
    await ok(s, 'settings.set', { parallel: 2, pipeline: {} });
  });

  it('a queue URL is checked when saved: redis on loopback, a password only from the environment, never in the file', async () => {
    const file = path.join(dir, 'main', 'settings.json');
    const refused = async (svc: EngineService, queue: string, why: RegExp) => {
      const r = await svc.call('settings.set', { queue });
      expect(r, queue).toMatchObject({ ok: false, error: { code: 'invalid-input', issues: [{ path: 'queue' }] } });
      if (!r.ok) expect(r.error.message).toMatch(why);
    };
    await refused(s, 'redis://10.0.0.5:6379', /refusing the queue at 10\.0\.0\.5:6379 without a password.*OPENCODER_REDIS_PASSWORD/);
    await refused(s, 'redis://:hunter2@queue.lab.example:6379', /holds a password.*plain text.*OPENCODER_REDIS_PASSWORD/);
    await refused(s, 'redis://:hunter2@127.0.0.1:6379', /holds a password/);
    await refused(s, 'http://127.0.0.1:6379', /the queue URL must be a redis:\/\/ or rediss:\/\/ URL/);
    await refused(s, 'not a url', /is not a URL/);
    expect((await s.call('settings.set', { queue: `redis://127.0.0.1/${'0'.repeat(500)}` })).ok).toBe(false);
    expect(await ok<Settings>(s, 'settings.get')).toEqual(DEFAULT_SETTINGS);
    expect(fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '').not.toContain('hunter2');

    const saved = await ok<Settings>(s, 'settings.set', { queue: ' redis://127.0.0.1:6379 ' });
    expect(saved).toEqual({ ...DEFAULT_SETTINGS, queue: 'redis://127.0.0.1:6379' });
    expect(JSON.parse(fs.readFileSync(file, 'utf8')).queue).toBe('redis://127.0.0.1:6379');
    expect(await ok<Settings>(s, 'settings.set', { parallel: 3 })).toMatchObject({ parallel: 3, queue: 'redis://127.0.0.1:6379' });
    // Empty or null: run in this process (the field leaves the file).
    expect(await ok<Settings>(s, 'settings.set', { queue: '', parallel: 2 })).toEqual(DEFAULT_SETTINGS);
    expect(await ok<Settings>(s, 'settings.set', { queue: null })).toEqual(DEFAULT_SETTINGS);
    expect(JSON.parse(fs.readFileSync(file, 'utf8'))).not.toHaveProperty('queue');

    // With the password in the app's environment a queue on another host is taken, and the file holds no password.
    const withEnv = await open('queue-env', { env: { OPENCODER_REDIS_PASSWORD: 'from-the-environment' } });
    try {
      expect(await ok<Settings>(withEnv, 'settings.set', { queue: 'rediss://worker@queue.lab.example:6380/2' })).toMatchObject({
        queue: 'rediss://worker@queue.lab.example:6380/2',
      });
      await refused(withEnv, 'rediss://worker:pw@queue.lab.example:6380', /holds a password/);
      expect(fs.readFileSync(path.join(dir, 'queue-env', 'settings.json'), 'utf8')).not.toMatch(/from-the-environment|:pw@/);
    } finally {
      await withEnv.close();
    }
  });

  it('a queue in the settings file that does not parse fails the run with its reason, before anything runs', async () => {
    const home = path.join(dir, 'queue-bad');
    fs.mkdirSync(home, { recursive: true });
    fs.writeFileSync(path.join(home, 'settings.json'), JSON.stringify({ ...DEFAULT_SETTINGS, queue: 'redis://10.0.0.5:6379' }));
    const b = await open('queue-bad');
    try {
      const { jobId } = await ok<{ jobId: string }>(b, 'task.run', { manifest: MANIFEST, taskId: 'inventory/apply_discount', methods: ['opencoder'] });
      const job = await settled(b, jobId);
      expect(job).toMatchObject({ state: 'failed', result: null });
      expect(job.error).toMatch(/refusing the queue at 10\.0\.0\.5:6379 without a password/);
      expect(await ok<RunListItem[]>(b, 'experiment.list')).toEqual([]);
    } finally {
      await b.close();
    }
  });

  it('prices: the defaults until edited, then the saved table (validated), used from then on', async () => {
    const before = await ok<PricesInfo>(s, 'prices.get');
    expect(before.source).toBe('built-in defaults');
    expect(before.models['gpt-4o-mini']!.inputPerMTok).toBe(0.15);
    const bad = await s.call('prices.set', { models: { 'gpt-4o-mini': { inputPerMTok: -1, outputPerMTok: 0.6, asOf: '2026-11-29' } } });
    expect(bad.ok).toBe(false);
    if (!bad.ok) expect(bad.error.issues?.[0]?.path).toBe('models.gpt-4o-mini.inputPerMTok');
    const models = { ...before.models, 'my-local-model': { inputPerMTok: 0.01, outputPerMTok: 0.02, asOf: '2026-11-29', note: 'electricity' } };
    const after = await ok<PricesInfo>(s, 'prices.set', { models });
    expect(after.source).toBe(after.file);
    expect(after.models['my-local-model']).toEqual(models['my-local-model']);
    expect(JSON.parse(fs.readFileSync(after.file, 'utf8')).models['my-local-model'].outputPerMTok).toBe(0.02);
    expect((await ok<PricesInfo>(s, 'prices.get')).models).toEqual(after.models);
    await ok(s, 'prices.set', { models: before.models });
  });

  it('a broken settings file falls back to the defaults with a notice', async () => {
    const home = path.join(dir, 'broken');
    fs.mkdirSync(home, { recursive: true });
    fs.writeFileSync(path.join(home, 'settings.json'), '{"backend": {"kind": "offline"}, "parallel": "many"');
    const b = await open('broken');
    try {
      const notices: EngineEvent[] = [];
      b.subscribe((e) => notices.push(e));
      expect(notices).toEqual([expect.objectContaining({ type: 'notice', level: 'warning', message: expect.stringContaining('settings.json') })]);
      expect(await ok<Settings>(b, 'settings.get')).toEqual(DEFAULT_SETTINGS);
      await ok(b, 'settings.set', { parallel: 4 });
      expect(fs.existsSync(path.join(home, 'settings.json.broken'))).toBe(true);
      expect(JSON.parse(fs.readFileSync(path.join(home, 'settings.json'), 'utf8')).parallel).toBe(4);
    } finally {
      await b.close();
    }
  });

  it('keys are never echoed: app.info says only whether one exists', async () => {
    const key = 'sk-test-do-not-echo-1234567890';
    expect(await ok(s, 'keys.set', { provider: 'openai', key })).toEqual({ openai: true, gemini: false });
    const info = await ok<{ keys: unknown; keyStorage: string; mode: string; encoder: { name: string } }>(s, 'app.info');
    expect(info.keys).toEqual({ openai: true, gemini: false });
    expect(info.keyStorage).toBe('session');
    expect(info.mode).toBe('browser');
    expect(typeof info.encoder.name).toBe('string');
    expect(JSON.stringify(info)).not.toContain(key);
    expect(JSON.stringify(await ok(s, 'settings.get'))).not.toContain(key);
    expect(fs.readFileSync(path.join(dir, 'main', 'settings.json'), 'utf8')).not.toContain(key);
    expect(await ok(s, 'keys.set', { provider: 'openai', key: null })).toEqual({ openai: false, gemini: false });
    const withEnv = await open('env', { env: { GEMINI_API_KEY: 'AIza-from-the-environment-123' } });
    try {
      const i = await ok<{ keys: unknown }>(withEnv, 'app.info');
      expect(i.keys).toEqual({ openai: false, gemini: true });
      expect(JSON.stringify(i)).not.toContain('AIza-from');
    } finally {
      await withEnv.close();
    }
  });

  it('estimates a run before anything is sent (offline: no cost)', async () => {
    const est = await ok<{ calls: number; inputTokens: number; usdExpected: number | null; assumptions: string }>(s, 'experiment.estimate', {
      manifest: MANIFEST,
      limit: 2,
      kind: 'ablate',
    });
    expect(est.calls).toBeGreaterThan(0);
    expect(est.inputTokens).toBeGreaterThan(0);
    expect(est.usdExpected).toBe(0);
    expect(est.assumptions).toMatch(/2 tasks × 8 conditions/);
    const missing = await s.call('experiment.estimate', { manifest: MANIFEST, taskIds: ['nope'], kind: 'run' });
    expect(missing).toMatchObject({ ok: false, error: { code: 'invalid-input' } });
    if (!missing.ok) expect(missing.error.message).toMatch(/nope/);
  });

  it('pauses an index job and resumes it to completion; repo.list and repo.skipped report the result', async () => {
    const files: Record<string, string> = { 'blob.py': 'x = 1\0\0\0' };
    for (let i = 0; i < 60; i++) files[`pkg/m${i}.py`] = `def f${i}(a, b):\n    """Add ${i}."""\n    return a + b + ${i}\n`;
    const repo = makeRepo(files, 'oc-service-repo-');
    cleanup.push(repo);
    const local = await open('pause', { allowedRoots: [repo] });
    try {
      const { jobId } = await ok<{ jobId: string }>(local, 'repo.index', { path: repo });
      const paused = await ok<JobInfo>(local, 'job.pause', { jobId });
      expect(paused.id).toBe(jobId);
      const p = await settled(local, jobId);
      expect(p.state).toBe('paused');
      const resumed = await ok<JobInfo>(local, 'job.resume', { jobId });
      expect(resumed.state).toBe('running');
      const done = await settled(local, jobId);
      expect(done).toMatchObject({ state: 'done', error: null });
      expect(done.result?.repoId).toBeGreaterThan(0);
      const [r] = await ok<RepoSummary[]>(local, 'repo.list');
      expect(r).toMatchObject({ root: fs.realpathSync(repo), files: 60, skipped: { binary: 1 } });
      expect(r!.units.function).toBe(60);
      expect(r!.embedded).toBeGreaterThan(0);
      expect(r!.encoder).toBeTruthy();
      const skipped = await ok<{ path: string; reason: string }[]>(local, 'repo.skipped', { repoId: r!.id });
      expect(skipped).toEqual([expect.objectContaining({ path: 'blob.py', reason: 'binary' })]);
      expect(await local.call('repo.skipped', { repoId: 999 })).toMatchObject({ ok: false, error: { code: 'not-found' } });
      expect(await local.call('job.pause', { jobId: 'nope' })).toMatchObject({ ok: false, error: { code: 'not-found' } });
    } finally {
      await local.close();
    }
  });

  it('runs a custom task written in the UI as a stored run with full detail, and the sources override applies', async () => {
    const source = fs.readFileSync(path.join(SAMPLE, 'inventory', 'pricing.py'), 'utf8');
    expect(source).toMatch(/def apply_discount/);
    const { jobId } = await ok<{ jobId: string }>(s, 'task.run', {
      custom: {
        repo: SAMPLE,
        file: 'inventory/pricing.py',
        qualname: 'apply_discount',
        requirement: 'Take percent per cent off a Money amount, rounding the discount half-up to whole cents.',
        signature: 'def apply_discount(amount: Money, percent: float) -> Money:',
        test_command: 'python3 -m unittest tests.test_pricing',
      },
      methods: ['opencoder'],
      sources: { api: true, context: false, similar: false },
    });
    const job = await settled(s, jobId, 120_000);
    expect(job, JSON.stringify(job)).toMatchObject({ state: 'done', kind: 'task' });
    const runId = job.result!.runId!;
    const runs = await ok<RunListItem[]>(s, 'experiment.list');
    const listed = runs.find((r) => r.id === runId)!;
    expect(listed).toMatchObject({ kind: 'run', state: 'done', tasks: 1, conditions: ['opencoder'], results: 1 });
    expect(listed.manifestFile.startsWith(path.join(dir, 'main', 'data', 'custom-tasks'))).toBe(true);
    const result = await ok<TaskResult>(s, 'experiment.result', { runId, taskId: 'custom/apply_discount', condition: 'opencoder' });
    expect(result.detail?.prompt?.length).toBeGreaterThan(0);
    expect(result.retrieval.fusedBySource.context).toBe(0);
    expect(result.retrieval.fusedBySource.similar).toBe(0);
    expect(await s.call('experiment.result', { runId, taskId: 'custom/nope', condition: 'opencoder' })).toMatchObject({
      ok: false,
      error: { code: 'not-found' },
    });
  }, 150_000);
  it('a cancelled experiment keeps its run, and job.resume finishes it with every result', async () => {
    const { jobId } = await ok<{ jobId: string }>(s, 'experiment.start', { manifest: MANIFEST, limit: 2, kind: 'run', methods: ['baseline-rag', 'opencoder'] });
    await ok(s, 'job.cancel', { jobId });
    const cancelled = await settled(s, jobId);
    expect(cancelled.state).toBe('cancelled');
    const runId = cancelled.result?.runId;
    if (runId) {
      const listed = (await ok<RunListItem[]>(s, 'experiment.list')).find((r) => r.id === runId)!;
      expect(listed.state).toBe('cancelled');
    }
    expect((await ok<JobInfo>(s, 'job.resume', { jobId })).state).toBe('running');
    const done = await settled(s, jobId, 120_000);
    expect(done, JSON.stringify(done)).toMatchObject({ state: 'done', kind: 'experiment' });
    if (runId) expect(done.result?.runId).toBe(runId);
    const run = (await ok<RunListItem[]>(s, 'experiment.list')).find((r) => r.id === done.result!.runId)!;
    expect(run).toMatchObject({ state: 'done', tasks: 2, results: 4, errors: 0, conditions: ['baseline-rag', 'opencoder'] });
    expect(await s.call('experiment.resume', { runId: run.id })).toMatchObject({ ok: false, error: { code: 'invalid-input' } });
    expect(await s.call('job.pause', { jobId })).toMatchObject({ ok: false, error: { code: 'unsupported' } });
  }, 150_000);
});

describe('job manager', () => {
  it("throttles progress to about ten events a second per job, sends state changes at once, keeps a failure's message", async () => {
    const events: EngineEvent[] = [];
    const jobs = new JobManager((e) => events.push(e));
    const info = jobs.start('index', 'flood', async ({ progress }) => {
      const t0 = Date.now();
      let i = 0;
      while (Date.now() - t0 < 500) {
        progress({ phase: 'parse', done: ++i, total: 1_000_000 });
        await new Promise((r) => setImmediate(r));
      }
      progress({ phase: 'parse', done: 999, total: 1000 });
      return { repoId: 7 };
    });
    const end = await jobs.wait(info.id);
    expect(end).toMatchObject({ state: 'done', result: { repoId: 7 } });
    const running = events.filter((e) => e.type === 'job' && e.job.state === 'running');
    expect(running.length).toBeGreaterThan(2);
    expect(running.length).toBeLessThanOrEqual(9);
    const failing = jobs.start('task', 'boom', async () => {
      throw new Error('manifest /x/tasks.jsonl:3: not valid JSON');
    });
    expect(await jobs.wait(failing.id)).toMatchObject({ state: 'failed', error: 'manifest /x/tasks.jsonl:3: not valid JSON' });
    expect(events.at(-1)).toMatchObject({ type: 'job', job: { id: failing.id, state: 'failed' } });
    await jobs.close();
  });
});

describe('demo workspace', () => {
  // In the weak sandbox, forced (OPENCODER_SANDBOX=weak under the settings' default 'auto'): what a machine without
  // bubblewrap gives, under the full suite's load. Once it stored 4 errors of 9 there (zombies of the sandbox uid
  // from other tests' fork bombs kept its process limit full); it must store none.
  it('indexes the sample repository and runs a small offline demo when the store is new (weak sandbox)', async () => {
    const saved = process.env.OPENCODER_SANDBOX;
    process.env.OPENCODER_SANDBOX = 'weak';
    const restore = () => (saved === undefined ? delete process.env.OPENCODER_SANDBOX : (process.env.OPENCODER_SANDBOX = saved));
    const demo = await open('demo', { demo: true }).catch((err: unknown) => {
      restore();
      throw err;
    });
    try {
      const seen: EngineEvent['type'][] = [];
      demo.subscribe((e) => seen.push(e.type));
      const deadline = Date.now() + 150_000;
      let runs: RunListItem[] = [];
      for (;;) {
        runs = await ok<RunListItem[]>(demo, 'experiment.list');
        if (runs.length === 2 && runs.every((r) => r.state === 'done')) break;
        if (Date.now() > deadline) throw new Error(`demo did not finish: ${JSON.stringify(runs)} ${JSON.stringify(await ok(demo, 'job.list'))}`);
        await new Promise((r) => setTimeout(r, 500));
      }
      expect(runs.map((r) => r.kind).sort()).toEqual(['ablate', 'run']);
      expect(runs.find((r) => r.kind === 'run')).toMatchObject({
        tasks: 3,
        conditions: ['baseline-rag', 'rag-verify-repair', 'opencoder'],
        results: 9,
        errors: 0,
      });
      expect(runs.find((r) => r.kind === 'ablate')).toMatchObject({ tasks: 3, results: 24, errors: 0 });
      const repos = await ok<RepoSummary[]>(demo, 'repo.list');
      expect(repos.map((r) => r.root)).toContain(fs.realpathSync(SAMPLE));
      expect(repos[0]!.lastIndexedAt).not.toBeNull();
      const jobs = await ok<JobInfo[]>(demo, 'job.list');
      expect(jobs.map((j) => j.kind).sort()).toEqual(['experiment', 'experiment', 'index']);
      expect(jobs.every((j) => j.state === 'done')).toBe(true);
      expect(seen).toContain('runs-changed');
      expect(seen).toContain('repos-changed');
      expect((await ok<{ sandbox: string }>(demo, 'app.info')).sandbox).toMatch(/^weak:/);
    } finally {
      await demo.close();
      restore();
    }
    // A second start finds the sample indexed and runs stored: nothing is started again.
    const again = await open('demo', { demo: true });
    try {
      await new Promise((r) => setTimeout(r, 1500));
      expect(await ok<JobInfo[]>(again, 'job.list')).toEqual([]);
    } finally {
      await again.close();
    }
  }, 180_000);
});
