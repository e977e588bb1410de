// The Repository view's "Find tasks" over the engine service: repo.mine checks its paths (the repository allowed, the
// output allowed, empty or an earlier mining's, never holding the repository), writes by default beside the imports
// (benchmarks/mined-<name>), runs as a job with progress by phase (scan, trace, checks i/N, leaks, freeze) that
// pauses and resumes from the decisions it kept; repo.mined reads the set back (kept tasks with their checks,
// dropped ones with their reasons), also from a folder written by hand: the later decision for an id wins, a line
// cut short is skipped, a stopped run's decisions stand for its manifest.

import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EngineEvent, JobInfo, MinedSet } from '../../contract/index.ts';
import { mineProgress } from '../../main/host/calls/mining.ts';
import type { JobContext } from '../../main/host/jobs.ts';
import { readMinedSet } from '../../main/host/ops/mined-set.ts';
import type { EngineService } from '../../main/host/service.ts';
import { ok, openService, settled } from '../helpers/service-calls.ts';
import { tmpDir, writeFiles } from '../helpers/tmp-repo.ts';

const root = tmpDir('oc-mine-calls-');
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

/** `n` more documented functions, each with its test (so that a run has checks left to pause in). */
function scales(n: number): { code: string[]; tests: string[] } {
  const ks = Array.from({ length: n }, (_, i) => i + 2);
  return {
    code: ks.flatMap((k) => [`def scale_${k}(x):`, `    """Scale x by ${k} and add one to the result."""`, `    return x * ${k} + 1`, '', '']),
    tests: ks.flatMap((k) => [
      `    def test_scale_${k}(self):`,
      `        self.assertEqual(ops.scale_${k}(3), ${3 * k + 1})`,
      `        self.assertEqual(ops.scale_${k}(-2), ${-2 * k + 1})`,
      '',
    ]),
  };
}

/**
 * A small repository: two tasks to keep (and `more` like them), one function without a docstring, one no test calls;
 * each test waits `slow` seconds first.
 */
function smallRepo(dir: string, slow = 0, more = 0): string {
  const extra = scales(more);
  writeFiles(dir, {
    'calc/__init__.py': '',
    'calc/ops.py': [
      'def add(a, b):',
      '    """Return the sum of a and b, two numbers."""',
      '    total = a + b',
      '    return total',
      '',
      '',
      'def clamp(x, low, high):',
      '    """Clamp x into the range from low to high."""',
      '    if x < low:',
      '        return low',
      '    if x > high:',
      '        return high',
      '    return x',
      '',
      '',
      'def triple(x):',
      '    return x * 3',
      '',
      '',
      'def unused(x):',
      '    """Nothing in the suite ever calls this function."""',
      '    return x - 1',
      '',
      '',
      ...extra.code,
    ].join('\n'),
    'tests/__init__.py': '',
    'tests/test_ops.py': [
      'import time',
      'import unittest',
      '',
      'from calc import ops',
      '',
      '',
      'class OpsTests(unittest.TestCase):',
      '    def setUp(self):',
      `        time.sleep(${slow})`,
      '',
      '    def test_add(self):',
      '        self.assertEqual(ops.add(2, 3), 5)',
      '        self.assertEqual(ops.add(-1, 1), 0)',
      '',
      '    def test_clamp(self):',
      '        self.assertEqual(ops.clamp(5, 0, 3), 3)',
      '        self.assertEqual(ops.clamp(-5, 0, 3), 0)',
      '        self.assertEqual(ops.clamp(2, 0, 3), 2)',
      '',
      '    def test_triple(self):',
      '        self.assertEqual(ops.triple(2), 6)',
      '',
      ...extra.tests,
    ].join('\n'),
  });
  return fs.realpathSync(dir);
}

// ---- the reader, over folders written by hand ----------------------------------------------------------------

const decision = (o: Record<string, unknown>) => JSON.stringify({ file: 'calc/ops.py', line: 1, ...o });
const record = (id: string, qualname: string, score: number, isolation: string) =>
  JSON.stringify({
    id,
    repo: 'repo',
    file: 'calc/ops.py',
    qualname,
    requirement: 'r',
    signature: `def ${qualname}():`,
    test_command: 'python3 -m unittest',
    tests: ['tests.test_ops.OpsTests.test_a', 'tests.test_ops.OpsTests.test_b'],
    source: {
      benchmark: 'mined',
      line: 7,
      context: { level: 'self_contained' },
      checks: { reference: { isolation }, mutants: { made: 4, killed: Math.round(score * 4), score } },
    },
  });

/** Sets a file's modification time (the reader tells a stopped run's decisions from the manifest by them). */
const touch = (file: string, at: number) => fs.utimesSync(file, at / 1000, at / 1000);

