// @vitest-environment happy-dom
// The model picker in Settings (GGUF files, detected local servers, hosted providers with key status; a choice
// sets the backend, Save keeps it; Detect asks again) and the notice the first-run screen and the Task view show
// while no model is configured. Against a fake engine API that records every call.

import { act } from 'react';
import { describe, expect, it } from 'vitest';
import type { CallName, EngineApi, ModelSources, ReportModel, Settings } from '../../contract/index.ts';
import { App } from '../../renderer/src/App.tsx';
import { createAppStore, installStore } from '../../renderer/src/store.ts';
import { condName } from '../../renderer/src/views/experiment/Charts.tsx';
import { APP_INFO } from './app-info.ts';
import { mountPerTest } from './dom.ts';

const OFFLINE: Settings = { backend: { kind: 'offline' }, sandbox: 'auto', encoder: 'auto', parallel: 2, pipeline: {} };
const MODELS_DIR = '/home/me/.local/share/opencoder/models';
const GGUF = `${MODELS_DIR}/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf`;

const SOURCES: ModelSources = {
  modelsDir: { path: MODELS_DIR, exists: true },
  ggufFiles: [{ name: 'qwen2.5-coder-1.5b-instruct-q4_k_m.gguf', path: GGUF, bytes: 1_117_320_736 }],
  servers: [
    {
      tool: 'ollama',
      label: 'Ollama 0.12.6',
      host: '127.0.0.1',
      port: 11434,
      baseURL: 'http://127.0.0.1:11434/v1',
      version: '0.12.6',
      models: ['llama3.2:latest', 'qwen2.5-coder:7b'],
    },
  ],
  detectedAt: '2026-12-01T10:00:00.000Z',
  ports: [11434, 8080, 1234, 8000],
  providers: [
    { id: 'openai', label: 'OpenAI', keyPresent: false, defaultModel: 'gpt-4o-mini' },
    { id: 'gemini', label: 'Gemini', keyPresent: true, defaultModel: 'gemini-2.5-flash' },
  ],
};

const LM_STUDIO = {
  tool: 'lm-studio' as const,
  label: 'LM Studio',
  host: '127.0.0.1' as const,
  port: 1234,
  baseURL: 'http://127.0.0.1:1234/v1',
  version: null,
  models: ['qwen2.5-coder-7b-instruct'],
};

const m = mountPerTest();

async function start(settings: Settings, sources: ModelSources = SOURCES) {
  const calls: { name: CallName; input: unknown }[] = [];
  let current = settings;
  const answers: Partial<Record<CallName, unknown>> = {
    'app.info': APP_INFO,
    'repo.list': [],
    'job.list': [],
    'methods.list': { methods: [{ id: 'opencoder', label: 'OpenCoder', family: 'method', description: '' }], ladder: [], factorial: [] },
    'experiment.list': [],
    'tasks.list': { manifest: APP_INFO.sampleManifest, hash: 'abc123', tasks: [] },
    'prices.get': { source: 'built-in defaults', file: '/home/me/prices.json', models: {} },
    'models.list': sources,
    'models.detect': { ...sources, servers: [...sources.servers, LM_STUDIO] },
  };
  const api: EngineApi = {
    async call(name, input) {
      calls.push({ name, input });
      if (name === 'settings.get') return current as never;
      if (name === 'settings.set') return (current = { ...current, ...(input as Partial<Settings>) }) as never;
      if (!(name in answers)) throw new Error(`unexpected ${name}`);
      return structuredClone(answers[name]) as never;
    },
    subscribe: () => () => {},
  };
  const store = createAppStore(api);
  installStore(store, api);
  await act(async () => {
    await store.getState().init();
  });
  await act(async () => m.root.render(<App />));
  return { calls, store };
}

const click = (el: HTMLElement | null | undefined) =>
  act(async () => {
    if (!el) throw new Error('nothing to click');
    el.click();
  });

const checked = () => m.$('[role=radiogroup] [aria-checked=true]')?.dataset.testid;
const value = (testId: string) => (m.$(`[data-testid=${testId}]`) as HTMLInputElement | null)?.value;

