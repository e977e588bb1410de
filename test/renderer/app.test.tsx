// @vitest-environment happy-dom
import { act } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EngineCallError, type CallName, type EngineApi, type Settings } from '../../contract/index.ts';
import { App } from '../../renderer/src/App.tsx';
import { createAppStore, installStore, type AppStore } from '../../renderer/src/store.ts';
import { DEFAULT_CONFIG } from '../../main/model/config.ts';
import { APP_INFO as INFO } from './app-info.ts';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

const SETTINGS: Settings = { backend: { kind: 'offline' }, sandbox: 'auto', encoder: 'auto', parallel: 2, pipeline: {} };

function fakeApi() {
  const calls: { name: CallName; input: unknown }[] = [];
  const answers: Partial<Record<CallName, unknown>> = {
    'app.info': INFO,
    'settings.get': SETTINGS,
    'repo.list': [],
    'job.list': [],
    'methods.list': { methods: [{ id: 'opencoder', label: 'OpenCoder', family: 'method', description: '' }], ladder: [], factorial: [] },
    'experiment.list': [],
    'tasks.list': {
      manifest: INFO.sampleManifest,
      hash: 'abc123',
      tasks: [{ id: 't/1', file: 'a.py', qualname: 'f', requirement: 'do it', signature: 'def f():', shape: 'repository', hasReference: true }],
    },
  };
  const api: EngineApi = {
    async call(name, input) {
      calls.push({ name, input });
      if (name === 'settings.set') {
        const queue = (input as Settings).queue;
        if (queue?.includes('example.com')) {
          const message = 'refusing the queue at example.com:6379 without a password';
          throw new EngineCallError({ code: 'invalid-input', message, issues: [{ path: 'queue', message }] });
        }
        return { ...SETTINGS, ...(input as object) } as never;
      }
      if (!(name in answers)) throw new Error(`unexpected ${name}`);
      return answers[name] as never;
    },
    subscribe: () => () => {},
  };
  return { api, calls };
}

let container: HTMLDivElement;
let root: Root;
let store: AppStore;
let calls: { name: CallName; input: unknown }[];

beforeEach(async () => {
  const f = fakeApi();
  calls = f.calls;
  store = createAppStore(f.api);
  installStore(store, f.api);
  container = document.createElement('div');
  document.body.appendChild(container);
  root = createRoot(container);
  await act(async () => {
    await store.getState().init();
  });
  await act(async () => root.render(<App />));
});

afterEach(() => {
  act(() => root.unmount());
  container.remove();
});

const $ = (sel: string) => container.querySelector<HTMLElement>(sel);
const key = (el: Element, k: string) => el.dispatchEvent(new KeyboardEvent('keydown', { key: k, bubbles: true }));

