// @vitest-environment happy-dom
import { describe, expect, it, vi } from 'vitest';
import type { CallInput, CallName, CallOutput, EngineApi, ReportModel } from '../../contract/index.ts';
import { jobInfo } from '../helpers/job-info.ts';
import { createAppStore } from '../../renderer/src/store.ts';
import { taskResult } from './fixtures.ts';

type Handlers = { [K in CallName]?: (input: CallInput<K>) => CallOutput<K> | Promise<CallOutput<K>> };

function fakeApi(handlers: Handlers) {
  const calls: { name: CallName; input: unknown }[] = [];
  const api: EngineApi = {
    async call(name, input) {
      calls.push({ name, input });
      const h = handlers[name] as ((i: unknown) => unknown) | undefined;
      if (!h) throw new Error(`unexpected call ${name}`);
      return (await h(input)) as never;
    },
    subscribe: () => () => {},
  };
  return { api, calls, count: (n: CallName) => calls.filter((c) => c.name === n).length };
}

const job = jobInfo;

const flush = () => new Promise((r) => setTimeout(r, 0));

function modelFor(runId: string, conditions: string[]): ReportModel {
  return {
    title: 't',
    generatedAt: '',
    tool: { name: 'opencoder', version: '0' },
    runs: [],
    conditions: [],
    comparisons: [],
    factorial: [],
    tasks: conditions.map((condition) => ({
      runId,
      condition,
      taskId: 'pkg/apply_discount',
      n: 5,
      c: 0,
      pass1: 0,
      selectedCorrect: false,
      selectedOrigin: 'candidate',
      selectedIndex: 0,
      selectedIsolation: 'isolated',
      repairRounds: 0,
      repairRecovered: false,
      uncertainty: 0.5,
      apiF1: null,
      apiF1TaskView: null,
      costUsd: 0,
      durationMs: 10,
      error: null,
      unscored: null,
      emptyReplies: 0,
      noCodeReplies: 0,
      refusedReplies: 0,
    })),
    candidates: [],
    statistics: { seed: 1, resamples: 10, level: 0.95, eceBins: 10, notes: [] },
  };
}

