// A manifest with a schema problem (here `source` written as a string, where the README's table says
// it is an object) is a 400 invalid-input over HTTP that names the file, the line, the task and the
// field, with an example of the right shape: never a 500 (issue 17, item 7a).

import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../../main/host/server.ts';
import { createEngineService, type EngineService } from '../../main/host/service.ts';
import { tmpDir } from '../helpers/tmp-repo.ts';

const dir = tmpDir('oc-manifest-errors-');
const inside = path.join(dir, 'inside');
const manifest = path.join(inside, 'tasks.jsonl');
const task = { id: 't1', repo: 'repo', file: 'x.py', qualname: 'f', requirement: 'r', signature: 'def f(x):', test_command: 'python3 -m unittest' };

let service: EngineService;
let server: RunningServer;

beforeAll(async () => {
  fs.mkdirSync(path.join(inside, 'repo'), { recursive: true });
  fs.writeFileSync(path.join(inside, 'repo', 'x.py'), 'def f(x):\n    return x\n');
  service = await createEngineService({
    dbPath: path.join(dir, 'w.db'),
    mode: 'browser',
    allowedRoots: [inside],
    settingsFile: path.join(dir, 'settings.json'),
    dataDir: path.join(dir, 'data'),
    demo: false,
    env: {},
  });
  server = await startServer({ service, port: 0, rendererDir: dir });
});

afterAll(async () => {
  await server?.close();
  await service?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

async function call(name: string, input: unknown): Promise<{ status: number; body: { ok: boolean; error?: { code: string; message: string } } }> {
  const r = await fetch(`http://127.0.0.1:${server.port}/api/call/${name}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${server.token}`, 'content-type': 'application/json' },
    body: JSON.stringify(input),
  });
  return { status: r.status, body: (await r.json()) as never };
}

describe('a manifest schema problem over HTTP', () => {
  it('source as a string: 400 invalid-input naming file:line, task and field, with the object shape', async () => {
    fs.writeFileSync(manifest, JSON.stringify({ ...task, source: 'mybench' }) + '\n');
    for (const [name, input] of [
      ['tasks.list', { manifest }],
      ['experiment.estimate', { kind: 'run', manifest, methods: ['baseline-rag'] }],
      ['task.run', { manifest, taskId: 't1', methods: ['baseline-rag'] }],
    ] as const) {
      const r = await call(name, input);
      expect(r.status, name).toBe(400);
      expect(r.body.error?.code, name).toBe('invalid-input');
      expect(r.body.error?.message, name).toBe(
        `${manifest}:1 (task t1): source: must be a JSON object ("source": {"benchmark": "my-bench", "id": "42"}), not a string`,
      );
    }
  });

  it('every bad line at once, each with its line: still a 400', async () => {
    const lines = [
      JSON.stringify({ ...task, source: { benchmark: 'ok' } }),
      JSON.stringify({ ...task, id: 't2', source: ['a'] }),
      JSON.stringify({ ...task, id: 't3', qualname: 7 }),
    ];
    fs.writeFileSync(manifest, lines.join('\n') + '\n');
    const r = await call('tasks.list', { manifest });
    expect(r.status).toBe(400);
    expect(r.body.error?.code).toBe('invalid-input');
    expect(r.body.error?.message).toContain(`${manifest} has 2 problems:`);
    expect(r.body.error?.message).toContain(`${manifest}:2 (task t2): source: must be a JSON object`);
    expect(r.body.error?.message).toContain(`${manifest}:3 (task t3): qualname: Invalid input: expected string, received number`);
  });
});
