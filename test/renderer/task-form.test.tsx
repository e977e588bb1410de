// @vitest-environment happy-dom
// The Task view's written-task form against a fake engine (issue 31): the folder follows the repository the analyst
// works on until they type one; a blank requirement is refused at its field without a call; the engine's field
// issues land on their fields; a refused folder offers "Allow this folder" where the error shows, and then runs.

import { act } from 'react';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EngineCallError, type CallName, type EngineApi, type RepoSummary, type Settings } from '../../contract/index.ts';
import { createAppStore, installStore, type AppStore } from '../../renderer/src/store.ts';
import { TaskView } from '../../renderer/src/views/TaskView.tsx';
import { APP_INFO as INFO } from './app-info.ts';
import { mountPerTest } from './dom.ts';

const SETTINGS: Settings = { backend: { kind: 'offline' }, sandbox: 'auto', encoder: 'auto', parallel: 2, pipeline: {} };

const repo = (id: number, root: string, lastIndexedAt: string): RepoSummary => ({
  id,
  root,
  name: root.split('/').pop()!,
  lastIndexedAt,
  files: 1,
  otherFiles: 0,
  units: {},
  chunks: 0,
  apiEntries: 0,
  embedded: 0,
  encoder: null,
  skipped: {},
  testFiles: {},
});

type Handler = (input: unknown) => unknown;

const mount = mountPerTest();
const { $ } = mount;
let store: AppStore;
let calls: { name: CallName; input: unknown }[];
let handlers: Partial<Record<CallName, Handler>>;

beforeEach(async () => {
  window.localStorage.clear();
  calls = [];
  handlers = {
    'app.info': () => INFO,
    'settings.get': () => SETTINGS,
    'repo.list': () => [repo(1, INFO.sampleRepo, '2025-01-01T10:00:00Z')],
    'job.list': () => [],
    'methods.list': () => ({ methods: [{ id: 'opencoder', label: 'OpenCoder', family: 'method', description: '' }], ladder: [], factorial: [] }),
    'experiment.list': () => [],
    'models.list': () => ({ modelsDir: { path: '/m', exists: true }, ggufFiles: [], servers: [], providers: [], detectedAt: null }),
    'tasks.list': () => ({ manifest: INFO.sampleManifest, hash: 'abc', tasks: [] }),
  };
  const api: EngineApi = {
    async call(name, input) {
      calls.push({ name, input });
      const h = handlers[name];
      if (!h) throw new Error(`unexpected call ${name}`);
      return h(input) as never;
    },
    subscribe: () => () => {},
  };
  store = createAppStore(api);
  installStore(store, api);
  await act(async () => {
    await store.getState().init();
  });
  store.setState({ taskSource: 'custom', selectedMethods: ['opencoder'] });
  await act(async () => mount.root.render(<TaskView />));
});

afterEach(() => window.localStorage.clear());

const field = (key: string) => $(`[data-testid=custom-${key}]`) as HTMLInputElement | HTMLTextAreaElement;
async function type(key: string, value: string) {
  const el = field(key);
  const proto = el instanceof HTMLTextAreaElement ? HTMLTextAreaElement.prototype : HTMLInputElement.prototype;
  await act(async () => {
    Object.getOwnPropertyDescriptor(proto, 'value')!.set!.call(el, value);
    el.dispatchEvent(new Event('input', { bubbles: true }));
  });
}
async function fillTask(over: Record<string, string> = {}) {
  const values = { file: 'a.py', qualname: 'f', signature: 'def f():', requirement: 'Return one.', test_command: 'python3 -m unittest', ...over };
  for (const [k, v] of Object.entries(values)) await type(k, v);
}
const click = (sel: string) => act(async () => $(sel)!.click());
const fieldError = (key: string) => $(`[data-testid=custom-field-${key}] [data-testid=field-error]`)?.textContent ?? null;
const runs = () => calls.filter((c) => c.name === 'task.run');

