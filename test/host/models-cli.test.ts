// `opencoder models` through the real command line (node bin/opencoder.js): a loopback mock speaking Ollama's wire
// protocol is detected and its models listed beside the GGUF files of the models folder and the providers' key
// status; then `opencoder generate --backend openai --base-url <detected> --model <listed>` generates through the
// OpenAI SDK against it. With nothing listening, the command says so and names the retrieval-only baseline.

import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMock, type MockServer } from '../generate/mock-http.ts';
import { OLLAMA_VERSION, ollamaHandler, ollamaServerAt } from '../generate/ollama-mock.ts';
import { copyIndexedSample } from '../helpers/indexed-sample.ts';
import { tmpDir } from '../helpers/tmp-repo.ts';

const execFileAsync = promisify(execFile);
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const SAMPLE_MANIFEST = path.join(ROOT, 'resources', 'sample-repo', 'tasks.jsonl');
const SECRET = 'sk-test-models-cli-0123456789abcdef';

const dir = tmpDir('oc-models-cli-');
const models = path.join(dir, 'models');
let ollama: MockServer;

/** Runs the CLI as a user does, in a home of its own; never throws (the exit code is returned). */
async function opencoder(args: string[], env: Record<string, string> = {}) {
  const base = { PATH: process.env.PATH ?? '', HOME: dir, OPENCODER_HOME: path.join(dir, 'home') };
  try {
    const r = await execFileAsync(process.execPath, [path.join(ROOT, 'bin', 'opencoder.js'), ...args], {
      cwd: ROOT,
      env: { ...base, ...env },
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
    });
    return { code: 0, stdout: r.stdout, stderr: r.stderr };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof e.code === 'number' ? e.code : -1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
  }
}

const lastJson = (stdout: string) => JSON.parse(stdout.trim().split('\n').at(-1)!);

beforeAll(async () => {
  ollama = await startMock(
    ollamaHandler({ text: (_req, r) => `\`\`\`python\ndef add_tax(amount, tax_class="standard"):\n    return amount  # sample ${r}\n\`\`\`` }),
  );
  fs.mkdirSync(models, { recursive: true });
  fs.writeFileSync(path.join(models, 'qwen2.5-coder-0.5b-instruct-q4_k_m.gguf'), Buffer.concat([Buffer.from('GGUF'), Buffer.alloc(4092)]));
});
afterAll(async () => {
  await ollama.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('opencoder models', () => {
  it('detects the Ollama mock and lists its models, the GGUF files and key status; generate then uses what it listed', async () => {
    const port = Number(new URL(ollama.origin).port);
    const listed = await opencoder(['models', '--models', models, '--port', String(port), '--json'], { OPENAI_API_KEY: SECRET });
    expect(listed.code, listed.stderr).toBe(0);
    const doc = lastJson(listed.stdout);
    expect(doc).toMatchObject({
      ok: true,
      command: 'models',
      modelsDir: { path: models, exists: true },
      ggufFiles: [{ name: 'qwen2.5-coder-0.5b-instruct-q4_k_m.gguf', path: path.join(models, 'qwen2.5-coder-0.5b-instruct-q4_k_m.gguf'), bytes: 4096 }],
      ports: [port],
      providers: [
        { id: 'openai', keyPresent: true },
        { id: 'gemini', keyPresent: false },
      ],
    });
    expect(doc.servers).toEqual([ollamaServerAt(port)]);
    expect(listed.stdout).not.toContain(SECRET);

    const text = await opencoder(['models', '--models', models, '--port', String(port)], { OPENAI_API_KEY: SECRET });
    expect(text.stdout).toContain(`GGUF models in ${models}:`);
    expect(text.stdout).toMatch(/qwen2\.5-coder-0\.5b-instruct-q4_k_m\.gguf\s+4\.0 KiB/);
    expect(text.stdout).toContain(`Ollama ${OLLAMA_VERSION} at http://127.0.0.1:${port}/v1 — 2 model(s): llama3.2:latest, qwen2.5-coder:7b`);
    expect(text.stdout).toContain(`use: opencoder generate --backend openai --base-url http://127.0.0.1:${port}/v1 --model llama3.2:latest`);
    expect(text.stdout).toMatch(/OpenAI: key set/);
    expect(text.stdout).toMatch(/Gemini: no key — set GEMINI_API_KEY/);
    expect(text.stdout).not.toContain(SECRET);

    // What detection found, used as it says: the OpenAI SDK against the server's /v1, with a model it listed.
    const server = doc.servers[0];
    const model = server.models.find((m: string) => m.startsWith('qwen'));
    const db = await copyIndexedSample(path.join(dir, 'w.db'), { encoder: 'default' });
    const before = ollama.requests.length;
    const gen = await opencoder([
      'generate',
      ...['--manifest', SAMPLE_MANIFEST, '--id', 'inventory/add_tax', '--db', db, '--encoder', 'default', '--quiet', '--json'],
      ...['--backend', 'openai', '--base-url', server.baseURL, '--model', model, '--candidates', '2'],
    ]);
    expect(gen.code, gen.stderr).toBe(0);
    const out = lastJson(gen.stdout);
    expect(out).toMatchObject({ ok: true, command: 'generate', backend: `openai:${model}` });
    expect(out.result.candidates).toHaveLength(2);
    expect(out.result.candidates[0].code).toMatch(/^def add_tax\(amount, tax_class="standard"\):/);
    // the samples' log-probabilities came back (the mock honours logprobs, as Ollama does), so entropy was measured
    expect(out.result.uncertainty.entropy.value).toEqual(expect.any(Number));
    const chats = ollama.requests.slice(before).filter((r) => r.url === '/v1/chat/completions');
    // The task's decomposition (asked for as JSON), then the samples: Ollama returns one choice per request (it
    // ignores n), so the second sample is a call of its own. Each went through the SDK.
    expect(chats.map((c) => [c.body.response_format?.type ?? 'text', c.body.n])).toEqual([
      ['json_schema', 1],
      ['text', 2],
      ['text', 1],
    ]);
    for (const c of chats) {
      expect(c.method).toBe('POST');
      expect(c.body).toMatchObject({ model });
      expect(String(c.headers['user-agent'])).toMatch(/^OpenAI\/JS /);
    }
  });

  it('with nothing listening, says none was found and that runs use the retrieval-only baseline', async () => {
    const closed = await startMock(() => ({ json: {} }));
    const port = Number(new URL(closed.origin).port);
    await closed.close();
    const r = await opencoder(['models', '--models', path.join(dir, 'empty'), '--port', String(port)]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`GGUF models in ${path.join(dir, 'empty')} (the folder does not exist yet):`);
    expect(r.stdout).toContain(`Local servers (127.0.0.1 and ::1, ports ${port}):\n  none found — start Ollama`);
    expect(r.stdout).toContain('No model found, so runs use “no model (retrieval-only baseline)” (--backend offline)');
    const bad = await opencoder(['models', '--port', 'eleven']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--port must be a port number \(1 to 65535\), got "eleven"/);
  });
});