describe('the model picker', () => {
  it('lists the GGUF files, the detected servers with their models and the providers with their key status', async () => {
    await start(OFFLINE);
    await click(m.$('[data-testid=nav-settings]'));
    const gguf = m.q('[data-testid=pick-gguf]');
    expect(gguf.map((b) => b.textContent)).toEqual(['qwen2.5-coder-1.5b-instruct-q4_k_m.gguf 1.0 GiB']);
    expect(m.$('[data-testid=models-dir]')!.textContent).toBe(MODELS_DIR);
    const server = m.$('[data-testid=local-server]')!;
    expect(server.dataset.tool).toBe('ollama');
    expect(server.textContent).toContain('Ollama 0.12.6 http://127.0.0.1:11434/v1');
    expect(m.q('[data-testid=pick-server-model]').map((b) => b.textContent)).toEqual(['llama3.2:latest', 'qwen2.5-coder:7b']);
    expect(m.$('[data-testid=provider-openai-key]')!.textContent).toBe('no key: add one under API keys');
    expect(m.$('[data-testid=provider-gemini-key]')!.textContent).toBe('key set');
    expect(m.$('[data-testid=models-detected-at]')!.textContent).toMatch(/on 127\.0\.0\.1 and ::1, ports 11434, 8080, 1234, 8000/);
    // the offline choice carries the one name of the retrieval-only baseline
    expect(m.$('[data-testid=backend-offline]')!.textContent).toMatch(/^no model \(retrieval-only baseline\)/);
    expect(checked()).toBe('backend-offline');
  });

  it('choosing a GGUF file sets the llama-cpp backend with its path; Save keeps it', async () => {
    const { calls } = await start(OFFLINE);
    await click(m.$('[data-testid=nav-settings]'));
    await click(m.$('[data-testid=pick-gguf]'));
    expect(checked()).toBe('backend-llama-cpp');
    expect(value('settings-model')).toBe(GGUF);
    expect(m.$('[data-testid=pick-gguf]')!.getAttribute('aria-pressed')).toBe('true');
    expect(m.$('[data-testid=settings-base-url]')).toBeNull();
    await click(m.$('[data-testid=settings-save]'));
    expect(calls.find((c) => c.name === 'settings.set')!.input).toMatchObject({ backend: { kind: 'llama-cpp', model: GGUF } });
    expect(m.$('[data-testid=settings-saved]')).not.toBeNull();
  });

  it('choosing a server’s model sets the OpenAI-compatible backend with its base URL; Save keeps it', async () => {
    const { calls } = await start(OFFLINE);
    await click(m.$('[data-testid=nav-settings]'));
    await click(m.q('[data-testid=pick-server-model]')[1]);
    expect(checked()).toBe('backend-local');
    expect(value('settings-base-url')).toBe('http://127.0.0.1:11434/v1');
    expect(value('settings-model')).toBe('qwen2.5-coder:7b');
    await click(m.$('[data-testid=settings-save]'));
    expect(calls.find((c) => c.name === 'settings.set')!.input).toMatchObject({
      backend: { kind: 'openai', baseURL: 'http://127.0.0.1:11434/v1', model: 'qwen2.5-coder:7b' },
    });
    // a hosted provider: its backend, with the default model
    await click(m.$('[data-testid=pick-provider-gemini]'));
    expect(checked()).toBe('backend-gemini');
    expect(value('settings-model')).toBe('');
  });

  it('Detect asks the engine again and shows what it found; nothing is asked before it is pressed', async () => {
    const { calls } = await start(OFFLINE);
    await click(m.$('[data-testid=nav-settings]'));
    expect(calls.filter((c) => c.name === 'models.detect')).toHaveLength(0);
    await click(m.$('[data-testid=models-detect]'));
    expect(calls.filter((c) => c.name === 'models.detect')).toHaveLength(1);
    expect(m.q('[data-testid=local-server]').map((s) => s.dataset.tool)).toEqual(['ollama', 'lm-studio']);
  });

  it('with nothing found, says how to get each kind of model', async () => {
    await start(OFFLINE, { ...SOURCES, ggufFiles: [], servers: [], detectedAt: null, modelsDir: { path: MODELS_DIR, exists: false } });
    await click(m.$('[data-testid=nav-settings]'));
    expect(m.$('[data-testid=gguf-empty]')!.textContent).toBe('None yet (the folder does not exist yet): put a .gguf file in this folder, then press Detect.');
    expect(m.$('[data-testid=servers-empty]')!.textContent).toMatch(/Start Ollama, LM Studio, llama.cpp’s llama-server or vLLM, then press Detect/);
    expect(m.$('[data-testid=models-detected-at]')!.textContent).toMatch(/not looked for yet: press Detect/);
  });
});

