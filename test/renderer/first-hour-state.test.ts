// @vitest-environment happy-dom
// Issue 17, items 3 and 7 in the store: the route round-trips what a reload must restore, a stored run is shown
// again from its id with its own task selected, repeated notices are one counted toast, pause / cancel show at once,
// and the written-task draft is kept per repository folder.

import { describe, expect, it } from 'vitest';
import type { CallInput, CallName, CallOutput, EngineApi, JobInfo, RunListItem, TaskSummary } from '../../contract/index.ts';
import { jobInfo } from '../helpers/job-info.ts';
import { formatRoute, parseRoute, routeOfState } from '../../renderer/src/route.ts';
import { createAppStore } from '../../renderer/src/store.ts';
import { loadCustomDraft, saveCustomDraft, emptyDraft } from '../../renderer/src/views/task/custom-draft.ts';
import { taskResult } from './fixtures.ts';

type Handlers = { [K in CallName]?: (input: CallInput<K>) => CallOutput<K> | Promise<CallOutput<K>> };

function apiOf(handlers: Handlers): EngineApi {
  return {
    async call(name, input) {
      const h = handlers[name] as ((i: unknown) => unknown) | undefined;
      if (!h) throw new Error(`unexpected call ${name}`);
      return (await h(input)) as never;
    },
    subscribe: () => () => {},
  };
}

const running = jobInfo({ id: 'index-1' });

const summary = (id: string): TaskSummary =>
  ({ id, file: 'm.py', qualname: id, requirement: 'r', signature: 's', shape: 'repository', hasReference: true }) as TaskSummary;

describe('the route', () => {
  it('round-trips the view, repository, manifest, task, source, run and condition; junk falls back to the defaults', () => {
    const r = { view: 'task' as const, repo: 3, manifest: '/a b/tasks.jsonl', task: 'pkg/f', source: 'custom' as const, run: 'run-1', condition: 'opencoder' };
    expect(parseRoute(formatRoute(r))).toEqual(r);
    expect(parseRoute('#token=abc').view).toBe('repository');
    expect(parseRoute('#/nowhere?repo=-2')).toMatchObject({ view: 'repository', repo: null });
  });

  it('holds the shown result: a drill-down with its condition, or an interactive run', () => {
    const store = createAppStore(apiOf({}), { initialView: 'task' });
    store.setState({ drill: { runId: 'r1', taskId: 't1', condition: 'c1', result: { status: 'loading', data: null, error: null } } });
    expect(routeOfState(store.getState())).toMatchObject({ view: 'task', run: 'r1', task: 't1', condition: 'c1' });
  });
});

describe('restoring a stored run', () => {
  it('shows its results and selects its own task in its own manifest', async () => {
    const item = {
      id: 'run-9',
      manifestFile: '/m/tasks.jsonl',
      conditions: ['opencoder'],
      subject: 'pkg/b',
      label: 'l',
      createdAt: '2026-01-01',
    } as RunListItem;
    const store = createAppStore(
      apiOf({
        'experiment.list': () => [item],
        'experiment.model': () => ({ tasks: [{ runId: 'run-9', taskId: 'pkg/b', condition: 'opencoder' }] }) as never,
        'experiment.result': () => taskResult({ taskId: 'pkg/b', condition: 'opencoder' }) as never,
        'tasks.list': () => ({ manifest: '/m/tasks.jsonl', hash: 'h', tasks: [summary('pkg/a'), summary('pkg/b')] }),
      }),
    );
    await store.getState().restoreRun('run-9');
    const s = store.getState();
    expect(s.taskRun.current).toMatchObject({ runId: 'run-9', status: 'ready', taskId: 'pkg/b' });
    expect(s.manifest).toBe('/m/tasks.jsonl');
    expect(s.selectedTaskId).toBe('pkg/b');
  });

  it('says so when the run is not in the workspace', async () => {
    const store = createAppStore(apiOf({ 'experiment.list': () => [] }));
    await store.getState().restoreRun('gone');
    expect(store.getState().taskRun.current).toMatchObject({ status: 'failed' });
    expect(store.getState().taskRun.current?.error).toMatch(/no stored run gone/);
  });
});

describe('notices and job actions', () => {
  it('counts a repeated notice on one toast', () => {
    const store = createAppStore(apiOf({}));
    for (let i = 0; i < 5; i++) store.getState().notify('error', 'could not list jobs: down');
    store.getState().notify('warning', 'other');
    expect(store.getState().notices.map((n) => [n.message, n.count])).toEqual([
      ['could not list jobs: down', 5],
      ['other', 1],
    ]);
  });

  it('shows pausing at once, keeps it over a progress event, and drops it when the call fails', async () => {
    let fail = false;
    let answer: (j: JobInfo) => void = () => {};
    const store = createAppStore(
      apiOf({
        'job.pause': () => {
          if (fail) throw new Error('no such job');
          return new Promise<JobInfo>((r) => (answer = r));
        },
      }),
    );
    store.getState().handleEvent({ type: 'job', job: running });
    const pending = store.getState().jobAction('index-1', 'pause');
    expect(store.getState().jobs[0]!.stopping).toBe('paused');
    store.getState().handleEvent({ type: 'job', job: { ...running, progress: { phase: 'parse', done: 2, total: 10 } } });
    expect(store.getState().jobs[0]!.stopping).toBe('paused');
    answer({ ...running, stopping: 'paused' });
    await pending;
    store.getState().handleEvent({ type: 'job', job: { ...running, state: 'paused', stopping: null } });
    expect(store.getState().jobs[0]).toMatchObject({ state: 'paused', stopping: null });

    fail = true;
    store.getState().handleEvent({ type: 'job', job: { ...running, id: 'index-2' } });
    await store.getState().jobAction('index-2', 'pause');
    expect(store.getState().jobs.find((j) => j.id === 'index-2')!.stopping).toBeNull();
    expect(store.getState().notices.at(-1)!.message).toMatch(/could not pause the job: no such job/);
  });
});

describe('the written-task draft', () => {
  it('is kept per folder, newest first; editing the folder alone does not add drafts', () => {
    const storage = window.localStorage;
    storage.clear();
    expect(loadCustomDraft(storage, '/repo')).toEqual(emptyDraft('/repo'));
    saveCustomDraft(storage, { ...emptyDraft('/a'), file: 'x.py' });
    saveCustomDraft(storage, { ...emptyDraft('/ab'), file: 'x.py' });
    saveCustomDraft(storage, { ...emptyDraft('/b'), file: 'y.py', qualname: 'f' });
    expect(loadCustomDraft(storage, '/repo')).toMatchObject({ repo: '/b', file: 'y.py', qualname: 'f' });
    expect((JSON.parse(storage.getItem('opencoder.customTaskDrafts')!) as { repo: string }[]).map((d) => d.repo)).toEqual(['/b', '/ab']);
    storage.setItem('opencoder.customTaskDrafts', '{not json');
    expect(loadCustomDraft(storage, '/repo')).toEqual(emptyDraft('/repo'));
  });
});