describe('store and engine events', () => {
  it('adds and updates jobs from events, newest first, and refreshes repositories when indexing ends', async () => {
    const f = fakeApi({ 'repo.list': () => [] });
    const store = createAppStore(f.api);
    const s = () => store.getState();
    s().handleEvent({ type: 'job', job: job({ id: 'a', startedAt: '2026-01-01T00:00:00Z' }) });
    s().handleEvent({ type: 'job', job: job({ id: 'b', kind: 'experiment', startedAt: '2026-01-02T00:00:00Z' }) });
    expect(s().jobs.map((j) => j.id)).toEqual(['b', 'a']);
    s().handleEvent({ type: 'job', job: job({ id: 'a', progress: { phase: 'embed', done: 7, total: 10 } }) });
    expect(s().jobs).toHaveLength(2);
    expect(s().jobs.find((j) => j.id === 'a')!.progress).toEqual({ phase: 'embed', done: 7, total: 10 });
    expect(f.count('repo.list')).toBe(0);
    s().handleEvent({ type: 'job', job: job({ id: 'a', state: 'done', result: { repoId: 1 } }) });
    await flush();
    expect(f.count('repo.list')).toBe(1);
    // a second 'done' for the same job does not refresh again
    s().handleEvent({ type: 'job', job: job({ id: 'a', state: 'done', result: { repoId: 1 } }) });
    await flush();
    expect(f.count('repo.list')).toBe(1);
  });

  it('turns notices into toasts and a failed job into an error notice', () => {
    const store = createAppStore(fakeApi({}).api);
    store.getState().handleEvent({ type: 'notice', level: 'warning', message: 'keychain unavailable' });
    store.getState().handleEvent({ type: 'job', job: job({ id: 'x', kind: 'index', state: 'failed', error: 'disk full' }) });
    expect(store.getState().notices.map((n) => [n.level, n.message])).toEqual([
      ['warning', 'keychain unavailable'],
      ['error', 'Index repo: disk full'],
    ]);
  });

  it('refreshes on repos-changed / runs-changed, and everything after the stream reopens', async () => {
    const f = fakeApi({ 'repo.list': () => [], 'experiment.list': () => [], 'job.list': () => [job({ id: 'late', state: 'running' })] });
    const store = createAppStore(f.api);
    store.getState().handleEvent({ type: 'repos-changed' });
    store.getState().handleEvent({ type: 'runs-changed' });
    await flush();
    expect([f.count('repo.list'), f.count('experiment.list')]).toEqual([1, 1]);
    store.getState().setConnection({ state: 'reconnecting', attempt: 1, retryAt: 1 }, false);
    expect(store.getState().connection.state).toBe('reconnecting');
    store.getState().setConnection({ state: 'open', attempt: 0, retryAt: null }, true);
    await flush();
    expect([f.count('job.list'), f.count('repo.list'), f.count('experiment.list')]).toEqual([1, 2, 2]);
    expect(store.getState().jobs.map((j) => j.id)).toEqual(['late']);
  });

  it('runs a task, loads its results when the job is done, and keeps the previous run for comparison', async () => {
    let n = 0;
    const f = fakeApi({
      'task.run': () => ({ jobId: `task-${++n}` }),
      'experiment.model': ({ runIds }) => modelFor(runIds[0]!, ['opencoder']),
      'experiment.result': ({ condition }) => taskResult({ condition }),
      'experiment.list': () => [],
    });
    const store = createAppStore(f.api);
    const s = () => store.getState();
    store.setState({ manifest: '/m/tasks.jsonl' });

    const jobId = await s().runTask({ taskId: 'pkg/apply_discount', methods: ['opencoder'] });
    expect(jobId).toBe('task-1');
    expect(f.calls.find((c) => c.name === 'task.run')!.input).toEqual({ manifest: '/m/tasks.jsonl', taskId: 'pkg/apply_discount', methods: ['opencoder'] });
    expect(s().taskRun.current).toMatchObject({ jobId: 'task-1', status: 'running', sources: { api: true, context: true, similar: true } });

    s().handleEvent({ type: 'job', job: job({ id: 'task-1', kind: 'task', state: 'running', progress: { phase: 'generate', done: 0, total: 1 } }) });
    expect(s().taskRun.current!.status).toBe('running');
    s().handleEvent({ type: 'job', job: job({ id: 'task-1', kind: 'task', state: 'done', result: { runId: 'run-1' } }) });
    await vi.waitFor(() => expect(s().taskRun.current!.status).toBe('ready'));
    expect(s().taskRun.current!.runId).toBe('run-1');
    expect(s().taskRun.current!.results.map((r) => r.condition)).toEqual(['opencoder']);
    expect(f.calls.filter((c) => c.name === 'experiment.result').map((c) => c.input)).toEqual([
      { runId: 'run-1', taskId: 'pkg/apply_discount', condition: 'opencoder' },
    ]);

    // the ablation: API off, run again
    await s().runTask({ taskId: 'pkg/apply_discount', methods: ['opencoder'], sources: { api: false, context: true, similar: true } });
    expect(f.calls.filter((c) => c.name === 'task.run')[1]!.input).toMatchObject({ sources: { api: false, context: true, similar: true } });
    expect(s().taskRun.previous!.jobId).toBe('task-1');
    expect(s().taskRun.current).toMatchObject({ jobId: 'task-2', status: 'running', sources: { api: false } });
    s().handleEvent({ type: 'job', job: job({ id: 'task-2', kind: 'task', state: 'failed', error: 'sandbox unavailable' }) });
    expect(s().taskRun.current).toMatchObject({ status: 'failed', error: 'sandbox unavailable' });
    expect(s().taskRun.previous!.status).toBe('ready');
  });

  it('handles a job that finished before task.run answered', async () => {
    const f = fakeApi({
      'task.run': () => ({ jobId: 'fast' }),
      'experiment.model': ({ runIds }) => modelFor(runIds[0]!, ['baseline-rag', 'opencoder']),
      'experiment.result': ({ condition }) => taskResult({ condition }),
      'experiment.list': () => [],
    });
    const store = createAppStore(f.api);
    store.setState({ manifest: '/m/tasks.jsonl' });
    store.getState().handleEvent({ type: 'job', job: job({ id: 'fast', kind: 'task', state: 'done', result: { runId: 'run-9' } }) });
    await store.getState().runTask({ taskId: 'pkg/apply_discount', methods: ['baseline-rag', 'opencoder'] });
    await vi.waitFor(() => expect(store.getState().taskRun.current!.status).toBe('ready'));
    expect(store.getState().taskRun.current!.results.map((r) => r.condition)).toEqual(['baseline-rag', 'opencoder']);
  });

  it('caches report models and drops them when their run changes', async () => {
    const f = fakeApi({ 'experiment.model': ({ runIds }) => modelFor(runIds[0]!, ['opencoder']), 'experiment.list': () => [] });
    const store = createAppStore(f.api);
    await store.getState().loadModel(['run-1']);
    await store.getState().loadModel(['run-1']);
    expect(f.count('experiment.model')).toBe(1);
    expect(store.getState().models['run-1']!.status).toBe('ready');
    store.getState().handleEvent({ type: 'job', job: job({ id: 'e', kind: 'experiment', state: 'running' }) });
    store.getState().handleEvent({ type: 'job', job: job({ id: 'e', kind: 'experiment', state: 'done', result: { runId: 'run-1' } }) });
    expect(store.getState().models['run-1']).toBeUndefined();
  });

  it('opens a stored result for the task view (drill-down)', async () => {
    const f = fakeApi({ 'experiment.result': ({ condition }) => taskResult({ condition }) });
    const store = createAppStore(f.api);
    await store.getState().openResult('run-1', 'pkg/apply_discount', 'baseline-rag');
    expect(store.getState().view).toBe('task');
    expect(store.getState().drill!.result.status).toBe('ready');
    expect(store.getState().drill!.result.data!.condition).toBe('baseline-rag');
  });
});
