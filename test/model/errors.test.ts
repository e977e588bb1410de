// The engine's error base: each failure carries a code from the contract's vocabulary, and the codes reach callers.

import { describe, expect, it } from 'vitest';
import { ErrorCodeSchema } from '../../contract/index.ts';
import { ERROR_CODES, errorCodeOf, OpenCoderError } from '../../main/model/errors.ts';
import { ManifestError } from '../../main/model/manifest.ts';
import { LlmError } from '../../main/generate/errors.ts';
import { TaskRunError } from '../../main/pipeline/run-task.ts';
import { RepositoryRootError } from '../../main/index/walk.ts';
import { IndexCancelledError } from '../../main/index/indexer.ts';

describe('engine errors', () => {
  it("the contract carries exactly the engine's codes", () => {
    expect(ErrorCodeSchema.options).toEqual([...ERROR_CODES]);
  });

  it('each error says what the caller can do about it, and keeps its own name and fields', () => {
    const m = new ManifestError('line 3: no "repo"', 'tasks.jsonl', 3);
    expect(m).toBeInstanceOf(OpenCoderError);
    expect([m.code, m.name, m.file, m.line]).toEqual(['invalid-input', 'ManifestError', 'tasks.jsonl', 3]);
    expect(new LlmError('missing_key', 'openai', 'no key').code).toBe('invalid-input');
    expect(new LlmError('server', 'openai', '500').code).toBe('engine');
    expect(new LlmError('cancelled', 'openai', 'stopped').code).toBe('cancelled');
    expect(new IndexCancelledError().code).toBe('cancelled');
    const root = new RepositoryRootError('not_found', '/nope', 'The repository folder does not exist: /nope');
    expect([root.code, root.reason, root.name]).toEqual(['not-found', 'not_found', 'RepositoryRootError']);
  });

  it('a failed stage keeps the code of what failed in it, and an abort reads as cancelled', () => {
    const cond = 'opencoder';
    expect(new TaskRunError('generate', 't1', cond, new LlmError('auth', 'openai', 'bad key')).code).toBe('invalid-input');
    const abort = Object.assign(new Error('aborted'), { name: 'AbortError' });
    const e = new TaskRunError('validate', 't1', cond, abort);
    expect([e.code, e.name]).toEqual(['cancelled', 'AbortError']);
    expect(errorCodeOf(new Error('plain'))).toBe('engine');
    expect(errorCodeOf('not even an error')).toBe('engine');
  });
});
