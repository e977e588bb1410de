// The built shell (scripts/build-app.ts), checked without an Electron binary: the bundles are built into a
// layout like the packaged app's (…/app.asar.unpacked/dist/app, node_modules beside it, resources elsewhere),
// then the preload runs in a sandbox-like context, the main process runs against a fake `electron`, and the
// engine bundle runs under Node the way the utility process would run it — indexing the sample repository
// and validating a task in the sandbox, which needs the worker bundles, the wasm files and the Python harness
// in the places the engine looks for them.

import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import vm from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CALLS } from '../../contract/index.ts';
import { CONTENT_SECURITY_POLICY } from '../../app/security.ts';
import { buildApp, ROOT, type BuildResult } from '../../scripts/build-app.ts';

const FIXTURES = path.join(ROOT, 'test', 'app', 'fixtures');
let tmp: string;
let built: BuildResult;

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'oc-app-bundle-'));
  const unpacked = path.join(tmp, 'resources', 'app.asar.unpacked');
  fs.mkdirSync(unpacked, { recursive: true });
  fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(unpacked, 'node_modules'), 'junction');
  fs.copyFileSync(path.join(ROOT, 'package.json'), path.join(unpacked, 'package.json')); // asarUnpack: package.json
  built = await buildApp({ outDir: path.join(unpacked, 'dist', 'app'), sourcemap: false });
}, 120_000);