describe('the no-model notice', () => {
  it('on the first-run screen and the Task view: results are the retrieval-only baseline, and how to add a model', async () => {
    await start(OFFLINE);
    expect(m.$('[data-testid=view-repository]')).not.toBeNull();
    const notice = m.$('[data-testid=no-model-notice]')!;
    expect(notice.textContent).toContain('No model is configured.');
    expect(notice.textContent).toContain('Results come from the retrieval-only baseline (no model): candidates adapted');
    expect(notice.textContent).toMatch(/put a GGUF file in the models folder .*models and choose it in Settings/);
    expect(m.$('[data-testid=no-model-dir]')!.textContent).toBe(MODELS_DIR);
    expect(notice.textContent).toMatch(/start Ollama or LM Studio .* and press Detect in Settings/);
    expect(notice.textContent).toContain('or add an OpenAI or Gemini API key in Settings');
    expect(m.$('[data-testid=no-model-found]')!.textContent).toBe(
      'Found: 1 GGUF file in the models folder; Ollama 0.12.6 at http://127.0.0.1:11434/v1 (2 models); a Gemini key. Choose one in Settings.',
    );
    await click(m.$('[data-testid=nav-task]'));
    expect(m.$('[data-testid=task-view] [data-testid=no-model-notice]')).not.toBeNull();
    await click(m.$('[data-testid=no-model-settings]'));
    expect(m.$('[data-testid=view-settings]')).not.toBeNull();
  });

  it('is not shown when a model is configured, and the engine is not asked for model sources', async () => {
    const { calls } = await start({ ...OFFLINE, backend: { kind: 'llama-cpp', model: GGUF } });
    expect(m.$('[data-testid=no-model-notice]')).toBeNull();
    await click(m.$('[data-testid=nav-task]'));
    expect(m.$('[data-testid=no-model-notice]')).toBeNull();
    expect(calls.some((c) => c.name === 'models.list')).toBe(false);
    await click(m.$('[data-testid=nav-settings]'));
    expect(checked()).toBe('backend-llama-cpp');
    expect(value('settings-model')).toBe(GGUF);
  });
});

describe('charts comparing runs of different backends', () => {
  it('name each series with its backend; runs of one backend keep the short names', () => {
    const run = (id: string, backend: ReportModel['runs'][number]['backend']) => ({ id, backend }) as ReportModel['runs'][number];
    const mixed = {
      runs: [
        run('run-aaaaaa', {
          id: 'offline:retrieve-and-adapt@1',
          provider: 'offline',
          model: 'retrieve-and-adapt@1',
          label: 'offline retrieve-and-adapt generator',
        }),
        run('run-bbbbbb', { id: 'openai:gpt-4o-mini', provider: 'openai', model: 'gpt-4o-mini', label: 'OpenAI gpt-4o-mini' }),
      ],
    } as ReportModel;
    expect(condName(mixed, { runId: 'run-aaaaaa', label: 'OpenCoder' })).toBe('OpenCoder (aaaaaa) · no model (retrieval-only baseline)');
    expect(condName(mixed, { runId: 'run-bbbbbb', label: 'OpenCoder' })).toBe('OpenCoder (bbbbbb) · OpenAI gpt-4o-mini');
    const same = { runs: [mixed.runs[1]!, run('run-cccccc', mixed.runs[1]!.backend)] } as ReportModel;
    expect(condName(same, { runId: 'run-cccccc', label: 'OpenCoder' })).toBe('OpenCoder (cccccc)');
  });
});