describe('readMinedSet', () => {
  it('reads the kept tasks from the manifest and the drops from the decisions, the later line for an id winning', () => {
    const out = tmpDir('oc-mined-read-');
    writeFiles(out, {
      '.mine/decisions.jsonl':
        [
          JSON.stringify({ key: 'k' }),
          decision({ id: 'calc.ops.triple', qualname: 'triple', kept: false, reason: 'no-docstring', detail: 'it has no docstring' }),
          decision({ id: 'calc.ops.unused', qualname: 'unused', kept: false, reason: 'untested', detail: 'no passing test called it' }),
          decision({ id: 'calc.ops.add', qualname: 'add', kept: true, record: {} }),
          decision({ id: 'calc.ops.clamp', qualname: 'clamp', kept: true, record: {} }),
          // The leak audit's later word on clamp replaces its first.
          decision({ id: 'calc.ops.clamp', qualname: 'clamp', line: 7, kept: false, reason: 'leaks', detail: 'its answer is in the evidence' }),
          '{"id": "calc.ops.cut", "kept": fal',
        ].join('\n') + '\n',
      'tasks.jsonl': record('calc.ops.add', 'add', 0.75, 'isolated') + '\n',
      'MINE.md': '# Tasks mined from calc\n',
    });
    touch(path.join(out, '.mine/decisions.jsonl'), Date.now() - 60_000);
    const set = readMinedSet(out);
    expect(set).toMatchObject({
      out,
      manifest: path.join(out, 'tasks.jsonl'),
      report: path.join(out, 'MINE.md'),
      complete: true,
      candidates: 4,
      isolated: 1,
      mutationScore: { median: 0.75, mean: 0.75 },
    });
    expect(set.kept).toEqual([
      {
        id: 'calc.ops.add',
        file: 'calc/ops.py',
        qualname: 'add',
        line: 7,
        tests: 2,
        mutants: { killed: 3, made: 4, score: 0.75 },
        isolation: 'isolated',
        context: 'self_contained',
      },
    ]);
    // The checks that ran something first: leaks, then untested, then the missing docstring.
    expect(set.dropped.map((d) => [d.id, d.reason])).toEqual([
      ['calc.ops.clamp', 'leaks'],
      ['calc.ops.unused', 'untested'],
      ['calc.ops.triple', 'no-docstring'],
    ]);
    expect(set.dropped[0]).toMatchObject({ line: 7, label: expect.stringMatching(/^leaks/), detail: 'its answer is in the evidence' });
    expect(set.droppedBy).toEqual([
      { reason: 'leaks', label: expect.stringMatching(/^leaks/), count: 1 },
      { reason: 'untested', label: 'no test calls it', count: 1 },
      { reason: 'no-docstring', label: 'no docstring', count: 1 },
    ]);
    fs.rmSync(out, { recursive: true, force: true });
  });

  it('a run that stopped after its last manifest: the decisions so far stand for it, and the set says it is not complete', () => {
    const out = tmpDir('oc-mined-partial-');
    writeFiles(out, {
      'tasks.jsonl': record('calc.ops.old', 'old', 1, 'isolated') + '\n',
      '.mine/decisions.jsonl':
        [
          JSON.stringify({ key: 'other' }),
          decision({ id: 'calc.ops.add', qualname: 'add', kept: true, record: JSON.parse(record('calc.ops.add', 'add', 0.5, 'in-process')) }),
          decision({ id: 'calc.ops.triple', qualname: 'triple', kept: false, reason: 'no-docstring', detail: 'it has no docstring' }),
        ].join('\n') + '\n',
    });
    touch(path.join(out, 'tasks.jsonl'), Date.now() - 60_000);
    const set = readMinedSet(out);
    expect(set.complete).toBe(false);
    expect(set.report).toBeNull();
    expect(set.kept.map((t) => [t.id, t.isolation, t.mutants?.score])).toEqual([['calc.ops.add', 'in-process', 0.5]]);
    expect(set.dropped.map((d) => d.id)).toEqual(['calc.ops.triple']);
    expect(set.isolated).toBe(0);
    fs.rmSync(out, { recursive: true, force: true });
  });

  it('names the folder when it holds no mined set, and the file and line of a manifest line that is not a task', () => {
    const empty = tmpDir('oc-mined-empty-');
    expect(() => readMinedSet(empty)).toThrow(expect.objectContaining({ code: 'not-found', message: expect.stringContaining(empty) }));
    writeFiles(empty, { 'tasks.jsonl': record('calc.ops.add', 'add', 1, 'isolated') + '\n{"id": 3}\n' });
    expect(() => readMinedSet(empty)).toThrow(expect.objectContaining({ code: 'invalid-input', message: expect.stringContaining('tasks.jsonl:2') }));
    fs.rmSync(empty, { recursive: true, force: true });
  });
});

