// Browser mode over real sockets: token, Host and Origin checks, status codes, the event WebSocket while the
// sample repository is indexed, a task run and a report through HTTP, static files, and `opencoder serve`.

import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { EngineEvent, JobInfo, RepoSummary, TaskResult } from '../../contract/index.ts';
import { sampleRepoPath } from '../../main/host/paths.ts';
import { startServer, type RunningServer } from '../../main/host/server.ts';
import { createEngineService, type EngineService } from '../../main/host/service.ts';
import { tmpDir } from '../helpers/tmp-repo.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const SAMPLE = sampleRepoPath();
const MANIFEST = path.join(SAMPLE, 'tasks.jsonl');
const dir = tmpDir('oc-server-');
const renderer = path.join(dir, 'renderer');
fs.mkdirSync(path.join(renderer, 'assets'), { recursive: true });
fs.writeFileSync(path.join(renderer, 'index.html'), '<!doctype html><title>OpenCoder UI</title><script type="module" src="./assets/app.js"></script>');
fs.writeFileSync(path.join(renderer, 'assets', 'app.js'), 'console.log("ui")');
fs.writeFileSync(path.join(dir, 'secret.txt'), 'not for the browser');

let service: EngineService;
let server: RunningServer;

beforeAll(async () => {
  service = await createEngineService({
    dbPath: path.join(dir, 'w.db'),
    mode: 'browser',
    allowedRoots: [path.join(dir, 'inside')],
    settingsFile: path.join(dir, 'settings.json'),
    dataDir: path.join(dir, 'data'),
    demo: false,
    env: {},
  });
  server = await startServer({ service, port: 0, rendererDir: renderer });
});

afterAll(async () => {
  await server?.close();
  await service?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

interface Reply {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
  json: () => any;
}

/** A raw HTTP request (fetch cannot set Host). */
function request(method: string, urlPath: string, opts: { headers?: Record<string, string>; body?: string | Buffer } = {}): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port: server.port, method, path: urlPath, headers: opts.headers ?? {} }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        resolve({ status: res.statusCode!, headers: res.headers, body, json: () => JSON.parse(body) });
      });
    });
    req.on('error', reject);
    if (opts.body !== undefined) req.write(opts.body);
    req.end();
  });
}

function call(name: string, input: unknown, token: string | null = server.token): Promise<Reply> {
  return request('POST', `/api/call/${name}`, {
    headers: { 'Content-Type': 'application/json', ...(token !== null ? { Authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(input),
  });
}

async function value<T>(name: string, input: unknown = {}): Promise<T> {
  const r = await call(name, input);
  expect(r.status, r.body).toBe(200);
  const doc = r.json();
  expect(doc.ok).toBe(true);
  return doc.value as T;
}

/** Opens the event socket; resolves when open, rejects with the refusal's HTTP status. */
function connect(query: string, headers: Record<string, string> = {}): Promise<{ ws: WebSocket; events: EngineEvent[] }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`ws://127.0.0.1:${server.port}/api/events${query}`, { headers });
    const events: EngineEvent[] = [];
    ws.on('message', (m) => events.push(JSON.parse(m.toString())));
    ws.on('open', () => resolve({ ws, events }));
    ws.on('unexpected-response', (_req, res) => {
      reject(Object.assign(new Error(`refused with ${res.statusCode}`), { status: res.statusCode }));
      ws.terminate();
    });
    ws.on('error', (err) => reject(err));
  });
}

function waitForJob(events: EngineEvent[], jobId: string, timeoutMs = 120_000): Promise<JobInfo> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const tick = () => {
      const end = events.find((e): e is Extract<EngineEvent, { type: 'job' }> => e.type === 'job' && e.job.id === jobId && e.job.state !== 'running');
      if (end) return resolve(end.job);
      if (Date.now() - started > timeoutMs) return reject(new Error(`job ${jobId} did not finish; events: ${JSON.stringify(events.slice(-5))}`));
      setTimeout(tick, 50);
    };
    tick();
  });
}

