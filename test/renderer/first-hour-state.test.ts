// @vitest-environment happy-dom
// Issue 17, items 3 and 7 in the store: the route round-trips what a reload must restore, a stored run is shown
// again from its id with its own task selected, repeated notices are one counted toast, pause / cancel show at once,
// and the written-task draft is kept per repository folder.

import { describe, expect, it } from 'vitest';
import type { CallInput, CallName, CallOutput, EngineApi, JobInfo, RunListItem, TaskSummary } from '../../contract/index.ts';
import { jobInfo } from '../helpers/job-info.ts';
import { DEFAULT_ROUTE, formatRoute, parseRoute, routeOfState } from '../../renderer/src/route.ts';
import { createAppStore, type RouteState } from '../../renderer/src/store.ts';
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

const summary = (id: string): TaskSummary => ({ id, file: 'm.py', qualname: id, requirement: 'r', signature: 's', shape: 'repository', hasReference: true });

describe('the route', () => {
  it('round-trips the view, repository, manifest, task, source, run and condition; junk falls back to the defaults', () => {
    const r: RouteState = {
      ...DEFAULT_ROUTE,
      view: 'task',
      repo: 3,
      manifest: '/a b/tasks.jsonl',
      task: 'pkg/f',
      source: 'custom',
      run: 'run-1',
      condition: 'opencoder',
    };
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

describe('the route of the Experiment, Ablation and Reports views (issue 31)', () => {
  const experiment: RouteState = {
    ...DEFAULT_ROUTE,
    view: 'experiment',
    manifest: '/data/bench & co/tasks.jsonl',
    runs: ['run-a', 'run-b'],
    methods: ['baseline-rag', 'opencoder'],
    kind: 'ladder',
    limit: '12',
    samples: '/data/c_out.jsonl',
    tab: 'tasks',
    filter: 'pkg/f?x=1&y',
    only: 'wrong',
  };

  it('round-trips chosen runs, tab, filters, start form, ablation switches and compared run', () => {
    expect(parseRoute(formatRoute(experiment))).toEqual(experiment);
    const ablation: RouteState = {
      ...DEFAULT_ROUTE,
      view: 'ablation',
      manifest: '/m.jsonl',
      task: 't1',
      run: 'run-2',
      prev: 'run-1',
      sources: { api: true, context: false, similar: true },
      methods: [],
    };
    expect(parseRoute(formatRoute(ablation))).toEqual(ablation);
    const none: RouteState = { ...ablation, sources: { api: false, context: false, similar: false } };
    expect(parseRoute(formatRoute(none))).toEqual(none);
  });

  it('refuses what the views would not take: an unknown tab, kind or filter, a bad limit, unknown sources, a third run', () => {
    const r = parseRoute('#/experiment?tab=graphs&kind=all&only=maybe&limit=0&sources=api,radio&runs=a&runs=b&runs=c&runs=c');
    expect(r).toMatchObject({ view: 'experiment', tab: null, kind: null, only: null, limit: null, sources: null, runs: ['b', 'c'] });
    expect(parseRoute('#/experiment?limit=-3').limit).toBeNull();
    expect(parseRoute('#/experiment?limit=2.5').limit).toBeNull();
  });

  it('holds what the Experiment view shows, defaults left out, and a reload (applyRoute) restores it', () => {
    const store = createAppStore(apiOf({ 'experiment.model': () => new Promise(() => {}) }), { initialView: 'experiment' });
    expect(formatRoute(routeOfState(store.getState()))).toBe('#/experiment');
    store.getState().selectRuns(['run-a', 'run-b']);
    store.getState().setAnalysis({ tab: 'tasks', filter: 'pkg/f?x=1&y', only: 'wrong' });
    store.getState().setExperimentForm({ kind: 'ladder', limit: '12', manifest: '/data/bench & co/tasks.jsonl', samples: '/data/c_out.jsonl' });
    store.getState().setExperimentForm({ methods: ['baseline-rag', 'opencoder'] });
    const hash = formatRoute(routeOfState(store.getState()));
    expect(parseRoute(hash)).toEqual(experiment);

    const reloaded = createAppStore(apiOf({}), { initialView: 'experiment' });
    reloaded.getState().applyRoute(parseRoute(hash));
    const s = reloaded.getState();
    expect(s.selectedRuns).toEqual(['run-a', 'run-b']);
    expect(s.analysis).toEqual({ tab: 'tasks', filter: 'pkg/f?x=1&y', only: 'wrong' });
    expect(s.experimentForm).toEqual({
      kind: 'ladder',
      methods: ['baseline-rag', 'opencoder'],
      manifest: '/data/bench & co/tasks.jsonl',
      limit: '12',
      samples: '/data/c_out.jsonl',
    });
    // A task limit being typed ("1x") is not in the address bar; back / forward to a route without one clears it.
    reloaded.getState().setExperimentForm({ limit: '1x' });
    expect(routeOfState(reloaded.getState()).limit).toBeNull();
    reloaded.getState().applyRoute(parseRoute('#/experiment'));
    expect(reloaded.getState()).toMatchObject({
      selectedRuns: [],
      experimentForm: { kind: 'run', limit: '', manifest: null },
      analysis: { tab: 'charts', filter: '' },
    });
  });

  it('a stored result opened from the experiment keeps its runs; back to the experiment shows them, also after a reload', () => {
    const api = apiOf({ 'experiment.result': () => new Promise(() => {}), 'experiment.list': () => [], 'experiment.model': () => new Promise(() => {}) });
    const store = createAppStore(api, { initialView: 'experiment' });
    store.getState().selectRuns(['run-a', 'run-b']);
    store.getState().setAnalysis({ tab: 'tasks', filter: 'opencoder' });
    void store.getState().openResult('run-b', 't1', 'opencoder');
    const hash = formatRoute(routeOfState(store.getState()));
    expect(parseRoute(hash)).toMatchObject({ view: 'task', run: 'run-b', task: 't1', condition: 'opencoder', runs: ['run-a', 'run-b'], tab: 'tasks' });

    const reloaded = createAppStore(api, { initialView: 'task' });
    reloaded.getState().applyRoute(parseRoute(hash));
    reloaded.getState().setView('experiment');
    expect(reloaded.getState().selectedRuns).toEqual(['run-a', 'run-b']);
    expect(reloaded.getState().analysis).toEqual({ tab: 'tasks', filter: 'opencoder', only: 'all' });

    // An address from before runs were kept: the result's own run is chosen on the way back.
    const old = createAppStore(api, { initialView: 'task' });
    old.getState().applyRoute(parseRoute('#/task?task=t1&run=run-b&condition=opencoder'));
    old.getState().setView('experiment');
    expect(old.getState().selectedRuns).toEqual(['run-b']);
  });

  it('drops the manifest and task while the Task view is on a written task', () => {
    const store = createAppStore(apiOf({}), { initialView: 'task' });
    store.setState({ manifest: '/m.jsonl', selectedTaskId: 't1' });
    expect(routeOfState(store.getState())).toMatchObject({ manifest: '/m.jsonl', task: 't1' });
    store.getState().setTaskSource('custom');
    expect(routeOfState(store.getState())).toMatchObject({ source: 'custom', manifest: null, task: null });
  });

  it('"Write a task" over an open stored result keeps the form\'s tab and the result across a reload', () => {
    const api = apiOf({ 'experiment.result': () => new Promise(() => {}), 'experiment.list': () => [], 'tasks.list': () => new Promise(() => {}) });
    const store = createAppStore(api, { initialView: 'task' });
    void store.getState().openResult('run-b', 't1', 'opencoder');
    store.getState().setTaskSource('custom');
    const hash = formatRoute(routeOfState(store.getState()));
    expect(parseRoute(hash)).toMatchObject({ view: 'task', source: 'custom', run: 'run-b', condition: 'opencoder' });
    const reloaded = createAppStore(api, { initialView: 'task' });
    reloaded.getState().applyRoute(parseRoute(hash));
    expect(reloaded.getState().taskSource).toBe('custom');
    expect(reloaded.getState().drill).toMatchObject({ runId: 'run-b', taskId: 't1', condition: 'opencoder' });
  });

  it('the Reports view reports on the chosen runs, and its address names them', () => {
    const store = createAppStore(apiOf({}), { initialView: 'reports' });
    store.getState().selectRuns(['run-a']);
    expect(formatRoute(routeOfState(store.getState()))).toBe('#/reports?runs=run-a');
    const reloaded = createAppStore(apiOf({}), { initialView: 'reports' });
    reloaded.getState().applyRoute(parseRoute('#/reports?runs=run-a&runs=run-b'));
    expect(reloaded.getState().selectedRuns).toEqual(['run-a', 'run-b']);
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
        'experiment.result': () => taskResult({ taskId: 'pkg/b', condition: 'opencoder' }),
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