describe('mineProgress', () => {
  it('gives each mining event to the job as its phase, its count and the event in words (the count said once)', () => {
    const seen: unknown[] = [];
    const job = { progress: (p: unknown) => seen.push(p) } as unknown as JobContext;
    mineProgress(job, { type: 'phase', phase: 'trace', text: 'running the suite once with a call tracer: python3 -m unittest' });
    mineProgress(job, { type: 'progress', phase: 'trace', done: 25, total: 0, current: 'tests.test_ops.OpsTests.test_add' });
    mineProgress(job, { type: 'progress', phase: 'trace', done: 50, total: 0 });
    const kept = { id: 'calc.ops.add', file: 'calc/ops.py', qualname: 'add', line: 1, kept: true as const, record: {} };
    mineProgress(job, { type: 'decision', decision: kept, done: 3, total: 7 });
    const thin = { id: 'calc.ops.t', file: 'calc/ops.py', qualname: 't', line: 9, kept: false as const, reason: 'thin' as const, detail: 'none killed' };
    mineProgress(job, { type: 'decision', decision: thin, done: 4, total: 7 });
    expect(seen).toEqual([
      { phase: 'trace', done: 0, total: 0, message: 'running the suite once with a call tracer: python3 -m unittest' },
      { phase: 'trace', done: 25, total: 0, message: 'tests.test_ops.OpsTests.test_add' },
      { phase: 'trace', done: 50, total: 0 },
      { phase: 'checks', done: 3, total: 7, message: 'calc.ops.add: kept' },
      { phase: 'checks', done: 4, total: 7, message: 'calc.ops.t: dropped, thin (its tests kill no mutant, or only by crashes and hangs)' },
    ]);
  });
});

// ---- the calls, over the engine service -----------------------------------------------------------------------

let s: EngineService;
const events: EngineEvent[] = [];
beforeAll(async () => {
  s = await openService(root, 'svc');
  s.subscribe((e) => events.push(e));
});
afterAll(async () => {
  await s?.close();
});

const dataDir = () => path.join(root, 'svc', 'data');

/** The phases a job reported, in order, once each; and its last count in each that had a total. */
function progressOf(jobId: string): { phases: string[]; last: Map<string, { done: number; total: number }> } {
  const phases: string[] = [];
  const last = new Map<string, { done: number; total: number }>();
  for (const e of events) {
    if (e.type !== 'job' || e.job.id !== jobId || !e.job.progress) continue;
    const p = e.job.progress;
    if (phases[phases.length - 1] !== p.phase) phases.push(p.phase);
    if (p.total > 0) last.set(p.phase, { done: p.done, total: p.total });
  }
  return { phases, last };
}

/** Resolves once the job reports progress in `phase`. */
function reaches(jobId: string, phase: string, timeoutMs = 60_000): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`job ${jobId} did not reach ${phase}`)), timeoutMs);
    const off = s.subscribe((e) => {
      if (e.type === 'job' && e.job.id === jobId && e.job.progress?.phase === phase && e.job.progress.done > 0) {
        clearTimeout(timer);
        off();
        resolve();
      }
    });
  });
}

