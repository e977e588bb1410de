// A written task whose requirement (or signature, test command, name or file) is only spaces is refused by the
// engine itself, naming the field, before anything runs — not just by the form; a blank task id likewise.

import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CallError, CustomTask, JobInfo } from '../../contract/index.ts';
import type { EngineService } from '../../main/host/service.ts';
import { ok, openService } from '../helpers/service-calls.ts';
import { tmpDir, writeFiles } from '../helpers/tmp-repo.ts';

const dir = tmpDir('oc-blank-');
let repo: string;
let s: EngineService;

beforeAll(async () => {
  repo = path.join(dir, 'repo');
  writeFiles(repo, { 'pkg/size.py': 'def human(n):\n    return str(n)\n' });
  s = await openService(dir, 'home');
});
afterAll(async () => {
  await s?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const task = (over: Partial<CustomTask>): CustomTask => ({
  repo,
  file: 'pkg/size.py',
  qualname: 'human',
  signature: 'def human(n: int) -> str:',
  requirement: 'Format n bytes with binary prefixes.',
  test_command: 'python3 -m unittest',
  ...over,
});

async function refusal(input: unknown): Promise<CallError> {
  const r = await s.call('task.run', input);
  if (r.ok) throw new Error(`task.run was accepted: ${JSON.stringify(r.value)}`);
  return r.error;
}

describe('task.run refuses blank written fields', () => {
  it.each([
    ['requirement', '   ', /the requirement is only spaces or blank lines/],
    ['requirement', ' \n\t \n', /the requirement is only spaces or blank lines/],
    ['signature', '  \n  ', /the signature is only spaces/],
    ['test_command', '    ', /the test command is only spaces/],
    ['qualname', '  ', /the qualified name is only spaces/],
    ['file', '   ', /the file is only spaces/],
  ] as const)('custom.%s of only white space (%j) is invalid input naming the field', async (field, value, message) => {
    const e = await refusal({ custom: task({ [field]: value }), methods: ['opencoder'] });
    expect(e.code).toBe('invalid-input');
    expect(e.issues).toEqual([{ path: `custom.${field}`, message: expect.stringMatching(message) }]);
    expect(e.message).toContain(`custom.${field}`);
  });

  it('an empty field is "required", not also "only spaces"', async () => {
    const e = await refusal({ custom: task({ requirement: '' }), methods: ['opencoder'] });
    expect(e.issues).toEqual([{ path: 'custom.requirement', message: 'the requirement is required' }]);
  });

  it('a blank task id is refused too', async () => {
    const manifest = path.join(dir, 'tasks.jsonl');
    fs.writeFileSync(manifest, '');
    const e = await refusal({ manifest, taskId: '   ', methods: ['opencoder'] });
    expect(e.code).toBe('invalid-input');
    expect(e.issues).toEqual([{ path: 'taskId', message: 'a task id cannot be only spaces' }]);
  });

  it('nothing was started by the refused calls, and text with words around spaces is accepted by the schema', async () => {
    expect(await ok<JobInfo[]>(s, 'job.list')).toEqual([]);
    const r = await s.call('task.run', { custom: task({ requirement: '  Format n bytes.  ' }), methods: ['no-such-method'] });
    // Past the schema: what refuses it now is the unknown method, not the requirement.
    expect(r.ok).toBe(false);
    expect(JSON.stringify(r.ok ? null : r.error)).not.toMatch(/requirement/);
  });
});