describe('the written-task form', () => {
  it('follows the repository the analyst works on until they type a folder', async () => {
    expect(field('repo').value).toBe(INFO.sampleRepo);
    // Another repository is indexed: the folder follows it.
    await act(async () =>
      store.setState({
        repos: { status: 'ready', error: null, data: [repo(1, INFO.sampleRepo, '2025-01-01T10:00:00Z'), repo(2, '/home/me/shop', '2025-01-02T10:00:00Z')] },
      }),
    );
    expect(field('repo').value).toBe('/home/me/shop');
    // The analyst chooses the sample in the Repository view: it follows that choice.
    await act(async () => store.getState().selectRepo(1));
    expect(field('repo').value).toBe(INFO.sampleRepo);
    // A folder the analyst types stays, whatever is indexed or chosen next; one click goes back to the working one.
    await type('repo', '/home/me/elsewhere');
    await act(async () => store.getState().selectRepo(2));
    expect(field('repo').value).toBe('/home/me/elsewhere');
    await click('[data-testid=custom-use-working-repo]');
    expect(field('repo').value).toBe('/home/me/shop');
  });

  it('refuses a requirement of only spaces at its field, without calling the engine', async () => {
    await fillTask({ requirement: '  \n   ' });
    await click('[data-testid=task-run]');
    expect(fieldError('requirement')).toBe('the requirement is only spaces or blank lines');
    expect(runs()).toEqual([]);
    await fillTask({ signature: '   ', requirement: 'Return one.' });
    await click('[data-testid=task-run]');
    expect(fieldError('requirement')).toBeNull();
    expect(fieldError('signature')).toBe('the signature is only spaces or blank lines');
    expect(runs()).toEqual([]);
  });

  it("shows the engine's field issues at their fields", async () => {
    handlers['task.run'] = () => {
      throw new EngineCallError({
        code: 'invalid-input',
        message: 'invalid input for task.run: custom.test_command: the test command is only spaces or blank lines',
        issues: [{ path: 'custom.test_command', message: 'the test command is only spaces or blank lines' }],
      });
    };
    await fillTask();
    await click('[data-testid=task-run]');
    expect(fieldError('test_command')).toBe('the test command is only spaces or blank lines');
  });

  it('offers "Allow this folder" where a refused folder is reported, then runs the task', async () => {
    let allowed = false;
    handlers['task.run'] = () => {
      if (!allowed)
        throw new EngineCallError({
          code: 'forbidden-path',
          message: 'custom.repo /srv/shop is outside the folders OpenCoder may open: /home/me.',
          issues: [{ path: 'custom.repo', message: 'outside the allowed roots.' }],
          allow: '/srv/shop',
        });
      return { jobId: 'job-1' };
    };
    handlers['repo.allow'] = (input) => {
      allowed = true;
      return {
        folder: (input as { folder: string }).folder,
        allowedRoots: ['/home/me', '/srv/shop'],
        rememberedIn: '/home/me/.opencoder/allowed-folders.json',
      };
    };
    await type('repo', '/srv/shop');
    await fillTask();
    await click('[data-testid=task-run]');
    expect($('[data-testid=task-run-error]')!.textContent).toContain('forbidden-path');
    await click('[data-testid=task-run-error-allow-open]');
    expect($('[data-testid=task-run-error-allow-confirm]')!.textContent).toContain('/srv/shop');
    await click('[data-testid=task-run-error-allow-yes]');
    expect(calls.filter((c) => c.name === 'repo.allow').map((c) => c.input)).toEqual([{ folder: '/srv/shop' }]);
    expect(runs()).toHaveLength(2);
    expect(runs()[1]!.input).toMatchObject({ custom: { repo: '/srv/shop', requirement: 'Return one.' }, methods: ['opencoder'] });
    expect($('[data-testid=task-run-error]')).toBeNull();
    expect(store.getState().taskRun.current?.jobId).toBe('job-1');
  });

  it('a manifest in a refused folder offers "Allow this folder" under its field, then loads', async () => {
    let allowed = false;
    handlers['tasks.list'] = (input) => {
      const { manifest } = input as { manifest: string };
      if (manifest === '/srv/bench/tasks.jsonl' && !allowed)
        throw new EngineCallError({ code: 'forbidden-path', message: `manifest ${manifest} is outside the folders OpenCoder may open.`, allow: '/srv/bench' });
      return {
        manifest,
        hash: 'def',
        tasks: [{ id: 'b/1', file: 'b.py', qualname: 'g', requirement: 'do', signature: 'def g():', shape: 'repository', hasReference: false }],
      };
    };
    handlers['repo.allow'] = () => {
      allowed = true;
      return { folder: '/srv/bench', allowedRoots: ['/home/me', '/srv/bench'], rememberedIn: '/x' };
    };
    await act(async () => store.getState().setTaskSource('manifest'));
    const input = $('[data-testid=manifest-path]') as HTMLInputElement;
    await act(async () => {
      Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value')!.set!.call(input, '/srv/bench/tasks.jsonl');
      input.dispatchEvent(new Event('input', { bubbles: true }));
    });
    await click('[data-testid=manifest-load]');
    expect($('[data-testid=task-picker] [data-testid=field-error]')!.textContent).toContain('outside the folders');
    await click('[data-testid=manifest-allow-open]');
    await click('[data-testid=manifest-allow-yes]');
    expect(
      calls
        .filter((c) => c.name === 'tasks.list')
        .map((c) => (c.input as { manifest: string }).manifest)
        .slice(-2),
    ).toEqual(['/srv/bench/tasks.jsonl', '/srv/bench/tasks.jsonl']);
    expect(store.getState().tasks.data?.tasks.map((t) => t.id)).toEqual(['b/1']);
    expect($('[data-testid=manifest-allow]')).toBeNull();
  });
});
