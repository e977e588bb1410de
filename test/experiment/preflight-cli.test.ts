// Every task of a run is checked before the first model call: a task the validator could never judge (its
// target file is missing, its interpreter is not there, its test command is not one the validator runs)
// stops `opencoder run` at once, with every problem named by manifest line, and the model is never called.

import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli } from '../helpers/cli.ts';
import { startMock, type MockServer } from '../generate/mock-http.ts';
import { GOOD_OPENAI_KEY, openAiHandler } from '../generate/wire.ts';
import { makeRepo } from '../helpers/tmp-repo.ts';

const TASK = {
  repo: '.',
  file: 'calc.py',
  qualname: 'add',
  requirement: 'Add two numbers.',
  signature: 'def add(a, b):',
  test_command: 'python3 -m unittest test_calc',
};

let repo: string;
let mock: MockServer;
const env = process.env.OPENAI_API_KEY;

beforeAll(async () => {
  repo = makeRepo({
    'calc.py': 'def add(a, b):\n    raise NotImplementedError\n',
    'test_calc.py': 'import unittest\nfrom calc import add\n\nclass T(unittest.TestCase):\n    def test_add(self):\n        self.assertEqual(add(2, 3), 5)\n',
  });
  mock = await startMock(openAiHandler({ text: () => '```python\ndef add(a, b):\n    return a + b\n```' }));
  process.env.OPENAI_API_KEY = GOOD_OPENAI_KEY;
});
afterAll(async () => {
  await mock?.close();
  fs.rmSync(repo, { recursive: true, force: true });
  if (env === undefined) delete process.env.OPENAI_API_KEY;
  else process.env.OPENAI_API_KEY = env;
});

const runArgs = (manifest: string, db: string, extra: string[] = []) => [
  'run',
  '--manifest',
  manifest,
  '--db',
  db,
  '--method',
  'baseline-rag',
  '--backend',
  'openai',
  '--base-url',
  `${mock.origin}/v1`,
  '--model',
  'gpt-4o-mini',
  '--decompose',
  'fallback',
  '--candidates',
  '1',
  '--quiet',
  ...extra,
];

describe('run: the whole manifest is checked before the first model call', () => {
  it('refuses a run with a missing target file and a missing interpreter, naming each by line; --ids runs the rest', async () => {
    const manifest = path.join(repo, 'tasks.jsonl');
    const lines = [
      { ...TASK, id: 'calc/ok' },
      { ...TASK, id: 'calc/gone', file: 'nowhere.py' },
      { ...TASK, id: 'calc/nopython', python: 'venv-that-is-not-there/bin/python3' },
    ];
    fs.writeFileSync(manifest, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
    const db = path.join(repo, 'runs.db');
    const before = mock.requests.length;
    const refused = await cli(runArgs(manifest, db));
    expect(refused.code).not.toBe(0);
    expect(refused.text).toMatch(/2 of 3 task\(s\) cannot be validated, so nothing was started \(no model was called\)/);
    expect(refused.text).toMatch(/tasks\.jsonl:2: task calc\/gone: its target file nowhere\.py is not in /);
    expect(refused.text).toMatch(/tasks\.jsonl:3: task calc\/nopython: its interpreter \S+venv-that-is-not-there\/bin\/python3 is not an executable file/);
    expect(mock.requests.length).toBe(before);
    const runs = await cli(['runs', '--db', db, '--json']);
    expect(runs.code).toBe(0);
    expect(JSON.parse(runs.out.at(-1)!).runs ?? []).toHaveLength(0);

    // The error's own advice works: the task that can be judged runs, and the model is called for it.
    const ok = await cli(runArgs(manifest, db, ['--ids', 'calc/ok']));
    expect(ok.code, ok.text).toBe(0);
    expect(mock.requests.length).toBeGreaterThan(before);
  }, 120_000);

  it('refuses a test command the validator cannot run, and lists every bad line of the manifest at once', async () => {
    const manifest = path.join(repo, 'bad-commands.jsonl');
    const lines = [
      { ...TASK, id: 'calc/ok' },
      { ...TASK, id: 'calc/make', test_command: 'make test' },
      { ...TASK, id: 'calc/shell', test_command: 'bash run_tests.sh' },
    ];
    fs.writeFileSync(manifest, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
    const before = mock.requests.length;
    const refused = await cli(runArgs(manifest, path.join(repo, 'runs2.db')));
    expect(refused.code).not.toBe(0);
    expect(refused.text).toMatch(/bad-commands\.jsonl has 2 problems:/);
    expect(refused.text).toMatch(/bad-commands\.jsonl:2 \(task calc\/make\): unsupported test_command "make test"/);
    expect(refused.text).toMatch(/bad-commands\.jsonl:3 \(task calc\/shell\): unsupported test_command "bash run_tests\.sh"/);
    expect(mock.requests.length).toBe(before);
  }, 60_000);
});