describe('API authentication and validation', () => {
  it('refuses a call without a token, or with a wrong one, with 401 and a message saying where the token is', async () => {
    const none = await call('app.info', {}, null);
    expect(none.status).toBe(401);
    expect(none.json()).toMatchObject({ ok: false, error: { code: 'unauthorized' } });
    expect(none.json().error.message).toMatch(/opencoder serve/);
    expect(none.json().error.message).toMatch(/Authorization: Bearer/);
    const wrong = await call('app.info', {}, `${server.token}x`);
    expect(wrong.status).toBe(401);
    const short = await call('app.info', {}, 'x');
    expect(short.status).toBe(401);
  });

  it('answers a valid call with 200 and the value; keys are booleans only', async () => {
    const info = await value<{ mode: string; keys: unknown; contract: number }>('app.info');
    expect(info).toMatchObject({ mode: 'browser', keys: { openai: false, gemini: false }, contract: 1 });
  });

  it('invalid input is 400 naming the field; bad JSON is 400; unknown call is 404', async () => {
    const bad = await call('repo.index', { path: 42 });
    expect(bad.status).toBe(400);
    expect(bad.json().error.code).toBe('invalid-input');
    expect(bad.json().error.issues.map((i: { path: string }) => i.path)).toContain('path');
    const notJson = await request('POST', '/api/call/app.info', { headers: { Authorization: `Bearer ${server.token}` }, body: '{nope' });
    expect(notJson.status).toBe(400);
    const unknown = await call('repo.nothing', {});
    expect(unknown.status).toBe(404);
    expect(unknown.json().error.code).toBe('not-found');
    const get = await request('GET', '/api/call/app.info', { headers: { Authorization: `Bearer ${server.token}` } });
    expect(get.status).toBe(405);
  });

  it('a path outside the allowed roots is 403 forbidden-path naming it, also through a symlink', async () => {
    const etc = await call('repo.index', { path: '/etc' });
    expect(etc.status).toBe(403);
    expect(etc.json().error.code).toBe('forbidden-path');
    expect(etc.json().error.message).toContain('/etc');
    fs.mkdirSync(path.join(dir, 'inside'), { recursive: true });
    const link = path.join(dir, 'inside', 'escape');
    fs.symlinkSync('/etc', link);
    const viaLink = await call('repo.index', { path: link });
    expect(viaLink.status).toBe(403);
    expect(viaLink.json().error.message).toContain(link);
    // The test folder's root is not allowed, only dir/inside.
    const sibling = await call('tasks.list', { manifest: path.join(dir, 'secret.txt') });
    expect(sibling.status).toBe(403);
  });

  it('a foreign Host header is 403 (DNS rebinding), a foreign Origin is 403, a body over 1 MiB is 413', async () => {
    const rebound = await request('POST', '/api/call/app.info', {
      headers: { Host: `evil.example:${server.port}`, Authorization: `Bearer ${server.token}` },
      body: '{}',
    });
    expect(rebound.status).toBe(403);
    expect(rebound.json().error.message).toMatch(/DNS-rebinding/);
    const staticRebound = await request('GET', '/', { headers: { Host: 'evil.example' } });
    expect(staticRebound.status).toBe(403);
    const localhost = await request('POST', '/api/call/app.info', {
      headers: { Host: `localhost:${server.port}`, Authorization: `Bearer ${server.token}` },
      body: '{}',
    });
    expect(localhost.status).toBe(200);
    const origin = await request('POST', '/api/call/app.info', {
      headers: { Origin: 'http://evil.example', Authorization: `Bearer ${server.token}` },
      body: '{}',
    });
    expect(origin.status).toBe(403);
    const big = await request('POST', '/api/call/app.info', {
      headers: { Authorization: `Bearer ${server.token}` },
      body: Buffer.alloc(1024 * 1024 + 10, 0x20),
    });
    expect(big.status).toBe(413);
  });
});