describe('repo.mine and repo.mined', () => {
  it('refuses what it cannot mine before any job starts, naming the field', async () => {
    const repo = smallRepo(path.join(root, 'refused'));
    const outside = tmpDir('oc-mine-outside-');
    const busy = path.join(root, 'busy-out');
    writeFiles(busy, { 'notes.txt': 'mine' });
    const cases: [Record<string, unknown>, string, string][] = [
      [{ path: 'relative/repo' }, 'invalid-input', 'path'],
      [{ path: outside }, 'forbidden-path', 'path'],
      [{ path: repo, out: outside }, 'forbidden-path', 'out'],
      [{ path: repo, out: busy }, 'invalid-input', 'out'],
      [{ path: repo, out: root }, 'invalid-input', 'out'],
      [{ path: repo, out: path.join(repo, 'mined') }, 'invalid-input', 'out'],
      [{ path: repo, limit: 0 }, 'invalid-input', 'limit'],
    ];
    for (const [input, code, field] of cases) {
      const r = await s.call('repo.mine', input);
      expect(r.ok, JSON.stringify(input)).toBe(false);
      if (r.ok) continue;
      expect(r.error.code, JSON.stringify(r.error)).toBe(code);
      expect(r.error.issues?.map((i) => i.path)).toContain(field);
    }
    const jobs = await ok<JobInfo[]>(s, 'job.list');
    expect(jobs.filter((j) => j.kind === 'mine')).toEqual([]);
    expect((await s.call('repo.mined', { out: outside })).ok).toBe(false);
    fs.rmSync(outside, { recursive: true, force: true });
  });

  it('mines a repository as a job into benchmarks/mined-<name>, with progress by phase; repo.mined reads the set back', async () => {
    const repo = smallRepo(path.join(root, 'calc-repo'));
    const started = await ok<{ jobId: string; out: string }>(s, 'repo.mine', { path: repo });
    expect(started.out).toBe(path.join(dataDir(), 'benchmarks', 'mined-calc-repo'));
    // Asked again while it runs: the same job.
    expect(await ok(s, 'repo.mine', { path: repo })).toEqual(started);
    const job = await settled(s, started.jobId, 240_000);
    expect(job, JSON.stringify(job)).toMatchObject({
      state: 'done',
      kind: 'mine',
      title: 'Find tasks in calc-repo',
      result: { mined: { folder: repo, out: started.out } },
    });
    const { phases, last } = progressOf(started.jobId);
    expect(phases.filter((p) => p !== 'leaks')).toEqual(['scan', 'trace', 'checks', 'freeze']);
    expect(last.get('checks')).toEqual({ done: 2, total: 2 });
    expect(events.some((e) => e.type === 'repos-changed')).toBe(true);

    const set = await ok<MinedSet>(s, 'repo.mined', { out: started.out });
    expect(set).toMatchObject({ complete: true, manifest: path.join(started.out, 'tasks.jsonl'), report: path.join(started.out, 'MINE.md'), candidates: 4 });
    expect(set.kept.map((t) => t.id).sort()).toEqual(['calc.ops.add', 'calc.ops.clamp']);
    for (const t of set.kept) {
      expect(t.tests).toBeGreaterThan(0);
      expect(t.mutants?.made).toBeGreaterThan(0);
      expect(t.isolation).toBe('isolated');
    }
    expect(Object.fromEntries(set.dropped.map((d) => [d.id, d.reason]))).toEqual({ 'calc.ops.triple': 'no-docstring', 'calc.ops.unused': 'untested' });
    expect(set.mutationScore.median).not.toBeNull();
    // The manifest is one the experiment calls read.
    const tasks = await ok<{ tasks: { id: string }[] }>(s, 'tasks.list', { manifest: set.manifest });
    expect(tasks.tasks.map((t) => t.id).sort()).toEqual(['calc.ops.add', 'calc.ops.clamp']);
  }, 300_000);

  it('gives another repository of the same name a folder of its own, and cancels', async () => {
    const repo = smallRepo(path.join(root, 'elsewhere', 'calc-repo'));
    // benchmarks/mined-calc-repo holds the set of another calc-repo (the test above mined one; alone, this one is written).
    const plain = path.join(dataDir(), 'benchmarks', 'mined-calc-repo');
    if (!fs.existsSync(path.join(plain, 'MINE.md')))
      writeFiles(plain, { 'MINE.md': '# Tasks mined from calc-repo\n\nMined from `/other/calc-repo` with `python3 -m unittest`.\n' });
    const started = await ok<{ jobId: string; out: string }>(s, 'repo.mine', { path: repo });
    expect(path.dirname(started.out)).toBe(path.join(dataDir(), 'benchmarks'));
    expect(path.basename(started.out)).toMatch(/^mined-calc-repo-[0-9a-f]{8}$/);
    await ok(s, 'job.cancel', { jobId: started.jobId });
    expect(await settled(s, started.jobId, 120_000)).toMatchObject({ state: expect.stringMatching(/^(cancelled|done)$/) });
  }, 180_000);

  it('pauses during the checks and resumes from the decisions it kept, its count going on', async () => {
    const repo = smallRepo(path.join(root, 'slow-repo'), 0.3, 4);
    const out = path.join(root, 'slow-out');
    const started = await ok<{ jobId: string; out: string }>(s, 'repo.mine', { path: repo, out });
    expect(started.out).toBe(out);
    await reaches(started.jobId, 'checks', 240_000);
    const paused = await ok<JobInfo>(s, 'job.pause', { jobId: started.jobId });
    expect(paused.stopping ?? paused.state).toMatch(/paused/);
    expect(await settled(s, started.jobId, 120_000)).toMatchObject({ state: 'paused' });
    const between = await ok<MinedSet>(s, 'repo.mined', { out });
    expect(between.complete).toBe(false);
    expect(between.dropped.map((d) => d.reason).sort()).toEqual(['no-docstring', 'untested']);
    await ok(s, 'job.resume', { jobId: started.jobId });
    expect(await settled(s, started.jobId, 240_000)).toMatchObject({ state: 'done' });
    // The resumed launch checks only what was left; the card's count goes on to the total it showed before.
    expect(progressOf(started.jobId).last.get('checks')).toEqual({ done: 6, total: 6 });
    const set = await ok<MinedSet>(s, 'repo.mined', { out });
    expect(set.complete).toBe(true);
    expect(set.kept.map((t) => t.id)).toEqual(expect.arrayContaining(['calc.ops.add', 'calc.ops.clamp', 'calc.ops.scale_2', 'calc.ops.scale_5']));
  }, 600_000);
});
