// Detection of local model servers (main/generate/local-servers.ts) against loopback mocks on ephemeral ports:
// Ollama found and its models listed, the other tools told apart, nothing reported for a free port, a web app, a
// JSON API that is not a model list or a redirect; any host but 127.0.0.1 / ::1 refused before a socket opens.
// And the GGUF files of a models folder.

import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { detectLocalServers, listGgufFiles, loopbackHost, portsFromEnv, probeLocalServer } from '../../main/generate/local-servers.ts';
import { tmpDir } from '../helpers/tmp-repo.ts';
import { startMock, type MockServer } from './mock-http.ts';
import { llamaServerHandler, lmStudioHandler, ollamaHandler, ollamaServerAt, vllmHandler } from './ollama-mock.ts';

const portOf = (m: MockServer) => Number(new URL(m.origin).port);

/** A port nothing listens on: one the system just handed out and took back. */
async function freePort(): Promise<number> {
  const s = http.createServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const port = (s.address() as AddressInfo).port;
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return port;
}

const mocks: MockServer[] = [];
let ollama: MockServer;
const dir = tmpDir('oc-local-servers-');

beforeAll(async () => {
  ollama = await startMock(ollamaHandler());
  mocks.push(ollama);
});
afterAll(async () => {
  await Promise.all(mocks.map((m) => m.close()));
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('detectLocalServers', () => {
  it('finds an Ollama server on a loopback port, says which it is and lists its models', async () => {
    const port = portOf(ollama);
    const found = await detectLocalServers({ ports: [port] });
    expect(found).toEqual([ollamaServerAt(port)]);
    expect(found[0]!.models).toEqual(['llama3.2:latest', 'qwen2.5-coder:7b']);
    const asked = ollama.requests.map((r) => `${r.method} ${r.url}`);
    expect(asked).toEqual(expect.arrayContaining(['GET /api/tags', 'GET /api/version']));
    expect(ollama.requests.every((r) => r.method === 'GET')).toBe(true);
  });

  it('tells llama.cpp, LM Studio and vLLM apart by what each says of itself', async () => {
    const [llama, lms, vllm] = await Promise.all([startMock(llamaServerHandler()), startMock(lmStudioHandler()), startMock(vllmHandler())]);
    mocks.push(llama, lms, vllm);
    const found = await detectLocalServers({ ports: [portOf(llama), portOf(lms), portOf(vllm)] });
    expect(found.map((s) => [s.tool, s.label, s.models])).toEqual([
      ['llama.cpp', 'llama.cpp server b6500-abc1234', ['qwen2.5-coder-1.5b-instruct-q4_k_m.gguf']],
      ['lm-studio', 'LM Studio', ['qwen2.5-coder-7b-instruct']],
      ['vllm', 'vLLM 0.11.0', ['Qwen/Qwen2.5-Coder-7B-Instruct']],
    ]);
  });

  it('reports nothing for a free port, a web app, a JSON API that lists no models, or a redirect off the machine', async () => {
    const web = await startMock(() => ({ headers: { 'content-type': 'text/html' }, text: '<!doctype html><title>dev server</title>' }));
    const api = await startMock(() => ({ json: { status: 'ok', data: 'not a model list' } }));
    const redirect = await startMock(() => ({ status: 302, headers: { location: 'http://192.0.2.1/v1/models' }, text: '' }));
    mocks.push(web, api, redirect);
    const free = await freePort();
    expect(await detectLocalServers({ ports: [free, portOf(web), portOf(api), portOf(redirect)] })).toEqual([]);
    // each was asked (the free port could not be), none was followed anywhere
    for (const m of [web, api, redirect]) expect(m.requests.map((r) => r.url)).toContain('/v1/models');
    expect(redirect.requests.every((r) => r.method === 'GET')).toBe(true);
  });

  it('refuses any host that is not 127.0.0.1 or ::1, before probing anything', async () => {
    const before = ollama.requests.length;
    for (const host of ['192.168.1.10', 'localhost', '0.0.0.0', '127.0.0.2', 'example.com', '::ffff:127.0.0.1']) {
      await expect(detectLocalServers({ hosts: ['127.0.0.1', host], ports: [portOf(ollama)] })).rejects.toThrow(
        new RegExp(`Refusing to probe "${host.replace(/\./g, '\\.')}": OpenCoder looks for model servers on this machine only \\(127\\.0\\.0\\.1 and ::1\\)`),
      );
      await expect(probeLocalServer(host, portOf(ollama))).rejects.toThrow(/Refusing to probe/);
    }
    expect(ollama.requests.length).toBe(before);
    expect(loopbackHost('[::1]')).toBe('::1');
    expect(loopbackHost(' 127.0.0.1 ')).toBe('127.0.0.1');
    await expect(detectLocalServers({ ports: [0] })).rejects.toThrow(/A port is a whole number from 1 to 65535, got 0/);
  });

  it('takes the ports to probe from OPENCODER_LOCAL_PORTS, and names a bad value', () => {
    expect(portsFromEnv({})).toBeNull();
    expect(portsFromEnv({ OPENCODER_LOCAL_PORTS: '11435, 8081 8081' })).toEqual([11435, 8081]);
    expect(() => portsFromEnv({ OPENCODER_LOCAL_PORTS: '11434,ollama' })).toThrow(
      /OPENCODER_LOCAL_PORTS must list port numbers \(e\.g\. 11434,8080\), got "ollama"/,
    );
  });
});

describe('listGgufFiles', () => {
  it('lists the .gguf files directly in the models folder with their sizes, nothing else', () => {
    const models = path.join(dir, 'models');
    fs.mkdirSync(path.join(models, 'unixcoder-base'), { recursive: true });
    fs.writeFileSync(path.join(models, 'b-coder.Q4_K_M.GGUF'), Buffer.alloc(2048));
    fs.writeFileSync(path.join(models, 'a-coder.gguf'), Buffer.from('GGUF0123'));
    fs.writeFileSync(path.join(models, 'notes.txt'), 'x');
    fs.writeFileSync(path.join(models, 'unixcoder-base', 'model.onnx'), 'x');
    expect(listGgufFiles(models)).toEqual([
      { name: 'a-coder.gguf', path: path.join(models, 'a-coder.gguf'), bytes: 8 },
      { name: 'b-coder.Q4_K_M.GGUF', path: path.join(models, 'b-coder.Q4_K_M.GGUF'), bytes: 2048 },
    ]);
    expect(listGgufFiles(path.join(dir, 'no-such-folder'))).toEqual([]);
  });
});
