// The verdict cache keys a candidate by its exact bytes: two candidates share a verdict only when they are the same
// text. Whitespace inside a string literal is data, so a normalised key (line ends trimmed) let a wrong candidate take
// a correct one's verdict (and the other way round). Byte-identical candidates still reuse one run, and say so.

import { describe, expect, it } from 'vitest';
import { executeSamples } from '../../main/host/ops/passk.ts';
import type { Verdict } from '../../main/model/verdict.ts';
import { createValidator, type SharedVerdictStore } from '../../main/validate/validator.ts';
import { templateTask } from './helpers.ts';

// f(x) = x + len(pad): one newline in pad is right; a space before it (inside the string) makes every test fail.
const RIGHT = 'def f(x):\n    pad = """\n"""\n    return x + len(pad)\n';
const WRONG = 'def f(x):\n    pad = """ \n"""\n    return x + len(pad)\n';
// Outside any string, a trailing space changes nothing: both pass, each with a verdict of its own.
const RIGHT_SPACED = 'def f(x):  \n    pad = """\n"""\n    return x + len(pad)\n';

describe('verdict cache: the exact program', () => {
  it('two candidates differing only in whitespace inside a string get their own verdicts, in either order', async () => {
    const task = templateTask('cache/pad');
    for (const order of [
      [RIGHT, WRONG],
      [WRONG, RIGHT],
    ]) {
      const v = await createValidator();
      try {
        await v.referenceCheck(task);
        const before = v.use.judged;
        const [a, b] = [await v.validate(task, order[0]!), await v.validate(task, order[1]!)];
        const byCode = new Map([
          [order[0]!, a],
          [order[1]!, b],
        ]);
        expect(byCode.get(RIGHT)!.status).toBe('passed');
        expect(byCode.get(WRONG)!.status).toBe('failed');
        expect(b.cached).toBe(false);
        expect(v.use).toMatchObject({ judged: before + 2, reused: 0 });
      } finally {
        v.close();
      }
    }
  }, 120_000);

  it('a run of samples: one right, one wrong by a space inside a string, and a byte-identical copy reused', async () => {
    const task = templateTask('cache/pad-run');
    const samples = [RIGHT, WRONG, RIGHT, RIGHT_SPACED].map((code) => ({ code, passed: null }));
    const { executed, notJudged } = await executeSamples([{ set: { taskId: task.id, samples } as never, task }], { sandbox: 'auto', extract: false });
    expect(notJudged).toEqual([]);
    expect(executed[0]!.samples.map((s) => s.executed)).toEqual([true, false, true, true]);
  }, 120_000);

  it('byte-identical candidates are run once; the rest are counted as reused', async () => {
    const task = templateTask('cache/same');
    const v = await createValidator();
    try {
      const verdicts = await Promise.all([RIGHT, RIGHT, RIGHT].map((c) => v.validate(task, c)));
      expect(verdicts.map((x) => x.status)).toEqual(['passed', 'passed', 'passed']);
      // The reference check ran the reference (one or two runs); the candidate ran once and was reused twice.
      const judgedBefore = v.use.judged;
      expect(v.use.reused).toBe(2);
      await v.validate(task, RIGHT);
      expect(v.use).toMatchObject({ judged: judgedBefore, reused: 3 });
      await v.validate(task, RIGHT_SPACED);
      expect(v.use.judged).toBe(judgedBefore + 1);
    } finally {
      v.close();
    }
  }, 120_000);

  it('a shared verdict is taken only from the same sandbox mode, and one that is refused is run again', async () => {
    const map = new Map<string, Verdict>();
    let refuse = false;
    const store: SharedVerdictStore = {
      scope: () => 'bundle',
      get: async (k) => {
        const hit = map.get(k);
        if (!hit) return null;
        return refuse ? { refused: 'its seal does not open' } : { verdict: hit };
      },
      put: async (k, verdict) => void map.set(k, verdict),
    };
    const task = templateTask('cache/shared');
    const weak = await createValidator({ sharedVerdicts: store, sandbox: { mode: 'weak' } });
    const strong = await createValidator({ sharedVerdicts: store, sandbox: { mode: 'auto' } });
    const again = await createValidator({ sharedVerdicts: store, sandbox: { mode: 'weak' } });
    try {
      expect((await weak.validate(task, RIGHT)).status).toBe('passed');
      const kept = map.size;
      expect((await strong.validate(task, RIGHT)).status).toBe('passed');
      if (strong.sandbox.strength === 'strong') {
        // Another mode: nothing taken from the weak one's verdicts, all run again and kept under keys of its own.
        expect(strong.use.shared).toBe(0);
        expect(map.size).toBeGreaterThan(kept);
      }
      refuse = true;
      expect((await again.validate(task, RIGHT)).status).toBe('passed');
      expect(again.use.shared).toBe(0);
      expect(again.use.sharedRefused).toBeGreaterThan(0);
      expect(again.use.judged).toBeGreaterThan(0);
    } finally {
      weak.close();
      strong.close();
      again.close();
    }
  }, 180_000);
});