describe('static files', () => {
  it('serves the renderer build with a strict CSP and an SPA fallback, never outside its folder, without a token', async () => {
    const root = await request('GET', '/');
    expect(root.status).toBe(200);
    expect(root.body).toContain('OpenCoder UI');
    const policy = root.headers['content-security-policy'] as string;
    expect(policy).toContain("default-src 'self'");
    expect(policy).toContain("script-src 'self'");
    expect(policy).not.toMatch(/script-src[^;]*unsafe/);
    expect(policy).toContain("frame-ancestors 'none'");
    const js = await request('GET', '/assets/app.js');
    expect(js.status).toBe(200);
    expect(js.headers['content-type']).toMatch(/javascript/);
    const route = await request('GET', '/runs/run-123', { headers: { Accept: 'text/html' } });
    expect(route.body).toContain('OpenCoder UI');
    expect((await request('GET', '/assets/missing.js')).status).toBe(404);
    for (const p of ['/../secret.txt', '/%2e%2e/secret.txt', '/assets/%2e%2e/%2e%2e/secret.txt', '/..%2fsecret.txt']) {
      const r = await request('GET', p);
      expect(r.body, p).not.toContain('not for the browser');
    }
  });

  it('without a build, / says how to build the UI', async () => {
    const empty = path.join(dir, 'no-build');
    fs.mkdirSync(empty, { recursive: true });
    const bare = await startServer({ service, port: 0, rendererDir: empty });
    try {
      const r = await new Promise<string>((resolve, reject) =>
        http
          .get({ host: '127.0.0.1', port: bare.port, path: '/' }, (res) => {
            let body = '';
            res.on('data', (c) => (body += c));
            res.on('end', () => resolve(body));
          })
          .on('error', reject),
      );
      expect(r).toContain('npm run build:renderer');
    } finally {
      await bare.close();
    }
  });
});

describe('events and a workflow through HTTP', () => {
  it('refuses the event socket without a valid token or from a foreign origin', async () => {
    await expect(connect('')).rejects.toMatchObject({ status: 401 });
    await expect(connect('?token=wrong')).rejects.toMatchObject({ status: 401 });
    await expect(connect(`?token=${encodeURIComponent(server.token)}`, { Origin: 'http://evil.example' })).rejects.toMatchObject({ status: 403 });
  });

  it('pushes job events while the sample repository is indexed, through to done; then repo.list shows counts', async () => {
    const { ws, events } = await connect(`?token=${encodeURIComponent(server.token)}`, { Origin: `http://127.0.0.1:${server.port}` });
    try {
      const { jobId } = await value<{ jobId: string }>('repo.index', { path: SAMPLE });
      const end = await waitForJob(events, jobId);
      expect(end).toMatchObject({ state: 'done', kind: 'index', error: null });
      expect(end.result?.repoId).toBeGreaterThan(0);
      const mine = events.filter((e): e is Extract<EngineEvent, { type: 'job' }> => e.type === 'job' && e.job.id === jobId);
      expect(mine[0]!.job.state).toBe('running');
      const phases = new Set(mine.map((e) => e.job.progress?.phase).filter(Boolean));
      expect([...phases]).toEqual(expect.arrayContaining(['scan', 'parse', 'embed']));
      expect(mine.some((e) => (e.job.progress?.total ?? 0) > 0)).toBe(true);
      expect(events.some((e) => e.type === 'repos-changed')).toBe(true);

      const repos = await value<RepoSummary[]>('repo.list');
      const sample = repos.find((r) => r.root === fs.realpathSync(SAMPLE))!;
      expect(sample.files).toBeGreaterThan(3);
      expect(sample.units.function).toBeGreaterThan(0);
      expect(sample.chunks).toBeGreaterThan(0);
      expect(sample.apiEntries).toBeGreaterThan(0);
      expect(sample.embedded).toBeGreaterThan(0);
      expect(sample.encoder).toBeTruthy();
      expect(sample.lastIndexedAt).not.toBeNull();
    } finally {
      ws.close();
    }
  });

  it('task.run runs one sample task; experiment.result has evidence and the prompt; report.render has the charts', async () => {
    const { ws, events } = await connect(`?token=${encodeURIComponent(server.token)}`);
    try {
      const { jobId } = await value<{ jobId: string }>('task.run', { manifest: MANIFEST, taskId: 'inventory/apply_discount', methods: ['opencoder'] });
      const end = await waitForJob(events, jobId);
      expect(end, JSON.stringify(end)).toMatchObject({ state: 'done', kind: 'task' });
      const runId = end.result!.runId!;
      expect(events.some((e) => e.type === 'runs-changed')).toBe(true);

      const result = await value<TaskResult>('experiment.result', { runId, taskId: 'inventory/apply_discount', condition: 'opencoder' });
      expect(result.candidates.length).toBeGreaterThan(0);
      expect(result.detail?.evidence.length).toBeGreaterThan(0);
      expect(result.detail!.evidence.some((e) => typeof e.text === 'string' && e.text.length > 0)).toBe(true);
      expect(result.detail?.prompt?.length).toBeGreaterThan(0);

      const model = await value<{ runs: { id: string }[]; conditions: { condition: string }[] }>('experiment.model', { runIds: [runId] });
      expect(model.runs[0]!.id).toBe(runId);
      expect(model.conditions.map((c) => c.condition)).toEqual(['opencoder']);

      const html = await value<{ files: { name: string; mime: string; content: string }[] }>('report.render', { runIds: [runId], format: 'html' });
      expect(html.files).toHaveLength(1);
      expect(html.files[0]!.mime).toBe('text/html');
      for (const chart of ['pass-at-k', 'uncertainty-vs-correctness']) expect(html.files[0]!.content).toContain(`data-chart="${chart}"`);
      const csv = await value<{ files: { name: string }[] }>('report.render', { runIds: [runId], format: 'csv' });
      expect(csv.files).toHaveLength(6);

      const missing = await call('experiment.model', { runIds: ['run-nope'] });
      expect(missing.status).toBe(404);
    } finally {
      ws.close();
    }
  }, 150_000);
});

