// The model picker's engine side (models.list, models.detect) and the Settings it leads to: at first start (no
// settings file) a loopback mock speaking Ollama's wire protocol is found without being asked for; otherwise only
// when asked. The server it found, chosen in Settings as an OpenAI-compatible backend, runs a task through the
// OpenAI SDK; a GGUF file chosen in Settings is the llama-cpp backend, looked up in the workspace's models folder.
// Settings saved before either existed still parse.

import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ModelSources, RunListItem, Settings, TaskResult } from '../../contract/index.ts';
import { sampleRepoPath } from '../../main/host/paths.ts';
import type { EngineService } from '../../main/host/service.ts';
import { startMock, type MockServer } from '../generate/mock-http.ts';
import { ollamaHandler, ollamaServerAt } from '../generate/ollama-mock.ts';
import { copyIndexedSample } from '../helpers/indexed-sample.ts';
import { ok, openService, settled } from '../helpers/service-calls.ts';
import { tmpDir } from '../helpers/tmp-repo.ts';

const MANIFEST = path.join(sampleRepoPath(), 'tasks.jsonl');
const dir = tmpDir('oc-models-service-');
const models = path.join(dir, 'models');
let ollama: MockServer;
let port: number;

beforeAll(async () => {
  ollama = await startMock(
    ollamaHandler({ text: (_req, r) => `\`\`\`python\ndef add_tax(amount, tax_class="standard"):\n    return amount  # sample ${r}\n\`\`\`` }),
  );
  port = Number(new URL(ollama.origin).port);
  fs.mkdirSync(models, { recursive: true });
  fs.writeFileSync(path.join(models, 'tiny.gguf'), Buffer.concat([Buffer.from('GGUF'), Buffer.alloc(60)]));
});
afterAll(async () => {
  await ollama.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** A service whose env points detection at the mock's port; `settings`: a settings file saved before it starts. */
function open(name: string, settings?: unknown): Promise<EngineService> {
  fs.mkdirSync(path.join(dir, name), { recursive: true });
  if (settings !== undefined) fs.writeFileSync(path.join(dir, name, 'settings.json'), JSON.stringify(settings));
  return openService(dir, name, { modelsDir: models, env: { OPENCODER_LOCAL_PORTS: String(port), GEMINI_API_KEY: 'AIza-test-models-service-123' } });
}

describe('models.list / models.detect', () => {
  it('at first start, finds the local server unasked and lists it with the GGUF files and key status', async () => {
    const s = await open('first');
    try {
      const found = await ok<ModelSources>(s, 'models.list');
      expect(found.servers).toEqual([ollamaServerAt(port)]);
      expect(found.detectedAt).toEqual(expect.any(String));
      expect(found.ports).toEqual([port]);
      expect(found.modelsDir).toEqual({ path: models, exists: true });
      expect(found.ggufFiles).toEqual([{ name: 'tiny.gguf', path: path.join(models, 'tiny.gguf'), bytes: 64 }]);
      expect(found.providers).toEqual([
        { id: 'openai', label: 'OpenAI', keyPresent: false, defaultModel: 'gpt-4o-mini' },
        { id: 'gemini', label: 'Gemini', keyPresent: true, defaultModel: 'gemini-2.5-flash' },
      ]);
      expect(JSON.stringify(found)).not.toContain('AIza-test');
    } finally {
      await s.close();
    }
  });

  it('with settings saved, probes nothing until asked; Detect then finds it', async () => {
    const before = ollama.requests.length;
    const s = await open('later', { backend: { kind: 'offline' }, sandbox: 'auto', encoder: 'auto', parallel: 2, pipeline: {} });
    try {
      const listed = await ok<ModelSources>(s, 'models.list');
      expect(listed).toMatchObject({ servers: [], detectedAt: null });
      expect(ollama.requests.length).toBe(before);
      const detected = await ok<ModelSources>(s, 'models.detect');
      expect(detected.servers).toEqual([ollamaServerAt(port)]);
      expect((await ok<ModelSources>(s, 'models.list')).servers).toEqual([ollamaServerAt(port)]);
      expect(await s.call('models.detect', { ports: [70000] })).toMatchObject({ ok: false, error: { code: 'invalid-input', issues: [{ path: 'ports.0' }] } });
    } finally {
      await s.close();
    }
  });
});

describe('Settings from the model picker', () => {
  let s: EngineService;
  beforeAll(async () => {
    await copyIndexedSample(path.join(dir, 'run', 'w.db'));
    // Settings as saved before local servers and GGUF files could be chosen: still read as they were.
    s = await open('run', {
      backend: { kind: 'openai', baseURL: 'http://127.0.0.1:8080/v1', model: 'old' },
      sandbox: 'auto',
      encoder: 'auto',
      parallel: 1,
      pipeline: {},
    });
  });
  afterAll(async () => {
    await s?.close();
  });

  it('keeps stored settings, takes a GGUF file (looked up in the models folder) and refuses one without a file', async () => {
    expect((await ok<Settings>(s, 'settings.get')).backend).toEqual({ kind: 'openai', baseURL: 'http://127.0.0.1:8080/v1', model: 'old' });
    const gguf = path.join(models, 'tiny.gguf');
    expect((await ok<Settings>(s, 'settings.set', { backend: { kind: 'llama-cpp', model: gguf } })).backend).toEqual({ kind: 'llama-cpp', model: gguf });
    expect(JSON.parse(fs.readFileSync(path.join(dir, 'run', 'settings.json'), 'utf8')).backend).toEqual({ kind: 'llama-cpp', model: gguf });
    const none = await s.call('settings.set', { backend: { kind: 'llama-cpp' } });
    expect(none).toMatchObject({
      ok: false,
      error: { code: 'invalid-input', issues: [{ path: 'backend.model', message: expect.stringMatching(/\.gguf file/) }] },
    });
    // A bare file name is the workspace's models folder's: a missing one is named with what the folder holds.
    await ok(s, 'settings.set', { backend: { kind: 'llama-cpp', model: 'missing.gguf' } });
    const run = await s.call('task.run', { manifest: MANIFEST, taskId: 'inventory/add_tax', methods: ['baseline-rag'] });
    expect(run).toMatchObject({ ok: false, error: { code: 'invalid-input' } });
    if (!run.ok) expect(run.error.message).toContain(`No GGUF model at ${path.join(models, 'missing.gguf')}. The models folder ${models} holds: tiny.gguf.`);
  });

  it('runs a task through the OpenAI SDK on the server detection found, chosen as an OpenAI-compatible backend', async () => {
    const { servers } = await ok<ModelSources>(s, 'models.detect');
    const server = servers.find((x) => x.tool === 'ollama')!;
    const model = server.models.find((m) => m.startsWith('qwen'))!;
    await ok(s, 'settings.set', { backend: { kind: 'openai', baseURL: server.baseURL, model }, pipeline: { candidates: 2, repairRounds: 0 } });
    const before = ollama.requests.length;
    const { jobId } = await ok<{ jobId: string }>(s, 'task.run', { manifest: MANIFEST, taskId: 'inventory/add_tax', methods: ['baseline-rag'] });
    const job = await settled(s, jobId);
    expect(job, JSON.stringify(job)).toMatchObject({ state: 'done', kind: 'task' });
    const runId = job.result!.runId!;
    const result = await ok<TaskResult>(s, 'experiment.result', { runId, taskId: 'inventory/add_tax', condition: 'baseline-rag' });
    expect(result.generation).toMatchObject({ backend: `openai:${model}`, model });
    expect(result.candidates[0]!.code).toMatch(/^def add_tax\(amount, tax_class="standard"\):/);
    const listed = (await ok<RunListItem[]>(s, 'experiment.list')).find((r) => r.id === runId)!;
    expect(listed.backend).toBe(`${model} at ${server.baseURL} (OpenAI-compatible)`);
    const chats = ollama.requests.slice(before).filter((r) => r.url === '/v1/chat/completions');
    expect(chats.length).toBeGreaterThanOrEqual(2);
    expect(chats.every((c) => c.body.model === model && String(c.headers['user-agent']).startsWith('OpenAI/JS '))).toBe(true);
  }, 120_000);
});