describe('app shell', () => {
  it('says once, plainly, which sandbox validates candidates, and keeps the word in the navigation', async () => {
    window.localStorage.clear();
    await act(async () => root.render(<App key="fresh" />));
    const banner = $('[data-testid=sandbox-banner]')!;
    expect(banner.dataset.mode).toBe('strong');
    expect(banner.textContent).toContain('Candidates run in the strong sandbox (bubblewrap): no network');
    expect($('[data-testid=nav-sandbox]')!.textContent).toBe('sandbox: strong');
    await act(async () => $('[data-testid=sandbox-banner-ok]')!.click());
    expect($('[data-testid=sandbox-banner]')).toBeNull();
    // Said once: a new start in the same mode does not say it again; a weak mode (a new label) does.
    await act(async () => root.render(<App key="again" />));
    expect($('[data-testid=sandbox-banner]')).toBeNull();
    const weak =
      'weak: bubblewrap (bwrap) is not installed — rlimits, clean environment, wall-clock kill; NO filesystem or network isolation, NO process isolation, and the candidate runs as this user, so it can change what the tests read';
    act(() => store.setState({ info: { ...store.getState().info, data: { ...INFO, sandbox: weak } } }));
    const warn = $('[data-testid=sandbox-banner]')!;
    expect(warn.dataset.mode).toBe('weak');
    expect(warn.className).toContain('banner-warn');
    expect(warn.textContent).toContain('weak sandbox (bubblewrap (bwrap) is not installed)');
    expect(warn.textContent).toContain('a candidate can read files on this machine and reach the network, and it runs as you');
    expect(warn.textContent).toContain('Install bubblewrap');
    expect($('[data-testid=nav-sandbox]')!.textContent).toBe('sandbox: weak');
    expect($('[data-testid=nav-sandbox]')!.title).toBe(weak);
    window.localStorage.clear();
  });

  it('has a keyboard-navigable left navigation: arrows move focus, Enter activates', async () => {
    expect($('[data-testid=view-repository]')).not.toBeNull();
    const first = $('[data-testid=nav-repository]')!;
    first.focus();
    void act(() => key(first, 'ArrowDown'));
    expect(document.activeElement).toBe($('[data-testid=nav-task]'));
    void act(() => key(document.activeElement!, 'ArrowDown'));
    expect(document.activeElement).toBe($('[data-testid=nav-ablation]'));
    expect($('[data-testid=view-repository]')).not.toBeNull(); // moving focus does not switch views
    await act(async () => (document.activeElement as HTMLElement).click()); // Enter / Space on a button = click
    expect($('[data-testid=view-ablation]')).not.toBeNull();
    expect($('[data-testid=nav-ablation]')!.getAttribute('aria-current')).toBe('page');
    void act(() => key($('[data-testid=nav-ablation]')!, 'End'));
    expect(document.activeElement).toBe($('[data-testid=nav-settings]'));
    void act(() => key(document.activeElement!, 'ArrowDown'));
    expect(document.activeElement).toBe($('[data-testid=nav-repository]'));
  });

  it('shows the encoder notice, allowed roots and a designed empty state on the repository view', () => {
    expect($('[data-testid=encoder-notice]')!.textContent).toContain('hashing encoder');
    expect($('[data-testid=allowed-root]')!.textContent).toBe('/home/me');
    expect($('[data-testid=repo-empty]')).not.toBeNull();
  });

  it('validates the folder path before asking the engine', async () => {
    const input = $('[data-testid=repo-path]') as HTMLInputElement;
    await act(async () => {
      const setter = Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value')!.set!;
      setter.call(input, 'relative/dir');
      input.dispatchEvent(new Event('input', { bubbles: true }));
    });
    await act(async () => $('[data-testid=repo-index]')!.click());
    expect($('[data-testid=field-error]')!.textContent).toBe('the path must be absolute');
    expect(calls.some((c) => c.name === 'repo.index')).toBe(false);
  });

  it('shows a visible reconnecting state when the event stream drops', async () => {
    expect($('[data-testid=reconnect-banner]')).toBeNull();
    act(() => store.getState().setConnection({ state: 'reconnecting', attempt: 2, retryAt: Date.now() + 3000 }, false));
    expect($('[data-testid=reconnect-banner]')!.textContent).toContain('Disconnected — reconnecting');
    expect($('[data-testid=connection-state]')!.dataset.state).toBe('reconnecting');
    await act(async () => store.getState().setConnection({ state: 'open', attempt: 0, retryAt: null }, true));
    expect($('[data-testid=reconnect-banner]')).toBeNull();
    // the state is read again: events sent while the stream was down are lost
    expect(calls.filter((c) => c.name === 'job.list')).toHaveLength(2);
  });

  it('renders every view with its empty states', async () => {
    for (const v of ['task', 'ablation', 'experiment', 'reports', 'settings'] as const) {
      await act(async () => $(`[data-testid=nav-${v}]`)!.click());
      expect($(`[data-testid=view-${v}]`)).not.toBeNull();
    }
    await act(async () => $('[data-testid=nav-experiment]')!.click());
    expect($('[data-testid=runs-empty]')).not.toBeNull();
    expect($('[data-testid=analysis-empty]')).not.toBeNull();
    await act(async () => $('[data-testid=nav-ablation]')!.click());
    expect($('[data-testid=compare-empty]')).not.toBeNull();
    await act(async () => $('[data-testid=nav-reports]')!.click());
    expect($('[data-testid=reports-empty]')).not.toBeNull();
    await act(async () => $('[data-testid=nav-task]')!.click());
    expect($('[data-testid=task-row]')!.dataset.taskId).toBe('t/1');
  });

  it('keeps API keys write-only and says where they are kept', async () => {
    await act(async () => $('[data-testid=nav-settings]')!.click());
    expect($('[data-testid=key-openai-state]')!.textContent).toBe('no key');
    expect($('[data-testid=key-gemini-state]')!.textContent).toBe('key set');
    expect(($('[data-testid=key-openai-input]') as HTMLInputElement).type).toBe('password');
    expect($('[data-testid=key-storage]')!.textContent).toContain('this session only');
  });

  it("shows the engine's own defaults for the pipeline constants (DEFAULT_CONFIG), not numbers of its own", async () => {
    await act(async () => $('[data-testid=nav-settings]')!.click());
    const placeholder = (key: string) => ($(`[data-testid=settings-${key}]`) as HTMLInputElement).placeholder;
    expect(placeholder('alpha')).toBe(String(DEFAULT_CONFIG.fusion.alpha));
    expect(placeholder('topK')).toBe(String(DEFAULT_CONFIG.fusion.topK));
    expect(placeholder('candidates')).toBe(String(DEFAULT_CONFIG.generation.candidates));
    expect(placeholder('temperature')).toBe(String(DEFAULT_CONFIG.generation.temperature));
    expect(placeholder('repairRounds')).toBe(String(DEFAULT_CONFIG.validation.repairRounds));
  });

  it('validates pipeline constants in the settings form', async () => {
    await act(async () => $('[data-testid=nav-settings]')!.click());
    const alpha = $('[data-testid=settings-alpha]') as HTMLInputElement;
    const setter = Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value')!.set!;
    await act(async () => {
      setter.call(alpha, '3');
      alpha.dispatchEvent(new Event('input', { bubbles: true }));
    });
    await act(async () => $('[data-testid=settings-save]')!.click());
    expect(container.querySelector('[data-testid=settings-pipeline] [data-testid=field-error]')!.textContent).toMatch(/must be <=\s*2/);
    expect(calls.some((c) => c.name === 'settings.set')).toBe(false);
    await act(async () => {
      setter.call(alpha, '0.25');
      alpha.dispatchEvent(new Event('input', { bubbles: true }));
    });
    await act(async () => $('[data-testid=settings-save]')!.click());
    expect(calls.find((c) => c.name === 'settings.set')!.input).toMatchObject({ pipeline: { alpha: 0.25 }, parallel: 2, queue: null });
    expect($('[data-testid=settings-saved]')).not.toBeNull();
  });

  it('saves a queue URL and shows the engine refusing one beside the field', async () => {
    await act(async () => $('[data-testid=nav-settings]')!.click());
    const queue = $('[data-testid=settings-queue]') as HTMLInputElement;
    expect(container.querySelector('[data-testid=settings-execution]')!.textContent).toContain('password in OPENCODER_REDIS_PASSWORD');
    const setter = Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value')!.set!;
    const type = async (text: string) =>
      act(async () => {
        setter.call(queue, text);
        queue.dispatchEvent(new Event('input', { bubbles: true }));
      });
    await type('redis://example.com:6379');
    await act(async () => $('[data-testid=settings-save]')!.click());
    expect(container.querySelector('[data-testid=settings-execution] [data-testid=field-error]')!.textContent).toContain('without a password');
    expect($('[data-testid=settings-form]')!.textContent).toContain('The engine did not accept the settings');
    expect($('[data-testid=settings-saved]')).toBeNull();
    await type(' redis://127.0.0.1:6379 ');
    await act(async () => $('[data-testid=settings-save]')!.click());
    expect(calls.filter((c) => c.name === 'settings.set').at(-1)!.input).toMatchObject({ queue: 'redis://127.0.0.1:6379' });
    expect($('[data-testid=settings-saved]')).not.toBeNull();
    expect(container.querySelector('[data-testid=settings-execution] [data-testid=field-error]')).toBeNull();
  });
});