afterAll(() => {
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

describe('build-app', () => {
  it('produces the main process, the preload, the engine entry and its siblings', () => {
    for (const f of [
      'main.cjs',
      'preload.cjs',
      'engine-process.js',
      'worker.js',
      'parse-worker.js',
      'tree-sitter.wasm',
      'package.json',
      path.join('py', '_opencoder_harness.py'),
    ]) {
      expect(built.files, f).toContain(f);
    }
    expect(JSON.parse(fs.readFileSync(path.join(built.outDir, 'package.json'), 'utf8')).type).toBe('commonjs');
  });

  it('the sandboxed preload needs nothing but electron, and exposes only the contract', async () => {
    const code = fs.readFileSync(path.join(built.outDir, 'preload.cjs'), 'utf8');
    expect(code.length).toBeLessThan(20_000); // call names only, not the zod schemas
    const exposed = new Map<string, { call(n: unknown, i?: unknown): Promise<{ ok: boolean; error?: { code: string } }>; subscribe(l: unknown): () => void }>();
    const invoked: unknown[][] = [];
    const electron = {
      contextBridge: { exposeInMainWorld: (k: string, v: never) => exposed.set(k, v) },
      ipcRenderer: {
        invoke: async (...args: unknown[]) => (invoked.push(args), { ok: true, value: null }),
        on: () => {},
      },
    };
    const required: string[] = [];
    const sandboxRequire = (id: string) => {
      required.push(id);
      if (id === 'electron') return electron;
      throw new Error(`module not found: ${id}`);
    };
    const module = { exports: {} };
    vm.runInNewContext(code, { require: sandboxRequire, module, exports: module.exports, console });
    expect(required).toEqual(['electron']);
    expect([...exposed.keys()]).toEqual(['opencoder']);
    const api = exposed.get('opencoder')!;
    expect(Object.keys(api).sort()).toEqual(['call', 'subscribe']);
    expect((await api.call('shell.openExternal', {})).error?.code).toBe('not-found');
    expect(invoked).toEqual([]);
    for (const name of Object.keys(CALLS)) expect((await api.call(name, {})).ok, name).toBe(true);
    expect(invoked).toHaveLength(Object.keys(CALLS).length);
    expect(invoked[0]).toEqual(['opencoder:call', 'app.info', {}]);
  });

  it('the main process wires window, engine, IPC, keys, picker, crash restart and shutdown (fake electron)', () => {
    const home = path.join(tmp, 'home-main');
    fs.mkdirSync(home);
    const out = execFileSync(process.execPath, [path.join(FIXTURES, 'main-smoke.cjs'), built.outDir, home], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: 60_000,
    });
    const r = JSON.parse(out.trim().split('\n').at(-1)!);
    expect(r.error).toBeUndefined();
    const c = r.checks;
    const calls = r.calls.map((x: unknown[]) => x[0]);
    expect(r.calls[0]).toEqual(['app.setPath', 'userData', home]);
    expect(r.calls[1]).toEqual(['app.setPath', 'sessionData', path.join(home, 'chromium')]);
    expect(calls).toContain('app.enableSandbox');
    expect(r.calls.find((x: unknown[]) => x[0] === 'protocol.registerSchemesAsPrivileged')[1][0]).toMatchObject({
      scheme: 'app',
      privileges: { standard: true, secure: true },
    });
    expect(c.window.url).toBe('app://opencoder/index.html');
    expect(c.window.webPreferences).toMatchObject({
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      webSecurity: true,
      webviewTag: false,
      spellcheck: false,
      preload: path.join(built.outDir, 'preload.cjs'),
    });
    // engine: forked from the unpacked bundle, told where everything is
    expect(r.forks[0]).toEqual({ modulePath: path.join(built.outDir, 'engine-process.js'), serviceName: 'OpenCoder engine' });
    expect(c.engineInit.init).toMatchObject({ dbPath: path.join(home, 'workspace.db'), dataDir: home, keyStorage: 'session', folderPicker: true });
    // IPC
    expect(c.appInfo).toEqual({ ok: true, value: { echo: 'app.info' } });
    expect(c.unknownName.error.code).toBe('not-found');
    for (const k of ['untrustedWindow', 'subframe', 'foreignPage']) expect(c[k].error.code, k).toBe('unauthorized');
    expect(r.engineReceived.filter((m: { type: string }) => m.type === 'call').map((m: { name: string }) => m.name)).not.toContain('fs.readFile');
    // keys.set: validated and trimmed in main; no keychain here, so nothing is written
    expect(c.keysSetInvalid.error.code).toBe('invalid-input');
    expect(c.keysSet).toEqual({ ok: true, value: { openai: true, gemini: false } });
    expect(r.engineReceived).toContainEqual({
      type: 'call',
      id: expect.any(Number),
      name: 'keys.set',
      input: { provider: 'openai', key: 'sk-session-key-1234567890' },
    });
    expect(c.keysFileWritten).toBe(false);
    expect(r.sentToRenderer[0][1]).toMatchObject({ type: 'notice', level: 'warning', message: expect.stringContaining('this session only') });
    // picker
    expect(c.repoPick).toEqual({ ok: true, value: { path: '/home/me/picked' } });
    expect(r.calls).toContainEqual(['dialog.showOpenDialog', ['openDirectory', 'dontAddToRecent']]);
    // navigation, windows, permissions, CSP, app://
    expect(c.sameOriginPrevented).toBe(0);
    expect(c.navigationsPrevented).toBe(5);
    expect(c.windowOpen).toEqual([{ action: 'deny' }, { action: 'deny' }, { action: 'deny' }]);
    expect(r.calls.filter((x: unknown[]) => x[0] === 'shell.openExternal')).toEqual([
      ['shell.openExternal', 'https://example.org/paper'],
      ['shell.openExternal', 'https://example.org/doc'],
    ]);
    expect(c.webviewPrevented).toBe(true);
    expect(c.permissions).toEqual([
      ['media', false],
      ['clipboard-sanitized-write', true],
    ]);
    expect(c.permissionCheck).toBe(false);
    expect(c.devicePermission).toBe(false);
    expect(c.headers).toEqual({ 'Content-Security-Policy': [CONTENT_SECURITY_POLICY] });
    expect(c.protocol.status).toBe(200);
    expect(c.protocol.csp).toBe(CONTENT_SECURITY_POLICY);
    expect(c.protocolOtherHost).toBe(404);
    expect(c.protocolPost).toBe(405);
    // crash → the call in flight fails clearly, the renderer hears it, the engine restarts with the picked root
    expect(c.inFlightAfterCrash).toMatchObject({ ok: false, error: { code: 'engine', message: expect.stringContaining('exit code 9') } });
    expect(r.sentToRenderer.map((x: unknown[]) => x[1])).toContainEqual(
      expect.objectContaining({ type: 'notice', level: 'error', message: expect.stringContaining('being restarted') }),
    );
    expect(c.forksAfterCrash).toBe(2);
    expect(c.restartInit.init.allowedRoots).toEqual(['/home/me/picked']);
    expect(c.restartInit.init.keys).toEqual({ openai: 'sk-session-key-1234567890' });
    expect(c.afterRestart).toEqual({ ok: true, value: { echo: 'repo.list' } });
    // quit waits for the engine to close
    expect(c.quitPrevented).toBe(true);
    expect(c.shutdownSent).toBe(true);
  });

  it('the engine bundle runs as the utility process would: index the sample repository, validate a task', () => {
    const home = path.join(tmp, 'home-engine');
    fs.mkdirSync(home);
    const out = execFileSync(process.execPath, [path.join(FIXTURES, 'engine-smoke.cjs'), built.outDir, home, path.join(ROOT, 'resources')], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: 240_000,
      // a clean environment, as Electron gives the utility process: no tsx loader, no vitest worker state
      env: { PATH: process.env.PATH ?? '', HOME: home },
    });
    const steps = out
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { step: string; ok: boolean; [k: string]: unknown });
    expect(steps.filter((s) => !s.ok)).toEqual([]);
    expect(steps.map((s) => s.step)).toEqual(['ready', 'app.info', 'index', 'task']);
    const info = steps[1]!;
    expect(info.sampleRepo).toBe(path.join(ROOT, 'resources', 'sample-repo'));
    expect(info.encoder).toBe('opencoder-subtoken-hash-256');
    expect(info.version).toBe(JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')).version);
    const index = steps[2]! as unknown as { files: number; embedded: number; units: Record<string, number> };
    expect(index.files).toBeGreaterThan(0);
    expect(index.embedded).toBeGreaterThan(0);
    expect(index.units.function).toBeGreaterThan(0);
    const task = steps[3]! as unknown as { candidates: number; verdict: string };
    expect(task.candidates).toBeGreaterThan(0);
    // the candidate really went through the Python harness
    expect(task.verdict).toMatch(/"totalTests":\d+/);
  });
});