describe('opencoder serve', () => {
  let child: ChildProcess | null = null;
  afterAll(() => {
    if (child && child.exitCode === null) child.kill('SIGKILL');
  });

  it('prints one JSON line with the URL and token as soon as it listens, answers app.info, and stops cleanly on SIGTERM', async () => {
    const db = path.join(dir, 'serve.db');
    child = spawn(
      process.execPath,
      [path.join(ROOT, 'bin', 'opencoder.js'), 'serve', '--json', '--port', '0', '--db', db, '--no-demo', '--renderer', renderer],
      {
        cwd: ROOT,
        env: { ...process.env, OPENCODER_HOME: path.join(dir, 'home') },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let out = '';
    let err = '';
    child.stderr!.on('data', (c) => (err += c));
    const first = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no JSON line in time; stderr: ${err}`)), 60_000);
      child!.stdout!.on('data', (c) => {
        out += c;
        const nl = out.indexOf('\n');
        if (nl >= 0) {
          clearTimeout(timer);
          resolve(out.slice(0, nl));
        }
      });
      child!.once('exit', (code) => reject(new Error(`serve exited with ${code}: ${err}`)));
    });
    const doc = JSON.parse(first);
    expect(doc).toMatchObject({ ok: true, command: 'serve' });
    expect(doc.url).toBe(`http://127.0.0.1:${doc.port}`);
    expect(doc.openUrl).toBe(`http://127.0.0.1:${doc.port}/#token=${doc.token}`);
    expect(doc.token).toMatch(/^[A-Za-z0-9_-]{32}$/);

    const unauth = await fetch(`${doc.url}/api/call/app.info`, { method: 'POST', body: '{}' });
    expect(unauth.status).toBe(401);
    const r = await fetch(`${doc.url}/api/call/app.info`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${doc.token}`, 'Content-Type': 'application/json' },
      body: '{}',
    });
    expect(r.status).toBe(200);
    const info = (await r.json()) as { ok: boolean; value: { dbPath: string; mode: string } };
    expect(info.value).toMatchObject({ mode: 'browser', dbPath: db });

    const exited = new Promise<number | null>((resolve) => child!.once('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    const last = out.trim().split('\n').at(-1)!;
    expect(JSON.parse(last)).toMatchObject({ ok: true, command: 'serve', closed: true });
  }, 90_000);
});
