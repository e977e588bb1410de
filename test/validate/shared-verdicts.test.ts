// Verdicts shared beyond one validator (queue workers share them through Redis): a candidate already judged for
// the same files, task, limit and expectations is taken from the store, not run again; other files are not.

import { describe, expect, it } from 'vitest';
import type { Verdict } from '../../main/model/verdict.ts';
import { createValidator, type SharedVerdictStore } from '../../main/validate/validator.ts';
import { GOOD, templateTask } from './helpers.ts';

function memoryStore(scope: string) {
  const map = new Map<string, Verdict>();
  const puts: string[] = [];
  const store: SharedVerdictStore = {
    scope: () => scope,
    get: async (k) => {
      const v = map.get(k);
      return v ? { verdict: v } : null;
    },
    put: async (k, v) => {
      puts.push(k);
      map.set(k, v);
    },
  };
  return { store, map, puts };
}

describe('shared verdicts', () => {
  it('a second validator takes the verdict from the store; another scope runs it again', async () => {
    const shared = memoryStore('bundle-a');
    const task = templateTask('shared/f');
    const a = await createValidator({ sharedVerdicts: shared.store, sandbox: { mode: 'weak' } });
    const b = await createValidator({ sharedVerdicts: shared.store, sandbox: { mode: 'weak' } });
    try {
      const first = await a.validate(task, GOOD);
      expect(first.status).toBe('passed');
      const afterA = shared.puts.length;
      expect(afterA).toBe(3); // the reference check's two runs (in-process and isolated) and the candidate's
      const second = await b.validate(task, GOOD);
      expect(shared.puts.length).toBe(afterA); // nothing ran in b
      expect({ ...second, cached: false }).toEqual({ ...first, cached: false });

      const other = memoryStore('bundle-b');
      for (const [k, v] of shared.map) other.map.set(k, v); // the same entries, under files named otherwise
      const c = await createValidator({ sharedVerdicts: other.store, sandbox: { mode: 'weak' } });
      try {
        expect((await c.validate(task, GOOD)).status).toBe('passed');
        expect(other.puts.length).toBe(3);
      } finally {
        c.close();
      }
    } finally {
      a.close();
      b.close();
    }
  }, 60_000);
});
