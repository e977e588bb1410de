// What a failed verdict says, in two cases a red team found misworded: a run that stopped before its tests were done
// gets the runner's own words for where it stopped (a KeyboardInterrupt the target raises mid-run read "the code failed
// to load"), and a candidate's endless recursion, isolated, is its RecursionError (it read "a value too deeply nested
// to cross", as if the bridge had failed).

import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readManifest } from '../../main/benchmarks/manifest-file.ts';
import { createValidator, type Validator } from '../../main/validate/validator.ts';
import { loadReason } from '../../main/validate/verdict-report.ts';
import { SAMPLE_REPO, templateTask } from './helpers.ts';

describe('loadReason', () => {
  it('keeps what the runner names, with the error’s last line, and says "failed to load" otherwise', () => {
    expect(loadReason('the test run stopped: Traceback (most recent call last):\n  File "x.py", line 3\nKeyboardInterrupt: stop\n')).toBe(
      'the test run stopped: KeyboardInterrupt: stop',
    );
    expect(loadReason('the test run stopped: KeyboardInterrupt: stop')).toBe('the test run stopped: KeyboardInterrupt: stop');
    expect(loadReason('the tests failed to load: Traceback:\nNameError: name x is not defined')).toBe(
      'the tests failed to load: NameError: name x is not defined',
    );
    expect(loadReason('Traceback (most recent call last):\nImportError: no module named q')).toBe('the code failed to load: ImportError: no module named q');
  });
});

describe('a target that interrupts the test run', () => {
  let validator: Validator;
  beforeAll(async () => {
    validator = await createValidator({ validation: { timeoutFloorMs: 20_000 } });
  }, 60_000);
  afterAll(() => validator?.close());

  it('is failed, saying the target raised control flow the reference did not (a unittest repository, both isolations)', async () => {
    const task = readManifest(path.join(SAMPLE_REPO, 'tasks.jsonl')).tasks.find((t) => t.id === 'inventory/apply_discount')!;
    for (const isolation of ['isolated', 'in-process'] as const) {
      const v = await validator.validate(task, 'def apply_discount(amount, percent):\n    raise KeyboardInterrupt("stop")\n', { isolation });
      expect(v.status, isolation).toBe('failed');
      // The reference raises no KeyboardInterrupt there: control flow that belongs to the tests, named as such.
      expect(v.reason, isolation).toMatch(/^the target raised builtins\.KeyboardInterrupt in tests\.\S+, where the reference raised none/);
    }
  }, 60_000);

  it('endless recursion is the candidate’s RecursionError, isolated as in-process', async () => {
    const task = templateTask('words/recursion');
    for (const isolation of ['isolated', 'in-process'] as const) {
      const v = await validator.validate(task, 'def f(x):\n    return f(x)\n', { isolation });
      expect(v.status, isolation).toBe('failed');
      expect(v.reason, isolation).toMatch(/RecursionError: maximum recursion depth exceeded/);
      expect(
        v.sandbox.events.map((e) => e.kind),
        isolation,
      ).not.toContain('crossing');
    }
  }, 60_000);
});
